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

    # both models that run are int8 copies of the float ones in models/float, and follow them
    import onnx
    import onnxruntime as ort
    ops = {n.op_type for n in onnx.load(str(det_onnx)).graph.node}
    assert "QuantizeLinear" in ops and "DequantizeLinear" in ops
    fp32 = tmp_path / "models" / "float" / "card_index_detector.onnx"
    assert fp32.is_file()
    x = np.random.default_rng(0).random((1, 3, 128, 128), dtype=np.float32)
    q = ort.InferenceSession(str(det_onnx)).run(None, {"images": x})[0][0]
    f = ort.InferenceSession(str(fp32)).run(None, {"images": x})[0][0]
    assert q.shape == f.shape
    assert np.corrcoef(q[:4].ravel(), f[:4].ravel())[0, 1] > 0.9  # boxes
    assert np.abs(q[4] - f[4]).mean() < 0.05 and q[4].max() <= 1.0  # scores, kept float at the end
    cls_onnx = tmp_path / "models" / "card_index_classifier.onnx"
    assert "QLinearConv" in {n.op_type for n in onnx.load(str(cls_onnx)).graph.node}
    crops = np.random.default_rng(1).random((8, 3, 64, 64), dtype=np.float32)
    q = ort.InferenceSession(str(cls_onnx)).run(None, {"crops": crops})[0]
    f = ort.InferenceSession(str(tmp_path / "models" / "float" / "card_index_classifier.onnx")).run(
        None, {"crops": crops})[0]
    assert q.shape == f.shape == (8, 54) and np.corrcoef(q.ravel(), f.ravel())[0, 1] > 0.9

    # run again: every stage is found done or resumed, nothing is retrained from scratch
    again = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "detector already trained" in again.stdout
    assert "synthetic crops already made" in again.stdout


