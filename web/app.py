"""`create_app(config)`: the Flask application factory (one blueprint per page)."""
from __future__ import annotations

import datetime as dt

from flask import Flask, redirect, url_for
from werkzeug.exceptions import HTTPException

from . import auth
from .config import Config
from .errors import ApiError, error_response
from .events_stream import Broadcaster
from .events_stream import bp as stream_bp
from .frames import FrameHub
from .store import Store, StoreWriteError
from .table_service import TableService


def create_app(config: Config | None = None, store: Store | None = None) -> Flask:
    """Build the app for `config`; `store` may be shared (for example with a pipeline thread)."""
    config = config or Config()
    config.data_dir.mkdir(parents=True, exist_ok=True)
    config.evidence_dir.mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    store = store or Store(config.database_url)
    store.check_writable()  # StoreWriteError: `masta serve` says why and exits 2
    token, secret = auth.ensure_secrets(store, config)
    app.config.update(
        MASTA=config,
        SECRET_KEY=secret,
        TESTING=config.testing,
        SESSION_COOKIE_NAME="masta",
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        PERMANENT_SESSION_LIFETIME=dt.timedelta(days=365),
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        JSON_SORT_KEYS=False,
    )
    broadcaster = Broadcaster()
    app.extensions["masta.store"] = store
    app.extensions["masta.token"] = token
    app.extensions["masta.broadcaster"] = broadcaster
    app.extensions["masta.frames"] = FrameHub()
    app.extensions["masta.table"] = TableService(store, broadcaster, table_name=config.table)

    from .evening.views import bp as evening_bp
    from .export.views import bp as export_bp
    from .live.views import bp as live_bp
    from .manual.views import bp as manual_bp
    from .rulings.views import bp as rulings_bp
    from .setup.views import bp as setup_bp
    from .teach.views import bp as teach_bp
    for bp in (auth.bp, stream_bp, live_bp, rulings_bp, manual_bp, evening_bp, setup_bp, teach_bp, export_bp):
        app.register_blueprint(bp)

    app.before_request(auth.check_csrf)

    @app.context_processor
    def _globals():
        return {"csrf_token": auth.csrf_token, "is_operator": auth.is_operator(),
                "operator_name": auth.operator_name(),
                "camera_running": app.extensions["masta.frames"].running,
                "camera_status": app.extensions["masta.frames"].status}

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return error_response(exc.status, exc.message)

    @app.errorhandler(StoreWriteError)
    def _not_saved(exc: StoreWriteError):
        return error_response(503, str(exc))

    @app.errorhandler(413)
    def _too_large(exc):
        limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        return error_response(413, f"the request is too large (at most {limit} MB): send one event "
                                   f"or one preset at a time")

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        return error_response(exc.code or 500, exc.description or exc.name)

    @app.get("/")
    def index():
        return redirect(url_for("live.page"))

    @app.after_request
    def _headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'")
        return resp

    return app
