"""The packaged deck designs: only the listed ones, cut to the card, each index boxed, and the
lettered drawn decks print their set's letters."""
from __future__ import annotations

import pytest

from datasets import package_decks as pd
from datasets.faces import load_package_faces
from datasets.faces import LETTERED_STYLES, LETTERED_TEST_STYLES, face_styles, load_faces
from vision.letters import MODEL_CLASSES, training_label

#: decks.md's designs to train on, written out here so that a design added to the renderer
#: without being listed there fails
LISTED = {"anglo", "anglo_bitmap", "anglo_modern", "anglo_modern_4_color", "gnomangelo", "gnomangelo_bitmap",
          "dondorf", "neoclassical", "neoclassical_4_color", "plastic", "orell", "ornamental", "simplistic",
          "tango", "tango_nuevo", "bonded", "berlin", "lattmann", "rheinland", "svg-standard", "svg-nicu-white",
          "svg-nicu-ornamental", "svg-penguins", "svg-ancient-egyptians", "svg-jolly-royal", "svg-dondorf",
          "pokerth-default", "pokerth-default4c", "kenney"}


def test_only_the_listed_designs_are_rendered():
    assert set(pd.PACKAGE_DESIGNS) <= LISTED
    with pytest.raises(ValueError, match="not a design listed"):
        pd.render_design("paris", 352)  # in the same package, kept for an independent check
    with pytest.raises(ValueError, match="unknown package deck"):
        load_package_faces("pkg-xskat-french")


def test_german_designs_print_german_letters():
    assert {n for n, d in pd.PACKAGE_DESIGNS.items() if d.letters == "de"} == {"berlin", "lattmann", "rheinland"}
    assert all(d.letters == "en" for n, d in pd.PACKAGE_DESIGNS.items() if n not in ("berlin", "lattmann", "rheinland"))


def test_every_design_is_credited_with_its_licence():
    lines = pd.credits()
    assert len(lines) == len(pd.PACKAGE_DESIGNS)
    assert all("licence" in ln and ln.split("licence ")[1].strip() for ln in lines)


def test_a_missing_package_is_skipped_not_an_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(pd, "POKERTH", tmp_path / "nowhere")
    assert load_package_faces("pkg-pokerth-default") == {}
    assert "not installed" in capsys.readouterr().err


@pytest.mark.skipif(not pd.design_available("pokerth-default"), reason="pokerth-data is not installed (make train-decks)")
def test_a_packaged_deck_is_cut_to_the_card_with_its_indices_boxed():
    faces = load_package_faces("pkg-pokerth-default")
    assert len(faces) >= 40  # a few jumbo indices run into the court picture and are skipped, said
    for card, f in faces.items():
        h, w = f.image.shape[:2]
        assert h == 352 and 0.55 < w / h < 0.75, (card, f.image.shape)  # the card, not its canvas
        assert len(f.indices) == 2
        x0, y0, x1, y1 = f.indices[0]
        assert 0 <= x0 < x1 <= 0.3 * w and 0 <= y0 < y1 <= 0.32 * h, (card, f.indices[0])
        assert f.letters == "en"


@pytest.mark.parametrize("style", [LETTERED_STYLES[0], LETTERED_STYLES[9], LETTERED_STYLES[-1], LETTERED_TEST_STYLES[5]])
def test_lettered_decks_print_their_letters(style):
    faces = load_faces(style)
    if not faces:
        pytest.skip("no fonts installed")
    f = faces["QH"]
    ls = style.split("-")[-2]
    assert f.letters.startswith(ls)
    assert MODEL_CLASSES[training_label("QH", f.letters)] == {"fr": "DH", "nl": "VH", "de": "DH"}[ls]


def test_test_lettered_decks_are_never_training_styles():
    from training.train_letters import default_styles

    styles = default_styles()
    assert not set(LETTERED_TEST_STYLES) & set(styles)
    assert set(LETTERED_STYLES) <= set(styles)
    # the default 54-class recipe never sees lettered or packaged decks
    assert not [s for s in face_styles() if s.startswith(("lettered-", "pkg-"))]
