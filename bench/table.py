"""The table benchmark: whole held-out games through the real app, with and without a person.

Each game video of `bench/pipeline.py` (rendered there, found under data/) goes through what a
table runs: the camera runner, the pot watcher, the table service and its store (as
`bench/demo.py` runs the demo), in three modes:

1. `none`: nobody answers or corrects. Scored: the plays ruled right as they happened (the
   player, the cards and the verdict the script's referee gives that play, at the moment the
   camera decided it), the longest stretch of plays with the turn unknown or wrong then, the
   plays ruled with no player at all, the most questions open at any moment, and whether the
   finishing order and titles come out as the script's.
2. `person`: a person answers what the page asks, in the order asked, rightly (the truth answers
   each question; the camera's errors are fixed with the page's one-tap offers where one fits,
   else by the card picker, as `datasets.game_video.fix_taps` counts). Scored: the taps until
   every ruling and the titles are right, split into camera errors and facts the camera cannot
   see (who an Ace gave the pot to, who played out of turn, who took the pot, the counts).
3. `answer`: `bench/pipeline.py --answer`, called unchanged, so its figures stay comparable.

With `--seats` the pot watcher gets each player's side as an operator draws it; without, the
sides masta proposes from the first plays' arms (`vision.seat_sides`) are accepted as they come.

    .venv/bin/python bench/table.py --size 1280x720 --seats                  # the 10 benchmark games
    .venv/bin/python bench/table.py --size 1280x720                          # sides proposed, not drawn
    .venv/bin/python bench/table.py --size 1280x720 --seats --first-seed 300 # ten games never used
    .venv/bin/python bench/table.py --video assets/demo/demo-game.mp4 --modes none,person
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.demo import compare, played, script_referee  # noqa: E402
from bench.pipeline import (SIZE, build_parser, ensure_video, paths_beside, run_one,  # noqa: E402
                            summarise, video_paths)
from datasets.game_video import fix_taps, missed_taps, one_tap_fixes, read_truth, seat_zones  # noqa: E402
from referee.events import COMMON_KEYS, EVENT_SPECS  # noqa: E402
from referee.table import is_camera_mismatch  # noqa: E402
from vision.frame_size import frame_size  # noqa: E402
from web.demo_operator import EARLY_S, LATE_S, DemoOperator, ScriptedPlay, _shared, scripted_plays  # noqa: E402
from web.errors import ApiError  # noqa: E402

MODES = ("none", "person", "answer")
#: the person's taps that answer what the camera cannot see; the rest fix the camera's errors
UNSEEN = ("target", "played_by", "picked_up", "counts")


def decision_of(ev: dict) -> dict:
    """A camera event of the log as `datasets.game_video.one_tap_fixes` weighs what the page
    offers for it: its cards, whether it asks, its reads and its likely others."""
    meta = ev.get("meta") or {}
    mismatch = is_camera_mismatch(ev)
    return {"type": "mismatch" if mismatch else ev["type"],
            "cards": list(meta.get("cards") or []) if mismatch else list(ev.get("cards") or []),
            "low_conf": bool(meta.get("low_conf")) or mismatch, "more": list(meta.get("maybe_more") or []),
            "less": list(meta.get("maybe_less") or []), "reads": list(meta.get("reads") or []),
            "gone": bool(meta.get("gone")), "guesses": list(meta.get("guesses") or [])}


def open_questions(view: dict) -> tuple[int, int]:
    """(open, shown): the questions the table has open now, and those the page shows the
    spectators. A referee that asks one at a time says which (`question`, the rest waiting in
    `questions`); else every prompt is shown."""
    tv = view.get("table") or {}
    if "question" in tv:
        return len(tv.get("questions") or []), int(bool(tv.get("question")))
    prompts = len(tv.get("prompts") or [])
    return prompts, prompts


def script_plays(truth_log: Path) -> list[dict]:
    """Each play of the script with the ruling its referee gives it: `t_rest`, `player`,
    `cards` (sorted), `verdict`, in the order of play."""
    plays = [e for e in read_truth(truth_log).events if e.get("type") == "cards_played"]
    rulings = played(script_referee(truth_log))
    if len(rulings) != len(plays):
        raise SystemExit(f"{truth_log}: {len(plays)} plays but {len(rulings)} rulings in its script")
    return [{"t_rest": float(p.get("t_rest", p.get("t", 0.0))), "player": r[0], "cards": list(r[1]),
             "verdict": r[2]} for p, r in zip(plays, rulings)]


@dataclass
class Moment:
    """What the table showed right after one camera event (`Observer`)."""
    seq: int
    t: float | None
    kind: str
    questions: int
    shown: int
    turn: str | None
    over: bool
    ruling: tuple | None = None  # (player, cards, verdict) of a play, as ruled then
    play: int | None = None      # the script's play it was, by its place in the order of play
    seat: str | None = None      # the side the camera said the arm came from


class Observer:
    """Told of each camera event right after it is recorded: what the table shows then."""

    def __init__(self, table, plays: list[dict]):
        self.table = table
        self.plays = plays
        self.used: set[int] = set()
        self.moments: list[Moment] = []

    def __call__(self, event: dict, video_t: float | None) -> None:
        view = self.table.view()
        tv = view.get("table") or {}
        m = Moment(event["seq"], video_t, event["type"], *open_questions(view), tv.get("turn"), bool(tv.get("over")))
        m.seat = (event.get("meta") or {}).get("seat")
        if event["type"] == "cards_played" and video_t is not None:
            rd = next((o for o in self.table.outputs.get(event["seq"], []) if o.get("kind") == "ruling"), None)
            if rd is not None:
                m.ruling = (rd.get("player"), tuple(sorted(rd.get("cards") or [])), rd.get("verdict"))
            near = [i for i, p in enumerate(self.plays) if i not in self.used
                    and p["t_rest"] - EARLY_S <= video_t <= p["t_rest"] + LATE_S]
            if near:
                m.play = max(near, key=lambda i: (_shared(event.get("cards") or [], self.plays[i]["cards"]),
                                                  self.plays[i]["t_rest"]))
                self.used.add(m.play)
        self.moments.append(m)

    def scores(self) -> dict:
        """Plays ruled right as they happened; the longest stretch of the script's plays the
        camera saw with the player unknown or wrong then (plays it missed are skipped); plays
        ruled with nobody named; the most questions open at once."""
        by_play = {m.play: m for m in self.moments if m.play is not None}
        right = stretch = longest = unknown = 0
        sides = Counter({"right": 0, "wrong": 0, "none": 0})
        for i, p in enumerate(self.plays):
            m = by_play.get(i)
            if m is None:
                continue
            sides["none" if not m.seat else "right" if m.seat == p["player"] else "wrong"] += 1
            if m.ruling == (p["player"], tuple(p["cards"]), p["verdict"]):
                right += 1
            player = m.ruling[0] if m.ruling else None
            unknown += player is None
            stretch = stretch + 1 if player != p["player"] else 0
            longest = max(longest, stretch)
        return {"plays": len(self.plays), "plays_seen": len(by_play), "right_as_happened": right,
                "longest_turn_lost": longest, "no_player": unknown,
                "most_questions": max((m.questions for m in self.moments), default=0),
                "most_shown": max((m.shown for m in self.moments), default=0),
                # the game stalls: the referee knows (or assumes) nobody's turn
                "turn_unknown": sum(m.turn is None and not m.over for m in self.moments),
                "side_hints": dict(sides)}


@dataclass
class Taps:
    camera: int = 0
    unseen: int = 0
    by_kind: Counter = field(default_factory=Counter)


class Person(DemoOperator):
    """Mode 2: a person who answers what the page asks, rightly, and fixes what the camera got
    wrong, counting the taps (`DemoOperator` matches each camera event with the script's
    play; this adds the taps, the clears, and the questions the script has no answer for).
    An answer the referee already has right (its assumption was right) costs nothing; a fact
    the referee assumed (who an Ace hit, who played) waits for the page to ask it, since the
    camera's next play often settles it first; a play ruled as someone else's that nobody
    will be asked about is named at once."""

    def __init__(self, table, truth_log: Path):
        super().__init__(table, scripted_plays(truth_log))
        truth = read_truth(truth_log)
        self.truth_log = truth_log
        self.clears = [dict(e, seen=False) for e in truth.events if e.get("type") == "pot_cleared"]
        self.taps = Taps()
        self.answered: set = set()
        self.confirmed = 0  # questions whose likely answer was right
        self.left_alone: set[str] = set()  # right as shown: left to step aside by themselves
        self.waited = 0  # unseen facts left to the page's question (or to the camera)
        self.deferred: list[dict] = []  # those facts, looked at again once no longer asked

    # -- what each tap costs ------------------------------------------------------------
    def _cost(self, tap: dict) -> tuple[str, int] | None:
        """(kind, taps) of a tap, or None where the referee already has it right."""
        kind = tap["type"]
        if kind in ("played_by", "target"):
            if self._already(tap):
                return None
            return "unseen", 1
        if kind in ("picked_up", "counts"):
            return "unseen", 1
        if kind == "correct":
            if self._assumed_cards(tap):
                return None
            return "camera", fix_taps(decision_of(self.table.log[tap["event"] - 1]), tap["cards"])
        if kind == "missed":
            return "camera", missed_taps(tap.get("cards"))
        if kind == "void":
            return "camera", fix_taps(decision_of(self.table.log[tap["event"] - 1]), None)
        return "camera", 1

    def _assumed_cards(self, tap: dict) -> bool:
        """Did the referee go on with a camera mismatch as the very play it was (its `cards`
        assumption)? Then the person has nothing to tap: like any right assumption, its
        question steps aside after a round of play."""
        if not is_camera_mismatch(self.table.log[tap["event"] - 1]):
            return False
        return any(a.get("kind") == "cards" and a.get("status") != "changed"
                   and sorted(str(a.get("value") or "").split()) == sorted(tap["cards"])
                   for a in self._assumptions(tap["event"]))

    def _assumptions(self, seq: int, view: dict | None = None) -> list[dict]:
        """What the referee went on assuming about event `seq`."""
        view = self.table.referee.view() if view is None else view
        return [a for a in view.get("assumptions") or [] if a.get("event") == seq]

    def _waits(self, tap: dict) -> bool:
        """Is this fact one the referee went on assuming, to be asked on the page (one question
        at a time) or settled by the camera's next play? Then the person waits for the page:
        they answer what it asks, not what the script knows."""
        if tap["type"] not in ("played_by", "target"):
            return False
        return any(a.get("status") == "open" and (a.get("answer") or {}).get("type") == tap["type"]
                   for a in self._assumptions(tap["event"]))

    def _already(self, tap: dict) -> bool:
        """Does the referee already have this answer (no question about it open)? A right
        assumption waits until the page asks about it."""
        seq = tap["event"]
        view = self.table.referee.view()
        # an assumption still open, or settled by the camera since (seen, or changed to it)
        assumed = next((a for a in self._assumptions(seq, view)
                        if (a.get("answer") or {}).get("type") == tap["type"]), None)
        if assumed is not None:
            return assumed.get("value") == tap["player"]
        if any(p.get("event") == seq for p in view.get("prompts") or []):
            return False
        if tap["type"] == "played_by":
            rd = next((o for o in self.table.outputs.get(seq, []) if o.get("kind") == "ruling"), None)
            return rd is not None and rd.get("player") == tap["player"]
        return tap["player"] in (view.get("target"), view.get("turn"))

    def _submit(self, tap: dict, asked: bool = False, camera: bool = False) -> dict | None:
        cost = ("unseen", 1) if asked else self._cost(tap)
        if cost is None:
            return None
        if camera:
            cost = ("camera", cost[1])
        if not asked and self._waits(tap):
            self.waited += 1
            self.deferred.append(dict(tap, camera=camera))
            return None
        try:
            out = self.table.submit(tap, source="operator", by="bench person")
        except ApiError:  # refused (the game ended on a misread, say): the question stays
            return None
        kind, n = cost
        if kind == "camera":
            self.taps.camera += n
        else:
            self.taps.unseen += n
        self.taps.by_kind[tap["type"]] += n
        return out

    # -- the clears, which the script's operator leaves alone -----------------------------
    def _add_missed(self, upto: ScriptedPlay, seq: int) -> None:
        setup = self.table.setup_event()["seq"]
        for c in self.clears:  # a clear the camera never saw, before this play: added where it went
            if c["seen"] or c["t_rest"] >= upto.t_rest:
                continue
            earlier = [q for q in self.plays if not q.seen and q.t_rest < c["t_rest"]]
            if earlier:  # the plays missed before it go first
                super()._add_missed(earlier[-1], seq)
            c["seen"] = True
            at = max((s for t, s in self.decided if t < c["t_rest"] and setup < s < seq), default=setup)
            self._submit({"type": "missed", "event": at, "cleared": True})
        super()._add_missed(upto, seq)

    def after_camera(self, event: dict, video_t: float | None) -> None:
        if event.get("type") == "pot_cleared" and video_t is not None:
            self.decided.append((video_t, event["seq"]))
            near = [c for c in self.clears if not c["seen"] and c["t_rest"] - 0.05 <= video_t <= c["t_rest"] + LATE_S]
            if near:
                near[0]["seen"] = True
            else:  # no clear then: it did not happen
                self._submit({"type": "void", "event": event["seq"]})
        else:
            before = set(self.matched)
            covered = self._covered_play(event, video_t)
            if covered is not None:  # named on the note, one tap
                self.decided.append((video_t, event["seq"]))
                self._take(event["seq"], covered, correct=True)
            else:
                super().after_camera(event, video_t)
            if (event.get("type") == "cards_played" and video_t is not None and event["seq"] not in self.matched
                    and event["seq"] not in before):  # a play that never happened
                self._submit({"type": "void", "event": event["seq"]})
            else:
                for seq in sorted(set(self.matched) - before):  # this play, and those added before it
                    self._fix_player(seq)
        self._answer_questions(video_t)
        self._look_again()

    def _covered_play(self, event: dict, video_t: float | None) -> ScriptedPlay | None:
        """A mismatch whose cards were covered by a card the camera could not read offers what
        it half read there ("Played here: 7♠", `meta.guesses`): the script's play then, where
        that is one of the offers. The person taps it on the note rather than adding the play
        as missed; the script's operator leaves such a note alone."""
        meta = event.get("meta") or {}
        if not (is_camera_mismatch(event) and meta.get("gone") and meta.get("guesses")) or video_t is None:
            return None
        offers = [sorted(f) for f in one_tap_fixes(decision_of(event))]
        return next((p for p in self.plays if not p.seen and p.t_rest - EARLY_S <= video_t <= p.t_rest + LATE_S
                     and sorted(p.cards) in offers), None)

    def _look_again(self) -> None:
        """A fact the person waited on that the referee no longer asks about (the camera
        settled it, or it stepped aside) and still has wrong: named now, as a fix."""
        waiting, self.deferred = self.deferred, []
        for tap in waiting:
            if self._waits(tap):
                self.deferred.append(tap)
                continue
            camera = tap.pop("camera")
            if tap["type"] == "played_by" and tap["event"] not in self.table.outputs:
                continue  # voided since
            self._submit(tap, camera=camera)

    def _fix_player(self, seq: int) -> None:
        """A play ruled as another player's with no question about it: the person names who
        played, as the rulings page lets them. A camera error where the camera named a side
        (it read the arm wrong), else a fact it could not see. Where the referee assumed and
        will ask, they wait for the page."""
        tap = self._truth_answer({"prompt": "who_played", "event": seq}, None)
        rd = next((o for o in self.table.outputs.get(seq, []) if o.get("kind") == "ruling"), None)
        if tap is None or rd is None or rd.get("player") in (None, tap["player"]):
            return  # (one the referee will ask about waits in `_submit`, and is looked at again)
        self._submit(tap, camera=bool((self.table.log[seq - 1].get("meta") or {}).get("seat")))

    def finish(self) -> None:
        """Once the video has ended: what the page asks then (who was left holding cards).
        Naming at the end every play and pick-up still wrong was tried: 25.9 taps a game and
        7 games all right on 100-109, against 24.5 and 8 without it (a pick-up matched to the
        wrong clear by time does harm)."""
        self._answer_questions(None)
        self._look_again()

    def _answer_questions(self, video_t: float | None) -> None:
        """The questions the page asks, each answered once from the truth: the one it shows
        where the referee asks one at a time, left alone where its likely answer is right (or
        the truth has none: it steps aside by itself after a round of play; once the game is
        over, confirmed with a tap to see the next), else the prompts, oldest first."""
        for _ in range(20):
            view = self.table.referee.view()
            if "question" in view:
                q = view.get("question")
                over = bool(view.get("over"))
                if not q or (q["key"] in self.answered and not (over and q["key"] in self.left_alone)):
                    return
                self.answered.add(q["key"])
                self.left_alone.discard(q["key"])
                player = self._truth_player(q, video_t) or q["value"]
                if player == q["value"]:
                    self.confirmed += 1
                    if not over:  # no tap: it steps aside after a round of play
                        self.left_alone.add(q["key"])
                        return
                self._submit({"type": q["answer"]["type"], "event": q["answer"]["event"], "player": player},
                             asked=True)
                continue
            prompts = (view.get("prompts") or [])
            todo = [p for p in prompts if self._key(p) not in self.answered]
            if not todo:
                return
            q = todo[0]
            self.answered.add(self._key(q))
            tap = self._truth_answer(q, video_t)
            if tap is not None:
                self._submit(tap)

    def _truth_player(self, q: dict, video_t: float | None) -> str | None:
        """The truth's answer to a one-at-a-time question (`referee.assume.Assumption`)."""
        if q["kind"] == "end":  # who was left holding cards: the script's last place
            order = script_referee(self.truth_log).view().get("finishing_order") or []
            return order[-1] if order else None
        kind = {"player": "who_played", "starter": "who_played", "picked_up": "who_picked_up"}.get(q["kind"], q["kind"])
        tap = self._truth_answer({"prompt": kind, "event": q["event"]}, video_t)
        return tap["player"] if tap else None

    @staticmethod
    def _key(p: dict) -> tuple:
        return p.get("prompt"), p.get("event"), p.get("player")

    def _truth_answer(self, q: dict, video_t: float | None) -> dict | None:
        kind, seq = q.get("prompt"), q.get("event")
        if kind in ("who_played", "target"):
            play = self.matched.get(seq)
            if play is None:
                return None
            if kind == "target":
                answer = next((a for a in play.answers if a["type"] == "target"), None)
                return dict(answer, event=seq) if answer else None
            t = next((p for p in script_plays_cache(self.truth_log) if abs(p["t_rest"] - play.t_rest) < 1e-6), None)
            return {"type": "played_by", "event": seq, "player": t["player"]} if t and t["player"] else None
        if kind == "who_picked_up":
            t = next((at for at, s in self.decided if s == seq), None)
            clear = next((c for c in self.clears if t is not None and c["t_rest"] - 0.05 <= t <= c["t_rest"] + LATE_S
                          and c.get("player")), None)
            return {"type": "picked_up", "event": seq, "player": clear["player"]} if clear else None
        if kind == "desync" and q.get("player") and video_t is not None:
            counts = script_counts(self.truth_log, video_t).get(q["player"])
            return dict(counts, type="counts", player=q["player"]) if counts else None
        return None


