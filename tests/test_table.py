"""The table referee on hand-made logs: rulings, turns, cheats, suspicions, bad input."""
from __future__ import annotations

import json

import pytest

from referee.events import EventError, parse_lines, write_log, read_log
from referee.rules import list_presets, load_preset
from referee.table import TableReferee

PLAYERS = ["Ann", "Bob", "Cy"]


def table(*events, preset="fr"):
    ref = TableReferee()
    ref.apply({"type": "setup", "players": PLAYERS, "dealer": "Cy", "preset": preset})
    outs = [ref.apply(e) for e in events]
    return ref, outs


def play(*cards, player=None):
    ev = {"type": "cards_played", "cards": list(cards)}
    if player:
        ev["player"] = player
    return ev


def by(player, event=None):
    ev = {"type": "played_by", "player": player}
    if event:
        ev["event"] = event
    return ev


CLEAR = {"type": "pot_cleared"}


def rulings(outs):
    return [o for out in outs for o in out if o["kind"] == "ruling"]


def kinds(out, kind):
    return [o for o in out if o["kind"] == kind]


def test_turns_skips_and_requirements():
    ref, outs = table(play("5H"), play("8S"))
    r = rulings(outs)
    assert [x["player"] for x in r] == ["Ann", "Bob"]
    assert r[1]["effects"] == ["skip:1"] and r[1]["next"] == ">= 8"
    v = ref.view()
    assert v["turn"] == "Ann" and v["next"] == ">= 8" and v["pot"] == ["5H", "8S"]
    assert v["stock"] == 52 - 27 - 2 and [p["hand"] for p in v["players"]] == [3, 3, 3]
    json.dumps(v)


def test_illegal_play_then_the_offender_picks_up():
    ref, outs = table(play("KH"), play("4S"))
    bad = rulings(outs)[1]
    assert bad["verdict"] == "illegal" and bad["reasons"][0]["code"] == "does_not_fit"
    assert bad["reasons"][0]["rule"]  # cites the preset's sentence
    assert ref.view()["turn"] == "Bob"  # an illegal play does not pass the turn
    out = ref.apply(CLEAR)
    assert kinds(out, "pickup")[0]["player"] == "Bob"
    bob = ref.view()["players"][1]
    assert bob["hand"] == 4 and bob["known_hand"] == ["4S", "KH"]
    assert ref.view()["turn"] == "Cy"


@pytest.mark.parametrize("preset", sorted(list_presets()))
@pytest.mark.parametrize("offender", ["Bob", "Cy"])  # in turn, and out of turn
def test_an_illegal_play_says_what_happens_next_as_the_referee_then_rules_it(preset, offender):
    """The ruling of an illegal play tells the table what comes next (the offender takes
    the cards back with the pot, who plays then) citing the preset's pick-up rule; the
    cards are marked on the pot; and a pot_cleared is then ruled just as it said."""
    ref, outs = table(play("QH", player="Ann"), play("4S", player=offender), preset=preset)
    bad = rulings(outs)[1]
    assert bad["verdict"] == "illegal"
    then = bad["then"]
    assert then.startswith(f"{offender} takes back 4S and picks up the pot")
    assert bad["then_rule"] and bad["then_rule"] == load_preset(preset).citation("pickup")
    v = ref.view()
    assert [v["pot"][i] for i in v["pot_illegal"]] == ["4S"] and v["penalty"] == offender
    ref.apply(CLEAR)
    v = ref.view()
    assert then.endswith(f"then {v['turn']} plays")
    assert v["pot_illegal"] == [] and v["penalty"] is None
    assert ref.view()["players"][PLAYERS.index(offender)]["known_hand"] == ["4S", "QH"]


def test_an_aces_target_is_changed_after_the_pot_went():
    """The target named while the Ace waited, the pot taken: a later target of that Ace
    replays the game with the new one (it took the pot), not the first."""
    ref, _ = table(play("5H"), play("AS"), {"type": "target", "event": 3, "player": "Cy"}, CLEAR)
    assert [o["player"] for o in ref.outputs[5] if o["kind"] == "pickup"] == ["Cy"]
    ref.apply({"type": "target", "event": 3, "player": "Ann"})
    assert [o["player"] for o in ref.outputs[5] if o["kind"] == "pickup"] == ["Ann"]
    assert ref.view()["players"][0]["hand"] == 3 + 2 and ref.view()["turn"] == "Bob"  # drew back to 3


