"""The full-information engine: moves, undo, out-of-turn plays, judging bad input, bots."""
from __future__ import annotations

import random

import pytest

from referee.bots import BOTS, make_bot
from referee.engine import GameState, Play
from referee.pile import burns, effective_top, fits, four_run, judge_on_pile, requirement
from referee.simulate import play_game, simulate


def test_players_outside_the_preset_are_refused():
    with pytest.raises(ValueError, match="2 to 4 players"):
        GameState.new("sydney", 5)
    with pytest.raises(ValueError, match="2 to 11"):
        GameState.new("fr", 1)


def test_swap_and_begin_are_undone_by_pop():
    g = GameState.new("fr", 3, seed=11)
    start = g.snapshot()
    h, u = g.hands[0][0], g.up[0][0]
    g.swap(0, h, u)
    assert h in g.up[0] and u in g.hands[0]
    g.begin()
    assert g.started
    g.pop()
    g.pop()
    assert g.snapshot() == start


def test_swap_of_cards_not_held_is_refused():
    g = GameState.new("fr", 2, seed=1)
    with pytest.raises(ValueError, match="holds"):
        g.swap(0, "JK", g.up[0][0])


def test_ace_offers_one_play_per_target():
    g = GameState.from_layout("fr", [["AS", "4C"], ["6D"], ["7D"], ["9D"]],
                              up=[["2C"], ["4S"], ["4D"], ["4H"]],
                              down=[["QS"], ["KS"], ["JS"], ["JH"]], pile=["KH"])
    aces = [x for x in g.legal_plays() if x.cards == ("AS",)]
    assert sorted(x.target for x in aces) == [1, 2, 3]


def test_target_counters_with_a_three_and_passes_the_pot_on():
    g = GameState.from_layout("fr", [["AS", "4C"], ["3D", "9D"], ["7D", "8D"]],
                              up=[["2C"], ["4S"], ["4D"]], down=[["QS"], ["KS"], ["JS"]],
                              pile=["KH"])
    g.push(Play(("AS",), target=1))
    assert g.turn == 1 and str(g.req) == "counter A 2 10 3 or pick up"
    plays = g.legal_plays()
    assert {x.cards for x in plays if not x.pickup} == {("3D",)}
    assert {x.target for x in plays if not x.pickup} == {0, 2}
    g.push(Play(("3D",), target=2))
    assert g.turn == 2
    assert [x.pickup for x in g.legal_plays()] == [True]
    g.push(Play.pick_up())
    assert sorted(g.hands[2]) == sorted(["7D", "8D", "KH", "AS", "3D"]) and g.turn == 0


def test_turbo_plays_listed_for_other_players_only():
    g = GameState.from_layout("fr", [["6C", "5C"], ["9D", "KD"], ["6S", "QD"]],
                              up=[["2C"], ["4S"], ["4D"]], down=[["QS"], ["KS"], ["JS"]],
                              pile=["6H"], turn=1)
    tp = g.turbo_plays()
    assert {(x.player, x.cards) for x in tp} == {(0, ("6C",)), (2, ("6S",))}
    assert all(x.turbo for x in tp)
    g2 = GameState.from_layout("fr", [["7C"], ["9D"]], up=[["2C"], ["4S"]],
                               down=[["QS"], ["KS"]], pile=["7H"], turn=1)
    assert g2.turbo_plays() == []  # 7 is magic: no Turbo


def test_judge_never_raises_on_nonsense():
    g = GameState.new("fr", 3, seed=5)
    g.begin()
    bad = [Play(("ZZ",)), Play(("AS", "KS")), Play((), "hand"), Play(("2C",), "pocket"),
           Play(("2C",), player=9), Play(("2C",), player=-1), Play(("JK",)),
           Play(g.down[g.turn][:1] and (g.down[g.turn][0],), "down")]
    for play in bad:
        r = g.judge(play)
        assert r.verdict == "illegal" and r.reasons and r.reasons[0].code


def test_not_your_turn_and_cards_not_held():
    g = GameState.from_layout("fr", [["5C"], ["9D"]], up=[["2C"], ["4S"]],
                              down=[["QS"], ["KS"]], pile=["4H"])
    assert g.judge(Play(("9D",), player=1)).codes == ["not_your_turn"]
    assert g.judge(Play(("9H",))).codes == ["not_held"]
    assert g.judge(Play(("5C",))).legal


