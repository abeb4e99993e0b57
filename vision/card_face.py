"""Read a whole card face from two of its corner indices.

At 640x480 a table camera sees a corner index about 12 px high, and the index classifier
reads unseen decks badly at that size (the benchmark videos: about half the pot cards).
The same card's face is about 65 x 100 px there: its pips, big suit symbols and court
frame are far easier to read. A card's two indices sit at opposite corners (top-left and,
turned half a turn, bottom-right), so two index centres fix the card's position, angle and
size; the card is warped upright into a small crop (`rectify`) and a second small CNN reads
it (53 cards + `none` for two indices that are not one card's corners).

`candidate_pairs` proposes the index pairs worth reading; `fuse` combines the face read with
the two index reads (their product, so each source can veto a card the other half-believes).
"""
from __future__ import annotations

import numpy as np

import cv2

#: the exported face classifier, beside the detector's ONNX
FACE_MODEL_NAME = "card_face_classifier.onnx"
#: the upright crop a card is warped into (width, height: a card's 5:7)
FACE_W, FACE_H = 48, 68
#: where a corner index's centre lies on a card, as fractions of its width and height
#: (the median over the project's deck styles: 0.08-0.14 across, 0.11-0.16 down)
INDEX_UV = (0.10, 0.13)
#: the crop shows the card plus this share of its size around it (decks place indices a
#: little differently, and the detector's boxes wobble)
FACE_PAD = 0.06
#: pairs whose centres lie this many median index boxes apart are read (a card's index
#: centres are 3.3 boxes apart in the benchmark videos, 4.9 truth boxes in the renderer's)
PAIR_RANGE = (2.2, 6.0)
#: at most this many pairs are read per frame (the closest to the typical card first)
MAX_PAIRS = 48
#: floor of a probability inside the product (a classifier's 0 is never certain)
FLOOR = 1e-3


def _crop_xy(u: float, v: float) -> tuple[float, float]:
    return ((u + FACE_PAD) / (1 + 2 * FACE_PAD) * FACE_W, (v + FACE_PAD) / (1 + 2 * FACE_PAD) * FACE_H)


#: the two index centres' places in the crop
ANCHORS = (_crop_xy(*INDEX_UV), _crop_xy(1 - INDEX_UV[0], 1 - INDEX_UV[1]))


def similarity(p1, p2, q1, q2) -> np.ndarray:
    """The 2x3 rotation + uniform scale + shift taking p1 to q1 and p2 to q2."""
    p1, p2, q1, q2 = (complex(float(p[0]), float(p[1])) for p in (p1, p2, q1, q2))
    if abs(p2 - p1) < 1e-6:
        raise ValueError("the two index centres coincide")
    z = (q2 - q1) / (p2 - p1)
    t = q1 - z * p1
    return np.array([[z.real, -z.imag, t.real], [z.imag, z.real, t.imag]], np.float32)


def rectify(image: np.ndarray, c1, c2) -> np.ndarray:
    """The card whose corner-index centres are `c1` and `c2` (opposite corners, either
    order: a card reads the same turned half a turn), upright in a FACE_H x FACE_W crop."""
    m = similarity(c1, c2, *ANCHORS)
    scale = float(np.hypot(m[0, 0], m[1, 0]))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (FACE_W, FACE_H), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def centres(boxes: np.ndarray) -> np.ndarray:
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    return np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1)


def candidate_pairs(boxes: np.ndarray, span: tuple[float, float] = PAIR_RANGE,
                    limit: int = MAX_PAIRS) -> list[tuple[int, int]]:
    """Index pairs (i, j), i < j, whose centres lie as far apart as one card's two corner
    indices can: `span` times the median index box's longer side."""
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    if len(b) < 2:
        return []
    size = float(np.median(np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])))
    c = centres(b)
    d = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1]) / max(size, 1.0)
    i, j = np.nonzero(np.triu((d >= span[0]) & (d <= span[1]), 1))
    mid = (span[0] + span[1]) / 2
    order = np.argsort(np.abs(d[i, j] - mid), kind="stable")[:limit]
    return [(int(i[k]), int(j[k])) for k in order]


def fuse(face: np.ndarray, a: np.ndarray, b: np.ndarray, none: int) -> tuple[int, float]:
    """The card the face and the corners agree on most: the product of the face read and the
    geometric mean of the two corner reads (one glyph printed twice: their errors go
    together, so they count as one source), over the cards (not `none`), renormalised.
    Returns (class, probability); (none, 0) when the face read says the two indices are not
    one card's."""
    if int(face.argmax()) == none:
        return none, 0.0
    logp = np.log(np.maximum(face, FLOOR)) + 0.5 * (np.log(np.maximum(a, FLOOR)) + np.log(np.maximum(b, FLOOR)))
    logp[none] = -np.inf
    p = np.exp(logp - logp.max())
    p /= p.sum()
    k = int(p.argmax())
    return k, float(p[k])