def test_out_of_turn_play_that_is_not_a_turbo():
    ref, outs = table(play("5H"), play("7C"), by("Cy"))
    r = ref.rulings()[-1]
    assert r["player"] == "Cy" and r["verdict"] == "illegal" and r["turbo"]
    assert r["reasons"][0]["code"] == "out_of_turn"
    assert ref.view()["turn"] == "Bob"
    assert any(o.get("revised") for o in outs[-1])  # the play was re-ruled
    out = ref.apply(CLEAR)  # Cy takes the pot back with the 7; Bob still to play
    assert [(o["player"], o["reason"]) for o in out if o["kind"] == "pickup"] == [("Cy", "penalty")]
    assert ref.view()["turn"] == "Bob" and ref.view()["players"][2]["hand"] == 4


def test_legal_turbo_keeps_the_turn():
    ref, outs = table(play("5H"), play("5S"), by("Cy"))
    r = ref.rulings()[-1]
    assert r["verdict"] == "legal" and r["turbo"] and "turbo" in [x["code"] for x in r["reasons"]]
    assert ref.view()["turn"] == "Bob"
    assert ref.view()["players"][2]["hand"] == 3  # Cy drew back to three


def test_turbo_completing_four_burns_and_plays_again():
    ref, outs = table(play("9H"), play("9S"), play("9D"), play("9C"), by("Bob"))
    r = ref.rulings()[-1]
    assert r["effects"] == ["burn", "again"] and r["player"] == "Bob"
    v = ref.view()
    assert v["turn"] == "Bob" and v["pot"] == [] and v["burns"]["by_player"]["Bob"] == 1
    assert v["burned"] == ["9C", "9D", "9H", "9S"]
    assert kinds(ref.apply(CLEAR), "pickup") == []  # the burned pot taken away: nothing else


def test_duplicated_card():
    ref, outs = table(play("5H"), play("5H"))
    s = kinds(outs[1], "suspicion")
    assert [x["suspicion"] for x in s] == ["duplicate_card"] and s[0]["events"] == [2, 3]
    assert ref.view()["suspicions"] == s


def test_card_picked_up_by_someone_else():
    ref, outs = table(play("KH"), CLEAR, play("4C"), play("KH"))
    # Bob could not beat KH and took it (event 3); Cy then Ann: Ann plays the KH Bob holds
    s = kinds(outs[-1], "suspicion")
    assert [x["suspicion"] for x in s] == ["held_by_other"]
    assert s[0]["player"] == "Ann" and s[0]["events"] == [3, 5] and "Bob" in s[0]["text"]


def test_burned_card_returning():
    ref, outs = table(play("10H"), CLEAR, play("4C"), play("10H"))
    s = kinds(outs[-1], "suspicion")
    assert [x["suspicion"] for x in s] == ["burned_card_returned"] and s[0]["events"] == [2, 5]


def test_ace_asks_for_a_target_then_the_target_picks_up():
    ref, outs = table(play("AS"))
    assert kinds(outs[0], "prompt")[0]["prompt"] == "target"
    # nobody said yet: the next in turn is assumed, and asked about in table words
    v = ref.view()
    assert v["turn"] == "Bob" and v["awaiting_target"] and v["turn_assumed"]
    q = v["questions"][0]
    assert q["text"] == "Who took the pot after Ann's A♠?" and q["options"] == ["Bob", "Cy"]
    assert q["answer"] == {"type": "target", "event": 2}
    assert v["question"] is None  # shown once the camera's next play or the pot going leaves it open
    ref.apply({"type": "target", "player": "Cy"})
    assert ref.view()["turn"] == "Cy" and ref.view()["prompts"] == []
    assert ref.view()["question"] is None and not ref.view()["turn_assumed"]
    out = ref.apply(CLEAR)
    assert kinds(out, "pickup")[0]["player"] == "Cy"
    assert ref.view()["turn"] == "Ann"


