"""Invariants over random games, for every preset (hypothesis draws the deal and the moves).

- every card is in exactly one place and the count never changes;
- the engine's incremental requirement / effective top / four-of-a-kind run agree with
  the pure pot functions of `referee.pile`;
- `judge` agrees with `legal_plays` (a play of each rank in hand is legal exactly when
  `legal_plays` offers it; the pick-up likewise) and is deterministic;
- `push` then `pop` restores the state exactly;
- games end (bot games), unless the rules force an endless loop (every move forced).
"""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from referee.cards import build_deck
from referee.engine import RANK, GameState, Play
from referee.pile import effective_top, four_run, requirement
from referee.rules import list_presets, load_preset
from referee.simulate import DEFAULT_STYLES, play_game
from referee.bots import make_bot

PRESETS = list_presets()
MAX_STEPS = 250


def _players(name: str, draw: int) -> int:
    lo, hi = load_preset(name).table.players
    return lo + draw % (min(hi, 5) - lo + 1)


def _check_pot(g: GameState) -> None:
    p = g.preset
    assert g.req == requirement(p, g.pile), (g.pile, g.req)
    top = effective_top(p, g.pile)
    assert g.eff == (None if top is None else RANK[top]), g.pile
    rank, n = four_run(p, g.pile)
    if g.pile:
        assert (g.run_rank, g.run_n) == (rank, n), g.pile


def _check_judge_agrees(g: GameState, plays: list[Play]) -> None:
    p = g.turn
    offered = {(x.cards[0].rstrip("CDHS") if x.cards else "", len(x.cards))
               for x in plays if not x.pickup and x.source != "down" and len(
                   {RANK[c] for c in x.cards}) == 1}
    zone = g.hands[p] if g.phase() == "hand" else g.up[p] if g.phase() == "up" else []
    src = g.phase()
    groups: dict[str, list[str]] = {}
    for c in zone:
        groups.setdefault(RANK[c], []).append(c)
    for r, cards in groups.items():
        target = next((q for q in range(g.n) if q != p and g.active[q]), None)
        ruling = g.judge(Play(tuple(cards[:1]), src, p, target))
        assert ruling.to_dict() == g.judge(Play(tuple(cards[:1]), src, p, target)).to_dict()
        legal = ruling.verdict in ("legal", "penalty")
        assert legal == ((r, 1) in offered), (r, g.pile, g.req, ruling.to_dict())
    pick = g.judge(Play.pick_up())
    assert (pick.verdict == "legal") == any(x.pickup for x in plays), (plays, pick.to_dict())
    # someone who is not to move may not play in turn
    other = (p + 1) % g.n
    if g.active[other] and g.hands[other]:
        assert g.judge(Play((g.hands[other][0],), "hand", other)).verdict == "illegal"


@pytest.mark.parametrize("name", PRESETS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), pdraw=st.integers(0, 10))
def test_random_game_invariants(name, seed, pdraw):
    rng = random.Random(seed)
    n = _players(name, pdraw)
    g = GameState.new(name, n, rng=random.Random(seed), dealer=seed % n)
    t = g.preset.table
    deck = Counter(build_deck(t.decks_for(n), t.jokers_per_deck))
    assert Counter(g.all_cards()) == deck
    for step in range(MAX_STEPS):
        if g.over:
            break
        turbo = g.turbo_plays() if step % 3 == 0 else []
        plays = g.legal_plays()
        assert plays, "the player to move always has a play (a pick-up at worst)"
        _check_pot(g)
        _check_judge_agrees(g, plays)
        for offered in plays + turbo:  # everything offered is judged playable
            verdict = g.judge(offered).verdict
            assert verdict in ("legal", "penalty"), (offered, g.judge(offered).to_dict())
        play = rng.choice(turbo) if turbo and rng.random() < 0.5 else rng.choice(plays)
        before = g.snapshot()
        g.push(play)
        after = g.snapshot()
        g.pop()
        assert g.snapshot() == before, f"pop did not restore the state after {play}"
        g.push(play)
        assert g.snapshot() == after, "push is not deterministic"
        assert Counter(g.all_cards()) == deck, "cards appeared or vanished"
        assert sum(g.active) + len(g.finished) == n
    if g.over:
        assert sorted(g.finished) == list(range(n))
        assert g.loser == g.finished[-1]


@pytest.mark.parametrize("name", PRESETS)
@settings(max_examples=5, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), pdraw=st.integers(0, 10))
def test_bot_games_end_and_are_reproducible(name, seed, pdraw):
    n = _players(name, pdraw)
    styles = [DEFAULT_STYLES[i % len(DEFAULT_STYLES)] for i in range(n)]

    def game():
        return play_game(name, [make_bot(s) for s in styles], random.Random(seed), 3000)

    g = game()
    assert game().snapshot() == g.snapshot()
    if not g.over:  # only a loop the rules themselves force may keep a game going
        assert g.forced_cycle(), f"{name}: {n} players, seed {seed} did not end"
        return
    assert len(g.finished) == n and len(set(g.finished)) == n
