"""Keep a long-running referee's memory flat: big buffers go back to the system when freed.

glibc serves a large allocation (a video frame, a detector input of 2.4 MB) with its own
mmap and returns it on free, but each such free raises the threshold (up to 32 MB), so the
next frames come from the heap instead, where the small, long-lived allocations of the web
server's threads land between them and the freed space can no longer be returned. Over a
2-hour soak (docs/reliability.md) the server grew 265 -> 384 MB that way; with the threshold
pinned at glibc's own default the same soak stays flat. Pinning it (mallopt) also stops the
dynamic trim threshold, so the top of the heap is given back past glibc's 128 KiB default.
"""
from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 * 1024  # glibc's default, kept fixed instead of drifting up

_done = False


def steady_heap() -> bool:
    """Pin glibc's mmap threshold (and so its trim threshold) for this process; True when it took effect
    (False elsewhere than glibc, where there is nothing to do). Safe to call twice."""
    global _done
    if _done:
        return True
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl, macOS, Windows
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    return _done
