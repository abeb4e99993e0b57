"""The card-face reader's geometry and fusion: two corner indices -> an upright card."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.card_face import ANCHORS, FACE_H, FACE_W, candidate_pairs, centres, fuse, rectify, similarity
from vision.classifier import CLASSES, NONE

NONE_K = CLASSES.index(NONE)


def _card(w: int = 96, h: int = 136) -> np.ndarray:
    """An upright card with a pattern that tells up from down and left from right."""
    img = np.full((h, w, 3), 235, np.uint8)
    cv2.rectangle(img, (8, 10), (30, 40), (0, 0, 200), -1)            # top-left: red block
    cv2.circle(img, (w // 2, h // 2), 14, (0, 0, 0), -1)              # centre: black disc
    cv2.rectangle(img, (w - 40, h - 30), (w - 10, h - 12), (200, 0, 0), -1)  # bottom-right: blue
    cv2.line(img, (w // 2, 0), (w - 1, h // 3), (0, 150, 0), 3)       # a green stroke, top right
    return img


def _on_table(card: np.ndarray, angle: float, scale: float, at=(300.0, 220.0)):
    """The card turned by `angle` degrees and scaled onto a 640x480 table; returns the frame
    and the matrix from card pixels to frame pixels."""
    h, w = card.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += np.array(at) - np.array([w / 2, h / 2])
    frame = np.full((480, 640, 3), (40, 90, 140), np.uint8)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (640, 480))
    warped = cv2.warpAffine(card, m, (640, 480))
    frame[mask > 128] = warped[mask > 128]
    return frame, m


def _index_centres(card: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a card's two corner-index centres land in the frame (ANCHORS read back into card
    pixels: the crop is the card plus its pad)."""
    h, w = card.shape[:2]
    pad_m = similarity(ANCHORS[0], ANCHORS[1], *ANCHORS)  # identity, checks the helper too
    assert np.allclose(pad_m, [[1, 0, 0], [0, 1, 0]], atol=1e-5)
    from vision.card_face import FACE_PAD, INDEX_UV
    pts = np.array([[INDEX_UV[0] * w, INDEX_UV[1] * h], [(1 - INDEX_UV[0]) * w, (1 - INDEX_UV[1]) * h]])
    out = pts @ m[:, :2].T + m[:, 2]
    assert FACE_PAD > 0
    return out[0], out[1]


def _upright_reference(card: np.ndarray) -> np.ndarray:
    """The card as `rectify` should show it: padded by FACE_PAD, resized to the crop."""
    from vision.card_face import FACE_PAD
    h, w = card.shape[:2]
    pw, ph = int(round(FACE_PAD * w)), int(round(FACE_PAD * h))
    padded = cv2.copyMakeBorder(card, ph, ph, pw, pw, cv2.BORDER_CONSTANT, value=(40, 90, 140))
    return cv2.resize(padded, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    a = a.astype(np.float32).ravel() - a.mean()
    b = b.astype(np.float32).ravel() - b.mean()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))


def test_similarity_takes_each_point_to_its_target():
    p1, p2, q1, q2 = (10, 20), (50, -5), (3, 4), (40, 60)
    m = similarity(p1, p2, q1, q2)
    for p, q in ((p1, q1), (p2, q2)):
        assert np.allclose(m[:, :2] @ np.array(p, float) + m[:, 2], q, atol=1e-4)
    # a rotation and a uniform scale, never a shear or a mirror
    assert m[0, 0] == pytest.approx(m[1, 1]) and m[0, 1] == pytest.approx(-m[1, 0])
    with pytest.raises(ValueError, match="coincide"):
        similarity(p1, p1, q1, q2)


@pytest.mark.parametrize("angle,scale", [(0, 0.7), (37, 0.75), (-120, 0.6), (200, 0.9)])
def test_two_corner_centres_give_the_card_upright_whichever_way_it_lies(angle, scale):
    card = _card()
    frame, m = _on_table(card, angle, scale)
    a, b = _index_centres(card, m)
    ref = _upright_reference(card)
    crop = rectify(frame, a, b)
    assert crop.shape == (FACE_H, FACE_W, 3)
    assert _corr(crop, ref) > 0.9
    # the other order reads the card turned half a turn (a card's two halves print alike)
    assert _corr(rectify(frame, b, a), np.rot90(ref, 2)) > 0.9
    # and two points that are not the card's corners do not give it
    assert _corr(rectify(frame, a, (a + b) / 2), ref) < 0.6


def test_candidate_pairs_keep_what_lies_a_card_apart_closest_to_typical_first():
    size = 20.0
    def box(cx, cy):
        return [cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2]
    boxes = np.array([box(100, 100), box(165, 165), box(110, 100), box(100, 300), box(180, 160)])
    pairs = candidate_pairs(boxes, span=(2.2, 6.0))
    d = {p: math.dist(*centres(boxes[list(p)])) / size for p in pairs}
    assert pairs and all(i < j for i, j in pairs)
    assert all(2.2 <= v <= 6.0 for v in d.values())
    assert (0, 2) not in pairs and (0, 3) not in pairs  # too near, too far
    assert (0, 1) in pairs and (1, 2) in pairs
    mid = 4.1
    assert [abs(d[p] - mid) for p in pairs] == sorted(abs(d[p] - mid) for p in pairs)
    assert candidate_pairs(boxes[:1]) == [] and candidate_pairs(np.zeros((0, 4))) == []
    assert len(candidate_pairs(boxes, limit=2)) == 2


def _p(**probs: float) -> np.ndarray:
    v = np.full(len(CLASSES), 1e-4, np.float64)
    for card, p in probs.items():
        v[CLASSES.index(card.replace("_", ""))] = p
    return v / v.sum()


def test_fusion_agrees_vetoes_and_says_none():
    # the face reader says the two indices are not one card: no read at all
    assert fuse(_p(none=0.9, _7C=0.1), _p(_7C=0.9), _p(_7C=0.9), NONE_K) == (NONE_K, 0.0)
    # all agree: that card, more sure than any one read
    k, p = fuse(_p(_7C=0.8, _7S=0.2), _p(_7C=0.7, _7S=0.3), _p(_7C=0.7, _7S=0.3), NONE_K)
    assert CLASSES[k] == "7C" and p > 0.8
    # corners torn between two suits, the face sure of one: the face decides
    k, p = fuse(_p(_7C=0.95, _7S=0.05), _p(_7S=0.55, _7C=0.45), _p(_7C=0.5, _7S=0.5), NONE_K)
    assert CLASSES[k] == "7C"
    # a corner read the face gives no weight to cannot win, however sure the corner
    k, _ = fuse(_p(_3H=0.6, _8H=0.4), _p(_5H=0.99), _p(_3H=0.5, _5H=0.5), NONE_K)
    assert CLASSES[k] == "3H"
    # `none` is never the fused card, even when the corners think the crops are not indices
    k, _ = fuse(_p(_KD=0.6, none=0.4), _p(none=0.9, _KD=0.1), _p(none=0.9, _KD=0.1), NONE_K)
    assert CLASSES[k] == "KD"
