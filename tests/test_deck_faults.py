"""A card the game's decks cannot hold: refused by a ruling, a suspicion at the table.

A joker in a preset that deals none (`fr`, `palace`, `sydney`, `nl-v1`, `nl-v2`) and more
copies of a card than the decks hold (a second KH in a one-deck game) cannot be played; the
pot-only judgement and the engine refuse them with a reason citing the preset; the table
referee, whose camera may have misread the card, keeps its ruling and raises a suspicion.
"""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from referee.cards import ALL_CARD_IDS, JOKER, STANDARD_DECK
from referee.engine import GameState, Play
from referee.pile import deck_fault, judge_on_pile
from referee.rules import list_presets, load_preset
from referee.table import TableReferee

NO_JOKERS = [n for n in list_presets() if not load_preset(n).table.jokers_per_deck]
WITH_JOKERS = [n for n in list_presets() if load_preset(n).table.jokers_per_deck]


def test_the_presets_split_as_their_texts_say():
    assert {"fr", "palace", "sydney", "nl-v1", "nl-v2"} <= set(NO_JOKERS)
    assert {"nl", "nl-v3", "nl-joker-gives"} <= set(WITH_JOKERS)


@pytest.mark.parametrize("name", NO_JOKERS)
def test_a_joker_is_refused_in_every_preset_without_jokers(name):
    p = load_preset(name)
    r = judge_on_pile(p, ["5H"], [JOKER])
    assert r.verdict == "illegal" and r.codes == ["not_in_deck"] and r.pile_after == ["5H"]
    assert r.reasons[0].rule == (p.citation("jokers") or p.citation("decks")) != ""


@pytest.mark.parametrize("name", WITH_JOKERS)
def test_jokers_count_against_the_decks_where_they_are_dealt(name):
    p = load_preset(name)
    held = p.table.jokers_per_deck
    assert deck_fault(p, [], [JOKER] * held, decks=1) is None
    assert deck_fault(p, [JOKER] * held, [JOKER], decks=1).code == "too_many_copies"
    assert deck_fault(p, [JOKER] * held, [JOKER], decks=2) is None


piles = st.lists(st.sampled_from(STANDARD_DECK[:8]), max_size=6)
plays = st.integers(1, 3).flatmap(lambda k: st.lists(st.sampled_from(STANDARD_DECK[:8]),
                                                     min_size=k, max_size=k))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(list_presets()), piles, plays, st.integers(1, 3))
def test_copies_are_refused_exactly_when_the_decks_lack_them(name, pile, cards, decks):
    p = load_preset(name)
    seen = Counter(pile + cards)
    too_many = any(seen[c] > decks for c in set(cards))
    r = judge_on_pile(p, pile, cards, decks=decks)
    assert ("too_many_copies" in r.codes) == too_many
    if too_many:
        assert r.verdict == "illegal" and r.pile_after == pile
    # without the decks the pot alone cannot count copies; the table leaves it to its ledger
    free = judge_on_pile(p, pile, cards)
    assert "too_many_copies" not in free.codes
    assert judge_on_pile(p, pile, cards, decks=decks, deck_check=False).to_dict() == \
        free.to_dict()
    if not too_many:
        assert r.to_dict() == free.to_dict()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list_presets()), st.integers(0, 10_000), st.integers(0, 30))
def test_the_engine_never_refuses_a_card_it_dealt(name, seed, moves):
    """Every play the engine offers in a dealt game is one its decks hold."""
    p = load_preset(name)
    g = GameState.new(p, p.table.players[0], seed=seed)
    for _ in range(moves):
        offered = g.legal_plays()
        if not offered:
            break
        for play in offered:
            assert not {"not_in_deck", "too_many_copies"} & set(g.judge(play).codes)
        g.push(offered[seed % len(offered)])


def test_the_engine_refuses_a_layout_card_the_decks_lack():
    g = GameState.from_layout("fr", [["KH", "KH"], ["5C"]], pile=["9C"])
    assert g.judge(Play(("KH", "KH"))).codes == ["too_many_copies"]
    g = GameState.from_layout("fr", [["KH", "KH"], ["5C"]], pile=["9C"], decks=2)
    assert g.judge(Play(("KH", "KH"))).verdict == "legal"
    g = GameState.from_layout("palace", [[JOKER], ["5C"]], pile=["AS"])
    assert g.judge(Play((JOKER,))).codes == ["not_in_deck"]


def test_a_game_with_too_few_decks_is_refused():
    with pytest.raises(ValueError, match="need 63 cards"):
        GameState.new("fr", 7, decks=1)
    assert len(GameState.new("fr", 5, decks=2).all_cards()) == 104


@pytest.mark.parametrize("name,cited", [("fr", "un jeu de 52 cartes"),
                                        ("palace", "senza Jolly"),
                                        ("sydney", "52-card deck")])
def test_at_the_table_a_phantom_joker_is_a_suspicion_citing_the_text(name, cited):
    ref = TableReferee()
    ref.apply({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy",
               "preset": name, "starter": "Ann"})
    ref.apply({"type": "cards_played", "cards": ["5H"], "player": "Ann"})
    out = ref.apply({"type": "cards_played", "cards": [JOKER], "player": "Bob"})
    sus = [o for o in out if o["kind"] == "suspicion"]
    assert [s["suspicion"] for s in sus] == ["not_in_deck"] and sus[0]["card"] == JOKER
    assert cited in sus[0]["text"] and sus[0]["events"] == [3]
    # the ruling is the one the card would get: a misread is fixed with `correct`
    ruling = [o for o in out if o["kind"] == "ruling"][0]
    assert "not_in_deck" not in [r["code"] for r in ruling["reasons"]]


def test_at_the_table_a_second_copy_is_a_suspicion_not_a_ruling():
    ref = TableReferee()
    ref.apply({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy",
               "preset": "fr"})
    ref.apply({"type": "cards_played", "cards": ["KH"], "player": "Ann"})
    out = ref.apply({"type": "cards_played", "cards": ["KH"], "player": "Bob"})
    assert [o["suspicion"] for o in out if o["kind"] == "suspicion"] == ["duplicate_card"]
    assert [o["verdict"] for o in out if o["kind"] == "ruling"] == ["legal"]


def test_every_card_id_is_judged_without_raising():
    for name in list_presets():
        for card in ALL_CARD_IDS:
            judge_on_pile(name, ["5H"], [card], decks=1)
