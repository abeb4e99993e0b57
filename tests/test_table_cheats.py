"""Cheats injected into real (simulated) games: the ledger catches each one.

Truth comes from the engine (who picked which pot up, which cards burned); the table referee
only sees the camera and operator events up to the cheat, then the cheat itself.
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from referee.camera_stream import stream_game
from referee.table import TableReferee

GAMES = [stream_game("fr", 4, seed) for seed in range(6)]


def upto(sg, seq):
    return TableReferee.replay(sg.events[:seq])


def suspicions(out, kind):
    return [o for o in out if o["kind"] == "suspicion" and o["suspicion"] == kind]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, len(GAMES) - 1), st.floats(0, 0.999), st.integers(0, 20))
def test_playing_a_card_someone_else_picked_up(g, where, pick):
    sg = GAMES[g]
    seq, (picker, cards) = sorted(sg.pickups.items())[int(where * len(sg.pickups))]
    ref = upto(sg, seq)
    cheat = cards[pick % len(cards)]
    other = next(p for p in sg.players if p != picker)
    out = ref.apply({"type": "cards_played", "cards": [cheat], "player": other})
    found = suspicions(out, "held_by_other")
    assert [s["card"] for s in found] == [cheat]
    assert picker in found[0]["text"] and found[0]["player"] == other
    # evidence: the pick-up (the clear, or the missed blind card just before it) and the cheat
    assert {seq, seq - 1} & set(found[0]["events"]) and len(ref.log) in found[0]["events"]
    # the picker playing it is no cheat
    ref2 = upto(sg, seq)
    assert suspicions(ref2.apply({"type": "cards_played", "cards": [cheat], "player": picker}),
                      "held_by_other") == []


@settings(max_examples=25, deadline=None)
@given(st.integers(0, len(GAMES) - 1), st.floats(0, 0.999), st.integers(0, 20))
def test_a_burned_card_coming_back(g, where, pick):
    sg = GAMES[g]
    seq, cards = sorted(sg.burned.items())[int(where * len(sg.burned))]
    ref = upto(sg, seq)
    cheat = cards[pick % len(cards)]
    out = ref.apply({"type": "cards_played", "cards": [cheat]})
    found = suspicions(out, "burned_card_returned")
    assert [s["card"] for s in found] == [cheat]
    assert found[0]["events"][-1] == len(ref.log)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, len(GAMES) - 1), st.floats(0, 0.999))
def test_a_card_seen_twice_in_one_deck(g, where):
    sg = GAMES[g]
    plays = [s for s, r in sorted(sg.rulings.items())
             if r["verdict"] == "legal" and "burn" not in r["effects"]]
    seq = plays[int(where * len(plays))]
    ref = upto(sg, seq)
    cheat = sg.events[seq - 1]["cards"][0]
    out = ref.apply({"type": "cards_played", "cards": [cheat]})
    found = suspicions(out, "duplicate_card")
    assert [s["card"] for s in found] == [cheat] and seq in found[0]["events"]
