"""Teaching the table's deck from the set-up phone, with the camera already watching.

`masta learn-deck` does this from a terminal; a table that sees masta misread its queens all
evening should not need one. The camera stops refereeing while the cards are shown (a card
shown in the middle of the table is no play), `vision.deck_memory.learn_deck` learns from the
camera's frames, and the deck is then read with at once, saved beside the database and used
again after a restart. Nothing in the game's log changes.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from .errors import ApiError
from .frames import sane_frames
from .sources import mask_source

#: the file a deck taught from the page is kept in, inside the server's data folder
DECK_FILE = "deck.npz"
#: the store setting that says which deck the camera reads with
SETTING = "taught_deck"
#: how often the page's camera picture is refreshed while cards are shown (frames a second)
SNAPSHOT_FPS = 6.0


def deck_path(app) -> Path:
    return app.config["MASTA"].data_dir / DECK_FILE


def saved_deck(app) -> tuple[Any, str | None]:
    """The deck taught from the page before the server last stopped: (DeckMemory or None,
    a line for the operator when it was there but cannot be used)."""
    from vision.deck_memory import DeckMemory, DeckMemoryError

    info = app.extensions["masta.store"].get_setting(SETTING)
    if not info:
        return None, None
    try:
        return DeckMemory.load(deck_path(app)), None
    except DeckMemoryError:  # its own message says to run `masta learn-deck`: here the page is the way
        return None, (f"the deck taught before ({DECK_FILE} in {deck_path(app).parent}) cannot be read: teach "
                      f"it again on /teach/; until then the camera reads with its model alone")


#: the page suggests teaching the deck once a person corrected the same misread rank this many
#: times in an evening, or any ranks `HINT_ANY` times. Over the benchmark's games (errors as
#: read on 4 Dec) that comes in 4 of the 5 games of the deck teaching helps (Knoll) and in none
#: of the photographed deck's, whose few rank misreads differ
HINT_AFTER = 2
HINT_ANY = 3


def teach_hint(app) -> str | None:
    """A line for the rulings page when teaching the deck would pay, while the camera reads
    with no taught deck (none without a camera to teach)."""
    teacher = app.extensions.get("masta.teacher")
    return teacher.hint() if teacher is not None else None


class DeckTeacher:
    """One teaching at a time, through the app's camera runner. `state()` is what the page
    shows: the cards to show in order, the ones learnt, what went wrong, the deck in use."""

    def __init__(self, app, runner) -> None:
        self.app = app
        self.runner = runner
        self.store = app.extensions["masta.store"]
        self.broadcaster = app.extensions["masta.broadcaster"]
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()   # no more cards: Done, Cancel, the server stopping
        self._halt = threading.Event()   # and no tuning either: Cancel, the server stopping
        self._cancelled = False
        self._closing = False
        self.status = "idle"          # idle | teaching | finishing
        self.order: list[str] = []
        self.taught: list[dict] = []  # {"card", "t"}, as each is learnt
        self.problems: list[str] = []
        self.message = ""

    # ------------------------------------------------------------------ what the page shows
    def state(self) -> dict:
        with self._lock:
            learnt = {d["card"] for d in self.taught}
            nxt = next((c for c in self.order if c not in learnt), None) if self.status == "teaching" else None
            return {"status": self.status, "order": list(self.order), "taught": list(self.taught),
                    "next": nxt, "problems": list(self.problems), "message": self.message,
                    "deck": self.store.get_setting(SETTING), "camera": self.runner.shown_source,
                    "reads_with": getattr(self._deck(), "name", None),
                    "misreads": self.app.extensions["masta.table"].misreads()}

    def hint(self) -> str | None:
        """`teach_hint`: the table's misreads are looked at only while teaching could help."""
        if self._deck() is not None or self.status != "idle":
            return None
        misreads = self.app.extensions["masta.table"].misreads()
        if not misreads or (misreads[0]["times"] < HINT_AFTER and sum(m["times"] for m in misreads) < HINT_ANY):
            return None
        words = ", ".join(f"{m['was']} as {m['read']}" + (f" {m['times']} times" if m["times"] > 1 else "")
                          for m in misreads[:3])
        return (f"The camera read {words} this evening: your deck's design is new to it. "
                f"Teach it your deck (about a minute) and it reads them right from then on.")

    def _publish(self) -> None:
        self.broadcaster.publish("teach", self.state())

    # ------------------------------------------------------------------ actions
    def start(self, order: list[str]) -> dict:
        from vision.deck_memory import _untaught

        if not order:
            raise ApiError(400, "nothing to teach: give the suits to show (SH, or SHCD for the whole deck)")
        bad = _untaught(order)
        if bad:
            raise ApiError(400, f"{bad} cannot be taught: use the ids of ranked cards, like AS, 10H, QD")
        if len(set(order)) != len(order):
            raise ApiError(400, "each card is shown once: the order names a card twice")
        with self._lock:
            if self.status != "idle":
                raise ApiError(409, "a deck is being taught already: finish it (Done) or cancel it first")
            if not self.runner.source:
                raise ApiError(409, "no camera is watching: choose one under Set-up, Camera, first")
            watching = getattr(self.runner.pipe, "source", None)
            if watching is not None and not getattr(watching, "live", True):
                # a file would start again from its beginning after teaching, and its plays be
                # recorded twice
                raise ApiError(409, f"the camera is a video file ({self.runner.shown_source}), not the table's: teach "
                                    f"from a webcam or a phone's stream, or run `masta learn-deck VIDEO --out "
                                    f"deck.npz` on a video of the cards and start masta with --deck deck.npz")
            if not getattr(getattr(self.runner.detector, "classifier", None), "with_features", False):
                raise ApiError(409, "this camera's card reader cannot learn a deck (restart the server)")
            source = self.runner.source
            self.status, self.order, self.taught, self.problems = "teaching", list(order), [], []
            self.message = f"Show these {len(order)} cards one at a time in the middle of the table."
            self._stop, self._halt = threading.Event(), threading.Event()
            self._cancelled = False
        self.runner.stop()  # no refereeing while cards are shown: they are no plays
        self.runner.report(f"camera {source}: teaching the deck (not refereeing until it is done)")
        try:
            from vision.source import open_source
            src = open_source(source, pace=self.runner.pace, live=self.runner.live,
                              backoff=self.runner.backoff, max_retries=self.runner.max_retries)
            src.frames = sane_frames(src.frames, self.runner.report)
        except (ValueError, FileNotFoundError) as exc:  # a camera gone meanwhile
            with self._lock:
                self.status, self.message = "idle", ""
            self._resume(source)
            raise ApiError(400, mask_source(f"cannot open camera {source!r} to teach the deck: {exc}")) from None
        self._thread = threading.Thread(target=self._learn, args=(src, source, self._stop),
                                        name="masta-teach", daemon=True)
        self._thread.start()
        self._publish()
        return self.state()

    def done(self) -> dict:
        """Stop showing cards: learn from those seen so far."""
        return self._finish(cancel=False)

    def cancel(self) -> dict:
        """Stop showing cards and keep the deck read with before (if any)."""
        return self._finish(cancel=True)

    def _finish(self, cancel: bool) -> dict:
        with self._lock:
            if self.status != "teaching" and not (cancel and self.status == "finishing"):
                raise ApiError(409, "no deck is being taught")
            self._cancelled = self._cancelled or cancel
            self.status = "finishing"
        self._stop.set()
        if cancel:
            self._halt.set()
        self._publish()
        return self.state()

    def forget(self) -> dict:
        """Read with the classifier alone again, as before any deck was taught."""
        with self._lock:
            if self.status != "idle":
                raise ApiError(409, "a deck is being taught: finish or cancel it first")
            if not self.store.get_setting(SETTING):
                raise ApiError(404, "no deck was taught here")
            self.store.set_setting(SETTING, None)
            deck_path(self.app).unlink(missing_ok=True)
            self._set_deck(None)
            self.message = "The taught deck is forgotten: the camera reads with its model alone."
        self._publish()
        return self.state()

    def close(self, timeout: float = 10.0) -> None:
        """The server stops: a teaching under way is cancelled and the camera not restarted."""
        with self._lock:
            self._closing = self._cancelled = True
        self._stop.set()
        self._halt.set()
        self.wait(timeout)

    def wait(self, timeout: float = 30.0) -> bool:
        """Until the teaching thread ends (tests, shutdown)."""
        t = self._thread
        if t is not None:
            t.join(timeout)
        return t is None or not t.is_alive()

    # ------------------------------------------------------------------ the teaching thread
    def _deck(self):
        return getattr(getattr(self.runner.detector, "classifier", None), "deck", None)

    def _set_deck(self, memory) -> None:
        classifier = getattr(self.runner.detector, "classifier", None)
        if classifier is not None:
            classifier.deck = memory

    def _frames(self, src, stop: threading.Event):
        """The camera's frames until Done, shown on the page as they come (as the live view
        shows them, `vision.pipeline.phone_jpeg`)."""
        from vision.pipeline import phone_jpeg

        last = 0.0
        for fr in src.frames(stop):
            now = time.monotonic()
            if now - last >= 1.0 / SNAPSHOT_FPS:
                last = now
                jpeg = phone_jpeg(fr.image)
                if jpeg:
                    self.runner.frames.publish(jpeg)
            yield fr
            if stop.is_set():
                return

    def _learn(self, src, source: str, stop: threading.Event) -> None:
        from vision.deck_memory import learn_deck

        def on_card(item) -> None:
            with self._lock:
                if all(d["card"] != item.card for d in self.taught):
                    self.taught.append({"card": item.card, "t": round(item.t, 2)})
            self._publish()

        def on_tune() -> None:  # every card seen, or Done: the camera's last minute away
            with self._lock:
                self.status = "finishing"
                self.message = ("Learning this deck's own card faces (a minute or two): the camera "
                                "referees again as soon as it is done.")
            self._publish()

        report = None
        try:
            report = learn_deck(self._frames(src, stop), self.runner.detector, self.order,
                                name="taught at the table", on_card=on_card,
                                tune=self.app.config["MASTA"].teach_tune, tuner=self.app.config["MASTA"].tuner,
                                stop=self._halt, on_tune=on_tune)
        except Exception as exc:  # a broken camera must not leave the table without its referee
            with self._lock:
                self.problems.append(f"teaching stopped: {exc}")
        finally:
            src.close()
        with self._lock:
            cancelled = self._cancelled
            if report is not None and not cancelled:
                self.taught = [{"card": t.card, "t": round(t.t, 2)} for t in report.taught]
                self.problems += report.problems
            if cancelled:
                self.message = "Teaching cancelled: the camera reads as before."
            elif report is None or report.memory is None:
                self.message = "Nothing was learnt: the camera reads as before."
            else:
                path = report.memory.save(deck_path(self.app))
                info = {"cards": [t.card for t in report.taught], "of": len(self.order),
                        "t": time.time(), "file": path.name}
                self.store.set_setting(SETTING, info)
                self._set_deck(report.memory)
                self.message = "The camera now reads with this deck."
            self.status = "idle"
            closing = self._closing
        if not closing:
            self._resume(source)
        self._publish()

    def _resume(self, source: str) -> None:
        """Referee again: the watcher starts from the table as it is now."""
        try:
            self.runner.start(source)
        except (ValueError, FileNotFoundError) as exc:
            self.runner.report(f"camera {source} could not restart after teaching: {exc}; "
                               f"choose it again under Set-up")
