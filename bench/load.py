"""Load: 30 phones watching and voting, plus the operator entering and correcting events,
against one `masta serve` (waitress + SQLite file) on loopback.

    .venv/bin/python bench/load.py [--phones 30] [--games 3] [--players 8] [--max-seconds 300]

Each phone is its own device (cookie session, CSRF token from the page) holding the live
event stream open (/stream) and, after every game, voting on the MASTA's order for the
player it belongs to, with that player's voting code from the operator (two or more phones
claim each name, so the server must refuse the extra ones). The operator posts whole bot games (referee.camera_stream) back to back as
fast as the server takes them, with a correction or a note every 7th event, then the
order. Reported: events per second committed, latency from an event's POST to every open
page having it (median, p95, p99, max), vote latency, and the checks: no event lost or
pushed twice on any page, the stored log gap-free and without doubles, no vote counted
twice, and the accepted votes equal to the stored ones.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from helpers_server import Serve, game_requests, request, sse_updates  # noqa: E402

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fox", "Gus", "Hal", "Ivy", "Jo", "Kim"]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))] if xs else float("nan")


class Phone(threading.Thread):
    """One phone: a device session, the event stream open, votes on demand."""

    def __init__(self, port: int, name: str):
        super().__init__(daemon=True)
        self.port, self.name = port, name
        r = request(port, "GET", "/evening/")
        self.cookie = r.headers["set-cookie"].split(";")[0]
        self.csrf = re.search(rb'name="csrf-token" content="([^"]+)"', r.body).group(1).decode()
        self.arrived: dict[int, float] = {}
        self.doubles = 0
        self.out_of_order = 0
        self.ready = threading.Event()
        self.votes: list[tuple[int, int, float]] = []  # (order, status, seconds)
        self.code = ""  # the player's voting code, handed out by the operator (its Evening page)

    def run(self) -> None:
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        c.request("GET", "/stream", headers={"Cookie": self.cookie})
        resp = c.getresponse()
        last = 0
        for now, data in sse_updates(resp.fp, self.ready.set):
            seq = data["event"]["seq"]
            if seq in self.arrived:
                self.doubles += 1
            if seq < last:
                self.out_of_order += 1
            last = seq
            self.arrived.setdefault(seq, now)

    def vote(self, order: int, serves: bool) -> int:
        t0 = time.perf_counter()
        r = request(self.port, "POST", "/evening/api/vote",
                    {"order": order, "player": self.name, "serves": serves, "code": self.code},
                    headers={"Cookie": self.cookie, "X-CSRF-Token": self.csrf})
        self.votes.append((order, r.status, time.perf_counter() - t0))
        return r.status


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, default=30)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--max-seconds", type=float, default=300.0, help="stop feeding after this long")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    players = NAMES[: args.players]
    print(f"bench/load.py: {os.cpu_count()} CPU(s); masta serve on loopback (waitress, SQLite, commit before push); "
          f"{args.phones} phones, {args.games} games of {args.players} players")
    with tempfile.TemporaryDirectory() as d, Serve(Path(d)) as srv:  # masta serve as shipped (--threads 96)
        phones = [Phone(srv.port, players[i % len(players)]) for i in range(args.phones)]
        for p in phones:
            p.start()
        for p in phones:
            assert p.ready.wait(20), "a phone's stream did not open"
        sent: dict[int, float] = {}
        accepted = 0
        kinds: dict[str, int] = {}
        t_start = time.perf_counter()
        feed_seconds = 0.0
        vote_ok: dict[int, list[str]] = {}
        for g in range(args.games):
            if time.perf_counter() - t_start > args.max_seconds:
                break
            feed = game_requests((args.seed * 100 + g,), args.players)
            real: dict[int, int] = {}  # the game's own seq -> its seq in the evening's log
            cards_seqs: list[tuple[int, list[str]]] = []
            t0 = time.perf_counter()
            for k, (route, body) in enumerate(feed):
                if "event" in body:
                    body = dict(body, event=real[body["event"]])
                for route, body in ([(route, body)] + ([_correction(rng, cards_seqs)] if k % 7 == 6 and cards_seqs else [])):
                    ts = time.perf_counter()
                    r = srv.op("POST", route, body, timeout=60)
                    if r.status != 201:
                        raise SystemExit(f"the server refused {route} {body}: {r.status} {r.body[:200]!r}")
                    ev = r.json()["event"]
                    sent[ev["seq"]] = ts
                    if "i" in (body.get("meta") or {}):
                        real[body["meta"]["i"] + 1] = ev["seq"]
                    accepted += 1
                    kinds[ev["type"]] = kinds.get(ev["type"], 0) + 1
                    if ev["type"] == "cards_played":
                        cards_seqs.append((ev["seq"], ev["cards"]))
            feed_seconds += time.perf_counter() - t0
            ev_view = srv.get_json("/evening/data.json")
            titles = ev_view.get("titles_now") or {}
            masta = next((p for p, t in titles.items() if t == "MASTA"), None)
            if masta is None:
                print(f"game {g + 1}: did not end (no MASTA): no order this time")
                continue
            r = srv.op("POST", "/evening/api/events", {"type": "order", "player": masta, "text": f"order {g + 1}"})
            order = r.json()["event"]["seq"]
            sent[order] = time.perf_counter()
            accepted += 1
            codes = srv.op("GET", "/evening/data.json").json().get("voter_codes", {})
            for p in phones:
                p.code = codes.get(p.name, "")
            barrier = threading.Barrier(len(phones))
            results: list[tuple[Phone, int]] = []

            def cast(p: Phone) -> None:
                barrier.wait()
                results.append((p, p.vote(order, rng.random() < 0.5)))
            threads = [threading.Thread(target=cast, args=(p,)) for p in phones]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            vote_ok[order] = [p.name for p, s in results if s == 201]
            accepted += len(vote_ok[order])
            print(f"game {g + 1}: {len(feed)} events, order {order}: {len(vote_ok[order])} votes taken of "
                  f"{len(phones)} phones ({sum(1 for _, s in results if s == 403)} refused as someone else's name, "
                  f"{sum(1 for _, s in results if s == 400)} refused by the rules)")
        time.sleep(1.0)  # the last pushes
        log = srv.log()
        # --- checks -------------------------------------------------------------------------------
        seqs = [e["seq"] for e in log]
        problems = []
        if seqs != list(range(1, len(log) + 1)):
            problems.append("stored log has gaps or doubles")
        if len(log) != accepted:
            problems.append(f"stored {len(log)} events but {accepted} were acknowledged")
        lost = sum(1 for p in phones for s in range(1, len(log) + 1) if s not in p.arrived)
        doubles = sum(p.doubles for p in phones)
        disorder = sum(p.out_of_order for p in phones)
        if lost:
            problems.append(f"{lost} (page, event) pairs never arrived")
        if doubles or disorder:
            problems.append(f"{doubles} events pushed twice, {disorder} out of order")
        for order, names in vote_ok.items():
            stored = [e["player"] for e in log if e["type"] == "vote" and e["order"] == order]
            if sorted(stored) != sorted(names) or len(set(stored)) != len(stored):
                problems.append(f"order {order}: votes taken {sorted(names)} but stored {sorted(stored)}")
        lat = [p.arrived[s] - t for s, t in sent.items() for p in phones if s in p.arrived]
        vlat = [v[2] for p in phones for v in p.votes]
        print(f"events committed: {accepted} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}, "
              f"votes {sum(len(v) for v in vote_ok.values())}) in {feed_seconds:.1f} s of feeding: "
              f"{(accepted - sum(len(v) for v in vote_ok.values())) / feed_seconds:.1f} events/s with {len(phones)} pages open")
        print(f"POST -> on every page ({len(lat)} deliveries): median {1000 * statistics.median(lat):.1f} ms, "
              f"p95 {1000 * pct(lat, 0.95):.1f} ms, p99 {1000 * pct(lat, 0.99):.1f} ms, max {1000 * max(lat):.1f} ms")
        print(f"votes ({len(vlat)} posts, 30 at once per order): median {1000 * statistics.median(vlat):.1f} ms, "
              f"p95 {1000 * pct(vlat, 0.95):.1f} ms, max {1000 * max(vlat):.1f} ms")
        print("checks: " + ("OK: no event lost or pushed twice on any page, log gap-free, no vote counted twice"
                            if not problems else "FAILED: " + "; ".join(problems)))
        return 1 if problems else 0


def _correction(rng: random.Random, cards_seqs: list[tuple[int, list[str]]]) -> tuple[str, dict]:
    """The operator at work: re-confirm what the camera read (a correct with the same cards) or a note."""
    seq, cards = rng.choice(cards_seqs[-12:])
    if rng.random() < 0.5:
        return "/rulings/api/corrections", {"type": "correct", "event": seq, "cards": cards}
    return "/rulings/api/corrections", {"type": "note", "event": seq, "text": "checked"}


if __name__ == "__main__":
    sys.exit(main())
