"""Camera faults, through web.camera on real video files (OpenCV) and vision.source's retry
loop: the camera dropping out for 1 s, 10 s and for good; a video truncated or corrupted in
the middle; frames of the wrong size or colour format; the disk full when saving evidence.
Each is reported on the page (state.json, the live page, a pushed `camera` message), the
game goes on where it can (manual entry, later camera plays), nothing recorded is lost.
"""
from __future__ import annotations

import os
import queue
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from helpers_video import PixelDetector, game_scene, places_of, write_video
from test_web import OP, make_app, post, setup_game

from vision.source import Backoff, open_source
from web.camera import CameraRunner, wait_for

CARDS = ["4H", "5C", "6D", "9S", "JH"]  # each beats the last, none special (fr): all legal
ZONE = (0.05, 0.05, 0.95, 0.95)
FAST = Backoff(first=0.05, factor=2.0, cap=0.2)  # vision.source's retry delays, shortened


class Table:
    """An app with a game set up, a camera runner, and a page listening to its pushes."""

    def __init__(self, tmp_path: Path, **runner_kw):
        self.app = make_app(tmp_path / "data")
        self.client = self.app.test_client()
        setup_game(self.client)
        self.service = self.app.extensions["masta.table"]
        self.page: queue.Queue = self.app.extensions["masta.broadcaster"].subscribe()
        self.pushed: list[str] = []
        self.runner = CameraRunner(self.service, self.app.extensions["masta.frames"],
                                   PixelDetector(places_of(CARDS)), zone=ZONE,
                                   evidence_dir=self.app.config["MASTA"].evidence_dir, **runner_kw)

    def log(self) -> list[dict]:
        return self.app.extensions["masta.store"].events(self.service.evening_id)

    def camera_cards(self) -> list[str]:
        return [c for e in self.log() if e["type"] == "cards_played" and e["source"] == "camera" for c in e["cards"]]

    def camera_messages(self) -> list[str]:
        while True:
            try:
                msg = self.page.get_nowait()
            except queue.Empty:
                return self.pushed
            if msg and "event: camera" in msg:
                self.pushed.append(msg)

    def said(self, word: str) -> bool:
        return any(word in m for _, m in self.runner.history)

    def shows(self, *words: str) -> None:
        """The live page and its JSON say it, and a `camera` message was pushed to open pages."""
        status = self.client.get("/live/state.json").json["camera"]
        assert any(w in status for w in words), status
        assert any(w in self.client.get("/live/").data.decode() for w in words)
        assert any(any(w in m for w in words) for m in self.camera_messages())


def scene_videos(tmp_path: Path, split: int = 3) -> tuple[Path, Path]:
    """The game's first `split` plays in one video, the rest (continuing the same table) in another."""
    s, ends = game_scene(CARDS)
    a = write_video(tmp_path / "part1.avi", s.frames[: ends[split - 1]])
    b = write_video(tmp_path / "part2.avi", s.frames[ends[split - 1]:])
    return a, b


