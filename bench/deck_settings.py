"""A taught deck's settings (`vision.deck_memory`: K, TEMPERATURE, MIN_CLOSE) against the classifier.

    .venv/bin/python bench/deck_settings.py [--suits SH] [--model models/card_index_classifier.onnx] [--tune 300]

A taught deck weighs the classifier's reads by how close their features lie to the taught
indices, so its settings belong to one classifier: chosen again whenever the classifier
changes. This reads crops as the table camera cuts them (`training.train.camera_crops`: the
committed detector's boxes around the pot, its boxes on no index as `none`) from short game
videos in the held-out decks, rendered on first use into `--videos` with seeds of their own
(never the benchmark's nor the dev renders'), and teaches each deck from its teaching video
(`bench/pipeline.py`'s, rendered into `--teach-videos` on first use). For each setting it
prints, per deck, the share of index crops read as the right card, with the right rank, and
the share of `none` crops still read as none; the committed settings are marked. A crop
figure, not a play figure: confirm a choice with `bench/pipeline.py --teach` on the dev renders.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YOLO_OFFLINE", "1")

import numpy as np  # noqa: E402

#: the crop videos: `training.train.training_video_spec` with this seed (7000 + 100 x seed + k)
SEED = 61
PER_DECK = 2


def crop_videos(folder: Path, size: tuple[int, int], actions: int = 60) -> dict[str, str]:
    """{video stem: deck style}, rendering the missing ones (about 90 s each at 1280x720)."""
    from datasets.faces import HELD_OUT_STYLES
    from training.train import _render_training_video, training_video_spec

    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for k, faces in enumerate(f for f in HELD_OUT_STYLES for _ in range(PER_DECK)):
        spec = training_video_spec(k, SEED, [faces], size, actions)
        path = folder / f"deck-{k}.mp4"
        if not (folder / f"deck-{k}.indices.jsonl.gz").exists():
            print("rendered", _render_training_video(spec, path), flush=True)
        out[path.stem] = faces
    return out


def main(argv: list[str] | None = None) -> int:
    from bench.pipeline import ensure_teaching
    from vision.classifier import NONE_ID
    from vision.deck_memory import CLASS_RANK, K, MIN_CLOSE, TEACH_SUITS, TEMPERATURE, deck_order, learn_deck
    from vision.detector import CAMERA, CardDetector
    from vision.frame_size import frame_size
    from vision.source import open_source
    from training.deck_tune import tune
    from training.train import _centre, camera_crops

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--videos", type=Path, default=ROOT / "data" / "deck-settings-videos",
                    help="where the crop videos are rendered on first use")
    ap.add_argument("--teach-videos", type=Path, default=ROOT / "data" / "dev-videos-1280x720",
                    help="where each deck's teaching video is (rendered on first use)")
    ap.add_argument("--size", type=frame_size, default=(1280, 720), help="the videos' size (default 1280x720)")
    ap.add_argument("--suits", default=TEACH_SUITS, help=f"the suits taught (default {TEACH_SUITS})")
    ap.add_argument("--model", type=Path, default=None, help="the index classifier (default: the committed one)")
    ap.add_argument("--tune", type=int, default=0, metavar="BATCHES",
                    help="also tune each deck's own rank reader for this many batches (training.deck_tune; "
                         "`masta learn-deck` tunes 300) and print how it reads the crops")
    ap.add_argument("--k", default="3,5,10", help="K values to try")
    ap.add_argument("--temperature", default="0.01,0.02,0.04", help="TEMPERATURE values to try")
    ap.add_argument("--min-close", default="0.7,0.8,0.85,0.9", help="MIN_CLOSE values to try")
    a = ap.parse_args(argv)

    decks = crop_videos(a.videos, a.size)
    cut = camera_crops(a.videos, seed=3, stems=sorted(decks))
    kw = dict(CAMERA, features=True)
    if a.model is not None:
        kw["classifier_path"] = a.model
    det = CardDetector(**kw)
    memories = {}
    for faces in sorted(set(decks.values())):
        video = ensure_teaching(a.teach_videos, faces, False, a.size, a.suits)
        memories[faces] = learn_deck(open_source(str(video)).frames(), det, deck_order(a.suits), name=faces,
                                     tune=a.tune, tuner=tune).memory
        if memories[faces] is None:
            raise SystemExit(f"teaching the {faces} deck from {video} learnt nothing")
    crops = {stem: [_centre(c) for c in x] for stem, (x, _) in cut.items()}
    reads = {stem: (*det.classifier.probabilities(crops[stem]), y) for stem, (_, y) in cut.items()}

    def score(taught: bool, ranker: bool = False) -> dict[str, tuple[float, float, float]]:
        out = {}
        for faces, mem in memories.items():
            card = rank = n = kept = nn = 0
            for stem, (p, feats, y) in reads.items():
                if decks[stem] != faces:
                    continue
                k = (mem.fuse(p, feats, crops[stem] if ranker else None) if taught else p).argmax(1)
                idx = y != NONE_ID
                card += int((k[idx] == y[idx]).sum())
                rank += int((CLASS_RANK[k[idx]] == CLASS_RANK[y[idx]]).sum())
                n += int(idx.sum())
                kept += int((k[~idx] == NONE_ID).sum())
                nn += int((~idx).sum())
            out[faces] = (card / max(1, n), rank / max(1, n), kept / max(1, nn))
        return out

    def mean_card(s: dict) -> float:
        """The decks' mean share of crops read as the right card: what the settings are ranked by."""
        return float(np.mean([v[0] for v in s.values()]))

    def line(label: str, s: dict) -> str:
        return f"{label:<28} mean card {mean_card(s):.4f}  " + "  ".join(
            f"{f}: card {v[0]:.4f} rank {v[1]:.4f} none {v[2]:.4f}" for f, v in s.items())

    n = {f: sum(int((y != NONE_ID).sum()) for s, (_, _, y) in reads.items() if decks[s] == f) for f in memories}
    print(f"index crops: {n}; taught {a.suits} ({', '.join(f'{f} {len(m.cards)} crops' for f, m in memories.items())})")
    print(line("untaught", score(False)))
    if a.tune:
        print(line(f"tuned rank reader ({a.tune})", score(True, ranker=True)))
    rows = []
    for k, t, mc in itertools.product(*(map(float, v.split(",")) for v in (a.k, a.temperature, a.min_close))):
        for mem in memories.values():
            mem.k, mem.temperature, mem.min_close = int(k), t, mc
        s = score(True)
        mark = " (committed)" if (int(k), t, mc) == (K, TEMPERATURE, MIN_CLOSE) else ""
        rows.append((mean_card(s), line(f"K={int(k)} T={t:g} MIN_CLOSE={mc:g}{mark}", s)))
    for _, text in sorted(rows, reverse=True):
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