def test_ace_countered_with_a_two():
    ref, outs = table(play("AS"), {"type": "target", "player": "Bob"}, play("2H"))
    r = ref.rulings()[-1]
    assert r["player"] == "Bob" and r["verdict"] == "legal"
    assert r["reasons"][0]["code"] == "counter"
    assert ref.view()["turn"] == "Cy"


def test_pot_taken_before_the_target_is_named():
    ref, outs = table(play("AS"), CLEAR)
    # the likeliest took it (the next in turn) and play goes on; the question stays
    assert kinds(outs[1], "pickup")[0]["player"] == "Bob" and ref.view()["turn"] == "Cy"
    assert ref.view()["question"]["kind"] == "target"
    out = ref.apply({"type": "target", "player": "Cy"})
    assert kinds(out, "pickup")[0]["player"] == "Cy"
    assert ref.view()["turn"] == "Ann" and ref.view()["prompts"] == []
    assert ref.view()["question"] is None


def test_correction_and_void_rebuild_the_game():
    ref, outs = table(play("KH"), play("4S"))
    assert ref.rulings()[-1]["verdict"] == "illegal"
    out = ref.apply({"type": "correct", "event": 3, "cards": ["KS"]})
    assert [o["verdict"] for o in out if o["kind"] == "ruling"] == ["legal"]
    assert all(o["revised"] for o in out if o["kind"] == "ruling")
    assert ref.view()["pot"] == ["KH", "KS"] and ref.view()["turn"] == "Cy"
    assert len(ref.log) == 4 and ref.log[2]["cards"] == ["4S"]  # history kept as claimed
    ref.apply({"type": "void", "event": 3})
    assert ref.view()["pot"] == ["KH"] and ref.view()["turn"] == "Bob"
    ref.apply({"type": "void", "event": 5})  # undo the undo
    assert ref.view()["pot"] == ["KH", "KS"]


def test_blind_card_that_does_not_fit_is_picked_up():
    ref, outs = table({"type": "counts", "stock": 0},
                      {"type": "counts", "player": "Ann", "hand": 0, "face_up": 0,
                       "face_down": 2},
                      {"type": "counts", "player": "Bob", "hand": 1},
                      {"type": "counts", "player": "Cy", "hand": 1},
                      play("JC", player="Ann"))
    # Ann's blind JC fits on the empty pot; Bob plays KH; Cy a K; Ann's blind 4D misses
    ref.apply(play("KH"))
    ref.apply(play("KD"))
    assert ref.view()["players"][0]["phase"] == "down"
    out = ref.apply(play("4D"))
    r = kinds(out, "ruling")[0]
    assert r["verdict"] == "penalty" and r["phase"] == "down"
    assert "blind_miss" in [x["code"] for x in r["reasons"]]
    assert kinds(out, "pickup")[0]["player"] == "Ann"
    ann = ref.view()["players"][0]
    assert (ann["hand"], ann["face_down"], ann["phase"]) == (4, 0, "hand")
    assert ref.view()["turn"] == "Bob"


def finish_quickly(ref):
    """Bob and Cy play their last cards: Bob MASTA, Cy VICE, Ann SHITHEAD."""
    for ev in ({"type": "counts", "stock": 0},
               {"type": "counts", "player": "Bob", "hand": 1, "face_up": 0, "face_down": 0},
               {"type": "counts", "player": "Cy", "hand": 1, "face_up": 0, "face_down": 0},
               play("4C", player="Ann"), play("6C"), play("7C")):
        ref.apply(ev)


