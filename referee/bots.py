"""Built-in bots for simulations: a few playing styles, all fast and deterministic per rng.

- `random`: any legal play (never a voluntary pick-up when it can play);
- `lowest`: the lowest rank first, all its copies at once;
- `saver`: the lowest plain rank first, saving the special cards for when it is stuck;
  puts its best cards face up and gives the pot to whoever has the fewest cards;
- `aggressive`: plays its powers early (burns, skips, gifts) and drops every Turbo it can.
"""
from __future__ import annotations

import random

from referee.cards import RANK_VALUE
from referee.engine import RANK, GameState, Play

__all__ = ["Bot", "BOTS", "make_bot"]


#: After this many plays a game is going round in circles: bots start to vary their
#: choices at random, more and more, which breaks the cycle (a deterministic bot pair can
#: otherwise pass the same pot back and forth forever).
STALL_PLAYS = 150


def stalled(g: GameState, rng: random.Random) -> bool:
    return g.plays > STALL_PLAYS and rng.random() < min(0.5, (g.plays - STALL_PLAYS) / 400)


def unstick(g: GameState, plays: list[Play], rng: random.Random) -> Play:
    """A stalled game's move: at random, or the play that sheds the most cards at once."""
    real = [x for x in plays if not x.pickup] or plays
    if rng.random() < 0.5:
        return rng.choice(real)
    most = max(len(x.cards) for x in real)
    return rng.choice([x for x in real if len(x.cards) == most])


class Bot:
    name = "random"

    def exchange(self, g: GameState, p: int) -> None:
        """Before play: by default keep the cards as dealt."""

    def choose(self, g: GameState, plays: list[Play], rng: random.Random) -> Play:
        real = [x for x in plays if not x.pickup]
        return rng.choice(real or plays)

    def turbo(self, g: GameState, plays: list[Play], rng: random.Random) -> Play | None:
        return None




def _finishes_badly(g: GameState, play: Play) -> int:
    """1 if the play would finish the player on a special card where that makes a Shithead."""
    if not g.preset.table.no_finish_on_special or RANK[play.cards[-1]] not in g.c.special:
        return 0
    return int(g._would_finish(g.turn, len(play.cards), play.source))


class LowestBot(Bot):
    name = "lowest"

    def choose(self, g, plays, rng):
        if stalled(g, rng):
            return unstick(g, plays, rng)
        best, key = None, None
        for x in plays:
            if x.pickup:
                continue
            k = (RANK_VALUE[RANK[x.cards[-1]]], -len(x.cards))
            if key is None or k < key:
                best, key = x, k
        return best if best is not None else plays[0]


class SaverBot(Bot):
    name = "saver"

    def _worth(self, g: GameState, r: str) -> int:
        c = g.c
        v = RANK_VALUE[r]
        if r in c.special:
            if g.preset.table.no_finish_on_special and not g.stock and g.started:
                return v - 40  # special cards cannot be the last ones: spend them first
            v += 20 + (10 if c.burn[r] or c.anywhere[r] else 0)
        return v

    def exchange(self, g, p):
        """Put the best cards face up (the French text's advice)."""
        w = lambda x: self._worth(g, RANK[x])  # noqa: E731
        while True:
            hi = max(g.hands[p], key=w, default=None)
            lo = min(g.up[p], key=w, default=None)
            if hi is None or lo is None or w(hi) <= w(lo):
                return
            g.swap(p, hi, lo)

    def choose(self, g, plays, rng):
        if stalled(g, rng):
            return unstick(g, plays, rng)
        best, key = None, None
        n = g.n
        for x in plays:
            if x.pickup:
                continue
            k = (_finishes_badly(g, x), self._worth(g, RANK[x.cards[-1]]), -len(x.cards),
                 g.cards_left(x.target) if x.target is not None and x.target < n else 0)
            if key is None or k < key:
                best, key = x, k
        return best if best is not None else plays[0]


class AggressiveBot(SaverBot):
    name = "aggressive"

    def choose(self, g, plays, rng):
        if stalled(g, rng):
            return unstick(g, plays, rng)
        c = g.c
        best, key = None, None
        for x in plays:
            if x.pickup:
                continue
            r = RANK[x.cards[-1]]
            power = (c.burn[r] or c.skip[r] or c.give_pot[r] or c.picks_up[r]
                     or c.reverse[r]) and len(g.pile) >= 2
            four = c.four and r == g.run_rank and g.run_n + len(x.cards) >= c.four
            k = (_finishes_badly(g, x), 0 if (power or four) else 1, -len(x.cards), RANK_VALUE[r],
                 g.cards_left(x.target) if x.target is not None else 0)
            if key is None or k < key:
                best, key = x, k
        return best if best is not None else plays[0]

    def turbo(self, g, plays, rng):
        return max(plays, key=lambda x: len(x.cards)) if plays else None


BOTS: dict[str, type[Bot]] = {b.name: b for b in (Bot, LowestBot, SaverBot, AggressiveBot)}


def make_bot(name: str) -> Bot:
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}: use one of {', '.join(BOTS)}")
    return BOTS[name]()
