"""Hostile or broken input to the web app answers 400 with what was wrong, never 500, and
changes nothing (issue 56, point 8 and on)."""
from __future__ import annotations

import pytest
from helpers_web import game_over_app, phone, snapshot
from test_web import OP, make_app, post, setup_game


def raw_post(client, url, text: str, headers=OP):
    return client.post(url, data=text, content_type="application/json", headers=headers)


@pytest.mark.parametrize("url", ["/manual/api/events", "/setup/api/game", "/evening/api/vote",
                                 "/rulings/api/corrections", "/setup/api/seat-zones"])
def test_json_nested_50000_deep_is_a_400(tmp_path, url):
    app = game_over_app(tmp_path)
    client, headers = phone(app) if url == "/evening/api/vote" else (app.test_client(), OP)
    before = snapshot(app)
    for body in ('{"type": "note", "text": ' + "[" * 50000 + "]" * 50000 + "}",
                 "[" * 50000 + "]" * 50000, '{"meta": ' + "{\"a\": " * 20 + "1" + "}" * 21):
        r = raw_post(client, url, body, headers)
        assert r.status_code == 400, (r.status_code, r.data[:200])
        assert "nests too deep" in r.json["error"]
    assert snapshot(app) == before


@pytest.mark.parametrize("field,route,extra", [
    ("event", "/rulings/api/corrections", {"type": "confirm"}),
    ("event", "/manual/api/events", {"type": "void"}),
    ("decks", "/setup/api/game", {"players": ["Ann", "Bob"]}),
    ("order", "/evening/api/vote", {"player": "Ann", "serves": True}),
])
@pytest.mark.parametrize("number", ["1e999", "-1e999", "Infinity", "NaN", "1" * 5000])
def test_numbers_past_a_float_are_a_400(tmp_path, field, route, extra, number):
    app = game_over_app(tmp_path)
    client, headers = phone(app) if route == "/evening/api/vote" else (app.test_client(), OP)
    before = snapshot(app)
    body = '{"%s": %s, %s}' % (field, number, ", ".join(f'"{k}": {str(v).lower() if isinstance(v, bool) else repr(v).replace(chr(39), chr(34))}' for k, v in extra.items()))
    r = raw_post(client, route, body, headers)
    assert r.status_code == 400, (r.status_code, r.data[:300])
    assert r.json["error"]
    assert snapshot(app) == before


@pytest.mark.parametrize("value", ["1" + "0" * 30, str(2 ** 63), "-5", "0", "99999999999999999999999"])
def test_export_with_an_evening_number_past_64_bits_is_a_400(tmp_path, value):
    app = make_app(tmp_path)
    c = app.test_client()
    setup_game(c)
    r = c.get(f"/export/evening.jsonl?evening={value}", headers=OP)
    assert r.status_code in (400, 404), (r.status_code, r.data[:200])
    assert b"evening" in r.data


@pytest.mark.parametrize("name", ["pyproject.toml", "pyproject", "README.md", "..%2Fpyproject.toml",
                                  "%2Fetc%2Fhostname", "referee/presets/fr.toml", "fr.toml"])
def test_rules_route_reads_presets_by_name_only(tmp_path, name, monkeypatch):
    """A file of the server's working folder (or any path) is never opened: 404 and no file's keys."""
    from pathlib import Path
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)  # where pyproject.toml lies
    (tmp_path / "x.toml").write_text('extends = "fr"\n')
    app = make_app(tmp_path)
    r = app.test_client().get(f"/setup/rules/{name}.json")
    assert r.status_code == 404, (r.status_code, r.data[:300])
    assert b"[project]" not in r.data and b"build-system" not in r.data
    assert "unknown preset" in r.json["error"] or "not found" in r.json["error"]


def test_rules_route_serves_shipped_and_saved_presets(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    assert c.get("/setup/rules/fr.json").status_code == 200
    r = post(c, "/setup/api/preset", {"name": "ours", "toml": 'extends = "fr"\nname = "ours"\n'})
    assert r.status_code == 201, r.json
    r = c.get("/setup/rules/ours.json")
    assert r.status_code == 200 and 'extends = "fr"' in r.json["toml"]
    bad = post(c, "/setup/api/game", {"players": ["Ann", "Bob"], "preset": "pyproject.toml"})
    assert bad.status_code == 400 and "unknown preset" in bad.json["error"]
