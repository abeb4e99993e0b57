"""The table referee: a real game seen only through the pot, plus what the operator adds.

Contract (the web page and the vision pipeline rely on it):

- `TableReferee(events=())` replays a list of event dicts (see docs/architecture.md and
  `referee.events`); `TableReferee.replay(events)` is the same as a classmethod.
- `.apply(event) -> list[dict]` validates the event, appends it to `.log` and returns what it
  produced, each output a dict with `kind` and `event` (the seq that produced it):
  `ruling` (engine `Ruling.to_dict()` plus `player`, `cards`, `turbo`, `phase`; an illegal
  play's also `then` and `then_rule`: what happens next, and the rule it follows; and
  `assumed` where its player was not told: `referee.assume`), `burn`, `pickup`, `out`,
  `game_over` (with `order` and `titles`; `assumed` when they rest on open assumptions),
  `suspicion` (ledger evidence), `prompt` (`target` with the `assumed` target; `desync`,
  with `assumed` where the game goes on under the claim or what the camera saw;
  `who_played`/`who_picked_up` only where nobody can be assumed), `phase` (a player moves on
  to the face-up or face-down cards, or back to the hand), `duty_done`, `duty_broken`,
  `order`, `vote`, `order_decided`, `info`. Nothing waits on an answer: what the camera
  cannot see is assumed and asked one question at a time (`view()["question"]`).
  An event that changes the past (`correct`, `void`, `confirm`, `played_by`, a `picked_up`
  or `target` naming an earlier event) rebuilds the state by replaying the current game
  from its `setup` (such events may only name events of the current game); outputs
  of earlier events that changed come back too, marked `"revised": true`.
- A bad event raises `EventError` (a `ValueError`) with a plain message; nothing is appended
  and the state is untouched.
- `.view() -> dict`: a JSON-serialisable snapshot for the live page (see `view`).
- `.log`: the events as applied (normalised: card ids canonical, `seq`, `t`, `source` and
  implied event references filled in).
- `.book`: the evening (`referee.evening.EveningBook`); `referee.evening_view.Evening` wraps it.

What the referee knows comes only from the pot and the operator: it keeps the counts (hand,
face-up, face-down, stock) from the deal and the draws the rules require, and the rules
themselves come from the engine's pot-only judgement (`referee.pile.judge_on_pile`); there is
no second copy of the rules here. Turn order follows the ruling's effects (skip, reverse,
again, give_pot).
"""
from __future__ import annotations

import copy
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee import pile as pilelib
from referee.assume import CHANGED, OPEN, SEEN, Assumption, card_words
from referee.cards import JOKER, RANKS, build_deck, rank_of
from referee.evening import EveningBook, GameResult, titles_for
from referee.events import EventError, taken_after_end, validate_event
from referee.ledger import HAND, Ledger
from referee.rules import Preset, load_preset
from referee.ruling import ILLEGAL, PENALTY, Reason, Ruling

#: Events whose meaning refers back to an earlier event.
ANNOTATIONS = frozenset({"played_by", "target", "picked_up", "correct", "void", "confirm",
                         "game_end"})
#: an out the counts made is undone when at least this many of the camera's plays after it,
#: and this share of them, came from that player's side: the counts missed cards (a misread
#: hint now and then does not reach it)
UNCOUNTED_PLAYS, UNCOUNTED_SHARE = 3, 0.3
#: the guesses a turn can rest on (who took the pot, whom an Ace hit, who started): a play from
#: out of that turn, no Turbo, places them again (`_derive_before`)
TURN_GUESSES = ("target", "picked_up", "starter")
#: at a game's end, the one holding this many cards more than anyone else still in is the one
#: left; closer than that the counts are not trusted over who played last (see `_game_end`)
CLEAR_LEAD = 4


@dataclass
class Seat:
    """One player's cards as far as the counts tell."""

    name: str
    hand: int
    face_up: int
    face_down: int
    out: bool = False
    place: int | None = None
    burns: int = 0
    skip_draw: bool = False  # strict pick-up: the next draw is skipped

    @property
    def total(self) -> int:
        return self.hand + self.face_up + self.face_down

    def phase(self, stock: int) -> str:
        """Where the next cards come from: hand, up (face-up), down (blind) or out."""
        if self.out:
            return "out"
        if self.hand > 0 or stock > 0:
            return "hand"
        if self.face_up > 0:
            return "up"
        if self.face_down > 0:
            return "down"
        return "out"


@dataclass
class PotCard:
    card: str
    seq: int
    player: str | None
    counts: bool  # part of the rules pile (False: an illegal play lying on the pot)


@dataclass
class Game:
    """The state of one game at the table."""

    number: int
    setup_seq: int
    preset: Preset
    players: list[str]
    dealer: str
    decks: int
    seats: dict[str, Seat]
    stock: int
    ledger: Ledger
    turn: str | None
    direction: int = 1
    pot: list[PotCard] = field(default_factory=list)
    started: bool = False
    over: bool = False
    order: list[str] = field(default_factory=list)
    burns: int = 0
    next: str = "any"
    awaiting_target: int | None = None    # seq of the give_pot play waiting for its target
    target: str | None = None             # who must answer the give_pot play
    penalty: str | None = None            # who should pick up after an illegal play
    pending_clear: int | None = None      # a pot_cleared nobody is known to have picked up
    last_ruling: dict | None = None
    last_played: int | None = None        # seq of the latest cards_played
    last_clear: int | None = None         # seq of the latest pot_cleared that was a pick-up
    # that pick-up came after the latest play (in the order of play: a play a person says the
    # camera missed has a later seq than the events after it)
    cleared_last: bool = False
    last_places: list[str] = field(default_factory=list)  # out on a special card
    prompts: list[dict] = field(default_factory=list)
    suspicions: list[dict] = field(default_factory=list)
    end_seq: int | None = None
    held: list[int] = field(default_factory=list)  # the camera's plays seen after the end
    # what the referee went on without being told (`referee.assume`), by key
    assumptions: dict[str, Assumption] = field(default_factory=dict)
    basis: str | None = None       # the assumption the current turn rests on
    starter_open: bool = False     # nobody said who starts: the first play tells (or is assumed)
    ace_by: str | None = None      # who played the play waiting for its target
    asked: list[str] = field(default_factory=list)  # questions shown first, in order
    plays: int = 0                 # plays ruled so far
    shown_at: dict[str, int] = field(default_factory=dict)  # question key: `plays` when first shown
    last_by: dict[str, int] = field(default_factory=dict)  # each player's latest play (seq)
    out_at: dict[str, int] = field(default_factory=dict)  # where each player went out (seq)
    played: list[str] = field(default_factory=list)  # who played each play, in order
    counted_out: dict[str, int] = field(default_factory=dict)  # out by the counts, at seq
    uncounted: set[str] = field(default_factory=set)  # seen playing after the counts' out
    #: a pick-up whose taker was a guess (the clear's seq: the assumption's key); where it is
    #: still open or changed, the ledger's hand for its cards is a guess too
    guessed_pickups: dict[int, str] = field(default_factory=dict)

    @property
    def pile(self) -> list[str]:
        """The rules pile: the cards that count since the last clear, bottom to top."""
        return [pc.card for pc in self.pot if pc.counts]

    def active(self) -> list[str]:
        return [p for p in self.players if not self.seats[p].out]

    def step(self, frm: str, n: int = 1) -> str:
        """The player `n` active seats after `frm` in the current direction."""
        i = self.players.index(frm)
        k = len(self.players)
        left = n
        while True:
            i = (i + self.direction) % k
            if not self.seats[self.players[i]].out:
                left -= 1
                if left <= 0:
                    return self.players[i]
            if not self.active():
                return frm


def _outranks(new: dict, old: dict) -> bool:
    """Does annotation `new` replace `old` of the same event? The latest wins, except that the
    camera's own correction (a card it saw late) never replaces a person's: the person looked."""
    return new.get("source") != "camera" or old.get("source") == "camera"


def _meta(ev: dict) -> dict:
    """An event's `meta` (an object, `validate_event` sees to it), or an empty one. What it
    holds is the producer's: each reader checks the type of the value it takes."""
    meta = ev.get("meta")
    return meta if isinstance(meta, dict) else {}


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else []


def _is_card(value: Any) -> bool:
    return isinstance(value, str) and value in _CARD_IDS


def _mismatch_cards(meta: dict) -> list[str]:
    """The cards a play at a camera mismatch may be: what was read land. None where cards left
    the pot (`gone`: taken back, or covered by a card nobody read, whose half reads the page
    offers but the referee never plays: the camera often reads the covering card next, and a
    guess ruled beside it would be a play too many), or where nothing was read."""
    return [] if meta.get("gone") else [c for c in _listed(meta.get("cards")) if _is_card(c)]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


_CARD_IDS = frozenset(build_deck(1, 1))


def recording_ends_game(view: dict) -> bool:
    """A recorded game's video was read through: does its end end the game (`game_end`)? Only a
    game under way in its last stage (the stock drawn) that the counts have not ended; a video
    of part of a game (stock left) is no finished game."""
    return bool(view.get("latest_ruling")) and not view.get("over") and view.get("stock") == 0


def is_camera_mismatch(ev: dict) -> bool:
    """A note the camera left where something landed that it could not read as a play
    (`meta.mismatch`): a `correct` event may name its cards, and it then counts as that play."""
    return ev.get("type") == "note" and bool(_meta(ev).get("mismatch"))