_PLAYS: dict[Path, list[dict]] = {}


def script_plays_cache(truth_log: Path) -> list[dict]:
    if truth_log not in _PLAYS:
        _PLAYS[truth_log] = script_plays(truth_log)
    return _PLAYS[truth_log]


def script_counts(truth_log: Path, t: float) -> dict[str, dict]:
    """Each player's cards (hand, face-up, face-down) in the script's game at video time `t`."""
    from referee.table import TableReferee

    ref = TableReferee()
    for ev in read_truth(truth_log).events:
        if float(ev.get("t_rest", ev.get("t", 0.0))) > t:
            break
        spec = EVENT_SPECS[ev["type"]]
        keep = set(COMMON_KEYS) | set(spec.required) | set(spec.optional)
        ref.apply({k: v for k, v in ev.items() if k in keep and k != "seq"})
    return {p["name"]: {"hand": p["hand"], "face_up": p["face_up"], "face_down": p["face_down"]}
            for p in ref.view().get("players") or []}


def run_table(paths: dict[str, Path], mode: str, seats: bool, model: Path, timeout: float = 3600.0,
              logs: Path | None = None) -> dict:
    """One game through the app in mode `none` or `person` (see the module)."""
    from web.app import create_app
    from web.camera import attach_camera, load_detector, wait_for
    from web.config import Config

    truth = read_truth(paths["truth"])
    spec = EVENT_SPECS["setup"]
    setup = {k: v for k, v in truth.events[0].items() if k in set(spec.required) | set(spec.optional)}
    plays = script_plays_cache(paths["truth"])
    with tempfile.TemporaryDirectory() as d:
        app = create_app(Config(data_dir=Path(d), token="bench"))
        table = app.extensions["masta.table"]
        table.submit(dict(setup, type="setup"), source="operator")
        if seats:  # each player's side, as an operator draws it on the set-up page
            app.extensions["masta.store"].set_setting(
                "seat_zones", {k: list(v) for k, v in seat_zones(truth.meta, setup["players"]).items()})
        observer = Observer(table, plays)
        person = Person(table, paths["truth"]) if mode == "person" else None

        def after(event: dict, video_t: float | None) -> None:
            observer(event, video_t)  # what the table showed before anyone answered
            if person is not None:
                person.after_camera(event, video_t)

        t0 = time.perf_counter()
        kw = {} if seats else {"accept_sides": True}
        runner = attach_camera(app, load_detector(model), str(paths["video"]), pace=False, after_event=after, **kw)
        try:
            if not wait_for(lambda: runner._threads and not runner._threads[0].is_alive(), timeout):
                raise SystemExit(f"{paths['video']} did not end within {timeout:.0f} s")
        finally:
            runner.stop()
        if person is not None:
            person.finish()
        game = compare(table.referee, script_referee(paths["truth"]))
        if logs is not None:  # the game's event log, for `masta replay` or a closer look
            logs.mkdir(parents=True, exist_ok=True)
            (logs / f"{paths['video'].stem}-{mode}.jsonl").write_text(
                "".join(json.dumps(e) + "\n" for e in table.log), encoding="utf-8")
        row = {"video": paths["video"].name, "players": len(setup["players"]), "mode": mode, "seats": seats,
               "seconds": round(time.perf_counter() - t0, 1), **observer.scores(),
               "same_in_order": game["same_in_order"], "script_rulings": game["script_rulings"],
               "all_rulings_right": game["identical"], "titles_right": game["titles_same"],
               "order_right": game["finishing_order"] == script_referee(paths["truth"]).view().get("finishing_order"),
               "titles": game["titles"], "first_difference": game["first_difference"]}
        sides = app.extensions["masta.store"].get_setting("seat_zones") or {}
        row["sides"] = {k: list(v) for k, v in sides.items()}
        if person is not None:
            row.update(taps_camera=person.taps.camera, taps_unseen=person.taps.unseen,
                       taps_by_kind=dict(person.taps.by_kind), confirmed=person.confirmed, waited=person.waited)
        return row


