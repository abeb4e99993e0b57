"""Camera -> detector -> pot watcher -> table referee, as one object a thread can run.

The API the web server (and `masta watch`) builds on:

    from vision.source import open_source
    from vision.pipeline import Pipeline

    stop = threading.Event()
    pipe = Pipeline(open_source("0"), detector, referee=table.apply, on_event=show)
    thread = threading.Thread(target=pipe.run, args=(stop,), daemon=True)
    thread.start()
    ...                      # pipe.watcher.set_zone((0.3, 0.3, 0.7, 0.7)) from the page
    stop.set(); thread.join()

* `detector`: anything with `.detect(frame_bgr) -> [Detection(card, conf, box)]`
  (`vision.detector.CardDetector`, or an oracle in tests/bench). When its `detect` takes a
  `roi` keyword, the pot zone (plus a margin) is passed so the model looks at the pot.
* `referee`: a callable taking one event-log dict (docs/architecture.md: `type`, `source`,
  `t`, `cards`, `conf`, `evidence`, ...; no `seq`, the log owner numbers it) and returning
  the list of ruling dicts it produced (`TableReferee.apply` fits, or a web function that
  appends to the store then applies). `None`: events are reported without rulings.
* `on_event(PipelineEvent)`: called in the pipeline's thread for every watcher decision,
  after the referee ruled; `PipelineEvent.to_json()` is the `masta watch --json` line.
* `on_status(SourceStatus)`: source health (`dropped`, `retrying`, `reconnected`, ...).
  A dropping live source never stops `run`; only `stop_event` or the end of a file does.
* `on_frame(Frame)` (optional): called with every frame before the watcher sees it (a live
  preview, a recorder, or the bench's oracle detector which must know the frame index).
* `priors_fn() -> Priors` (optional): what the referee knows, for ranking ambiguous reads.
* `watcher` (optional): a ready `PotWatcher`, for example with seat zones
  (`PotWatcher(config, seats={"Ann": (0, 0.75, 1, 1), ...})`); else one is made from `config`.
* `events(stop_event)` is the same loop as a generator of `PipelineEvent`s.
* `snapshot_jpeg()` returns the latest frame (pot zone drawn) as JPEG bytes for a live view;
  `stats` holds frames, detector calls, fps and latencies so far.

Mismatches from the watcher go to the referee as `note` events (kept in the log for the
operator) and reach `on_event` with `event["type"] == "note"` and `watch.type == "mismatch"`.
"""
from __future__ import annotations

import inspect
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from referee.cards import JOKER
from vision.pot_watcher import PotWatcher, Priors, WatchEvent, WatcherConfig
from vision.source import Frame, FrameSource, SourceStatus

RefereeFn = Callable[[dict[str, Any]], list[dict[str, Any]]]


@dataclass
class PipelineEvent:
    """One decision of the pipeline: the log event sent to the referee and its rulings."""
    t: float                    # source seconds of the frame that settled it
    event: dict[str, Any]       # the event-log object as sent to the referee
    rulings: list[dict[str, Any]]
    watch: WatchEvent
    latency_s: float            # wall seconds from the frame's arrival to the ruling
    lag_s: float = 0.0          # source seconds from the frame's capture to the ruling, were
                                # the source live (queueing behind slower frames included)

    def to_json(self) -> dict[str, Any]:
        """`{"t", "event", "cards", "ruling", ...}`: one line of `masta watch --json`."""
        out: dict[str, Any] = {"t": round(self.t, 3), "event": self.watch.type, "cards": list(self.watch.cards)}
        if self.watch.conf:
            out["conf"] = [round(c, 3) for c in self.watch.conf]
        if self.watch.low_conf:
            out["low_conf"] = True
        if self.watch.detail:
            out["detail"] = self.watch.detail
        if self.watch.evidence:
            out["evidence"] = dict(self.watch.evidence)
        if self.watch.seat:
            out["seat"] = self.watch.seat  # the side the arm came from (seat zones): a hint
        rulings = [r for r in self.rulings if isinstance(r, dict) and r.get("kind", "ruling") == "ruling"]
        out["ruling"] = rulings[0] if rulings else None
        others = [r for r in self.rulings if not (isinstance(r, dict) and r.get("kind", "ruling") == "ruling")]
        if others:
            out["outputs"] = others  # burns, pick-ups, prompts, suspicions, game over
        return out


