"""Seat zones: each player's side of the table, drawn on the set-up page (or `masta watch
--seat`), tell from which side each play came: a hint on the rulings page, never a ruling."""
from __future__ import annotations

import contextlib
import os

import pytest

from datasets.game_video import seat_geometry, seat_hints, seat_zones
from masta.cli import main
from test_browser_web import CHROMIUM, TOKEN, browser  # noqa: F401 (a fixture)
from test_web import OP, make_app, post, setup_game
from web.camera import attach_camera, wait_for
from helpers_video import SeesNothing, plain_video
from helpers_web import snapshot


@pytest.fixture
def video(tmp_path):
    return plain_video(tmp_path / "table.avi")


def test_seat_zones_saved_from_the_page_reach_the_running_watcher_and_the_next_start(tmp_path, video):
    app = make_app(tmp_path)
    runner = attach_camera(app, SeesNothing(), str(video), live=True)
    try:
        c = app.test_client()
        seats = {"Ann": [0.0, 0.7, 1.0, 1.0], "Bob": [0.0, 0.0, 1.0, 0.3]}
        r = post(c, "/setup/api/seat-zones", {"seats": seats})
        assert r.status_code == 201 and r.json["seats"] == seats
        assert wait_for(lambda: runner.pipe is not None, 5)
        assert runner.pipe.watcher.seats == {k: tuple(v) for k, v in seats.items()}
        page = c.get("/setup/", headers=OP).data
        assert b"data-seats" in page and b"Ann" in page
    finally:
        runner.stop()
    again = attach_camera(make_app(tmp_path), SeesNothing(), None)  # the server started again
    assert again.seats == {k: tuple(v) for k, v in seats.items()}
    assert post(c, "/setup/api/seat-zones", {"seats": {}}).json["seats"] == {}  # cleared
    assert app.extensions["masta.store"].get_setting("seat_zones") == {}


@pytest.mark.parametrize("body, says", [
    ({"seats": [1, 2]}, "send"),
    ({}, "send"),
    ({"seats": {"Ann": [0, 0, 1]}}, "Ann's side must be four numbers"),
    ({"seats": {"Ann": [0.5, 0, 0.2, 1]}}, "0 <= x0 < x1 <= 1"),
    ({"seats": {"Ann": ["a", 0, 1, 1]}}, "four numbers"),
    ({"seats": {"": [0, 0, 1, 1]}}, "blank"),
    ({"seats": {f"P{i}": [0, 0, 1, 1] for i in range(13)}}, "at most 12"),
])
def test_a_bad_seat_zone_is_refused_with_what_to_do_and_nothing_changes(tmp_path, body, says):
    app = make_app(tmp_path)
    c = app.test_client()
    post(c, "/setup/api/seat-zones", {"seats": {"Cy": [0, 0, 0.5, 0.5]}})
    before = snapshot(app)
    r = post(c, "/setup/api/seat-zones", body)
    assert r.status_code == 400 and says in r.json["error"], r.json
    assert snapshot(app) == before


def test_masta_watch_says_a_bad_seat_before_opening_the_camera(tmp_path, capsys):
    missing = str(tmp_path / "no-such-video.mp4")  # never opened: the seat is refused first
    assert main(["watch", missing, "--players", "Ann,Bob", "--seat", "Dee=0,0,1,1"]) == 2
    assert "--seat takes NAME=x0,y0,x1,y1 with NAME one of --players (Ann, Bob)" in capsys.readouterr().err
    assert main(["watch", missing, "--players", "Ann,Bob", "--seat", "Ann=0,0.5,1"]) == 2
    assert "--seat Ann takes x0,y0,x1,y1" in capsys.readouterr().err
    assert main(["watch", missing, "--players", "Ann,Bob", "--seat", "Ann=0.5,0,0.4,1"]) == 2
    assert "0 <= x0 < x1 <= 1" in capsys.readouterr().err


