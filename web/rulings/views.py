"""Rulings and disputes: every event and ruling, newest first, with evidence and corrections.

Corrections are new events (correct, played_by, target, picked_up, player_out, void, note,
confirm, counts); the page shows who made each one and when.
"""
from __future__ import annotations

import os

from flask import Blueprint, current_app, jsonify, render_template, request, send_from_directory

from ..auth import operator_name, operator_required
from ..errors import ApiError
from ..pages import created, payload, table

bp = Blueprint("rulings", __name__, template_folder="templates",
               static_folder="static", static_url_path="/rulings/static")

CORRECTIONS = ("correct", "missed", "played_by", "target", "picked_up", "player_out", "void", "note",
               "confirm", "counts", "game_end")


@bp.get("/rulings/")
def page():
    return render_template("rulings/page.html", state=table().view())


@bp.get("/rulings/data.json")
def data():
    """Every event of the evening, newest first. `?from=game`: the current game's only (and the
    plays its set-up found held in the game before), as the page asks: an evening of several
    games is thousands of events, too many to send and redraw on a phone at every play;
    `earlier` says how many events came before them."""
    from ..deck_teacher import teach_hint
    since = request.args.get("from", "all")
    if since not in ("all", "game"):
        raise ApiError(400, f"from={since!r}: ask for from=game (the current game's events) or from=all (every event)")
    start = table().game_from() if since == "game" else 1
    return jsonify({"entries": table().entries(start), "earlier": start - 1, "view": table().view(),
                    "teach_hint": teach_hint(current_app)})


@bp.post("/rulings/api/corrections")
@operator_required
def correct():
    """A correction as JSON, for example `{"type": "correct", "event": 7, "cards": ["9S"]}`."""
    return created(table().submit(payload(), source="operator", by=operator_name(), allowed=CORRECTIONS))


@bp.get("/evidence/<path:name>")
def evidence(name: str):
    """Evidence frames, served only from the evidence folder (no path escapes it)."""
    folder = current_app.config["MASTA"].evidence_dir
    if not name.lower().endswith((".jpg", ".jpeg", ".png")):
        raise ApiError(404, "evidence files are JPEG or PNG frames")
    if "\x00" in name:
        raise ApiError(404, "no such evidence file")
    root = os.path.realpath(folder)
    real = os.path.realpath(os.path.join(root, name))
    if os.path.commonpath([root, real]) != root:  # `..`, an absolute path, or a link out
        raise ApiError(404, "no such evidence file (evidence is served only from the evidence folder)")
    return send_from_directory(folder, name, max_age=3600)
