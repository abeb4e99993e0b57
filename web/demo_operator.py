"""The demo's operator: what a person at the table would tap, played from the demo video's
script.

The camera cannot see who an Ace gives the pot to, nor who played a Turbo out of turn; at a
real table the operator answers those prompts on a phone and corrects the plays the camera
misread. `masta demo` has nobody to do that: one unanswered Ace leaves every later play
without a player, and one misread leaves the counts wrong until the game cannot end. So,
unless the demo is run with `--no-operator`, right after the camera records a play this
operator matches it with the script's play that came to rest just before (by time), corrects
its cards if the camera read others, and sends the script's `target` / `played_by` for it,
each as the operator's event marked `meta.by` = "demo script" (the camera's claim stays on
the rulings page beside the fix). A camera mismatch (something landed that the camera could
not read as a play) is named as the script's play in the same way, as a person would name it
on the rulings page, and is then ruled in place. A play the camera missed altogether (a
scripted play that came to rest before the one matched, never seen) is added in place, as a
person would add it on the rulings page: a `missed` play right after the last camera event
decided before it came to rest. A card the camera adds to a play later (its own `correct`,
a card that showed once the hand had gone) is checked against the script the same way.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from referee.cards import rank_of
from referee.table import is_camera_mismatch

from .errors import ApiError

BY = "demo script"
#: a camera play decided this many seconds after a scripted play came to rest is that play
#: (the watcher decides a few tenths of a second after the cards settle)
LATE_S = 3.0
EARLY_S = 0.3


@dataclass
class ScriptedPlay:
    """A play of the script: its cards, when they came to rest (video seconds) and what the
    operator says about it (`target` / `played_by` events, without their `event`)."""

    cards: list[str]
    t_rest: float
    answers: list[dict] = field(default_factory=list)
    seen: bool = False


def scripted_plays(truth_log: Path) -> list[ScriptedPlay]:
    """The plays of a `masta data game-video` truth log with the operator's answers about
    each (a `target` or `played_by` names the latest play before it)."""
    plays: list[ScriptedPlay] = []
    for line in Path(truth_log).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        ev = json.loads(line)
        if ev.get("type") == "cards_played":
            plays.append(ScriptedPlay(list(ev["cards"]), float(ev.get("t_rest", ev.get("t", 0.0)))))
        elif ev.get("type") in ("target", "played_by") and plays:
            plays[-1].answers.append({"type": ev["type"], "player": ev["player"]})
    return plays


def _shared(a, b) -> int:
    return sum((Counter(a) & Counter(b)).values())


class DemoOperator:
    """Taps the script's corrections and answers for each camera play (see the module)."""

    def __init__(self, table, plays: list[ScriptedPlay]):
        self.table = table
        self.plays = plays
        self.decided: list[tuple[float, int]] = []  # (video seconds, seq) of each camera event
        self.matched: dict[int, ScriptedPlay] = {}   # event seq -> the script's play (camera's or added)

    def _submit(self, tap: dict) -> dict | None:
        try:
            return self.table.submit(tap, source="operator", by=BY)
        except ApiError:  # refused (the game ended on a misread, say): the prompt stays
            return None

    def _add_missed(self, upto: ScriptedPlay, seq: int) -> None:
        """The scripted plays that came to rest before `upto` (matched to camera event `seq`)
        and were never seen, each added right after the camera event decided before it came
        to rest (or the game's setup), with its answers."""
        setup = self.table.setup_event()["seq"]
        for q in self.plays:
            if q.seen or q.t_rest >= upto.t_rest:
                continue
            q.seen = True
            at = max((s for t, s in self.decided if t < q.t_rest and setup < s < seq), default=setup)
            added = self._submit({"type": "missed", "event": at, "cards": q.cards})
            if added:
                self.matched[added["event"]["seq"]] = q
            for answer in q.answers if added else ():
                self._submit(dict(answer, event=added["event"]["seq"]))

    def after_camera(self, event: dict, video_t: float | None) -> None:
        """Called with each event the camera recorded and the video time it was decided at."""
        # a mismatch whose cards left the pot (taken back) is no play to name
        mismatch = is_camera_mismatch(event) and not (event.get("meta") or {}).get("gone")
        if video_t is not None:
            self.decided.append((video_t, event["seq"]))
        if event.get("type") == "correct" and event.get("event") in self.matched:
            # the camera amended a play it read (a card it saw late): the script says what it was
            play = self.matched[event["event"]]
            if Counter(event.get("cards", [])) != Counter(play.cards):
                self._submit({"type": "correct", "event": event["event"], "cards": play.cards})
            return
        if (event.get("type") != "cards_played" and not mismatch) or video_t is None:
            return
        near = [p for p in self.plays if not p.seen and p.t_rest - EARLY_S <= video_t <= p.t_rest + LATE_S]
        if not near:  # no scripted play then: a stray read, left for a person to judge
            return
        got = (event.get("meta") or {}).get("cards", []) if mismatch else event.get("cards", [])
        # of two plays in reach (the camera missed the first), the one it read; else the latest
        play = max(near, key=lambda p: (_shared(got, p.cards), _shared(map(rank_of, got), map(rank_of, p.cards)),
                                        p.t_rest))
        self._take(event["seq"], play, correct=mismatch or Counter(got) != Counter(play.cards))

    def _take(self, seq: int, play: ScriptedPlay, correct: bool) -> None:
        """Camera event `seq` is the script's `play`: the plays missed before it added first,
        then its cards named where the camera had them wrong (`correct`), then its answers."""
        play.seen = True
        self.matched[seq] = play
        self._add_missed(play, seq)
        taps = ([{"type": "correct", "cards": play.cards}] if correct else []) + list(play.answers)
        for tap in taps:
            self._submit(dict(tap, event=seq))
