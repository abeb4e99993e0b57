"""Export and the operator token per table (issue 56, point 10): several tables may share one
database; each has its own operator token, and none exports another's evenings."""
from __future__ import annotations

from test_web import post

from web.app import create_app
from web.config import Config


def _table_app(tmp_path, table: str):
    return create_app(Config(data_dir=tmp_path, table=table, testing=True))


def test_each_table_of_a_shared_database_has_its_own_token(tmp_path):
    main = _table_app(tmp_path, "main")
    other = _table_app(tmp_path, "other")
    t_main, t_other = main.extensions["masta.token"], other.extensions["masta.token"]
    assert t_main != t_other
    assert _table_app(tmp_path, "main").extensions["masta.token"] == t_main  # kept across restarts
    assert _table_app(tmp_path, "other").extensions["masta.token"] == t_other
    # the other table's token does not act at table main
    r = post(main.test_client(), "/setup/api/game", {"players": ["Ann", "Bob"]}, headers={"X-Masta-Token": t_other})
    assert r.status_code == 401


def test_export_of_an_evening_needs_its_tables_operator(tmp_path):
    main = _table_app(tmp_path, "main")
    op_main = {"X-Masta-Token": main.extensions["masta.token"]}
    c = main.test_client()
    assert post(c, "/setup/api/game", {"players": ["Ann", "Bob"]}, headers=op_main).status_code == 201
    old = main.extensions["masta.table"].evening_id
    assert post(c, "/setup/api/evening", {"name": "Friday"}, headers=op_main).status_code == 201
    # a spectator: the evening being shown yes, an earlier one no
    spectator = main.test_client()
    assert spectator.get("/export/evening.jsonl").status_code == 200
    for url in (f"/export/evening.jsonl?evening={old}", f"/export/game/1.jsonl?evening={old}",
                f"/export/standings.csv?evening={old}"):
        r = spectator.get(url)
        assert r.status_code == 401 and b"operator" in r.data, url
        r = c.get(url, headers=op_main)
        assert r.status_code == 200, url
    assert b'"setup"' in c.get(f"/export/evening.jsonl?evening={old}", headers=op_main).data
    # table other, on the same database, with its own operator: never table main's evenings
    other = _table_app(tmp_path, "other")
    op_other = {"X-Masta-Token": other.extensions["masta.token"]}
    oc = other.test_client()
    for url in (f"/export/evening.jsonl?evening={old}", f"/export/standings.csv?evening={old}",
                f"/export/game/1.jsonl?evening={old}"):
        r = oc.get(url, headers=op_other)
        assert r.status_code == 404 and b"at this table" in r.data, url
    page = oc.get("/export/", headers=op_other).data
    assert f"evening={old}".encode() not in page
