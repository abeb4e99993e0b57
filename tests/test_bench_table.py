"""bench/table.py: what the table shows with nobody answering, and the taps of a person who
answers what the page asks, on a real table service (its SQLite store and referee), fed the
camera's events as the camera runner feeds them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.table import Moment, Observer, Person, decision_of, main, script_plays, total
from bench.demo import compare, script_referee
from datasets.game_video import fix_taps, missed_taps
from test_web import make_app

#: a game's start as the renderer's truth file has it: Bob's Ace gives the pot to Ann
TRUTH = [
    {"type": "video", "fps": 30, "size": [640, 480], "card_height": 96},
    {"seq": 1, "t": 0, "type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy", "preset": "fr", "decks": 1},
    {"seq": 2, "type": "cards_played", "cards": ["5H"], "player": "Ann", "t_rest": 1.0, "t": 1.0, "source": "camera"},
    {"seq": 3, "type": "cards_played", "cards": ["AS"], "player": "Bob", "t_rest": 3.0, "t": 3.0, "source": "camera"},
    {"seq": 4, "type": "target", "event": 3, "player": "Ann", "t": 3.5, "source": "operator"},
    {"seq": 5, "type": "cards_played", "cards": ["2D"], "player": "Ann", "t_rest": 5.0, "t": 5.0, "source": "camera"},
    {"seq": 6, "type": "cards_played", "cards": ["9C"], "player": "Bob", "t_rest": 7.0, "t": 7.0, "source": "camera"},
    {"seq": 7, "type": "cards_played", "cards": ["JD"], "player": "Cy", "t_rest": 9.0, "t": 9.0, "source": "camera"},
]

#: what the camera decided (video seconds): the 2D read as 2H (asked, 2D its likely other),
#: the 9C never seen, and a play that never happened
CAMERA = [
    (1.2, {"type": "cards_played", "cards": ["5H"]}),
    (3.2, {"type": "cards_played", "cards": ["AS"]}),
    (5.2, {"type": "cards_played", "cards": ["2H"], "meta": {"low_conf": True, "reads": [{"2H": 0.5, "2D": 0.4}]}}),
    (9.2, {"type": "cards_played", "cards": ["JD"]}),
    (20.0, {"type": "cards_played", "cards": ["KH"]}),
]


@pytest.fixture
def truth_log(tmp_path):
    path = tmp_path / "game.truth.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in TRUTH))
    return path


def _play(tmp_path, truth_log, person: bool, camera=CAMERA):
    app = make_app(tmp_path / "app")
    table = app.extensions["masta.table"]
    setup = {k: v for k, v in TRUTH[1].items() if k not in ("seq", "t")}
    table.submit(setup, source="operator")
    observer = Observer(table, script_plays(truth_log))
    who = Person(table, truth_log) if person else None
    for t, raw in camera:  # as the camera runner records each and tells `after_event`
        event = table.submit(raw, source="camera")["event"]
        observer(event, t)
        if who is not None:
            who.after_camera(event, t)
    if who is not None:
        who.finish()  # the video ended
    return table, observer, who


def test_with_nobody_answering_what_the_table_showed_at_each_play_is_scored(tmp_path, truth_log):
    table, observer, _ = _play(tmp_path, truth_log, person=False)
    s = observer.scores()
    assert s["plays"] == 5 and s["plays_seen"] == 4  # the 9C never seen; the KH matches no play
    first = {m.play: m.ruling for m in observer.moments if m.play is not None}
    assert first[0] == ("Ann", ("5H",), "legal") and first[1] == ("Bob", ("AS",), "legal")  # as the script
    assert first[2][1] == ("2H",)  # the misread, ruled as read: not right
    assert 2 <= s["right_as_happened"] <= 3
    assert s["most_questions"] >= 1  # who took the Ace's pot: nobody said
    assert not compare(table.referee, script_referee(truth_log))["identical"]


def test_the_turn_lost_is_the_longest_run_of_plays_ruled_with_nobody_or_the_wrong_player(truth_log):
    plays = script_plays(truth_log)  # Ann, Bob, Ann, Bob, Cy
    observer = Observer(None, plays)
    said = [("Ann", ("5H",), "legal"), (None, ("AS",), "legal"), ("Cy", ("2D",), "legal"), None,
            ("Cy", ("JD",), "legal")]  # the 9C never seen: skipped, the run goes on over it
    for i, ruling in enumerate(said):
        if ruling is not None:
            observer.moments.append(Moment(seq=i + 2, t=plays[i]["t_rest"], kind="cards_played", questions=i,
                                           shown=1, turn=None if i == 1 else "Ann", over=False, ruling=ruling,
                                           play=i, seat=plays[i]["player"] if i else "Cy"))
    s = observer.scores()
    assert s["plays_seen"] == 4 and s["right_as_happened"] == 2  # the 5H and the JD
    assert s["longest_turn_lost"] == 2 and s["no_player"] == 1 and s["turn_unknown"] == 1
    assert s["most_questions"] == 4 and s["most_shown"] == 1
    assert s["side_hints"] == {"right": 3, "wrong": 1, "none": 0}


def test_a_person_answering_what_is_asked_brings_every_ruling_right_and_the_taps_are_counted(tmp_path, truth_log):
    table, _, who = _play(tmp_path, truth_log, person=True)
    game = compare(table.referee, script_referee(truth_log))
    assert game["identical"], game["first_difference"]
    asked = decision_of(next(e for e in table.log if e.get("cards") == ["2H"]))  # asked about: 2D one tap
    assert fix_taps(asked, ["2D"]) == 1
    void = fix_taps(decision_of(next(e for e in table.log if e.get("cards") == ["KH"])), None)
    assert who.taps.camera == 1 + missed_taps(["9C"]) + void
    # who the Ace gave the pot to, the one thing the camera cannot see: the person waited for
    # the page and named Ann once, as the one who played on the Ace (that settles the Ace's pot)
    assert who.taps.unseen == 1 and who.waited == 1
    assert who.taps.by_kind["target"] + who.taps.by_kind["played_by"] == 1
    assert who.taps.by_kind["missed"] == missed_taps(["9C"])


def test_a_card_that_covered_the_pot_unread_is_named_with_the_one_tap_its_note_offers(tmp_path, truth_log):
    """The 9C landed on the 2D unread: the camera says the top card can no longer be seen,
    covered by a card it half read as 9C. The person taps "Played here: 9♣" on that note (one
    tap) rather than adding a missed play; every ruling is then the script's."""
    covered = (7.2, {"type": "note", "text": "camera mismatch: the top card 2H can no longer be seen and the pot "
                     "was not cleared: covered by a card the camera cannot read (perhaps 9C) or taken back",
                     "meta": {"mismatch": True, "low_conf": True, "cards": ["2H"], "gone": True, "guesses": ["9C"]}})
    table, _, who = _play(tmp_path, truth_log, person=True, camera=CAMERA[:3] + [covered] + CAMERA[3:])
    game = compare(table.referee, script_referee(truth_log))
    assert game["identical"], game["first_difference"]
    void = fix_taps(decision_of(next(e for e in table.log if e.get("cards") == ["KH"])), None)
    assert who.taps.camera == 1 + 1 + void and who.taps.by_kind["missed"] == 0
    # a guess that is not the play: added as missed, as before
    wrong = (covered[0], {**covered[1], "meta": {**covered[1]["meta"], "guesses": ["QC"]}})
    table, _, who = _play(tmp_path / "wrong", truth_log, person=True, camera=CAMERA[:3] + [wrong] + CAMERA[3:])
    assert compare(table.referee, script_referee(truth_log))["identical"]
    assert who.taps.by_kind["missed"] == missed_taps(["9C"])


