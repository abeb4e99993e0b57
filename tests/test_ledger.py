"""The card ledger: where every seen card went, and the suspicions it raises."""
from __future__ import annotations

from hypothesis import given, strategies as st

from referee.cards import STANDARD_DECK
from referee.ledger import Ledger


def kinds(sus):
    return [s["kind"] for s in sus]


def test_pick_up_then_play_by_the_holder_is_clean():
    led = Ledger()
    assert led.play(["QS"], "Ann", 2) == []
    assert led.play(["KS"], "Bob", 3) == []
    assert led.pick_up("Cy", 4) == (["QS", "KS"], [])
    assert led.known_hand("Cy") == ["QS", "KS"]
    assert led.play(["KS"], "Cy", 5) == []
    assert led.known_hand("Cy") == ["QS"]


def test_card_held_by_someone_else():
    led = Ledger()
    led.play(["QS"], "Ann", 2)
    led.pick_up("Cy", 3)
    sus = led.play(["QS"], "Bob", 4)
    assert kinds(sus) == ["held_by_other"]
    assert sus[0]["events"] == [3, 4] and "Cy" in sus[0]["text"] and sus[0]["player"] == "Bob"


def test_burned_card_returning():
    led = Ledger()
    led.play(["10H"], "Ann", 2)
    assert led.burn(3) == ["10H"]
    sus = led.play(["10H"], "Bob", 7)
    assert kinds(sus) == ["burned_card_returned"] and sus[0]["events"] == [3, 7]


def test_duplicate_in_one_deck_but_not_in_two():
    one = Ledger(decks=1)
    one.play(["5C"], "Ann", 2)
    assert kinds(one.play(["5C"], "Bob", 3)) == ["duplicate_card"]
    two = Ledger(decks=2)
    two.play(["5C"], "Ann", 2)
    assert two.play(["5C"], "Bob", 3) == []
    assert kinds(two.play(["5C"], "Cy", 4)) == ["duplicate_card"]


def test_joker_without_jokers_in_the_deck():
    assert kinds(Ledger(jokers_per_deck=0).play(["JK"], "Ann", 2)) == ["not_in_deck"]
    assert Ledger(jokers_per_deck=2).play(["JK", "JK"], "Ann", 2) == []


def test_going_out_with_a_known_card_left():
    led = Ledger()
    led.play(["9D"], "Ann", 2)
    led.pick_up("Bob", 3)
    sus = led.player_out("Bob", 9)
    assert kinds(sus) == ["vanished"] and sus[0]["card"] == "9D"
    assert led.known_hand("Bob") == []


def test_removed_on_pick_up():
    led = Ledger()
    led.play(["9D"], "Ann", 2)
    led.play(["7C"], "Bob", 3)
    assert led.pick_up("Cy", 4, remove=frozenset({"7"})) == (["9D"], ["7C"])
    assert led.burned() == ["7C"] and led.known_hand("Cy") == ["9D"]


def test_gift_moves_a_named_card():
    led = Ledger()
    assert led.give("AS", "Ann", "Bob", 2) == []
    assert led.holder("AS") == ["Bob"]
    assert led.play(["AS"], "Bob", 3) == []


@given(st.lists(st.tuples(st.sampled_from(STANDARD_DECK[:8]), st.sampled_from("ABC"),
                          st.sampled_from(["play", "burn", "pick"])), max_size=40))
def test_copies_are_conserved(steps):
    """Every deck copy is in exactly one place; only flagged extras add copies."""
    led = Ledger(decks=1)
    for seq, (card, player, action) in enumerate(steps, start=2):
        if action == "play":
            led.play([card], player, seq)
        elif action == "burn":
            led.burn(seq)
        else:
            led.pick_up(player, seq)
        for cs in led.copies.values():
            assert sum(1 for c in cs if not c.extra) == 1
        on_pot = [c for cs in led.copies.values() for c in cs if c.where == "pot"]
        assert sorted(c.card for c in on_pot) == sorted(led.pot_cards())
