"""Small helpers shared by every page's views."""
from __future__ import annotations

import json
from typing import Any

from flask import current_app, jsonify, request

from .errors import ApiError
from .table_service import TableService


def table() -> TableService:
    return current_app.extensions["masta.table"]


#: how deep a posted JSON value may nest (an event is two levels deep; a seat-zone map three)
MAX_DEPTH = 8


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ApiError(400, f"the number {text[:40]} is too large: send a number a table would use")
    return value


def _constant(name: str):
    raise ApiError(400, f"{name} is not a number a request may carry: send a plain number")


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Does `value` nest deeper than `limit` lists and objects? (No recursion: a hostile
    body cannot exhaust the stack here.)"""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > limit:
                return True
            stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


def payload() -> Any:
    """The posted JSON (refused clearly when malformed, nested too deep, or carrying numbers
    past what a float holds) or the posted form."""
    if request.mimetype == "application/json" or (request.data and not request.form):
        raw = request.get_data(as_text=True)
        if not raw.strip():
            raise ApiError(400, "empty request body: send a JSON object")
        try:
            value = json.loads(raw, parse_float=_finite, parse_constant=_constant)
        except json.JSONDecodeError as exc:
            raise ApiError(400, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        except RecursionError:
            raise ApiError(400, f"the JSON nests too deep: a request is at most {MAX_DEPTH} levels "
                                f"of lists and objects") from None
        except ValueError as exc:  # an integer of thousands of digits
            raise ApiError(400, f"a number in the JSON cannot be read: {exc}") from None
        if too_deep(value):
            raise ApiError(400, f"the JSON nests too deep: a request is at most {MAX_DEPTH} levels "
                                f"of lists and objects")
        return value
    return request.form.to_dict(flat=True)


def created(data: Any):
    return jsonify(data), 201
