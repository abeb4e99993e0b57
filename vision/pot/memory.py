"""What the watcher remembers of the pot since the last clear, and what a settled frame holds
that the pot did not: the new cards a decision is about."""
from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.pot.geometry import other_corner_of, same_place, side
from vision.pot.observation import DetectionLike, Observation
from vision.pot.plays import pick, twin

Box = tuple[float, float, float, float]


@dataclass
class NewCards:
    """A settled frame against the pot so far: its cards (less any turned twin's index), the
    cards new on the pot, and the last settled frame's cards (`prev`) not seen now (`missing`)."""
    obs: list[Observation]
    new: list[Observation]
    prev: Counter
    cur: Counter
    missing: Counter


@dataclass
class PotMemory:
    """This pot since the last clear: every card seen on it (`seen`: a card seen before is not
    new, even if it was hidden for a while); cards read only as strays beside a play (`strays`:
    not plays, nor proof the card is there, so a later sure read of one is new); where each card
    lay (`pos`) and the smallest box side it was seen with (`side`, an index alone once it was);
    the index boxes each was read from (`indices`); the latest play (`top`); whether cards
    landed unread on it (`unread`)."""
    seen: Counter = field(default_factory=Counter)
    strays: Counter = field(default_factory=Counter)
    pos: dict[str, Box] = field(default_factory=dict)
    side: dict[str, float] = field(default_factory=dict)
    indices: dict[str, deque] = field(default_factory=dict)
    top: list[str] = field(default_factory=list)
    unread: bool = False

    def lies(self, o: Observation) -> None:
        """Remember where card `o` lies, and the smallest side it was seen with."""
        self.pos[o.card] = o.box
        self.side[o.card] = min(self.side.get(o.card, np.inf), side(o.box))

    def read_from(self, indices: Sequence[DetectionLike]) -> None:
        """Remember the index boxes the pot's cards were read from (a turned twin lies there)."""
        for d in indices:
            self.indices.setdefault(d.card, deque(maxlen=8)).append(tuple(d.box))

    def twin_indices(self, card: str) -> Sequence:
        """The index boxes that `card`'s turned twin (its 6 for a 9, its 9 for a 6) was read
        from on this pot; none when `card` is no 6 or 9, or its twin is not on the pot."""
        other = twin(card)
        return self.indices.get(other, ()) if other is not None and self.seen[other] > 0 else ()

    def new_cards(self, obs: list[Observation], prev: list[Observation], decks: int,
                  turned: Callable[[Observation], bool]) -> NewCards:
        """The cards of a settled frame new on this pot: not seen on it before (a stray read
        again as unsure as it was is still that stray), the surest read of each; with one deck,
        a pot card seen where it never lay too (`moved`); less a 6 or 9 that is `turned`, its
        pot twin's index read upside down (that twin, neither new nor gone)."""
        cur = Counter(o.card for o in obs)
        prev_c = Counter(o.card for o in prev)
        new = cur - self.seen
        for o in obs:
            if new[o.card] > 0 and self.strays[o.card] > 0 and o.low_conf:
                new[o.card] -= 1
        new = +new
        new_obs = pick(obs, new) if new else []
        if decks == 1:
            new_obs += self.moved(obs, new_obs)
        twins = [o for o in new_obs if turned(o)]
        if twins:
            ids = {id(o) for o in twins}
            new_obs = [o for o in new_obs if id(o) not in ids]
            obs = [o for o in obs if id(o) not in ids]
            cur = Counter(o.card for o in obs) + Counter(twin(o.card) for o in twins)
        return NewCards(obs, new_obs, prev_c, cur, prev_c - cur)

    def moved(self, obs: list[Observation], picked: list[Observation]) -> list[Observation]:
        """One deck: a card cannot lie in two places. Pot cards seen where they never lay (nor by
        their other corner) are new cards (the earlier read, or this one, was wrong): flagged."""
        ids = {id(o) for o in picked}
        out = []
        for o in obs:
            where = self.pos.get(o.card)
            if id(o) in ids or where is None or o.card not in self.seen:
                continue
            s = min(self.side.get(o.card, np.inf), side(o.box))
            if not same_place(o.box, where) and not other_corner_of(o.box, where, s):
                o.low_conf = True
                out.append(o)
        return out
