"""The served app: server-sent events through waitress, and the `masta demo` / `masta serve` commands."""
from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from helpers_server import read_until

from web.app import create_app
from web.config import Config
from web.events_stream import Broadcaster
from web.server import BackgroundServer

ROOT = Path(__file__).resolve().parent.parent


def test_broadcaster_fans_out_and_drops_stuck_pages():
    b = Broadcaster(max_queue=2)
    q1, q2 = b.subscribe(), b.subscribe()
    assert b.publish("update", {"n": 1}) == 2
    assert json.loads(q1.get_nowait().split("data: ")[1]) == {"n": 1}
    b.publish("update", {"n": 2})
    b.publish("update", {"n": 3})  # q2 now holds 3 > 2: dropped
    assert b.clients == 1
    b.unsubscribe(q1)
    assert b.clients == 0


def _read_event(resp, name: str, timeout: float = 5.0) -> dict:
    end = time.time() + timeout
    current = None
    while time.time() < end:
        line = resp.fp.readline().decode()
        if line.startswith("event: "):
            current = line[7:].strip()
        elif line.startswith("data: ") and current == name:
            return json.loads(line[6:])
    raise AssertionError(f"no {name} event within {timeout}s")


def test_an_event_reaches_every_open_stream_after_it_is_committed(tmp_path):
    app = create_app(Config(data_dir=tmp_path, token="tok"))
    with BackgroundServer(app, threads=8) as srv:
        streams = []
        for _ in range(3):
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
            c.request("GET", "/stream")
            r = c.getresponse()
            assert r.status == 200 and r.getheader("Content-Type").startswith("text/event-stream")
            streams.append(r)
        deadline = time.time() + 5
        while app.extensions["masta.broadcaster"].clients < 3 and time.time() < deadline:
            time.sleep(0.01)
        req = urllib.request.Request(srv.url + "/setup/api/game", method="POST",
                                     data=json.dumps({"players": ["Ann", "Bob"]}).encode(),
                                     headers={"Content-Type": "application/json", "X-Masta-Token": "tok"})
        urllib.request.urlopen(req, timeout=10).read()
        for r in streams:
            msg = _read_event(r, "update")
            assert msg["event"]["type"] == "setup" and msg["view"]["players"] == ["Ann", "Bob"]
            # shown only after it was committed
            seq = msg["event"]["seq"]
            assert app.extensions["masta.store"].events(msg["view"]["evening"])[seq - 1]["type"] == "setup"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_masta_demo_serves_and_says_what_it_runs(tmp_path):
    port = _free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "masta", "demo", "--port", str(port), "--data-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env)
    try:
        lines: list[str] = []
        deadline = time.time() + 60
        read_until(proc, lambda line: "operator link" in line, lines, deadline)
        out = "".join(lines)
        assert f"http://127.0.0.1:{port}/auth?token=" in out, out
        read_until(proc, lambda line: line.startswith("masta: database"), lines, deadline)  # the rest
        line = proc.stdout.readline()
        out = "".join(lines) + line
        assert ("no demo video" in out) or ("no trained card detector" in out) or ("watching" in out), out
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/live/state.json", timeout=10) as r:
            state = json.loads(r.read())
        assert len(state["players"]) >= 2  # the demo table is set up
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/manual/", timeout=10) as r:
            assert r.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_masta_serve_refuses_a_bad_port_and_a_bad_db(tmp_path):
    r = subprocess.run([sys.executable, "-m", "masta", "serve", "--port", "70000", "--data-dir", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "--port" in r.stderr
    r = subprocess.run([sys.executable, "-m", "masta", "serve", "--db", "nonsense", "--data-dir", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "database URL" in r.stderr


def test_camera_events_go_through_the_same_path(tmp_path):
    """What the pot watcher decides is checked, ruled, committed and pushed like a tap."""
    from vision.pot_watcher import WatchEvent

    from web.camera import CameraRunner

    app = create_app(Config(data_dir=tmp_path, token="tok"))
    table = app.extensions["masta.table"]
    evidence = app.config["MASTA"].evidence_dir
    told = []  # what the demo's scripted operator would be told: the event and the video time
    runner = CameraRunner(table, app.extensions["masta.frames"], detector=None, evidence_dir=evidence,
                          after_event=lambda ev, video_t: told.append((ev["seq"], video_t)))
    runner.pipe = type("Pipe", (), {"frame_t": 12.5})()
    played = WatchEvent("cards_played", 1.0, 0.8, 30, cards=["QS"], conf=[0.41], low_conf=True,
                        evidence={"before": str(evidence / "evening-1" / "e1-before.jpg"),
                                  "after": str(evidence / "evening-1" / "e1-after.jpg")})
    assert runner.referee(played.to_log_event()) == []  # no game yet: reported, not recorded
    assert "no game" in runner.errors[-1] and table.log == []
    table.submit({"type": "setup", "players": ["Ann", "Bob"], "dealer": "Bob"}, source="operator")
    out = runner.referee(played.to_log_event())
    assert out[0]["kind"] == "ruling" and out[0]["verdict"] == "legal"
    ev = table.log[-1]
    assert told == [(ev["seq"], 12.5)]  # the refused event before it was not told
    assert ev["source"] == "camera" and ev["cards"] == ["QS"] and ev["conf"] == [0.41]
    assert ev["meta"]["low_conf"] is True and ev["evidence"]["after"] == "evening-1/e1-after.jpg"
    mismatch = WatchEvent("mismatch", 2.0, 1.9, 60, cards=["QS"], detail="a card was taken back")
    runner.referee(mismatch.to_log_event())
    assert table.log[-1]["type"] == "note" and "taken back" in table.log[-1]["text"]
    assert table.log[-1]["meta"]["cards"] == ["QS"]
    # the camera amends its play (a QH showed once the hand had gone): a correction of that play
    amended = WatchEvent("cards_amended", 3.0, 0.8, 90, cards=["QS", "QH"], detail="QH showed once the hand had gone")
    out = runner.referee(dict(amended.to_log_event(), event=ev["seq"]))
    fix = table.log[-1]
    assert fix["type"] == "correct" and fix["source"] == "camera" and fix["event"] == ev["seq"]
    assert fix["cards"] == ["QS", "QH"] and "showed" in fix["meta"]["detail"]
    assert [o["cards"] for o in out if o["kind"] == "ruling"] == [["QS", "QH"]]


def test_what_the_camera_sees_after_a_wrong_game_end_is_held_then_ruled_in_place(tmp_path):
    """An unread play (a mismatch) can end the game wrongly a few plays later. What the camera
    sees after that end (plays, the pot going) and the Aces' targets a person names are kept,
    the plays held unruled and said so; once a person names the unread play, the game is open
    again and every held event is ruled where it happened: the game as if the camera had read
    it all, with one correction (seed 2's stream, `fr`, 4 players, to event 440)."""
    from referee.camera_stream import stream_game
    from referee.table import TableReferee
    from vision.pot_watcher import WatchEvent
    from web.camera import CameraRunner

    app = create_app(Config(data_dir=tmp_path, token="tok"))
    table = app.extensions["masta.table"]
    runner = CameraRunner(table, app.extensions["masta.frames"], detector=None,
                          evidence_dir=app.config["MASTA"].evidence_dir)
    sg = stream_game("fr", 4, 2)
    events = [e for e in sg.events if e["seq"] <= 440]
    for e, (raw, source) in zip(events, sg.submitted()):
        if e["seq"] == 408:  # the camera could not read JC JS JD
            runner.referee(WatchEvent("mismatch", 1.0, 0.9, 1, cards=[], detail="unread").to_log_event())
        elif e["type"] == "cards_played":
            runner.referee(WatchEvent("cards_played", 1.0, 0.9, 1, cards=raw["cards"], conf=[0.9] * len(raw["cards"])).to_log_event())
        elif e["type"] == "pot_cleared":
            runner.referee(WatchEvent("pot_cleared", 1.0, 0.9, 1).to_log_event())
        else:
            table.submit(raw, source=source)
    assert len(table.log) == 440 and not runner.errors  # nothing refused, nothing lost
    assert table.view()["table"]["over"]  # wrongly, at event 411
    held = [o for o in table.outputs[412] if o.get("held")]
    assert held and "kept, not ruled" in held[0]["text"] and held[0]["cards"] == events[411]["cards"]
    c = app.test_client()
    r = c.post("/rulings/api/corrections", json={"type": "correct", "event": 408, "cards": events[407]["cards"]},
               headers={"X-Masta-Token": "tok"})
    assert r.status_code == 201, r.json
    right = TableReferee.replay(events)
    assert table.view()["table"]["players"] == right.view()["players"]
    assert table.view()["table"]["over"] == right.view()["over"]
    assert [o for o in table.outputs[412] if o.get("kind") == "ruling"][0]["cards"] == events[411]["cards"]


def test_after_the_end_a_person_may_fix_the_game_but_not_play_on(tmp_path):
    """A game that is over (rightly or not) takes a person's fix naming one of its events
    (who played a play), and refuses a person's new play, saying to set up the next game."""
    from referee.camera_stream import stream_game

    app = create_app(Config(data_dir=tmp_path, token="tok"))
    table = app.extensions["masta.table"]
    for raw, source in stream_game("fr", 4, 0).submitted():
        table.submit(raw, source=source)
    assert table.view()["table"]["over"]
    c, head = app.test_client(), {"X-Masta-Token": "tok"}
    n = len(table.log)
    refused = c.post("/manual/api/events", json={"type": "cards_played", "cards": ["5H"]}, headers=head)
    assert refused.status_code == 409 and "set up the next game" in refused.json["error"]
    assert len(table.log) == n
    last_play = max(e["seq"] for e in table.log if e["type"] == "cards_played")
    who = next(p["name"] for p in table.view()["table"]["players"])
    fixed = c.post("/rulings/api/corrections", json={"type": "played_by", "event": last_play, "player": who},
                   headers=head)
    assert fixed.status_code == 201, fixed.json
    assert len(table.log) == n + 1 and table.log[-1]["type"] == "played_by"
    assert table.view()["table"]["over"]  # that fix left the end where it was
    # a person may tidy the table (the referee takes it too: one rule, referee.events.taken_after_end)
    cleared = c.post("/manual/api/events", json={"type": "pot_cleared"}, headers=head)
    assert cleared.status_code == 201, cleared.json
    assert table.log[-1]["type"] == "pot_cleared" and table.log[-1]["source"] != "camera"
    # a played_by naming no event after the end is a new claim: refused, nothing stored
    unnamed = c.post("/manual/api/events", json={"type": "played_by", "player": who}, headers=head)
    assert unnamed.status_code == 409 and "set up the next game" in unnamed.json["error"]
    assert len(table.log) == n + 2


def test_camera_runner_reads_a_real_video_and_shows_frames(tmp_path):
    """A video file through OpenCV and vision.pipeline: frames reach the live page's hub."""
    from helpers_video import SeesNothing, plain_video
    from web.camera import attach_camera, wait_for

    video = plain_video(tmp_path / "table.avi")
    app = create_app(Config(data_dir=tmp_path / "data", token="tok"))
    runner = attach_camera(app, SeesNothing(), str(video), pace=True)
    try:
        assert wait_for(lambda: app.extensions["masta.frames"].latest() is not None, 10)
        jpeg = app.extensions["masta.frames"].latest()
        assert jpeg[:2] == b"\xff\xd8"
        r = app.test_client().get("/live/frame.jpg")
        assert r.status_code == 200 and r.mimetype == "image/jpeg"
        c = app.test_client()
        assert c.post("/setup/api/pot-zone", json={"zone": [0.1, 0.1, 0.9, 0.9]},
                      headers={"X-Masta-Token": "tok"}).status_code == 201
        assert runner.zone == (0.1, 0.1, 0.9, 0.9)
        bad = c.post("/setup/api/camera", json={"source": str(tmp_path / "missing.mp4")}, headers={"X-Masta-Token": "tok"})
        assert bad.status_code == 400 and "cannot open camera" in bad.json["error"]
    finally:
        runner.stop()


def test_demo_table_comes_from_the_videos_truth_log(tmp_path):
    from web.commands import demo_setup

    log = tmp_path / "demo.truth.jsonl"
    log.write_text('{"type": "video", "fps": 30}\n'
                   '{"seq": 1, "t": 0, "type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy", '
                   '"preset": "fr", "decks": 1, "game": 1, "source": "operator"}\n')
    assert demo_setup(log) == {"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy",
                               "preset": "fr", "decks": 1}
    assert demo_setup(None)["players"]


def _held_by_output_buffers(server) -> int:
    """Bytes held by the in-memory output buffers of the server's open connections."""
    import io
    total = 0
    for ch in list(server._map.values()):
        for ob in list(getattr(ch, "outbufs", [])):
            f = getattr(getattr(ob, "buf", None), "file", None)
            if isinstance(f, io.BytesIO):
                total += len(f.getvalue())
            total += len(getattr(ob, "strbuf", b""))
    return total


def test_a_long_open_stream_does_not_keep_what_it_already_sent(tmp_path):
    import threading

    app = create_app(Config(data_dir=tmp_path, token="tok"))
    broadcaster = app.extensions["masta.broadcaster"]
    with BackgroundServer(app, threads=4) as srv:
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        c.request("GET", "/stream")
        resp = c.getresponse()
        got = []

        def read() -> None:
            while len(got) < 600:
                line = resp.fp.readline()
                if not line:
                    return
                if line.startswith(b"data: ") and b'"pad"' in line:
                    got.append(len(line))
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        deadline = time.time() + 5
        while broadcaster.clients < 1 and time.time() < deadline:
            time.sleep(0.01)
        for k in range(600):  # 600 updates of 10 kB (over waitress's 8 kB string buffer): 6 MB through one stream
            broadcaster.publish("update", {"n": k, "pad": "x" * 10000})
            while len(got) < k - 100:  # a page that keeps up
                time.sleep(0.001)
        reader.join(timeout=20)
        assert len(got) == 600, "the page missed updates"
        held = _held_by_output_buffers(srv.server)
        assert held < 600_000, f"{held} bytes already sent are still held for one stream"