@dataclass
class PipelineStats:
    frames: int = 0
    detector_calls: int = 0
    events: int = 0
    seconds: float = 0.0        # wall seconds spent in run()
    # the latest events' latencies (a camera left running all evening must not grow without bound)
    latencies: deque[float] = field(default_factory=lambda: deque(maxlen=10_000))

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    @property
    def detector_ratio(self) -> float:
        """Share of frames that went through the detector (1.0 = every frame)."""
        return self.detector_calls / self.frames if self.frames else 0.0


def priors_from_view(view: Any, decks: int = 1) -> Priors:
    """Priors from a table referee's `view()`: burned cards cannot come back (one deck), a
    joker cannot be on the pot of a game played without them (the view's `jokers` 0: most
    presets; a joker read there is a misread, asked about), and the ranks that may go on the
    pot now (the view's `fits`) are likelier.

    Tolerant by design: it reads a `burned` list wherever the view keeps one, and leaves the
    legality prior out when the view has no `fits` (no game, or the game is over)."""
    burned: set[str] = set()
    no_jokers = False
    fitting: frozenset[str] | None = None
    on_pot: frozenset[str] = frozenset()
    if isinstance(view, dict):
        for key in ("burned", "burned_cards", "burn_pile"):
            val = view.get(key)
            if isinstance(val, (list, tuple, set)):
                burned.update(str(c) for c in val)
        ledger = view.get("ledger")
        if isinstance(ledger, dict):
            for card, where in ledger.items():
                if where in ("burned", "burn"):
                    burned.add(str(card))
        decks = int(view.get("decks", decks) or decks)
        fitting, on_pot = _fitting(view)
        no_jokers = view.get("jokers") == 0
    impossible = (burned if decks == 1 else set()) | ({JOKER} if no_jokers else set())
    return Priors(frozenset(impossible), copies=decks, fitting=fitting, on_pot=on_pot)


def _fitting(view: dict) -> tuple[frozenset[str] | None, frozenset[str]]:
    """(the ranks that may go on the view's pot now, the pot's cards), from the referee's own
    `fits` (it knows the preset and which cards count); (None, ...) when the view has none."""
    fits, pot = view.get("fits"), view.get("pot")
    on_pot = frozenset(str(c) for c in pot) if isinstance(pot, (list, tuple)) else frozenset()
    if not isinstance(fits, (list, tuple, set, frozenset)):
        return None, on_pot
    return frozenset(str(r) for r in fits), on_pot


