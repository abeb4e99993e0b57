"""Every number the pot watcher decides with, in one place, in the order the watcher uses them.

`WatcherConfig` holds the knobs a table or a benchmark run may change (`bench/pipeline.py
--watcher NAME=VALUE`); the module constants below it are fixed geometry (what a card's index
looks like, how far a fanned card's lower index lies) that no table changes. Each value was
measured on rendered games (`bench/pipeline.py`: the benchmark and the dev renders at 1280x720,
the demo); a 0 turns the step it belongs to off. The measurements live in the git history and
models/MODEL_CARD.md, not here.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

Zone = tuple[float, float, float, float]  # x0, y0, x1, y1 as fractions of width/height

#: where the pot is looked for before any play placed it (fractions of the frame)
DEFAULT_ZONE: Zone = (0.22, 0.2, 0.78, 0.8)


@dataclass
class WatcherConfig:
    """Tuning knobs; the defaults are tuned on 30 fps overhead video (640x480 and 1280x720).

    Grouped by the step that reads them: 1. settling a frame, 2. telling a play from strays,
    3. asking, 4. the pot's zone, 5. what landed unread, 6. evidence."""
    # -- 1. a settled frame: motion, stillness, the reads that settle it (`settle.consensus`)
    motion_width: int = 96          # width of the downscaled motion image
    pixel_diff: float = 0.2         # a pixel changed by more than this (std units) moved
    motion_threshold: float = 0.004 # share of moved pixels in the zone = "moving"
    still_frames: int = 3           # still frames before the detector is asked
    read_frames: int = 3            # agreeing still reads needed to settle (more, up to
                                    # max_reads, while a new or top card flickers)
    max_reads: int = 8              # reads kept while waiting for the zone's edge to clear
    presence: float = 0.6           # share of reads a card must appear in
    same_scene: float = 0.004       # still frame this close to the settled one: no re-read
    low_conf: float = 0.6           # mean confidence under this: ask the operator
    iou_cluster: float = 0.3        # same card, boxes overlapping more than this: one card
    iou_misread: float = 0.75       # other card, boxes this alike: the same card misread
    ring_px: int = 2                # width of the zone-border band checked for arms
    ring_diff: float = 0.6          # per-pixel change (std units) that counts in the band
    ring_share: float = 0.02        # share of the band changed = something crosses the edge
    hand_patience: int = 10         # still frames after which a crossing no longer blocks
    decks: int = 1                  # decks in play (a card's copies; 4 x decks of a rank)
    # -- 2. a play told from strays (`plays`)
    unchanged_share: float = 0.1    # a new card whose box changed less than this share since
                                    # the last settled frame is a stray (0: off; `plays.changed`)
    unchanged_diff: int = 30        # a pixel changed: its grey level moved by more than this
    faint_ratio: float = 0.3        # beside new cards of other ranks read at most this much as
                                    # surely, one card's two corners are still looked for
                                    # (`plays.one_card_two_corners`; 0: only when no other rank is new)
    stray_ratio: float = 0.75       # the runner-up rank read at most this much as surely as the
                                    # best: the best rank is the play, the rest strays (`plays.sure_play`)
    legal_choice: bool = True       # closer than that: the one close rank the table allows now is
                                    # the play, asked about (`plays.legal_play`; off: a mismatch)
    # -- 3. asking: what makes a play "please check" (`asking`)
    doubt_conf: float = 0.8         # a stray where the pot changed is asked about only beside a
                                    # play card read less surely than this (1.0: always)
    lower_reach: float = 2.0        # a fanned play's lower card: its index looked for this many
    lower_conf: float = 0.4         # index sides around a played card's (0: off), added at this much
    twin_overlap: float = 0.5       # a 6 or 9 of a play of several whose box holds this much of an
                                    # index box of its pot twin: asked about (`asking.maybe_turned`; 0: off)
    mate_vote: float = 0.3          # a play card whose reads lean this much to a card of its rank
                                    # not played nor on the pot: ask whether it lies under it too
    faint_mate: float = 0.3         # ... or an index box apart from the play, changed by it (at
    faint_change: float = 0.3       # least `faint_change` of its pixels), that the classifier
                                    # gives such a card this much, however unsure (0: off)
    mate_beside: float = 0.5        # ... or, so changed, read as a card of the play beside a surer
                                    # box of it, giving such a card this share of its own (0: off)
    wide_index: float = 1.5         # ... or a box of the play or changed by it this many index
    wide_conf: float = 0.5          # widths wide, one of whose index-wide cuts reads such a card
                                    # this surely (`asking.wide_mates`; 0: off)
    late_reads: int = 3             # after a play, read the still scene this many times more
    late_every: int = 5             # ... one read every this many still frames (0.5 s at 30 fps)
    late_conf: float = 0.5          # a card of the play's rank seen then this surely was played too
    # -- 4. the pot's zone (`zone`)
    zone_min_half: tuple[float, float] = (0.14, 0.18)  # auto zone half size at least, fractions
    zone_margin_cards: float = 0.5  # auto zone margin around played cards, in card sizes
    zone_first_plays: int = 5       # plays before the auto zone may leave the starting zone
    # -- 5. what landed unread (`pixels`, `PotWatcher._unread`)
    unread_change: float = 1.0      # the pot changed by this many index boxes' area with no card
                                    # new nor gone: something landed unread, a mismatch (0: off)
    clear_left: float = 1.0         # a pot read as gone whose place still differs from the bare
                                    # table by this many index boxes' area is covered, not gone:
                                    # no clear, a card landed unread (`pixels.pot_left`; 0: off)
    guess_floor: float = 0.1        # ... offering the cards its changed index boxes were read as,
                                    # however unsurely, this much or more (`asking.guesses`)
    # -- 6. evidence and history
    evidence_dir: Path | None = None
    jpeg_quality: int = 80
    keep_events: int = 200          # `PotWatcher.events` keeps the last this many (a whole
                                    # evening must not grow it without bound)


