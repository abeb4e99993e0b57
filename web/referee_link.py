"""The one place the web app touches the table referee and the evening (referee/table.py,
referee/evening.py), through their documented contract only:
`TableReferee.apply(event) -> list[dict]`, `.view() -> dict`, and the evening object.
"""
from __future__ import annotations

from typing import Any

try:  # the referee lands in parallel; until then the pages say it is missing
    from referee.table import TableReferee  # type: ignore
except ImportError as _exc:  # pragma: no cover - depends on the checkout
    TableReferee = None  # type: ignore
    _MISSING = str(_exc)
else:
    _MISSING = ""

try:
    from referee import rules as _rules  # type: ignore
except ImportError:  # pragma: no cover
    _rules = None  # type: ignore


def status() -> str:
    return "ok" if TableReferee is not None else f"table referee not installed ({_MISSING})"


def presets() -> list[str] | None:
    if _rules is None:
        return None
    for name in ("preset_names", "list_presets", "available_presets"):
        fn = getattr(_rules, name, None)
        if callable(fn):
            return list(fn())
    return None


def new_referee() -> Any:
    return TableReferee() if TableReferee is not None else None


def replay(log: list[dict]) -> tuple[Any, Any, dict[int, list[dict]]]:
    """(referee, evening, outputs by seq) after applying the whole stored log.

    The referee's own `outputs` are used: after a correction it revises earlier ones."""
    ref = new_referee()
    if ref is None:
        return None, None, {}
    for ev in log:
        try:
            ref.apply(dict(ev))
        except ValueError as exc:  # a stored log this referee refuses: stop there, say so
            ref.replay_error = f"the stored log cannot be replayed past event {ev['seq']}: {exc}"
            break
    return ref, None, ref.outputs


def apply(ref: Any, evening: Any, ev: dict) -> list[dict]:
    """Rule one event; a ValueError (EventError) means refused, with the referee unchanged."""
    if ref is None:
        return []
    if getattr(ref, "replay_error", None):
        raise ValueError(ref.replay_error)
    return [dict(o) for o in ref.apply(dict(ev))]


def outputs(ref: Any) -> dict[int, list[dict]]:
    return ref.outputs if ref is not None else {}


def view(ref: Any) -> dict:
    return dict(ref.view()) if ref is not None else {}


def game_over(ref: Any) -> bool:
    return bool(view(ref).get("over"))


def needs_replay(ev: dict) -> bool:
    return False  # the referee replays by itself when an event changes the past


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
        return (lead + words + turbo + tail).strip()
    if k == "burn":
        return f"Burn! {out.get('player', '')}".strip()
    if k == "pickup":
        return f"{out.get('player', 'someone')} picks up the pot"
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
    if _rules is None:
        raise ValueError("the rules engine is not installed")
    preset = _rules.load_preset(name_or_path)
    path = getattr(preset, "path", None)
    toml = open(path, encoding="utf-8").read() if path else ""
    return preset.in_words(), toml


def check_preset_file(path) -> None:
    """Raise ValueError (naming key and file) unless `path` is a valid preset."""
    if _rules is None:
        raise ValueError("the rules engine is not installed")
    _rules.load_preset(str(path))


def evening_view(ref: Any) -> dict:
    if ref is None:
        return {"games": [], "standings": [], "ratings": [], "pending_duties": [], "orders": []}
    from referee.evening import Evening
    return Evening.from_table(ref).view()
