"""Bot games: play many games under a preset and gather statistics.

A game that has not ended after `max_plays` plays is stopped and counted as *not ended*
(reported, never hidden), so an endless game can never hang a simulation.  Some positions
loop forever whatever anyone does (every move forced, the same position coming back:
`GameState.forced_cycle`); such games are stopped early and counted apart.
"""
from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from referee.bots import Bot, make_bot
from referee.engine import GameState, Play
from referee.rules import Preset, load_preset

__all__ = ["SimStats", "bot_plays", "play_game", "simulate", "DEFAULT_STYLES"]

DEFAULT_STYLES = ("saver", "aggressive", "lowest", "random")


@dataclass
class SimStats:
    preset: str
    players: int
    games: int = 0
    ended: int = 0
    plays: int = 0
    burns: int = 0
    pickups: int = 0
    cycles: int = 0   # games that did not end because the rules force an endless loop
    seconds: float = 0.0
    styles: list[str] = field(default_factory=list)
    #: style -> Counter(finishing position 1..n) over ended games
    positions: dict[str, Counter] = field(default_factory=dict)

    @property
    def stuck(self) -> int:
        return self.games - self.ended

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def report(self) -> str:
        g = max(self.games, 1)
        lines = [f"preset {self.preset}, {self.players} players, {self.games} games in "
                 f"{self.seconds:.2f} s: {self.games_per_s:.0f} games/s",
                 f"ended: {self.ended}/{self.games} ({100 * self.ended / g:.1f}%), "
                 f"not ended: {self.stuck} ({self.cycles} in a loop the rules force, "
                 f"{self.stuck - self.cycles} at the play cap)",
                 f"per game: {self.plays / g:.1f} plays, {self.burns / g:.2f} burns, "
                 f"{self.pickups / g:.2f} pick-ups",
                 "finishing positions (1 = first out, last = shithead):"]
        for style in dict.fromkeys(self.styles):
            cnt = self.positions.get(style, Counter())
            tot = sum(cnt.values()) or 1
            cells = "  ".join(f"{pos}:{100 * cnt[pos] / tot:5.1f}%"
                              for pos in range(1, self.players + 1))
            lines.append(f"  {style:<10} {cells}")
        return "\n".join(lines)


def bot_plays(g: GameState, bots: list[Bot], rng: random.Random, max_plays: int,
              stop_on_forced_cycle: bool = False) -> Iterator[Play]:
    """Yield each play the bots make, Turbos included, until the game ends or hits the cap.

    The caller pushes each play before asking for the next, so a recorder can watch every
    push (the camera stream does) while the bots' turn order stays in one place.
    """
    turbo_on = g.preset.table.turbo != "off"
    turbo_bots = [b for b in bots if type(b).turbo is not Bot.turbo]
    while not g.over and g.plays < max_plays:
        if (stop_on_forced_cycle and g.plays >= 400 and g.plays % 200 == 0
                and g.forced_cycle()):
            return  # the rules force an endless loop: no bot can end this game
        if turbo_on and turbo_bots and g.pile:
            tp = g.turbo_plays()
            if tp:
                for q in {x.player for x in tp}:
                    mine = [x for x in tp if x.player == q]
                    choice = bots[q].turbo(g, mine, rng)
                    if choice is not None:
                        yield choice
                        break
                if g.over:
                    return
        yield bots[g.turn].choose(g, g.legal_plays(), rng)


def play_game(preset: Preset | str, bots: list[Bot], rng: random.Random,
              max_plays: int = 2000, history: bool = False) -> GameState:
    """Play one game to its end (or to the play cap) and return the final state."""
    g = GameState.new(preset, len(bots), rng=rng, history=history,
                      dealer=rng.randrange(len(bots)))
    if g.preset.table.exchange:
        for p, b in enumerate(bots):
            b.exchange(g, p)
    g.begin()
    for play in bot_plays(g, bots, rng, max_plays, stop_on_forced_cycle=True):
        g.push(play)
    return g


def simulate(preset: Preset | str = "fr", players: int = 4, games: int = 100,
             seed: int = 0, styles: tuple[str, ...] | list[str] = DEFAULT_STYLES,
             max_plays: int = 2000, progress: bool = False) -> SimStats:
    """Play `games` bot games; seat styles rotate each game so no seat favours a style."""
    p = load_preset(preset)
    rng = random.Random(seed)
    seat_styles = [styles[i % len(styles)] for i in range(players)]
    st = SimStats(p.name, players, styles=list(seat_styles))
    it = range(games)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(it, unit="game", leave=False)
        it = bar
    t0 = time.perf_counter()
    for i in it:
        rot = seat_styles[i % players:] + seat_styles[:i % players]
        bots = [make_bot(s) for s in rot]
        g = play_game(p, bots, rng, max_plays)
        st.games += 1
        st.plays += g.plays
        st.burns += g.burns
        st.pickups += g.pickups
        if not g.over and g.forced_cycle():
            st.cycles += 1
        if g.over:
            st.ended += 1
            for pos, seat in enumerate(g.finished, 1):
                st.positions.setdefault(rot[seat], Counter())[pos] += 1
    st.seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    return st
