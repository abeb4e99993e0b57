"""The evening: a series of games by one group, the French grades and what they oblige.

A game ends with titles (MASTA, VICE-MASTA, PEUPLE, SHITHEAD; the French text's grades, shown
for every preset). Before the next game the French duties apply: the SHITHEAD deals and gives
their best card to the MASTA, the MASTA gives the SHITHEAD a card of their choice, and the
player left of the dealer starts. The MASTA may give the SHITHEAD an order; the PEUPLE and the
VICE-MASTA vote whether it serves the general interest, the VICE-MASTA breaking a tie.

All of it lives in the table's event log (`duty`, `order`, `vote` events, see
docs/architecture.md). `EveningBook` is the incremental state the table referee keeps while it
replays the log; `referee.evening_view.Evening` is the read-only facade the web page and the
CLI use (apart, since it builds on the table referee, which builds on this module).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import product

from referee.events import EventError

MASTA, VICE, PEUPLE, SHITHEAD = "MASTA", "VICE-MASTA", "PEUPLE", "SHITHEAD"
TITLES = (MASTA, VICE, PEUPLE, SHITHEAD)


def titles_for(order: list[str]) -> dict[str, str]:
    """Titles from a finishing order (first out first, the loser last).

    The first out is MASTA, the second VICE-MASTA (from three players), the last SHITHEAD and
    everyone between PEUPLE.
    """
    n = len(order)
    out: dict[str, str] = {}
    for i, name in enumerate(order):
        if i == 0:
            out[name] = MASTA
        elif i == n - 1:
            out[name] = SHITHEAD
        elif i == 1:
            out[name] = VICE
        else:
            out[name] = PEUPLE
    return out


@dataclass
class GameResult:
    """One finished game: its number, the `setup` event, seats and finishing order."""

    game: int
    setup_seq: int
    players: list[str]
    order: list[str]
    end_seq: int
    #: the open assumptions (`referee.assume`) the order rests on, nobody having said: the
    #: titles are given all the same, said to rest on them
    assumed: list[str] = field(default_factory=list)

    @property
    def titles(self) -> dict[str, str]:
        return titles_for(self.order)

    def holder(self, title: str) -> str | None:
        return next((p for p, t in self.titles.items() if t == title), None)

    def to_dict(self) -> dict:
        return {"game": self.game, "setup": self.setup_seq, "players": list(self.players),
                "order": list(self.order), "titles": self.titles, "end": self.end_seq,
                **({"assumed": len(self.assumed)} if self.assumed else {})}


@dataclass
class Order:
    """An order the MASTA gave the SHITHEAD, and the vote on whether it serves all."""

    seq: int
    game: int
    masta: str
    shithead: str
    text: str
    voters: list[str]
    vice: str | None
    votes: dict[str, bool] = field(default_factory=dict)
    vote_seqs: dict[str, int] = field(default_factory=dict)

    def outcome(self) -> bool | None:
        """True/False once the vote cannot change any more (VICE-MASTA breaks a tie), else None."""
        missing = [v for v in self.voters if v not in self.votes]
        results = set()
        for extra in product((True, False), repeat=len(missing)):
            votes = dict(self.votes, **dict(zip(missing, extra)))
            results.add(self._tally(votes))
        return results.pop() if len(results) == 1 else None

    def _tally(self, votes: dict[str, bool]) -> bool:
        yes = sum(votes.values())
        no = len(votes) - yes
        if yes != no:
            return yes > no
        if self.vice is not None and self.vice in votes:
            return votes[self.vice]
        return True  # nobody may vote (two players): the order stands

    def to_dict(self) -> dict:
        out = self.outcome()
        return {"seq": self.seq, "game": self.game, "masta": self.masta, "to": self.shithead,
                "text": self.text, "voters": list(self.voters),
                "votes": dict(self.votes), "decided": out is not None,
                "serves": out, "missing": [v for v in self.voters if v not in self.votes]}


@dataclass
class EveningBook:
    """Incremental evening state, fed by the table referee in log order.

    `check_*` methods raise `EventError` for events the grades do not allow; the referee
    calls them before appending, so a refused event leaves the log intact.
    """

    results: list[GameResult] = field(default_factory=list)
    orders: dict[int, Order] = field(default_factory=dict)
    duties_done: dict[int, dict[str, int]] = field(default_factory=dict)  # game -> duty -> seq
    current_game: int | None = None
    current_players: list[str] = field(default_factory=list)
    current_dealer: str | None = None
    current_setup_seq: int | None = None

    # -- the previous game's grades, which oblige the current/next one ------------------------
    def last_result(self) -> GameResult | None:
        return self.results[-1] if self.results else None

    def duty_result(self) -> GameResult | None:
        """The finished game before the current one, whose grades oblige it."""
        if self.current_setup_seq is None:
            return None
        prior = [r for r in self.results if r.setup_seq < self.current_setup_seq]
        return prior[-1] if prior else None

    def setup(self, event: dict) -> list[dict]:
        """A new game: record it and say whether the SHITHEAD dealt as the duty wants."""
        prev = self.last_result()
        self.current_game = event["game"]
        self.current_players = list(event["players"])
        self.current_dealer = event["dealer"]
        self.current_setup_seq = event["seq"]
        self.duties_done.setdefault(event["game"], {})
        out: list[dict] = []
        if prev is not None:
            sh = prev.holder(SHITHEAD)
            if sh in event["players"] and event["dealer"] != sh:
                out.append({"kind": "duty_broken", "duty": "deal", "event": event["seq"],
                            "player": sh,
                            "text": f"{sh} is the SHITHEAD of game {prev.game} and should deal, "
                                    f"but {event['dealer']} dealt"})
        return out

    def check_duty(self, event: dict, game_started: bool) -> None:
        prev = self.duty_result()
        if prev is None or self.current_game is None:
            raise EventError(f"duty event {event['seq']}: duties follow a finished game and are "
                             f"done after the next game's deal; there is no finished game yet",
                             seq=event["seq"])
        if game_started:
            raise EventError(f"duty event {event['seq']}: duties are done before the first play "
                             f"of game {self.current_game}", seq=event["seq"])
        masta, sh = prev.holder(MASTA), prev.holder(SHITHEAD)
        giver, taker = (sh, masta) if event["duty"] == "best_card" else (masta, sh)
        what = ("the SHITHEAD gives the best card to the MASTA" if event["duty"] == "best_card"
                else "the MASTA gives the SHITHEAD a card")
        if (event["player"], event["to"]) != (giver, taker):
            raise EventError(f"duty event {event['seq']}: {event['duty']} means {what} "
                             f"({giver} to {taker}), not {event['player']} to {event['to']}",
                             seq=event["seq"])
        if event["duty"] in self.duties_done.get(self.current_game, {}):
            raise EventError(f"duty event {event['seq']}: {event['duty']} was already done at "
                             f"event {self.duties_done[self.current_game][event['duty']]}",
                             seq=event["seq"])

    def duty(self, event: dict) -> list[dict]:
        self.duties_done.setdefault(self.current_game, {})[event["duty"]] = event["seq"]
        return [{"kind": "duty_done", "duty": event["duty"], "event": event["seq"],
                 "player": event["player"], "to": event["to"]}]

    def pending_duties(self, game_started: bool = False) -> list[dict]:
        """Duties still owed: after a game ends all three (deal, best card, gift); once the
        next game is dealt, those not yet done until its first play."""
        last = self.last_result()
        if last is None:
            return []
        if self.current_setup_seq is None or last.setup_seq == self.current_setup_seq:
            masta, sh = last.holder(MASTA), last.holder(SHITHEAD)  # next game not set up yet
            return [{"duty": "deal", "player": sh, "text": f"{sh} (SHITHEAD) shuffles and deals"},
                    _duty_row("best_card", sh, masta), _duty_row("gift", masta, sh)]
        prev = self.duty_result()
        if prev is None or game_started:
            return []
        masta, sh = prev.holder(MASTA), prev.holder(SHITHEAD)
        if sh not in self.current_players or masta not in self.current_players:
            return []
        done = self.duties_done.get(self.current_game, {})
        out = []
        if "best_card" not in done:
            out.append(_duty_row("best_card", sh, masta))
        if "gift" not in done:
            out.append(_duty_row("gift", masta, sh))
        return out

    def game_over(self, result: GameResult) -> list[dict]:
        self.results.append(result)
        out = {"kind": "game_over", "game": result.game, "event": result.end_seq,
               "order": list(result.order), "titles": result.titles}
        if result.assumed:  # the titles rest on what nobody confirmed: said so
            out["assumed"] = len(result.assumed)
            out["text"] = ("Game over: " + ", ".join(f"{t} {p}" for p, t in result.titles.items())
                           + f" (resting on {len(result.assumed)} assumption(s) nobody confirmed)")
        return [out]

    # -- orders and votes -------------------------------------------------------------------
    def check_order(self, event: dict) -> None:
        prev = self.last_result()
        if prev is None:
            raise EventError(f"order event {event['seq']}: only the MASTA gives orders, and no "
                             f"game has ended yet", seq=event["seq"])
        masta, sh = prev.holder(MASTA), prev.holder(SHITHEAD)
        if event["player"] != masta:
            raise EventError(f"order event {event['seq']}: only the MASTA ({masta}) may give "
                             f"the SHITHEAD an order, not {event['player']}", seq=event["seq"])
        if event.get("to", sh) != sh:
            raise EventError(f"order event {event['seq']}: the MASTA's orders go to the "
                             f"SHITHEAD ({sh}), not {event['to']}", seq=event["seq"])

    def order(self, event: dict) -> list[dict]:
        prev = self.last_result()
        titles = prev.titles
        voters = [p for p in prev.order if titles[p] in (VICE, PEUPLE)]
        o = Order(seq=event["seq"], game=prev.game, masta=prev.holder(MASTA),
                  shithead=prev.holder(SHITHEAD), text=event["text"], voters=voters,
                  vice=prev.holder(VICE))
        self.orders[o.seq] = o
        return [dict(o.to_dict(), kind="order", event=event["seq"])]

    def check_vote(self, event: dict) -> None:
        o = self.orders.get(event["order"])
        if o is None:
            raise EventError(f"vote event {event['seq']}: event {event['order']} is not an "
                             f"order", seq=event["seq"])
        if event["player"] not in o.voters:
            who = ", ".join(o.voters) or "nobody (two players)"
            raise EventError(f"vote event {event['seq']}: {event['player']} may not vote on "
                             f"order {o.seq}; the PEUPLE and the VICE-MASTA vote: {who}",
                             seq=event["seq"])
        if event["player"] in o.votes:
            raise EventError(f"vote event {event['seq']}: {event['player']} already voted on "
                             f"order {o.seq} at event {o.vote_seqs[event['player']]}; one vote "
                             f"per player", seq=event["seq"])

    def vote(self, event: dict) -> list[dict]:
        o = self.orders[event["order"]]
        before = o.outcome()
        o.votes[event["player"]] = event["serves"]
        o.vote_seqs[event["player"]] = event["seq"]
        after = o.outcome()
        out = [{"kind": "vote", "event": event["seq"], "order": o.seq,
                "player": event["player"], "serves": event["serves"]}]
        if before is None and after is not None:
            out.append(dict(o.to_dict(), kind="order_decided", event=event["seq"]))
        return out


def _duty_row(duty: str, player: str, to: str) -> dict:
    text = (f"{player} (SHITHEAD) gives their best card to {to} (MASTA)" if duty == "best_card"
            else f"{player} (MASTA) gives {to} (SHITHEAD) a card of their choice")
    return {"duty": duty, "player": player, "to": to, "text": text}


# --- standings and ratings ------------------------------------------------------------------

def standings(results: Iterable[GameResult]) -> list[dict]:
    """Per player: games, titles won, streaks and average finishing place (1 = MASTA).

    Sorted by times MASTA, then fewer SHITHEADs, then average place.
    """
    table: dict[str, dict] = {}
    for r in results:
        titles = r.titles
        for place, name in enumerate(r.order, start=1):
            s = table.setdefault(name, {"player": name, "games": 0, MASTA: 0, VICE: 0,
                                        PEUPLE: 0, SHITHEAD: 0, "_places": 0,
                                        "streak": None, "best_masta_streak": 0})
            s["games"] += 1
            s["_places"] += place
            title = titles[name]
            s[title] += 1
            st = s["streak"]
            s["streak"] = ({"title": title, "games": st["games"] + 1}
                           if st and st["title"] == title else {"title": title, "games": 1})
            if title == MASTA:
                s["best_masta_streak"] = max(s["best_masta_streak"], s["streak"]["games"])
    rows = []
    for s in table.values():
        s["average_place"] = round(s.pop("_places") / s["games"], 3)
        rows.append(s)
    rows.sort(key=lambda s: (-s[MASTA], s[SHITHEAD], s["average_place"], s["player"]))
    return rows


def ratings(results: Iterable[GameResult]) -> list[dict]:
    """Openskill Plackett-Luce ratings from the finishing orders (one team per player).

    `ordinal` (mu - 3 sigma) is the conservative figure to rank by; sorted best first.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, object] = {}
    played: dict[str, int] = {}
    for r in results:
        teams = [[current.get(p) or model.rating(name=p)] for p in r.order]
        rated = model.rate(teams, ranks=list(range(1, len(r.order) + 1)))
        for p, team in zip(r.order, rated):
            current[p] = team[0]
            played[p] = played.get(p, 0) + 1
    rows = [{"player": p, "mu": round(rt.mu, 4), "sigma": round(rt.sigma, 4),
             "ordinal": round(rt.ordinal(), 4), "games": played[p]}
            for p, rt in current.items()]
    rows.sort(key=lambda d: (-d["ordinal"], d["player"]))
    return rows
