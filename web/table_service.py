"""The table as the web app sees it: the event log, the referee fed from it, and the push.

Order of every change: check the event (web.validate), let the referee rule it, commit it to
the store, and only then publish it to the open pages. A bad event changes nothing (the
referee is rebuilt from the log if it had already taken it in). On start-up the whole log is
replayed, so a restarted server resumes the same game.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from . import referee_link as rl
from .errors import ApiError
from .events_stream import Broadcaster
from .happening import last_happening
from .store import Store
from .validate import TABLE_TYPES, normalise


class TableService:
    """One table's evening: its log in `store`, its referee in memory."""

    def __init__(self, store: Store, broadcaster: Broadcaster, evening_id: int | None = None,
                 table_name: str = "main"):
        self.store = store
        self.table_name = table_name
        self.broadcaster = broadcaster
        self.lock = threading.RLock()
        self.evening_id = (evening_id or store.latest_evening(table_name)
                           or store.new_evening(table=table_name))
        self.log: list[dict] = []
        self.referee: Any = None
        self.evening: Any = None
        self.load()

    # --- state --------------------------------------------------------------------------
    def load(self) -> None:
        """Rebuild everything from the committed log."""
        with self.lock:
            self.log = self.store.events(self.evening_id)
            self._rebuild()

    def _rebuild(self) -> None:
        self.referee, self.evening, _ = rl.replay(self.log)

    @property
    def outputs(self) -> dict[int, list[dict]]:
        """What the referee produced for each event (revised after corrections)."""
        return rl.outputs(self.referee)

    def new_evening(self, name: str | None = None) -> int:
        with self.lock:
            self.evening_id = self.store.new_evening(name, table=self.table_name)
            self.load()
        self.broadcaster.publish("reload", {"evening": self.evening_id})
        return self.evening_id

    # --- what the pages show --------------------------------------------------------------
    def setup_event(self) -> dict | None:
        for ev in reversed(self.log):
            if ev["type"] == "setup":
                return ev
        return None

    def players(self) -> list[str] | None:
        s = self.setup_event()
        return list(s["players"]) if s else None

    def view(self) -> dict:
        with self.lock:
            v = rl.view(self.referee)
            order = self.referee.play_order()  # once: an evening is thousands of events
            setup = self.setup_event()
            return {
                "evening": self.evening_id,
                "seq": len(self.log),
                "game": setup.get("game") if setup else None,
                "players": setup["players"] if setup else [],
                "preset": setup.get("preset") if setup else None,
                "table": v,
                "summary": self.summary(v),
                "latest": self.latest_ruling(order),
                "last": self.last_happened(v, order),
                "happened": last_happening(self.log, self.outputs),
                "referee": getattr(self.referee, "replay_error", None) or rl.status(),
            }

    def summary(self, v: dict | None = None) -> dict:
        """The current game's questions and taps: how many questions the page showed as the
        one to answer, how many are open, how many events people sent since the set-up."""
        with self.lock:
            v = v if v is not None else rl.view(self.referee)
            setup = self.setup_event()
            start = setup["seq"] if setup else 0
            taps = sum(1 for e in self.log[start:] if e.get("source") == "operator")
            asked = rl.asked(self.referee)
            open_ = len(v.get("questions") or [])
            text = (f"{asked} question(s) asked, {open_} still open; {taps} tap(s) taken"
                    + (f"; the titles rest on {v['titles_assumed']} assumption(s)" if v.get("titles_assumed") else ""))
            return {"asked": asked, "open": open_, "taps": taps, "text": text}

    def latest_ruling(self, order: list[int] | None = None) -> dict | None:
        """The latest ruling in the order of play (a play added as missed comes where it
        happened), and whether a person settled its event since (corrected, confirmed as
        read, or voided it): the banner then asks for no check."""
        for seq in reversed(order if order is not None else self.referee.play_order()):
            ev = self.log[seq - 1]
            for out in reversed(self.outputs.get(seq, [])):
                if rl.kind(out) == "ruling":
                    return {"seq": seq, "event": ev, "ruling": out, "text": rl.plain(out, ev),
                            "settled": _settles([e for e in self.log[seq:] if e.get("event") == seq])}
        return None

    def last_happened(self, table: dict | None = None, order: list[int] | None = None) -> dict | None:
        """What happened last, in the order of play, for the banner: a play's ruling, a pick-up,
        a burn, a player out, the game's end (with its titles), or the current game's set-up.
        The latest ruling alone (`latest`) said "at most 7" over a pot picked up since.
        `{"seq", "kind", "text", "next", "turn", "titles"}`; `next` and `turn` as they are now."""
        table = table if table is not None else rl.view(self.referee)
        game = getattr(self.referee, "game", None)
        rank = {"game_over": 0, "ruling": 1, "pickup": 2, "out": 3, "burn": 4}  # one event's several
        for seq in reversed(order if order is not None else self.referee.play_order()):
            ev = self.log[seq - 1]
            outs = [o for o in self.outputs.get(seq, []) if rl.kind(o) in rank]
            if not outs and not (game is not None and seq == game.setup_seq):
                continue
            now = {"seq": seq, "next": table.get("next"), "turn": table.get("turn"), "titles": None}
            if not outs:
                return dict(now, kind="setup", text=f"Game {game.number} is set up: "
                                                    f"{', '.join(game.players)}")
            o = min(outs, key=lambda x: rank[rl.kind(x)])
            return dict(now, kind=rl.kind(o), text=rl.plain(o, ev),
                        titles=o.get("titles") if rl.kind(o) == "game_over" else None)
        return None

    def game_from(self) -> int:
        """Where the current game's events begin: its set-up, or the first of the plays that
        set-up found held in the game before (the page offers to add them to this one)."""
        with self.lock:
            game = self.referee.game
            if game is None:
                return 1
            held = [seq for out in self.outputs.get(game.setup_seq, []) if isinstance(out.get("held"), list)
                    for seq in out["held"]]
            return min([game.setup_seq, *held])

    def entries(self, since: int = 1) -> list[dict]:
        """The events from `since` on (every one by default) with their outputs and the
        corrections that point at them, newest first."""
        with self.lock:
            events = self.log[max(since, 1) - 1:]  # a correction comes after the event it names
            fixes: dict[int, list[dict]] = {}
            for ev in events:
                ref = ev.get("event") or (ev.get("meta") or {}).get("event")
                if ev["type"] in ("correct", "missed", "void", "played_by", "target", "picked_up", "confirm", "note") and ref:
                    fixes.setdefault(int(ref), []).append(ev)
            rows = []
            for ev in reversed(events):
                outs = self.outputs.get(ev["seq"], [])
                rows.append({"event": ev, "outputs": [dict(o, kind=rl.kind(o), plain=rl.plain(o, ev))
                                                      for o in outs],
                             "fixes": fixes.get(ev["seq"], []), "settled": _settles(fixes.get(ev["seq"], []))})
            return rows

    def game_over(self) -> bool:
        return bool(rl.game_over(self.referee))

    def misreads(self) -> list[dict]:
        """The ranks a person corrected the camera's reads of this evening, most often first:
        `{"read": "6", "was": "Q", "times": 2}`. The same misread again and again is a deck
        design the model never saw, and what teaching the deck is for."""
        with self.lock:
            return rank_misreads(self.log)

    # --- changes ------------------------------------------------------------------------
    def _repeat(self, raw: Any) -> dict | None:
        """A request sent again with the same `meta.rid` (its answer was lost: a dropped
        connection, a server killed after the commit): the event already recorded, not a
        second one. The rid is kept in the event, so this holds across restarts."""
        meta = raw.get("meta") if isinstance(raw, dict) else None
        rid = meta.get("rid") if isinstance(meta, dict) else None
        if rid is None:
            return None
        if not isinstance(rid, str) or not 1 <= len(rid) <= 80:
            raise ApiError(400, "meta.rid must be a short string (a request id, at most 80 characters)")
        for ev in reversed(self.log):
            if isinstance(ev.get("meta"), dict) and ev["meta"].get("rid") == rid:
                if ev.get("type") != raw.get("type", ev.get("type")):
                    raise ApiError(409, f"request id {rid!r} was already used for event {ev['seq']} "
                                        f"({ev['type']}): send a new id for a new event")
                outs = self.outputs.get(ev["seq"], [])
                return {"event": ev, "outputs": [dict(o, kind=rl.kind(o), plain=rl.plain(o, ev)) for o in outs],
                        "view": self.view(), "repeat": True, "published": time.time()}
        return None

    def submit(self, raw: Any, *, source: str, by: str | None = None,
               allowed: tuple[str, ...] = TABLE_TYPES, before_apply=None) -> dict:
        """Check, rule, commit, publish one event; returns what was published.

        `before_apply(event, referee)` may refuse (raise ApiError) the checked event before the
        referee takes it, for a reason only the web knows (a phone voting in someone else's
        name); it runs under the table's lock, so its checks and the commit are one step."""
        with self.lock:
            again = self._repeat(raw)
            if again is not None:
                return again
            fields = normalise(raw, log=self.log, players=self.players(), presets=rl.presets(),
                               game_over=self.game_over(), allowed=allowed, source=source)
            ev = {"seq": len(self.log) + 1, "t": round(time.time(), 3), "source": source, **fields}
            if by:
                ev["meta"] = {**ev.get("meta", {}), "by": by}
            if ev["type"] == "setup":
                ev["game"] = 1 + sum(1 for e in self.log if e["type"] == "setup")
            if before_apply is not None:
                before_apply(ev, self.referee)
            try:
                outs = rl.apply(self.referee, self.evening, ev)
            except ValueError as exc:  # refused: the referee is left as it was
                raise ApiError(400, f"the referee refused this event: {exc}") from None
            if self.referee is not None and getattr(self.referee, "log", None):
                ev = dict(self.referee.log[-1])  # as normalised by the referee (implied refs filled in)
            try:
                self.store.append(self.evening_id, ev)
            except Exception:
                self._rebuild()  # not committed: the referee must forget it too
                raise
            self.log.append(ev)
            payload = {"event": ev, "outputs": [dict(o, kind=rl.kind(o), plain=rl.plain(o, ev)) for o in outs],
                       "view": self.view()}
            payload["published"] = time.time()
            # inside the lock, so pages get updates in log order (publishing never blocks)
            self.broadcaster.publish("update", payload)
        return payload


