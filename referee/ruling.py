"""A ruling: the verdict on one play, every reason for it, its effects and what comes next.

`Ruling.to_dict()` is the JSON contract of docs/architecture.md:
`{"verdict": "legal"|"illegal"|"penalty", "reasons": [{"code", "text", "rule"}],
"effects": ["burn", "skip:1", "reverse", "give_pot", "next_picks_up", "again"],
"next": ">= Q" | "<= 7" | "< 7" | "any" | "counter A 2 10 3 or pick up"}`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

LEGAL, ILLEGAL, PENALTY = "legal", "illegal", "penalty"
#: Every effect a ruling may list (skip carries its count: "skip:2").
EFFECTS = ("burn", "skip", "reverse", "give_pot", "next_picks_up", "again")


@dataclass(frozen=True)
class Reason:
    """Why: a stable code, a plain sentence, and the preset's cited rule it applies."""
    code: str
    text: str
    rule: str = ""

    def to_dict(self) -> dict:
        return {"code": self.code, "text": self.text, "rule": self.rule}


@dataclass
class Ruling:
    verdict: str
    reasons: list[Reason] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    next: str = "any"
    #: The pot after the play (bottom to top, since the last clear); [] after a burn or
    #: pick-up.  Not part of the JSON: a convenience for callers that track the pot.
    pile_after: list[str] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        return self.verdict == LEGAL

    @property
    def codes(self) -> list[str]:
        return [r.code for r in self.reasons]

    @property
    def burned(self) -> bool:
        return "burn" in self.effects

    @property
    def skips(self) -> int:
        for e in self.effects:
            if e.startswith("skip:"):
                return int(e[5:])
        return 0

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "reasons": [r.to_dict() for r in self.reasons],
                "effects": list(self.effects), "next": self.next}

    def summary(self) -> str:
        """One line for people: verdict, effects, what must come next."""
        eff = f" [{', '.join(self.effects)}]" if self.effects else ""
        return f"{self.verdict.upper()}{eff}; next: {self.next}"
