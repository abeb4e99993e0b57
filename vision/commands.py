"""`masta train`, `masta detect`, `masta eval`: the card models from the command line."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.letters_option import add_letters_argument
from vision.frame_size import frame_size

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "card_index_detector.onnx"


def _size(text: str) -> tuple[int, int]:
    try:
        h, w = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--export-size {text!r}: give HEIGHTxWIDTH, for example 384x512")
    if h % 32 or w % 32 or h < 64 or w < 64:
        raise ValueError(f"--export-size {text!r}: both sides must be multiples of 32, at least 64")
    return h, w


def cmd_train(args: argparse.Namespace) -> int:
    from training.train import TrainPlan, run

    stages = tuple(s.strip() for s in args.stages.split(",")) if args.stages else TrainPlan.stages
    known = TrainPlan.stages + TrainPlan.optional_stages
    unknown = set(stages) - set(known)
    if unknown:
        raise ValueError(f"unknown stage(s) {', '.join(sorted(unknown))}: "
                         f"choose from {', '.join(known)}")
    plan = TrainPlan(work=Path(args.work), data=Path(args.data), models=Path(args.models),
                     seed=args.seed, synth_count=args.synth_count, heldout_count=args.heldout_count,
                     det_imgsz=args.imgsz, det_epochs=args.epochs, det_hours=args.hours,
                     det_batch=args.batch, cls_epochs=args.cls_epochs, cls_real_epochs=args.cls_real_epochs,
                     synth_size=args.synth_size,
                     stages=stages, workers=args.workers, threads=args.threads,
                     realdet_hours=args.realdet_hours or None,
                     export_imgsz=_size(args.export_size),
                     det_from=Path(args.detector_from) if args.detector_from else None,
                     det_fraction=args.det_fraction, run_tag=args.run_tag,
                     int8=args.int8, cls_lowres=args.cls_lowres, cls_wide=args.cls_wide, cls_lr=args.cls_lr,
                     cls_real_weight=args.cls_real_weight,
                     cls_from=Path(args.cls_from) if args.cls_from else None,
                     video_count=args.video_count, video_actions=args.video_actions,
                     video_size=args.video_size,
                     pseudo_conf=args.pseudo_conf, videodet_hours=args.videodet_hours or None,
                     videodet_synth=args.videodet_synth,
                     cls_pick=args.cls_pick, face_epochs=args.face_epochs, face_lr=args.face_lr)
    if plan.cls_from is not None and not plan.cls_from.is_file():
        raise ValueError(f"--cls-from {plan.cls_from}: no such weights file (give a classifier "
                         f"checkpoint such as runs/train/classifier-real-best.pt)")
    for name, share in (("--cls-lowres", plan.cls_lowres), ("--cls-wide", plan.cls_wide)):
        if not 0 <= share <= 1:
            raise ValueError(f"{name} {share}: give a share in [0, 1]")
    if plan.cls_real_weight < 1:
        raise ValueError(f"--cls-real-weight {plan.cls_real_weight}: give a whole number, at least 1")
    if not 0 <= plan.pseudo_conf <= 1:
        raise ValueError(f"--pseudo-conf {plan.pseudo_conf}: give a share in [0, 1]")
    if "videodet" in plan.stages and plan.video_count <= 0:
        raise ValueError("stage videodet needs training videos: give --video-count N")
    if not 0 < plan.det_fraction <= 1:
        raise ValueError(f"--det-fraction {plan.det_fraction}: give a share in (0, 1]")
    if args.quick:  # a smoke run: a few tiny images, one epoch each
        plan.synth_count, plan.heldout_count, plan.synth_size = 8, 0, 160
        plan.det_imgsz, plan.det_epochs, plan.det_batch, plan.det_hours = 128, 1, 4, None
        plan.cls_epochs, plan.cls_real_epochs, plan.export_imgsz = 1, 1, (128, 128)
        plan.face_epochs = 1
        plan.workers = 0
        plan.stages = tuple(s for s in plan.stages if s not in ("real", "realdet"))
    return run(plan)


def cmd_detect(args: argparse.Namespace) -> int:
    import cv2
    from vision.detector import CardDetector

    det = CardDetector(args.model, conf=args.conf, decks=args.decks or None, letters=args.deck_letters)
    failures = 0
    for path in args.images:
        img = cv2.imread(path) if Path(path).is_file() else None
        if img is None:
            failures += 1
            why = "no such file" if not Path(path).exists() else "not a readable image"
            if args.json:
                print(json.dumps({"image": path, "error": why, "cards": []}), flush=True)
            else:
                print(f"{path}: error: {why}", flush=True)
            continue
        found = det.detect(img)
        if args.json:
            print(json.dumps({"image": path, "cards": [d.to_dict() for d in found]}), flush=True)
        else:
            cards = " ".join(f"{d.card}({d.conf:.2f})" for d in found) or "-"
            print(f"{path}: {cards}", flush=True)
    said = det.classifier.letter_watch.mismatch()
    if said:
        print(f"masta detect: {said}", file=sys.stderr, flush=True)
    return 1 if failures == len(args.images) else 0


def cmd_eval(args: argparse.Namespace) -> int:
    from training.evaluate import evaluate_folder

    report = evaluate_folder(args.data, model=args.model, names_map=args.names_map,
                             split=args.split, limit=args.limit, per_image=args.per_image,
                             decks=args.decks, errata=args.errata)
    print(report.summary())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=1))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("train", help="reproduce the card models (synthetic data -> ONNX)",
                              description="Synthetic data, detector, real crops, classifier, ONNX "
                                          "export. Resumable: run it again to continue.")
    p.add_argument("--work", default="runs/train", help="where runs and checkpoints go")
    p.add_argument("--data", default="data", help="where generated datasets go")
    p.add_argument("--models", default="models", help="where the ONNX files are written")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--synth-count", type=int, default=4000)
    p.add_argument("--synth-size", type=int, default=640)
    p.add_argument("--heldout-count", type=int, default=300)
    p.add_argument("--imgsz", type=int, default=384, help="detector training size")
    p.add_argument("--epochs", type=int, default=12, help="detector epochs")
    p.add_argument("--hours", type=float, default=None, help="detector time budget (overrides --epochs)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--cls-epochs", type=int, default=8, help="classifier epochs on synthetic crops")
    p.add_argument("--cls-real-epochs", type=int, default=30,
                   help="classifier fine-tune epochs once the real crops are added")
    p.add_argument("--cls-lowres", type=float, default=0.0,
                   help="share of classifier training crops shrunk to a 12-40 px index and scaled "
                   "back up (small cards in a table video); 0: none")
    p.add_argument("--cls-wide", type=float, default=0.0,
                   help="share of classifier training crops cut from a box up to 1.5 times the index "
                   "and off its centre, as the detector's boxes are on decks it never saw; 0: none")
    p.add_argument("--cls-from", default=None, help="start the classifier's real fine-tune from "
                   "these weights (e.g. runs/train5/classifier-real-best.pt) instead of the "
                   "synthetic stage's; that stage is then not trained")
    p.add_argument("--cls-lr", type=float, default=1.5e-3,
                   help="peak learning rate of the classifier's real fine-tune (one-cycle)")
    p.add_argument("--cls-real-weight", type=int, default=1,
                   help="the real photos' crops are repeated this many times more in the classifier's "
                   "real fine-tune (1: they weigh as much as the synthetic crops)")
    p.add_argument("--cls-pick", choices=("best", "last"), default="best",
                   help="export the real fine-tune's best-validation checkpoint or its last epoch")
    p.add_argument("--video-count", type=int, default=0,
                   help="stage videocrops: render this many short game videos in the training deck "
                   "styles and add their index crops to the classifier's real fine-tune (0: none)")
    p.add_argument("--video-actions", type=int, default=40, help="plays, burns and pick-ups per such video")
    p.add_argument("--video-size", default=(640, 480), type=frame_size,
                   help="the training videos' frame size WxH (1280x720: what `masta watch` asks a webcam "
                   "for); videos of another size get a folder of their own")
    p.add_argument("--videodet-hours", type=float, default=1.0,
                   help="stage videodet (run only when named): time budget of the detector's fine-tune "
                   "on windows of the training videos, mixed with the real pseudo labels and synthetic "
                   "pots (0: epochs); measured and not shipped: see models/MODEL_CARD.md")
    p.add_argument("--pseudo-conf", type=float, default=0.4,
                   help="stage real: a detector hit inside a real photo's card box at least this sure "
                   "becomes a pseudo corner label (0.4 for the synthetic detector; 0.3 for the "
                   "committed, real fine-tuned one, which scores the same indices lower)")
    p.add_argument("--videodet-synth", type=int, default=800,
                   help="synthetic training pots mixed into stage videodet's fine-tune")
    p.add_argument("--face-epochs", type=int, default=12,
                   help="stages facecrops, face (run only when named in --stages): epochs of the "
                   "card-face classifier, trained on upright cards cut from the training videos "
                   "(needs --video-count); measured and not shipped: see models/MODEL_CARD.md")
    p.add_argument("--face-lr", type=float, default=3e-3, help="the face classifier's peak learning rate")
    p.add_argument("--realdet-hours", type=float, default=0.25,
                   help="time budget of the detector's fine-tune on real photos (0: epochs)")
    p.add_argument("--detector-from", default=None, help="fine-tune the detector from these "
                   "weights as a new run (low AdamW rate, no warm-up) instead of from its yaml")
    p.add_argument("--det-fraction", type=float, default=1.0,
                   help="share of the synthetic training images the detector stage reads")
    p.add_argument("--run-tag", default="", help="suffix of the detector run folders, so a "
                   "fine-tune does not touch the finished runs (e.g. -ft2)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    p.add_argument("--stages", default=None, help="comma list of stages to run "
                   "(synth,detector,crops,real,realdet,videocrops,classifier,export,int8; run only when "
                   "named: facecrops,face (the card-face reader), detcrops (crops from the "
                   "detector's own boxes), videodet (the detector on training-video windows); none "
                   "of these is in the committed model)")
    p.add_argument("--export-size", default="384x512",
                   help="detector ONNX input HxW (default 384x512: a 640x480 frame scaled by 0.8)")
    p.add_argument("--int8", choices=("both", "classifier", "detector", "none"), default="both",
                   help="which models stage int8 quantises from models/float/ into models/ "
                   "(calibrated on real train photos and synthetic pots; default both: about 33 "
                   "instead of 58 ms a 640x480 frame on 2 cores, figures within their spread)")
    p.add_argument("--quick", action="store_true", help="a tiny smoke run (seconds)")
    p.set_defaults(func=cmd_train)

    p = subparsers.add_parser("detect", help="read the cards in photos",
                              description="Find the cards in each image; one line per image.")
    p.add_argument("images", nargs="+", help="image files")
    p.add_argument("--model", default=str(DEFAULT_MODEL), help="detector ONNX (the classifier "
                   "card_index_classifier.onnx is looked up next to it)")
    p.add_argument("--conf", type=float, default=0.5, help="minimum confidence per card")
    p.add_argument("--json", action="store_true", help="one JSON object per image per line")
    p.add_argument("--decks", type=int, default=1,
                   help="decks on the table (default 1: each card id at most once per image; 0 = no limit)")
    add_letters_argument(p)
    p.set_defaults(func=cmd_detect)

    p = subparsers.add_parser("eval", help="measure the card models on a YOLO-format folder",
                              description="Card-set precision/recall/F1 per image, top-card "
                                          "accuracy, mAP50 where the box style matches, ms/image.")
    p.add_argument("data", help="a YOLO data.yaml (or its folder)")
    p.add_argument("--model", default=str(DEFAULT_MODEL))
    p.add_argument("--names-map", default=None,
                   help="how to read the folder's class names: 'auto' (default: card names such "
                        "as '10 of clubs', 'QS', 'index' for corner-index sets) or a JSON file "
                        "{class name: card id}")
    p.add_argument("--split", default="val", help="which split of the data.yaml (default val)")
    p.add_argument("--limit", type=int, default=None, help="only the first N images")
    p.add_argument("--per-image", action="store_true", help="print each image's figures")
    p.add_argument("--json", default=None, help="also write the report to this JSON file")
    p.add_argument("--decks", type=int, default=1,
                   help="decks in each photo (default 1: each card id counted at most once; 0 = no "
                        "limit, for synthetic pots, which draw cards with replacement)")
    p.add_argument("--errata", default=None,
                   help="a JSON file of the folder's known label errors, fixed before comparing "
                        "(e.g. datasets/errata/poker-cards.json for the real photos)")
    p.set_defaults(func=cmd_eval)
