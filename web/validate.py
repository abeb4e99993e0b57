"""Turn what a page or a script posted into a clean event, or refuse it with a clear message.

Everything is checked here before the referee or the database sees it, so a bad request
changes nothing: unknown players, card ids that do not exist, references to events that are
not in the log, malformed shapes.
"""
from __future__ import annotations

import math
import re
import unicodedata
from pathlib import Path
from typing import Any

from referee.cards import UnknownCard, parse_card
from referee.events import taken_after_end
from referee.table import is_camera_mismatch

from .errors import ApiError

TABLE_TYPES = ("setup", "cards_played", "pot_cleared", "played_by", "target", "picked_up",
               "player_out", "correct", "missed", "void", "note", "counts", "confirm", "duty", "order",
               "game_end")
PLAYER_TYPES = ("played_by", "target", "picked_up", "player_out")
MAX_PLAYERS = 12


def bad(message: str) -> ApiError:
    return ApiError(400, message)


def _text(text: Any, limit: int, missing: str, what: str) -> str:
    """Free text a person typed: present, not blank, bounded; returned stripped."""
    if not isinstance(text, str) or not text.strip():
        raise bad(missing)
    if len(text) > limit:
        raise bad(f"{what} is at most {limit} characters")
    return text.strip()


#: characters no name may hold: control and format characters (a right-to-left override that
#: shows "evil" as "live", zero-width spaces that make "Ann" two players), surrogates,
#: private-use characters, line and paragraph separators
_NOT_IN_NAMES = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
#: a name must hold at least one of these (a letter, a digit, a symbol such as an emoji)
_SHOWN = ("L", "N", "S")
NAME_LIMIT = 40


def clean_name(value: Any, what: str = "a player's name", limit: int = NAME_LIMIT) -> str:
    """A person's name as typed, normalised (NFC, inner spaces collapsed), or a clear refusal:
    no control or format characters, not blank, at most `limit` characters."""
    if not isinstance(value, str):
        raise bad(f"{what} must be text, not {type(value).__name__}")
    name = unicodedata.normalize("NFC", value)
    for ch in name:
        if unicodedata.category(ch) in _NOT_IN_NAMES:
            raise bad(f"{what} {name.encode('ascii', 'backslashreplace').decode()[:60]!r} holds an invisible or "
                      f"control character (U+{ord(ch):04X}): type the name again with letters only")
    name = " ".join(name.split())
    if not any(unicodedata.category(ch)[0] in _SHOWN for ch in name):
        raise bad(f"{what} is blank: give a name with at least one letter or digit")
    if len(name) > limit:
        raise bad(f"{what} {name[:20]!r}... is too long ({limit} characters at most)")
    return name


