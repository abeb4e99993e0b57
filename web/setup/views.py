"""Set-up: players and seats, the preset (in words), house-rule tweaks, the camera, the pot zone."""
from __future__ import annotations

import re

from flask import Blueprint, current_app, jsonify, render_template, request

from .. import qr
from .. import referee_link as rl
from ..auth import is_operator, operator_name, operator_required
from ..camera import MAX_SOURCE, mask_source
from ..errors import ApiError
from ..pages import created, payload, table

bp = Blueprint("setup", __name__, url_prefix="/setup", template_folder="templates",
               static_folder="static", static_url_path="/static")

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


def _config():
    return current_app.config["MASTA"]


def house_presets() -> dict[str, str]:
    """Presets saved from this page: name -> path of its TOML file."""
    folder = _config().presets_dir
    return {p.stem: str(p) for p in sorted(folder.glob("*.toml"))} if folder.is_dir() else {}


def _resolve_preset(name: str) -> str:
    """A preset by its name only: a shipped one (its name) or one saved here (its file in the
    presets folder). Anything else, a path or a file of the server's working folder included,
    is refused: nothing outside those two is ever opened."""
    shipped = rl.presets() or []
    if name in shipped:
        return name
    house = house_presets()
    if name in house:
        return house[name]
    raise ApiError(404, f"unknown preset {name[:60]!r}: use one of {', '.join([*shipped, *house])}")


@bp.get("/")
def page():
    store = current_app.extensions["masta.store"]
    source = store.get_setting("camera_source", _config().source)
    links = qr.join_links(current_app, request.host_url)
    join = {"watch": links.watch, "watch_svg": qr.svg(links.watch, "scan to watch the table"),
            "local_only": links.local_only}
    if is_operator():  # the token is in this one: never sent to a spectator's page
        join.update(operator=links.operator,
                    operator_svg=qr.svg(links.operator, "scan to sign a phone in as the operator"))
    return render_template("setup/page.html", state=table().view(), presets=rl.presets() or ["fr"], join=join,
                           house=list(house_presets()), source=source if is_operator() else mask_source(source),
                           zone=store.get_setting("pot_zone"), seats=store.get_setting("seat_zones") or {},
                           letters=store.get_setting("deck_letters") or "en", letter_sets=LETTER_WORDS,
                           proposal=_proposal(store))


#: the deck's court letters as the set-up page offers them (`vision.letters_option`)
LETTER_WORDS = (("en", "A K Q J (English)"), ("fr", "R D V, 1 or A (French)"), ("nl", "H V B (Dutch)"),
                ("de", "K D B (German)"))


@bp.post("/api/deck-letters")
@operator_required
def deck_letters():
    """The letters the table's deck prints on its courts: `{"letters": "fr"}` (en, fr, nl, de).
    Stored with the table's settings and given to the running camera at once; a letter set the
    camera's classifier cannot read is refused and nothing is changed."""
    raw = payload()
    letters = str((raw or {}).get("letters", "")).strip().lower() if isinstance(raw, dict) else ""
    codes = [c for c, _ in LETTER_WORDS]
    if letters not in codes:
        raise ApiError(400, f"send {{\"letters\": ...}} with one of {', '.join(codes)}")
    runner = current_app.extensions.get("masta.camera")
    message = "saved; the camera reads with them from its next start"
    if runner is not None:
        try:
            runner.set_letters(letters)
        except ValueError as exc:
            raise ApiError(400, str(exc)) from None
        message = f"the camera now reads the courts as {dict(LETTER_WORDS)[letters]}"
    current_app.extensions["masta.store"].set_setting("deck_letters", letters)
    return created({"letters": letters, "message": message})


def _proposal(store) -> dict:
    """The sides the camera proposes from the first plays' arms (`web.camera`), for the
    players of the game now: `{"seats": {...}, "plays": n}`, or `{}` before there are any."""
    got = store.get_setting("seat_proposal") or {}
    players = set(table().players() or [])
    seats = got.get("seats") if isinstance(got, dict) else None
    if not isinstance(seats, dict) or not seats or set(seats) != players:
        return {}
    return {"seats": seats, "plays": got.get("plays", 0)}


@bp.get("/api/seat-proposal")
def seat_proposal():
    """The proposed sides (`{"seats": {"Ann": [x0, y0, x1, y1], ...}, "plays": n}`, or `{}`):
    accepted by sending them to `/setup/api/seat-zones`, moved by drawing one again."""
    return jsonify(_proposal(current_app.extensions["masta.store"]))


@bp.get("/rules/<name>.json")
def rules(name: str):
    """A preset's rules in plain words (the same text as `masta rules NAME`)."""
    from referee.rules import load_preset

    from .switches import switches
    try:
        words, toml = rl.preset_words(_resolve_preset(name))
        controls = switches(load_preset(_resolve_preset(name)))
    except (ValueError, OSError) as exc:
        raise ApiError(404, str(exc)) from None
    return jsonify({"name": name, "words": words, "toml": toml, "switches": controls})


@bp.post("/api/game")
@operator_required
def new_game():
    """Start a game: `{"players": ["Ann", "Bob", "Cy"], "dealer": "Cy", "preset": "fr", "decks": 1}`."""
    raw = payload()
    if isinstance(raw, dict):
        raw = dict(raw, type="setup")
        if raw.get("preset"):
            try:
                raw["preset"] = _resolve_preset(str(raw["preset"]))
            except ApiError as exc:
                raise ApiError(400, exc.message) from None
    return created(table().submit(raw, source="operator", by=operator_name(), allowed=("setup",)))


