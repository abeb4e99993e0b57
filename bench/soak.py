"""A soak: a game video looped through the whole pipeline and the server, pages open,
memory and open files sampled over time.

    .venv/bin/python bench/soak.py --minutes 120 [--detector model|oracle] [--video V.mp4] [--pages 6]

Two processes. The *server* (this script with `--serve`) is what `masta serve --source
VIDEO` runs: create_app + waitress on loopback + web.camera's pipeline (vision.source with the
video opened as a live camera, so it loops; vision.pipeline; the pot watcher with evidence
frames; the table referee; the SQLite store), with the trained model from models/ by default
(`--detector model`, what `masta serve` loads) or the renderer's ORACLE detector
(`--detector oracle`: measures the server and the pipeline without the model's misreads). At the start
of every loop it sets up a new game, and it posts the truth log's operator events (Ace
targets, Turbo attributions) a second after their time, like an operator at the table; every
`--games-per-evening` games it starts a new evening, as a club would.

The *watcher* (this script) keeps `--pages` server-sent-event streams, one MJPEG stream and a
poller of the JSON pages open, and every `--every` seconds samples the server's resident
memory (VmRSS), its open file descriptors, its threads, the events committed, and the
latency from a frame's arrival to its ruling being published (pipeline) and from publishing
to a page receiving it (push). It prints one line per sample and a summary with the slope of
memory and files over the second half of the run (flat = leak-free). The server pins glibc's
heap thresholds as `masta` does (masta/heap.py); `--default-heap` leaves them alone, to compare.
"""
from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pct(xs: list[float], q: float) -> float:
    """Nearest-rank percentile: the smallest value with at least q of the values at or below it."""
    ys = sorted(xs)
    return ys[max(0, min(len(ys) - 1, math.ceil(q * len(ys)) - 1))]


