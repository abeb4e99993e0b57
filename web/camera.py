"""The camera side of the server: vision.pipeline run in a background thread, its events sent
through the same path as the operator's (checked, ruled, committed, then pushed).

The pipeline is optional: without a trained model or a camera the server still serves every
page and the manual-entry page. Its API is documented in vision/pipeline.py.

Each player's side of the table is proposed from the first plays (`vision.seat_sides`: the
clockwise seating order and the direction each arm came in from): saved as the setting
`seat_proposal` for the set-up page to show, to accept or move; with `accept_sides` it is used
as it comes, as if drawn.
"""
from __future__ import annotations

import collections
import re
import threading
import time
from pathlib import Path
from typing import Any

from .errors import ApiError
from .frames import FrameHub, sane_frames
from .sources import MAX_SOURCE, mask_source  # noqa: F401 (the camera's own, and its callers')
from .table_service import TableService

#: vision.detector's default: the index detector, with card_index_classifier.onnx beside it.
MODEL = "models/card_index_detector.onnx"
CLASSIFIER = "models/card_index_classifier.onnx"


def find_model(root: Path | None = None) -> Path | None:
    """The trained detector in models/ (both ONNX files of `masta train`), or None."""
    root = root or Path(__file__).resolve().parent.parent
    if (root / MODEL).is_file() and (root / CLASSIFIER).is_file():
        return root / MODEL
    return None


def load_detector(model: Path, deck=None, letters: str = "en") -> Any:
    """The table camera's detector; `deck`: a taught `vision.deck_memory.DeckMemory`. Built
    with the classifier's features, so that a deck can be taught from the page
    (`web.deck_teacher`) without loading it again: the reads are the same."""
    from vision.detector import CAMERA, CardDetector  # lands with the detector; import only when used
    return CardDetector(str(model), deck=deck, features=True, letters=letters, **CAMERA)