@bp.post("/api/preset")
@operator_required
def save_preset():
    """Save house-rule tweaks as a new preset: `{"name": "our-house", "toml": "extends = \\"fr\\"..."}`."""
    raw = payload()
    if not isinstance(raw, dict):
        raise ApiError(400, "send {\"name\": ..., \"toml\": ...}")
    name = str(raw.get("name", "")).strip().lower()
    if not NAME_RE.match(name):
        raise ApiError(400, "a preset name is lower-case letters, digits and dashes, like our-house")
    if name in (rl.presets() or []):
        raise ApiError(409, f"{name!r} is a shipped preset: choose another name")
    text = str(raw.get("toml", ""))
    if not text.strip():
        raise ApiError(400, "the preset's TOML is empty: start from `extends = \"fr\"` and change what your table plays")
    folder = _config().presets_dir
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".check-{name}.toml"
    final = folder / f"{name}.toml"
    tmp.write_text(text, encoding="utf-8")
    try:
        rl.check_preset_file(tmp)
    except ValueError as exc:
        tmp.unlink(missing_ok=True)
        raise ApiError(400, f"this preset is not valid: {str(exc).replace(str(tmp), name + '.toml')}") from None
    tmp.replace(final)
    return created({"name": name, "path": str(final)})


@bp.post("/api/camera")
@operator_required
def camera():
    """The camera source: a webcam index, a video file, or a stream URL; empty for manual entry."""
    raw = payload()
    src = (raw or {}).get("source", "") if isinstance(raw, dict) else ""
    src = src.strip() if isinstance(src, str) else str(src)
    if len(src) > MAX_SOURCE:
        raise ApiError(400, f"a camera source is at most {MAX_SOURCE} characters (this one has {len(src)}): "
                            f"give a webcam index such as 0, a video file or a stream URL")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in src):
        raise ApiError(400, "a camera source holds no control characters: give a webcam index such as 0, "
                            "a video file or a stream URL")
    store = current_app.extensions["masta.store"]
    restart = current_app.extensions.get("masta.restart_camera")
    if restart:  # refused (400) when it cannot be opened: then nothing is saved, the old camera goes on
        message = restart(src or None)
    else:
        if src:
            check_source(src)
        message = "saved; it is used the next time the server starts"
    store.set_setting("camera_source", src or None)  # only what opened
    return created({"source": src or None, "message": message})


def check_source(src: str) -> None:
    """Refuse (400) a source that cannot be opened now: a missing or unreadable video file, an
    empty image folder. A webcam or a stream that is not there yet is retried once it runs."""
    from vision.source import describe, open_source
    if describe(src) not in ("video", "folder"):  # opened (and retried) when the server starts
        return
    try:
        opened = open_source(src)
    except (ValueError, OSError) as exc:
        raise ApiError(400, mask_source(f"cannot open camera {src[:200]!r}: {str(exc)[:300]}")) from None
    opened.release()


@bp.post("/api/pot-zone")
@operator_required
def pot_zone():
    """The pot zone drawn on the snapshot, as fractions of the frame: `{"zone": [x0, y0, x1, y1]}`."""
    raw = payload()
    zone = _zone(raw.get("zone") if isinstance(raw, dict) else None, "zone")
    current_app.extensions["masta.store"].set_setting("pot_zone", zone)
    set_zone = current_app.extensions.get("masta.set_zone")
    if set_zone:
        set_zone(tuple(zone))
    return created({"zone": zone})


#: at most this many seat zones (a big table with two decks)
MAX_SEATS = 12


@bp.post("/api/seat-zones")
@operator_required
def seat_zones():
    """Each player's side of the table on the snapshot, optional: `{"seats": {"Ann": [x0, y0,
    x1, y1], ...}}` in fractions of the frame; `{"seats": {}}` clears them. The camera then says
    from which side the arm that played came: a hint on the rulings page, never a ruling."""
    raw = payload()
    seats = raw.get("seats") if isinstance(raw, dict) else None
    if not isinstance(seats, dict):
        raise ApiError(400, 'send {"seats": {"Ann": [x0, y0, x1, y1], ...}} (an empty object clears them)')
    if len(seats) > MAX_SEATS:
        raise ApiError(400, f"at most {MAX_SEATS} seat zones")
    out = {}
    from ..validate import clean_name
    for name, zone in seats.items():
        name = clean_name(name, "a seat's name (the player's name)")
        out[name] = _zone(zone, f"{name}'s side")
    current_app.extensions["masta.store"].set_setting("seat_zones", out)
    set_seats = current_app.extensions.get("masta.set_seats")
    if set_seats:
        set_seats({k: tuple(v) for k, v in out.items()})
    return created({"seats": out})


def _zone(zone, what: str) -> list[float]:
    """Four fractions of the frame [x0, y0, x1, y1] (`vision.boxes.zone`), or a clear refusal."""
    from vision.boxes import zone as check_zone
    try:
        return [round(v, 4) for v in check_zone(zone, what)]
    except ValueError as exc:
        raise ApiError(400, f"{exc}: draw a box on the snapshot") from None


@bp.post("/api/evening")
@operator_required
def new_evening():
    """Start a new evening (a new log); the old one stays in the database and in Export."""
    raw = payload()
    name = str(raw.get("name", "")).strip()[:200] if isinstance(raw, dict) else ""
    return created({"evening": table().new_evening(name or None)})
