"""What the watcher says: one `WatchEvent` per decision, and its event-log form."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vision.pot import asking
from vision.pot.observation import Observation


@dataclass
class WatchEvent:
    """A decision of the watcher. `type`: `cards_played`, `pot_cleared`, `mismatch`, or
    `cards_amended` (the latest play holds one card more than was read: `PotWatcher._late_look`).
    `t`: source seconds of the frame that settled it; `t_still`: when motion stopped."""
    type: str
    t: float
    t_still: float
    frame_index: int
    cards: list[str] = field(default_factory=list)
    conf: list[float] = field(default_factory=list)
    low_conf: bool = False
    detail: str = ""
    evidence: dict[str, str] = field(default_factory=dict)
    alternatives: list[dict[str, float]] = field(default_factory=list)
    seat: str | None = None  # the seat zone the arm came from, when seat zones are set
    arm: float | None = None  # degrees around the pot the arm came in from (`vision.seat_sides`)
    maybe_more: list[str] = field(default_factory=list)  # cards that may lie under the play too
    maybe_less: list[str] = field(default_factory=list)  # cards of the play read half hidden: maybe not
    gone: bool = False  # a mismatch whose cards left the pot (not cards that may have been played)
    guesses: list[str] = field(default_factory=list)  # ... and what may cover them (`asking.guesses`)
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)  # each card's, frame pixels

    def to_log_event(self) -> dict[str, Any]:
        """The event-log object (docs/architecture.md) without `seq`/`t`, which the log adds.
        What the contract has no field for goes under `meta` (`low_conf`, the votes behind
        each read); a mismatch becomes a `note` so the log keeps it for the operator."""
        meta: dict[str, Any] = {}
        if self.low_conf:
            meta["low_conf"] = True
        if self.alternatives and (self.type == "mismatch" or any(len(a) > 1 for a in self.alternatives)):
            # a mismatch keeps even a lone read's vote: the referee weighs its ranks by them
            meta["reads"] = self.alternatives
        if self.type == "mismatch":
            ev: dict[str, Any] = {"type": "note", "source": "camera", "text": f"camera mismatch: {self.detail}"}
            meta["mismatch"] = True
            meta["cards"] = list(self.cards)
            if self.gone:
                meta["gone"] = True
            if self.guesses:
                meta["guesses"] = list(self.guesses)  # the page offers each rank ("Played here")
        elif self.type == "cards_amended":  # the camera's correction of its own latest play; the
            # pipeline names that play (`event`), else it stays a note for the operator
            ev = {"type": "correct", "source": "camera", "cards": list(self.cards)}
            meta["detail"] = self.detail
        else:
            ev = {"type": self.type, "source": "camera"}
        if self.type == "cards_played":
            ev["cards"] = list(self.cards)
            ev["conf"] = [round(float(c), 3) for c in self.conf]
            if self.detail:
                meta["detail"] = self.detail
        if self.maybe_more:
            meta["maybe_more"] = list(self.maybe_more)  # the page offers "it was these too"
        if self.maybe_less:
            meta["maybe_less"] = list(self.maybe_less)  # ... and "it was these without them"
        if self.seat:
            meta["seat"] = self.seat  # a hint for the operator, not a `played_by`
        if self.arm is not None:
            meta["arm"] = round(self.arm, 1)
        if self.evidence:
            ev["evidence"] = dict(self.evidence)
        if meta:
            ev["meta"] = meta
        return ev


# -- what masta says, one function a kind of decision (`at`: t, t_still, frame index) ----------

At = tuple[float, float, int]


def several_ranks(at: At, new_obs: Sequence[Observation]) -> WatchEvent:
    """New cards of several ranks, none standing clear of the others: asked about."""
    cards = [o.card for o in new_obs]
    return WatchEvent("mismatch", *at, cards, [o.conf for o in new_obs], True,
                      f"cards of several ranks appeared at once ({' '.join(cards)}): two plays, or a misread; "
                      f"please check", alternatives=[o.votes for o in new_obs], boxes=[o.box for o in new_obs])


def top_gone(at: At, cards: list[str], guesses: list[str]) -> WatchEvent:
    """The top card(s) no longer seen, the pot not cleared: covered by a card the camera cannot
    read (what it was half read as offered, `guesses`) or taken back."""
    them = f"the top card{'s' if len(cards) > 1 else ''} {' '.join(cards)}"
    return WatchEvent("mismatch", *at, cards, [], True,
                      f"{them} can no longer be seen and the pot was not cleared: covered by a card the camera "
                      f"cannot read (perhaps {' '.join(guesses)}) or taken back; please check" if guesses else
                      f"{them} left the pot without the pot being cleared (taken back?); please check",
                      gone=True, guesses=guesses)


def part_gone(at: At, gone: list[str]) -> WatchEvent:
    return WatchEvent("mismatch", *at, gone, [], True,
                      f"part of the pot is gone ({' '.join(gone)}) but not all of it; please check", gone=True)


def landed_unread(at: At, votes: Counter[str]) -> WatchEvent:
    """The pot changed like a card landing, no card read new: offered as what it was half read
    as (`asking.guesses`), every half read's vote kept (`reads`) for the referee to weigh."""
    guesses = asking.guesses(votes)
    return WatchEvent("mismatch", *at, guesses, [], True,
                      "something landed on the pot but no new card could be read (a card the camera cannot "
                      "read?)" + (f"; perhaps {' '.join(guesses)}" if guesses else "") + "; please check",
                      alternatives=[{c: round(v, 3) for c, v in votes.items()}] if votes else [])


def amended(t: float, index: int, first: WatchEvent, cards: list[str], add: Observation) -> WatchEvent:
    """The play `first` (of `cards`) held `add` too: it showed once the hand had gone."""
    return WatchEvent("cards_amended", t, first.t_still, index, cards + [add.card],
                      list(first.conf) + [add.conf], first.low_conf,
                      f"{add.card} showed once the hand had gone: it was played with {' '.join(cards)}",
                      alternatives=list(first.alternatives) + [add.votes], boxes=list(first.boxes) + [add.box])


def while_out(at: At, appeared: Sequence[Observation], gone: list[str], cleared: bool) -> WatchEvent:
    """What changed while the camera was out, not seen being played: for the operator."""
    if cleared:
        return WatchEvent("mismatch", *at, [], [], True,
                          "the pot was cleared while the camera was out; please check the log")
    if appeared:
        cards = [o.card for o in appeared]
        return WatchEvent("mismatch", *at, cards, [o.conf for o in appeared], True,
                          f"card{'s' if len(cards) > 1 else ''} {' '.join(cards)} appeared while the camera was "
                          f"out (played by hand?); please check the log",
                          alternatives=[o.votes for o in appeared], boxes=[o.box for o in appeared])
    return WatchEvent("mismatch", *at, gone, [], True,
                      f"{' '.join(gone)} left the pot while the camera was out; please check the log", gone=True)
