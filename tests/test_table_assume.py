"""A table nobody answers for: the referee goes on under what it assumes (the camera's side,
else the rules), marks it, asks one question at a time in table words, and lets later
evidence and a person's answer settle it, the game re-ruled where needed."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from referee.camera_stream import stream_game
from referee.events import EventError
from referee.table import TableReferee

PLAYERS = ["Ann", "Bob", "Cy"]
CLEAR = {"type": "pot_cleared"}


def table(*events, players=PLAYERS):
    ref = TableReferee()
    ref.apply({"type": "setup", "players": players, "dealer": players[-1], "preset": "fr"})
    outs = [ref.apply(e) for e in events]
    return ref, outs


def play(*cards, side=None):
    ev = {"type": "cards_played", "cards": list(cards)}
    if side:
        ev["meta"] = {"seat": side}
    return ev


def cleared(side=None):
    return {"type": "pot_cleared", "meta": {"seat": side}} if side else dict(CLEAR)


def who(ref):
    return [r["player"] for r in ref.rulings()]


def test_an_aces_target_is_the_next_in_turn_until_the_camera_sees_who_answers():
    ref, _ = table(play("5D"), play("AS", side="Bob"))
    v = ref.view()
    assert v["turn"] == "Cy" and v["turn_assumed"]  # never "–" after an Ace
    assert v["questions"][0]["line"] == "Who took the pot after Bob's A♠? Cy · Ann"
    assert v["question"] is None  # the camera's next play may say: the page waits for it
    assert [a["status"] for a in v["assumptions"]] == ["open"]
    ref.apply(play("2H", side="Ann"))  # Ann answers the Ace: it hit her
    v = ref.view()
    assert who(ref) == ["Ann", "Bob", "Ann"] and ref.rulings()[-1]["turbo"] is False
    a = v["assumptions"][0]
    assert (a["status"], a["value"], a["was"]) == ("changed", "Ann", "Cy")
    assert v["question"] is None and v["turn"] == "Bob" and not v["turn_assumed"]


def test_the_pot_leaving_towards_a_side_says_who_took_it():
    ref, outs = table(play("5D"), play("AS"), cleared(side="Ann"))
    assert [o["player"] for o in outs[-1] if o["kind"] == "pickup"] == ["Ann"]
    assert ref.view()["turn"] == "Bob" and ref.view()["question"] is None
    assert ref.view()["players"][0]["hand"] == 3 + 2  # drew back to 3 after the 5D


def test_a_guess_the_next_play_contradicts_is_changed_and_the_game_re_ruled():
    # nobody saw where the Ace's pot went: Cy (the next in turn) is assumed to have taken it,
    # so Ann plays next; the next play comes from Bob's side instead: Ann took it
    ref, _ = table(play("5D", side="Ann"), play("AS", side="Bob"), CLEAR)
    assert ref.view()["players"][2]["hand"] == 5 and ref.view()["turn"] == "Ann"
    out = ref.apply(play("4C", side="Bob"))
    assert [o["player"] for o in out if o["kind"] == "pickup" and o.get("revised")] == ["Ann"]
    v = ref.view()
    assert [p["hand"] for p in v["players"]] == [3 + 2, 3, 3]  # Ann took 5D and AS
    assert who(ref) == ["Ann", "Bob", "Bob"] and not ref.rulings()[-1]["turbo"]
    assert v["turn"] == "Cy" and v["question"] is None
    assert v["assumptions"][0]["status"] == "changed" and v["assumptions"][0]["value"] == "Ann"
    # a pure function of the log: replayed from scratch, the same game
    again = TableReferee.replay(ref.log)
    assert again.view() == v and again.rulings() == ref.rulings()


def test_a_turbo_from_another_side_is_that_players_and_the_turn_stays():
    ref, _ = table(play("4S", side="Ann"), play("4C", side="Cy"))
    r = ref.rulings()[-1]
    assert r["player"] == "Cy" and r["turbo"] and r["verdict"] == "legal"
    assert r["assumed"] == {"player": "Cy", "by": "camera", "key": "player:3"}
    v = ref.view()
    assert v["turn"] == "Bob"
    assert v["questions"][0]["line"] == "Who played 4♣ after Ann's 4♠? Cy · Bob · Ann"
    ref.apply({"type": "played_by", "event": 3, "player": "Bob"})  # a person says: Bob's, in turn
    assert ref.view()["question"] is None and ref.view()["turn"] == "Cy"
    assert "assumed" not in ref.rulings()[-1] and not ref.rulings()[-1]["turbo"]


def test_a_play_from_another_side_that_is_no_turbo_moves_the_turn_there():
    # the referee thought Bob was to play; the camera saw Cy's arm: the referee lost the turn
    # (a play it never saw), so Cy's play is ruled in turn, not as an illegal Turbo
    ref, _ = table(play("5H", side="Ann"), play("9C", side="Cy"))
    r = ref.rulings()[-1]
    assert (r["player"], r["verdict"], r["turbo"]) == ("Cy", "legal", False)
    assert ref.view()["turn"] == "Ann" and ref.view()["questions"][0]["options"][:2] == ["Cy", "Bob"]


def test_one_question_the_one_the_turn_rests_on_the_rest_counted():
    ref, _ = table(play("4S"), play("4C", side="Cy"), play("6D"), play("AH"))
    v = ref.view()
    assert [q["kind"] for q in v["questions"]] == ["target", "player"]
    assert v["question"]["kind"] == "player"  # the Ace's: once the camera had its chance
    ref.apply(CLEAR)  # nobody saw where the pot went
    v = ref.view()
    assert v["question"]["kind"] == "target" and v["questions_waiting"] == 1
    # answering the question re-rules what follows and closes it
    ref.apply({"type": "target", "player": "Ann"})
    v = ref.view()
    assert v["turn"] == "Bob" and [q["kind"] for q in v["questions"]] == ["player"]
    assert ref.view()["players"][0]["hand"] == 3 + 4


def test_a_question_nobody_answers_for_a_round_of_play_steps_aside_for_the_next():
    # Cy's side played out of turn (no Turbo): asked who played; nobody answers
    ref, _ = table(play("4S"), play("4C", side="Cy"), play("6D"))
    assert ref.view()["question"]["key"] == "player:3"
    ref.apply(play("9D"))
    ref.apply(play("JD"))
    assert ref.view()["question"]["key"] == "player:3"  # two plays: not yet a round of three
    ref.apply(play("QD"))
    v = ref.view()
    assert v["question"] is None and [q["key"] for q in v["questions"]] == ["player:3"]  # agreed, still listed
    ref.apply(play("AD"))
    ref.apply(CLEAR)  # nobody saw who the Ace hit nor who took the pot: that is asked now
    v = ref.view()
    assert v["question"]["key"] == "target:8" and "player:3" in [q["key"] for q in v["questions"]]
    assert TableReferee.replay(ref.log).view()["question"] == v["question"]


def test_titles_resting_on_guesses_say_so():
    # two players: each play from the hand; the stock is long, so end it with counts
    ref, _ = table(play("4S", side="Ann"), play("4C", side="Cy"))
    ref.apply({"type": "counts", "stock": 0})
    for name in PLAYERS[:2]:
        ref.apply({"type": "counts", "player": name, "hand": 0, "face_up": 0, "face_down": 0})
    v = ref.view()
    assert v["over"] and v["titles_assumed"] == 1
    over = [o for seq in ref.outputs for o in ref.outputs[seq] if o["kind"] == "game_over"][0]
    assert over["assumed"] == 1 and "resting on 1 assumption" in over["text"]
    assert ref.book.results[0].to_dict()["assumed"] == 1


def test_who_started_is_the_first_plays_side():
    ref = TableReferee()
    ref.apply({"type": "setup", "players": PLAYERS, "dealer": "Cy", "preset": "nl"})
    ref.apply(play("3C", side="Bob"))
    assert who(ref) == ["Bob"] and ref.view()["turn"] == "Cy"
    q = ref.view()["questions"][0]
    assert q["text"] == "Who started, with 3♣?" and q["value"] == "Bob" and q["by"] == "camera"


def _camera_only(sg, sides: bool) -> list[dict]:
    """The stream as a table with nobody answering: no `target`/`played_by`; `sides`: each
    play carries the side its player sits (seat zones that never miss)."""
    out = []
    for ev in sg.events:
        if ev["type"] in ("target", "played_by", "picked_up"):
            continue
        e = {k: v for k, v in ev.items() if k != "seq"}
        if sides and ev["type"] == "cards_played":
            e["meta"] = {"seat": sg.players_of[ev["seq"]]}
        out.append(e)
    return out


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["fr", "nl", "palace", "sydney"]), st.integers(3, 4), st.integers(0, 10_000),
       st.booleans())
def test_a_game_nobody_answers_for_never_stalls_and_ends(preset, players, seed, sides):
    """Whatever the camera cannot see, the turn is always known (or assumed) while the game is
    on, at most one question is shown, and the game still ends; with the camera's side on every
    play, the finishing order is the engine's without a single answer."""
    sg = stream_game(preset, players, seed)
    if sg.engine_disagrees or not sg.over:
        return
    ref = TableReferee()
    for e in _camera_only(sg, sides):
        if ref.game is not None and ref.game.over and e["type"] != "cards_played":
            break
        ref.apply(e)
        v = ref.view()
        if v["game"] and not v["over"]:
            assert v["turn"] is not None, f"the turn is unknown after event {len(ref.log)}"
            assert v["question"] is None or v["question"] in v["questions"]
    if sides:
        assert ref.view()["over"] and ref.view()["finishing_order"] == sg.order


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(["fr", "sydney"]), st.integers(3, 4), st.integers(0, 10_000))
def test_assumptions_and_questions_are_a_function_of_the_log(preset, players, seed):
    """Replayed from the log (a restarted server), the same assumptions and questions."""
    sg = stream_game(preset, players, seed)
    ref = TableReferee()
    for i, e in enumerate(_camera_only(sg, False)[:120]):
        if i % 7 == 3 and e["type"] == "cards_played":  # now and then, a side that is wrong
            e = dict(e, meta={"seat": sg.players[(i // 7) % players]})
        if ref.game is not None and ref.game.over and e["type"] != "cards_played":
            break
        ref.apply(e)
    again = TableReferee.replay(ref.log)
    assert again.view() == ref.view() and again.asked() == ref.asked()


def test_a_persons_answer_wins_over_the_cameras_side():
    ref, _ = table(play("5D"), play("AS", side="Bob"), {"type": "target", "player": "Cy"},
                   play("2H", side="Ann"))  # the arm's side says Ann; a person said Cy
    assert who(ref)[-1] == "Cy" and ref.view()["question"] is None
    ref2, _ = table(play("5D"), play("AS", side="Bob"), play("2H", side="Ann"))
    assert who(ref2)[-1] == "Ann"
    ref2.apply({"type": "target", "event": 3, "player": "Cy"})  # said later: the same game
    assert who(ref2) == who(ref) and ref2.view()["turn"] == ref.view()["turn"]


def test_the_next_play_from_the_side_the_guess_implies_settles_it():
    ref, _ = table(play("5H", side="Ann"), play("9C", side="Cy"))
    assert [q["key"] for q in ref.view()["questions"]] == ["player:3"]
    ref.apply(play("10D", side="Ann"))  # after Cy comes Ann: the camera agrees
    v = ref.view()
    assert v["questions"] == [] and v["assumptions"][0]["status"] == "seen"


# -- a camera mismatch nobody answered: ruled as its likeliest play ---------------------------
def mismatch(cards, reads=None, side=None, **more):
    meta = {"mismatch": True, "cards": list(cards), **more}
    if reads:
        meta["reads"] = reads
    if side:
        meta["seat"] = side
    return {"type": "note", "source": "camera", "text": "camera mismatch", "meta": meta}


def test_a_mismatch_is_ruled_as_the_surest_read_and_asked_with_one_tap_offers():
    ref, outs = table(play("5D", side="Ann"),
                      mismatch(["9D", "5S"], [{"9D": 0.94, "9S": 0.13}, {"5S": 0.72}], side="Bob"))
    r = ref.rulings()[-1]
    assert (r["event"], r["player"], r["cards"], r["verdict"]) == (3, "Bob", ["9D"], "legal")
    assert r["assumed"]["cards"] == ["9D"] and r["assumed"]["cards_key"] == "cards:3"
    v = ref.view()
    assert v["turn"] == "Cy" and v["question"] is None  # the camera has its chance first
    ref.apply(play("10C", side="Cy"))
    q = ref.view()["question"]
    assert q["line"] == "What was played when the camera saw 9♦ 5♠ land after Ann's 5♦? 9♦ · 5♠ · nothing"
    assert [o["send"] for o in q["offers"]] == [
        {"type": "correct", "event": 3, "cards": ["9D"]}, {"type": "correct", "event": 3, "cards": ["5S"]},
        {"type": "void", "event": 3}]
    ref.apply(q["offers"][1]["send"])  # a person says: it was the 5S
    r = next(r for r in ref.rulings() if r["event"] == 3)
    assert r["cards"] == ["5S"] and "assumed" not in r
    assert ref.view()["question"] is None and ref.view()["assumptions"] == []


def test_a_mismatch_prefers_what_the_rules_allow_over_the_surer_read():
    # on a Q a 4 cannot go, a K can: the K, though the 4 was read surer
    ref, _ = table(play("8D", side="Ann"), play("QH", side="Bob"),
                   mismatch(["4C", "KD"], [{"4C": 0.95}, {"KD": 0.6}], side="Cy"))
    r = ref.rulings()[-1]
    assert (r["player"], r["cards"], r["verdict"]) == ("Cy", ["KD"], "legal")


def test_a_mismatch_goes_to_the_rank_its_reads_lean_to_over_every_read():
    # a jack half read by two corners (each read leaning to J as its runner-up) beside a 5 read
    # surer than either: the reads' votes for J together outweigh the 5's, and the 7's
    reads = [{"7H": 0.42, "JH": 0.30, "KH": 0.05}, {"JH": 0.33, "KH": 0.14, "JD": 0.06}, {"5H": 0.47, "5D": 0.10}]
    ref, _ = table(play("4D", side="Ann"), mismatch(["7H", "JH", "5H"], reads, side="Bob"))
    r = ref.rulings()[-1]
    assert (r["player"], r["cards"], r["verdict"]) == ("Bob", ["JH"], "legal")
    q = ref.view()["assumptions"][0]
    assert [o["label"] for o in q["offers"]][:2] == ["J♥", "5♥"]  # the likeliest first
    # the same cards each read alone (no runner-up votes): the surest read, the 5
    alone = [{"7H": 0.42}, {"JH": 0.33}, {"5H": 0.47}]
    ref2, _ = table(play("4D", side="Ann"), mismatch(["7H", "JH", "5H"], alone, side="Bob"))
    assert ref2.rulings()[-1]["cards"] == ["5H"]


def test_a_card_landed_unread_goes_to_the_rank_every_half_read_leans_to():
    # the watcher's note for a card nobody could read: its three likeliest cards offered, and
    # every box's vote kept; a 7 read likeliest alone, a jack's two corners half read as J
    from collections import Counter

    from vision.pot.events import landed_unread

    votes = Counter({"7H": 0.31, "JH": 0.22, "KH": 0.12, "JD": 0.15})
    note = landed_unread((1.0, 0.9, 30), votes).to_log_event()
    assert note["meta"]["cards"] == ["7H", "JH", "JD"]  # the page offers the three likeliest
    assert note["meta"]["reads"] == [dict(votes)]
    ref, _ = table(play("4D", side="Ann"), dict(note, meta=dict(note["meta"], seat="Bob")))
    r = ref.rulings()[-1]
    assert (r["player"], r["cards"]) == ("Bob", ["JH", "JD"]) and r["assumed"]["cards_key"] == "cards:3"
    # the same three read without the boxes' votes: the order read, the 7
    bare = dict(note, meta={k: v for k, v in note["meta"].items() if k != "reads"})
    ref2, _ = table(play("4D", side="Ann"), bare)
    assert ref2.rulings()[-1]["cards"] == ["7H"]


def test_who_played_a_mismatchs_guess_is_asked_and_the_answer_taken_without_naming_its_cards():
    # the camera saw the mismatch come from Ann's side; the referee asks who played its guess,
    # and a person's answer (Cy) is taken as it stands: the guess's cards were right
    ref, _ = table(play("5D", side="Ann"), play("6S", side="Bob"),
                   mismatch(["9D", "5S"], [{"9D": 0.94}, {"5S": 0.72}], side="Ann"), play("10C", side="Ann"))
    a = next(a for a in ref.view()["assumptions"] if a["key"] == "player:4")
    assert a["value"] == "Ann" and a["answer"] == {"type": "played_by", "event": 4}
    ref.apply(dict(a["answer"], player="Cy"))
    r = next(r for r in ref.rulings() if r["event"] == 4)
    assert (r["player"], r["cards"]) == ("Cy", ["9D"]) and r["assumed"]["cards_key"] == "cards:4"
    # a mismatch with nothing read there is no play: who played it waits for its cards
    ref2, _ = table(play("5D", side="Ann"), mismatch([]))
    with pytest.raises(EventError, match="name its cards first"):
        ref2.apply({"type": "played_by", "event": 3, "player": "Bob"})


def test_a_mismatch_voided_or_told_as_a_missed_play_is_no_guess():
    ref, _ = table(play("5D", side="Ann"), mismatch(["9D", "9S"], side="Bob"), play("10C", side="Cy"))
    assert [r["cards"] for r in ref.rulings()] == [["5D"], ["9D", "9S"], ["10C"]]
    ref.apply({"type": "void", "event": 3})  # nothing was played there
    assert [r["cards"] for r in ref.rulings()] == [["5D"], ["10C"]]
    ref2, _ = table(play("5D", side="Ann"), mismatch(["9D", "9S"], side="Bob"), play("10C", side="Cy"))
    ref2.apply({"type": "missed", "event": 3, "cards": ["9H"]})
    assert [r["cards"] for r in ref2.rulings()] == [["5D"], ["9H"], ["10C"]]
    assert all("assumed" not in r for r in ref2.rulings())
    # cards that left the pot are no play, nor is a mismatch with nothing read
    ref3, _ = table(play("5D", side="Ann"), mismatch(["5D"], gone=True), mismatch([]))
    assert len(ref3.rulings()) == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["2H", "4C", "5S", "7D", "9D", "9S", "JH", "QC", "AS", "JK"]),
                          st.floats(0.05, 1.0)), min_size=1, max_size=4, unique_by=lambda x: x[0]),
       st.sampled_from(["5D", "9C", "KH", "8S"]))
