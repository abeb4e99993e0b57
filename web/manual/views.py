"""Manual entry: with no camera (or a failing one) the operator taps the cards; the same referee rules them."""
from __future__ import annotations

from flask import Blueprint, render_template

from referee.cards import RANKS, SUITS

from ..auth import operator_name, operator_required
from ..pages import created, payload, table
from ..validate import TABLE_TYPES

bp = Blueprint("manual", __name__, url_prefix="/manual", template_folder="templates",
               static_folder="static", static_url_path="/static")


@bp.get("/")
def page():
    return render_template("manual/page.html", state=table().view(), ranks=RANKS, suits=SUITS)


@bp.post("/api/events")
@operator_required
def post_event():
    """Any table event as JSON (`{"type": "cards_played", "cards": ["QS"]}`); answers what was published."""
    return created(table().submit(payload(), source="operator", by=operator_name(), allowed=TABLE_TYPES))
