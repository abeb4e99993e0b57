"""Box arithmetic shared by the watcher, the deck memory and training (boxes are x0, y0, x1, y1)."""
from __future__ import annotations


def centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def side(box) -> float:
    """A box's longer side."""
    return float(max(box[2] - box[0], box[3] - box[1]))


def area(box) -> float:
    """A box's area; 0 for an empty or inverted one."""
    return float(max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1]))


def overlap(a, b) -> float:
    """The area two boxes share."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ix * iy


def touch(a, b) -> bool:
    """Whether two boxes overlap or meet at an edge."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def iou(a, b) -> float:
    """Intersection over union; 0 for two empty boxes."""
    inter = overlap(a, b)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def zone(values, what: str = "zone") -> tuple[float, float, float, float]:
    """Four fractions of a frame (x0, y0, x1, y1), checked: the pot zone, a player's side of the
    table. One check for the watcher, the set-up page and `masta watch`; the ValueError says what
    was wrong."""
    try:
        x0, y0, x1, y1 = (float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be four numbers [x0, y0, x1, y1] between 0 and 1") from None
    if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
        raise ValueError(f"{what} must satisfy 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1 (fractions of the frame)")
    return x0, y0, x1, y1
