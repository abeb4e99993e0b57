"""What the pixels say, apart from what the detector reads: whether the scene moves, whether
an arm crosses the pot zone's edge, where a settled frame changed since the last one, and how
much of the pot differs from the bare table. Cheap measures on grey images: they run on every
frame (motion) or once a decision (change), never through the models."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from vision.pot.config import BARE_STALE, INDEX_AREA, UNREAD_WIDTH, WatcherConfig, Zone

Box = tuple[float, float, float, float]


def shift_tolerant_diff(a: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per pixel, the least absolute difference from `ref` shifted by up to a pixel each way:
    a bumped camera moves everything a pixel or two, which is no change in the scene."""
    sh, sw = a.shape
    pad = np.pad(ref, 1, mode="edge")
    diff = np.full(a.shape, np.inf, np.float32)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            np.minimum(diff, np.abs(a - pad[dy:dy + sh, dx:dx + sw]), out=diff)
    return diff


# -- motion: on every frame, on a small light-normalised image ----------------------------------

def small_image(image: np.ndarray, width: int) -> np.ndarray:
    """The frame downscaled to `width`, blurred and normalised (mean 0, std 1): the motion image."""
    h, w = image.shape[:2]
    sh = max(1, round(h * width / w))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(gray, (width, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    return (small - small.mean()) / (small.std() + 1e-3)


def zone_diff(a: np.ndarray, b: np.ndarray, zone: Zone, pixel_diff: float) -> float:
    """The share of the zone's pixels (and a little margin: a hand at the edge of the pot counts
    as motion) that moved by more than `pixel_diff` between two motion images."""
    sh, sw = a.shape
    x0, y0, x1, y1 = zone
    mx, my = 0.04, 0.05
    xa, xb = int(max(0, x0 - mx) * sw), int(np.ceil(min(1, x1 + mx) * sw))
    ya, yb = int(max(0, y0 - my) * sh), int(np.ceil(min(1, y1 + my) * sh))
    return float((np.abs(a[ya:yb, xa:xb] - b[ya:yb, xa:xb]) > pixel_diff).mean())


def crosses_border(small: np.ndarray, ref: np.ndarray, zone: Zone, cfg: WatcherConfig,
                   boxes: Sequence[Box] = (), shape=None) -> bool:
    """True when the scene differs from the settled one just outside the zone's border, beside
    no card seen now or before (`boxes`, frame pixels): cards land inside the zone, but an arm
    always crosses its edge. Just outside: a card lying inside near the edge, read or not,
    changes nothing there. Where the zone meets the frame's edge, the band's inside instead."""
    sh, sw = small.shape
    x0, y0, x1, y1 = zone
    xa, xb = int(x0 * sw), min(sw, int(np.ceil(x1 * sw)))
    ya, yb = int(y0 * sh), min(sh, int(np.ceil(y1 * sh)))
    r = cfg.ring_px
    changed = shift_tolerant_diff(small, ref) > cfg.ring_diff
    if boxes and shape is not None:
        fx, fy = sw / shape[1], sh / shape[0]
        for b in boxes:  # a card lying across the edge is not an arm
            bw, bh = b[2] - b[0], b[3] - b[1]
            changed[max(0, int((b[1] - 0.5 * bh) * fy) - 1):int(np.ceil((b[3] + 0.5 * bh) * fy)) + 1,
                    max(0, int((b[0] - 0.5 * bw) * fx) - 1):int(np.ceil((b[2] + 0.5 * bw) * fx)) + 1] = False
    band = np.zeros_like(changed)
    xs, ys = slice(max(0, xa - r), min(sw, xb + r)), slice(max(0, ya - r), yb + r)
    xin, yin = slice(xa, xb), slice(ya, yb)
    for fits, outside, inside in (  # each side: (room outside it, the band there, the band within)
            (ya - r >= 0, (slice(ya - r, ya), xs), (slice(ya, ya + r), xin)),
            (yb + r <= sh, (slice(yb, yb + r), xs), (slice(max(ya, yb - r), yb), xin)),
            (xa - r >= 0, (ys, slice(xa - r, xa)), (yin, slice(xa, xa + r))),
            (xb + r <= sw, (ys, slice(xb, xb + r)), (yin, slice(max(xa, xb - r), xb)))):
        band[outside if fits else inside] = True
    ring = changed[band]
    return bool(ring.size) and float(ring.mean()) > cfg.ring_share


def seat_motion(small: np.ndarray, prev: np.ndarray, seats: dict[str, Zone], pixel_diff: float) -> Counter:
    """Moved pixels in each seat zone between two motion images: the arm that played came in
    over its owner's side of the table. Each side on its own scale: the frame is normalised as a
    whole, so an arm coming in elsewhere shifts every pixel's value, most where the cards' ink is."""
    out: Counter[str] = Counter()
    sh, sw = small.shape
    for name, (x0, y0, x1, y1) in seats.items():
        ys, xs = slice(int(y0 * sh), int(np.ceil(y1 * sh))), slice(int(x0 * sw), int(np.ceil(x1 * sw)))
        a, b = small[ys, xs], prev[ys, xs]
        if not a.size:
            continue
        a, b = (a - a.mean()) / (a.std() + 0.1), (b - b.mean()) / (b.std() + 0.1)
        n = int((np.abs(a - b) > pixel_diff).sum())
        if n:
            out[name] += n
    return out


# -- change: once a decision, between settled frames in full size -------------------------------

def box_change(box: Box, image: np.ndarray, prev: np.ndarray | None, diff: int) -> float:
    """The share of `box` whose grey level moved by more than `diff` since the settled frame
    `prev`; 1.0 when there is none to compare with (a change, to be safe)."""
    if prev is None or prev.shape != image.shape:
        return 1.0
    h, w = image.shape[:2]
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3])))
    if x1 <= x0 or y1 <= y0:
        return 1.0
    a = cv2.cvtColor(prev[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    b = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    return float((cv2.absdiff(a, b) > diff).mean())


def moved(image: np.ndarray, ref: np.ndarray, zone_px: tuple[int, int, int, int], diff: int,
          index_areas: Sequence[float]) -> tuple[np.ndarray, float, tuple[int, int], float]:
    """(where the zone differs between `image` and `ref`, on a coarse grid: grey levels moved by
    more than `diff` after the light's gain is matched, a pixel's shift allowed; the grid's
    scale; the zone's corner; a typical index box's area in frame pixels, from `index_areas`).
    Coarse: a card is what matters, not its print."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = zone_px
    a = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    b = cv2.cvtColor(ref[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    f = min(1.0, UNREAD_WIDTH / w)
    if f < 1.0:
        size = (max(1, round(a.shape[1] * f)), max(1, round(a.shape[0] * f)))
        a, b = (cv2.resize(x, size, interpolation=cv2.INTER_AREA) for x in (a, b))
    a, b = (cv2.GaussianBlur(x.astype(np.float32), (3, 3), 0) for x in (a, b))
    b = b * float(np.median((a + 1.0) / (b + 1.0)))  # the light's gain: most of the zone is unchanged
    out = cv2.morphologyEx((shift_tolerant_diff(a, b) > diff).astype(np.uint8),
                           cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    index_area = float(np.median(index_areas)) if index_areas else INDEX_AREA * h * h
    return out, f, (x0, y0), index_area


def zone_change(image: np.ndarray, ref: np.ndarray, zone_px: tuple[int, int, int, int], diff: int,
                index_areas: Sequence[float]) -> float:
    """How much of the zone differs between `image` and `ref`, in index boxes' area."""
    m, f, _, index_area = moved(image, ref, zone_px, diff, index_areas)
    return float(m.sum()) / (f * f) / index_area


def pot_left(image: np.ndarray, bare: np.ndarray, lay: Iterable[Box], zone_px: tuple[int, int, int, int],
             diff: int, index_areas: Sequence[float]) -> float | None:
    """How much of where the pot's cards lay (`lay`) differs from the `bare` table, in index
    boxes' area. Where they lay, not the whole zone: a face-up card taken from a seat inside a
    wide zone changes the table too. None when the table around them differs too (over
    `BARE_STALE` of it): the camera was moved or bumped, and `bare` no longer shows this table."""
    m, f, (x0, y0), index_area = moved(image, bare, zone_px, diff, index_areas)
    mask = np.zeros_like(m)
    for bx in lay:
        mask[max(0, int((bx[1] - y0) * f)):max(0, int(np.ceil((bx[3] - y0) * f))),
             max(0, int((bx[0] - x0) * f)):max(0, int(np.ceil((bx[2] - x0) * f)))] = 1
    around = m[mask == 0]
    if around.size and float(around.mean()) > BARE_STALE:
        return None
    return float(m[mask == 1].sum()) / (f * f) / index_area
