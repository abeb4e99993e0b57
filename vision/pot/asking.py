"""When masta asks. A play is decided on what several reads agree on; these steps look at what
the reads half saw and turn it into questions for the operator ("please check"), never into
silent guesses: a play read short (a fanned pair read as one card) is the commonest silent
error, and a wrong card played is a false accusation. In the order the watcher runs them:

* `lower_cards`: a fanned play's lower card, whose index the detector did not find, read by
  the classifier beside a played index: it joins the play, flagged, and is offered away
  (`maybe_less`).
* `ask_about_play`: a stray read where the pot changed beside an unsure play; that lower card;
  a 6 or 9 that may be its pot twin's index upside down; more cards of one rank than the decks
  hold; a card of the play's rank half seen (`maybe_more`: glimpsed in too few reads, leaned to
  by a play card's votes, read faintly in an index box the play changed, or in a cut of a box
  too wide for one index).
* `guess_votes`, `guesses`: for a card that landed unread, what the changed index boxes were half
  read as.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.cards import rank_of
from vision.pot.config import LOWER_INNER, LOWER_SEP, TURNED_IOU, WIDE_ASPECT, WIDE_STEP, WatcherConfig
from vision.pot.geometry import apart, area, card_middle, centre, chebyshev, grid_beside, iou, overlap, side
from vision.pot.memory import PotMemory
from vision.pot.observation import DetectionLike, Observation
from vision.pot.plays import inside_play, twin


@dataclass
class Look:
    """The settled frame a decision is made on, as the asking steps see it: the settling read
    (its `.indices`, every index box read, and `.read_at`, the classifier on more boxes of the
    frame, when the detector gives them), what changed since the last settled frame, and what
    this pot has held."""
    read: Sequence[DetectionLike]
    image: np.ndarray
    cfg: WatcherConfig
    in_zone: Callable[[tuple], bool]  # box -> inside the pot zone
    change: Callable[[tuple], float]  # box -> the share of its pixels changed since the last settled frame
    pot: PotMemory
    glimpsed: list = field(default_factory=list)  # (card, box) seen in too few reads to count

    @property
    def indices(self) -> Sequence[DetectionLike]:
        return getattr(self.read, "indices", ())

    @property
    def read_at(self) -> Callable | None:
        return getattr(self.read, "read_at", None)

    def unseen_mate(self, card: str, played: Sequence[str]) -> bool:
        return unseen_mate(card, played, self.pot.seen)


def unseen_mate(card: str, played: Sequence[str], pot_seen: Counter) -> bool:
    """Is `card` of the play's rank, not in the play, and never seen on this pot?"""
    return rank_of(card) == rank_of(played[0]) and card not in played and pot_seen[card] == 0


def turned_twin(o: Observation, look: Look) -> bool:
    """Is new card `o` a 6 or a 9 read where its turned twin on the pot (the 9 or the 6 of its
    suit) was read from: that card's index seen upside down? A card lies at any angle, and a 6
    turned over is a 9. That card, then: not a new one, nor one gone. A loose box around the
    twin's index is not caught here (taken for the twin at half the smaller box's overlap, real
    6s and 9s were lost): `maybe_turned` asks about it instead."""
    return any(iou(o.box, b) >= TURNED_IOU for b in look.pot.twin_indices(o.card))


def maybe_turned(o: Observation, look: Look) -> bool:
    """Might new card `o`, a 6 or a 9, be its pot twin's index read upside down, boxed too
    loosely for `turned_twin` (its box holding `twin_overlap` or more of the smaller of its box
    and an index box the twin was read from)? Asked about in a play of several cards only: one
    tap takes it out."""
    share = look.cfg.twin_overlap
    return share > 0 and any(overlap(o.box, b) >= share * min(area(o.box), area(b))
                             for b in look.pot.twin_indices(o.card))


def late_mate(play: list[Observation], obs: list[Observation], pot_seen: Counter,
              cfg: WatcherConfig) -> Observation | None:
    """After a play, of the cards read once the hand had gone (`obs`, a consensus of the late
    reads), the surest of the play's rank read surely (`late_conf`, not `low_conf`), new to the
    pot and away from the played cards: it was under the hand that played it."""
    cards = [o.card for o in play]
    more = [o for o in obs if unseen_mate(o.card, cards, pot_seen) and o.conf >= cfg.late_conf
            and not o.low_conf and all(apart(o.box, p.box) for p in play)]
    return max(more, key=lambda o: o.conf) if more else None