def answer_mode(paths: dict[str, Path], seats: bool, model: Path, size, quiet: bool) -> dict:
    """Mode 3: `bench/pipeline.py --answer` (the model, nothing taught), called as it is."""
    return run_one(paths, "model", answer_args(seats, model, size, quiet))


def answer_args(seats: bool, model: Path, size, quiet: bool) -> argparse.Namespace:
    """`bench/pipeline.py --answer`'s arguments, through its own parser: its defaults as they are."""
    argv = ["--answer", "--model", str(model), "--size", f"{size[0]}x{size[1]}"]
    return build_parser().parse_args(argv + ["--seats"] * seats + ["--quiet"] * quiet)


def total(rows: list[dict], mode: str) -> dict:
    """The modes' figures over the games."""
    if mode == "answer":
        s = summarise(rows, "model")
        return {k: s[k] for k in ("videos", "play_precision", "play_recall", "clears_right", "clears", "extra",
                                  "perfect_games", "silent_errors", "one_tap_games", "taps", "unfixed")}
    n = len(rows)
    out = {"games": n, "plays": sum(r["plays"] for r in rows), "plays_seen": sum(r["plays_seen"] for r in rows),
           "right_as_happened": sum(r["right_as_happened"] for r in rows),
           "same_in_order": sum(r["same_in_order"] for r in rows),
           "longest_turn_lost": max((r["longest_turn_lost"] for r in rows), default=0),
           "no_player": sum(r["no_player"] for r in rows),
           "most_questions": max((r["most_questions"] for r in rows), default=0),
           "most_shown": max((r.get("most_shown", 0) for r in rows), default=0),
           "turn_unknown": sum(r.get("turn_unknown", 0) for r in rows),
           "games_all_right": sum(r["all_rulings_right"] for r in rows),
           "games_titles_right": sum(r["titles_right"] and r["order_right"] for r in rows),
           "side_hints": {k: sum(r["side_hints"].get(k, 0) for r in rows) for k in ("right", "wrong", "none")}}
    if mode == "person":
        out.update(taps_camera=sum(r["taps_camera"] for r in rows), taps_unseen=sum(r["taps_unseen"] for r in rows))
        out["taps_per_game"] = (out["taps_camera"] + out["taps_unseen"]) / max(1, n)
    return out


