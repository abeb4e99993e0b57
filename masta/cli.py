"""`masta <verb> [args]`: one command, sub-commands contributed by each package.

Each package owns its verbs in a `<package>/commands.py` module exposing
`register(subparsers)`; a verb's handler takes the parsed args and returns an exit code.
Errors the user can fix (unknown card, bad rules file, unreadable video) are raised as
`UsageError` or `ValueError` and printed as one line with exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from masta.heap import steady_heap

COMMAND_MODULES = (
    "referee.commands",        # rule, rules, simulate
    "referee.table_commands",  # replay
    "datasets.commands",       # data synth
    "datasets.video_commands", # data game-video
    "vision.commands",         # train, detect, eval
    "vision.watch_commands",   # watch
    "vision.deck_commands",    # learn-deck
    "web.commands",            # serve, demo
)

EPILOG = """examples:
  masta demo                                   referee the bundled demo game in the browser
  masta rule --pile "QD 3C" --play KH          judge one play on the default (French) rules
  masta rules --list                           list the house-rule presets
  masta simulate --players 4 --games 100       play bot games and print statistics
  masta detect photo.jpg --json                read the cards in a photo
  masta watch video.mp4 --players "Ann,Bob,Cy" referee a video or a webcam (0)
  masta learn-deck 0 --out deck.npz            teach masta your deck (then: masta watch 0 --deck deck.npz ...)

run `masta <verb> --help` for each verb's options."""


class UsageError(Exception):
    """An error in what the user asked for; printed without a traceback."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="masta",
        description="Referee for Shithead (Palace, Karma, Bataille norvegienne) at a real table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="verb", metavar="<verb>")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that package has no verbs yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")
    steady_heap()  # `serve` and `watch` run for hours: memory must stay flat (masta/heap.py)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (UsageError, ValueError, FileNotFoundError) as exc:
        print(f"masta {args.verb}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a folder or an unreadable file named where a file was asked for
        print(f"masta {args.verb}: error: {exc.filename or ''}: {exc.strerror or exc}: "
              f"name a readable file", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"masta {args.verb}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
