"""Export: a game's or an evening's log as JSON lines (replayable with `masta replay`), standings as CSV."""
from __future__ import annotations

import csv
import io
import json

from flask import Blueprint, Response, current_app, render_template, request

from .. import referee_link as rl
from ..auth import is_operator
from ..errors import ApiError
from ..pages import table

bp = Blueprint("export", __name__, url_prefix="/export", template_folder="templates")

REF_KEYS = ("event", "order")


def _evening_id() -> int:
    """The evening asked for: the one being shown (everyone sees its log on the pages), or an
    earlier one of this table for its operator. Another table's evenings are never exported."""
    store = current_app.extensions["masta.store"]
    raw = request.args.get("evening")
    if raw in (None, "") or raw == str(table().evening_id):
        return table().evening_id
    try:
        eid = int(raw)
    except ValueError:
        raise ApiError(400, f"evening must be a number, not {raw[:40]!r}") from None
    if not 1 <= eid < 2 ** 63:
        raise ApiError(400, f"evening must be the number of an evening (1, 2, ...), not {raw[:40]}")
    found = store.evening(eid)
    if found is None or found.get("table_name", "main") != table().table_name:
        raise ApiError(404, f"there is no evening {eid} at this table ({table().table_name})")
    if not is_operator():
        raise ApiError(401, "exporting an earlier evening needs the operator's token: open the link "
                            "printed when the server started on this device, or send X-Masta-Token")
    return eid


def _log(evening_id: int) -> list[dict]:
    return current_app.extensions["masta.store"].events(evening_id)


def game_slice(log: list[dict], game: int) -> list[dict]:
    """The events of game `game` (its setup up to the next setup), renumbered 1, 2, ... so the
    slice replays on its own; references inside it are renumbered, ones outside it dropped."""
    starts = [i for i, e in enumerate(log) if e["type"] == "setup"]
    numbered = [(i, log[i].get("game", n + 1)) for n, i in enumerate(starts)]
    match = [k for k, (_, g) in enumerate(numbered) if g == game]
    if not match:
        raise ApiError(404, f"there is no game {game} in this evening ({len(starts)} games)")
    k = match[0]
    lo = numbered[k][0]
    hi = numbered[k + 1][0] if k + 1 < len(numbered) else len(log)
    part = log[lo:hi]
    kept: list[dict] = []
    inside: set[int] = set()
    for e in part:  # refs always point back, so one pass finds every dangling line
        if all(e[key] in inside for key in REF_KEYS if key in e):
            kept.append(e)
            inside.add(e["seq"])
    new_seq = {e["seq"]: n for n, e in enumerate(kept, start=1)}
    out = []
    for e in kept:
        e = dict(e, seq=new_seq[e["seq"]])
        for key in REF_KEYS:
            if key in e:
                e[key] = new_seq[e[key]]
        out.append(e)
    return out


#: what a spreadsheet runs as a formula when a cell starts with it
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A cell as a spreadsheet shows it: text it would run as a formula (a player named
    `=HYPERLINK(...)`) is prefixed with ' so it stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _jsonl(events: list[dict], filename: str) -> Response:
    body = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
    return Response(body, mimetype="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/")
def page():
    store = current_app.extensions["masta.store"]
    shown = store.list_evenings(table().table_name)
    if not is_operator():  # a spectator may take the evening being shown, the operator any of this table's
        shown = [e for e in shown if e["id"] == table().evening_id]
    evenings = [dict(e, games=store.games(e["id"]), events=store.count_events(e["id"])) for e in shown]
    return render_template("export/page.html", evenings=evenings, current=table().evening_id)


@bp.get("/evening.jsonl")
def evening_log():
    eid = _evening_id()
    return _jsonl(_log(eid), f"masta-evening-{eid}.jsonl")


@bp.get("/game/<int:game>.jsonl")
def game_log(game: int):
    eid = _evening_id()
    return _jsonl(game_slice(_log(eid), game), f"masta-evening-{eid}-game-{game}.jsonl")


@bp.get("/standings.csv")
def standings_csv():
    eid = _evening_id()
    ref, _, _ = rl.replay(_log(eid)) if eid != table().evening_id else (table().referee, None, None)
    view = rl.evening_view(ref)
    ratings = {r["player"]: r for r in view.get("ratings", [])}
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["player", "games", "MASTA", "VICE-MASTA", "PEUPLE", "SHITHEAD", "average_place",
                "best_masta_streak", "rating", "mu", "sigma"])
    for s in view.get("standings", []):
        r = ratings.get(s["player"], {})
        w.writerow([csv_cell(s["player"]), s["games"], s.get("MASTA", 0), s.get("VICE-MASTA", 0), s.get("PEUPLE", 0),
                    s.get("SHITHEAD", 0), s["average_place"], s.get("best_masta_streak", 0),
                    r.get("ordinal", ""), r.get("mu", ""), r.get("sigma", "")])
    return Response(buf.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="masta-standings-{eid}.csv"'})