def test_a_mismatchs_guess_is_one_rank_read_there_allowed_where_any_is(reads, top):
    cards = [c for c, _ in reads]
    ref, _ = table(play(top, side="Ann"), mismatch(cards, [{c: p} for c, p in reads], side="Bob"))
    r = next((r for r in ref.rulings() if r["event"] == 3), None)
    assert r is not None and r["assumed"]["cards_key"] == "cards:3"
    rank = lambda c: c[:-1] if c != "JK" else c  # noqa: E731
    assert len({rank(c) for c in r["cards"]}) == 1 and set(r["cards"]) <= set(cards)
    assert r["cards"] == [c for c in cards if rank(c) == rank(r["cards"][0])]  # the rank's whole group
    if r["verdict"] != "legal":  # only where no rank read there fits the pot
        again = TableReferee()
        again.apply({"type": "setup", "players": PLAYERS, "dealer": "Cy", "preset": "fr"})
        again.apply(play(top, side="Ann"))
        assert not any(rank(c) in again.view()["fits"] for c in cards)
    assert ref.view()["assumptions"][0]["kind"] == "cards"


# -- a desync goes on under the claim / what the camera saw -----------------------------------
def test_a_player_out_the_counts_disagree_with_is_out_assumed_until_confirmed_or_voided():
    ref, outs = table(play("5H", side="Ann"), {"type": "player_out", "player": "Bob"})
    p = [o for o in outs[-1] if o["kind"] == "prompt"][0]
    assert p["prompt"] == "desync" and p["assumed"] == "Bob"
    v = ref.view()
    assert v["players"][1]["out"] and v["turn"] == "Cy"
    assert [(c["prompt"], c["assumed"]) for c in v["prompts"]] == [("desync", "Bob")]  # its check
    ref.apply(play("6H", side="Cy"))  # the game goes on, waiting on nobody
    v = ref.view()
    assert v["question"] is None and v["turn"] == "Ann"
    a = v["assumptions"][0]
    assert a["kind"] == "out" and a["text"].startswith("Is Bob out? Said so, but the counts say")
    assert [o["label"] for o in a["offers"]] == ["yes, out", "no, still in"]
    ref.apply(a["offers"][1]["send"])  # no: the claim voided, Bob still in
    assert not ref.view()["players"][1]["out"] and ref.view()["prompts"] == []
    ref2, _ = table(play("5H", side="Ann"), {"type": "player_out", "player": "Bob"})
    ref2.apply({"type": "confirm", "event": 3})
    assert ref2.view()["players"][1]["out"] and ref2.view()["assumptions"] == []


