"""`masta data <sub-verb>`: dataset tools. `synth` lives here; other modules add sub-verbs.

`get_data_subparsers(subparsers)` creates the `data` verb the first time and returns its
sub-parsers afterwards, so `datasets.video_commands` can add `game-video` next to `synth`.
"""
from __future__ import annotations

import argparse


def get_data_subparsers(subparsers: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """The sub-parsers of `masta data`, created on first use.

    Kept on the parent action itself: a cache keyed by id() handed a dead parser's
    sub-parsers to a new one whose id was reused ("conflicting subparser: synth").
    """
    sub = getattr(subparsers, "_masta_data_subparsers", None)
    if sub is None:
        p = subparsers.add_parser("data", help="make datasets (synthetic pots, game videos)",
                                  description="Make datasets for training and testing.")
        sub = p.add_subparsers(dest="data_verb", metavar="<what>")
        p.set_defaults(func=lambda args: (p.print_help(), 0)[1])
        subparsers._masta_data_subparsers = sub
    return sub


def _styles(text: str | None) -> tuple[str, ...]:
    from datasets.faces import face_styles, training_styles

    if not text or text == "train":
        return tuple(training_styles())
    if text == "held-out":
        from datasets.faces import HELD_OUT_STYLES
        present = set(face_styles())
        styles = tuple(s for s in HELD_OUT_STYLES if s in present)
        if not styles:
            raise ValueError("no held-out face style is present (../shared/data missing?)")
        return styles
    if text == "all":
        return tuple(face_styles())
    styles = tuple(s.strip() for s in text.split(",") if s.strip())
    from datasets.faces import LETTERED_TEST_STYLES, extra_styles
    known = face_styles() + extra_styles() + list(LETTERED_TEST_STYLES)
    for s in styles:
        if s not in known:
            raise ValueError(f"unknown or missing face style {s!r}: choose from {', '.join(known)}")
    return styles


def cmd_synth(args: argparse.Namespace) -> int:
    from datasets.synth import write_dataset

    styles = _styles(args.styles)
    out = write_dataset(args.out, args.count, seed=args.seed, size=args.size, styles=styles,
                        val_fraction=args.val, workers=args.workers, start=args.start,
                        progress=not args.quiet)
    print(f"wrote {args.count} scenes to {out} (styles: {', '.join(styles)}); "
          f"YOLO data file: {out / 'data.yaml'}")
    return 0


def cmd_faces(args: argparse.Namespace) -> int:
    from datasets.faces import FACE_CACHE_ENV, drawn_font, save_faces

    styles = _styles(args.styles)
    if args.fonts:  # which font each drawn deck is written in here: it follows what is installed
        for style in styles:
            if style.startswith("drawn-"):
                print(f"{style}\t{drawn_font(style) or '(no fonts installed)'}")
        return 0
    if not args.out:
        raise ValueError("faces: give --out FOLDER (or --fonts to list the drawn decks' fonts)")
    written = save_faces(list(styles), args.out)
    size = sum(p.stat().st_size for p in written) / 2**20
    print(f"cached {len(written)} face styles in {args.out} ({size:.1f} MiB); "
          f"{FACE_CACHE_ENV}={args.out} makes masta read them from there")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    sub = get_data_subparsers(subparsers)
    p = sub.add_parser("faces", help="draw the card faces once, for a machine without their sources",
                       description="Write every face of the chosen styles (with its corner-index "
                                   "boxes) to one file per style. With MASTA_FACE_CACHE set to that "
                                   "folder, masta reads those styles from it: a machine without "
                                   "../shared/data, cairosvg or the fonts draws the same decks.")
    p.add_argument("--out", help="the cache folder (each drawn deck's font is recorded there)")
    p.add_argument("--styles", default="train",
                   help="'train' (the default: all but the held-out decks), 'held-out', 'all', "
                        "or a comma list such as kennard-4color,drawn-03")
    p.add_argument("--fonts", action="store_true",
                   help="only list the font file each drawn deck is written in on this machine "
                        "(it follows the fonts installed: `make train-fonts` installs the recipe's)")
    p.set_defaults(func=cmd_faces)
    p = sub.add_parser("synth", help="synthetic pot images with corner-index labels",
                       description="Draw synthetic pots (piles of cards on tables) with the "
                                   "corner indices that can be read labelled, in YOLO format.")
    p.add_argument("--out", required=True, help="output folder (resumable: existing images are kept)")
    p.add_argument("--count", type=int, default=1000, help="number of images (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same images)")
    p.add_argument("--size", type=int, default=640, help="long side in pixels (default 640)")
    p.add_argument("--styles", default="train",
                   help="face styles: 'train' (all but the held-out decks), 'held-out', 'all', "
                        "or a comma list such as knoll,drawn-03")
    p.add_argument("--val", type=float, default=0.0, help="fraction written to the val split")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument("--start", type=int, default=0, help="first image number (to extend a set)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_synth)