def lower_cards(play: list[Observation], look: Look) -> list[Observation]:
    """Cards of the play's rank, not on the pot, read where a fanned play's lower card shows its
    index: beside a played card's index boxes (`lower_reach` index sides around each), apart
    from them and from the played card's middle (`LOWER_*`), where the play changed the scene
    (`faint_change`), and not inside a played card's box (`plays.inside_play`). The detector
    finds no index there (a sliver of a card at a played card's edge), so the classifier reads a
    grid of boxes of the played index's size, and a mate read `lower_conf` or more is a card of
    the play, asked about."""
    cfg, cards = look.cfg, [o.card for o in play]
    read_at = look.read_at
    if cfg.lower_reach <= 0 or read_at is None or len(cards) >= 4 * cfg.decks:
        return []
    indices = look.indices
    own = [d.box for d in indices if d.card in cards]
    middles = [m for m in (card_middle([d.box for d in indices if d.card == c]) for c in set(cards)) if m]
    cands = [c for c in grid_beside(own, cfg.lower_reach)
             if not any(np.hypot(*np.subtract(centre(c), m)) < LOWER_INNER * d for m, d in middles)
             and look.in_zone(c) and look.change(c) >= cfg.faint_change]
    reads = read_at(cands) if cands else []
    found: list[Observation] = []
    while cands and len(cards) + len(found) < 4 * cfg.decks:
        p, card, box = max(((p, card, box) for box, r in zip(cands, reads) for card, p in r.items()
                            if look.unseen_mate(card, cards) and card not in [o.card for o in found]
                            and not inside_play(box, card, play)),
                           default=(0.0, "", None), key=lambda x: x[0])
        if p < cfg.lower_conf:
            break
        found.append(Observation(card, p, tuple(box), True, {card: p}))
        keep = [k for k, b in enumerate(cands) if chebyshev(b, box) >= LOWER_SEP * side(box)]  # one box a card
        cands, reads = [cands[k] for k in keep], [reads[k] for k in keep]
    return found


@dataclass
class Asked:
    """What masta asks about a play: each reason one line of its detail, the cards it may hold
    too (`more`) or may hold without (`less`), which the rulings page offers as one tap each."""
    lines: list[str] = field(default_factory=list)
    less: list[str] = field(default_factory=list)
    more: list[str] = field(default_factory=list)
    flagged: bool = False

    @property
    def detail(self) -> str:
        return "; ".join(self.lines)


def ask_about_play(play: list[Observation], strays: list[Observation], lower: list[Observation],
                   look: Look, rivals: Sequence[Observation] = ()) -> Asked:
    """Every question about a play just told from its strays (`play` holds `lower` already);
    `rivals`: cards of another rank read about as surely, which the table does not allow now
    (`plays.legal_play` chose the play over them)."""
    cfg, cards, asked = look.cfg, [o.card for o in play], Asked()
    if rivals:
        asked.lines.append(f"also read about as surely: {' '.join(o.card for o in rivals)}, which may not "
                           f"go on the pot now; please check")
    # a stray where nothing changed is an old card read otherwise, no doubt about the play; beside
    # a play read surely, a stray is a card under it misread, no doubt about the play either
    sure = min(o.conf for o in play) >= cfg.doubt_conf
    doubts = [] if sure else [o for o in strays if look.change(o.box) >= cfg.unchanged_share]
    if doubts:
        asked.lines.append(f"also read, far less sure: {' '.join(o.card for o in doubts)} "
                           f"(a card under it misread?); please check")
    if lower:  # read where no index was found
        asked.less = [o.card for o in lower]
        asked.lines.append(f"{' '.join(o.card for o in lower)} read half under it (a fanned "
                           f"card whose index the camera did not find); please check")
    twins = [o for o in play if maybe_turned(o, look)] if len(play) > 1 else []
    if twins:  # a pot card's index read upside down, loosely boxed
        asked.less = sorted(set(asked.less) | {o.card for o in twins})
        asked.lines += [f"{o.card} may be the {twin(o.card)} under it, read upside down; please check"
                        for o in twins]
    too_many = len(cards) > 4 * cfg.decks
    if too_many:  # says it all
        asked.lines = [f"{len(cards)} cards of one rank at once"]
    asked.more = maybe_more(play, look)
    if asked.more:  # a play read short is the commonest silent error: ask
        asked.lines.append(f"{' '.join(asked.more)} also half seen (one card more under it?); please check")
    asked.flagged = bool(rivals or doubts or lower or twins or too_many or asked.more)
    return asked


