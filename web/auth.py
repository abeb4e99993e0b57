"""Who may change things: the operator, by a token printed at start-up and entered once per device.

Everyone else watches and votes. The token is kept in the database so devices stay signed
in across restarts; a device that entered it carries a signed cookie (Flask session) holding
a digest of the token, so a new token signs every device out. Scripts may instead send the
token in an `X-Masta-Token` header. Every state-changing request carrying the cookie must
also carry the session's CSRF token (form field `csrf_token` or header `X-CSRF-Token`), so a
page on another site cannot make a signed-in phone act.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Callable
from urllib.parse import urlparse

from flask import (Blueprint, current_app, redirect, render_template, request, session, url_for)

from .errors import ApiError

bp = Blueprint("auth", __name__, template_folder="templates")

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def token_key(table: str) -> str:
    """Where a table's operator token is saved: each table of a shared database has its own,
    so the operator of one table cannot act on (or export) another's."""
    return "operator_token" if table == "main" else f"operator_token:{table}"


def ensure_secrets(store, config) -> tuple[str, str]:
    """(operator token, cookie signing key): from config, else saved, else made and saved."""
    key_name = token_key(config.table)
    token = config.token or store.get_setting(key_name)
    if not token:
        token = secrets.token_urlsafe(18)
    if store.get_setting(key_name) != token:
        store.set_setting(key_name, token)
    key = store.get_setting("secret_key")
    if not key:
        key = secrets.token_hex(32)
        store.set_setting("secret_key", key)
    return token, key


def _digest(token: str) -> str:
    return hashlib.sha256(("masta-operator:" + token).encode()).hexdigest()


def _token() -> str:
    return current_app.extensions["masta.token"]


def header_token_ok() -> bool:
    given = request.headers.get("X-Masta-Token", "")
    return bool(given) and hmac.compare_digest(given.encode(), _token().encode())


def is_operator() -> bool:
    if header_token_ok():
        return True
    return hmac.compare_digest(str(session.get("op", "")), _digest(_token()))


def _shown(name: str | None, default: str) -> str:
    """A name the operator gave, as events record it: cleaned (no control or format
    characters, `web.validate.clean_name`), else `default`."""
    from .validate import clean_name
    try:
        return clean_name(name or "", "a name")
    except ApiError:
        return default


def operator_name() -> str:
    if header_token_ok():
        return _shown(request.headers.get("X-Masta-By"), "script")
    return str(session.get("op_name") or "operator")


def not_operator_message() -> str:
    """Why a change was refused: a phone's page is told how a person signs in; the header a
    script sends is named only to a script (a request without our pages' CSRF header)."""
    words = ("this needs the operator's token: open the link printed when the server started "
             "(…/auth?token=…) on this device")
    return words if request.headers.get("X-CSRF-Token") else words + ", or send X-Masta-Token"


def operator_required(view: Callable) -> Callable:
    @functools.wraps(view)
    def wrapped(*a, **kw):
        if not is_operator():
            raise ApiError(401, not_operator_message())
        return view(*a, **kw)
    wrapped._masta_operator = True  # type: ignore[attr-defined]
    return wrapped


def csrf_token() -> str:
    tok = session.get("csrf")
    if not tok:
        tok = secrets.token_urlsafe(24)
        session["csrf"] = tok
    return tok


def check_csrf() -> None:
    """before_request hook: refuse a state-changing request that did not come from our pages."""
    if request.method in SAFE_METHODS or header_token_ok():
        return
    origin = request.headers.get("Origin")
    if origin is not None and urlparse(origin).netloc.lower() != (request.host or "").lower():
        raise ApiError(403, f"cross-site request refused (it came from a page on {origin}, not this "
                            f"server): use masta's own pages")
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, "_masta_operator", False) and not is_operator():
        raise ApiError(401, not_operator_message())
    given = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    want = session.get("csrf", "")
    if not want or not given or not hmac.compare_digest(str(given), str(want)):
        raise ApiError(403, "missing or wrong CSRF token: reload the page and try again")


def _safe_next(target: str | None) -> str:
    if target and target.startswith("/") and not target.startswith("//") and not urlparse(target).netloc:
        return target
    return url_for("live.page")


def _sign_in(name: str | None) -> None:
    session.permanent = True
    session["op"] = _digest(_token())
    session["op_name"] = _shown((name or "")[:200], session.get("op_name") or "operator")
    csrf_token()


@bp.get("/auth")
def login_page():
    """The link printed at start-up lands here: it signs this device in and goes to the live page."""
    given = request.args.get("token")
    if given is not None:
        if not hmac.compare_digest(given.encode(), _token().encode()):
            raise ApiError(403, "wrong operator token: use the link printed when the server started")
        _sign_in(request.args.get("name"))
        return redirect(_safe_next(request.args.get("next")))
    return render_template("auth.html", operator=is_operator(), name=operator_name())


@bp.post("/auth")
def login_form():
    given = request.form.get("token", "")
    if not given or not hmac.compare_digest(given.encode(), _token().encode()):
        raise ApiError(403, "wrong operator token: use the one printed when the server started")
    _sign_in(request.form.get("name"))
    return redirect(_safe_next(request.form.get("next")))


@bp.post("/auth/logout")
def logout():
    session.pop("op", None)
    session.pop("op_name", None)
    return redirect(url_for("live.page"))
