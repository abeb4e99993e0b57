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
    """Posts the feed from `start` until the server dies; remembers what was acknowledged."""

    def __init__(self, srv: Serve, feed, start: int):
        super().__init__(daemon=True)
        self.srv, self.feed, self.start_at = srv, feed, start
        self.acked: list[int] = []
        self.refused: list[tuple[int, int, bytes]] = []
        self.inflight: int | None = None  # the post the kill cut off (committed or not: unknown)

    def run(self) -> None:
        for i in range(self.start_at, len(self.feed)):
            route, body = self.feed[i]
            try:
                r = self.srv.op("POST", route, body, timeout=10)
            except (OSError, http.client.HTTPException):
                self.inflight = i
                return  # killed mid-request: this one may or may not be committed
            if r.status != 201:
                self.refused.append((i, r.status, r.body[:200]))
                return
            self.acked.append(i)


def test_fifty_sigkills_lose_nothing_and_resume_the_same_game(tmp_path):
    feed = game_requests((0, 1))
    tables, ref_entries = _uninterrupted(tmp_path, feed)
    rng = random.Random(7)
    srv = Serve(tmp_path / "served")
    acked: set[int] = set()
    kills_mid_feed = 0
    cut: list[int] = []  # posts cut off by a kill
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
                cut.append(feeder.inflight < len(log))
            if k == KILLS:
                break
            feeder = Feeder(srv, feed, len(log))
            # a random moment: sometimes during start-up's first request, mostly mid-feed
            feeder.start()
            time.sleep(rng.choice([0.0, rng.uniform(0.0, 0.15), rng.uniform(0.0, 0.3)]))
            srv.kill()
            feeder.join(15)
            assert not feeder.refused, feeder.refused
            acked.update(feeder.acked)
            kills_mid_feed += len(log) < len(feed)
        assert kills_mid_feed >= KILLS * 0.8  # the kills really hit a game in progress
        print(f"\n{KILLS} SIGKILLs: {len(log)} of {len(feed)} events fed by then, {len(acked)} acknowledged, "
              f"{len(cut)} posts cut off mid-request ({sum(cut)} of them had been committed, "
              f"{len(cut) - sum(cut)} not); none lost, none twice")
        assert len(log) > 60
        # finish the game without kills: the rulings equal the uninterrupted run's, event by event
        feeder = Feeder(srv, feed, len(log))
        feeder.run()
        assert not feeder.refused and len(srv.log()) == len(feed)
        entries = srv.get_json("/rulings/data.json")["entries"]
        assert [_strip(e) for e in entries] == [_strip(e) for e in ref_entries]
    finally:
        srv.kill()