def test_game_over_titles_and_events_after_the_end():
    ref, _ = table()
    finish_quickly(ref)
    v = ref.view()
    assert v["over"] and v["finishing_order"] == ["Bob", "Cy", "Ann"]
    assert v["titles"] == {"Bob": "MASTA", "Cy": "VICE-MASTA", "Ann": "SHITHEAD"}
    n, before = len(ref.log), ref.view()
    with pytest.raises(EventError, match="game 1 ended at event"):  # a person plays on
        ref.apply(dict(play("9C"), source="operator"))
    assert len(ref.log) == n and ref.view() == before
    held = ref.apply(play("9C"))  # what the camera sees is kept, held in case the end was wrong
    assert held[0]["held"] and "kept, not ruled" in held[0]["text"]
    assert len(ref.log) == n + 1 and ref.view()["held"] == [n + 1]
    assert {k: v for k, v in ref.view().items() if k not in ("events", "held")} == \
        {k: v for k, v in before.items() if k not in ("events", "held")}
    ref.apply(CLEAR)  # tidying the table is fine
    ref.apply({"type": "note", "text": "well played"})
    # the next game set up after the camera saw it begin: where its first play went, and how to add it
    said = [o for o in ref.apply({"type": "setup", "players": PLAYERS, "dealer": "Ann"}) if o.get("held")]
    assert said and said[0]["held"] == [n + 1] and "add each as a play the camera missed" in said[0]["text"]


def test_desync_player_out_against_the_counts():
    # issue 53: the claim is taken (out, assumed) instead of waiting on a check
    ref, _ = table(play("5H"))
    out = ref.apply({"type": "player_out", "player": "Bob"})
    p = kinds(out, "prompt")[0]
    assert p["prompt"] == "desync" and "Bob" in p["text"] and p["assumed"] == "Bob"
    assert ref.view()["players"][1]["out"] and ref.view()["assumptions"][0]["kind"] == "out"
    ref.apply({"type": "confirm", "event": 3})
    assert ref.view()["players"][1]["out"] and ref.view()["prompts"] == []
    assert ref.view()["assumptions"] == []


def test_desync_when_a_player_plays_more_than_the_counts_allow():
    ref, outs = table({"type": "counts", "stock": 0},
                      {"type": "counts", "player": "Ann", "hand": 1}, play("5H", "5S"))
    assert kinds(outs[-1], "prompt")[0]["prompt"] == "desync"
    ref.apply({"type": "counts", "player": "Ann", "hand": 0, "face_up": 3, "face_down": 3})
    assert ref.view()["prompts"] == []


def test_confirm_answers_a_plays_count_mismatch():
    """The desync prompt of a play says `confirm`, and a confirm of that play is taken: the
    play stands as read, the prompt goes, and the turn and pot are as before."""
    ref, outs = table({"type": "counts", "stock": 0},
                      {"type": "counts", "player": "Ann", "hand": 1}, play("5H", "5S"))
    p = kinds(outs[-1], "prompt")[0]
    assert p["prompt"] == "desync" and f"confirm event {p['event']}" in p["text"]
    before = ref.view()
    ref.apply({"type": "confirm", "event": p["event"]})
    after = ref.view()
    assert after["prompts"] == []
    assert (after["turn"], after["pot"], after["players"]) == (before["turn"], before["pot"], before["players"])
    # voiding the confirm asks again
    ref.apply({"type": "void", "event": len(ref.log)})
    assert [q["prompt"] for q in ref.view()["prompts"]] == ["desync"]


def test_confirm_answers_an_out_players_play():
    ref, _ = table({"type": "counts", "stock": 0},
                   {"type": "counts", "player": "Ann", "hand": 0, "face_up": 0, "face_down": 0},
                   play("5H", player="Ann"))
    seq = len(ref.log)
    asked = ref.view()["prompts"]
    assert asked and {(q["prompt"], q["event"]) for q in asked} == {("desync", seq)}
    ref.apply({"type": "confirm", "event": seq})
    assert ref.view()["prompts"] == []


def test_confirm_of_a_play_with_no_count_in_doubt_is_refused():
    ref, _ = table(play("5H"))
    with pytest.raises(EventError, match="left no count in doubt"):
        ref.apply({"type": "confirm", "event": 2})
    assert len(ref.log) == 2


