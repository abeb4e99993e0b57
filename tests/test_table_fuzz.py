"""Any sequence of operator and camera events: the referee either takes an event or refuses
it with an EventError, never crashes, never loses what it had, and its view stays JSON."""
from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from referee.cards import STANDARD_DECK
from referee.events import EventError
from referee.table import TableReferee

NAMES = ["Ann", "Bob", "Cy", "Zed"]
name = st.sampled_from(NAMES)
ref_seq = st.integers(1, 40)
cards = st.lists(st.sampled_from(STANDARD_DECK[::3] + ("JK",)), min_size=1, max_size=3)

event = st.one_of(
    st.builds(lambda c: {"type": "cards_played", "cards": c}, cards),
    st.builds(lambda c: {"type": "cards_played", "cards": [c[0]] * len(c)}, cards),
    st.just({"type": "pot_cleared"}),
    st.builds(lambda p, e: {"type": "played_by", "player": p, **e}, name,
              st.one_of(st.just({}), st.builds(lambda s: {"event": s}, ref_seq))),
    st.builds(lambda p: {"type": "target", "player": p}, name),
    st.builds(lambda p: {"type": "picked_up", "player": p}, name),
    st.builds(lambda p: {"type": "player_out", "player": p}, name),
    st.builds(lambda s, c: {"type": "correct", "event": s, "cards": c}, ref_seq, cards),
    st.builds(lambda s: {"type": "void", "event": s}, ref_seq),
    st.builds(lambda s: {"type": "confirm", "event": s}, ref_seq),
    st.builds(lambda p, h: {"type": "counts", "player": p, "hand": h, "face_up": 0,
                            "face_down": 0}, name, st.integers(0, 2)),
    st.just({"type": "counts", "stock": 0}),
    st.builds(lambda p, d: {"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": d},
              name, name),
    st.builds(lambda p, t: {"type": "order", "player": p, "text": "x"}, name, name),
    st.builds(lambda s, p, b: {"type": "vote", "order": s, "player": p, "serves": b},
              ref_seq, name, st.booleans()),
    st.builds(lambda d, p, q: {"type": "duty", "duty": d, "player": p, "to": q},
              st.sampled_from(["best_card", "gift"]), name, name),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(event, min_size=1, max_size=40))
def test_random_event_streams(events):
    ref = TableReferee()
    ref.apply({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    for ev in events:
        n = len(ref.log)
        before = json.dumps(ref.view(), sort_keys=True)
        try:
            out = ref.apply(ev)
        except EventError:
            assert len(ref.log) == n
            assert json.dumps(ref.view(), sort_keys=True) == before
            continue
        assert len(ref.log) == n + 1
        assert all("kind" in o and "event" in o for o in out)
        json.dumps(out)
        v = ref.view()
        json.dumps(v)
        for p in v["players"]:
            assert min(p["hand"], p["face_up"], p["face_down"]) >= 0
        assert v["stock"] >= 0
    again = TableReferee.replay(ref.log)  # the log alone gives the same table
    assert again.view() == ref.view()
