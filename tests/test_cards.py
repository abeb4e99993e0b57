import pytest
from hypothesis import given, strategies as st

from referee.cards import (ALL_CARD_IDS, JOKER, STANDARD_DECK, UnknownCard, build_deck,
                           name_to_card, parse_card, parse_cards, rank_of, sort_key, suit_of)


def test_standard_deck_has_52_distinct_cards():
    assert len(STANDARD_DECK) == 52 and len(set(STANDARD_DECK)) == 52


@pytest.mark.parametrize("text,card", [("10h", "10H"), ("TS", "10S"), (" qs ", "QS"),
                                       ("ac", "AC"), ("joker", "JK"), ("jk", "JK")])
def test_parse_card_normalises(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("bad", ["", "1", "11H", "QX", "ZZ", "10", "H10", "JKS"])
def test_unknown_card_names_the_problem(bad):
    with pytest.raises(UnknownCard) as err:
        parse_card(bad)
    assert "rank" in str(err.value) and "suit" in str(err.value)


def test_parse_cards_splits_on_spaces_and_commas():
    assert parse_cards("QD 3C,10h") == ["QD", "3C", "10H"]


@pytest.mark.parametrize("name,card", [("10 of clubs", "10C"), ("queen of spades", "QS"),
                                       ("jack  of clubs", "JC"), ("ace of hearts", "AH"),
                                       ("Qs", "QS"), ("TS", "10S"), ("2J", JOKER)])
def test_outside_names_map_onto_card_ids(name, card):
    assert name_to_card(name) == card


@given(st.sampled_from(ALL_CARD_IDS))
def test_every_id_round_trips(card):
    assert parse_card(card.lower()) == card
    assert (card == JOKER) == (suit_of(card) is None)
    assert rank_of(card) + (suit_of(card) or "") == card or card == JOKER


def test_build_deck_counts_and_order():
    deck = build_deck(2, jokers_per_deck=2)
    assert len(deck) == 108 and deck.count(JOKER) == 4 and deck.count("QS") == 2
    assert sorted(STANDARD_DECK, key=sort_key)[0] == "2C"
    assert sorted(STANDARD_DECK, key=sort_key)[-1] == "AS"
