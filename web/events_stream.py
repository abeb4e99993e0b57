"""Server-sent events: every open page gets each update pushed as it is committed.

One `Broadcaster` per app. Each open page holds a small queue; `publish` puts the message
on every queue (never blocking: a page too slow to keep up is dropped and reconnects,
getting what it missed from the JSON snapshot). Browsers reconnect by themselves
(EventSource), so a restarted server just picks them up again.
"""
from __future__ import annotations

import itertools
import json
import queue
import threading
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, request, stream_with_context

bp = Blueprint("stream", __name__)


class Broadcaster:
    """Fan-out of messages to every subscribed page."""

    def __init__(self, max_queue: int = 256):
        self._subs: set[queue.Queue] = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.max_queue = max_queue

    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=self.max_queue)
        with self._lock:
            self._subs.add(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            self._subs.discard(q)

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, name: str, data: dict) -> int:
        """Send one message named `name`; returns how many pages it was queued for."""
        msg = f"id: {next(self._ids)}\nevent: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
        with self._lock:
            subs = list(self._subs)
        sent = 0
        for q in subs:
            try:
                q.put_nowait(msg)
                sent += 1
            except queue.Full:  # a stuck page: drop it, its browser reconnects
                self.unsubscribe(q)
                try:
                    q.put_nowait(None)
                except queue.Full:
                    pass
        return sent

    def close_all(self) -> None:
        with self._lock:
            subs = list(self._subs)
            self._subs.clear()
        for q in subs:
            try:
                q.put_nowait(None)
            except queue.Full:
                pass


def _stream(broadcaster: Broadcaster, keepalive_s: float) -> Iterator[str]:
    q = broadcaster.subscribe()
    try:
        yield "retry: 1000\n: connected\n\n"
        while True:
            try:
                msg = q.get(timeout=keepalive_s)
            except queue.Empty:
                yield ": keep-alive\n\n"
                continue
            if msg is None:
                return
            yield msg
    finally:
        broadcaster.unsubscribe(q)


#: worker threads kept free of event streams, so posts and pages are answered however many
#: pages are open (each open stream holds one waitress thread)
RESERVED_THREADS = 8


#: long-lived streams (event streams, camera pictures) one client address may hold: a phone
#: with a few pages open needs a handful; one guest cannot take every slot
STREAMS_PER_ADDRESS = 8
#: never capped per address: the machine the server runs on (web/server.py's TRUSTED)
TRUSTED_ADDRESSES = ("127.0.0.1", "::1")


class AddressSlots:
    """How many long-lived streams each client address holds (the server's own machine uncounted)."""

    def __init__(self, per_address: int = STREAMS_PER_ADDRESS, trusted: tuple[str, ...] = TRUSTED_ADDRESSES):
        self.per_address = per_address
        self.trusted = frozenset(trusted)
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, addr: str | None):
        """A release function if `addr` may open one more stream, else None."""
        addr = addr or "?"
        if addr in self.trusted:
            return lambda: None
        with self._lock:
            if self._held.get(addr, 0) >= self.per_address:
                return None
            self._held[addr] = self._held.get(addr, 0) + 1
        done = threading.Event()

        def release() -> None:
            if done.is_set():
                return
            done.set()
            with self._lock:
                left = self._held.get(addr, 0) - 1
                if left > 0:
                    self._held[addr] = left
                else:
                    self._held.pop(addr, None)
        return release

    def held(self, addr: str) -> int:
        with self._lock:
            return self._held.get(addr, 0)


def take_stream_slot():
    """(release function, None), or (None, why this client may open no more streams)."""
    slots: AddressSlots = current_app.extensions.setdefault("masta.stream_slots", AddressSlots())
    full = streams_full()
    if full is not None:
        return None, full
    release = slots.take(request.remote_addr)
    if release is None:
        return None, (f"this device already has {slots.per_address} live pages open: close one, "
                      f"or wait a few seconds")
    return release, None


def streams_full() -> str | None:
    """Why one more long-lived stream (event stream or MJPEG) must be refused, or None."""
    app = current_app
    limit = max(1, app.config["MASTA"].threads - RESERVED_THREADS)
    frames = app.extensions.get("masta.frames")
    held = app.extensions["masta.broadcaster"].clients + (frames.viewers if frames is not None else 0)
    if held >= limit:
        return (f"too many open pages ({limit} streams): try again later, or start the server with "
                f"more --threads")
    return None


@bp.get("/stream")
def stream() -> Response:
    """The event stream every page listens to (`update`, `evening`, `frame` messages)."""
    app = current_app
    release, full = take_stream_slot()
    if full is not None:
        resp = Response(f"retry: 5000\n: {full}\n\n", status=503 if "open pages" in full else 429,
                        mimetype="text/event-stream")
        resp.headers["Retry-After"] = "5"
        return resp
    resp = Response(stream_with_context(_stream(app.extensions["masta.broadcaster"],
                                                app.config["MASTA"].keepalive_s)),
                    mimetype="text/event-stream")
    resp.call_on_close(release)
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
