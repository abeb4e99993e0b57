"""The pot watcher: turns per-frame card detections into pot events for the table referee.

The design, in the order a frame runs through it (docs/architecture.md, "The pot watcher"):

1. **A settled frame.** A cheap motion measure (`pot.pixels`) runs on every frame; the detector
   runs only once the pot zone has been still for `still_frames` frames, and a decision needs
   `read_frames` agreeing reads of that still scene (more, up to `max_reads`, while a new or top
   card flickers; none while an arm still crosses the zone's edge, up to `hand_patience`).
   The reads are merged into one `Observation` per physical card (`pot.settle.consensus`), each
   weighed by the referee's priors (`Priors`: burned cards, jokers not dealt, copies).
2. **What is new.** The settled frame is compared with the last one and with every card seen on
   this pot (`_new_cards`): a card seen before is not new, even if it was hidden for a while; a
   6 or 9 lying on its pot twin's index is that twin read upside down.
3. **One decision.** The pot is gone: `pot_cleared` (unless where it lay is still no bare
   table: cards the camera cannot read cover it). New cards: the play is told from strays
   (`pot.plays`): each rank among them is a hypothesis scored by its surest read times its prior;
   the best is the play when it stands clear of the runner-up, else a `mismatch`. The top card
   or most of the pot gone: a `mismatch`. Nothing read new but the pot changed like a card
   landing: a `mismatch` (a card the camera cannot read).
4. **Asking.** A play carries every reason to doubt it (`pot.asking`): it is `low_conf`, its
   `detail` says why, and `maybe_more` / `maybe_less` name the cards the page offers as one tap.
   After a play, the still scene is read a few times more: a card of its rank uncovered as the
   hand left amends it (`cards_amended`).

Cards lying in the zone when the watcher starts (a seat's face-up cards, a pot already there)
are fixtures, not plays, while they stay put. The pot zone is a rectangle in fractions of the
frame; auto mode follows where plays land (`pot.zone`), `set_zone` (the operator) locks it.
Seat zones (`seats={name: zone}`) name the side of the table the arm came from (the box that
moved most, where the arm's direction fits it): a hint for the referee (`WatchEvent.seat`),
never a ruling. Where the arm came in from is noted with or
without them (`WatchEvent.arm`, `meta.arm`: `vision.seat_sides` proposes the sides from it).
"""
from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import zone as check_zone
from vision.pot import asking, events, evidence, pixels, plays, zone as zones
from vision.pot.asking import Look
from vision.pot.config import (DEFAULT_ZONE, SEAT_COLOR, UNFIT_WEIGHT, ZONE_BOXES,  # noqa: F401 (re-exported)
                               WatcherConfig, Zone)
from vision.pot.events import WatchEvent
from vision.pot.geometry import area, centre, same_place
from vision.pot.memory import PotMemory
from vision.pot.observation import Detect, DetectionLike, Observation, Priors  # noqa: F401 (re-exported)
from vision.pot.plays import inside_play as _inside_play  # noqa: F401 (re-exported)
from vision.pot.plays import one_card_two_corners as _one_card_two_corners  # noqa: F401
from vision.pot.plays import sure_play as _sure_play  # noqa: F401
from vision.pot.settle import consensus
from vision.seat_sides import ArmTrail, moved_side

Box = tuple[float, float, float, float]


@dataclass
class LateLook:
    """A play just decided, read again while the scene stays still (`PotWatcher._late_look`)."""
    play: list[Observation]
    event: WatchEvent
    stills: int = 0
    reads: list = field(default_factory=list)


