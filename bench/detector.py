"""Card detector figures: real photos never trained on, unseen deck styles, CPU speed.

    .venv/bin/python bench/detector.py [--model models/card_index_detector.onnx] [--limit N]

Prints:
 * card-set F1 on the `valid` split of ../shared/data/real/poker-cards (never used in training);
 * card-set F1, top-card accuracy and corner-index AP50 on synthetic pots drawn only with the
   held-out deck styles (Knoll's vector deck and the photographed deck), generated on the fly
   into data/bench-heldout (seeded) when missing;
 * median milliseconds per 640x480 frame through the ONNX models on 2 threads, with the
   detector's input size: with the still-photo settings of the figures above, and with the
   table camera's that the pipeline runs (`vision.detector.CAMERA`).
A missing data folder is reported and skipped.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.faces import HELD_OUT_STYLES, SHARED_DATA, face_styles  # noqa: E402
from masta.heap import steady_heap  # noqa: E402
from vision.classifier import TURNS  # noqa: E402
from vision.detector import CAMERA, DEFAULT_DETECTOR, MATE_NEAR, CardDetector  # noqa: E402
from training.evaluate import evaluate_folder  # noqa: E402


def speed(det: CardDetector, frames: list[np.ndarray], repeats: int = 3) -> dict[str, float]:
    """Median milliseconds per frame: `total` and each stage of `CardDetector.last_timing`."""
    for f in frames[:3]:
        det.detect(f)
    ts: dict[str, list[float]] = {"total": []}
    for _ in range(repeats):
        for f in frames:
            t = time.perf_counter()
            det.detect(f)
            ts["total"].append((time.perf_counter() - t) * 1000)
            for k, v in det.last_timing.items():
                ts.setdefault(k, []).append(v)
    return {k: float(np.median(v)) for k, v in ts.items()}


def machine_reference_ms(repeats: int = 30) -> float:
    """Median ms of a fixed piece of work (a 768x768 float32 matrix product): the same on the
    same machine, so a slow speed figure can be told from a slow machine."""
    rng = np.random.default_rng(0)
    a, b = rng.random((768, 768), np.float32), rng.random((768, 768), np.float32)
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        a @ b
        ts.append((time.perf_counter() - t) * 1000)
    return float(np.median(ts))


def shrunk_copy(src: Path, split: str, factor: float, out: Path) -> Path:
    """A copy of a YOLO folder's split with every image shrunk by `factor` (labels are
    relative, so they still hold), saved as JPEG 85 as a camera would; made once."""
    import shutil

    import cv2
    if not (out / "data.yaml").exists():
        for sub in ("images", "labels"):
            (out / "valid" / sub).mkdir(parents=True, exist_ok=True)
        for img_path in sorted((src / split / "images").glob("*.jpg")):
            img = cv2.imread(str(img_path))
            if img is None:
                continue
            h, w = img.shape[:2]
            small = cv2.resize(img, (max(1, round(w * factor)), max(1, round(h * factor))),
                               interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(out / "valid" / "images" / img_path.name), small, [cv2.IMWRITE_JPEG_QUALITY, 85])
            lab = src / split / "labels" / (img_path.stem + ".txt")
            if lab.exists():
                shutil.copy(lab, out / "valid" / "labels" / lab.name)
        text = (src / "data.yaml").read_text()
        (out / "data.yaml").write_text(text)
    return out / "data.yaml"


def accuracy(det: CardDetector, args: argparse.Namespace) -> None:
    """Card-set figures: the real valid photos (as labelled, without the copy limit, with the
    errata; shrunk) and the held-out decks' synthetic pots."""
    real = SHARED_DATA / "real" / "poker-cards" / "data.yaml"
    if real.exists():
        # one deck per photo: each card id at most once (decks=1); also without that limit
        runs = [(1, "one deck: each card id at most once", None), (0, "no copy limit", None)]
        if args.errata:
            runs.append((1, f"one deck, labels corrected by {args.errata}", args.errata))
        for decks, how, errata in runs:
            rep = evaluate_folder(real, split="val", limit=args.limit, detector=det, decks=decks,
                                  errata=errata)
            f = rep.figures()
            if errata:
                how += f": {rep.corrected} label(s)"
            print(f"REAL valid (never trained on; {how}): card-set F1 {f['card_set_f1_mean']:.4f} mean "
                  f"per image, {f['card_set_f1_pooled']:.4f} pooled (P {f['card_set_precision_pooled']:.4f}, "
                  f"R {f['card_set_recall_pooled']:.4f}), exact {f['exact_set_share']:.3f}, "
                  f"{f['images']} images")
        for factor in [float(f) for f in args.shrink.split(",") if f.strip()]:
            small = shrunk_copy(real.parent, "valid", factor, ROOT / "data" / f"bench-real-valid-x{factor}")
            f = evaluate_folder(small, split="val", limit=args.limit, detector=det, decks=1).figures()
            print(f"REAL valid shrunk x{factor} (one deck): card-set F1 {f['card_set_f1_mean']:.4f} mean, "
                  f"P {f['card_set_precision_pooled']:.4f}, R {f['card_set_recall_pooled']:.4f}")
    else:
        print(f"REAL valid: skipped ({real} missing)")

    held = [s for s in HELD_OUT_STYLES if s in face_styles()]
    if held:
        from datasets.synth import write_dataset
        for style in held:
            out = ROOT / "data" / f"bench-heldout-{style}-n{args.heldout_count}"
            write_dataset(out, args.heldout_count, seed=4242, size=640, styles=(style,), progress=False)
            # synthetic pots draw cards with replacement (not one deck): no copy limit
            rep = evaluate_folder(out, split="val", limit=args.limit, detector=det, decks=0)
            f = rep.figures()
            top = f["top_card_accuracy"]
            print(f"HELD-OUT deck {style} (synthetic pots, never trained on): card-set F1 "
                  f"{f['card_set_f1_mean']:.4f} mean, {f['card_set_f1_pooled']:.4f} pooled "
                  f"(P {f['card_set_precision_pooled']:.4f}, R {f['card_set_recall_pooled']:.4f}), "
                  f"top-card accuracy {top if top is None else round(top, 4)}, index AP50 "
                  f"{rep.ap50:.4f}, {f['images']} images")
    else:
        print("HELD-OUT decks: skipped (their source folders are missing)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(DEFAULT_DETECTOR))
    ap.add_argument("--limit", type=int, default=None, help="images per evaluation set")
    ap.add_argument("--heldout-count", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-reread", action="store_true", help="read each index box once, as found "
                    "(no tighter re-read of unsure boxes)")
    ap.add_argument("--no-face", action="store_true", help="read corner indices alone, without "
                    "the card-face reader (card_face_classifier.onnx) even when it is there")
    ap.add_argument("--shrink", default="0.5,0.35", help="also read the real valid photos shrunk "
                    "by these factors (small indices, as a table camera sees them; '' for none)")
    ap.add_argument("--errata", default=str(ROOT / "datasets" / "errata" / "poker-cards.json"),
                    help="the real photos' known label errors: also print real valid with them fixed "
                         "('' for not)")
    ap.add_argument("--speed-only", action="store_true", help="only the speed figure (a run of "
                    "~1 min, for a quiet machine)")
    ap.add_argument("--mate-near", type=float, default=MATE_NEAR, help="index sizes within which a "
                    "same-rank card read from a surer card's index is dropped (vision.detector."
                    "suit_mates; 0 = never)")
    ap.add_argument("--turns", type=int, choices=TURNS, default=1, help="the still-photo settings: "
                    "read each index crop also turned (2: upside down; 4: every quarter turn), the "
                    "reads averaged, as the table camera reads (vision.detector.CAMERA, 4)")
    args = ap.parse_args(argv)
    steady_heap(trim_every=None)  # the heap as `masta` runs it
    det = CardDetector(args.model, threads=args.threads, use_face=not args.no_face, mate_near=args.mate_near,
                       turns=args.turns, **({"box_scales": (1.0,)} if args.no_reread else {}))
    print(f"model: {args.model} (detector input {det.input_hw[1]}x{det.input_hw[0]}, "
          f"min card confidence {det.conf}, suit mates within {det.mate_near} index sizes, "
          f"each index read at {det.turns} turn{'s' if det.turns > 1 else ''})")

    if not args.speed_only:
        accuracy(det, args)

    # speed on 640x480 frames: real photos resized to webcam size (real content, real load)
    import cv2
    imgs = sorted((SHARED_DATA / "real" / "poker-cards" / "valid" / "images").glob("*.jpg"))[:20]
    frames = [cv2.resize(cv2.imread(str(p)), (640, 480)) for p in imgs]
    if not frames:
        rng = np.random.default_rng(0)
        frames = [rng.integers(0, 255, (480, 640, 3), dtype=np.uint8) for _ in range(10)]
    # the still-photo settings of the figures above, then the table camera's (`CAMERA`: what
    # the pipeline runs; at 640x480 it does not read the boxes scored under 0.1)
    cam = CardDetector(args.model, threads=args.threads, use_face=not args.no_face,
                       **dict(CAMERA, **({"box_scales": (1.0,)} if args.no_reread else {})))
    ref = machine_reference_ms()
    for label, d in (("still-photo settings", det), ("the pipeline's settings (vision.detector.CAMERA)", cam)):
        ms = speed(d, frames)
        face = f", face reader {ms['face_ms']:.1f} ms" if d.face is not None else ", no face reader"
        print(f"SPEED, {label}: median {ms['total']:.1f} ms per 640x480 frame (detector "
              f"{ms['detector_ms']:.1f} ms at {d.input_hw[1]}x{d.input_hw[0]}, classifier "
              f"{ms['classifier_ms']:.1f} ms{face}), ONNX Runtime, {args.threads} threads, "
              f"{os.cpu_count()} CPUs on this machine", flush=True)
    print(f"machine reference (the same fixed work before and after; these machines' speed moves "
          f"by half within the hour): {ref:.1f} ms, then {machine_reference_ms():.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
