"""The full-information Shithead engine, shaped like python-chess.

`GameState.new(preset, players, seed)` deals; `swap()` exchanges hand and face-up cards
before play; `legal_plays()` lists the plays of the player to move; `push(play)` applies a
play and `pop()` undoes it exactly; `judge(play)` returns a `Ruling` and never raises on a
bad play.  `turbo_plays()` lists the out-of-turn plays other players could make.

Why the hot path looks the way it does: a simulated game is a few hundred pushes, so a
push keeps the requirement, effective top and four-of-a-kind run incrementally (the
`referee.pile` functions recompute them from the pot, and the tests check both agree),
and its undo record copies only the few lists the play touches (one player's zones, the
pot, the stock), never the whole state.

Seats are numbered 0..n-1 clockwise; "left of" a player is the next seat clockwise.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import NamedTuple

from referee.cards import ALL_CARD_IDS, RANK_VALUE, build_deck, parse_card, rank_of
from referee.pile import (ANY_REQ, COUNTER, Compiled, Requirement, compiled, judge_on_pile,
                          requirement as pile_requirement, effective_top, four_run)
from referee.rules import Preset, load_preset
from referee.ruling import ILLEGAL, LEGAL, PENALTY, Reason, Ruling

__all__ = ["Play", "GameState", "HAND", "UP", "DOWN"]

HAND, UP, DOWN = "hand", "up", "down"
RANK = {c: rank_of(c) for c in ALL_CARD_IDS}


class Play(NamedTuple):
    """One move: cards of one rank from one place (or a straight), or a pick-up.

    `player` defaults to the player to move; `target` is who gets the pot after a card
    that gives it away (an Ace in `fr`); `turbo` marks an out-of-turn play.
    (A named tuple rather than a dataclass: a simulated game creates thousands.)
    """
    cards: tuple[str, ...] = ()
    source: str = HAND
    player: int | None = None
    target: int | None = None
    pickup: bool = False
    turbo: bool = False

    @staticmethod
    def pick_up(player: int | None = None) -> "Play":
        return Play((), HAND, player, None, True, False)

    def __str__(self) -> str:
        who = "" if self.player is None else f"P{self.player} "
        if self.pickup:
            return f"{who}picks up"
        s = f"{who}{' '.join(self.cards)}"
        if self.source != HAND:
            s += f" ({self.source})"
        if self.target is not None:
            s += f" -> P{self.target}"
        return s + (" TURBO" if self.turbo else "")


class GameState:
    """A whole game: every card's place, whose turn, the pot, finishing order."""

    def __init__(self, preset: Preset | str, players: int, *, dealer: int | None = None,
                 history: bool = True, decks: int | None = None):
        self.preset = load_preset(preset)
        self.c: Compiled = compiled(self.preset)
        t = self.preset.table
        if not t.players[0] <= players <= t.players[1]:
            raise ValueError(f"{self.preset.name} is played by {t.players[0]} to "
                             f"{t.players[1]} players, not {players}")
        self.n = players
        #: the decks the game is dealt from (the preset's count for the table by default)
        self.decks = t.decks_for(players) if decks is None else decks
        need, have = 3 * t.cards_per_layer * players, self.decks * (52 + t.jokers_per_deck)
        if self.decks < 1 or need > have:
            raise ValueError(f"{players} players of {self.preset.name} need {need} cards but "
                             f"{self.decks} deck(s) hold {have}: use at least "
                             f"{-(-need // (52 + t.jokers_per_deck))} deck(s)")
        self.dealer = players - 1 if dealer is None else dealer % players
        self.layer = t.cards_per_layer
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.up: list[list[str]] = [[] for _ in range(players)]
        self.down: list[list[str]] = [[] for _ in range(players)]
        self.stock: list[str] = []
        self.pile: list[str] = []
        self.out: list[str] = []          # burned, or removed from the game
        #: players in the order they went out; once the game is over, the final ranking
        #: (first = MASTA, last = SHITHEAD), with `last_places` moved to the end
        self.finished: list[int] = []
        self.last_places: list[int] = []  # out on a special card: ranked last
        self.active = [True] * players
        self.no_draw = [False] * players  # strict pick-up: next draw skipped
        self.burns_by = [0] * players
        self.turn = (self.dealer + 1) % players
        self.direction = 1
        self.req: Requirement = ANY_REQ
        self.eff: str | None = None       # effective top rank
        self.run_rank: str | None = None
        self.run_n = 0
        self.target: int | None = None    # who must answer a give-pot card
        self.started = False              # exchange phase over
        self.start_rank: str | None = None  # the first play must be of this rank
        self.over = False
        self.burns = 0
        self.plays = 0
        self.pickups = 0
        self.history = history
        self._undo: list = []
        self.moves: list = []

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, preset: Preset | str = "fr", players: int = 4, seed: int | None = None, *,
            rng: random.Random | None = None, dealer: int | None = None,
            history: bool = True, decks: int | None = None) -> "GameState":
        """Shuffle and deal: face-down, face-up, then the hand, the rest is the stock."""
        g = cls(preset, players, dealer=dealer, history=history, decks=decks)
        rng = rng or random.Random(seed)
        t = g.preset.table
        deck = build_deck(g.decks, t.jokers_per_deck)
        rng.shuffle(deck)
        k = g.layer
        for zone in (g.down, g.up, g.hands):
            for _ in range(k):
                for p in range(players):
                    zone[p].append(deck.pop())
        g.stock = deck
        return g

    @classmethod
    def from_layout(cls, preset: Preset | str, hands: list[list[str]],
                    up: list[list[str]] | None = None, down: list[list[str]] | None = None,
                    stock: list[str] | None = None, pile: list[str] | None = None,
                    turn: int = 0, out: list[str] | None = None, started: bool = True,
                    dealer: int | None = None, decks: int | None = None) -> "GameState":
        """A game in progress, from explicit zones (for tests, scenarios and `masta rule`)."""
        n = len(hands)
        g = cls(preset, n, dealer=dealer, decks=decks)
        g.hands = [[parse_card(c) for c in h] for h in hands]
        g.up = [[parse_card(c) for c in h] for h in (up or [[] for _ in range(n)])]
        g.down = [[parse_card(c) for c in h] for h in (down or [[] for _ in range(n)])]
        g.stock = [parse_card(c) for c in (stock or [])]
        g.pile = [parse_card(c) for c in (pile or [])]
        g.out = [parse_card(c) for c in (out or [])]
        g.turn = turn
        g.started = started
        g._recompute_pile()
        for p in range(n):
            if not (g.hands[p] or g.up[p] or g.down[p]):
                g.active[p] = False
                g.finished.append(p)
        return g

    @classmethod
    def for_one_player(cls, preset: Preset | str, players: int, *, hand: list[str],
                       up: list[str] = (), down: int = 0, blind: list[str] = (),
                       stock: int = 0, pile: list[str] = (),
                       others: list[list[str]] | None = None, first: bool = False,
                       decks: int | None = None) -> "GameState":
        """The position as one player (P0) knows it, to ask a ruling that hangs on it.

        P0 sits left of the dealer with `down` face-down cards (`blind`: those of them
        named, such as the blind card just turned); the other players are in the game with
        cards nobody named (`others`, their hands, says who starts a game begun with the
        lowest card). The stock and the unnamed face-down cards are cards of the decks that
        nobody named: only how many there are can matter to a ruling. `first`: the game's
        first play is asked.
        """
        others = [[] for _ in range(players - 1)] if others is None else others
        if len(others) != players - 1:
            raise ValueError(f"{len(others)} other hands for {players} players")
        g = cls(preset, players, dealer=players - 1, decks=decks)
        named = Counter([*hand, *up, *blind, *pile, *(c for h in others for c in h)])
        spare: list[str] = []
        for c in build_deck(g.decks, g.preset.table.jokers_per_deck):
            if named[c] > 0:
                named[c] -= 1
            else:
                spare.append(c)
        unnamed = down - len(blind)
        if unnamed < 0 or unnamed + stock > len(spare):
            raise ValueError(f"{down} face-down card(s) and a stock of {stock} do not fit "
                             f"the {len(spare)} card(s) of the decks nobody named")
        g.hands = [list(hand)] + [list(h) for h in others]
        g.up = [list(up)] + [[] for _ in others]
        g.down = [list(blind) + spare[:unnamed]] + [[] for _ in others]
        g.stock = spare[unnamed:unnamed + stock]
        g.pile = list(pile)
        g.turn, g.started = 0, not first
        g._recompute_pile()
        return g

    def _recompute_pile(self) -> None:
        p = self.preset
        self.req = pile_requirement(p, self.pile)
        top = effective_top(p, self.pile)
        self.eff = None if top is None else RANK[top]
        self.run_rank, self.run_n = four_run(p, self.pile)

    # ------------------------------------------------------------------ exchange, start
    def swap(self, player: int, hand_card: str, up_card: str) -> None:
        """Exchange a hand card with a face-up card, allowed only before play starts."""
        if self.started or not self.preset.table.exchange:
            raise ValueError("cards may only be exchanged before the game starts"
                             if self.preset.table.exchange else
                             f"{self.preset.name} has no exchange before play")
        h, u = self.hands[player], self.up[player]
        if hand_card not in h or up_card not in u:
            raise ValueError(f"P{player} holds {hand_card} in hand and {up_card} face up? "
                             f"hand {h}, face-up {u}")
        self._save(("swap", player), [h, u])
        h[h.index(hand_card)] = up_card
        u[u.index(up_card)] = hand_card

    def begin(self) -> None:
        """End the exchange and decide who starts (left of the dealer, or lowest card)."""
        if self.started:
            return
        self._save(("begin",), [])
        self.started = True
        t = self.preset.table
        if t.start != "lowest":
            self.turn = (self.dealer + 1) % self.n
            return
        order = t.start_suit_order
        v0 = RANK_VALUE[t.start_rank]
        for r in sorted((r for r in RANK_VALUE if r != "JK" and RANK_VALUE[r] >= v0),
                        key=RANK_VALUE.__getitem__):
            if t.start_skip_special and r in self.c.special:
                continue
            best = None
            for p in range(self.n):
                for card in self.hands[p]:
                    if RANK[card] == r:
                        key = order.index(card[-1])
                        if best is None or key < best[0]:
                            best = (key, p)
            if best is not None:
                self.turn = best[1]
                if t.start_must_play:
                    self.start_rank = r
                return
        self.turn = (self.dealer + 1) % self.n

    # ------------------------------------------------------------------ queries
    def phase(self, player: int | None = None) -> str:
        """Where the player plays from: "hand", "up", "down" or "out"."""
        p = self.turn if player is None else player
        if self.hands[p] or self.stock:
            return HAND
        if self.up[p]:
            return UP
        if self.down[p]:
            return DOWN
        return "out"

    def cards_left(self, p: int) -> int:
        return len(self.hands[p]) + len(self.up[p]) + len(self.down[p])

    @property
    def loser(self) -> int | None:
        return self.finished[-1] if self.over else None

    def all_cards(self) -> list[str]:
        """Every card in the game, wherever it lies (for conservation checks)."""
        out = self.stock + self.pile + self.out
        for p in range(self.n):
            out += self.hands[p] + self.up[p] + self.down[p]
        return out

    def _next(self, p: int, steps: int = 1) -> int:
        """The seat `steps` active players after `p` in the direction of play."""
        n, d, act = self.n, self.direction, self.active
        if not any(act):
            return p
        while steps > 0:
            p = (p + d) % n
            if act[p]:
                steps -= 1
        return p

    def _would_finish(self, p: int, k: int, source: str) -> bool:
        if self.stock:
            return False
        if source == HAND:
            return len(self.hands[p]) == k and not self.up[p] and not self.down[p]
        if source == UP:
            return len(self.up[p]) == k and not self.down[p] and not self.hands[p]
        return len(self.down[p]) == 1 and not self.hands[p] and not self.up[p]

    def legal_plays(self) -> list[Play]:
        """Every legal play of the player to move (one per rank and count: suits never
        matter to the rules), the pick-up when forced or allowed, one play per blind card."""
        if self.over:
            return []
        if not self.started:
            self.begin()
        p = self.turn
        c = self.c
        req, eff = self.req, self.eff
        fits = c.fits_req
        hand = self.hands[p]
        plays: list[Play] = []
        if hand or self.stock:
            zone, src = hand, HAND
        elif self.up[p]:
            zone, src = self.up[p], UP
        else:
            zone, src = None, DOWN
        targets = None
        if zone is None:
            for card in self.down[p]:
                r = RANK[card]
                if c.give_pot[eff if c.mirror[r] and eff else r] and fits(r, req, eff):
                    targets = targets or [q for q in range(self.n) if q != p and self.active[q]]
                    plays.extend(Play((card,), DOWN, p, q) for q in targets)
                else:
                    plays.append(Play((card,), DOWN, p))
            if self.pile and self.preset.table.voluntary_pickup:
                plays.append(Play((), HAND, p, None, True))
            return plays
        groups: dict[str, list[str]] = {}
        for card in zone:
            r = RANK[card]
            g = groups.get(r)
            if g is None:
                groups[r] = [card]
            else:
                g.append(card)
        start_rank = self.start_rank
        for r, cards in groups.items():
            if start_rank is not None and r != start_rank:
                continue
            if not fits(r, req, eff):
                continue
            k_all = len(cards)
            for k in range(1, k_all + 1):
                cs = tuple(cards[:k])
                gives = c.give_pot[eff if c.mirror[r] and eff else r]
                if gives and not (c.four and not c.four_skipped[r] and r == self.run_rank
                                  and self.run_n + k >= c.four):
                    targets = targets or [q for q in range(self.n) if q != p and self.active[q]]
                    plays.extend(Play(cs, src, p, q) for q in targets)
                else:
                    plays.append(Play(cs, src, p))
        if c.straights and start_rank is None:
            plays.extend(self._straights(p, groups, src))
        if not plays or (self.pile and self.preset.table.voluntary_pickup):
            plays.append(Play((), HAND, p, None, True))
        return plays

    def _straights(self, p: int, groups: dict[str, list[str]], src: str) -> list[Play]:
        c = self.c
        scale = self.preset.table.straight_scale
        m = self.preset.table.straight_min
        out = []
        for i in range(len(scale)):
            if scale[i] not in groups or not c.fits_req(scale[i], self.req, self.eff):
                continue
            j = i
            while j + 1 < len(scale) and scale[j + 1] in groups:
                j += 1
                if j - i + 1 >= m:
                    cs = tuple(groups[scale[x]][0] for x in range(i, j + 1))
                    r = scale[j]
                    if c.give_pot[r]:
                        out.extend(Play(cs, src, p, q) for q in range(self.n)
                                   if q != p and self.active[q])
                    else:
                        out.append(Play(cs, src, p))
        return out

    def turbo_plays(self) -> list[Play]:
        """Out-of-turn plays other players could make now (Turbo / completing four)."""
        t = self.preset.table
        if self.over or t.turbo == "off" or not self.pile or not self.started:
            return []
        c = self.c
        top = RANK[self.pile[-1]]
        if t.turbo == "same_rank" and top not in c.turbo_ranks:
            return []  # the common case, answered before looking at any hand
        if t.turbo == "complete_four" and (self.run_rank != top or not c.four):
            return []
        out = []
        for q in range(self.n):
            if q == self.turn or not self.active[q] or not self.hands[q]:
                continue
            same = [x for x in self.hands[q] if RANK[x] == top]
            if not same:
                continue
            if t.turbo == "same_rank":
                if top not in c.turbo_ranks or not c.fits_req(top, self.req, self.eff):
                    continue
                for k in range(1, len(same) + 1):
                    out.append(Play(tuple(same[:k]), HAND, q, None, False, True))
            else:
                if (not c.four or self.run_rank != top or c.four_skipped[top]
                        or not c.fits_req(top, self.req, self.eff)):
                    continue
                k = c.four - self.run_n
                if 0 < k <= len(same):
                    out.append(Play(tuple(same[:k]), HAND, q, None, False, True))
        return out

    # ------------------------------------------------------------------ judging
    def judge(self, play: Play) -> Ruling:
        """The ruling on `play` in this state.  Never raises on a bad play."""
        pr = self.preset
        nxt = str(self.req)

        def bad(code: str, text: str, rule: str = "", verdict: str = ILLEGAL) -> Ruling:
            return Ruling(verdict, [Reason(code, text, rule)], [], nxt, list(self.pile))

        if self.over:
            return bad("game_over", "the game is over")
        try:
            cards = [parse_card(x) for x in play.cards]
        except ValueError as exc:
            return bad("unknown_card", str(exc))
        p = self.turn if play.player is None else play.player
        if not isinstance(p, int) or not 0 <= p < self.n:
            return bad("no_such_player", f"there is no player {p!r}")
        if not self.active[p]:
            return bad("player_out", f"P{p} has already finished")
        if play.turbo and p == self.turn:
            play = Play(play.cards, play.source, p, play.target, play.pickup, False)
        if p != self.turn and not play.turbo:
            return bad("not_your_turn", f"it is P{self.turn}'s turn, not P{p}'s")
        legal_now = [x for x in self.legal_plays() if not x.pickup] if p == self.turn else []
        if play.pickup:
            if p != self.turn:
                return bad("not_your_turn", f"it is P{self.turn}'s turn, not P{p}'s")
            from referee.pile import judge_pickup
            return judge_pickup(pr, self.pile, could_play=bool(legal_now))
        if not cards:
            return bad("empty_play", "no card was played")
        src = play.source
        if play.turbo:
            if src != HAND:
                return bad("turbo_hand", "a Turbo is played from the hand", pr.citation("turbo"))
        else:
            ph = self.phase(p)
            if src != ph:
                key = {HAND: "phases", UP: "face_up", DOWN: "blind"}[ph]
                return bad("wrong_phase", f"P{p} must play from the {ph} now, not the {src}",
                           pr.citation(key if ph != HAND or not self.stock else "phases"))
        zone = {HAND: self.hands, UP: self.up, DOWN: self.down}.get(src)
        if zone is None:
            return bad("bad_source", f"unknown source {src!r}: use hand, up or down")
        have = list(zone[p])
        for x in cards:
            if x not in have:
                return bad("not_held", f"P{p} has no {x} in their {src}")
            have.remove(x)
        if self.start_rank is not None and not play.turbo and RANK[cards[0]] != self.start_rank:
            return bad("start_rank", f"the first play must be the starting card's rank "
                       f"({self.start_rank})", pr.citation("start"))
        ruling = judge_on_pile(pr, self.pile, cards, phase=src, turbo=play.turbo,
                               decks=self.decks)
        if ruling.verdict == LEGAL and self.req.kind == COUNTER and play.turbo:
            return bad("turbo_pending", "no Turbo while a player must answer", pr.citation("turbo"))
        if ruling.verdict == LEGAL and pr.table.no_finish_on_special and not play.turbo:
            r = RANK[cards[-1]] if len(cards) == 1 else max((RANK[x] for x in cards),
                                                          key=lambda r: self.c.scale_index.get(r, 0))
            if r in self.c.special and self._would_finish(p, len(cards), src):
                ruling.verdict = PENALTY
                ruling.reasons.append(Reason(
                    "no_finish_on_special", f"P{p} may not finish on {r}, a special card: "
                    "doing so makes P{p} the Shithead".replace("P{p}", f"P{p}"),
                    pr.citation("no_finish_on_special")))
        if ruling.verdict == LEGAL and "give_pot" in ruling.effects:
            tg = play.target
            if tg is None:
                return bad("target_missing", "say who gets the pot",
                           pr.citation(f"rank:{RANK[cards[-1]]}"))
            if not (isinstance(tg, int) and 0 <= tg < self.n and tg != p and self.active[tg]):
                return bad("target_invalid", f"P{tg} cannot be given the pot (choose another "
                           "player still in the game)", pr.citation(f"rank:{RANK[cards[-1]]}"))
        return ruling

    # ------------------------------------------------------------------ moves
    def _save(self, move, lists: list[list]) -> None:
        if not self.history:
            return
        self._undo.append((move, (self.turn, self.direction, self.req, self.eff,
                                  self.run_rank, self.run_n, self.target, self.started,
                                  self.start_rank, self.over, self.burns, self.plays,
                                  self.pickups),
                           [(lst, lst[:]) for lst in lists]))

    def pop(self):
        """Undo the last push / swap / begin exactly; returns what was undone."""
        move, sc, saved = self._undo.pop()
        (self.turn, self.direction, self.req, self.eff, self.run_rank, self.run_n,
         self.target, self.started, self.start_rank, self.over, self.burns, self.plays,
         self.pickups) = sc
        for lst, old in saved:
            lst[:] = old
        if self.moves and self.moves[-1] is move:
            self.moves.pop()
        return move

    def push(self, play: Play) -> None:
        """Apply a play, trusting it is legal (as from `legal_plays`; check with `judge`).

        A blind card that does not fit is applied as the penalty: picked up with the pot.
        """
        if not self.started:
            self.begin()
        p = self.turn if play.player is None else play.player
        c = self.c
        if self.history:
            self._save(play, [self.hands[p], self.up[p], self.down[p], self.pile, self.stock,
                              self.out, self.finished, self.active, self.no_draw,
                              self.burns_by, self.last_places])
            self.moves.append(play)
        self.plays += 1
        if play.pickup:
            self._pick_up(p)
            self.turn = self._next(p)
            return
        cards = play.cards
        src = play.source
        zone = self.hands[p] if src == HAND else self.up[p] if src == UP else self.down[p]
        for x in cards:
            zone.remove(x)
        k = len(cards)
        r = RANK[cards[0]]
        if len(cards) > 1 and RANK[cards[-1]] != r:   # a straight, lowest first
            cards = tuple(sorted(cards, key=lambda x: c.scale_index[RANK[x]]))
            r = RANK[cards[-1]]
            k = 1
        if src == DOWN:
            if not c.fits_req(r, self.req, self.eff):
                self.pile.append(cards[0])
                self._pick_up(p)
                self.turn = self._next(p)
                return
        self.start_rank = None
        self.target = None
        pile = self.pile
        straight = len(play.cards) != k
        if straight:  # the lower cards land first, the highest acts as the play
            pile.extend(cards[:-1])
            top = effective_top(self.preset, pile)
            self.eff = None if top is None else RANK[top]
            cards = cards[-1:]
        eff_before = self.eff
        pile.extend(cards)
        # whose power the play has: its own, or a mirror's copy of the effective top
        pr = r if not c.mirror[r] else eff_before
        if not c.see_through[r]:
            self.eff = r
        if straight:  # recount the run from the pot
            self.run_rank, self.run_n = four_run(self.preset, pile)
        elif not c.four_skipped[r]:
            if r == self.run_rank:
                self.run_n += k
            else:
                self.run_rank, self.run_n = r, k
        burn = (pr is not None and c.burn[pr]) or (c.four and self.run_n >= c.four)
        if play.turbo and p != self.turn:
            if burn:
                self._burn(p)
                self._after_play(p, r)
                if self.active[p] and self.preset.table.burn_plays_again:
                    self.turn = p
                elif not self.active[self.turn]:
                    self.turn = self._next(self.turn)
                return
            self.req = c.req_after[self.eff] if self.eff else ANY_REQ
            self._after_play(p, r)
            if not self.over and not self.active[self.turn]:
                self.turn = self._next(self.turn)
            return
        if burn:
            self._burn(p)
            self._after_play(p, r)
            if not self.over:
                if self.preset.table.burn_plays_again:
                    self.turn = p if self.active[p] else self._next(p)
                else:
                    self.turn = self._next(p)
            return
        if pr is not None and c.pending[pr] and not c.transparent[r]:
            self.req = c.req_after[pr + "!"]
        else:
            self.req = c.req_after[self.eff] if self.eff else ANY_REQ
        self._after_play(p, r)
        if self.over:
            return
        if pr is None:
            self.turn = self._next(p)
            return
        if c.reverse[pr] and k % 2 == 1:
            self.direction = -self.direction
        if c.give_pot[pr] and play.target is not None and self.active[play.target]:
            self.target = play.target
            self.turn = play.target
            return
        self.turn = self._next(p, 1 + c.skip[pr] * k)

    def _after_play(self, p: int, r: str) -> None:
        """Draw back up to the layer size, then see whether the player is out.

        Where a preset forbids finishing on a special card, a player who does finish on
        one (rank `r`) is out as the Shithead: placed last, behind everyone still playing.
        """
        hand = self.hands[p]
        stock = self.stock
        if stock and len(hand) < self.layer:
            if self.no_draw[p] and hand:
                self.no_draw[p] = False
            else:
                while stock and len(hand) < self.layer:
                    hand.append(stock.pop())
        if not hand and not stock and not self.up[p] and not self.down[p]:
            self.active[p] = False
            self.finished.append(p)  # in the order players go out, until the game ends
            if self.preset.table.no_finish_on_special and r in self.c.special:
                self.last_places.append(p)
            left = [q for q in range(self.n) if self.active[q]]
            if len(left) <= 1:
                # the final order: winners, the last one playing, then (last of all)
                # whoever went out on a special card, the first of them last
                winners = [q for q in self.finished if q not in self.last_places]
                self.finished[:] = winners + left + self.last_places[::-1]
                for q in left:
                    self.active[q] = False
                self.over = True

    def _burn(self, p: int) -> None:
        self.out.extend(self.pile)
        self.pile.clear()
        self.burns += 1
        self.burns_by[p] += 1
        self.req, self.eff, self.run_rank, self.run_n = ANY_REQ, None, None, 0
        self.target = None

    def _pick_up(self, p: int) -> None:
        c = self.c
        if self.pile:
            self.pickups += 1
            for x in self.pile:
                (self.out if c.removed[RANK[x]] else self.hands[p]).append(x)
            self.pile.clear()
            if self.stock and self.preset.table.strict_pickup:
                self.no_draw[p] = True
        self.req, self.eff, self.run_rank, self.run_n = ANY_REQ, None, None, 0
        self.target = None
        self.start_rank = None

    # ------------------------------------------------------------------ for tests
    def snapshot(self) -> tuple:
        """Everything that defines the state, as plain values (to compare states)."""
        return (tuple(map(tuple, self.hands)), tuple(map(tuple, self.up)),
                tuple(map(tuple, self.down)), tuple(self.stock), tuple(self.pile),
                tuple(self.out), tuple(self.finished), tuple(self.last_places),
                tuple(self.active),
                tuple(self.no_draw), tuple(self.burns_by), self.turn, self.direction,
                self.req, self.eff, self.run_rank, self.run_n, self.target, self.started,
                self.start_rank, self.over, self.burns, self.plays, self.pickups)

    def __str__(self) -> str:
        """A compact board: one line per player (* = to move), then the pot and stock."""
        lines = []
        for p in range(self.n):
            mark = "*" if p == self.turn and not self.over else " "
            state = "" if self.active[p] else f"  out #{self.finished.index(p) + 1}" \
                if p in self.finished else "  out"
            lines.append(f"{mark}P{p} hand [{' '.join(self.hands[p])}] up "
                         f"[{' '.join(self.up[p])}] down {len(self.down[p])}{state}")
        lines.append(f"pot [{' '.join(self.pile)}] next {self.req}; stock {len(self.stock)}; "
                     f"burned {len(self.out)}; {self.preset.name}, play {self.plays}"
                     + (" (over)" if self.over else ""))
        return "\n".join(lines)

    def position(self) -> tuple:
        """The snapshot without the counters: equal positions play on identically."""
        snap = self.snapshot()
        return snap[:10] + snap[11:-3]

    def forced_cycle(self, max_len: int = 64) -> bool:
        """Whether the rules force this position round in a loop: every move from here is
        the only legal one, until the very same position comes back (a game that cannot
        end, whatever the players do).  Leaves the state unchanged."""
        start = self.position()
        pushed = 0
        saved, self.history = self.history, True
        try:
            for _ in range(max_len):
                plays = self.legal_plays()
                if self.over or len(plays) != 1:
                    return False
                self.push(plays[0])
                pushed += 1
                if self.position() == start:
                    return True
            return False
        finally:
            for _ in range(pushed):
                self.pop()
            self.history = saved

    def grades(self) -> dict[int, str]:
        """The French grades once the game is over: MASTA, VICE-MASTA, PEUPLE, SHITHEAD."""
        if not self.over:
            return {}
        out = {}
        for i, p in enumerate(self.finished):
            out[p] = ("MASTA" if i == 0 else "SHITHEAD" if i == len(self.finished) - 1
                      else "VICE-MASTA" if i == 1 else "PEUPLE")
        return out