class CameraRunner:
    """Owns the pipeline thread; restartable with a new source from the set-up page.

    Every change of the camera's health (dropped, retrying, reconnected, truncated, ended,
    failed, a frame format fixed, evidence not saved) is shown on the live page and pushed to
    every open page as a `camera` message; the game goes on by manual entry meanwhile."""

    def __init__(self, table: TableService, frames: FrameHub, detector: Any, *,
                 zone: tuple[float, float, float, float] | None = None, pace: bool = False,
                 live: bool | None = None, evidence_dir: Path | None = None,
                 backoff: Any = None, max_retries: int | None = None, after_event: Any = None,
                 seats: dict[str, tuple[float, float, float, float]] | None = None,
                 accept_sides: bool = False):
        self.table = table
        #: `after_event(event, video_t)`: told of each event the camera recorded, with the
        #: source's time of the frame it was decided on (the demo's scripted operator)
        self.after_event = after_event
        self.last_kind: str | None = None  # the source's latest status (`ended`: a file read through)
        self.frames = frames
        self.detector = detector
        self.zone = zone
        #: each player's side of the table (optional): the watcher says which one a play came from
        self.seats = dict(seats or {})
        #: the sides proposed from the arms are used as they come (no one draws them)
        self.accept_sides = accept_sides
        #: (seq, arm direction, whether it followed the play before one plain step on: no pot
        #: going between, that play neither skipping, burning, reversing nor giving the pot
        #: away, nor a Turbo) of each of this game's first camera plays; the player each names
        #: is looked up as the referee rules it now
        self.arms: list[tuple[int, float, bool]] = []
        self._follows = True  # the next camera play comes one plain step after the last arm's
        self._named: list[tuple] = []  # what the last proposal was made from
        self._arms_of: tuple[str, ...] = ()
        self.pace = pace
        self.live = live
        self.backoff = backoff
        self.max_retries = max_retries
        self.evidence_dir = Path(evidence_dir) if evidence_dir else None
        self.source: str | None = None
        self.pipe: Any = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.errors: collections.deque[str] = collections.deque(maxlen=100)
        self.history: collections.deque[tuple[float, str]] = collections.deque(maxlen=100)

    @property
    def shown_source(self) -> str | None:
        """The source as pages show it: its password masked."""
        return mask_source(self.source)

    def report(self, message: str) -> None:
        """Say `message` on the live page (and push it to every open page), passwords masked."""
        message = mask_source(message)
        self.frames.status = message
        self.history.append((time.time(), message))
        self.table.broadcaster.publish("camera", {"status": message, "t": time.time(),
                                                  "running": self.frames.running})

    # the pipeline calls this for every watcher decision
    def referee(self, event: dict) -> list[dict]:
        raw = dict(event)
        meta = dict(raw.pop("meta", None) or {})
        if raw.pop("low_conf", False):
            meta["low_conf"] = True
        if raw.get("type") == "note" and "cards" in raw:
            meta["cards"] = raw.pop("cards")
        self._layout_side(raw.get("type"), meta)
        raw.pop("source", None)
        raw.pop("t", None)
        if meta:
            raw["meta"] = meta
        if isinstance(raw.get("evidence"), dict):
            raw["evidence"] = {k: self._relative(v) for k, v in raw["evidence"].items()}
        try:
            published = self.table.submit(raw, source="camera")
        except ApiError as exc:  # for example no game set up yet: say so, keep watching
            self.errors.append(exc.message)
            self.report(f"camera event not recorded: {exc.message}")
            return []
        self._note_arm(published)
        if self.after_event is not None:
            self.after_event(published["event"], getattr(self.pipe, "frame_t", None))
        self.check_letters()
        return published["outputs"]

    def set_letters(self, letters: str) -> None:
        """The deck's court letters (set-up): the classifier reads with them from the next frame;
        a set it cannot read raises ValueError and changes nothing."""
        clf = getattr(self.detector, "classifier", None)
        if clf is None:
            return
        clf.letters = letters
        self._letters_said = None

    def check_letters(self) -> None:
        """Say once on the page when the deck's letters look different from the setting."""
        watch = getattr(getattr(self.detector, "classifier", None), "letter_watch", None)
        if watch is None or getattr(self, "_letters_said", None) is watch:
            return
        said = watch.mismatch()
        if said:
            self._letters_said = watch
            self.report(f"camera: {said}")

    def _layout_side(self, kind: str | None, meta: dict) -> None:
        """The game's first camera play, no side drawn or proposed yet: the set-up's order laid
        round the pot (`vision.seat_sides.layout_angles`: its first player at the bottom of the
        picture) names the side the arm came from, so that the camera tells who started (a
        lowest card nobody named); the arms' own proposal takes over from there."""
        from vision.seat_sides import layout_angles, nearest_side, side_zones

        arm = meta.get("arm")
        if not self.accept_sides or kind not in ("cards_played", "note") or arm is None or meta.get("seat"):
            return
        players = tuple(self.table.players() or ())
        if (len(players) < 2 or len(set(players)) != len(players)
                or (self.arms and players == self._arms_of) or set(self.seats) == set(players)):
            return
        angles = layout_angles(players)
        meta["seat"] = nearest_side(float(arm), angles)
        self._use_sides(side_zones(angles, *self._geometry()), 0)

    def _note_arm(self, published: dict) -> None:
        """A camera play's arm direction and the player the referee names: the sides proposed
        from this game's first plays (`vision.seat_sides`), saved for the set-up page, and
        used at once with `accept_sides`; proposed again whenever the referee names one of
        those plays otherwise (a person said who started)."""
        from referee.table import said_who_played
        from vision.seat_sides import FIRST_PLAYS, plain_step, propose_sides

        event = published["event"]
        arm = (event.get("meta") or {}).get("arm")
        players = tuple(self.table.players() or ())
        if len(players) < 2:
            return
        if players != self._arms_of:  # a new table: its own arms
            self.arms, self._named, self._arms_of, self._follows = [], [], players, True
        # a mismatch ruled as a play too
        ruling = next((o for o in published["outputs"] if o.get("kind") == "ruling"), None)
        if event.get("type") == "pot_cleared":
            self._follows = False
        if event.get("type") in ("cards_played", "note") and ruling is not None:
            kept = arm is not None and len(self.arms) < FIRST_PLAYS
            if kept:
                self.arms.append((event["seq"], float(arm), self._follows))
            # the next play's step is from this one only where the arms hold this one
            self._follows = kept and plain_step(ruling)
        # each first play named as the referee names it now: a person's answer (who started)
        # or a replay may have renamed them since, and the sides follow
        if not self.arms:
            return
        with self.table.lock:
            outputs = self.table.outputs
            # who played which: a person's word; said (or voided) after those plays only
            said = said_who_played(self.table.log[self.arms[0][0] - 1:])
            named = [(a, next((o.get("player") for o in outputs.get(seq, []) if o.get("kind") == "ruling"), None),
                      follows, seq in said) for seq, a, follows in self.arms]
        if named == self._named:
            return
        self._named = named
        centre, aspect = self._geometry()
        try:
            sides = propose_sides(players, named, centre, aspect)
        except ValueError:  # the same name twice: no sides to propose
            return
        if sides is not None:
            self._use_sides(sides, len(self.arms))

    def _geometry(self) -> tuple[tuple[float, float], float]:
        """The pot zone's centre and the frame's width over height, for the proposed sides."""
        zone = self.pipe.watcher.zone if self.pipe is not None else (0.0, 0.0, 1.0, 1.0)
        frame = self.pipe.latest_frame() if self.pipe is not None else None
        aspect = frame.shape[1] / frame.shape[0] if frame is not None else 16 / 9
        return ((zone[0] + zone[2]) / 2, (zone[1] + zone[3]) / 2), aspect

    def _use_sides(self, sides: dict, plays: int) -> None:
        """Save the proposed sides for the set-up page, and use them with `accept_sides`."""
        proposal = {"seats": {k: list(v) for k, v in sides.items()}, "plays": plays}
        store = self.table.store
        store.set_setting("seat_proposal", proposal)
        self.table.broadcaster.publish("sides", proposal)
        if self.accept_sides:
            store.set_setting("seat_zones", proposal["seats"])
            self.set_seats(sides)

    def _relative(self, path: str) -> str:
        """Evidence paths as the /evidence/ route serves them: relative to the evidence folder."""
        if self.evidence_dir is None:
            return str(path)
        try:
            return Path(path).resolve().relative_to(self.evidence_dir.resolve()).as_posix()
        except ValueError:
            return str(path)

    def _priors(self):
        from vision.pipeline import priors_from_view
        with self.table.lock:
            return priors_from_view(self.table.view().get("table") or {})

    def start(self, source: Any) -> str:
        from vision.pipeline import Pipeline
        from vision.pot_watcher import PotWatcher, WatcherConfig
        from vision.source import open_source

        def on_status(st) -> None:
            self.last_kind = st.kind
            self.report(f"camera {st.kind}: {st.message}")

        if hasattr(source, "frames"):  # an opened vision.source.FrameSource (tests, embedding)
            src, source = source, str(source.spec)
            src.on_status = on_status
        else:  # may refuse: the old camera goes on
            src = open_source(source, on_status=on_status, pace=self.pace, live=self.live,
                              backoff=self.backoff, max_retries=self.max_retries)
        src.frames = sane_frames(src.frames, self.report)
        self.stop()
        self._stop = threading.Event()
        cfg = WatcherConfig(evidence_dir=self.evidence_dir / f"evening-{self.table.evening_id}"
                            if self.evidence_dir else None)
        self.pipe = Pipeline(src, self.detector, referee=self.referee, on_status=on_status,
                             watcher=PotWatcher(cfg, seats=self.seats), priors_fn=self._priors)
        if self.zone:
            self.pipe.watcher.set_zone(self.zone)
        self.source = source
        run = threading.Thread(target=self._run, args=(self.pipe, self._stop), name="masta-pipeline", daemon=True)
        snap = threading.Thread(target=self._snapshots, args=(self.pipe, self._stop), name="masta-frames", daemon=True)
        self._threads = [run, snap]
        self.frames.running = True
        run.start()
        snap.start()
        self.report(f"camera {source}: starting")
        return f"watching {mask_source(source)}"

    def _run(self, pipe: Any, stop: threading.Event) -> None:
        said = None
        try:
            pipe.run(stop)
            if not stop.is_set() and self.last_kind == "ended":
                self._recording_ended()
            if not stop.is_set():  # keep the source's own word for why (ended, truncated, gave up)
                last = self.frames.status if self.frames.status.startswith("camera ") else f"camera {self.source}: ended"
                said = f"{last}; the camera stopped: enter plays on the manual entry page"
        except Exception as exc:  # a broken source must not take the server down
            said = f"camera {self.source} failed: {exc}; enter plays on the manual entry page"
        finally:
            stop.set()
            if self.pipe is pipe:  # not replaced by a restart meanwhile
                self.frames.running = False
            if said:  # said once stopped: a page then shows the camera off
                self.report(said)

    def _recording_ended(self) -> None:
        """A recorded game's video read to its end in the game's last stage (the stock drawn):
        the game it shows is over. Where the counts have not ended it (a card the camera
        missed), the referee places whoever is still in by the order they stopped playing,
        assumed (`referee.table`, game_end)."""
        from referee.table import recording_ends_game
        if not recording_ends_game(self.table.view().get("table") or {}):
            return
        try:
            self.table.submit({"type": "game_end"}, source="camera")
        except ApiError as exc:
            self.errors.append(exc.message)

    def _snapshots(self, pipe: Any, stop: threading.Event, fps: float = 8.0) -> None:
        while not stop.wait(1.0 / fps):
            jpeg = pipe.snapshot_jpeg()
            if jpeg:
                self.frames.publish(jpeg)

    def set_zone(self, zone: tuple[float, float, float, float]) -> None:
        self.zone = zone
        if self.pipe is not None:
            self.pipe.watcher.set_zone(zone)

    def set_seats(self, seats: dict[str, tuple[float, float, float, float]]) -> None:
        self.seats = dict(seats)
        if self.pipe is not None:
            self.pipe.watcher.set_seats(seats)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)
        self._threads = []
        self.frames.running = False

    def restart(self, source: str | None) -> str:
        if not source:
            self.stop()
            self.report("no camera: enter plays on the manual entry page")
            return "camera off: enter plays on the manual entry page"
        try:
            return self.start(source)
        except (ValueError, OSError) as exc:  # OSError: a name too long for a file, a device refused
            raise ApiError(400, mask_source(f"cannot open camera {source[:200]!r}: {str(exc)[:300]}")) from None


def attach_camera(app, detector: Any, source: str | None, **kw) -> CameraRunner:
    """Wire a CameraRunner into `app` (set-up page: camera source and pot zone go to it)."""
    zone = app.extensions["masta.store"].get_setting("pot_zone")
    seats = app.extensions["masta.store"].get_setting("seat_zones") or {}
    runner = CameraRunner(app.extensions["masta.table"], app.extensions["masta.frames"], detector,
                          zone=tuple(zone) if zone else None, evidence_dir=app.config["MASTA"].evidence_dir,
                          seats={k: tuple(v) for k, v in seats.items()}, **kw)
    app.extensions["masta.camera"] = runner
    app.extensions["masta.restart_camera"] = runner.restart
    app.extensions["masta.set_zone"] = runner.set_zone
    app.extensions["masta.set_seats"] = runner.set_seats
    from .deck_teacher import DeckTeacher
    app.extensions["masta.teacher"] = DeckTeacher(app, runner)
    if source:
        runner.start(source)
    return runner


def wait_for(predicate, timeout: float, step: float = 0.05) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
