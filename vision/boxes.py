"""Box arithmetic shared by the watcher, the deck memory and training (boxes are x0, y0, x1, y1)."""
from __future__ import annotations


def overlap(a, b) -> float:
    """The area two boxes share."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ix * iy


def iou(a, b) -> float:
    """Intersection over union; 0 for two empty boxes."""
    inter = overlap(a, b)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
