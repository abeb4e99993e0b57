"""How fast a pot event reaches the open pages: from the POST of a `cards_played` event to the
ruling arriving on every open server-sent-events stream (median, p95), with 1 page and with 30.

    .venv/bin/python bench/web.py [--events 60] [--clients 1 30]

The server is `masta serve` (waitress, SQLite file, every event committed before it is pushed)
in its own process; the pages are raw HTTP streams in this process. Target: median < 100 ms.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from helpers_server import sse_updates  # noqa: E402
RANKS = ["4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "2", "3"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_dir: str, port: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "masta", "serve", "--port", str(port), "--data-dir", data_dir,
                             "--threads", "80"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        m = re.search(r"token=(\S+)", line)
        if m:
            threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep the pipe drained
            return proc, m.group(1)
    proc.kill()
    raise SystemExit("masta serve did not start")


class Page(threading.Thread):
    """One open page: reads `update` messages and stamps when each event seq arrived."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.request("GET", "/stream")
        self.resp = self.conn.getresponse()
        self.arrived: dict[int, float] = {}
        self.ready = threading.Event()

    def run(self) -> None:
        for now, data in sse_updates(self.resp.fp, self.ready.set):
            self.arrived[data["event"]["seq"]] = now


def post(port: int, token: str, path: str, body: dict) -> dict:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json", "X-Masta-Token": token})
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    if r.status != 201:
        raise RuntimeError(f"{path}: {r.status} {data}")
    return data


def run(port: int, token: str, n_clients: int, n_events: int, rng: random.Random) -> dict:
    pages = [Page(port) for _ in range(n_clients)]
    for p in pages:
        p.start()
    for p in pages:
        p.ready.wait(10)
    post(port, token, "/setup/api/game", {"players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee"})
    times: list[float] = []
    worst: list[float] = []
    for i in range(n_events):
        if i and i % 6 == 0:
            post(port, token, "/manual/api/events", {"type": "pot_cleared"})
            time.sleep(0.02)
        card = rng.choice(RANKS) + rng.choice("CDHS")
        t0 = time.perf_counter()
        seq = post(port, token, "/manual/api/events", {"type": "cards_played", "cards": [card]})["event"]["seq"]
        deadline = time.time() + 10
        while any(seq not in p.arrived for p in pages) and time.time() < deadline:
            time.sleep(0.0005)
        lat = [p.arrived[seq] - t0 for p in pages if seq in p.arrived]
        if len(lat) < len(pages):
            raise RuntimeError(f"event {seq} reached only {len(lat)} of {len(pages)} pages")
        times.extend(lat)
        worst.append(max(lat))
        time.sleep(0.02)
    for p in pages:
        p.conn.close()
    times.sort()
    return {"clients": n_clients, "events": n_events, "median_ms": 1000 * statistics.median(times),
            "p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
            "median_last_page_ms": 1000 * statistics.median(worst)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=60)
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 30])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"bench/web.py: {os.cpu_count()} CPU(s); masta serve (waitress + SQLite, commit before push)")
    for n in args.clients:
        with tempfile.TemporaryDirectory() as d:
            port = free_port()
            proc, token = start_server(d, port)
            try:
                r = run(port, token, n, args.events, rng)
            finally:
                proc.terminate()
                proc.wait(10)
        print(f"{r['clients']:3d} open page(s), {r['events']} pot events: POST -> ruling on the page "
              f"median {r['median_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
              f"median until the last page has it {r['median_last_page_ms']:.1f} ms"
              f"  [{'OK' if r['median_ms'] < 100 else 'over'} the 100 ms target]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