def test_a_play_beyond_the_counts_stands_as_seen_until_counted():
    ref, outs = table({"type": "counts", "stock": 0},
                      {"type": "counts", "player": "Ann", "hand": 1}, play("5H", "5S", side="Ann"))
    p = [o for o in outs[-1] if o["kind"] == "prompt"][0]
    assert p["prompt"] == "desync" and p["assumed"] == "Ann"
    assert ref.rulings()[-1]["verdict"] == "legal"
    # the operator's list keeps its check (Confirm, or a count); no spectator is asked
    assert [(q["prompt"], q["assumed"]) for q in ref.view()["prompts"]] == [("desync", "Ann")]
    assert [a["kind"] for a in ref.view()["assumptions"]] == ["counts"]
    assert ref.view()["question"] is None  # nothing waits on it
    ref.apply({"type": "counts", "player": "Ann", "hand": 0, "face_up": 3, "face_down": 3})
    assert ref.view()["assumptions"] == [] and ref.view()["prompts"] == []


# -- a pick-up the next play contradicts is re-ruled, any pick-up -----------------------------
def test_a_plain_pick_up_the_next_play_contradicts_is_re_ruled():
    # Bob, in turn, is assumed to take the pot nobody saw go; the next play comes from Ann's
    # side, no Turbo: Cy took it (the turn went Cy, then Ann)
    ref, outs = table(play("9D", side="Ann"), CLEAR)
    assert [o["player"] for o in outs[-1] if o["kind"] == "pickup"] == ["Bob"]
    assert ref.view()["question"] is None and not ref.view()["turn_assumed"]  # the rules' own answer
    out = ref.apply(play("5H", side="Ann"))
    assert [o["player"] for o in out if o["kind"] == "pickup" and o.get("revised")] == ["Cy"]
    v = ref.view()
    assert [p["hand"] for p in v["players"]] == [3, 3, 3 + 1]
    assert who(ref) == ["Ann", "Ann"] and not ref.rulings()[-1].get("turbo")
    assert v["turn"] == "Bob" and v["assumptions"][0]["status"] == "changed"
    assert TableReferee.replay(ref.log).rulings() == ref.rulings()
    # the next play from the side the rules expected settles nothing to ask
    ref2, _ = table(play("9D", side="Ann"), CLEAR, play("5H", side="Cy"))
    assert who(ref2) == ["Ann", "Cy"] and [p["hand"] for p in ref2.view()["players"]] == [3, 4, 3]
    assert ref2.view()["questions"] == []


