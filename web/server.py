"""Serving the app with waitress (a production WSGI server, not Flask's development one).

Guarded against a guest on the table's Wi-Fi: connections idle for `IDLE_S` are closed, one
client address holds at most `PER_ADDRESS` connections (the server's own machine excepted),
and when every connection is taken the longest-idle ones are shed so that new ones (the
operator's posts) are still accepted. A request body larger than the routes take is refused
by waitress itself before it is buffered.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable

from waitress.adjustments import Adjustments
from waitress.server import TcpWSGIServer, create_server
from waitress.task import ThreadedTaskDispatcher

#: seconds a connection may sit without sending or receiving before it is closed (a page's
#: event stream is never idle: it has a request running and keep-alives every 15 s)
IDLE_S = 20
#: connections one client address may hold (a phone with several pages open needs a few)
PER_ADDRESS = 32
#: connections in all; at the limit the longest-idle ones are closed to make room
CONNECTION_LIMIT = 1000
#: addresses never capped per address: the machine the server runs on
TRUSTED = ("127.0.0.1", "::1")
#: the largest request body any route takes (Flask's MAX_CONTENT_LENGTH, web/app.py), with
#: room for the form encoding; waitress refuses a larger one (413) before buffering it
MAX_BODY = 2 * 1024 * 1024 + 64 * 1024


def make_server(app, host: str = "127.0.0.1", port: int = 8000, threads: int = 64, *,
                idle_s: float = IDLE_S, per_address: int = PER_ADDRESS,
                connection_limit: int = CONNECTION_LIMIT, trusted: Iterable[str] = TRUSTED,
                cleanup_interval: float | None = None):
    """A waitress server; `port=0` picks a free port (`server.effective_port`).

    Each open page's event stream holds one worker thread, hence the many threads.
    """
    kw = dict(host=host, port=port, threads=threads, channel_timeout=idle_s,
              connection_limit=connection_limit, ident="masta",
              cleanup_interval=cleanup_interval or max(1, min(5, idle_s / 2)),
              max_request_body_size=MAX_BODY, clear_untrusted_proxy_headers=True,
              outbuf_high_watermark=OUTBUF_ROTATE)
    adj = Adjustments(**kw)
    if len(adj.listen) != 1:  # several addresses for one host name: waitress' own servers, uncapped
        return create_server(app, **kw)
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    return GuardedServer(app, {}, dispatcher=dispatcher, adj=adj, sockinfo=adj.listen[0],
                         per_address=per_address, trusted=trusted)


class GuardedServer(TcpWSGIServer):
    """waitress' server with a per-address cap and idle connections shed when full."""

    def __init__(self, *a, per_address: int = PER_ADDRESS, trusted: Iterable[str] = TRUSTED, **kw):
        self.per_address = per_address
        self.trusted = frozenset(trusted)
        self.shed = 0  # idle connections closed to make room
        self.refused = 0  # connections closed at once: their address held too many
        super().__init__(*a, **kw)

    def readable(self) -> bool:
        # waitress stops accepting at the connection limit; close the longest-idle ones instead
        if self.accepting and len(self._map) >= self.adj.connection_limit:
            self._shed(len(self._map) - self.adj.connection_limit + max(1, self.adj.connection_limit // 20))
        return super().readable()

    def _shed(self, n: int) -> None:
        """Mark the `n` longest-idle connections to close (the loop closes them on its next turn:
        not now, as the poll may be listing them)."""
        chans = list(self.active_channels.values())
        n -= sum(1 for c in chans if c.will_close)
        idle = sorted((c for c in chans if not c.requests and not c.will_close), key=lambda c: c.last_activity)
        for channel in idle[:max(0, n)]:
            channel.will_close = True
            self.shed += 1

    def handle_accept(self) -> None:
        try:
            v = self.accept()
            if v is None:
                return
            conn, addr = v
            self.set_socket_options(conn)
        except OSError:
            return
        addr = self.fix_addr(addr)
        ip = addr[0] if isinstance(addr, tuple) else addr
        if ip not in self.trusted:
            held = sum(1 for c in self.active_channels.values()
                       if isinstance(c.addr, tuple) and c.addr[0] == ip and not c.will_close)
            if held >= self.per_address:
                self.refused += 1
                conn.close()
                return
        self.channel_class(self, conn, addr, self.adj, map=self._map)

#: Waitress keeps every byte a connection has sent in its output buffer (an in-memory file
#: that is read forward, never shrunk) until the buffer reaches `outbuf_high_watermark`
#: and is replaced: 16 MB by default. A page's event stream stays open all evening, so each
#: one slowly held up to 16 MB (the soak's memory growth, docs/reliability.md). Rotating
#: every 256 kB bounds that; it is also how far a slow phone may fall behind before its
#: stream's thread waits for it.
OUTBUF_ROTATE = 256 * 1024


class BackgroundServer:
    """Run a waitress server in a thread (tests and the benchmark use it)."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, threads: int = 64, **guards):
        self.app = app
        self.server = make_server(app, host, port, threads, **guards)
        self.port = self.server.effective_port
        self.url = f"http://{host}:{self.port}"
        self._stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="masta-waitress", daemon=True)

    def _loop(self) -> None:
        srv = self.server
        while not self._stopping.is_set():
            srv.asyncore.loop(timeout=0.1, map=srv._map, count=1)

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.app.extensions["masta.broadcaster"].close_all()
        self._stopping.set()
        self.thread.join(timeout=5)
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=3)
        for channel in list(self.server._map.values()):
            if channel is not self.server:
                channel.close()
        self.server.close()
