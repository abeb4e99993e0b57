"""masta.heap: a freed frame-sized buffer goes back to the system (the soak's memory growth)."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Allocate and free 16 MB (glibc then raises its mmap threshold), allocate 16 MB again, pin
# the heap top with a small block, free the 16 MB: print how much of it is still resident.
SCRIPT = r"""
import ctypes, re, sys
sys.path.insert(0, {root!r})
if {steady}:
    from masta.heap import steady_heap
    assert steady_heap()
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
def rss():
    return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/self/status").read()).group(1)) / 1024
N = 16 << 20
p = libc.malloc(N); ctypes.memset(p, 1, N); libc.free(p)
p = libc.malloc(N); ctypes.memset(p, 1, N)
pins = [libc.malloc(64) for _ in range(100)]
held = rss()
libc.free(p)
print(held - rss())
"""


def returned_mb(steady: bool) -> float:
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(root=str(ROOT), steady=steady)],
                         capture_output=True, text=True, check=True).stdout
    return float(out)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc behaviour")
def test_a_freed_frame_sized_buffer_goes_back_to_the_system():
    assert returned_mb(steady=True) > 14
    # the default behaviour this guards against: the second buffer came from the heap and stays
    assert returned_mb(steady=False) < 2


def test_steady_heap_can_be_called_twice():
    from masta.heap import steady_heap
    first = steady_heap()
    assert steady_heap() == first


TRIM_SCRIPT = r"""
import ctypes, re, sys
sys.path.insert(0, {root!r})
from masta.heap import trim
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
def rss():
    return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/self/status").read()).group(1)) / 1024
blocks = [libc.malloc(64 << 10) for _ in range(200)]  # 12.8 MB of heap, below the mmap threshold
for b in blocks:
    ctypes.memset(b, 1, 64 << 10)
pin = libc.malloc(64)  # keeps the heap's top in place: free() alone cannot shrink it
for b in blocks:
    libc.free(b)
before = rss()
trim()
print(before - rss())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc behaviour")
def test_trim_gives_back_free_pages_in_the_middle_of_the_heap():
    out = subprocess.run([sys.executable, "-c", TRIM_SCRIPT.format(root=str(ROOT))],
                         capture_output=True, text=True, check=True).stdout
    assert float(out) > 8
