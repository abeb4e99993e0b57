"""Teaching the deck from the page (`web.deck_teacher`, `/teach/`): a real rendered video of
cards shown one at a time, through OpenCV, the real detector and the real app."""
from __future__ import annotations

import os
import re

import pytest

from helpers_video import plain_video, render_teaching_video
from test_browser_web import CHROMIUM, TOKEN, browser  # noqa: F401 (a fixture)
from test_web import OP, make_app, post, setup_game
from training.deck_tune import tune
from vision.detector import DEFAULT_DETECTOR
from web.camera import attach_camera, find_model, load_detector, wait_for
from web.deck_teacher import SETTING, deck_path, saved_deck

needs_model = pytest.mark.skipif(not DEFAULT_DETECTOR.exists(), reason="no trained model in models/")
CARDS = ["AS", "QS", "10H"]
SPADES = ["AS", "2S", "3S"]
LEARNT = re.compile(r"\blearnt\b")
#: batches the deck's own rank reader is tuned for at the end of each teaching (300 at a table)
TUNE = 8


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return render_teaching_video(tmp_path_factory.mktemp("teach"), CARDS)["video"]


@pytest.fixture(scope="module")
def first_spades(tmp_path_factory):
    """The first three cards the page asks for, shown in its order."""
    return render_teaching_video(tmp_path_factory.mktemp("teach-sh"), SPADES)["video"]


@pytest.fixture(scope="module")
def detector():
    return load_detector(find_model())


@pytest.fixture
def table(tmp_path, video, detector):
    """An app whose camera watches the teaching video at its own pace, over and over, as a live
    camera would."""
    detector.classifier.deck = None
    app = make_app(tmp_path, teach_tune=TUNE, tuner=tune)
    runner = attach_camera(app, detector, str(video), pace=True, live=True)
    yield app, runner, app.extensions["masta.teacher"]
    app.extensions["masta.teacher"].wait(60)
    runner.stop()


@needs_model
def test_a_deck_taught_from_the_page_is_read_with_at_once_and_after_a_restart(tmp_path, table, detector):
    app, runner, teacher = table
    c = app.test_client()
    setup_game(c)
    log = app.extensions["masta.table"]
    before = [dict(e) for e in log.log]
    old_pipe = runner.pipe
    r = post(c, "/teach/api/start", {"order": CARDS})
    assert r.status_code == 201, r.json
    assert r.json["status"] == "teaching" and r.json["next"] == "AS" and r.json["order"] == CARDS
    assert runner._threads == []  # no refereeing while cards are shown
    assert post(c, "/teach/api/start", {"order": CARDS}).status_code == 409  # one teaching at a time
    assert teacher.wait(60)
    state = c.get("/teach/api/state").json
    assert state["status"] == "idle" and [d["card"] for d in state["taught"]] == CARDS, state
    assert state["deck"]["cards"] == CARDS and state["deck"]["of"] == 3 and state["problems"] == []
    assert detector.classifier.deck is not None and deck_path(app).is_file()
    assert detector.classifier.deck.ranker_reads()  # the deck's own rank reader was tuned too
    assert "now reads with this deck" in state["message"] and state["reads_with"]
    assert runner.pipe is not old_pipe and wait_for(lambda: runner.pipe is not None, 5)  # refereeing again
    assert [dict(e) for e in log.log][:len(before)] == before  # teaching took nothing out of the log
    # after a restart the deck is found again beside the database
    again = make_app(tmp_path)
    memory, problem = saved_deck(again)
    assert problem is None and sorted(set(memory.cards)) == sorted(CARDS) and memory.ranker_reads()
    # forgotten: the camera reads with its model alone, and a second forget says there is none
    r = post(c, "/teach/api/forget", {})
    assert r.status_code == 201 and r.json["deck"] is None and "forgotten" in r.json["message"].lower()
    assert detector.classifier.deck is None and not deck_path(app).exists()
    assert app.extensions["masta.store"].get_setting(SETTING) is None
    assert post(c, "/teach/api/forget", {}).status_code == 404


