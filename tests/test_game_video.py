"""Synthetic game videos: real files through OpenCV, truth that agrees with the engine."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.game_video import (GameRenderer, OracleDetector, VideoSpec, game_script, read_frames_truth,
                                 read_truth, score_events, simple_game)
from referee.cards import STANDARD_DECK


@pytest.fixture(scope="module")
def short_video(tmp_path_factory):
    out = tmp_path_factory.mktemp("gv") / "g.mp4"
    r = GameRenderer(VideoSpec(seed=5, players=["Ann", "Bob", "Cy"], faces="drawn-01", max_actions=10))
    paths = r.render(out)
    return r, paths


def test_video_truth_and_frames_agree(short_video):
    r, paths = short_video
    cap = cv2.VideoCapture(str(paths["video"]))
    n = 0
    first = None
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        first = frame if first is None else first
        n += 1
    assert n == r.frame_index == len(read_frames_truth(paths["frames"]))
    assert first.shape == (480, 640, 3)
    truth = read_truth(paths["truth"])
    assert truth.meta["fps"] == 30.0 and truth.meta["frames"] == n
    assert truth.events[0]["type"] == "setup" and truth.events[0]["players"] == ["Ann", "Bob", "Cy"]
    seqs = [e["seq"] for e in truth.events]
    assert seqs == list(range(1, len(seqs) + 1))
    plays = [e for e in truth.events if e["type"] == "cards_played"]
    assert plays and all(0 < e["t_rest"] <= n / 30 for e in plays)
    times = [e["t"] for e in truth.events]
    assert times == sorted(times)


def test_every_played_card_is_visible_on_the_pot_when_it_rests(short_video):
    """The truth boxes say where each card is: at its rest time a played card lies on the pot
    with a readable corner, and the frame there is brighter than the table (a card)."""
    r, paths = short_video
    frames = read_frames_truth(paths["frames"])
    truth = read_truth(paths["truth"])
    for ev in truth.camera_events:
        if ev["type"] != "cards_played":
            continue
        i = int(round(ev["t_rest"] * 30)) + 1
        on_pot = {c[0]: c for c in frames[i] if c[6] == "pot"}
        for card in ev["cards"]:
            assert card in on_pot and on_pot[card][5] >= 0.6, (card, ev)


def test_same_seed_same_game_and_truth():
    a = GameRenderer(VideoSpec(seed=3, players=["Ann", "Bob"], faces="drawn-02", max_actions=3))
    b = GameRenderer(VideoSpec(seed=3, players=["Ann", "Bob"], faces="drawn-02", max_actions=3))
    fa, fb = list(a.frames()), list(b.frames())
    assert len(fa) == len(fb) and all(np.array_equal(x, y) for x, y in zip(fa[::20], fb[::20]))
    assert a.events == b.events


def test_engine_games_replay_through_the_table_referee():
    """A whole engine game's truth log (camera + operator events) is a valid log whose
    replay ends the game with the engine's finishing order."""
    from referee.table import TableReferee
    script = game_script(11, ["Ann", "Bob", "Cy"], "fr")
    assert script.engine == "engine"
    # the truth log without rendering: the renderer emits exactly these events in order
    events = [{"type": "setup", **{k: v for k, v in script.setup.items() if k != "type"}}]
    for a in script.actions:
        if a.kind == "play":
            events.append({"type": "cards_played", "cards": a.cards})
        elif a.kind in ("burn", "pickup"):
            events.append({"type": "pot_cleared"})
        else:
            continue
        for op in a.operator:
            op = dict(op)
            if "event" in op:
                op["event"] = len([e for e in events]) if a.kind == "play" else op["event"]
            events.append(op)
    ref = TableReferee()
    for ev in events:
        ref.apply(ev)
    view = ref.view()
    assert view["over"] and view["finishing_order"] == script.order


def test_simple_game_conserves_cards_and_ends():
    for seed in range(5):
        s = simple_game(seed, ["A", "B", "C", "D"], fake_rate=0.0)
        played = [c for a in s.actions if a.kind == "play" for c in a.cards]
        assert set(played) <= set(STANDARD_DECK)
        assert any(a.kind == "burn" for a in s.actions)


