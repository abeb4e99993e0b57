"""The card classifier's 54 outputs: every card id and `none` (no readable index). Apart from
the classifier so that what reads its outputs (the letters' folding) needs no classifier."""
from __future__ import annotations

from referee.cards import ALL_CARD_IDS

NONE = "none"
CLASSES: tuple[str, ...] = ALL_CARD_IDS + (NONE,)
NONE_ID = CLASSES.index(NONE)