def test_a_person_naming_who_played_places_the_pick_up_the_cameras_side_had_placed():
    # nobody saw who took the pot; the next play's arm, read from Ann's side, put the pick-up
    # on Cy; a person then says Bob played it: the pick-up follows the person (Ann took it),
    # not the side they overruled, and Bob's play is in turn
    ref, _ = table(play("9D", side="Ann"), CLEAR, play("5H", side="Ann"))
    assert who(ref) == ["Ann", "Ann"]
    seq = ref.log[-1]["seq"]
    out = ref.apply({"type": "played_by", "event": seq, "player": "Bob"})
    assert [o["player"] for o in out if o["kind"] == "pickup" and o.get("revised")] == ["Ann"]
    assert who(ref) == ["Ann", "Bob"] and ref.rulings()[-1]["verdict"] == "legal"
    assert [p["hand"] for p in ref.view()["players"]] == [3 + 1, 3, 3] and ref.view()["turn"] == "Cy"
    assert TableReferee.replay(ref.log).rulings() == ref.rulings()
    # named the player the rules expected: the rules' own pick-up (Bob in turn took it) stands
    ref2, _ = table(play("9D", side="Ann"), CLEAR, play("5H", side="Ann"))
    ref2.apply({"type": "played_by", "event": seq, "player": "Cy"})
    assert who(ref2) == ["Ann", "Cy"] and [p["hand"] for p in ref2.view()["players"]] == [3, 4, 3]
    assert ref2.rulings()[-1]["verdict"] == "legal"