class Pipeline:
    """Runs a frame source through the detector, the pot watcher and the referee."""

    def __init__(self, source: FrameSource, detector: Any, referee: RefereeFn | None = None,
                 on_event: Callable[[PipelineEvent], None] | None = None,
                 on_status: Callable[[SourceStatus], None] | None = None,
                 watcher: PotWatcher | None = None, config: WatcherConfig | None = None,
                 priors_fn: Callable[[], Priors] | None = None,
                 on_frame: Callable[[Frame], None] | None = None,
                 clock: Callable[[], float] = time.time):
        self.source = source
        self.detector = detector
        self.referee = referee
        self.on_event = on_event
        self._on_status = on_status if on_status is not None else source.on_status
        source.on_status = self._status
        self.watcher = watcher or PotWatcher(config, priors_fn=priors_fn)
        if priors_fn is not None:
            self.watcher.priors_fn = priors_fn
        self.on_frame = on_frame
        try:
            self._roi_ok = "roi" in inspect.signature(detector.detect).parameters
        except (TypeError, ValueError, AttributeError):
            self._roi_ok = False
        if getattr(detector, "decks", None) is not None:
            detector.decks = None  # the watcher applies the copies limit itself, with the referee's decks
        self.clock = clock
        self.stats = PipelineStats()
        self._latest: np.ndarray | None = None
        self._latest_lock = threading.Lock()
        self.frame_t: float | None = None
        self._play_seq: int | None = None  # the seq of the latest play the referee recorded

    def _detect(self, image: np.ndarray):
        if self._roi_ok:  # spend the detector's pixels on the pot zone (and a margin)
            h, w = image.shape[:2]
            x0, y0, x1, y1 = self.watcher.zone
            mx, my = 0.06, 0.08
            roi = (max(0.0, x0 - mx) * w, max(0.0, y0 - my) * h, min(1.0, x1 + mx) * w, min(1.0, y1 + my) * h)
            return self.detector.detect(image, roi=roi)
        return self.detector.detect(image)

    def events(self, stop_event: threading.Event | None = None) -> Iterator[PipelineEvent]:
        """Process frames until the source ends or `stop_event` is set, yielding decisions."""
        stop = stop_event or threading.Event()
        start = time.perf_counter()
        try:
            # `lag`: how far behind the source's own clock the pipeline would be if frames
            # came in real time and none were dropped (queueing included): for live latency
            sim = 0.0
            mark = time.perf_counter()
            for frame in self.source.frames(stop):
                arrived = time.perf_counter()
                busy = arrived - mark  # decoding this frame
                with self._latest_lock:
                    self._latest = frame.image
                if self.on_frame is not None:
                    self.on_frame(frame)
                start_t = max(frame.t, sim)
                self.frame_t = frame.t  # the source's time of the frame being decided on
                for wev in self.watcher.feed(frame.image, frame.t, frame.index, self._detect):
                    event = self._amending(wev.to_log_event(), wev)
                    event["t"] = round(self.clock(), 3)
                    rulings = list(self.referee(event) or []) if self.referee is not None else []
                    if wev.type == "cards_played":  # the play's seq: the newest event in its rulings
                        self._play_seq = max((r["event"] for r in rulings if isinstance(r, dict)
                                              and isinstance(r.get("event"), int)), default=None)
                    now = time.perf_counter()
                    pev = PipelineEvent(frame.t, event, rulings, wev, now - arrived,
                                        lag_s=start_t + busy + (now - arrived) - frame.t)
                    self.stats.events += 1
                    self.stats.latencies.append(pev.latency_s)
                    if self.on_event is not None:
                        self.on_event(pev)
                    yield pev
                    arrived += time.perf_counter() - now  # the consumer's time is not ours
                self._report_problems(frame.t)
                mark = time.perf_counter()
                sim = start_t + busy + (mark - arrived)
                self.stats.frames += 1
                self.stats.detector_calls = self.watcher.detector_calls
                self.stats.seconds = time.perf_counter() - start
        finally:
            self.stats.seconds = time.perf_counter() - start
            self.source.close()

    def _amending(self, event: dict[str, Any], wev: Any) -> dict[str, Any]:
        """A `cards_amended` decision as a correction of the play it amends (the seq the
        referee gave it); with no such seq known, a note for the operator instead."""
        if wev.type != "cards_amended":
            return event
        if self._play_seq is not None:
            return {**event, "event": self._play_seq}
        meta = dict(event.get("meta") or {}, cards=list(wev.cards))
        return {"type": "note", "source": "camera", "text": f"camera: {wev.detail}; please check", "meta": meta}

    def _status(self, st: SourceStatus) -> None:
        """The source's health, passed on; after an outage the watcher takes a fresh baseline
        (cards that appeared meanwhile are a mismatch, not part of the next play)."""
        if st.kind == "reconnected":
            rebaseline = getattr(self.watcher, "rebaseline", None)
            if rebaseline is not None:
                rebaseline()
        self._on_status(st)

    def _report_problems(self, t: float) -> None:
        """The watcher's problems that did not stop it (evidence frames not saved on a full
        disk, ...) reach whoever listens to the source's health, as `evidence_not_saved`."""
        take = getattr(self.watcher, "take_problems", None)
        for message in (take() if take is not None else []):
            self.source.on_status(SourceStatus("evidence_not_saved", message, t))

    def run(self, stop_event: threading.Event | None = None) -> PipelineStats:
        """The thread target: run until the source ends or `stop_event` is set."""
        for _ in self.events(stop_event):
            pass
        return self.stats

    def latest_frame(self) -> np.ndarray | None:
        """The frame being decided on (the one that settled the latest decision, inside
        `on_event`), or None before the first."""
        with self._latest_lock:
            return self._latest

    def snapshot_jpeg(self, quality: int = 80, max_width: int = 960) -> bytes | None:
        """The latest frame with the pot zone and the last settled cards drawn (`phone_jpeg`)."""
        image = self.latest_frame()
        if image is None:
            return None
        return phone_jpeg(self.watcher.draw(image, self.watcher.state), quality, max_width)


def phone_jpeg(image: np.ndarray, quality: int = 80, max_width: int = 960) -> bytes | None:
    """A camera frame as JPEG for the live view, at most `max_width` wide: every phone at the
    table pulls it (a 1280x720 camera frame would be twice the bytes); evidence frames keep
    the camera's full size."""
    if image.shape[1] > max_width:
        image = cv2.resize(image, (max_width, round(image.shape[0] * max_width / image.shape[1])),
                           interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else None
