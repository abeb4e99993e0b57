"""Telling a play from strays. A play is one rank's cards (a set of cards of one rank, as the
rules deal them); the cards new on the pot since the last settled frame are that play plus,
often, strays: an old card read otherwise now that it is half covered, or one card's two
corners read with two suits. The steps, in the order the watcher runs them:

1. `changed`: a new card where the pixels did not change is an old card read otherwise: a stray.
2. `one_card_two_corners`: two new cards of one rank lying as one card's corners are one card.
3. `sure_play`: each rank among the new cards is a hypothesis ("this rank is the play, the rest
   strays"), scored by its surest card times the referee's prior; the best stands when the
   runner-up scores at most `stray_ratio` of it.
4. `legal_play`: else, of the hypotheses too close to choose, the only one the table allows
   now is the play, asked about; with none or several allowed, masta asks with a mismatch
   naming every new card.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.cards import rank_of
from vision.pot.config import LOWER_INSIDE, LOWER_LEAN, TURNED
from vision.pot.geometry import area, centre, other_corner_of, overlap, side
from vision.pot.observation import Observation, Priors


def by_rank(obs: Sequence[Observation]) -> dict[str, list[Observation]]:
    """`obs` by rank, each group in `obs`' order (a play is one rank)."""
    groups: dict[str, list[Observation]] = {}
    for o in obs:
        groups.setdefault(rank_of(o.card), []).append(o)
    return groups


def pick(obs: Sequence[Observation], wanted: Counter) -> list[Observation]:
    """The surest observation of each card `wanted` (as many as wanted), left to right."""
    left = Counter(wanted)
    out = []
    for o in sorted(obs, key=lambda o: -o.conf):
        if left[o.card] > 0:
            out.append(o)
            left[o.card] -= 1
    return sorted(out, key=lambda o: (o.box[0], o.box[1]))


def twin(card: str) -> str | None:
    """The card a 6 or a 9 reads as upside down (6S -> 9S); None for other ranks."""
    rank = rank_of(card)
    turned = TURNED.get(rank)
    return None if turned is None else turned + card[len(rank):]


# -- 1. strays where nothing changed --------------------------------------------------------

def changed(new_obs: list[Observation], change: Callable[[tuple], float],
            share: float) -> tuple[list[Observation], list[Observation]]:
    """(the new cards whose box changed since the last settled frame, those whose box did not):
    `change(box)` is the share of a box's pixels that changed, `share` the least that counts
    (0: off). A card dropped on the pot changes the pixels where it lies; a "new" card where
    nothing changed is an old one read otherwise now (a neighbour half covered, another angle
    of light): a stray. When no box changed (the whole frame moved or dimmed, or there is no
    settled frame yet), or one card alone is new, every card stays new."""
    if share <= 0 or len(new_obs) < 2:
        return new_obs, []
    moved, same = [], []
    for o in new_obs:
        (moved if change(o.box) >= share else same).append(o)
    return (moved, same) if moved else (new_obs, [])


# -- 2. one card seen by its two corners ----------------------------------------------------

def one_card_two_corners(new_obs: list[Observation], ratio: float = 0.0) -> tuple[list[Observation], list[str]]:
    """Two new cards of one rank, each seen by one index only, lying as one card's opposite
    corners lie (4 to 7.5 index sides apart, each box at most a third of that), and not both
    read surely: one card whose two indices were read with two suits (the consensus joins such
    corners only when one read saw the whole card). It takes the card their pooled votes favour;
    the other id is returned apart, a stray. `ratio` > 0: beside new cards of other ranks, all
    faint (read at most `ratio` times as surely as the pair's surer one), the pair is looked at
    too; beside a card of another rank read about as surely it is not (three cards of a rank
    read as two beside another rank's are three cards)."""
    groups = by_rank(new_obs)
    merged: dict[int, Observation | None] = {}  # id of a pair's first card -> the one card; second -> None
    others: list[str] = []
    for rank, pair in groups.items():
        if len(pair) != 2:
            continue
        sure = max(o.conf for o in pair)
        if len(groups) > 1 and (ratio <= 0 or any(o.conf > ratio * sure
                                                  for r, g in groups.items() if r != rank for o in g)):
            continue
        one = two_corners(*pair)
        if one is not None:
            merged[id(pair[0])], merged[id(pair[1])] = one, None
            others += [o.card for o in pair if o.card != one.card]
    out = [merged.get(id(o), o) for o in new_obs]
    return [o for o in out if o is not None], others