# -- fixed geometry ---------------------------------------------------------------------------

#: the grid the unread-change check compares the pot on (pixels across the frame)
UNREAD_WIDTH = 320
#: an index box's area, times the frame's height squared, before any was read: a tenth of a
#: card a fifth of the frame high and 0.7 of that wide
INDEX_AREA = 0.1 * 0.2 * 0.14
#: a settled frame with no pot differing from the bare table around where the pot lay over
#: this share means that frame is stale (the camera moved), not that the pot is still there
BARE_STALE = 0.2

#: the auto zone is placed around the latest this many played cards' boxes
ZONE_BOXES = 40
#: played boxes longer than this many times the 90th percentile's do not place the auto zone
OVERSIZE = 1.6
#: the auto zone spans the played boxes' edges from this percentile to 100 less it
EDGE_PCT = 5

#: where `asking.lower_cards` looks: a grid of index-sized boxes every half index side, none
#: nearer a played card's index box than 0.8 of its side (a shifted cut of the played index
#: reads as its rank in another suit), none nearer a played card's centre than 0.55 of its two
#: indices' distance (a court's picture reads as a K or Q)
LOWER_STEP, LOWER_SEP, LOWER_INNER = 0.5, 0.8, 0.55
#: ... and no read lying this share of its area or more inside a played card's box
#: (`plays.inside_play`), unless that card's own reads lean half as much to the read's card
LOWER_INSIDE, LOWER_LEAN = 0.7, 0.5
#: `asking.wide_mates`: an index's width, a share of its box's height (a rank over its suit;
#: the detector's boxes on unseen decks run loose), and its cuts' step, a share of that width
WIDE_ASPECT, WIDE_STEP = 0.6, 1 / 3

#: a 6 read upside down is a 9, and a 9 a 6; a new one whose box lies this much (IoU) on an
#: index box its pot twin was read from is that twin's index (`plays.twin`)
TURNED, TURNED_IOU = {"6": "9", "9": "6"}, 0.5

#: the legality prior: a new card of a rank that may not go on the pot now counts this much of
#: its votes (players mostly play legal cards, so between two close reads the legal one would be
#: likelier; an illegal card read clearly still wins, and an overruled read is flagged). 1: off,
#: as measured: at 0.5 the benchmark read fewer plays right (`bench/pipeline.py --unfit-weight`)
UNFIT_WEIGHT = 1.0
#: a card the referee says cannot be there (burned, a joker not dealt) counts this much of its votes
IMPOSSIBLE_WEIGHT = 0.05

#: seat zones in drawn frames (BGR): the set-up page's light blue
SEAT_COLOR = (255, 216, 127)
