"""`--deck-letters` on the command line: a clear refusal where the classifier cannot read the
letters, the photos read where it can."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.faces import SHARED_DATA

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = sorted((SHARED_DATA / "real" / "poker-cards" / "valid" / "images").glob("*.jpg"))[:1]


def masta(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "masta", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def test_unknown_letters_are_refused_by_the_parser():
    r = masta("detect", "x.jpg", "--deck-letters", "es")
    assert r.returncode == 2 and "--deck-letters" in r.stderr


@pytest.mark.skipif(not PHOTOS, reason="no real photos in ../shared/data")
def test_detect_reads_with_letters_its_classifier_knows_and_refuses_the_others():
    from vision.classifier import IndexClassifier

    outputs = IndexClassifier(str(ROOT / "models" / "card_index_classifier.onnx"), threads=1).outputs
    ok = masta("detect", str(PHOTOS[0]), "--deck-letters", "fr")
    assert ok.returncode == 0, ok.stderr
    assert str(PHOTOS[0]) in ok.stdout
    nl = masta("detect", str(PHOTOS[0]), "--deck-letters", "nl")
    if outputs == 54:  # no glyph classes: Dutch letters cannot be read, and it says why
        assert nl.returncode == 2 and "glyph classes" in nl.stderr
    else:
        assert nl.returncode == 0, nl.stderr


def test_watch_and_serve_take_the_letters():
    for verb in ("watch", "serve"):
        r = masta(verb, "--help")
        assert "--deck-letters" in r.stdout and "nl H V B" in r.stdout.replace("\n", " ").replace("  ", " ")
