"""masta.pool: the data generators' workers do not inherit a lock another thread holds."""
from __future__ import annotations

import threading
from concurrent.futures import TimeoutError as FuturesTimeout

from masta.pool import process_pool

LOCK = threading.Lock()


def _twice_under_the_lock(x: int) -> int:
    with LOCK:
        return 2 * x


def test_workers_start_clean_while_another_thread_holds_a_lock():
    """A forked worker would get LOCK copied as held and wait for it forever (make test once
    hung so in a video render); a forkserver's worker imports it fresh."""
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with LOCK:
            held.set()
            release.wait(120)

    t = threading.Thread(target=holder, daemon=True)
    t.start()
    held.wait(10)
    ex = process_pool(2)
    try:
        futures = [ex.submit(_twice_under_the_lock, x) for x in (1, 2)]
        assert [f.result(timeout=60) for f in futures] == [2, 4]
    except FuturesTimeout:
        for p in list(ex._processes.values()):
            p.kill()  # fail, do not hang the suite
        raise AssertionError("a worker waited for a lock held in the parent") from None
    finally:
        release.set()
        ex.shutdown(wait=False, cancel_futures=True)
        t.join(10)
