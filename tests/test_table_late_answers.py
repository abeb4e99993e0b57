"""An operator who answers late: engine games seen by the camera, with every Ace's target
and Turbo's player held back until the end of the game.

Meanwhile the referee's pot must be the pot on the table (a pot taken by somebody not named
yet leaves it, a burn by a player not named burns it); once the answers come in, each naming
the play it is about, the table must be the one the timely answers give: the same rulings,
counts, burns, finishing order and titles.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from referee.camera_stream import stream_game
from referee.table import TableReferee

ANSWERS = ("target", "played_by")


def withheld(events: list[dict]) -> tuple[list[dict], list[dict]]:
    """(the stream without the operator's answers, renumbered; the answers, each naming its
    play by its new seq)."""
    kept, answers, new_seq, last_play = [], [], {}, None
    for ev in events:
        if ev["type"] in ANSWERS:
            ref = ev.get("event", last_play)
            answers.append({k: v for k, v in ev.items() if k not in ("seq", "t")} | {"event": ref})
            continue
        new_seq[ev["seq"]] = len(kept) + 1
        kept.append({k: v for k, v in ev.items() if k != "seq"})
        if ev["type"] == "cards_played":
            last_play = ev["seq"]
    for a in answers:
        a["event"] = new_seq[a["event"]]
    return kept, answers


def table_of(ref: TableReferee) -> dict:
    g = ref.game
    return {"counts": {p: (s.hand, s.face_up, s.face_down, s.out, s.burns) for p, s in g.seats.items()},
            "stock": g.stock, "burns": g.burns, "order": g.order, "over": g.over, "pot": g.pile,
            "titles": ref.view()["titles"],
            "rulings": [(r["player"], r["verdict"], r["effects"], r["next"]) for r in ref.rulings()]}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["fr", "nl", "palace", "sydney"]), st.integers(3, 4), st.integers(0, 10_000))
def test_late_answers_give_the_table_timely_ones_give(preset, players, seed):
    sg = stream_game(preset, players, seed)
    if sg.engine_disagrees or not any(e["type"] in ANSWERS for e in sg.events):
        return
    timely = TableReferee.replay([{k: v for k, v in e.items() if k != "seq"} for e in sg.events])
    kept, answers = withheld(sg.events)
    ref = TableReferee()
    on_table: list[str] = []  # the cards on the table since it was last cleared or burned
    for ev in kept:
        out = ref.apply(ev)
        if ev["type"] == "pot_cleared":
            on_table = []
        elif ev["type"] == "cards_played":
            on_table += ev["cards"]
        if any(o["kind"] in ("burn", "pickup") for o in out):
            on_table = []
        if not ref.game.over:  # a game ended on a wrong guess holds the plays after it
            assert [pc.card for pc in ref.game.pot] == on_table, f"after event {len(ref.log)}"
    for a in answers:
        ref.apply(a)
    assert table_of(ref) == table_of(timely)
