"""Deck designs from Debian and PyPI packages, rendered at training time (never committed).

`../shared/data/decks.md` lists the designs that may be trained on; the same packages hold
other designs (some are copies of the benchmark's held-out decks or of decks kept for an
independent check), so only the names in `PACKAGE_DESIGNS` are ever rendered. Each design is
a face style `pkg-<name>` for `datasets.faces.load_faces`: one upright face per card id, cut
to the card's own outline (some SVG cards report bounds larger than the card), with the boxes
of its corner indices. The recipe that installs the packages: `make train-decks`.

A missing package is skipped with a message on stderr, never an error.
"""
from __future__ import annotations

import functools
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.cards import JOKER, RANKS, SUITS, STANDARD_DECK

AISLERIOT = Path("/usr/share/aisleriot/cards")
KDE = Path("/usr/share/carddecks")
POKERTH = Path("/usr/share/games/pokerth/gfx/cards")
#: where the recipe leaves arcade's wheel (`pip download arcade --no-deps`): its images only
ARCADE_WHEELS = Path(os.environ.get("MASTA_ARCADE_WHEELS", Path(__file__).resolve().parents[1] / "runs" / "wheels"))


@dataclass(frozen=True)
class Design:
    """One listed design: where it lives, how its cards are named, what its courts print."""

    name: str
    kind: str            # "aisleriot" (one SVGZ, ids club_queen), "kde" (ids queen_club), "pokerth", "kenney"
    source: str          # file or folder name under the package's folder
    letters: str = "en"  # the court letters printed (vision.letters.LETTER_SETS)
    licence: str = ""
    credit: str = ""
    four_corners: bool = False
    #: why the design is listed but not rendered (empty: rendered)
    skip: str = ""
    #: where the top-left index lies, fractions of the face (x0, y0, x1, y1)
    window: tuple[float, float, float, float] = (0.0, 0.0, 0.22, 0.27)


def _gnome(name: str, letters: str = "en", licence: str = "GPL-3+/LGPL-3+/public domain by deck",
           **kw) -> Design:
    return Design(name, "aisleriot", f"{name}.svgz", letters, licence,
                  "gnome-cards-data (Debian), /usr/share/doc/gnome-cards-data/copyright", **kw)


def _kde(name: str, licence: str = "GPL-2+", **kw) -> Design:
    return Design(name, "kde", name, "en", licence,
                  "kdegames-card-data-kf5 (Debian), /usr/share/doc/kdegames-card-data-kf5/copyright", **kw)


#: every design decks.md lists for training, and nothing else
PACKAGE_DESIGNS: dict[str, Design] = {d.name: d for d in (
    *(_gnome(n) for n in ("anglo", "anglo_bitmap", "anglo_modern", "anglo_modern_4_color", "gnomangelo",
                          "gnomangelo_bitmap", "neoclassical", "neoclassical_4_color", "plastic",
                          "orell", "ornamental", "simplistic", "tango")),
    _gnome("tango_nuevo", skip="its rank and suit lie in opposite top corners: no rank-and-suit index to read"),
    _gnome("dondorf", four_corners=True),
    Design("bonded", "aisleriot", "bonded.svgz", "en", "GPL", "aisleriot (Debian), /usr/share/doc/aisleriot/copyright",
           four_corners=True),
    *(_gnome(n, "de") for n in ("berlin", "lattmann", "rheinland")),
    *(_kde(n) for n in ("svg-standard", "svg-nicu-white", "svg-nicu-ornamental", "svg-ancient-egyptians",
                        "svg-jolly-royal", "svg-dondorf")),
    _kde("svg-penguins", "GPL-3+"),
    Design("pokerth-default", "pokerth", "default", "en", "GFDL-1.2+ or public domain",
           "pokerth-data (Debian), /usr/share/doc/pokerth-data/copyright", window=(0.0, 0.0, 0.28, 0.3)),
    Design("pokerth-default4c", "pokerth", "default4c", "en", "GFDL-1.2+ or public domain",
           "pokerth-data (Debian), /usr/share/doc/pokerth-data/copyright", window=(0.0, 0.0, 0.28, 0.3)),
    Design("kenney", "kenney", "resources/assets/images/cards", "en", "CC0",
           "Kenney's playing cards, shipped in the arcade wheel (PyPI)", window=(0.0, 0.0, 0.2, 0.33)),
)}
PREFIX = "pkg-"
PACKAGE_STYLES = tuple(PREFIX + n for n in PACKAGE_DESIGNS)
_NAMES = {"1": "A", "jack": "J", "queen": "Q", "king": "K"}
_SUIT_WORD = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


def _warn(msg: str) -> None:
    print(f"masta package decks: {msg}", file=sys.stderr)


def _svg_id(design: Design, card: str) -> str:
    """The element id of `card` in the design's SVG (club_queen, queen_club, joker_red)."""
    if card == JOKER:
        return "joker_red" if design.kind == "aisleriot" else "red_joker"
    rank, suit = card[:-1], card[-1]
    word = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}.get(rank, rank)
    return f"{_SUIT_WORD[suit]}_{word}" if design.kind == "aisleriot" else f"{word}_{_SUIT_WORD[suit]}"


def _svgz(design: Design) -> Path | None:
    if design.kind == "aisleriot":
        return AISLERIOT / design.source
    folder = KDE / design.source
    found = sorted(folder.glob("*.svgz")) if folder.is_dir() else []
    return found[0] if found else None


def design_available(name: str) -> bool:
    """Whether the package holding design `name` is installed here."""
    d = PACKAGE_DESIGNS[name]
    if d.skip:
        return False
    if d.kind in ("aisleriot", "kde"):
        p = _svgz(d)
        return p is not None and p.exists() and shutil.which("rsvg-convert") is not None
    if d.kind == "pokerth":
        return (POKERTH / d.source / "0.png").exists()
    return _kenney_wheel() is not None


