"""The frames behind a decision: the settled frame before and after it, with the zone, the seat
zones and every card read drawn, saved as JPEGs for the rulings page."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.pot.config import SEAT_COLOR, Zone
from vision.pot.events import WatchEvent
from vision.pot.observation import Observation


def draw(image: np.ndarray, obs: Sequence[Observation], zone_px: tuple[int, int, int, int],
         seats: dict[str, Zone], highlight: Sequence[str] = ()) -> np.ndarray:
    """A copy of `image` with the zone, the seat zones (named) and every observation's box and
    card drawn (the `highlight` cards in red, unsure ones in orange)."""
    out = image.copy()
    h, w = image.shape[:2]
    for name, (sx0, sy0, sx1, sy1) in seats.items():
        a, b = (int(sx0 * w), int(sy0 * h)), (int(sx1 * w) - 1, int(sy1 * h) - 1)
        cv2.rectangle(out, a, b, SEAT_COLOR, 1)
        cv2.putText(out, name, (a[0] + 4, a[1] + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, SEAT_COLOR, 1, cv2.LINE_AA)
    x0, y0, x1, y1 = zone_px
    cv2.rectangle(out, (x0, y0), (x1 - 1, y1 - 1), (255, 200, 0), 1)
    hl = Counter(highlight)
    for o in obs:
        color = (0, 0, 255) if hl[o.card] > 0 else ((0, 165, 255) if o.low_conf else (0, 200, 0))
        if hl[o.card] > 0:
            hl[o.card] -= 1
        b = [int(round(v)) for v in o.box]
        cv2.rectangle(out, (b[0], b[1]), (b[2], b[3]), color, 2)
        cv2.putText(out, f"{o.card} {o.conf:.2f}", (b[0], max(10, b[1] - 3)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, color, 1, cv2.LINE_AA)
    return out


def save(folder: Path, ev: WatchEvent, frames: Sequence[tuple[str, Callable[[], np.ndarray]]],
         quality: int) -> dict[str, str]:
    """Write each frame (`frames`: key, a function drawing it) as `<frame>_<type>_<key>.jpg` in `folder`;
    returns key -> path. On a failure no half-written set is left behind, and the OSError says
    what to check."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{ev.frame_index:07d}_{ev.type}"
    params = [cv2.IMWRITE_JPEG_QUALITY, quality]
    paths: dict[str, str] = {}
    for key, drawn in frames:
        path = folder / f"{stem}_{key}.jpg"
        try:
            ok = cv2.imwrite(str(path), drawn(), params)
        except cv2.error as exc:
            ok = False
            why = str(exc).strip().splitlines()[-1] if str(exc).strip() else "OpenCV error"
        else:
            why = "is the folder writable, is the disk full?"
        if not ok:
            for done in [*paths.values(), str(path)]:  # no half-written JPEG left behind
                Path(done).unlink(missing_ok=True)
            raise OSError(f"cannot write evidence image {path}: {why}")
        paths[key] = str(path)
    return paths
