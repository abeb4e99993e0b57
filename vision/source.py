"""Frame sources: a webcam index, a video file, an image folder or a stream URL, through OpenCV.

Why one module: the pot watcher must not care where frames come from, only that each frame
carries a timestamp and that a live source which drops (camera unplugged, Wi-Fi stream
stalling) comes back by itself while the game and its log go on untouched.

    src = open_source("game.mp4")            # or 0, "frames/", "rtsp://phone:8554/cam"
    for frame in src.frames(stop_event):     # Frame(image BGR, t seconds, index, wall)
        ...

* Files (video, image folder) are *finite*: they end, and a file OpenCV cannot decode is a
  `SourceError` raised at open time, never a hang. A video that stops early (truncated) ends
  with a `truncated` status report rather than an exception, so frames already processed count.
  A damaged stretch in the middle (a few unreadable frames) is skipped, reported as `skipped`,
  and reading goes on: a bounded number of reads, then of seeks, before calling it truncated.
* Live sources (webcam, URL, or a file opened with `live=True`) are *retried*: a failed read
  is reported as `dropped`, then the source is re-opened with exponential backoff
  (`retrying` reports), and `reconnected` when frames flow again. Timestamps stay on one
  clock across the gap. Only `stop_event` (or `max_retries`) ends a live source.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.frame_size import WEBCAM_SIZE

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
STREAM_SCHEMES = ("http://", "https://", "rtsp://", "rtsps://", "rtmp://", "udp://", "tcp://")


class SourceError(ValueError):
    """A source that cannot be read at all; the message says what and what to do."""


@dataclass
class Frame:
    """One picture from a source. `t` is seconds on the source's clock (video position for a
    file, seconds since opening for a live source); `wall` is the unix time it was read."""
    image: np.ndarray
    t: float
    index: int
    wall: float


@dataclass
class SourceStatus:
    """A report about the source's health: `opened`, `dropped`, `retrying`, `reconnected`,
    `truncated`, `skipped` (a damaged stretch of a file read past), `ended`, `gave_up`.
    `delay` is the backoff before the next retry."""
    kind: str
    message: str
    t: float = 0.0
    attempt: int = 0
    delay: float = 0.0


StatusCallback = Callable[[SourceStatus], None]


def _no_status(_: SourceStatus) -> None:
    pass


@dataclass
class Backoff:
    """Retry delays for a live source: first, first*factor, ... capped at `cap` seconds."""
    first: float = 0.5
    factor: float = 2.0
    cap: float = 10.0

    def delay(self, attempt: int) -> float:
        return min(self.cap, self.first * self.factor ** max(0, attempt - 1))


def describe(spec: str | int) -> str:
    """What kind of source `spec` names: `webcam`, `stream`, `folder` or `video`."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return "webcam"
    s = str(spec)
    if s.lower().startswith(STREAM_SCHEMES):
        return "stream"
    if os.path.isdir(s):
        return "folder"
    return "video"