# ------------------------------------------------------------------------------- server side
def serve(args) -> int:
    """The server process: app + waitress + the camera pipeline on the looped video."""
    from masta.heap import steady_heap
    from datasets.game_video import OracleDetector, read_frames_truth, read_truth
    from vision.pipeline import Pipeline
    from vision.pot_watcher import WatcherConfig
    from vision.source import Backoff, open_source
    from web.app import create_app
    from web.camera import CameraRunner
    from web.frames import sane_frames
    from web.config import Config
    from web.server import make_server

    if not args.default_heap:
        steady_heap()  # as `masta serve` does
    video = Path(args.video)
    stem = str(video)[: -len(video.suffix)]
    frames = read_frames_truth(stem + ".frames.jsonl.gz")
    truth = read_truth(stem + ".truth.jsonl")
    setup = next(e for e in truth.events if e["type"] == "setup")
    setup = {k: setup[k] for k in ("type", "players", "dealer", "preset", "decks") if k in setup}
    ops = sorted((e for e in truth.events if e.get("source") == "operator" and e["type"] != "setup"),
                 key=lambda e: e["t"])
    n = len(frames)
    fps = float(truth.meta.get("fps", 30.0))

    config = Config(data_dir=Path(args.data_dir), token="soak-token", port=args.port, threads=32)
    app = create_app(config)
    table = app.extensions["masta.table"]
    oracle = OracleDetector(frames, seed=1)
    if args.detector == "oracle":
        detector = oracle
    else:
        from web.camera import find_model, load_detector
        model = find_model()
        if model is None:
            raise SystemExit("no trained detector in models/: run `masta train` or pass --detector oracle")
        detector = load_detector(model)
    runner = CameraRunner(table, app.extensions["masta.frames"], detector, evidence_dir=config.evidence_dir)
    app.extensions["masta.camera"] = runner
    counters = {"games": 0, "evenings": 1, "op_refused": 0, "loops": 0}
    pending: list[tuple[float, dict]] = []

    def on_frame(frame) -> None:
        k = frame.index % n
        oracle.index = k
        if k == 0:  # the video starts again: a new game (a new evening now and then)
            counters["loops"] += 1
            if counters["games"] and counters["games"] % args.games_per_evening == 0:
                table.new_evening(f"soak {counters['evenings']}")
                counters["evenings"] += 1
            table.submit(dict(setup), source="operator", by="soak")
            counters["games"] += 1
            pending[:] = [(e["t"] + 1.0, e) for e in ops]
        video_t = k / fps
        while pending and pending[0][0] <= video_t:
            _, ev = pending.pop(0)
            body = {key: v for key, v in ev.items() if key not in ("seq", "t", "source", "game")}
            if "event" in body:  # the truth's seq -> this game's seq of the same cards_played
                body.pop("event")
            try:
                table.submit(body, source="operator", by="soak")
            except Exception:  # refused (the watcher saw it differently): an operator would look
                counters["op_refused"] += 1

    src = open_source(str(video), live=True, pace=True, backoff=Backoff(first=0.05, cap=0.5),
                      on_status=lambda st: runner.report(f"camera {st.kind}: {st.message}"))
    src.frames = sane_frames(src.frames, runner.report)  # as CameraRunner.start does
    stop = threading.Event()
    cfg = WatcherConfig(evidence_dir=config.evidence_dir / "soak")
    pipe = Pipeline(src, detector, referee=runner.referee, config=cfg, on_frame=on_frame,
                    priors_fn=runner._priors)
    runner.pipe = pipe
    threading.Thread(target=pipe.run, args=(stop,), daemon=True, name="pipeline").start()
    threading.Thread(target=runner._snapshots, args=(pipe, stop), daemon=True, name="frames").start()

    def report() -> None:
        while not stop.wait(args.every):
            lat = list(pipe.stats.latencies)
            pipe.stats.latencies.clear()
            print("STATS " + json.dumps({
                "frames": pipe.stats.frames, "events": table.store.count_events(table.evening_id),
                "evening": table.evening_id, "log": len(table.log), "camera_refused": len(runner.errors),
                "pipeline_p50_ms": 1000 * statistics.median(lat) if lat else None,
                "pipeline_p95_ms": 1000 * pct(lat, 0.95) if lat else None,
                "pipeline_ms": [round(1000 * x, 1) for x in lat],
                **counters}), flush=True)
    threading.Thread(target=report, daemon=True).start()
    if args.trace:
        threading.Thread(target=trace_growth, args=(stop, args.every * 10), daemon=True).start()
    server = make_server(app, "127.0.0.1", args.port, 32)
    print(f"READY {args.port}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: (stop.set(), server.close(), os._exit(0)))
    server.run()
    return 0


def trace_growth(stop: threading.Event, every: float) -> None:
    """--trace: Python allocations that grew since the first snapshot, by line (tracemalloc)."""
    import tracemalloc
    tracemalloc.start(12)
    first = None
    while not stop.wait(every):
        snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        if first is None:
            first = snap
            continue
        print(f"TRACE traced {tracemalloc.get_traced_memory()[0] / 1e6:.1f} MB; grown most since the first snapshot:",
              flush=True)
        for st in snap.compare_to(first, "traceback")[:6]:
            where = " <- ".join(f"{Path(fr.filename).name}:{fr.lineno}" for fr in list(st.traceback)[::-1][:6])
            print(f"TRACE   {st.size_diff / 1e3:+.0f} kB ({st.count_diff:+d} blocks) {where}", flush=True)


# ------------------------------------------------------------------------------ watcher side
def proc_sample(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))
    return {"rss_mb": round(rss, 1), "fds": len(os.listdir(f"/proc/{pid}/fd")), "threads": threads}


