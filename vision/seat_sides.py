"""Each player's side of the table without drawing: proposed from where the arms come in.

Why: seat zones (`PotWatcher(seats=...)`) name the side each play came from, but an operator
had to draw a box per player on the set-up snapshot, and few do. Every play brings an arm in
over the table's edge towards the pot; the pot watcher notes where the moving pixels lay
outside the pot zone (`ArmTrail`) and each decision carries that direction (`meta.arm`,
degrees around the pot: 0 to the right of the frame, 90 towards its bottom, as the image's
axes turn). The set-up gives the players in clockwise order and the referee knows who played
the first play (the set-up's starter), so the sides are the players' order laid around the pot
where the arms came from, that first play saying whose side is whose, each side then moved to
where its own arms came from (`propose_sides`). The proposal is shown on the
set-up snapshot to accept or move; drawing by hand stays possible.

Before any play is named, the set-up's order itself is the layout (`layout_angles`): its
first player at the bottom of the camera's picture, the others clockwise, as the set-up page
asks them entered. The first play's arm then says who started where nobody said (the lowest
card starts): two players face to face give the arms nothing else to tell them apart by.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.boxes import centre as _centre

Zone = tuple[float, float, float, float]

#: a pixel of the downscaled, normalised frame moved by more than this (std units) is arm:
#: above the pot watcher's motion threshold, so the whole frame's light shifting when an arm
#: comes in (the frame is normalised as a whole) is not counted
ARM_DIFF = 0.6
#: margin around the pot zone (fractions) where moving pixels are the cards landing, not the arm
ZONE_MARGIN = 0.03
#: the first plays whose arms place the sides; later ones are not needed, and the turn is
#: less often known by then
FIRST_PLAYS = 16
#: a side's box: half its size, in fractions of the frame's shorter edge
HALF = 0.3


@dataclass
class ArmTrail:
    """Moving pixels outside the pot zone since the last decision: where the arm came in."""

    sx: float = 0.0
    sy: float = 0.0
    n: float = 0.0

    def note(self, small: np.ndarray, prev: np.ndarray, zone: Zone) -> None:
        """Add one frame's movement (`small` and `prev`: the watcher's normalised motion images)."""
        if small.shape != prev.shape:
            return
        sh, sw = small.shape
        moved = np.abs(small - prev) > ARM_DIFF
        x0, y0, x1, y1 = zone
        moved[max(0, int((y0 - ZONE_MARGIN) * sh)):int(math.ceil((y1 + ZONE_MARGIN) * sh)),
              max(0, int((x0 - ZONE_MARGIN) * sw)):int(math.ceil((x1 + ZONE_MARGIN) * sw))] = False
        ys, xs = np.nonzero(moved)
        if len(xs):
            self.sx += float((xs + 0.5).sum()) / sw
            self.sy += float((ys + 0.5).sum()) / sh
            self.n += len(xs)

    def direction(self, zone: Zone, least: int = 4) -> float | None:
        """Degrees around the zone's centre the arm came from (0 right, 90 down), or None when
        too little moved outside the zone."""
        if self.n < least:
            return None
        cx, cy = _centre(zone)
        dx, dy = self.sx / self.n - cx, self.sy / self.n - cy
        if math.hypot(dx, dy) < 1e-3:
            return None
        return math.degrees(math.atan2(dy, dx)) % 360.0

    def reset(self) -> None:
        self.sx = self.sy = self.n = 0.0


def _mean_angle(angles: Sequence[float]) -> float:
    a = np.radians(np.asarray(angles, dtype=float))
    return math.degrees(math.atan2(float(np.sin(a).mean()), float(np.cos(a).mean()))) % 360.0


def _diff(a: float, b: float) -> float:
    """The smaller angle between two directions, degrees."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def side_angles(players: Sequence[str], arms: Sequence[tuple]) -> dict[str, float] | None:
    """Each player's direction around the pot (degrees), from `arms`: (direction, the player the
    referee named or None[, whether it followed the play before with no pot going between:
    True if not given[, whether a person said who played it]]) of the first plays, `players`
    clockwise. None until a play is named.

    The players sit around the pot in their clockwise order, evenly spread at first: the
    spread's offset is the one that fits every arm best, named or not, and which way round the
    camera sees them (a mirrored picture turns it) is the way most plays moved on from the play
    just before; not across a pot that went between, since whoever picks it up loses their
    turn, which at three players looks like a step the other way round (the caller says so,
    and where the play before skipped, burned, reversed, gave the pot away or was a Turbo:
    `plain_step`). Whose side is whose
    comes from the first named play alone: the referee names the later ones from its turn,
    which one play out of turn (a Turbo, a player playing twice) shifts for every play after it,
    while the first one's player is the set-up's starter; once a person has said who played
    some of them, what most of them said, and the way round too where their answers fit the
    other way better. Each side then moves to the mean of the arms nearest it."""
    players = list(players)
    n = len(players)
    if n < 2 or len(set(players)) != n:
        raise ValueError(f"give two players or more, each once, in clockwise order (got {players})")
    arms = [(float(arm[0]) % 360.0, arm[1], arm[2] if len(arm) > 2 else True, len(arm) > 3 and bool(arm[3]))
            for arm in list(arms)[:FIRST_PLAYS] if arm[0] is not None]
    first = next(((a, players.index(p)) for a, p, _, _ in arms if p in players), None)
    if first is None:
        return None
    step = 360.0 / n
    # the spread's offset: the arms' mean on a circle one step round
    rad = np.radians([a * n for a, *_ in arms])
    offset = (math.degrees(math.atan2(float(np.sin(rad).sum()), float(np.cos(rad).sum()))) / n) % step
    slot = [round(((a - offset) % 360.0) / step) % n for a, *_ in arms]
    moves = Counter((b - a) % n for a, b, (_, _, follows, _) in zip(slot, slot[1:], arms[1:])
                    if a != b and follows)
    way = -1 if n >= 3 and moves[n - 1] > moves[1] else 1
    # whose side is whose: the turn of the table that puts the first named player where that
    # play's arm came from; or, once people have said who played some of these plays, the turn
    # most of their answers agree with (the first arm can be misread, their word is not)
    said = [(k, players.index(p)) for k, (_, p, _, by) in zip(slot, arms) if by and p in players]
    if said:
        fit, turn = _said_turn(said, way, n)
        if n >= 3:  # their word also says which way round, where it fits the other way better
            other = _said_turn(said, -way, n)
            if other[0] > fit:
                way, turn = -way, other[1]
    else:
        a0, i0 = first
        turn = (round(((a0 - offset) % 360.0) / step) - way * i0) % n
    sides = {p: (offset + step * ((turn + way * i) % n)) % 360.0 for i, p in enumerate(players)}
    near: dict[str, list[float]] = {p: [] for p in players}
    for a, *_ in arms:  # every arm counts for the side it came nearest to
        p = min(players, key=lambda q: _diff(a, sides[q]))
        if _diff(a, sides[p]) <= 0.5 * step:
            near[p].append(a)
    for p, seen in near.items():
        if seen:
            sides[p] = _mean_angle(seen)
    return sides


