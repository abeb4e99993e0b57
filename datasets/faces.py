"""Card faces from every source we have, each with the boxes of its corner indices.

A face is a flat, upright image of one card plus where its corner indices (the rank and
suit printed in a corner) lie, because the detector is trained to find corner indices and
the classifier to read them. Sources:

* the vector decks in `../shared/data/art/` (Kennard's four styles, Knoll's), rendered
  with cairosvg;
* the photographed deck in `../shared/data/faces/photo-deck/`;
* decks drawn here with the machine's fonts and varied layouts (`drawn-00` ...), so
  that the model sees more than five designs.

A missing source folder is skipped with a message on stderr, never an error.
"""
from __future__ import annotations

import functools
import io
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.cards import ALL_CARD_IDS, JOKER, STANDARD_DECK, name_to_card, rank_of, suit_of

#: Where the shared third-party data lives (override with MASTA_SHARED_DATA).
SHARED_DATA = Path(os.environ.get(
    "MASTA_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))

VECTOR_STYLES = ("kennard-2color", "kennard-2color-bf", "kennard-4color", "kennard-4color-bf",
                 "knoll")
PHOTO_STYLES = ("photo-deck",)
DRAWN_STYLES = tuple(f"drawn-{i:02d}" for i in range(64))
#: drawn-00 to drawn-15 take their font from these families only: the fonts they were first
#: drawn with (the committed models' recipe); the others from every font installed (the
#: recipe installs Debian's font packages: datasets/recipes/card_models.md)
FIRST_FONT_DIRS = ("/dejavu/", "/liberation/")
FIRST_FONT_STYLES = 16
#: from drawn-48 on, half the styles write their ranks as outlined (hollow) letters, as some
#: printed decks do (added after the held-out Knoll deck's hollow Q was read as a 6)
HOLLOW_FROM = 48
#: Styles never used for training, kept to measure generalisation to unseen decks.
HELD_OUT_STYLES = ("knoll", "photo-deck")

FACE_HEIGHT = 352  # pixels; each face keeps its own aspect ratio

#: names a folder of faces drawn once (`masta data faces --out DIR`): styles found there are
#: read from it instead of from their sources, so that a machine without the shared data,
#: cairosvg or the fonts (a leased GPU) draws training data from the same decks
FACE_CACHE_ENV = "MASTA_FACE_CACHE"

Box = tuple[float, float, float, float]


@dataclass
class Face:
    """One upright card face and the boxes (x0, y0, x1, y1, face pixels) of its indices."""

    card: str
    image: np.ndarray  # BGR uint8
    indices: list[Box] = field(default_factory=list)
    style: str = ""
    #: the court letters its indices print (`vision.letters.LETTER_SETS`): a classifier reads
    #: what is printed, so a lettered face trains the letter glyphs, not the ranks
    letters: str = "en"


def _warn(msg: str) -> None:
    print(f"masta faces: {msg}", file=sys.stderr)


def face_styles(include_held_out: bool = True) -> list[str]:
    """Every style whose source is present or cached (drawn styles always are)."""
    cached = set(_cached_styles())
    styles = [s for s in VECTOR_STYLES if (SHARED_DATA / "art" / s).is_dir() or s in cached]
    if (SHARED_DATA / "faces" / "photo-deck").is_dir() or "photo-deck" in cached:
        styles.append("photo-deck")
    styles += list(DRAWN_STYLES)
    if not include_held_out:
        styles = [s for s in styles if s not in HELD_OUT_STYLES]
    return styles


def extra_styles() -> list[str]:
    """Training styles named explicitly, never among the defaults: the packaged designs present
    here (installed or cached) and the lettered drawn decks. Lettered courts train glyph classes
    (`training.train_letters`); the default 54-class recipe would learn a Dutch V as a queen and a
    French one as a jack, and a packaged SVG deck takes seconds to minutes to render."""
    from datasets.package_decks import available_styles

    styles = available_styles()
    styles += [s for s in _cached_styles() if s.startswith("pkg-") and s not in styles]
    return styles + list(LETTERED_STYLES)


def training_styles() -> list[str]:
    return face_styles(include_held_out=False)


def load_face_set(style: str) -> dict[str, np.ndarray]:
    """`{card_id: BGR face}` for one style (jokers under `JK` where the style has one)."""
    return {c: f.image for c, f in load_faces(style).items()}


@functools.lru_cache(maxsize=None)
def load_faces(style: str) -> dict[str, Face]:
    """`{card_id: Face}` for one style; empty (with a message) when its source is missing."""
    cache = _cache_dir()
    if cache is not None and (cache / f"{style}.npz").exists():
        return _load_cached(cache / f"{style}.npz", style)
    if style in VECTOR_STYLES:
        return _load_vector(style)
    if style == "photo-deck":
        return _load_photo(style)
    if style.startswith("drawn-"):
        return _draw_deck(style)
    if style.startswith("pkg-"):
        return load_package_faces(style)
    if style.startswith("lettered-"):
        return _draw_lettered(style)
    raise ValueError(f"unknown face style {style!r}: use one of {', '.join(face_styles())}")


# --------------------------------------------------------------------------- face cache
def _cache_dir() -> Path | None:
    folder = os.environ.get(FACE_CACHE_ENV)
    return Path(folder) if folder else None


def _cached_styles() -> list[str]:
    cache = _cache_dir()
    return sorted(p.stem for p in cache.glob("*.npz")) if cache is not None and cache.is_dir() else []


def save_faces(styles: list[str], folder: str | Path) -> list[Path]:
    """Write each style's faces (PNG) and index boxes to `<folder>/<style>.npz` for
    `MASTA_FACE_CACHE`; a style with no faces here is an error, not an empty file."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for style in styles:
        faces = load_faces(style)
        if not faces:
            raise ValueError(f"face style {style!r} has no faces on this machine: nothing to cache")
        arrays: dict[str, np.ndarray] = {}
        for card, f in faces.items():
            ok, png = cv2.imencode(".png", f.image)
            if not ok:
                raise ValueError(f"cannot encode {style} {card}")
            arrays[f"{card}.png"] = png.reshape(-1)
            arrays[f"{card}.boxes"] = np.array(f.indices, np.float64).reshape(-1, 4)
        if style.startswith("drawn-"):  # which font it was drawn in: it depends on the machine
            arrays["font"] = np.array(Path(drawn_font(style) or "").name)
        arrays["letters"] = np.array(next(iter(faces.values())).letters)
        path = folder / f"{style}.npz"
        np.savez(path, **arrays)
        written.append(path)
    return written


def load_package_faces(style: str) -> dict[str, Face]:
    """`{card_id: Face}` of style `pkg-<design>` (`datasets.package_decks` renders it), with each
    corner index's box."""
    from datasets.package_decks import PACKAGE_DESIGNS, PACKAGE_STYLES, PREFIX, render_design

    d = PACKAGE_DESIGNS.get(style[len(PREFIX):]) if style.startswith(PREFIX) else None
    if d is None:
        raise ValueError(f"unknown package deck style {style!r}: use one of {', '.join(PACKAGE_STYLES)}")
    faces = {}
    for card, img in render_design(d.name, FACE_HEIGHT).items():
        h, w = img.shape[:2]
        # the index is looked for with the card's outline painted white: a dark outline would
        # be taken for the paper's colour (and nothing for ink), or join the index
        clean = img.copy()
        edge = max(2, int(round(0.03 * w)))
        clean[:edge], clean[-edge:], clean[:, :edge], clean[:, -edge:] = 255, 255, 255, 255
        idx = _find_index(clean, d.window)
        if idx is None or (idx[2] - idx[0]) < 3 or (idx[3] - idx[1]) < 6:
            _warn(f"{style} {card}: no corner index found: skipped")
            continue
        boxes = [idx, _rot180(idx, w, h)]
        if d.four_corners:
            boxes += [(w - idx[2], idx[1], w - idx[0], idx[3]), (idx[0], h - idx[3], idx[2], h - idx[1])]
        faces[card] = Face(card, img, boxes, style, letters=d.letters)
    return faces


def _load_cached(path: Path, style: str) -> dict[str, Face]:
    faces: dict[str, Face] = {}
    with np.load(path) as data:
        letters = str(data["letters"]) if "letters" in data.files else "en"
        for key in sorted(k for k in data.files if k.endswith(".png")):
            card = key[:-len(".png")]
            img = cv2.imdecode(data[key], cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError(f"{path}: the face of {card} cannot be decoded; write the cache again "
                                 f"(masta data faces --out {path.parent})")
            boxes = [tuple(float(v) for v in b) for b in data[f"{card}.boxes"]]
            faces[card] = Face(card, img, boxes, style, letters=letters)
    return faces


# --------------------------------------------------------------------------- index finding
def _ink_mask(img: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    bg = np.median(gray[gray.shape[0] // 3: 2 * gray.shape[0] // 3, :6])
    return ((gray < min(bg - 60, 170)) | (hsv[..., 1] > 90)).astype(np.uint8)


def _find_index(img: np.ndarray, window: Box) -> Box | None:
    """Tight box of the ink components lying wholly inside `window` (fractions of the face).

    Components that run out of the window's right or bottom edge (a court card's frame,
    a pip) are not part of the index.
    """
    h, w = img.shape[:2]
    x0, y0, x1, y1 = int(window[0] * w), int(window[1] * h), int(window[2] * w), int(window[3] * h)
    sub = _ink_mask(img)[y0:y1, x0:x1]
    n, _, stats, _ = cv2.connectedComponentsWithStats(sub, connectivity=8)
    boxes = []
    for i in range(1, n):
        bx, by, bw, bh, area = stats[i]
        if area < 6 or bx + bw >= sub.shape[1] - 1 or by + bh >= sub.shape[0] - 1:
            continue
        if bx <= 1 and bw > 0.8 * sub.shape[1]:
            continue
        boxes.append((bx, by, bx + bw, by + bh))
    if not boxes:
        return None
    b = np.array(boxes)
    return (max(0.0, x0 + b[:, 0].min() - 1.0), max(0.0, y0 + b[:, 1].min() - 1.0),
            min(float(w), x0 + b[:, 2].max() + 1.0), min(float(h), y0 + b[:, 3].max() + 1.0))


def _rot180(box: Box, w: int, h: int) -> Box:
    x0, y0, x1, y1 = box
    return (w - x1, h - y1, w - x0, h - y0)


# --------------------------------------------------------------------------- vector decks
def _fix_kennard(svg: str) -> str:
    """cairosvg draws a `<use>` with a height but no width at the wrong size: add the width.

    The symbols are square (viewBox) and aligned xMinYMid, so width = height is faithful.
    """
    def add(m: re.Match) -> str:
        if "width=" in m.group(1):
            return m.group(0)
        return f'<use {m.group(1)}width="{m.group(2)}" height="{m.group(2)}"'
    return re.sub(r'<use ([^>]*?)height="([-\d.]+)"', add, svg)


#: the one font a vector deck's text is drawn in (Knoll's ranks ask for Arial): what a fresh
#: machine has (fonts-dejavu-core), so that a deck looks the same wherever it is drawn
SVG_FONT = "DejaVu Sans"


def _pin_fonts(svg: str) -> str:
    """Every font the SVG asks for, drawn in `SVG_FONT`. Which font fontconfig substitutes for
    Arial depends on what is installed: DejaVu Sans on a fresh machine, Liberation Sans once
    `make test` brought Debian's chromium (and with it fonts-liberation). So the benchmark's
    Knoll games were drawn with one or the other Q depending on when they were rendered, and
    read differently (model card, "Knoll's queens")."""
    return re.sub(r"font-family:[^;\"]*", f"font-family:{SVG_FONT}", svg)


@functools.lru_cache(maxsize=1)
def _check_svg_font() -> None:
    import shutil
    import subprocess

    if shutil.which("fc-match") is None:
        return
    found = subprocess.run(["fc-match", "-f", "%{family}", SVG_FONT], capture_output=True, text=True).stdout
    if SVG_FONT not in found:
        _warn(f"font {SVG_FONT!r} is not installed (fontconfig gives {found!r}): vector decks' text "
              f"will not look as in the benchmark; install Debian's fonts-dejavu-core")


def _render_svg(path: Path, height: int) -> np.ndarray:
    import cairosvg
    from PIL import Image

    svg = _fix_kennard(path.read_text())
    if "font-family" in svg:
        _check_svg_font()
        svg = _pin_fonts(svg)
    m = re.search(r'viewBox="([-\d.\s]+)"', svg)
    vb = [float(v) for v in m.group(1).split()] if m else [0, 0, 2.5, 3.5]
    width = int(round(height * vb[2] / vb[3]))
    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=width, output_height=height,
                           background_color="white")
    rgba = np.array(Image.open(io.BytesIO(png)).convert("RGB"))
    return np.ascontiguousarray(rgba[:, :, ::-1])


def _vector_name(style: str, path: Path) -> str | None:
    try:
        return name_to_card(path.stem)
    except ValueError:
        return None


def _load_vector(style: str) -> dict[str, Face]:
    folder = SHARED_DATA / "art" / style
    if not folder.is_dir():
        _warn(f"{folder} is missing: style {style!r} skipped")
        return {}
    faces: dict[str, Face] = {}
    for path in sorted(folder.glob("*.svg")):
        card = _vector_name(style, path)
        if card is None or card in faces:
            continue
        try:
            img = _render_svg(path, FACE_HEIGHT)
        except Exception as exc:  # a broken file must not stop the others
            _warn(f"cannot render {path}: {exc}")
            continue
        h, w = img.shape[:2]
        if card == JOKER:
            idx = _joker_index(img, style)
        else:
            window = (0.0, 0.0, 0.17, 0.27) if style.startswith("kennard") else (0.0, 0.0, 0.22, 0.27)
            if style.endswith("-bf"):
                window = (0.0, 0.0, 0.26, 0.46)
            idx = _find_index(img, window)
        if idx is None:
            _warn(f"no corner index found on {path}: skipped")
            continue
        boxes = [idx] if card == JOKER and style != "knoll" else [idx, _rot180(idx, w, h)]
        faces[card] = Face(card, img, boxes, style)
    return faces


def _joker_index(img: np.ndarray, style: str) -> Box | None:
    if style == "knoll":  # 'Joker' written down the left edge
        box = _find_index(img, (0.0, 0.0, 0.2, 0.62))
        if box is not None:
            return box
    # Kennard's joker has no index: the jester's head is what identifies it.
    ink = _ink_mask(img)
    h, w = ink.shape
    ys, xs = np.nonzero(ink[int(0.08 * h):int(0.5 * h), int(0.1 * w):int(0.9 * w)])
    if len(xs) == 0:
        return None
    return (xs.min() + 0.1 * w, ys.min() + 0.08 * h, xs.max() + 0.1 * w, ys.max() + 0.08 * h)


# --------------------------------------------------------------------------- photographed deck
def _load_photo(style: str) -> dict[str, Face]:
    folder = SHARED_DATA / "faces" / "photo-deck"
    if not folder.is_dir():
        _warn(f"{folder} is missing: style {style!r} skipped")
        return {}
    faces: dict[str, Face] = {}
    for path in sorted(folder.glob("*.jpg")):
        try:
            card = name_to_card(path.stem)
        except ValueError:
            continue
        img = cv2.imread(str(path))
        if img is None:
            _warn(f"cannot read {path}: skipped")
            continue
        scale = FACE_HEIGHT / img.shape[0]
        img = cv2.resize(img, (int(round(img.shape[1] * scale)), FACE_HEIGHT),
                         interpolation=cv2.INTER_AREA)
        h, w = img.shape[:2]
        idx = _find_index(img, (0.0, 0.0, 0.2, 0.27))
        if idx is None:
            _warn(f"no corner index found on {path}: skipped")
            continue
        faces[card] = Face(card, img, [idx, _rot180(idx, w, h)], style)
    return faces


# --------------------------------------------------------------------------- drawn decks
FONT_DIRS = ("/usr/share/fonts/truetype", "/usr/share/fonts/opentype", "/usr/share/fonts")
SUIT_GLYPH = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


@functools.lru_cache(maxsize=1)
def available_fonts() -> list[str]:
    """TrueType fonts installed on this machine that can draw ranks (and ideally suits)."""
    found: list[str] = []
    for d in FONT_DIRS:
        if os.path.isdir(d):
            for root, _, files in os.walk(d):
                found += [os.path.join(root, f) for f in files if f.lower().endswith((".ttf", ".otf"))]
    # fonts that cannot write a rank: symbols, dingbats, a script
    skip = ("math", "symbol", "d050000l", "dingbat", "z003")
    found = sorted(set(f for f in found if not any(k in f.lower() for k in skip)))
    return found


def _suit_font() -> str | None:
    for f in available_fonts():
        if "DejaVuSans.ttf" in f or "DejaVuSans-Bold.ttf" in f:
            return f
    return None


def _draw_suit(draw, cx: float, cy: float, size: float, suit: str, color, shape_font) -> None:
    """A suit symbol: a font glyph when a font has one, else a polygon."""
    from PIL import ImageFont

    if shape_font:
        font = ImageFont.truetype(shape_font, max(6, int(size * 1.25)))
        draw.text((cx, cy), SUIT_GLYPH[suit], font=font, fill=color, anchor="mm")
        return
    s = size / 2
    if suit == "D":
        draw.polygon([(cx, cy - s), (cx + 0.7 * s, cy), (cx, cy + s), (cx - 0.7 * s, cy)], fill=color)
    elif suit == "H":
        draw.ellipse([cx - s, cy - s * 0.8, cx, cy], fill=color)
        draw.ellipse([cx, cy - s * 0.8, cx + s, cy], fill=color)
        draw.polygon([(cx - s, cy - 0.35 * s), (cx + s, cy - 0.35 * s), (cx, cy + s)], fill=color)
    elif suit == "C":
        r = s * 0.45
        for dx, dy in ((0, -0.5), (-0.5, 0.15), (0.5, 0.15)):
            draw.ellipse([cx + dx * s - r, cy + dy * s - r, cx + dx * s + r, cy + dy * s + r], fill=color)
        draw.polygon([(cx, cy), (cx - 0.3 * s, cy + s), (cx + 0.3 * s, cy + s)], fill=color)
    else:
        draw.polygon([(cx, cy - s), (cx + s, cy + 0.2 * s), (cx - s, cy + 0.2 * s)], fill=color)
        draw.ellipse([cx - s, cy - 0.3 * s, cx, cy + 0.5 * s], fill=color)
        draw.ellipse([cx, cy - 0.3 * s, cx + s, cy + 0.5 * s], fill=color)
        draw.polygon([(cx, cy), (cx - 0.3 * s, cy + s), (cx + 0.3 * s, cy + s)], fill=color)


def _inside(box: Box, w: int, h: int) -> Box:
    """`box` cut to the face (an italic letter's ink may start left of its origin)."""
    return (max(0.0, box[0]), max(0.0, box[1]), min(float(w), box[2]), min(float(h), box[3]))


def drawn_font(style: str) -> str | None:
    """The font file drawn style `style` writes its ranks in on this machine (None: no fonts).
    It is picked from the fonts installed, so it changes with them: a training run records it
    (`save_faces` beside each cached deck), and `masta data faces --fonts` lists them."""
    return _pick_font(*_deck_seed(style))


def _deck_seed(style: str) -> tuple[int, np.random.Generator]:
    """A drawn style's number and the generator its deck is drawn from (its font first)."""
    seed = int(style.split("-")[1])
    return seed, np.random.default_rng(1000 + seed)


def _pick_font(seed: int, rng: np.random.Generator) -> str | None:
    """The drawn style's font: its generator's first draw (so the rest of the deck's draws stay
    as they were). drawn-00 to drawn-15 pick among `FIRST_FONT_DIRS` only; missing one of those
    families, the pick moves to other fonts and the deck is not the recipe's: warned once."""
    fonts = available_fonts()
    if seed < FIRST_FONT_STYLES:
        _check_first_fonts(tuple(fonts))
        fonts = [f for f in fonts if any(k in f for k in FIRST_FONT_DIRS)] or fonts
    if not fonts:
        return None
    return fonts[int(rng.integers(len(fonts)))]


@functools.lru_cache(maxsize=4)
def _check_first_fonts(fonts: tuple[str, ...]) -> None:
    missing = [d.strip("/") for d in FIRST_FONT_DIRS if not any(d in f for f in fonts)]
    if missing:
        _warn(f"no {' or '.join(missing)} fonts installed: drawn-00 to drawn-{FIRST_FONT_STYLES - 1:02d} "
              f"are drawn in other fonts than the committed models trained on; install them first "
              f"(`make train-fonts`) to train as the recipe does")


#: drawn decks whose courts print another language's letters (`vision.letters.LETTER_SETS`),
#: `lettered-<set>-NN`: trained on, their fonts from DejaVu only
LETTER_SET_NAMES = ("fr", "nl", "de")
LETTERED_STYLES = tuple(f"lettered-{ls}-{i:02d}" for ls in LETTER_SET_NAMES for i in range(8))
#: the same in Liberation fonts only, `lettered-test-<set>-NN`: never trained on, for measuring
#: lettered decks in fonts training did not see (not listed by `face_styles`)
LETTERED_TEST_STYLES = tuple(f"lettered-test-{ls}-{i:02d}" for ls in LETTER_SET_NAMES for i in range(4))
#: the glyph each letter set prints for J, Q, K, A (fr decks print 1 or A on the ace)
#: (`fr1`: a French deck whose ace prints 1; a face's `letters` names one of these)
COURT_GLYPHS = {"en": {"J": "J", "Q": "Q", "K": "K", "A": "A"}, "fr": {"J": "V", "Q": "D", "K": "R", "A": "A"},
                "fr1": {"J": "V", "Q": "D", "K": "R", "A": "1"},
                "nl": {"J": "B", "Q": "V", "K": "H", "A": "A"}, "de": {"J": "B", "Q": "D", "K": "K", "A": "A"}}


def _draw_lettered(style: str) -> dict[str, Face]:
    """A drawn deck in `lettered-[test-]<set>-NN`: laid out as a drawn deck, its courts in the
    set's letters, a French one's ace as 1 or A (seeded)."""
    parts = style.split("-")
    test = parts[1] == "test"
    ls, n = parts[-2], int(parts[-1])
    if ls not in COURT_GLYPHS or len(parts) != (4 if test else 3):
        raise ValueError(f"unknown lettered style {style!r}: lettered-<fr|nl|de>-NN or lettered-test-<set>-NN")
    seed = 3000 + 100 * LETTER_SET_NAMES.index(ls) + n + (50 if test else 0)
    if ls == "fr" and np.random.default_rng(seed).random() < 0.5:
        ls = "fr1"
    glyphs = dict(COURT_GLYPHS[ls])
    family = "/liberation/" if test else "/dejavu/"
    fonts = [f for f in available_fonts() if family in f]
    if not fonts:
        _warn(f"no {family.strip('/')} fonts installed: style {style!r} skipped")
        return {}
    return _draw_deck(style, (seed, np.random.default_rng(seed)), fonts, glyphs, ls)


def _draw_deck(style: str, seeded: tuple[int, np.random.Generator] | None = None,
               fonts: list[str] | None = None, glyphs: dict[str, str] | None = None,
               letter_set: str | None = None) -> dict[str, Face]:
    """A whole deck in one drawn style: one font, one layout, one palette, seeded by name
    (a lettered style gives its own seed, fonts and court glyphs)."""
    from PIL import Image, ImageDraw, ImageFont

    seed, rng = seeded if seeded is not None else _deck_seed(style)
    font_path = _pick_font(seed, rng) if fonts is None else fonts[int(rng.integers(len(fonts)))]
    if font_path is None:
        _warn("no TrueType fonts installed: drawn styles skipped")
        return {}
    shape_font = _suit_font() if rng.random() < 0.7 else None
    aspect = float(rng.choice([1.4, 1.4, 1.56]))
    h = FACE_HEIGHT
    w = int(round(h / aspect))
    bg = tuple(int(v) for v in (255 - rng.integers(0, 25, 3)))  # white to cream
    four_color = rng.random() < 0.2
    reds = [(200, 20, 30), (220, 0, 0), (180, 30, 40), (230, 40, 60)]
    red = reds[int(rng.integers(len(reds)))]
    black = (int(rng.integers(0, 40)),) * 3
    palette = {"S": black, "C": (0, 120, 30) if four_color else black,
               "H": red, "D": (0, 60, 200) if four_color else red}
    idx_h = float(rng.uniform(0.075, 0.13)) * h   # rank text height
    margin_x = float(rng.uniform(0.03, 0.08)) * w
    margin_y = float(rng.uniform(0.025, 0.06)) * h
    suit_scale = float(rng.uniform(0.55, 0.9))
    four_corners = rng.random() < 0.25
    big_centre = rng.random() < 0.3
    letters = {"J": "J", "Q": "Q", "K": "K", "A": "A"}
    if rng.random() < 0.15:  # some decks print localised court letters
        letters = {"J": "V", "Q": "D", "K": "R", "A": "A"} if rng.random() < 0.5 else \
                  {"J": "B", "Q": "D", "K": "K", "A": "A"}
    letter_set = letter_set or ("fr" if letters["K"] == "R" else "de" if letters["J"] == "B" else "en")
    if glyphs is not None:
        letters = glyphs
    frame_color = tuple(int(v) for v in rng.integers(0, 255, 3))
    font = ImageFont.truetype(font_path, max(8, int(idx_h * 1.3)))
    # its own generator: the earlier styles' draws stay as they were
    hollow = seed >= HOLLOW_FROM and np.random.default_rng(5000 + seed).random() < 0.5
    stroke = max(1, round(idx_h * 0.07)) if hollow else 0

    def write(xy, text, fnt, color, **kw) -> None:
        if hollow:  # the letter's outline in the ink colour, its inside the card's
            d.text(xy, text, font=fnt, fill=bg, stroke_width=stroke, stroke_fill=color, **kw)
        else:
            d.text(xy, text, font=fnt, fill=color, **kw)

    faces: dict[str, Face] = {}
    for card in ALL_CARD_IDS:
        im = Image.new("RGB", (w, h), bg)
        d = ImageDraw.Draw(im)
        boxes: list[Box] = []
        if card == JOKER:
            color = palette["H"] if rng.random() < 0.5 else palette["S"]
            jfont = ImageFont.truetype(font_path, max(8, int(idx_h * 0.8)))
            # 'JOKER' written down the left edge, one letter under the other
            y = margin_y
            x0 = margin_x
            xs, ys = [], []
            for ch in "JOKER":
                bb = d.textbbox((x0, y), ch, font=jfont)
                d.text((x0, y), ch, font=jfont, fill=color)
                xs += [bb[0], bb[2]]
                ys += [bb[1], bb[3]]
                y = bb[3] + idx_h * 0.12
            box = _inside((min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1), w, h)
            boxes = [box]
            # a star and a jester-ish mark in the middle
            cx, cy, r = w / 2, h / 2, w * 0.28
            pts = [(cx + (r if k % 2 == 0 else r * 0.45) * np.cos(np.pi / 5 * k - np.pi / 2),
                    cy + (r if k % 2 == 0 else r * 0.45) * np.sin(np.pi / 5 * k - np.pi / 2))
                   for k in range(10)]
            d.polygon(pts, fill=color)
        else:
            rank, suit = rank_of(card), suit_of(card)
            color = palette[suit]
            text = letters.get(rank, rank)
            bb = d.textbbox((0, 0), text, font=font, anchor="lt")
            tw, th = bb[2] - bb[0], bb[3] - bb[1]
            if tw > w * 0.2:  # '10' in a wide font: squeeze it
                small = ImageFont.truetype(font_path, max(8, int(idx_h * 1.3 * w * 0.2 / tw)))
            else:
                small = font
            tx, ty = margin_x, margin_y
            tb = d.textbbox((tx, ty), text, font=small, anchor="lt", stroke_width=stroke)
            write((tx, ty), text, small, color, anchor="lt")
            ssize = idx_h * suit_scale
            scx = (tb[0] + tb[2]) / 2
            scy = tb[3] + idx_h * 0.12 + ssize / 2
            _draw_suit(d, scx, scy, ssize, suit, color, shape_font)
            box = _inside((min(tb[0], scx - ssize / 2) - 1, tb[1] - 1, max(tb[2], scx + ssize / 2) + 1,
                           scy + ssize / 2 + 1), w, h)
            boxes = [box]
            # centre: pips in columns, a big suit, or a court frame with its letter
            if rank in ("J", "Q", "K"):
                fx0, fy0 = box[2] + w * 0.04, h * 0.1
                d.rectangle([fx0, fy0, w - fx0, h - fy0], outline=frame_color, width=2,
                            fill=tuple(int(c * 0.5 + b * 0.5) for c, b in zip(frame_color, bg)))
                bfont = ImageFont.truetype(font_path, int(h * 0.3))
                write((w / 2, h / 2), text, bfont, color, anchor="mm")
            elif big_centre or rank == "A":
                _draw_suit(d, w / 2, h / 2, w * 0.45, suit, color, shape_font)
            else:
                n = int(rank)
                cols = 1 if n <= 3 else 2 if n <= 8 else 3
                per = int(np.ceil(n / cols))
                k = 0
                for c in range(cols):
                    for r in range(per):
                        if k >= n:
                            break
                        cx = w * (0.5 if cols == 1 else 0.32 + 0.36 * c / (cols - 1))
                        cy = h * (0.22 + 0.56 * (r + 0.5) / per)
                        _draw_suit(d, cx, cy, w * 0.14, suit, color, shape_font)
                        k += 1
        img = np.array(im)[:, :, ::-1].copy()
        # the same index rotated by 180 degrees in the opposite corner (and mirrored ones)
        rot = cv2.rotate(img, cv2.ROTATE_180)
        bx = [int(v) for v in box]
        bx = [max(0, bx[0]), max(0, bx[1]), min(w, bx[2] + 1), min(h, bx[3] + 1)]
        patch = rot[h - bx[3]:h - bx[1], w - bx[2]:w - bx[0]]
        img[h - bx[3]:h - bx[1], w - bx[2]:w - bx[0]] = patch if card != JOKER else \
            cv2.rotate(img[bx[1]:bx[3], bx[0]:bx[2]], cv2.ROTATE_180)
        boxes.append(_rot180(box, w, h))
        if four_corners and card != JOKER:
            # top-right (upright) and bottom-left (upside down)
            tr = img[bx[1]:bx[3], bx[0]:bx[2]]
            img[bx[1]:bx[3], w - bx[2]:w - bx[0]] = tr
            img[h - bx[3]:h - bx[1], bx[0]:bx[2]] = cv2.rotate(tr, cv2.ROTATE_180)
            boxes += [(w - box[2], box[1], w - box[0], box[3]),
                      (box[0], h - box[3], box[2], h - box[1])]
        faces[card] = Face(card, img, boxes, style, letters=letter_set)
    return faces


def preview(styles: list[str], out: str) -> None:
    """Write a contact sheet of a few faces per style with their index boxes (for review)."""
    rows = []
    for st in styles:
        fs = load_faces(st)
        row = []
        for c in ("10S", "QH", "7D", "KC", "AS", JOKER):
            if c not in fs:
                continue
            f = fs[c]
            im = cv2.resize(f.image, (240, FACE_HEIGHT)).copy()
            sx = 240 / f.image.shape[1]
            for b in f.indices:
                cv2.rectangle(im, (int(b[0] * sx), int(b[1])), (int(b[2] * sx), int(b[3])), (0, 255, 0), 1)
            row.append(im)
        while len(row) < 6:
            row.append(np.zeros((FACE_HEIGHT, 240, 3), np.uint8))
        rows.append(np.hstack(row))
    cv2.imwrite(out, np.vstack(rows))
