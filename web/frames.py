"""Camera frames on their way to the page: the latest JPEG (cards drawn) for the live page,
handed over by the pipeline thread, and the check that every frame a source gives is one the
watcher can read (`sane_frames`, used by the camera runner and the deck teacher alike)."""
from __future__ import annotations

import threading
import time

import numpy as np


class FrameHub:
    """Holds one JPEG; readers wait for the next one (MJPEG) or take the latest (snapshot)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._jpeg: bytes | None = None
        self._n = 0
        self.t = 0.0
        self.status = "no camera: enter plays on the manual entry page"
        #: a camera is watching now (False before it starts and once it stopped): the header's dot
        self.running = False
        #: open MJPEG streams (each holds a server thread, like an event stream)
        self.viewers = 0

    def publish(self, jpeg: bytes) -> None:
        with self._cond:
            self._jpeg = jpeg
            self._n += 1
            self.t = time.time()
            self._cond.notify_all()

    def latest(self) -> bytes | None:
        with self._cond:
            return self._jpeg

    def wait_next(self, after: int, timeout: float = 5.0) -> tuple[int, bytes | None]:
        with self._cond:
            self._cond.wait_for(lambda: self._n != after, timeout=timeout)
            return self._n, self._jpeg


def sane_frames(frames_fn, report):
    """Wrap a source's `frames()` so the watcher always gets what it expects: 8-bit BGR
    frames of one size. A grey or 4-channel frame is converted, a frame of another size is
    resized to the first frame's size; each kind of fix is reported once (to the page)."""
    import cv2

    def frames(stop=None):
        size = None
        said: set[str] = set()
        for frame in frames_fn(stop):
            img = frame.image
            fixes = []
            if img.dtype != np.uint8:
                img = np.clip(img, 0, 255).astype(np.uint8)
                fixes.append(f"{frame.image.dtype} pixels")
            if img.ndim == 2 or (img.ndim == 3 and img.shape[2] == 1):
                img = cv2.cvtColor(img.reshape(img.shape[:2]), cv2.COLOR_GRAY2BGR)
                fixes.append("grey frames")
            elif img.ndim == 3 and img.shape[2] == 4:
                img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
                fixes.append("4-channel frames")
            elif img.ndim != 3 or img.shape[2] != 3:
                if "shape" not in said:
                    said.add("shape")
                    report(f"camera frames of shape {img.shape} cannot be read: skipped")
                continue
            if size is None:
                size = img.shape[1], img.shape[0]
            elif (img.shape[1], img.shape[0]) != size:
                fixes.append(f"frames of {img.shape[1]}x{img.shape[0]} instead of {size[0]}x{size[1]} (resized)")
                img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
            for fix in fixes:
                key = fix.split(" (")[0]
                if key not in said:
                    said.add(key)
                    report(f"camera sends {fix}: converted, the game goes on")
            frame.image = img
            yield frame
    return frames
