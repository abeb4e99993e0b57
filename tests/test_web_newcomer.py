"""What a newcomer hit on the pages, through the app's test client on a real SQLite store: the
count-mismatch question's Confirm, the set-up page's zone data, the banner's last event, an
illegal play's next step, the header's camera dot."""
from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from web.errors import ApiError
from web.validate import clean_name, name_key

from test_web import OP, app, client, make_app, post, setup_game  # noqa: F401 (fixtures)


def correct(client, body):
    return post(client, "/rulings/api/corrections", body)


def state(client) -> dict:
    return client.get("/live/state.json").json


# --- 1. the count-mismatch question's Confirm ---------------------------------------------

def test_confirm_on_a_plays_count_mismatch_is_taken_and_the_question_goes(app, client):
    setup_game(client)
    assert post(client, "/manual/api/events", {"type": "counts", "player": "Ann", "hand": 1}).status_code == 201
    r = post(client, "/manual/api/events", {"type": "cards_played", "cards": ["5H", "5S"]})
    assert r.status_code == 201
    asked = [p for p in state(client)["table"]["prompts"] if p["prompt"] == "desync"]
    assert len(asked) == 1 and asked[0]["event"] == r.json["event"]["seq"]
    # what the page's "Confirm #N" button sends (web/static/masta.js promptBox)
    ok = correct(client, {"type": "confirm", "event": asked[0]["event"]})
    assert ok.status_code == 201, ok.json
    assert state(client)["table"]["prompts"] == []
    assert state(client)["table"]["turn"] == "Bob"  # the play stands as read


def test_confirm_of_a_play_with_nothing_in_doubt_is_refused_and_changes_nothing(app, client):
    setup_game(client)
    seq = post(client, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]}).json["event"]["seq"]
    n = len(app.extensions["masta.table"].log)
    bad = correct(client, {"type": "confirm", "event": seq})
    assert bad.status_code == 400 and "no count in doubt" in bad.json["error"]
    assert len(app.extensions["masta.table"].log) == n


# --- 2. the set-up page's zone editor data ------------------------------------------------

class _Canvas(HTMLParser):
    def __init__(self):
        super().__init__()
        self.attrs: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "canvas":
            self.attrs.append(dict(attrs))


def canvas_attrs(client) -> dict:
    p = _Canvas()
    p.feed(client.get("/setup/", headers=OP).get_data(as_text=True))
    assert len(p.attrs) == 1
    return p.attrs[0]


def _takes(name: str) -> bool:
    try:
        clean_name(name)
    except ApiError:
        return False
    return True


#: any name the app takes (it refuses control and format characters and blank names)
NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(_takes)


@pytest.fixture(scope="module")
def seats_client(tmp_path_factory):
    return make_app(tmp_path_factory.mktemp("seats")).test_client()


@settings(max_examples=25, deadline=None)
@given(names=st.lists(NAMES, min_size=1, max_size=4, unique_by=lambda n: name_key(clean_name(n))))
def test_seat_zones_of_any_names_reach_the_zone_editor_intact(seats_client, names):
    """A saved side of the table (names with quotes, `<`, `>`, `&` too) comes back as the
    editor's JSON, whole, and adds no attribute to the canvas."""
    c = seats_client
    seats = {n: [0.0, 0.5, 0.4, 1.0] for n in names}
    assert post(c, "/setup/api/seat-zones", {"seats": seats}).status_code == 201
    assert post(c, "/setup/api/pot-zone", {"zone": [0.2, 0.2, 0.8, 0.8]}).status_code == 201
    a = canvas_attrs(c)
    assert set(a) == {"id", "data-zone", "data-seats", "data-proposal"}
    assert json.loads(a["data-seats"]) == {clean_name(n): z for n, z in seats.items()}
    assert json.loads(a["data-zone"]) == [0.2, 0.2, 0.8, 0.8]