def _last_stage(plays: str, *more, bob=9, cy=(0, 2)):
    """Stock gone, Ann 3 face down, Bob `bob` in hand, Cy `cy` face up and down, then
    `plays` ("4C:Ann 5C:Bob ...", each from its player's side) and `more` events."""
    return table({"type": "counts", "stock": 0},
                 {"type": "counts", "player": "Ann", "hand": 0, "face_up": 0, "face_down": 3},
                 {"type": "counts", "player": "Bob", "hand": bob, "face_up": 0, "face_down": 0},
                 {"type": "counts", "player": "Cy", "hand": 0, "face_up": cy[0], "face_down": cy[1]},
                 *[play(c, side=s) for c, s in (x.split(":") for x in plays.split())], *more)


def _end_stage(*more, bob=9):
    """The counts off by a card or two each (plays the camera missed); Bob played last."""
    return _last_stage("4C:Ann 5C:Bob 6C:Cy 7C:Ann 9C:Bob", *more, bob=bob)


def test_a_game_the_counts_did_not_end_is_placed_by_who_stopped_playing_when_it_ends():
    ref, outs = _last_stage("4C:Ann 5C:Bob 6C:Cy 7C:Ann 9C:Bob JC:Cy", {"type": "game_end", "source": "camera"},
                            cy=(0, 3))
    v = ref.view()  # Bob holds clearly the most (7 against 1 and 1); Cy's play was the last
    assert v["over"] and v["finishing_order"] == ["Ann", "Cy", "Bob"]
    assert v["titles"]["Bob"] == "SHITHEAD" and v["titles"]["Ann"] == "MASTA"
    end = [a for a in v["assumptions"] if a["kind"] == "end"]
    assert len(end) == 1 and end[0]["value"] == "Bob" and end[0]["status"] == "open"
    assert end[0]["text"].startswith("Who was left holding cards at the end (the Shithead)?")
    assert [o["label"] for o in end[0]["offers"]] == ["Bob", "Cy", "Ann"]  # the most cards first
    assert v["question"]["key"] == end[0]["key"] and v["titles_assumed"] >= 1


