"""Why the card models miss on real photos: each labelled card found, missed (and how), or
each card found that is not there (and what it was taken from).

    .venv/bin/python bench/detector_errors.py [--model models/card_index_detector.onnx] [--split valid]
    .venv/bin/python bench/detector_errors.py --videos data/bench-videos   # the game videos

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
from vision.detector import CAMERA, DEFAULT_DETECTOR, CardDetector  # noqa: E402
from training.evaluate import apply_errata, read_errata, read_yolo_labels, read_yolo_names  # noqa: E402


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
    ap.add_argument("--no-face", action="store_true", help="read corner indices alone, without the "
                    "card-face reader even when its ONNX is there")
    ap.add_argument("--videos", default=None, help="game videos (bench/pipeline.py's) instead of "
                    "photos: the pot's readable cards half a second after each play")
    ap.add_argument("--count", type=int, default=10, help="videos to read with --videos")
    ap.add_argument("--faces", default=None, help="with --videos: only the games played with this deck "
                    "style (knoll, photo-deck)")
    ap.add_argument("--deck", default=None, metavar="DECK.npz", help="read with a taught deck (`masta "
                    "learn-deck data/bench-videos-1280x720/teach-knoll.mp4 --out knoll.npz`)")
    ap.add_argument("--errata", default=None, help="a JSON file of known label errors to fix first "
                    "(datasets/errata/poker-cards.json for the real photos)")
    ap.add_argument("--mate-near", type=float, default=None, help="index sizes within which a same-rank "
                    "card read from a surer card's index is dropped (vision.detector.suit_mates; default "
                    "the detector's, 0 = never)")
    args = ap.parse_args(argv)
    data = Path(args.data)
    if args.videos:
        if not any(Path(args.videos).glob("*.truth.jsonl")):
            print(f"no game videos (*.truth.jsonl) in {args.videos}: render them with "
                  f"bench/pipeline.py --render-only", file=sys.stderr)
            return 2
    elif not (data / args.split / "images").is_dir():
        print(f"no {data / args.split / 'images'}: nothing to measure", file=sys.stderr)
        return 2
    # the game videos are read as `masta watch` reads a table camera
    camera = CAMERA if args.videos else {}
    deck = None
    if args.deck:
        from vision.deck_memory import DeckMemory
        deck = DeckMemory.load(args.deck)
    if args.mate_near is not None:
        camera = dict(camera, mate_near=args.mate_near)
    det = CardDetector(args.model, decks=args.decks or None, use_face=not args.no_face, deck=deck, **camera)
    tally = Tally(det, args.list)
    cases = (video_cases(Path(args.videos), args.count, faces=args.faces) if args.videos
             else photo_cases(data, args.split, read_errata(args.errata) if args.errata else {}))
    for name, img, truth, roi in cases:
        tally.add(name, img, truth, roi)
    tally.report()
    return 0


def photo_cases(data: Path, split: str, fixes: dict | None = None):
    """(name, image, [(card, box)], roi) for each labelled photo of a YOLO folder; `fixes`:
    `read_errata`'s label fixes."""
    names = [name_to_card(n) for n in read_yolo_names(data / "data.yaml")]
    for ip in sorted((data / split / "images").glob("*.jpg")):
        img = cv2.imread(str(ip))
        lp = data / split / "labels" / (ip.stem + ".txt")
        if img is None or not lp.exists():
            continue
        h, w = img.shape[:2]
        truth = [(names[c], box) for c, box in read_yolo_labels(lp, w, h) if box is not None]
        if fixes and ip.name in fixes:
            cards = apply_errata([card for card, _ in truth], fixes[ip.name], ip.name)
            truth = [(card, box) for card, (_, box) in zip(cards, truth)]
        yield ip.name, img, truth, None


def video_cases(folder: Path, count: int, after: float = 0.5, min_visible: float = 0.6, faces: str | None = None):
    """The settled frame `after` seconds past each play of the game videos in `folder`, with
    the pot's cards whose best index is at least `min_visible` uncovered, read in the pot's
    region (as the pipeline reads it)."""
    from datasets.game_video import read_frames_truth, read_truth

    for tp in sorted(folder.glob("*.truth.jsonl"))[:count]:
        stem = tp.name[:-len(".truth.jsonl")]
        truth = read_truth(tp)
        if truth.meta.get("script") == "deck":
            continue  # a deck being taught (bench/pipeline.py --teach), not a game
        if faces and truth.meta.get("faces") != faces:
            continue
        frames = read_frames_truth(folder / f"{stem}.frames.jsonl.gz")
        fps, (w, h) = truth.meta["fps"], truth.meta["size"]
        cx, cy = truth.meta["pot_center"]
        r = 2.0 * truth.meta["card_height"]
        roi = (max(0.0, cx - r), max(0.0, cy - r), min(float(w), cx + r), min(float(h), cy + r))
        cap = cv2.VideoCapture(str(folder / f"{stem}.mp4"))
        for ev in truth.events:
            if ev.get("type") != "cards_played":
                continue
            i = int(round((ev["t_rest"] + after) * fps))
            if i >= len(frames):
                continue
            cap.set(cv2.CAP_PROP_POS_FRAMES, i)
            ok, img = cap.read()
            if not ok:
                continue
            pot = [(c[0], tuple(c[1:5])) for c in frames[i] if c[6] == "pot" and c[5] >= min_visible]
            yield f"{stem}@{ev['t_rest']:.2f}", img, pot, roi
        cap.release()


class Tally:
    """Counts each labelled card found or missed (and how), each false card (and what it was
    taken from)."""

    def __init__(self, det: CardDetector, listing: bool):
        self.det, self.listing = det, listing
        self.missed, self.false, self.pairs = collections.Counter(), collections.Counter(), collections.Counter()
        self.found_ok = self.labelled = 0

    def add(self, name: str, img, truth: list, roi=None) -> None:
        det = self.det
        hits = det.read_indices(img, roi)
        cards = det.cards_of(hits)
        found = collections.Counter(c.card for c in cards)
        self.labelled += len(truth)
        for card, box in truth:
            if found[card] > 0:
                found[card] -= 1
                self.found_ok += 1
                continue
            here = [hh for hh in hits if inside(box, *centre(hh.box))]
            why = ("not found" if not here else "under threshold" if any(hh.card == card for hh in here)
                   else "read as other")
            self.missed[why] += 1
            if self.listing:
                print(f"{name}: missed {card} ({why})")
        for c in cards:
            if any(t == c.card for t, _ in truth):
                continue
            truth_here = [t for t, b in truth if inside(b, *centre(c.box))]
            kind = kind_of_false(c.card, truth_here)
            self.false[kind] += 1
            for t in truth_here:
                self.pairs[f"{t} read as {c.card}"] += 1
            if self.listing:
                print(f"{name}: false {c.card} conf {c.conf:.2f} ({kind}; in the box of {', '.join(truth_here) or 'none'})")

    def report(self) -> None:
        missed, false, pairs = self.missed, self.false, self.pairs
        labelled, found_ok = self.labelled, self.found_ok
        print(f"{labelled} labelled cards, {found_ok} found; missed {sum(missed.values())}: "
              + ", ".join(f"{k} {v}" for k, v in missed.most_common()))
        print(f"false cards {sum(false.values())}: " + ", ".join(f"{k} {v}" for k, v in false.most_common()))
        print("most frequent: " + ", ".join(f"{k} x{v}" for k, v in pairs.most_common(8)))


if __name__ == "__main__":
    sys.exit(main())
