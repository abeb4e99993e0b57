"""Teaching a deck on the page against `masta learn-deck`: the same deck learnt?

    .venv/bin/python bench/teach.py [--videos data/bench-videos-1280x720] [--suits SH]

For each held-out deck, its teaching video (rendered by `bench/pipeline.py --teach` on first
use) is learnt twice: as `masta learn-deck VIDEO` learns it, and through the real app as the
teach page does (`web.deck_teacher`: a camera runner watching the video as a live camera, the
pipeline stopped, started again afterwards, the deck saved in the data folder), with `--tune`
each also tuning the deck's own rank reader for that many batches. Prints the cards and index boxes each
learnt, its time, and whether the two memories (and their rank readers) are the same. When
they are, the benchmark's `--teach` figures hold for a deck taught on the page.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YOLO_OFFLINE", "1")


def learn_cli(video: Path, order: list[str], tune: int = 0):
    from training.deck_tune import tune as tune_ranker
    from vision.deck_memory import learn_deck
    from vision.detector import CAMERA, CardDetector
    from vision.source import open_source

    t0 = time.time()
    report = learn_deck(open_source(str(video)).frames(), CardDetector(**CAMERA, features=True), order,
                        tune=tune, tuner=tune_ranker)
    return report.memory, [t.card for t in report.taught], time.time() - t0


def learn_page(video: Path, order: list[str], work: Path, tune: int = 0):
    """Through the app's own objects, as a phone on /teach/ drives them."""
    from vision.deck_memory import DeckMemory
    from web.app import create_app
    from web.camera import attach_camera, find_model, load_detector
    from web.config import Config
    from training.deck_tune import tune as tune_ranker
    from web.deck_teacher import deck_path

    app = create_app(Config(data_dir=work, token="bench", teach_tune=tune, tuner=tune_ranker))
    runner = attach_camera(app, load_detector(find_model()), str(video), live=True)
    teacher = app.extensions["masta.teacher"]
    try:
        t0 = time.time()
        c = app.test_client()
        r = c.post("/teach/api/start", json={"order": order}, headers={"X-Masta-Token": "bench"})
        if r.status_code != 201:
            raise SystemExit(f"the page refused to teach: {r.json}")
        # a live camera never ends: the teaching ends once the last card is learnt, or Done
        deadline = time.time() + 600
        while teacher.state()["status"] == "teaching" and time.time() < deadline:
            time.sleep(0.2)
        if teacher.state()["status"] == "teaching":
            c.post("/teach/api/done", json={}, headers={"X-Masta-Token": "bench"})
        teacher.wait(600)  # the deck's own rank reader is tuned after the last card
        took = time.time() - t0
        state = teacher.state()
        state["refereeing"] = any(t.is_alive() for t in runner._threads)  # the pipeline started again
        memory = DeckMemory.load(deck_path(app)) if state["deck"] else None
        return memory, [d["card"] for d in state["taught"]], took, state
    finally:
        runner.stop()


def same(a, b) -> bool:
    import numpy as np

    from vision.deck_tune import Ranker

    if not (a is not None and b is not None and list(a.cards) == list(b.cards)
            and a.feats.shape == b.feats.shape and bool(np.allclose(a.feats, b.feats, atol=1e-5))):
        return False
    if a.ranker_reads() != b.ranker_reads():
        return False
    if not a.ranker_reads():
        return True
    crops = list(np.random.default_rng(0).integers(0, 256, (32, 64, 64, 3), dtype=np.uint8))
    return bool(np.allclose(Ranker(a.ranker).ranks(crops), Ranker(b.ranker).ranks(crops), atol=1e-4))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--videos", default="data/bench-videos-1280x720", help="where the teaching videos are "
                    "(rendered there on first use)")
    ap.add_argument("--suits", default="SH", help="the suits taught, A to K of each (default SH)")
    ap.add_argument("--tune", type=int, default=0, metavar="BATCHES",
                    help="also tune each deck's own rank reader for this many batches (default 0, as "
                         "`masta learn-deck` and the page)")
    args = ap.parse_args(argv)
    from datasets.faces import HELD_OUT_STYLES
    from vision.deck_memory import deck_order

    sys.path.insert(0, str(ROOT / "bench"))
    from pipeline import ensure_teaching

    order = list(deck_order(args.suits))
    folder = Path(args.videos)
    folder.mkdir(parents=True, exist_ok=True)
    alike = 0
    for faces in HELD_OUT_STYLES:
        video = ensure_teaching(folder, faces, quiet=False, suits=args.suits)
        cli, cli_cards, cli_s = learn_cli(video, order, args.tune)
        with tempfile.TemporaryDirectory() as d:
            page, page_cards, page_s, state = learn_page(video, order, Path(d), args.tune)
        ok = same(cli, page)
        alike += ok
        print(f"{faces:11s} learn-deck: {len(cli_cards)} of {len(order)} cards, "
              f"{0 if cli is None else len(cli.cards)} crops, {cli_s:.1f} s | page: {len(page_cards)} of "
              f"{len(order)} cards, {0 if page is None else len(page.cards)} crops, {page_s:.1f} s, "
              f"refereeing again after: {'yes' if state['refereeing'] else 'NO'} | the same memory: {'yes' if ok else 'NO'}"
              + (f" | page problems: {'; '.join(state['problems'])}" if state["problems"] else ""), flush=True)
    print(f"decks learnt the same on the page as by `masta learn-deck`: {alike} of {len(HELD_OUT_STYLES)}")
    return 0 if alike == len(HELD_OUT_STYLES) else 1


if __name__ == "__main__":
    sys.exit(main())