class PotWatcher:
    """Feed it frames; it asks the detector when the scene is still and returns `WatchEvent`s.

        watcher = PotWatcher(WatcherConfig(evidence_dir=Path("runs/evidence")))
        for frame in source.frames():
            for ev in watcher.feed(frame.image, frame.t, frame.index, detector.detect):
                ...

    `priors_fn` (optional): the referee's `Priors` at each decision. `set_zone` is thread-safe."""

    def __init__(self, config: WatcherConfig | None = None, zone: Zone | None = None,
                 priors_fn: Callable[[], Priors] | None = None, seats: dict[str, Zone] | None = None):
        self.cfg = config or WatcherConfig()
        self._lock = threading.Lock()
        self.seats: dict[str, Zone] = {}  # optional seat zones (name -> fractions): a hint
        self.set_seats(seats or {})
        self._seat_motion: Counter[str] = Counter()
        self._arm = ArmTrail()  # where moving pixels lay outside the zone since the last decision
        self._zone: Zone = tuple(zone) if zone else DEFAULT_ZONE  # type: ignore[assignment]
        self.zone_locked = zone is not None
        self.priors_fn = priors_fn or (lambda: Priors(copies=self.cfg.decks))
        self._played_boxes: list[Box] = []  # pixels, the latest plays' boxes (the auto zone)
        self._zone_plays = 0  # plays that placed the auto zone
        # motion and settling
        self._prev_small: np.ndarray | None = None
        self._still = 0
        self._done = False  # settled (or same scene) since the last motion: stop reading
        self._t_still = 0.0
        self._reads: list[list[DetectionLike]] = []
        self._settled_small: np.ndarray | None = None
        self._settled_image: np.ndarray | None = None
        self._last_read: Sequence[DetectionLike] = ()  # the settling read (its `.indices`, if given)
        self._glimpsed: list[tuple[str, tuple]] = []  # the settling reads' too-seldom cards (`consensus`)
        self._crossing = False  # the scene being decided differs from the settled one at the zone's edge
        # the pot
        self.state: list[Observation] = []  # the last settled frame's cards
        self.pot = PotMemory()
        self._late: LateLook | None = None
        self._index_areas: deque[float] = deque(maxlen=64)  # the latest index boxes' areas, frame pixels
        self._bare: np.ndarray | None = None  # a settled frame of the table with no pot on it (`_pot_left`)
        #: cards lying still in the zone when the watcher started (players' face-up cards near
        #: the pot, a pot already there): where each lay. Not plays, and not the pot while they
        #: stay put; one seen anywhere else is an ordinary card again.
        self.fixtures: dict[str, list[Box]] = {}
        self._startup = True
        self._startup_seen: list[DetectionLike] = []  # every read of the first scene, zone or not
        self._rebaseline = False  # the next settled scene is a baseline (after an outage)
        self.frames_seen = 0
        self.detector_calls = 0
        self.events: list[WatchEvent] = []
        self.last_motion = 0.0
        #: recent problems that did not stop the watcher (evidence not saved, ...), newest last
        self.problems: deque[str] = deque(maxlen=20)
        self._new_problems: list[str] = []

    @property
    def pot_seen(self) -> Counter:
        return self.pot.seen

    @property
    def stray_seen(self) -> Counter:
        return self.pot.strays

    @property
    def _unread_pot(self) -> bool:
        return self.pot.unread

    def _priors(self) -> Priors:
        """The referee's priors, with the cards this watcher has seen in the pot counted as on
        it (a mismatch's cards are the watcher's, not yet the referee's)."""
        priors = self.priors_fn()
        return replace(priors, on_pot=priors.on_pot | frozenset(self.pot.seen) | frozenset(self.pot.strays))

    # -- the zone ------------------------------------------------------------------------
    @property
    def zone(self) -> Zone:
        with self._lock:
            return self._zone

    def set_zone(self, zone: Zone | None) -> None:
        """The operator's zone (fractions x0, y0, x1, y1), locked; `None` returns to auto."""
        if zone is None:
            with self._lock:
                self.zone_locked = False
            return
        checked = check_zone(zone, f"pot zone {zone}")
        with self._lock:
            self._zone = checked
            self.zone_locked = True

    def set_seats(self, seats: dict[str, Zone]) -> None:
        """Each player's side of the table (fractions), checked; `{}`: none. May be called from
        another thread (the web page): the whole mapping is replaced at once."""
        self.seats = {name: check_zone(z, f"{name}'s side") for name, z in seats.items()}

    def zone_pixels(self, shape) -> tuple[int, int, int, int]:
        h, w = shape[:2]
        x0, y0, x1, y1 = self.zone
        return int(x0 * w), int(y0 * h), int(np.ceil(x1 * w)), int(np.ceil(y1 * h))

    def in_zone(self, box, shape) -> bool:
        x0, y0, x1, y1 = self.zone_pixels(shape)
        cx, cy = centre(box)
        return x0 <= cx <= x1 and y0 <= cy <= y1

    def _grow_zone(self, obs: Sequence[Observation], shape) -> None:
        """Auto zone: around where the latest plays landed (`pot.zone.placed_zone`)."""
        if self.zone_locked or not obs:
            return
        self._played_boxes += [tuple(float(v) for v in o.box) for o in obs]
        del self._played_boxes[:-ZONE_BOXES]  # only the latest place the zone: keep those
        self._zone_plays += 1
        zone = zones.placed_zone(self._played_boxes, shape, self.cfg, self._zone_plays)
        with self._lock:
            self._zone = zone

    # -- 1. a settled frame ----------------------------------------------------------------
    def _small(self, image: np.ndarray) -> np.ndarray:
        return pixels.small_image(image, self.cfg.motion_width)

    def _crosses_border(self, small: np.ndarray, ref: np.ndarray, boxes=(), shape=None) -> bool:
        return pixels.crosses_border(small, ref, self.zone, self.cfg, boxes, shape)

    def feed(self, image: np.ndarray, t: float, index: int, detect: Detect) -> list[WatchEvent]:
        """Process one frame; returns the events it settled (usually none)."""
        self.frames_seen += 1
        small = self._small(image)
        prev, self._prev_small = self._prev_small, small
        if self._rebaseline:
            return self._read_baseline(image, small, t, index, detect)
        if prev is None or prev.shape != small.shape:
            self._still, self._reads, self._done = 0, [], False
            return []
        self.last_motion = pixels.zone_diff(small, prev, self.zone, self.cfg.pixel_diff)
        if self.last_motion > self.cfg.motion_threshold:
            self._still, self._reads, self._done = 0, [], False
            self._late = None  # the scene moves again: whatever lies there is the next play's
            if self.seats:
                self._seat_motion.update(pixels.seat_motion(small, prev, self.seats, self.cfg.pixel_diff))
            self._arm.note(small, prev, self.zone)
            return []
        self._still += 1
        if self._still == 1:
            self._t_still = t
        if self._done:
            return self._keep(self._late_look(image, t, index, detect)) if self._late is not None else []
        if self._still < self.cfg.still_frames:
            return []
        return self._read_still(image, small, t, index, detect)

    def _read_still(self, image: np.ndarray, small: np.ndarray, t: float, index: int,
                    detect: Detect) -> list[WatchEvent]:
        """Read the still scene once more; decide once enough reads agree and no arm is in."""
        ref = self._settled_small if self._settled_small is not None and \
            self._settled_small.shape == small.shape else None
        if ref is not None and not self._reads and \
                pixels.zone_diff(small, ref, self.zone, self.cfg.pixel_diff) < self.cfg.same_scene:
            self._done = True  # same scene as the settled one: nothing to read
            return []
        self._last_read = detect(image)  # kept whole: its `.indices` are looked at only when a play is decided
        raw = list(self._last_read)
        if self._startup:  # a card at the zone's edge may fall in or out of it from read to read
            self._startup_seen.extend(raw)
        self.detector_calls += 1
        self._reads.append([d for d in raw if self.in_zone(d.box, image.shape)])
        if len(self._reads) < self.cfg.read_frames:
            return []
        stats: dict = {}
        obs = consensus(self._reads, self._priors(), self.cfg, stats)
        if len(self._reads) < self.cfg.max_reads and any(
                (c not in self.pot.seen and c not in self.pot.strays) or c in self.pot.top for c in stats["uncertain"]):
            return []  # a new or top card flickers between reads: read the still scene again
        self._crossing = ref is not None and self._crosses_border(
            small, ref, [o.box for o in obs] + [o.box for o in self.state], image.shape)
        if self._crossing and self._still < self.cfg.hand_patience:
            # something still reaches in across the zone's edge: wait, keep reading (the scene
            # is still, so every read of this period is a read of the same scene)
            if len(self._reads) > self.cfg.max_reads:
                self._reads.pop(0)
            return []
        events = self._settled(obs, stats, image, t, index)
        self._settled_small, self._settled_image, self._done = small, image, True
        return self._keep(events)

    def _settled(self, obs: list[Observation], stats: dict, image: np.ndarray, t: float,
                 index: int) -> list[WatchEvent]:
        """A settled frame: the first is the baseline (what lies there already is no play)."""
        if not self._startup:
            self._glimpsed = stats.get("glimpsed", [])
            return self._decide(self._without_fixtures(obs), image, t, index)
        self._startup = False
        for d in self._startup_seen + list(obs):
            self._add_fixture(d.card, d.box)
        self._startup_seen = []
        if not obs:  # no pot yet: the bare table
            self._bare = image
        return []

    def _add_fixture(self, card: str, box) -> None:
        """`card` lies at `box` and is no pot card while it stays there."""
        self.fixtures.setdefault(card, []).append(tuple(float(v) for v in box))

    def _without_fixtures(self, obs: list[Observation]) -> list[Observation]:
        """`obs` less the start-up cards still where they lay; a start-up card seen elsewhere
        has been picked up (and played): it stops being a fixture."""
        if not self.fixtures:
            return obs
        out = []
        for o in obs:
            where = self.fixtures.get(o.card)
            if where is not None and any(same_place(o.box, w) for w in where):
                continue
            if where is not None:
                del self.fixtures[o.card]
            out.append(o)
        return out

    def _keep(self, events: list[WatchEvent]) -> list[WatchEvent]:
        self.events.extend(events)
        if len(self.events) > self.cfg.keep_events:  # a history for callers, never read back
            del self.events[:len(self.events) - self.cfg.keep_events]
        return events

    # -- 2. what is new, 3. one decision ------------------------------------------------
    def _decide(self, obs: list[Observation], image: np.ndarray, t: float, index: int) -> list[WatchEvent]:
        """One decision on a settled frame, then the pot's state moves on to it."""
        prev = self.state
        look = self._look(image)
        seen = self.pot.new_cards(obs, prev, self.cfg.decks, lambda o: asking.turned_twin(o, look))
        obs = seen.obs
        rebaselined, self._rebaseline = self._rebaseline, False
        if rebaselined:
            ev = self._outage_event(obs, seen.new, seen.prev, seen.cur, t, index)
        else:
            ev, obs = self._judge(seen, prev, image, t, index)
            if ev is None:
                ev = self._unread(image, t, index)
                self.pot.unread = self.pot.unread or ev is not None
        self._note_indices(obs)
        if ev is not None:
            self._annotate(ev, prev, obs, image)
        self._seat_motion = Counter()
        self._arm.reset()
        for o in obs:
            self.pot.lies(o)
        self.state = obs
        return [ev] if ev is not None else []

    def _look(self, image: np.ndarray) -> Look:
        """The settled frame as the asking steps see it (`pot.asking.Look`)."""
        return Look(self._last_read, image, self.cfg, lambda box: self.in_zone(box, image.shape),
                    lambda box: self._box_change(box, image), self.pot, self._glimpsed)

    def _judge(self, seen: NewCards, prev: list[Observation], image: np.ndarray, t: float,
               index: int) -> tuple[WatchEvent | None, list[Observation]]:
        """(the decision, the frame's cards as the pot's state): a clear, a play (or a mismatch
        of several ranks), cards gone, or nothing (`_unread` looks further)."""
        obs = seen.obs
        if not obs or (not self.zone_locked and zones.only_far_leftovers(obs, prev, self._played_boxes)):
            return self._cleared(obs, prev, image, t, index)
        if seen.new:
            return self._new_on_pot(seen.new, image, t, index), obs
        if seen.missing:
            return self._gone(seen.missing, seen.prev, image, t, index), obs
        return None, obs

    def _cleared(self, obs: list[Observation], prev: list[Observation], image: np.ndarray, t: float,
                 index: int) -> tuple[WatchEvent | None, list[Observation]]:
        """The pot reads as gone (what is left lies where no play lands: seat cards, fixtures
        now). Not a clear when where the pot lay is still no bare table: cards the camera
        cannot read cover it, and `_unread` says so."""
        cfg = self.cfg
        if (prev or self.pot.seen) and cfg.clear_left > 0 and self._pot_left(image, prev) >= cfg.clear_left:
            return None, obs
        for o in obs:
            self._add_fixture(o.card, o.box)
        obs = []
        if not (prev or self.pot.seen or self._unread_taken(image)):
            return None, obs
        ev = WatchEvent("pot_cleared", t, self._t_still, index)
        self.pot = PotMemory()  # the pot is gone: nothing seen in it, nowhere it lay
        self._bare = image
        return ev, obs

    def _new_on_pot(self, new_obs: list[Observation], image: np.ndarray, t: float, index: int) -> WatchEvent:
        """New cards: the play told from strays (`pot.plays`), or a mismatch of several ranks."""
        cfg = self.cfg
        new_obs, unchanged = plays.changed(new_obs, lambda box: self._box_change(box, image), cfg.unchanged_share)
        new_obs, other = plays.one_card_two_corners(new_obs, cfg.faint_ratio)
        self.pot.strays.update(other)  # new later only if read surely
        priors = self._priors()
        play, strays = plays.sure_play(new_obs, cfg.stray_ratio, priors.impossible)
        rivals: list[Observation] = []
        if not play and cfg.legal_choice:  # too close to choose by the image: by the rules?
            play, rivals = plays.legal_play(new_obs, cfg.stray_ratio, priors)
        if play:
            return self._played(play, strays, unchanged, image, t, index, rivals)
        self.pot.strays.update(o.card for o in unchanged)
        self.pot.seen.update(o.card for o in new_obs)
        self.pot.top = [o.card for o in new_obs]
        return events.several_ranks((t, self._t_still, index), new_obs)

    def _played(self, play: list[Observation], strays: list[Observation], unchanged: list[Observation],
                image: np.ndarray, t: float, index: int, rivals: list[Observation]) -> WatchEvent:
        """A play: its lower cards looked for, every question about it asked (`pot.asking`)."""
        look = self._look(image)
        lower = asking.lower_cards(play, look)
        play = play + lower
        cards = [o.card for o in play]
        asked = asking.ask_about_play(play, strays, lower, look, rivals)
        self.pot.strays.update(o.card for o in strays + unchanged + rivals)  # new next time only if read surely
        ev = WatchEvent("cards_played", t, self._t_still, index, cards, [o.conf for o in play],
                        any(o.low_conf for o in play) or asked.flagged, asked.detail,
                        alternatives=[o.votes for o in play], maybe_more=asked.more, maybe_less=asked.less,
                        boxes=[o.box for o in play])
        self.pot.seen.update(cards)
        self.pot.strays -= Counter(cards)
        self.pot.top = cards
        self._grow_zone(play, image.shape)
        if self.cfg.late_reads > 0:
            self._late = LateLook(list(play), ev)
        return ev

    def _gone(self, missing: Counter, prev: Counter, image: np.ndarray, t: float, index: int) -> WatchEvent | None:
        """Cards left the pot with no clear: the top card (taken back, or covered by a card the
        models cannot read), or more than half of the pot."""
        top_gone = [c for c in self.pot.top if missing[c] > 0]
        if top_gone:
            self.pot.top = [c for c in self.pot.top if c not in top_gone]
            return events.top_gone((t, self._t_still, index), top_gone,
                                   asking.guesses(asking.guess_votes(self._look(image), self._priors().impossible)))
        if sum(missing.values()) * 2 > max(1, sum(prev.values())):
            return events.part_gone((t, self._t_still, index), sorted(missing.elements()))
        return None

    def _annotate(self, ev: WatchEvent, prev: list[Observation], obs: list[Observation], image: np.ndarray) -> None:
        """The side the arm came from, and the evidence frames (a failure to save them keeps the event)."""
        ev.arm = self._arm.direction(self.zone)  # with or without seat zones: `vision.seat_sides`
        ev.seat = moved_side(self._seat_motion, ev.arm, self.seats, self.zone)
        if self.cfg.evidence_dir is not None:
            try:
                ev.evidence = self._save_evidence(ev, prev, obs, image)
            except (OSError, cv2.error) as exc:  # disk full, folder gone: keep the event
                ev.evidence = {}
                self._problem(f"evidence frames not saved ({exc}); the {ev.type} event is "
                              f"recorded without them: free some disk space")

    def _note_indices(self, obs: list[Observation]) -> None:
        """Keep the index boxes the settled cards were read from (a turned twin lies there) and
        their areas, the unit of `_unread` and `_pot_left` (no index boxes given: the cards')."""
        cards = {o.card for o in obs}
        indices = [d for d in getattr(self._last_read, "indices", ()) if d.card in cards]
        self.pot.read_from(indices)
        boxes = [d.box for d in indices] or [o.box for o in obs]
        self._index_areas.extend(area(b) for b in boxes)

    # -- 4. after a play: one more look ---------------------------------------------------
    def _late_look(self, image: np.ndarray, t: float, index: int, detect: Detect) -> list[WatchEvent]:
        """Read the still scene again after a play was decided (every `late_every` frames,
        `late_reads` times): a card of the play's rank uncovered as the hand left (a fanned
        pair's lower index, `pot.asking.late_mate`) amends the play (`cards_amended`)."""
        late, cfg = self._late, self.cfg
        late.stills += 1
        if late.stills % cfg.late_every:
            return []
        late.reads.append([d for d in detect(image) if self.in_zone(d.box, image.shape)])
        self.detector_calls += 1
        if len(late.reads) < cfg.late_reads:
            return []
        self._late = None
        cards = [o.card for o in late.play]
        if len(cards) >= 4 * cfg.decks:  # every card of the rank is in the play already
            return []
        obs = self._without_fixtures(consensus(late.reads, self._priors(), cfg))
        add = asking.late_mate(late.play, obs, self.pot.seen, cfg)
        if add is None:
            return []
        ev = events.amended(t, index, late.event, cards, add)
        self.pot.seen[add.card] += 1
        self.pot.top = cards + [add.card]
        self.state = self.state + [add]
        self.pot.lies(add)
        return [ev]

    # -- what landed unread: the pixels changed, the reads did not ----------------------------
    def _box_change(self, box, image: np.ndarray) -> float:
        return pixels.box_change(box, image, self._settled_image, self.cfg.unchanged_diff)

    def _zone_change(self, image: np.ndarray, ref: np.ndarray) -> float:
        """How much of the zone differs between `image` and `ref`, in index boxes' area."""
        return pixels.zone_change(image, ref, self.zone_pixels(image.shape), self.cfg.unchanged_diff,
                                  self._index_areas)

    def _unread(self, image: np.ndarray, t: float, index: int) -> WatchEvent | None:
        """A mismatch when the settled pot changed like a card landing (`unread_change` index
        boxes' area or more) although no card is new nor gone: a card the models cannot read
        (an unseen deck's queen, a card face down) was played, and left unsaid it is a silent
        error. Not when the zone's edge changed too: a hand that rested at the pot when the
        play was decided, and has gone now, changed the scene with no card."""
        prev, cfg = self._settled_image, self.cfg
        if cfg.unread_change <= 0 or prev is None or prev.shape != image.shape or self._crossing:
            return None
        if self._zone_change(image, prev) < cfg.unread_change:
            return None
        return events.landed_unread((t, self._t_still, index),
                                    asking.guess_votes(self._look(image), self._priors().impossible))

    def _pot_left(self, image: np.ndarray, prev: Sequence[Observation]) -> float:
        """How much of where the pot lay differs from the bare table (the start, or the latest
        clear), in index boxes' area; 0 with no such frame, or when the camera moved since."""
        bare = self._bare
        if bare is None or bare.shape != image.shape:
            return 0.0
        left = pixels.pot_left(image, bare, [o.box for o in prev] + list(self.pot.pos.values()),
                               self.zone_pixels(image.shape), self.cfg.unchanged_diff, self._index_areas)
        if left is None:
            self._bare = None
        return 0.0 if left is None else left

    def _unread_taken(self, image: np.ndarray) -> bool:
        """Were the cards that landed unread since the last clear, the pot's only cards, taken
        away (the zone bare again)? Such a pot's pick-up is a clear the referee must hear of."""
        bare, cfg = self._bare, self.cfg
        return self.pot.unread and cfg.unread_change > 0 and bare is not None \
            and bare.shape == image.shape and self._zone_change(image, bare) < cfg.unread_change

    # -- the camera out and back -------------------------------------------------------------
    def _outage_event(self, obs: list[Observation], new_obs: list[Observation], prev_c: Counter,
                      cur: Counter, t: float, index: int) -> WatchEvent | None:
        """The first settled scene after the camera came back: what changed while it was out was
        not seen being played, a mismatch for the operator, never merged into the next play."""
        at = (t, self._t_still, index)
        if not obs:
            if not (prev_c or self.pot.seen):
                return None
            self.pot = PotMemory()  # the pot is gone: nothing seen in it, nowhere it lay
            return events.while_out(at, [], [], cleared=True)
        if new_obs:
            self.pot.seen.update(o.card for o in new_obs)
            self.pot.top = [o.card for o in new_obs]
            return events.while_out(at, new_obs, [], cleared=False)
        gone = sorted((prev_c - cur).elements())
        if gone:
            self.pot.top = [c for c in self.pot.top if c not in gone]
            return events.while_out(at, [], gone, cleared=False)
        return None

    def _read_baseline(self, image: np.ndarray, small: np.ndarray, t: float, index: int,
                       detect: Detect) -> list[WatchEvent]:
        """Right after an outage: read the first `read_frames` frames as they come, still or
        not (a play may start at once; the cards already lying there are what counts), and
        take their consensus as the new baseline."""
        if not self._reads:
            self._t_still = t
        self._reads.append([d for d in detect(image) if self.in_zone(d.box, image.shape)])
        self.detector_calls += 1
        if len(self._reads) < self.cfg.read_frames:
            return []
        obs = self._without_fixtures(consensus(self._reads, self._priors(), self.cfg, {}))
        events = self._decide(obs, image, t, index)  # clears _rebaseline
        self._settled_small, self._settled_image = small, image
        self._still, self._reads, self._done = 0, [], False
        return self._keep(events)

    def rebaseline(self) -> None:
        """The camera was out (source `reconnected`): forget the motion history and read the
        first frames that come as the new baseline; see `_read_baseline`, `_outage_event`.
        Called from the pipeline's thread, the one that feeds frames."""
        self._still, self._reads, self._done = 0, [], False
        self._seat_motion = Counter()
        self._arm.reset()
        self._rebaseline = True
        self._bare = None  # the camera may come back moved: its bare table is no longer known

    # -- evidence and problems ---------------------------------------------------------------
    def draw(self, image: np.ndarray, obs: Sequence[Observation], highlight: Sequence[str] = ()) -> np.ndarray:
        """A copy of `image` with the zone, the seat zones (named) and every observation's box
        and card drawn: the live view and the evidence frames show whose side is whose."""
        return evidence.draw(image, obs, self.zone_pixels(image.shape), self.seats, highlight)

    def _save_evidence(self, ev: WatchEvent, prev: list[Observation], obs: list[Observation],
                       image: np.ndarray) -> dict[str, str]:
        before = self._settled_image if self._settled_image is not None else np.zeros_like(image)
        return evidence.save(Path(self.cfg.evidence_dir), ev,  # type: ignore[arg-type]
                             [("before", lambda: self.draw(before, prev)),
                              ("after", lambda: self.draw(image, obs, ev.cards))], self.cfg.jpeg_quality)

    def _problem(self, message: str) -> None:
        """Something went wrong that must not stop the camera: keep it for whoever runs the
        watcher (`take_problems`; the pipeline reports it as a status) and in `problems`."""
        self.problems.append(message)
        self._new_problems.append(message)

    def take_problems(self) -> list[str]:
        """The problems since the last call (each reported once)."""
        out, self._new_problems = self._new_problems, []
        return out
