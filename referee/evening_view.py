"""The evening as the web page and the CLI read it: a facade over the table referee's book.

Apart from `referee.evening` (the book, the grades, standings and ratings), which the table
referee itself builds on: this module imports the table, and nothing it imports imports it.
"""
from __future__ import annotations

from collections.abc import Iterable

from referee.evening import EveningBook, GameResult, ratings, standings
from referee.events import DUTIES
from referee.table import TableReferee

__all__ = ["Evening"]


class Evening:
    """Read-only view of an evening, built from the same event log as the table.

    `Evening(events)` replays the log through a `TableReferee` (so errors are the table's
    `EventError`s); `apply(event)` forwards to the table and returns what it produced.
    """

    def __init__(self, events: Iterable[dict] = ()):
        self.table = TableReferee(list(events))

    @classmethod
    def from_table(cls, table) -> Evening:
        ev = cls.__new__(cls)
        ev.table = table
        return ev

    def apply(self, event: dict) -> list[dict]:
        return self.table.apply(event)

    @property
    def book(self) -> EveningBook:
        return self.table.book

    @property
    def games(self) -> list[GameResult]:
        return list(self.book.results)

    def standings(self) -> list[dict]:
        return standings(self.book.results)

    def ratings(self) -> list[dict]:
        return ratings(self.book.results)

    def pending_duties(self) -> list[dict]:
        return self.book.pending_duties(self.table.game_started)

    def orders(self) -> list[dict]:
        return [o.to_dict() for o in self.book.orders.values()]

    def pending_votes(self) -> list[dict]:
        """Orders still open, with who has yet to vote."""
        return [o.to_dict() for o in self.book.orders.values() if o.outcome() is None]

    def view(self) -> dict:
        """JSON-serialisable snapshot for the evening page."""
        return {"games": [r.to_dict() for r in self.book.results],
                "standings": self.standings(), "ratings": self.ratings(),
                "pending_duties": self.pending_duties(), "orders": self.orders(),
                "duties": DUTIES}
