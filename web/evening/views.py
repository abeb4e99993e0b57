"""The evening: titles board, standings, ratings, finishing places, duties, the MASTA's order and the vote."""
from __future__ import annotations

import hashlib

from flask import Blueprint, current_app, jsonify, render_template, session

from .. import referee_link as rl
from ..auth import is_operator, operator_name, operator_required
from ..errors import ApiError
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
    """Anyone may vote from their phone; the referee allows one vote per player per order.

    A phone votes for one player only: the first name it votes as is bound to it (and it to
    that name) for the evening, so nobody can vote in someone else's name. The operator
    may record a vote for a player without a phone (the event says who recorded it)."""
    raw = payload()
    if isinstance(raw, dict):
        raw = dict(raw, type="vote")
    if is_operator():
        return created(table().submit(raw, source="operator", by=operator_name(), allowed=("vote",)))
    t = table()
    store = current_app.extensions["masta.store"]
    key = f"voters:{t.evening_id}"
    # a phone is known by its session (the CSRF token a vote must carry); kept as a digest
    device = hashlib.sha256(("masta-phone:" + str(session.get("csrf", ""))).encode()).hexdigest()[:24]
    claimed: list[str] = []

    def bound_to_this_phone(ev: dict, referee) -> None:
        """The referee's own checks first (who may vote, once), then: may this phone speak for ev's player?"""
        try:
            rl.check_vote(referee, ev)
        except ValueError as exc:
            raise ApiError(400, f"the referee refused this event: {exc}") from None
        name = ev["player"]
        claims: dict[str, str] = store.get_setting(key, {}) or {}
        mine = [p for p, d in claims.items() if d == device]
        if mine and mine[0] != name:
            raise ApiError(403, f"this phone votes as {mine[0]}; it cannot vote for {name} "
                                f"(each player votes from their own phone, or through the operator)")
        if claims.get(name) not in (None, device):
            raise ApiError(403, f"{name} votes from another phone; nobody can vote in someone "
                                f"else's name (if that phone is lost, the operator can record the vote)")
        if claims.get(name) is None:
            claimed.append(name)

    with t.lock:
        out = t.submit(raw, source="operator", by=None, allowed=("vote",), before_apply=bound_to_this_phone)
        if claimed:
            claims = store.get_setting(key, {}) or {}
            store.set_setting(key, {**claims, claimed[0]: device})
    return created(out)
