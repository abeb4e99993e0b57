"""Teach the deck: show masta the table's own cards from a phone, one at a time, so that a
design the model never saw is read right (`web.deck_teacher`)."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, request

from ..auth import operator_required
from ..errors import ApiError
from ..pages import created, payload

bp = Blueprint("teach", __name__, url_prefix="/teach", template_folder="templates",
               static_folder="static", static_url_path="/static")


def _teacher():
    teacher = current_app.extensions.get("masta.teacher")
    if teacher is None:
        raise ApiError(409, "no camera is watching: start masta with a camera (--source, or Set-up, Camera, "
                            "then restart the server) to teach it the deck")
    return teacher


def _idle_state() -> dict:
    """What the page shows without a camera."""
    return {"status": "idle", "order": [], "taught": [], "next": None, "problems": [], "message": "",
            "deck": None, "camera": None, "reads_with": None,
            "misreads": current_app.extensions["masta.table"].misreads()}


@bp.get("/")
def page():
    teacher = current_app.extensions.get("masta.teacher")
    return render_template("teach/page.html", state=teacher.state() if teacher else _idle_state(),
                           has_camera=teacher is not None)


@bp.get("/api/state")
def state():
    return jsonify(_teacher().state())


@bp.post("/api/start")
@operator_required
def start():
    """Start showing cards: `{"suits": "SH"}` (A to K of spades, then of hearts; "SHCD": the
    whole deck) or `{"order": ["AS", "QS", "10H"]}` (the cards in the order they are shown)."""
    from vision.deck_memory import DeckMemoryError, deck_order

    raw = payload()
    if not isinstance(raw, dict):
        raise ApiError(400, 'send {"suits": "SH"} or {"order": ["AS", "2S", ...]}')
    if raw.get("order") is not None:
        order = raw["order"]
        if isinstance(order, str):
            order = order.split()
        if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
            raise ApiError(400, "order must be a list of card ids, like [\"AS\", \"2S\"]")
        order = [c.strip().upper() for c in order]
    else:
        try:
            order = list(deck_order(str(raw.get("suits") or "SH")))
        except DeckMemoryError as exc:
            raise ApiError(400, str(exc)) from None
    return created(_teacher().start(order))


def _no_body() -> None:
    """These take no body; one too large is still refused (413), as on every route."""
    request.get_data(cache=False)


@bp.post("/api/done")
@operator_required
def done():
    """Every card is shown (or enough of them): learn from those seen."""
    _no_body()
    return created(_teacher().done())


@bp.post("/api/cancel")
@operator_required
def cancel():
    _no_body()
    return created(_teacher().cancel())


@bp.post("/api/forget")
@operator_required
def forget():
    _no_body()
    return created(_teacher().forget())
