"""Worker processes for the data generators (synthetic pots, training videos), started clean.

Forking a process that runs threads copies into the child every lock that some thread held
at that instant, and no thread in the child will ever release it: `make test` once hung for
good in test_train's video render, both children of the pool idle on a futex (the pytest
process had the heap trimmer's, onnxruntime's and the web server's threads running). A
forkserver forks each worker from a fresh process that runs no other thread instead.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def _one_thread() -> None:
    """Each worker draws on one core: as many workers as cores, not OpenCV's threads in each."""
    import cv2

    cv2.setNumThreads(1)


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` processes forked from a forkserver, one OpenCV thread each."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=_one_thread)
