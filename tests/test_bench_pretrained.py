"""bench/pretrained_features.py (issue 54): runs without its optional package, reads OCR text."""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("pretrained_features", ROOT / "bench" / "pretrained_features.py")
pf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pf)


def test_without_rapidocr_it_says_so_and_exits_2(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)  # an import of it fails
    with pytest.raises(SystemExit) as e:
        pf.main(["--sets", "nowhere"])
    assert e.value.code == 2
    assert "rapidocr_onnxruntime is not installed" in capsys.readouterr().err


def test_ocr_text_is_read_as_a_rank():
    r = pf.RANKS.index
    assert pf.text_rank("A") == r("A")
    assert pf.text_rank(" Q♥") == r("Q")
    for ten in ("10", "IO", "1O", "lO", "I0", "100"):
        assert pf.text_rank(ten) == r("10"), ten
    assert pf.text_rank("") is None
    assert pf.text_rank("福") is None
    assert pf.text_rank("G") is None and pf.text_rank("G", lookalike=True) == r("6")
    assert pf.text_rank("80年") == r("8")


def test_ocr_keeps_the_surest_turn():
    reads = [[("7", 0.4), ("", 0.0)], [("L", 0.9), ("", 0.0)], [("K", 0.6), ("3", 0.2)], [("", 0.0), ("", 0.0)]]
    ranks, empty, unmapped = pf.ocr_ranks(reads, (0, 2))
    assert list(ranks) == [pf.RANKS.index("K"), pf.RANKS.index("3")]
    ranks, empty, unmapped = pf.ocr_ranks(reads, (0, 1, 2, 3))
    assert list(ranks) == [-1, pf.RANKS.index("3")] and list(unmapped) == [True, False]
    assert not empty.any()


def test_the_softmax_head_learns_separable_features():
    rng = np.random.default_rng(0)
    y = np.arange(13).repeat(20)
    x = np.eye(13, dtype=np.float32)[y] * 3 + rng.normal(0, 0.3, (len(y), 13)).astype(np.float32)
    head = pf.fit_softmax(x, y, 1e-3, steps=150)
    assert (pf.head_probs(head, x).argmax(1) == y).mean() > 0.95


def test_the_mlp_head_learns_separable_features():
    rng = np.random.default_rng(1)
    y = np.arange(13).repeat(20)
    x = np.eye(13, dtype=np.float32)[y] * 3 + rng.normal(0, 0.3, (len(y), 13)).astype(np.float32)
    head, acc = pf.fit_mlp(x, y, x, y, hidden=32, epochs=10, lr=1e-2, batch=64)
    assert acc > 0.95 and (pf.head_probs(head, x).argmax(1) == y).mean() == acc
