"""The table's event log: validation of single events and JSON-lines load/save.

The log is the one source of truth for a table (see docs/architecture.md): one JSON object
per line, append-only, replayed to rebuild every ruling. This module only checks the *shape*
of each event (types, card ids, required fields) and normalises it (canonical card ids,
`seq`, `t` and `source` filled in); whether a player is known or an event makes sense at that
point of the game is checked by `referee.table.TableReferee`.

Every event is a plain dict so it can travel as JSON unchanged:
`{"seq": 1, "t": 1700000000.0, "type": "setup", "source": "operator", ...}`.
Two extra keys are allowed on any event and kept as they are, each a JSON object: `meta`
(anything the producer wants to keep) and `evidence` (for example `{"before": path, "after": path}`).
"""
from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.cards import UnknownCard, parse_card

SOURCES = ("camera", "operator", "system")
COMMON_KEYS = ("seq", "t", "type", "source", "meta", "evidence")


class EventError(ValueError):
    """An event (or log line) that cannot be accepted; the message says what and how to fix it.

    `line` is the 1-based line of a log file when the error came from one, `seq` the event's
    sequence number when known, and `accepted` the events that were valid before it (nothing
    before the bad event is lost).
    """

    def __init__(self, message: str, *, line: int | None = None, seq: int | None = None,
                 accepted: list[dict] | None = None):
        prefix = f"line {line}: " if line is not None else ""
        super().__init__(prefix + message)
        self.line = line
        self.seq = seq
        self.accepted: list[dict] = list(accepted or [])


# --- field checkers: each returns the normalised value or raises EventError -----------------

def _name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EventError(f"`{key}` must be a player name (a non-empty string), got {value!r}")
    return value.strip()


