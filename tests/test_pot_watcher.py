"""The pot watcher on scripted scenes: real frames (numpy images with cards and a moving
arm drawn on a textured table) and the detections a detector would return for them."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.boxes import area as _area
from vision.pot_watcher import (Observation, PotWatcher, Priors, WatcherConfig, _inside_play,
                                _one_card_two_corners, _sure_play, consensus)

W, H = 320, 240
CARD = (30, 44)


@dataclass
class Det:
    card: str
    conf: float
    box: tuple[float, float, float, float]


class Scene:
    """A table seen from above: cards lying at positions, an arm that may reach in."""

    def __init__(self, seed: int = 0):
        rng = np.random.default_rng(seed)
        base = rng.normal(0, 1, (H // 8, W // 8)).astype(np.float32)
        tex = cv2.resize(base, (W, H), interpolation=cv2.INTER_CUBIC)
        self.table = np.clip(90 + 25 * tex, 0, 255).astype(np.uint8)
        self.cards: list[tuple[str, tuple[int, int]]] = []  # bottom to top
        self.frames: list[np.ndarray] = []
        self.dets: list[list[Det]] = []
        self.gain = 1.0

    def box(self, pos) -> tuple[float, float, float, float]:
        x, y = pos
        return (x, y, x + CARD[0], y + CARD[1])

    def frame(self, arm: tuple[int, int] | None = None, hidden: set[str] = frozenset(), conf: float = 0.95) -> None:
        img = cv2.cvtColor(self.table, cv2.COLOR_GRAY2BGR)
        for i, (card, (x, y)) in enumerate(self.cards):
            cv2.rectangle(img, (x, y), (x + CARD[0], y + CARD[1]), (235, 235, 235), -1)
            face = (sum(map(ord, card)) * 2654435761) % 4096  # a face of its own: pips where its bits say
            for b in range(12):
                if face >> b & 1:
                    cx, cy = x + 3 + 9 * (b % 3), y + 17 + 7 * (b // 3)
                    cv2.rectangle(img, (cx, cy), (cx + 6, cy + 5), (40, 40, 150), -1)
            cv2.putText(img, card, (x + 2, y + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 200), 1)
        covered = set()
        if arm is not None:  # an arm from the bottom edge to the palm at `arm`
            cv2.line(img, (arm[0], H + 40), arm, (60, 110, 170), 22)
            cv2.circle(img, arm, 18, (60, 110, 170), -1)
            for card, pos in self.cards:
                bx = self.box(pos)
                if bx[0] - 18 < arm[0] < bx[2] + 18 and bx[1] - 18 < arm[1] < bx[3] + 18:
                    covered.add(card)
        self.frames.append(np.clip(img.astype(np.float32) * self.gain, 0, 255).astype(np.uint8))
        dets = [Det(c, conf, self.box(p)) for c, p in self.cards if c not in covered and c not in hidden]
        self.dets.append(dets)

    def still(self, n: int, **kw) -> None:
        for _ in range(n):
            self.frame(**kw)

    def reach(self, target: tuple[int, int], n: int = 8) -> None:
        """An arm sweeping in from the bottom edge to `target` and back out."""
        for k in range(n):
            a = (k + 1) / n
            self.frame(arm=(int(target[0]), int(H + 20 + (target[1] - H - 20) * a)))

    def leave(self, target: tuple[int, int], n: int = 6) -> None:
        for k in range(n):
            a = (k + 1) / n
            self.frame(arm=(int(target[0]), int(target[1] + (H + 40 - target[1]) * a)))

    def play(self, cards: list[str], at: tuple[int, int], fan: int = 9) -> int:
        """Reach in, drop `cards` (fanned) at `at`, leave; returns the index of the landing frame."""
        self.reach(at)
        for k, c in enumerate(cards):
            self.cards.append((c, (at[0] + fan * k, at[1])))
        landed = len(self.frames)
        self.frame(arm=at)
        self.leave(at)
        return landed

    def plays(self, *moves: tuple[list[str], tuple[int, int]], rest: int = 15) -> list[int]:
        """Each (cards, at) played, then `rest` still frames; the first frame of each."""
        starts = []
        for cards, at in moves:
            starts.append(len(self.frames))
            self.play(cards, at)
            self.still(rest)
        return starts

    def misread(self, card: str, as_card: str, frames, conf: float | None = None) -> None:
        """The detector reads `card` as `as_card` in `frames` (at `conf`, else as it was)."""
        for i in frames:
            self.dets[i] = [Det(as_card, d.conf if conf is None else conf, d.box) if d.card == card else d
                            for d in self.dets[i]]

    def clear(self) -> None:
        at = (W // 2, H // 2)
        self.reach(at)
        self.cards.clear()
        self.leave(at)


def run(scene: Scene, watcher: PotWatcher | None = None):
    watcher = watcher or PotWatcher(WatcherConfig())
    events = []
    for i, img in enumerate(scene.frames):
        dets = scene.dets[i]
        for ev in watcher.feed(img, i / 30.0, i, lambda _img, d=dets: d):
            events.append(ev)
    return watcher, events


def test_one_card_then_a_pair_then_a_clear():
    s = Scene()
    s.still(10)
    land1 = s.play(["7H"], (140, 100))
    s.still(15)
    land2 = s.play(["9C", "9D"], (150, 95))
    s.still(15)
    s.clear()
    s.still(15)
    w, events = run(s)
    assert [e.type for e in events] == ["cards_played", "cards_played", "pot_cleared"]
    assert events[0].cards == ["7H"]
    assert sorted(events[1].cards) == ["9C", "9D"]
    assert events[0].frame_index > land1 and events[1].frame_index > land2
    # each card's index box comes with the play (a person's answer can teach from it)
    assert [len(e.boxes) for e in events[:2]] == [1, 2]
    x0, y0, x1, y1 = events[0].boxes[0]
    assert 0 <= x0 < x1 and 0 <= y0 < y1 and abs((x0 + x1) / 2 - 140) < 60 and abs((y0 + y1) / 2 - 100) < 60
    assert not any(e.low_conf for e in events)
    assert w.detector_calls < len(s.frames) / 2  # the detector is not run on every frame


def test_never_decides_while_the_arm_moves():
    s = Scene()
    s.still(10)
    s.cards.append(("5S", (140, 100)))
    rng = np.random.default_rng(1)
    for _ in range(60):  # an arm wandering over the pot, card ids flickering underneath
        s.frame(arm=(int(rng.integers(100, 220)), int(rng.integers(60, 180))))
    w, events = run(s)
    assert events == []


def test_a_resting_hand_does_not_block_forever():
    s = Scene()
    s.still(10)
    s.reach((150, 200))
    s.cards.append(("KD", (140, 100)))
    s.still(40, arm=(150, 200))  # the hand stays at the pot's edge, perfectly still
    w, events = run(s)
    assert [e.cards for e in events] == [["KD"]]


def test_card_taken_back_and_two_ranks_are_mismatches_not_guesses():
    s = Scene()
    s.still(10)
    s.play(["4C"], (120, 100))
    s.still(15)
    s.play(["5C"], (160, 100))
    s.still(15)
    s.reach((150, 110))
    s.cards.pop()  # the top card is taken back
    s.leave((150, 110))
    s.still(15)
    s.reach((150, 110))
    s.cards += [("8S", (130, 90)), ("QH", (170, 100))]
    s.leave((150, 110))
    s.still(15)
    w, events = run(s)
    assert [e.type for e in events] == ["cards_played", "cards_played", "mismatch", "mismatch"]
    assert events[2].cards == ["5C"] and "taken back" in events[2].detail
    assert sorted(events[3].cards) == ["8S", "QH"] and "several ranks" in events[3].detail
    assert events[2].to_log_event()["type"] == "note"
    # the 5C left the pot: no play to offer ("Played here"); the 8S and QH may have been played
    assert events[2].gone and events[2].to_log_event()["meta"]["gone"] is True
    assert not events[3].gone and "gone" not in events[3].to_log_event()["meta"]


def test_a_card_hidden_for_a_while_is_not_played_again():
    s = Scene()
    s.still(10)
    s.play(["3D"], (140, 100))
    s.still(15)
    s.play(["6S"], (148, 104))
    s.still(15, hidden={"3D"})  # covered by the 6S
    s.reach((150, 110))
    s.leave((150, 110))
    s.still(15)  # the detector sees the 3D's corner again
    w, events = run(s)
    assert [e.cards for e in events] == [["3D"], ["6S"]]


def test_light_change_alone_is_not_an_event_and_costs_no_reads():
    s = Scene()
    s.still(10)
    s.play(["JS"], (140, 100))
    s.still(15)
    calls_scene = len(s.frames)
    for g in np.linspace(1.0, 0.7, 10):  # a lamp dims
        s.gain = float(g)
        s.frame()
    s.still(30)
    w = PotWatcher()
    events, calls_at = [], 0
    for i, img in enumerate(s.frames):
        if i == calls_scene:
            calls_at = w.detector_calls
        events += w.feed(img, i / 30, i, lambda _img, d=s.dets[i]: d)
    assert [e.cards for e in events] == [["JS"]]
    assert w.detector_calls - calls_at <= w.cfg.read_frames  # at most one re-read


def test_detections_outside_the_zone_are_ignored_and_zone_is_operator_adjustable():
    s = Scene()
    s.still(10)
    s.cards.append(("AS", (5, 5)))  # a face-up card at a seat, far from the pot
    s.still(5)
    s.play(["2H"], (140, 100))
    s.still(15)
    w, events = run(s)
    assert [e.cards for e in events] == [["2H"]]
    with pytest.raises(ValueError, match="fractions"):
        w.set_zone((0.5, 0.5, 0.2, 0.9))
    w.set_zone((0.0, 0.0, 0.3, 0.3))
    assert w.zone_locked and w.zone == (0.0, 0.0, 0.3, 0.3)
    assert w.in_zone((10, 10, 30, 40), (H, W)) and not w.in_zone((150, 100, 180, 140), (H, W))


def test_priors_rank_ambiguous_reads_and_mark_them():
    box = (100.0, 100.0, 130.0, 144.0)
    reads = [[Det("6D", 0.7, box)], [Det("6H", 0.6, box)], [Det("6D", 0.65, box)]]
    cfg = WatcherConfig()
    plain = consensus(reads, Priors(), cfg)
    assert [o.card for o in plain] == ["6D"] and plain[0].low_conf  # contested: ask
    burned = consensus(reads, Priors(frozenset({"6D"})), cfg)
    assert [o.card for o in burned] == ["6H"] and burned[0].low_conf
    clear = consensus([[Det("6D", 0.95, box)]] * 3, Priors(), cfg)
    assert not clear[0].low_conf
    flicker = consensus([[Det("6D", 0.95, box)], [], []], Priors(), cfg)
    assert flicker == []  # seen in one read of three: not there


def test_the_legality_prior_prefers_a_legal_read_of_a_new_card_and_flags_it():
    """The legality prior (off by default; at 0.5 here): on a 9, a new card read 6C in two reads
    and QC in one (Knoll's hollow Q): a 6 may not go on a 9, a Q may, so the close call goes to
    the Q, flagged for a check. A 6 read clearly stays a 6 (an illegal play is the referee's to
    rule), and a card already on the pot is read as it is, whatever the pot asks for now."""
    box = (100.0, 100.0, 130.0, 144.0)
    on_nine = Priors(fitting=frozenset({"2", "3", "9", "10", "J", "Q", "K", "A", "JK"}), on_pot=frozenset({"9C"}),
                     unfit_weight=0.5)
    close = [[Det("6C", 0.6, box)], [Det("6C", 0.55, box)], [Det("QC", 0.7, box)]]
    assert [o.card for o in consensus(close, Priors(), WatcherConfig())] == ["6C"]
    legal = consensus(close, on_nine, WatcherConfig())
    assert [o.card for o in legal] == ["QC"] and legal[0].low_conf
    clear = [[Det("6C", 0.9, box)], [Det("6C", 0.85, box)], [Det("QC", 0.5, box)]]
    assert [o.card for o in consensus(clear, on_nine, WatcherConfig())] == ["6C"]
    # the 5 under the 9 was legal when it was played
    old = [[Det("5C", 0.6, box)], [Det("5C", 0.55, box)], [Det("KC", 0.7, box)]]
    with_five = Priors(fitting=on_nine.fitting, on_pot=frozenset({"5C", "9C"}), unfit_weight=0.5)
    assert [o.card for o in consensus(old, with_five, WatcherConfig())] == ["5C"]
    assert [o.card for o in consensus(old, on_nine, WatcherConfig())] == ["KC"]


def test_reads_pool_each_detections_other_likely_cards():
    """A card the classifier keeps as a close second in every read beats a card that wins two
    reads narrowly: each read's other likely cards (`Detection.reads`) vote in proportion."""
    from vision.detector import Detection

    box = (100.0, 100.0, 130.0, 144.0)
    narrow = {"JC": 0.5, "JS": 0.45}
    reads = [[Detection("JC", 0.5, box, narrow)], [Detection("JC", 0.5, box, narrow)],
             [Detection("JS", 0.9, box, {"JS": 0.9, "JC": 0.05})]]
    pooled = consensus(reads, Priors(), WatcherConfig())
    assert [o.card for o in pooled] == ["JS"] and pooled[0].low_conf  # contested: ask
    assert pooled[0].votes["JS"] > pooled[0].votes["JC"]
    # the same reads without their alternatives: two narrow wins carry it
    bare = [[Det(d.card, d.conf, d.box) for d in r] for r in reads]
    assert [o.card for o in consensus(bare, Priors(), WatcherConfig())] == ["JC"]


def test_one_cards_two_corners_read_with_two_suits_stay_one_card():
    """A 3S whose top-left index is read 3C in some reads. Those
    reads see two cards (3S by its other corner, 3C); the 3C index lies inside the 3S's
    whole-card box, at its corner: it is that card's corner misread, not a second 3."""
    card = (678.0, 305.0, 733.0, 467.0)
    tl, br = (681.0, 304.0, 698.0, 322.0), (712.0, 446.0, 731.0, 466.0)
    reads = [[Det("3S", 0.99, card)], [Det("3S", 0.95, br), Det("3C", 0.5, tl)],
             [Det("3S", 0.95, br), Det("3C", 0.45, tl)]]
    one = consensus(reads, Priors(), WatcherConfig())
    assert [o.card for o in one] == ["3S"] and one[0].votes["3C"] > 0
    # a lower card of a fanned pair shows its index beside the top card, not inside it
    beside = (650.0, 304.0, 667.0, 322.0)
    pair = [[Det("3S", 0.99, card), Det("3C", 0.5, beside)]] * 3
    assert sorted(o.card for o in consensus(pair, Priors(), WatcherConfig())) == ["3C", "3S"]
    # a 3H fanned under a 3S, its index inside the 3S's box but about one index
    # side off its corner (0.77 sides), read 3H in every read beside the whole 3S: two cards
    top, peek = (588.0, 260.0, 678.0, 446.0), (587.0, 267.0, 609.0, 298.0)
    fanned = [[Det("3S", 0.85, top), Det("3H", 0.57, peek)]] * 3
    assert sorted(o.card for o in consensus(fanned, Priors(), WatcherConfig())) == ["3H", "3S"]
    # another rank at that corner is another card (a misread changes the suit, not the rank)
    other = [reads[0]] + [[Det("3S", 0.95, br), Det("8C", 0.5, tl)]] * 2
    assert sorted(o.card for o in consensus(other, Priors(), WatcherConfig())) == ["3S", "8C"]


def test_evidence_jpegs_before_and_after_with_boxes(tmp_path):
    s = Scene()
    s.still(10)
    s.play(["10S"], (140, 100))
    s.still(15)
    w, events = run(s, PotWatcher(WatcherConfig(evidence_dir=tmp_path / "ev")))
    ev = events[0]
    assert set(ev.evidence) == {"before", "after"}
    after = cv2.imread(ev.evidence["after"])
    before = cv2.imread(ev.evidence["before"])
    assert after is not None and before is not None and after.shape == (H, W, 3)
    raw = s.frames[ev.frame_index]
    x0, y0, x1, y1 = [int(v) for v in s.box((140, 100))]
    # the box is drawn in red around the new card (JPEG: compare loosely)
    edge = after[y0, x0 + 5:x1 - 5].astype(int)
    assert (edge[:, 2] - edge[:, 1]).mean() > 80
    assert np.abs(after.astype(int) - raw.astype(int)).mean() > 0.5
    log = ev.to_log_event()
    assert log["type"] == "cards_played" and log["cards"] == ["10S"] and log["evidence"] == ev.evidence


RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 3)), min_size=1, max_size=5),
       st.integers(0, 3))
