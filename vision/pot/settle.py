"""A settled frame's cards: several reads of one still scene merged into one `Observation` per
physical card (`consensus`). The watcher reads a scene only once it has stopped moving, and
decides only on what several reads agree on: a card glimpsed in one read is a flicker, a card
read JS in one frame and JC in the next is one card whose votes are pooled."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.pot.config import WatcherConfig
from vision.pot.geometry import area, corner_of_whole, holds_centre, iou
from vision.pot.observation import DetectionLike, Observation, Priors


@dataclass
class Cluster:
    """One physical card over the reads of a still scene: its boxes (the median placing it),
    its votes (card -> confidence summed over the reads), how many reads saw it."""
    box: tuple
    boxes: list = field(default_factory=list)
    votes: Counter = field(default_factory=Counter)
    n: int = 0

    @property
    def top(self) -> str:
        return max(self.votes, key=self.votes.get)

    def add(self, d: DetectionLike, box: tuple, again: bool = False) -> None:
        """Count read `d` (at `box`) for this card; `again`: a second corner of the card that
        this read already saw, which votes but does not move the card nor count as a sighting."""
        if not again:
            self.boxes.append(box)
            self.box = tuple(np.median(np.array(self.boxes), axis=0))
        self.votes[d.card] += float(d.conf)
        # the read's other likely cards count too, in proportion (a card read JS in one frame
        # and JC in the next is pooled, not split)
        reads = getattr(d, "reads", None) or {}
        own = reads.get(d.card, 0.0)
        if own > 0:
            for card, p in reads.items():
                if card != d.card:
                    self.votes[card] += float(d.conf) * p / own
        self.n += 0 if again else 1


def consensus(reads: Sequence[Sequence[DetectionLike]], priors: Priors, cfg: WatcherConfig,
              stats: dict | None = None) -> list[Observation]:
    """Merge several reads of a still scene into one observation per physical card.

    Detections are clustered by box overlap across reads; a cluster present in fewer than
    `presence` of the reads is dropped (a flicker); its card is the one with the highest
    confidence-weighted vote times the prior. `stats`, if given, gets `uncertain` (cards seen
    in some reads but not all: more reads would help) and `glimpsed` (cards seen too seldom to
    count, with their boxes: a play's half-hidden mate, or a flicker)."""
    clusters: list[Cluster] = []
    for read in reads:
        _place(read, clusters, cfg)
    need = max(1, int(np.ceil(cfg.presence * len(reads))))
    if stats is not None:
        stats["uncertain"] = [c.top for c in clusters if 0 < c.n < len(reads)]
        stats["glimpsed"] = [(c.top, tuple(c.box)) for c in clusters if 0 < c.n < need]
    out = [_observe(c, priors, cfg, len(reads)) for c in clusters if c.n >= need]
    # a physical card cannot be seen more often than the decks hold it: keep the best reads
    kept: list[Observation] = []
    seen: Counter[str] = Counter()
    for o in sorted(out, key=lambda o: -o.conf):
        if seen[o.card] < max(1, priors.copies):
            kept.append(o)
            seen[o.card] += 1
    return kept


def _place(read: Sequence[DetectionLike], clusters: list[Cluster], cfg: WatcherConfig) -> None:
    """Give each detection of one read its cluster. Cards on a pot overlap a lot (two different
    cards can share most of their box), so a detection first joins a cluster of the same card
    (boxes overlapping, or one holding the other's centre: the detector's box is the whole card
    or just a corner index); only then one corner of a whole card of its rank read with another
    suit (not where this very read saw that whole card, its own corners read with its suit:
    then the index is another card's, a fanned double's lower card peeking out by the corner),
    or, with a nearly identical box, a cluster of another card (a misread)."""
    used: set[int] = set()
    given: dict[int, tuple] = {}  # cluster -> the box this read gave it
    left = []
    for d in sorted(read, key=lambda d: -d.conf):
        box = tuple(float(v) for v in d.box)
        best, best_iou = None, -1.0
        for ci, c in enumerate(clusters):
            if ci in used or d.card not in c.votes:
                continue
            overlap = iou(box, c.box)
            if (overlap > cfg.iou_cluster or holds_centre(box, c.box)) and overlap > best_iou:
                best, best_iou = ci, overlap
        if best is None:
            left.append((d, box))
        else:
            clusters[best].add(d, box)
            used.add(best)
            given[best] = box
    for d, box in left:
        corner = next((ci for ci, c in enumerate(clusters) if corner_of_whole(box, d.card, c.top, c.boxes)
                       and not (ci in given and area(given[ci]) >= 3 * area(box))), None)
        if corner is not None:
            clusters[corner].add(d, box, again=corner in used)
            used.add(corner)
            continue
        best, best_iou = None, cfg.iou_misread
        for ci, c in enumerate(clusters):
            overlap = iou(box, c.box)
            if ci not in used and overlap > best_iou:
                best, best_iou = ci, overlap
        if best is None:
            clusters.append(Cluster(box))
            best = len(clusters) - 1
        clusters[best].add(d, box)
        used.add(best)


def _observe(c: Cluster, priors: Priors, cfg: WatcherConfig, n_reads: int) -> Observation:
    """The card a cluster is (its votes times the referee's prior), flagged `low_conf` when it
    is read weakly, contested between reads, overruled by a prior, or cannot be there."""
    scored = {card: v * priors.weight(card) for card, v in c.votes.items()}
    card = max(scored, key=scored.get)
    conf = c.votes[card] / n_reads
    contested = c.votes[card] < 0.75 * sum(c.votes.values())
    low = conf < cfg.low_conf or contested or card != c.top or card in priors.impossible
    return Observation(card, conf, tuple(c.box), low, {k: round(v / n_reads, 3) for k, v in c.votes.items()})
