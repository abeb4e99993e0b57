"""The whole chain on a rendered game video read back through OpenCV: source -> (oracle)
detector -> pot watcher -> table referee. The detector here is the ORACLE (the renderer's own
boxes): these tests check the pipeline, not the model."""
from __future__ import annotations

import json
import threading
from dataclasses import replace

import cv2
import numpy as np
import pytest

from datasets.game_video import (GameRenderer, OracleDetector, VideoSpec, read_frames_truth, read_truth, score_events,
                                 seat_hints, seat_zones)
from referee.table import TableReferee
from vision.pipeline import Pipeline, priors_from_view
from vision.pot_watcher import PotWatcher, WatcherConfig, consensus
from vision.source import open_source


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    out = tmp_path_factory.mktemp("clip") / "clip.mp4"
    r = GameRenderer(VideoSpec(seed=8, players=["Ann", "Bob", "Cy"], faces="drawn-05", max_actions=14))
    return r.render(out)


def _referee(truth):
    ref = TableReferee()
    setup = dict(truth.events[0])
    ref.apply({k: v for k, v in setup.items() if k not in ("seq", "t")})
    return ref


def test_pipeline_transcribes_the_clip_and_the_referee_rules(clip, tmp_path):
    truth = read_truth(clip["truth"])
    oracle = OracleDetector(read_frames_truth(clip["frames"]), miss=0.05, confuse=0.02, seed=3)
    ref = _referee(truth)
    seen, decided_at = [], []

    def referee(ev):  # the video time of the frame each decision came from is known meanwhile
        decided_at.append(pipe.frame_t)
        return ref.apply(ev)

    pipe = Pipeline(open_source(str(clip["video"])), oracle, referee=referee, on_event=seen.append,
                    config=WatcherConfig(evidence_dir=tmp_path / "ev"), on_frame=oracle.see,
                    priors_fn=lambda: priors_from_view(ref.view()))
    stats = pipe.run()
    assert decided_at == [p.t for p in seen]
    got = [{"type": p.watch.type, "cards": p.watch.cards, "t": p.t} for p in seen]
    score = score_events(truth.camera_events, got)
    assert score.perfect, score.errors
    assert stats.frames == truth.meta["frames"]
    assert 0 < stats.detector_ratio < 0.25  # the detector skips frames in motion and repeats
    assert max(score.latencies) < 1.0
    plays = [p for p in seen if p.watch.type == "cards_played"]
    assert all(any(r.get("kind") == "ruling" for r in p.rulings) for p in plays)
    line = plays[0].to_json()
    assert set(line) >= {"t", "event", "cards", "ruling"} and line["ruling"]["verdict"] in ("legal", "illegal", "penalty")
    assert "seat" not in line  # no seat zones drawn: no side named
    assert all(p.event["evidence"]["after"].endswith(".jpg") for p in plays)
    camera = [e for e in ref.log if e.get("source") == "camera"]
    assert len(camera) == len(seen)


def test_seat_zones_name_who_played_in_the_json_lines(clip):
    """Each player's side of the rendered table as seat zones: each play's `masta watch --json`
    line says from which side it came (where the arm's direction fits a side), and that is
    mostly the side of the player who played."""
    truth = read_truth(clip["truth"])
    oracle = OracleDetector(read_frames_truth(clip["frames"]))
    seats = seat_zones(truth.meta, truth.events[0]["players"])
    seen = []
    Pipeline(open_source(str(clip["video"])), oracle, on_event=seen.append, on_frame=oracle.see,
             watcher=PotWatcher(WatcherConfig(), seats=seats)).run()
    plays = [p for p in seen if p.watch.type == "cards_played"]
    lines = [p.to_json() for p in plays]
    assert plays and all(line["seat"] in seats for line in lines if "seat" in line)
    hints = seat_hints(truth.camera_events, [{"type": "cards_played", "cards": p.watch.cards, "t": p.t,
                                               "seat": p.watch.seat} for p in plays])
    assert hints["right"] > 2 * (hints["wrong"] + hints["none"]) and hints["wrong"] <= 1, hints