def available_styles() -> list[str]:
    return [PREFIX + n for n in PACKAGE_DESIGNS if design_available(n)]


def style_letters(style: str) -> str:
    return PACKAGE_DESIGNS[style[len(PREFIX):]].letters


def _crop_alpha(rgba: np.ndarray) -> np.ndarray | None:
    """The card alone: cut to its alpha's bounds and laid on white."""
    a = rgba[..., 3]
    ys, xs = np.nonzero(a > 8)
    if len(xs) == 0:
        return None
    rgba = rgba[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)
    al = rgba[..., 3:4] / 255.0
    return np.clip(rgba[..., :3] * al + 255.0 * (1 - al), 0, 255).astype(np.uint8)


def _to_height(img: np.ndarray, height: int) -> np.ndarray:
    s = height / img.shape[0]
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    return cv2.resize(img, (max(1, int(round(img.shape[1] * s))), height), interpolation=interp)


def _rsvg(svg: Path, element: str, zoom: float) -> np.ndarray | None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "c.png"
        r = subprocess.run(["rsvg-convert", "-i", element, "-z", f"{zoom:.4f}", str(svg), "-o", str(out)],
                           capture_output=True, text=True)
        if r.returncode != 0 or not out.exists():
            return None
        return cv2.imread(str(out), cv2.IMREAD_UNCHANGED)


def _render_svg_deck(design: Design, height: int) -> dict[str, np.ndarray]:
    svgz = _svgz(design)
    if svgz is None or not svgz.exists():
        return {}
    out: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        svg = Path(tmp) / "deck.svg"
        svg.write_bytes(gzip.decompress(svgz.read_bytes()))
        probe = _rsvg(svg, _svg_id(design, "AS"), 1.0)
        card = _crop_alpha(probe) if probe is not None and probe.ndim == 3 and probe.shape[2] == 4 else None
        if card is None:
            _warn(f"{svgz}: cannot render its ace of spades: design {design.name!r} skipped")
            return {}
        zoom = 1.25 * height / card.shape[0]  # render above the face height, then shrink
        for cid in STANDARD_DECK + (JOKER,):
            rgba = _rsvg(svg, _svg_id(design, cid), zoom)
            if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
                if cid != JOKER:
                    _warn(f"{svgz}: no card {_svg_id(design, cid)}")
                continue
            img = _crop_alpha(rgba)
            if img is not None:
                out[cid] = _to_height(img, height)
    return out


def _render_pokerth(design: Design, height: int) -> dict[str, np.ndarray]:
    """PokerTH's cards are 0.png ... 51.png: diamonds, hearts, spades, clubs, each 2 to ace."""
    folder = POKERTH / design.source
    out: dict[str, np.ndarray] = {}
    for k, suit in enumerate("DHSC"):
        for j, rank in enumerate(RANKS):
            im = cv2.imread(str(folder / f"{k * 13 + j}.png"), cv2.IMREAD_UNCHANGED)
            if im is None:
                continue
            if im.ndim == 3 and im.shape[2] == 4:
                img = _crop_alpha(im)
            else:
                img = im if im.ndim == 3 else cv2.cvtColor(im, cv2.COLOR_GRAY2BGR)
            if img is not None:
                out[rank + suit] = _to_height(img, height)
    return out


@functools.lru_cache(maxsize=1)
def _kenney_wheel() -> Path | None:
    found = sorted(ARCADE_WHEELS.glob("arcade-*.whl")) if ARCADE_WHEELS.is_dir() else []
    return found[-1] if found else None


def _render_kenney(design: Design, height: int) -> dict[str, np.ndarray]:
    """Kenney's cards from arcade's wheel, read in place (cardHearts10.png, cardJoker.png)."""
    wheel = _kenney_wheel()
    if wheel is None:
        return {}
    word = {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades"}
    out: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(wheel) as z:
        names = {Path(n).name: n for n in z.namelist() if "/images/cards/" in n and n.endswith(".png")}
        for cid in STANDARD_DECK + (JOKER,):
            fname = "cardJoker.png" if cid == JOKER else f"card{word[cid[-1]]}{cid[:-1]}.png"
            if fname not in names:
                continue
            im = cv2.imdecode(np.frombuffer(z.read(names[fname]), np.uint8), cv2.IMREAD_UNCHANGED)
            if im is None:
                continue
            img = _crop_alpha(im) if im.ndim == 3 and im.shape[2] == 4 else im
            if img is not None:
                out[cid] = _to_height(img, height)
    return out


def render_design(name: str, height: int) -> dict[str, np.ndarray]:
    """`{card_id: BGR face}` of one listed design, `height` pixels tall; empty when missing."""
    if name not in PACKAGE_DESIGNS:
        raise ValueError(f"{name!r} is not a design listed for training: use one of {', '.join(PACKAGE_DESIGNS)}")
    d = PACKAGE_DESIGNS[name]
    if d.skip:
        _warn(f"design {name!r} left out: {d.skip}")
        return {}
    if not design_available(name):
        _warn(f"design {name!r} is not installed here (make train-decks installs it): skipped")
        return {}
    if d.kind in ("aisleriot", "kde"):
        return _render_svg_deck(d, height)
    if d.kind == "pokerth":
        return _render_pokerth(d, height)
    return _render_kenney(d, height)


def credits() -> list[str]:
    """One line a design: for the model card."""
    return [f"{PREFIX}{d.name}: {d.credit}; licence {d.licence}; index letters {d.letters}"
            for d in PACKAGE_DESIGNS.values()]
