"""The latest camera frame (JPEG, cards drawn) for the live page, handed over by the pipeline thread."""
from __future__ import annotations

import threading
import time


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