def test_a_mismatch_the_referee_went_on_as_the_play_it_was_costs_no_tap(tmp_path, truth_log):
    """The 9C read beside a 4H it half saw: a mismatch, which the referee rules as its likeliest
    play. Where that is the 9C (the reads lean to it), the person leaves it alone; where it is
    the 4H, one tap on the question's offer names the 9C."""
    def note(reads):
        return (7.2, {"type": "note", "text": "camera mismatch: cards of several ranks appeared at once (9C 4H)",
                      "meta": {"mismatch": True, "low_conf": True, "cards": ["9C", "4H"], "reads": reads}})
    right = note([{"9C": 0.5, "4C": 0.1}, {"4H": 0.55, "9H": 0.3}])  # 9: 0.8 over 4: 0.65
    table, _, who = _play(tmp_path, truth_log, person=True, camera=CAMERA[:3] + [right] + CAMERA[3:])
    assert compare(table.referee, script_referee(truth_log))["identical"]
    void = fix_taps(decision_of(next(e for e in table.log if e.get("cards") == ["KH"])), None)
    assert who.taps.camera == 1 + void and who.taps.by_kind["correct"] == 1  # the 2D's alone
    wrong = note([{"9C": 0.5}, {"4H": 0.55}])  # the 4H read surer, nothing leaning to 9
    table, _, who = _play(tmp_path / "wrong", truth_log, person=True, camera=CAMERA[:3] + [wrong] + CAMERA[3:])
    assert compare(table.referee, script_referee(truth_log))["identical"]
    assert who.taps.camera == 1 + 1 + void and who.taps.by_kind["correct"] == 2


def test_an_answer_the_referee_already_has_costs_no_tap(tmp_path, truth_log):
    """A played_by naming the player the referee already ruled (its assumption right) is not sent."""
    table, _, who = _play(tmp_path, truth_log, person=True)
    before = (len(table.log), who.taps.unseen)
    assert who._submit({"type": "played_by", "event": 2, "player": "Ann"}) is None
    assert (len(table.log), who.taps.unseen) == before


def test_totals_add_the_games_up():
    row = {"plays": 10, "plays_seen": 9, "right_as_happened": 7, "same_in_order": 8, "longest_turn_lost": 3,
           "no_player": 2, "most_questions": 4, "all_rulings_right": False, "titles_right": True, "order_right": True,
           "side_hints": {"right": 8, "wrong": 1, "none": 0}, "taps_camera": 2, "taps_unseen": 3}
    t = total([row, dict(row, longest_turn_lost=5, all_rulings_right=True, titles_right=False)], "person")
    assert t["games"] == 2 and t["right_as_happened"] == 14 and t["longest_turn_lost"] == 5
    assert t["games_all_right"] == 1 and t["games_titles_right"] == 1 and t["taps_per_game"] == 5.0
    assert t["side_hints"] == {"right": 16, "wrong": 2, "none": 0}


def test_bad_options_say_what_to_give(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["--modes", "none,nobody"])
    assert e.value.code == 2 and "give some of none, person, answer" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["--model", str(tmp_path / "none.onnx")])
    assert e.value.code == 2 and "no trained model" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # a video not rendered in time is a clear error, not a render here
        main(["--videos", str(tmp_path), "--count", "1", "--wait", "0.01", "--modes", "none"])
    assert "was not rendered within" in str(e.value)


def test_the_answer_mode_calls_the_pipeline_benchmark_with_its_own_defaults():
    from bench.table import answer_args
    a = answer_args(True, Path("models/card_index_detector.onnx"), (1280, 720), False)
    assert a.answer and a.seats and tuple(a.size) == (1280, 720) and not a.quiet
    assert a.deck_letters == "en" and a.teach is False and a.detector == "model"
