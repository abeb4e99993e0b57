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
    ref = new_referee()
    outputs: dict[int, list[dict]] = {}
    for ev in log:
        try:
            outputs[ev["seq"]] = apply(ref, None, ev)
        except ValueError as exc:
            outputs[ev["seq"]] = [{"kind": "error", "text": str(exc)}]
    return ref, None, outputs


def apply(ref: Any, evening: Any, ev: dict) -> list[dict]:
    if ref is None:
        return []
    return [dict(o) for o in ref.apply(dict(ev))]


def view(ref: Any) -> dict:
    return dict(ref.view()) if ref is not None else {}


def game_over(ref: Any) -> bool:
    v = view(ref)
    return bool(v.get("over") or v.get("game_over") or v.get("titles"))


def needs_replay(ev: dict) -> bool:
    return ev["type"] in ("correct", "void", "played_by", "target")


def kind(out: dict) -> str:
    k = out.get("kind") or out.get("type")
    if k:
        return str(k)
    return "ruling" if "verdict" in out else "info"


def plain(out: dict, ev: dict) -> str:
    """One plain sentence for a ruling or suspicion, for the big banner."""
    if out.get("text"):
        return str(out["text"])
    reasons = out.get("reasons") or []
    if reasons:
        return " ".join(str(r.get("text", "")) for r in reasons if isinstance(r, dict)).strip()
    return str(out.get("verdict", ""))


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
