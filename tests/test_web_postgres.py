"""The store on a real PostgreSQL server (what `masta serve --db postgresql://...` uses when a
club runs several tables on one server): append-only, restart resumes, two tables apart."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

pg_bin = Path("/usr/lib/postgresql")
INITDB = shutil.which("initdb") or next(iter(sorted(pg_bin.glob("*/bin/initdb"))), None)
psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'psycopg[binary]')")
pytestmark = pytest.mark.skipif(INITDB is None, reason="no PostgreSQL server binaries (initdb) on this machine")


def _as_postgres_user(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:  # the server refuses to run as root
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


@pytest.fixture(scope="module")
def pg_url():
    root = Path(tempfile.mkdtemp(prefix="masta-pg-"))  # outside pytest's root-only folder
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    bindir = Path(str(INITDB)).resolve().parent
    r = subprocess.run(_as_postgres_user([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"]),
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        pytest.skip(f"initdb failed: {r.stderr.strip()[:200]}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(_as_postgres_user([str(bindir / "postgres"), "-D", str(data), "-k", str(sock),
                                               "-p", str(port), "-h", ""]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"postgresql://postgres@/postgres?host={sock}&port={port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            psycopg.connect(f"host={sock} port={port} user=postgres dbname=postgres").close()
            break
        except psycopg.OperationalError:
            time.sleep(0.2)
    else:
        proc.terminate()
        pytest.skip("the PostgreSQL server did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=30)
    shutil.rmtree(root, ignore_errors=True)


def test_store_and_app_on_postgres(pg_url, tmp_path):
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from web.app import create_app
    from web.config import Config

    app = create_app(Config(data_dir=tmp_path, db_url=pg_url, token="tok", table="pg-red"))
    c = app.test_client()
    h = {"X-Masta-Token": "tok"}
    assert c.post("/setup/api/game", json={"players": ["Ann", "Bob"], "dealer": "Bob"}, headers=h).status_code == 201
    r = c.post("/manual/api/events", json={"type": "cards_played", "cards": ["9H"]}, headers=h)
    assert r.status_code == 201 and r.json["outputs"][0]["verdict"] == "legal"
    assert c.post("/manual/api/events", json={"type": "cards_played", "cards": ["XX"]}, headers=h).status_code == 400
    store = app.extensions["masta.store"]
    assert store.url.startswith("postgresql+psycopg://")
    with pytest.raises(DBAPIError):
        with store.engine.begin() as conn:
            conn.execute(text("DELETE FROM events"))
    again = create_app(Config(data_dir=tmp_path, db_url=pg_url, token="tok", table="pg-red"))
    state = again.test_client().get("/live/state.json").json
    assert state["table"]["pot"] == ["9H"] and state["seq"] == 2
    other = create_app(Config(data_dir=tmp_path, db_url=pg_url, token="tok", table="pg-blue"))
    assert other.test_client().get("/live/state.json").json["players"] == []
