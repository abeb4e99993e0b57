"""The pot zone, in auto mode: it follows where played cards land, and a card left far from
them once the pot is gone is a seat's face-up card, not the pot's."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.pot.config import DEFAULT_ZONE, EDGE_PCT, OVERSIZE, WatcherConfig, Zone
from vision.pot.geometry import centre, side
from vision.pot.observation import Observation

Box = tuple[float, float, float, float]


def placed_zone(played: Sequence[Box], shape, cfg: WatcherConfig, plays: int) -> Zone:
    """The zone around the latest played boxes (`played`, frame pixels): their spread from the
    5th to the 95th percentile of their edges (one stray read must not drag the zone over the
    players' face-up cards), half a card of margin, never smaller than `zone_min_half`. `plays`:
    how many plays placed it so far; before `zone_first_plays` it keeps the starting zone's
    middle in, so that one misread face-up card at its edge cannot move it onto a seat."""
    h, w = shape[:2]
    boxes = np.array(played)
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    # a box far longer than the others' is no card: two cards' indices (one in the pot, one
    # misread on a player's face-up card) grouped as one; let it place the zone and the zone
    # reaches over the face-up cards, which then never leave the "pot"
    keep = sides <= OVERSIZE * max(float(np.percentile(sides, 90)), 1.0)
    boxes = boxes[keep]
    size = float(np.median(sides[keep])) * 0.85
    cx = float(np.median((boxes[:, 0] + boxes[:, 2]) / 2))
    cy = float(np.median((boxes[:, 1] + boxes[:, 3]) / 2))
    m = cfg.zone_margin_cards * size
    lo = np.percentile(boxes[:, :2], EDGE_PCT, axis=0)
    hi = np.percentile(boxes[:, 2:], 100 - EDGE_PCT, axis=0)
    half_w = max(max(0.75 * size, cx - lo[0], hi[0] - cx) + m, cfg.zone_min_half[0] * w)
    half_h = max(max(0.75 * size, cy - lo[1], hi[1] - cy) + m, cfg.zone_min_half[1] * h)
    zone = (max(0.0, (cx - half_w) / w), max(0.0, (cy - half_h) / h),
            min(1.0, (cx + half_w) / w), min(1.0, (cy + half_h) / h))
    mx, my = (DEFAULT_ZONE[0] + DEFAULT_ZONE[2]) / 2, (DEFAULT_ZONE[1] + DEFAULT_ZONE[3]) / 2
    if plays < cfg.zone_first_plays and not (zone[0] <= mx <= zone[2] and zone[1] <= my <= zone[3]):
        hx, hy = cfg.zone_min_half[0] / 2, cfg.zone_min_half[1] / 2
        zone = (min(zone[0], mx - hx), min(zone[1], my - hy), max(zone[2], mx + hx), max(zone[3], my + hy))
    return zone


def only_far_leftovers(obs: Sequence[Observation], prev: Sequence[Observation], played: Sequence[Box]) -> bool:
    """The pot near where plays land is gone and what is left lies far out (a face-up card at a
    seat inside a wide auto zone): a clear. Far: beyond twice the reach of the latest plays
    (`played`, five or more) from their median, and beyond their boxes' median side."""
    if len(played) < 5 or not prev:
        return False
    c = np.array([centre(b) for b in played])
    mid = np.median(c, axis=0)
    reach = max(2.0 * float(np.percentile(np.hypot(*(c - mid).T), 90)), float(np.median([side(b) for b in played])))

    def far(o: Observation) -> bool:
        return float(np.hypot(*np.subtract(centre(o.box), mid))) > reach

    return all(far(o) for o in obs) and not all(far(o) for o in prev)
