"""The demo's operator: the answers a person at the table would tap, played from the demo
video's script.

The camera cannot see who an Ace gives the pot to, nor who played a Turbo out of turn; at a
real table the operator answers those prompts on a phone. `masta demo` has nobody to do that,
and one unanswered Ace leaves every later play without a player. So, unless the demo is run
with `--no-operator`, each `target` and `played_by` of the video's truth log is sent as the
operator's (`meta.by`: "demo script") right after the camera has recorded the play it is
about, matched by the play's moment and ranks. A play the camera missed gets no answer: its
prompt waits on the page as it would at a table.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from referee.cards import rank_of

BY = "demo script"
#: a camera play this many seconds after the scripted play came to rest is still that play
#: (the watcher decides a few tenths of a second after the cards settle)
LATE_S = 3.0
EARLY_S = 0.3


@dataclass
class Answer:
    """One scripted answer: `event` (target / played_by, with its player) about the play of
    these ranks that came to rest at `t_rest` (video seconds)."""

    event: dict
    ranks: frozenset[str]
    t_rest: float
    sent: bool = False


def scripted_answers(truth_log: Path) -> list[Answer]:
    """The operator's answers in a `masta data game-video` truth log, each tied to the play
    it names (the latest cards_played before it)."""
    answers: list[Answer] = []
    last_play: dict | None = None
    for line in Path(truth_log).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        ev = json.loads(line)
        if ev.get("type") == "cards_played":
            last_play = ev
        elif ev.get("type") in ("target", "played_by") and last_play is not None:
            answers.append(Answer({"type": ev["type"], "player": ev["player"]},
                                  frozenset(rank_of(c) for c in last_play["cards"]),
                                  float(last_play.get("t_rest", last_play.get("t", 0.0)))))
    return answers


class DemoOperator:
    """Sends the scripted answer for each camera play that matches one (see the module)."""

    def __init__(self, table, answers: list[Answer]):
        self.table = table
        self.answers = answers

    def after_camera(self, event: dict, video_t: float | None) -> None:
        """Called with each event the camera recorded and the video time it was decided at."""
        if event.get("type") != "cards_played" or video_t is None:
            return
        ranks = frozenset(rank_of(c) for c in event.get("cards", []))  # a suit misread is the play
        for ans in self.answers:
            if ans.sent or not ans.t_rest - EARLY_S <= video_t <= ans.t_rest + LATE_S:
                continue
            if ans.ranks != ranks:
                continue
            ans.sent = True
            from .errors import ApiError
            try:
                self.table.submit(dict(ans.event, event=event["seq"]), source="operator", by=BY)
            except ApiError:  # the referee refused it (a misread made it moot): leave the prompt
                pass
