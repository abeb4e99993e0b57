"""masta.heap: freed memory goes back to the system (the soak's memory growth).

Each case runs in a fresh interpreter (glibc's settings are per process) through C's own
malloc and free, and prints how many MB of resident memory a free (or a trim) gave back.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
glibc_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc behaviour")

PREAMBLE = r"""
import ctypes, re, sys
sys.path.insert(0, {root!r})
from masta.heap import steady_heap, trim
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
def rss():
    return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/self/status").read()).group(1)) / 1024
"""

# Allocate and free 16 MB (glibc then raises its mmap threshold), allocate 16 MB again, pin
# the heap top with small blocks, free the 16 MB.
FRAME = r"""
if {steady}:
    assert steady_heap(trim_every=None)
N = 16 << 20
p = libc.malloc(N); ctypes.memset(p, 1, N); libc.free(p)
p = libc.malloc(N); ctypes.memset(p, 1, N)
pins = [libc.malloc(64) for _ in range(100)]
held = rss()
libc.free(p)
print(held - rss())
"""

# 12.8 MB of heap blocks below the mmap threshold, the heap top pinned, all freed, then trim().
TRIM = r"""
blocks = [libc.malloc(64 << 10) for _ in range(200)]
for b in blocks:
    ctypes.memset(b, 1, 64 << 10)
pin = libc.malloc(64)  # keeps the heap's top in place: free() alone cannot shrink it
for b in blocks:
    libc.free(b)
before = rss()
if {trim}:
    trim()
print(before - rss())
"""


def given_back_mb(script: str, **fields) -> float:
    code = (PREAMBLE + script).format(root=str(ROOT), **fields)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out)


@glibc_only
def test_a_freed_frame_sized_buffer_goes_back_to_the_system():
    assert given_back_mb(FRAME, steady=True) > 14
    # the default behaviour this guards against: the second buffer came from the heap and stays
    assert given_back_mb(FRAME, steady=False) < 2


@glibc_only
def test_trim_gives_back_free_pages_in_the_middle_of_the_heap():
    assert given_back_mb(TRIM, trim=True) > 8
    assert given_back_mb(TRIM, trim=False) < 2  # free() alone keeps them


def test_steady_heap_can_be_called_twice():
    from masta.heap import steady_heap
    first = steady_heap(trim_every=None)
    assert steady_heap() == first
