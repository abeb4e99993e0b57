"""The live page's headline data: the last thing that happened at the table in one line
(`web.happening`), and the house-rule switches generated from a preset (`web.setup.switches`)."""
from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st
from test_web import make_app, post, setup_game

from referee.rules import RankRule, TableRules, list_presets, load_preset
from web.happening import happening
from web.setup.switches import ADVANCED, RANK_WORDS, TABLE_WORDS, switches


def last(app) -> str | None:
    v = app.extensions["masta.table"].view()
    return v["happened"]["text"] if v["happened"] else None


def test_the_last_event_follows_plays_pick_ups_burns_aces_corrections_and_the_end(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    setup_game(c, players=("Ann", "Bob", "Cy"), dealer="Cy")
    assert last(app) is None
    ev = lambda body, url="/manual/api/events": post(c, url, body).json["event"]["seq"]  # noqa: E731
    ev({"type": "cards_played", "cards": ["5H"]})
    assert last(app) == "Ann played 5♥"
    ev({"type": "cards_played", "cards": ["4S"]})
    assert last(app) == "Bob played 4♠: ILLEGAL"
    note = ev({"type": "note", "text": "he laughed"}, "/rulings/api/corrections")
    assert last(app) == "Bob played 4♠: ILLEGAL"  # a note changes nothing at the table
    ev({"type": "correct", "event": 3, "cards": ["6S"]}, "/rulings/api/corrections")
    assert last(app) == "Bob played 6♠"  # the play as corrected
    ev({"type": "picked_up", "player": "Cy"})
    assert last(app) == "Cy picked up the pot"
    burn = ev({"type": "cards_played", "cards": ["10D"]})
    assert last(app) == f"{app.extensions['masta.table'].outputs[burn][0]['player']} burned the pot with 10♦"
    ev({"type": "void", "event": burn}, "/rulings/api/corrections")
    assert last(app) == "Cy picked up the pot"  # the burn did not happen
    ace = ev({"type": "cards_played", "cards": ["AS"]})
    assert last(app).endswith("played A♠: who gets the pot?")
    ev({"type": "target", "event": ace, "player": "Bob"})
    assert last(app) == "Bob gets the pot (Ace)"
    assert note
    for p in ("Ann", "Bob"):
        seq = ev({"type": "player_out", "player": p})
        ev({"type": "confirm", "event": seq}, "/rulings/api/corrections")
    assert last(app) == "Game over: MASTA Ann, VICE-MASTA Bob, SHITHEAD Cy"
    assert app.extensions["masta.table"].view()["happened"]["kind"] == "title"


CARDS = st.sampled_from(["5H", "10C", "AS", "JK", "QD", "2S"])
OUTPUT = st.one_of(
    st.fixed_dictionaries({"kind": st.just("ruling"), "verdict": st.sampled_from(["legal", "illegal", "penalty"]),
                           "cards": st.lists(CARDS, min_size=1, max_size=4),
                           "effects": st.lists(st.sampled_from(["burn", "give_pot", "again", "skip:1"]), max_size=2),
                           "player": st.sampled_from(["Ann", "Bob", None]), "turbo": st.booleans()}),
    st.fixed_dictionaries({"kind": st.sampled_from(["pickup", "burn", "out"]), "player": st.sampled_from(["Ann", "Cy"])}),
    st.fixed_dictionaries({"kind": st.just("game_over"), "titles": st.just({"Ann": "MASTA", "Bob": "SHITHEAD"})}),
    st.fixed_dictionaries({"kind": st.sampled_from(["prompt", "suspicion", "info"])}),
)


@given(st.sampled_from(["cards_played", "picked_up", "target", "player_out", "missed", "pot_cleared"]),
       st.lists(OUTPUT, max_size=4))
def test_what_happened_is_one_line_and_the_end_wins(kind, outs):
    h = happening({"seq": 7, "type": kind, "player": "Ann", "cards": ["5H"]}, outs)
    if h is None:
        assert not any(o["kind"] in ("ruling", "pickup", "burn", "out", "game_over") for o in outs)
        return
    assert "\n" not in h.text and h.text.strip() == h.text and h.seq == 7
    assert h.kind in ("play", "illegal", "penalty", "burn", "ace", "pickup", "target", "out", "title")
    if any(o["kind"] == "game_over" for o in outs):
        assert h.kind == "title" and h.text.startswith("Game over: MASTA Ann")
    elif [o["verdict"] for o in outs if o["kind"] == "ruling"][-1:] == ["illegal"]:  # the latest ruling's
        assert h.kind == "illegal"


def test_each_rule_of_every_preset_is_a_switch_showing_the_presets_value():
    """A rule added to the referee gets a switch with its words, or is named as left to the
    TOML: nothing is dropped without a word."""
    table_keys = {f.name for f in dataclasses.fields(TableRules)}
    assert table_keys == set(TABLE_WORDS) | set(ADVANCED)
    assert {f.name for f in dataclasses.fields(RankRule)} - {"rank", "cite"} == set(RANK_WORDS)
    for name in list_presets():
        preset = load_preset(name)
        d = switches(preset)
        for sw in d["table"]:
            want = getattr(preset.table, sw["key"])
            assert sw["value"] == (list(want) if isinstance(want, tuple) else want), (name, sw["key"])
            assert sw["label"] and sw["what"]
            if sw["kind"] == "choice":
                assert sw["value"] in sw["choices"], (name, sw)
        assert [r["rank"] for r in d["ranks"]][-1] == "JK"
        for r in d["ranks"]:
            rule = preset.rule(r["rank"])
            assert r["words"] == rule.powers_in_words()
            for sw in r["fields"]:
                want = getattr(rule, sw["key"])
                assert sw["value"] == (list(want) if isinstance(want, tuple) else want), (name, r["rank"], sw["key"])


def test_the_rules_page_data_carries_the_switches(tmp_path):
    c = make_app(tmp_path).test_client()
    d = c.get("/setup/rules/nl.json").json
    pickup = next(sw for sw in d["switches"]["table"] if sw["key"] == "voluntary_pickup")
    assert pickup["kind"] == "bool" and pickup["value"] == load_preset("nl").table.voluntary_pickup
    assert c.get("/setup/rules/nope.json").status_code == 404