def _in_play_order(log: list[dict], voided: set[int]) -> list[dict]:
    """`log` in the order of play: what a person says the camera missed (`missed` events: plays,
    or the pot going) right after the event it followed; one named after another `missed`
    event comes after that one's event too, so they follow in the order they were named. A
    voided `missed` event stays at its own place (it is stepped as nothing)."""
    by_seq = {ev["seq"]: ev for ev in log}
    after: dict[int, list[dict]] = {}
    for ev in log:
        if ev["type"] != "missed" or ev["seq"] in voided:
            continue
        at = ev["event"]
        while by_seq.get(at, {}).get("type") == "missed":
            at = by_seq[at]["event"]
        after.setdefault(at, []).append(ev)
    out: list[dict] = []
    for ev in log:
        if ev["type"] != "missed" or ev["seq"] in voided:
            out.append(ev)
            out += after.get(ev["seq"], [])
    return out


class TableReferee:
    """Referee a real game from its event log.  See the module docstring for the contract."""

    def __init__(self, events: list[dict] | tuple[dict, ...] = ()):
        self.log: list[dict] = []
        self.outputs: dict[int, list[dict]] = {}
        self.book = EveningBook()
        self.game: Game | None = None
        self.games: list[Game] = []
        self._ann: dict[str, dict[int, dict]] = {}
        self._voided: set[int] = set()
        self._consumed: set[int] = set()
        self._ckpt: dict | None = None  # the state just before the current game's setup
        self._memo: dict[tuple, Ruling] = {}  # pot-only rulings already computed
        # assumptions later camera evidence changed (key -> (player, seq of the evidence)): a
        # function of the log, found as it is applied, so a replay finds the same
        self._derived: dict[str, tuple[str, int]] = {}
        self._redo = False
        for ev in events:
            self.apply(ev)

    @classmethod
    def replay(cls, events: list[dict] | tuple[dict, ...]) -> TableReferee:
        """A referee that has applied `events` in order (errors raise `EventError`, whose
        `accepted` holds the events applied before the bad one)."""
        ref = cls()
        for ev in events:
            try:
                ref.apply(ev)
            except EventError as exc:
                exc.accepted = list(ref.log)
                raise
        return ref

    # ------------------------------------------------------------------ applying events
    def apply(self, event: dict) -> list[dict]:
        """Validate `event`, append it to the log and return what it produced."""
        seq = len(self.log) + 1
        ev = validate_event(event, seq=seq, now=time.time())
        self._check(ev)
        if self._needs_rebuild(ev):
            out = self._rebuild_with(ev)
            if ev["type"] == "correct" and (self._annotation("correct", ev["event"]) or ev)["seq"] != ev["seq"]:
                out.append({"kind": "info", "event": ev["seq"],
                            "text": f"the camera's correction of event {ev['event']} is not applied: "
                                    f"a person corrected it already"})
            return out
        self.log.append(ev)
        self._index(ev)
        try:
            out = self._step(ev)
        except Exception:
            # should not happen (checks come first): put the state back as the log says
            self.log.pop()
            self.__dict__.update(TableReferee.replay(self.log).__dict__)
            raise
        self.outputs[ev["seq"]] = out
        if self._redo:  # the camera contradicted a guess: the game again, with what it said
            self._redo = False
            self.log.pop()
            del self.outputs[ev["seq"]]
            return self._rebuild_with(ev)
        return out

    def _rebuild_with(self, ev: dict) -> list[dict]:
        """Replay the current game (from its setup) with `ev` appended; earlier games are
        final, since corrections may only name events of the current game."""
        log = self.log + [ev]
        ck = self._ckpt
        start = ck["seq"] if ck else 1
        derived = self._still_derived(log)
        for _ in range(16):  # each pass may find one more guess the camera contradicts
            fresh = self._replayed(log, ev, derived)
            if not fresh._redo:
                break
            derived = fresh._derived
        fresh._redo = False
        if fresh.game is not None and self.game is not None and fresh.game.number == self.game.number:
            # a question shown before stays asked, though the replay knows its answer now
            fresh.game.asked = self.game.asked + [k for k in fresh.game.asked if k not in self.game.asked]
            fresh.game.shown_at = {**fresh.game.shown_at, **self.game.shown_at}
        out: list[dict] = []
        for old in self.log[start - 1:]:
            new_out = fresh.outputs.get(old["seq"], [])
            if new_out != self.outputs.get(old["seq"], []):
                out.extend(dict(o, revised=True) for o in new_out)
                if not new_out and self.outputs.get(old["seq"]):
                    out.append({"kind": "info", "event": old["seq"], "revised": True,
                                "text": f"event {old['seq']} no longer counts"})
        out.extend(fresh.outputs.get(ev["seq"], []))
        self.__dict__.update(fresh.__dict__)
        return out

    def _still_derived(self, log: list[dict]) -> dict[str, tuple[str, int]]:
        """What the camera's sides made of the guesses (`_derived`), less what rested on a
        play whose player a person has named since: their word replaces the side's."""
        named = said_who_played(log)
        return {k: v for k, v in self._derived.items()
                if not (k.split(":")[0] in TURN_GUESSES and v[1] in named)}

    def _replayed(self, log: list[dict], ev: dict, derived: dict) -> TableReferee:
        """A referee that has replayed the current game of `log` (ending with `ev`)."""
        fresh = TableReferee()
        fresh._memo = self._memo
        fresh._derived = dict(derived)
        ck = self._ckpt
        start = ck["seq"] if ck else 1
        fresh.log = log[:start - 1]
        if ck:
            fresh.outputs = {k: v for k, v in self.outputs.items() if k < start}
            fresh.book = copy.deepcopy(ck["book"])
            fresh.games = list(ck["games"])
            fresh.game = ck["game"]
            fresh._consumed = set(ck["consumed"])
        for old in fresh.log:
            fresh._index(old)
        for old in log[start - 1:]:
            fresh.log.append(old)
            fresh._index(old)
        fresh._voided = _voided(fresh.log)
        for old in _in_play_order(log[start - 1:], fresh._voided):
            fresh.outputs[old["seq"]] = [] if old["seq"] in fresh._voided else fresh._replay_step(old, ev)
        return fresh

    def _replay_step(self, old: dict, ev: dict) -> list[dict]:
        """`_step`, its refusal said as the refusal of `ev`, whose replay it is part of."""
        try:
            return self._step(old)
        except EventError as exc:
            raise EventError(f"event {ev['seq']} ({ev['type']}) cannot be applied: "
                             f"replaying the log fails at event {old['seq']}: {exc}",
                             seq=ev["seq"]) from None

    def _index(self, ev: dict) -> None:
        """Remember annotations by the event they refer to (the latest one wins)."""
        if ev["type"] in ANNOTATIONS and "event" in ev:
            held = self._ann.setdefault(ev["type"], {})
            old = held.get(ev["event"])
            if old is None or old["seq"] in self._voided or _outranks(ev, old):
                held[ev["event"]] = ev
        if ev["type"] == "void":
            self._voided = _voided(self.log)

    def _annotation(self, kind: str, seq: int) -> dict | None:
        """The latest non-voided annotation of `kind` naming event `seq`."""
        a = self._ann.get(kind, {}).get(seq)
        if a is None or a["seq"] not in self._voided:
            return a
        best = None
        for ev in self.log:
            if ev["type"] == kind and ev.get("event") == seq and ev["seq"] not in self._voided \
                    and (best is None or _outranks(ev, best)):
                best = ev
        return best

    # ------------------------------------------------------------------ checks (no mutation)
    def _check(self, ev: dict) -> None:
        t, g = ev["type"], self.game
        if t == "setup":
            self._check_setup(ev)
            return
        if t == "note":
            return
        if t in ("order", "vote"):
            (self.book.check_order if t == "order" else self.book.check_vote)(ev)
            self._check_names(ev, self.book.last_result().players if self.book.last_result()
                              else [])
            return
        if g is None:
            raise EventError(f"{t} event {ev['seq']}: no game is set up yet; start with a "
                             f"setup event (players, dealer, preset)", seq=ev["seq"])
        self._check_names(ev, g.players)
        if t == "duty":
            self.book.check_duty(ev, g.started)
            return
        ref = ev.get("event")
        if ref is not None:
            self._check_ref(ev, ref)
        if t == "played_by" and ref is None:
            if g.last_played is None:
                raise EventError(f"played_by event {ev['seq']}: no cards have been played in "
                                 f"game {g.number} yet", seq=ev["seq"])
            ev["event"] = g.last_played
        if t == "target" and ref is None and g.awaiting_target is not None:
            ev["event"] = g.awaiting_target
        elif t == "target" and ref is None:  # the answer to the latest Ace still guessed at
            guessed = [a.event for a in g.assumptions.values() if a.kind == "target" and a.is_open]
            if guessed:
                ev["event"] = guessed[-1]
        if t == "picked_up" and ref is None:
            if g.pending_clear is not None:
                ev["event"] = g.pending_clear
            elif not g.pot and g.last_clear is not None and g.cleared_last:
                ev["event"] = g.last_clear  # the pot was already picked up: say by whom
        # after the end only corrections of this game's events (and tidying up) are taken, and
        # what the camera sees land: the end may be wrong (an unread play before it), so its
        # plays are held, to be ruled in place once a person undoes that end
        if g.over and not taken_after_end(ev):
            raise EventError(f"{t} event {ev['seq']}: game {g.number} ended at event "
                             f"{g.end_seq} ({', '.join(g.order)}); start the next game with a "
                             f"setup event", seq=ev["seq"])
        if t == "confirm" and self.log[ev["event"] - 1]["type"] == "cards_played" and not any(
                p.get("prompt") == "desync" for p in self.outputs.get(ev["event"], [])):
            raise EventError(f"confirm event {ev['seq']}: play {ev['event']} left no count in "
                             f"doubt; confirm answers a play or a player_out the counts disagree "
                             f"with (correct the play's cards instead if it was misread)",
                             seq=ev["seq"])
        if t == "target" and "event" not in ev:
            raise EventError(f"target event {ev['seq']}: no Ace (or other give-the-pot card) "
                             f"is waiting for a target; name its event with `event`",
                             seq=ev["seq"])

    def _check_setup(self, ev: dict) -> None:
        try:
            preset = load_preset(ev.get("preset", "fr"))
        except (ValueError, OSError) as exc:
            raise EventError(f"setup event {ev['seq']}: {exc}", seq=ev["seq"]) from None
        ev["preset"] = ev.get("preset", "fr")
        n = len(ev["players"])
        lo, hi = preset.table.players
        if not lo <= n <= hi:
            raise EventError(f"setup event {ev['seq']}: preset {preset.name} is for {lo} to {hi}"
                             f" players, not {n}", seq=ev["seq"])
        decks = ev.get("decks") or preset.table.decks_for(n)
        need = 3 * preset.table.cards_per_layer * n
        have = decks * (52 + preset.table.jokers_per_deck)
        if need > have:
            raise EventError(f"setup event {ev['seq']}: {n} players need {need} cards but "
                             f"{decks} deck(s) hold {have}; set decks to "
                             f"{-(-need // (52 + preset.table.jokers_per_deck))}",
                             seq=ev["seq"])
        ev["decks"] = decks
        if "game" not in ev:
            last = max((e["game"] for e in self.log if e["type"] == "setup"), default=0)
            ev["game"] = last + 1

    def _check_names(self, ev: dict, players: list[str]) -> None:
        for key in ("player", "to"):
            name = ev.get(key)
            if name is not None and name not in players:
                raise EventError(f"{ev['type']} event {ev['seq']}: unknown player {name!r}; "
                                 f"the players are {', '.join(players) or 'not set up yet'}",
                                 seq=ev["seq"])

    def _check_ref(self, ev: dict, ref: int) -> None:
        g = self.game
        assert g is not None
        if ev["type"] == "missed" and ref >= g.setup_seq:
            return  # a place in the game's log: any of its events, its setup for its first play
        if ref <= g.setup_seq:
            raise EventError(f"{ev['type']} event {ev['seq']}: event {ref} is not part of game "
                             f"{g.number} (it began at event {g.setup_seq})", seq=ev["seq"])
        target = self.log[ref - 1]
        want = {"played_by": ("cards_played",), "target": ("cards_played",),
                "correct": ("cards_played",), "picked_up": ("pot_cleared",),
                "confirm": ("player_out", "cards_played"), "game_end": ("game_end",),
                "void": tuple(k for k in ("cards_played", "missed", "pot_cleared", "played_by", "target",
                                          "picked_up", "player_out", "correct", "void",
                                          "counts", "confirm", "note", "duty", "order",
                                          "vote"))}[ev["type"]]
        if is_camera_mismatch(target) and (ev["type"] == "correct" or (
                ev["type"] in ("played_by", "target")
                and (self._annotation("correct", ref) or _mismatch_cards(_meta(target))))):
            # cards the camera saw land but could not read: a person names them, and who
            # played the play named or guessed there (the referee asks it of a guess)
            return
        if is_camera_mismatch(target) and ev["type"] in ("played_by", "target"):
            raise EventError(f"{ev['type']} event {ev['seq']}: event {ref} is cards the camera "
                             f"could not read; name its cards first (a correct event), then who "
                             f"played them", seq=ev["seq"])
        if target["type"] == "missed" and (ev["type"] == "picked_up") == bool(target.get("cleared")) \
                and ev["type"] in ("played_by", "target", "picked_up"):
            return  # what a person added: who played it, where its Ace sends the pot, who took it
        if target["type"] not in want:
            raise EventError(f"{ev['type']} event {ev['seq']}: event {ref} is a "
                             f"{target['type']} event, not {' or '.join(want)}"
                             + (" (or a camera mismatch note)" if ev["type"] == "correct" else ""),
                             seq=ev["seq"])

    def _cards_of(self, seq: int) -> list[str]:
        ev = self.log[seq - 1]
        corr = self._annotation("correct", seq)
        return list(corr["cards"]) if corr else list(ev.get("cards", []))

    def _needs_rebuild(self, ev: dict) -> bool:
        t, g = ev["type"], self.game
        if t in ("correct", "missed", "void", "confirm", "played_by"):
            return True
        if t == "game_end":  # naming who was left at an end already placed: replayed
            return "event" in ev
        if t == "target":  # a pot that went already: replayed with its taker named
            return g is None or ev["event"] != g.awaiting_target or g.pending_clear is not None
        if t == "picked_up":  # naming who took a pot that went already: replayed in place
            return "event" in ev
        return False

    # ------------------------------------------------------------------ the state machine
    def _step(self, ev: dict) -> list[dict]:
        g = self.game
        if g is not None and not g.over and ev["type"] in ("cards_played", "pot_cleared", "missed") \
                and ev["seq"] not in self._voided:
            for a in g.assumptions.values():  # the camera has had its chance to settle them
                a.ripe = True
        out = self._step_event(ev)
        g = self.game
        if g is not None and g.counted_out and ev.get("source") == "camera":
            self._counts_contradicted(g, ev["seq"])
        if g is not None and not g.over:  # the question the page shows now: asked once shown
            q = self._question(g)
            if q is not None and q.key not in g.asked:
                g.asked.append(q.key)
            if q is not None:
                g.shown_at.setdefault(q.key, g.plays)
        return out

    def _step_event(self, ev: dict) -> list[dict]:
        t, seq = ev["type"], ev["seq"]
        if seq in self._voided:
            return []
        if t == "setup":
            return self._setup(ev)
        if t == "note":
            if self.game is None:
                return []
            if self._annotation("correct", seq) is not None:
                # a camera mismatch a person corrected: the play it was, ruled where it happened
                return self._played(self.game, ev)
            guess = self._mismatch_guess(self.game, ev)
            # nobody said: ruled as its likeliest play, assumed and asked (a person's correct,
            # void or missed play there replaces it)
            return self._played(self.game, ev, guess) if guess else []
        if t == "order":
            return self.book.order(ev)
        if t == "vote":
            return self.book.vote(ev)
        g = self.game
        if g is None:
            raise EventError(f"{t} event {seq}: no game is set up yet", seq=seq)
        if t == "duty":
            return self._duty(g, ev)
        if t == "missed" and g.over:
            raise EventError(f"missed event {seq}: game {g.number} had ended by then (at event "
                             f"{g.end_seq}); name an event before its end", seq=seq)
        if t == "cards_played" and g.over:
            g.held.append(seq)
            return [self._held(g, ev)]
        if t == "cards_played" or (t == "missed" and not ev.get("cleared")):
            return self._played(g, ev)  # a missed one: stepped right after its event
        if t in ("pot_cleared", "missed"):
            before = {p: s.phase(g.stock) for p, s in g.seats.items()}
            return self._cleared(g, ev) + self._phase_changes(g, before, seq)
        if t == "player_out":
            return self._player_out(g, ev)
        if t == "game_end":
            return [] if "event" in ev else self._game_end(g, ev)
        if t == "counts":
            return self._counts(g, ev)
        if t == "target":
            return self._target_forward(g, ev)
        if t == "picked_up":
            return self._picked_up_forward(g, ev)
        return []  # played_by, correct, void, confirm: used where their event is replayed

    def _setup(self, ev: dict) -> list[dict]:
        self._ckpt = {"seq": ev["seq"], "book": copy.deepcopy(self.book),
                      "games": list(self.games), "game": self.game,
                      "consumed": set(self._consumed)}
        out: list[dict] = []
        prev = self.game
        if prev is not None and not prev.over and prev.started:
            out.append({"kind": "info", "event": ev["seq"],
                        "text": f"game {prev.number} was abandoned unfinished"})
        if prev is not None and prev.held:  # the new game began before it was set up?
            out.append({"kind": "info", "event": ev["seq"], "held": list(prev.held),
                        "text": f"{len(prev.held)} play(s) the camera saw after game {prev.number} "
                                f"ended (#{', #'.join(map(str, prev.held))}) stay there, unruled; if "
                                f"they were this game's, add each as a play the camera missed"})
        preset = load_preset(ev["preset"])
        tr = preset.table
        n = len(ev["players"])
        lay = tr.cards_per_layer
        decks = ev["decks"]
        total = decks * (52 + tr.jokers_per_deck)
        seats = {p: Seat(p, lay, lay, lay) for p in ev["players"]}
        players = list(ev["players"])
        starter = ev.get("starter")
        left = players[(players.index(ev["dealer"]) + 1) % n]
        open_start = starter is None and not (tr.start == "left_of_dealer" or self.book.results)
        g = Game(number=ev["game"], setup_seq=ev["seq"], preset=preset, players=players,
                 dealer=ev["dealer"], decks=decks, seats=seats, stock=total - 3 * lay * n,
                 ledger=Ledger(decks, tr.jokers_per_deck, preset.citation("jokers")
                               or preset.citation("decks")), turn=starter or left,
                 starter_open=open_start)
        self.game = g
        self.games.append(g)
        out.extend(self.book.setup(ev))
        if open_start:  # the first play tells who had the lowest card (its side, else assumed)
            out.append({"kind": "info", "event": ev["seq"],
                        "text": f"{preset.name}: the player with the lowest {tr.start_rank} "
                                f"starts; until the first play says who, {left} (left of the "
                                f"dealer) is assumed"})
        return out

    # -- assumptions (referee.assume) --------------------------------------------------------
    @staticmethod
    def _hint(g: Game, ev: dict) -> str | None:
        """The side the camera saw the arm (or the pot) go to: a player still in, or None."""
        seat = _meta(ev).get("seat")
        return seat if isinstance(seat, str) and seat in g.seats and not g.seats[seat].out else None

    def _assume(self, g: Game, kind: str, seq: int, value: str, by: str, options: list[str],
                about: str, **more: Any) -> Assumption:
        """Go on with `value`; the camera's later evidence, remembered from an earlier pass
        over this log (`_derived`), may already have changed it. `more`: the `Assumption`'s
        `offers`, `quiet`, `detail`."""
        a = Assumption(kind, seq, value, by, list(dict.fromkeys(options)), about, **more)
        d = self._derived.get(a.key)
        if d is not None and d[0] != value and d[0] in a.options:
            a.settle(d[0], d[1])
        g.assumptions[a.key] = a
        return a

    @staticmethod
    def _evidence(g: Game, a: Assumption | None, player: str, seq: int) -> None:
        """Event `seq` shows `player` where assumption `a` had guessed: settled or changed."""
        if a is None or not a.is_open:
            return
        a.settle(player, seq)
        if g.basis == a.key:
            g.basis = None

    def _basis(self, g: Game) -> Assumption | None:
        a = g.assumptions.get(g.basis) if g.basis else None
        if a is None or not a.is_open:
            g.basis = None
            return None
        return a

    @staticmethod
    def _before(g: Game, player: str) -> str:
        """The active player just before `player` in the current direction."""
        g.direction = -g.direction
        try:
            return g.step(player)
        finally:
            g.direction = -g.direction

    @staticmethod
    def _in_turn_from(g: Game, first: str) -> list[str]:
        """The active players in the order of play, from `first`."""
        out = [first]
        for _ in range(len(g.players)):
            nxt = g.step(out[-1])
            if nxt in out:
                break
            out.append(nxt)
        return out

    @staticmethod
    def _after_words(g: Game) -> str:
        top = next((pc for pc in reversed(g.pot) if pc.player), None)
        return f" after {top.player}'s {card_words([top.card])}" if top else ""

    def _likely_player(self, g: Game, ev: dict, cards: list[str]) -> tuple[str | None, dict | None]:
        """Who played `ev`, nobody having said: the camera's side where it fits the game,
        else the turn. Returns the player and what the ruling says it rests on."""
        seq, hint = ev["seq"], self._hint(g, ev)
        if g.awaiting_target is not None:  # whoever answers the Ace is the one it hit
            a = g.assumptions.get(f"target:{g.awaiting_target}")
            if hint is not None and hint != g.ace_by and a is not None and a.is_open:
                self._evidence(g, a, hint, seq)
                return hint, None
            value = g.target or g.turn
            if a is not None and a.is_open:
                return value, {"player": value, "by": "rules", "key": a.key}
            return value, None
        expected = g.turn or hint or next(iter(g.active()), None)
        if expected is None:
            return None, None
        if g.starter_open:
            g.starter_open = False
            likely = hint or expected
            a = self._assume(g, "starter", seq, likely, "camera" if hint else "rules",
                             [likely] + g.active(), card_words(cards))
            g.turn = a.value
            return a.value, {"player": a.value, "by": a.by, "key": a.key}
        basis = self._basis(g)
        by = "camera"
        if hint is None:  # no side seen: a card the ledger places in one hand names its holder
            hint, by = self._holder(g, cards), "hand"
        if hint is None or hint == expected:
            if basis is None:
                return expected, None
            if hint is not None:  # the camera (or the card's holder) agrees with what the turn rested on
                self._evidence(g, basis, basis.value, seq)
                return expected, None
            if basis.quiet:  # the rules' own answer: no question, nothing marked
                return expected, None
            return expected, {"player": expected, "by": "rules", "key": basis.key}
        # the arm came from another side than the turn's: a Turbo where it is one, else the
        # turn was not where the referee thought (a play it never saw, a wrong guess)
        seat = g.seats[hint]
        turbo_ok = self._judge(g, seat, cards, seat.phase(g.stock), True).legal
        if not turbo_ok and by == "camera":  # the camera contradicts the guess the turn rested on
            self._derive_before(g, basis, hint, seq)
        a = self._assume(g, "player", seq, hint, by, [hint, expected] + g.active(),
                         card_words(cards) + self._after_words(g))
        if not turbo_ok and a.value == hint:
            g.turn = hint  # in turn, as far as the referee can tell
        return a.value, {"player": a.value, "by": a.by, "key": a.key}

    @staticmethod
    def _holder(g: Game, cards: list[str]) -> str | None:
        """The one player still in whom the ledger knows holds a card of `cards` (they picked
        it up, seen or said, and no other copy is unseen), where the cards name no one else: a
        play nobody's side was seen for is theirs more surely than the turn's, which may rest
        on a guess."""
        def guessed(seq: int | None) -> bool:
            key = g.guessed_pickups.get(seq) if seq is not None else None
            a = g.assumptions.get(key) if key else None
            return key is not None and (a is None or a.status != SEEN)

        found = set()
        for card in cards:
            held = g.ledger.known_held(card)
            if held is None or any(guessed(c.last_seq(HAND)) for c in held):
                continue
            found |= {c.player for c in held}
        if len(found) != 1:
            return None
        player = found.pop()
        return player if player in g.seats and not g.seats[player].out else None

    def _derive_before(self, g: Game, basis: Assumption | None, player: str, seq: int) -> None:
        """`player` played `seq`, no Turbo, where the turn rested on a guess (who took the pot,
        whom an Ace hit, who started) that had someone else in turn: whoever was before them
        took the pot (or started); the game is replayed with that at once."""
        if basis is None or basis.kind not in TURN_GUESSES:
            return
        before = self._before(g, player)
        if before in basis.options and before != basis.value and basis.key not in self._derived:
            self._derived[basis.key] = (before, seq)
            self._redo = True

    def _named_out_of_turn(self, g: Game, player: str, cards: list[str], seq: int) -> None:
        """A person named who played `seq`: that says where the turn was as the camera's side
        would, and more surely (`_derive_before`)."""
        basis = self._basis(g)
        seat = g.seats.get(player)
        if basis is None or seat is None or player == g.turn:
            return
        if not self._judge(g, seat, cards, seat.phase(g.stock), True).legal:
            self._derive_before(g, basis, player, seq)

    def _mismatch_guess(self, g: Game, ev: dict) -> Assumption | None:
        """A camera mismatch (cards of several ranks at once, a card landed unread) nobody
        answered: its likeliest play, assumed, so the game goes on. Each rank the camera read
        there is one candidate (all its cards); the rules' allowed ranks first, then the one
        the reads lean to most (`meta.reads`: each card's votes, summed by rank over every
        read, so a court whose index two reads half saw outweighs a pip one read surely), then
        the order read. Cards that left the pot (`gone`) are no play; a person's `missed` play
        named after it replaces it."""
        meta, seq = _meta(ev), ev["seq"]
        if not meta.get("mismatch") or g.over:  # cards that left the pot: `_mismatch_cards` names none
            return None
        if any(e["type"] == "missed" and e.get("event") == seq and e["seq"] not in self._voided
               for e in self.log):
            return None
        cards = _mismatch_cards(meta)
        if not cards:
            return None
        groups: dict[str, list[str]] = {}
        for c in cards:
            if c not in groups.setdefault(rank_of(c), []):
                groups[rank_of(c)].append(c)
        lean: Counter = Counter()  # every read's votes: a card's own, or a landed card's boxes' all in one
        for votes in _listed(meta.get("reads")):
            for card, vote in (votes.items() if isinstance(votes, dict) else ()):
                if _is_card(card) and _is_number(vote):
                    lean[rank_of(card)] += float(vote)
        pile = g.pile
        order = sorted(groups, key=lambda r: (not pilelib.fits(g.preset, pile, r), -lean[r],
                                              cards.index(groups[r][0])))
        options = [" ".join(groups[r]) for r in order]
        offers = [{"label": card_words(groups[r]),
                   "send": {"type": "correct", "event": seq, "cards": list(groups[r])}}
                  for r in order]
        offers.append({"label": "nothing", "send": {"type": "void", "event": seq}})
        return self._assume(g, "cards", seq, options[0], "camera", options + ["nothing"],
                            f"when the camera saw {card_words(cards)} land"
                            + self._after_words(g), offers=offers)

    def _questions(self, g: Game) -> list[Assumption]:
        """The open questions, the one that changes the game most first: the one the turn
        rests on, then the guesses of the rules before the camera's, oldest first."""
        basis = self._basis(g)
        rest = sorted((a for a in g.assumptions.values()
                       if a.is_open and not a.quiet and not a.checked and a is not basis),
                      key=lambda a: (a.by in ("camera", "hand"), a.event))
        return ([basis] if basis and not basis.quiet else []) + rest

    def _question(self, g: Game) -> Assumption | None:
        """The one question to show: the first open one the camera has had its chance at and
        that has not been shown for a round of play with no one answering (agreed)."""
        return next((a for a in self._questions(g) if a.ripe and not self._agreed(g, a)), None)

    @staticmethod
    def _agreed(g: Game, a: Assumption) -> bool:
        """Shown while a round of play went by (each player still in playing once) with no one
        answering and nothing settling it: taken as agreed, it steps aside for the next
        question (it stays in the operator's list, and under the titles' assumptions)."""
        shown = g.shown_at.get(a.key)
        return shown is not None and g.plays - shown >= max(2, len(g.active()))

    def _prompt(self, g: Game, seq: int, kind: str, text: str, **extra: Any) -> dict:
        p = {"kind": "prompt", "prompt": kind, "event": seq, "text": text, **extra}
        g.prompts.append(p)
        return p

    def _drop_prompts(self, g: Game, kind: str, **match: Any) -> None:
        g.prompts = [p for p in g.prompts if not (
            p["prompt"] == kind and all(p.get(k) == v for k, v in match.items()))]

    def _duty(self, g: Game, ev: dict) -> list[dict]:
        out = self.book.duty(ev)
        giver, taker = g.seats[ev["player"]], g.seats[ev["to"]]
        if giver.hand > 0:
            giver.hand -= 1
            taker.hand += 1
        if "card" in ev:
            for s in g.ledger.give(ev["card"], ev["player"], ev["to"], ev["seq"]):
                out.append(self._suspect(g, s))
        return out

    def _suspect(self, g: Game, s: dict) -> dict:
        s = dict(s, kind="suspicion", suspicion=s["kind"])
        g.suspicions.append(s)
        return s

    # -- a play ------------------------------------------------------------------------------
    def _played(self, g: Game, ev: dict, guess: Assumption | None = None) -> list[dict]:
        """A play, plus a `phase` output when it moves its player on to the face-up or
        face-down cards (or back to the hand after a pick-up). `guess`: the cards a camera
        mismatch most likely was, nobody having said."""
        before = {p: s.phase(g.stock) for p, s in g.seats.items()}
        out = self._play(g, ev, guess)
        return out + self._phase_changes(g, before, ev["seq"])

    @staticmethod
    def _held(g: Game, ev: dict) -> dict:
        return {"kind": "info", "event": ev["seq"], "held": True, "cards": list(ev["cards"]),
                "text": f"{' '.join(ev['cards'])} seen played after game {g.number} ended (at "
                        f"event {g.end_seq}: {', '.join(g.order)}); kept, not ruled. If a misread "
                        f"ended the game, fix that play and this one is ruled where it happened"}

    def _phase_changes(self, g: Game, before: dict[str, str], seq: int) -> list[dict]:
        words = {"hand": "the hand", "up": "the face-up cards", "down": "the face-down cards"}
        out = []
        for name, seat in g.seats.items():
            now = seat.phase(g.stock)
            if now != before[name] and now in words:
                out.append({"kind": "phase", "event": seq, "player": name, "phase": now,
                            "text": f"{name} now plays from {words[now]}"})
        return out

    def _play(self, g: Game, ev: dict, guess: Assumption | None = None) -> list[dict]:
        seq = ev["seq"]
        cards = guess.value.split() if guess else self._cards_of(seq)
        g.started = True
        g.plays += 1
        g.last_played = seq
        g.cleared_last = False
        out: list[dict] = []
        if g.pending_clear is not None:  # the pot that went before this play: its taker
            # (and an Ace's target) can still be named, which replays the game from there
            g.pending_clear = None
            g.awaiting_target, g.target = None, None
        by = self._annotation("played_by", seq)
        player = by["player"] if by else ev.get("player")
        if by:
            self._consumed.add(by["seq"])
            if g.awaiting_target is None and not g.starter_open:
                self._named_out_of_turn(g, by["player"], cards, seq)
        assumed: dict | None = None
        if player is None:
            player, assumed = self._likely_player(g, ev, cards)
        elif g.awaiting_target is not None and player != g.ace_by:
            self._evidence(g, g.assumptions.get(f"target:{g.awaiting_target}"), player, seq)
        elif g.starter_open:  # the first play says who had the lowest card
            g.starter_open = False
            g.turn = player
        if player is not None and g.awaiting_target is not None and (
                g.target is None or player != g.ace_by):
            g.target = player  # whoever answers the Ace is the one it hit
            self._drop_prompts(g, "target")
        b = g.assumptions.get(g.basis) if g.basis else None
        if b is not None and b.quiet:  # the play after a pick-up had its chance to contradict it
            g.basis = None
        expected = g.target if g.awaiting_target is not None else g.turn
        out_of_turn = player is not None and expected is not None and player != expected
        seat = g.seats.get(player) if player else None
        phase = seat.phase(g.stock) if seat else "hand"
        confirmed = self._annotation("confirm", seq) is not None  # the play stands as read
        if seat is not None and seat.out:
            if not confirmed:
                out.append(self._prompt(g, seq, "desync", f"{player} is out by the counts but "
                                        f"played {' '.join(cards)} at event {seq}; check the "
                                        f"table: confirm event {seq} (the play stands) or "
                                        f"send counts", player=player))
            phase = "hand"
        turbo = out_of_turn
        ruling = self._judge(g, seat, cards, phase, turbo)
        rd = ruling.to_dict()
        if out_of_turn and not ruling.legal:
            rd["reasons"].insert(0, {"code": "out_of_turn",
                                     "text": f"{player} played out of turn ({expected} was to "
                                             f"play) and it is not a legal Turbo",
                                     "rule": g.preset.citation("turbo")})
        rd.update(kind="ruling", event=seq, player=player, cards=cards, turbo=turbo,
                  phase=phase)
        if assumed:
            rd["assumed"] = assumed
        if guess:  # the cards are the camera's likeliest, nobody having said
            rd["assumed"] = dict(rd.get("assumed") or {}, cards=list(cards), cards_key=guess.key,
                                 cards_by=guess.by)
        out.append(rd)
        g.last_ruling = rd
        for s in g.ledger.play(cards, player, seq):
            out.append(self._suspect(g, s))
        if player is None:
            g.pot.extend(PotCard(c, seq, None, ruling.legal) for c in cards)
            out.append(self._prompt(g, seq, "who_played", f"who played {' '.join(cards)} "
                                    f"(event {seq})? add played_by"))
            if ruling.legal:
                out.extend(self._unattributed_effects(g, ruling, cards, seq))
            return out
        self._drop_prompts(g, "who_starts")
        g.last_by[player] = seq
        g.played.append(player)
        self._take_from(g, seat, len(cards), seq, out, confirmed)
        if ruling.verdict == "illegal":
            g.pot.extend(PotCard(c, seq, player, False) for c in cards)
            g.penalty = player
            rd.update(self._penalty_words(g, player, cards))
            return out
        if ruling.verdict == PENALTY and "blind_miss" in ruling.codes:
            # a blind card that does not fit: picked up with the pot now
            g.pot.extend(PotCard(c, seq, player, True) for c in cards)
            out.extend(self._pick_up(g, player, seq, reason="blind_miss"))
            return out
        g.pot.extend(PotCard(c, seq, player, True) for c in cards)
        g.penalty = None  # play went on over any illegal cards
        self._draw(g, seat)
        effects = ruling.effects
        g.awaiting_target, g.target = None, None
        self._drop_prompts(g, "target")
        if "burn" in effects:
            out.extend(self._burn(g, player, seq))
        g.next = ruling.next
        if "reverse" in effects and not turbo:
            g.direction = -g.direction
        special = (g.preset.table.no_finish_on_special
                   and self._finishes_on_special(g, cards))
        out.extend(self._maybe_out(g, player, seq, special=special))
        if g.over:
            return out
        if assumed and assumed.get("key") and not turbo:  # the turn now rests on it
            g.basis = assumed["key"]
        if turbo:  # a Turbo keeps the turn where it was, unless it burns and plays again
            if "again" in effects and not seat.out:
                g.turn = player
            elif g.turn is not None and g.seats[g.turn].out:
                g.turn = g.step(g.turn)
            return out
        if "give_pot" in effects:
            g.ace_by = player
            out.extend(self._await_target(g, seq, f"{player}'s {card_words(cards)}"))
            return out
        if "again" in effects:
            g.turn = player if not seat.out else g.step(player)
            return out
        g.turn = g.step(player, 1 + ruling.skips)
        return out

    @staticmethod
    def _penalty_words(g: Game, player: str, cards: list[str]) -> dict:
        """What the table does after an illegal play, as the referee will rule it: the cards
        are no play, so the offender is a player who could not play and picks up the pot with
        them in it (the preset's pick-up rule); who plays next. `then` and `then_rule` of
        the ruling, for the banner and the replay."""
        after = g.turn if g.turn not in (None, player) else g.step(player)
        return {"then": f"{player} takes back {' '.join(cards)} and picks up the pot with "
                         f"them; then {after} plays",
                "then_rule": g.preset.citation("pickup")}

    def _unattributed_effects(self, g: Game, ruling: Ruling, cards: list[str],
                              seq: int) -> list[dict]:
        """A legal play by a player nobody has named yet still acts on the pot: a burn takes
        it away and an Ace waits for its target, so that the next play is judged on the pot
        that is really there. The turn stays unknown until `played_by` names the player
        (which replays the game with the name)."""
        g.penalty = None
        g.awaiting_target, g.target = None, None
        self._drop_prompts(g, "target")
        g.next = ruling.next
        out: list[dict] = []
        if "burn" in ruling.effects:
            out.extend(self._burn(g, None, seq))
        if "give_pot" in ruling.effects:
            g.ace_by = None
            out.extend(self._await_target(g, seq, f"{card_words(cards)} (event {seq})"))
        return out

    def _await_target(self, g: Game, seq: int, play: str) -> list[dict]:
        """Play `seq` gives the pot away: to the target its annotation names, if any (who
        then has the turn), else the turn waits on a `target` prompt about `play`."""
        g.awaiting_target = seq
        tgt = self._annotation("target", seq)
        if tgt is not None:
            self._consumed.add(tgt["seq"])
            g.target = g.turn = tgt["player"]
            g.basis = None  # the turn rests on their word now, as when it comes after the Ace
            return []
        # nobody said: the next in turn is the likeliest (the camera's next play may say
        # otherwise: whoever answers the Ace is the one it hit)
        ace_by = g.ace_by
        likely = g.step(ace_by) if ace_by in g.players else g.turn
        if likely is None or likely == ace_by:
            likely = next((p for p in g.active() if p != ace_by), ace_by)
        options = [p for p in self._in_turn_from(g, likely) if p != ace_by]
        a = self._assume(g, "target", seq, likely, "rules", options, play)
        g.target = g.turn = a.value
        g.basis = a.key
        return [{"kind": "prompt", "prompt": "target", "event": seq, "assumed": a.value,
                 "text": f"{a.text()} {a.value} is assumed (the next in turn) until the camera "
                         f"or a person says otherwise"}]

    def _judge(self, g: Game, seat: Seat | None, cards: list[str], phase: str,
               turbo: bool) -> Ruling:
        """The engine's pot-only judgement, plus the two table rules it cannot see from the
        pot (the same checks `referee.engine.GameState.judge` makes): no Turbo while a
        player must answer, and no finishing on a special card where the preset says so."""
        p = g.preset
        pile = g.pile
        key = (p.name, p.path, tuple(pile), tuple(cards), phase, turbo)
        ruling = self._memo.get(key)
        if ruling is None:  # a pure function of its arguments: replays reuse it
            if len(self._memo) > 20000:
                self._memo.clear()
            ruling = self._memo[key] = pilelib.judge_on_pile(p, pile, cards, phase=phase,
                                                             turbo=turbo, deck_check=False)
        ruling = Ruling(ruling.verdict, list(ruling.reasons), list(ruling.effects),
                        ruling.next, list(ruling.pile_after))
        if not ruling.legal:
            return ruling
        req = pilelib.requirement(p, g.pile)
        if turbo and req.kind == pilelib.COUNTER:
            return Ruling(ILLEGAL, [Reason("turbo_pending", "no Turbo while a player must "
                                           "answer", p.citation("turbo"))], [], str(req),
                          list(g.pile))
        if (p.table.no_finish_on_special and not turbo and seat is not None
                and self._finishes_on_special(g, cards)
                and self._would_finish(g, seat, len(cards), phase)):
            ruling.verdict = PENALTY
            ruling.reasons.append(Reason(
                "no_finish_on_special", f"{seat.name} may not finish on "
                f"{self._play_rank(g, cards)}, a special card: doing so makes {seat.name} the "
                f"Shithead", p.citation("no_finish_on_special")))
        return ruling

    @staticmethod
    def _play_rank(g: Game, cards: list[str]) -> str:
        """The rank a play ends on (the top of a straight)."""
        c = pilelib.compiled(g.preset)
        ranks = [rank_of(x) for x in cards]
        return ranks[0] if len(set(ranks)) == 1 else max(
            ranks, key=lambda x: c.scale_index.get(x, 0))

    def _finishes_on_special(self, g: Game, cards: list[str]) -> bool:
        return self._play_rank(g, cards) in pilelib.compiled(g.preset).special

    @staticmethod
    def _would_finish(g: Game, seat: Seat, k: int, phase: str) -> bool:
        if g.stock:
            return False
        if phase == "hand":
            return seat.hand == k and not seat.face_up and not seat.face_down
        if phase == "up":
            return seat.face_up == k and not seat.face_down and not seat.hand
        return seat.face_down == 1 and not seat.hand and not seat.face_up

    def _take_from(self, g: Game, seat: Seat, n: int, seq: int, out: list[dict],
                   confirmed: bool = False) -> None:
        """Take `n` cards from where the counts say the player plays from (the hand while
        it or the stock lasts, then the face-up cards, then the face-down ones); more than
        the counts allow asks the operator, unless a `confirm` of the play says it stands as
        read (the counts were off: what is left there is none)."""
        attr = {"hand": "hand", "up": "face_up", "down": "face_down"}.get(
            seat.phase(g.stock), "hand")
        have = getattr(seat, attr)
        take = min(have, n)
        setattr(seat, attr, have - take)
        left = n - take
        if left > 0 and not confirmed:
            # the camera saw them played: the referee's counts were off (a card drawn or
            # taken unseen); the play stands, the counts assumed, kept (not asked: no one tap
            # answers it) until someone counts the player's cards
            self._assume(g, "counts", seq, seat.name, "camera", [seat.name],
                         f"{n} card(s) at #{seq}", quiet=True,
                         detail=f"The counts say they had only {n - left} there.")
            out.append(self._prompt(g, seq, "desync",
                                    f"{seat.name} played {n} card(s) at event {seq} but the counts say "
                                    f"they had only {n - left} there; the play stands as the camera saw "
                                    f"it (assumed): confirm event {seq}, or count their cards and send counts",
                                    player=seat.name, assumed=seat.name))

    def _draw(self, g: Game, seat: Seat) -> None:
        """Draw back to the layer size while the stock lasts (a strict pick-up skips one
        draw while the hand still has cards, as the engine does)."""
        lay = g.preset.table.cards_per_layer
        if g.stock > 0 and seat.hand < lay:
            if seat.skip_draw and seat.hand:
                seat.skip_draw = False
                return
            n = min(g.stock, lay - seat.hand)
            seat.hand += n
            g.stock -= n

    def _burn(self, g: Game, player: str | None, seq: int) -> list[dict]:
        cards = [pc.card for pc in g.pot]
        g.ledger.burn(seq)
        g.pot = []
        g.burns += 1
        if player is not None:
            g.seats[player].burns += 1
        g.penalty = None
        return [{"kind": "burn", "event": seq, "player": player, "cards": cards,
                 "burns": g.burns}]

    def _pick_up(self, g: Game, player: str, seq: int, reason: str = "pickup",
                 at_clear: bool = False, keep_turn: bool = False) -> list[dict]:
        """`player` takes the pot; `at_clear`: `seq` is the camera's pot_cleared, which a
        later `picked_up` may attribute to someone else."""
        tr = g.preset.table
        cards, gone = g.ledger.pick_up(player, seq, remove=self._removed_on_pickup(g))
        seat = g.seats[player]
        seat.hand += len(cards)
        if tr.strict_pickup and g.stock > 0 and (cards or gone):
            seat.skip_draw = True
        g.pot = []
        g.penalty = None
        g.awaiting_target, g.target = None, None
        g.pending_clear = None
        self._drop_prompts(g, "target")
        self._drop_prompts(g, "who_picked_up")
        g.next = "any"
        if at_clear:
            g.last_clear, g.cleared_last = seq, True
        if not seat.out and not keep_turn:
            g.turn = g.step(player)
        return [{"kind": "pickup", "event": seq, "player": player, "cards": cards,
                 "removed": gone, "reason": reason}]

    @staticmethod
    def _removed_on_pickup(g: Game) -> frozenset[str]:
        """The ranks the preset takes out of the game when a pot is picked up."""
        return frozenset(r for r, rr in g.preset.ranks.items() if rr.removed_on_pickup)

    def _maybe_out(self, g: Game, player: str, seq: int, special: bool = False) -> list[dict]:
        seat = g.seats[player]
        if seat.out or seat.total > 0 or g.stock > 0 or player in g.uncounted:
            return []
        d = self._derived.get(f"uncounted:{player}")
        if d is not None and seq >= d[0]:
            g.uncounted.add(player)
            return [{"kind": "info", "event": seq, "player": player,
                     "text": f"{player} has no card left by the counts, but the camera saw "
                             f"{player} play on (from event {d[1]}): still in, the counts "
                             f"missed cards; out when the game ends or a person says so"}]
        g.counted_out[player] = seq
        return self._set_out(g, player, seq, special)

    def _counts_contradicted(self, g: Game, seq: int) -> None:
        """A player the counts put out whose side the camera keeps seeing plays from: the
        counts missed cards. Remembered, and the game replayed with them still in."""
        for player, out_seq in g.counted_out.items():
            key = f"uncounted:{player}"
            if key in self._derived or seq <= out_seq:
                continue
            after = [e for e in self.log[out_seq:seq] if e.get("source") == "camera"
                     and e["type"] in ("cards_played", "note") and e["seq"] not in self._voided
                     and (e["type"] == "cards_played" or is_camera_mismatch(e))]
            side = sum(_meta(e).get("seat") == player for e in after)
            if side >= UNCOUNTED_PLAYS and side >= UNCOUNTED_SHARE * len(after):
                self._derived[key] = (out_seq, seq)
                self._redo = True

    def _set_out(self, g: Game, player: str, seq: int, special: bool = False, unseen: bool = False) -> list[dict]:
        """`player` has no cards left.  Where the preset forbids finishing on a special
        card and they did, they are out as the Shithead: placed last, behind everyone.
        `unseen`: the game is over and `seq` is the player's last play, where they went out
        without the counts seeing it: placed among those out by then, ahead of anyone the
        counts put out later (a card the camera missed left them holding one on paper)."""
        seat = g.seats[player]
        seat.hand = seat.face_up = seat.face_down = 0
        seat.out = True
        if special:
            g.last_places.append(player)
            out = [{"kind": "out", "event": seq, "player": player, "place": None,
                    "last": True, "text": f"{player} finished on a special card and is "
                                          f"placed last"}]
        else:
            at = sum(g.out_at.get(p, 0) <= seq for p in g.order) if unseen else len(g.order)
            g.order.insert(at, player)
            g.out_at[player] = seq
            for i, name in enumerate(g.order, start=1):
                g.seats[name].place = i
            out = [{"kind": "out", "event": seq, "player": player, "place": seat.place}]
        for s in g.ledger.player_out(player, seq):
            out.append(self._suspect(g, s))
        self._drop_prompts(g, "desync", player=player)
        active = g.active()
        if len(active) <= 1:
            g.order.extend(active)
            g.order.extend(reversed(g.last_places))
            for i, name in enumerate(g.order, start=1):
                g.seats[name].place = i
                g.seats[name].out = True
            g.over = True
            g.end_seq = seq
            g.turn = None
            g.prompts = [p for p in g.prompts if p["prompt"] == "desync"]
            res = GameResult(g.number, g.setup_seq, list(g.players), list(g.order), seq,
                             assumed=[a.key for a in g.assumptions.values()
                                      if a.is_open and not a.quiet])
            out.extend(self.book.game_over(res))
        elif g.turn == player:
            g.turn = g.step(player)
        return out

    # -- the pot goes -------------------------------------------------------------------------
    def _cleared(self, g: Game, ev: dict) -> list[dict]:
        seq = ev["seq"]
        if g.over:
            return [{"kind": "info", "event": seq, "text": "the table is cleared after the game"}]
        if not g.pot:
            return [{"kind": "info", "event": seq, "text": "the burned pot is taken away"}]
        ann = self._annotation("picked_up", seq)
        if ann is not None:
            self._consumed.add(ann["seq"])
            if g.awaiting_target is not None:  # who took it answers the Ace's question too
                key = f"target:{g.awaiting_target}"
                g.assumptions.pop(key, None)
                g.basis = None if g.basis == key else g.basis
            return self._pick_up(g, ann["player"], seq, at_clear=True)
        picker = None
        if g.awaiting_target is not None:
            picker = g.target
            a = g.assumptions.get(f"target:{g.awaiting_target}")
            hint = self._hint(g, ev)
            if a is not None and a.is_open and hint is not None and hint != g.ace_by:
                self._evidence(g, a, hint, seq)  # the pot went towards their side
                picker = a.value
            if a is not None:
                g.guessed_pickups[seq] = a.key
        elif g.penalty is not None:
            # the offender takes back the illegal cards with the pot; if they played out of
            # turn, the player whose turn it was still plays next
            if g.turn is not None and g.penalty != g.turn:
                return self._pick_up(g, g.penalty, seq, reason="penalty", at_clear=True,
                                     keep_turn=True)
            picker = g.penalty
        else:
            picker = g.turn
            if picker is not None and self._hint(g, ev) != picker:
                # the player in turn takes the pot they could not play on: the rules' answer,
                # nobody having seen it; the next play from another side changes it
                a = self._assume(g, "picked_up", seq, picker, "rules",
                                 self._in_turn_from(g, picker), f"at #{seq}", quiet=True)
                picker = a.value
                g.guessed_pickups[seq] = a.key
                if a.is_open:
                    g.basis = a.key
        if picker is None:
            return self._taken_by_somebody(g, seq)
        return self._pick_up(g, picker, seq, at_clear=True)

    def _taken_by_somebody(self, g: Game, seq: int) -> list[dict]:
        """The pot went and nobody is known to have taken it (the Ace's target or the turn
        not known yet). It is off the table all the same, so the next play is judged on an
        empty pot; its cards are in a hand not named yet until `picked_up` (or the Ace's
        `target`) names it, which replays the game with that name."""
        cards, _ = g.ledger.pick_up(None, seq, remove=self._removed_on_pickup(g))
        g.pending_clear = seq
        g.pot = []
        g.penalty = None
        self._drop_prompts(g, "target")  # an Ace's target is who took it: one question
        g.next = "any"
        g.last_clear, g.cleared_last = seq, True
        return [self._prompt(g, seq, "who_picked_up",
                             f"the pot ({len(cards)} card(s)) was taken at event {seq}: who "
                             f"picked it up? add picked_up")]

    def _picked_up_forward(self, g: Game, ev: dict) -> list[dict]:
        if ev["seq"] in self._consumed:
            return []
        if "event" in ev:
            if ev["event"] == g.pending_clear:
                return self._pick_up(g, ev["player"], g.pending_clear, at_clear=True)
            return []
        if g.pot:
            return self._pick_up(g, ev["player"], ev["seq"])
        if g.last_clear is not None and g.cleared_last:
            return [{"kind": "info", "event": ev["seq"], "text": "the pot is already empty"}]
        # nothing to pick up: the player passes (the engine's pick-up of an empty pot)
        return self._pick_up(g, ev["player"], ev["seq"])

    def _target_forward(self, g: Game, ev: dict) -> list[dict]:
        if ev["seq"] in self._consumed or g.awaiting_target != ev.get("event"):
            return []
        latest = self._annotation("target", ev["event"])
        if latest is not None and latest["seq"] != ev["seq"]:
            return []  # named again later (the Ace's replay took that one): this one is replaced
        g.target = ev["player"]
        g.assumptions.pop(f"target:{ev['event']}", None)  # a person said: no guess left
        if g.basis == f"target:{ev['event']}":
            g.basis = None
        self._drop_prompts(g, "target")
        out: list[dict] = [{"kind": "info", "event": ev["seq"],
                            "text": f"{ev['player']} gets the pot unless they answer"}]
        if g.pending_clear is not None:  # the pot already went: the target took it
            out.extend(self._pick_up(g, ev["player"], g.pending_clear, at_clear=True))
        else:
            g.turn = ev["player"]
        return out

    # -- the operator's counts --------------------------------------------------------------
    def _player_out(self, g: Game, ev: dict) -> list[dict]:
        seat = g.seats[ev["player"]]
        if seat.out:
            return [{"kind": "info", "event": ev["seq"],
                     "text": f"{seat.name} is already out (place {seat.place})"}]
        seq = ev["seq"]
        confirmed = self._annotation("confirm", seq) is not None
        if seat.total == 0 and g.stock == 0 or confirmed:
            return self._set_out(g, seat.name, seq)
        # the table says so: out, assumed (the counts may have missed a card), until a person
        # confirms it (`confirm`) or says otherwise (`void` of the claim, then counts)
        counts = (f"the counts say {seat.total} card(s) left (hand {seat.hand}, face-up "
                  f"{seat.face_up}, face-down {seat.face_down}, stock {g.stock})")
        # confirm (or void) until the operator's check (the prompt's buttons) asks it
        self._assume(g, "out", seq, seat.name, "claim", [seat.name], f"#{seq}",
                     detail=f"Said so, but {counts}.", checked=True,
                     offers=[{"label": "yes, out", "send": {"type": "confirm", "event": seq}},
                             {"label": "no, still in", "send": {"type": "void", "event": seq}}])
        p = self._prompt(g, seq, "desync", f"{seat.name} said to be out, but {counts}; taken as "
                         f"out (assumed): confirm event {seq}, void it, or send counts",
                         player=seat.name, assumed=seat.name)
        out = self._set_out(g, seat.name, seq)
        if not any(q is p for q in g.prompts):  # `_set_out` drops the player's checks: not this one
            g.prompts.append(p)
        return [p] + out

    def _game_end(self, g: Game, ev: dict) -> list[dict]:
        """The game is over and the counts still hold players in (a play or a card the camera
        missed): each is out where they stopped playing, in that order, and the one left
        holding cards is the Shithead: the one a person names, else the one the counts say
        holds the most, assumed and asked (one tap names another)."""
        seq = ev["seq"]
        if g.over:
            return [{"kind": "info", "event": seq, "text": f"game {g.number} is already over"}]
        rest = g.active()
        if not g.started or not rest:
            return [{"kind": "info", "event": seq,
                     "text": f"game {g.number} ends before any play: nobody is placed"}]
        ann = self._annotation("game_end", seq)
        named = (ann or ev).get("player")
        if ann is not None:
            self._consumed.add(ann["seq"])
        holding = sorted(rest, key=lambda p: (-g.seats[p].total, -g.last_by.get(p, 0)))
        # the last play is the last out's (the game ended with it; the counts may have seen
        # them go out already), and a player silent while each of the others played twice went
        # out unseen: neither is the one left. Of the others, the one holding clearly the
        # most, else the one the last out played against at the end (who played just before)
        ender = g.played[-1] if g.played else None
        before = [p for p in sorted(rest, key=lambda p: g.last_by.get(p, 0)) if p != ender]
        left = [p for p in holding if len(rest) < 2 or p != ender]
        left = [p for p in left if not self._silent(g, p, len(rest) - 1)] or left
        lead = len(left) < 2 or g.seats[left[0]].total >= g.seats[left[1]].total + CLEAR_LEAD
        likely = left[0] if lead else before[-1]
        last = named if named in rest else likely
        if named not in rest:
            options = [likely] + [p for p in holding if p != likely]
            a = self._assume(g, "end", seq, last, "rules" if lead else "camera", options, f"#{seq}",
                             detail=f"The counts say {self._holding_words(g, holding)}.",
                             offers=[{"label": p, "send": {"type": "game_end", "event": seq,
                                                           "player": p}} for p in options])
            a.ripe = True  # nothing more will come to settle it
            last = a.value
        out: list[dict] = [{"kind": "info", "event": seq,
                            "text": f"game {g.number} is over: still in by the counts "
                                    f"{', '.join(rest)}; {last} is left holding cards"}]
        for p in sorted((p for p in rest if p != last), key=lambda p: g.last_by.get(p, 0)):
            if not g.over:
                out.extend(self._set_out(g, p, g.last_by.get(p, seq), unseen=True))
        if not g.over:  # `last` alone can't end it when the others all went out on specials
            out.extend(self._set_out(g, last, seq))
        g.end_seq = seq
        return out

    @staticmethod
    def _silent(g: Game, player: str, others: int) -> bool:
        """Has `player` not played while the `others` still in played twice each (plays
        since theirs)? Nobody holding cards sits out two rounds: they went out unseen."""
        since = next((i for i, p in enumerate(reversed(g.played)) if p == player), len(g.played))
        return since >= 2 * others

    @staticmethod
    def _holding_words(g: Game, players: list[str]) -> str:
        return ", ".join(f"{p} {g.seats[p].total} card(s)" for p in players)

    def _counts(self, g: Game, ev: dict) -> list[dict]:
        out: list[dict] = []
        if "stock" in ev:
            g.stock = ev["stock"]
            out.append({"kind": "info", "event": ev["seq"], "text": f"stock: {g.stock}"})
        if "player" not in ev:
            return out
        seat = g.seats[ev["player"]]
        for key in ("hand", "face_up", "face_down"):
            if key in ev:
                setattr(seat, key, ev[key])
        self._drop_prompts(g, "desync", player=seat.name)
        for key in [k for k, a in g.assumptions.items()
                    if a.kind == "counts" and a.value == seat.name and a.is_open]:
            g.assumptions.pop(key)  # counted: what the camera's play was assumed on is settled
            g.basis = None if g.basis == key else g.basis
        out.append({"kind": "info", "event": ev["seq"],
                    "text": f"{seat.name}: hand {seat.hand}, face-up {seat.face_up}, "
                            f"face-down {seat.face_down}"})
        out.extend(self._maybe_out(g, seat.name, ev["seq"]))
        return out

    # ------------------------------------------------------------------ reading the state
    @property
    def game_started(self) -> bool:
        return bool(self.game and self.game.started)

    def play_order(self) -> list[int]:
        """The log's seqs in the order of play: what a person says the camera missed comes
        right after the event it followed."""
        return [ev["seq"] for ev in _in_play_order(self.log, self._voided)]

    def rulings(self) -> list[dict]:
        """Every ruling of the whole log, in the order of play."""
        return [o for seq in self.play_order() for o in self.outputs.get(seq, []) if o.get("kind") == "ruling"]

    def view(self) -> dict:
        """A JSON-serialisable snapshot for the live page.

        Keys: `game`, `preset`, `players` (name, seat, phase hand/up/down/out, hand,
        face_up, face_down, out, place, burns, known_hand, title), `dealer`, `turn`,
        `direction` ("clockwise" or "counterclockwise"), `next` (what the next play must be),
        `pot` (cards on the pot, bottom to top), `pot_illegal` (the indexes in `pot` of
        cards an illegal play left there: they do not count), `penalty` (who is to pick up
        the pot for that play, or None), `stock`, `burns` ({"total", "by_player"}),
        `finishing_order`, `over`, `titles` (None until the game has ended), `ended_at` (the
        event that ended it),
        `latest_ruling`, `prompts`, `suspicions`, `awaiting_target`, `pending_duties`,
        `burned` (cards seen burned), `jokers` (how many jokers the game's decks hold: none in
        most presets, so a joker the camera reads is a misread), `held` (the camera's plays
        seen after the game's end, kept unruled: play going on means a misread ended it),
        `events` (how many events in the log), `fits` (the ranks
        that may go on the pot now, jokers `JK`; None once the game is over: the camera's
        legality prior, `vision.pipeline.priors_from_view`).
        """
        g = self.game
        if g is None:
            return {"game": None, "players": [], "over": False, "titles": None,
                    "prompts": [], "suspicions": [], "pot": [], "events": len(self.log),
                    "question": None, "questions": [], "questions_waiting": 0,
                    "assumptions": [], "titles_assumed": 0,
                    "pending_duties": self.book.pending_duties(False), "turn": None}
        titles = titles_for(g.order) if g.over else None
        players = []
        for i, name in enumerate(g.players):
            s = g.seats[name]
            players.append({"name": name, "seat": i, "phase": s.phase(g.stock),
                            "hand": s.hand, "face_up": s.face_up, "face_down": s.face_down,
                            "out": s.out, "place": s.place, "burns": s.burns,
                            "known_hand": g.ledger.known_hand(name),
                            "title": titles.get(name) if titles else None,
                            "dealer": name == g.dealer})
        return {
            "game": g.number, "preset": g.preset.name, "decks": g.decks, "players": players,
            "dealer": g.dealer, "turn": g.turn,
            "direction": "clockwise" if g.direction == 1 else "counterclockwise",
            "next": g.next, "pot": [pc.card for pc in g.pot], "stock": g.stock,
            "pot_illegal": [i for i, pc in enumerate(g.pot) if not pc.counts],
            "penalty": g.penalty,
            "burns": {"total": g.burns, "by_player": {p: g.seats[p].burns for p in g.players}},
            "finishing_order": list(g.order), "over": g.over, "titles": titles,
            "latest_ruling": g.last_ruling, "prompts": list(g.prompts),
            "suspicions": list(g.suspicions), "awaiting_target": g.awaiting_target is not None,
            "target": g.target, "pending_duties": self.book.pending_duties(g.started),
            "burned": g.ledger.burned(), "held": list(g.held), "ended_at": g.end_seq,
            "events": len(self.log), "jokers": g.decks * g.preset.table.jokers_per_deck,
            **self._question_view(g),
            "fits": None if g.over else [r for r in (*RANKS, JOKER) if pilelib.fits(g.preset, g.pile, r)],
        }


    def asked(self) -> int:
        """How many questions the current game has shown as the one to answer. History, not
        the game: a person's late answer or a play added later changes what was shown."""
        return len(self.game.asked) if self.game else 0

    def _question_view(self, g: Game) -> dict:
        """The questions for the pages: the one that changes the game most (`question`), how
        many wait behind it, all of them for the operator, and every assumption made."""
        qs = [a.to_dict() for a in self._questions(g)]
        basis = g.assumptions.get(g.basis) if g.basis else None
        q = self._question(g)
        return {"question": q.to_dict() if q else None, "questions": qs,
                "questions_waiting": len(qs) - (1 if q else 0),
                # a pick-up the rules answered is shown once evidence changed it
                "assumptions": [a.to_dict() for a in g.assumptions.values()
                                if not (a.quiet and a.kind == "picked_up" and a.status != CHANGED)],
                "turn_assumed": basis is not None and not basis.quiet and not g.over,
                "titles_assumed": sum(a.is_open and not a.quiet for a in g.assumptions.values())
                if g.over else 0}


def said_who_played(log: list[dict]) -> set[int]:
    """The plays of `log` whose player a person named (a `played_by` not voided since): their
    word, which outweighs what the camera's sides made of those plays."""
    voided = _voided(log)
    return {ev["event"] for ev in log if ev["type"] == "played_by" and ev["seq"] not in voided}


def _voided(log: list[dict]) -> set[int]:
    """Seqs voided by the log; a later void can void an earlier void (undo of an undo)."""
    voided: set[int] = set()
    for ev in reversed(log):
        if ev["type"] == "void" and ev["seq"] not in voided:
            voided.add(ev["event"])
    return voided
