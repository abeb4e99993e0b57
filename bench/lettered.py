"""Lettered decks read with the right and the wrong `--deck-letters`: still synthetic pots.

    .venv/bin/python bench/lettered.py [--model models/card_index_detector.onnx] [--count 40]

Pots are drawn (once, seeded, into data/bench-lettered-<set>-n<count>) with the lettered test
decks `lettered-test-<set>-NN` only: their fonts (Liberation) are never trained on. Each set is
read with every letters setting; prints card-set F1 and what the letters check says. A setting
the classifier cannot read (Dutch letters on a classifier without glyph classes) is said so.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.faces import LETTERED_TEST_STYLES  # noqa: E402
from vision.detector import DEFAULT_DETECTOR, CardDetector  # noqa: E402
from training.evaluate import evaluate_folder  # noqa: E402
from vision.letters_option import LETTER_NAMES  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(DEFAULT_DETECTOR))
    ap.add_argument("--count", type=int, default=40, help="pots per letter set (default 40)")
    ap.add_argument("--sets", default="fr,nl,de", help="the lettered decks' sets (default fr,nl,de)")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    from datasets.synth import write_dataset

    for ls in [s for s in a.sets.split(",") if s]:
        styles = tuple(s for s in LETTERED_TEST_STYLES if s.split("-")[-2] == ls)
        if not styles:
            raise SystemExit(f"--sets {ls!r}: no lettered test decks of that set (fr, nl, de)")
        out = ROOT / "data" / f"bench-lettered-{ls}-n{a.count}"
        if not (out / "data.yaml").exists():
            write_dataset(out, a.count, seed=4343, size=640, styles=styles, progress=False)
        for setting in LETTER_NAMES:
            try:
                det = CardDetector(a.model, threads=a.threads, letters=setting, decks=None)
            except ValueError as exc:
                print(f"LETTERED {ls} deck read as {setting}: refused ({exc})", flush=True)
                continue
            f = evaluate_folder(out, split="val", detector=det, decks=0).figures()
            said = det.classifier.letter_watch.mismatch()
            print(f"LETTERED {ls} deck read as {setting}: card-set F1 {f['card_set_f1_mean']:.4f} (P {f['card_set_precision_mean']:.4f}, "
                  f"R {f['card_set_recall_mean']:.4f}), {a.count} pots; letters check: {said or 'nothing said'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
