"""The command line's errors a newcomer hits, through the real command: one clear line on
stderr and exit code 2, no traceback, no native library's noise."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def masta(*argv: str, timeout: float = 60, data: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if data is not None:
        env["MASTA_DATA_DIR"] = str(data)
    return subprocess.run([sys.executable, "-m", "masta", *argv], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def one_clear_line(r: subprocess.CompletedProcess, *words: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    err = r.stderr.strip()
    assert "Traceback" not in err and "terminate called" not in err, err
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, err
    return err


@pytest.mark.parametrize("argv, words", [
    (["replay", "{dir}"], ["masta replay: error:", "is a folder, not an event log", ".jsonl"]),
    (["rule", "--rules", "{dir}", "--play", "KH"], ["masta rule: error:", "is a folder, not a rules file"]),
    (["rules", "{dir}"], ["masta rules: error:", "is a folder"]),
    (["simulate", "--rules", "{dir}"], ["masta simulate: error:", "is a folder"]),
])
def test_a_folder_where_a_file_is_asked_for_is_said_plainly(tmp_path, argv, words):
    one_clear_line(masta(*[a.format(dir=tmp_path) for a in argv]), *words)


def test_a_webcam_that_never_opens_fails_fast_and_quietly(tmp_path):
    """`masta watch 7` with no such camera: an error at once, without OpenCV's warnings (a
    camera that opened and dropped mid-game is retried: tests/test_source.py)."""
    if any(Path("/dev").glob("video7")):
        pytest.skip("this machine has a camera 7")
    t = time.time()
    r = masta("watch", "7", "--players", "Ann,Bob,Cy", "--log", str(tmp_path / "log.jsonl"), timeout=60)
    err = one_clear_line(r, "masta watch: error: no camera 7")
    assert "WARN" not in err and "VIDEOIO" not in r.stdout + r.stderr
    assert time.time() - t < 50


def test_demo_on_a_port_in_use_exits_cleanly(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = masta("demo", "--port", str(port), "--data-dir", str(tmp_path), timeout=120)
    one_clear_line(r, f"cannot listen on 127.0.0.1:{port}", "choose another --port")


def test_serve_with_a_file_that_is_not_a_deck_says_so_in_our_words(tmp_path):
    bad = tmp_path / "deck.npz"
    bad.write_text("not a deck\n")
    err = one_clear_line(masta("serve", "--deck", str(bad), "--port", "1", "--data-dir", str(tmp_path)),
                         "is not a taught deck", "masta learn-deck")
    assert "pickle" not in err  # numpy's wording (an .npz of other arrays: tests/test_deck_memory.py)
