"""A taught deck's own rank reader: tuned at teaching time (`training.deck_tune`), read with after
(`vision.deck_tune`)."""
from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from masta.cli import main
from vision.classifier import CLASSES, NONE_ID, crop_index
from vision.deck_memory import CLASS_RANK, DeckMemory, DeckMemoryError, learn_deck, weak_ranks
from training.deck_tune import tune
from vision.deck_tune import JOKER, NONE_SLOT, Ranker, combine
from vision.detector import CAMERA, DEFAULT_DETECTOR, CardDetector
from vision.source import open_source
from helpers_video import render_teaching_video

needs_model = pytest.mark.skipif(not DEFAULT_DETECTOR.exists(), reason="no trained model in models/")
CARDS = ["AS", "QS", "10H"]
TUNE = 10


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2 ** 31 - 1))
def test_the_ranker_names_the_rank_and_the_classifier_the_suit(n, seed):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(len(CLASSES), 0.3), n)
    ranks = rng.dirichlet(np.full(NONE_SLOT + 1, 0.5), n)
    out = combine(probs, ranks)
    assert np.allclose(out.sum(1), 1.0, atol=1e-6) and (out >= 0).all()
    assert np.allclose(out[:, NONE_ID], ranks[:, NONE_SLOT])  # no index: the ranker's say
    index = 1 - ranks[:, NONE_SLOT]
    assert np.allclose(out[:, JOKER], index * probs[:, JOKER])  # never taught: the classifier's share
    for r in range(13):
        cols = np.nonzero(CLASS_RANK == r)[0]
        share = index * (1 - probs[:, JOKER]) * ranks[:, r] / ranks[:, :NONE_SLOT].sum(1)
        assert np.allclose(out[:, cols].sum(1), share, atol=1e-6)  # each rank: the ranker's odds
        a, b = cols[0], cols[1]  # and its suits: the classifier's odds between them
        assert np.allclose(out[:, a] * probs[:, b], out[:, b] * probs[:, a], atol=1e-9)


@pytest.fixture(scope="module")
def teaching_video(tmp_path_factory):
    return render_teaching_video(tmp_path_factory.mktemp("tune"), CARDS)


@pytest.fixture(scope="module")
def tuned(teaching_video):
    det = CardDetector(**CAMERA, features=True)
    started = []
    report = learn_deck(open_source(str(teaching_video["video"])).frames(), det, CARDS, tune=TUNE,
                        tuner=tune, on_tune=lambda: started.append(True))
    return det, report, started


@needs_model
def test_a_deck_tunes_its_own_rank_reader_that_reads_the_cards_shown(tuned, teaching_video):
    det, report, started = tuned
    assert started == [True] and report.problems == []
    mem = report.memory
    assert mem.ranker_reads() and [t.card for t in report.taught] == CARDS
    reader = Ranker(mem.ranker)
    frames = {round(f.t, 3): f.image for f in open_source(str(teaching_video["video"])).frames()}
    right = total = 0
    for t in report.taught:
        crops = [crop_index(frames[round(t.t, 3)], b) for b in t.boxes]
        got = reader.ranks(crops).argmax(1)
        right += int((got == CLASS_RANK[CLASSES.index(t.card)]).sum())
        total += len(crops)
    assert total and right / total >= 0.9, (right, total)


@needs_model
def test_a_tuned_deck_reads_each_box_with_its_ranker_and_survives_a_save(tuned, teaching_video, tmp_path):
    det, report, _ = tuned
    back = DeckMemory.load(report.memory.save(tmp_path / "deck.npz"))
    assert back.ranker == report.memory.ranker and back.ranker_reads() and back.weak == report.memory.weak
    frame = next(f.image for f in open_source(str(teaching_video["video"])).frames()
                 if round(f.t, 3) == round(report.taught[1].t, 3))
    boxes = report.taught[1].boxes
    crops = [crop_index(frame, b) for b in boxes]
    plain = det.classifier.probabilities(crops)[0]
    reading = CardDetector(**CAMERA, deck=back)
    got = np.array([r[2] for r in reading.classifier.classify(crops)])
    ranks = Ranker(back.ranker).ranks(crops)
    back.weak = None  # the ranker speaks for every rank
    assert np.allclose(reading.classifier.classify(crops)[0][2], combine(plain, ranks)[0], atol=1e-5)
    back.weak = ()  # for none: the classifier's reads stand
    assert np.allclose([r[2] for r in reading.classifier.classify(crops)], plain, atol=1e-6)
    back.weak = tuple(range(13))
    got = np.array([r[2] for r in reading.classifier.classify(crops)])
    assert np.allclose(got, combine(plain, ranks), atol=1e-5)
    # through the detector: each box's kept cut is read by the ranker, and the queen is a queen
    hits = reading.read_boxes(frame, np.array(boxes), None)
    assert all(CLASSES[int(np.argmax(p))] in ("QS", "none") for p in hits)
    assert any(CLASSES[int(np.argmax(p))] == "QS" for p in hits)