def test_any_sequence_of_plays_is_transcribed(plays, seed):
    """Invariant: for any sequence of settled plays, the watcher reports exactly those cards."""
    s = Scene(seed)
    s.still(8)
    used: set[str] = set()
    expected = []
    rng = np.random.default_rng(seed)
    for rank_i, n in plays:
        suits = [x for x in "CDHS" if RANKS[rank_i] + x not in used][:n]
        if not suits:
            continue
        cards = [RANKS[rank_i] + x for x in suits]
        used.update(cards)
        at = (int(rng.integers(110, 160)), int(rng.integers(80, 110)))
        s.play(cards, at)
        s.still(12)
        expected.append(sorted(cards))
    w, events = run(s)
    # cards landing exactly on older cards hide them; only what is new is reported
    assert [sorted(e.cards) for e in events if e.type == "cards_played"] == expected


def test_seat_zones_say_which_side_the_arm_came_from():
    s = Scene()
    s.still(10)
    s.play(["8D"], (140, 100))  # the arm comes in from the bottom edge
    s.still(15)
    seats = {"Ann": (0.0, 0.75, 1.0, 1.0), "Bob": (0.0, 0.0, 1.0, 0.2)}
    w, events = run(s, PotWatcher(seats=seats))
    assert events[0].seat == "Ann" and events[0].to_log_event()["meta"]["seat"] == "Ann"
    w, events = run(s)
    assert events[0].seat is None and "seat" not in events[0].to_log_event().get("meta", {})
    # where the arm came in is noted all the same: the sides are proposed from it (vision.seat_sides)
    assert 45 < events[0].arm < 135 and events[0].to_log_event()["meta"] == {"arm": round(events[0].arm, 1)}


def test_a_side_whose_box_the_arm_crossed_from_elsewhere_is_not_named():
    """The arm comes up from the bottom edge, inside the left half's box: the left half's
    player sits to the left of the pot, so the motion alone does not name them (the referee
    then goes by the turn); a box the arm's direction fits does."""
    s = Scene()
    s.still(10)
    s.play(["8D"], (140, 100))
    s.still(15)
    _, events = run(s, PotWatcher(seats={"Bob": (0.0, 0.0, 0.5, 1.0), "Ann": (0.5, 0.0, 1.0, 1.0)}))
    assert 45 < events[0].arm < 135 and events[0].seat is None
    _, events = run(s, PotWatcher(seats={"Bob": (0.0, 0.55, 0.5, 1.0), "Ann": (0.0, 0.0, 1.0, 0.2)}))
    assert events[0].seat == "Bob"


def test_the_drawn_frame_shows_each_seat_zone_where_it_lies():
    from vision.pot_watcher import SEAT_COLOR

    image = np.full((200, 300, 3), 90, np.uint8)
    plain = PotWatcher().draw(image, [])
    drawn = PotWatcher(seats={"Ann": (0.0, 0.75, 1.0, 1.0)}).draw(image, [])
    assert not (plain == SEAT_COLOR).all(axis=2).any()
    assert (drawn[150, 5:60] == SEAT_COLOR).all()         # its top edge, at 0.75 of the height (left of the pot zone)
    assert not (drawn[:140] == SEAT_COLOR).all(axis=2).any()  # nothing of it above
    assert (image == 90).all()                              # drawn on a copy


