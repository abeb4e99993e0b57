"""Lettered courts: the classifier's glyph classes, the letters setting, the mismatch warning."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import ALL_CARD_IDS, STANDARD_DECK
from training.letters import widen_state
from vision.classifier import CLASSES, NONE_ID
from vision.letters import (GLYPH_CLASSES, LETTER_SETS, MODEL_CLASSES, PRINTED, LetterWatch, check_letters,
                            fold_matrix, relabel, training_label)

#: the setting that matches a face's printed letters
SETTING = {"en": "en", "fr": "fr", "fr1": "fr", "nl": "nl", "de": "de"}


def test_glyph_classes_keep_the_card_classes_and_none_in_place():
    assert MODEL_CLASSES[:len(CLASSES)] == CLASSES
    assert MODEL_CLASSES[NONE_ID] == "none"
    assert len(GLYPH_CLASSES) == 24 and "VH" in GLYPH_CLASSES and "1S" in GLYPH_CLASSES


def test_the_same_glyph_means_another_rank_by_language():
    v = MODEL_CLASSES.index("VH")
    assert training_label("QH", "nl") == v and training_label("JH", "fr") == v
    assert CLASSES[fold_matrix("nl", len(MODEL_CLASSES))[v].argmax()] == "QH"
    assert CLASSES[fold_matrix("fr", len(MODEL_CLASSES))[v].argmax()] == "JH"
    assert training_label("AS", "fr1") == MODEL_CLASSES.index("1S")
    assert training_label("KC", "de") == CLASSES.index("KC")  # German K is the English glyph
    assert training_label("10D", "nl") == CLASSES.index("10D")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(ALL_CARD_IDS), st.sampled_from(sorted(PRINTED)))
def test_what_is_printed_read_with_its_letters_is_the_card(card, printed):
    """The invariant of the design: the glyph a face prints, folded by the matching setting,
    is the card itself, whatever the language."""
    k = training_label(card, printed)
    fold = fold_matrix(SETTING[printed], len(MODEL_CLASSES))
    assert CLASSES[int(fold[k].argmax())] == card


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(sorted(LETTER_SETS)))
def test_every_fold_keeps_the_probability(letters):
    fold = fold_matrix(letters, len(MODEL_CLASSES))
    assert np.allclose(fold.sum(1), 1.0)
    p = np.random.default_rng(0).dirichlet(np.ones(len(MODEL_CLASSES)), 5)
    assert np.allclose((p @ fold).sum(1), 1.0)


def test_a_glyph_the_setting_does_not_print_reads_as_none():
    fold = fold_matrix("en", len(MODEL_CLASSES))
    for g in ("DH", "RS", "HC", "BD", "1S"):
        assert fold[MODEL_CLASSES.index(g)].argmax() == NONE_ID


def test_a_54_class_classifier_reads_as_before_and_refuses_dutch():
    for letters in ("en", "fr", "de"):
        assert np.array_equal(fold_matrix(letters, len(CLASSES)), np.eye(len(CLASSES), dtype=np.float32))
    with pytest.raises(ValueError, match="glyph classes"):
        check_letters("nl", len(CLASSES))
    with pytest.raises(ValueError, match="en, fr, nl, de"):
        check_letters("es")


def test_relabel_turns_card_labels_into_printed_glyphs():
    y = np.array([CLASSES.index("QH"), CLASSES.index("5S"), NONE_ID, CLASSES.index("JK")])
    out = relabel(y, "nl")
    assert [MODEL_CLASSES[k] for k in out] == ["VH", "5S", "none", "JK"]
    assert relabel(y, "en") is y


def _deck_reads(printed: str) -> np.ndarray:
    """Sure one-hot reads of every court and ace of a deck printing `printed` letters."""
    cards = [c for c in STANDARD_DECK if c[:-1] in ("J", "Q", "K", "A")]
    raw = np.zeros((len(cards), len(MODEL_CLASSES)), np.float32)
    raw[np.arange(len(cards)), [training_label(c, printed) for c in cards]] = 0.95
    return raw


@pytest.mark.parametrize("printed", sorted(PRINTED))
@pytest.mark.parametrize("setting", sorted(LETTER_SETS))
def test_the_wrong_letters_are_told_the_right_ones_are_not(printed, setting):
    watch = LetterWatch(setting)
    watch.add(_deck_reads(printed))
    said = watch.mismatch()
    if SETTING[printed] == setting:
        assert said is None
    else:
        assert said is not None and "letters look different" in said
        assert f"'{SETTING[printed]}'" in said  # it names the letters the deck looks like


def test_few_reads_say_nothing():
    watch = LetterWatch("en")
    watch.add(_deck_reads("fr")[:2])
    assert watch.mismatch() is None


def test_widening_starts_each_glyph_from_the_card_it_was_read_as():
    torch = pytest.importorskip("torch")
    from training.models import build_model

    state = build_model().state_dict()
    wide = widen_state(state, len(MODEL_CLASSES))
    w = [k for k in wide if k.endswith(".weight") and wide[k].ndim == 2][-1]
    assert wide[w].shape[0] == len(MODEL_CLASSES)
    assert torch.equal(wide[w][MODEL_CLASSES.index("VH")], state[w][CLASSES.index("JH")])
    assert torch.equal(wide[w][MODEL_CLASSES.index("HS")], state[w][CLASSES.index("KS")])
    model = build_model(len(MODEL_CLASSES))
    model.load_state_dict(wide)
    with pytest.raises(ValueError, match="widen"):
        widen_state(state, 60)


@pytest.fixture(scope="module")
def glyph_onnx(tmp_path_factory):
    """A real (untrained) classifier with glyph classes, exported to ONNX as training does."""
    pytest.importorskip("torch")
    from helpers_models import untrained_glyph_classifier

    return untrained_glyph_classifier(tmp_path_factory.mktemp("glyph"))


def test_the_classifier_folds_glyph_classes_into_the_card_classes(glyph_onnx):
    from vision.classifier import IndexClassifier

    crops = [np.random.default_rng(k).integers(0, 255, (64, 64, 3), dtype=np.uint8) for k in range(5)]
    nl = IndexClassifier(str(glyph_onnx), threads=1, letters="nl")
    assert nl.outputs == len(MODEL_CLASSES)
    p, _ = nl.probabilities(crops)
    assert p.shape == (5, len(CLASSES)) and np.allclose(p.sum(1), 1.0, atol=1e-5)
    en = IndexClassifier(str(glyph_onnx), threads=1)
    q, _ = en.probabilities(crops)
    assert not np.allclose(p, q)  # the same model, other letters, other reads
    en.letters = "nl"
    assert np.allclose(en.probabilities(crops)[0], p, atol=1e-6)
    with pytest.raises(ValueError, match="deck letters"):
        en.letters = "xx"


def test_the_shipped_classifier_refuses_dutch_letters_with_a_reason():
    from pathlib import Path

    from vision.classifier import IndexClassifier

    path = Path(__file__).resolve().parents[1] / "models" / "card_index_classifier.onnx"
    if not path.is_file():
        pytest.skip("no shipped classifier")
    clf = IndexClassifier(str(path), threads=1)
    if clf.outputs != len(CLASSES):
        pytest.skip("the shipped classifier has glyph classes")
    with pytest.raises(ValueError, match="nl"):
        clf.letters = "nl"


def test_a_taught_decks_rank_reader_starts_from_the_card_classes_of_a_glyph_classifier(glyph_onnx):
    """learn-deck --tune works whatever the letters: the taught cards teach their own glyphs."""
    from training.deck_tune import tune
    from vision.deck_tune import Ranker

    crops = np.random.default_rng(1).integers(0, 255, (8, 80, 80, 3), dtype=np.uint8)
    slots = np.arange(8) % 13
    ranker = Ranker(tune(crops, slots, glyph_onnx, steps=2))
    r = ranker.ranks([c[8:72, 8:72] for c in crops])
    assert r.shape == (8, 14) and np.allclose(r.sum(1), 1.0, atol=1e-5)
