"""Reproduce the committed card models: synthetic data, detector, classifier, real fine-tune, ONNX.

Every stage writes its outputs under `work/` and is skipped when they are already there, and
the two trainings resume from their last checkpoint, so `masta train` can be stopped at any
time and run again. Works on a CPU; uses a CUDA GPU when one is present.

Stages:
 1. synth     synthetic pots (training styles) + a held-out set (unseen deck styles)
 2. detector  1-class YOLO (from its yaml, no pretrained weights) finding corner indices
 3. crops     64 px crops of every labelled index (+ `none` crops) from the synthetic set
 4. real      the detector run on the real training photos: indices inside a labelled card
              box become crops of that card (the real deck's look) and pseudo corner labels;
              the real valid split is never read here
 5. realdet   the detector fine-tuned on those pseudo labels mixed with synthetic pots
 6. classifier the small CNN on synthetic crops, then fine-tuned with the real crops added
 7. export    float ONNX files into models/float/
 8. int8      int8 copies of them into models/ (what `CardDetector` runs by default)
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np

from datasets.faces import SHARED_DATA
from masta.pool import process_pool
from vision.boxes import iou
from vision.card_face import FACE_H, FACE_MODEL_NAME, FACE_W
from vision.classifier import CLASSES, CROP, CROP_MARGIN, NONE, NONE_ID, crop_index
from vision.detector import CLASSIFIER_NAME, DETECTOR_NAME
from training.evaluate import read_yolo_labels, read_yolo_names

REAL_DIR = SHARED_DATA / "real" / "poker-cards"


@dataclass
class TrainPlan:
    """All the knobs of one training; the defaults reproduce the committed model."""

    work: Path = Path("runs/train")
    data: Path = Path("data")
    models: Path = Path("models")
    seed: int = 1
    synth_count: int = 4000
    synth_size: int = 640
    heldout_count: int = 300
    det_model: str = "yolov8n.yaml"
    det_imgsz: int = 384
    det_epochs: int = 12
    det_hours: float | None = None  # a time budget for the detector (overrides epochs)
    det_batch: int = 16
    det_from: Path | None = None  # fine-tune the detector from these weights (a new run, not a resume)
    det_fraction: float = 1.0  # share of the synthetic training images the detector stage reads
    run_tag: str = ""  # suffix of the detector run folders (detector<tag>, detector-real<tag>)
    realdet_epochs: int = 3
    #: a real photo's detector hit inside a card box at least this sure is a pseudo corner label
    #: (0.4 for the synthetic detector; the real fine-tuned one scores the same indices lower)
    pseudo_conf: float = 0.4
    realdet_hours: float | None = None
    cls_epochs: int = 8
    cls_batch: int = 128
    cls_samples: int = 16000  # crops drawn per classifier epoch (a CPU budget)
    cls_real_epochs: int = 30  # fine-tune epochs once the real crops are added
    cls_lowres: float = 0.0  # share of classifier training crops seen shrunk to 12-40 px
    cls_wide: float = 0.0  # share of classifier training crops cut from a loose, off-centre box
    cls_from: Path | None = None  # start the real fine-tune from these weights (not the synthetic stage's)
    cls_lr: float = 1.5e-3  # the real fine-tune's peak rate
    cls_real_weight: int = 1  # the real crops repeated this many times more in the real fine-tune
    cls_pick: str = "best"  # which real fine-tune checkpoint is exported: best validation or last epoch
    video_count: int = 0  # training-style game videos rendered for classifier crops (stage videocrops)
    video_actions: int = 40  # plays, burns and pick-ups per such video
    video_size: tuple[int, int] = (640, 480)  # the training videos' frame size (width, height)
    videodet_epochs: int = 3  # stage videodet (opt-in): the detector's fine-tune on video windows
    videodet_hours: float | None = None
    videodet_synth: int = 800  # synthetic pots mixed into that fine-tune
    face_epochs: int = 12  # the face classifier's epochs (stage face, opt-in; needs the training videos)
    face_lr: float = 3e-3
    real_dir: Path = REAL_DIR
    export_imgsz: tuple[int, int] = (384, 512)  # height, width (a 4:3 frame)
    #: which exported models get int8 copies (stage int8): "both", "classifier", "detector" or "none"
    int8: str = "both"
    workers: int = 2
    threads: int = 2
    stages: tuple[str, ...] = ("synth", "detector", "crops", "real", "realdet", "videocrops", "classifier",
                               "export", "int8")
    #: stages run only when named: the card-face reader and the detector-box crops, measured and
    #: not in the committed model (MODEL_CARD.md)
    optional_stages: tuple[str, ...] = ("facecrops", "face", "detcrops", "videodet")
    log: list[str] = field(default_factory=list)

    @property
    def synth_dir(self) -> Path:
        return self.data / f"synth-train-s{self.seed}-n{self.synth_count}"

    @property
    def heldout_dir(self) -> Path:
        return self.data / f"synth-heldout-s{self.seed + 98}-n{self.heldout_count}"


def _say(msg: str) -> None:
    print(f"[masta train {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _device() -> str:
    try:
        import torch
        return "0" if torch.cuda.is_available() else "cpu"
    except Exception:
        return "cpu"


def _yolo_env(plan: TrainPlan) -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")
    cfg = plan.work / "yolo-config"
    cfg.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg.resolve()))


# --------------------------------------------------------------------------- 1 synth
def stage_synth(plan: TrainPlan) -> None:
    from datasets.faces import HELD_OUT_STYLES, face_styles, training_styles
    from datasets.synth import write_dataset

    write_dataset(plan.synth_dir, plan.synth_count, seed=plan.seed, size=plan.synth_size,
                  styles=tuple(training_styles()), val_fraction=0.05, workers=plan.workers)
    held = tuple(s for s in HELD_OUT_STYLES if s in face_styles())
    if held and plan.heldout_count > 0:
        write_dataset(plan.heldout_dir, plan.heldout_count, seed=plan.seed + 98,
                      size=plan.synth_size, styles=held, workers=plan.workers)


# --------------------------------------------------------------------------- 2 detector
def detector_run_dir(plan: TrainPlan) -> Path:
    return (plan.work / f"detector{plan.run_tag}").resolve()


def realdet_run_dir(plan: TrainPlan) -> Path:
    return (plan.work / f"detector-real{plan.run_tag}").resolve()


def stage_detector(plan: TrainPlan) -> Path:
    """Train (or resume) the corner-index detector; returns the best weights."""
    _yolo_env(plan)
    import torch
    torch.set_num_threads(plan.threads)
    from ultralytics import YOLO

    run = detector_run_dir(plan)
    last, best = run / "weights" / "last.pt", run / "weights" / "best.pt"
    done = run / "done.json"
    if done.exists() and best.exists():
        _say(f"detector already trained: {best}")
        return best
    if last.exists():
        _say(f"resuming the detector from {last}")
        try:
            YOLO(str(last)).train(resume=True)
        except AssertionError as exc:  # "training to N epochs is finished, nothing to resume"
            _say(f"nothing to resume ({exc})")
    elif plan.det_from is not None:
        # continue training finished weights as a new run: no warm-up, a low AdamW rate decaying
        if not Path(plan.det_from).is_file():
            raise ValueError(f"--detector-from {plan.det_from}: no such weights file")
        _say(f"fine-tuning the detector from {plan.det_from}")
        kwargs = dict(data=str((plan.synth_dir / "data.yaml").resolve()), epochs=plan.det_epochs,
                      imgsz=plan.det_imgsz, batch=plan.det_batch, workers=plan.workers,
                      device=_device(), project=str(run.parent), name=run.name, exist_ok=True,
                      amp=_device() != "cpu", plots=False, seed=plan.seed, deterministic=False,
                      fliplr=0.0, degrees=0.0, mosaic=1.0, scale=0.5, close_mosaic=0,
                      lr0=0.001, lrf=0.1, warmup_epochs=0.0, optimizer="AdamW",
                      fraction=plan.det_fraction, patience=100, verbose=False)
        if plan.det_hours:
            kwargs["time"] = plan.det_hours
        YOLO(str(plan.det_from)).train(**kwargs)
    else:
        model = YOLO(plan.det_model)
        kwargs = dict(data=str((plan.synth_dir / "data.yaml").resolve()), epochs=plan.det_epochs,
                      imgsz=plan.det_imgsz, batch=plan.det_batch, workers=plan.workers,
                      device=_device(), project=str(run.parent), name=run.name, exist_ok=True,
                      pretrained=False, amp=_device() != "cpu", plots=False, seed=plan.seed,
                      deterministic=False, fliplr=0.0, degrees=0.0, mosaic=1.0, scale=0.5,
                      close_mosaic=2, patience=100, verbose=False)
        if plan.det_hours:
            kwargs["time"] = plan.det_hours
        model.train(**kwargs)
    done.write_text(json.dumps({"finished": time.time()}))
    return best if best.exists() else last


# --------------------------------------------------------------------------- 3 crops
def _random_negative(rng: np.random.Generator, w: int, h: int, boxes: list) -> tuple | None:
    for _ in range(10):
        s = rng.uniform(10, 40)
        x0, y0 = rng.uniform(0, w - s), rng.uniform(0, h - s * 1.6)
        b = (x0, y0, x0 + s, y0 + s * rng.uniform(1.2, 2.2))
        if all(iou(b, o) < 0.1 for o in boxes):
            return b
    return None


def synth_crops(folder: Path, split: str, seed: int, neg_per_image: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, 80, 80, 3) around every labelled index of a synthetic set, plus negatives."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    big = 80  # stored crops; training cuts jittered 64 px crops out of them
    metas = sorted((folder / "meta" / split).glob("*.json"))
    for mp in metas:
        img = cv2.imread(str(folder / "images" / split / (mp.stem + ".jpg")))
        if img is None:
            continue
        meta = json.loads(mp.read_text())
        boxes = [lab["box"] for lab in meta["indices"]]
        for lab in meta["indices"]:
            xs.append(crop_index(img, lab["box"], size=big, margin=CROP_MARGIN_STORE))
            ys.append(CLASSES.index(lab["card"]))
        h, w = img.shape[:2]
        for _ in range(neg_per_image):
            b = _random_negative(rng, w, h, boxes)
            if b is not None:
                xs.append(crop_index(img, b, size=big, margin=CROP_MARGIN_STORE))
                ys.append(NONE_ID)
    if not xs:
        return np.zeros((0, big, big, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(xs), np.array(ys, np.int64)


#: stored crops: 80 px with CROP_MARGIN * 80/64 margin, so a centred 64 px cut is a standard crop
CROP_MARGIN_STORE = CROP_MARGIN * 80 / 64


def stage_crops(plan: TrainPlan) -> Path:
    out = plan.work / "crops-synth.npz"
    if out.exists():
        _say(f"synthetic crops already made: {out}")
        return out
    x, y = synth_crops(plan.synth_dir, "train", plan.seed)
    xv, yv = synth_crops(plan.synth_dir, "val", plan.seed + 1)
    np.savez(out, x=x, y=y, xv=xv, yv=yv)
    _say(f"synthetic crops: {len(x)} train, {len(xv)} val -> {out}")
    return out


def _indexed_videos(folder: Path, stems: list[str] | None = None) -> Iterator[tuple[str, list[list[list]]]]:
    """(stem, per-frame index truth) of each training video rendered with its indices."""
    from datasets.game_video import read_frame_indices

    for stem in _indexed_stems(folder) if stems is None else stems:
        yield stem, read_frame_indices(folder / f"{stem}.indices.jsonl.gz")


def _indexed_stems(folder: Path) -> list[str]:
    """The stems of the training videos in `folder` rendered with their indices, sorted."""
    return sorted(p.name[:-len(".indices.jsonl.gz")] for p in folder.glob("*.indices.jsonl.gz"))


def _sampled_frames(video: Path, recs: list, every: int, min_indices: int) -> Iterator[tuple[np.ndarray, list]]:
    """Every `every`-th decoded frame of `video` showing at least `min_indices` indices,
    with its index truth (decoded as the pipeline decodes, not re-rendered)."""
    cap = cv2.VideoCapture(str(video))
    try:
        for i, idx in enumerate(recs):
            ok, img = cap.read()
            if not ok:
                break
            if i % every == 0 and len(idx) >= min_indices:
                yield img, idx
    finally:
        cap.release()


def video_crops(folder: Path, seed: int, every: int = 6, per_frame: int = 8,
                neg_per_frame: int = 1, stems: list[str] | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Crops of the corner indices in rendered game videos, cut from the encoded video as the
    pipeline cuts them: the small (~12 px), blurred, compressed indices of a table camera,
    which neither the 640 px synthetic pots nor the close real photos show. Per video stem:
    (N, 80, 80, 3) crops and labels, `per_frame` indices of every `every`-th frame plus
    `neg_per_frame` random `none` crops away from every index; `stems` limits it to those
    videos."""
    rng = np.random.default_rng(seed)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for stem, recs in _indexed_videos(folder, stems):
        xs, ys = [], []
        for img, idx in _sampled_frames(folder / f"{stem}.mp4", recs, every, 1):
            h, w = img.shape[:2]
            for k in rng.permutation(len(idx))[:per_frame]:
                card, *box, _vis = idx[k]
                xs.append(crop_index(img, box, size=80, margin=CROP_MARGIN_STORE))
                ys.append(CLASSES.index(card))
            boxes = [r[1:5] for r in idx]
            for _ in range(neg_per_frame):
                b = _random_negative(rng, w, h, boxes)
                if b is not None:
                    xs.append(crop_index(img, b, size=80, margin=CROP_MARGIN_STORE))
                    ys.append(NONE_ID)
        if xs:
            out[stem] = (np.stack(xs), np.array(ys, np.int64))
    return out