def test_whoever_played_the_last_play_went_out_with_it_whatever_the_counts_say():
    ref, _ = _end_stage({"type": "game_end", "source": "camera"})  # Bob 7 cards by the counts
    v = ref.view()  # but the game ended on his 9C: the counts missed cards he played or burned
    assert v["finishing_order"] == ["Cy", "Bob", "Ann"] and v["titles"]["Ann"] == "SHITHEAD"
    end = next(a for a in v["assumptions"] if a["kind"] == "end")
    assert end["value"] == "Ann" and end["options"][0] == "Ann" and "Bob" in end["options"]


def test_a_player_silent_while_the_others_played_twice_each_went_out_unseen():
    ref, _ = _last_stage("4C:Ann 5C:Bob 6C:Cy 7C:Ann 9C:Cy JC:Ann QC:Cy KC:Ann",
                         {"type": "game_end", "source": "camera"}, cy=(3, 3))
    v = ref.view()  # Bob holds 8 by the counts, but Ann and Cy played on without him: he was out
    assert v["finishing_order"] == ["Bob", "Ann", "Cy"] and v["titles"]["Cy"] == "SHITHEAD"
    assert next(a for a in v["assumptions"] if a["kind"] == "end")["value"] == "Cy"


def test_a_game_ending_on_a_play_the_counts_saw_go_out_places_the_unseen_outs_before_it():
    """Cy's JC is her last card and the game's last play (the counts see her go out); Ann,
    3 face down by the counts, has not played since her 4C: she went out there, before Cy, and
    Bob, who played on, is the one left, not passed over as if he had made the last play."""
    ref, _ = _last_stage("4C:Ann 5C:Bob 6C:Cy 9C:Bob JC:Cy", {"type": "game_end", "source": "camera"})
    v = ref.view()
    assert v["finishing_order"] == ["Ann", "Cy", "Bob"] and v["titles"]["Bob"] == "SHITHEAD"
    assert v["titles"]["Ann"] == "MASTA"
    assert next(a for a in v["assumptions"] if a["kind"] == "end")["value"] == "Bob"