def test_over_game_has_no_plays_and_grades():
    g = GameState.from_layout("fr", [[], ["4D"], ["5D"]], up=[["KH"], ["4S"], ["7C"]],
                              down=[[], ["KS"], ["JS"]], pile=["9C"])
    g.push(Play(("KH",), "up"))
    assert g.finished == [0] and not g.over and g.turn == 1
    g2 = GameState.from_layout("fr", [[], ["4D"]], up=[["KH"], ["4S"]], down=[[], ["KS"]])
    g2.push(Play(("KH",), "up"))
    assert g2.over and g2.loser == 1 and g2.legal_plays() == []
    assert g2.grades() == {0: "MASTA", 1: "SHITHEAD"}
    assert g2.judge(Play(("4D",), player=1)).codes == ["game_over"]


def test_pile_helpers_agree_with_the_rules():
    assert effective_top("fr", ["QD", "3C", "3S"]) == "QD"
    assert effective_top("nl", ["7H", "8S", "JK"]) == "7H"
    assert effective_top("fr", ["3C"]) is None
    assert str(requirement("nl", ["7H", "8S"])) == "< 7"
    assert str(requirement("fr", [])) == "any"
    assert fits("fr", ["7H"], "3") and not fits("fr", ["7H"], "8")
    assert burns("fr", ["9H", "10S"]) == "burn_card"
    assert burns("fr", ["QH", "QD", "3S", "QS", "QC"]) == "burn_four"
    assert burns("sydney", ["5H", "5D", "5S", "5C"]) is None
    assert four_run("fr", ["QH", "QD", "3S", "QS"]) == ("Q", 3)


def test_judge_on_pile_is_total_and_explains():
    r = judge_on_pile("fr", ["QD", "3C"], ["KH"])
    assert r.to_dict() == {"verdict": "legal", "reasons": [r.reasons[0].to_dict()],
                           "effects": [], "next": ">= K"}
    assert "supérieure ou égale" in r.reasons[0].rule
    assert judge_on_pile("fr", ["QD"], ["XX"]).codes == ["unknown_card"]
    assert judge_on_pile("nope", ["QD"], ["KH"]).codes == ["unknown_preset"]
    assert judge_on_pile("fr", ["QD"], []).codes == ["empty_play"]


@pytest.mark.parametrize("style", sorted(BOTS))
def test_every_bot_plays_only_legal_moves(style):
    rng = random.Random(3)
    g = GameState.new("fr", 3, rng=rng)
    bot = make_bot(style)
    bot.exchange(g, 0)
    g.begin()
    for _ in range(200):
        if g.over:
            break
        plays = g.legal_plays()
        choice = bot.choose(g, plays, rng)
        assert choice in plays
        g.push(choice)


def test_unknown_bot_is_refused():
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("genius")


def test_simulate_counts_games_and_positions():
    st = simulate("fr", 4, 20, seed=1)
    assert st.games == 20 and st.ended + st.stuck == 20
    assert st.plays > 20 * 20 and st.burns > 0
    ended_positions = sum(sum(c.values()) for c in st.positions.values())
    assert ended_positions == 4 * st.ended
    assert "games/s" in st.report()


def test_play_cap_reports_a_game_as_not_ended():
    g = play_game("fr", [make_bot("random"), make_bot("random")], random.Random(1), 5)
    assert not g.over and g.plays == 5


def test_history_off_still_plays_the_same_game():
    bots = [make_bot("saver"), make_bot("aggressive"), make_bot("lowest")]
    a = play_game("palace", bots, random.Random(9), history=True)
    b = play_game("palace", bots, random.Random(9), history=False)
    assert a.snapshot() == b.snapshot()


def test_board_text_shows_everyone_and_the_pot():
    g = GameState.from_layout("fr", [["5C"], ["9D"]], up=[["2C"], ["4S"]],
                              down=[["QS"], ["KS"]], pile=["4H"])
    text = str(g)
    assert "*P0 hand [5C] up [2C] down 1" in text and "pot [4H] next >= 4" in text
