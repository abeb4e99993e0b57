"""Join by QR code: `masta serve` prints the spectator address as a QR code a phone can scan,
the set-up page shows it (and the operator's only to the operator); read back with OpenCV's
QR reader, not compared with what the encoder was asked for."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
from helpers_qr import read_qr
from helpers_server import read_until
from test_web import TOKEN, make_app

from web import qr

ROOT = Path(__file__).resolve().parent.parent
#: segno's compact terminal code: two modules a character, light ones drawn
HALVES = {"█": (1, 1), " ": (0, 0), "▀": (1, 0), "▄": (0, 1)}


def read_blocks(lines: list[str]) -> str:
    """What a QR code printed in block characters says."""
    rows: list[list[int]] = []
    for line in lines:
        top, bottom = zip(*(HALVES[ch] for ch in line.rstrip("\n")))
        rows += [list(top), list(bottom)]
    width = max(len(r) for r in rows)
    img = np.array([r + [1] * (width - len(r)) for r in rows], np.uint8) * 255
    img = cv2.copyMakeBorder(img, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=255)
    img = cv2.resize(img, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    return read_qr(img)


def read_svg_png(svg: str) -> str:
    """What an SVG QR code as the page holds it says: its dark path's runs ("M x y h n",
    one module high) drawn as a bitmap and read by OpenCV."""
    size = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).group(1))
    img = np.full((size, size), 255, np.uint8)
    path = re.search(r'class="qrline"[^>]* d="([^"]+)"', svg).group(1)
    x = y = 0.0
    for cmd, a, b in re.findall(r"([Mmh])\s*(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
        if cmd == "M":
            x, y = float(a), float(b)
        elif cmd == "m":
            x, y = x + float(a), y + float(b)
        else:
            n = float(a)
            img[int(y - 0.5), int(min(x, x + n)):int(max(x, x + n))] = 0
            x += n
    img = cv2.resize(img, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    return read_qr(img)


def test_the_terminal_code_reads_back_as_the_address():
    out = io.StringIO()
    qr.terminal("http://192.168.1.20:8000/", out)
    assert read_blocks([ln for ln in out.getvalue().splitlines() if ln]) == "http://192.168.1.20:8000/"


def test_the_set_up_page_shows_the_watch_code_to_all_and_the_operators_to_the_operator(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    html = c.get("/setup/", base_url="http://192.168.1.20:8000").get_data(as_text=True)
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(svgs) == 1 and 'id="qr-operator"' not in html and TOKEN not in html
    assert read_svg_png(svgs[0]) == "http://192.168.1.20:8000/"
    c.get(f"/auth?token={TOKEN}", base_url="http://192.168.1.20:8000")
    html = c.get("/setup/", base_url="http://192.168.1.20:8000").get_data(as_text=True)
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(svgs) == 2
    assert read_svg_png(svgs[1]) == f"http://192.168.1.20:8000/auth?token={TOKEN}"
    # listening on this machine only (the default), the page says what to do for phones
    assert "--host 0.0.0.0" in html


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _announcement(args: list[str], tmp_path) -> tuple[list[str], subprocess.Popen]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "masta", "serve", *args, "--data-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env)
    lines: list[str] = []
    read_until(proc, lambda line: line.startswith("masta: database"), lines, time.time() + 60)
    return lines, proc


def test_masta_serve_on_the_network_prints_a_code_phones_scan(tmp_path):
    port = _free_port()
    lines, proc = _announcement(["--host", "0.0.0.0", "--port", str(port)], tmp_path)
    try:
        text = "".join(lines)
        base = re.search(r"serving on (http://\S+?)/ ", text).group(1)
        start = next(i for i, ln in enumerate(lines) if "scan this to watch" in ln) + 1
        end = next(i for i, ln in enumerate(lines) if "operator link" in ln)
        assert read_blocks(lines[start:end]) == base + "/", text
        # the operator's link is not printed as a code for every passer-by's camera
        assert sum("scan" in ln for ln in lines) == 1
        # the set-up page shows the address the terminal announced, whatever the phone typed
        html = urllib.request.urlopen(f"http://127.0.0.1:{port}/setup/", timeout=10).read().decode()
        svg = re.search(r'<figure id="qr-watch">(<svg.*?</svg>)', html, re.S).group(1)
        assert read_svg_png(svg) == base + "/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_masta_serve_on_this_machine_only_says_how_phones_can_join(tmp_path):
    lines, proc = _announcement(["--port", str(_free_port())], tmp_path)
    try:
        text = "".join(lines)
        assert "scan this" not in text and "█" not in text
        assert "--host 0.0.0.0 for phones on the network (a QR code to scan is then shown here" in text
    finally:
        proc.terminate()
        proc.wait(timeout=10)
