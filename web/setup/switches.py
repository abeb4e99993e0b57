"""A preset's rules as switches and choices for the set-up page: each TOML key of `[table]`
and of every `[ranks.X]`, with what it does in words and the value the preset gives it. The
page writes the TOML of a house preset from what was changed; the TOML stays for files and
for anything the switches do not cover."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from referee.rules import RANK_ORDER, Preset, RankRule, TableRules

#: [table] keys: (label, what it does); a key missing here is left to the TOML text
TABLE_WORDS: dict[str, tuple[str, str]] = {
    "exchange": ("Exchange first", "before play, each player may swap hand cards with their face-up cards"),
    "start": ("Who starts", "the player left of the dealer, or whoever holds the lowest card"),
    "start_rank": ("Lowest card", "with 'lowest': the rank whose holder starts"),
    "start_skip_special": ("Lowest skips magic cards", "with 'lowest': magic cards do not count as the lowest"),
    "start_must_play": ("Starter plays that card", "with 'lowest': the starter must play the card that made them start"),
    "voluntary_pickup": ("Pick up by choice", "a player who could play may pick up the pot instead"),
    "strict_pickup": ("Strict pick-up", "a player who picks up may not play in the same turn"),
    "turbo": ("Turbo", "anyone may play out of turn a card matching the one on top (same rank), "
                       "or to complete four"),
    "turbo_ranks": ("Turbo ranks", "the ranks a Turbo may be played with (space separated)"),
    "four_of_a_kind": ("Four of a kind burns", "four cards of one rank in a row burn the pot"),
    "four_count": ("Cards that burn", "how many of one rank in a row burn the pot"),
    "burn_plays_again": ("Burner plays again", "whoever burns the pot starts the next round"),
    "no_finish_on_special": ("No finishing on a magic card", "the last card played may not be a magic card"),
    "straights": ("Straights", "a run of consecutive ranks may be played at once"),
    "straight_min": ("Shortest straight", "the fewest cards a straight may have"),
    "straight_scale": ("Straight ranks", "the order of ranks straights follow (space separated)"),
    "jokers_per_deck": ("Jokers per deck", "jokers dealt with each deck"),
    "cards_per_layer": ("Cards per layer", "cards in the hand, face up and face down at the deal"),
}
#: [ranks.X] keys: (label, what it does)
RANK_WORDS: dict[str, tuple[str, str]] = {
    "anywhere": ("Plays on anything", "may be played on any card"),
    "not_on": ("…except on", "ranks it may not be played on although it plays on anything (space separated)"),
    "only_on_lower": ("Only on lower", "may only go on a strictly lower card"),
    "reset": ("Resets", "after it anything may be played"),
    "mirror": ("Mirror", "copies the card beneath it, its value and its power"),
    "transparent": ("Transparent", "the card beneath counts; its power is not played again"),
    "lower": ("Next plays lower", "the next play must be this rank or lower, or strictly lower"),
    "skip": ("Skips", "players skipped per card played"),
    "burn": ("Burns", "burns the pot"),
    "reverse": ("Reverses", "reverses the direction of play, per card"),
    "give_pot": ("Gives the pot", "the player gives the pot to a player of their choice"),
    "next_picks_up": ("Next picks up", "the next player must pick up the pot unless they counter"),
    "counter": ("Countered by", "ranks that answer 'gives the pot' or 'next picks up' (space separated)"),
    "removed_on_pickup": ("Leaves on pick-up", "these cards leave the game when the pot is picked up"),
    "in_four": ("In four of a kind", "counts towards four of a kind, or is skipped (invisible)"),
}
#: [table] keys left to the TOML text: a list of pairs, or an order of suits
ADVANCED = ("players", "decks", "start_suit_order")
#: the keys that take one of a few words (as `referee.rules` checks them)
CHOICES: dict[str, tuple[str, ...]] = {
    "start": ("left_of_dealer", "lowest"), "turbo": ("off", "same_rank", "complete_four"),
    "lower": ("", "or_equal", "strict"), "in_four": ("counts", "skipped"),
    "start_rank": tuple(r for r in RANK_ORDER),
}


@dataclass
class Switch:
    """One key's control: `kind` is bool (a switch), choice, int or ranks (a list of ranks)."""
    key: str
    kind: str
    value: Any
    label: str
    what: str
    choices: list[str] = field(default_factory=list)
    default: Any = None


def _switch(key: str, value: Any, default: Any, words: tuple[str, str]) -> Switch:
    if key in CHOICES:
        kind = "choice"
    elif isinstance(default, bool):
        kind = "bool"
    elif isinstance(default, int):
        kind = "int"
    elif isinstance(default, tuple):
        kind, value, default = "ranks", list(value), list(default)
    else:
        kind = "choice"
    return Switch(key, kind, value, words[0], words[1], list(CHOICES.get(key, ())), default)


def switches(preset: Preset) -> dict:
    """The preset as the page's controls: its table rules, then each rank's powers with the
    sentence of the source it cites (kept when the rank is changed)."""
    table = [dataclasses.asdict(_switch(f.name, getattr(preset.table, f.name), f.default, TABLE_WORDS[f.name]))
             for f in dataclasses.fields(TableRules) if f.name in TABLE_WORDS]
    ranks = []
    for r in RANK_ORDER:
        rule: RankRule = preset.rule(r)
        fields = [dataclasses.asdict(_switch(f.name, getattr(rule, f.name), f.default, RANK_WORDS[f.name]))
                  for f in dataclasses.fields(RankRule) if f.name in RANK_WORDS]
        ranks.append({"rank": r, "words": rule.powers_in_words(), "fields": fields,
                      "cite": rule.cite.text if rule.cite else "", "reading": rule.cite.reading if rule.cite else ""})
    return {"table": table, "ranks": ranks}
