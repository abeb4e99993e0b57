"""Frame sources on real files written and read through OpenCV (no mocks)."""
from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.source import Backoff, SourceError, describe, open_source


def write_video(path: Path, n: int, fps: float = 30.0, size=(96, 64), fourcc="mp4v") -> Path:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, size)
    assert w.isOpened()
    for i in range(n):
        img = np.full((size[1], size[0], 3), (i * 7) % 255, np.uint8)
        cv2.putText(img, str(i), (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2)
        w.write(img)
    w.release()
    return path


def test_describe_kinds(tmp_path):
    assert describe(0) == "webcam" and describe("1") == "webcam"
    assert describe("rtsp://192.168.1.5:8554/cam") == "stream"
    assert describe("http://phone:8080/video") == "stream"
    assert describe(str(tmp_path)) == "folder"
    assert describe(str(tmp_path / "x.mp4")) == "video"


def test_video_file_frames_have_timestamps(tmp_path):
    path = write_video(tmp_path / "a.mp4", 12, fps=24.0)
    statuses = []
    src = open_source(str(path), on_status=statuses.append)
    assert src.size == (96, 64) and not src.live
    frames = list(src.frames())
    assert len(frames) == 12
    assert [f.index for f in frames] == list(range(12))
    assert frames[5].t == pytest.approx(5 / 24.0)
    assert frames[0].image.shape == (64, 96, 3)
    assert statuses[-1].kind == "ended"


def test_missing_empty_and_garbage_files_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such video"):
        open_source(str(tmp_path / "nope.mp4"))
    (tmp_path / "empty.mp4").write_bytes(b"")
    with pytest.raises(SourceError, match="empty"):
        open_source(str(tmp_path / "empty.mp4"))
    (tmp_path / "junk.mp4").write_bytes(np.random.default_rng(0).bytes(5000))
    t0 = time.time()
    with pytest.raises(SourceError, match="cannot decode|no readable frame"):
        open_source(str(tmp_path / "junk.mp4"))
    assert time.time() - t0 < 10


def test_truncated_video_is_an_error_or_a_reported_early_end(tmp_path):
    """An mp4 cut in half has lost its index (error at open); an AVI cut in half still plays
    its first frames and then reports `truncated`. Neither hangs."""
    mp4 = write_video(tmp_path / "full.mp4", 60)
    data = mp4.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(SourceError):
        list(open_source(str(cut)).frames())

    avi = write_video(tmp_path / "full.avi", 60, fourcc="MJPG")
    data = avi.read_bytes()
    cut_avi = tmp_path / "cut.avi"
    cut_avi.write_bytes(data[: len(data) // 2])
    statuses = []
    try:
        frames = list(open_source(str(cut_avi), on_status=statuses.append).frames())
    except SourceError:
        return  # this OpenCV build refuses the damaged file outright: also a clear error
    assert 0 < len(frames) < 60
    assert statuses and statuses[-1].kind in ("truncated", "ended")


def test_image_folder_sorted_and_empty_folder(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    with pytest.raises(SourceError, match="no images"):
        open_source(str(folder))
    for i in (2, 0, 1):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), np.full((10, 12, 3), i * 50, np.uint8))
    (folder / "notes.txt").write_text("ignored")
    frames = list(open_source(str(folder), fps=10).frames())
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 50, 100]
    assert frames[2].t == pytest.approx(0.2)
    (folder / "f003.png").write_bytes(b"not a png")
    with pytest.raises(SourceError, match="f003.png"):
        list(open_source(str(folder)).frames())


def test_live_source_drop_is_reported_and_retried_with_backoff(tmp_path):
    """A video file opened as a live camera: when it 'drops' (ends, then vanishes) the source
    reports it, backs off, and resumes when the camera is back, on one clock."""
    path = write_video(tmp_path / "cam.mp4", 5)
    spare = tmp_path / "spare.mp4"
    shutil.copy(path, spare)
    statuses = []
    stop = threading.Event()
    src = open_source(str(path), live=True, on_status=statuses.append,
                      backoff=Backoff(first=0.05, factor=2.0, cap=0.2))
    frames = []
    for frame in src.frames(stop):
        frames.append(frame)
        if len(frames) == 5:
            path.unlink()  # the camera is unplugged after its 5th frame
            threading.Timer(0.5, lambda: shutil.copy(spare, path)).start()
        if len(frames) == 8:
            stop.set()
    kinds = [s.kind for s in statuses]
    assert "dropped" in kinds and "reconnected" in kinds
    assert kinds.index("dropped") < kinds.index("reconnected")
    retries = [s for s in statuses if s.kind == "retrying"]
    assert len(retries) >= 2
    assert retries[1].delay >= retries[0].delay  # backoff grows
    ts = [f.t for f in frames]
    assert ts == sorted(ts) and ts[5] - ts[4] >= 0.3  # one clock across the gap
    assert [f.index for f in frames] == list(range(8))


def test_live_source_gives_up_after_max_retries(tmp_path):
    statuses = []
    src = open_source(str(tmp_path / "gone.mp4"), live=True, on_status=statuses.append,
                      backoff=Backoff(first=0.01, cap=0.02), max_retries=3)
    assert list(src.frames()) == []
    assert statuses[-1].kind == "gave_up"
    assert sum(s.kind == "retrying" for s in statuses) == 3


def test_unreachable_stream_is_retried_not_hung():
    """A stream URL nobody serves: each attempt fails fast and is reported, never a hang."""
    statuses = []
    t0 = time.time()
    src = open_source("http://127.0.0.1:9/video.mjpg", on_status=statuses.append,
                      backoff=Backoff(first=0.01, cap=0.02), max_retries=2)
    assert src.live and src.kind == "stream"
    assert list(src.frames()) == []
    assert [s.kind for s in statuses][-1] == "gave_up"
    assert time.time() - t0 < 20


def test_a_damaged_stretch_in_a_video_file_is_skipped_and_reported(tmp_path):
    """Garbage over a stretch in the middle of a Motion-JPEG AVI (a bad sector): OpenCV fails
    a read there and then reads on. The source reads on too, reports the stretch as
    `skipped`, and the frames after it keep their place on the file's clock."""
    from helpers_video import game_scene
    from helpers_video import write_video as write_scene

    path = write_scene(tmp_path / "d.avi", game_scene(["4H", "5C", "6D", "9S", "JH"])[0].frames)
    data = bytearray(path.read_bytes())
    lo, hi = int(len(data) * 0.45), int(len(data) * 0.55)
    data[lo:hi] = np.random.default_rng(3).integers(0, 256, hi - lo, dtype=np.uint8).tobytes()
    path.write_bytes(bytes(data))
    statuses = []
    src = open_source(str(path), on_status=statuses.append)
    n = src.frame_count
    frames = list(src.frames())
    skipped = [s for s in statuses if s.kind == "skipped"]
    assert skipped and "unreadable frame" in skipped[0].message, [(s.kind, s.message) for s in statuses]
    first_gap = skipped[0].t * 30.0
    assert frames[-1].index > first_gap + 30  # read on well past the damage
    idx = [f.index for f in frames]
    assert idx == sorted(set(idx)) and all(abs(f.t - f.index / 30.0) < 1e-9 for f in frames)
    assert statuses[-1].kind in ("ended", "truncated") and idx[-1] < n


def test_frame_size_parses_width_by_height_and_says_what_is_wrong():
    import argparse

    from vision.frame_size import WEBCAM_SIZE, frame_size
    assert frame_size("1280x720") == (1280, 720) and frame_size("640X480") == (640, 480)
    for bad, says in (("1280", "WIDTHxHEIGHT"), ("axb", "WIDTHxHEIGHT"), ("1280x72", "160x120"),
                      ("9000x9000", "3840x2160")):
        with pytest.raises(argparse.ArgumentTypeError, match=says):
            frame_size(bad)
    assert WEBCAM_SIZE == frame_size(f"{WEBCAM_SIZE[0]}x{WEBCAM_SIZE[1]}")


def test_only_a_webcam_is_asked_for_a_frame_size(tmp_path):
    video = write_video(tmp_path / "v.mp4", 3)
    with open_source(str(video), size=(1280, 720)) as src:
        assert src.ask_size is None  # a file keeps the size it was recorded at
        frames = list(src.frames())
    assert frames and frames[0].image.shape[:2] == (64, 96)
    assert open_source(0, max_retries=0, wait_for_camera=True).ask_size == (1280, 720)  # the default: WEBCAM_SIZE
    assert open_source(0, size=None, max_retries=0, wait_for_camera=True).ask_size is None
