"""The index classifier with letter glyph classes, on the packaged deck designs: the CPU recipe.

    python -m training.train_letters prepare --work runs/letters --synth-count 1500 --video-count 8
    python -m training.train_letters train --work runs/letters --out runs/letters/cls.pt --minutes 45 \
        --init models/float/card_index_classifier.onnx
    python -m training.train_letters export runs/letters/cls.pt <dir>/card_index_classifier.onnx

`prepare` draws synthetic pots and table videos in the training styles, the packaged designs
(`datasets.package_decks`, installed by `make train-decks`) and the lettered drawn decks, and
labels each index with the glyph its face prints (`vision.letters.training_label`): a French
deck's V is the class `V<suit>`, not the jack. `train` is `training.train_mix.train_mix` with the
head widened to `vision.letters.MODEL_CLASSES`. The real photos' crops come from the CPU recipe
(`masta train --stages real`, copied in as `crops-real.npz`).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from vision.letters import MODEL_CLASSES, relabel, training_label


def face_letters(style: str) -> str:
    """The letters a style's faces print (`en` when it has none)."""
    from datasets.faces import load_faces

    faces = load_faces(style)
    return next(iter(faces.values())).letters if faces else "en"


def default_styles() -> list[str]:
    """Every training style here: the committed recipe's, the packaged designs, the lettered
    drawn decks (never a held-out or test style)."""
    from datasets.faces import extra_styles, training_styles

    return training_styles() + extra_styles()


