"""The camera source from Set-up or the command line (issue 56, points 3 and 4): its password
is masked everywhere but the operator's set-up form; a source that cannot be opened is not
saved; a saved one that fails at start-up is reported and the server starts without a camera."""
from __future__ import annotations

import time

import queue

import pytest
from helpers_server import Serve, request
from helpers_video import SeesNothing, plain_video
from hypothesis import given, settings
from hypothesis import strategies as st
from test_web import OP, make_app, post

from vision.source import Backoff
from web.camera import attach_camera, mask_source, wait_for

SECRET = "s3cretPW"
URL = f"rtsp://admin:{SECRET}@127.0.0.1:9/stream"
FAST = Backoff(first=0.05, factor=2.0, cap=0.2)


@pytest.mark.parametrize("raw,shown", [
    (URL, "rtsp://admin:***@127.0.0.1:9/stream"),
    ("http://u:p%40ss@cam.local:8080/video?x=1", "http://u:***@cam.local:8080/video?x=1"),
    ("http://cam.local/video?token=abc123&fps=5", "http://cam.local/video?token=***&fps=5"),
    ("camera rtsp://a:b@h/s: retry 2 in 0.2 s", "camera rtsp://a:***@h/s: retry 2 in 0.2 s"),
    ("0", "0"), ("/videos/table.mp4", "/videos/table.mp4"), ("http://cam.local/video", "http://cam.local/video"),
])
def test_mask_source(raw, shown):
    assert mask_source(raw) == shown


@settings(max_examples=200, deadline=None)
@given(user=st.text("abcxyz019", min_size=1, max_size=8), pw=st.text("abcXYZ019!$%.~-", min_size=3, max_size=20),
       host=st.sampled_from(["cam", "10.0.0.7:554", "phone.local:8080"]), scheme=st.sampled_from(["rtsp", "http", "https"]))
def test_a_password_never_survives_masking(user, pw, host, scheme):
    url = f"{scheme}://{user}:{pw}@{host}/stream"
    shown = mask_source(f"camera {url}: dropped ({url})")
    assert f":{pw}@" not in shown and shown.count("***") == 2
    assert mask_source(shown) == shown


def test_camera_password_is_masked_everywhere_but_the_operators_form(tmp_path):
    app = make_app(tmp_path)
    page = app.extensions["masta.broadcaster"].subscribe()
    app.extensions["masta.store"].set_setting("camera_source", URL)
    runner = attach_camera(app, SeesNothing(), URL, backoff=FAST, max_retries=2)
    try:
        assert wait_for(lambda: len(runner.history) >= 3, 10)
        spectator = app.test_client()
        seen = {
            "/live/": spectator.get("/live/").data.decode(),
            "/live/state.json": spectator.get("/live/state.json").data.decode(),
            "/teach/api/state": spectator.get("/teach/api/state").data.decode(),
            "/setup/": spectator.get("/setup/").data.decode(),
            "/teach/": spectator.get("/teach/").data.decode(),
        }
        pushes = []
        while True:
            try:
                pushes.append(page.get_nowait() or "")
            except queue.Empty:
                break
        seen["pushes"] = "".join(pushes)
        seen["history"] = " ".join(m for _, m in runner.history)
        assert "event: camera" in seen["pushes"]
        for where, text in seen.items():
            assert SECRET not in text, where
        assert "admin:***@127.0.0.1" in seen["/live/state.json"] and "admin:***@" in seen["/teach/api/state"]
        assert "admin:***@" in seen["/setup/"]
        operator = app.test_client()
        assert SECRET in operator.get("/setup/", headers=OP).data.decode()  # the operator's own form
    finally:
        runner.stop()


def test_a_source_that_cannot_be_opened_is_not_saved(tmp_path):
    video = plain_video(tmp_path / "table.avi")
    app = make_app(tmp_path / "data")
    store = app.extensions["masta.store"]
    c = app.test_client()
    # without a camera running (no detector): a file is checked before it is saved
    for bad, why in ((str(tmp_path / "missing.mp4"), "cannot open camera"), ("x" * 100_000, "at most"),
                     ("/tmp/\x00video.mp4", "control characters")):
        r = post(c, "/setup/api/camera", {"source": bad})
        assert r.status_code == 400 and why in r.json["error"], (r.status_code, r.data[:200])
        assert store.get_setting("camera_source") is None
    assert post(c, "/setup/api/camera", {"source": str(video)}).status_code == 201
    assert store.get_setting("camera_source") == str(video)
    # with the camera running: a bad one is refused, the one that opened stays saved and watched
    runner = attach_camera(app, SeesNothing(), str(video), pace=True)
    try:
        for bad in (str(tmp_path / "missing.mp4"), "y" * 5000, str(tmp_path / ("z" * 300 + ".mp4"))):
            r = post(c, "/setup/api/camera", {"source": bad})
            assert r.status_code == 400, (r.status_code, r.data[:200])
            assert store.get_setting("camera_source") == str(video)
        assert runner.source == str(video)
    finally:
        runner.stop()


@pytest.mark.parametrize("saved", ["missing.mp4", "x" * 100_000])
def test_a_saved_source_that_fails_is_reported_and_the_server_starts_without_a_camera(tmp_path, saved):
    from web.store import Store
    data = tmp_path / "data"
    store = Store(f"sqlite:///{(data / 'masta.sqlite3').resolve()}")
    store.set_setting("camera_source", str(tmp_path / saved) if saved.endswith(".mp4") else saved)
    store.close()
    with Serve(data) as srv:
        deadline = time.time() + 30  # the lines after the operator's link are still coming
        while "serving without a camera" not in "".join(srv.output) and time.time() < deadline:
            time.sleep(0.1)
        out = "".join(srv.output)
        assert "cannot be opened" in out and "serving without a camera" in out, out
        assert "Traceback" not in out
        state = srv.get_json("/live/state.json")
        assert "cannot be opened" in state["camera"]
        r = srv.op("POST", "/setup/api/game", {"players": ["Ann", "Bob"]})
        assert r.status == 201
        r = srv.op("POST", "/manual/api/events", {"type": "cards_played", "cards": ["6H"]})
        assert r.status == 201  # manual entry works
        assert request(srv.port, "GET", "/setup/").status == 200


def test_a_100_kb_source_on_the_command_line_is_a_clear_error(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    from helpers_server import free_port
    out = subprocess.run([sys.executable, "-m", "masta", "serve", "--port", str(free_port()), "--data-dir", str(tmp_path),
                          "--source", "x" * 100_000], cwd=Path(__file__).resolve().parent.parent,
                         capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert out.returncode == 2, out.stderr[-500:]
    assert "Traceback" not in out.stderr and "masta serve: error:" in out.stderr, out.stderr[-500:]
    assert "cannot open camera" in out.stderr and len(out.stderr) < 2000