def test_each_rendered_seat_lies_inside_its_players_zone_and_on_its_side():
    meta = {"size": [1280, 720], "card_height": 144}
    names = ["Ann", "Bob", "Cy", "Dee"]
    zones = seat_zones(meta, names)
    for name, seat in zip(names, seat_geometry(1280, 720, 144, 4)):
        x0, y0, x1, y1 = zones[name]
        assert x0 * 1280 <= seat["pos"][0] <= x1 * 1280 and y0 * 720 <= seat["pos"][1] <= y1 * 720
    assert zones["Ann"][3] == 1.0 and zones["Cy"][1] == 0.0   # the first at the bottom, the third at the top
    assert zones["Bob"][0] == 0.0 and zones["Dee"][2] == 1.0  # the second on the left, the fourth on the right
    # no two sides overlap: an arm names one player
    for a in names:
        for b in names:
            if a < b:
                za, zb = zones[a], zones[b]
                assert min(za[2], zb[2]) <= max(za[0], zb[0]) or min(za[3], zb[3]) <= max(za[1], zb[1])


def test_seat_hints_count_each_play_by_its_player():
    truth = [{"type": "cards_played", "cards": ["5H"], "player": "Ann", "t_rest": 1.0},
             {"type": "pot_cleared", "t_rest": 3.0},
             {"type": "cards_played", "cards": ["6S"], "player": "Bob", "t_rest": 5.0},
             {"type": "cards_played", "cards": ["7D"], "player": "Cy", "t_rest": 9.0}]
    got = [{"type": "cards_played", "cards": ["5H"], "t": 1.2, "seat": "Ann"},
           {"type": "pot_cleared", "cards": [], "t": 3.1, "seat": "Bob"},      # not a play: not counted
           {"type": "cards_played", "cards": ["6S"], "t": 5.3, "seat": "Cy"},
           {"type": "cards_played", "cards": ["7D"], "t": 9.2, "seat": None},
           {"type": "cards_played", "cards": ["KD"], "t": 20.0, "seat": "Ann"}]  # no play then
    assert seat_hints(truth, got) == {"right": 1, "wrong": 1, "none": 1}


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent: install Debian's chromium")
def test_a_play_from_another_side_is_assumed_theirs_asked_once_and_one_tap_says(tmp_path, browser):
    from playwright.sync_api import expect

    from web.app import create_app
    from web.config import Config
    from web.server import BackgroundServer

    app = create_app(Config(data_dir=tmp_path, token=TOKEN))
    table = app.extensions["masta.table"]
    with BackgroundServer(app, threads=16) as srv:
        c = app.test_client()
        assert post(c, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"},
                    headers={"X-Masta-Token": TOKEN}).status_code == 201
        # Ann's play came from her side; the next came from Cy's side while the referee expected Bob
        table.submit({"type": "cards_played", "cards": ["5H"], "meta": {"seat": "Ann"}}, source="camera")
        table.submit({"type": "cards_played", "cards": ["8C"], "meta": {"seat": "Cy"}}, source="camera")
        table.submit({"type": "cards_played", "cards": ["9D"]}, source="camera")  # no side seen: asked
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        page.goto(f"{srv.url}/auth?token={TOKEN}&name=Dee&next=/rulings/")
        expect(page.locator("#e2 .seat")).to_have_text("The arm came from Ann's side.")  # as expected
        # the referee goes by the camera's side (the turn had gone astray), asks once, Cy first
        expect(page.locator("#e3 .seat")).to_have_text("The arm came from Cy's side.")
        expect(page.locator("#e3 .tag.assumed")).to_contain_text("assumed Cy")
        q = page.locator("#prompts .question-box")
        expect(q).to_contain_text("Who played 8♣ after Ann's 5♥? Cy · Bob · Ann")
        q.locator("button.answer", has_text="Bob").click()  # a person says: Bob's, in turn
        asked = page.locator("#e3 .seat")
        expect(asked).to_contain_text("The arm came from Cy's side, not Bob's: a Turbo, or Cy played for Bob?")
        expect(page.locator("#prompts .question-box")).to_have_count(0)
        assert table.log[-1]["type"] == "played_by" and table.log[-1]["player"] == "Bob"
        assert table.log[-1]["event"] == 3
        asked.get_by_role("button", name="Played by Cy").click()
        expect(page.locator("#e3 .seat")).to_have_text("The arm came from Cy's side.")
        assert table.log[-1]["type"] == "played_by" and table.log[-1]["player"] == "Cy"
        ctx.close()