def line(r: dict, mode: str) -> str:
    if mode == "answer":
        return (f"{r['video']}: plays {r['right_plays']}/{r['truth_plays']}, clears {r['right_clears']}/"
                f"{r['truth_clears']}, extra {r['extra']}, taps {r['taps']}, unfixed {r['unfixed']}")
    s = (f"{r['video']}: {r['players']}p; as it happened {r['right_as_happened']}/{r['plays']} right "
         f"(seen {r['plays_seen']}); turn lost for {r['longest_turn_lost']} plays at most, {r['no_player']} "
         f"with nobody named; questions open at most {r['most_questions']} (shown {r.get('most_shown', '-')}); "
         f"turn unknown after {r.get('turn_unknown', '-')} camera events; in the end {r['same_in_order']}/"
         f"{r['script_rulings']} rulings, order and titles {'right' if r['titles_right'] and r['order_right'] else 'WRONG'}")
    if mode == "person":
        s += f"; taps {r['taps_camera']} camera + {r['taps_unseen']} unseen ({'all right' if r['all_rulings_right'] else 'NOT all right'})"
    return s + f"; {r['seconds']} s"


def wait_for_video(folder: Path, seed: int, timeout: float, quiet: bool) -> dict[str, Path]:
    """A video another process is rendering (`--wait`): its paths once all its files are
    written (the frames' truth is written last), else a clear error after `timeout` seconds."""
    paths = video_paths(folder, seed)
    end = time.time() + timeout
    said = False
    while not (all(p.is_file() for p in paths.values()) and time.time() - paths["frames"].stat().st_mtime > 5):
        if time.time() > end:
            raise SystemExit(f"{paths['video']} was not rendered within {timeout:.0f} s: render it with "
                             "bench/pipeline.py --render-only, or leave out --wait")
        if not said and not quiet:
            print(f"waiting for {paths['video'].name} to be rendered", flush=True)
            said = True
        time.sleep(10)
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default=f"{SIZE[0]}x{SIZE[1]}", type=frame_size, help="camera frame size WxH")
    ap.add_argument("--seats", action="store_true", help="each player's side drawn as an operator would "
                    "(else masta's proposed sides, accepted as they come)")
    ap.add_argument("--first-seed", type=int, default=100, help="seed of the first game (default 100: the "
                    "benchmark; 300: ten games never used)")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--videos", default=None, help="where the videos live (default as bench/pipeline.py)")
    ap.add_argument("--video", type=Path, default=None, help="this one video instead (its truth beside it)")
    ap.add_argument("--modes", default=",".join(MODES), help=f"comma separated, of {', '.join(MODES)}")
    ap.add_argument("--model", default="models/card_index_detector.onnx")
    ap.add_argument("--out", default=None, help="JSON report (default runs/bench-table-...json)")
    ap.add_argument("--wait", type=float, default=0, metavar="SECONDS",
                    help="wait up to this long for each video another process renders, instead of "
                         "rendering a missing one here")
    ap.add_argument("--logs", type=Path, default=None, metavar="DIR",
                    help="write each game's event log here (VIDEO-MODE.jsonl: `masta replay` reads it)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        ap.error(f"--modes {a.modes!r}: give some of {', '.join(MODES)}, comma separated")
    model = Path(a.model)
    if not model.is_file():
        ap.error(f"no trained model at {model}: run `masta train` first")
    suffix = "" if a.size == SIZE else f"-{a.size[0]}x{a.size[1]}"
    folder = Path(a.videos or f"data/bench-videos{suffix}")

    def video(k: int) -> dict[str, Path]:
        if a.video is not None:
            return paths_beside(a.video)
        if a.wait:
            return wait_for_video(folder, a.first_seed + k, a.wait, a.quiet)
        return ensure_video(folder, a.first_seed + k, a.quiet, None, a.size)

    out = Path(a.out or f"runs/bench-table-{a.first_seed}-{'seats' if a.seats else 'proposed'}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    report: dict = {"seats": "drawn" if a.seats else "proposed", "size": list(a.size), "modes": {}}
    for k in range(1 if a.video is not None else a.count):  # game by game: partial figures cover every mode
        paths = video(k)
        for mode in modes:
            rows = report["modes"].setdefault(mode, {"games": []})["games"]
            r = (answer_mode(paths, a.seats, model, a.size, a.quiet) if mode == "answer"
                 else run_table(paths, mode, a.seats, model, logs=a.logs))
            if mode == "answer":
                r = {key: v for key, v in r.items() if key != "decisions"}
            rows.append(r)
            report["modes"][mode]["total"] = total(rows, mode)
            print(f"[{mode}] {line(r, mode)}", flush=True)
            out.write_text(json.dumps(report, indent=1, default=list))
    for mode in modes:
        print(f"== {mode} ({report['seats']} sides): {json.dumps(report['modes'][mode]['total'])}", flush=True)
    print_table(report)
    print(f"wrote {out}")
    return 0


def print_table(report: dict) -> None:
    """One line a mode, the totals."""
    print(f"{'mode':8s} {'games':>5s} {'ruled right as it happened':>27s} {'in the end':>11s} {'turn lost':>9s} "
          f"{'questions (shown)':>17s} {'titles':>6s} {'taps cam+unseen':>15s}")
    for mode, data in report["modes"].items():
        t = data.get("total")
        if not t:
            continue
        if mode == "answer":
            print(f"{mode:8s} {t['videos']:5d} plays recall {t['play_recall']:.4f}, extra {t['extra']}, taps {t['taps']}, "
                  f"unfixed {t['unfixed']}")
            continue
        taps = f"{t['taps_camera']}+{t['taps_unseen']}" if mode == "person" else "-"
        print(f"{mode:8s} {t['games']:5d} {t['right_as_happened']:>18d}/{t['plays']:<8d} {t['same_in_order']:>11d} "
              f"{t['longest_turn_lost']:>9d} {t['most_questions']:>9d} ({t['most_shown']:>5d}) {t['games_titles_right']:>6d} "
              f"{taps:>15s}")


if __name__ == "__main__":
    sys.exit(main())