def two_corners(a: Observation, b: Observation) -> Observation | None:
    """The one card that `a` and `b` (one rank) are, seen by its two corners; None if two."""
    if not a.low_conf and not b.low_conf:
        return None
    d = np.hypot(*np.subtract(centre(a.box), centre(b.box)))
    if max(side(a.box), side(b.box)) > d / 3 or not other_corner_of(a.box, b.box, min(side(a.box), side(b.box))):
        return None
    votes = Counter(a.votes) + Counter(b.votes)
    card = max((c for c in votes if rank_of(c) == rank_of(a.card)), key=votes.get)
    keep = a if a.card == card else b if b.card == card else max((a, b), key=lambda o: o.conf)
    return Observation(card, keep.conf, keep.box, True, dict(votes))


# -- 3. the play: one hypothesis a rank, the best if it stands clear ---------------------------

@dataclass
class PlayHypothesis:
    """"These cards of one rank are the play, and the other new cards strays", scored by how
    surely its surest card was read, times the referee's prior for that card."""
    rank: str
    cards: list[Observation]
    strays: list[Observation] = field(default_factory=list)
    score: float = 0.0


def hypotheses(new_obs: Sequence[Observation], priors: Priors) -> list[PlayHypothesis]:
    """One play hypothesis for each rank among the new cards, in the order they were seen.
    The surest card, not the least sure: a fanned triple's lowest card shows a sliver of its
    index and reads unsure, and must not void the play. A card that cannot be there (burned, a
    joker where none are dealt) counts as its prior weighs it."""
    return [PlayHypothesis(rank, group, [o for o in new_obs if rank_of(o.card) != rank],
                           max(o.conf * priors.weight(o.card) for o in group))
            for rank, group in by_rank(new_obs).items()]


def sure_play(new_obs: list[Observation], ratio: float,
              impossible: frozenset[str] = frozenset()) -> tuple[list[Observation], list[Observation]]:
    """(the play, strays) among the cards new since the last settled state: the best play
    hypothesis when the runner-up scores at most `ratio` times it (its cards mostly a card under
    the play misread now that it is half covered); else no play, every new card returned (the
    two hypotheses are too close to choose: a mismatch, asked about). `impossible`: the cards
    the referee says cannot be there, the only prior used here (one for the whole decision)."""
    hyps = hypotheses(new_obs, Priors(impossible))
    if len(hyps) == 1:
        return list(new_obs), []
    best = max(hyps, key=lambda h: h.score)
    runner_up = max(h.score for h in hyps if h is not best)
    if runner_up <= ratio * best.score:
        return best.cards, best.strays
    return [], list(new_obs)


def legal_play(new_obs: list[Observation], ratio: float,
               priors: Priors) -> tuple[list[Observation], list[Observation]]:
    """(the play, its rivals) when the play hypotheses are too close to choose by the image
    (`sure_play` gave none): of the close ones (scoring over `ratio` times the best, the best
    included), the only one whose rank the table allows now (`Priors.fitting`, the referee's
    legal ranks). Players play legal cards: between two readings the image cannot tell apart,
    the one the rules allow is the likelier, and still asked about, the rival named. ([], [])
    when legality is unknown, or none or several of the close ones are allowed."""
    hyps = hypotheses(new_obs, Priors(priors.impossible))
    if priors.fitting is None or len(hyps) < 2:
        return [], []
    best = max(hyps, key=lambda h: h.score)
    legal = [h for h in hyps if (h is best or h.score > ratio * best.score) and h.rank in priors.fitting]
    if len(legal) != 1:
        return [], []
    return legal[0].cards, legal[0].strays


def inside_play(box, card: str, play: Sequence[Observation]) -> bool:
    """Does a read of `card` at `box` lie inside a played card's box, a print of that card? A
    card under the play shows its index outside the cards on it. Not when the played card's
    reads lean to `card` too: its box may hold both cards' indices (a loose box over a fanned
    pair's two strips)."""
    return any(overlap(box, o.box) >= LOWER_INSIDE * area(box)
               and o.votes.get(card, 0.0) < LOWER_LEAN * o.votes.get(o.card, 0.0) for o in play)
