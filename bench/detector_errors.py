"""Why the card models miss on real photos: each labelled card found, missed (and how), or
each card found that is not there (and what it was taken from).

    .venv/bin/python bench/detector_errors.py [--model models/card_index_detector.onnx] [--split valid]

Reads a YOLO folder with whole-card boxes (default: the real photos' `valid` split, never
trained on). A missed card is one of: an index inside its box read as that card but under
the card confidence ("under threshold"), indices inside its box read as another card ("read
as other"), or no index found inside its box ("not found"). A false card is placed by the
labelled box its indices lie in: the same rank with another suit ("wrong suit"), 6 and 9
swapped, or another card.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.faces import SHARED_DATA  # noqa: E402
from referee.cards import name_to_card  # noqa: E402
from vision.detector import DEFAULT_DETECTOR, CardDetector, group_indices  # noqa: E402
from vision.train import read_yolo_names  # noqa: E402


def inside(box, x: float, y: float) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def kind_of_false(card: str, truth_here: list[str]) -> str:
    rank = card[:-1]
    if any(t[:-1] == rank for t in truth_here):
        return "wrong suit"
    if any({t[:-1], rank} == {"6", "9"} for t in truth_here):
        return "6 and 9 swapped"
    return "another card" if truth_here else "outside every card"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(SHARED_DATA / "real" / "poker-cards"), help="YOLO folder")
    ap.add_argument("--split", default="valid")
    ap.add_argument("--model", default=str(DEFAULT_DETECTOR))
    ap.add_argument("--decks", type=int, default=1, help="copies of each card (0 = no limit)")
    ap.add_argument("--list", action="store_true", help="print every error, not only the counts")
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not (data / args.split / "images").is_dir():
        print(f"no {data / args.split / 'images'}: nothing to measure", file=sys.stderr)
        return 2
    names = [name_to_card(n) for n in read_yolo_names(data / "data.yaml")]
    det = CardDetector(args.model, decks=args.decks or None)
    missed, false, pairs = collections.Counter(), collections.Counter(), collections.Counter()
    found_ok = labelled = 0
    for ip in sorted((data / args.split / "images").glob("*.jpg")):
        img = cv2.imread(str(ip))
        lp = data / args.split / "labels" / (ip.stem + ".txt")
        if img is None or not lp.exists():
            continue
        h, w = img.shape[:2]
        truth = []
        for line in lp.read_text().splitlines():
            p = line.split()
            if len(p) == 5:
                c, cx, cy, bw, bh = int(p[0]), *map(float, p[1:])
                truth.append((names[c], ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)))
        hits = det.read_indices(img)
        cards = [c for c in group_indices(hits, copies=det.decks) if c.conf >= det.conf]
        found = {c.card for c in cards}
        labelled += len(truth)
        for card, box in truth:
            if card in found:
                found_ok += 1
                continue
            here = [hh for hh in hits if inside(box, *centre(hh.box))]
            why = ("not found" if not here else "under threshold" if any(hh.card == card for hh in here)
                   else "read as other")
            missed[why] += 1
            if args.list:
                print(f"{ip.name}: missed {card} ({why})")
        for c in cards:
            if any(t == c.card for t, _ in truth):
                continue
            truth_here = [t for t, b in truth if inside(b, *centre(c.box))]
            kind = kind_of_false(c.card, truth_here)
            false[kind] += 1
            for t in truth_here:
                pairs[f"{t} read as {c.card}"] += 1
            if args.list:
                print(f"{ip.name}: false {c.card} conf {c.conf:.2f} ({kind}; in the box of {', '.join(truth_here) or 'none'})")
    print(f"{labelled} labelled cards, {found_ok} found; missed {sum(missed.values())}: "
          + ", ".join(f"{k} {v}" for k, v in missed.most_common()))
    print(f"false cards {sum(false.values())}: " + ", ".join(f"{k} {v}" for k, v in false.most_common()))
    print("most frequent: " + ", ".join(f"{k} x{v}" for k, v in pairs.most_common(8)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
