"""Shared by the access and fuzz tests: every state-changing route with a body it accepts,
a snapshot of everything a request could change, an app whose game has ended, a phone."""
from __future__ import annotations

import os

from test_web import make_app, post, setup_game

#: every POST route and a body it accepts from the operator (so a refusal is the token's doing)
OPERATOR_ROUTES = {
    "/manual/api/events": {"type": "cards_played", "cards": ["6H"]},
    "/rulings/api/corrections": {"type": "note", "text": "checked"},
    "/setup/api/game": {"players": ["Ann", "Bob"], "dealer": "Bob"},
    "/setup/api/preset": {"name": "ours", "toml": 'extends = "fr"\nname = "ours"\n'},
    "/setup/api/camera": {"source": ""},
    "/setup/api/pot-zone": {"zone": [0.2, 0.2, 0.8, 0.8]},
    "/setup/api/seat-zones": {"seats": {"Ann": [0.0, 0.7, 1.0, 1.0]}},
    "/setup/api/deck-letters": {"letters": "fr"},
    "/setup/api/evening": {"name": "Friday"},
    "/evening/api/events": {"type": "order", "player": "Bob", "text": "sing"},
    # these need a camera (tests/test_teach_web.py): without one they answer 409 once past the token
    "/teach/api/start": {"suits": "SH"},
    "/teach/api/done": {},
    "/teach/api/cancel": {},
    "/teach/api/forget": {},
}
#: state-changing routes open to everyone, and why
PUBLIC_ROUTES = {
    "/auth": "signs a device in: the token is the body itself (a wrong one is 403)",
    "/auth/logout": "signs this device out only (CSRF-checked)",
    "/evening/api/vote": "anyone votes from their phone (CSRF-checked, one name per phone, proven by "
                         "the player's voting code)",
}
CHANGING = {"POST", "PUT", "PATCH", "DELETE"}


def snapshot(app) -> tuple:
    """Everything a request could change: the log, the settings, the evenings, saved presets."""
    store = app.extensions["masta.store"]
    from sqlalchemy import text
    with store.engine.connect() as conn:
        rows = sorted(conn.execute(text("SELECT key, value FROM settings")).all())
        evs = conn.execute(text("SELECT count(*) FROM events")).scalar()
        evenings = conn.execute(text("SELECT count(*) FROM evenings")).scalar()
    presets = sorted(os.listdir(app.config["MASTA"].presets_dir)) if app.config["MASTA"].presets_dir.is_dir() else []
    return rows, evs, evenings, presets


def game_over_app(tmp_path):
    """A four-player game that ended (Bob MASTA, Ann VICE-MASTA, Cy PEUPLE, Dee SHITHEAD)."""
    app = make_app(tmp_path)
    play_four_player_game(app.test_client())
    return app


def play_four_player_game(c) -> None:
    setup_game(c, players=("Ann", "Bob", "Cy", "Dee"), dealer="Dee")
    seqs = []
    for p in ("Bob", "Ann", "Cy"):
        r = post(c, "/manual/api/events", {"type": "player_out", "player": p})
        assert r.status_code == 201, r.json
        seqs.append(r.json["event"]["seq"])
    for s in seqs:
        assert post(c, "/rulings/api/corrections", {"type": "confirm", "event": s}).status_code == 201


def phone(app):
    """A phone that opened the evening page: it holds a session and its CSRF token."""
    c = app.test_client()
    c.get("/evening/")
    with c.session_transaction() as s:
        csrf = s["csrf"]
    return c, {"X-CSRF-Token": csrf}




def code_for(app, player: str) -> str:
    """`player`'s voting code this evening, as the operator's Evening page shows it."""
    from web.evening.views import voter_code
    return voter_code(app, app.extensions["masta.table"].evening_id, player)
