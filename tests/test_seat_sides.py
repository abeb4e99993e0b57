"""Sides without drawing: each player's side of the table proposed from the set-up's clockwise
order and the directions the first plays' arms came in from (`vision.seat_sides`), shown on
the set-up page to accept or move, used as they come where nobody draws them."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from datasets.game_video import GameRenderer, OracleDetector, VideoSpec, read_frames_truth, read_truth, seat_geometry
from helpers_video import SeesNothing
from test_browser_web import CHROMIUM, TOKEN, browser  # noqa: F401 (a fixture)
from test_seat_zones import drag_on_zone, served_setup
from test_web import OP, make_app, post
from referee.table import TableReferee
from vision.seat_sides import (ARM_OFF, _border, arm_agrees, layout_angles, nearest_side, plain_step, propose_sides,
                               side_angles, side_zones, zone_angles)
from vision.source import open_source
from web.camera import attach_camera, wait_for

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]


def _diff(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _inside(point, zone) -> bool:
    return zone[0] <= point[0] <= zone[2] and zone[1] <= point[1] <= zone[3]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), offset=st.floats(0, 360), way=st.sampled_from([1, -1]),
       noise=st.lists(st.floats(-12, 12), min_size=12, max_size=12), first=st.integers(0, 5))
def test_arms_from_evenly_spread_seats_give_each_player_their_own_side(n, offset, way, noise, first):
    """Whatever the table's rotation (and the camera's mirror: the way the plays go round), with
    only the first play named, each player's side comes out where their arms came from, and no
    two boxes overlap."""
    players = NAMES[:n]
    step = 360.0 / n
    truth = {p: (offset + way * step * i) % 360.0 for i, p in enumerate(players)}
    turn = [players[(first + k) % n] for k in range(12)]
    arms = [(truth[p] + e, p if k == 0 else None) for k, (p, e) in enumerate(zip(turn, noise))]
    sides = side_angles(players, arms)
    assert sides is not None and set(sides) == set(players)
    for p in players:
        assert _diff(sides[p], truth[p]) < 15, (p, sides, truth)
    zones = side_zones(sides, (0.5, 0.5), 16 / 9)
    for p, z in zones.items():
        assert 0 <= z[0] < z[2] <= 1 and 0 <= z[1] < z[3] <= 1
        assert _inside(_border(0.5, 0.5, sides[p]), z)  # where that arm crosses the frame's edge
    for p in players:
        for q in players:
            if p < q:
                a, b = zones[p], zones[q]
                assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1])


def test_one_named_play_names_every_side_by_the_clockwise_order():
    """Only the first play's player is known (the turn is lost after it): the others' sides
    follow from the seating order, each at the arms that came nearest to it."""
    players = ["Ann", "Bob", "Cy", "Dee"]  # Ann at the bottom (90), then clockwise: left, top, right
    arms = [(92.0, "Ann"), (178.0, None), (268.0, None), (3.0, None), (85.0, None), (185.0, None)]
    sides = side_angles(players, arms)
    assert _diff(sides["Ann"], 88.5) < 1 and _diff(sides["Bob"], 181.5) < 1
    assert _diff(sides["Cy"], 268) < 1 and _diff(sides["Dee"], 3) < 1
    zones = propose_sides(players, arms)
    assert zones["Ann"][3] == 1.0 and zones["Cy"][1] == 0.0 and zones["Bob"][0] == 0.0 and zones["Dee"][2] == 1.0


def test_a_wrongly_named_play_counts_for_the_side_it_came_from():
    players = ["Ann", "Bob", "Cy"]
    arms = [(90.0, "Ann"), (210.0, "Bob"), (330.0, "Cy"), (92.0, "Ann"), (212.0, "Cy"), (328.0, "Cy")]
    sides = side_angles(players, arms)  # a Turbo from Bob's side ruled as Cy's turn
    assert _diff(sides["Bob"], 211) < 2 and _diff(sides["Cy"], 329) < 2


def test_plays_after_a_pick_up_do_not_turn_the_table_round():
    """Three players, Ann at the bottom (90), Bob left (210), Cy right (330), only the first
    play named: whoever picks the pot up loses their turn, so the play after a pick-up steps
    two seats on, which at three players looks like one step the other way. Counted, those
    steps would turn the table round and swap Ann's and Bob's sides."""
    players = ["Ann", "Bob", "Cy"]
    at = {"Ann": 90.0, "Bob": 210.0, "Cy": 330.0}
    # Cy, Ann, Bob; Cy picks up: Ann; Bob picks up: Cy, Ann; Ann's pot burns... as dev game 205 went
    order = [("Cy", True), ("Ann", True), ("Bob", True), ("Ann", False), ("Cy", False), ("Bob", False),
             ("Cy", True), ("Bob", False), ("Ann", False), ("Cy", True), ("Bob", False), ("Ann", False)]
    arms = [(at[p] + 2.0 * (k % 3 - 1), "Cy" if k == 0 else None, follows)
            for k, (p, follows) in enumerate(order)]
    sides = side_angles(players, arms)
    assert all(_diff(sides[p], at[p]) < 5 for p in players), sides
    turned = side_angles(players, [(a, p) for a, p, _ in arms])  # every step counted
    assert _diff(turned["Ann"], at["Bob"]) < 5 and _diff(turned["Bob"], at["Ann"]) < 5


def test_what_people_said_about_the_first_plays_outweighs_a_misread_first_arm():
    """Two players face to face, Ann at the bottom (90), Bob at the top (270). The first play
    is Bob's but its arm was read from the bottom; a person says it was Bob's. Alone, that
    answer would put Bob at the bottom; two more answers about plays whose arms came from the
    top and the bottom settle the sides where the arms really were."""
    players = ["Ann", "Bob"]
    arms = [(92.0, "Bob", True, True), (88.0, "Ann", True), (270.0, "Bob", True), (91.0, "Ann", True)]
    first_only = side_angles(players, arms)
    assert _diff(first_only["Bob"], 90) < 5  # the misread arm, taken at the person's word
    arms += [(268.0, "Bob", True, True), (89.0, "Ann", True, True)]
    sides = side_angles(players, arms)
    assert _diff(sides["Ann"], 90) < 5 and _diff(sides["Bob"], 270) < 5
    # nothing said by anyone: the first named play places them, as before
    assert side_angles(players, [a[:3] for a in arms]) == side_angles(players, [a[:2] for a in arms])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), offset=st.floats(0, 360), off=st.floats(-0.5, 0.5))
def test_an_arm_names_a_side_only_from_that_sides_direction(n, offset, off):
    """Sides spread evenly round the pot (their boxes as proposed): an arm close to a side's
    direction fits it; one well on the way to the next side does not, whatever moved in its box."""
    zones = side_zones({NAMES[i]: (offset + 360.0 * i / n) % 360.0 for i in range(n)})
    arm = (zone_angles(zones, (0.5, 0.5))["Ann"] + off * 360.0 / n) % 360.0
    if abs(off) <= ARM_OFF - 0.05:
        assert arm_agrees("Ann", arm, zones, (0.5, 0.5))
    elif abs(off) >= ARM_OFF + 0.05:
        assert not arm_agrees("Ann", arm, zones, (0.5, 0.5))
    assert arm_agrees("Ann", None, zones, (0.5, 0.5))  # no arm seen: nothing contradicts the box


def test_no_side_is_proposed_before_a_play_is_named_and_bad_players_are_refused():
    assert side_angles(["Ann", "Bob"], []) is None
    assert side_angles(["Ann", "Bob"], [(90.0, None), (270.0, None)]) is None  # nobody named yet
    assert propose_sides(["Ann", "Bob"], [(90.0, "Zed")]) is None  # not a player of this game
    with pytest.raises(ValueError, match="two players or more, each once"):
        side_angles(["Ann"], [(90.0, "Ann")])
    with pytest.raises(ValueError, match="each once"):
        side_angles(["Ann", "Ann"], [(90.0, "Ann")])


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """A short rendered game of three players (a real video file and its truth)."""
    out = tmp_path_factory.mktemp("sides") / "game.mp4"
    return GameRenderer(VideoSpec(seed=8, players=["Ann", "Bob", "Cy"], faces="drawn-05", max_actions=12)).render(out)


def _oracle_source(clip):
    """The clip as the camera runner opens it, with the ORACLE detector told each frame's index
    (the renderer's own boxes: this tests the sides, not the model)."""
    oracle = OracleDetector(read_frames_truth(clip["frames"]))
    src = open_source(str(clip["video"]))
    frames = src.frames

    def told(stop=None):
        for f in frames(stop):
            oracle.see(f)
            yield f
    src.frames = told
    return oracle, src


def test_the_app_proposes_each_players_side_from_a_real_video_and_uses_it_as_it_comes(tmp_path, clip):
    truth = read_truth(clip["truth"])
    setup = truth.events[0]
    app = make_app(tmp_path)
    c = app.test_client()
    assert post(c, "/setup/api/game", {"players": setup["players"], "dealer": setup["dealer"],
                                       "preset": setup.get("preset", "fr")}).status_code == 201
    assert c.get("/setup/api/seat-proposal").json == {}  # no play yet: nothing proposed
    oracle, src = _oracle_source(clip)
    runner = attach_camera(app, oracle, None, accept_sides=True)
    runner.start(src)
    try:
        assert wait_for(lambda: runner._threads and not runner._threads[0].is_alive(), 120)
    finally:
        runner.stop()
    store = app.extensions["masta.store"]
    proposal = c.get("/setup/api/seat-proposal").json
    assert set(proposal["seats"]) == {"Ann", "Bob", "Cy"} and proposal["plays"] >= 3
    assert store.get_setting("seat_zones") == proposal["seats"]  # accepted as it came
    W, H = truth.meta["size"]
    for name, seat in zip(setup["players"], seat_geometry(W, H, truth.meta["card_height"], 3)):
        # the player's cards lie in the side proposed for them
        assert _inside((seat["pos"][0] / W, seat["pos"][1] / H), proposal["seats"][name]), (name, proposal)
    # once the sides are in use, the plays say whose side they came from, and mostly rightly
    log = app.extensions["masta.table"].log
    plays = [e for e in truth.events if e["type"] == "cards_played"]
    hinted = [(e.get("cards"), (e.get("meta") or {}).get("seat")) for e in log
              if e.get("source") == "camera" and e["type"] == "cards_played" and (e.get("meta") or {}).get("seat")]
    assert hinted
    who = {tuple(sorted(p["cards"])): p["player"] for p in plays}
    right = sum(who.get(tuple(sorted(cards))) == seat for cards, seat in hinted)
    assert right >= 0.8 * len(hinted), hinted
    # the set-up page shows them, to accept or move
    page = c.get("/setup/", headers=OP).data.decode()
    assert "data-proposal" in page and "Accept the proposed sides" in page and "Cy" in page


def test_the_proposal_waits_for_the_game_it_was_made_for(tmp_path):
    """A proposal for other players (the game before) is not offered."""
    app = make_app(tmp_path)
    c = app.test_client()
    post(c, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    app.extensions["masta.store"].set_setting("seat_proposal", {"seats": {"Ann": [0, 0.7, 1, 1], "Cy": [0, 0, 1, 0.3]},
                                                                 "plays": 4})
    assert c.get("/setup/api/seat-proposal").json == {}
    app.extensions["masta.store"].set_setting("seat_proposal", {"seats": {"Ann": [0, 0.7, 1, 1], "Bob": [0, 0, 1, 0.3]},
                                                                 "plays": 4})
    assert c.get("/setup/api/seat-proposal").json["plays"] == 4
    # accepting is sending them as the sides: the same checks as drawn ones
    r = post(c, "/setup/api/seat-zones", {"seats": c.get("/setup/api/seat-proposal").json["seats"]})
    assert r.status_code == 201 and set(r.json["seats"]) == {"Ann", "Bob"}


def test_arm_directions_of_the_rendered_plays_point_at_their_players(clip):
    """The watcher's `arm` (degrees around the pot) of each play is the side of who played."""
    from vision.pipeline import Pipeline
    from vision.pot_watcher import PotWatcher, WatcherConfig

    truth = read_truth(clip["truth"])
    oracle = OracleDetector(read_frames_truth(clip["frames"]))
    seen = []
    Pipeline(open_source(str(clip["video"])), oracle, on_event=seen.append, on_frame=oracle.see,
             watcher=PotWatcher(WatcherConfig())).run()
    W, H = truth.meta["size"]
    seat_at = {p: math.degrees(math.atan2(g["pos"][1] / H - 0.5, g["pos"][0] / W - 0.5)) % 360
               for p, g in zip(truth.events[0]["players"], seat_geometry(W, H, truth.meta["card_height"], 3))}
    plays = [e for e in truth.events if e["type"] == "cards_played"]
    close = total = 0
    for p in seen:
        if p.watch.type != "cards_played":
            continue
        near = [e for e in plays if e["t_rest"] - 0.05 <= p.t <= e["t_rest"] + 3]
        assert p.watch.arm is not None and p.watch.to_log_event()["meta"]["arm"] == round(p.watch.arm, 1)
        if near:
            total += 1
            close += _diff(p.watch.arm, seat_at[near[-1]["player"]]) < 30
    assert total >= 4 and close >= 0.8 * total


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent: install Debian's chromium")
def test_the_proposed_sides_are_shown_on_the_snapshot_accepted_with_one_tap_and_one_moved(tmp_path, browser):
    from playwright.sync_api import expect

    proposed = {"Ann": [0.3, 0.7, 0.7, 1.0], "Bob": [0.3, 0.0, 0.7, 0.3]}
    # the proposal as the camera saves it
    with served_setup(tmp_path, seat_proposal={"seats": proposed, "plays": 5}) as (app, runner, srv):
        store = app.extensions["masta.store"]
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{srv.url}/auth?token={TOKEN}&name=Dee&next=/setup/")
        expect(page.locator("#proposal-status")).to_have_text("Sides proposed from the arms of the first 5 play(s).")
        expect(page.locator("#zone-save")).to_be_enabled(timeout=20000)  # the snapshot came
        assert not errors
        page.get_by_role("button", name="Accept the proposed sides").click()
        assert wait_for(lambda: store.get_setting("seat_zones") == proposed, 5)
        assert runner.seats == {k: tuple(v) for k, v in proposed.items()}  # the camera uses them now
        # moved: Bob's side drawn again, Ann's kept
        page.select_option("#zone-mode", "Bob")
        drag_on_zone(page, (0.0 + 2 / page.locator("#zone").bounding_box()["width"], 0.2), (0.25, 0.8))
        page.locator("#zone-save").click()
        assert wait_for(lambda: (store.get_setting("seat_zones") or {}).get("Bob", [1])[0] < 0.05, 5)
        assert store.get_setting("seat_zones")["Ann"] == proposed["Ann"]
        # the page again with sides saved: they come back drawn (JSON in a quoted attribute)
        page.reload()
        expect(page.locator("#seats-clear")).to_be_visible()
        expect(page.locator("#zone-save")).to_be_enabled(timeout=20000)
        assert not errors
        ctx.close()


def test_the_sides_follow_when_a_person_says_who_played_the_first_plays(tmp_path):
    """Two players sit face to face: whose side is whose comes from who played first, which
    the referee assumed (left of the dealer). A person's answer renames the first plays and the
    sides proposed (and in use) swap with them."""
    app = make_app(tmp_path)
    table = app.extensions["masta.table"]
    store = app.extensions["masta.store"]
    table.submit({"type": "setup", "players": ["Ann", "Bob"], "dealer": "Bob"}, source="operator")
    runner = attach_camera(app, SeesNothing(), None, accept_sides=True)

    def camera(card, arm):
        published = table.submit({"type": "cards_played", "cards": [card], "meta": {"arm": arm}}, source="camera")
        runner._note_arm(published)
        return published["event"]["seq"]

    first = camera("4C", 90.0)   # from the bottom of the frame: Ann's by the turn
    camera("5C", 270.0)
    assert store.get_setting("seat_zones")["Ann"][3] == 1.0  # Ann's side at the bottom
    table.submit({"type": "played_by", "event": first, "player": "Bob"}, source="operator")  # Bob started
    camera("6C", 90.0)
    zones = store.get_setting("seat_zones")
    assert zones["Bob"][3] == 1.0 and zones["Ann"][1] == 0.0  # swapped: Bob at the bottom, Ann at the top
    assert runner.seats["Bob"] == tuple(zones["Bob"])


def test_the_set_up_order_names_the_first_plays_side_until_the_arms_say_more(tmp_path):
    """No side drawn: the set-up's order laid round the pot (its first player at the bottom of
    the picture, the rest clockwise) names the first arm's side, so the camera tells who
    started where nobody said (the lowest 4 starts) and where the turn is wrong (a first play
    the camera missed); sides drawn by hand are used as drawn."""
    assert layout_angles(["Ann", "Bob", "Cy", "Dee"]) == {"Ann": 90.0, "Bob": 180.0, "Cy": 270.0, "Dee": 0.0}
    assert nearest_side(200.0, layout_angles(["Ann", "Bob", "Cy", "Dee"])) == "Bob"

    def table_of(name: str, preset: str, seats: dict | None = None):
        app = make_app(tmp_path / name)
        table = app.extensions["masta.table"]
        table.submit({"type": "setup", "players": ["Ann", "Bob"], "dealer": "Bob", "preset": preset},
                     source="operator")
        if seats:
            app.extensions["masta.store"].set_setting("seat_zones", seats)
        runner = attach_camera(app, SeesNothing(), None, accept_sides=True)

        def play(card: str, arm: float) -> dict:
            runner.referee({"type": "cards_played", "cards": [card], "meta": {"arm": arm}})
            seq = len(table.log)
            return next(o for o in table.outputs[seq] if o.get("kind") == "ruling")
        return app, play

    app, play = table_of("sydney", "sydney")
    first = play("4C", 265.0)  # from the top
    assert first["player"] == "Bob" and first["assumed"]["by"] == "camera"  # not Ann, left of the dealer
    zones = app.extensions["masta.store"].get_setting("seat_zones")
    assert zones["Ann"][3] == 1.0 and zones["Bob"][1] == 0.0  # Ann at the bottom, Bob at the top
    assert play("5C", 95.0)["player"] == "Ann"

    app, play = table_of("fr", "fr")  # Ann (left of the dealer) started; the camera missed it
    assert play("4C", 265.0)["player"] == "Bob"
    assert play("5C", 95.0)["player"] == "Ann"

    drawn = {"Ann": [0.0, 0.0, 1.0, 0.3], "Bob": [0.0, 0.7, 1.0, 1.0]}  # Ann at the top, as drawn
    app, play = table_of("drawn", "fr", drawn)
    assert play("4C", 265.0)["player"] == "Ann"
    assert app.extensions["masta.store"].get_setting("seat_zones")["Ann"][1] == 0.0


def test_what_people_said_turns_the_table_round_where_the_steps_read_it_the_wrong_way():
    """Three players, Ann at the bottom (90), Bob left (210), Cy right (330). The first plays
    stepped the other way round (a 10 played again, pick-ups nobody saw): counted, the steps
    mirror the table and only the first play's player sits right. Once people have said who
    played three of them, their word places every side, the way round included."""
    players = ["Ann", "Bob", "Cy"]
    at = {"Ann": 90.0, "Bob": 210.0, "Cy": 330.0}
    order = ["Bob", "Ann", "Cy", "Bob", "Ann", "Cy", "Bob", "Ann"]
    arms = [(at[p] + 2.0 * (k % 3 - 1), "Bob" if k == 0 else None, True) for k, p in enumerate(order)]
    mirrored = side_angles(players, arms)
    assert _diff(mirrored["Bob"], at["Bob"]) < 5 and _diff(mirrored["Ann"], at["Cy"]) < 5
    said = [(a, p, f, True) if k in (1, 2, 4) else (a, p, f) for k, (a, p, f) in enumerate(
        (a, order[k] if k in (1, 2, 4) else p, f) for k, (a, p, f) in enumerate(arms))]
    sides = side_angles(players, said)
    assert all(_diff(sides[p], at[p]) < 5 for p in players), sides
    # one answer fits either way round: it places its player, the steps keep the way round
    one = [(a, p, f, True) if k == 1 else (a, p, f) for k, (a, p, f) in enumerate(
        (a, order[k] if k == 1 else p, f) for k, (a, p, f) in enumerate(arms))]
    sides = side_angles(players, one)
    assert _diff(sides["Ann"], at["Ann"]) < 5 and _diff(sides["Bob"], at["Cy"]) < 5


def test_only_a_plain_play_in_turn_says_which_way_the_next_step_goes():
    """The steps between the first plays tell which way round the camera sees the table; a play
    that skips (an 8 in the French rules), burns and plays again, gives the pot away, or comes
    as a Turbo moves the turn otherwise than one step on, so the step after it says nothing."""
    ruled = {}
    for base, cards, by in (("4C", ["5D"], "Bob"), ("4C", ["8S"], "Bob"), ("4C", ["AS"], "Bob"),
                            ("4C", ["10H"], "Bob"), ("4C", ["4H"], "Cy"), ("KC", ["5C"], "Bob")):
        ref = TableReferee()
        ref.apply({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy", "preset": "fr"})
        ref.apply({"type": "cards_played", "cards": [base], "player": "Ann"})
        out = ref.apply({"type": "cards_played", "cards": cards, "player": by})
        ruled[cards[0]] = next(o for o in out if o["kind"] == "ruling")
    assert [c for c, r in ruled.items() if plain_step(r)] == ["5D"]
    assert ruled["4H"]["turbo"] and ruled["5C"]["verdict"] != "legal"
