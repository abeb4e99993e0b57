"""Int8 (QDQ, static) quantisation of the exported YOLO corner-index detector.

Why: on this 2-core CPU (AVX-512 VNNI) the int8 detector ran 22 vs 28 ms a frame on a quiet
machine (about 1.8x faster under load) with card-set figures within 0.005 of the float one
(real valid F1 0.866 vs 0.868; see models/MODEL_CARD.md). Opt-in: `masta train --int8-detector`. The head's decoding (DFL, box arithmetic, the concat of box
pixels with 0..1 scores, and the last 1x1 convolutions) stays float: quantising the shared
output tensor zeroes the scores.

Calibration reads a few real *train* photos and synthetic training pots (never real valid).
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import cv2
import numpy as np

#: head nodes kept float: everything in the Detect module except its first two conv blocks
_HEAD = re.compile(r"/model\.\d+/")
_HEAD_CONV = re.compile(r"/cv[23]\.\d+/cv[23]\.\d+\.[01]/")


def _detect_module(names: list[str]) -> str | None:
    """The node-name prefix of the Detect module (the highest-numbered `/model.N/`)."""
    nums = [int(m.group(0)[7:-1]) for n in names if (m := _HEAD.search(n))]
    return f"/model.{max(nums)}/" if nums else None


def calibration_images(folders: list[Path], per_folder: int = 16) -> list[Path]:
    out: list[Path] = []
    for f in folders:
        out += sorted(Path(f).glob("*.jpg"))[:per_folder]
    return out


def quantize_detector(src: Path, dst: Path, images: list[Path], frame_hw: tuple[int, int] = (480, 640)) -> Path:
    """Write an int8 QDQ copy of detector `src` to `dst`, calibrated (min/max) on `images`."""
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                          QuantType, quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.detector import letterbox

    if not images:
        raise ValueError("int8 quantisation needs calibration images (real train photos or synthetic pots)")
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        model = onnx.load(str(pre))
        inp = model.graph.input[0]
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        hw = (dims[2], dims[3])
        names = [n.name for n in model.graph.node]
        head = _detect_module(names)
        keep_float = [n for n in names if head and head in n and not _HEAD_CONV.search(n)]

        class Reader(CalibrationDataReader):
            def __init__(self) -> None:
                self.it = iter(images)

            def get_next(self):
                for p in self.it:
                    img = cv2.imread(str(p))
                    if img is None:
                        continue
                    img = cv2.resize(img, (frame_hw[1], frame_hw[0]))
                    lb, _, _ = letterbox(img, hw)
                    x = lb[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
                    return {inp.name: np.ascontiguousarray(x)}
                return None

        quantize_static(str(pre), str(dst), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=keep_float)
    return dst