#: what a play does that moves the turn on otherwise than one step (`Ruling.effects`)
UNPLAIN = ("again", "burn", "reverse", "give_pot", "next_picks_up")


def plain_step(ruling: dict) -> bool:
    """Whether the next play comes one step on from this ruled play (`kind: ruling`): a legal
    play in turn that neither skips, burns, reverses nor gives the pot away. The steps
    between the first plays say which way round the camera sees the table; a skip at three
    players looks like a step the other way."""
    effects = ruling.get("effects") or []
    return (ruling.get("verdict") == "legal" and not ruling.get("turbo")
            and not any(e in UNPLAIN or e.startswith("skip") for e in effects))


def _said_turn(said: list[tuple[int, int]], way: int, n: int) -> tuple[int, int]:
    """The turn of the table most of what people said fits (`said`: each answered play's slot
    and its player's place in the set-up's order), seen `way` round, and how many it fits."""
    turns = [(k - way * i) % n for k, i in said]
    votes = Counter(turns)
    turn = max(votes, key=lambda r: (votes[r], -turns.index(r)))
    return votes[turn], turn


#: an arm further than this from a side's direction (a share of the angle between two
#: neighbouring sides) does not come from that side, whatever moved in its box. Picked on the
#: dev renders (seeds 200-205, nobody answering): the sides named against the turn lay within
#: it when right (all but four of 101) and mostly beyond it when wrong; wrong sides named fell
#: from 25 to 6 and plays ruled right as they happened rose from 750 to 764 of 866 (0.3: 8, 761)
ARM_OFF = 0.25


