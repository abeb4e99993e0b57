"""Live page: the camera, the pot, whose turn, and the latest ruling big enough to read across the table."""
from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, render_template

from ..events_stream import take_stream_slot
from ..pages import table

bp = Blueprint("live", __name__, url_prefix="/live", template_folder="templates",
               static_folder="static", static_url_path="/static")


@bp.get("/")
def page():
    return render_template("live/page.html", state=table().view(), camera=_frames().status)


@bp.get("/state.json")
def state():
    return jsonify(dict(table().view(), camera=_frames().status, camera_running=_frames().running))


def _frames():
    return current_app.extensions["masta.frames"]


@bp.get("/frame.jpg")
def frame():
    jpeg = _frames().latest()
    if jpeg is None:
        return jsonify({"error": _frames().status, "status": 404}), 404
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/video.mjpg")
def video():
    """MJPEG: one part per new frame (the browser shows it as a moving image)."""
    hub = _frames()
    release, full = take_stream_slot()
    if full is not None:  # the page falls back to fetching /live/frame.jpg now and then
        return jsonify({"error": full, "status": 503}), 503, {"Retry-After": "5"}

    def parts():
        n = -1
        with hub._cond:  # counted while it runs (a stream never started is not counted)
            hub.viewers += 1
        try:
            for _ in range(100000):
                n, jpeg = hub.wait_next(n, timeout=10.0)
                if jpeg is None:
                    continue
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                       + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")
        finally:
            with hub._cond:
                hub.viewers -= 1

    resp = Response(parts(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-store"})
    resp.call_on_close(release)
    return resp
