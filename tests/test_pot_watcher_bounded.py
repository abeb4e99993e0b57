"""A whole evening through the watcher, from a real video file read back through OpenCV:
`PotWatcher.events` and the boxes that place the auto zone stay bounded, and bounding them
changes no decision."""
from __future__ import annotations

from helpers_video import write_video
from test_pot_watcher import Scene

from referee.cards import ALL_CARD_IDS
from vision.pot_watcher import ZONE_BOXES, PotWatcher, WatcherConfig
from vision.source import open_source

SPOTS = [(120, 90), (140, 94), (160, 90), (140, 100)]  # a pot: close together


def _evening(rounds: int) -> Scene:
    """`rounds` pots of four single-card plays, each pot then cleared: 4 x rounds cards."""
    s = Scene(5)
    s.still(10)
    cards = iter(sorted(ALL_CARD_IDS, key=lambda c: (c[-1], c)))  # suits first: no rank twice in a pot
    for _ in range(rounds):
        for spot in SPOTS:
            s.play([next(cards)], spot)
            s.still(12)
        s.clear()
        s.still(12)
    return s


def _watch(video, scene: Scene, watcher: PotWatcher):
    got, sizes = [], []
    for frame in open_source(str(video)).frames():
        dets = scene.dets[frame.index]
        for ev in watcher.feed(frame.image, frame.t, frame.index, lambda _img, d=dets: d):
            got.append((ev.type, tuple(ev.cards), ev.frame_index))
        sizes.append((len(watcher.events), len(watcher._played_boxes)))
    return got, sizes


def test_events_and_zone_boxes_stay_bounded_without_changing_decisions(tmp_path):
    rounds = 11  # 44 cards played: more than ZONE_BOXES
    scene = _evening(rounds)
    video = write_video(tmp_path / "evening.avi", scene.frames)
    small = PotWatcher(WatcherConfig(keep_events=3))
    roomy = PotWatcher(WatcherConfig(keep_events=10_000))
    got_small, sizes = _watch(video, scene, small)
    got_roomy, _ = _watch(video, scene, roomy)
    assert got_small == got_roomy  # bounding changes no decision
    assert [t for t, _, _ in got_small].count("cards_played") == 4 * rounds
    assert [t for t, _, _ in got_small].count("pot_cleared") == rounds
    assert max(n for n, _ in sizes) == 3 and max(b for _, b in sizes) == ZONE_BOXES
    assert [(e.type, tuple(e.cards), e.frame_index) for e in small.events] == got_small[-3:]
    assert len(roomy.events) == len(got_roomy)
    assert small.zone == roomy.zone
