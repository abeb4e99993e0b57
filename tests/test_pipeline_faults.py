"""The pipeline (source -> watcher -> events) under faults, on real video files read back
through OpenCV: a full disk while saving evidence must not stop it, and the cards that
appeared while the camera was out must not be merged into the next play."""
from __future__ import annotations

import os
import threading
import time

import cv2
from helpers_video import SPOTS, PixelDetector, game_scene, places_of, write_video
from test_pot_watcher import Scene

from vision.pipeline import Pipeline
from vision.pot_watcher import WatcherConfig
from vision.source import Backoff, open_source

CARDS = ["4H", "5C", "6D", "9S", "JH"]
ZONE = (0.05, 0.05, 0.95, 0.95)


def _pipeline(video, tmp_path, statuses):
    pipe = Pipeline(open_source(str(video)), PixelDetector(places_of(CARDS)),
                    config=WatcherConfig(evidence_dir=tmp_path / "ev"), on_status=statuses.append)
    pipe.watcher.set_zone(ZONE)
    return pipe


def test_a_full_disk_loses_evidence_not_plays(tmp_path, monkeypatch):
    """cv2.imwrite fails (returns False, as on ENOSPC, then raises OSError) for the first
    plays: those are still recorded, without evidence, each failure is reported once as a
    status, no half-written JPEG is left, and evidence is saved again once space is back."""
    video = write_video(tmp_path / "game.avi", game_scene(CARDS)[0].frames)
    real_imwrite = cv2.imwrite
    calls = {"n": 0}

    def imwrite_on_a_full_disk(path, img, params=()):
        calls["n"] += 1
        if calls["n"] == 1:  # the first play: partial write, False
            with open(path, "wb") as fh:
                fh.write(b"\xff\xd8partial")
            return False
        if calls["n"] == 2:  # the second play: the OS raises
            raise OSError(28, "No space left on device")
        return real_imwrite(path, img, params)
    monkeypatch.setattr(cv2, "imwrite", imwrite_on_a_full_disk)
    statuses = []
    pipe = _pipeline(video, tmp_path, statuses)
    played = [p for p in pipe.events() if p.watch.type == "cards_played"]
    assert [c for p in played for c in p.watch.cards] == CARDS
    assert "evidence" not in played[0].event and "evidence" not in played[1].event
    assert all(p.event["evidence"]["after"].endswith(".jpg") for p in played[2:])
    failed = [s for s in statuses if s.kind == "evidence_not_saved"]
    assert len(failed) == 2 and all("free some disk space" in s.message for s in failed)
    assert list(pipe.watcher.problems) == [s.message for s in failed]
    kept = sorted(p.name for p in (tmp_path / "ev").iterdir())
    assert kept == sorted(n for p in played[2:] for n in
                          (p.event["evidence"]["before"].rsplit("/", 1)[-1], p.event["evidence"]["after"].rsplit("/", 1)[-1]))
    assert statuses[-1].kind == "ended"


def test_cards_that_appeared_during_an_outage_are_a_mismatch_not_part_of_the_next_play(tmp_path):
    """The camera (a video file read as a live source) plays 4H and 5C, is unplugged; while it
    is out 6D is put on the pot by hand; it comes back and 9S is played. After `reconnected`
    the watcher takes a fresh baseline: 6D is reported for the operator as a mismatch, and 9S
    is read as a play of its own (not lumped with 6D into a "several ranks" note)."""
    s = Scene(0)
    s.still(10)
    for card, spot in zip(CARDS[:2], SPOTS):
        s.play([card], spot)
        s.still(15)
    split = len(s.frames)
    s.cards.append(("6D", SPOTS[2]))  # by hand, unseen
    s.still(15)
    s.play(["9S"], SPOTS[3])
    s.still(15)
    cam = write_video(tmp_path / "cam.avi", s.frames[:split])
    later = write_video(tmp_path / "later.avi", s.frames[split:])
    statuses, seen = [], []
    dropped = threading.Event()

    def on_status(st):
        statuses.append(st)
        if st.kind == "dropped":
            dropped.set()
    src = open_source(str(cam), live=True, backoff=Backoff(first=0.05, factor=2.0, cap=0.2))
    pipe = Pipeline(src, PixelDetector(places_of(CARDS)), on_status=on_status,
                    on_event=lambda p: seen.append(p.watch))
    pipe.watcher.set_zone(ZONE)
    stop = threading.Event()
    run = threading.Thread(target=pipe.run, args=(stop,), daemon=True)
    run.start()
    try:
        assert dropped.wait(20), [st.kind for st in statuses]
        cam.unlink()
        os.replace(later, cam)  # plugged back in
        deadline = time.time() + 20
        while not any("9S" in w.cards for w in seen) and time.time() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        run.join(10)
    assert "reconnected" in [st.kind for st in statuses]
    got = [(w.type, w.cards) for w in seen]
    assert got == [("cards_played", ["4H"]), ("cards_played", ["5C"]), ("mismatch", ["6D"]),
                   ("cards_played", ["9S"])], (got, [w.detail for w in seen])
    assert "camera was out" in seen[2].detail and seen[2].low_conf
    assert not seen[3].low_conf
