"""Hypothesis fuzzing of every parser at masta's edges: card ids (referee.cards), presets
(referee.rules, TOML), event logs (referee.events, JSON lines), and the body of every POST
route of the web app. The invariant each time: a malformed input gets a clear error of the
documented kind with a message, never another exception (no 500), and nothing is half-written.
"""
from __future__ import annotations

import json
import math
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from helpers_web import OPERATOR_ROUTES, game_over_app, snapshot
from test_web import OP

from referee.cards import ALL_CARD_IDS, RANKS, SUITS, UnknownCard, parse_card, parse_cards
from referee.events import EventError, parse_lines, validate_event
from referee.rules import PresetError, _BOOL_RANK, _BOOL_TABLE, _INT_TABLE, _TABLE_KEYS, load_preset

def FAST(n: int = 100):
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# --- card ids -------------------------------------------------------------------------------

card_like = st.one_of(
    st.text(max_size=6),
    st.text(alphabet="0123456789AJQKTCDHSjkqxX*oO ", max_size=5),
    st.builds(lambda r, s, pad: pad + r + s + pad, st.sampled_from(RANKS + ("T", "1", "11", "0", "JK")),
              st.sampled_from(SUITS + ("c", "h", "X", "", "♠")), st.sampled_from(["", " ", "\t"])))


@FAST(400)
@given(text=card_like)
def test_a_card_id_is_canonical_or_refused_clearly(text):
    try:
        card = parse_card(text)
    except UnknownCard as exc:
        assert "unknown card" in str(exc) and "for example" in str(exc)
        return
    assert card in ALL_CARD_IDS
    assert parse_card(card) == card and parse_card(card.lower()) == card


@FAST()
@given(value=st.one_of(st.none(), st.integers(), st.floats(), st.booleans(), st.binary(max_size=4),
                       st.lists(st.text(max_size=3), max_size=3), st.dictionaries(st.text(max_size=2), st.integers())))
def test_a_card_id_of_the_wrong_type_is_refused_clearly(value):
    with pytest.raises(UnknownCard):
        parse_card(value)


@FAST()
@given(cards=st.lists(st.sampled_from(ALL_CARD_IDS), min_size=1, max_size=6), sep=st.sampled_from([" ", ",", ", "]))
def test_card_lists_round_trip(cards, sep):
    assert parse_cards(sep.join(c.lower() for c in cards)) == cards


# --- presets (TOML) ------------------------------------------------------------------------

def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v) if not (isinstance(v, float) and not math.isfinite(v)) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
    if isinstance(v, str):
        return json.dumps(v)
    return "[" + ", ".join(_toml_value(x) for x in v) + "]"


scalar = st.one_of(st.booleans(), st.integers(-3, 20), st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from(["fr", "lowest", "left_of_dealer", "same_rank", "off", "CDHS", "7", "Q", "",
                                    "or_equal", "zz"]),
                   st.text(max_size=4))
value = st.one_of(scalar, st.lists(scalar, max_size=3), st.lists(st.lists(st.integers(-1, 12), max_size=3), max_size=3))
table_keys = st.sampled_from(sorted(_TABLE_KEYS) + ["bogus", "Players"])
rank_keys = st.sampled_from(sorted(_BOOL_RANK) + ["not_on", "lower", "skip", "counter", "in_four", "wat"])


@st.composite
def preset_text(draw) -> str:
    lines = []
    if draw(st.booleans()):
        lines.append(f"extends = {json.dumps(draw(st.sampled_from(['fr', 'palace', 'nope', 'house.toml', ''])))}")
    for key in draw(st.lists(st.sampled_from(["name", "title", "description", "source", "colour"]), max_size=3, unique=True)):
        lines.append(f"{key} = {_toml_value(draw(scalar))}")
    lines.append("[table]")
    for key in draw(st.lists(table_keys, max_size=5, unique=True)):
        lines.append(f"{key} = {_toml_value(draw(value))}")
    for rank in draw(st.lists(st.sampled_from(["2", "7", "10", "J", "A", "JK", "1", "joker", "X"]), max_size=2, unique=True)):
        lines.append(f"[ranks.{json.dumps(rank)}]")
        for key in draw(st.lists(rank_keys, max_size=3, unique=True)):
            lines.append(f"{key} = {_toml_value(draw(value))}")
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 4)) == 0:  # a typo somewhere
        pos = draw(st.integers(0, len(text)))
        text = text[:pos] + draw(st.sampled_from(["=", "[", "\"", "\n", "]]", "\x00", "é"])) + text[pos:]
    return text