@pytest.mark.parametrize("event, words", [
    (by("Zed"), "unknown player 'Zed'"),
    ({"type": "target", "player": "Bob"}, "waiting for a target"),
    ({"type": "correct", "event": 2, "cards": ["ZZ"]}, "unknown card"),
    ({"type": "correct", "event": 1, "cards": ["5H"]}, "not part of game 1"),
    ({"type": "picked_up", "player": "Bob", "event": 2}, "not pot_cleared"),
    ({"type": "duty", "duty": "gift", "player": "Ann", "to": "Bob"}, "no finished game"),
    ({"type": "order", "player": "Ann", "text": "x"}, "no game has ended"),
    ({"seq": 9, "type": "note", "text": "x"}, "expects 3"),
])
def test_bad_events_are_refused_and_nothing_is_lost(event, words):
    ref, _ = table(play("5H"))
    n, before = len(ref.log), json.dumps(ref.view())
    with pytest.raises(EventError) as exc:
        ref.apply(event)
    assert words in str(exc.value)
    assert len(ref.log) == n and json.dumps(ref.view()) == before
    ref.apply(play("6H"))  # and the table goes on
    assert ref.rulings()[-1]["player"] == "Bob"


def test_events_before_any_setup():
    with pytest.raises(EventError, match="no game is set up"):
        TableReferee().apply(play("5H"))
    with pytest.raises(EventError, match="unknown preset"):
        TableReferee().apply({"type": "setup", "players": PLAYERS, "dealer": "Cy",
                              "preset": "klaverjas"})


def test_replay_of_a_bad_log_keeps_what_came_before():
    good = [{"type": "setup", "players": PLAYERS, "dealer": "Cy"}, play("5H"), play("6H")]
    with pytest.raises(EventError) as exc:
        TableReferee.replay(good + [by("Zed")])
    assert len(exc.value.accepted) == 3
    assert TableReferee.replay(exc.value.accepted).rulings()[-1]["cards"] == ["6H"]


def test_saved_log_replays_to_the_same_rulings(tmp_path):
    ref, _ = table(play("5H"), play("5S"), by("Cy"), play("AS"),
                   {"type": "target", "player": "Ann"}, CLEAR, play("10C"))
    path = tmp_path / "table.jsonl"
    write_log(path, ref.log)
    again = TableReferee.replay(read_log(path))
    assert again.rulings() == ref.rulings()
    assert again.view() == ref.view()
    lines = path.read_text().splitlines()
    assert parse_lines(lines) == ref.log


def test_picked_up_names_who_really_took_the_pot():
    ref, outs = table(play("KH"), CLEAR)
    assert ref.view()["players"][1]["known_hand"] == ["KH"]  # Bob, whose turn it was
    out = ref.apply({"type": "picked_up", "player": "Cy"})
    assert ref.log[-1]["event"] == 3  # it names the clear it corrects
    assert [o["player"] for o in out if o["kind"] == "pickup"] == ["Cy"]
    v = ref.view()
    assert v["players"][1]["hand"] == 3 and v["players"][2]["hand"] == 4
    assert v["players"][2]["known_hand"] == ["KH"] and v["turn"] == "Ann"


def test_picked_up_before_the_camera_sees_the_pot_go():
    ref, outs = table(play("KH"))
    out = ref.apply({"type": "picked_up", "player": "Bob"})
    assert [o["player"] for o in out if o["kind"] == "pickup"] == ["Bob"]
    out = ref.apply(CLEAR)  # the camera catches up: nothing more happens
    assert [o["kind"] for o in out] == ["info"] and ref.view()["players"][1]["hand"] == 4


