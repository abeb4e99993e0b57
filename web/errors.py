"""One way to refuse a request: a 4xx with a message that says what was wrong and what to do."""
from __future__ import annotations

from flask import Response, jsonify, render_template, request


class ApiError(Exception):
    """Raised anywhere in a view; becomes a clear 4xx and nothing has been changed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def wants_json() -> bool:
    if request.is_json or request.path.endswith(".json") or "/api/" in request.path:
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json" and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"]


def error_response(status: int, message: str) -> tuple[Response, int] | tuple[str, int]:
    if wants_json() or request.method != "GET":
        return jsonify({"error": message, "status": status}), status
    return render_template("error.html", status=status, message=message), status