def name_key(name: str) -> str:
    """What two names are compared by: case- and width-insensitive ("ANN", "ann" and
    full-width "Ａｎｎ" are one player)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _player(name: Any, players: list[str]) -> str:
    if not isinstance(name, str) or not name.strip():
        raise bad(f"a player name is needed: one of {', '.join(players)}")
    key = name_key(" ".join(unicodedata.normalize("NFC", name).split()))
    for p in players:
        if name_key(p) == key:
            return p
    raise bad(f"unknown player {name[:60]!r}: the players at this table are {', '.join(players)}")


def cards_field(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [v for v in re.split(r"[\s,]+", value.strip()) if v]
    if not isinstance(value, list) or not value:
        raise bad("cards must be a non-empty list of card ids, for example [\"QS\", \"QH\"]")
    try:
        return [parse_card(c) for c in value]
    except UnknownCard as exc:
        raise bad(str(exc)) from None


def _event_ref(value: Any, log: list[dict], kinds: tuple[str, ...] | None = None) -> int:
    try:
        seq = int(value)
        if isinstance(value, float) and not value.is_integer():
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise bad(f"event must be the number (seq) of an event in the log, not {value!r}") from None
    if not 1 <= seq <= len(log):
        raise bad(f"there is no event {seq} in this log (it has {len(log)} events)")
    target = log[seq - 1]
    if kinds and target["type"] not in kinds:
        raise bad(f"event {seq} is a {target['type']} event; this needs a {' or '.join(kinds)} event")
    return seq


def _whole(value: Any, key: str) -> int:
    try:
        n = int(value)
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise bad(f"{key} must be a whole number, not {value!r}") from None
    if not 0 <= n <= 200:
        raise bad(f"{key} must be between 0 and 200")
    return n


def _players_list(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if not isinstance(value, list):
        raise bad("players must be a list of names in seat order, for example [\"Ann\", \"Bob\", \"Cy\"]")
    if len(value) > MAX_PLAYERS + 8:  # before looking at each (a list of thousands)
        raise bad(f"at most {MAX_PLAYERS} players at one table")
    value = [v for v in value if not (isinstance(v, str) and not v.strip())]  # "Ann, Bob, " from a form
    names = [clean_name(v, "player name") for v in value]
    if len(names) < 2:
        raise bad("a game needs at least two players, in seat order")
    if len(names) > MAX_PLAYERS:
        raise bad(f"at most {MAX_PLAYERS} players at one table")
    if len({name_key(n) for n in names}) != len(names):
        raise bad("two players have the same name (names are compared ignoring case and width): "
                  "give each player a different name")
    return names


def normalise(raw: Any, *, log: list[dict], players: list[str] | None, presets: list[str] | None,
              game_over: bool = False, allowed: tuple[str, ...] = TABLE_TYPES,
              source: str = "operator") -> dict:
    """The event's own fields (no seq/t/source yet), checked against the log so far."""
    if not isinstance(raw, dict):
        raise bad("an event is a JSON object such as {\"type\": \"cards_played\", \"cards\": [\"QS\"]}")
    kind = raw.get("type")
    if kind not in allowed:
        raise bad(f"unknown event type {kind!r}: use one of {', '.join(allowed)}")
    ev: dict[str, Any] = {"type": kind}
    if raw.get("meta") is not None:
        if not isinstance(raw["meta"], dict):
            raise bad("meta must be a JSON object")
        ev["meta"] = dict(raw["meta"])
    if kind == "setup":
        names = _players_list(raw.get("players"))
        dealer = raw.get("dealer") or names[-1]
        ev["players"] = names
        ev["dealer"] = _player(dealer, names)
        preset = str(raw.get("preset") or "fr").strip()
        if presets is not None and preset not in presets and not (
                preset.endswith(".toml") and Path(preset).is_file()):
            raise bad(f"unknown preset {preset!r}: use one of {', '.join(presets)}")
        ev["preset"] = preset
        if raw.get("decks") in (None, ""):  # the preset's count for this many players (the referee's default)
            return ev
        try:
            decks = int(raw.get("decks"))
            if isinstance(raw["decks"], bool) or (isinstance(raw["decks"], float) and not raw["decks"].is_integer()):
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise bad("decks must be a whole number (1 or 2)") from None
        if not 1 <= decks <= 3:
            raise bad("decks must be 1, 2 or 3")
        ev["decks"] = decks
        return ev
    if kind == "note":
        ev["text"] = _text(raw.get("text"), 2000, "a note needs some text", "a note")
        if raw.get("event") not in (None, ""):  # the referee's note has no event field: keep it in meta
            ev["meta"] = {**ev.get("meta", {}), "event": _event_ref(raw["event"], log)}
        return ev
    if kind == "void":
        seq = _event_ref(raw.get("event"), log)
        if log[seq - 1]["type"] == "setup":
            raise bad(f"event {seq} sets up a game and cannot be voided: set up a new game instead")
        if any(e["type"] == "void" and e.get("event") == seq for e in log):
            raise bad(f"event {seq} is already void")
        ev["event"] = seq
        return ev
    if players is None:
        raise bad("no game is set up at this table yet: start one on the set-up page")
    # votes, notes and duties come after the end too (votes are about its titles)
    if game_over and not taken_after_end({"type": kind, "source": source, "event": raw.get("event")}):
        raise ApiError(409, "this game is over: set up the next game on the set-up page")
    if kind == "cards_played":
        ev["cards"] = cards_field(raw.get("cards"))
        conf = raw.get("conf")
        if conf is not None:
            if (not isinstance(conf, list) or len(conf) != len(ev["cards"])
                    or not all(isinstance(c, (int, float)) and not isinstance(c, bool)
                               and math.isfinite(c) and 0 <= c <= 1 for c in conf)):
                raise bad("conf must be one number between 0 and 1 per card")
            ev["conf"] = [float(c) for c in conf]
        evidence = raw.get("evidence")
        if evidence is not None:
            if not isinstance(evidence, dict) or not all(
                    isinstance(evidence.get(k), str) for k in evidence if k in ("before", "after")):
                raise bad("evidence must be {\"before\": path, \"after\": path}")
            ev["evidence"] = {k: str(evidence[k]) for k in ("before", "after") if k in evidence}
        return ev
    if kind == "pot_cleared":
        return ev
    if kind == "correct":
        ev["event"] = _event_ref(raw.get("event"), log)
        target = log[ev["event"] - 1]
        if target["type"] != "cards_played" and not is_camera_mismatch(target):
            raise bad(f"event {ev['event']} is a {target['type']} event; a correction names a "
                      f"cards_played event, or a camera mismatch (cards it saw land but could not read)")
        ev["cards"] = cards_field(raw.get("cards"))
        return ev
    if kind == "missed":  # what the camera missed right after event `event`: a play, or the pot going
        ev["event"] = _event_ref(raw.get("event"), log)
        if raw.get("cleared") not in (None, False, True):
            raise bad("cleared must be true (the pot went) or left out (a play: give its cards)")
        if raw.get("cleared") and raw.get("cards") not in (None, "", []):
            raise bad("a missed event is either a play (cards) or the pot going (cleared: true), not both")
        if raw.get("cleared"):
            ev["cleared"] = True
        else:
            ev["cards"] = cards_field(raw.get("cards"))
        return ev
    if kind in PLAYER_TYPES:
        ev["player"] = _player(raw.get("player"), players)
        if kind == "played_by":
            if raw.get("event") in (None, ""):
                last = [e["seq"] for e in log if e["type"] == "cards_played"]
                if not last:
                    raise bad("no cards have been played yet, so nobody can have played them")
                ev["event"] = last[-1]
            else:
                ev["event"] = _event_ref(raw.get("event"), log)
                if not is_camera_mismatch(log[ev["event"] - 1]):  # a mismatch note once its cards are
                    # named or guessed is a play too (the referee checks that they are)
                    _event_ref(raw.get("event"), log, ("cards_played", "missed"))
        elif kind != "player_out" and raw.get("event") not in (None, ""):
            ev["event"] = _event_ref(raw["event"], log)
        return ev
    if kind == "game_end":  # optionally who was left holding cards; with `event`, the answer
        if raw.get("player") not in (None, ""):  # to an earlier game_end's question
            ev["player"] = _player(raw["player"], players)
        if raw.get("event") not in (None, ""):
            ev["event"] = _event_ref(raw["event"], log, ("game_end",))
        return ev
    if kind == "counts":  # a player's cards, and/or the stock left
        if raw.get("stock") not in (None, ""):
            ev["stock"] = _whole(raw["stock"], "stock")
        if raw.get("player") not in (None, "") or "stock" not in ev:
            ev["player"] = _player(raw.get("player"), players)
        for key in ("hand", "face_up", "face_down"):
            if raw.get(key) not in (None, ""):
                ev[key] = _whole(raw[key], key)
        if "player" in ev and not any(k in ev for k in ("hand", "face_up", "face_down")):
            raise bad("counts needs at least one of hand, face_up, face_down (with player) "
                      "or stock")
        return ev
    if kind == "confirm":
        ev["event"] = _event_ref(raw.get("event"), log)
        return ev
    if kind == "duty":
        if raw.get("duty") not in ("best_card", "gift"):
            raise bad("duty must be best_card (the SHITHEAD gives their best card to the MASTA) "
                      "or gift (the MASTA gives the SHITHEAD a card)")
        ev["duty"] = raw["duty"]
        ev["player"] = _player(raw.get("player"), players)
        ev["to"] = _player(raw.get("to"), players)
        if raw.get("card") not in (None, ""):
            ev["card"] = cards_field([raw["card"]])[0]
        return ev
    if kind == "order":
        ev["player"] = _player(raw.get("player"), players)
        ev["text"] = _text(raw.get("text"), 500,
                           "an order needs its text: what the MASTA orders the SHITHEAD to do",
                           "an order")
        if raw.get("to") not in (None, ""):
            ev["to"] = _player(raw["to"], players)
        return ev
    if kind == "vote":
        ev["order"] = _event_ref(raw.get("order"), log, ("order",))
        ev["player"] = _player(raw.get("player"), players)
        serves = raw.get("serves")
        if isinstance(serves, str) and serves.lower() in ("yes", "true", "1", "no", "false", "0"):
            serves = serves.lower() in ("yes", "true", "1")
        if not isinstance(serves, bool):
            raise bad("serves must be true (the order serves the general interest) or false")
        ev["serves"] = serves
        return ev
    raise bad(f"unknown event type {kind!r}")  # pragma: no cover - allowed lists only the above
