"""The demo's scripted operator: the video script's answers (an Ace's target, a Turbo's
player) are sent right after the camera records the play they are about, and only then."""
from __future__ import annotations

import json
from pathlib import Path

from test_web import make_app
from web.commands import DEMO_DIR
from web.demo_operator import BY, DemoOperator, scripted_answers


def test_the_demo_script_holds_every_target_and_turbo_of_its_truth_log():
    log = DEMO_DIR / "demo-game.truth.jsonl"
    truth = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    answers = scripted_answers(log)
    assert len(answers) == sum(1 for e in truth if e["type"] in ("target", "played_by")) > 0
    first = answers[0]  # Bob's AC at 17.6 s: Ann gets the pot
    assert first.event == {"type": "target", "player": "Ann"}
    assert first.ranks == {"A"} and abs(first.t_rest - 17.6) < 0.01


def write_truth(path: Path) -> Path:
    events = [{"type": "video", "fps": 30.0},
              {"seq": 1, "t": 0.0, "type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"},
              {"seq": 2, "type": "cards_played", "cards": ["5D"], "t_rest": 1.0, "t": 1.0},
              {"seq": 3, "type": "cards_played", "cards": ["AC"], "t_rest": 3.0, "t": 3.0},
              {"seq": 4, "type": "target", "player": "Cy", "t": 3.0}]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def camera_play(table, cards):
    return table.submit({"type": "cards_played", "cards": cards}, source="camera")["event"]


def test_an_answer_follows_its_play_read_with_another_suit_and_not_another(tmp_path):
    app = make_app(tmp_path)
    table = app.extensions["masta.table"]
    table.submit({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"}, source="operator")
    op = DemoOperator(table, scripted_answers(write_truth(tmp_path / "t.truth.jsonl")))
    op.after_camera(camera_play(table, ["5D"]), 1.3)
    assert [e["type"] for e in table.log][-1] == "cards_played"  # nothing scripted for it
    ace = camera_play(table, ["AS"])  # the camera misread the suit: still the scripted Ace
    op.after_camera(ace, 9.0)  # ... but far too late: another play, not answered
    assert table.view()["table"]["turn"] is None
    op.after_camera(ace, 3.4)
    last = table.log[-1]
    assert (last["type"], last["player"], last["event"], last["source"], last["meta"]["by"]) == \
        ("target", "Cy", ace["seq"], "operator", BY)
    assert table.view()["table"]["turn"] == "Cy"
    op.after_camera(ace, 3.5)  # each answer is sent once
    assert len(table.log) == last["seq"]