def test_the_demo_draws_its_tables_sides_from_its_video(tmp_path):
    from web.commands import demo_seat_zones, demo_setup, find_demo

    log = tmp_path / "demo.truth.jsonl"
    log.write_text('{"type": "video", "fps": 30, "size": [1280, 720], "card_height": 144}\n'
                   '{"seq": 1, "t": 0, "type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"}\n')
    zones = demo_seat_zones(log)
    assert list(zones) == ["Ann", "Bob", "Cy"] and zones["Ann"][3] == 1.0  # the first at the bottom
    assert demo_seat_zones(None) is None
    log.write_text('{"type": "setup", "players": ["Ann", "Bob"]}\n')  # a plain log: no video to draw on
    assert demo_seat_zones(log) is None
    video, shipped = find_demo()
    if shipped is not None:  # the bundled demo's own table
        assert set(demo_seat_zones(shipped)) == set(demo_setup(shipped)["players"])


@contextlib.contextmanager
def served_setup(tmp_path, **settings):
    """An app serving a camera on a plain table video, a game of Ann and Bob set up, `settings`
    saved in its store: (app, runner, server), the snapshot already come."""
    from web.app import create_app
    from web.config import Config
    from web.server import BackgroundServer

    app = create_app(Config(data_dir=tmp_path, token=TOKEN))
    runner = attach_camera(app, SeesNothing(), str(plain_video(tmp_path / "table.avi")), live=True)
    try:
        with BackgroundServer(app, threads=16) as srv:
            assert wait_for(lambda: app.extensions["masta.frames"].latest() is not None, 10)
            app.extensions["masta.table"].submit({"type": "setup", "players": ["Ann", "Bob"], "dealer": "Bob"},
                                                 source="operator")
            for key, value in settings.items():
                app.extensions["masta.store"].set_setting(key, value)
            yield app, runner, srv
    finally:
        runner.stop()


def drag_on_zone(page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Draw a box on the set-up snapshot from `start` to `end` (fractions of the canvas)."""
    cv = page.locator("#zone")
    cv.scroll_into_view_if_needed()
    b = cv.bounding_box()
    page.mouse.move(b["x"] + start[0] * b["width"], b["y"] + start[1] * b["height"])
    page.mouse.down()
    page.mouse.move(b["x"] + end[0] * b["width"], b["y"] + end[1] * b["height"], steps=5)
    page.mouse.up()


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent: install Debian's chromium")
def test_a_players_side_is_drawn_on_the_snapshot_and_saved(tmp_path, browser):
    from playwright.sync_api import expect

    with served_setup(tmp_path) as (app, runner, srv):
        store = app.extensions["masta.store"]
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        page.goto(f"{srv.url}/auth?token={TOKEN}&name=Dee&next=/setup/")
        page.select_option("#zone-mode", "Ann")
        save = page.locator("#zone-save")
        expect(save).to_have_text("Save Ann's side")
        expect(save).to_be_enabled()  # the snapshot came
        drag_on_zone(page, (0.1, 0.6), (0.9, 0.95))
        save.click()
        assert wait_for(lambda: "Ann" in (store.get_setting("seat_zones") or {}), 5)
        x0, y0, x1, y1 = store.get_setting("seat_zones")["Ann"]
        assert abs(x0 - 0.1) < 0.03 and abs(y0 - 0.6) < 0.03 and abs(x1 - 0.9) < 0.03 and abs(y1 - 0.95) < 0.03
        assert runner.seats["Ann"] == (x0, y0, x1, y1)  # the camera has it already
        assert store.get_setting("pot_zone") is None     # the pot zone was not touched
        page.locator("#seats-clear").click()
        assert wait_for(lambda: store.get_setting("seat_zones") == {}, 5)
        ctx.close()