def zone_angles(zones: dict[str, Zone], centre: tuple[float, float]) -> dict[str, float]:
    """Each seat zone's direction from the pot's `centre`, as `ArmTrail.direction` measures."""
    out = {}
    for name, zone in zones.items():
        x, y = _centre(zone)
        out[name] = math.degrees(math.atan2(y - centre[1], x - centre[0])) % 360.0
    return out


def arm_agrees(seat: str, arm: float | None, zones: dict[str, Zone], centre: tuple[float, float]) -> bool:
    """Whether the arm's direction fits `seat`'s side: the motion in one side's box names a
    player only where the arm came from that way too (another player reaching for their own
    cards moves in their box while the one who played comes in from elsewhere). No arm seen,
    or one side alone: nothing to contradict it."""
    if arm is None or len(zones) < 2 or seat not in zones:
        return True
    angles = zone_angles(zones, centre)
    return _diff(arm, angles[seat]) <= ARM_OFF * 360.0 / len(zones)


def moved_side(motion: Counter, arm: float | None, zones: dict[str, Zone], pot: Zone, least: int = 4) -> str | None:
    """The player whose side's box moved most while the pot did (`motion`: moved pixels by
    side), at least `least` pixels, where the arm's direction fits that side; else None."""
    if not motion:
        return None
    seat, n = motion.most_common(1)[0]
    return seat if n >= least and arm_agrees(seat, arm, zones, _centre(pot)) else None


def layout_angles(players: Sequence[str]) -> dict[str, float]:
    """The set-up's order as a layout: the first player at the bottom of the picture (90
    degrees), the others clockwise on screen, evenly spread."""
    n = len(players)
    return {p: (90.0 + 360.0 * i / n) % 360.0 for i, p in enumerate(players)}


def nearest_side(angle: float, sides: dict[str, float]) -> str:
    """The player whose side's direction is nearest `angle` (degrees)."""
    return min(sides, key=lambda p: _diff(angle, sides[p]))


def _border(cx: float, cy: float, angle: float) -> tuple[float, float]:
    """Where the ray from (cx, cy) at `angle` (degrees, in fractions of the frame, as
    `ArmTrail.direction` measures) leaves the frame."""
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    ts = [t for t in ((1 - cx) / dx if dx > 1e-9 else None, -cx / dx if dx < -1e-9 else None,
                      (1 - cy) / dy if dy > 1e-9 else None, -cy / dy if dy < -1e-9 else None) if t is not None]
    t = min(ts)
    return min(1.0, max(0.0, cx + t * dx)), min(1.0, max(0.0, cy + t * dy))


def _overlap(a: Zone, b: Zone) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def side_zones(sides: dict[str, float], centre: tuple[float, float] = (0.5, 0.5),
               aspect: float = 16 / 9) -> dict[str, Zone]:
    """A box per player (fractions of the frame) where the frame's edge meets the direction
    their arm comes from, as an operator would draw it (square in pixels: `aspect` is the
    frame's width over its height); boxes that would overlap are shrunk
    until none does, so that an arm names one player."""
    half = {p: HALF for p in sides}
    for _ in range(30):
        zones = {}
        for p, a in sides.items():
            bx, by = _border(centre[0], centre[1], a)
            hx, hy = half[p] / aspect, half[p]
            zones[p] = (round(max(0.0, bx - hx), 4), round(max(0.0, by - hy), 4),
                        round(min(1.0, bx + hx), 4), round(min(1.0, by + hy), 4))
        clash = {p for p in zones for q in zones if p != q and _overlap(zones[p], zones[q])}
        if not clash:
            return zones
        for p in clash:
            half[p] *= 0.85
    return zones


def propose_sides(players: Sequence[str], arms: Sequence[tuple],
                  centre: tuple[float, float] = (0.5, 0.5), aspect: float = 16 / 9) -> dict[str, Zone] | None:
    """The proposed seat zones (`side_zones` of `side_angles`), or None until a play is named."""
    sides = side_angles(players, arms)
    return None if sides is None else side_zones(sides, centre, aspect)
