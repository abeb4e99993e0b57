"""Int8 copies of the two card models for the CPU (ONNX Runtime static quantisation).

Why: on this 2-core CPU (AVX-512 VNNI) the int8 classifier reads a crop in ~0.16 ms instead
of ~0.42 ms and the int8 detector a 640x480 frame in ~17 ms instead of ~27 ms, with card-set
figures within the run-to-run spread of the float models (models/MODEL_CARD.md, "Int8").

- Detector: QDQ, per channel, activation ranges from the 99.999th percentile of their values
  on the calibration frames (min/max let a few outliers stretch the ranges: real valid F1 0.948
  against 0.957). The Detect head's decoding (DFL, box arithmetic, the concat of box pixels
  with 0..1 scores, the last 1x1 convolutions) stays float: quantising the shared output
  tensor zeroes the scores.
- Classifier: QOperator (fused int8 kernels, faster than QDQ here), per channel, min/max
  ranges from crops cut the way inference cuts them (the float detector's boxes, as found,
  looser and tighter).

Calibration reads real *train* photos and synthetic training pots, never the real `valid`
split nor a held-out deck.

Weights are quantised to 7 bits (`reduce_range`), not 8. On an x86 CPU without VNNI (AVX2
only: many AMD and older Intel machines) ONNX Runtime multiplies uint8 activations by int8
weights with `vpmaddubsw`, which adds two products into 16 bits and saturates when both are
large (255 x 127 x 2 > 32,767). With full 8-bit weights the detector found 11 of the 35 cards
of 8 real photos on such a CPU, against 35 of 35 with VNNI or the float models. 7-bit weights
cannot overflow, so the same integer arithmetic runs exactly on every CPU, and the models read
alike everywhere (1 Dec 21:40, models/MODEL_CARD.md, "Int8 on CPUs without VNNI").
"""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

#: head nodes kept float: everything in the Detect module except its first two conv blocks
_HEAD = re.compile(r"/model\.\d+/")
_HEAD_CONV = re.compile(r"/cv[23]\.\d+/cv[23]\.\d+\.[01]/")
#: the share of each activation's values its int8 range covers (detector)
PERCENTILE = 99.999
#: box scales whose crops calibrate the classifier: the box as found, one looser, one tighter
CALIBRATION_SCALES = (1.0, 1.4, 0.8)
#: weights in 7 bits, not 8, so that no CPU's int8 kernels saturate: see the module's docstring
REDUCE_RANGE = True
#: a 640x480 camera frame: what both models are calibrated on
FRAME_HW = (480, 640)


def _detect_module(names: list[str]) -> str | None:
    """The node-name prefix of the Detect module (the highest-numbered `/model.N/`)."""
    nums = [int(m.group(0)[7:-1]) for n in names if (m := _HEAD.search(n))]
    return f"/model.{max(nums)}/" if nums else None