@needs_model
def test_done_early_learns_the_cards_seen_and_names_the_others(table, detector):
    app, runner, teacher = table
    c = app.test_client()
    assert post(c, "/teach/api/start", {"order": CARDS + ["KH"]}).status_code == 201
    assert wait_for(lambda: len(teacher.state()["taught"]) == 3, 60)
    r = post(c, "/teach/api/done", {})
    assert r.status_code == 201 and r.json["status"] == "finishing"
    assert teacher.wait(30)
    state = c.get("/teach/api/state").json
    assert [d["card"] for d in state["taught"]] == CARDS
    assert any("KH" in p and "never seen" in p for p in state["problems"]), state["problems"]
    assert state["deck"]["cards"] == CARDS and state["deck"]["of"] == 4


@needs_model
def test_cancel_keeps_the_deck_read_with_before(table, detector):
    app, runner, teacher = table
    c = app.test_client()
    r = post(c, "/teach/api/start", {"suits": "SH"})
    assert r.status_code == 201 and len(r.json["order"]) == 26 and r.json["next"] == "AS"
    assert post(c, "/teach/api/forget", {}).status_code == 409  # not while teaching
    r = post(c, "/teach/api/cancel", {})
    assert r.status_code == 201 and r.json["status"] == "finishing"
    assert teacher.wait(30)
    state = c.get("/teach/api/state").json
    assert state["status"] == "idle" and "cancelled" in state["message"].lower()
    assert state["deck"] is None and detector.classifier.deck is None and not deck_path(app).exists()
    assert post(c, "/teach/api/done", {}).status_code == 409  # nothing is being taught


@needs_model
def test_a_server_stopping_mid_teaching_keeps_nothing_and_starts_no_camera(table, detector):
    app, runner, teacher = table
    assert post(app.test_client(), "/teach/api/start", {"order": CARDS}).status_code == 201
    teacher.close()
    assert teacher.state()["status"] == "idle" and teacher.state()["deck"] is None
    assert runner._threads == [] and detector.classifier.deck is None and not deck_path(app).exists()


@needs_model
@pytest.mark.parametrize("body, says", [
    ({"suits": "SX"}, "suits"),
    ({"suits": "SS"}, "suits"),
    ({"order": ["AS", "ZZ"]}, "cannot be taught"),
    ({"order": ["AS", "JK"]}, "cannot be taught"),
    ({"order": ["AS", "AS"]}, "twice"),
    ({"order": []}, "nothing to teach"),
    ({"order": {"AS": 1}}, "list of card ids"),
    ([1, 2], "send"),
])
def test_a_bad_request_to_teach_says_what_is_wrong_and_changes_nothing(table, body, says):
    app, runner, teacher = table
    c = app.test_client()
    pipe = runner.pipe
    r = post(c, "/teach/api/start", body)
    assert r.status_code == 400 and says in r.json["error"], r.json
    assert teacher.state()["status"] == "idle" and runner.pipe is pipe  # the camera was not stopped


@needs_model
def test_a_video_file_played_as_the_camera_is_not_taught_from(tmp_path, video, detector):
    """It would start again from its beginning afterwards, and its plays be recorded twice."""
    app = make_app(tmp_path)
    runner = attach_camera(app, detector, str(video))
    try:
        pipe = runner.pipe
        r = post(app.test_client(), "/teach/api/start", {"order": CARDS})
        assert r.status_code == 409 and "video file" in r.json["error"] and "learn-deck" in r.json["error"]
        assert runner.pipe is pipe and app.extensions["masta.teacher"].state()["status"] == "idle"
    finally:
        runner.stop()


