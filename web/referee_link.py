"""The one place the web app touches the table referee, the evening and the presets
(referee/table.py, referee/evening.py, referee/rules.py), through their documented contract:
`TableReferee.apply(event) -> list[dict]` (atomic: a refused event raises EventError, a
ValueError, and changes nothing), `.outputs` (per seq, revised after corrections), `.view()`,
and `Evening.from_table(ref).view()`.
"""
from __future__ import annotations

from typing import Any

from referee import rules as _rules
from referee.evening_view import Evening
from referee.table import TableReferee


def status() -> str:
    return "ok"


def presets() -> list[str]:
    """The shipped presets' names (a user's preset is passed by the path of its file)."""
    return list(_rules.list_presets())


def replay(log: list[dict]) -> tuple[TableReferee, None, dict[int, list[dict]]]:
    """(referee, evening, outputs by seq) after applying the whole stored log."""
    ref = TableReferee()
    for ev in log:
        try:
            ref.apply(dict(ev))
        except ValueError as exc:  # a stored log this referee refuses: stop there, say so
            ref.replay_error = (f"the stored log cannot be replayed past event {ev['seq']}: {exc}; "
                                f"export it (Export page) and start a new evening on the set-up page")
            break
    return ref, None, ref.outputs


def apply(ref: TableReferee, evening: Any, ev: dict) -> list[dict]:
    """Rule one event; a ValueError (EventError) means refused, with the referee unchanged."""
    if getattr(ref, "replay_error", None):
        raise ValueError(ref.replay_error)
    return [dict(o) for o in ref.apply(dict(ev))]


def check_vote(ref: TableReferee, ev: dict) -> None:
    """Would the referee take this vote? (ValueError saying why not; changes nothing.)"""
    from referee.events import validate_event
    if getattr(ref, "replay_error", None):
        raise ValueError(ref.replay_error)
    ref.book.check_vote(validate_event(dict(ev), seq=ev["seq"], now=ev["t"]))


def outputs(ref: TableReferee) -> dict[int, list[dict]]:
    return ref.outputs


def view(ref: TableReferee) -> dict:
    return dict(ref.view())


def asked(ref: TableReferee) -> int:
    """How many questions the current game showed as the one to answer."""
    return ref.asked() if hasattr(ref, "asked") else 0


def game_over(ref: TableReferee) -> bool:
    return bool(ref.view().get("over"))


def kind(out: dict) -> str:
    k = out.get("kind") or out.get("type")
    if k:
        return str(k)
    return "ruling" if "verdict" in out else "info"


EFFECT_WORDS = {"burn": "the pot burns", "reverse": "the direction reverses",
                "give_pot": "the pot goes to a player of their choice",
                "next_picks_up": "the next player picks up", "again": "they play again"}


def plain(out: dict, ev: dict) -> str:
    """One plain sentence for a ruling, suspicion or prompt, for the big banner."""
    if out.get("text"):
        return str(out["text"])
    k = kind(out)
    if k == "ruling":
        reasons = [str(r.get("text", "")) for r in out.get("reasons") or [] if isinstance(r, dict)]
        words = "; ".join(r.rstrip(".") for r in reasons if r).strip()
        words = (words[:1].upper() + words[1:] + ".") if words else ""
        effects = []
        for e in out.get("effects") or []:
            if e.startswith("skip:"):
                effects.append(f"{e.split(':')[1]} player(s) skipped")
            elif e in EFFECT_WORDS:
                effects.append(EFFECT_WORDS[e])
        who = out.get("player")
        lead = f"{who}: " if who else ""
        if not words:
            words = {"legal": "Good play.", "illegal": "Not allowed.", "penalty": "Penalty."}.get(
                out.get("verdict", ""), "")
        tail = (" " + "; ".join(effects).capitalize() + ".") if effects and not words else ""
        turbo = " (Turbo)" if out.get("turbo") else ""
        then = f" {str(out['then'])[:1].upper()}{str(out['then'])[1:]}." if out.get("then") else ""
        return (lead + words + turbo + tail + then).strip()
    if k == "burn":
        return f"Burn! {out.get('player') or ''}".strip()
    if k == "pickup":
        return f"{out.get('player') or 'Someone'} picks up the pot"
    if k == "out":
        return f"{out.get('player', '')} is out" + (f" (place {out['place']})" if out.get("place") else "")
    if k == "game_over":
        titles = out.get("titles") or {}
        return "Game over: " + ", ".join(f"{t} {p}" for p, t in titles.items())
    if k == "suspicion":
        return str(out.get("suspicion", "suspicion"))
    return k


def preset_words(name_or_path: str) -> tuple[str, str]:
    """(the rules in plain words, the TOML text) of a preset."""
    preset = _rules.load_preset(name_or_path)
    path = getattr(preset, "path", None)
    toml = open(path, encoding="utf-8").read() if path else ""
    return preset.in_words(), toml


def check_preset_file(path) -> None:
    """Raise ValueError (naming key and file) unless `path` is a valid preset."""
    _rules.load_preset(str(path))


def evening_view(ref: TableReferee) -> dict:
    return Evening.from_table(ref).view()
