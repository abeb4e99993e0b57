"""Grades, standings, ratings, duties, orders and votes (the evening's book, no table)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from referee.evening import (EveningBook, GameResult, Order, ratings, standings, titles_for)
from referee.events import EventError


def test_titles():
    assert titles_for(["A", "B"]) == {"A": "MASTA", "B": "SHITHEAD"}
    assert titles_for(["A", "B", "C"]) == {"A": "MASTA", "B": "VICE-MASTA", "C": "SHITHEAD"}
    t = titles_for(["A", "B", "C", "D", "E"])
    assert [t[p] for p in "ABCDE"] == ["MASTA", "VICE-MASTA", "PEUPLE", "PEUPLE", "SHITHEAD"]


def results(*orders):
    return [GameResult(game=i + 1, setup_seq=10 * i + 1, players=list(o), order=list(o),
                       end_seq=10 * i + 9) for i, o in enumerate(orders)]


def test_standings_counts_streaks_and_places():
    rows = {r["player"]: r for r in standings(results("ABC", "ABC", "BCA", "ABC"))}
    a = rows["A"]
    assert (a["games"], a["MASTA"], a["SHITHEAD"], a["best_masta_streak"]) == (4, 3, 1, 2)
    assert a["streak"] == {"title": "MASTA", "games": 1}
    assert a["average_place"] == round((1 + 1 + 3 + 1) / 4, 3)
    assert rows["C"]["streak"] == {"title": "SHITHEAD", "games": 1}
    assert [r["player"] for r in standings(results("ABC", "ABC", "BCA", "ABC"))][0] == "A"


def test_ratings_rank_the_usual_winner_first():
    rows = ratings(results(*["ABCD"] * 6))
    assert [r["player"] for r in rows] == list("ABCD")
    assert rows[0]["mu"] > rows[-1]["mu"] and rows[0]["games"] == 6
    assert rows[0]["sigma"] < 25 / 3


@given(st.lists(st.permutations("ABCD"), min_size=1, max_size=8))
def test_standings_add_up(orders):
    rows = standings(results(*orders))
    assert sum(r["MASTA"] for r in rows) == len(orders)
    assert sum(r["SHITHEAD"] for r in rows) == len(orders)
    assert all(r["games"] == len(orders) for r in rows)
    assert all(1 <= r["average_place"] <= 4 for r in rows)


def book_after(order="ABCD"):
    book = EveningBook()
    book.setup({"seq": 1, "game": 1, "players": list("ABCD"), "dealer": "D"})
    book.game_over(GameResult(1, 1, list("ABCD"), list(order), 50))
    return book


def test_pending_duties_before_and_after_the_deal():
    book = book_after()
    assert [d["duty"] for d in book.pending_duties()] == ["deal", "best_card", "gift"]
    out = book.setup({"seq": 51, "game": 2, "players": list("ABCD"), "dealer": "B"})
    assert out and out[0]["kind"] == "duty_broken" and "D" in out[0]["text"]
    assert [d["duty"] for d in book.pending_duties()] == ["best_card", "gift"]
    ev = {"seq": 52, "duty": "best_card", "player": "D", "to": "A"}
    book.check_duty(ev, game_started=False)
    book.duty(ev)
    assert [d["duty"] for d in book.pending_duties()] == ["gift"]
    with pytest.raises(EventError, match="already done"):
        book.check_duty(dict(ev, seq=53), game_started=False)
    with pytest.raises(EventError, match="A to D"):
        book.check_duty({"seq": 54, "duty": "gift", "player": "B", "to": "D"}, False)
    with pytest.raises(EventError, match="before the first play"):
        book.check_duty({"seq": 54, "duty": "gift", "player": "A", "to": "D"}, True)
    assert book.pending_duties(game_started=True) == []


def test_orders_only_from_the_masta_to_the_shithead():
    book = book_after()
    with pytest.raises(EventError, match="only the MASTA"):
        book.check_order({"seq": 51, "player": "B", "text": "beer"})
    with pytest.raises(EventError, match="SHITHEAD"):
        book.check_order({"seq": 51, "player": "A", "text": "beer", "to": "C"})
    ev = {"seq": 51, "player": "A", "text": "fetch cold drinks from the cellar"}
    book.check_order(ev)
    out = book.order(ev)
    assert out[0]["voters"] == ["B", "C"] and out[0]["decided"] is False


def vote(book, seq, order, player, serves):
    ev = {"seq": seq, "order": order, "player": player, "serves": serves}
    book.check_vote(ev)
    return book.vote(ev)


def test_votes_one_each_and_vice_breaks_the_tie():
    book = book_after("ABCD")  # voters: B (VICE) and C (PEUPLE)
    book.order({"seq": 51, "player": "A", "text": "dishes"})
    out = vote(book, 52, 51, "C", False)
    assert len(out) == 1  # B (VICE) can still decide either way
    with pytest.raises(EventError, match="already voted"):
        vote(book, 53, 51, "C", True)
    for who in ("A", "D"):
        with pytest.raises(EventError, match="may not vote"):
            vote(book, 53, 51, who, True)
    with pytest.raises(EventError, match="not an order"):
        vote(book, 53, 50, "B", True)
    out = vote(book, 53, 51, "B", True)
    assert out[-1]["kind"] == "order_decided" and out[-1]["serves"] is True


def test_majority_decides_early():
    book = EveningBook()
    book.setup({"seq": 1, "game": 1, "players": list("ABCDEF"), "dealer": "F"})
    book.game_over(GameResult(1, 1, list("ABCDEF"), list("ABCDEF"), 80))
    book.order({"seq": 81, "player": "A", "text": "music"})
    assert len(vote(book, 82, 81, "C", False)) == 1
    assert len(vote(book, 83, 81, "D", False)) == 1
    out = vote(book, 84, 81, "E", False)  # three of four against: B cannot turn it
    assert out[-1]["kind"] == "order_decided" and out[-1]["serves"] is False
    assert len(vote(book, 85, 81, "B", True)) == 1  # a late vote is kept, changes nothing


@given(st.dictionaries(st.sampled_from("BCDE"), st.booleans(), min_size=4, max_size=4))
def test_full_vote_is_majority_or_vice(votes):
    o = Order(1, 1, "A", "F", "x", voters=list("BCDE"), vice="B", votes=dict(votes))
    yes = sum(votes.values())
    assert o.outcome() == (votes["B"] if yes == 2 else yes > 2)


def test_two_players_order_stands():
    book = EveningBook()
    book.setup({"seq": 1, "game": 1, "players": ["A", "B"], "dealer": "B"})
    book.game_over(GameResult(1, 1, ["A", "B"], ["A", "B"], 30))
    out = book.order({"seq": 31, "player": "A", "text": "x"})
    assert out[0]["decided"] and out[0]["serves"] is True