def test_without_a_camera_the_page_says_how_to_get_one(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    page = c.get("/teach/")
    assert page.status_code == 200 and b"No camera is watching" in page.data
    r = post(c, "/teach/api/start", {"suits": "SH"})
    assert r.status_code == 409 and "no camera" in r.json["error"]
    assert c.get("/teach/api/state").status_code == 409
    assert b"/teach/" in c.get("/setup/").data  # the set-up page leads there


def test_a_saved_deck_that_cannot_be_read_is_said_and_not_used(tmp_path):
    app = make_app(tmp_path)
    assert saved_deck(app) == (None, None)  # nothing taught: nothing to say
    app.extensions["masta.store"].set_setting(SETTING, {"cards": ["AS"], "of": 26, "t": 0, "file": "deck.npz"})
    deck_path(app).write_bytes(b"not a deck")
    memory, problem = saved_deck(app)
    assert memory is None and "cannot be read" in problem and "teach it again on /teach/" in problem


@needs_model
def test_a_saved_deck_taught_with_another_classifier_is_said_and_the_camera_reads_without_it(tmp_path):
    """The models changed since the deck was taught on /teach/: its features are another
    network's. The server says so and watches with its model alone, rather than not at all."""
    import numpy as np

    from vision.deck_memory import DeckMemory
    from web.commands import _camera

    app = make_app(tmp_path)
    old = DeckMemory(np.array(["AS", "QS"]), np.eye(2, 4, dtype=np.float32), "our deck", "0123456789abcdef")
    old.save(deck_path(app))
    app.extensions["masta.store"].set_setting(SETTING, {"cards": ["AS", "QS"], "of": 26, "t": 0, "file": "deck.npz"})
    memory, problem = saved_deck(app)
    assert problem is None and memory.classifier == "0123456789abcdef"
    video = plain_video(tmp_path / "table.avi")
    said = _camera(app, str(video), memory)
    runner = app.extensions["masta.camera"]
    try:
        assert "taught with another card classifier" in said[0] and "teach it again on /teach/" in said[0]
        assert said[-1].startswith(f"watching {video}") and "taught deck" not in said[-1]
        assert runner.detector.classifier.deck is None
    finally:
        runner.stop()


@needs_model
@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent: install Debian's chromium")
def test_the_page_names_the_card_to_show_and_ticks_each_one_learnt(tmp_path, first_spades, detector, browser):
    """On a phone: Start, the card to show, each card ticked as it is learnt, what was never
    seen, the deck in use, and forgetting it."""
    from playwright.sync_api import expect

    from web.app import create_app
    from web.config import Config
    from web.server import BackgroundServer

    detector.classifier.deck = None
    app = create_app(Config(data_dir=tmp_path, token=TOKEN, teach_tune=TUNE, tuner=tune))
    runner = attach_camera(app, detector, str(first_spades), pace=True, live=True)
    try:
        with BackgroundServer(app, threads=16) as srv:
            ctx = browser.new_context(viewport={"width": 390, "height": 844})
            ctx.set_default_timeout(30_000)
            page = ctx.new_page()
            page.goto(f"{srv.url}/auth?token={TOKEN}&name=Dee&next=/teach/")
            expect(page.locator("#deck")).to_contain_text("None")
            page.get_by_role("button", name="Start").click()
            expect(page.locator("#next-title")).to_have_text("Show this card")
            expect(page.locator("#next .card")).to_have_attribute("data-card", "AS")
            expect(page.locator("#order .teach-card")).to_have_count(26)
            # the video shows the first three: each is ticked as it is learnt, live
            for c in SPADES:
                expect(page.locator(f'#order .teach-card[data-card="{c}"]')).to_have_class(LEARNT, timeout=30_000)
            expect(page.locator("#message")).to_contain_text("3 of 26 cards learnt")
            page.get_by_role("button", name="Done").click()  # the rest of the deck is not in the video
            expect(page.locator("#message")).to_contain_text("now reads with this deck", timeout=30_000)
            expect(page.locator("#start")).to_be_visible()
            expect(page.locator("#problems")).to_contain_text("never seen")
            expect(page.locator("#deck")).to_contain_text("Taught here: 3 of 26 cards")
            expect(page.locator("#view")).to_be_visible()  # the camera's picture
            page.on("dialog", lambda d: d.accept())
            page.get_by_role("button", name="Forget the taught deck").click()
            expect(page.locator("#deck")).to_contain_text("None: the camera reads with its model alone")
            assert detector.classifier.deck is None
            ctx.close()
    finally:
        app.extensions["masta.teacher"].wait(60)
        runner.stop()


def _corrected_game(app, runner=None):
    """A game set up, the camera stopped (the plays are then the test's own camera plays), and a
    person's correction of a play: (client, fix)."""
    if runner is not None:
        runner.stop()
    c = app.test_client()
    setup_game(c)
    return c, lambda seq, cards: post(c, "/rulings/api/corrections", {"type": "correct", "event": seq, "cards": cards})


def _camera_play(app, cards):
    return app.extensions["masta.table"].submit({"type": "cards_played", "cards": cards}, source="camera")["event"]["seq"]


def test_the_ranks_a_person_corrected_are_counted_by_misread(tmp_path):
    app = make_app(tmp_path)
    c, fix = _corrected_game(app)
    assert fix(_camera_play(app, ["6S"]), ["QS"]).status_code == 201
    assert fix(_camera_play(app, ["6H", "6C"]), ["QH", "QC"]).status_code == 201
    assert fix(_camera_play(app, ["7D"]), ["JD"]).status_code == 201
    assert fix(_camera_play(app, ["8D"]), ["8H"]).status_code == 201         # a suit: no misread rank
    assert fix(_camera_play(app, ["9D"]), ["9D", "9C"]).status_code == 201   # a card more: none either
    seq = post(c, "/manual/api/events", {"type": "cards_played", "cards": ["2C"]}).json["event"]["seq"]
    assert fix(seq, ["3C"]).status_code == 201                                # typed in by a person: not the camera's
    camera_fix = {"type": "correct", "event": _camera_play(app, ["5S"]), "cards": ["KS"]}
    app.extensions["masta.table"].submit(camera_fix, source="camera")        # the camera's own second look
    assert app.extensions["masta.table"].misreads() == [{"read": "6", "was": "Q", "times": 2},
                                                        {"read": "7", "was": "J", "times": 1}]
    assert c.get("/rulings/data.json").json["teach_hint"] is None  # no camera here to teach
    assert c.get("/teach/").status_code == 200


@needs_model
def test_the_rulings_page_suggests_teaching_after_the_same_misread_twice(table, detector):
    from vision.deck_memory import DeckMemory

    app, runner, teacher = table
    c, fix = _corrected_game(app, runner)
    fix(_camera_play(app, ["6S"]), ["QS"])
    assert c.get("/rulings/data.json").json["teach_hint"] is None  # once may be chance
    fix(_camera_play(app, ["6H"]), ["QH"])
    hint = c.get("/rulings/data.json").json["teach_hint"]
    assert "Q as 6 2 times" in hint and "Teach it your deck" in hint
    assert b'id="teach-hint"' in c.get("/rulings/", headers=OP).data  # the operator's page
    assert c.get("/teach/api/state").json["misreads"] == [{"read": "6", "was": "Q", "times": 2}]
    detector.classifier.deck = DeckMemory.empty("ours")  # a deck is read with already: nothing to suggest
    try:
        assert c.get("/rulings/data.json").json["teach_hint"] is None
    finally:
        detector.classifier.deck = None


@needs_model
def test_three_different_misreads_also_suggest_teaching(table):
    app, runner, teacher = table
    c, fix = _corrected_game(app, runner)
    fix(_camera_play(app, ["6S"]), ["QS"])
    fix(_camera_play(app, ["7D"]), ["JD"])
    assert c.get("/rulings/data.json").json["teach_hint"] is None
    fix(_camera_play(app, ["3C"]), ["10C"])
    assert c.get("/rulings/data.json").json["teach_hint"].startswith("The camera read Q as 6, J as 7, 10 as 3 this")


@needs_model
@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent: install Debian's chromium")
def test_the_rulings_page_leads_to_teaching_after_the_same_misread_twice(tmp_path, video, detector, browser):
    from playwright.sync_api import expect

    from web.app import create_app
    from web.config import Config
    from web.server import BackgroundServer

    detector.classifier.deck = None
    app = create_app(Config(data_dir=tmp_path, token=TOKEN, teach_tune=TUNE, tuner=tune))
    runner = attach_camera(app, detector, str(video), live=True)
    runner.stop()  # the plays below are the camera's: no others from the video
    table = app.extensions["masta.table"]
    table.submit({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"}, source="operator")
    for read, was in ((["6S"], ["QS"]), (["6H"], ["QH"])):
        seq = _camera_play(app, read)
        table.submit({"type": "correct", "event": seq, "cards": was}, source="operator")
    with BackgroundServer(app, threads=16) as srv:
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        page.goto(f"{srv.url}/auth?token={TOKEN}&name=Dee&next=/rulings/")
        hint = page.locator("#teach-hint")
        expect(hint).to_be_visible()
        expect(hint).to_contain_text("The camera read Q as 6 2 times this evening")
        hint.get_by_role("link", name="Teach the deck").click()
        expect(page.locator("#misreads")).to_have_text("This evening a person corrected the camera's Q read as 6 (2 times).")
        ctx.close()