def detector_crops(folder: Path, seed: int, detector_pt: Path, imgsz: tuple[int, int] = (384, 512),
                   every: int = 10, per_frame: int = 8, neg_per_frame: int = 3,
                   min_vis: float = 0.6) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Crops cut from the *detector's* boxes in the training videos, as inference cuts them
    (its box, not the truth's: off-centre, loose or tight as it comes). A box on an index
    (centre within half the index of its truth) takes that card when at least `min_vis` of
    the index shows (less is skipped, unreadable); a box on no index at all (a pip, a court
    figure, a card back, a hand) is `none`: the hard negatives whose misreads become stray
    cards in the pot watcher, which random crops away from the indices rarely show."""
    from ultralytics import YOLO

    model = YOLO(str(detector_pt))
    rng = np.random.default_rng(seed)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for stem, recs in _indexed_videos(folder):
        xs, ys = [], []
        for img, idx in _sampled_frames(folder / f"{stem}.mp4", recs, every, 1):
            res = model.predict(img, imgsz=list(imgsz), conf=0.1, iou=0.5, verbose=False, device=_device())[0]
            _cut_matched(img, res.boxes.xyxy.cpu().numpy(), idx, min_vis, rng, per_frame, neg_per_frame, xs, ys)
        if xs:
            out[stem] = (np.stack(xs), np.array(ys, np.int64))
            _say(f"detector crops of {stem}: {len(xs)} ({int(np.sum(np.array(ys) == NONE_ID))} none)")
    return out


def _cut_matched(img: np.ndarray, boxes: np.ndarray, idx: list, min_vis: float, rng: np.random.Generator,
                 per_frame: int, neg_per_frame: int, xs: list, ys: list, neg_ok: np.ndarray | None = None) -> None:
    """Crops of up to `per_frame` of `boxes` lying on an index of the truth `idx` (its card) and
    `neg_per_frame` lying on none (`none`; only boxes where `neg_ok`, when given), appended to
    xs, ys; a box near an index but not on it is ambiguous and skipped, as is one on an index
    less than `min_vis` in view."""
    truth = np.array([r[1:5] for r in idx], np.float32)
    tc = (truth[:, :2] + truth[:, 2:]) / 2
    tsize = np.maximum(truth[:, 2] - truth[:, 0], truth[:, 3] - truth[:, 1])
    cards, negs = [], []
    for j, b in enumerate(boxes):
        c = (b[:2] + b[2:]) / 2
        d = np.hypot(*(tc - c).T)
        k = int(np.argmin(d))
        if d[k] <= 0.5 * tsize[k]:
            if idx[k][5] >= min_vis:
                cards.append((b, CLASSES.index(idx[k][0])))
        elif not np.any(d <= 1.5 * tsize) and (neg_ok is None or neg_ok[j]):  # near an index: ambiguous
            negs.append(b)
    for k in rng.permutation(len(cards))[:per_frame]:
        xs.append(crop_index(img, cards[k][0], size=80, margin=CROP_MARGIN_STORE))
        ys.append(cards[k][1])
    for k in rng.permutation(len(negs))[:neg_per_frame]:
        xs.append(crop_index(img, negs[k], size=80, margin=CROP_MARGIN_STORE))
        ys.append(NONE_ID)


def camera_crops(folder: Path, seed: int, detector: Path | None = None, every: int = 8, per_frame: int = 6,
                 neg_per_frame: int = 4, min_vis: float = 0.6, min_score: float = 0.1,
                 stems: list[str] | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """`detector_crops` as the table camera cuts them: the exported detector (ONNX, the
    committed one by default) on a 512x384 region around the pot at the frame's own scale
    (`CardDetector.find_indices` with a region, as `masta watch` reads a 1280x720 camera), and
    once more on a region shifted at random, so that seats' cards and hands come in too. Boxes
    on no index scored at least `min_score` are the `none` crops; boxes on an index count from
    the camera's own floor (`CAMERA["det_conf"]`), faint ones included, as it reads them."""
    from datasets.game_video import read_truth
    from vision.detector import CAMERA, CardDetector

    det = CardDetector(detector, det_conf=CAMERA["det_conf"], use_face=False)
    rng = np.random.default_rng(seed)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for stem, recs in _indexed_videos(folder, stems):
        meta = read_truth(folder / f"{stem}.truth.jsonl").meta
        px, py = meta.get("pot_center") or (meta["size"][0] / 2, meta["size"][1] / 2)
        xs: list[np.ndarray] = []
        ys: list[int] = []
        for img, idx in _sampled_frames(folder / f"{stem}.mp4", recs, every, 1):
            for dx, dy in ((0.0, 0.0), (rng.uniform(-150, 150), rng.uniform(-100, 100))):
                boxes, scores = det.find_indices(img, (px + dx - 256, py + dy - 192, px + dx + 256, py + dy + 192))
                _cut_matched(img, boxes, idx, min_vis, rng, per_frame, neg_per_frame, xs, ys, scores >= min_score)
        if xs:
            out[stem] = (np.stack(xs), np.array(ys, np.int64))
            _say(f"camera crops of {stem}: {len(xs)} ({int(np.sum(np.array(ys) == NONE_ID))} none)")
    return out


def training_video_folder(plan: TrainPlan) -> Path:
    """`train-videos-s<seed>` at 640x480 (the committed classifier's), `...-<W>x<H>` otherwise."""
    w, h = plan.video_size
    return plan.data / (f"train-videos-s{plan.seed}" + ("" if (w, h) == (640, 480) else f"-{w}x{h}"))


def _render_training_video(spec_kwargs: dict, path: Path) -> str:
    """One training video with each corner index's box (a process pool's job)."""
    from datasets.game_video import GameRenderer, VideoSpec

    spec = VideoSpec(**spec_kwargs)
    r = GameRenderer(spec)
    r.keep_indices = True
    r.render(path, frames_truth=False)
    return f"{path.name} ({spec.faces}, {spec.table})"


def training_video_spec(k: int, seed: int, styles: list[str], size: tuple[int, int], actions: int) -> dict:
    """The `VideoSpec` fields of training video `k` of a set seeded `seed`: its style and table
    in turn, 2 to 4 players, and the same table in view at any size (a card is a fifth of the
    frame's height)."""
    from datasets.game_video import TABLES

    w, h = size
    return dict(seed=7000 + seed * 100 + k, faces=styles[k % len(styles)], table=TABLES[k % len(TABLES)],
                players=["Ann", "Bob", "Cy", "Dee"][:2 + k % 3], max_actions=actions,
                width=w, height=h, card_height=round(h / 5))


def render_training_videos(plan: TrainPlan, only: Iterable[int] | None = None) -> Path:
    """Render `plan.video_count` short game videos in the training deck styles (never the
    held-out ones the benchmark videos use), with each corner index's box; kept ones are
    reused. `plan.workers` processes render at once (a video is one core's work for minutes)."""
    from datasets.faces import training_styles

    folder = training_video_folder(plan)
    styles = list(training_styles())
    jobs = []
    for k in range(plan.video_count) if only is None else only:
        spec = training_video_spec(k, plan.seed, styles, plan.video_size, plan.video_actions)
        if (folder / f"train-{spec['seed']}.indices.jsonl.gz").exists():
            continue
        jobs.append((spec, folder / f"train-{spec['seed']}.mp4"))
    if plan.workers > 1 and len(jobs) > 1:
        with process_pool(min(plan.workers, len(jobs))) as ex:
            futures = [ex.submit(_render_training_video, *job) for job in jobs]
            for n, fut in enumerate(as_completed(futures), 1):
                _say(f"training video {n}/{len(jobs)}: {fut.result()}")
    else:
        for n, job in enumerate(jobs, 1):
            _say(f"training video {n}/{len(jobs)}: {_render_training_video(*job)}")
    return folder


def _video_stage(plan: TrainPlan, what: str, name: str, cut: Callable[[Path, int], dict]) -> Path | None:
    """Crops cut (`cut(folder, seed)`, per video stem) out of the training videos, rendered
    first when missing, saved once as `name` in the work folder; the last video's crops
    validate (none when there is only one video)."""
    out = plan.work / name
    if out.exists():
        _say(f"{what} crops already made: {out}")
        return out
    if plan.video_count <= 0:
        return None
    crops = cut(render_training_videos(plan), plan.seed)
    stems = sorted(crops)
    if not stems:
        _say(f"no {what} crops in the training videos")
        return None
    val = stems[-1:] if len(stems) > 1 else []
    train = [st for st in stems if st not in val]
    x = np.concatenate([crops[st][0] for st in train])
    y = np.concatenate([crops[st][1] for st in train])
    xv = np.concatenate([crops[st][0] for st in val]) if val else x[:0]
    yv = np.concatenate([crops[st][1] for st in val]) if val else y[:0]
    np.savez(out, x=x, y=y, xv=xv, yv=yv)
    _say(f"{what} crops: {len(x)} train, {len(xv)} val -> {out}")
    return out


def stage_videocrops(plan: TrainPlan) -> Path | None:
    """Index crops cut out of the training videos (`video_crops`)."""
    return _video_stage(plan, "video", "crops-video.npz", video_crops)


def stage_detcrops(plan: TrainPlan, detector_pt: Path) -> Path | None:
    """Index crops cut from the detector's own boxes in the training videos (`detector_crops`)."""
    _yolo_env(plan)
    return _video_stage(plan, "detector-box", "crops-det.npz",
                        lambda folder, seed: detector_crops(folder, seed, detector_pt, plan.export_imgsz))


def face_crops(folder: Path, seed: int, every: int = 8, per_frame: int = 6,
               neg_per_frame: int = 3) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Upright card crops (`vision.card_face.rectify`) cut from the training videos: per
    card showing its two corner indices, the pair's centres (moved by a detector's wobble)
    give the card; pairs of two different cards' indices about a card's diagonal apart are
    `none`. Videos of four-index decks are skipped: two of their indices may be one side's,
    not opposite corners, and the truth does not say which."""
    from vision.card_face import centres, rectify

    rng = np.random.default_rng(seed + 17)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for stem, recs in _indexed_videos(folder):
        per_card = [Counter(r[0] for r in idx) for idx in recs]
        if any(n > 2 for c in per_card for n in c.values()):
            continue
        diag = [float(np.hypot(*np.subtract(*centres([r[1:5] for r in idx if r[0] == card]))))
                for idx, c in zip(recs[::every], per_card[::every]) for card, n in c.items() if n == 2]
        if not diag:
            continue
        span = float(np.median(diag))
        xs, ys = [], []
        for img, idx in _sampled_frames(folder / f"{stem}.mp4", recs, every, 2):
            cards = [r[0] for r in idx]
            c = centres([r[1:5] for r in idx])
            pairs = [(a, b) for a in range(len(idx)) for b in range(a + 1, len(idx)) if cards[a] == cards[b]]
            for k in rng.permutation(len(pairs))[:per_frame]:
                a, b = pairs[k] if rng.random() < 0.5 else pairs[k][::-1]
                wobble = rng.normal(0, 0.03 * span, (2, 2))
                xs.append(rectify(img, c[a] + wobble[0], c[b] + wobble[1]))
                ys.append(CLASSES.index(cards[a]))
            d = np.hypot(*(c[:, None, :] - c[None, :, :]).transpose(2, 0, 1)) / span
            ai, bi = np.nonzero(np.triu((d > 0.5) & (d < 1.6), 1))
            neg = [(a, b) for a, b in zip(ai, bi) if cards[a] != cards[b]]
            for k in rng.permutation(len(neg))[:neg_per_frame]:
                a, b = neg[k]
                xs.append(rectify(img, c[a], c[b]))
                ys.append(NONE_ID)
        if xs:
            out[stem] = (np.stack(xs), np.array(ys, np.int64))
    return out


def stage_facecrops(plan: TrainPlan) -> Path | None:
    """Upright card crops cut out of the training videos (`face_crops`)."""
    return _video_stage(plan, "face", "crops-face.npz", face_crops)


# --------------------------------------------------------------------------- 4 real
def real_pass(plan: TrainPlan, detector_pt: Path, pseudo_dir: Path | None = None,
              split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Run the detector on the real training photos.

    Each hit inside exactly one labelled card box becomes a crop of that card (hits outside
    every card box become `none` crops); hits inside a card box with detector confidence
    >= `plan.pseudo_conf` are also written to `pseudo_dir` as corner-index labels for
    fine-tuning the detector.
    Only the `train` split is read: the real `valid` split stays unseen.
    """
    _yolo_env(plan)
    from referee.cards import name_to_card
    from ultralytics import YOLO

    names = [name_to_card(n) for n in read_yolo_names(plan.real_dir / "data.yaml")]
    model = YOLO(str(detector_pt))
    if pseudo_dir is not None:
        (pseudo_dir / "images" / "train").mkdir(parents=True, exist_ok=True)
        (pseudo_dir / "labels" / "train").mkdir(parents=True, exist_ok=True)
    xs, ys = [], []
    imgs = sorted((plan.real_dir / split / "images").glob("*.jpg"))
    from tqdm import tqdm
    for ip in tqdm(imgs, desc="real photos", unit="img"):
        img = cv2.imread(str(ip))
        lp = plan.real_dir / split / "labels" / (ip.stem + ".txt")
        if img is None or not lp.exists():
            continue
        h, w = img.shape[:2]
        cards = [(names[c], box) for c, box in read_yolo_labels(lp, w, h) if box is not None]
        res = model.predict(img, imgsz=640, conf=0.25, verbose=False, device=_device())[0]
        rows = []
        for b, conf in zip(res.boxes.xyxy.cpu().numpy(), res.boxes.conf.cpu().numpy()):
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            inside = [c for c, cb in cards if cb[0] <= cx <= cb[2] and cb[1] <= cy <= cb[3]]
            if len(inside) == 1:
                label = inside[0]
            elif not inside:
                label = NONE
            else:
                label = None  # overlapping card boxes: ambiguous card, still an index
            if inside and conf >= plan.pseudo_conf:
                rows.append(f"0 {cx / w:.6f} {cy / h:.6f} {(b[2] - b[0]) / w:.6f} {(b[3] - b[1]) / h:.6f}")
            if label is not None:
                xs.append(crop_index(img, b, size=80, margin=CROP_MARGIN_STORE))
                ys.append(CLASSES.index(label))
        if pseudo_dir is not None and rows:
            link = pseudo_dir / "images" / "train" / ip.name
            if not link.exists():
                os.symlink(ip.resolve(), link)
            (pseudo_dir / "labels" / "train" / (ip.stem + ".txt")).write_text("\n".join(rows) + "\n")
    if not xs:
        return np.zeros((0, 80, 80, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def stage_real(plan: TrainPlan, detector_pt: Path) -> Path | None:
    out = plan.work / "crops-real.npz"
    if out.exists():
        _say(f"real crops already made: {out}")
        return out
    if not (plan.real_dir / "train" / "images").is_dir():
        _say(f"{plan.real_dir} is missing: no real fine-tuning (the model sees synthetic data only)")
        return None
    pseudo = plan.data / "real-index-pseudo"
    if pseudo.exists():
        shutil.rmtree(pseudo)
    x, y = real_pass(plan, detector_pt, pseudo)
    np.savez(out, x=x, y=y)
    _say(f"real crops: {len(x)} ({int((y == NONE_ID).sum())} none) -> {out}; "
         f"pseudo corner labels in {pseudo}")
    return out


def _synth_subset(plan: TrainPlan, count: int, name: str) -> tuple[Path, int]:
    """A list file of `count` synthetic training pots drawn (seeded) from the synthetic set,
    and how many it lists (fewer when the set is smaller, none when it is missing)."""
    syn = sorted((plan.synth_dir / "images" / "train").resolve().glob("*.jpg"))
    rng = np.random.default_rng(plan.seed)
    pick = [str(syn[i]) for i in sorted(rng.choice(len(syn), min(len(syn), count), replace=False))]
    lst = plan.work / name
    lst.write_text("\n".join(pick) + "\n")
    return lst.resolve(), len(pick)


def _finished_fine_tune(plan: TrainPlan, run: Path, what: str) -> Path | None:
    """Set torch and ultralytics up for a detector fine-tune in `run`; its best weights when
    that run is already finished, else None."""
    _yolo_env(plan)
    import torch
    torch.set_num_threads(plan.threads)
    best = run / "weights" / "best.pt"
    if (run / "done.json").exists() and best.exists():
        _say(f"{what} already there: {best}")
        return best
    return None


def _fine_tune_detector(plan: TrainPlan, run: Path, what: str, detector_pt: Path,
                        make_data: Callable[[], Path], epochs: int, hours: float | None) -> Path:
    """Resume the fine-tune in `run`, or start it from `detector_pt` on the data file
    `make_data()` writes (a new run: low AdamW rate decaying, no warm-up); returns the weights."""
    from ultralytics import YOLO

    last, best, done = run / "weights" / "last.pt", run / "weights" / "best.pt", run / "done.json"
    if last.exists():
        _say(f"resuming the {what} from {last}")
        try:
            YOLO(str(last)).train(resume=True)
        except AssertionError as exc:
            _say(f"nothing to resume ({exc})")
    else:
        kwargs = dict(data=str(make_data().resolve()), epochs=epochs, imgsz=plan.det_imgsz,
                      batch=plan.det_batch, workers=plan.workers, device=_device(), project=str(run.parent),
                      name=run.name, exist_ok=True, amp=_device() != "cpu", plots=False, seed=plan.seed,
                      deterministic=False, fliplr=0.0, degrees=0.0, mosaic=1.0, scale=0.5, close_mosaic=0,
                      lr0=0.002, lrf=0.2, warmup_epochs=0.0, optimizer="AdamW", verbose=False)
        if hours:
            kwargs["time"] = hours
        YOLO(str(detector_pt)).train(**kwargs)
    done.write_text(json.dumps({"finished": time.time()}))
    return best if best.exists() else last


def stage_realdet(plan: TrainPlan, detector_pt: Path) -> Path:
    """Fine-tune the detector on the real photos' pseudo corner labels mixed with synthetic pots."""
    run = realdet_run_dir(plan)
    finished = _finished_fine_tune(plan, run, "real fine-tuned detector")
    if finished is not None:
        return finished
    pseudo = (plan.data / "real-index-pseudo").resolve()
    if not (pseudo / "labels" / "train").is_dir():
        _say("no pseudo corner labels (stage real not run or real photos missing): detector kept as is")
        return detector_pt

    def data() -> Path:
        lst, _n = _synth_subset(plan, 800, "realdet-synth-subset.txt")
        yaml_path = plan.work / "realdet-data.yaml"
        yaml_path.write_text(
            f"train: [{pseudo / 'images' / 'train'}, {lst}]\n"
            f"val: {(plan.synth_dir / 'images' / 'val').resolve()}\nnc: 1\nnames: ['index']\n")
        return yaml_path

    return _fine_tune_detector(plan, run, "real fine-tune", detector_pt, data,
                               plan.realdet_epochs, plan.realdet_hours)


def video_windows(folder: Path, out: Path, seed: int, every: int = 10, per_frame: int = 1,
                  min_side: int = 384, max_side: int = 600, min_inside: float = 0.6) -> dict[str, int]:
    """Detector training images cut from the training videos as the pipeline reads them: a
    4:3 window of the decoded frame, `min_side` to `max_side` wide and never magnified (the
    pot zone is read unmagnified, `CardDetector(max_zoom=1.0)`), centred near a random index,
    labelled with every index at least 60% in view whose box is at least `min_inside` inside
    the window. Why: the synthetic pots and the close real photos never show a table camera's
    small, blurred, MPEG-coded indices, and on unseen decks the detector's boxes there run
    loose over a fan's corners. The last video's windows validate. Returns the images written
    per split."""
    rng = np.random.default_rng(seed)
    stems = _indexed_stems(folder)
    if not stems:
        return {}
    counts = {"train": 0, "val": 0}
    for stem, recs in _indexed_videos(folder):
        split = "val" if len(stems) > 1 and stem == stems[-1] else "train"
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        cap = cv2.VideoCapture(str(folder / f"{stem}.mp4"))
        for i, idx in enumerate(recs):
            ok, img = cap.read()
            if not ok:
                break
            if i % every or not idx:
                continue
            fh, fw = img.shape[:2]
            for k in range(per_frame):
                ww = int(min(fw, rng.uniform(min_side, max_side)))
                wh = int(min(fh, ww * 3 / 4))
                _card, *box, _vis = idx[int(rng.integers(len(idx)))]
                cx = (box[0] + box[2]) / 2 + rng.uniform(-ww / 3, ww / 3)
                cy = (box[1] + box[3]) / 2 + rng.uniform(-wh / 3, wh / 3)
                x0 = int(np.clip(cx - ww / 2, 0, fw - ww))
                y0 = int(np.clip(cy - wh / 2, 0, fh - wh))
                rows = []
                for _c, bx0, by0, bx1, by1, _v in idx:
                    ix0, iy0 = max(bx0, x0), max(by0, y0)
                    ix1, iy1 = min(bx1, x0 + ww), min(by1, y0 + wh)
                    area = max(1e-6, (bx1 - bx0) * (by1 - by0))
                    if ix1 <= ix0 or iy1 <= iy0 or (ix1 - ix0) * (iy1 - iy0) / area < min_inside:
                        continue
                    rows.append(f"0 {((ix0 + ix1) / 2 - x0) / ww:.6f} {((iy0 + iy1) / 2 - y0) / wh:.6f} "
                                f"{(ix1 - ix0) / ww:.6f} {(iy1 - iy0) / wh:.6f}")
                name = f"{stem}-{i:05d}-{k}"  # the frame's number: a window can be found again
                cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), img[y0:y0 + wh, x0:x0 + ww],
                            [cv2.IMWRITE_JPEG_QUALITY, 92])
                (out / "labels" / split / f"{name}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
                counts[split] += 1
        cap.release()
    return counts


def videodet_run_dir(plan: TrainPlan) -> Path:
    return (plan.work / f"detector-video{plan.run_tag}").resolve()


def stage_videodet(plan: TrainPlan, detector_pt: Path) -> Path:
    """Fine-tune the detector on windows of the training videos (`video_windows`), mixed with
    the real photos' pseudo corner labels and synthetic pots so that it keeps reading both."""
    run = videodet_run_dir(plan)
    finished = _finished_fine_tune(plan, run, "video fine-tuned detector")
    if finished is not None:
        return finished

    def data() -> Path:
        if plan.video_count <= 0:
            raise ValueError("stage videodet needs training videos: give --video-count N")
        w, h = plan.video_size
        windows = (plan.data / f"video-index-windows-s{plan.seed}-{w}x{h}-n{plan.video_count}").resolve()
        if not (windows / "done.json").exists():
            # training reads an image at det_imgsz over its long side, the pipeline a pot zone at
            # its input's width (512) over the zone's: windows that much narrower than the zones
            # (512-800 px of a 1280x720 frame) show the indices at the pipeline's scale
            k = plan.det_imgsz / plan.export_imgsz[1]
            counts = video_windows(render_training_videos(plan), windows, plan.seed, every=8,
                                   min_side=int(512 * k), max_side=int(800 * k))
            (windows / "done.json").write_text(json.dumps(counts))
            _say(f"video windows: {counts} -> {windows}")
        train = [str(windows / "images" / "train")]
        pseudo = (plan.data / "real-index-pseudo").resolve()
        if (pseudo / "images" / "train").is_dir():
            train.append(str(pseudo / "images" / "train"))
        else:
            _say("no pseudo corner labels (stage real not run): the real photos are not in the mix")
        lst, n = _synth_subset(plan, plan.videodet_synth, "videodet-synth-subset.txt")
        if n:
            train.append(str(lst))
        yaml_path = plan.work / "videodet-data.yaml"
        val = windows / "images" / ("val" if any((windows / "images" / "val").glob("*.jpg")) else "train")
        yaml_path.write_text(f"train: [{', '.join(train)}]\nval: {val}\nnc: 1\nnames: ['index']\n")
        return yaml_path

    return _fine_tune_detector(plan, run, "video fine-tune", detector_pt, data,
                               plan.videodet_epochs, plan.videodet_hours)


# --------------------------------------------------------------------------- 5 classifier
def _augment(rng: np.random.Generator, crop80: np.ndarray, lowres: float = 0.0, wide: float = 0.0) -> np.ndarray:
    """A jittered 64 px crop of a stored 80 px crop: shift, scale, rotation, colour, blur;
    with probability `lowres`, seen through a camera far away: shrunk to a 12-40 px index
    crop (noise and JPEG at that size) and scaled back up, as `crop_index` upsamples the
    ~12 px indices of a 640x480 table video; with probability `wide`, cut from a box as loose
    as the detector's on decks it never saw (up to 1.5 times the index, off its centre by up
    to a quarter of it)."""
    ang = rng.uniform(-180, 180) if rng.random() < 0.5 else float(rng.choice([0, 90, 180, 270]))
    sc = rng.uniform(0.85, 1.2)
    cx, cy = 40 + rng.normal(0, 3), 40 + rng.normal(0, 3)
    if wide > 0 and rng.random() < wide:  # no draw at all without it: old runs replay
        sc = rng.uniform(0.65, 0.95)
        cx, cy = 40 + rng.normal(0, 8, 2)  # 8 px: a sixth of the index box in a stored crop
    m = cv2.getRotationMatrix2D((cx, cy), ang, sc)
    m[:, 2] -= 8
    out = cv2.warpAffine(crop80, m, (CROP, CROP), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    out = out * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    out = out * rng.uniform(0.85, 1.15, 3)[None, None, :]
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.2))
    small = lowres > 0 and rng.random() < lowres  # no draw at all without it: old runs replay
    if small:
        side = int(rng.integers(12, 41))
        out = cv2.resize(out, (side, side), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        out += rng.normal(0, rng.uniform(2, 10), out.shape)
    if rng.random() < 0.15:
        out = cv2.cvtColor(cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY),
                           cv2.COLOR_GRAY2BGR).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if small:
        if rng.random() < 0.5:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 91))])
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        out = cv2.resize(out, (CROP, CROP), interpolation=cv2.INTER_LINEAR)
    return out


