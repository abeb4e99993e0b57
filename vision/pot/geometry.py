"""Where cards lie: box tests the watcher's steps share (one physical card's boxes, its two
corners, what lies beside a played index). Boxes are x0, y0, x1, y1 in frame pixels."""
from __future__ import annotations

import numpy as np

from referee.cards import rank_of
from vision.boxes import area, centre, iou, overlap, side
from vision.pot.config import LOWER_SEP, LOWER_STEP


def holds_centre(a, b) -> bool:
    """True when one box contains the other's centre."""
    def inside(p, q):
        cx, cy = centre(q)
        return p[0] <= cx <= p[2] and p[1] <= cy <= p[3]
    return inside(a, b) or inside(b, a)


def same_place(a, b) -> bool:
    """Two boxes of one card id mark where the same physical card lies."""
    return iou(a, b) > 0.1 or holds_centre(a, b)


def other_corner_of(box, where, index_side: float) -> bool:
    """Could `box` be the same card as `where`, seen by its other corner? A pot card half
    covered shows one index, then the other: its box jumps by the distance between a card's
    two indices, about 6 index sides (a poker card's corner indices are ~94 mm apart, each
    ~16 mm high). Only that jump: another card of the id landing closer is still new.
    `index_side`: the smallest box side the card was seen with (an index alone, once it was)."""
    d = np.hypot(*np.subtract(centre(box), centre(where)))
    return bool(4.0 * index_side <= d <= 7.5 * index_side)


def near_corner(box, anchor, reach: float) -> bool:
    """Is `box`'s centre within `reach` times its longer side of a corner of `anchor`?"""
    size = side(box)
    cx, cy = centre(box)
    return any(np.hypot(cx - x, cy - y) <= reach * size
               for x in (anchor[0], anchor[2]) for y in (anchor[1], anchor[3]))


def corner_of_whole(box, card: str, top: str, boxes) -> bool:
    """Is `box` (one index read as `card`) a corner of a whole card read as `top` over `boxes`
    (its boxes over the reads), of the same rank but another suit? Its two indices, read as two
    suits, made two cards: one card seen as a pair. An index box lies inside the card's box (its
    extent over the reads), at a corner."""
    if top == card or rank_of(top) != rank_of(card):
        return False
    b = np.array(boxes)  # the card's whole extent over the reads
    cb = (b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max())
    a = (box[2] - box[0]) * (box[3] - box[1])
    if a <= 0 or (cb[2] - cb[0]) * (cb[3] - cb[1]) < 3 * a:
        return False
    return overlap(box, cb) >= 0.7 * a and near_corner(box, cb, 1.0)


def chebyshev(a, b) -> float:
    """How far apart two boxes' centres are along x or y, whichever is more."""
    (ax, ay), (bx, by) = centre(a), centre(b)
    return max(abs(ax - bx), abs(ay - by))


def card_middle(boxes) -> tuple[tuple[float, float], float] | None:
    """(the middle, the distance between them) of the two index boxes of one card id farthest
    apart, when they are far enough apart to be one card's two corners; None if not seen so."""
    pairs = [(np.hypot(*np.subtract(centre(a), centre(b))), a, b)
             for i, a in enumerate(boxes) for b in boxes[i + 1:]]
    pairs = [p for p in pairs if p[0] > 2.5 * max(side(p[1]), side(p[2]))]
    if not pairs:
        return None
    d, a, b = max(pairs, key=lambda p: p[0])
    return tuple(np.add(centre(a), centre(b)) / 2), d


def grid_beside(own, reach: float) -> list[tuple[float, float, float, float]]:
    """Boxes the size of each of the `own` index boxes, every `LOWER_STEP` of its side up to
    `reach` sides around it, none nearer any of them than `LOWER_SEP` of its side."""
    out = []
    for box in own:
        s, (cx, cy) = side(box), centre(box)
        hw, hh, n = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2, int(reach / LOWER_STEP)
        for i in range(-n, n + 1):
            for j in range(-n, n + 1):
                x, y = cx + i * LOWER_STEP * s, cy + j * LOWER_STEP * s
                c = (x - hw, y - hh, x + hw, y + hh)
                if all(chebyshev(c, o) >= LOWER_SEP * side(o) for o in own):
                    out.append(c)
    return out


def apart(box, other, limit: float = 0.5) -> bool:
    """Is `box` another card's than `other`'s: not the same box, nor its card's other corner?"""
    s = min(side(box), side(other))
    return iou(box, other) <= limit and not other_corner_of(box, other, s)


__all__ = ["apart", "area", "card_middle", "centre", "chebyshev", "corner_of_whole", "grid_beside",
           "holds_centre", "iou", "near_corner", "other_corner_of", "overlap", "same_place", "side"]