def test_pipeline_runs_in_a_thread_and_stops(clip):
    truth = read_truth(clip["truth"])
    oracle = OracleDetector(read_frames_truth(clip["frames"]))
    stop = threading.Event()
    events = []
    src = open_source(str(clip["video"]), pace=True)  # real time: it cannot finish in 0.5 s
    pipe = Pipeline(src, oracle, on_event=events.append, on_frame=oracle.see)
    th = threading.Thread(target=pipe.run, args=(stop,), daemon=True)
    th.start()
    threading.Event().wait(0.8)
    jpeg = pipe.snapshot_jpeg()
    assert jpeg[:2] == b"\xff\xd8"
    full = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    small = cv2.imdecode(np.frombuffer(pipe.snapshot_jpeg(max_width=320), np.uint8), cv2.IMREAD_COLOR)
    assert full.shape[1] == 640 and small.shape[:2] == (240, 320)  # phones get at most max_width
    stop.set()
    th.join(timeout=5)
    assert not th.is_alive()
    assert 0 < pipe.stats.frames < truth.meta["frames"]


def test_masta_watch_json_lines(clip, capsys):
    from masta.cli import main
    rc = main(["watch", str(clip["video"]), "--players", "Ann,Bob,Cy", "--dealer",
               read_truth(clip["truth"]).events[0]["dealer"], "--json", "--oracle", str(clip["frames"])])
    assert rc == 0
    captured = capsys.readouterr()
    lines = [json.loads(l) for l in captured.out.splitlines() if l.strip()]
    decisions = [l for l in lines if l["event"] in ("cards_played", "pot_cleared", "mismatch")]
    truth = read_truth(clip["truth"]).camera_events
    assert [d["event"] for d in decisions] == [e["type"] for e in truth]
    assert [sorted(d["cards"]) for d in decisions if d["event"] == "cards_played"] == \
        [sorted(e["cards"]) for e in truth if e["type"] == "cards_played"]
    assert all("ruling" in d and isinstance(d["t"], float) for d in decisions)
    assert "ORACLE" in captured.err


def test_masta_watch_bad_inputs(tmp_path, capsys):
    from masta.cli import main
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00" * 4000)
    assert main(["watch", str(junk), "--players", "Ann,Bob", "--oracle", str(junk)]) == 2
    assert main(["watch", str(tmp_path / "none.mp4"), "--players", "Ann,Bob"]) == 2
    assert main(["watch", "0", "--players", "Ann"]) == 2
    assert main(["watch", "0", "--players", "Ann,Bob", "--rules", "no-such-preset"]) == 2
    err = capsys.readouterr().err
    assert "error" in err


def test_the_demo_game_ships_small_whole_and_transcribable():
    """assets/demo: under 5 MB, a whole game whose truth log the table referee plays to the
    end, and which the pipeline (oracle detector) transcribes without an error."""
    from pathlib import Path
    demo = Path(__file__).resolve().parents[1] / "assets" / "demo"
    video = demo / "demo-game.mp4"
    assert video.stat().st_size < 5_000_000
    truth = read_truth(demo / "demo-game.truth.jsonl")
    ref = TableReferee()
    for ev in truth.events:
        ref.apply({k: v for k, v in ev.items() if k not in ("seq", "t", "t_rest", "reason", "from")
                   and not (k in ("player", "cards") and ev["type"] == "pot_cleared")
                   and not (k == "player" and ev["type"] == "cards_played")})
    assert ref.view()["over"] and ref.view()["titles"]
    oracle = OracleDetector(read_frames_truth(demo / "demo-game.frames.jsonl.gz"))
    seen = []
    Pipeline(open_source(str(video)), oracle, on_event=seen.append, on_frame=oracle.see).run()
    got = [{"type": p.watch.type, "cards": p.watch.cards, "t": p.t} for p in seen]
    assert score_events(truth.camera_events, got).perfect