def test_oracle_and_scoring(short_video):
    r, paths = short_video
    truth = read_truth(paths["truth"])
    gt = truth.camera_events
    got = [{"type": e["type"], "cards": e.get("cards", []) if e["type"] == "cards_played" else [],
            "t": e["t_rest"] + 0.3} for e in gt]
    assert score_events(gt, got).perfect
    wrong = [dict(g) for g in got]
    first_play = next(i for i, g in enumerate(wrong) if g["type"] == "cards_played")
    wrong[first_play]["cards"] = ["JK"]
    s = score_events(gt, wrong + [{"type": "mismatch", "cards": [], "t": 999.0}])
    assert not s.perfect and s.right_plays == s.truth_plays - 1 and s.extra == 1
    assert (s.wrong_plays, s.wrong_flagged, s.extra_flagged, s.right_flagged) == (1, 0, 0, 0)
    # the decisions a person is asked to check: the wrong play, the extra one, one right play
    wrong[first_play]["low_conf"] = True
    second = next(i for i, g in enumerate(wrong) if g["type"] == "cards_played" and i != first_play)
    wrong[second]["low_conf"] = True
    s = score_events(gt, wrong + [{"type": "mismatch", "cards": [], "t": 999.0, "low_conf": True}])
    assert (s.wrong_plays, s.wrong_flagged, s.extra_flagged, s.right_flagged) == (1, 1, 1, 1)
    assert sum(e.endswith("(flagged)") for e in s.errors) == 2
    # a play missed while the page shows a camera mismatch (two plays read as one) is noted
    gone = [g for i, g in enumerate(got) if i != first_play]
    assert score_events(gt, gone).missed_noted == 0
    noted = gone + [{"type": "mismatch", "cards": ["JK"], "t": got[first_play]["t"], "low_conf": True}]
    s = score_events(gt, noted)
    assert s.missed_noted == 1 and s.extra == 1 and any(e.endswith("(a mismatch shown)") for e in s.errors)
    oracle = OracleDetector(read_frames_truth(paths["frames"]), confuse=1.0, seed=1)
    oracle.index = int(round(gt[0]["t_rest"] * 30)) + 2
    dets = oracle.detect(np.zeros((480, 640, 3), np.uint8))
    assert dets and all(d.conf < 0.8 for d in dets)