def rank_misreads(log: list[dict]) -> list[dict]:
    """`TableService.misreads` over `log`: each person's correction of a camera play that put
    one rank in the place of another (a suit, or a card more or less, is no misread rank)."""
    from collections import Counter

    from referee.cards import rank_of

    by_seq = {ev["seq"]: ev for ev in log}
    seen: Counter = Counter()
    for ev in log:
        if ev["type"] != "correct" or ev.get("source") == "camera":
            continue
        target = by_seq.get(ev.get("event"))
        if not target or target.get("source") != "camera" or target["type"] != "cards_played":
            continue
        read = Counter(rank_of(c) for c in target.get("cards") or [] if c != "JK")
        was = Counter(rank_of(c) for c in ev.get("cards") or [] if c != "JK")
        wrong, right = read - was, was - read
        if len(wrong) == 1 and len(right) == 1:
            seen[(next(iter(wrong)), next(iter(right)))] += 1
    return [{"read": r, "was": w, "times": n} for (r, w), n in seen.most_common()]


def _settles(fixes: list[dict]) -> bool:
    """Did a person settle the event these fixes name (corrected it, confirmed it as read, or
    voided it)? Its check is then asked no more; the camera's own correction settles nothing."""
    return any(f["type"] == "void" or (f["type"] == "correct" and f.get("source") != "camera") for f in fixes)