def maybe_more(play: list[Observation], look: Look) -> list[str]:
    """Cards of the play's rank, not in it nor on the pot before, that the reads half saw: a
    cluster seen too seldom to count (`consensus`' glimpses, not a play card misread), a
    same-rank card a play card's reads leaned to (`mate_vote` of its own votes or more), an
    index box read faintly as one (`faint_mates`), or such a card read in a cut of a wide box
    (`wide_mates`). A fanned pair's lower card shows a sliver of its index and is read now and
    then, faintly, or as its mate: the play is read short, and left unsaid it is silent."""
    cards, cfg = [o.card for o in play], look.cfg
    more = [card for card, box in look.glimpsed
            if look.unseen_mate(card, cards) and not any(iou(box, o.box) > 0.5 for o in play)]
    for o in play:
        own = o.votes.get(o.card, 0.0)
        more += [c for c, v in o.votes.items()
                 if look.unseen_mate(c, cards) and own > 0 and v >= cfg.mate_vote * own]
    if cfg.faint_mate > 0:
        more += faint_mates(play, look)
    if cfg.wide_index > 0:
        more += wide_mates(play, look)
    return sorted(set(more))


def faint_mates(play: list[Observation], look: Look) -> list[str]:
    """Cards of the play's rank, not in it nor on the pot, that an index box of the settling read
    gives `faint_mate` or more, however unsure, where the play changed the pot (`faint_change`):
    a box apart from the play's read as no play card, or one read as a card of the play beside a
    surer box of that card, not its other corner, leaning to such a card `mate_beside` as much
    (one deck shows no card's index twice side by side)."""
    cards, cfg, more = [o.card for o in play], look.cfg, []
    indices = list(look.indices)
    for d in indices:
        reads = getattr(d, "reads", None) or {}
        mates = [c for c, p in reads.items() if p >= cfg.faint_mate and look.unseen_mate(c, cards)]
        if not mates or not look.in_zone(d.box) or look.change(d.box) < cfg.faint_change:
            continue
        if d.card not in cards:
            if all(apart(d.box, o.box, 0.3) for o in play):
                more += mates
        elif cfg.mate_beside > 0:  # read as a card of the play, but where it cannot lie
            mates = [c for c in mates if reads[c] >= cfg.mate_beside * reads.get(d.card, 0.0)]
            if mates and any(e is not d and e.card == d.card and e.conf > d.conf
                             and apart(d.box, e.box, 0.3) for e in indices):
                more += mates
    return more


def wide_mates(play: list[Observation], look: Look) -> list[str]:
    """Cards of the play's rank, not in it nor on the pot, read in an index-wide cut of an index
    box `wide_index` index widths wide or more (an index's width: `WIDE_ASPECT` of its box's
    height), of a played card or changed by the play, cut every `WIDE_STEP` of a width along it:
    the detector boxes a fanned pair's two indices, side by side, as one, read as one card.
    Asked about, never played: a cut also takes in a neighbour's print."""
    cfg, cards = look.cfg, [o.card for o in play]
    read_at = look.read_at
    if read_at is None:
        return []
    cuts = []
    for d in look.indices:
        x0, y0, x1, y1 = d.box
        w, h = x1 - x0, y1 - y0
        cw = WIDE_ASPECT * h
        if w < cfg.wide_index * cw or not look.in_zone(d.box) \
                or (d.card not in cards and look.change(d.box) < cfg.faint_change):
            continue
        n = int(np.ceil((w - cw) / (WIDE_STEP * cw))) + 1
        cuts += [(x0 + k * (w - cw) / (n - 1), y0, x0 + k * (w - cw) / (n - 1) + cw, y1) for k in range(n)]
    reads = read_at(cuts) if cuts else []
    return [c for r in reads for c, p in r.items() if p >= cfg.wide_conf and look.unseen_mate(c, cards)]


def guess_votes(look: Look, impossible: frozenset[str]) -> Counter[str]:
    """For a card that landed unread: each card the settling read's index boxes where the pot
    changed were read as, too unsurely to be cards (at least `guess_floor`), summed over the
    boxes; none on the pot already nor `impossible` (burned, or a joker where none are dealt)."""
    votes: Counter[str] = Counter()
    cfg = look.cfg
    for d in look.indices:
        if not look.in_zone(d.box) or look.change(d.box) < cfg.faint_change:
            continue
        for card, p in (getattr(d, "reads", None) or {}).items():
            if p >= cfg.guess_floor and look.pot.seen[card] == 0 and card not in impossible:
                votes[card] += p
    return votes


def guesses(votes: Counter[str], most: int = 3) -> list[str]:
    """The likeliest of `guess_votes`, which the page offers as one tap each ("Played here").
    The referee goes on under the rank all the votes lean to (`meta.reads` keeps them), as an
    assumption the page shows: an unseen deck's card is often misread, so it is never ruled as
    seen."""
    return [card for card, _ in votes.most_common(most)]
