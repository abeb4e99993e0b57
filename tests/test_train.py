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
           "--data", str(tmp_path / "data"), "--models", str(tmp_path / "models")]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    det_onnx = tmp_path / "models" / "card_index_detector.onnx"
    assert det_onnx.is_file() and (tmp_path / "models" / "card_index_classifier.onnx").is_file()
    assert (tmp_path / "work" / "classifier-synth.pt").is_file()  # the per-epoch checkpoint

    from vision.detector import CardDetector
    det = CardDetector(det_onnx, conf=0.0)
    out = det.detect(np.full((120, 160, 3), 128, np.uint8))
    assert isinstance(out, list)

    # run again: every stage is found done or resumed, nothing is retrained from scratch
    again = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "detector already trained" in again.stdout
    assert "synthetic crops already made" in again.stdout
