"""Camera frame sizes: what a webcam is asked for, and `WxH` on the command line (kept apart
from `vision.source` so the CLI can parse it without loading OpenCV)."""
from __future__ import annotations

import argparse

#: what a webcam is asked for: most give 640x480 unless asked, and the cards' corner indices
#: then have about 12 pixels; with the same table in view at 1280x720 the held-out benchmark
#: videos read far more plays right, and at 1920x1080 fewer again (967 against 993 on 6 Dec: the
#: classifier learnt the 1280x720 camera's boxes; bench/pipeline.py --size; models/MODEL_CARD.md)
WEBCAM_SIZE: tuple[int, int] = (1280, 720)


def frame_size(text: str) -> tuple[int, int]:
    """`WIDTHxHEIGHT` (e.g. 1280x720) as (width, height); an argparse type."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"frame size {text!r}: write WIDTHxHEIGHT, e.g. 1280x720") from None
    if not (160 <= w <= 3840 and 120 <= h <= 2160):
        raise argparse.ArgumentTypeError(f"frame size {text!r}: from 160x120 to 3840x2160")
    return w, h
