"""The evening: titles board, standings, ratings, finishing places, duties, the MASTA's order and the vote."""
from __future__ import annotations

import hashlib
import hmac
import threading
import time

from flask import Blueprint, current_app, jsonify, render_template, request, session

from .. import referee_link as rl
from ..auth import is_operator, operator_name, operator_required
from ..errors import ApiError
from ..pages import created, payload, table
from ..validate import name_key
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
        if is_operator():  # each player's voting code: the operator hands them out
            app = current_app._get_current_object()
            names = list(v["players"]) + [p for o in v.get("orders", []) for p in o.get("missing") or []]
            v["voter_codes"] = {p: voter_code(app, t.evening_id, p) for p in dict.fromkeys(names)}
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


#: voting codes: 6 characters of this alphabet (no 0/O, 1/I): about 30 bits
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
#: wrong voting codes one client address may send in `GUESS_WINDOW_S` before it must wait
MAX_WRONG_CODES = 10
GUESS_WINDOW_S = 600.0


def voter_code(app, evening: int, player: str) -> str:
    """A player's voting code for an evening: the operator reads it out (Evening page) or
    shows it once; that player's phone keeps it. Derived from the server's secret, so it is
    stable across restarts and cannot be worked out from the names."""
    key = str(app.config["SECRET_KEY"]).encode()
    msg = f"masta-vote:{app.extensions['masta.table'].table_name}:{evening}:{name_key(player)}".encode()
    digest = hmac.new(key, msg, hashlib.sha256).digest()
    return "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest[:CODE_LENGTH])


def _code_ok(given: object, want: str) -> bool:
    if not isinstance(given, str):
        return False
    given = "".join(given.split()).upper()[:40]
    return hmac.compare_digest(given.encode(), want.encode())


class _Guesses:
    """Wrong voting codes per client address, so a code cannot be found by trying them all."""

    def __init__(self):
        self._wrong: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def blocked(self, addr: str) -> bool:
        now = time.monotonic()
        with self._lock:
            recent = [t for t in self._wrong.get(addr, []) if now - t < GUESS_WINDOW_S]
            self._wrong[addr] = recent
            return len(recent) >= MAX_WRONG_CODES

    def wrong(self, addr: str) -> None:
        with self._lock:
            self._wrong.setdefault(addr, []).append(time.monotonic())


@bp.post("/api/vote")
def vote():
    """Anyone may vote from their phone; the referee allows one vote per player per order.

    A phone votes as one player, who proves it with their voting code (the operator has each
    player's, on this page): `{"order": 12, "player": "Eve", "serves": true, "code": "K7Q2MX"}`.
    The phone that gave the code is then bound to that name (and it to the phone) for the
    evening and needs the code no more; a new phone of the same player takes the name over
    with the code. So nobody votes in someone else's name by dropping a cookie. The operator
    may record a vote for a player without a phone (the event says who recorded it). A vote
    from a phone keeps no `meta` but its request id: who recorded it is the server's word."""
    raw = payload()
    if isinstance(raw, dict):
        raw = dict(raw, type="vote")
    if is_operator():
        if isinstance(raw, dict):
            raw.pop("code", None)
        return created(table().submit(raw, source="operator", by=operator_name(), allowed=("vote",)))
    if isinstance(raw, dict):
        code = raw.pop("code", None)
        meta = raw.pop("meta", None)
        if isinstance(meta, dict) and meta.get("rid") is not None:  # a resent request is recorded once
            raw["meta"] = {"rid": meta["rid"]}
    else:
        code = None
    t = table()
    app = current_app._get_current_object()
    store = current_app.extensions["masta.store"]
    guesses: _Guesses = current_app.extensions.setdefault("masta.vote_guesses", _Guesses())
    addr = request.remote_addr or "?"
    key = f"voters:{t.evening_id}"
    # a phone is known by its session (the CSRF token a vote must carry); kept as a digest
    device = hashlib.sha256(("masta-phone:" + str(session.get("csrf", ""))).encode()).hexdigest()[:24]
    claimed: list[str] = []

    def proven_by_this_phone(ev: dict, referee) -> None:
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
        if claims.get(name) == device:
            return  # this phone gave the code before
        if guesses.blocked(addr):
            raise ApiError(429, "too many wrong voting codes from this device: wait ten minutes, or "
                                "ask the operator to record the vote")
        if code in (None, ""):
            raise ApiError(403, f"voting as {name} needs {name}'s voting code: the operator has it "
                                f"(Evening page); your phone keeps it after the first vote")
        if not _code_ok(code, voter_code(app, t.evening_id, name)):
            guesses.wrong(addr)
            raise ApiError(403, f"wrong voting code for {name}: ask the operator for {name}'s code")
        claimed.append(name)

    with t.lock:
        out = t.submit(raw, source="operator", by=None, allowed=("vote",), before_apply=proven_by_this_phone)
        if claimed:
            claims = store.get_setting(key, {}) or {}
            claims = {p: d for p, d in claims.items() if d != device and p != claimed[0]}
            store.set_setting(key, {**claims, claimed[0]: device})
    return created(out)
