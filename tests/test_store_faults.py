"""A database that cannot be written (issue 56, point 7): `masta serve` refuses to start on a
read-only one with a clear message (exit 2); a commit refused mid-evening (the disk full)
answers with what was not saved and why, and everything stored before is kept."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event, text
from test_web import OP, make_app, post, setup_game

from web.store import Store, StoreWriteError

ROOT = Path(__file__).resolve().parent.parent


def _ro_url(path: Path) -> str:
    """The SQLite file opened read-only by SQLite itself (file modes do not stop root)."""
    return f"sqlite:///file:{path}?mode=ro&uri=true"


def test_serve_refuses_a_read_only_database_with_a_clear_message(tmp_path):
    app = make_app(tmp_path)
    setup_game(app.test_client())
    app.extensions["masta.store"].close()
    db = tmp_path / "masta.sqlite3"
    before = db.read_bytes()
    out = subprocess.run([sys.executable, "-m", "masta", "serve", "--port", "1", "--data-dir", str(tmp_path),
                          "--db", _ro_url(db)], cwd=ROOT, capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "read-only" in out.stderr and "cannot write to the database" in out.stderr, out.stderr
    assert "operator link" not in out.stdout  # nothing served, no link printed
    assert "Traceback" not in out.stderr
    assert db.read_bytes() == before


def test_store_check_writable_changes_nothing(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    store.check_writable()
    assert store.get_setting("masta:write-check") is None
    ro = Store(_ro_url(tmp_path / "x.sqlite3"))
    with pytest.raises(StoreWriteError, match="read-only"):
        ro.check_writable()


def _fill_disk(store: Store) -> None:
    """From now on the database cannot grow by a page: SQLite's own 'database or disk is full'."""
    with store.engine.connect() as conn:
        pages = conn.execute(text("PRAGMA page_count")).scalar()

    @event.listens_for(store.engine, "connect")
    def _cap(dbapi_conn, _record):
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA max_page_count = {pages}")
        cur.close()
    store.engine.dispose()


def test_a_commit_refused_for_a_full_disk_says_so_and_keeps_what_is_stored(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    setup_game(c)
    store = app.extensions["masta.store"]
    t = app.extensions["masta.table"]
    _fill_disk(store)
    kept = 0
    refused = None
    for i in range(200):  # notes of 2,000 characters until a page must be added
        r = post(c, "/manual/api/events", {"type": "note", "text": f"{i} " + "x" * 1990})
        if r.status_code == 201:
            kept += 1
            continue
        refused = r
        break
    assert refused is not None, "the database never filled"
    assert refused.status_code == 503, refused.data
    msg = refused.json["error"]
    assert "disk is full" in msg and "not saved" in msg and "kept" in msg, msg
    stored = store.events(t.evening_id)
    assert len(stored) == 1 + kept == len(t.log)  # the refused one is in neither
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
    assert c.get("/live/state.json").json["seq"] == len(stored)
    # the operator's other writes say the same
    r = post(c, "/setup/api/pot-zone", {"zone": [0.1, 0.1, 0.9, 0.9] })
    assert r.status_code in (201, 503)
    if r.status_code == 503:
        assert "disk is full" in r.json["error"]
    exported = [json.loads(x) for x in c.get("/export/evening.jsonl", headers=OP).data.decode().splitlines()]
    assert exported == stored


def test_serve_refuses_a_data_folder_it_cannot_make_with_a_clear_message(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = subprocess.run([sys.executable, "-m", "masta", "serve", "--port", "1", "--data-dir", str(blocker / "data")],
                         cwd=ROOT, capture_output=True, text=True, timeout=30, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "cannot use the data folder" in out.stderr and "Traceback" not in out.stderr, out.stderr