def test_a_card_seen_where_it_never_lay_is_not_ignored():
    """One deck: a card cannot be in two places. After a misread (the 5S read as AD), the real
    AD landing elsewhere is reported (flagged), not taken for the card already seen. The 5S,
    now read right where nothing changed, is an old card read otherwise: neither played nor
    named in the check (kept as a stray)."""
    s = Scene()
    s.still(10)
    _, second = s.plays((["5S"], (110, 100)), (["AD"], (150, 100)))
    s.misread("5S", "AD", range(second))  # until the second play, the detector reads the 5S as AD
    w, events = run(s)
    assert events[0].type == "cards_played" and events[0].cards == ["AD"]
    assert len(events) == 2 and events[1].low_conf
    assert events[1].type == "cards_played" and events[1].cards == ["AD"] and "5S" not in events[1].detail
    assert "5S" in w.stray_seen
    # without the pixels' word, which of the two was played cannot be told: a mismatch
    w, events = run(s, PotWatcher(WatcherConfig(unchanged_share=0)))
    assert sorted(events[1].cards) == ["5S", "AD"] and events[1].type == "mismatch"


def test_cards_lying_there_at_start_are_not_plays_even_at_the_zone_edge():
    """A player's face-up card by the pot, whose box flickers across the auto zone's edge,
    must not be taken for the first play (it would drag the auto zone away from the pot)."""
    s = Scene(3)
    s.cards.append(("4D", (120, 28)))  # straddles the default zone's top edge (y = 48)
    for k in range(10):  # its read box jitters: centre out of the zone, then in
        s.frame()
        s.dets[-1] = [Det("4D", 0.9, (120, 28 + (6 if k >= 6 else -4), 150, 72))]
    land = s.play(["KS"], (150, 110))
    s.still(15)
    for d in s.dets[-15:]:  # 4D read again, its centre now inside the zone
        d[:] = [x if x.card != "4D" else Det("4D", 0.9, (120, 36, 150, 80)) for x in d]
    w, events = run(s)
    assert [(e.type, e.cards) for e in events] == [("cards_played", ["KS"])]
    assert events[0].frame_index > land
    assert "4D" in w.fixtures


def test_a_start_up_card_picked_up_and_played_on_the_pot_is_a_play():
    s = Scene(4)
    s.cards.append(("8C", (200, 60)))
    s.still(10)
    s.play(["3H"], (140, 110))
    s.still(15)
    s.cards = [c for c in s.cards if c[0] != "8C"]  # picked up from the table ...
    s.play(["8C"], (145, 112))  # ... and played on the pot
    s.still(15)
    w, events = run(s)
    assert [(e.type, e.cards) for e in events] == [("cards_played", ["3H"]), ("cards_played", ["8C"])]
    assert "8C" not in w.fixtures