@FAST(250)
@given(text=preset_text())
def test_a_preset_loads_or_is_refused_naming_the_file(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("p")
    path = folder / "house.toml"
    path.write_text(text, encoding="utf-8")
    try:
        preset = load_preset(str(path))
    except ValueError as exc:  # PresetError (a ValueError) or an unknown rank, with a message
        msg = str(exc)
        assert msg and (".toml" in msg or "rules file" in msg or "preset" in msg.lower()
                        or "rank" in msg.lower()), msg  # names the file (or the extended one) or the rank
        return
    assert preset.in_words()  # what loads is usable: the set-up page shows it in words


@FAST(60)
@given(text=st.one_of(preset_text(), st.text(max_size=60)),
       name=st.one_of(st.sampled_from(["ours", "our-house", "x"]), st.text(max_size=12)))
def test_saving_a_preset_from_the_page_is_all_or_nothing(tmp_path_factory, text, name):
    from test_web import make_app
    app = make_app(tmp_path_factory.mktemp("w"))
    c = app.test_client()
    r = c.post("/setup/api/preset", json={"name": name, "toml": text}, headers=OP)
    assert r.status_code in (201, 400, 409), (r.status_code, r.data[:300])
    folder = app.config["MASTA"].presets_dir
    files = sorted(os.listdir(folder)) if folder.is_dir() else []
    if r.status_code == 201:
        assert files == [r.json["name"] + ".toml"]
        assert load_preset(r.json["path"]).in_words()
    else:
        assert r.json["error"] and files == []  # no half-written or temporary file left behind


# --- event logs (JSON lines) ---------------------------------------------------------------

def _good_log() -> list[dict]:
    from referee.camera_stream import stream_game
    return stream_game("fr", 3, seed=2).events[:25]


GOOD_LOG = _good_log()
junk = st.one_of(st.none(), st.integers(-5, 300), st.floats(allow_nan=True), st.text(max_size=5), st.booleans(),
                 st.lists(st.sampled_from(["QS", "ZZ", 3, None, "Ann"]), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@st.composite
def mangled_log(draw) -> list[str]:
    events = [dict(e) for e in GOOD_LOG[: draw(st.integers(1, len(GOOD_LOG)))]]
    for _ in range(draw(st.integers(0, 3))):
        ev = events[draw(st.integers(0, len(events) - 1))]
        op = draw(st.sampled_from(["drop", "set", "add"]))
        keys = sorted(ev)
        if op == "drop" and keys:
            ev.pop(draw(st.sampled_from(keys)))
        elif op == "set" and keys:
            ev[draw(st.sampled_from(keys))] = draw(junk)
        else:
            ev[draw(st.sampled_from(["cards", "player", "event", "extra", "seq", "type", "meta"]))] = draw(junk)
    lines = [json.dumps(e, allow_nan=True) for e in events]
    if draw(st.booleans()):
        pos = draw(st.integers(0, len(lines)))
        lines.insert(pos, draw(st.sampled_from(["", "   ", "{", "[]", "null", "42", '"x"', "{\"type\": 1}",
                                                "\ufeff{}", "{\"seq\": 1e400}", "NaN"])))
    return lines


_SETUP_LINE = json.dumps({"seq": 1, "t": 1.0, "type": "setup", "source": "operator", "players": ["Ann", "Bob", "Cy"],
                          "dealer": "Ann", "preset": "fr", "game": 1})


@FAST(300)
@given(lines=mangled_log())
@example(lines=[_SETUP_LINE, json.dumps({"seq": 2, "t": 2.0, "type": "cards_played", "cards": ["3C"], "meta": 1})])
def test_an_event_log_parses_or_names_the_bad_line(lines):
    try:
        events = parse_lines(lines)
    except EventError as exc:
        assert str(exc) and exc.line is not None and 1 <= exc.line <= len(lines)
        assert all(isinstance(e, dict) for e in exc.accepted)
        return
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    # what parses, the referee takes or refuses cleanly, event by event
    from referee.table import TableReferee
    ref = TableReferee()
    for ev in events:
        try:
            ref.apply(dict(ev))
        except ValueError:
            break


meta_value = st.one_of(junk, st.lists(junk, max_size=3), st.dictionaries(st.text(max_size=3), junk, max_size=2))


@FAST(200)
@given(meta=st.dictionaries(st.sampled_from(["seat", "mismatch", "cards", "reads", "gone", "arm", "by", "event"]),
                            meta_value, max_size=5),
       kind=st.sampled_from(["cards_played", "note"]))
@example(meta={"mismatch": True, "cards": ["3C", 5, "ZZ"], "reads": "x"}, kind="note")
@example(meta={"mismatch": True, "cards": ["3C"], "reads": [{"3C": "sure"}]}, kind="note")
@example(meta={"seat": ["Bob"]}, kind="cards_played")
def test_whatever_a_hand_written_meta_holds_the_referee_rules_or_refuses_cleanly(meta, kind):
    from referee.table import TableReferee
    ref = TableReferee()
    ref.apply({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Ann", "preset": "fr", "game": 1})
    ev = {"type": kind, "meta": meta, **({"cards": ["3C"]} if kind == "cards_played" else {"text": "a note"})}
    try:
        ref.apply(ev)
    except ValueError as exc:
        assert str(exc)
    assert ref.log and ref.log[0]["type"] == "setup"


def test_a_meta_that_is_not_an_object_is_refused_with_what_to_do():
    with pytest.raises(EventError, match="`meta` must be a JSON object"):
        validate_event({"type": "cards_played", "cards": ["3C"], "meta": 1}, seq=1, now=0.0)


@FAST()
@given(raw=st.one_of(junk, st.dictionaries(st.sampled_from(["type", "seq", "t", "source", "cards", "player", "event",
                                                             "players", "dealer", "text", "serves", "order", "meta"]),
                                           junk, max_size=6)))
def test_validate_event_refuses_anything_malformed_with_a_message(raw):
    try:
        ev = validate_event(raw, seq=1, now=0.0)
    except EventError as exc:
        assert str(exc)
        return
    assert ev["seq"] == 1 and isinstance(ev["type"], str)


# --- every POST route's body ---------------------------------------------------------------

ROUTES = sorted(OPERATOR_ROUTES) + ["/evening/api/vote"]
vocab = st.sampled_from(["type", "cards", "player", "event", "text", "conf", "order", "serves", "players",
                         "dealer", "preset", "decks", "name", "toml", "source", "zone", "duty", "to", "card",
                         "hand", "face_up", "meta", "evidence"])
leaf = st.one_of(st.none(), st.booleans(), st.integers(-2, 40), st.floats(allow_nan=False), st.text(max_size=8),
                 st.sampled_from(["cards_played", "correct", "void", "note", "order", "vote", "setup", "QS", "10h",
                                  "Ann", "Bob", "Cy", "Dee", "fr", "best_card", "../../etc/passwd", "0", "yes"]))
json_body = st.one_of(
    st.dictionaries(vocab, st.one_of(leaf, st.lists(leaf, max_size=4), st.dictionaries(st.text(max_size=4), leaf, max_size=2)),
                    max_size=6),
    st.lists(leaf, max_size=3), leaf)


@pytest.fixture(scope="module")
def ended(tmp_path_factory):
    """An app whose game ended (orders and votes possible) and a device with a CSRF token."""
    app = game_over_app(tmp_path_factory.mktemp("api"))
    c = app.test_client()
    r = c.post("/evening/api/events", json={"type": "order", "player": "Bob", "text": "dance"}, headers=OP)
    assert r.status_code == 201
    phone = app.test_client()
    phone.get("/evening/")
    with phone.session_transaction() as s:
        csrf = s["csrf"]
    return app, c, phone, {"X-CSRF-Token": csrf}


@FAST(300)
@given(route=st.sampled_from(ROUTES), body=json_body, as_form=st.booleans())
def test_every_post_route_answers_any_body_clearly(ended, route, body, as_form):
    app, op, phone, csrf = ended
    client, headers = (phone, csrf) if route == "/evening/api/vote" else (op, OP)
    before = snapshot(app)
    if as_form and isinstance(body, dict):
        r = client.post(route, data={k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()},
                        headers=headers)
    else:
        r = client.post(route, data=json.dumps(body), content_type="application/json", headers=headers)
    assert r.status_code in (201, 400, 403, 404, 409), (route, body, r.status_code, r.data[:300])
    if r.status_code != 201:
        assert r.is_json and r.json["error"], r.data[:300]
        assert snapshot(app) == before, (route, body)  # refused: nothing changed


@FAST(100)
@given(route=st.sampled_from(ROUTES), raw=st.one_of(st.binary(max_size=40), st.text(max_size=40).map(str.encode)),
       ctype=st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                              "multipart/form-data", "application/json; charset=latin-1"]))
def test_every_post_route_answers_raw_bytes_clearly(ended, route, raw, ctype):
    app, op, phone, csrf = ended
    client, headers = (phone, csrf) if route == "/evening/api/vote" else (op, OP)
    before = snapshot(app)
    r = client.post(route, data=raw, content_type=ctype, headers=headers)
    assert r.status_code in (201, 400, 403, 404, 409, 415), (route, raw, ctype, r.status_code, r.data[:300])
    if r.status_code != 201:
        assert r.is_json and r.json["error"]
        assert snapshot(app) == before