def test_without_a_clear_lead_in_the_counts_the_one_left_is_who_the_last_out_played_against():
    ref, _ = _end_stage({"type": "game_end", "source": "camera"}, bob=5)  # Bob 3, Ann 1, Cy 1
    v = ref.view()  # Bob played last (out last); Ann played just before him: left holding
    assert v["finishing_order"] == ["Cy", "Bob", "Ann"] and v["titles"]["Ann"] == "SHITHEAD"
    end = next(a for a in v["assumptions"] if a["kind"] == "end")
    assert end["options"][0] == "Ann" and "last out play against them" in end["why"]


def test_one_tap_names_who_was_left_and_the_end_is_placed_again():
    ref, _ = _end_stage({"type": "game_end", "source": "camera"})
    end = next(a for a in ref.view()["assumptions"] if a["kind"] == "end")
    ref.apply(next(o["send"] for o in end["offers"] if o["label"] == "Bob"))
    v = ref.view()
    assert v["finishing_order"] == ["Cy", "Ann", "Bob"] and v["titles"]["Bob"] == "SHITHEAD"
    assert not [a for a in v["assumptions"] if a["kind"] == "end"] and v["question"] is None


def test_a_person_who_says_who_was_left_ends_the_game_with_nothing_assumed():
    ref, _ = _end_stage({"type": "game_end", "player": "Cy"})
    v = ref.view()
    assert v["finishing_order"] == ["Ann", "Bob", "Cy"] and v["titles"]["Cy"] == "SHITHEAD"
    assert not [a for a in v["assumptions"] if a["kind"] == "end"]