def calibration_images(folders: list[Path], per_folder: int = 64) -> list[Path]:
    """Up to `per_folder` JPEGs from each folder, spread evenly over its sorted listing (a
    folder's first files are often one session's photos)."""
    out: list[Path] = []
    for f in folders:
        paths = sorted(Path(f).glob("*.jpg"))
        if paths:
            out += paths[::max(1, len(paths) // per_folder)][:per_folder]
    return out


def _feed(name: str, arrays: Iterable[np.ndarray]):
    """ONNX Runtime's calibration reader over `arrays`, each fed as the model's input `name`."""
    from onnxruntime.quantization import CalibrationDataReader

    class Feed(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter(arrays)

        def get_next(self):
            x = next(self.it, None)
            return None if x is None else {name: x}

    return Feed()


def _frames(images: list[Path], frame_hw: tuple[int, int]):
    for p in images:
        img = cv2.imread(str(p))
        if img is not None:
            yield cv2.resize(img, (frame_hw[1], frame_hw[0]))


def quantize_detector(src: Path, dst: Path, images: list[Path], frame_hw: tuple[int, int] = FRAME_HW,
                      reduce_range: bool = REDUCE_RANGE) -> Path:
    """Write an int8 QDQ copy of detector `src` to `dst`, calibrated on `images`."""
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
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

        # x / 255 here, where inference's `to_blob` multiplies by 1/255: one float32 step apart
        # on half the levels, which moves a few ranges; kept so the committed detector rebuilds
        # byte for byte
        blobs = (np.ascontiguousarray(letterbox(img, hw)[0][..., ::-1].transpose(2, 0, 1)[None]
                                      .astype(np.float32) / 255.0) for img in _frames(images, frame_hw))
        quantize_static(str(pre), str(dst), _feed(inp.name, blobs), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.Percentile, nodes_to_exclude=keep_float,
                        reduce_range=reduce_range,
                        extra_options={"CalibPercentile": PERCENTILE})
    return dst


def classifier_batches(detector: Path, images: list[Path], frame_hw: tuple[int, int] = FRAME_HW,
                       per_image: int = 12) -> list[np.ndarray]:
    """The classifier's calibration input, a batch per image: crops around the `per_image`
    likeliest index boxes that `detector` (float, with its classifier beside it) finds in
    `images`, at each of CALIBRATION_SCALES."""
    from vision.classifier import crop_index, to_tensor_batch
    from vision.detector import CardDetector

    # any score: the boxes are best first, so the likeliest come first, and a barely trained
    # detector (a smoke run) still yields crops
    det = CardDetector(detector, use_face=False, det_conf=0.0)
    out = []
    for frame in _frames(images, frame_hw):
        boxes, _ = det.find_indices(frame)  # best first
        crops = [crop_index(frame, b, jitter=(0.0, 0.0, s)) for b in boxes[:per_image] for s in CALIBRATION_SCALES]
        if crops:
            out.append(to_tensor_batch(crops))
    return out


def quantize_classifier(src: Path, dst: Path, batches: list[np.ndarray], reduce_range: bool = REDUCE_RANGE) -> Path:
    """Write an int8 QOperator copy of crop classifier `src` to `dst`, calibrated on `batches`."""
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if not batches:
        raise ValueError("int8 quantisation of the classifier needs calibration crops: the detector "
                         "found no index in the calibration images")
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        name = onnx.load(str(pre)).graph.input[0].name
        quantize_static(str(pre), str(dst), _feed(name, batches), quant_format=QuantFormat.QOperator, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax, reduce_range=reduce_range)
    return dst


def quantize_models(float_dir: Path, out_dir: Path, images: list[Path], which: str = "both",
                    reduce_range: bool = REDUCE_RANGE) -> list[Path]:
    """Int8 copies of the float models in `float_dir` (card_index_detector.onnx and
    card_index_classifier.onnx) written to `out_dir`; `which` = "both", "classifier" or
    "detector" (the other one is copied float). Returns the files written."""
    from vision.detector import CLASSIFIER_NAME, DETECTOR_NAME

    if which not in ("both", "classifier", "detector"):
        raise ValueError(f"int8 {which!r}: choose both, classifier or detector")
    fdet, fcls = float_dir / DETECTOR_NAME, float_dir / CLASSIFIER_NAME
    for f in (fdet, fcls):
        if not f.is_file():
            raise FileNotFoundError(f"{f} not found: the int8 copies are made from the float models")
    out_dir.mkdir(parents=True, exist_ok=True)
    odet, ocls = out_dir / DETECTOR_NAME, out_dir / CLASSIFIER_NAME
    if which in ("both", "classifier"):
        quantize_classifier(fcls, ocls, classifier_batches(fdet, images), reduce_range)
    else:
        shutil.copyfile(fcls, ocls)
    if which in ("both", "detector"):
        quantize_detector(fdet, odet, images, reduce_range=reduce_range)
    else:
        shutil.copyfile(fdet, odet)
    return [odet, ocls]
