"""A hostile guest on the table's Wi-Fi against the real waitress server (issue 56, points 1,
5 and 6): idle connections, one address taking every connection or every live-update slot,
huge bodies. Real sockets on loopback; a guest is a second loopback address (127.0.0.2 and
up), the operator the server's own machine (127.0.0.1) or another address. Bounded: at most
a few hundred sockets, each test a few seconds."""
from __future__ import annotations

import http.client
import socket
import time

import pytest
from test_web import TOKEN

from web.app import create_app
from web.config import Config
from web.server import IDLE_S, MAX_BODY, PER_ADDRESS, BackgroundServer, make_server


def guest_socket(port: int, ip: str = "127.0.0.2") -> socket.socket:
    """A TCP connection from `ip` (a second loopback address: another device) that sends nothing."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    s.bind((ip, 0))
    s.connect(("127.0.0.1", int(port)))
    return s


def closed_by_server(s: socket.socket, wait: float) -> bool:
    s.settimeout(wait)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:  # reset: closed too
        return True


def http_from(ip: str, port: int, method: str, path: str, body: bytes | None = None,
              headers: dict | None = None, timeout: float = 5.0) -> tuple[int, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(ip, 0))
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def op_post(ip: str, port: int) -> int:
    return http_from(ip, port, "POST", "/setup/api/game", b'{"players": ["Ann", "Bob"]}',
                     {"X-Masta-Token": TOKEN, "Content-Type": "application/json"})[0]


@pytest.fixture
def app(tmp_path):
    return create_app(Config(data_dir=tmp_path, token=TOKEN, threads=24))


def test_the_shipped_server_bounds_idle_time_connections_per_address_and_bodies(app):
    srv = make_server(app, port=0)
    try:
        assert srv.adj.channel_timeout == IDLE_S <= 60
        assert srv.adj.max_request_body_size == MAX_BODY < 4 * 1024 * 1024
        assert srv.per_address == PER_ADDRESS <= 64
    finally:
        srv.close()


def test_idle_connections_are_closed_after_seconds(app):
    with BackgroundServer(app, threads=8, idle_s=1, cleanup_interval=0.2) as srv:
        silent = [guest_socket(srv.port) for _ in range(5)]
        t0 = time.monotonic()
        assert all(closed_by_server(s, 4) for s in silent)
        assert time.monotonic() - t0 < 4
        for s in silent:
            s.close()


def test_one_address_cannot_hold_every_connection_and_the_operator_is_served(app):
    """A guest opening 200 silent connections gets `per_address` of them; the operator's post
    from another address is answered at once, and so are the guest's own pages."""
    with BackgroundServer(app, threads=8, per_address=20) as srv:
        held = []
        for _ in range(200):
            try:
                held.append(guest_socket(srv.port))
            except OSError:
                pass
        time.sleep(0.3)  # the server's loop has accepted (and refused) them all
        alive = [s for s in held if not closed_by_server(s, 0.01)]
        assert len(alive) <= 20
        assert srv.server.refused >= 150
        t0 = time.monotonic()
        assert op_post("127.0.0.1", srv.port) == 201
        assert op_post("127.0.0.3", srv.port) == 201
        assert time.monotonic() - t0 < 3
        for s in held:
            s.close()
        time.sleep(0.3)
        assert http_from("127.0.0.2", srv.port, "GET", "/live/state.json")[0] == 200  # freed again


def test_at_the_connection_limit_idle_connections_are_shed_for_new_ones(app):
    """Many guests (one address each, under the per-address cap) fill every connection: the
    longest-idle ones are closed so the operator's new connection is still accepted."""
    with BackgroundServer(app, threads=8, per_address=10, connection_limit=60) as srv:
        held = [guest_socket(srv.port, f"127.0.0.{10 + i // 10}") for i in range(80)]
        time.sleep(0.3)
        t0 = time.monotonic()
        assert op_post("127.0.0.1", srv.port) == 201
        assert time.monotonic() - t0 < 3
        assert srv.server.shed > 0
        assert len(srv.server._map) <= 62
        for s in held:
            s.close()


def test_a_body_larger_than_the_routes_take_is_refused_before_it_is_sent(app, tmp_path):
    """Waitress answers 413 on the Content-Length alone: nothing of the 200 MB is buffered."""
    with BackgroundServer(app, threads=8) as srv:
        s = guest_socket(srv.port)
        s.sendall(b"POST /evening/api/vote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 200000000\r\n\r\n" + b"{" * 1000)
        s.settimeout(5)
        head = s.recv(200)
        assert head.startswith(b"HTTP/1.1 413"), head
        s.close()
        chunked = guest_socket(srv.port)  # no length given: counted as it comes
        chunked.sendall(b"POST /evening/api/vote HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"100000\r\n" + b"x" * 0x100000 + b"\r\n"
        try:
            for _ in range(4):
                chunked.sendall(chunk)
        except OSError:
            pass
        chunked.settimeout(5)
        assert chunked.recv(200).startswith(b"HTTP/1.1 413")
        chunked.close()


def test_one_address_cannot_take_every_live_update_slot(app):
    """A guest gets its few streams (429 past them); another phone's page still gets its own."""
    from web.events_stream import STREAMS_PER_ADDRESS
    with BackgroundServer(app, threads=24) as srv:
        held = []
        codes = []
        for _ in range(STREAMS_PER_ADDRESS + 4):
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5, source_address=("127.0.0.2", 0))
            c.request("GET", "/stream")
            r = c.getresponse()
            codes.append(r.status)
            if r.status == 200:
                r.fp.read(1)
                held.append(c)
            else:
                assert b"already has" in r.read()
                c.close()
        assert codes.count(200) == STREAMS_PER_ADDRESS and codes.count(429) == 4
        other = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5, source_address=("127.0.0.3", 0))
        other.request("GET", "/stream")
        r = other.getresponse()
        assert r.status == 200
        r.fp.read(1)
        other.close()
        held.pop().close()  # a stream closed frees its slot
        deadline = time.monotonic() + 5
        while app.extensions["masta.stream_slots"].held("127.0.0.2") >= STREAMS_PER_ADDRESS:
            assert time.monotonic() < deadline
            app.extensions["masta.broadcaster"].publish("ping", {})  # the write notices the closed socket
            time.sleep(0.1)
        assert http_from("127.0.0.2", srv.port, "GET", "/live/state.json")[0] == 200
        for c in held:
            c.close()


def test_an_open_event_stream_is_not_idle(app):
    """A page's stream sends nothing for longer than the idle limit (no event, keep-alives every
    15 s): it stays open, and the next event reaches it."""
    with BackgroundServer(app, threads=8, idle_s=1, cleanup_interval=0.2) as srv:
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10, source_address=("127.0.0.2", 0))
        c.request("GET", "/stream")
        r = c.getresponse()
        assert r.status == 200
        assert b"retry" in r.fp.readline() + r.fp.readline()
        time.sleep(3)
        app.extensions["masta.broadcaster"].publish("update", {"after": "the idle limit"})
        got = b""
        while b"the idle limit" not in got:
            line = r.fp.readline()
            assert line, "the stream was closed"
            got += line
        c.close()
