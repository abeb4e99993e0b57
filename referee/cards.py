"""Card ids, the one vocabulary every part of masta speaks.

A card id is a rank (`A 2 3 4 5 6 7 8 9 10 J Q K`) followed by a suit (`C D H S`),
for example `10H`, `QS`, `AC`; the joker is `JK`. Outside names (`T` for ten,
lower case, `queen of spades`) are mapped onto these ids at the edges, never inside.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
JOKER = "JK"
#: Value used for ordering: 2 is lowest, the Ace highest (a preset may give cards powers).
RANK_VALUE: dict[str, int] = {r: i + 2 for i, r in enumerate(RANKS)}
RANK_VALUE[JOKER] = 15
#: Suit order used to break ties (for example "lowest 3 starts, by suit order"): clubs lowest.
SUIT_ORDER: dict[str, int] = {s: i for i, s in enumerate(SUITS)}

STANDARD_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
ALL_CARD_IDS: tuple[str, ...] = STANDARD_DECK + (JOKER,)

_RANK_ALIASES = {"T": "10", "1": "A", "ACE": "A", "JACK": "J", "QUEEN": "Q", "KING": "K"}
_SUIT_ALIASES = {"CLUBS": "C", "DIAMONDS": "D", "HEARTS": "H", "SPADES": "S",
                 "♣": "C", "♦": "D", "♥": "H", "♠": "S"}
_WORD_RANKS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
               "eight": "8", "nine": "9", "ten": "10", "jack": "J", "queen": "Q",
               "king": "K", "ace": "A"}


class UnknownCard(ValueError):
    """A string that is not a card id; the message says what a card id looks like."""

    def __init__(self, text: str):
        super().__init__(
            f"unknown card {text!r}: a card is a rank (A 2 3 4 5 6 7 8 9 10 J Q K) followed "
            f"by a suit (C D H S), for example 10H, QS or AC; the joker is JK")
        self.text = text


def parse_card(text: str) -> str:
    """Return the canonical id for `text`, accepting `t` for ten and any letter case."""
    if not isinstance(text, str):
        raise UnknownCard(repr(text))
    s = text.strip().upper()
    if s in ("JK", "JOKER", "JKR", "X", "*"):
        return JOKER
    if len(s) < 2:
        raise UnknownCard(text)
    rank, suit = s[:-1], s[-1]
    rank = _RANK_ALIASES.get(rank, rank)
    suit = _SUIT_ALIASES.get(suit, suit)
    if rank not in RANK_VALUE or rank == JOKER or suit not in SUIT_ORDER:
        raise UnknownCard(text)
    return rank + suit


def parse_cards(text: str | Iterable[str]) -> list[str]:
    """Parse a space- or comma-separated list (`"QD 3C"`) or an iterable of ids."""
    items = re.split(r"[\s,]+", text.strip()) if isinstance(text, str) else list(text)
    return [parse_card(t) for t in items if t != ""]


def parse_rank(text: str) -> str:
    """Return the canonical rank for `text` (`"t"` -> `"10"`, `"joker"` -> `"JK"`)."""
    s = str(text).strip().upper()
    if s in ("JK", "JOKER"):
        return JOKER
    s = _RANK_ALIASES.get(s, s)
    if s not in RANK_VALUE:
        raise ValueError(f"unknown rank {text!r}: use one of {' '.join(RANKS)} or JK")
    return s


def rank_of(card: str) -> str:
    return JOKER if card == JOKER else card[:-1]


def suit_of(card: str) -> str | None:
    return None if card == JOKER else card[-1]


def value_of(card: str) -> int:
    return RANK_VALUE[rank_of(card)]


def sort_key(card: str) -> tuple[int, int]:
    """Order by rank value, then suit (clubs, diamonds, hearts, spades)."""
    s = suit_of(card)
    return (value_of(card), -1 if s is None else SUIT_ORDER[s])


def build_deck(decks: int = 1, jokers_per_deck: int = 0) -> list[str]:
    """All the cards for `decks` packs of 52 plus their jokers, in a fixed order."""
    if decks < 1:
        raise ValueError("a game needs at least one deck")
    return [c for _ in range(decks) for c in STANDARD_DECK + (JOKER,) * jokers_per_deck]


def name_to_card(name: str) -> str:
    """Map an outside dataset's class name onto a card id.

    Handles `'10 of clubs'`, `'queen of spades'` (and the double space in
    `'jack  of clubs'`), `'Qs'`, `'10c'`, `'TS'`, `'2J'`/`'Joker1'` (jokers).
    """
    s = " ".join(str(name).strip().lower().split())
    if "joker" in s or s in ("2j", "1j", "jk"):
        return JOKER
    m = re.fullmatch(r"(\w+) of (\w+)", s)
    if m:
        rank = _WORD_RANKS.get(m.group(1), m.group(1))
        suit = _SUIT_ALIASES.get(m.group(2).upper(), m.group(2)[:1].upper())
        return parse_card(rank + suit)
    return parse_card(s)