def test_a_name_cannot_inject_an_attribute(client):
    evil = 'Ann" onmouseover="alert(1)'
    assert post(client, "/setup/api/seat-zones", {"seats": {evil: [0, 0, 1, 1]}}).status_code == 201
    a = canvas_attrs(client)
    assert "onmouseover" not in a and json.loads(a["data-seats"]) == {evil: [0, 0, 1, 1]}


# --- 4. the banner: the last thing that happened -----------------------------------------

def test_the_last_event_is_the_pick_up_after_a_ruling_then_the_titles_then_the_next_game(client):
    setup_game(client)
    post(client, "/manual/api/events", {"type": "cards_played", "cards": ["7H"]})
    s = state(client)
    assert s["last"]["kind"] == "ruling" and s["last"]["next"] == "<= 7"
    post(client, "/manual/api/events", {"type": "pot_cleared"})  # Bob cannot answer the 7: picks up
    s = state(client)
    assert s["latest"]["ruling"]["next"] == "<= 7"  # the last ruling is still that one
    assert s["last"]["kind"] == "pickup" and "Bob" in s["last"]["text"]
    assert s["last"]["next"] == s["table"]["next"] == "any" and s["last"]["turn"] == "Cy"
    for p in ("Bob", "Ann"):
        seq = post(client, "/manual/api/events", {"type": "player_out", "player": p}).json["event"]["seq"]
        correct(client, {"type": "confirm", "event": seq})
    s = state(client)
    assert s["table"]["over"] and s["last"]["kind"] == "game_over"
    assert s["last"]["titles"] == s["table"]["titles"] and "MASTA" in s["last"]["text"]
    setup_game(client)
    s = state(client)
    assert s["last"]["kind"] == "setup" and s["last"]["seq"] == s["seq"]


def test_a_voided_pick_up_gives_the_banner_back_to_the_play_before(client):
    setup_game(client)
    post(client, "/manual/api/events", {"type": "cards_played", "cards": ["7H"]})
    seq = post(client, "/manual/api/events", {"type": "pot_cleared"}).json["event"]["seq"]
    correct(client, {"type": "void", "event": seq})
    s = state(client)
    assert s["last"]["kind"] == "ruling" and s["last"]["seq"] == seq - 1


# --- 5. an illegal play: what happens next -----------------------------------------------

def test_an_illegal_play_tells_the_table_what_happens_next(client):
    setup_game(client)
    post(client, "/manual/api/events", {"type": "cards_played", "cards": ["KH"]})
    bad = post(client, "/manual/api/events", {"type": "cards_played", "cards": ["4S"]}).json
    s = state(client)
    assert "Bob takes back 4S and picks up the pot" in s["latest"]["text"]
    assert s["latest"]["ruling"]["then_rule"].startswith("Si un joueur ne peut pas poser de carte")
    assert s["table"]["pot"] == ["KH", "4S"] and s["table"]["pot_illegal"] == [1]
    assert s["table"]["penalty"] == "Bob"
    assert any("takes back" in o.get("plain", "") for o in bad["outputs"])


# --- 4. the header's camera dot ----------------------------------------------------------

def test_a_page_opened_after_the_camera_stopped_shows_it_stopped(tmp_path):
    from helpers_video import SeesNothing, plain_video
    from web.camera import attach_camera, wait_for

    app = make_app(tmp_path / "data")
    c = app.test_client()
    assert 'data-camera="off"' in c.get("/live/").get_data(as_text=True)  # no camera yet
    runner = attach_camera(app, SeesNothing(), str(plain_video(tmp_path / "table.avi", frames=30)), pace=True)
    try:
        frames = app.extensions["masta.frames"]
        assert frames.running
        assert 'data-camera="on"' in c.get("/live/").get_data(as_text=True)
        assert c.get("/live/state.json").json["camera_running"] is True
        assert wait_for(lambda: not frames.running, 20)  # the video ended: the camera stopped
        page = c.get("/rulings/").get_data(as_text=True)
        assert 'data-camera="off"' in page and "the camera stopped" in page
        s = c.get("/live/state.json").json
        assert s["camera_running"] is False and "the camera stopped" in s["camera"]
    finally:
        runner.stop()
