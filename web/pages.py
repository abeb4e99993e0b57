"""Small helpers shared by every page's views."""
from __future__ import annotations

import json
from typing import Any

from flask import current_app, jsonify, request

from .errors import ApiError
from .table_service import TableService


def table() -> TableService:
    return current_app.extensions["masta.table"]


def payload() -> Any:
    """The posted JSON (refused clearly when malformed) or the posted form."""
    if request.mimetype == "application/json" or (request.data and not request.form):
        raw = request.get_data(as_text=True)
        if not raw.strip():
            raise ApiError(400, "empty request body: send a JSON object")
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ApiError(400, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    return request.form.to_dict(flat=True)


def created(data: Any):
    return jsonify(data), 201
