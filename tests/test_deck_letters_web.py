"""The deck's court letters on the set-up page, on the camera, and said when they look wrong."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from test_web import make_app, post
from vision.letters import MODEL_CLASSES, training_label

ROOT = Path(__file__).resolve().parents[1]
DETECTOR = ROOT / "models" / "card_index_detector.onnx"


def test_the_letters_are_stored_with_the_table_and_shown_on_set_up(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    assert 'value="en" selected' in c.get("/setup/").get_data(as_text=True)
    r = post(c, "/setup/api/deck-letters", {"letters": "nl"})
    assert r.status_code == 201, r.json
    assert app.extensions["masta.store"].get_setting("deck_letters") == "nl"
    assert 'value="nl" selected' in c.get("/setup/").get_data(as_text=True)
    again = make_app(tmp_path)  # a restart keeps them
    assert again.extensions["masta.store"].get_setting("deck_letters") == "nl"


@pytest.mark.parametrize("body", [{"letters": "es"}, {"letters": ""}, {}, ["fr"]])
def test_unknown_letters_are_refused_and_nothing_changes(tmp_path, body):
    app = make_app(tmp_path)
    c = app.test_client()
    post(c, "/setup/api/deck-letters", {"letters": "de"})
    r = post(c, "/setup/api/deck-letters", body)
    assert r.status_code == 400 and "en, fr, nl, de" in r.json["error"]
    assert app.extensions["masta.store"].get_setting("deck_letters") == "de"


@pytest.fixture(scope="module")
def glyph_models(tmp_path_factory):
    """The shipped detector beside a real (untrained) classifier with glyph classes."""
    pytest.importorskip("torch")
    if not DETECTOR.is_file():
        pytest.skip("no shipped detector")
    from helpers_models import untrained_glyph_classifier

    folder = tmp_path_factory.mktemp("glyph-models")
    untrained_glyph_classifier(folder)
    shutil.copyfile(DETECTOR, folder / DETECTOR.name)
    return folder / DETECTOR.name


def _french_courts() -> np.ndarray:
    cards = [r + s for r in ("J", "Q", "K") for s in "CDHS"]
    raw = np.zeros((len(cards), len(MODEL_CLASSES)), np.float32)
    raw[np.arange(len(cards)), [training_label(c, "fr") for c in cards]] = 0.97
    return raw


def test_the_camera_takes_the_letters_and_the_page_says_when_they_look_wrong(tmp_path, glyph_models):
    from web.camera import attach_camera, load_detector

    app = make_app(tmp_path)
    c = app.test_client()
    runner = attach_camera(app, load_detector(glyph_models), None)
    clf = runner.detector.classifier
    assert clf.letters == "en"
    clf.letter_watch.add(_french_courts())  # the camera reads R, D and V under English letters
    runner.check_letters()
    status = app.extensions["masta.frames"].status
    assert "letters look different" in status and "'fr'" in status
    r = post(c, "/setup/api/deck-letters", {"letters": "fr"})
    assert r.status_code == 201 and "R D V" in r.json["message"]
    assert clf.letters == "fr" and app.extensions["masta.store"].get_setting("deck_letters") == "fr"
    clf.letter_watch.add(_french_courts())
    app.extensions["masta.frames"].status = ""
    runner.check_letters()
    assert app.extensions["masta.frames"].status == ""  # the right letters: nothing to say


def test_a_classifier_without_glyph_classes_refuses_dutch_and_keeps_the_setting(tmp_path):
    if not DETECTOR.is_file():
        pytest.skip("no shipped detector")
    from web.camera import attach_camera, load_detector

    det = load_detector(DETECTOR)
    if det.classifier.outputs != 54:
        pytest.skip("the shipped classifier has glyph classes")
    app = make_app(tmp_path)
    c = app.test_client()
    attach_camera(app, det, None)
    r = post(c, "/setup/api/deck-letters", {"letters": "nl"})
    assert r.status_code == 400 and "glyph classes" in r.json["error"]
    assert app.extensions["masta.store"].get_setting("deck_letters") is None
    assert det.classifier.letters == "en"
    assert post(c, "/setup/api/deck-letters", {"letters": "fr"}).status_code == 201
