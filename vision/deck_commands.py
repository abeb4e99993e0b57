"""`masta learn-deck SOURCE`: teach masta the table's own deck before the evening."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.deck_memory import DECK_ORDER, TEACH_SUITS
from vision.deck_tune import TUNE_STEPS
from vision.frame_size import WEBCAM_SIZE, frame_size
from vision.watch_commands import DEFAULT_MODEL


def cmd_learn_deck(args: argparse.Namespace) -> int:
    from vision.deck_memory import DeckMemoryError, _untaught, deck_order, learn_deck
    from vision.detector import CAMERA, CardDetector
    from vision.source import open_source

    order = args.order.split() if args.order else list(deck_order(args.suits))
    bad = _untaught(order)
    if bad:  # before the camera opens: a typo must not cost a minute of showing cards
        raise DeckMemoryError(f"--order: {bad} cannot be taught: use the ids of ranked cards, like AS, 10H, QD")
    out = Path(args.out)
    if args.tune < 0:
        raise ValueError(f"--tune {args.tune}: give a number of batches from 0 (0: no tuning, the taught "
                         f"indices alone)")
    if out.suffix != ".npz":
        raise ValueError(f"--out must end in .npz, got {args.out!r}")
    model = Path(args.model) if args.model else DEFAULT_MODEL
    if not model.is_file():
        raise FileNotFoundError(f"no trained card detector at {model}: run `masta train`, or pass --model PATH")
    detector = CardDetector(str(model), **CAMERA, features=True)
    print(f"masta learn-deck: show these {len(order)} cards one at a time in the middle of the table, "
          f"face up, taking each away before the next: {' '.join(order)}", file=sys.stderr, flush=True)

    shown = [-1]  # the place in the order of the latest card learnt

    def on_card(item) -> None:
        place = order.index(item.card)
        if place > shown[0] + 1:  # cards passed over: say so at once, not only at the end
            print(f"{'':10s}{' '.join(order[shown[0] + 1:place])} not seen (taken away too soon?); "
                  f"carry on: the cards after {'it' if place - shown[0] == 2 else 'them'} are still learnt "
                  f"as themselves", flush=True)
        shown[0] = max(shown[0], place)
        print(f"{item.t:8.2f}s  {item.card:4s} learnt from {len(item.boxes)} corner index box"
              f"{'es' if len(item.boxes) != 1 else ''}", flush=True)

    tuner = None
    if args.tune > 0:  # training code, imported only when asked for
        from training.deck_tune import tune as tuner
    source = open_source(args.source, pace=args.pace, live=True if args.live else None, size=args.camera_size)
    try:
        report = learn_deck(source.frames(), detector, order, name=args.name or out.stem, on_card=on_card,
                            tune=args.tune, tuner=tuner, on_tune=lambda: print(
                                f"masta learn-deck: tuning the deck's own rank reader ({args.tune} batches, "
                                f"about {args.tune * 0.27:.0f} s on a 2-core CPU)", file=sys.stderr, flush=True))
    finally:
        source.close()
    for p in report.problems:
        print(f"masta learn-deck: {p}", file=sys.stderr)
    if report.memory is None:
        raise ValueError("nothing was learnt: " + "; ".join(report.problems))
    report.memory.save(out)
    ranks = report.memory.ranker_ranks()
    if ranks is not None:
        print(f"masta learn-deck: the deck's own rank reader reads "
              f"{' '.join(ranks) or 'no rank'}{' (the ranks the model misread while the cards were shown)' if ranks else ''}",
              file=sys.stderr)
    print(f"masta learn-deck: {len(report.taught)} of {len(order)} cards learnt, saved to {out}; "
          f"use it with `masta watch SOURCE --deck {out} ...`", file=sys.stderr)
    return 0 if len(report.taught) == len(order) else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "learn-deck", help="teach masta your deck: show it 26 cards (or 52), one at a time",
        description="Teach masta the deck this table plays with, so that a design the model never saw "
                    "is read right. Put nothing in the middle of the table, start this, then show the "
                    "cards one at a time there, face up, each taken away before the next, in this "
                    f"order: {' '.join(DECK_ORDER)} (A to K of spades, then of hearts; with --suits SHCD, "
                    "then of clubs and of diamonds: the whole deck, for a design whose indices differ "
                    "from suit to suit). Each card is taken once it lies still; one taken away too soon "
                    "is named at once, and the cards after it are still learnt as themselves. Then "
                    "referee with `masta watch SOURCE --deck FILE`.")
    p.add_argument("source", help="webcam index (0), video file, image folder or stream URL")
    p.add_argument("--out", default="deck.npz", help="where to save what was learnt (default deck.npz)")
    p.add_argument("--suits", default=TEACH_SUITS, help=f"the suits to show, A to K of each, in this order "
                   f"(default {TEACH_SUITS}; SHCD: the whole deck, 52 cards)")
    p.add_argument("--order", default=None, help="the cards in the order they are shown, space-separated "
                   "(default: A to K of each of --suits)")
    p.add_argument("--tune", type=int, default=0, metavar="BATCHES",
                   help=f"then also fine-tune a copy of the card classifier on the cards shown for this "
                        f"many batches ({TUNE_STEPS} takes about {TUNE_STEPS * 0.27:.0f} s on a 2-core CPU; "
                        f"needs torch): the deck's own rank reader, for the ranks the model misread while "
                        f"the cards were shown. It read the benchmark's Knoll deck better and its "
                        f"photographed deck worse (models/MODEL_CARD.md); default 0: the reads are weighed "
                        f"by the taught indices alone")
    p.add_argument("--name", default=None, help="a name for the deck (default: the file's)")
    p.add_argument("--model", default=None, help=f"detector ONNX (default {DEFAULT_MODEL.name} in models/)")
    p.add_argument("--pace", action="store_true", help="play a file at its own frame rate (as if live)")
    p.add_argument("--live", action="store_true", help="treat the source as a camera: retry when it drops")
    p.add_argument("--camera-size", default=WEBCAM_SIZE, type=frame_size, metavar="WxH",
                   help=f"frame size to ask a webcam for (default {WEBCAM_SIZE[0]}x{WEBCAM_SIZE[1]})")
    p.set_defaults(func=cmd_learn_deck)
