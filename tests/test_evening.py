"""The evening through the event log: games, grades, duties, orders, votes, ratings."""
from __future__ import annotations

import json

import pytest

from referee.camera_stream import stream_game
from referee.evening_view import Evening
from referee.events import EventError

PLAYERS = ["Ann", "Bob", "Cy"]


def finish(ev: Evening, starter: str, first: str, second: str):
    """`starter` opens, then `first` and `second` play their last card and go out."""
    for e in ({"type": "counts", "stock": 0},
              {"type": "counts", "player": first, "hand": 1, "face_up": 0, "face_down": 0},
              {"type": "counts", "player": second, "hand": 1, "face_up": 0, "face_down": 0},
              {"type": "cards_played", "cards": ["4C"], "player": starter},
              {"type": "cards_played", "cards": ["6C"], "player": first},
              {"type": "cards_played", "cards": ["7C"], "player": second}):
        ev.apply(e)


def first_evening() -> Evening:
    ev = Evening()
    ev.apply({"type": "setup", "players": PLAYERS, "dealer": "Cy"})
    finish(ev, "Ann", "Bob", "Cy")  # Bob MASTA, Cy VICE-MASTA, Ann SHITHEAD
    return ev


def test_duties_after_a_game_and_after_the_deal():
    ev = first_evening()
    assert [d["duty"] for d in ev.pending_duties()] == ["deal", "best_card", "gift"]
    assert ev.pending_duties()[0]["player"] == "Ann"
    out = ev.apply({"type": "setup", "players": PLAYERS, "dealer": "Ann"})
    assert not [o for o in out if o["kind"] == "duty_broken"]
    assert ev.table.view()["turn"] == "Bob"  # left of the dealer starts
    assert [d["duty"] for d in ev.pending_duties()] == ["best_card", "gift"]
    with pytest.raises(EventError, match="Ann to Bob"):
        ev.apply({"type": "duty", "duty": "best_card", "player": "Cy", "to": "Bob"})
    ev.apply({"type": "duty", "duty": "best_card", "player": "Ann", "to": "Bob", "card": "AS"})
    hands = {p["name"]: p["hand"] for p in ev.table.view()["players"]}
    assert hands == {"Ann": 2, "Bob": 4, "Cy": 3}
    assert ev.table.view()["players"][1]["known_hand"] == ["AS"]
    ev.apply({"type": "duty", "duty": "gift", "player": "Bob", "to": "Ann"})
    assert ev.pending_duties() == []
    ev.apply({"type": "cards_played", "cards": ["AS"]})  # Bob plays the Ace he was given
    assert ev.table.view()["suspicions"] == []
    with pytest.raises(EventError, match="before the first play"):
        ev.apply({"type": "duty", "duty": "gift", "player": "Bob", "to": "Ann"})


def test_the_shithead_should_deal():
    ev = first_evening()
    out = ev.apply({"type": "setup", "players": PLAYERS, "dealer": "Cy"})
    broken = [o for o in out if o["kind"] == "duty_broken"]
    assert broken and "Ann" in broken[0]["text"]


def test_orders_and_votes_in_the_log():
    ev = first_evening()
    with pytest.raises(EventError, match="only the MASTA"):
        ev.apply({"type": "order", "player": "Cy", "text": "dishes"})
    out = ev.apply({"type": "order", "player": "Bob", "text": "fetch cold drinks"})
    seq = out[0]["event"]
    assert ev.pending_votes()[0]["voters"] == ["Cy"]
    with pytest.raises(EventError, match="may not vote"):
        ev.apply({"type": "vote", "order": seq, "player": "Ann", "serves": False})
    out = ev.apply({"type": "vote", "order": seq, "player": "Cy", "serves": True})
    assert out[-1]["kind"] == "order_decided" and out[-1]["serves"] is True
    with pytest.raises(EventError, match="already voted"):
        ev.apply({"type": "vote", "order": seq, "player": "Cy", "serves": False})
    assert ev.pending_votes() == [] and ev.orders()[0]["serves"] is True


def test_standings_and_ratings_over_games():
    ev = first_evening()
    ev.apply({"type": "setup", "players": PLAYERS, "dealer": "Ann"})
    finish(ev, "Bob", "Cy", "Ann")  # Cy MASTA, Ann VICE-MASTA, Bob SHITHEAD
    ev.apply({"type": "setup", "players": PLAYERS, "dealer": "Bob"})
    finish(ev, "Cy", "Ann", "Bob")  # Ann MASTA, Bob VICE-MASTA, Cy SHITHEAD
    games = ev.games
    assert [g.order for g in games] == [["Bob", "Cy", "Ann"], ["Cy", "Ann", "Bob"],
                                        ["Ann", "Bob", "Cy"]]
    rows = {r["player"]: r for r in ev.standings()}
    assert rows["Ann"]["games"] == 3 and rows["Ann"]["MASTA"] == 1
    assert rows["Ann"]["SHITHEAD"] == 1 and rows["Ann"]["VICE-MASTA"] == 1
    assert rows["Ann"]["average_place"] == pytest.approx(2.0)
    ratings = ev.ratings()
    assert {r["player"] for r in ratings} == set(PLAYERS) and all(r["games"] == 3 for r in ratings)
    json.dumps(ev.view())
    again = Evening(ev.table.log)  # the same log gives the same evening
    assert again.standings() == ev.standings() and again.ratings() == ev.ratings()


def test_an_evening_of_simulated_games():
    """Three engine games in one log (with the duties' deal) make one evening."""
    events = []
    orders = []
    for game in range(1, 4):
        sg = stream_game("fr", 4, 100 + game, game=game)
        base = len(events)
        for e in sg.events:
            e = dict(e, seq=e["seq"] + base)
            if "event" in e:
                e["event"] += base
            events.append(e)
        orders.append(sg.order)
    ev = Evening(events)
    assert [g.order for g in ev.games] == orders
    assert sum(r["MASTA"] for r in ev.standings()) == 3
