"""The evening: titles board, standings, ratings, finishing places, duties, the MASTA's order and the vote."""
from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from .. import referee_link as rl
from ..auth import operator_name, operator_required
from ..pages import created, payload, table
from .chart import places_chart

bp = Blueprint("evening", __name__, url_prefix="/evening", template_folder="templates",
               static_folder="static", static_url_path="/static")


def evening_data() -> dict:
    t = table()
    with t.lock:
        v = rl.evening_view(t.referee)
        v["chart_svg"] = places_chart(v.get("games", []))
        v["titles_now"] = v["games"][-1]["titles"] if v.get("games") else {}
        v["players"] = t.players() or []
        v["evening"] = t.evening_id
        return v


@bp.get("/")
def page():
    return render_template("evening/page.html", data=evening_data())


@bp.get("/data.json")
def data():
    return jsonify(evening_data())


@bp.post("/api/events")
@operator_required
def post_event():
    """Duties and the MASTA's order (operator): `{"type": "order", "player": "Ann", "text": "..."}`."""
    return created(table().submit(payload(), source="operator", by=operator_name(), allowed=("duty", "order")))


@bp.post("/api/vote")
def vote():
    """Anyone may vote from their phone; the referee allows one vote per player per order."""
    raw = payload()
    if isinstance(raw, dict):
        raw = dict(raw, type="vote")
    return created(table().submit(raw, source="operator", by=None, allowed=("vote",)))