def synth_glyph_crops(folder: Path, split: str, seed: int, neg_per_image: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """`training.train.synth_crops` with each index labelled by the glyph its style prints."""
    import cv2

    from vision.classifier import NONE_ID, crop_index
    from training.train import CROP_MARGIN_STORE, _random_negative

    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for mp in sorted((folder / "meta" / split).glob("*.json")):
        img = cv2.imread(str(folder / "images" / split / (mp.stem + ".jpg")))
        if img is None:
            continue
        meta = json.loads(mp.read_text())
        printed = face_letters(meta["style"])
        boxes = [lab["box"] for lab in meta["indices"]]
        for lab in meta["indices"]:
            xs.append(crop_index(img, lab["box"], size=80, margin=CROP_MARGIN_STORE))
            ys.append(training_label(lab["card"], printed))
        h, w = img.shape[:2]
        for _ in range(neg_per_image):
            b = _random_negative(rng, w, h, boxes)
            if b is not None:
                xs.append(crop_index(img, b, size=80, margin=CROP_MARGIN_STORE))
                ys.append(NONE_ID)
    if not xs:
        return np.zeros((0, 80, 80, 3), np.uint8), np.zeros((0,), np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def face_crops(styles: list[str], val_every: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each index of each face of `styles`, cut flat from the face (80 px, labelled by the glyph
    printed): cheap crops of every design and letter set, which training's augmentation turns,
    blurs and shrinks; every `val_every`-th card validates."""
    from datasets.faces import load_faces
    from vision.classifier import crop_index
    from training.train import CROP_MARGIN_STORE

    xs, ys, xv, yv = [], [], [], []
    for style in styles:
        for k, (card, f) in enumerate(sorted(load_faces(style).items())):
            for box in f.indices:
                to_x, to_y = (xv, yv) if k % val_every == val_every - 1 else (xs, ys)
                to_x.append(crop_index(f.image, box, size=80, margin=CROP_MARGIN_STORE))
                to_y.append(training_label(card, f.letters))
    def arr(x, y):
        return (np.stack(x), np.array(y, np.int64)) if x else (np.zeros((0, 80, 80, 3), np.uint8), np.zeros(0, np.int64))
    return (*arr(xs, ys), *arr(xv, yv))


def prepare(work: Path, styles: list[str], video_styles: list[str], synth_count: int, video_count: int,
            video_size: tuple[int, int] = (1280, 720), video_actions: int = 40, workers: int = 2,
            seed: int = 54, log=print) -> None:
    """`crops-synth.npz` and `crops-video.npz` (the last video validates) in glyph classes."""
    import cv2

    from datasets.faces import HELD_OUT_STYLES
    from datasets.synth import write_dataset
    from masta.pool import process_pool
    from training.train import training_video_spec
    from training.train_mix import _save_last_validates, _video_job

    held = [s for s in styles + video_styles if s in HELD_OUT_STYLES or s.startswith("lettered-test-")]
    if held:
        raise ValueError(f"{held} are kept to measure unseen decks: never train on them")
    work.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    t0 = time.time()
    vids = work / "videos"
    vids.mkdir(parents=True, exist_ok=True)
    jobs = []
    for k in range(video_count):
        spec = training_video_spec(k, seed, video_styles, video_size, video_actions)
        jobs.append((spec, vids / f"train-{spec['seed']}.mp4", seed * 1000 + k))
    with process_pool(workers) as ex:
        futs = [ex.submit(_video_job, j) for j in jobs]
        synth = work / "synth"
        write_dataset(synth, synth_count, seed=seed, size=640, styles=tuple(styles), val_fraction=0.05,
                      workers=max(1, workers), progress=False)
        log(f"prepare: {synth_count} synthetic pots in {time.time() - t0:.0f} s")
        x, y = synth_glyph_crops(synth, "train", seed)
        xv, yv = synth_glyph_crops(synth, "val", seed + 1)
        np.savez(work / "crops-synth.npz", x=x, y=y, xv=xv, yv=yv)
        log(f"prepare: synthetic crops {len(x)} + {len(xv)} val, {int((y >= 54).sum())} glyph-class, "
            f"{time.time() - t0:.0f} s")
        done = []
        for (spec, _path, _s), f in zip(jobs, futs):
            r = f.result()
            if r is not None:
                stem, vx, vy = r
                done.append((stem, vx, relabel(vy, face_letters(spec["faces"]))))
    done.sort(key=lambda d: d[0])
    if done:
        x, y, xv, _ = _save_last_validates(work / "crops-video.npz", [(d[1], d[2]) for d in done])
        log(f"prepare: {len(done)} videos, crops {len(x)} + {len(xv)} val, {time.time() - t0:.0f} s")


def export(pt: Path, onnx_path: Path) -> Path:
    """The widened classifier to ONNX (as `training.train.export_classifier` does the 54-class one)."""
    import torch

    from training.models import build_model
    from vision.classifier import CROP

    state = torch.load(pt, map_location="cpu", weights_only=False)["model"]
    n = [v for k, v in state.items() if k.endswith(".weight") and v.ndim == 2][-1].shape[0]
    model = build_model(n)
    model.load_state_dict(state)
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 3, CROP, CROP), str(onnx_path), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    return onnx_path


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m training.train_letters", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    pr = sub.add_parser("prepare", help="synthetic pots and table videos in glyph classes")
    pr.add_argument("--work", type=Path, required=True)
    pr.add_argument("--styles", default="", help="comma list (default: every training style here)")
    pr.add_argument("--video-styles", default="", help="comma list the videos take in turn (default --styles)")
    pr.add_argument("--synth-count", type=int, default=1500)
    pr.add_argument("--video-count", type=int, default=8)
    pr.add_argument("--video-actions", type=int, default=40)
    pr.add_argument("--workers", type=int, default=2)
    pr.add_argument("--seed", type=int, default=54)
    fc = sub.add_parser("faces", help="crops-faces.npz: every index of every face of the styles, cut flat")
    fc.add_argument("--work", type=Path, required=True)
    fc.add_argument("--styles", required=True, help="comma list of training styles")
    tr = sub.add_parser("train", help="training.train_mix's trainer with the glyph classes")
    tr.add_argument("--work", type=Path, required=True)
    tr.add_argument("--out", type=Path, required=True)
    tr.add_argument("--minutes", type=float, required=True)
    tr.add_argument("--init", type=Path, help="start from these weights (.pt or exported .onnx; 54 classes widen)")
    tr.add_argument("--lr", type=float, default=1e-3)
    tr.add_argument("--batch", type=int, default=256)
    tr.add_argument("--workers", type=int, default=1)
    tr.add_argument("--shares", default="synth=0.45,real=0.25,video=0.3")
    tr.add_argument("--seed", type=int, default=1)
    ex = sub.add_parser("export", help="weights (.pt) to ONNX")
    ex.add_argument("pt", type=Path)
    ex.add_argument("onnx", type=Path)
    a = p.parse_args(argv)
    say = lambda m: print(f"[train_letters {time.strftime('%H:%M:%S')}] {m}", flush=True)  # noqa: E731
    if a.verb == "prepare":
        styles = [s for s in a.styles.split(",") if s] or default_styles()
        vstyles = [s for s in a.video_styles.split(",") if s] or styles
        say(f"{len(styles)} styles, videos in {', '.join(vstyles[:a.video_count])}")
        prepare(a.work, styles, vstyles, a.synth_count, a.video_count, video_actions=a.video_actions,
                workers=a.workers, seed=a.seed, log=say)
    elif a.verb == "faces":
        from datasets.faces import HELD_OUT_STYLES
        styles = [s for s in a.styles.split(",") if s]
        bad = [s for s in styles if s in HELD_OUT_STYLES or s.startswith("lettered-test-")]
        if bad:
            raise ValueError(f"{bad} are kept to measure unseen decks: never train on them")
        x, y, xv, yv = face_crops(styles)
        a.work.mkdir(parents=True, exist_ok=True)
        np.savez(a.work / "crops-faces.npz", x=x, y=y, xv=xv, yv=yv)
        say(f"face crops {len(x)} + {len(xv)} val, {int((y >= 54).sum())} glyph-class")
    elif a.verb == "train":
        from training.train_mix import load_sources, train_mix

        shares = {k.strip(): float(v) for k, v in (kv.split("=") for kv in a.shares.split(","))}
        sources = load_sources(a.work, shares)
        say("sources: " + ", ".join(f"{s.name} {len(s.x)} (+{len(s.xv)} val)" for s in sources))
        train_mix(sources, a.out, a.minutes, a.lr, a.init, a.batch, a.workers, a.seed, log=say,
                  classes=len(MODEL_CLASSES))
    else:
        export(a.pt, a.onnx)
        say(f"exported {a.onnx}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
