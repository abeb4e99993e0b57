"""Keep a long-running referee's memory flat: freed memory goes back to the system.

glibc serves a large allocation (a video frame, a detector input of 2.4 MB) with its own
mmap and returns it on free, but each such free raises the threshold (up to 32 MB), so the
next frames come from the heap instead, where the small, long-lived allocations of the web
server's threads land between them and the freed space can no longer be returned. Each of
those threads also gets its own arena, whose free pages glibc only gives back when asked.
Over a 2-hour soak (docs/reliability.md) the server grew 265 -> 384 MB, partly that way
(the rest was waitress keeping what event streams had sent: web/server.py). So:
pin the mmap threshold at glibc's own default (which also stops the trim threshold from
drifting up), and ask glibc every minute to give back what is free in every arena.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time

M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 * 1024  # glibc's default, kept fixed instead of drifting up
TRIM_EVERY_S = 60.0

_done: bool | None = None


def _libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.mallopt.restype = ctypes.c_int
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
        return libc
    except (OSError, AttributeError):  # musl, macOS, Windows: nothing to do
        return None


def trim() -> bool:
    """Give free heap pages of every arena back to the system now (True if any were)."""
    libc = _libc()
    return bool(libc and libc.malloc_trim(0))


def _trim_forever(libc, every: float) -> None:
    while True:
        time.sleep(every)
        libc.malloc_trim(0)


def steady_heap(trim_every: float | None = TRIM_EVERY_S) -> bool:
    """Pin glibc's mmap threshold for this process and start a daemon thread that trims the
    heap every `trim_every` seconds (None: no thread). True when it took effect (False where
    the C library is not glibc). Done once per process; later calls return the first answer."""
    global _done
    if _done is not None:
        return _done
    libc = _libc()
    _done = bool(libc and libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    if _done and trim_every:
        threading.Thread(target=_trim_forever, args=(libc, trim_every), daemon=True,
                         name="masta-heap-trim").start()
    return _done