@pytest.mark.parametrize("outage", [1.0, 10.0, None], ids=["1s", "10s", "for-good"])
def test_camera_drops_out(tmp_path, outage):
    part1, part2 = scene_videos(tmp_path)
    cam = tmp_path / "cam.avi"  # the 'camera': a video file read as a live source
    os.replace(part1, cam)
    t = Table(tmp_path, live=True, backoff=FAST, max_retries=None if outage else 12)
    t.runner.start(str(cam))
    try:
        cam.unlink()  # unplugged: the open capture plays out, then no device comes back
        assert wait_for(lambda: t.said("dropped"), 20), list(t.runner.history)
        dropped_at = time.time()
        assert t.camera_cards() == CARDS[:3]
        before = t.log()
        assert wait_for(lambda: t.said("retrying"), 5)
        t.shows("dropped", "retrying")
        # the game goes on by hand meanwhile
        r = post(t.client, "/rulings/api/corrections", {"type": "note", "text": "camera out"})
        assert r.status_code == 201
        if outage is None:  # for good: the source gives up, the operator plays on
            assert wait_for(lambda: t.said("gave_up"), 20), list(t.runner.history)
            t.shows("gave_up")
            for card in CARDS[3:]:
                r = post(t.client, "/manual/api/events", {"type": "cards_played", "cards": [card]})
                assert r.status_code == 201 and r.json["outputs"][0]["verdict"] == "legal"
        else:
            time.sleep(max(0.0, dropped_at + outage - time.time()))
            assert not t.said("reconnected")
            os.replace(part2, cam)  # plugged back in
            assert wait_for(lambda: t.said("reconnected"), 10), list(t.runner.history)
            assert wait_for(lambda: len(t.camera_cards()) == len(CARDS), 20), t.camera_cards()
            # pushed to open pages (the file then plays out, so the status moves on again)
            assert any("reconnected" in m for m in t.camera_messages())
        log = t.log()
        assert log[: len(before)] == before  # nothing recorded was lost
        played = [c for e in log if e["type"] == "cards_played" for c in e["cards"]]
        assert played == CARDS  # each card once, in order, camera or hand
        assert [e["text"] for e in log if e["type"] == "note"] == ["camera out"]
        latest = t.client.get("/live/state.json").json["latest"]
        assert latest["ruling"]["verdict"] == "legal" and latest["event"]["cards"] == [CARDS[-1]]
    finally:
        t.runner.stop()


def _damaged(tmp_path: Path, how: str) -> Path:
    s, ends = game_scene(CARDS)
    path = write_video(tmp_path / f"{how}.avi", s.frames)
    data = bytearray(path.read_bytes())
    n = len(data)
    if how == "truncated":
        data = data[: int(n * 0.6)]
    else:  # garbage over a stretch in the middle (a bad sector, a broken copy)
        rng = np.random.default_rng(3)
        lo, hi = int(n * 0.45), int(n * 0.55)
        data[lo:hi] = rng.integers(0, 256, hi - lo, dtype=np.uint8).tobytes()
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", ["truncated", "corrupted"])
def test_a_damaged_video_file(tmp_path, how):
    path = _damaged(tmp_path, how)
    t = Table(tmp_path, live=False, pace=False)
    t.runner.start(str(path))
    try:
        assert wait_for(lambda: not t.runner._threads[0].is_alive(), 30)
        got = t.camera_cards()
        assert got[:2] == CARDS[:2], got  # the plays before the damage are recorded
        assert Counter(got) == Counter(set(got)) and set(got) <= set(CARDS)  # none twice, none invented
        t.shows("truncated", "ended")
        assert not t.said("failed")
        r = post(t.client, "/manual/api/events", {"type": "cards_played", "cards": ["KD"]})
        assert r.status_code == 201  # and the game goes on by hand
    finally:
        t.runner.stop()


def test_a_corrupted_stretch_does_not_end_the_video(tmp_path):
    path = _damaged(tmp_path, "corrupted")
    t = Table(tmp_path, live=False, pace=False)
    t.runner.start(str(path))
    try:
        assert wait_for(lambda: not t.runner._threads[0].is_alive(), 30)
        assert t.camera_cards()[-1] == CARDS[-1], t.camera_cards()  # read on past the damage
        assert t.said("skipped"), list(t.runner.history)  # the stretch read past is reported
    finally:
        t.runner.stop()