def test_lowest_card_starts_asks_who_started():
    ref = TableReferee()
    ref.apply({"type": "setup", "players": PLAYERS, "dealer": "Cy", "preset": "nl"})
    assert ref.view()["turn"] == "Ann"  # assumed (left of the dealer) until the first play
    ref.apply(play("3C"))
    r = ref.rulings()[-1]
    assert r["player"] == "Ann" and r["assumed"]["key"] == "starter:2"
    assert ref.view()["questions"][0]["text"] == "Who started, with 3♣?"
    ref.apply(by("Bob"))
    v = ref.view()
    assert ref.rulings()[-1]["player"] == "Bob" and v["turn"] == "Cy" and v["prompts"] == []
    assert v["question"] is None and "assumed" not in ref.rulings()[-1]
    assert v["players"][1]["hand"] == 3 and v["stock"] == 54 - 27 - 1
    with_starter = TableReferee([{"type": "setup", "players": PLAYERS, "dealer": "Cy",
                                  "preset": "nl", "starter": "Bob"}, play("3C")])
    assert with_starter.view()["turn"] == "Cy" and with_starter.view()["prompts"] == []


def test_a_pot_taken_by_somebody_not_named_is_off_the_table_until_they_are():
    """Nobody told masta who an Ace gave the pot to, then the pot went: it is gone all the
    same, so the next plays are judged on an empty pot (a 4 on an Ace's pot would be
    illegal) and no card coming back from it is taken for a second copy; naming the taker
    later gives them the cards and the turn, and the plays since get their players."""
    ref, outs = table(play("5D"), play("9C"), play("AC"), CLEAR, play("4D"), play("5H"), play("9C"))
    assert kinds(outs[3], "pickup")[0]["player"] == "Ann"  # assumed: the next in turn
    assert ref.view()["pot"] == ["4D", "5H", "9C"]
    assert [r["verdict"] for r in rulings(outs)] == ["legal"] * 6
    assert ref.view()["suspicions"] == []  # 9C went back into a hand, then came out again
    out = ref.apply({"type": "picked_up", "event": 5, "player": "Cy"})
    assert kinds(out, "pickup")[0]["player"] == "Cy"
    assert [r["player"] for r in ref.rulings()[-3:]] == ["Ann", "Bob", "Cy"]
    assert ref.view()["players"][2]["hand"] == 3 + 3 - 1  # took 3 cards, played 9C again
    assert ref.view()["prompts"] == [] and ref.view()["turn"] == "Ann"
    assert ref.view()["question"] is None  # who took it answers the Ace's question too


def test_a_burn_by_a_player_not_named_still_burns_the_pot():
    ref, outs = table(play("5D"), play("AC"), play("10D"), play("3C"))
    # nobody named the Ace's target: the next in turn is assumed to answer with the 10, which
    # burns; they play again
    assert rulings(outs)[2]["player"] == "Cy" and rulings(outs)[2]["assumed"]["key"] == "target:3"
    assert rulings(outs)[3]["player"] == "Cy" and ref.view()["turn"] == "Ann"
    v = ref.view()
    assert v["pot"] == ["3C"] and v["burns"]["total"] == 1
    assert rulings(outs)[-1]["verdict"] == "legal"


def test_the_cameras_own_correction_never_replaces_a_persons():
    """The camera amends a play it read short (a card that showed once the hand had gone); a
    person who corrected that play already looked at the cards: theirs stands, and the
    referee says so. The camera's correction still counts where nobody corrected."""
    r = TableReferee()
    r.apply({"type": "setup", "players": ["Ann", "Bob"], "dealer": "Bob"})
    r.apply({"type": "cards_played", "cards": ["7C"], "source": "camera"})
    r.apply({"type": "correct", "event": 2, "cards": ["7C", "7H"], "source": "operator"})
    out = r.apply({"type": "correct", "event": 2, "cards": ["7C", "7S"], "source": "camera"})
    assert any(o["kind"] == "info" and "not applied" in o["text"] for o in out)
    assert r.view()["pot"][-2:] == ["7C", "7H"]
    # voiding the person's correction lets the camera's stand
    r.apply({"type": "void", "event": 3})
    assert r.view()["pot"][-2:] == ["7C", "7S"]
    # the same from the log alone
    assert TableReferee.replay(r.log).view()["pot"][-2:] == ["7C", "7S"]
    # a person correcting after the camera wins as ever
    r.apply({"type": "correct", "event": 2, "cards": ["7C", "7D"], "source": "operator"})
    assert r.view()["pot"][-2:] == ["7C", "7D"]
