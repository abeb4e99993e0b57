"""A tiny end-to-end training run: synthetic data -> detector -> classifier -> ONNX -> detect."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quick_training_run_produces_models_the_detector_can_load(tmp_path):
    env = dict(os.environ, YOLO_OFFLINE="1", YOLO_AUTOINSTALL="False",
               YOLO_CONFIG_DIR=str(tmp_path / "yolo"), MPLBACKEND="Agg")
    cmd = [sys.executable, "-m", "masta", "train", "--quick", "--work", str(tmp_path / "work"),
           "--data", str(tmp_path / "data"), "--models", str(tmp_path / "models"), "--int8-detector"]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    det_onnx = tmp_path / "models" / "card_index_detector.onnx"
    assert det_onnx.is_file() and (tmp_path / "models" / "card_index_classifier.onnx").is_file()
    assert (tmp_path / "work" / "classifier-synth.pt").is_file()  # the per-epoch checkpoint

    from vision.detector import CardDetector
    det = CardDetector(det_onnx, conf=0.0)
    out = det.detect(np.full((120, 160, 3), 128, np.uint8))
    assert isinstance(out, list)

    # the exported detector is int8 (QDQ) and its scores follow the float copy's
    import onnx
    import onnxruntime as ort
    ops = {n.op_type for n in onnx.load(str(det_onnx)).graph.node}
    assert "QuantizeLinear" in ops and "DequantizeLinear" in ops
    fp32 = tmp_path / "work" / "card_index_detector.fp32.onnx"
    assert fp32.is_file()
    x = np.random.default_rng(0).random((1, 3, 128, 128), dtype=np.float32)
    q = ort.InferenceSession(str(det_onnx)).run(None, {"images": x})[0][0]
    f = ort.InferenceSession(str(fp32)).run(None, {"images": x})[0][0]
    assert q.shape == f.shape
    assert np.corrcoef(q[:4].ravel(), f[:4].ravel())[0, 1] > 0.9  # boxes
    assert np.abs(q[4] - f[4]).mean() < 0.05 and q[4].max() <= 1.0  # scores, kept float at the end

    # run again: every stage is found done or resumed, nothing is retrained from scratch
    again = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "detector already trained" in again.stdout
    assert "synthetic crops already made" in again.stdout