def _sharp_crop() -> np.ndarray:
    """An 80 px stored crop with a crisp black-on-white checker (all high frequency)."""
    yy, xx = np.mgrid[0:80, 0:80]
    img = np.where(((yy // 4) + (xx // 4)) % 2 == 0, 255, 0).astype(np.uint8)
    return np.repeat(img[:, :, None], 3, axis=2)


def test_low_resolution_augmentation_blurs_the_crop_like_a_distant_camera():
    from training.train import _augment

    crop = _sharp_crop()
    sharp = [cv2_laplacian_var(_augment(np.random.default_rng(s), crop, 0.0)) for s in range(40)]
    small = [cv2_laplacian_var(_augment(np.random.default_rng(s), crop, 1.0)) for s in range(40)]
    out = _augment(np.random.default_rng(0), crop, 1.0)
    assert out.shape == (64, 64, 3) and out.dtype == np.uint8
    # shrunk to 12-40 px and scaled back, a 4 px checker cannot keep its edges
    assert np.median(small) < 0.5 * np.median(sharp)


def test_augmentation_is_reproducible_from_its_seed():
    from training.train import _augment

    crop = _sharp_crop()
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    assert np.array_equal(_augment(a, crop, 0.5), _augment(b, crop, 0.5))
    assert a.random() == b.random()  # and leaves the stream where the other run left it
    assert not np.array_equal(_augment(np.random.default_rng(7), crop, 0.0),
                              _augment(np.random.default_rng(7), crop, 1.0))


def cv2_laplacian_var(img: np.ndarray) -> float:
    import cv2
    return float(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


@pytest.mark.parametrize("args, says", [
    (["--cls-from", "no/such/weights.pt"], "--cls-from no/such/weights.pt: no such weights file"),
    (["--cls-lowres", "1.5"], "--cls-lowres 1.5: give a share in [0, 1]"),
    (["--cls-real-weight", "0"], "--cls-real-weight 0: give a whole number, at least 1"),
    (["--pseudo-conf", "2"], "--pseudo-conf 2.0: give a share in [0, 1]"),
    (["--stages", "videodet"], "stage videodet needs training videos: give --video-count N"),
    (["--video-size", "big"], "frame size 'big': write WIDTHxHEIGHT"),
])
def test_train_refuses_bad_classifier_options_before_doing_anything(tmp_path, args, says):
    run = subprocess.run([sys.executable, "-m", "masta", "train", "--work", str(tmp_path / "w"),
                          "--data", str(tmp_path / "d"), *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert says in run.stderr
    assert not (tmp_path / "w").exists() and not (tmp_path / "d").exists()


def test_yolo_label_lines_become_pixel_boxes_and_polygons_keep_only_their_class(tmp_path):
    from training.evaluate import read_yolo_labels

    lp = tmp_path / "a.txt"
    lp.write_text("3 0.5 0.25 0.2 0.1\n\n7 0.1 0.1 0.2 0.1 0.2 0.2 0.1 0.2\n1 0.5\n")
    rows = read_yolo_labels(lp, 200, 100)
    assert [c for c, _ in rows] == [3, 7]  # the short line is not a label
    assert rows[0][1] == pytest.approx((80.0, 20.0, 120.0, 30.0))
    assert rows[1][1] is None


def test_video_windows_are_labelled_with_the_indices_inside_them(tmp_path):
    """Stage videodet's images: 4:3 windows of a decoded training video at its own scale, each
    labelled with exactly the indices (at least 60% in view) that lie mostly inside it."""
    import cv2

    from datasets.game_video import read_frame_indices
    from training.train import TrainPlan, render_training_videos, training_video_folder, video_windows

    plan = TrainPlan(data=tmp_path / "data", video_count=2, video_actions=3, video_size=(800, 600))
    assert training_video_folder(plan).name == "train-videos-s1-800x600"
    folder = render_training_videos(plan)
    counts = video_windows(folder, tmp_path / "win", seed=3, every=15, min_side=400, max_side=560)
    assert counts["train"] > 5 and counts["val"] > 5  # the last of the two videos validates
    stem = sorted(p.name[:-len(".indices.jsonl.gz")] for p in folder.glob("*.indices.jsonl.gz"))[0]
    truth = read_frame_indices(folder / f"{stem}.indices.jsonl.gz")
    windows = sorted((tmp_path / "win" / "images" / "train").glob(f"{stem}-*.jpg"))
    wanted = {int(p.stem.split("-")[2]) for p in windows}
    frames, cap = {}, cv2.VideoCapture(str(folder / f"{stem}.mp4"))
    for i in range(max(wanted) + 1):
        ok, full = cap.read()
        assert ok
        if i in wanted:
            frames[i] = full
    cap.release()
    labelled = 0
    for img_path in windows:
        img = cv2.imread(str(img_path))
        h, w = img.shape[:2]
        assert 400 <= w <= 560 and abs(w * 3 / 4 - h) <= 1
        rows = [[float(v) for v in line.split()] for line in
                (tmp_path / "win" / "labels" / "train" / f"{img_path.stem}.txt").read_text().splitlines()]
        assert all(r[0] == 0 and all(0 <= v <= 1 for v in r[1:]) for r in rows)
        labelled += len(rows)
        # the window is a cut of the decoded frame: find where, then every index of that frame
        # wholly inside it must be among its labels
        frame = int(img_path.stem.split("-")[2])
        res = cv2.matchTemplate(frames[frame], img, cv2.TM_SQDIFF)
        x0, y0 = cv2.minMaxLoc(res)[2]
        inside = [b for _c, *b, _v in truth[frame]
                  if b[0] >= x0 and b[1] >= y0 and b[2] <= x0 + w and b[3] <= y0 + h]
        assert len(rows) >= len(inside)
        for b in inside:
            cx, cy = ((b[0] + b[2]) / 2 - x0) / w, ((b[1] + b[3]) / 2 - y0) / h
            assert any(abs(r[1] - cx) < 0.01 and abs(r[2] - cy) < 0.01 for r in rows), (img_path.name, b)
    assert labelled > 0


def test_camera_crops_are_cut_around_the_detectors_own_boxes_and_labelled_by_the_truth(tmp_path):
    """`camera_crops`: the committed detector, run on a region around the pot as the table camera
    runs it, cut at its own boxes; a box on an index takes that index's card, and the committed
    classifier (which reads training-style videos' indices at 0.99) agrees with most labels."""
    from vision.classifier import CLASSES, NONE_ID, IndexClassifier
    from training.train import TrainPlan, camera_crops, render_training_videos

    plan = TrainPlan(data=tmp_path / "data", video_count=1, video_actions=4, video_size=(1280, 720))
    folder = render_training_videos(plan)
    cut = camera_crops(folder, seed=1, every=10)
    assert len(cut) == 1
    x, y = next(iter(cut.values()))
    assert x.shape[1:] == (80, 80, 3) and len(x) == len(y) > 20
    cards = y != NONE_ID
    assert cards.sum() > 10
    cls = IndexClassifier(str(ROOT / "models" / "card_index_classifier.onnx"))
    centre = [c[8:72, 8:72] for c in x[cards]]  # the 64 px crop inside the stored 80 px one
    read = np.array([CLASSES.index(r[0]) for r in cls.classify(centre)])
    assert (read == y[cards]).mean() > 0.8


@pytest.mark.slow
def test_exporting_the_detector_leaves_the_onnx_beside_its_weights_alone(tmp_path, monkeypatch):
    """Exporting `models/card_index_detector.pt` must not overwrite the int8 detector beside it."""
    if "YOLO_CONFIG_DIR" not in os.environ:
        monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo"))
    monkeypatch.setenv("YOLO_OFFLINE", "1")
    monkeypatch.setenv("YOLO_AUTOINSTALL", "False")
    from ultralytics import YOLO

    from training.train import export_detector

    models = tmp_path / "models"
    models.mkdir()
    pt = models / "card_index_detector.pt"
    model = YOLO("yolov8n.yaml")
    model.save(str(pt))
    running = models / "card_index_detector.onnx"
    running.write_bytes(b"the int8 detector that runs")
    out = export_detector(pt, tmp_path / "float.onnx", (64, 64))
    assert running.read_bytes() == b"the int8 detector that runs"
    import onnx
    dims = [d.dim_value for d in onnx.load(str(out)).graph.input[0].type.tensor_type.shape.dim]
    assert dims[2:] == [64, 64]


def test_training_videos_are_the_same_rendered_by_one_process_or_several(tmp_path):
    """Stage videodet and videocrops render their videos on `--workers` processes; each video
    is fixed by its seed, so the boxes they learn from do not depend on how many."""
    import gzip

    from training.train import TrainPlan, render_training_videos

    folders = []
    for workers in (1, 2):
        plan = TrainPlan(data=tmp_path / f"w{workers}", video_count=2, video_actions=2,
                         video_size=(640, 480), workers=workers)
        folders.append(render_training_videos(plan))
    names = [sorted(p.name for p in f.glob("*.indices.jsonl.gz")) for f in folders]
    assert names[0] == names[1] and len(names[0]) == 2
    for name in names[0]:
        one, two = (gzip.decompress((f / name).read_bytes()) for f in folders)
        assert one == two and one.count(b"\n") > 30
