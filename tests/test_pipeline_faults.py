"""The pipeline (source -> watcher -> events) under faults, on real video files read back
through OpenCV: a full disk while saving evidence must not stop it, and the cards that
appeared while the camera was out must not be merged into the next play."""
from __future__ import annotations

import cv2
from helpers_video import PixelDetector, game_scene, places_of, write_video

from vision.pipeline import Pipeline
from vision.pot_watcher import WatcherConfig
from vision.source import open_source

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