def test_a_game_already_over_or_not_begun_is_not_ended_again():
    import pytest
    from referee.events import EventError
    ref, outs = table({"type": "game_end"})
    assert not ref.view()["over"] and "before any play" in outs[-1][0]["text"]
    ref, _ = _end_stage({"type": "game_end"})
    with pytest.raises(EventError, match="ended at event"):
        ref.apply({"type": "game_end"})


def test_a_player_the_counts_put_out_whose_side_plays_on_is_still_in():
    ref, outs = table({"type": "counts", "stock": 0},
                      {"type": "counts", "player": "Ann", "hand": 0, "face_up": 0, "face_down": 1},
                      play("4C", side="Ann"))
    assert ref.view()["players"][0]["out"]  # her last card by the counts (one was missed)
    for card, side in [("5C", "Bob"), ("6C", "Ann"), ("7C", "Cy"), ("9C", "Ann")]:
        ref.apply(play(card, side=side))
    assert ref.view()["players"][0]["out"]  # two plays from her side: a misread side or two
    ref.apply(play("JC", side="Bob"))
    ref.apply(play("QC", side="Ann"))  # a third: the counts missed her cards
    v = ref.view()
    assert not v["players"][0]["out"] and v["finishing_order"] == []
    assert who(ref) == ["Ann", "Bob", "Ann", "Cy", "Ann", "Bob", "Ann"]
    said = [o for out in ref.outputs.values() for o in out if o.get("kind") == "info" and o.get("player") == "Ann"]
    assert said and "still in, the counts missed cards" in said[-1]["text"]
    # and the end places her where she stopped playing
    ref.apply({"type": "game_end"})
    assert ref.view()["over"] and "Ann" in ref.view()["finishing_order"]


def test_a_card_someone_was_seen_picking_up_names_them_where_no_side_was_seen():
    # Bob was seen taking the pot with K♦ in it; later K♦ lands with no side seen while the
    # turn says Ann: it is Bob's, who holds it, not the turn's
    ref, _ = table(play("KD", side="Ann"), cleared(side="Bob"), play("4H", side="Cy"),
                   play("KD"))
    r = ref.rulings()[-1]
    assert r["player"] == "Bob" and r["assumed"]["by"] == "hand" and not r["turbo"]
    assert not ref.view()["suspicions"]  # Bob plays the card he holds: nothing to suspect
    assert ref.view()["turn"] == "Cy"
    a = next(a for a in ref.view()["assumptions"] if a["key"] == r["assumed"]["key"])
    assert a["why"] == "they picked up that card: it was in their hand"


def test_a_card_in_a_hand_only_guessed_names_nobody_until_the_guess_is_seen():
    # nobody saw who took the pot, nor who played next: Bob (in turn) taking it is only the
    # rules' guess, so K♦ with no side seen is the turn's (Ann's)
    ref, _ = table(play("KD", side="Ann"), cleared(), play("4H"), play("KD"))
    assert ref.rulings()[-1]["player"] == "Ann"
    # the same with Cy seen playing next, which confirms Bob took it: K♦ is Bob's
    ref, _ = table(play("KD", side="Ann"), cleared(), play("4H", side="Cy"), play("KD"))
    assert ref.rulings()[-1]["player"] == "Bob"
