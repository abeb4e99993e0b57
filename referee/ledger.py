"""The card ledger: every card the camera has seen and where it went since.

At a real table masta sees only the pot, but that is enough to know a lot: a card that landed
on the pot and was burned is gone for good; a card that was on the pot when Bob picked it up
is in Bob's hand until he plays it. The ledger follows every physical copy of every card
(one per deck) through `unseen -> pot -> burned | hand:<player> -> pot ...` and raises a
*suspicion* when what the camera sees cannot be: a card seen twice in one deck, a burned card
coming back, a card played by someone other than the player known to hold it, a player going
out while still holding a card they picked up. A suspicion is not a ruling: it may be a misread
(fixed with a `correct` event) or a cheat, so it carries the evidence (the events involved).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import JOKER, STANDARD_DECK, rank_of, sort_key

UNSEEN, POT, BURNED, HAND = "unseen", "pot", "burned", "hand"


@dataclass
class Copy:
    """One physical card: where it is, who holds it and the events that moved it."""

    card: str
    where: str = UNSEEN
    player: str | None = None
    extra: bool = False  # not one of the decks' copies: seen more often than the decks hold
    history: list[tuple[int, str, str | None]] = field(default_factory=list)

    def move(self, where: str, player: str | None, seq: int) -> None:
        self.where, self.player = where, player
        self.history.append((seq, where, player))

    def last_seq(self, where: str | None = None) -> int | None:
        for seq, w, _ in reversed(self.history):
            if where is None or w == where:
                return seq
        return None


def suspicion(kind: str, card: str, event: int, events: list[int], text: str,
              player: str | None = None) -> dict:
    """A suspicion as plain data: kind, card, the event that raised it and the evidence."""
    return {"kind": kind, "card": card, "player": player, "event": event,
            "events": sorted(set(events)), "text": text}


class Ledger:
    """Where every copy of every card is, as far as the pot tells."""

    def __init__(self, decks: int = 1, jokers_per_deck: int = 0, deck_rule: str = ""):
        """`deck_rule`: the preset's sentence saying what the decks hold, quoted when a card
        they lack shows (a joker where the text says 52 cards)."""
        self.decks = decks
        self.deck_rule = deck_rule
        self.copies: dict[str, list[Copy]] = {}
        for _ in range(decks):
            for card in STANDARD_DECK + (JOKER,) * jokers_per_deck:
                self.copies.setdefault(card, []).append(Copy(card))
        self.pot: list[Copy] = []

    # -- moves ------------------------------------------------------------------------------
    def play(self, cards: list[str], player: str | None, seq: int) -> list[dict]:
        """Cards landed on the pot, played by `player` (None: not known); returns suspicions."""
        found: list[dict] = []
        for card in cards:
            copy, sus = self._take(card, player, seq)
            found.extend(sus)
            copy.move(POT, None, seq)
            self.pot.append(copy)
        return found

    def _take(self, card: str, player: str | None, seq: int) -> tuple[Copy, list[dict]]:
        copies = self.copies.setdefault(card, [])
        mine = [c for c in copies if c.where == HAND and player is not None and c.player == player]
        if mine:
            return mine[0], []
        unseen = [c for c in copies if c.where == UNSEEN]
        if unseen:
            return unseen[0], []
        # in a hand nobody is known to hold (a pot taken by someone not named yet) before a
        # hand known to be another player's: no suspicion either way
        held = sorted((c for c in copies if c.where == HAND), key=lambda c: c.player is not None)
        if held:
            c = held[0]
            if player is None or c.player is None:
                return c, []
            return c, [suspicion(
                "held_by_other", card, seq, [c.last_seq(HAND) or seq, seq],
                f"{card} was picked up by {c.player} at event {c.last_seq(HAND)}, "
                f"but {player} played it at event {seq}", player)]
        burned = [c for c in copies if c.where == BURNED]
        if burned:
            c = burned[0]
            return c, [suspicion(
                "burned_card_returned", card, seq, [c.last_seq(BURNED) or seq, seq],
                f"{card} was burned at event {c.last_seq(BURNED)} and came back at event {seq}",
                player)]
        extra = Copy(card, extra=True)
        copies.append(extra)
        if len(copies) == 1:
            return extra, [suspicion(
                "not_in_deck", card, seq, [seq],
                f"{card} is not in the deck this preset plays with (event {seq})"
                + (f": \u00ab{self.deck_rule}\u00bb" if self.deck_rule else ""), player)]
        seen = [c.last_seq(POT) for c in copies if c is not extra]
        return extra, [suspicion(
            "duplicate_card", card, seq, [s for s in seen if s] + [seq],
            f"{card} seen again at event {seq} but the {self.decks} deck(s) hold only "
            f"{len(copies) - 1}; already on the pot since event "
            f"{', '.join(str(s) for s in seen if s)}", player)]

    def burn(self, seq: int) -> list[str]:
        """The pot is burned: its cards are out of the game for good."""
        cards = [c.card for c in self.pot]
        for c in self.pot:
            c.move(BURNED, None, seq)
        self.pot = []
        return cards

    def pick_up(self, player: str | None, seq: int,
                remove: frozenset[str] = frozenset()) -> tuple[list[str], list[str]]:
        """`player` took the pot: its cards are known to be in their hand, except cards of
        the ranks in `remove`, which leave the game (a preset's removed-on-pick-up cards).
        `player` None: somebody not named yet took it (the cards are in a hand, not on the
        pot). Returns (cards taken, cards removed)."""
        taken, gone = [], []
        for c in self.pot:
            if rank_of(c.card) in remove:
                c.move(BURNED, None, seq)
                gone.append(c.card)
            else:
                c.move(HAND, player, seq)
                taken.append(c.card)
        self.pot = []
        return taken, gone

    def give(self, card: str, giver: str, taker: str, seq: int) -> list[dict]:
        """A named card changed hands (a duty): it is known to be in `taker`'s hand."""
        copies = self.copies.setdefault(card, [])
        pick = ([c for c in copies if c.where == HAND and c.player == giver]
                or [c for c in copies if c.where == UNSEEN])
        if pick:
            pick[0].move(HAND, taker, seq)
            return []
        where = ", ".join(f"{c.where}{':' + c.player if c.player else ''}" for c in copies)
        extra = Copy(card, extra=True)
        copies.append(extra)
        extra.move(HAND, taker, seq)
        return [suspicion("duplicate_card", card, seq, [seq],
                          f"{giver} gave {card} at event {seq}, but every copy is accounted "
                          f"for ({where or 'none in the deck'})", giver)]

    def player_out(self, player: str, seq: int) -> list[dict]:
        """`player` has no cards left: any card known in their hand vanished."""
        found = []
        for c in self.known_hand_copies(player):
            found.append(suspicion(
                "vanished", c.card, seq, [c.last_seq(HAND) or seq, seq],
                f"{player} went out at event {seq} without playing {c.card}, which they picked "
                f"up at event {c.last_seq(HAND)}", player))
            c.move(UNSEEN, None, seq)
        return found

    # -- queries ----------------------------------------------------------------------------
    def known_hand_copies(self, player: str) -> list[Copy]:
        return [c for cs in self.copies.values() for c in cs
                if c.where == HAND and c.player == player]

    def known_hand(self, player: str) -> list[str]:
        return sorted((c.card for c in self.known_hand_copies(player)), key=sort_key)

    def known_held(self, card: str) -> list[Copy] | None:
        """The copies of `card` in a hand, where no copy is unseen (None: an unseen copy may be
        in anyone's hand)."""
        copies = self.copies.get(card, [])
        if not copies or any(c.where == UNSEEN for c in copies):
            return None
        return [c for c in copies if c.where == HAND]

    def holder(self, card: str) -> list[str]:
        return [c.player for c in self.copies.get(card, []) if c.where == HAND and c.player]

    def burned(self) -> list[str]:
        return sorted((c.card for cs in self.copies.values() for c in cs if c.where == BURNED),
                      key=sort_key)

    def pot_cards(self) -> list[str]:
        return [c.card for c in self.pot]

    def unseen_count(self) -> int:
        return sum(1 for cs in self.copies.values() for c in cs if c.where == UNSEEN)

    def view(self, players: list[str]) -> dict:
        return {"pot": self.pot_cards(), "burned": self.burned(),
                "known_hands": {p: self.known_hand(p) for p in players},
                "unseen": self.unseen_count()}