@dataclass
class FrameSource:
    """A readable source of frames; build it with `open_source`."""
    spec: str | int
    kind: str
    live: bool
    fps: float
    on_status: StatusCallback = _no_status
    backoff: Backoff = field(default_factory=Backoff)
    max_retries: int | None = None
    pace: bool = False
    timeout_s: float = 5.0  # streams: give up opening or reading after this, then retry
    size: tuple[int, int] | None = None  # (width, height) once known
    ask_size: tuple[int, int] | None = None  # webcams: the frame size asked for (see WEBCAM_SIZE)
    frame_count: int | None = None
    max_skip: int = 8  # files: failed reads tolerated in a row before seeking past damage
    max_seeks: int = 3  # files: seeks tried past a longer damaged stretch before "truncated"
    _files: list[Path] = field(default_factory=list)
    _cap: cv2.VideoCapture | None = None

    # -- opening ---------------------------------------------------------------------------
    def _capture(self) -> cv2.VideoCapture:
        if self.kind == "webcam":
            with quiet_opencv():  # an absent index: OpenCV's warnings, dozens per retry
                cap = cv2.VideoCapture(int(self.spec))
            if self.ask_size and cap.isOpened():  # a camera that cannot keeps a size of its own
                # compressed frames first: uncompressed 1280x720 at 30 fps is more than USB 2
                # carries, so many webcams drop to 5-10 fps unless asked for MJPG (one that has
                # no MJPG keeps its own format)
                cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.ask_size[0])
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.ask_size[1])
            return cap
        if self.kind == "stream":  # a stalled stream must time out, not hang the pipeline
            ms = int(self.timeout_s * 1000)
            return cv2.VideoCapture(str(self.spec), cv2.CAP_FFMPEG,
                                    [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms])
        return cv2.VideoCapture(str(self.spec))

    def _open_capture(self) -> bool:
        self.release()
        cap = self._capture()
        if not cap.isOpened():
            cap.release()
            return False
        self._cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS)
        if fps and 1.0 <= fps <= 240.0:
            self.fps = float(fps)
        n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count = n if n > 0 else None
        return True

    def release(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def close(self) -> None:
        self.release()

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------
    def frames(self, stop_event: threading.Event | None = None) -> Iterator[Frame]:
        """Yield frames until the source ends (files) or `stop_event` is set (live)."""
        stop = stop_event or threading.Event()
        if self.kind == "folder":
            yield from self._folder_frames(stop)
        elif self.live:
            yield from self._live_frames(stop)
        else:
            yield from self._video_frames(stop)

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def _paced(self, t: float, start_wall: float) -> None:
        if self.pace:
            delay = start_wall + t - time.time()
            if delay > 0:
                time.sleep(delay)

    def _folder_frames(self, stop: threading.Event) -> Iterator[Frame]:
        start = time.time()
        for i, path in enumerate(self._files):
            if stop.is_set():
                return
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError(f"cannot read image {path}: the file is corrupt or not an "
                                  f"image; remove it from the folder or replace it")
            t = i / self.fps
            self._paced(t, start)
            yield Frame(image, t, i, time.time())
        self.on_status(SourceStatus("ended", f"{len(self._files)} images read", len(self._files) / self.fps))

    def _video_frames(self, stop: threading.Event) -> Iterator[Frame]:
        if self._cap is None and not self._open_capture():
            raise SourceError(f"cannot open video {self.spec}")
        start = time.time()
        i = 0
        try:
            while not stop.is_set():
                ok, image = self._cap.read()
                if not ok or image is None:
                    skipped, image = self._skip_damage(i)
                    if image is None:
                        break
                    self.on_status(SourceStatus(
                        "skipped", f"video {self.spec}: {skipped} unreadable frame"
                        f"{'' if skipped == 1 else 's'} skipped at {i / self.fps:.2f} s "
                        f"(frames {i}-{i + skipped - 1}, damaged file); reading on", i / self.fps))
                    i += skipped  # timestamps stay on the file's clock across the gap
                t = i / self.fps
                self._paced(t, start)
                yield Frame(image, t, i, time.time())
                i += 1
        finally:
            self.release()
        if stop.is_set():
            return
        if i == 0:
            raise SourceError(f"video {self.spec} has no readable frame: the file is corrupt "
                              f"or truncated; re-export or re-record it")
        if self.frame_count and i < self.frame_count - 1:
            self.on_status(SourceStatus(
                "truncated", f"video {self.spec} ended after {i} of {self.frame_count} frames "
                f"(file truncated or damaged); frames read so far were used", i / self.fps))
        else:
            self.on_status(SourceStatus("ended", f"{i} frames read", i / self.fps))

    def _skip_damage(self, i: int) -> tuple[int, np.ndarray | None]:
        """After a failed read at frame `i` of a file that should hold more: read on a few
        times (OpenCV moves past one bad frame per read), then try seeking past the damage.
        Bounded by `max_skip` reads and `max_seeks` seeks, so a truly truncated file still ends
        promptly. Returns (frames skipped, next image) or (0, None) when nothing more reads."""
        if not self.frame_count or i >= self.frame_count - 1 or self._cap is None:
            return 0, None
        skipped = 1
        for _ in range(self.max_skip):
            if i + skipped >= self.frame_count:
                return 0, None
            ok, image = self._cap.read()
            if ok and image is not None:
                return skipped, image
            skipped += 1
        step = max(self.max_skip, self.frame_count // 20)
        for _ in range(self.max_seeks):  # a long bad stretch: jump over it
            target = i + skipped + step
            if target >= self.frame_count:
                return 0, None
            if not self._cap.set(cv2.CAP_PROP_POS_FRAMES, target):
                return 0, None
            skipped = target - i
            ok, image = self._cap.read()
            if ok and image is not None:
                return skipped, image
            skipped += 1
        return 0, None

    def _live_frames(self, stop: threading.Event) -> Iterator[Frame]:
        clock0 = time.monotonic()
        i = 0
        attempt = 0
        connected = self._cap is not None
        ever_connected = connected
        while not stop.is_set():
            if not connected:
                attempt += 1
                if self.max_retries is not None and attempt > self.max_retries:
                    self.on_status(SourceStatus("gave_up", f"{self.spec}: no frames after "
                                                f"{self.max_retries} retries", time.monotonic() - clock0, attempt))
                    return
                delay = self.backoff.delay(attempt)
                self.on_status(SourceStatus("retrying", f"{self.spec}: retry {attempt} in {delay:.1f} s",
                                            time.monotonic() - clock0, attempt, delay))
                if stop.wait(delay):
                    return
                if not self._open_capture():
                    continue
            ok, image = self._cap.read() if self._cap is not None else (False, None)
            if not ok or image is None:
                self.release()
                if connected:
                    self.on_status(SourceStatus("dropped", f"{self.spec}: no frame (camera unplugged or "
                                                f"stream stalled); retrying", time.monotonic() - clock0))
                connected = False
                continue
            if not connected:
                self.on_status(SourceStatus(
                    "reconnected" if ever_connected else "opened", f"{self.spec}: frames flowing "
                    f"after {attempt} retr{'y' if attempt == 1 else 'ies'}", time.monotonic() - clock0, attempt))
                connected = ever_connected = True
                attempt = 0
            t = time.monotonic() - clock0
            yield Frame(image, t, i, time.time())
            i += 1
            if self.pace and self.kind == "video":  # a file standing in for a camera
                stop.wait(1.0 / self.fps)
        self.release()


class quiet_opencv:
    """OpenCV's own log silenced for a moment (opening a webcam index that is not there
    prints a dozen warnings and errors each time); our status reports say what happened."""

    def __enter__(self) -> None:
        self.level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)

    def __exit__(self, *exc) -> None:
        cv2.utils.logging.setLogLevel(self.level)


def open_source(spec: str | int, *, live: bool | None = None, fps: float | None = None,
                on_status: StatusCallback | None = None, backoff: Backoff | None = None,
                max_retries: int | None = None, pace: bool = False,
                size: tuple[int, int] | None = WEBCAM_SIZE,
                wait_for_camera: bool = False) -> FrameSource:
    """Open `spec`: an int or digit string (webcam index), an `http(s)://`/`rtsp://` URL, a
    folder of images (sorted by name, `fps` default 30), or a video file.

    Files are checked now: a missing path is `FileNotFoundError`, an empty folder or a file
    OpenCV cannot decode is `SourceError`. Webcams and URLs are live: if they cannot be opened
    yet, frames() keeps retrying with backoff (reported through `on_status`). `live=True`
    makes a video file behave like a camera (retried when it ends); `pace=True` delivers a
    file's frames at its own frame rate (a demo that looks live). `size`: the frame size a
    webcam is asked for (default `WEBCAM_SIZE`; None: the camera's own). A webcam index that
    does not open now is a `SourceError` ("no camera 7"), unless `wait_for_camera`; one that
    opened and drops later is retried like any live source.
    """
    kind = describe(spec)
    status = on_status or _no_status
    is_live = kind in ("webcam", "stream") if live is None else live
    src = FrameSource(spec=spec, kind=kind, live=is_live, fps=float(fps or 30.0), on_status=status,
                      backoff=backoff or Backoff(), max_retries=max_retries, pace=pace,
                      ask_size=size if kind == "webcam" else None)
    if kind == "folder":
        files = sorted(p for p in Path(str(spec)).iterdir()
                       if p.is_file() and p.suffix.lower() in IMAGE_EXTENSIONS)
        if not files:
            raise SourceError(f"image folder {spec} holds no images ({', '.join(IMAGE_EXTENSIONS)}); "
                              f"point at a folder of frames, a video file, a webcam index or a URL")
        src._files = files
        first = cv2.imread(str(files[0]), cv2.IMREAD_COLOR)
        if first is not None:
            src.size = (first.shape[1], first.shape[0])
        src.frame_count = len(files)
        return src
    if kind == "video":
        path = Path(str(spec))
        if is_live and not path.exists():
            return src  # a stand-in camera that is not there yet: frames() retries
        if not path.exists():
            raise FileNotFoundError(f"no such video file: {spec} (give a video file, an image "
                                    f"folder, a webcam index such as 0, or an http/rtsp URL)")
        if path.stat().st_size == 0:
            raise SourceError(f"video {spec} is empty (0 bytes): re-record or re-copy it")
        if is_live:
            src._open_capture()  # a missing stand-in camera is retried, not an error
            return src
        if not src._open_capture():
            raise SourceError(f"cannot decode video {spec}: OpenCV does not recognise it as a "
                              f"video (corrupt file or unsupported codec); re-encode it, e.g. "
                              f"`ffmpeg -i {path.name} -c:v mpeg4 fixed.mp4`")
        ok, first = src._cap.read()
        if not ok or first is None:
            src.release()
            raise SourceError(f"video {spec} has no readable frame: the file is corrupt or "
                              f"truncated; re-export or re-record it")
        src.size = (first.shape[1], first.shape[0])
        src._open_capture()  # rewind by reopening (seeking is unreliable on damaged files)
        return src
    # webcam / stream: try once now; failures are retried by frames()
    if src._open_capture():
        status(SourceStatus("opened", f"{spec}: opened"))
    elif kind == "webcam" and not wait_for_camera:
        raise SourceError(f"no camera {str(spec).strip()}: no webcam answers at that index (is it "
                          f"plugged in, or held by another program? `ls /dev/video*` lists the "
                          f"cameras; the first is 0)")
    return src
