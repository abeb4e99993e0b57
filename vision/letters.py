"""Lettered courts: the classifier reads the glyph printed, the table's letters make it a rank.

A French deck prints R, D, V on its king, queen and jack (and often 1 on the ace), a Dutch
one H, V, B, a German one K, D, B. The same glyph means different ranks by language (V is the
jack in French, the queen in Dutch), so a classifier that learnt "V means jack" can never read
a Dutch deck. Instead a classifier trained with glyph classes has, beside the 54 classes of
`vision.classifier.CLASSES` (where A, K, Q and J stand for those printed glyphs), one class per
foreign glyph and suit (`GLYPH_CLASSES`: `VH` is a V printed with a heart). The table's
letters setting (`--deck-letters`, set-up) folds the model's classes into the 54 the rest of
masta reads (`fold_matrix`): under `nl`, `VH` is the queen of hearts; a glyph the setting does
not print (a D under `en`) reads as `none`, and `LetterWatch` counts such reads so that the page
can say the deck's letters look different from the setting rather than misrule silently.

A classifier with only the 54 classes (every model shipped before glyph classes) learnt the
French and German letters as ranks (R, D, V, B drawn as K, Q, J, J): it reads `en`, `fr` and
`de` as it always did, and refuses `nl` with a message (`check_letters`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from referee.cards import RANKS, SUITS
from vision.card_classes import CLASSES, NONE_ID
from vision.letters_option import LETTER_NAMES

#: glyphs printed on lettered courts and aces that A K Q J do not cover
GLYPHS = ("R", "D", "V", "H", "B", "1")
GLYPH_CLASSES: tuple[str, ...] = tuple(g + s for g in GLYPHS for s in SUITS)
#: the classes of a classifier trained with glyph classes, `none` keeping its index
MODEL_CLASSES: tuple[str, ...] = CLASSES + GLYPH_CLASSES
#: what each letter set's printed glyphs mean (the glyph -> the rank)
LETTER_SETS: dict[str, dict[str, str]] = {
    "en": {"A": "A", "K": "K", "Q": "Q", "J": "J"},
    "fr": {"R": "K", "D": "Q", "V": "J", "1": "A", "A": "A"},
    "nl": {"H": "K", "V": "Q", "B": "J", "A": "A"},
    "de": {"K": "K", "D": "Q", "B": "J", "A": "A"},
}
DEFAULT_LETTERS = "en"
assert tuple(LETTER_SETS) == LETTER_NAMES
#: what each face's `letters` (datasets.faces.COURT_GLYPHS) prints for J, Q, K, A
PRINTED = {"en": {"J": "J", "Q": "Q", "K": "K", "A": "A"}, "fr": {"J": "V", "Q": "D", "K": "R", "A": "A"},
           "fr1": {"J": "V", "Q": "D", "K": "R", "A": "1"},
           "nl": {"J": "B", "Q": "V", "K": "H", "A": "A"}, "de": {"J": "B", "Q": "D", "K": "K", "A": "A"}}
_LETTER_GLYPHS = ("A", "K", "Q", "J") + GLYPHS


def check_letters(letters: str, n_classes: int | None = None) -> str:
    """`letters` when it is a known set that a classifier of `n_classes` outputs can read; a
    clear error otherwise."""
    if letters not in LETTER_SETS:
        raise ValueError(f"deck letters {letters!r}: give one of {', '.join(LETTER_SETS)} "
                         f"(en A K Q J, fr R D V, nl H V B, de K D B)")
    if n_classes is not None and n_classes not in (len(CLASSES), len(MODEL_CLASSES)):
        raise ValueError(f"a classifier with {n_classes} outputs: expected {len(CLASSES)} or {len(MODEL_CLASSES)}")
    if n_classes == len(CLASSES) and letters == "nl":
        raise ValueError("deck letters 'nl' (H V B) need a classifier trained with letter glyph classes "
                         "(vision.letters); this one reads V as the French jack, never the Dutch queen. "
                         "Use a classifier with glyph classes, or teach the deck (masta learn-deck)")
    return letters


def training_label(card: str, printed: str = "en") -> int:
    """The model class (index into `MODEL_CLASSES`) of `card`'s index on a face printing
    `printed` letters (a face's `letters`): the glyph that is printed, with its suit."""
    if card not in CLASSES:
        raise ValueError(f"{card!r} is not a card class")
    if card == "JK" or card == CLASSES[NONE_ID]:
        return CLASSES.index(card)
    rank = card[:-1]
    if printed not in PRINTED:
        raise ValueError(f"face letters {printed!r}: one of {', '.join(PRINTED)}")
    glyph = PRINTED[printed].get(rank, rank)
    if glyph == rank:
        return CLASSES.index(card)
    if glyph in ("A", "K", "Q", "J"):
        return CLASSES.index(glyph + card[-1])
    return MODEL_CLASSES.index(glyph + card[-1])


def relabel(y: np.ndarray, printed: str) -> np.ndarray:
    """Card-class labels (indices into `CLASSES`) of crops of faces printing `printed` letters,
    as `training_label`s; `none` stays `none`."""
    if printed == "en":
        return y
    table = np.array([training_label(c, printed) if c in CLASSES[:NONE_ID] else k
                      for k, c in enumerate(CLASSES)], np.int64)
    return table[y]


def _meaning(cls: str, letters: str) -> str | None:
    """The card class model class `cls` is under `letters`, None when the set does not print it."""
    if cls == CLASSES[NONE_ID] or cls == "JK":
        return cls
    glyph, suit = cls[:-1], cls[-1]
    if glyph not in _LETTER_GLYPHS:
        return cls  # 2 to 10 read the same in every language
    rank = LETTER_SETS[letters].get(glyph)
    return None if rank is None else rank + suit


def fold_matrix(letters: str, n_classes: int) -> np.ndarray:
    """(n_classes, 54): a model's probabilities times this are the 54 card classes' under
    `letters`; a glyph the set does not print adds to `none`. A 54-class model (no glyph
    classes) reads as it always did (the identity)."""
    check_letters(letters, n_classes)
    m = np.zeros((n_classes, len(CLASSES)), np.float32)
    if n_classes == len(CLASSES):
        m[np.arange(n_classes), np.arange(n_classes)] = 1
        return m
    for i, cls in enumerate(MODEL_CLASSES):
        to = _meaning(cls, letters)
        m[i, CLASSES.index(to) if to is not None else NONE_ID] = 1
    return m


def foreign_mask(letters: str, n_classes: int) -> np.ndarray:
    """Which model classes are court or ace glyphs the set does not print (bool, n_classes)."""
    if n_classes == len(CLASSES):
        return np.zeros(n_classes, bool)
    return np.array([c[:-1] in _LETTER_GLYPHS and _meaning(c, letters) is None for c in MODEL_CLASSES])


def glyph_of(k: int) -> str | None:
    """The court or ace glyph of model class `k` (None for 2 to 10, the joker, none)."""
    g = MODEL_CLASSES[k][:-1]
    return g if g in _LETTER_GLYPHS else None


@dataclass
class LetterWatch:
    """Counts the sure reads of court and ace glyphs, to tell when the deck on the table prints
    other letters than the setting (a French deck under `en`: its R, D and V read as none)."""

    letters: str = DEFAULT_LETTERS
    sure: float = 0.8
    min_foreign: int = 4
    share: float = 0.3
    glyphs: dict[str, int] = field(default_factory=dict)

    def add(self, raw: np.ndarray) -> None:
        """Raw model probabilities (n, classes) of one frame's crops."""
        if raw.shape[1] != len(MODEL_CLASSES):
            return
        for row in raw:
            k = int(row.argmax())
            g = glyph_of(k)
            if g is not None and row[k] >= self.sure:
                self.glyphs[g] = self.glyphs.get(g, 0) + 1

    def foreign(self) -> int:
        return sum(n for g, n in self.glyphs.items() if g not in LETTER_SETS[self.letters])

    def mismatch(self) -> str | None:
        """A sentence for the page when the deck's letters look different from the setting."""
        total = sum(self.glyphs.values())
        bad = self.foreign()
        if bad < self.min_foreign or bad < self.share * total:
            return None
        seen = ", ".join(f"{g} x{n}" for g, n in sorted(self.glyphs.items(), key=lambda kv: -kv[1]))
        best = max(LETTER_SETS, key=lambda s: sum(n for g, n in self.glyphs.items() if g in LETTER_SETS[s]))
        hint = f"; they look like '{best}'" if best != self.letters else ""
        return (f"The deck's letters look different from the setting '{self.letters}' "
                f"({' '.join(LETTER_SETS[self.letters])}): the camera reads {seen}{hint}. "
                f"Set the deck's letters in set-up (or --deck-letters).")

