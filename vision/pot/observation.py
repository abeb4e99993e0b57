"""What the watcher reads (a detector's cards), what it settles them into (`Observation`s) and
what the referee tells it (`Priors`)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from referee.cards import rank_of
from vision.pot.config import IMPOSSIBLE_WEIGHT, UNFIT_WEIGHT


class DetectionLike(Protocol):
    card: str
    conf: float
    box: tuple[float, float, float, float]


Detect = Callable[[np.ndarray], Sequence[DetectionLike]]


@dataclass
class Priors:
    """What the referee knows: cards that cannot be on the pot (burned in a one-deck game, a
    joker in a game dealt without them), how many copies of each card exist (decks), and
    which ranks may go on the pot now (`fitting`; None: unknown). `on_pot`: the cards already
    there, which the legality prior leaves alone (they were legal when played, whatever the
    pot asks for now)."""
    impossible: frozenset[str] = frozenset()
    copies: int = 1
    fitting: frozenset[str] | None = None
    on_pot: frozenset[str] = frozenset()
    unfit_weight: float = UNFIT_WEIGHT

    def weight(self, card: str) -> float:
        w = IMPOSSIBLE_WEIGHT if card in self.impossible else 1.0
        if self.fitting is not None and card not in self.on_pot and rank_of(card) not in self.fitting:
            w *= self.unfit_weight
        return w


@dataclass
class Observation:
    """One physical card seen in a settled state (a consensus over several reads)."""
    card: str
    conf: float
    box: tuple[float, float, float, float]
    low_conf: bool = False
    votes: dict[str, float] = field(default_factory=dict)
