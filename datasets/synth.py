"""Synthetic pots: piles of card faces composed the way a real Shithead pot forms.

Each scene drops cards one after another on a table (a single card or a double, triple or
quad of one rank fanned out), each at a random offset and angle, then adds what a webcam
sees on a real table: perspective, uneven light, glare, shadows, hands and other objects
over the pot, blur, noise and JPEG. The labels are the corner indices (rank + suit in a
corner) that can still be read: an index covered by a card on top, a hand or an object is
not labelled. Every image is drawn from its own generator seeded by (seed, index), so a set
is identical whatever the number of workers.

Output folder (YOLO format, one class "index"):
  images/{split}/NNNNNN.jpg, labels/{split}/NNNNNN.txt, meta/{split}/NNNNNN.json, data.yaml
The meta JSON holds each index's card id and box, each card's quad, and the top card.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

from masta.pool import process_pool
from referee.cards import JOKER, RANKS, STANDARD_DECK, SUITS
from datasets.faces import Face, load_faces, training_styles

#: a corner index counts as readable when at least this share of it is uncovered
MIN_VISIBLE = 0.6


@dataclass
class IndexLabel:
    card: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in image pixels
    quad: list[list[float]]  # the index's four corners in image pixels
    visible: float
    layer: int = 0  # which dropped card it belongs to (0 = the bottom one)


@dataclass
class Scene:
    image: np.ndarray
    indices: list[IndexLabel] = field(default_factory=list)
    cards: list[dict] = field(default_factory=list)  # {"card", "quad", "layer"} bottom to top
    top_card: str | None = None
    style: str = ""


@dataclass
class SynthConfig:
    size: int = 640  # long side of the image
    styles: tuple[str, ...] = ()  # empty: the training styles
    min_cards: int = 1
    max_cards: int = 30
    occluders: bool = True
    camera: bool = True  # perspective, light, glare, blur, noise


@dataclass
class Placement:
    """An explicit drop (for tests): card id, centre (x, y), angle in degrees, height in px."""

    card: str
    x: float
    y: float
    angle: float
    height: float


# --------------------------------------------------------------------------- backgrounds
def _noise(rng: np.random.Generator, h: int, w: int, scale: int) -> np.ndarray:
    small = rng.random((max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A procedural table: wood, cloth/felt, a patterned tablecloth or a plain top."""
    kind = rng.choice(["wood", "felt", "pattern", "plain", "wood", "pattern"])
    if kind == "wood":
        base = np.array([rng.uniform(20, 90), rng.uniform(50, 130), rng.uniform(90, 200)], np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        warp = _noise(rng, h, w, 64) * rng.uniform(10, 40)
        grain = np.sin((u + warp) / rng.uniform(2, 8)) * 0.5 + 0.5
        rings = np.sin((u + warp * 3) / rng.uniform(15, 60)) * 0.5 + 0.5
        f = 0.75 + 0.15 * grain + 0.15 * rings + 0.1 * _noise(rng, h, w, 4)
        img = base[None, None, :] * f[..., None]
        if rng.random() < 0.4:  # planks
            pw = int(rng.uniform(60, 200))
            mask = (u.astype(np.int32) % pw) < 2
            img[mask] *= 0.5
    elif kind == "felt":
        base = rng.uniform(20, 200, 3).astype(np.float32)
        if rng.random() < 0.4:
            base = np.array([rng.uniform(20, 80), rng.uniform(80, 140), rng.uniform(10, 60)], np.float32)
        f = 0.9 + 0.08 * _noise(rng, h, w, 1) + 0.08 * _noise(rng, h, w, 40)
        img = base[None, None, :] * f[..., None]
    elif kind == "plain":
        v = rng.uniform(120, 250)
        base = np.clip(v + rng.normal(0, 12, 3), 0, 255).astype(np.float32)
        f = 0.95 + 0.05 * _noise(rng, h, w, 2) + 0.06 * _noise(rng, h, w, 80)
        img = base[None, None, :] * f[..., None]
    else:
        img = _pattern(rng, h, w)
    return np.clip(img, 0, 255).astype(np.uint8)


def _pattern(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    c1 = rng.uniform(0, 255, 3)
    c2 = rng.uniform(0, 255, 3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = c1
    kind = rng.integers(4)
    step = int(rng.uniform(12, 70))
    if kind == 0:  # checks / gingham
        yy, xx = np.mgrid[0:h, 0:w]
        m = ((xx // step) + (yy // step)) % 2 == 0
        img[m] = c2
    elif kind == 1:  # stripes
        yy, xx = np.mgrid[0:h, 0:w]
        m = ((xx + yy * rng.uniform(-1, 1)) // step).astype(int) % 2 == 0
        img[m] = c2
    elif kind == 2:  # dots and blobs
        for _ in range(int(h * w / step ** 2)):
            cv2.circle(img, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                       int(rng.uniform(2, step / 2)), tuple(float(v) for v in c2), -1)
    else:  # leaves / lines / polygons (tablecloth prints, including white-on-colour)
        for _ in range(int(rng.uniform(20, 80))):
            pts = rng.uniform(0, 1, (int(rng.integers(3, 7)), 2)) * step * 2
            pts += (rng.uniform(0, w), rng.uniform(0, h))
            col = tuple(float(v) for v in (c2 if rng.random() < 0.7 else rng.uniform(0, 255, 3)))
            if rng.random() < 0.5:
                cv2.fillPoly(img, [pts.astype(np.int32)], col)
            else:
                cv2.polylines(img, [pts.astype(np.int32)], True, col, int(rng.integers(1, 4)))
    img *= (0.9 + 0.1 * _noise(rng, h, w, 3))[..., None]
    return img


# --------------------------------------------------------------------------- cards
def _card_alpha(h: int, w: int, radius: float) -> np.ndarray:
    a = np.zeros((h, w), np.uint8)
    r = int(max(1, radius))
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return a


def _card_back(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    col = rng.uniform(0, 200, 3)
    img = np.full((h, w, 3), 255, np.float32)
    m = int(w * 0.06)
    img[m:h - m, m:w - m] = col
    step = int(rng.uniform(5, 15))
    for k in range(-h, w, step):
        cv2.line(img, (k, 0), (k + h, h), (255, 255, 255), 1)
    img[:m] = 255
    img[h - m:] = 255
    img[:, :m] = 255
    img[:, w - m:] = 255
    return img.astype(np.uint8)


def _affine(cx: float, cy: float, angle: float, scale: float, fw: int, fh: int) -> np.ndarray:
    """2x3 matrix taking face pixels to canvas pixels: centred at (cx, cy), rotated, scaled."""
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    tx = cx - (c * fw / 2 - s * fh / 2)
    ty = cy - (s * fw / 2 + c * fh / 2)
    return np.array([[c, -s, tx], [s, c, ty]], np.float64)


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return pts @ m[:, :2].T + m[:, 2]


def _box_quad(b) -> np.ndarray:
    x0, y0, x1, y1 = b
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def _paste(canvas: np.ndarray, idmap: np.ndarray, img: np.ndarray, alpha: np.ndarray,
           m: np.ndarray, layer: int, shadow: float) -> None:
    """Warp `img` by `m` onto the canvas (only the card's bounding rectangle is touched)."""
    H, W = canvas.shape[:2]
    h, w = img.shape[:2]
    corners = _apply(m, _box_quad((0, 0, w, h)))
    x0, y0 = np.floor(corners.min(0)).astype(int) - 6
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 6
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    mm = m.copy()
    mm[:, 2] -= (x0, y0)
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(img, mm, size, flags=cv2.INTER_AREA if abs(m[0, 0]) + abs(m[0, 1]) < 0.7 else cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT)
    a = cv2.warpAffine(alpha, mm, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    if shadow > 0:  # a soft drop shadow under the card
        sh = cv2.GaussianBlur(a, (0, 0), 3)
        sh = np.roll(sh, (2, 2), axis=(0, 1))
        roi *= (1 - shadow * sh)[..., None]
    roi = roi * (1 - a[..., None]) + warped.astype(np.float32) * a[..., None]
    canvas[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    if layer is not None:
        sub = idmap[y0:y1, x0:x1]
        sub[a > 0.5] = layer


def _visible_fraction(idmap: np.ndarray, quad: np.ndarray, layer: int) -> float:
    """Share of the quad's area inside the image and owned by `layer` (not covered)."""
    H, W = idmap.shape
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    full = max(1.0, cv2.contourArea(quad.astype(np.float32)))
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0.0
    mask = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
    cv2.fillPoly(mask, [np.round(quad - (cx0, cy0)).astype(np.int32)], 1)
    own = (idmap[cy0:cy1, cx0:cx1] == layer) & (mask > 0)
    return float(min(1.0, own.sum() / full))


def _pick_cards(rng: np.random.Generator, n: int) -> list[list[str]]:
    """The plays of a pot, bottom first: singles mostly, some doubles, triples and quads."""
    plays: list[list[str]] = []
    total = 0
    while total < n:
        k = int(rng.choice([1, 1, 1, 1, 1, 1, 2, 2, 3, 4]))
        k = min(k, n - total)
        if rng.random() < 0.03:
            plays.append([JOKER])
            total += 1
            continue
        rank = RANKS[int(rng.integers(len(RANKS)))]
        suits = list(rng.permutation(SUITS))[:k]
        plays.append([rank + s for s in suits])
        total += k
    return plays


def _n_cards(rng: np.random.Generator, cfg: SynthConfig) -> int:
    r = rng.random()
    if r < 0.4:
        n = int(rng.integers(1, 5))
    elif r < 0.75:
        n = int(rng.integers(5, 13))
    else:
        n = int(rng.integers(13, 31))
    return int(np.clip(n, cfg.min_cards, cfg.max_cards))


# --------------------------------------------------------------------------- occluders
def _hand(rng: np.random.Generator, canvas: np.ndarray, idmap: np.ndarray, cx: float, cy: float,
          size: float) -> None:
    """A hand-like shape (palm and fingers, skin or sleeve colours) reaching over the pot."""
    tone = rng.choice([[60, 90, 150], [90, 130, 190], [120, 160, 220], [40, 60, 100], [150, 180, 230]])
    col = tuple(float(v + rng.normal(0, 10)) for v in tone)
    ang = rng.uniform(0, 2 * math.pi)
    mask = np.zeros(idmap.shape, np.uint8)
    d = np.array([math.cos(ang), math.sin(ang)])
    n = np.array([-d[1], d[0]])
    palm = np.array([cx, cy])
    cv2.ellipse(mask, (int(cx), int(cy)), (int(size * 0.5), int(size * 0.4)),
                math.degrees(ang), 0, 360, 1, -1)
    for k in range(int(rng.integers(3, 6))):  # fingers
        off = (k - 2) * size * 0.2
        base = palm + d * size * 0.35 + n * off
        tip = base + d * size * rng.uniform(0.4, 0.7)
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 1, int(size * 0.16))
    arm_end = palm - d * size * 3
    cv2.line(mask, tuple(int(v) for v in palm), tuple(int(v) for v in arm_end), 1, int(size * 0.7))
    a = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 1.5)[..., None]
    shade = 0.8 + 0.25 * _noise(rng, *idmap.shape, 30)[..., None]
    layer = np.array(col, np.float32)[None, None, :] * shade
    canvas[:] = np.clip(canvas * (1 - a) + layer * a, 0, 255).astype(np.uint8)
    idmap[mask > 0] = -2


def _distractor(rng: np.random.Generator, canvas: np.ndarray, idmap: np.ndarray, card_h: float) -> None:
    """A card back, a chip or a cup somewhere on the table (possibly over the pot)."""
    H, W = idmap.shape
    kind = rng.choice(["back", "chip", "cup", "back"])
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    if kind == "back":
        fh = int(card_h)
        fw = int(card_h / 1.4)
        back = _card_back(rng, fh, fw)
        m = _affine(cx, cy, rng.uniform(0, 2 * math.pi), 1.0, fw, fh)
        _paste(canvas, idmap, back, _card_alpha(fh, fw, fw * 0.05), m, -3, 0.3)
    elif kind == "chip":
        r = int(card_h * rng.uniform(0.12, 0.2))
        col = tuple(float(v) for v in rng.uniform(0, 255, 3))
        for k in range(int(rng.integers(1, 6))):
            c = (int(cx + k * 2), int(cy - k * 3))
            cv2.circle(canvas, c, r, col, -1, cv2.LINE_AA)
            cv2.circle(canvas, c, int(r * 0.7), (240, 240, 240), 2, cv2.LINE_AA)
            cv2.circle(idmap, c, r, -3, -1)
    else:
        r = int(card_h * rng.uniform(0.3, 0.5))
        col = tuple(float(v) for v in rng.uniform(0, 255, 3))
        cv2.circle(canvas, (int(cx), int(cy)), r, col, -1, cv2.LINE_AA)
        cv2.circle(canvas, (int(cx), int(cy)), int(r * 0.85), tuple(float(v) * 0.6 for v in col), -1, cv2.LINE_AA)
        cv2.circle(idmap, (int(cx), int(cy)), r, -3, -1)


# --------------------------------------------------------------------------- photometric
def _photometric(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    H, W = img.shape[:2]
    f = img.astype(np.float32)
    # uneven room light: a gradient or a pool of light, and a colour cast
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if rng.random() < 0.5:
        ang = rng.uniform(0, 2 * math.pi)
        g = (xx * math.cos(ang) + yy * math.sin(ang)) / max(H, W)
        light = 1 + rng.uniform(-0.4, 0.4) * (g - g.mean())
    else:
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / max(H, W)
        light = 1.15 - rng.uniform(0.2, 0.7) * d
    f *= light[..., None] * rng.uniform(0.6, 1.25)
    f *= rng.uniform(0.85, 1.15, 3)[None, None, :]
    # shadows (a head or an arm between the lamp and the table)
    for _ in range(int(rng.integers(0, 3))):
        m = np.zeros((H, W), np.float32)
        pts = (rng.uniform(0, 1, (5, 2)) * (W, H)).astype(np.int32)
        cv2.fillPoly(m, [cv2.convexHull(pts)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(5, 30))
        f *= (1 - rng.uniform(0.2, 0.5) * m)[..., None]
    # glare: bright soft spots (glossy cards under a lamp)
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        m = np.zeros((H, W), np.float32)
        cv2.ellipse(m, (int(rng.uniform(0, W)), int(rng.uniform(0, H))),
                    (int(rng.uniform(10, W / 5)), int(rng.uniform(5, H / 8))),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(4, 20))
        f = f + (255 - f) * (rng.uniform(0.3, 0.75) * m)[..., None]
    f = np.clip(f, 0, 255)
    # blur (focus or motion), then sensor noise
    r = rng.random()
    if r < 0.25:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.5, 1.6))
    elif r < 0.35:
        k = int(rng.integers(3, 9))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, rot, (k, k))
        kern /= max(kern.sum(), 1e-6)
        f = cv2.filter2D(f, -1, kern)
    if rng.random() < 0.7:
        f = f + rng.normal(0, rng.uniform(1, 8), f.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- scene
def render_scene(rng: np.random.Generator, cfg: SynthConfig,
                 placements: list[Placement] | None = None) -> Scene:
    """One synthetic photo of a pot, with its readable corner indices.

    `placements` replaces the random pot by explicit drops, bottom first (for tests).
    """
    aspect = float(rng.choice([0.75, 0.75, 0.75, 1.0, 1.0, 0.5625]))
    W = cfg.size
    H = int(round(cfg.size * aspect))
    styles = list(cfg.styles) or training_styles()
    style = styles[int(rng.integers(len(styles)))]
    faces = load_faces(style)
    if not faces:
        raise ValueError(f"face style {style!r} has no faces (is its source folder missing?)")
    canvas = background(rng, H, W)
    idmap = np.full((H, W), -1, np.int32)
    card_h = float(rng.uniform(0.2, 0.55)) * H
    scatter = rng.random() < 0.3
    n = _n_cards(rng, cfg) if not scatter else int(rng.integers(1, 9))
    plays = _pick_cards(rng, n)
    centre = np.array([rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * H])
    spread = card_h * rng.uniform(0.12, 0.45)
    cards: list[dict] = []
    indices: list[tuple[str, np.ndarray, int]] = []
    paper = rng.uniform(0.85, 1.0)
    layer = 0
    if rng.random() < 0.25 and cfg.occluders:  # a few cards or backs lying around first
        for _ in range(int(rng.integers(1, 4))):
            _distractor(rng, canvas, idmap, card_h)
    if placements is not None:
        plays = [[p.card] for p in placements]
    for pi, play in enumerate(plays):
        if scatter:
            base = np.array([rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H])
        else:
            base = centre + rng.normal(0, spread, 2)
        ang = rng.uniform(0, 2 * math.pi)
        fan_dir = rng.uniform(0, 2 * math.pi)
        fan_step = card_h * rng.uniform(0.08, 0.3)
        fan_rot = math.radians(rng.uniform(-25, 25))
        for k, card in enumerate(play):
            face = faces.get(card)
            if face is None:  # a style without jokers: use a standard card
                card = STANDARD_DECK[int(rng.integers(52))]
                face = faces.get(card)
                if face is None:
                    continue
            fh, fw = face.image.shape[:2]
            scale = card_h / fh
            pos = base + k * fan_step * np.array([math.cos(fan_dir), math.sin(fan_dir)])
            a = ang + k * fan_rot
            if placements is not None:
                pl = placements[pi]
                scale, pos, a = pl.height / fh, np.array([pl.x, pl.y]), math.radians(pl.angle)
            m = _affine(float(pos[0]), float(pos[1]), a, scale, fw, fh)
            img = face.image
            tint = paper * rng.uniform(0.95, 1.05, 3)
            img = np.clip(img.astype(np.float32) * tint, 0, 255).astype(np.uint8)
            alpha = _card_alpha(fh, fw, fw * rng.uniform(0.03, 0.07))
            _paste(canvas, idmap, img, alpha, m, layer, rng.uniform(0.1, 0.5))
            cards.append({"card": card, "quad": _apply(m, _box_quad((0, 0, fw, fh))).tolist(),
                          "layer": layer})
            for b in face.indices:
                indices.append((card, _apply(m, _box_quad(b)), layer))
            layer += 1
    if cfg.occluders and placements is None:
        if rng.random() < 0.3:
            _hand(rng, canvas, idmap, float(centre[0] + rng.normal(0, card_h * 0.5)),
                  float(centre[1] + rng.normal(0, card_h * 0.5)), card_h * rng.uniform(0.5, 0.9))
        for _ in range(int(rng.choice([0, 0, 1, 2]))):
            _distractor(rng, canvas, idmap, card_h)
    # which indices are still readable (before the camera's perspective, which keeps coverage)
    labelled: list[tuple[str, np.ndarray, float, int]] = []
    for card, quad, lay in indices:
        vis = _visible_fraction(idmap, quad, lay)
        if vis >= MIN_VISIBLE:
            labelled.append((card, quad, vis, lay))
    # the camera: perspective and a slight stretch
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    j = rng.uniform(-0.08, 0.08, (4, 2)) * (W, H) if cfg.camera else np.zeros((4, 2))
    dst = (src + j).astype(np.float32)
    hom = cv2.getPerspectiveTransform(src, dst)
    if cfg.camera:
        canvas = cv2.warpPerspective(canvas, hom, (W, H), borderMode=cv2.BORDER_REFLECT)
        canvas = _photometric(rng, canvas)

    def proj(q: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(q.reshape(-1, 1, 2).astype(np.float64), hom).reshape(-1, 2)

    out = Scene(canvas, style=style)
    for card, quad, vis, lay in labelled:
        q = proj(quad)
        x0, y0 = np.clip(q.min(0), 0, (W, H))
        x1, y1 = np.clip(q.max(0), 0, (W, H))
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        out.indices.append(IndexLabel(card, (float(x0), float(y0), float(x1), float(y1)),
                                      q.round(2).tolist(), round(vis, 3), lay))
    for c in cards:
        c["quad"] = proj(np.array(c["quad"])).round(2).tolist()
    out.cards = cards
    if cards:
        # the top card is the last one dropped, if one of its indices can be read
        top = cards[-1]
        out.top_card = top["card"] if any(i.layer == top["layer"] for i in out.indices) else None
    return out


# --------------------------------------------------------------------------- dataset writer
def _render_one(args: tuple) -> tuple[int, int]:
    out, split, i, seed, cfg, quality_seed = args
    rng = np.random.default_rng([seed, i])
    scene = render_scene(rng, cfg)
    H, W = scene.image.shape[:2]
    name = f"{i:06d}"
    q = int(rng.integers(45, 96))
    cv2.imwrite(str(Path(out) / "images" / split / f"{name}.jpg"), scene.image,
                [cv2.IMWRITE_JPEG_QUALITY, q])
    lines = []
    for lab in scene.indices:
        x0, y0, x1, y1 = lab.box
        lines.append(f"0 {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} "
                     f"{(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}")
    (Path(out) / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    meta = {"style": scene.style, "top_card": scene.top_card, "size": [W, H],
            "indices": [asdict(lab) for lab in scene.indices], "cards": scene.cards}
    (Path(out) / "meta" / split / f"{name}.json").write_text(json.dumps(meta))
    return i, len(lines)


def write_dataset(out: str | Path, count: int, seed: int = 0, size: int = 640,
                  styles: tuple[str, ...] = (), val_fraction: float = 0.0, workers: int = 1,
                  start: int = 0, progress: bool = True) -> Path:
    """Write `count` scenes as a YOLO dataset; an image already written is kept (resumable)."""
    from tqdm import tqdm

    if count < 1:
        raise ValueError("--count must be at least 1")
    if size < 64:
        raise ValueError("--size must be at least 64 pixels")
    out = Path(out)
    for split in ("train", "val"):
        for sub in ("images", "labels", "meta"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    cfg = SynthConfig(size=size, styles=tuple(styles))
    n_val = int(round(count * val_fraction))
    jobs = []
    for i in range(start, start + count):
        split = "val" if i - start >= count - n_val else "train"
        if (out / "labels" / split / f"{i:06d}.txt").exists() and (out / "images" / split / f"{i:06d}.jpg").exists():
            continue
        jobs.append((str(out), split, i, seed, cfg, seed))
    names = ["index"]
    (out / "data.yaml").write_text(
        f"# masta synthetic pots: seed {seed}, size {size}, styles {list(styles) or 'training'}\n"
        f"path: {out.resolve()}\ntrain: images/train\nval: images/{'val' if n_val else 'train'}\n"
        f"nc: 1\nnames: {names}\n")
    bar = tqdm(total=len(jobs), desc=f"synth {out.name}", unit="img", disable=not progress)
    if workers > 1 and len(jobs) > 1:
        with process_pool(workers) as ex:
            for _ in ex.map(_render_one, jobs, chunksize=4):
                bar.update(1)
    else:
        for job in jobs:
            _render_one(job)
            bar.update(1)
    bar.close()
    return out