def test_cli_renders_a_clip_and_rejects_bad_options(tmp_path, capsys):
    from masta.cli import main
    rc = main(["data", "game-video", "--seed", "2", "--players", "Ann,Bob", "--max-actions", "2",
               "--faces", "drawn-03", "--out", str(tmp_path), "--quiet", "--no-frames"])
    assert rc == 0
    assert (tmp_path / "game-0002.mp4").stat().st_size > 10_000
    lines = (tmp_path / "game-0002.truth.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "video"
    assert not (tmp_path / "game-0002.frames.jsonl.gz").exists()
    assert main(["data", "game-video", "--players", "Ann", "--out", str(tmp_path)]) == 2
    assert "2 to 5 names" in capsys.readouterr().err
    assert main(["data", "game-video", "--faces", "no-such-deck", "--out", str(tmp_path), "--quiet"]) == 2
    capsys.readouterr()
    assert main(["data", "game-video", "--teach-deck", "--teach-suits", "SX", "--out", str(tmp_path / "t")]) == 2
    assert "each suit" in capsys.readouterr().err and not (tmp_path / "t").exists()


@pytest.mark.skipif(not (Path(__file__).resolve().parents[2] / "shared" / "data" / "art").is_dir(),
                    reason="../shared/data/art (the vector decks the training styles start with) is not on this machine")
def test_index_boxes_lie_on_their_cards_and_crops_come_from_them(tmp_path):
    from datasets.faces import training_styles
    from vision.classifier import CLASSES
    from training.train import TrainPlan, stage_videocrops

    plan = TrainPlan(work=tmp_path / "work", data=tmp_path / "data", video_count=2, video_actions=4)
    plan.work.mkdir()
    out = stage_videocrops(plan)
    folder = plan.data / "train-videos-s1"
    videos = sorted(folder.glob("*.mp4"))
    assert len(videos) == 2
    # every index box lies inside the box of a visible card of that id in the same frame
    r = GameRenderer(VideoSpec(seed=7100, faces=training_styles()[0], table="wood", players=["Ann", "Bob"],
                               max_actions=4))
    r.keep_indices = True
    list(r.frames())
    assert len(r.frames_indices) == len(r.frames_truth) > 0
    checked = 0
    for truth, idx in zip(r.frames_truth, r.frames_indices):
        cards = truth["c"]
        for card, x0, y0, x1, y1, vis in idx:
            assert vis >= 0.6
            assert any(c[0] == card and c[1] - 1 <= x0 and c[2] - 1 <= y0 and x1 <= c[3] + 1 and y1 <= c[4] + 1
                       for c in cards), (truth["i"], card)
            checked += 1
    assert checked > 100
    # the crops: 80 px, labelled with cards of the game or `none`; the last video validates
    z = np.load(out)
    assert z["x"].shape[1:] == (80, 80, 3) and len(z["x"]) == len(z["y"]) > 0 and len(z["xv"]) > 0
    names = {CLASSES[k] for k in np.concatenate([z["y"], z["yv"]])}
    assert "none" in names and len(names) > 5
    assert stage_videocrops(plan) == out  # made once, found the second time

    # crops cut from the committed detector's own boxes: labelled with the index each box lies
    # on (the committed classifier agrees with most labels), `none` for boxes on no index
    from vision.classifier import IndexClassifier
    from vision.detector import DEFAULT_DETECTOR
    from training.train import stage_detcrops
    dz = np.load(stage_detcrops(plan, DEFAULT_DETECTOR.with_suffix(".pt")))
    assert dz["x"].shape[1:] == (80, 80, 3) and len(dz["xv"]) > 0
    dx, dy = np.concatenate([dz["x"], dz["xv"]]), np.concatenate([dz["y"], dz["yv"]])
    none = CLASSES.index("none")
    assert (dy == none).any() and len({int(k) for k in dy if k != none}) > 5
    cards = dy != none
    read = IndexClassifier(str(DEFAULT_DETECTOR.with_name("card_index_classifier.onnx")), threads=1)
    got = np.array([CLASSES.index(r[0]) for r in read.classify([c[8:72, 8:72] for c in dx[cards]])])
    assert (got == dy[cards]).mean() > 0.6

    # upright card crops from the same videos: cards where two corner indices are seen
    # (mostly card-white inside), `none` for two cards' indices; the last video validates
    from vision.card_face import FACE_H, FACE_W
    from training.train import stage_facecrops
    faces = np.load(stage_facecrops(plan))
    assert faces["x"].shape[1:] == (FACE_H, FACE_W, 3) and len(faces["xv"]) > 0
    y = np.concatenate([faces["y"], faces["yv"]])
    x = np.concatenate([faces["x"], faces["xv"]])
    none = CLASSES.index("none")
    assert (y == none).any() and len({int(k) for k in y if k != none}) > 5

    def white(crops):  # share of near-white, unsaturated pixels in the middle of the card
        mid = crops[:, FACE_H // 4:3 * FACE_H // 4, FACE_W // 4:3 * FACE_W // 4].astype(int)
        return ((mid.min(3) > 170) & (mid.max(3) - mid.min(3) < 40)).mean()
    assert white(x[y != none]) > 0.5 and white(x[y != none]) > white(x[y == none])

    # a (tiny) face classifier trains on them, exports, and the detector reads faces with it
    # when its ONNX lies beside the detector's (and not when told not to)
    import shutil

    from vision.detector import DEFAULT_DETECTOR, CardDetector
    from training.train import FACE, export_classifier, stage_face
    plan.face_epochs, plan.cls_samples, plan.cls_batch, plan.threads = 1, 256, 64, 1
    ckpt = stage_face(plan)
    assert ckpt.is_file() and (plan.work / "face.done").exists()
    models = tmp_path / "models"
    models.mkdir()
    for name in (DEFAULT_DETECTOR.name, "card_index_classifier.onnx"):
        shutil.copy(DEFAULT_DETECTOR.with_name(name), models / name)
    export_classifier(ckpt, models / "card_face_classifier.onnx", FACE)
    det = CardDetector(models / DEFAULT_DETECTOR.name, threads=1)
    assert det.face is not None and CardDetector(models / DEFAULT_DETECTOR.name, use_face=False).face is None
    cap = cv2.VideoCapture(str(videos[0]))
    cap.set(cv2.CAP_PROP_POS_FRAMES, cap.get(cv2.CAP_PROP_FRAME_COUNT) // 2)
    ok, frame = cap.read()
    cap.release()
    assert ok
    hits = det.read_indices(frame)
    assert hits and "face_ms" in det.last_timing
    assert all(h.card != "none" and h.probs is not None and h.probs.shape == (len(CLASSES),) for h in hits)