def test_a_card_box_stretched_across_the_table_does_not_drag_the_auto_zone():
    """One play's box, two cards' indices grouped as one, reached from the pot
    to a player's face-up cards; the auto zone followed it, the face-up cards were then
    "in the pot" and every clear after it became a mismatch. A box far longer than the
    others does not place the zone."""
    s = Scene(6)
    s.still(10)
    for k, card in enumerate(["3C", "5D", "6H", "8S", "9C", "JD"]):
        s.play([card], (130 + 6 * k, 100 + 4 * (k % 2)))
        s.still(14)
    s.play(["KD"], (150, 100))
    s.still(14)
    s.play(["QS"], (150, 2))  # a player lays a face-up card at the top edge, outside the pot
    s.still(14)
    s.reach((W // 2, H // 2))
    s.cards = [c for c in s.cards if c[0] == "QS"]  # the pot is picked up; the face-up card stays
    s.leave((W // 2, H // 2))
    s.still(14)
    for d in s.dets:  # KD read with a far misread grouped in: a box up to the table's edge
        d[:] = [Det("KD", x.conf, (150, 0, 180, 200)) if x.card == "KD" else x for x in d]
    w, events = run(s)
    assert [e.type for e in events] == ["cards_played"] * 7 + ["pot_cleared"]
    assert [e.cards for e in events[:7]] == [["3C"], ["5D"], ["6H"], ["8S"], ["9C"], ["JD"], ["KD"]]
    x0, y0, x1, y1 = w.zone_pixels((H, W))
    assert y0 > 2 + CARD[1] / 2  # the face-up card's centre stays out of the zone


@pytest.mark.parametrize("stray_conf, at_x, play_conf, expect", [
    (0.40, 135, 0.7, "flagged"), (0.40, 135, 0.95, "quiet"), (0.85, 135, 0.95, "mismatch"),
    (0.40, 150, 0.7, "quiet"), (0.85, 150, 0.95, "quiet")])
def test_a_far_less_sure_card_of_another_rank_does_not_void_the_play(stray_conf, at_x, play_conf, expect):
    """A play is one rank. When the 9C lands by or half over the 8D, the 8D's index may now be
    read as 6C: a "new" card of another rank. Read far less surely than the 9C, where the 9C
    changed its pixels (half over it), it is a stray: the play stands, flagged when the 9C
    itself was read under `doubt_conf`, naming the stray (a card under it misread, or one more
    card played?); beside a 9C read surely, it is a card under it misread, nothing to ask
    (the benchmark: 30 right plays asked about, no error). Read about as surely as the 9C
    there, which card was played cannot be told and it stays a mismatch for the operator.
    Where nothing changed (the 9C beside it), the 6C is an old card read otherwise: a stray,
    and no reason to doubt the play."""
    s = Scene(7)
    s.still(10)
    _, second = s.plays((["8D"], (120, 100)), (["9C"], (at_x, 96)))
    s.misread("8D", "6C", range(second, len(s.frames)), stray_conf)  # once covered, the 8D reads as 6C
    s.misread("9C", "9C", range(second, len(s.frames)), play_conf)
    w, events = run(s)
    assert [e.type for e in events] == ["cards_played", "mismatch" if expect == "mismatch" else "cards_played"]
    if expect != "mismatch":
        assert events[1].cards == ["9C"] and "6C" in w.stray_seen and "6C" not in w.pot_seen
        assert events[1].low_conf == (expect == "flagged") and ("6C" in events[1].detail) == (expect == "flagged")
    if expect == "flagged":
        assert events[1].to_log_event()["meta"]["detail"] == events[1].detail
    if expect == "mismatch":
        assert sorted(events[1].cards) == ["6C", "9C"] and events[1].low_conf


def test_a_card_read_only_as_a_stray_is_new_once_it_is_read_surely():
    """The 9C's other corner, upside down, was read "6C" beside the 9C
    play (a stray). When the real 6C landed on that spot eight seconds later, a pot that had
    "seen" the 6C took it for an old card and called the 9C under it gone ("taken back?").
    A stray is no proof: read as unsure as before it stays a stray, read surely it is a play."""
    s = Scene(7)
    s.still(10)
    _, second, third = s.plays((["8D"], (120, 100)), (["9C"], (150, 96)), (["6C"], (121, 101)))
    s.misread("8D", "6C", range(second, third), 0.4)  # the 8D, half covered, read 6C until the 6C lands
    w, events = run(s)
    assert [(e.type, e.cards) for e in events] == [("cards_played", ["8D"]), ("cards_played", ["9C"]),
                                                  ("cards_played", ["6C"])]
    assert not events[1].low_conf  # the 6C lies where nothing changed: no doubt about the 9C
    assert w.pot_seen["6C"] == 1 and not w.stray_seen


@pytest.mark.parametrize("first_plays, seen", [(5, 4), (1, 1)])
def test_a_first_play_misread_at_the_zone_edge_does_not_carry_the_auto_zone_away(first_plays, seen):
    """A held-out video at 1280x720: the first "play" was a player's face-up card at the
    starting zone's top edge; the auto zone moved onto that seat and the real pot, in the
    middle, was never seen again. Until `zone_first_plays` plays the zone keeps the starting
    zone's middle (with 1, the old behaviour, only the misread is seen)."""
    s = Scene(3)
    s.still(10)
    s.plays((["QH"], (W // 2 + 60, 52)), (["4C"], (W // 2 - 15, 98)), (["6D"], (W // 2 - 9, 101)),
            (["9S"], (W // 2 - 19, 96)))  # the pot in the middle (boxes by their top-left)
    w, events = run(s, PotWatcher(WatcherConfig(zone_first_plays=first_plays)))
    played = [e.cards for e in events if e.type == "cards_played"]
    assert played == [["QH"], ["4C"], ["6D"], ["9S"]][:seen]


def test_a_clear_that_leaves_only_a_far_card_is_a_clear():
    """A held-out video at 640x480: a face-up card at a seat was taken for a play, the auto
    zone grew over it, and after that no clear was ever seen (the pot never looked empty).
    Once the pot near where plays land is gone, cards left far out are no pot: a clear."""
    s = Scene(4)
    s.still(10)
    mid = (W // 2 - 15, H // 2 - 22)
    cards = ["4C", "6D", "9S", "10H", "JD", "QC", "KS", "AH", "5H", "7S"]
    s.plays(*[([c], (mid[0] + (k % 3) * 6 - 6, mid[1] + (k % 2) * 6)) for k, c in enumerate(cards)])
    s.plays((["8D"], (185, 143)))  # a card at the zone's edge, read as played (a seat's)
    far = s.cards[-1]
    at = (W // 2, H // 2)
    s.reach(at)
    s.cards[:] = [far]  # the pot swept away, the seat's card left lying
    s.leave(at)
    s.still(15)
    s.plays((["3C"], mid))
    w, events = run(s)
    kinds = [(e.type, e.cards) for e in events]
    assert kinds[-3:] == [("cards_played", ["8D"]), ("pot_cleared", []), ("cards_played", ["3C"])], kinds
    assert not any(e.type == "mismatch" for e in events)
    # a clear of the pot near the plays with another pot card still there is no clear
    s2 = Scene(4)
    s2.still(10)
    s2.plays(*[([c], (mid[0] + (k % 3) * 6 - 6, mid[1] + (k % 2) * 6)) for k, c in enumerate(cards)])
    s2.reach(at)
    s2.cards[:] = s2.cards[:1]  # the bottom card of the pot stays
    s2.leave(at)
    s2.still(15)
    w2, events2 = run(s2)
    assert "pot_cleared" not in [e.type for e in events2]


def test_a_pot_card_seen_by_its_other_corner_is_the_same_card():
    """One deck, 1280x720 game videos: a pot card half covered by the next play shows its
    other corner index, and its box jumps by about a card's diagonal. It is the same card,
    not a new one beside the play (which made the play a mismatch of two ranks)."""
    s = Scene()
    s.still(10)
    x, y = 140, 100
    _, second = s.plays((["7H"], (x, y)), (["9C"], (x + 12, y + 8)))
    tl, br = (x, y, x + 6, y + 10), (x + 24, y + 34, x + 30, y + 44)  # its two corner indices
    for i, dets in enumerate(s.dets):  # the detector sees an index, not the whole card
        s.dets[i] = [Det(d.card, d.conf, (tl if i < second else br)) if d.card == "7H" else d for d in dets]
    w, events = run(s)
    assert [(e.type, e.cards, e.low_conf) for e in events] == [
        ("cards_played", ["7H"], False), ("cards_played", ["9C"], False)]
    # a 7H landing next to where the misread one lay (closer than a card's two corners) is new
    s2 = Scene()
    s2.still(10)
    _, second = s2.plays((["5S"], (x, y)), (["7H"], (x + 14, y + 10)))
    s2.misread("5S", "7H", range(second))
    for i, dets in enumerate(s2.dets):
        s2.dets[i] = [Det(d.card, d.conf, (d.box[0], d.box[1], d.box[0] + 6, d.box[1] + 10)) for d in dets]
    w2, events2 = run(s2)
    assert events2[0].cards == ["7H"] and len(events2) == 2 and events2[1].low_conf


def _obs(card: str, conf: float, box, low: bool | None = None, votes: dict | None = None) -> Observation:
    return Observation(card, conf, tuple(float(v) for v in box), conf < 0.6 if low is None else low,
                       votes or {card: conf})


def test_an_unsure_sliver_of_a_fanned_triple_does_not_void_the_play():
    """9C 9S 9D fanned, the lowest 9 showing a sliver of its index
    (read 0.36), beside a half-covered old card misread QC (0.46). The play is the rank whose
    surest card is far surer than any other; the QC is a stray."""
    nines = [_obs("9D", 0.99, (602, 290, 735, 382)), _obs("9S", 0.36, (576, 299, 596, 325)),
             _obs("9C", 0.86, (548, 321, 584, 353))]
    stray = _obs("QC", 0.46, (633, 432, 662, 456))
    play, strays = _sure_play(nines + [stray], 0.75)
    assert sorted(o.card for o in play) == ["9C", "9D", "9S"] and [o.card for o in strays] == ["QC"]
    # two ranks read about as surely: which was played cannot be told, a mismatch
    rival = _obs("QC", 0.9, (633, 432, 662, 456))
    assert _sure_play(nines + [rival], 0.75) == ([], nines + [rival])


def test_a_card_that_cannot_be_there_is_a_stray_beside_a_play_not_a_rival():
    """A French game (no jokers dealt): a 3S read 0.99 beside a JK read 0.95 was a
    mismatch ("cards of several ranks"), the 3S play lost. A joker where none are dealt, or a
    burned card of a one-deck game, counts as its prior weighs it: the 3S is the play."""
    three = _obs("3S", 0.986, (535, 320, 666, 426))
    joker = _obs("JK", 0.95, (642, 376, 679, 424))
    assert _sure_play([three, joker], 0.75) == ([], [three, joker])  # no prior: as before
    assert _sure_play([three, joker], 0.75, frozenset({"JK"})) == ([three], [joker])
    # the impossible card alone is still the play (flagged by the consensus), not nothing
    assert _sure_play([joker], 0.75, frozenset({"JK"})) == ([joker], [])
    # a possible card read as surely is still a rival
    ace = _obs("AS", 0.95, joker.box)
    assert _sure_play([three, ace], 0.75, frozenset({"JK"})) == ([], [three, ace])


def test_one_cards_two_corners_read_as_two_suits_are_one_card_not_a_pair():
    """A 3C's two indices, one card's opposite corners, read 3D and 3S (both
    unsure); as a "pair" the 3S went into the pot's cards, and the real 3S played later was
    taken for an old card. Two such corners are one card, the likelier by their pooled votes."""
    a = _obs("3D", 0.46, (620, 300, 640, 330), votes={"3D": 0.46, "3C": 0.2})
    b = _obs("3S", 0.50, (704, 422, 720, 446), votes={"3S": 0.5, "3C": 0.31})
    (one,), other = _one_card_two_corners([a, b])
    assert one.card == "3C" and one.low_conf and sorted(other) == ["3D", "3S"]
    # a fanned pair (the indices one index apart), or both read surely: two cards
    near = _obs("3S", 0.50, (640, 310, 656, 334), votes={"3S": 0.5, "3C": 0.31})
    assert _one_card_two_corners([a, near]) == ([a, near], [])
    sure = [_obs("3D", 0.9, a.box), _obs("3S", 0.92, b.box)]
    assert _one_card_two_corners(sure) == (sure, [])
    # a whole card's box and an index: the consensus' business (`_other_corner`), not this
    whole = _obs("3D", 0.46, (600, 290, 700, 440))
    assert _one_card_two_corners([whole, b]) == ([whole, b], [])


def test_one_cards_two_corners_are_found_beside_a_faint_stray_but_not_beside_a_surer_card():
    """A 3S's corners read "3D" (0.72) and "3S" (0.71), 130 px apart, beside a
    faint KD (0.06, a covered card): one 3S, and the KD stays a stray for `_sure_play`.
    Beside a card of another rank read as surely (Knoll: a QC QS QH read "QH QS" and 6C),
    the two queens may be two of the play's cards: left alone."""
    d3 = _obs("3D", 0.72, (600, 270, 633, 293), low=False, votes={"3D": 0.72, "3S": 0.12})
    s3 = _obs("3S", 0.71, (614, 396, 639, 426), low=True, votes={"3S": 0.71, "8S": 0.24, "3C": 0.11})
    kd = _obs("KD", 0.06, (601, 262, 624, 290))
    assert _one_card_two_corners([d3, kd, s3]) == ([d3, kd, s3], [])  # without a ratio: as before
    out, other = _one_card_two_corners([d3, kd, s3], 0.3)
    assert [o.card for o in out] == ["3S", "KD"] and other == ["3D"] and out[0].low_conf
    six = _obs("6C", 0.72, (700, 300, 720, 326))
    assert _one_card_two_corners([d3, six, s3], 0.3) == ([d3, six, s3], [])
    # as surely as a stray for `_sure_play` (0.75) is not faint enough
    half = _obs("6C", 0.45, (700, 300, 720, 326))
    assert _one_card_two_corners([d3, half, s3], 0.3) == ([d3, half, s3], [])


def test_a_lower_card_is_not_read_inside_a_played_cards_box():
    """A card under the play shows its index outside the cards on it: a read inside a played
    card's box is that card's own print (a KH's index read KD; a KD's
    face read KH), unless the played card's reads lean to it too (its box may span both)."""
    kh = _obs("KH", 0.46, (594, 284, 617, 306), votes={"KH": 0.46, "KD": 0.16})
    assert _inside_play((600, 283, 615, 304), "KD", [kh])
    assert not _inside_play((560, 283, 575, 304), "KD", [kh])  # beside it: a lower card may lie there
    strip = _obs("2S", 0.57, (605, 270, 677, 441), votes={"2S": 0.57, "2C": 0.53})
    assert _inside_play((610, 280, 630, 310), "2D", [strip])
    assert not _inside_play((610, 280, 630, 310), "2C", [strip])


def _lean(s: Scene, card: str, reads: dict[str, float], frames) -> None:
    """The detector reads `card` with the classifier's other likely cards `reads` in `frames`."""
    from vision.detector import Detection

    for i in frames:
        s.dets[i] = [Detection(d.card, reads[d.card], d.box, dict(reads)) if d.card == card else d
                     for d in s.dets[i]]


@pytest.mark.parametrize("reads, asks", [
    ({"JC": 0.9, "JS": 0.3}, True),    # the reads lean to JS: a fanned JS under it?
    ({"JC": 0.95, "JS": 0.04}, False),  # a clear JC: nothing to ask
    ({"JC": 0.9, "KS": 0.3}, False),    # another rank is a misread, not a mate
])
def test_a_play_whose_reads_lean_to_a_mate_asks_whether_it_lies_under_it_too(reads, asks):
    """The commonest silent error on the held-out videos: a fanned pair read as its top card
    alone (JC JS read "JC", its JC reads leaning 0.48 to JS). The play stays what
    was read, but the page asks for a check, naming the card that may lie under it."""
    s = Scene()
    s.still(10)
    land = s.play(["JC"], (140, 100))
    s.still(15)
    _lean(s, "JC", reads, range(land, len(s.frames)))
    _, events = run(s)
    (ev,) = events
    assert ev.type == "cards_played" and ev.cards == ["JC"]
    assert ev.low_conf == asks and ("JS also half seen" in ev.detail) == asks


def test_a_mate_already_on_the_pot_is_not_asked_about():
    s = Scene()
    s.still(10)
    s.play(["JS"], (125, 100))
    s.still(15)
    land = s.play(["JC"], (160, 100))
    s.still(15)
    _lean(s, "JC", {"JC": 0.6, "JS": 0.35}, range(land, len(s.frames)))
    _, events = run(s)
    assert [e.cards for e in events] == [["JS"], ["JC"]]
    assert "also half seen" not in events[1].detail


def test_a_card_of_the_play_glimpsed_in_too_few_reads_is_asked_about():
    """A fanned 7S under a 7C shows a sliver of its index, read in a third of the still
    frames: too seldom to count as a card (`presence`), often enough to ask."""
    s = Scene()
    s.still(10)
    land = s.play(["7C", "7S"], (140, 100), fan=14)
    s.still(20)
    for i in range(land, len(s.frames)):
        if i % 3:
            s.dets[i] = [d for d in s.dets[i] if d.card != "7S"]
    _, events = run(s)
    (ev,) = events
    assert ev.cards == ["7C"] and ev.low_conf and "7S also half seen" in ev.detail
    # the consensus names what it saw too seldom
    stats: dict = {}
    box = (100.0, 100.0, 130.0, 144.0)
    reads = [[Det("7C", 0.9, box), Det("7S", 0.5, (109.0, 100.0, 139.0, 144.0))], [Det("7C", 0.9, box)],
             [Det("7C", 0.9, box)]]
    assert [o.card for o in consensus(reads, Priors(), WatcherConfig(), stats)] == ["7C"]
    assert [c for c, _ in stats["glimpsed"]] == ["7S"]


def _probabilities(probs: dict[str, float]) -> np.ndarray:
    """The classifier's output for one box that reads `probs`; the rest is `none`."""
    from vision.detector import CLASSES

    p = np.zeros(len(CLASSES), np.float32)
    for c, v in probs.items():
        p[CLASSES.index(c)] = v
    p[-1] = max(0.0, 1.0 - p.sum())
    return p


def _faint_index(card: str, probs: dict[str, float], box, det_conf: float = 0.1):
    """One index box as the detector finds it and the classifier reads it (`probs`), however unsure."""
    from vision.detector import IndexHit

    return IndexHit(tuple(float(v) for v in box), det_conf, card, probs[card], _probabilities(probs))


@pytest.mark.parametrize("card, probs, where, asks", [
    ("JS", {"JS": 0.45, "JH": 0.2}, "lower", True),   # the lower card's index, read faintly
    ("7S", {"7S": 0.5, "JS": 0.35}, "lower", True),   # read as another card, but its reads say JS
    ("JS", {"JS": 0.45, "JH": 0.2}, "old", False),    # where nothing changed: an old card's
    ("KS", {"KS": 0.5, "QS": 0.3}, "lower", False),   # another rank: no mate of the play
    ("JC", {"JC": 0.5, "JS": 0.35}, "lower", False),  # the play's own card read again
    ("JS", {"JS": 0.25, "JH": 0.2}, "lower", False),  # under `faint_mate`
])
def test_a_faint_index_of_a_mate_beside_the_play_asks_whether_it_lies_under_it(card, probs, where, asks):
    """A fanned JS JC read "JC": the JS's index, a sliver beside the JC, is found but read
    too unsurely to be a card (under the camera's card threshold, never in the detections).
    The detector's every index read (`CardReads.indices`) still shows it: where the play changed
    the pot, given JS `faint_mate` or more, the page asks whether JS lies under the JC too."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    s.play(["5D"], (200, 150))
    s.still(15)
    land = s.play(["JS", "JC"], (140, 100))
    s.still(20)
    box = (140, 100, 148, 114) if where == "lower" else (200, 150, 208, 164)
    index = _faint_index(card, probs, box)
    w, events = PotWatcher(WatcherConfig()), []
    for i, img in enumerate(s.frames):
        dets = [d for d in s.dets[i] if d.card != "JS"]  # never read as a card
        reads = CardReads(dets, [index] if i >= land else [])
        events += w.feed(img, i / 30.0, i, lambda _img, r=reads: r)
    assert [e.cards for e in events] == [["5D"], ["JC"]]
    ev = events[1]
    assert ev.low_conf == asks and ev.maybe_more == (["JS"] if asks else [])
    assert ("JS also half seen (one card more under it?)" in ev.detail) == asks


@pytest.mark.parametrize("probs, box, beside, asks", [
    ({"7C": 0.4, "7S": 0.35}, (140, 100, 148, 114), 0.5, True),   # the 7S's index, read as much 7C as 7S
    ({"7C": 0.75, "7S": 0.3}, (140, 100, 148, 114), 0.5, False),  # 7S under `mate_beside` of its 7C
    ({"7C": 0.4, "7S": 0.35}, (153, 99, 163, 115), 0.5, False),   # a looser box of the 7C's own index
    ({"7C": 0.4, "7S": 0.35}, (140, 100, 148, 114), 0.0, False),  # turned off
])
def test_an_index_read_as_a_played_card_beside_its_surer_index_asks_for_its_mate(probs, box, beside, asks):
    """A fanned 7S 7C read "7C": the 7S's index, a strip beside the 7C's, is read as much 7C as
    7S, so the two boxes make one 7C (7C 7S 7D read "7C
    7D", untold). One deck shows no card's index twice side by side: the page asks about 7S."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    land = s.play(["7S", "7C"], (140, 100), fan=14)
    s.still(20)
    hits = [_faint_index("7C", {"7C": 0.9}, (154, 100, 162, 114), det_conf=0.8),
            _faint_index("7C", probs, box)]
    w, events = PotWatcher(WatcherConfig(mate_beside=beside)), []
    for i, img in enumerate(s.frames):
        reads = CardReads([d for d in s.dets[i] if d.card != "7S"], hits if i >= land else [])
        events += w.feed(img, i / 30.0, i, lambda _img, r=reads: r)
    (ev,) = events
    assert ev.cards == ["7C"] and ev.low_conf == asks and ev.maybe_more == (["7S"] if asks else [])


@pytest.mark.parametrize("box, read_as, p, wide, asks", [
    ((140, 100, 168, 114), "9D", 0.66, 2.0, True),    # one box over both indices; a cut at its left reads 9D
    ((140, 100, 168, 114), "9D", 0.4, 2.0, False),    # under `wide_conf`
    ((140, 100, 168, 114), "KD", 0.9, 2.0, False),    # another rank: no card of this play
    ((140, 100, 155, 114), "9D", 0.66, 2.0, False),   # not `wide_index` index widths wide
    ((140, 100, 155, 114), "9D", 0.66, None, True),   # 1.8 widths: the default reads it in cuts
    ((140, 100, 151, 114), "9D", 0.66, None, False),  # 1.3 widths: one index, a little loose
    ((140, 100, 168, 114), "9D", 0.66, 0.0, False),   # turned off
])
def test_a_wide_index_box_of_the_play_is_read_in_cuts_for_a_mate_beside_it(box, read_as, p, wide, asks):
    """A fanned 9D 9S read "9S": the detector boxed the two indices, side by side, as one, read
    9S. Cut every third of an index width along it, the cut at its left reads 9D: asked about,
    not played (likewise a box 1.8 index widths wide, a KS KC read "KC")."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    land = s.play(["9D", "9S"], (140, 100), fan=14)
    s.still(20)
    hits = [_faint_index("9S", {"9S": 0.9}, box, det_conf=0.8)]
    reader = _classifier_reading(read_as, p, (144.2, 107))  # the 9D's index, at the box's left
    w, events = PotWatcher(WatcherConfig() if wide is None else WatcherConfig(wide_index=wide)), []
    for i, img in enumerate(s.frames):
        reads = CardReads([d for d in s.dets[i] if d.card != "9D"], hits if i >= land else [], reader)
        events += w.feed(img, i / 30.0, i, lambda _img, r=reads: r)
    (ev,) = events
    assert ev.cards == ["9S"] and ev.low_conf == asks and ev.maybe_more == (["9D"] if asks else [])
    assert ("9D also half seen (one card more under it?)" in ev.detail) == asks


def _classifier_reading(card: str, p: float, at: tuple[float, float]):
    """Stands in for the classifier on boxes the detector did not find: `card` at `p` for a box
    centred within 3 px of `at` (a half-hidden index), `none` elsewhere."""
    def read(boxes):
        return [_probabilities({card: p} if np.hypot((b[0] + b[2]) / 2 - at[0], (b[1] + b[3]) / 2 - at[1]) <= 3
                               else {}) for b in boxes]
    return read


@pytest.mark.parametrize("under, read_as, p, before, reach, added", [
    ("JS", "JS", 0.6, None, 2.0, True),    # the lower card's index read where none was found
    ("JS", "JS", 0.3, None, 2.0, False),   # under `lower_conf`
    ("JS", "KS", 0.9, None, 2.0, False),   # another rank: no card of this play
    (None, "JS", 0.6, None, 2.0, False),   # nothing lies there: bare table, unchanged
    ("JS", "JS", 0.6, "JS", 2.0, False),   # JS is on the pot already (one deck)
    ("JS", "JS", 0.6, None, 0.0, False),   # turned off
])
def test_a_fanned_pairs_lower_index_is_read_where_the_detector_found_none(under, read_as, p, before, reach, added):
    """A fanned JS JC whose JS index, a sliver at the JC's edge, the detector never finds
    (the commonest error on the held-out videos: a pair read as one card). Beside the JC's
    index the classifier reads a grid of boxes of its size; where the play changed the pot,
    a card of the play's rank not on the pot, read `lower_conf` or more, joins the play, asked
    about."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    if before:
        s.play([before], (200, 150))
        s.still(15)
    land = s.play([under, "JC"], (140, 100), fan=14) if under else s.play(["JC"], (154, 100))
    s.still(20)
    jc_index = _faint_index("JC", {"JC": 0.9}, (154, 100, 162, 114), det_conf=0.8)
    reader = _classifier_reading(read_as, p, (144, 107))  # the JS's index, 14 px left of the JC's
    w, events = PotWatcher(WatcherConfig(lower_reach=reach)), []
    for i, img in enumerate(s.frames):
        dets = [d for d in s.dets[i] if (d.card, d.box[0]) != (under, 140)]  # the lower JS never found
        reads = CardReads(dets, [jc_index] if i >= land else [], reader)
        events += w.feed(img, i / 30.0, i, lambda _img, r=reads: r)
    played = [e for e in events if e.type == "cards_played"]
    assert played[-1].cards == (["JC", "JS"] if added else ["JC"])
    assert ("JS read half under it" in played[-1].detail) == added
    assert played[-1].maybe_less == (["JS"] if added else [])
    if added:  # the page offers the play without it: one tap, if the camera was wrong
        assert played[-1].low_conf and played[-1].conf[-1] == pytest.approx(0.6)
        assert played[-1].to_log_event()["meta"]["maybe_less"] == ["JS"]


def test_a_read_made_without_its_frame_cannot_look_again():
    from vision.detector import CardReads

    assert CardReads([], []).read_at([(0, 0, 8, 14), (10, 0, 18, 14)]) == [{}, {}]
    read = CardReads([], [], _classifier_reading("JS", 0.6, (4, 7))).read_at([(0, 0, 8, 14), (10, 0, 18, 14)])
    assert read[0] == {"JS": pytest.approx(0.6)} and read[1] == {}


def _pair_uncovered_late(s: Scene, late_from: int | None, second: str = "7S") -> int:
    """A fanned 7C + `second` whose lower index stays hidden (under the hand that played it)
    until `late_from` frames after the landing (None: never shows)."""
    s.still(10)
    land = s.play(["7C", second], (140, 100), fan=14)
    s.still(40)
    for i in range(land, len(s.frames)):
        if late_from is None or i < land + late_from:
            s.dets[i] = [d for d in s.dets[i] if d.card != second]
    return land


@pytest.mark.parametrize("late_from, second, amended", [
    (12, "7S", True),    # shows once the hand is gone: the play held it
    (None, "7S", False),  # never shows: the play stays as read
    (12, "8S", False),   # another rank showing later is no part of this play
])
def test_a_card_of_the_play_that_shows_once_the_hand_is_gone_amends_the_play(late_from, second, amended):
    """A 4D 4S decided as "4D" while the 4S's index was still covered;
    read again over the next half second, the 4S is there, read surely: the play is amended."""
    s = Scene()
    _pair_uncovered_late(s, late_from, second)
    _, events = run(s)
    assert events[0].type == "cards_played" and events[0].cards == ["7C"]
    if amended:
        assert [e.type for e in events] == ["cards_played", "cards_amended"]
        assert events[1].cards == ["7C", "7S"] and "7S showed" in events[1].detail
        log = events[1].to_log_event()
        assert log["type"] == "correct" and log["cards"] == ["7C", "7S"] and log["source"] == "camera"
    else:
        assert [e.type for e in events] == ["cards_played"]


def test_the_late_look_ends_when_the_scene_moves_and_can_be_turned_off():
    s = Scene()
    _pair_uncovered_late(s, 12)
    _, events = run(s, PotWatcher(WatcherConfig(late_reads=0)))
    assert [e.type for e in events] == ["cards_played"]
    # the next hand comes in before the late reads are done: the card is that play's business
    s = Scene()
    s.still(10)
    land = s.play(["7C", "7S"], (140, 100), fan=14)
    s.still(8)
    s.play(["9H"], (150, 110))
    s.still(20)
    for i in range(land, land + 17):
        s.dets[i] = [d for d in s.dets[i] if d.card != "7S"]
    _, events = run(s)
    assert [e.type for e in events] == ["cards_played", "mismatch"]


def _unreadable(s: Scene, card: str, landed: int) -> None:
    """The detector never reads `card` from `landed` on (an unseen deck's queen, say)."""
    for i in range(landed, len(s.dets)):
        s.dets[i] = [d for d in s.dets[i] if d.card != card]


@pytest.mark.parametrize("on_pot", [False, True])
def test_a_card_that_lands_unread_is_a_mismatch_not_silence(on_pot):
    s = Scene()
    s.still(10)
    if on_pot:
        s.play(["4C"], (120, 90))
        s.still(15)
    landed = s.play(["QD"], (135, 100))  # inside the zone: a card across its edge looks like an arm
    s.still(15)
    _unreadable(s, "QD", landed)
    s.reach((150, 110))  # a hand comes near the pot and goes: nothing lands
    s.leave((150, 110))
    s.still(15)
    # the scene's boxes are whole cards, not corner indices: the threshold in those units
    w, events = run(s, PotWatcher(WatcherConfig(unread_change=0.3)))
    assert [e.type for e in events] == ["cards_played"] * on_pot + ["mismatch"]
    ev = events[-1]
    assert ev.cards == [] and ev.low_conf and "no new card could be read" in ev.detail
    log = ev.to_log_event()
    assert log["type"] == "note" and log["meta"]["mismatch"] is True
    _, off = run(s, PotWatcher(WatcherConfig(unread_change=0)))
    assert [e.type for e in off] == ["cards_played"] * on_pot


@pytest.mark.parametrize("cleared", [True, False])
def test_a_pot_covered_by_cards_read_as_nothing_is_not_a_clear(cleared):
    """Knoll's QS QH land on a pot of one card and cover it, and the
    camera reads none of them: a pot read as gone was a clear, and the play it hid was lost
    with no one told. The table as it lay bare (at the start, after each clear) tells a pot
    taken away from one still there: this one is a card landed unread, asked about."""
    s = Scene()
    s.still(10)
    s.play(["4D"], (140, 100))
    s.still(15)
    if cleared:
        s.clear()
    else:
        landed = s.play(["QS"], (138, 98))  # on the 4D, all but its edge covered
    s.still(15)
    if not cleared:
        for i in range(landed, len(s.dets)):
            s.dets[i] = []  # neither the QS nor the 4D under it is read
    # the scene's boxes are whole cards, not corner indices: the threshold in those units
    w, events = run(s, PotWatcher(WatcherConfig(unread_change=0.3, clear_left=0.5)))
    assert [e.type for e in events] == ["cards_played", "pot_cleared" if cleared else "mismatch"]
    if not cleared:
        assert "no new card could be read" in events[-1].detail and events[-1].low_conf
        assert w.pot_seen["4D"] == 1  # the pot stays: the 4D is on it still
    _, off = run(s, PotWatcher(WatcherConfig(unread_change=0.3, clear_left=0)))
    assert [e.type for e in off] == ["cards_played", "pot_cleared"]  # without: taken for a clear


def test_a_camera_moved_since_the_table_lay_bare_still_sees_a_clear():
    """The bare table is a frame from the start or the latest clear. A camera bumped since
    (the table around the pot differs from it as much as where the pot lay) makes that frame
    stale: the clear is a clear, and the frame is taken again then. An outage forgets it."""
    s = Scene()
    yy, xx = np.mgrid[:H, :W]
    s.table = np.where((xx // 12 + yy // 12) % 2, 150, 70).astype(np.uint8)  # a checked cloth
    s.still(10)
    s.play(["4D"], (140, 100))
    s.still(15)
    moved_from = len(s.frames)
    s.clear()
    s.still(15)
    for i in range(moved_from, len(s.frames)):
        s.frames[i] = np.roll(s.frames[i], (6, 6), axis=(0, 1))  # half a check
    # a third of where the 4D lay now differs from the bare frame: over this test's threshold
    w, events = run(s, PotWatcher(WatcherConfig(unread_change=0.3, clear_left=0.25)))
    assert [e.type for e in events] == ["cards_played", "pot_cleared"]
    assert any(w._bare is f for f in s.frames[moved_from:])  # taken again at the clear, as the camera sees now
    w.rebaseline()
    assert w._bare is None


def test_a_card_just_inside_the_zones_edge_is_no_arm_but_an_arm_over_it_is():
    """Three jacks the camera cannot read land just inside the zone's
    edge; taken for an arm across it, the change was never reported. An arm crosses the edge,
    so only a change just outside the zone is one; a card inside it is not."""
    s = Scene()
    s.still(3)
    w = PotWatcher(WatcherConfig(), zone=(0.3, 0.3, 0.7, 0.7))
    ref = w._small(s.frames[-1])
    s.cards.append(("JS", (120, 74)))  # top edge at 74 px, the zone's at 72
    s.frame()
    card = s.frames[-1]
    assert not w._crosses_border(w._small(card), ref)
    arm = cv2.line(card.copy(), (150, H), (150, 140), (25, 25, 25), 22)  # a dark sleeve over the bottom edge
    assert w._crosses_border(w._small(arm), ref)


@pytest.mark.parametrize("play, turned, expected", [
    ("AD", True, ["AD"]),   # the 6C's own index, half covered by the AD, read upside down
    ("AD", False, ["AD"]),  # not read as a 9 at all
    ("9C", False, ["9C"]),  # a 9C played: its index lies where the 6C's never was
])
def test_a_six_read_upside_down_is_no_new_nine(play, turned, expected):
    """dev bench-0202 at 272 s: a 9S on the pot, its index then read "6S" beside the next
    play (an AD), and the play came out "6S AD". A card lies at any angle and a 6 turned over
    is a 9: a new 6 or 9 read on an index box its pot twin of the same suit was read from is
    that twin's index. A 9 read anywhere else is a card."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    s.play(["6C"], (140, 100))
    s.still(15)
    land = s.play([play], (143, 103) if play == "AD" else (185, 105))  # the AD over most of the 6C's index
    s.still(20)
    index = (141.0, 101.0, 149.0, 115.0)  # the 6C's corner index
    w, events = PotWatcher(WatcherConfig()), []
    for i, img in enumerate(s.frames):
        dets = list(s.dets[i])
        hits = [_faint_index(d.card, {d.card: d.conf}, index if d.card == "6C" else d.box, det_conf=0.8)
                for d in dets]
        if turned and i >= land:  # the 6C's index read "9C", about as surely as the AD
            dets.append(Det("9C", 0.8, index))
            hits.append(_faint_index("9C", {"9C": 0.8}, index, det_conf=0.8))
        reads = CardReads(dets, hits)
        events += w.feed(img, i / 30.0, i, lambda _img, r=reads: r)
    assert [(e.type, e.cards) for e in events] == [("cards_played", ["6C"]), ("cards_played", expected)]


def test_a_six_read_upside_down_is_not_a_six_taken_back():
    """A 6C on top of the pot, on an 8H; an arm reaches in, nudges the 6C and plays nothing,
    and from then on its index reads "9C" only, where the 6C was read from. That is the 6C seen
    upside down (`_turned_twin`): no new 9C, and no 6C gone either. It was counted missing, and
    the page said the top card had left the pot without a clear (taken back?)."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    s.play(["8H"], (185, 105))
    s.still(15)
    s.play(["6C"], (140, 100))
    s.still(15)
    s.reach((150, 110))
    s.cards[-1] = ("6C", (142, 101))  # nudged: the scene is read again
    s.leave((150, 110))
    turned = len(s.frames)
    s.still(20)
    index = (141.0, 101.0, 149.0, 115.0)  # the 6C's corner index
    w, events = PotWatcher(WatcherConfig()), []
    for i, img in enumerate(s.frames):
        dets = list(s.dets[i])
        if i >= turned:
            dets = [Det("9C", 0.8, index) if d.card == "6C" else d for d in dets]
        hits = [_faint_index(d.card, {d.card: d.conf}, index if d.card in ("6C", "9C") else d.box, det_conf=0.8)
                for d in dets]
        events += w.feed(img, i / 30.0, i, lambda _img, r=CardReads(dets, hits): r)
    assert [(e.type, e.cards) for e in events] == [("cards_played", ["8H"]), ("cards_played", ["6C"])]


@pytest.mark.parametrize("six_at, share, asks", [
    ((140, 100), 0.5, True),    # the "9C" box lies loosely around the 6C's index
    ((200, 100), 0.5, False),   # the 6C lies elsewhere: a 9C's own index
    ((140, 100), 0.0, False),   # turned off
])
def test_a_nine_read_loosely_over_its_six_twins_index_is_asked_about(six_at, share, asks):
    """A 9S played on the pot read "9S 9D", the 9D a loose
    box around the index of the 6D under it, read upside down (too loose for `_turned_twin`,
    whose looser cut lost plays). Asked about instead: one tap makes the play "9S"."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    s.play(["6C"], six_at)
    s.still(15)
    land = s.play(["9S"], (145, 106))  # over most of the 6C's index, when it lies at (140, 100)
    s.still(20)
    index = (six_at[0] + 1.0, six_at[1] + 1.0, six_at[0] + 9.0, six_at[1] + 15.0)  # the 6C's corner index
    box = (137.0, 97.0, 155.0, 121.0)  # "9C", read where the 9S landed
    w, events = PotWatcher(WatcherConfig(twin_overlap=share)), []
    for i, img in enumerate(s.frames):
        dets = list(s.dets[i]) + ([Det("9C", 0.9, box)] if i >= land else [])
        hits = [_faint_index(d.card, {d.card: d.conf}, index if d.card == "6C" else d.box, det_conf=0.8)
                for d in dets]
        events += w.feed(img, i / 30.0, i, lambda _img, r=CardReads(dets, hits): r)
    assert [(e.type, sorted(e.cards)) for e in events] == [("cards_played", ["6C"]), ("cards_played", ["9C", "9S"])]
    ev = events[-1]
    assert ev.low_conf == asks and ev.maybe_less == (["9C"] if asks else [])
    assert ("9C may be the 6C under it, read upside down" in ev.detail) == asks


def test_a_card_landing_unread_on_a_card_is_measured_in_index_boxes_not_cards():
    """dev bench-0202 at 158.7 s: a Knoll QC lands square on the 8C and is not read; the 8C's
    far corner still is. The change, where a queen's face replaced eight clubs, was measured
    against the median box of the cards read, and a card read by both its corners has a box
    the size of the card: 0.4 of such "index boxes", no mismatch, the play lost untold (3.3
    real index boxes). The unit is the index boxes the cards were read from."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    s.play(["4C"], (140, 100))
    s.still(15)
    before = len(s.frames) - 1
    landed = s.play(["QD"], (140, 100))  # square on the 4C: only the faces differ
    s.still(15)
    _unreadable(s, "QD", landed)

    def corners(box):  # a card's two corner indices, a tenth of it each
        x0, y0, x1, y1 = box
        return [(x0 + 1, y0 + 1, x0 + 9, y0 + 15), (x1 - 9, y1 - 15, x1 - 1, y1 - 1)]

    def read(i, indices=True):
        hits = [_faint_index(d.card, {d.card: d.conf}, b, det_conf=0.8) for d in s.dets[i] for b in corners(d.box)]
        return CardReads(list(s.dets[i]), hits if indices else [])

    for indices in (True, False):
        w, events = PotWatcher(WatcherConfig()), []
        for i, img in enumerate(s.frames):
            events += w.feed(img, i / 30.0, i, lambda _img, r=read(i, indices): r)
        assert [e.type for e in events] == ["cards_played"] + ["mismatch"] * indices
    # what changed: several index boxes, under one card's box
    w2 = PotWatcher(WatcherConfig())
    w2._index_areas.extend([_area(b) for b in corners(s.box((140, 100)))])
    change = w2._zone_change(s.frames[-1], s.frames[before])
    assert 1.0 <= change and change * 64 / (30 * 44) < 1.0


@pytest.mark.parametrize("taken", [True, False])
def test_a_pot_of_cards_landed_unread_and_taken_away_is_a_clear(taken):
    """dev bench-0202 at 73.1 s: Knoll's JH JC land on the bare table, unread (a mismatch,
    asked about), then are picked up. Read as nothing before and after, the pick-up was
    reported as one more card "landed unread", and the referee, told of the play by the
    operator, never heard of the pick-up. The zone looking as it did bare is a clear. A
    second card landing unread there is still a mismatch."""
    s = Scene()
    s.still(10)
    landed = s.play(["JH", "JC"], (140, 100))
    s.still(15)
    if taken:
        s.clear()
    else:
        s.play(["QD"], (170, 110))
    s.still(15)
    for card in ("JH", "JC", "QD"):
        _unreadable(s, card, landed)
    w, events = run(s)
    assert [e.type for e in events] == ["mismatch", "pot_cleared" if taken else "mismatch"]
    assert "no new card could be read" in events[0].detail
    if taken:  # the bare table again: a later pick-up of unread cards is told the same way
        assert w._bare is not None and not w._unread_pot


def test_a_dimmer_lamp_is_no_unread_card_but_a_card_is():
    s = Scene()
    s.still(10)
    s.play(["JS"], (140, 100))
    s.still(15)
    w, events = run(s, PotWatcher(WatcherConfig(unread_change=0.3)))
    assert [(e.type, e.cards) for e in events] == [("cards_played", ["JS"])]
    settled = s.frames[-1]
    dimmer = (settled.astype(np.float32) * 0.6).astype(np.uint8)  # the lamp dims, nothing lands
    assert w._unread(dimmer, 2.0, 99) is None
    s.gain = 0.6
    s.cards.append(("QD", (170, 110)))
    s.frame()
    ev = w._unread(s.frames[-1], 2.0, 99)
    assert ev is not None and ev.type == "mismatch"


def test_a_hand_resting_at_the_pot_and_leaving_is_no_unread_card():
    s = Scene()
    s.still(10)
    s.play(["JS"], (140, 100))
    s.still(15)
    s.reach((190, 150))
    s.still(25, arm=(190, 150))  # the hand rests across the zone's edge longer than the watcher waits
    s.leave((190, 150))
    s.still(20)
    w, events = run(s, PotWatcher(WatcherConfig(unread_change=0.3)))
    assert w.detector_calls > 3 * w.cfg.read_frames + w.cfg.late_reads  # both scenes were read
    assert [(e.type, e.cards) for e in events] == [("cards_played", ["JS"])]


@pytest.mark.parametrize("probs, offered", [
    ({"JH": 0.32, "KH": 0.14, "4H": 0.08}, ["JH", "KH"]),  # a JH on the JC
    ({"JH": 0.08, "KH": 0.06}, []),                       # under `guess_floor`: nothing to offer
    ({"4C": 0.6, "QD": 0.05}, []),                        # the covered card itself
])
def test_a_top_card_covered_by_a_card_read_unsurely_offers_what_covers_it(probs, offered):
    """A JH lands square on the 4C, hiding its index, and the camera cannot read the JH: the
    4C is gone from the reads and nothing new is read. Taken back, or covered? The mismatch
    names the 4C as gone (no play to offer), and what the last read half saw where the pot
    changed (`guesses`), which the page offers as one tap each. Knoll cards so played were
    all 4 of the benchmark's "top card left the pot" mismatches."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    *_, landed = s.plays((["5S"], (150, 110)), (["4C"], (120, 90)), (["JH"], (128, 98)), rest=25)
    _unreadable(s, "JH", landed)
    _unreadable(s, "4C", landed)  # under the JH
    index = _faint_index(max(probs, key=probs.get), probs, (128, 98, 136, 112))
    w, events = PotWatcher(WatcherConfig()), []
    for i, img in enumerate(s.frames):
        reads = CardReads(list(s.dets[i]), [index] if i >= landed else [])
        events += w.feed(img, i / 30.0, i, lambda _img, r=reads: r)
    assert [(e.type, e.cards) for e in events[:2]] == [("cards_played", ["5S"]), ("cards_played", ["4C"])]
    assert [e.type for e in events[2:]] == ["mismatch"]
    gone = events[2]
    assert gone.gone and gone.cards == ["4C"] and gone.guesses == offered
    meta = gone.to_log_event()["meta"]
    assert meta["cards"] == ["4C"] and meta.get("guesses", []) == offered
    if offered:
        assert f"covered by a card the camera cannot read (perhaps {' '.join(offered)}) or taken back" in gone.detail
    else:
        assert "left the pot without the pot being cleared (taken back?)" in gone.detail


@pytest.mark.parametrize("probs, at, offered", [
    ({"QH": 0.35, "QD": 0.3, "6H": 0.06}, "landed", ["QH", "QD"]),  # the unread card's index, faintly
    ({"QH": 0.35, "QD": 0.3}, "away", []),                         # off the pot, where nothing changed
    ({"QH": 0.2, "QD": 0.15}, "landed", ["QH", "QD"]),             # faint, but at `guess_floor` or more
    ({"QH": 0.08, "QD": 0.06}, "landed", []),                      # under `guess_floor`
    ({"4C": 0.6, "QD": 0.35}, "landed", ["QD"]),                   # 4C is on the pot already
    ({"JK": 0.6, "QD": 0.35}, "landed", ["QD"]),                   # no jokers in this game (below)
    ({"9S": 0.6, "QD": 0.35}, "landed", ["QD"]),                   # 9S was burned (below)
])
def test_a_card_that_lands_unread_offers_what_the_reads_half_saw_there(probs, at, offered):
    """The mismatch of a card that landed unread names the cards its index was faintly read as,
    where the pot changed and not on the pot already: the page offers each as one tap."""
    from vision.detector import CardReads

    s = Scene()
    s.still(10)
    _, landed = s.plays((["4C"], (120, 90)), (["QD"], (135, 100)))  # the QD: from its first frame
    _unreadable(s, "QD", landed)
    box = (135, 100, 143, 114) if at == "landed" else (20, 20, 28, 34)  # "away": outside the zone
    index = _faint_index(max(probs, key=probs.get), probs, box)
    impossible = frozenset({"JK", "9S"})  # what the referee rules out: no jokers dealt, 9S burned
    w, events = PotWatcher(WatcherConfig(unread_change=0.3), priors_fn=lambda: Priors(impossible)), []
    for i, img in enumerate(s.frames):
        reads = CardReads(list(s.dets[i]), [index] if i >= landed else [])
        events += w.feed(img, i / 30.0, i, lambda _img, r=reads: r)
    assert [e.type for e in events] == ["cards_played", "mismatch"]
    assert events[1].cards == offered
    assert ("perhaps " + " ".join(offered) in events[1].detail) == bool(offered)
    assert events[1].to_log_event()["meta"]["cards"] == offered


@pytest.mark.parametrize("impossible, types", [
    (frozenset(), ["cards_played", "mismatch"]),           # a joker may be dealt: two ranks at once
    (frozenset({"JK"}), ["cards_played", "cards_played"]),  # none are: the joker is a stray
])
def test_a_phantom_joker_beside_a_play_where_none_are_dealt_does_not_void_it(impossible, types):
    """End to end: the referee's priors reach the watcher's choice of the play. A
    3S lands and a JK is read beside it (a glint, a card's back) in a game dealt without jokers."""
    s = Scene()
    s.still(10)
    _, landed = s.plays((["4C"], (120, 90)), (["3S"], (150, 100)))
    for i in range(landed, len(s.frames)):
        s.dets[i] = s.dets[i] + [Det("JK", 0.95, (162, 112, 192, 156))]
    w, events = PotWatcher(WatcherConfig(), priors_fn=lambda: Priors(impossible)), []
    for i, img in enumerate(s.frames):
        events += w.feed(img, i / 30.0, i, lambda _img, d=s.dets[i]: d)
    assert [e.type for e in events] == types
    assert events[0].cards == ["4C"]
    assert (events[1].cards == ["3S"]) == (types[1] == "cards_played")


RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(RANKS), st.sampled_from("SHCD"), st.floats(0.01, 1.0)),
                min_size=1, max_size=6, unique_by=lambda c: c[0] + c[1]),
       st.floats(0.1, 1.0), st.sets(st.sampled_from(["3S", "KD", "9C"])))
def test_the_play_is_the_best_rank_hypothesis_standing_clear_of_the_runner_up(cards, ratio, impossible):
    """The play is one rank's new cards, all of them, and the strays every other new card; it
    stands only when no card of another rank, weighed by its prior, scores above `ratio` times
    the play's surest card; otherwise every new card goes to the operator. Each rank's hypothesis
    is scored by its surest card, whatever the others of its rank read."""
    from vision.pot.plays import hypotheses

    new = [Observation(r + s, c, (10.0 * i, 0.0, 10.0 * i + 8, 12.0)) for i, (r, s, c) in enumerate(cards)]
    impossible = frozenset(impossible)
    weight = Priors(impossible).weight
    play, strays = _sure_play(new, ratio, impossible)
    assert sorted(map(id, play + strays)) == sorted(map(id, new))  # every card accounted for, once
    ranks = {o.card[:-1] for o in new}
    if len(ranks) == 1:
        assert (play, strays) == (new, [])
        return
    hyps = {h.rank: h for h in hypotheses(new, Priors(impossible))}
    assert set(hyps) == ranks
    assert all(h.score == max(o.conf * weight(o.card) for o in h.cards) for h in hyps.values())
    if play:
        rank = play[0].card[:-1]
        assert all(o.card[:-1] == rank for o in play) and all(o.card[:-1] != rank for o in strays)
        assert len(play) == sum(o.card[:-1] == rank for o in new)
        best = max(o.conf * weight(o.card) for o in play)
        assert all(o.conf * weight(o.card) <= ratio * best for o in strays)
    else:
        assert strays == new
        top = max(hyps.values(), key=lambda h: h.score)
        assert any(h.score > ratio * top.score for h in hyps.values() if h is not top)


def test_the_watcher_reads_as_a_design_small_parts_no_benchmark_names():
    """`PotWatcher` stays under 500 lines and no function of the watcher over 60 (a rule
    grows into a named step of `vision/pot/`, not into `_decide`), and no comment or docstring
    names a benchmark video or its seconds: a rule says why it exists, not where it was seen."""
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "vision"
    files = [root / "pot_watcher.py", *sorted((root / "pot").glob("*.py"))]
    for path in files:
        text = path.read_text()
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "PotWatcher":
                assert node.end_lineno - node.lineno + 1 < 500, f"PotWatcher is {node.end_lineno - node.lineno + 1} lines"
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                assert size <= 60, f"{path.name}: {node.name} is {size} lines"
        named = re.findall(r"bench-\d{4}|\bat \d+(?:\.\d+)? s\b", text)
        assert not named, f"{path.name} names benchmark cases: {named}"


@pytest.mark.parametrize("fitting, legal_choice, expect", [
    ({"2", "3", "9", "10", "J", "Q", "K", "A"}, True, ["QH"]),  # on a 9 an 8 may not go: the Q is the play
    ({"2", "3", "9", "10", "J", "Q", "K", "A"}, False, None),  # turned off: a mismatch, as ever
    ({"2", "3", "8", "9", "10", "J", "Q", "K", "A"}, True, None),  # both allowed: the rules cannot tell
    (None, True, None),  # legality unknown (no game): a mismatch
])
def test_two_ranks_read_alike_are_told_apart_by_the_rules_and_asked_about(fitting, legal_choice, expect):
    """Two cards of two ranks land read equally surely: the image cannot tell the play from a
    stray. When the table allows one of the two ranks only, that rank is the play, asked about
    with the other named; else (both allowed, legality unknown, turned off) a mismatch."""
    s = Scene()
    s.still(10)
    s.play(["9C"], (130, 100))
    s.still(15)
    s.reach((150, 110))
    s.cards += [("8S", (115, 95)), ("QH", (150, 105))]
    s.leave((150, 110))
    s.still(15)
    priors = Priors(fitting=None if fitting is None else frozenset(fitting), on_pot=frozenset({"9C"}))
    w = PotWatcher(WatcherConfig(legal_choice=legal_choice), priors_fn=lambda: priors)
    _, events = run(s, w)
    assert [e.type for e in events[:1]] == ["cards_played"] and events[0].cards == ["9C"]
    last = events[1]
    if expect is None:
        assert last.type == "mismatch" and sorted(last.cards) == ["8S", "QH"]
    else:
        assert last.type == "cards_played" and last.cards == expect and last.low_conf
        assert "8S" in last.detail and "please check" in last.detail
        assert "8S" in w.stray_seen and "8S" not in w.pot_seen  # a sure read of it later is a new card


def test_the_rules_choose_only_among_readings_too_close_to_tell_apart():
    """`legal_play` weighs only the hypotheses the image cannot separate: an allowed rank read
    far less surely than a disallowed one is no play (the image says otherwise), and the one
    allowed close hypothesis wins even when it scored a little lower."""
    from vision.pot.plays import legal_play

    box = lambda x: (x, 0.0, x + 10.0, 14.0)  # noqa: E731
    eight, queen, four = Observation("8S", 0.9, box(0)), Observation("QH", 0.8, box(20)), Observation("4D", 0.2, box(40))
    on_nine = Priors(fitting=frozenset({"9", "10", "J", "Q", "K", "A"}))
    assert _sure_play([eight, queen], 0.75) == ([], [eight, queen])
    assert legal_play([eight, queen], 0.75, on_nine) == ([queen], [eight])
    assert legal_play([eight, queen, four], 0.75, on_nine) == ([queen], [eight, four])
    assert legal_play([eight, four], 0.75, Priors(fitting=frozenset({"4"}))) == ([], [])
    assert legal_play([eight, queen], 0.75, Priors()) == ([], [])
