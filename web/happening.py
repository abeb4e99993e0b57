"""The last thing that happened at the table, in one line: the live page's line under the
headline (whose turn, what the next play must be). The banner shows the latest ruling; a
pick-up, an Ace's target or the game's end are no ruling, and a phone across the table must
still see them at a glance."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

SUIT_SIGNS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
#: what a person or the camera says that is no thing happening at the table itself
QUIET = ("vote", "order", "duty", "confirm", "counts", "note", "played_by", "correct", "void")


@dataclass
class Happening:
    """One line for the live page; `kind` picks its look and the phones' sound."""
    seq: int
    kind: str  # play, illegal, penalty, burn, ace, pickup, target, out, title, mismatch
    text: str
    cards: list[str] = field(default_factory=list)


def card_words(card: str) -> str:
    """`10H` -> `10♥` (a joker stays `JK`)."""
    return card if card == "JK" else card[:-1] + SUIT_SIGNS.get(card[-1], card[-1])


def happening(ev: dict, outs: list[dict]) -> Happening | None:
    """What event `ev` did at the table, from the referee's outputs for it; None for an event
    that changed nothing there (a vote, a note, a play voided since)."""
    kinds = {o.get("kind") for o in outs}
    seq = int(ev.get("seq") or 0)
    over = next((o for o in outs if o.get("kind") == "game_over"), None)
    if over is not None:
        titles = over.get("titles") or {}
        return Happening(seq, "title", "Game over: " + ", ".join(f"{t} {p}" for p, t in titles.items()))
    ruling = next((o for o in reversed(outs) if o.get("kind") == "ruling"), None)  # the latest
    if ruling is not None:
        cards = list(ruling.get("cards") or ev.get("cards") or [])
        who = ruling.get("player") or ev.get("player") or "Someone"
        shown = " ".join(card_words(c) for c in cards)
        effects = ruling.get("effects") or []
        verdict = ruling.get("verdict")
        if verdict == "illegal":
            return Happening(seq, "illegal", f"{who} played {shown}: ILLEGAL", cards)
        if verdict == "penalty":
            return Happening(seq, "penalty", f"{who} played {shown}: penalty", cards)
        if "burn" in effects:
            return Happening(seq, "burn", f"{who} burned the pot with {shown}", cards)
        if "give_pot" in effects:
            return Happening(seq, "ace", f"{who} played {shown}: who gets the pot?", cards)
        return Happening(seq, "play", f"{who} played {shown}" + (" (Turbo)" if ruling.get("turbo") else ""), cards)
    if "pickup" in kinds:
        o = next(o for o in outs if o.get("kind") == "pickup")
        return Happening(seq, "pickup", f"{o.get('player') or ev.get('player') or 'Someone'} picked up the pot")
    if "burn" in kinds:
        o = next(o for o in outs if o.get("kind") == "burn")
        return Happening(seq, "burn", f"{o['player']} burned the pot" if o.get("player") else "The pot burned")
    if "out" in kinds:
        o = next(o for o in outs if o.get("kind") == "out")
        place = f" (place {o['place']})" if o.get("place") else ""
        return Happening(seq, "out", f"{o.get('player') or ev.get('player')} is out{place}")
    if ev.get("type") == "target" and outs:
        return Happening(seq, "target", f"{ev.get('player')} gets the pot (Ace)")
    if ev.get("type") == "pot_cleared" and outs:
        return Happening(seq, "burn", "The pot was cleared")
    return None


def last_happening(log: list[dict], outputs: dict[int, list[dict]]) -> dict | None:
    """The latest event of `log` that did something at the table, as `Happening` fields.
    A correction re-rules the event it names, so walking back finds the corrected play."""
    for ev in reversed(log):
        if ev.get("type") in QUIET:
            continue
        if ev.get("type") == "setup":
            return None  # a new game: nothing happened in it yet
        h = happening(ev, outputs.get(ev.get("seq"), []))
        if h is not None:
            return asdict(h)
    return None
