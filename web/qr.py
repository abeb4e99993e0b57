"""Join by QR code: nobody types `http://192.168.1.20:8000` at a table.

The spectator address (what every phone opens) is shown as a QR code in the terminal and on
the set-up page; the operator's link, which carries the token, only on the operator's own
screen. Codes are made by segno (PyPI) as SVG on the server: no script, nothing downloaded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO
from urllib.parse import quote

import segno

#: `app.config` key: the address `masta serve` / `demo` announced (the table's network one)
PUBLIC_URL = "MASTA_PUBLIC_URL"


@dataclass(frozen=True)
class JoinLinks:
    """Where phones join: `watch` for everyone, `operator` signs a device in."""
    watch: str
    operator: str
    #: a phone cannot reach `watch` (the server listens on this machine only): what to do
    local_only: str | None = None


def join_links(app, host_url: str) -> JoinLinks:
    """The links for this server: the address it announced at start-up, else the one this
    request came by (`host_url`, e.g. `http://192.168.1.20:8000/`)."""
    base = (app.config.get(PUBLIC_URL) or host_url).rstrip("/")
    config = app.config["MASTA"]
    local = None
    if config.host in ("127.0.0.1", "localhost", "::1"):
        local = ("masta listens on this machine only, so phones cannot open this: start it with "
                 "--host 0.0.0.0")
    token = app.extensions["masta.token"]
    return JoinLinks(watch=base + "/", operator=f"{base}/auth?token={quote(token, safe='')}", local_only=local)


def svg(url: str, title: str) -> str:
    """The QR code of `url` as an inline SVG element (sized by the page's CSS)."""
    code = segno.make(url, error="m")
    return code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True, title=title,
                           svgclass="qr-code")


def terminal(url: str, out: TextIO) -> None:
    """The QR code of `url` in block characters, two modules a line (light squares drawn:
    scans off a dark terminal)."""
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    out.flush()
