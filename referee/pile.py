"""Judging a play from the pot alone: no hands, no turns, no stock.

This is what a table referee can know from a camera: the pot (bottom to top, since it was
last burned or picked up) and the cards that just landed on it.  Everything here is a pure
function of `(preset, pile, cards)`; the full-information engine (`referee.engine`) builds
on the same rules.

Stable API (the table referee relies on it):

- `judge_on_pile(preset, pile, cards, *, phase="hand", turbo=False, decks=None,
  deck_check=True) -> Ruling` never raises on a bad play; `phase` is where the cards come
  from: "hand", "up" (face-up) or "down" (a blind card: one card; if it does not fit the
  verdict is "penalty"). A card the game's decks cannot hold is "illegal" (`deck_check`).
- `deck_fault(preset, pile, cards, decks) -> Reason | None`: why these cards cannot be in
  the game (a joker the preset does not deal; more copies than `decks` decks hold).
- `effective_top(preset, pile) -> card | None`: the card that counts, looking through
  transparent and mirror cards (a 3 in `fr`, an 8 in `nl` and `palace`).
- `requirement(preset, pile) -> Requirement`; `str()` of it is the ruling's `next`:
  "any", ">= Q", "<= 7", "< 7", or "counter A 2 10 3 or pick up" (after an Ace in `fr`,
  a 3 in `sydney`: the player it hits must answer with one of those ranks or pick up), or
  "pick up" (a card nothing answers, such as the joker in `nl-joker-gives`).
- `fits(preset, pile, rank) -> bool`: may this rank go on this pot now.
- `burns(preset, pile_after) -> "burn_card" | "burn_four" | None`.
- `four_run(preset, pile) -> (rank, count)`: the run of one rank on top, counted the
  preset's way (cards that are "skipped" for four of a kind are looked through).
- `judge_pickup(preset, pile, *, could_play) -> Ruling`: is picking the pot up allowed.

`preset` may be a `Preset` or a preset name.  Cards are canonical ids (`referee.cards`);
unknown ids give an "illegal" ruling with the code `unknown_card`.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee.cards import JOKER, RANK_VALUE, UnknownCard, parse_card, rank_of
from referee.rules import RANK_ORDER, Preset, load_preset
from referee.ruling import ILLEGAL, LEGAL, PENALTY, Reason, Ruling

__all__ = ["Requirement", "Compiled", "compiled", "effective_top", "requirement", "fits",
           "burns", "four_run", "judge_on_pile", "deck_fault", "judge_pickup", "play_effects", "ANY"]

# requirement kinds
ANY, GE, LE, LT, COUNTER = 0, 1, 2, 3, 4
_KIND_TEXT = {GE: ">=", LE: "<=", LT: "<"}
_VALUE_RANK = {v: r for r, v in RANK_VALUE.items()}


@dataclass(frozen=True)
class Requirement:
    """What the next play must be.  `value` is a rank value (2..14), `rank` its name."""
    kind: int = ANY
    value: int = 0
    counter: frozenset[str] = frozenset()
    counter_order: tuple[str, ...] = ()

    @property
    def rank(self) -> str:
        return _VALUE_RANK.get(self.value, "")

    def __str__(self) -> str:
        if self.kind == ANY:
            return "any"
        if self.kind == COUNTER:
            if not self.counter_order:
                return "pick up"
            return f"counter {' '.join(self.counter_order)} or pick up"
        return f"{_KIND_TEXT[self.kind]} {self.rank}"


ANY_REQ = Requirement()


class Compiled:
    """Per-rank power tables precomputed from a preset, for the hot path."""

    def __init__(self, preset: Preset):
        p = preset
        self.preset = p
        rr = p.ranks
        R = RANK_ORDER
        self.value = {r: RANK_VALUE[r] for r in R}
        self.anywhere = {r: rr[r].anywhere for r in R}
        self.not_on = {r: frozenset(rr[r].not_on) for r in R}
        self.only_on_lower = {r: rr[r].only_on_lower for r in R}
        self.reset = {r: rr[r].reset for r in R}
        self.mirror = {r: rr[r].mirror for r in R}
        self.transparent = {r: rr[r].transparent for r in R}
        self.see_through = {r: rr[r].mirror or rr[r].transparent for r in R}
        self.lower = {r: {"": 0, "or_equal": LE, "strict": LT}[rr[r].lower] for r in R}
        self.skip = {r: rr[r].skip for r in R}
        self.burn = {r: rr[r].burn for r in R}
        self.reverse = {r: rr[r].reverse for r in R}
        self.give_pot = {r: rr[r].give_pot for r in R}
        self.picks_up = {r: rr[r].next_picks_up for r in R}
        self.pending = {r: rr[r].give_pot or rr[r].next_picks_up for r in R}
        self.counter = {r: frozenset(rr[r].counter) for r in R}
        self.removed = {r: rr[r].removed_on_pickup for r in R}
        self.four_skipped = {r: rr[r].in_four == "skipped" for r in R}
        self.special = frozenset(p.special_ranks)
        t = p.table
        self.four = t.four_count if t.four_of_a_kind else 0
        self.turbo = t.turbo
        self.turbo_ranks = frozenset(t.turbo_ranks)
        self.straights = t.straights
        self.scale_index = {r: i for i, r in enumerate(t.straight_scale)}
        # the requirement a rank sets when it becomes the effective top
        self.req_after: dict[str, Requirement] = {}
        for r in R:
            if self.reset[r] or self.value[r] <= 2:
                self.req_after[r] = ANY_REQ
            elif self.lower[r]:
                self.req_after[r] = Requirement(self.lower[r], self.value[r])
            else:
                self.req_after[r] = Requirement(GE, self.value[r])
            if self.pending[r]:
                order = rr[r].counter
                self.req_after[r + "!"] = Requirement(COUNTER, self.value[r],
                                                      frozenset(order), order)

    def fits_req(self, rank: str, req: Requirement, eff_rank: str | None) -> bool:
        """May `rank` be played when the requirement is `req` over effective top `eff_rank`."""
        if req.kind == COUNTER:
            return rank in req.counter
        if self.anywhere[rank]:
            return eff_rank is None or eff_rank not in self.not_on[rank]
        if (self.only_on_lower[rank] and eff_rank is not None
                and self.value[eff_rank] >= self.value[rank]):
            return False
        k = req.kind
        if k == ANY:
            return True
        v = self.value[rank]
        if k == GE:
            return v >= req.value
        if k == LE:
            return v <= req.value
        return v < req.value


def compiled(preset: Preset | str) -> Compiled:
    """The compiled tables of a preset (built once, kept on the preset)."""
    p = load_preset(preset) if not isinstance(preset, Preset) else preset
    c = p.__dict__.get("_compiled")
    if c is None:
        c = Compiled(p)
        object.__setattr__(p, "_compiled", c)
    return c


# ----------------------------------------------------------------------------- the pot

def _rank(card: str) -> str:
    return rank_of(card)


def effective_top(preset: Preset | str, pile: list[str]) -> str | None:
    """The card that counts: the top card, looking through transparent and mirror cards."""
    c = compiled(preset)
    for card in reversed(pile):
        if not c.see_through[_rank(card)]:
            return card
    return None


def _power_rank(c: Compiled, pile: list[str], i: int) -> str | None:
    """Whose power the card at `pile[i]` has: its own, or (a mirror) the card it copies."""
    r = _rank(pile[i])
    if not c.mirror[r]:
        return r
    for j in range(i - 1, -1, -1):
        rj = _rank(pile[j])
        if not c.see_through[rj]:
            return rj
    return None


def requirement(preset: Preset | str, pile: list[str]) -> Requirement:
    """What the next play must be on this pot."""
    c = compiled(preset)
    if not pile:
        return ANY_REQ
    pr = _power_rank(c, pile, len(pile) - 1)
    if pr is not None and c.pending[pr] and not c.transparent[_rank(pile[-1])]:
        return c.req_after[pr + "!"]
    top = effective_top(c.preset, pile)
    return ANY_REQ if top is None else c.req_after[_rank(top)]


def fits(preset: Preset | str, pile: list[str], rank: str) -> bool:
    c = compiled(preset)
    top = effective_top(c.preset, pile)
    return c.fits_req(rank, requirement(c.preset, pile), None if top is None else _rank(top))


def four_run(preset: Preset | str, pile: list[str]) -> tuple[str | None, int]:
    """The rank on top and how many of it lie in a row, skipped ranks looked through."""
    c = compiled(preset)
    rank, n = None, 0
    for card in reversed(pile):
        r = _rank(card)
        if c.four_skipped[r]:
            continue
        if rank is None:
            rank = r
        if r != rank:
            break
        n += 1
    return rank, n


def burns(preset: Preset | str, pile_after: list[str]) -> str | None:
    """Why this pot burns now: "burn_card" (a 10), "burn_four" (four of a kind) or None."""
    c = compiled(preset)
    if not pile_after:
        return None
    pr = _power_rank(c, pile_after, len(pile_after) - 1)
    if pr is not None and c.burn[pr]:
        return "burn_card"
    if c.four:
        rank, n = four_run(c.preset, pile_after)
        if rank is not None and n >= c.four:
            return "burn_four"
    return None


# ----------------------------------------------------------------------------- judging

def _cite(p: Preset, key: str) -> str:
    return p.citation(key)


def _straight_order(c: Compiled, ranks: list[str]) -> list[str] | None:
    """The ranks of a straight from lowest to highest, or None if they make no straight."""
    idx = c.scale_index
    if any(r not in idx for r in ranks) or len(set(ranks)) != len(ranks):
        return None
    order = sorted(ranks, key=idx.__getitem__)
    for a, b in zip(order, order[1:]):
        if idx[b] != idx[a] + 1:
            return None
    return order


def _req_words(req: Requirement) -> str:
    if req.kind == ANY:
        return "anything may be played"
    if req.kind == COUNTER:
        return f"only {', '.join(req.counter_order)} may answer (or pick up the pot)"
    return {GE: f"the card must be {req.rank} or higher",
            LE: f"the card must be {req.rank} or lower",
            LT: f"the card must be lower than {req.rank}"}[req.kind]


def play_effects(c: Compiled, pile: list[str], rank: str, count: int,
                 pile_after: list[str]) -> tuple[list[str], list[Reason]]:
    """The effects of `count` cards of `rank` just laid on `pile` (giving `pile_after`)."""
    p = c.preset
    reasons: list[Reason] = []
    why = burns(p, pile_after)
    pr = rank if not c.mirror[rank] else _power_rank(c, pile_after, len(pile_after) - 1)
    if c.mirror[rank]:
        reasons.append(Reason("mirror", f"{rank} copies the card beneath it"
                              + (f" ({pr})" if pr else " (nothing: the pot was empty)"),
                              _cite(p, f"rank:{rank}")))
    if c.transparent[rank]:
        reasons.append(Reason("transparent", f"{rank} is transparent: the card beneath counts",
                              _cite(p, f"rank:{rank}")))
    if why:
        effects = ["burn"]
        if why == "burn_card":
            reasons.append(Reason("burn_card", f"{pr} burns the pot", _cite(p, f"rank:{pr}")))
        else:
            r4, n = four_run(p, pile_after)
            reasons.append(Reason("burn_four", f"{n} x {r4} in a row burn the pot",
                                  _cite(p, "four_of_a_kind")))
        if p.table.burn_plays_again:
            effects.append("again")
            reasons.append(Reason("again", "whoever burns the pot plays again",
                                  _cite(p, "burn_again") or _cite(p, "four_of_a_kind")))
        return effects, reasons
    effects: list[str] = []
    if pr is None:
        return effects, reasons
    if c.skip[pr]:
        n = c.skip[pr] * count
        effects.append(f"skip:{n}")
        reasons.append(Reason("skip", f"{n} player{'s' if n > 1 else ''} skipped",
                              _cite(p, f"rank:{pr}")))
    if c.reverse[pr] and count % 2 == 1:
        effects.append("reverse")
        reasons.append(Reason("reverse", "the direction of play reverses",
                              _cite(p, f"rank:{pr}")))
    if c.give_pot[pr]:
        effects.append("give_pot")
        answer = (f", who may answer with {' '.join(p.ranks[pr].counter)}"
                  if p.ranks[pr].counter else ", who must take it")
        reasons.append(Reason("give_pot", "the player gives the pot to a player of their "
                              f"choice{answer}", _cite(p, f"rank:{pr}")))
    if c.picks_up[pr]:
        effects.append("next_picks_up")
        reasons.append(Reason("next_picks_up", "the next player must pick up the pot unless "
                              f"they play {' or '.join(p.ranks[pr].counter) or 'nothing'}",
                              _cite(p, f"rank:{pr}")))
    if c.lower[pr] and not c.pending[pr]:
        reasons.append(Reason("lower", f"after {pr} the next play must be "
                              + ("lower than " if c.lower[pr] == LT else "at most ") + pr,
                              _cite(p, f"rank:{pr}")))
    if c.reset[pr]:
        reasons.append(Reason("reset", f"after {pr} anything may be played",
                              _cite(p, f"rank:{pr}")))
    return effects, reasons


def deck_fault(preset: Preset | str, pile: list[str], cards: list[str],
               decks: int | None = None) -> Reason | None:
    """Why `cards` cannot be played on `pile` from the game's decks, or None.

    A joker in a preset that deals none can never be in the game, whatever the number of
    decks; more copies of a card on the pot than `decks` decks hold (two KH in a one-deck
    game) are counted only when `decks` is known: the pot alone does not say it.
    """
    p = load_preset(preset)
    t = p.table
    if JOKER in cards and not t.jokers_per_deck:
        return Reason("not_in_deck", f"{JOKER} is not in the game: {p.name} is played with "
                      "decks of 52 cards, without jokers",
                      _cite(p, "jokers") or _cite(p, "decks"))
    if decks is None:
        return None
    for card in dict.fromkeys(cards):
        held = decks * (t.jokers_per_deck if card == JOKER else 1)
        played, before = cards.count(card), pile.count(card)
        if played + before > held:
            on_pot = f" on a pot that already holds {before}" if before else ""
            what = "jokers" if card == JOKER else card
            times = f" {played} times" if played > 1 else ""
            return Reason("too_many_copies", f"{card} played{times}{on_pot}, but {decks} deck"
                          f"{'s' if decks > 1 else ''} hold{'' if decks > 1 else 's'} "
                          f"only {held} {what}",
                          _cite(p, "jokers" if card == JOKER else "decks"))
    return None


def judge_on_pile(preset: Preset | str, pile: list[str], cards: list[str], *,
                  phase: str = "hand", turbo: bool = False, decks: int | None = None,
                  deck_check: bool = True) -> Ruling:
    """Judge `cards` laid together on `pile` (bottom to top).  Never raises on a bad play.

    `phase` is where the cards come from ("hand", "up", "down"); a "down" (blind) card
    that does not fit is a "penalty": the player picks it up with the pot.  `turbo` marks
    an out-of-turn play (the French Turbo, or completing four of a kind in `nl-v3`).
    A card the game cannot hold (`deck_fault`, counted over `decks` decks when given) is
    illegal; the table referee passes `deck_check=False`, since its ledger raises these as
    suspicions (a misread or a cheat) with the evidence.
    """
    try:
        p = load_preset(preset)
    except ValueError as exc:
        return Ruling(ILLEGAL, [Reason("unknown_preset", str(exc))], [], "any", list(pile))
    c = compiled(p)
    try:
        pile = [parse_card(x) for x in pile]
        cards = [parse_card(x) for x in cards]
    except UnknownCard as exc:
        return Ruling(ILLEGAL, [Reason("unknown_card", str(exc))], [], "any", list(pile))
    req = requirement(p, pile)
    nxt = str(req)

    def bad(code: str, text: str, rule: str = "", verdict: str = ILLEGAL) -> Ruling:
        return Ruling(verdict, [Reason(code, text, rule)], [], nxt, list(pile))

    if not cards:
        return bad("empty_play", "no card was played")
    if deck_check:
        fault = deck_fault(p, pile, cards, decks)
        if fault is not None:
            return Ruling(ILLEGAL, [fault], [], nxt, list(pile))
    ranks = [_rank(x) for x in cards]
    rank = ranks[0]
    order = None
    if len(set(ranks)) > 1:
        if c.straights and phase != "down" and not turbo:
            order = _straight_order(c, ranks)
        if order is None:
            if c.straights:
                return bad("not_straight", f"{' '.join(cards)} are neither one rank nor a "
                           f"straight of {p.table.straight_min}+ consecutive ranks",
                           _cite(p, "straights"))
            return bad("mixed_ranks", "cards played together must all be of one rank",
                       _cite(p, "multiple"))
        if len(order) < p.table.straight_min:
            return bad("not_straight", f"a straight needs at least {p.table.straight_min} "
                       "cards", _cite(p, "straights"))
    if phase == "down" and len(cards) != 1:
        return bad("blind_one_card", "face-down cards are played one at a time",
                   _cite(p, "blind"))
    reasons: list[Reason] = []
    top = effective_top(p, pile)
    eff_rank = None if top is None else _rank(top)
    if turbo:
        t = p.table
        if t.turbo == "off":
            return bad("turbo_off", f"{p.name} has no Turbo: nobody may play out of turn",
                       _cite(p, "turbo"))
        if not pile:
            return bad("turbo_empty", "a Turbo needs a card on the pot to match",
                       _cite(p, "turbo"))
        if t.turbo == "same_rank":
            if rank != _rank(pile[-1]):
                return bad("turbo_not_same", f"a Turbo must match the card just played "
                           f"({pile[-1]}), not {rank}", _cite(p, "turbo"))
            if rank not in c.turbo_ranks:
                return bad("turbo_rank", f"{rank} cannot be played as a Turbo (only "
                           f"{' '.join(t.turbo_ranks)})", _cite(p, "turbo"))
        else:  # complete_four
            after = pile + cards
            r4, n = four_run(p, after)
            if not c.four or r4 != rank or n < c.four:
                return bad("turbo_not_four", "out of turn a player may only complete four of"
                           " a kind", _cite(p, "turbo"))
        reasons.append(Reason("turbo", f"Turbo: {' '.join(cards)} played out of turn",
                              _cite(p, "turbo")))
    first = order[0] if order else rank
    ok = c.fits_req(first, req, eff_rank)
    if not ok:
        if phase == "down":
            verdict, code = PENALTY, "blind_miss"
        else:
            verdict, code = ILLEGAL, "does_not_fit"
        if req.kind == COUNTER:
            text = f"{first} does not answer: {_req_words(req)}"
            rule = _cite(p, f"rank:{_power_rank(c, pile, len(pile) - 1)}")
        elif c.anywhere[first]:
            text = f"{first} may go on anything except {eff_rank}"
            rule = _cite(p, f"rank:{first}")
        elif (c.only_on_lower[first] and eff_rank is not None
              and c.value[eff_rank] >= c.value[first]):
            text = f"{first} may only be played on a card lower than {first}, not on {eff_rank}"
            rule = _cite(p, f"rank:{first}")
        else:
            text = f"{first} does not fit: {_req_words(req)}"
            rule = (_cite(p, f"rank:{eff_rank}") if req.kind in (LE, LT)
                    else _cite(p, "higher_or_equal"))
            if first in c.special:
                reasons.append(Reason("magic_must_fit", f"{first} is a magic card but it "
                                      "may only be played where it fits", _cite(p, "magic_fit")))
        if code == "blind_miss":
            text += f"; the blind card {cards[0]} is picked up with the pot"
            rule2 = _cite(p, "blind")
            reasons.insert(0, Reason("does_not_fit", text, rule))
            reasons.append(Reason("blind_miss", "a face-down card that does not fit is picked"
                                  " up with the pot", rule2))
            return Ruling(verdict, reasons, [], "any", [])
        reasons.insert(0, Reason(code, text, rule))
        return Ruling(verdict, reasons, [], nxt, list(pile))
    # legal: say why it fits
    if req.kind == COUNTER:
        reasons.append(Reason("counter", f"{first} answers the "
                              f"{_power_rank(c, pile, len(pile) - 1)}",
                              _cite(p, f"rank:{_power_rank(c, pile, len(pile) - 1)}")))
    elif c.anywhere[first]:
        reasons.append(Reason("anywhere", f"{first} may be played on anything",
                              _cite(p, f"rank:{first}")))
    elif req.kind == ANY:
        reasons.append(Reason("fits", f"{first} fits: {_req_words(req)}",
                              _cite(p, "higher_or_equal")))
    else:
        reasons.append(Reason("fits", f"{first} fits: {_req_words(req)}",
                              _cite(p, f"rank:{eff_rank}") if req.kind in (LE, LT)
                              else _cite(p, "higher_or_equal")))
    if len(cards) > 1:
        if order:
            reasons.append(Reason("straight", f"straight {'-'.join(order)} played as one play",
                                  _cite(p, "straights")))
            cards = sorted(cards, key=lambda x: c.scale_index[_rank(x)])
        else:
            reasons.append(Reason("multiple", f"{len(cards)} cards of rank {rank} at once",
                                  _cite(p, "multiple")))
    after = pile + list(cards)
    top_rank = _rank(after[-1])
    effects, more = play_effects(c, pile if not order else after[:-1], top_rank,
                                 1 if order else len(cards), after)
    reasons.extend(more)
    if "burn" in effects:
        return Ruling(LEGAL, reasons, effects, "any", [])
    return Ruling(LEGAL, reasons, effects, str(requirement(p, after)), after)


def judge_pickup(preset: Preset | str, pile: list[str], *, could_play: bool) -> Ruling:
    """Picking up the pot: forced when the player could not play, else only if allowed.

    With an empty pot and nothing playable, the "pick-up" is a pass (legal)."""
    p = load_preset(preset)
    if not pile and could_play:
        return Ruling(ILLEGAL, [Reason("pickup_empty", "there is no pot to pick up: play a card",
                                       _cite(p, "pickup"))], [], "any", [])
    if not could_play:
        return Ruling(LEGAL, [Reason("pickup_forced", "the player cannot play and picks up "
                                     "the pot", _cite(p, "pickup"))], [], "any", [])
    if p.table.voluntary_pickup:
        return Ruling(LEGAL, [Reason("pickup_voluntary", "picking up by choice is allowed",
                                     _cite(p, "voluntary_pickup"))], [], "any", [])
    return Ruling(ILLEGAL, [Reason("pickup_not_allowed", "a player who can play may not pick"
                                   " up the pot instead", _cite(p, "pickup"))],
                  [], str(requirement(p, pile)), list(pile))
