"""`masta replay LOG.jsonl [--json]` on saved logs, good and bad."""
from __future__ import annotations

import json

from masta.cli import main
from referee.camera_stream import stream_game
from referee.events import write_log


def saved_game(tmp_path, seed=5):
    sg = stream_game("fr", 3, seed)
    path = tmp_path / "game.jsonl"
    write_log(path, sg.events)
    return sg, path


def test_replay_prints_every_ruling_and_the_titles(tmp_path, capsys):
    sg, path = saved_game(tmp_path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert sum(1 for line in lines if ": LEGAL" in line or ": ILLEGAL" in line
               or ": PENALTY" in line) == len(sg.rulings)
    assert f"MASTA      {sg.order[0]}" in out and f"SHITHEAD   {sg.order[-1]}" in out


def test_replay_json(tmp_path, capsys):
    sg, path = saved_game(tmp_path, seed=6)
    assert main(["replay", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["rulings"]) == len(sg.rulings)
    assert data["games"][0]["order"] == sg.order
    assert data["games"][0]["titles"][sg.order[0]] == "MASTA"
    assert data["error"] is None


def test_replay_bad_line_keeps_what_came_before(tmp_path, capsys):
    sg, path = saved_game(tmp_path, seed=7)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:10] + ['{"seq": 11, "type": "cards_pl'] + lines[11:]) + "\n")
    assert main(["replay", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["events"] == 10 and "line 11" in data["error"]
    assert "line 11" in captured.err and "not valid JSON" in captured.err


def test_replay_missing_file(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2
    assert "no event log" in capsys.readouterr().err
