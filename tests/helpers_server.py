"""A real `masta serve` in its own process, for the fault, access and load tests: start it on
a free loopback port over a real SQLite file, talk JSON to it, SIGKILL it, start it again."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_until(proc: subprocess.Popen, done, lines: list[str], deadline: float) -> str | None:
    """Read `proc`'s output a line at a time into `lines` until `done(line)` (returns that
    line), the output ends or `deadline` passes (None)."""
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            return None
        lines.append(line)
        if done(line):
            return line
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    def json(self):
        return json.loads(self.body)


def request(port: int, method: str, path: str, body=None, headers: dict | None = None,
            timeout: float = 15.0) -> Reply:
    """One HTTP request on a fresh connection (raises OSError when the server is gone)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else (body if isinstance(body, (bytes, str)) else json.dumps(body))
        hdrs = {"Content-Type": "application/json"} if body is not None else {}
        hdrs.update(headers or {})
        c.request(method, path, body=data, headers=hdrs)
        r = c.getresponse()
        return Reply(r.status, r.read(), {k.lower(): v for k, v in r.getheaders()})
    finally:
        c.close()


class Serve:
    """`masta serve --data-dir DIR --port PORT` as a subprocess; `start()` again after `kill()`."""

    def __init__(self, data_dir: Path, port: int | None = None, extra: list[str] | None = None,
                 token: str | None = None):
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.extra = list(extra or [])
        self.token = token
        self.proc: subprocess.Popen | None = None
        self.output: list[str] = []

    def start(self, timeout: float = 60.0) -> "Serve":
        cmd = [sys.executable, "-m", "masta", "serve", "--port", str(self.port), "--data-dir",
               str(self.data_dir), *self.extra]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
        line = read_until(self.proc, lambda ln: "token=" in ln, self.output, time.time() + timeout)
        m = re.search(r"token=(\S+)", line or "")
        if m:
            self.token = m.group(1)
            threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()
            return self  # bound before the link is printed
        self.kill()
        raise RuntimeError("masta serve did not start:\n" + "".join(self.output[-20:]))

    def _drain(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            self.output.append(line)

    def kill(self) -> None:
        """SIGKILL: no clean-up runs, exactly like a power cut for the process."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def op(self, method: str, path: str, body=None, **kw) -> Reply:
        """A request with the operator's token."""
        return request(self.port, method, path, body, {"X-Masta-Token": self.token or ""}, **kw)

    def get_json(self, path: str):
        r = request(self.port, "GET", path)
        assert r.status == 200, (path, r.status, r.body[:300])
        return r.json()

    def log(self) -> list[dict]:
        """The stored event log, as Export serves it (JSON lines)."""
        r = request(self.port, "GET", "/export/evening.jsonl")
        assert r.status == 200, r.body[:300]
        return [json.loads(line) for line in r.body.decode().splitlines() if line.strip()]

    def __enter__(self) -> "Serve":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def game_requests(seeds=(0,), players: int = 4, offset: int = 0) -> list[tuple[str, dict]]:
    """Whole bot games (referee.camera_stream) as the (route, body) posts an operator's device
    or the camera would make, one after another in the same evening. Each body is tagged
    with `meta.i` (its place in the feed) so a stored log can be checked for gaps and doubles,
    and a request id `meta.rid`, so a post sent again after a lost answer is recorded once.
    `offset`: how many events the evening's log holds before the first game's setup."""
    from referee.camera_stream import stream_game

    out: list[tuple[str, dict]] = []
    for seed in seeds:
        events = stream_game("fr", players, seed=seed).events
        for ev in events:
            body = {k: v for k, v in ev.items() if k not in ("seq", "t", "source", "game")}
            if "event" in body:
                body["event"] = int(body["event"]) + offset
            body["meta"] = {"i": len(out), "rid": f"feed-{seed}-{ev['seq']}"}
            route = "/setup/api/game" if ev["type"] == "setup" else "/manual/api/events"
            out.append((route, body))
        offset += len(events)
    return out


def sse_updates(fp, on_connected=None):
    """Yield (arrival time, payload) for each `update` event on a server-sent event stream,
    calling `on_connected` when the server's greeting comes; ends when the stream closes."""
    name = None
    while True:
        line = fp.readline()
        if not line:
            return
        now = time.perf_counter()
        if line.startswith(b": connected"):
            if on_connected is not None:
                on_connected()
        elif line.startswith(b"event: "):
            name = line[7:].strip()
        elif line.startswith(b"data: ") and name == b"update":
            yield now, json.loads(line[6:])