def test_a_damaged_ranker_in_a_deck_file_is_said_at_load(tmp_path):
    path = tmp_path / "deck.npz"
    np.savez(path, format=np.array(2), cards=np.array(["AS"]), feats=np.ones((1, 4), np.float32),
             name=np.array("x"), classifier=np.array("abc"), ranker=np.frombuffer(b"not a model", np.uint8))
    with pytest.raises(DeckMemoryError, match="rank reader cannot be read.*learn-deck"):
        DeckMemory.load(path)


@needs_model
def test_without_torch_a_deck_is_taught_with_its_indices_alone_and_says_so(teaching_video, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # as on an install without the train extra
    det = CardDetector(**CAMERA, features=True)
    report = learn_deck(open_source(str(teaching_video["video"])).frames(), det, CARDS, tune=TUNE,
                        tuner=tune)
    assert report.memory is not None and not report.memory.ranker_reads()
    assert set(report.memory.cards) == set(CARDS)
    assert any("rank reader was not tuned" in p and "torch" in p for p in report.problems)


@needs_model
def test_learn_deck_tunes_when_asked_and_not_by_default(teaching_video, tmp_path, capsys):
    out = tmp_path / "deck.npz"
    assert main(["learn-deck", str(teaching_video["video"]), "--order", " ".join(CARDS), "--out", str(out),
                 "--tune", str(TUNE)]) == 0
    assert DeckMemory.load(out).ranker_reads() and "tuning the deck's own rank reader" in capsys.readouterr().err
    assert main(["learn-deck", str(teaching_video["video"]), "--order", " ".join(CARDS), "--out", str(out)]) == 0
    assert not DeckMemory.load(out).ranker_reads()
    assert main(["learn-deck", str(teaching_video["video"]), "--out", str(out), "--tune", "-1"]) == 2
    assert "--tune" in capsys.readouterr().err


def test_a_negative_tuning_is_refused_with_what_to_give(tmp_path, capsys):
    assert main(["serve", "--data-dir", str(tmp_path), "--teach-tune", "-5"]) == 2
    assert "--teach-tune -5" in capsys.readouterr().err


def test_the_ranker_speaks_for_the_ranks_the_camera_misread_while_taught():
    def read(card_probs: dict[str, float]) -> np.ndarray:
        row = np.full(len(CLASSES), 1e-6)
        for c, v in card_probs.items():
            row[CLASSES.index(c)] = v
        return row / row.sum()
    jack, queen, ace = (int(CLASS_RANK[CLASSES.index(c)]) for c in ("JS", "QS", "AS"))
    reads = [(ace, [read({"AS": 0.95}), read({"AH": 0.9})]),  # an ace read as an ace (a suit off): fine
             (jack, [read({"JS": 0.3, "7S": 0.6}), read({"none": 0.9})]),  # a jack read as a 7, or nothing
             (queen, [read({"QS": 0.85}), read({"QH": 0.75, "6H": 0.2})])]  # 0.8 on average: just fine
    assert weak_ranks(reads, below=0.8) == (jack,)
    assert weak_ranks(reads, below=0.9) == weak_ranks(reads) == (jack, queen)  # 0.9: the default
    assert weak_ranks([]) == ()


def test_tuning_asked_without_a_tuner_is_said_and_the_deck_is_kept():
    """The runtime never imports training code: whoever asks to tune passes the tuner."""
    from vision.deck_memory import _tuned

    ranker, problem = _tuned(None, None, [], [], [], TUNE, None)
    assert ranker == b"" and "no tuner was given" in problem and "taught indices alone" in problem
