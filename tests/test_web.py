"""The web app through Flask's test client, on a real SQLite file: every route, bad requests
refused with a clear 4xx and nothing changed, restarts that resume the same game."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from web.app import create_app
from web.config import Config
from web.store import Store

TOKEN = "test-token-123"
OP = {"X-Masta-Token": TOKEN}


def make_app(tmp_path, **kw):
    return create_app(Config(data_dir=tmp_path, token=TOKEN, testing=True, **kw))


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


@pytest.fixture
def client(app):
    return app.test_client()


def n_events(app) -> int:
    t = app.extensions["masta.table"]
    return app.extensions["masta.store"].count_events(t.evening_id)


def post(client, url, body, headers=OP):
    return client.post(url, data=json.dumps(body), content_type="application/json", headers=headers)


def setup_game(client, players=("Ann", "Bob", "Cy"), dealer="Cy"):
    r = post(client, "/setup/api/game", {"players": list(players), "dealer": dealer, "preset": "fr"})
    assert r.status_code == 201, r.json
    return r.json


def play(client, *cards):
    r = post(client, "/manual/api/events", {"type": "cards_played", "cards": list(cards)})
    assert r.status_code == 201, r.json
    return r.json


def rulings_of(payload):
    return [o for o in payload["outputs"] if o["kind"] == "ruling"]


def finish_game(client, first="Bob", second="Ann"):
    """End a three-player game: two players go out, the operator confirms against the counts."""
    seqs = []
    for p in (first, second):
        r = post(client, "/manual/api/events", {"type": "player_out", "player": p})
        assert r.status_code == 201, r.json
        seqs.append(r.json["event"]["seq"])
    last = None
    for s in seqs:
        last = post(client, "/rulings/api/corrections", {"type": "confirm", "event": s})
        assert last.status_code == 201, last.json
    return last.json


# --- pages --------------------------------------------------------------------------------

PAGES = ["/live/", "/rulings/", "/manual/", "/evening/", "/setup/", "/export/", "/auth"]
JSON_ROUTES = ["/live/state.json", "/rulings/data.json", "/evening/data.json", "/setup/rules/fr.json"]


@pytest.mark.parametrize("url", PAGES)
def test_every_page_renders_before_and_during_a_game(client, url):
    r = client.get(url)
    assert r.status_code == 200 and b"<nav>" in r.data
    setup_game(client)
    play(client, "5H")
    r = client.get(url)
    assert r.status_code == 200
    own = r.data.replace(b"http://phone", b"").replace(b"http://localhost/", b"")  # the set-up page's join link
    assert b"https://" not in r.data and b"http://" not in own  # nothing from outside


@pytest.mark.parametrize("url", JSON_ROUTES)
def test_json_routes(client, url):
    setup_game(client)
    r = client.get(url)
    assert r.status_code == 200 and r.is_json


def test_index_redirects_to_live(client):
    r = client.get("/")
    assert r.status_code == 302 and r.headers["Location"].endswith("/live/")


def test_static_files_are_served_and_local(client):
    for url in ["/static/masta.css", "/static/masta.js", "/live/static/live.js", "/manual/static/manual.js",
                "/rulings/static/rulings.js", "/evening/static/evening.js", "/setup/static/setup.js"]:
        r = client.get(url)
        assert r.status_code == 200, url
        assert b"cdn" not in r.data.lower() and b"googleapis" not in r.data


# --- playing and ruling -------------------------------------------------------------------

def test_a_play_is_ruled_committed_and_shown(app, client, tmp_path):
    setup_game(client)
    ok = play(client, "5H")
    assert rulings_of(ok)[0]["verdict"] == "legal" and rulings_of(ok)[0]["player"] == "Ann"
    bad = play(client, "4S")
    ruling = rulings_of(bad)[0]
    assert ruling["verdict"] == "illegal"
    assert ruling["reasons"][0]["rule"]  # cites the rule
    state = client.get("/live/state.json").json
    assert state["latest"]["seq"] == bad["event"]["seq"]
    assert state["latest"]["ruling"]["verdict"] == "illegal"
    assert "Bob" in state["latest"]["text"]
    # committed: a second store on the same file sees it
    other = Store(app.config["MASTA"].database_url)
    evs = other.events(app.extensions["masta.table"].evening_id)
    assert [e["type"] for e in evs] == ["setup", "cards_played", "cards_played"]
    assert evs[-1]["cards"] == ["4S"] and evs[-1]["meta"]["by"] == "script"


def test_restart_resumes_the_same_game(tmp_path):
    app1 = make_app(tmp_path)
    c1 = app1.test_client()
    setup_game(c1)
    play(c1, "6H")
    play(c1, "9S")
    before = c1.get("/live/state.json").json
    app1.extensions["masta.store"].close()
    app2 = make_app(tmp_path)  # the server was killed and started again
    after = app2.test_client().get("/live/state.json").json
    assert after["table"]["pot"] == before["table"]["pot"] == ["6H", "9S"]
    assert after["table"]["turn"] == before["table"]["turn"]
    assert after["latest"] == before["latest"]
    assert app2.extensions["masta.token"] == TOKEN
    r = post(app2.test_client(), "/manual/api/events", {"type": "cards_played", "cards": ["9H"]})
    assert r.status_code == 201 and r.json["event"]["seq"] == 4


def test_token_and_secret_survive_a_restart_without_config(tmp_path):
    a = create_app(Config(data_dir=tmp_path))
    b = create_app(Config(data_dir=tmp_path))
    assert a.extensions["masta.token"] == b.extensions["masta.token"] and len(a.extensions["masta.token"]) >= 20
    assert a.config["SECRET_KEY"] == b.config["SECRET_KEY"]


def test_correcting_a_misread_reverses_the_ruling_and_shows_who(client):
    setup_game(client)
    play(client, "5H")
    misread = play(client, "4S")
    assert rulings_of(misread)[0]["verdict"] == "illegal"
    r = client.post("/rulings/api/corrections", json={"type": "correct", "event": misread["event"]["seq"],
                                                      "cards": "6s"}, headers=dict(OP, **{"X-Masta-By": "Dee"}))
    assert r.status_code == 201, r.json
    revised = [o for o in r.json["outputs"] if o["kind"] == "ruling"]
    assert revised and revised[0]["verdict"] == "legal" and revised[0].get("revised")
    entries = client.get("/rulings/data.json").json["entries"]
    target = next(e for e in entries if e["event"]["seq"] == misread["event"]["seq"])
    assert target["outputs"][0]["verdict"] == "legal"
    assert target["fixes"][0]["type"] == "correct" and target["fixes"][0]["cards"] == ["6S"]
    assert target["fixes"][0]["meta"]["by"] == "Dee" and target["fixes"][0]["t"] > 0
    assert target["event"]["cards"] == ["4S"]  # the original claim stays visible


def test_a_camera_mismatch_named_by_a_person_is_ruled_as_the_play_where_it_happened(app, client):
    """Cards the camera saw land but could not read (a mismatch note) are named in place: the
    play is ruled at its place in the game, and the plays after it are ruled again."""
    setup_game(client)
    first = play(client, "5H")
    table = app.extensions["masta.table"]
    note = table.submit({"type": "note", "text": "camera mismatch: 9S 10S landed",
                         "meta": {"mismatch": True, "cards": ["9S", "10S"]}}, source="camera")
    later = play(client, "JD")
    who = [rulings_of(x)[0]["player"] for x in (first, later)]
    seq = note["event"]["seq"]
    # issue 53: nobody said, so the note is ruled as its likeliest play (the first rank read),
    # marked assumed; the turn passed twice
    entries = {e["event"]["seq"]: e for e in client.get("/rulings/data.json").json["entries"]}
    guessed = [o for o in entries[seq]["outputs"] if o["kind"] == "ruling"]
    assert guessed and guessed[0]["cards"] == ["9S"] and guessed[0]["assumed"]["cards"] == ["9S"]
    assert len({who[0], guessed[0]["player"], who[1]}) == 3
    r = post(client, "/rulings/api/corrections", {"type": "correct", "event": seq, "cards": ["9S"]})
    assert r.status_code == 201, r.json
    entries = {e["event"]["seq"]: e for e in client.get("/rulings/data.json").json["entries"]}
    named = [o for o in entries[seq]["outputs"] if o["kind"] == "ruling"]
    assert named and named[0]["cards"] == ["9S"] and named[0]["verdict"] == "legal"
    assert named[0]["player"] == guessed[0]["player"] and "assumed" not in named[0]  # a person said
    after = [o for o in entries[later["event"]["seq"]]["outputs"] if o["kind"] == "ruling"][0]
    assert after["player"] == who[1] and "9" in after["reasons"][0]["text"]  # JD goes on the 9S
    assert client.get("/rulings/data.json").json["view"]["table"]["pot"] == ["5H", "9S", "JD"]
    assert entries[seq]["fixes"][0]["type"] == "correct"
    # named, it is a play like any other: the page's "who played it?" can be answered
    other = who[0]  # not the one it was ruled to
    r = post(client, "/rulings/api/corrections", {"type": "played_by", "event": seq, "player": other})
    assert r.status_code == 201, r.json
    entries = {e["event"]["seq"]: e for e in client.get("/rulings/data.json").json["entries"]}
    assert [o for o in entries[seq]["outputs"] if o["kind"] == "ruling"][0]["player"] == other
    # a mismatch nobody named yet is ruled as its guess, whose player the page asks: taken
    guess = table.submit({"type": "note", "text": "camera mismatch: 4C landed",
                          "meta": {"mismatch": True, "cards": ["4C"]}}, source="camera")["event"]["seq"]
    r = post(client, "/rulings/api/corrections", {"type": "played_by", "event": guess, "player": other})
    assert r.status_code == 201, r.json
    # one with nothing read there is no play: who played it waits for its cards, said so, nothing recorded
    unread = table.submit({"type": "note", "text": "camera mismatch: something landed unread",
                           "meta": {"mismatch": True, "cards": []}}, source="camera")["event"]["seq"]
    n = n_events(app)
    r = post(client, "/rulings/api/corrections", {"type": "played_by", "event": unread, "player": other})
    assert r.status_code == 400 and "name its cards first" in r.json["error"] and n_events(app) == n
    # a plain note names no play: refused, nothing recorded
    plain = post(client, "/manual/api/events", {"type": "note", "text": "Bob sneezed"}).json["event"]["seq"]
    n = n_events(app)
    r = post(client, "/rulings/api/corrections", {"type": "correct", "event": plain, "cards": ["9S"]})
    assert r.status_code == 400 and "camera mismatch" in r.json["error"] and n_events(app) == n
    r = post(client, "/rulings/api/corrections", {"type": "played_by", "event": plain, "player": other})
    assert r.status_code == 400 and "cards_played or missed" in r.json["error"] and n_events(app) == n


def test_a_play_the_camera_missed_is_added_in_place_and_survives_a_restart(app, client, tmp_path):
    """A play nobody recorded (the camera saw nothing) is added right after the event it
    followed: ruled there, the plays after it ruled again, shown under that event, and kept
    in the store; the same play added to a finished game's previous game, or with an unknown
    card, is refused with nothing recorded."""
    setup_game(client)
    first = play(client, "5H")
    later = play(client, "JD")  # really after a 9S the camera missed
    who = [rulings_of(x)[0]["player"] for x in (first, later)]
    r = post(client, "/rulings/api/corrections", {"type": "missed", "event": first["event"]["seq"], "cards": "9s"})
    assert r.status_code == 201, r.json
    seq = r.json["event"]["seq"]
    entries = {e["event"]["seq"]: e for e in client.get("/rulings/data.json").json["entries"]}
    added = rulings_of(entries[seq])[0]
    assert added["cards"] == ["9S"] and added["verdict"] == "legal" and added["player"] == who[1]
    after = rulings_of(entries[later["event"]["seq"]])[0]
    assert after["player"] != who[1] and "9" in after["reasons"][0]["text"]  # JD now goes on the 9S
    assert client.get("/rulings/data.json").json["view"]["table"]["pot"] == ["5H", "9S", "JD"]
    assert entries[first["event"]["seq"]]["fixes"][0]["type"] == "missed"
    latest = client.get("/live/state.json").json["latest"]  # still the JD: the latest in the order of play
    assert latest["event"]["cards"] == ["JD"] and latest["seq"] == later["event"]["seq"]
    # who played it can be named like any play
    r = post(client, "/rulings/api/corrections", {"type": "played_by", "event": seq, "player": who[1]})
    assert r.status_code == 201, r.json
    n = n_events(app)
    for bad, words in (({"type": "missed", "event": first["event"]["seq"], "cards": "9X"}, "card"),
                       ({"type": "missed", "event": 999, "cards": "9S"}, "no event 999"),
                       ({"type": "missed", "event": seq, "cards": "9S", "cleared": True}, "not both"),
                       ({"type": "missed", "event": seq, "cleared": "yes"}, "cleared must be true")):
        r = post(client, "/rulings/api/corrections", bad)
        assert r.status_code == 400 and words in r.json["error"], r.json
    assert n_events(app) == n
    # the pot went unseen after the JD (burned or taken): added there too, the pot is gone
    r = post(client, "/rulings/api/corrections", {"type": "missed", "event": later["event"]["seq"], "cleared": True})
    assert r.status_code == 201, r.json
    assert client.get("/rulings/data.json").json["view"]["table"]["pot"] == []
    n = n_events(app)
    # a new game: the last game's events are final
    setup_game(client)
    r = post(client, "/rulings/api/corrections", {"type": "missed", "event": first["event"]["seq"], "cards": "9C"})
    assert r.status_code in (400, 409) and "not part of game" in r.json["error"] and n_events(app) == n + 1
    again = make_app(tmp_path).test_client()  # restarted on the same store: replayed in place
    entries = {e["event"]["seq"]: e for e in again.get("/rulings/data.json").json["entries"]}
    assert rulings_of(entries[seq])[0]["cards"] == ["9S"]


def test_an_unsure_read_confirmed_as_read_is_asked_about_no_more(client):
    """The banner asks for a check on an unsure latest read until a person settles it: a
    correction to the very cards read ("Right as read") changes no ruling and settles it."""
    setup_game(client)
    unsure = post(client, "/manual/api/events", {"type": "cards_played", "cards": ["9C"], "conf": [0.6],
                                                  "meta": {"low_conf": True}}).json
    latest = client.get("/live/state.json").json["latest"]
    assert latest["event"]["meta"]["low_conf"] and latest["settled"] is False
    before = rulings_of(unsure)[0]
    r = post(client, "/rulings/api/corrections", {"type": "correct", "event": unsure["event"]["seq"], "cards": ["9C"]})
    assert r.status_code == 201, r.json
    latest = client.get("/live/state.json").json["latest"]
    assert latest["settled"] is True and latest["ruling"]["verdict"] == before["verdict"]
    assert latest["ruling"]["player"] == before["player"]


def test_void_and_note(client):
    setup_game(client)
    p = play(client, "5H")
    bad = play(client, "3H")
    r = post(client, "/rulings/api/corrections", {"type": "void", "event": bad["event"]["seq"]})
    assert r.status_code == 201
    assert client.get("/live/state.json").json["table"]["pot"] == ["5H"]
    r = post(client, "/rulings/api/corrections", {"type": "note", "event": p["event"]["seq"], "text": "Ann hesitated"})
    assert r.status_code == 201
    again = post(client, "/rulings/api/corrections", {"type": "void", "event": bad["event"]["seq"]})
    assert again.status_code == 400 and "already void" in again.json["error"]


def test_ace_target_and_pick_up(client):
    setup_game(client)
    ace = play(client, "AS")
    assert any(o["kind"] == "prompt" for o in ace["outputs"])
    r = post(client, "/rulings/api/corrections", {"type": "target", "event": ace["event"]["seq"], "player": "cy"})
    assert r.status_code == 201 and r.json["event"]["player"] == "Cy"
    r = post(client, "/manual/api/events", {"type": "pot_cleared"})
    assert r.status_code == 201


def test_a_finished_game_makes_standings_titles_and_chart(client):
    setup_game(client)
    play(client, "5H")
    end = finish_game(client)
    assert any(o["kind"] == "game_over" for o in end["outputs"])
    ev = client.get("/evening/data.json").json
    assert ev["titles_now"] == {"Bob": "MASTA", "Ann": "VICE-MASTA", "Cy": "SHITHEAD"}
    assert [s["player"] for s in ev["standings"]] == ["Bob", "Ann", "Cy"]
    assert "<svg" in ev["chart_svg"] and "Bob" in ev["chart_svg"]
    page = client.get("/evening/").data.decode()
    assert "<svg" in page
    after = post(client, "/manual/api/events", {"type": "cards_played", "cards": ["7H"]})
    assert after.status_code == 409 and "over" in after.json["error"]


def test_order_and_one_vote_per_player(client, app):
    setup_game(client, players=("Ann", "Bob", "Cy", "Dee"), dealer="Dee")
    for p in ("Bob", "Ann", "Cy"):
        assert post(client, "/manual/api/events", {"type": "player_out", "player": p}).status_code == 201
    for s in (2, 3, 4):
        assert post(client, "/rulings/api/corrections", {"type": "confirm", "event": s}).status_code == 201
    order = post(client, "/evening/api/events", {"type": "order", "player": "Bob", "text": "fetch the drinks"})
    assert order.status_code == 201, order.json
    seq = order.json["event"]["seq"]
    # a phone without the token votes: needs only the page's CSRF token
    voter = app.test_client()
    voter.get("/evening/")
    with voter.session_transaction() as s:
        csrf = s["csrf"]
    from helpers_web import code_for
    r = voter.post("/evening/api/vote", json={"order": seq, "player": "Ann", "serves": True,
                                              "code": code_for(app, "Ann")}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.json
    before = n_events(app)
    twice = voter.post("/evening/api/vote", json={"order": seq, "player": "Ann", "serves": False},
                       headers={"X-CSRF-Token": csrf})
    assert twice.status_code == 400 and "already voted" in twice.json["error"]
    shithead = voter.post("/evening/api/vote", json={"order": seq, "player": "Dee", "serves": False},
                          headers={"X-CSRF-Token": csrf})
    assert shithead.status_code == 400 and "may not vote" in shithead.json["error"]
    assert n_events(app) == before
    no_csrf = app.test_client().post("/evening/api/vote", json={"order": seq, "player": "Cy", "serves": True})
    assert no_csrf.status_code == 403
    orders = client.get("/evening/data.json").json["orders"]
    assert orders[0]["votes"] == {"Ann": True}


# --- bad requests: a clear 4xx with a message, nothing changed ----------------------------

BAD = [
    ("/manual/api/events", {"type": "played_by", "player": "Zed"}, 400, "unknown player 'Zed'"),
    ("/manual/api/events", {"type": "cards_played", "cards": ["ZZ"]}, 400, "unknown card 'ZZ'"),
    ("/manual/api/events", {"type": "cards_played", "cards": []}, 400, "non-empty list"),
    ("/manual/api/events", {"type": "cards_played", "cards": ["QS"], "conf": [2]}, 400, "between 0 and 1"),
    ("/manual/api/events", {"type": "explode"}, 400, "unknown event type"),
    ("/manual/api/events", ["not", "an", "object"], 400, "JSON object"),
    ("/rulings/api/corrections", {"type": "correct", "event": 99, "cards": ["QS"]}, 400, "no event 99"),
    ("/rulings/api/corrections", {"type": "correct", "event": 1, "cards": ["QS"]}, 400, "setup event"),
    ("/rulings/api/corrections", {"type": "correct", "event": "two", "cards": ["QS"]}, 400, "number"),
    ("/rulings/api/corrections", {"type": "cards_played", "cards": ["QS"]}, 400, "unknown event type"),
    ("/rulings/api/corrections", {"type": "void", "event": 1}, 400, "cannot be voided"),
    ("/rulings/api/corrections", {"type": "note", "text": "  "}, 400, "needs some text"),
    ("/setup/api/game", {"players": ["Ann"]}, 400, "at least two players"),
    ("/setup/api/game", {"players": ["Ann", "ann"]}, 400, "same name"),
    ("/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Zed"}, 400, "unknown player"),
    ("/setup/api/game", {"players": ["Ann", "Bob"], "preset": "martian"}, 400, "unknown preset"),
    ("/setup/api/game", {"players": ["Ann", "Bob"], "decks": 9}, 400, "decks"),
    ("/setup/api/pot-zone", {"zone": [0.5, 0.5, 0.2, 0.9]}, 400, "zone must satisfy"),
    ("/setup/api/pot-zone", {"zone": "middle"}, 400, "four numbers"),
    ("/setup/api/preset", {"name": "Bad Name!", "toml": "x"}, 400, "lower-case"),
    ("/setup/api/preset", {"name": "fr", "toml": "x"}, 409, "shipped preset"),
    ("/setup/api/preset", {"name": "ours", "toml": "this is = = not toml"}, 400, "not valid"),
    ("/evening/api/events", {"type": "order", "player": "Ann", "text": "dance"}, 400, "no game has ended"),
    ("/evening/api/events", {"type": "duty", "duty": "hug", "player": "Ann", "to": "Bob"}, 400, "best_card"),
    ("/evening/api/vote", {"order": 1, "player": "Ann", "serves": True}, 400, "order"),
]


@pytest.mark.parametrize("url,body,status,words", BAD)
def test_bad_requests_are_refused_clearly_and_change_nothing(app, client, url, body, status, words):
    setup_game(client)
    play(client, "5H")
    before = n_events(app)
    state = client.get("/live/state.json").json
    r = post(client, url, body)
    assert r.status_code == status, r.json
    assert words.lower() in r.json["error"].lower()
    assert n_events(app) == before
    assert client.get("/live/state.json").json == state


@pytest.mark.parametrize("raw", ['{"type": "cards_played", "cards": ["QS"]', "", "{'single': 'quotes'}", "nul"])
def test_malformed_json_is_refused(app, client, raw):
    setup_game(client)
    before = n_events(app)
    r = client.post("/manual/api/events", data=raw, content_type="application/json", headers=OP)
    assert r.status_code == 400 and ("malformed JSON" in r.json["error"] or "empty" in r.json["error"])
    assert n_events(app) == before


def test_no_game_yet(client, app):
    r = post(client, "/manual/api/events", {"type": "cards_played", "cards": ["QS"]})
    assert r.status_code == 400 and "set-up page" in r.json["error"] and n_events(app) == 0


@pytest.mark.parametrize("url", ["/manual/api/events", "/rulings/api/corrections", "/setup/api/game",
                                 "/setup/api/preset", "/setup/api/camera", "/setup/api/pot-zone",
                                 "/setup/api/evening", "/evening/api/events"])
def test_missing_or_wrong_token_is_401(app, client, url):
    setup_game(client)
    before = n_events(app)
    for headers in ({}, {"X-Masta-Token": "guess"}):
        r = post(client, url, {"type": "note", "text": "hi"}, headers=headers)
        assert r.status_code == 401 and "operator's token" in r.json["error"]
    assert n_events(app) == before


def test_operator_link_sets_a_cookie_and_forms_need_csrf(app):
    c = app.test_client()
    assert c.get("/auth?token=wrong").status_code == 403
    r = c.get(f"/auth?token={TOKEN}&name=Dee&next=/manual/")
    assert r.status_code == 302 and r.headers["Location"] == "/manual/"
    assert c.get("/auth?token=" + TOKEN + "&next=//evil.example").headers["Location"] == "/live/"
    page = c.get("/manual/").data.decode()
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    r = c.post("/setup/api/game", json={"players": ["Ann", "Bob"]})  # cookie but no CSRF token
    assert r.status_code == 403 and "CSRF" in r.json["error"]
    r = c.post("/setup/api/game", json={"players": ["Ann", "Bob"]}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201 and r.json["event"]["meta"]["by"] == "Dee"
    r = c.post("/auth/logout", data={"csrf_token": csrf})
    assert r.status_code == 302
    r = c.post("/manual/api/events", json={"type": "note", "text": "x"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 401


def test_login_form(app):
    c = app.test_client()
    c.get("/auth")
    with c.session_transaction() as s:
        csrf = s["csrf"]
    assert c.post("/auth", data={"token": "nope", "csrf_token": csrf}).status_code == 403
    assert c.post("/auth", data={"token": TOKEN, "csrf_token": csrf}).status_code == 302
    assert b"This device is the operator" in c.get("/auth").data


def test_a_new_token_signs_devices_out(tmp_path):
    a = make_app(tmp_path)
    c = a.test_client()
    c.get(f"/auth?token={TOKEN}")
    assert b"This device is the operator" in c.get("/auth").data
    b = create_app(Config(data_dir=tmp_path, token="another-token", testing=True))
    cb = b.test_client()
    cookie = c.get_cookie("masta")
    cb.set_cookie("masta", cookie.value)
    assert b"Operator sign-in" in cb.get("/auth").data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(
    st.dictionaries(st.sampled_from(["type", "cards", "player", "event", "text", "conf", "order", "serves"]),
                    st.one_of(st.none(), st.integers(-3, 30), st.text(max_size=6), st.booleans(),
                              st.lists(st.text(max_size=4), max_size=3),
                              st.sampled_from(["cards_played", "correct", "void", "played_by", "note", "QS", "Ann"])),
                    max_size=5),
    st.lists(st.integers(), max_size=2), st.text(max_size=5), st.integers()))
def test_any_body_is_accepted_or_refused_with_a_message(tmp_path_factory, body):
    """Invariant: the answer is 201 or a 4xx with a message, and a 4xx changes nothing."""
    app = make_app(tmp_path_factory.mktemp("h"))
    c = app.test_client()
    setup_game(c)
    play(c, "5H")
    before = n_events(app)
    r = post(c, "/manual/api/events", body)
    assert r.status_code in (201, 400, 409), (r.status_code, r.data)
    if r.status_code == 201:
        assert n_events(app) == before + 1
    else:
        assert r.json["error"] and n_events(app) == before


# --- set-up, export, evidence --------------------------------------------------------------

def test_setup_pages_save_zone_camera_and_preset(app, client):
    assert post(client, "/setup/api/pot-zone", {"zone": [0.2, 0.3, 0.6, 0.8]}).status_code == 201
    assert app.extensions["masta.store"].get_setting("pot_zone") == [0.2, 0.3, 0.6, 0.8]
    r = post(client, "/setup/api/camera", {"source": ""})
    assert r.status_code == 201 and app.extensions["masta.store"].get_setting("camera_source") is None
    toml = 'extends = "fr"\nname = "ours"\ntitle = "Our table"\n\n[table]\nvoluntary_pickup = true\n'
    r = post(client, "/setup/api/preset", {"name": "ours", "toml": toml})
    assert r.status_code == 201, r.json
    assert "ours" in client.get("/setup/").data.decode()
    words = client.get("/setup/rules/ours.json")
    assert words.status_code == 200 and words.json["words"]
    r = post(client, "/setup/api/game", {"players": "Ann, Bob", "preset": "ours"})
    assert r.status_code == 201 and r.json["event"]["preset"].endswith("ours.toml")
    assert client.get("/setup/rules/nope.json").status_code == 404


def test_new_evening_keeps_the_old_one(app, client):
    setup_game(client)
    old = app.extensions["masta.table"].evening_id
    r = post(client, "/setup/api/evening", {"name": "Friday"})
    assert r.status_code == 201 and r.json["evening"] != old
    assert client.get("/live/state.json").json["players"] == []
    assert client.get(f"/export/evening.jsonl?evening={old}", headers=OP).data.count(b"\n") == 1


def test_export_logs_replay_and_standings_csv(client):
    from referee.events import parse_lines
    from referee.table import TableReferee

    setup_game(client)
    play(client, "5H")
    play(client, "4S")
    post(client, "/rulings/api/corrections", {"type": "correct", "event": 3, "cards": ["6S"]})
    finish_game(client)
    setup_game(client, dealer="Cy")
    play(client, "9D")
    whole = client.get("/export/evening.jsonl")
    assert whole.status_code == 200 and "attachment" in whole.headers["Content-Disposition"]
    events = parse_lines(whole.data.decode().splitlines())
    ref = TableReferee.replay(events)
    live = client.get("/rulings/data.json").json
    assert len(ref.rulings()) == sum(1 for e in live["entries"] for o in e["outputs"] if o["kind"] == "ruling")
    game2 = parse_lines(client.get("/export/game/2.jsonl").data.decode().splitlines())
    assert [e["seq"] for e in game2] == [1, 2] and game2[0]["type"] == "setup"
    assert TableReferee.replay(game2).view()["pot"] == ["9D"]
    game1 = parse_lines(client.get("/export/game/1.jsonl").data.decode().splitlines())
    assert TableReferee.replay(game1).view()["finishing_order"] == ["Bob", "Ann", "Cy"]
    assert client.get("/export/game/7.jsonl").status_code == 404
    rows = list(csv.DictReader(io.StringIO(client.get("/export/standings.csv").data.decode())))
    assert [r["player"] for r in rows] == ["Bob", "Ann", "Cy"] and rows[0]["MASTA"] == "1"
    assert client.get("/export/standings.csv?evening=abc").status_code == 400
    assert client.get("/export/evening.jsonl?evening=99", headers=OP).status_code == 404


def test_evidence_is_served_only_from_the_evidence_folder(app, client, tmp_path):
    folder = app.config["MASTA"].evidence_dir
    (folder / "e1-before.jpg").write_bytes(b"\xff\xd8fake")
    (tmp_path / "secret.jpg").write_bytes(b"secret")
    assert client.get("/evidence/e1-before.jpg").data == b"\xff\xd8fake"
    assert client.get("/evidence/../secret.jpg").status_code == 404
    assert client.get("/evidence/%2e%2e/secret.jpg").status_code == 404
    assert client.get("/evidence/masta.sqlite3").status_code == 404


def test_camera_frame_routes(app, client):
    assert client.get("/live/frame.jpg").status_code == 404
    app.extensions["masta.frames"].publish(b"\xff\xd8jpeg")
    r = client.get("/live/frame.jpg")
    assert r.status_code == 200 and r.data == b"\xff\xd8jpeg" and r.mimetype == "image/jpeg"


def test_the_event_table_is_append_only(app, client):
    setup_game(client)
    store = app.extensions["masta.store"]
    with pytest.raises(DBAPIError):
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE events SET type='void'"))
    with pytest.raises(DBAPIError):
        with store.engine.begin() as conn:
            conn.execute(text("DELETE FROM events"))
    assert n_events(app) == 1


def test_unknown_routes_and_methods(client):
    r = client.get("/nowhere", headers={"Accept": "application/json"})
    assert r.status_code == 404 and r.json["error"]
    assert client.get("/manual/api/events").status_code == 405


def test_two_tables_share_one_database(tmp_path):
    a = make_app(tmp_path, table="red")
    b = make_app(tmp_path, table="blue")
    setup_game(a.test_client(), players=("Ann", "Bob"), dealer="Bob")
    setup_game(b.test_client(), players=("Xi", "Yu"), dealer="Yu")
    assert a.test_client().get("/live/state.json").json["players"] == ["Ann", "Bob"]
    assert b.test_client().get("/live/state.json").json["players"] == ["Xi", "Yu"]
    again = make_app(tmp_path, table="red")  # restarted: still the red table's game
    assert again.test_client().get("/live/state.json").json["players"] == ["Ann", "Bob"]


def test_a_stored_log_the_referee_refuses_is_reported_not_lost(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    setup_game(c)
    play(c, "5H")
    store = app.extensions["masta.store"]
    eid = app.extensions["masta.table"].evening_id
    store.append(eid, {"seq": 3, "t": 1.0, "type": "played_by", "source": "operator", "player": "Nobody", "event": 2})
    again = make_app(tmp_path)
    state = again.test_client().get("/live/state.json").json
    assert "cannot be replayed past event 3" in state["referee"]
    assert state["table"]["pot"] == ["5H"]  # everything before it is still there
    assert "cannot be replayed" in again.test_client().get("/live/").data.decode()
    r = post(again.test_client(), "/manual/api/events", {"type": "cards_played", "cards": ["6H"]})
    assert r.status_code == 400 and "cannot be replayed" in r.json["error"]
    assert store.count_events(eid) == 3


def test_the_rulings_page_asks_for_the_current_games_events_with_the_plays_held_before_it(app, client):
    """`?from=game`: the events from the current game's set-up on, and the plays the camera saw
    after the last game ended (its set-up offers to add them); `earlier` counts the rest. No
    `from`, or `from=all`: every event. Anything else is refused, saying what to ask."""
    from referee.camera_stream import stream_game

    table = app.extensions["masta.table"]
    for raw, source in stream_game("fr", 4, 0).submitted():
        table.submit(raw, source=source)
    n = len(table.log)
    assert table.game_over()
    held = [table.submit({"type": "cards_played", "cards": [c]}, source="camera")["event"]["seq"] for c in ("5H", "7C")]
    setup_game(client)
    game = client.get("/rulings/data.json?from=game").json
    seqs = [r["event"]["seq"] for r in game["entries"]]
    assert seqs == [n + 3, *reversed(held)] and game["earlier"] == n
    assert game["view"] == client.get("/rulings/data.json").json["view"]
    play(client, "9S")
    assert [r["event"]["seq"] for r in client.get("/rulings/data.json?from=game").json["entries"]][:2] == [n + 4, n + 3]
    every = client.get("/rulings/data.json?from=all").json
    assert [r["event"]["seq"] for r in every["entries"]] == list(range(n + 4, 0, -1)) and every["earlier"] == 0
    assert len(client.get("/rulings/data.json").json["entries"]) == n + 4
    bad = client.get("/rulings/data.json?from=yesterday")
    assert bad.status_code == 400 and "from=game" in bad.json["error"]