def _centre(crop80: np.ndarray) -> np.ndarray:
    return crop80[8:72, 8:72]


def _augment_face(rng: np.random.Generator, crop: np.ndarray, lowres: float = 0.0, wide: float = 0.0) -> np.ndarray:
    """An upright card crop as another camera, light and detector would give it: a little
    turned, shifted and scaled (the index centres' wobble), half a turn at random, colour,
    blur, noise, and with probability `lowres` shrunk (a farther camera) and JPEG'd. (`wide`
    is the index crops' knob; the face is placed by two centres, not a box.)"""
    h, w = crop.shape[:2]
    ang = rng.normal(0, 3) + (180.0 if rng.random() < 0.5 else 0.0)
    m = cv2.getRotationMatrix2D((w / 2 + rng.normal(0, 1), h / 2 + rng.normal(0, 1)), ang, rng.uniform(0.93, 1.07))
    out = cv2.warpAffine(crop, m, (w, h), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    out = out * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    out = out * rng.uniform(0.85, 1.15, 3)[None, None, :]
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.0))
    if rng.random() < 0.5:
        out += rng.normal(0, rng.uniform(2, 8), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if lowres > 0 and rng.random() < lowres:
        f = rng.uniform(0.45, 0.9)
        out = cv2.resize(out, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.5:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 91))])
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        out = cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