def _names(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or len(value) < 2:
        raise EventError(f"`{key}` must be a list of at least two player names in seat order, "
                         f"got {value!r}")
    names = [_name(v, key) for v in value]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise EventError(f"`{key}` names {', '.join(dupes)} more than once; each seat needs "
                         f"its own name")
    return names


def _cards(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list) or not value:
        raise EventError(f"`{key}` must be a non-empty list of card ids such as [\"QS\", \"QH\"], "
                         f"got {value!r}")
    try:
        return [parse_card(c) for c in value]
    except UnknownCard as exc:
        raise EventError(f"`{key}`: {exc}") from None


def _card(value: Any, key: str) -> str:
    try:
        return parse_card(value)
    except UnknownCard as exc:
        raise EventError(f"`{key}`: {exc}") from None


def _pos_int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EventError(f"`{key}` must be a whole number >= 1, got {value!r}")
    return value


def _count(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EventError(f"`{key}` must be a whole number >= 0, got {value!r}")
    return value


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise EventError(f"`{key}` must be text, got {value!r}")
    return value


def _preset(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EventError(f"`{key}` must be a preset name such as \"fr\" or a path to a rules "
                         f"file, got {value!r}")
    return value.strip()


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise EventError(f"`{key}` must be true or false, got {value!r}")
    return value


def _confs(value: Any, key: str) -> list[float]:
    if not isinstance(value, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
            for v in value):
        raise EventError(f"`{key}` must be a list of confidences between 0 and 1, got {value!r}")
    return [float(v) for v in value]


def _duty(value: Any, key: str) -> str:
    if value not in DUTIES:
        raise EventError(f"`{key}` must be one of {', '.join(DUTIES)}, got {value!r}")
    return value


Checker = Callable[[Any, str], Any]

#: `best_card`: the SHITHEAD gives their best card to the MASTA; `gift`: the MASTA gives the
#: SHITHEAD a card of their choice (the third duty, dealing, is the `setup` event's dealer).
DUTIES = ("best_card", "gift")


@dataclass(frozen=True)
class EventSpec:
    """What one event type carries: required and optional fields, and who usually sends it."""

    type: str
    required: dict[str, Checker]
    optional: dict[str, Checker] = field(default_factory=dict)
    source: str = "operator"
    doc: str = ""


EVENT_SPECS: dict[str, EventSpec] = {s.type: s for s in (
    EventSpec("setup", {"players": _names, "dealer": _name},
              {"preset": _preset, "decks": _pos_int, "game": _pos_int, "starter": _name},
              doc="a new game at the table (players clockwise in seat order)"),
    EventSpec("cards_played", {"cards": _cards}, {"conf": _confs, "player": _name},
              source="camera", doc="cards of one rank landed together on the pot"),
    EventSpec("pot_cleared", {}, source="camera", doc="the pot is gone (burn or pick-up)"),
    EventSpec("played_by", {"player": _name}, {"event": _pos_int},
              doc="who played cards_played event `event` (default: the latest one)"),
    EventSpec("target", {"player": _name}, {"event": _pos_int},
              doc="who the Ace (or joker) of event `event` gives the pot to"),
    EventSpec("picked_up", {"player": _name}, {"event": _pos_int},
              doc="a player took the pot (at pot_cleared `event`, or now)"),
    EventSpec("player_out", {"player": _name}, doc="a player has no cards left"),
    EventSpec("game_end", {}, {"player": _name, "event": _pos_int},
              doc="the game is over though the counts did not end it (a recorded game's video "
                  "ended, or a person says so): whoever is still in is placed by the order they "
                  "stopped playing, the one left holding cards last; `player` names that one "
                  "(the Shithead) where a person knows, and with `event` answers an earlier "
                  "game_end's question"),
    EventSpec("correct", {"event": _pos_int, "cards": _cards},
              doc="the camera misread event `event` (a play, or a camera mismatch note: cards it "
                  "saw land but could not read, then ruled as that play in place); these are the "
                  "real cards"),
    EventSpec("missed", {"event": _pos_int}, {"cards": _cards, "cleared": _bool},
              doc="what the camera missed right after event `event` (the game's setup or any later "
                  "event): a play (`cards`) or the pot going (`cleared: true`); ruled there, and the "
                  "events after it again"),
    EventSpec("void", {"event": _pos_int}, doc="event `event` did not happen"),
    EventSpec("note", {"text": _text}, doc="free text, kept"),
    EventSpec("counts", {}, {"player": _name, "hand": _count, "face_up": _count,
                             "face_down": _count, "stock": _count},
              doc="the operator counted cards on the table: a player's hand, face-up and "
                  "face-down cards and/or the stock (resolves a desync)"),
    EventSpec("confirm", {"event": _pos_int},
              doc="accept the operator claim of event `event` although the counts disagree"),
    EventSpec("duty", {"duty": _duty, "player": _name, "to": _name}, {"card": _card},
              doc="a French duty done before play: `best_card` or `gift`, optionally the card"),
    EventSpec("order", {"player": _name, "text": _text}, {"to": _name},
              doc="the MASTA gives the SHITHEAD an order"),
    EventSpec("vote", {"order": _pos_int, "player": _name, "serves": _bool},
              doc="a PEUPLE or the VICE-MASTA votes whether order `order` serves all"),
)}

#: Events that belong to the play of one game: refused once that game has ended, except a fix
#: naming one of its events and what the camera sees (`taken_after_end`).
PLAY_TYPES = frozenset({"cards_played", "pot_cleared", "played_by", "target", "picked_up",
                        "player_out", "counts", "confirm", "game_end"})


def taken_after_end(ev: dict) -> bool:
    """Does a game that is over still take `ev`? Anything not of its play; a fix naming one of
    its events (a wrong end is undone that way: who played a play, who took a pot); the pot
    going (tidying the table); and a play the camera saw land (held, ruled in place if that end
    is undone: an unread play can end a game too early). A person's new play is refused: the
    next game needs setting up first. One rule for the referee and the web's early refusal."""
    kind = ev.get("type")
    if kind not in PLAY_TYPES or kind == "pot_cleared" or ev.get("event") not in (None, ""):
        return True
    return kind == "cards_played" and ev.get("source") == "camera"


def validate_event(raw: Any, *, seq: int | None = None, now: float | None = None) -> dict:
    """Check one event's shape and return a normalised copy.

    `seq` is the sequence number this event must carry (filled in when missing); `t` defaults
    to `now` (or the clock) and `source` to the type's usual sender.
    """
    if not isinstance(raw, dict):
        raise EventError(f"an event must be a JSON object, got {type(raw).__name__}", seq=seq)
    etype = raw.get("type")
    spec = EVENT_SPECS.get(etype) if isinstance(etype, str) else None
    if spec is None:
        raise EventError(f"unknown event type {etype!r}; known types: "
                         f"{', '.join(EVENT_SPECS)}", seq=seq)
    out: dict[str, Any] = {}
    given_seq = raw.get("seq", seq)
    if given_seq is None:
        raise EventError(f"{etype} event has no `seq`", seq=seq)
    try:
        out["seq"] = _pos_int(given_seq, "seq")
    except EventError as exc:
        raise EventError(f"{etype} event: {exc}", seq=seq) from None
    if seq is not None and out["seq"] != seq:
        raise EventError(f"{etype} event has seq {out['seq']} but the log expects {seq} "
                         f"(events are numbered 1, 2, 3, ... in order)", seq=seq)
    t = raw.get("t", now if now is not None else time.time())
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise EventError(f"{etype} event {out['seq']}: `t` must be unix seconds, got {t!r}",
                         seq=out["seq"])
    out["t"] = float(t)
    out["type"] = etype
    source = raw.get("source", spec.source)
    if source not in SOURCES:
        raise EventError(f"{etype} event {out['seq']}: `source` must be one of "
                         f"{', '.join(SOURCES)}, got {source!r}", seq=out["seq"])
    out["source"] = source
    allowed = set(COMMON_KEYS) | set(spec.required) | set(spec.optional)
    unknown = sorted(k for k in raw if k not in allowed)
    if unknown:
        raise EventError(f"{etype} event {out['seq']}: unknown field(s) {', '.join(unknown)}; "
                         f"a {etype} event takes {', '.join(list(spec.required) + list(spec.optional)) or 'no fields'}"
                         f" (put anything else under `meta`)", seq=out["seq"])
    for key, check in spec.required.items():
        if key not in raw:
            raise EventError(f"{etype} event {out['seq']} is missing `{key}` ({spec.doc})",
                             seq=out["seq"])
        out[key] = _checked(check, raw[key], key, etype, out["seq"])
    for key, check in spec.optional.items():
        if key in raw and raw[key] is not None:
            out[key] = _checked(check, raw[key], key, etype, out["seq"])
    for key in ("meta", "evidence"):
        if key in raw and raw[key] is not None:
            if not isinstance(raw[key], dict):
                raise EventError(f"{etype} event {out['seq']}: `{key}` must be a JSON object "
                                 f"({{...}}), got {type(raw[key]).__name__}", seq=out["seq"])
            out[key] = raw[key]
    if etype == "setup" and out["dealer"] not in out["players"]:
        raise EventError(f"setup event {out['seq']}: dealer {out['dealer']!r} is not one of the "
                         f"players {', '.join(out['players'])}", seq=out["seq"])
    if etype == "setup" and "starter" in out and out["starter"] not in out["players"]:
        raise EventError(f"setup event {out['seq']}: starter {out['starter']!r} is not one of "
                         f"the players {', '.join(out['players'])}", seq=out["seq"])
    if etype == "cards_played" and "conf" in out and len(out["conf"]) != len(out["cards"]):
        raise EventError(f"cards_played event {out['seq']}: {len(out['conf'])} confidences for "
                         f"{len(out['cards'])} cards", seq=out["seq"])
    if etype == "missed" and ("cards" in out) == bool(out.get("cleared")):
        raise EventError(f"missed event {out['seq']}: name either the cards played (`cards`) or the "
                         f"pot going (`cleared: true`), not {'both' if 'cards' in out else 'neither'}",
                         seq=out["seq"])
    if etype == "counts" and not any(k in out for k in ("hand", "face_up", "face_down",
                                                        "stock")):
        raise EventError(f"counts event {out['seq']} gives no count: add hand, face_up, "
                         f"face_down (with player) and/or stock", seq=out["seq"])
    if etype == "counts" and "player" not in out and any(
            k in out for k in ("hand", "face_up", "face_down")):
        raise EventError(f"counts event {out['seq']}: say whose cards these are with "
                         f"`player`", seq=out["seq"])
    if etype in ("correct", "missed", "void", "confirm", "played_by", "target", "picked_up") \
            and out.get("event", 0) >= out["seq"]:
        raise EventError(f"{etype} event {out['seq']} refers to event {out['event']}, which "
                         f"is not earlier in the log", seq=out["seq"])
    if etype == "vote" and out["order"] >= out["seq"]:
        raise EventError(f"vote event {out['seq']} refers to order {out['order']}, which is "
                         f"not earlier in the log", seq=out["seq"])
    return out


def _checked(check: Checker, value: Any, key: str, etype: str, seq: int) -> Any:
    try:
        return check(value, key)
    except EventError as exc:
        raise EventError(f"{etype} event {seq}: {exc}", seq=seq) from None


# --- JSON lines -----------------------------------------------------------------------------

def parse_lines(lines: Iterable[str]) -> list[dict]:
    """Parse and validate JSON lines (blank lines skipped); seq must run 1, 2, 3, ...

    A bad line raises `EventError` naming its line number, with the events before it in
    `accepted`.
    """
    events: list[dict] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EventError(f"not valid JSON ({exc.msg} at column {exc.colno}); each line of "
                             f"a log must be one JSON object", line=lineno,
                             accepted=events) from None
        try:
            events.append(validate_event(raw, seq=len(events) + 1, now=0.0))
        except EventError as exc:
            raise EventError(str(exc), line=lineno, seq=exc.seq, accepted=events) from None
    return events


def read_log(path: str | os.PathLike) -> list[dict]:
    """Load a JSON-lines event log; errors name the file and line."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no event log at {p}")
    if p.is_dir():
        raise FileNotFoundError(f"{p} is a folder, not an event log: name its .jsonl file "
                                f"(one JSON event per line, as the Export page saves it)")
    with p.open(encoding="utf-8") as fh:
        try:
            return parse_lines(fh)
        except EventError as exc:
            raise EventError(f"{p}: {exc}", seq=exc.seq, accepted=exc.accepted) from None


def dumps_event(event: dict) -> str:
    """One event as one JSON line (keys in a stable order, no trailing newline)."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def write_log(path: str | os.PathLike, events: Iterable[dict]) -> None:
    """Write a whole log (to a temporary file first, so a crash never leaves half a log)."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for ev in events:
            fh.write(dumps_event(ev) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, p)


def append_event(path: str | os.PathLike, event: dict) -> None:
    """Append one event line and flush it to disk (the log is append-only)."""
    with Path(path).open("a", encoding="utf-8") as fh:
        fh.write(dumps_event(event) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