def test_frames_of_the_wrong_size_or_colour_format(tmp_path):
    """A camera whose driver hands over grey frames, frames with alpha, and frames of another
    size part-way through: converted, reported once each, every play still read."""
    s, _ = game_scene(CARDS)
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, f in enumerate(s.frames):
        cv2.imwrite(str(folder / f"{i:05d}.png"), f)
    src = open_source(str(folder), fps=30)
    plain = src.frames
    n = len(s.frames)

    def odd_frames(stop=None):
        for frame in plain(stop):
            k = frame.index
            if n // 5 <= k < 2 * n // 5:
                frame.image = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)  # 2-D grey
            elif 2 * n // 5 <= k < 3 * n // 5:
                frame.image = cv2.cvtColor(frame.image, cv2.COLOR_BGR2BGRA)  # 4 channels
            elif k >= 3 * n // 5:
                frame.image = cv2.resize(frame.image, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
            yield frame
    src.frames = odd_frames
    t = Table(tmp_path)
    t.runner.start(src)
    try:
        assert wait_for(lambda: not t.runner._threads[0].is_alive(), 30)
        assert t.camera_cards() == CARDS, (t.camera_cards(), list(t.runner.history))
        for word in ("grey", "4-channel", "resized"):
            assert sum(word in m for _, m in t.runner.history) == 1, list(t.runner.history)
        assert not t.said("failed")
        t.shows("ended")
    finally:
        t.runner.stop()


def test_disk_full_when_saving_evidence(tmp_path, monkeypatch):
    """cv2.imwrite on a full disk writes part of the file and returns False: the watcher raises
    OSError. The play must still be recorded (without evidence), the page says why, and once
    space is free again evidence is saved and served."""
    part = write_video(tmp_path / "game.avi", game_scene(CARDS)[0].frames)
    real_imwrite = cv2.imwrite
    full = {"on": True}

    def imwrite_on_a_full_disk(path, img, params=()):
        if not full["on"]:
            return real_imwrite(path, img, params)
        ok, buf = cv2.imencode(".jpg", img, params)
        with open(path, "wb") as fh:
            fh.write(buf.tobytes()[: len(buf) // 3])  # the first blocks fit, then ENOSPC
        return False
    monkeypatch.setattr(cv2, "imwrite", imwrite_on_a_full_disk)
    t = Table(tmp_path, live=False, pace=True)
    t.runner.start(str(part))
    try:
        assert wait_for(lambda: len(t.camera_cards()) >= 2, 20), list(t.runner.history)
        full["on"] = False  # space freed
        assert wait_for(lambda: not t.runner._threads[0].is_alive(), 30)
        assert t.camera_cards() == CARDS, (t.camera_cards(), list(t.runner.history))
        assert t.said("evidence frames not saved")
        assert any("evidence frames not saved" in m for m in t.camera_messages())
        played = [e for e in t.log() if e["type"] == "cards_played"]
        assert "evidence" not in played[0]
        later = played[-1]["evidence"]
        r = t.client.get("/evidence/" + later["after"])
        assert r.status_code == 200 and r.data[:2] == b"\xff\xd8"
        assert not t.said("failed")
    finally:
        t.runner.stop()


@pytest.mark.parametrize("stock", [0, None], ids=["last-stage", "stock-left"])
def test_a_recorded_game_read_to_its_end_is_placed_where_the_counts_did_not_end_it(tmp_path, stock):
    """The file ends in the game's last stage with everyone still in by the counts (cards the
    camera missed): the game is over all the same, placed by who stopped playing when, the
    one left holding cards assumed and asked. A video of part of a game (stock left) is not."""
    t = Table(tmp_path, live=False, pace=False)
    if stock is not None:
        assert post(t.client, "/manual/api/events", {"type": "counts", "stock": stock}).status_code == 201
    path = write_video(tmp_path / "game.avi", game_scene(CARDS)[0].frames)
    t.runner.start(str(path))
    try:
        assert wait_for(lambda: not t.runner._threads[0].is_alive(), 30)
        assert t.camera_cards() == CARDS
        ends = [e for e in t.log() if e["type"] == "game_end"]
        table = t.client.get("/live/state.json").json["table"]
        if stock is None:
            assert not ends and not table["over"]
            return
        assert [e["source"] for e in ends] == ["camera"] and table["over"]
        # five plays from Ann (left of the dealer) round: Cy stopped first; Bob played last (the
        # last out) and Ann just before him: no clear lead in the counts, so Ann was left
        assert table["finishing_order"] == ["Cy", "Bob", "Ann"]
        assert table["question"]["kind"] == "end" and table["titles_assumed"] >= 1
    finally:
        t.runner.stop()