class Page(threading.Thread):
    """An open page: its event stream, reconnecting like a browser; push latency per update."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.push: list[float] = []
        self.updates = 0
        self.seen: dict[int, set[int]] = {}  # evening -> seqs, to spot doubles
        self.doubles = 0

    def run(self) -> None:
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                c.request("GET", "/stream")
                resp = c.getresponse()  # keep it: a dropped response closes its file
                fp = resp.fp
                name = None
                while True:
                    line = fp.readline()
                    if not line:
                        break
                    if line.startswith(b"event: "):
                        name = line[7:].strip()
                    elif line.startswith(b"data: ") and name == b"update":
                        msg = json.loads(line[6:])
                        self.push.append(time.time() - msg["published"])
                        self.updates += 1
                        seen = self.seen.setdefault(msg["view"]["evening"], set())
                        if msg["event"]["seq"] in seen:
                            self.doubles += 1
                        seen.add(msg["event"]["seq"])
            except (OSError, ValueError, http.client.HTTPException):
                time.sleep(1)


def poll_pages(port: int, stop: threading.Event, errors: list) -> None:
    """Someone browsing: the pages and JSON views, the latest frame, every few seconds."""
    urls = ["/live/", "/live/state.json", "/rulings/data.json", "/evening/data.json", "/live/frame.jpg",
            "/export/standings.csv"]
    while not stop.wait(2.0):
        for u in urls:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                c.request("GET", u)
                r = c.getresponse()
                r.read()
                if r.status >= 500:
                    errors.append((u, r.status))
                c.close()
            except (OSError, http.client.HTTPException) as exc:
                errors.append((u, str(exc)))


def mjpeg(port: int, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", "/live/video.mjpg")
            resp = c.getresponse()
            fp = resp.fp
            while not stop.is_set() and fp.read(65536):
                pass
        except (OSError, ValueError, http.client.HTTPException):
            time.sleep(1)


def slope(xs: list[float], ys: list[float]) -> float:
    if len(xs) < 2:
        return 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def report(path: str, every_min: float = 10.0) -> int:
    """A markdown table (one row per `every_min` minutes) and the slopes, from a run's --out file."""
    samples = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    if not samples:
        raise SystemExit(f"{path}: no samples")
    print("| minute | RSS MB | open files | threads | events | games | frame->ruling p50 / p95 ms "
          "| publish->page p50 / p95 ms |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    f = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    nxt = 0.0
    for k, x in enumerate(samples):
        if x["min"] + 1e-6 >= nxt or k == len(samples) - 1:
            print(f"| {x['min']:.1f} | {x['rss_mb']:.1f} | {x['fds']} | {x['threads']} | {x['events_total']} | "
                  f"{x['games']} | {f(x['pipeline_p50_ms'])} / {f(x['pipeline_p95_ms'])} | "
                  f"{f(x['push_p50_ms'])} / {f(x['push_p95_ms'])} |")
            nxt = (int(x["min"] / every_min) + 1) * every_min
    print(f"\n{drift(samples)}; page errors {samples[-1]['page_errors']}, pushed twice {samples[-1]['doubles']}")
    return 0


def drift(samples: list[dict]) -> str:
    """Memory, open files and threads over a run: first -> last, range, second-half slopes."""
    if not samples:
        return "no samples"
    half = samples[len(samples) // 2:]
    xs = [x["min"] for x in half]
    span = {k: (min(x[k] for x in samples), max(x[k] for x in samples)) for k in ("rss_mb", "fds", "threads")}
    return (f"{len(samples)} samples over {samples[-1]['min']:.1f} min; RSS {samples[0]['rss_mb']:.1f} -> "
            f"{samples[-1]['rss_mb']:.1f} MB, max {span['rss_mb'][1]:.1f}; second-half slopes: "
            f"RSS {slope(xs, [x['rss_mb'] for x in half]):+.3f} MB/min, open files "
            f"{slope(xs, [x['fds'] for x in half]):+.4f}/min, threads {slope(xs, [x['threads'] for x in half]):+.4f}/min; "
            f"open files {span['fds'][0]}-{span['fds'][1]}, threads {span['threads'][0]}-{span['threads'][1]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--detector", choices=("model", "oracle"), default="model",
                    help="the trained model in models/ (default) or the renderer's truth with noise")
    ap.add_argument("--video", default=str(ROOT / "assets" / "demo" / "demo-game.mp4"),
                    help="a game video from `masta data game-video` (its .truth.jsonl and "
                         ".frames.jsonl.gz beside it)")
    ap.add_argument("--pages", type=int, default=6, help="event-stream pages kept open")
    ap.add_argument("--every", type=float, default=30.0, help="seconds between samples")
    ap.add_argument("--games-per-evening", type=int, default=10)
    ap.add_argument("--out", default=None, help="write the samples as JSON lines here")
    ap.add_argument("--report", default=None, metavar="JSONL",
                    help="print the table and slopes of an earlier run's --out file, run nothing")
    ap.add_argument("--no-mjpeg", action="store_true", help="no MJPEG viewer (to see what it costs)")
    ap.add_argument("--trace", action="store_true",
                    help="the server traces its Python allocations and prints what grew (slower)")
    ap.add_argument("--default-heap", action="store_true",
                    help="leave glibc's heap thresholds alone (masta.heap.steady_heap), to compare")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.report:
        return report(args.report)
    if args.serve:
        return serve(args)
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tempfile.mkdtemp(prefix="masta-soak-")
    cmd = [sys.executable, __file__, "--serve", "--port", str(port), "--data-dir", data, "--video", args.video,
           "--every", str(args.every), "--detector", args.detector, *(["--trace"] if args.trace else []),
           *(["--default-heap"] if args.default_heap else []), "--games-per-evening", str(args.games_per_evening)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so `finally` stops the server too
    stats: list[dict] = []
    pipe_all: list[tuple[float, float]] = []  # (seconds into the run, frame-to-ruling ms), every event
    push_all: list[tuple[float, float]] = []
    t0 = time.time()
    for line in proc.stdout:
        if line.startswith("READY"):
            break
        print("server: " + line.rstrip())
    else:
        raise SystemExit("the soak server did not start")

    def read_stats() -> None:
        for line in proc.stdout:
            if line.startswith("STATS "):
                st = json.loads(line[6:])
                pipe_all.extend((time.time() - t0, x) for x in st.pop("pipeline_ms", []))
                stats.append(st)
            else:
                print("server: " + line.rstrip(), flush=True)
    threading.Thread(target=read_stats, daemon=True).start()
    stop = threading.Event()
    pages = [Page(port) for _ in range(args.pages)]
    for p in pages:
        p.start()
    errors: list = []
    threading.Thread(target=poll_pages, args=(port, stop, errors), daemon=True).start()
    if not args.no_mjpeg:
        threading.Thread(target=mjpeg, args=(port, stop), daemon=True).start()
    out = open(args.out, "w") if args.out else None
    samples: list[dict] = []
    t0 = time.time()
    print(f"bench/soak.py: {args.minutes} min, video {args.video}, detector {args.detector}, {args.pages} pages + MJPEG + poller, "
          f"{os.cpu_count()} CPU(s); sample every {args.every:.0f} s")
    print(f"{'min':>6} {'rss_mb':>7} {'fds':>4} {'thr':>4} {'events':>7} {'games':>5} "
          f"{'pipe_p50':>8} {'pipe_p95':>8} {'push_p50':>8} {'push_p95':>8} {'errors':>6}")
    try:
        while time.time() - t0 < args.minutes * 60:
            time.sleep(args.every)
            if proc.poll() is not None:
                raise SystemExit(f"the server died (exit {proc.returncode})")
            push = sorted(x for p in pages for x in p.push)
            push_all.extend((time.time() - t0, 1000 * x) for x in push)
            for p in pages:
                p.push.clear()
            st = stats[-1] if stats else {}
            s = {"min": round((time.time() - t0) / 60, 2), **proc_sample(proc.pid),
                 "events_total": st.get("events"), "games": st.get("games"),
                 "frames": st.get("frames"), "evening": st.get("evening"),
                 "pipeline_p50_ms": st.get("pipeline_p50_ms"), "pipeline_p95_ms": st.get("pipeline_p95_ms"),
                 "push_p50_ms": 1000 * statistics.median(push) if push else None,
                 "push_p95_ms": 1000 * pct(push, 0.95) if push else None,
                 "page_errors": len(errors), "doubles": sum(p.doubles for p in pages),
                 "camera_refused": st.get("camera_refused"), "op_refused": st.get("op_refused")}
            samples.append(s)
            if out:
                out.write(json.dumps(s) + "\n")
                out.flush()
            f = lambda v: f"{v:8.1f}" if isinstance(v, (int, float)) else f"{'-':>8}"  # noqa: E731
            print(f"{s['min']:6.1f} {s['rss_mb']:7.1f} {s['fds']:4d} {s['threads']:4d} {str(s['events_total']):>7} "
                  f"{str(s['games']):>5} {f(s['pipeline_p50_ms'])} {f(s['pipeline_p95_ms'])} "
                  f"{f(s['push_p50_ms'])} {f(s['push_p95_ms'])} {len(errors):6d}", flush=True)
    finally:
        stop.set()
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(data, ignore_errors=True)
    print(f"summary: {drift(samples)}; "
          f"games {samples[-1]['games'] if samples else 0}, page errors {len(errors)}, "
          f"events pushed twice {sum(p.doubles for p in pages)}; camera events the referee refused "
          f"{samples[-1]['camera_refused'] if samples else 0}, operator events refused "
          f"{samples[-1]['op_refused'] if samples else 0}")
    for name, series in (("frame -> ruling (pipeline)", pipe_all), ("ruling -> page (push)", push_all)):
        if not series:
            continue
        quarter = args.minutes * 60 / 4
        parts = []
        for k in range(4):
            xs = [v for t, v in series if k * quarter <= t < (k + 1) * quarter]
            if xs:
                parts.append(f"Q{k + 1} p50 {statistics.median(xs):.0f} p95 {pct(xs, 0.95):.0f}")
        xs = [v for _, v in series]
        print(f"latency {name}: {len(xs)} events, p50 {statistics.median(xs):.1f} ms, p95 {pct(xs, 0.95):.1f} ms, "
              f"max {max(xs):.1f} ms; by quarter of the run: " + "; ".join(parts))
    if errors:
        print("first page errors:", errors[:5])
    return 0


if __name__ == "__main__":
    sys.exit(main())
