"""Event validation and the JSON-lines log: shapes, normalisation, errors with line numbers."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from referee.cards import ALL_CARD_IDS
from referee.events import (EVENT_SPECS, EventError, append_event, parse_lines, read_log,
                            validate_event, write_log)


def setup_ev(seq=1):
    return {"seq": seq, "t": 1.0, "type": "setup", "players": ["Ann", "Bob", "Cy"],
            "dealer": "Cy", "preset": "fr", "game": 1}


def test_normalises_cards_and_fills_defaults():
    ev = validate_event({"type": "cards_played", "cards": ["qs", "ts"]}, seq=4, now=9.0)
    assert ev == {"seq": 4, "t": 9.0, "type": "cards_played", "source": "camera",
                  "cards": ["QS", "10S"]}
    op = validate_event({"type": "played_by", "player": " Bob ", "event": 3}, seq=5)
    assert op["source"] == "operator" and op["player"] == "Bob"


@pytest.mark.parametrize("raw, words", [
    ({"type": "cards_played", "cards": ["ZZ"]}, "unknown card"),
    ({"type": "cards_played", "cards": []}, "non-empty list"),
    ({"type": "cards_played"}, "missing `cards`"),
    ({"type": "bogus"}, "unknown event type"),
    ({"type": "setup", "players": ["A"], "dealer": "A"}, "at least two"),
    ({"type": "setup", "players": ["A", "A"], "dealer": "A"}, "more than once"),
    ({"type": "setup", "players": ["A", "B"], "dealer": "Z"}, "not one of the players"),
    ({"type": "setup", "players": ["A", "B"], "dealer": "A", "decks": 0}, ">= 1"),
    ({"type": "pot_cleared", "colour": "red"}, "unknown field"),
    ({"type": "void", "event": 9}, "not earlier"),
    ({"type": "vote", "order": 2, "player": "A", "serves": "yes"}, "true or false"),
    ({"type": "counts", "player": "A"}, "gives no count"),
    ({"type": "counts", "hand": 2}, "whose cards"),
    ({"type": "cards_played", "cards": ["QS"], "conf": [0.5, 0.5]}, "2 confidences"),
    ({"type": "note", "text": "x", "source": "phone"}, "source"),
    ({"type": "duty", "duty": "dishes", "player": "A", "to": "B"}, "best_card"),
    ("not a dict", "JSON object"),
])
def test_bad_events_are_refused_with_a_plain_message(raw, words):
    with pytest.raises(EventError) as exc:
        validate_event(raw, seq=5)
    assert words in str(exc.value)


def test_seq_must_follow_the_log():
    with pytest.raises(EventError, match="expects 3"):
        validate_event({"seq": 7, "type": "pot_cleared"}, seq=3)


def test_log_roundtrip(tmp_path):
    events = [validate_event(setup_ev()),
              validate_event({"type": "cards_played", "cards": ["QS", "QH"],
                              "conf": [0.9, 0.8], "meta": {"frame": 12}}, seq=2, now=2.0),
              validate_event({"type": "pot_cleared"}, seq=3, now=3.0)]
    path = tmp_path / "log.jsonl"
    write_log(path, events[:2])
    append_event(path, events[2])
    assert read_log(path) == events


def test_malformed_line_names_its_number_and_keeps_what_came_before(tmp_path):
    path = tmp_path / "log.jsonl"
    good = json.dumps(setup_ev())
    path.write_text(good + "\n\n" + '{"seq": 2, "type": "cards_played", "cards": ["QS"]}\n'
                    + '{"seq": 3, "type": "cards_pl\n')
    with pytest.raises(EventError) as exc:
        read_log(path)
    assert "line 4" in str(exc.value) and "not valid JSON" in str(exc.value)
    assert [e["seq"] for e in exc.value.accepted] == [1, 2]
    path.write_text(good + "\n" + '{"seq": 2, "type": "cards_played", "cards": ["XX"]}\n')
    with pytest.raises(EventError, match="line 2: .*unknown card"):
        read_log(path)


def test_missing_log_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_log(tmp_path / "nope.jsonl")


@given(st.lists(st.sampled_from(ALL_CARD_IDS), min_size=1, max_size=4),
       st.sampled_from(["camera", "operator", "system"]))
def test_any_card_list_roundtrips_through_json(cards, source):
    ev = validate_event({"type": "cards_played", "cards": [c.lower() for c in cards],
                         "source": source}, seq=1, now=1.0)
    assert ev["cards"] == cards
    assert parse_lines([json.dumps(ev)]) == [ev]


def test_every_type_has_a_doc():
    assert all(spec.doc for spec in EVENT_SPECS.values())


@pytest.mark.parametrize("ev, taken", [
    ({"type": "cards_played", "source": "operator", "cards": ["5H"]}, False),  # a person plays on
    ({"type": "cards_played", "source": "camera", "cards": ["5H"]}, True),  # held, in case the end was wrong
    ({"type": "played_by", "source": "operator", "player": "Bob"}, False),
    ({"type": "played_by", "source": "operator", "player": "Bob", "event": 7}, True),  # a fix of the game
    ({"type": "picked_up", "source": "operator", "player": "Bob", "event": ""}, False),
    ({"type": "counts", "source": "operator", "player": "Bob", "hand": 2}, False),
    ({"type": "pot_cleared", "source": "operator"}, True),  # tidying the table
    ({"type": "note", "source": "operator", "text": "gg"}, True),
    ({"type": "vote", "source": "operator"}, True),
])
def test_what_a_finished_game_still_takes(ev, taken):
    from referee.events import taken_after_end

    assert taken_after_end(ev) is taken