def test_priors_from_the_referees_view_know_what_may_go_on_the_pot():
    """The referee's view says which ranks fit its pot (its preset, the cards that count):
    on a 9 in `fr` a 5 is unlikely, a K or a 9 is not; an empty pot takes anything."""
    ref = TableReferee()
    ref.apply({"type": "setup", "source": "operator", "players": ["Ann", "Bob", "Cy"], "dealer": "Ann",
               "preset": "fr", "game": 1, "decks": 1})
    empty = priors_from_view(ref.view())
    assert {empty.weight(c) for c in ("5C", "KH", "9D")} == {1.0}
    assert empty.weight("JK") < 1.0 and "JK" in empty.impossible  # fr is played without jokers
    ref.apply({"type": "cards_played", "source": "camera", "cards": ["9C"]})
    assert priors_from_view(ref.view()).weight("5H") == 1.0  # the legality prior is off by default
    nine = replace(priors_from_view(ref.view()), unfit_weight=0.5)
    assert nine.weight("5H") < nine.weight("KH") == nine.weight("9D") == nine.weight("2S") == 1.0
    assert nine.weight("9C") == 1.0  # the 9 itself lies on the pot: never weighed down
    assert priors_from_view({"pot": ["9C"]}).fitting is None  # a view without `fits`: no prior
    assert priors_from_view({"pot": ["9C"]}).weight("JK") == 1.0  # nor any word on jokers


def test_a_joker_read_where_the_preset_deals_none_is_a_misread_asked_about():
    """`nl` plays with two jokers a deck, `fr` with none: read in an `fr` game, a joker is
    weighed down (another read of the same index wins) and, alone, marked for a check; in an
    `nl` game it stands as read."""
    from test_pot_watcher import Det

    box = (100.0, 100.0, 130.0, 144.0)
    for preset, jokers in (("fr", 0), ("nl", 2)):
        ref = TableReferee()
        ref.apply({"type": "setup", "source": "operator", "players": ["Ann", "Bob", "Cy"], "dealer": "Ann",
                   "preset": preset, "game": 1, "decks": 1})
        assert ref.view()["jokers"] == jokers
        priors = priors_from_view(ref.view())
        alone = consensus([[Det("JK", 0.9, box)]] * 3, priors, WatcherConfig())
        assert [o.card for o in alone] == ["JK"] and alone[0].low_conf is (jokers == 0)
        mixed = [[Det("JK", 0.7, box)], [Det("JK", 0.7, box)], [Det("9H", 0.5, box)]]
        assert [o.card for o in consensus(mixed, priors, WatcherConfig())] == (["9H"] if jokers == 0 else ["JK"])


def test_a_card_that_shows_after_its_play_was_ruled_corrects_that_play(tmp_path):
    """The pot watcher amends a play read a card short (`cards_amended`): the pipeline sends
    it as the camera's correction of that play, by the seq the referee gave it, and the
    ruling is revised. Frames of a drawn scene written to a real MP4 and read back."""
    from test_pot_watcher import Scene, _pair_uncovered_late

    s = Scene()
    _pair_uncovered_late(s, 12)
    path = tmp_path / "pair.mp4"
    h, w = s.frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (w, h))
    for img in s.frames:
        out.write(img)
    out.release()

    class Scripted:  # what a detector reads in each frame (the scene's boxes)
        index = 0

        def see(self, frame):
            self.index = frame.index

        def detect(self, image):
            return s.dets[min(self.index, len(s.dets) - 1)]

    det = Scripted()
    ref = TableReferee()
    ref.apply({"type": "setup", "players": ["Ann", "Bob"], "dealer": "Bob"})
    seen = []
    Pipeline(open_source(str(path)), det, referee=ref.apply, on_event=seen.append, on_frame=det.see).run()
    assert [p.watch.type for p in seen] == ["cards_played", "cards_amended"]
    play = next(e for e in ref.log if e["type"] == "cards_played")
    fix = seen[1].event
    assert fix["type"] == "correct" and fix["event"] == play["seq"] and fix["cards"] == ["7C", "7S"]
    assert fix["source"] == "camera" and "7S showed" in fix["meta"]["detail"]
    revised = [r for r in seen[1].rulings if r.get("kind") == "ruling"]
    assert revised and revised[-1]["cards"] == ["7C", "7S"] and revised[-1].get("revised")
    # without a referee's seq to name, the amendment is a note for the operator
    lone = Pipeline(open_source(str(path)), det, on_frame=det.see)
    notes = [p.event for p in lone.events()]
    assert notes[1]["type"] == "note" and notes[1]["meta"]["cards"] == ["7C", "7S"]
