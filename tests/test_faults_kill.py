"""The server SIGKILLed at random moments during a refereed game, 50 times in a row.

A real `masta serve` (waitress, real SQLite file) is fed a game's events one POST at a
time, as the camera and the operator would; at a random moment it is SIGKILLed (mid-request,
mid-commit, mid-start-up) and started again. After every restart: every event the server
acknowledged (201) is in the stored log, no event is there twice, nothing beyond the fed
ones appears, and the table the restarted server shows is the one an uninterrupted run shows
after the same events. At the end, every ruling equals the uninterrupted run's.
"""
from __future__ import annotations

import http.client
import random
import threading
import time

from helpers_server import Serve, game_requests

from web.app import create_app
from web.config import Config

KILLS = 50
#: Most posts one server life may take before its kill. 50 lives x 9 < the feed's length, so
#: every kill lands before the game's end however fast the machine answers.
POSTS_PER_LIFE = 9


def _strip(entry: dict) -> dict:
    """An entry of /rulings/data.json without what differs between runs (clock, who)."""
    ev = {k: v for k, v in entry["event"].items() if k not in ("t",)}
    return {"event": ev, "outputs": entry["outputs"]}


def _uninterrupted(tmp_path, feed):
    """The same feed through an app that is never killed: the table after each event."""
    app = create_app(Config(data_dir=tmp_path / "ref", token="ref", testing=True))
    c = app.test_client()
    tables = [c.get("/live/state.json").json["table"]]
    for route, body in feed:
        r = c.post(route, json=body, headers={"X-Masta-Token": "ref"})
        assert r.status_code == 201, r.json
        tables.append(c.get("/live/state.json").json["table"])
    entries = c.get("/rulings/data.json").json["entries"]
    return tables, entries


class Feeder(threading.Thread):
    """Posts the feed from `start` until the server dies (or `budget` posts are made);
    remembers what was acknowledged."""

    def __init__(self, srv: Serve, feed, start: int, budget: int | None = None):
        super().__init__(daemon=True)
        self.srv, self.feed, self.start_at = srv, feed, start
        self.stop_at = len(feed) if budget is None else min(len(feed), start + budget)
        self.acked: list[int] = []
        self.repeats: list[int] = []  # posts the server had already recorded (same meta.rid)
        self.refused: list[tuple[int, int, bytes]] = []
        self.inflight: int | None = None  # the post the kill cut off (committed or not: unknown)

    def run(self) -> None:
        for i in range(self.start_at, self.stop_at):
            route, body = self.feed[i]
            try:
                r = self.srv.op("POST", route, body, timeout=10)
            except (OSError, http.client.HTTPException):
                self.inflight = i
                return  # killed mid-request: this one may or may not be committed
            if r.status != 201:
                self.refused.append((i, r.status, r.body[:200]))
                return
            if r.json().get("repeat"):
                assert r.json()["event"]["meta"]["i"] == i
                self.repeats.append(i)
            self.acked.append(i)


def test_fifty_sigkills_lose_nothing_and_resume_the_same_game(tmp_path):
    feed = game_requests((0, 1))
    tables, ref_entries = _uninterrupted(tmp_path, feed)
    rng = random.Random(7)
    srv = Serve(tmp_path / "served")
    acked: set[int] = set()
    kills_mid_feed = 0
    cut: list[int] = []  # posts cut off by a kill
    cut_committed: set[int] = set()
    repeats: list[int] = []
    feeder = None
    try:
        for k in range(KILLS + 1):
            srv.start()
            log = srv.log()
            tags = [e["meta"]["i"] for e in log]
            # none twice, none skipped, nothing invented: the log is exactly feed[0:n]
            assert tags == list(range(len(log))), f"after kill {k}: log tags {tags[-10:]}"
            assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
            # every acknowledged event survived the kill
            assert not acked or max(acked) < len(log), f"after kill {k}: acked {max(acked)}, log has {len(log)}"
            for e, (route, body) in zip(log, feed):
                assert e["type"] == body.get("type", "setup") and e.get("cards") == body.get("cards")
            # the restarted server shows the table the uninterrupted run shows
            state = srv.get_json("/live/state.json")
            assert state["table"] == tables[len(log)], f"after kill {k} at {len(log)} events"
            assert state["seq"] == len(log)
            if k and feeder.inflight is not None:
                cut.append(feeder.inflight)
                if feeder.inflight < len(log):  # committed, though its answer was lost
                    cut_committed.add(feeder.inflight)
            if k == KILLS:
                break
            # the post a kill cut off is sent again blindly, as a phone does: recorded once
            feeder = Feeder(srv, feed, len(log) if k == 0 or feeder.inflight is None else feeder.inflight,
                            budget=rng.randint(1, POSTS_PER_LIFE))
            # a random moment: sometimes during start-up's first request, mostly mid-feed
            feeder.start()
            time.sleep(rng.choice([0.0, rng.uniform(0.0, 0.15), rng.uniform(0.0, 0.3)]))
            srv.kill()
            feeder.join(15)
            assert not feeder.refused, feeder.refused
            acked.update(feeder.acked)
            repeats += feeder.repeats
            kills_mid_feed += len(log) < len(feed)
        assert kills_mid_feed == KILLS  # every kill hit the game in progress
        print(f"\n{KILLS} SIGKILLs: {len(log)} of {len(feed)} events fed by then, {len(acked)} acknowledged, "
              f"{len(cut)} posts cut off mid-request ({len(cut_committed)} of them had been committed; "
              f"resent blindly, {len(set(repeats))} were answered as repeats); none lost, none twice")
        assert len(feed) > KILLS * POSTS_PER_LIFE and len(log) > 60
        # finish the game without kills: the rulings equal the uninterrupted run's, event by event
        feeder = Feeder(srv, feed, len(log) if feeder.inflight is None else feeder.inflight)
        feeder.run()
        assert not feeder.refused and len(srv.log()) == len(feed)
        # every cut-off post that had been committed came back as a repeat, not as a second event
        assert cut_committed <= set(repeats + feeder.repeats), (cut_committed, repeats)
        entries = srv.get_json("/rulings/data.json")["entries"]
        assert [_strip(e) for e in entries] == [_strip(e) for e in ref_entries]
    finally:
        srv.kill()


def test_a_request_sent_again_is_recorded_once(tmp_path):
    """The request id (`meta.rid`) that makes a blind resend safe, on its own."""
    from test_web import make_app, n_events, post, setup_game

    app = make_app(tmp_path)
    c = app.test_client()
    setup_game(c)
    body = {"type": "cards_played", "cards": ["5H"], "meta": {"rid": "phone-1"}}
    first = post(c, "/manual/api/events", body)
    again = post(c, "/manual/api/events", body)
    assert first.status_code == again.status_code == 201
    assert again.json["repeat"] and again.json["event"] == first.json["event"]
    assert again.json["outputs"] == first.json["outputs"] and n_events(app) == 2
    other = post(c, "/rulings/api/corrections", {"type": "note", "text": "x", "meta": {"rid": "phone-1"}})
    assert other.status_code == 409 and "already used" in other.json["error"]
    for rid in (7, "", "x" * 81, ["a"]):
        r = post(c, "/manual/api/events", {"type": "cards_played", "cards": ["6H"], "meta": {"rid": rid}})
        assert r.status_code == 400 and "rid" in r.json["error"]
    assert n_events(app) == 2
    restarted = make_app(tmp_path)  # the id is in the stored event: it holds across a restart
    r = post(restarted.test_client(), "/manual/api/events", body)
    assert r.json["repeat"] and n_events(restarted) == 2
