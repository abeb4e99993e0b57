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


@pytest.mark.parametrize("players,why", [
    (["Ann", "\u202eevil", "Bob"], "invisible or control"),           # shows "evil" as "live"
    (["Ann", "Ann\u200b", "Bob"], "invisible or control"),            # two "Ann"s
    (["Ann", "\u200b", "Bob"], "invisible or control"),
    (["Ann", "Bo\x00b"], "invisible or control"),
    (["Ann", "Bob\nCy"], "invisible or control"),
    (["Ann", "   \u3000 ", "Bob", "Cy"], None),                         # blank: left out, as ", ," was
    (["Ann", "\u0301\u0301", "Bob"], "blank"),                         # combining marks alone
    (["Ann", "ANN"], "same name"),
    (["Ann", "\uff21\uff4e\uff4e"], "same name"),                      # full-width Ａｎｎ
    (["Straße", "STRASSE"], "same name"),
])
def test_names_are_normalised_and_invisible_characters_refused(tmp_path, players, why):
    app = make_app(tmp_path)
    c = app.test_client()
    before = snapshot(app)
    r = post(c, "/setup/api/game", {"players": players})
    if why is None:
        assert r.status_code == 201, r.json
        assert r.json["event"]["players"] == ["Ann", "Bob", "Cy"]
        return
    assert r.status_code == 400, r.json
    assert why in r.json["error"]
    assert snapshot(app) == before


def test_a_name_is_kept_in_nfc_and_found_whatever_its_case_or_width(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    r = post(c, "/setup/api/game", {"players": ["Zoe\u0308", "Bob"], "dealer": "bob"})  # Zoë decomposed
    assert r.status_code == 201, r.json
    assert r.json["event"]["players"] == ["Zo\u00eb", "Bob"] and r.json["event"]["dealer"] == "Bob"
    r = post(c, "/manual/api/events", {"type": "player_out", "player": "\uff3a\uff2f\u00cb"})  # full-width ZOË
    assert r.status_code == 201, r.json
    assert r.json["event"]["player"] == "Zo\u00eb"


def test_standings_csv_cells_a_spreadsheet_would_run_are_prefixed(tmp_path):
    import csv
    import io
    app = make_app(tmp_path)
    c = app.test_client()
    names = ["=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)", "Ann"]
    assert post(c, "/setup/api/game", {"players": names}).status_code == 201
    seqs = []
    for p in names[:4]:
        r = post(c, "/manual/api/events", {"type": "player_out", "player": p})
        assert r.status_code == 201, r.json
        seqs.append(r.json["event"]["seq"])
    for s in seqs:
        assert post(c, "/rulings/api/corrections", {"type": "confirm", "event": s}).status_code == 201
    rows = list(csv.reader(io.StringIO(c.get("/export/standings.csv").data.decode())))
    cells = [row[0] for row in rows[1:]]
    assert sorted(cells) == sorted(["'" + n for n in names[:4]] + ["Ann"]), cells
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row if isinstance(cell, str)
               and not cell.lstrip("-").replace(".", "").isdigit())


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=50))
def test_clean_name_property(text):
    """Any text is refused with a 400, or becomes an NFC name without control or format
    characters that cleans to itself; its comparison key ignores case and width."""
    import unicodedata

    from web.errors import ApiError
    from web.validate import clean_name, name_key
    try:
        name = clean_name(text)
    except ApiError as exc:
        assert exc.status == 400 and exc.message
        return
    assert name == unicodedata.normalize("NFC", name) == clean_name(name)
    assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") for ch in name)
    assert 1 <= len(name) <= 40 and name == name.strip()
    assert name_key(name) == name_key(name.upper()) == name_key(name.lower())
    assert name_key(name) == name_key(unicodedata.normalize("NFKC", name))
