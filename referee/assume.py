"""What the referee assumes where the camera cannot see a fact, and the question it asks.

A table with nobody holding the operator's phone must not stall: who an Ace gives the pot
to, who took the pot, who played out of turn, who started are each assumed (the camera's
evidence first, the arm's or the pot's side; else what the rules make likeliest) and play goes
on. Each assumption is one question a person may answer (`answer` is the event that does);
later evidence settles it (`seen`) or changes it (`changed`), and a person's answer always
wins. The referee rebuilds them from the log on every replay, so they are a pure function of
it: a restarted server has the same ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field

SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

#: how each kind of assumption is answered: the event type a person sends (with `event`)
ANSWERS = {"target": "target", "picked_up": "picked_up", "player": "played_by",
           "starter": "played_by", "cards": "correct", "out": "confirm", "counts": "counts",
           "end": "game_end"}
OPEN, SEEN, CHANGED = "open", "seen", "changed"


def card_words(cards: list[str]) -> str:
    """Cards as a table says them: `A♠`, `10♥ 10♦`."""
    return " ".join(c if c == "JK" else c[:-1] + SUITS.get(c[-1], c[-1]) for c in cards)


@dataclass
class Assumption:
    """One fact the referee went on without being told."""

    kind: str            # target | picked_up | player | starter | cards | out | counts | end
    event: int           # the event it is about (the Ace, the pot going, the play)
    value: str           # the player assumed
    by: str              # "camera" (its side or its reads), "hand" (the ledger knew who held the
                         # card), "rules", or "claim" (what was said)
    options: list[str]   # who (or, `cards`, which cards) it could be, the likeliest first
    about: str           # the play in table words: "Ann's A♠"
    status: str = OPEN   # open | seen (later evidence agrees) | changed (evidence changed it)
    was: str | None = None  # what it was before evidence changed it
    #: a question to show: a play or the pot going came after it without settling it (the
    #: camera had its chance to say; until then the page waits rather than ask)
    ripe: bool = False
    notes: list[str] = field(default_factory=list)
    #: answers that are no player's name (`cards`, `out`, `counts`): each option's label and the
    #: event one tap sends, in the order of `options`
    offers: list[dict] = field(default_factory=list)
    #: not asked, nor counted under the titles: the rules' own answer (the player in turn took
    #: the pot they could not play on), kept so that later evidence can change it
    quiet: bool = False
    detail: str = ""     # words for the question where the kind needs them (`cards`, `out`, `counts`)
    #: asked by a check of its own (a `desync` prompt with its buttons), not as the one question;
    #: counted under the titles all the same
    checked: bool = False

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.event}"

    @property
    def is_open(self) -> bool:
        return self.status == OPEN

    def settle(self, player: str, seq: int) -> None:
        """Later evidence (at event `seq`) names `player`: agreed, or changed to it."""
        if player == self.value:
            self.status = SEEN
            self.notes.append(f"event {seq} agrees")
            return
        self.was, self.value, self.status = self.value, player, CHANGED
        self.notes.append(f"event {seq} says {player}")
        if player in self.options:
            self.options.remove(player)
        self.options.insert(0, player)

    def text(self) -> str:
        """The question in plain table words."""
        if self.kind == "target":
            return f"Who took the pot after {self.about}?"
        if self.kind == "picked_up":
            return f"Who picked up the pot {self.about}?"
        if self.kind == "starter":
            return f"Who started, with {self.about}?"
        if self.kind == "cards":
            return f"What was played {self.about}?"
        if self.kind == "out":
            return f"Is {self.value} out? {self.detail}"
        if self.kind == "end":
            return f"Who was left holding cards at the end (the Shithead)? {self.detail}"
        if self.kind == "counts":
            return f"Did {self.value} play {self.about}? {self.detail}"
        return f"Who played {self.about}?"

    def to_dict(self) -> dict:
        why = {"camera": "the camera saw it come from that side",
               "rules": "the rules make it likeliest",
               "hand": "they picked up that card: it was in their hand",
               "claim": "the table said so"}.get(self.by, self.by)
        if self.kind == "cards":
            why = "the rank the camera's reads lean to most, of those the rules allow"
        if self.kind == "end":
            why = ("the counts say they hold the most of those who did not play the last play"
                   if self.by == "rules" else
                   "the camera saw the last out play against them at the end")
        labels = [o["label"] for o in self.offers] if self.offers else list(self.options)
        return {"key": self.key, "kind": self.kind, "event": self.event, "value": self.value,
                "by": self.by, "why": why, "options": list(self.options), "status": self.status,
                "was": self.was, "ripe": self.ripe, "text": self.text(),
                "line": f"{self.text()} {' · '.join(labels)}",
                "answer": {"type": ANSWERS[self.kind], "event": self.event},
                **({"offers": [dict(o) for o in self.offers]} if self.offers else {})}
