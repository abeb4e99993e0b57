"""The demo's scripted operator: right after the camera records a play, the script's play
that came to rest just before is matched to it; a misread is corrected and the play's
answers (an Ace's target, a Turbo's player) are sent, each once, as the operator's."""
from __future__ import annotations

import json
from pathlib import Path

from test_web import make_app
from web.commands import DEMO_DIR
from web.demo_operator import BY, DemoOperator, scripted_plays


def test_the_demo_script_holds_every_play_and_answer_of_its_truth_log():
    log = DEMO_DIR / "demo-game.truth.jsonl"
    truth = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    plays = scripted_plays(log)
    assert len(plays) == sum(1 for e in truth if e["type"] == "cards_played")
    answers = [a for p in plays for a in p.answers]
    assert len(answers) == sum(1 for e in truth if e["type"] in ("target", "played_by")) > 0
    ace = next(p for p in plays if p.answers)  # Bob's AC at 17.6 s: Ann gets the pot
    assert ace.cards == ["AC"] and abs(ace.t_rest - 17.6) < 0.01
    assert ace.answers == [{"type": "target", "player": "Ann"}]


def write_truth(path: Path) -> Path:
    events = [{"type": "video", "fps": 30.0},
              {"seq": 1, "t": 0.0, "type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"},
              {"seq": 2, "type": "cards_played", "cards": ["5D"], "t_rest": 1.0, "t": 1.0},
              {"seq": 3, "type": "cards_played", "cards": ["AC"], "t_rest": 3.0, "t": 3.0},
              {"seq": 4, "type": "target", "player": "Cy", "t": 3.0},
              {"seq": 5, "type": "cards_played", "cards": ["6H", "6S"], "t_rest": 5.0, "t": 5.0},
              {"seq": 6, "type": "cards_played", "cards": ["7D"], "t_rest": 6.0, "t": 6.0}]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def camera_play(table, cards):
    return table.submit({"type": "cards_played", "cards": cards}, source="camera")["event"]


def table_after_the_first_play(tmp_path):
    """A table set up for the script of `write_truth`, its first play (5D) read right by the
    camera, and the script's operator, who had nothing to say about it."""
    table = make_app(tmp_path).extensions["masta.table"]
    table.submit({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"}, source="operator")
    op = DemoOperator(table, scripted_plays(write_truth(tmp_path / "t.truth.jsonl")))
    op.after_camera(camera_play(table, ["5D"]), 1.3)
    assert table.log[-1]["type"] == "cards_played"  # read right, nothing to say about it
    return table, op


def test_misreads_are_corrected_and_answers_follow_their_play(tmp_path):
    table, op = table_after_the_first_play(tmp_path)
    op.after_camera(camera_play(table, ["9D"]), 2.5)  # nothing came to rest just before: a stray
    assert table.log[-1]["type"] == "cards_played"
    ace = camera_play(table, ["AS"])  # the camera misread the Ace's suit
    op.after_camera(ace, 3.4)
    fix, answer = table.log[-2:]
    assert (fix["type"], fix["event"], fix["cards"], fix["source"], fix["meta"]["by"]) == \
        ("correct", ace["seq"], ["AC"], "operator", BY)
    assert (answer["type"], answer["player"], answer["event"]) == ("target", "Cy", ace["seq"])
    assert table.view()["table"]["turn"] == "Cy"
    n = len(table.log)
    op.after_camera(ace, 3.5)  # each scripted play is matched once
    assert len(table.log) == n
    # the camera missed the pair of sixes and read the 7 with another suit: the 7 is matched
    # (it shares a rank with the read), not the pair that came to rest first; the sixes, never
    # seen, are added in place: right after the Ace's events, the last decided before they rested
    seven = camera_play(table, ["7H"])
    op.after_camera(seven, 6.4)
    added, fix = table.log[-2:]
    assert (added["type"], added["event"], added["cards"], added["meta"]["by"]) == ("missed", ace["seq"], ["6H", "6S"], BY)
    assert (fix["type"], fix["cards"], fix["event"]) == ("correct", ["7D"], seven["seq"])
    assert table.view()["table"]["pot"] == ["5D", "9D", "AC", "6H", "6S", "7D"]  # the stray 9D stays for a person


def test_a_camera_mismatch_is_named_as_the_scripts_play_and_ruled_in_place(tmp_path):
    table, op = table_after_the_first_play(tmp_path)
    # the Ace landed but the camera could not read it as a play: a mismatch note
    note = table.submit({"type": "note", "text": "camera mismatch: AC 9H",
                         "meta": {"mismatch": True, "cards": ["AC", "9H"]}}, source="camera")["event"]
    op.after_camera(note, 3.4)
    fix, answer = table.log[-2:]
    assert (fix["type"], fix["event"], fix["cards"], fix["meta"]["by"]) == ("correct", note["seq"], ["AC"], BY)
    assert (answer["type"], answer["player"], answer["event"]) == ("target", "Cy", note["seq"])
    assert table.view()["table"]["pot"] == ["5D", "AC"] and table.view()["table"]["turn"] == "Cy"  # ruled in place
    # a person's note is no mismatch: nothing is named for it
    plain = table.submit({"type": "note", "text": "Bob sneezed"}, source="operator")["event"]
    n = len(table.log)
    op.after_camera(plain, 5.2)  # the pair of sixes came to rest just before: still not named
    assert len(table.log) == n


def test_a_card_the_camera_added_to_a_play_late_is_checked_against_the_script(tmp_path):
    """The camera amends the 5D play with a card it saw late (its own correction): the script
    says the play was the 5D alone, so the operator corrects it back; an amendment that agrees
    with the script is left alone."""
    table, op = table_after_the_first_play(tmp_path)
    five = next(e for e in table.log if e["type"] == "cards_played")
    amend = table.submit({"type": "correct", "event": five["seq"], "cards": ["5D", "5C"],
                          "meta": {"detail": "5C showed once the hand had gone"}}, source="camera")["event"]
    op.after_camera(amend, 1.9)
    fix = table.log[-1]
    assert (fix["type"], fix["event"], fix["cards"], fix["source"], fix["meta"]["by"]) == \
        ("correct", five["seq"], ["5D"], "operator", BY)
    assert table.view()["table"]["pot"] == ["5D"]
    n = len(table.log)
    same = table.submit({"type": "correct", "event": five["seq"], "cards": ["5D"]}, source="camera")["event"]
    op.after_camera(same, 2.0)
    assert len(table.log) == n + 1  # the camera's own, nothing more