@dataclass(frozen=True)
class CropModel:
    """What differs between the two crop classifiers: the network, the training-time
    augmentation and the view a stored crop is validated through."""
    name: str
    build: Callable[[], Any]
    augment: Callable[[np.random.Generator, np.ndarray, float, float], np.ndarray]
    view: Callable[[np.ndarray], np.ndarray]
    shape: tuple[int, int]  # the input's height, width


def _index_model():
    from training.models import build_model
    return build_model()


def _face_model():
    from training.models import build_face_model
    return build_face_model(len(CLASSES))


INDEX = CropModel("classifier", _index_model, _augment, _centre, (CROP, CROP))
FACE = CropModel("face classifier", _face_model, _augment_face, lambda c: c, (FACE_H, FACE_W))


def train_classifier(plan: TrainPlan, x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray,
                     ckpt: Path, epochs: int, lr: float = 3e-3, init: Path | None = None,
                     kind: CropModel = INDEX) -> Path:
    """Train a crop classifier (the index one by default) with a checkpoint every epoch
    (resumed when present)."""
    import torch
    import torch.nn.functional as F
    from vision.classifier import to_tensor_batch

    torch.set_num_threads(plan.threads)
    torch.manual_seed(plan.seed)
    dev = "cuda" if _device() != "cpu" else "cpu"
    model = kind.build().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = max(1, min(len(x), plan.cls_samples) // plan.cls_batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps)
    start = 0
    if ckpt.exists():
        st = torch.load(ckpt, map_location=dev, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        start = st["epoch"] + 1
        _say(f"{kind.name}: resuming {ckpt} at epoch {start + 1}/{epochs}")
    elif init is not None and init.exists():
        model.load_state_dict(torch.load(init, map_location=dev, weights_only=False)["model"])
    rng = np.random.default_rng(plan.seed + start)
    best = ckpt.with_name(ckpt.stem + "-best.pt")
    best_acc = -1.0
    if best.exists():
        best_acc = torch.load(best, map_location="cpu", weights_only=False).get("acc", -1.0)
    for ep in range(start, epochs):
        model.train()
        order = rng.permutation(len(x))[:steps * plan.cls_batch]
        t0, seen, loss_sum = time.time(), 0, 0.0
        for k in range(steps):
            idx = order[k * plan.cls_batch:(k + 1) * plan.cls_batch]
            xb = torch.from_numpy(to_tensor_batch([kind.augment(rng, x[i], plan.cls_lowres, plan.cls_wide) for i in idx])).to(dev)
            yb = torch.from_numpy(y[idx]).to(dev)
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            seen += len(idx)
            loss_sum += loss.item() * len(idx)
        acc = evaluate_classifier(model, xv, yv, dev, kind.view)
        _say(f"{kind.name} epoch {ep + 1}/{epochs}: loss {loss_sum / max(seen, 1):.3f}, "
             f"val acc {acc:.4f}, {seen / (time.time() - t0):.0f} crops/s")
        state = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                 "epoch": ep, "acc": acc}
        torch.save(state, ckpt)
        if acc >= best_acc:
            best_acc = acc
            torch.save({"model": model.state_dict(), "acc": acc, "epoch": ep}, best)
    return best


def evaluate_classifier(model, xv: np.ndarray, yv: np.ndarray, dev: str = "cpu",
                        view: Callable[[np.ndarray], np.ndarray] = _centre) -> float:
    import torch
    from vision.classifier import to_tensor_batch

    if len(xv) == 0:
        return 0.0
    model.eval()
    correct = 0
    with torch.no_grad():
        for k in range(0, len(xv), 256):
            xb = torch.from_numpy(to_tensor_batch([view(c) for c in xv[k:k + 256]])).to(dev)
            correct += int((model(xb).argmax(1).cpu().numpy() == yv[k:k + 256]).sum())
    return correct / len(xv)


def stage_classifier(plan: TrainPlan, real_npz: Path | None) -> Path:
    syn = np.load(plan.work / "crops-synth.npz")
    x, y, xv, yv = syn["x"], syn["y"], syn["xv"], syn["yv"]
    ckpt_syn = plan.work / "classifier-synth.pt"
    done_syn = plan.work / "classifier-synth.done"
    if not done_syn.exists() and plan.cls_from is None:
        train_classifier(plan, x, y, xv, yv, ckpt_syn, plan.cls_epochs)
        done_syn.write_text("ok")
    # the real fine-tune starts from --cls-from, else from the synthetic stage's best
    start = plan.cls_from or ckpt_syn.with_name(ckpt_syn.stem + "-best.pt")
    if real_npz is None:
        return start
    real = np.load(real_npz)
    xr, yr = real["x"], real["y"]
    if len(xr) == 0:
        return start
    # validate on the first tenth of the real crops (the first photos, as crops are stored in
    # photo order), held back from this fine-tune; the real `valid` split stays unseen
    nv = max(1, len(xr) // 10)
    xrv, yrv, xr, yr = xr[:nv], yr[:nv], xr[nv:], yr[nv:]
    # fine-tune on real crops (repeated so they weigh as much as the synthetic ones) + synthetic
    rng = np.random.default_rng(plan.seed)
    n_syn = min(len(x), 4 * len(xr))
    pick = rng.choice(len(x), n_syn, replace=False)
    rep = max(1, n_syn // max(1, len(xr)))
    xm = np.concatenate([x[pick]] + [xr] * (rep * plan.cls_real_weight))
    ym = np.concatenate([y[pick]] + [yr] * (rep * plan.cls_real_weight))
    xval, yval = np.concatenate([xv, xrv]), np.concatenate([yv, yrv])
    for name, what in (("crops-video.npz", "video"), ("crops-det.npz", "detector-box")):
        vid = plan.work / name
        if vid.exists():  # table-video crops (stages videocrops, detcrops), as many as the real ones at most
            v = np.load(vid)
            take = rng.permutation(len(v["x"]))[:max(len(xr) * rep, 1)]
            xm, ym = np.concatenate([xm, v["x"][take]]), np.concatenate([ym, v["y"][take]])
            xval, yval = np.concatenate([xval, v["xv"]]), np.concatenate([yval, v["yv"]])
            _say(f"classifier fine-tune: {len(take)} {what} crops added ({len(v['xv'])} validate)")
    ckpt = plan.work / "classifier-real.pt"
    done = plan.work / "classifier-real.done"
    if not done.exists():
        train_classifier(plan, xm, ym, xval, yval, ckpt, plan.cls_real_epochs, lr=plan.cls_lr, init=start)
        done.write_text("ok")
    return real_checkpoint(plan)


def stage_face(plan: TrainPlan) -> Path | None:
    """The face classifier, from scratch on the training videos' face crops; the last epoch
    is exported (the end of the one-cycle schedule)."""
    npz = plan.work / "crops-face.npz"
    if not npz.exists():
        _say("no face crops (stage facecrops): no face classifier")
        return None
    ckpt = plan.work / "face.pt"
    done = plan.work / "face.done"
    if not done.exists():
        d = np.load(npz)
        train_classifier(plan, d["x"], d["y"], d["xv"], d["yv"], ckpt, plan.face_epochs,
                         lr=plan.face_lr, kind=FACE)
        done.write_text("ok")
    return ckpt


def real_checkpoint(plan: TrainPlan) -> Path:
    """The real fine-tune's checkpoint to export: the best validation accuracy, or the last
    epoch (the end of the one-cycle schedule; the validation crops are clean, so they do not
    see what the low-resolution and video crops teach)."""
    ckpt = plan.work / "classifier-real.pt"
    return ckpt if plan.cls_pick == "last" else ckpt.with_name(ckpt.stem + "-best.pt")


# --------------------------------------------------------------------------- 6 export
def export_classifier(pt: Path, onnx_path: Path, kind: CropModel = INDEX) -> Path:
    import torch

    model = kind.build()
    model.load_state_dict(torch.load(pt, map_location="cpu", weights_only=False)["model"])
    model.eval()
    dummy = torch.zeros(1, 3, *kind.shape)
    torch.onnx.export(model, dummy, str(onnx_path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17,
                      dynamo=False)
    return onnx_path


def export_detector(pt: Path, onnx_path: Path, imgsz: tuple[int, int]) -> Path:
    """Exported from a copy of `pt` in a folder of its own: ultralytics writes the .onnx beside
    the weights, and beside `models/card_index_detector.pt` that is the int8 detector the app
    runs, which a float export must not replace."""
    from ultralytics import YOLO

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(pt).name
        shutil.copyfile(pt, copy)
        f = YOLO(str(copy)).export(format="onnx", imgsz=list(imgsz), opset=17, simplify=True,
                                   dynamic=False, verbose=False)
        shutil.copyfile(f, onnx_path)
    return onnx_path


def stage_export(plan: TrainPlan, det_pt: Path, cls_pt: Path, face_pt: Path | None = None) -> None:
    """The float ONNX models go to `<models>/float/` (stage int8 makes the ones that run from
    them); with `--int8 none` they are also copied to `<models>/`."""
    _yolo_env(plan)
    fdir = plan.models / "float"
    fdir.mkdir(parents=True, exist_ok=True)
    export_detector(det_pt, fdir / DETECTOR_NAME, plan.export_imgsz)
    export_classifier(cls_pt, fdir / CLASSIFIER_NAME)
    shutil.copyfile(det_pt, plan.models / "card_index_detector.pt")
    _say(f"exported {DETECTOR_NAME} and {CLASSIFIER_NAME} to {fdir}")
    if face_pt is not None and face_pt.exists():
        export_classifier(face_pt, plan.models / FACE_MODEL_NAME, FACE)
        _say(f"exported {FACE_MODEL_NAME} to {plan.models}")
    if plan.int8 == "none" or "int8" not in plan.stages:
        for name in (DETECTOR_NAME, CLASSIFIER_NAME):
            shutil.copyfile(fdir / name, plan.models / name)
        _say(f"copied the float models to {plan.models} (no int8 stage)")


def stage_int8(plan: TrainPlan) -> None:
    """Int8 copies of `<models>/float/`'s models into `<models>/`, calibrated on real train
    photos and synthetic training pots (`training/quantize.py`)."""
    from training.quantize import calibration_images, quantize_models

    if plan.int8 == "none":
        _say("int8: none asked for (--int8 none), the float models run")
        return
    imgs = calibration_images([plan.real_dir / "train" / "images", plan.synth_dir / "images" / "train"])
    quantize_models(plan.models / "float", plan.models, imgs, which=plan.int8)
    _say(f"int8 ({plan.int8}) copies in {plan.models}, calibrated on {len(imgs)} images")


# --------------------------------------------------------------------------- all
def run(plan: TrainPlan) -> int:
    plan.work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    det = detector_run_dir(plan) / "weights" / "best.pt"
    if not det.exists() and plan.det_from is not None:
        det = Path(plan.det_from)  # later stages start from the given weights
    real = None
    if "synth" in plan.stages:
        _say("stage synth")
        stage_synth(plan)
    if "detector" in plan.stages:
        _say("stage detector")
        det = stage_detector(plan)
    if "crops" in plan.stages:
        _say("stage crops")
        stage_crops(plan)
    if "real" in plan.stages:
        _say("stage real")
        real = stage_real(plan, det)
    elif (plan.work / "crops-real.npz").exists():
        real = plan.work / "crops-real.npz"
    if "realdet" in plan.stages:
        _say("stage realdet")
        det = stage_realdet(plan, det)
    elif (realdet_run_dir(plan) / "done.json").exists():
        det = realdet_run_dir(plan) / "weights" / "best.pt"
    if "videodet" in plan.stages:
        _say("stage videodet")
        det = stage_videodet(plan, plan.det_from if plan.det_from is not None else det)
    elif (videodet_run_dir(plan) / "done.json").exists():
        det = videodet_run_dir(plan) / "weights" / "best.pt"
    if "videocrops" in plan.stages:
        _say("stage videocrops")
        stage_videocrops(plan)
    if "detcrops" in plan.stages:
        _say("stage detcrops")
        stage_detcrops(plan, det)
    cls = plan.work / "classifier-synth-best.pt"
    if (plan.work / "classifier-real.done").exists():
        cls = real_checkpoint(plan)
    if "classifier" in plan.stages:
        _say("stage classifier")
        cls = stage_classifier(plan, real)
    if "facecrops" in plan.stages:
        _say("stage facecrops")
        stage_facecrops(plan)
    face = plan.work / "face.pt"
    if "face" in plan.stages:
        _say("stage face")
        face = stage_face(plan)
    if "export" in plan.stages:
        _say("stage export")
        stage_export(plan, det, cls, face if face is not None and (plan.work / "face.done").exists() else None)
    if "int8" in plan.stages:
        _say("stage int8")
        stage_int8(plan)
    _say(f"done in {(time.time() - t0) / 60:.1f} min")
    return 0
