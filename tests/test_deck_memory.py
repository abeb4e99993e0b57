"""Teaching masta a deck (`vision.deck_memory`, `masta learn-deck`, `masta watch --deck`)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from datasets.game_video import read_frame_indices
from masta.cli import main
from vision.boxes import iou
from vision.classifier import CLASSES, IndexClassifier, crop_index
from vision.deck_memory import (CLASS_RANK, DECK_ORDER, RANKS_ORDER, DeckMemory, DeckMemoryError, align,
                                deck_order, learn_deck, turned_crops)
from vision.detector import CAMERA, DEFAULT_DETECTOR, CardDetector
from vision.source import open_source
from helpers_video import render_teaching_video

needs_model = pytest.mark.skipif(not DEFAULT_DETECTOR.exists(), reason="no trained model in models/")
CLASSIFIER = DEFAULT_DETECTOR.with_name("card_index_classifier.onnx")


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _memory(directions: dict[str, np.ndarray], copies: int = 6, seed: int = 0) -> DeckMemory:
    """A memory whose crops of each card lie close to its direction."""
    rng = np.random.default_rng(seed)
    cards, feats = [], []
    for card, d in directions.items():
        for _ in range(copies):
            cards.append(card)
            feats.append(_unit(d + rng.normal(0, 0.02, d.shape)))
    return DeckMemory(np.array(cards), np.array(feats, np.float32), "test")


def _probs(**p: float) -> np.ndarray:
    row = np.full(len(CLASSES), 1e-4)
    for card, v in p.items():
        row[CLASSES.index(card.replace("_", ""))] = v
    return (row / row.sum())[None]


def test_a_read_is_pushed_towards_the_rank_it_looks_like():
    d = np.eye(8, dtype=np.float32)
    mem = _memory({"QS": d[0], "QH": d[0] + 0.1 * d[3], "6S": d[1], "6H": d[1] + 0.1 * d[3]})
    p = _probs(_6H=0.6, QH=0.3)  # the classifier takes this deck's Q for a 6
    looks_like_q = mem.fuse(p, d[0][None])
    assert CLASSES[int(looks_like_q.argmax())] == "QH"
    looks_like_6 = mem.fuse(p, d[1][None])
    assert CLASSES[int(looks_like_6.argmax())] == "6H"
    # the suit is the classifier's: the memory only weighs ranks
    assert looks_like_q[0, CLASSES.index("QH")] > looks_like_q[0, CLASSES.index("QS")]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_fused_reads_are_probabilities_and_a_memory_that_tells_ranks_apart_by_nothing_changes_nothing(seed, n):
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 3, (n, len(CLASSES)))
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    feats = rng.normal(0, 1, (n, 16)).astype(np.float32)
    mem = _memory({c: rng.normal(0, 1, 16) for c in rng.choice(list(DECK_ORDER), 8, replace=False)}, seed=seed)
    q = mem.fuse(p, feats)
    assert q.shape == p.shape and np.all(q >= 0) and np.allclose(q.sum(1), 1)
    same = DeckMemory(np.array([r + "S" for r in RANKS_ORDER]), np.tile(_unit(np.ones(16, np.float32)), (13, 1)))
    assert np.allclose(same.fuse(p, feats), p, atol=1e-6)


def test_a_rank_never_taught_is_neither_pushed_nor_pulled():
    d = np.eye(8, dtype=np.float32)
    mem = _memory({"QS": d[0], "6S": d[1], "9S": d[2]})  # no K taught
    mem.min_close = 0.0
    p = _probs(KH=0.5, QH=0.45)
    # a crop as close to the Q as to the 6 and the 9: the K, never taught, keeps its lead
    even = _unit(d[0] + d[1] + d[2])[None]
    assert CLASSES[int(mem.fuse(p, even).argmax())] == "KH"
    # one that looks like the taught Q: the Q wins
    assert CLASSES[int(mem.fuse(p, d[0][None]).argmax())] == "QH"
    assert set(np.unique(CLASS_RANK)) == set(range(-1, 13))


def test_a_crop_unlike_every_taught_one_is_left_to_the_classifier():
    d = np.eye(8, dtype=np.float32)
    mem = _memory({"QS": d[0], "6S": d[1]})
    p = _probs(_6H=0.6, QH=0.3)
    half_hidden = _unit(0.5 * d[0] + d[4])[None]  # cosine 0.45 to the taught Q
    assert np.allclose(mem.fuse(p, half_hidden), p)
    mem.min_close = 0.0
    assert CLASSES[int(mem.fuse(p, half_hidden).argmax())] == "QH"


def test_a_deck_memory_survives_a_save_and_a_load(tmp_path):
    d = np.eye(4, dtype=np.float32)
    mem = _memory({"AS": d[0], "10H": d[1], "QS": d[2]})
    path = mem.save(tmp_path / "deck.npz")
    back = DeckMemory.load(path)
    assert back.name == "test" and list(back.cards) == list(mem.cards)
    assert np.array_equal(back.feats, mem.feats)


@pytest.mark.parametrize("content, says", [
    (None, "not found"),
    (b"not a zip file at all", "is not a taught deck: `masta learn-deck` saves a deck as .npz"),
    ("other-npz", "lacks the arrays a deck holds"),
    ("objects", "arrays of Python objects"),
    ("wrong-card", "unknown cards"),
    ("empty", "no usable crops"),
    ("format", "format 9"),
    ("before-5-dec", "earlier masta's card classifier"),
])
def test_a_bad_deck_memory_file_says_what_to_do(tmp_path, content, says):
    path = tmp_path / "deck.npz"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content == "wrong-card":
        np.savez(path, format=np.array(2), cards=np.array(["ZZ"]), feats=np.ones((1, 4), np.float32),
                 name=np.array("x"), classifier=np.array("abc"))
    elif content == "other-npz":
        np.savez(path, a=np.arange(3))
    elif content == "objects":
        np.savez(path, format=np.array([1, 2], dtype=object))
    elif content == "format":
        np.savez(path, format=np.array(9), cards=np.array(["AS"]), feats=np.ones((1, 4), np.float32),
                 name=np.array("x"))
    elif content == "before-5-dec":  # a deck taught before files named their classifier
        np.savez(path, format=np.array(1), cards=np.array(["AS"]), feats=np.ones((1, 4), np.float32),
                 name=np.array("x"))
    elif content == "empty":
        np.savez(path, format=np.array(2), cards=np.array([], str), feats=np.ones((0, 4), np.float32),
                 name=np.array("x"), classifier=np.array("abc"))
    with pytest.raises(DeckMemoryError) as err:
        DeckMemory.load(path)
    assert says in str(err.value) and "learn-deck" in str(err.value)
    assert "allow_pickle" not in str(err.value)  # our wording, not numpy's


def test_a_deck_is_read_only_by_the_classifier_it_was_taught_with(tmp_path):
    """A taught deck holds what one classifier's last layer saw: another classifier (masta's
    models changed) must refuse it and say to teach again, not read with features of another
    network. A memory never used yet takes the first classifier it is given."""
    from vision.classifier import IndexClassifier, model_fingerprint

    cls_path = CLASSIFIER
    d = np.eye(4, dtype=np.float32)
    mem = _memory({"AS": d[0], "QS": d[2]})
    assert mem.classifier == ""
    classifier = IndexClassifier(str(cls_path), deck=mem)
    assert mem.classifier == classifier.fingerprint == model_fingerprint(cls_path)
    back = DeckMemory.load(mem.save(tmp_path / "deck.npz"))
    assert back.classifier == classifier.fingerprint
    classifier.deck = back  # the same classifier: read with it
    assert classifier.deck is back
    other = DeckMemory.load(mem.save(tmp_path / "deck.npz"))
    other.classifier = "0123456789abcdef"  # taught with another model
    with pytest.raises(DeckMemoryError, match="taught with another card classifier .* teach the deck again"):
        classifier.deck = other
    assert classifier.deck is back  # the refused deck changed nothing
    with pytest.raises(DeckMemoryError, match="another card classifier"):
        IndexClassifier(str(cls_path), deck=other)


def test_turned_crops_cut_every_angle_and_size():
    img = np.full((200, 200, 3), 255, np.uint8)
    img[85:116, 85:93] = 0  # an L: nothing like itself upside down
    img[108:116, 85:116] = 0
    crops = turned_crops(img, (80, 80, 120, 120), angles=(0, 90, 180), scales=(1.0, 1.25))
    assert len(crops) == 6 and all(c.shape == (64, 64, 3) for c in crops)
    upright, turned = crops[0].astype(int), crops[4].astype(int)  # 0 and 180 degrees, size 1.0
    assert np.abs(upright[::-1, ::-1] - turned).mean() < np.abs(upright - turned).mean() / 2  # upside down


@needs_model
def test_the_classifier_with_its_features_reads_as_before():
    rng = np.random.default_rng(3)
    crops = [rng.integers(0, 255, (64, 64, 3), dtype=np.uint8) for _ in range(5)]
    plain = IndexClassifier(str(CLASSIFIER)).classify(crops)
    both = IndexClassifier(str(CLASSIFIER), features=True)
    again = both.classify(crops)
    for (a, pa, ra), (b, pb, rb) in zip(plain, again):
        assert a == b and np.allclose(ra, rb, atol=1e-6)
    feats = both.features(crops)
    assert feats.shape[0] == 5 and feats.shape[1] >= 16 and np.isfinite(feats).all()
    with pytest.raises(ValueError, match="features=True"):
        IndexClassifier(str(CLASSIFIER)).features(crops)


@pytest.fixture(scope="module")
def teaching_video(tmp_path_factory):
    """Three cards of a training-style deck shown one at a time, as `masta learn-deck` asks."""
    return render_teaching_video(tmp_path_factory.mktemp("teach"), ["AS", "QS", "10H"])


@needs_model
def test_each_card_shown_alone_is_learnt_from_its_own_corner_indices(teaching_video):
    det = CardDetector(**CAMERA, features=True)
    seen = []
    report = learn_deck(open_source(str(teaching_video["video"])).frames(), det, ["AS", "QS", "10H"],
                        on_card=seen.append)
    assert [t.card for t in report.taught] == ["AS", "QS", "10H"] and seen == report.taught
    assert report.problems == []
    truth = read_frame_indices(teaching_video["indices"])
    for t in report.taught:
        where = truth[int(round(t.t * 30))]
        for box in t.boxes:  # every box lies on the card being taught, none on another
            best = max(where, key=lambda x: iou(box, x[1:5]))
            assert best[0] == t.card and iou(box, best[1:5]) > 0.1, (t.card, box, best)
    mem = report.memory
    assert set(mem.cards) == {"AS", "QS", "10H"} and len(mem.feats) == len(mem.cards)
    assert np.allclose(np.linalg.norm(mem.feats, axis=1), 1, atol=1e-4)


@needs_model
def test_learn_deck_tells_what_it_did_not_see(teaching_video):
    det = CardDetector(**CAMERA, features=True)
    report = learn_deck(open_source(str(teaching_video["video"])).frames(), det, ["AS", "QS", "10H", "KH"])
    assert [t.card for t in report.taught] == ["AS", "QS", "10H"]
    assert any("KH" in p and "3 of 4" in p for p in report.problems)
    # a card of the order never shown: the cards after it are still learnt as themselves
    report = learn_deck(open_source(str(teaching_video["video"])).frames(), det, ["AS", "KS", "QS", "10H"])
    assert [t.card for t in report.taught] == ["AS", "QS", "10H"]
    assert any("KS was never seen" in p for p in report.problems)
    assert set(report.memory.cards) == {"AS", "QS", "10H"}
    # a card shown that the order does not name is left out, not learnt as the next one
    report = learn_deck(open_source(str(teaching_video["video"])).frames(), det, ["AS", "10H"])
    assert [t.card for t in report.taught] == ["AS", "10H"]
    assert any("left out" in p for p in report.problems) and set(report.memory.cards) == {"AS", "10H"}
    for order in (["AS", "1X"], ["AS", "JK"], ["none"]):  # JK: a memory load() would refuse
        with pytest.raises(DeckMemoryError, match="cannot be taught"):
            learn_deck([], det, order)


@needs_model
def test_the_learn_deck_command_saves_a_memory_watch_reads_with(teaching_video, tmp_path, capsys):
    out = tmp_path / "deck.npz"
    rc = main(["learn-deck", str(teaching_video["video"]), "--order", "AS QS 10H", "--out", str(out)])
    assert rc == 0 and DeckMemory.load(out).name == "deck"
    printed = capsys.readouterr()
    assert "QS" in printed.out and "3 of 3 cards learnt" in printed.err
    from vision.watch_commands import make_detector
    det = make_detector(None, None, str(out))
    assert det.classifier.deck is not None and set(det.classifier.deck.cards) == {"AS", "QS", "10H"}
    assert main(["watch", str(teaching_video["video"]), "--players", "Ann,Bob", "--deck",
                 str(tmp_path / "none.npz")]) == 2
    assert "learn-deck" in capsys.readouterr().err
    assert main(["learn-deck", str(teaching_video["video"]), "--out", str(tmp_path / "deck.txt")]) == 2
    capsys.readouterr()
    # a card of the order never shown is named as soon as the card after it is learnt
    assert main(["learn-deck", str(teaching_video["video"]), "--order", "AS KS QS 10H", "--out", str(out)]) == 1
    printed = capsys.readouterr()
    lines = printed.out.splitlines()
    assert len(lines) == 4 and lines[1].split()[:3] == ["KS", "not", "seen"]
    assert [lines[k].split()[1] for k in (0, 2, 3)] == ["AS", "QS", "10H"]
    assert "KS was never seen" in printed.err and "3 of 4 cards learnt" in printed.err


def test_learn_deck_refuses_a_bad_order_before_opening_the_camera(tmp_path, capsys):
    """A typo in --order is told at once, not after a minute of showing cards: the source
    (here one that does not exist) is never opened."""
    assert main(["learn-deck", str(tmp_path / "no-such.mp4"), "--order", "AS 1X", "--out", str(tmp_path / "d.npz")]) == 2
    err = capsys.readouterr().err
    assert "1X" in err and "cannot be taught" in err and "no-such" not in err
    assert not (tmp_path / "d.npz").exists()


def test_a_deck_is_taught_suit_by_suit_in_the_order_asked():
    assert DECK_ORDER == deck_order("SH") and len(DECK_ORDER) == 26
    assert DECK_ORDER[:2] == ("AS", "2S") and DECK_ORDER[12:14] == ("KS", "AH")
    whole = deck_order("shcd")  # the whole deck, each card once, suit by suit
    assert len(whole) == len(set(whole)) == 52 and whole[:26] == DECK_ORDER
    assert whole[26] == "AC" and whole[-1] == "KD" and all(c in CLASSES for c in whole)
    for bad in ("", "SX", "SS", "SHJ"):
        with pytest.raises(DeckMemoryError, match="each suit"):
            deck_order(bad)


def _scores(places: list[int], m: int, rng, misread: dict[int, int] | None = None) -> np.ndarray:
    """Log-odds of each card seen being each card of an order of `m`: sure of its own card
    (its place; -1: a card of no place), unsure of the rest; `misread` {i: j}: card i looks
    more like place j than its own."""
    s = np.log(rng.uniform(0.001, 0.05, (len(places), m)))
    for i, j in enumerate(places):
        if j >= 0:
            s[i, j] = np.log(0.7)
    for i, j in (misread or {}).items():
        s[i, j] = np.log(0.9)
        if places[i] >= 0:
            s[i, places[i]] = np.log(0.08)
    return s


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 52), st.data())
def test_a_card_never_seen_does_not_shift_the_cards_after_it(m, data):
    """Cards shown in order, some never seen (shown too briefly): at the end each card seen
    keeps its own place; live too while no two cards in a row were missed (a first card that
    is the order's fifth may be a wrong card as much as four missed ones)."""
    shown = sorted(data.draw(st.sets(st.integers(0, m - 1), min_size=1)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    assert align(_scores(shown, m, rng)) == shown
    missed = data.draw(st.sets(st.integers(1, m - 1)))
    live = [j for j in range(m) if j not in missed or (j - 1) in missed]  # no two in a row missed
    assert align(_scores(live, m, rng), finished=False) == live


@settings(max_examples=40, deadline=None)
@given(st.integers(6, 52), st.data())
def test_one_misread_or_one_card_shown_twice_moves_no_other_card(m, data):
    shown = list(range(m))
    i = data.draw(st.integers(1, m - 2))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    # a card read as the next one: it keeps its place, and so does the next
    assert align(_scores(shown, m, rng, {i: i + 1})) == shown
    # a card shown twice: one of the two is left out, every other card keeps its place
    twice = shown[:i] + [i] + shown[i:]
    got = align(_scores(twice, m, rng))
    assert got.count(-1) == 1 and [j for j in got if j >= 0] == shown


def test_align_with_nothing_seen_or_nothing_asked():
    assert align(np.zeros((0, 5))) == [] and align(np.zeros((2, 0))) == [-1, -1]


def test_learn_deck_refuses_bad_suits_before_opening_the_camera(tmp_path, capsys):
    assert main(["learn-deck", str(tmp_path / "no-such.mp4"), "--suits", "SHX", "--out", str(tmp_path / "d.npz")]) == 2
    err = capsys.readouterr().err
    assert "SHX" in err and "no-such" not in err and not (tmp_path / "d.npz").exists()


def _a_card_on_the_table(video: dict):
    """A frame of the teaching video with a card in view, a detector with features, and the
    index boxes it finds there (with their scores)."""
    cap = cv2.VideoCapture(str(video["video"]))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 70)
    ok, frame = cap.read()
    assert ok
    det = CardDetector(**CAMERA, features=True)
    boxes, scores = det.find_indices(frame)
    assert len(boxes)
    return frame, det, boxes, scores


@needs_model
def test_a_taught_deck_changes_only_the_classifiers_odds(teaching_video):
    """The detector with a memory reads what the plain one reads, weighed by the memory."""
    frame, plain, boxes, _ = _a_card_on_the_table(teaching_video)
    crops = [crop_index(frame, b) for b in boxes]
    feats = plain.classifier.features(crops)
    probs = np.array([r[2] for r in plain.classifier.classify(crops)])
    mem = _memory({"QS": feats[0], "AS": -feats[0]})
    taught = CardDetector(**CAMERA, deck=mem)
    fused = np.array([r[2] for r in taught.classifier.classify(crops)])
    assert np.allclose(fused, mem.fuse(probs, feats), atol=1e-5)
    assert all(d.card in CLASSES and 0 <= d.conf <= 1 for d in taught.detect(frame))


@needs_model
def test_a_taught_deck_weighs_the_kept_reads_without_changing_which_cuts_are_read(teaching_video):
    frame, plain, boxes, scores = _a_card_on_the_table(teaching_video)
    dim = plain.classifier.features([np.zeros((64, 64, 3), np.uint8)]).shape[1]
    rng = np.random.default_rng(5)
    pushy = _memory({c: rng.normal(0, 1, dim) for c in ("QS", "6S", "AS", "10H")})
    pushy.min_close = -1.0  # weighs every read
    flat = DeckMemory(np.array([r + "S" for r in RANKS_ORDER]), np.tile(_unit(np.ones(dim, np.float32)), (13, 1)))
    runs = {}
    for name, mem in (("none", None), ("pushy", pushy), ("flat", flat)):
        det = CardDetector(**CAMERA, deck=mem)
        crops = []
        inner = det.classifier.probabilities

        def counted(cs, inner=inner, crops=crops):
            crops.append(len(cs))
            return inner(cs)
        det.classifier.probabilities = counted
        runs[name] = (det.read_boxes(frame, boxes, scores), crops)
    assert runs["pushy"][1] == runs["none"][1] == runs["flat"][1]  # the same cuts, round by round
    assert np.allclose(np.array(runs["flat"][0]), np.array(runs["none"][0]), atol=1e-6)
    assert not np.allclose(np.array(runs["pushy"][0]), np.array(runs["none"][0]))


def test_a_memory_taught_during_the_evening_weighs_nothing_until_two_ranks_are_in_it():
    """`DeckMemory.empty()` then `add`: what a person said during the evening. With no rank, or
    one, nothing is pushed (every rank as close as the taught one); with two, a crop that looks
    like one of them is pushed towards it."""
    import numpy as np

    from vision.classifier import CLASSES
    from vision.deck_memory import DeckMemory

    rng = np.random.default_rng(0)
    q, six = rng.normal(size=16), rng.normal(size=16)
    probs = np.full((1, len(CLASSES)), 1.0 / len(CLASSES))
    probs[0, CLASSES.index("6S")] = 0.5
    probs /= probs.sum()
    near_q = (q + 0.05 * rng.normal(size=16))[None]
    mem = DeckMemory.empty("knoll")
    assert mem.ranks == [] and np.allclose(mem.fuse(probs, near_q), probs)
    mem.add(["QS"] * 3, np.stack([q + 0.02 * rng.normal(size=16) for _ in range(3)]))
    assert mem.ranks == [11] and np.allclose(mem.fuse(probs, near_q), probs)
    mem.add(["6H"] * 3, np.stack([six + 0.02 * rng.normal(size=16) for _ in range(3)]))
    fused = mem.fuse(probs, near_q)[0]
    assert mem.ranks == [5, 11] and len(mem.cards) == len(mem.feats) == 6
    assert fused[CLASSES.index("QS")] > fused[CLASSES.index("6S")]  # the crop looks like this deck's Q
