"""Serving the app with waitress (a production WSGI server, not Flask's development one)."""
from __future__ import annotations

import threading

from waitress.server import create_server


def make_server(app, host: str = "127.0.0.1", port: int = 8000, threads: int = 64):
    """A waitress server; `port=0` picks a free port (`server.effective_port`).

    Each open page's event stream holds one worker thread, hence the many threads.
    """
    return create_server(app, host=host, port=port, threads=threads,
                         channel_timeout=3600, connection_limit=1000, ident="masta",
                         clear_untrusted_proxy_headers=True,
                         outbuf_high_watermark=OUTBUF_ROTATE)


#: Waitress keeps every byte a connection has sent in its output buffer (an in-memory file
#: that is read forward, never shrunk) until the buffer reaches `outbuf_high_watermark`
#: and is replaced: 16 MB by default. A page's event stream stays open all evening, so each
#: one slowly held up to 16 MB (the soak's memory growth, docs/reliability.md). Rotating
#: every 256 kB bounds that; it is also how far a slow phone may fall behind before its
#: stream's thread waits for it.
OUTBUF_ROTATE = 256 * 1024


class BackgroundServer:
    """Run a waitress server in a thread (tests and the benchmark use it)."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, threads: int = 64):
        self.app = app
        self.server = make_server(app, host, port, threads)
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
