"""End-to-end benchmark: held-out game videos -> detector -> pot watcher -> table referee.

Videos: whole games played by the engine's bots, rendered by `datasets.game_video` with deck
styles the detector never trained on (`datasets.faces.HELD_OUT_STYLES`: knoll, photo-deck)
on procedural tables of this module's own making. They are rendered on first use into
`--videos` (default data/bench-videos) and reused afterwards.

Measures, per video and overall:
* play events: precision and recall, a play counting only at the right moment with exactly
  the right cards; pot clears; extra decisions (mismatches included);
* whole games transcribed with no error at all;
* latency from the moment the cards came to rest (truth) to the ruling: the video time the
  watcher waited plus the pipeline's lag behind a live source at that frame (its processing
  time, and any queueing behind slower frames before it, as if the video came in live);
* throughput: frames processed per second on this CPU (decoding included), the share of
  frames the detector ran on, and the ratio against running the detector on every frame.

`--detector model` uses the trained ONNX detector (models/); `--detector oracle` uses the
renderer's own boxes (with `--miss`/`--confuse` read noise): the ORACLE measures the
watcher and the pipeline, never the model, and every line it prints says so.

    .venv/bin/python bench/pipeline.py --detector model            # the real figures
    .venv/bin/python bench/pipeline.py --detector model --size 1280x720   # what a webcam is asked for
    .venv/bin/python bench/pipeline.py --detector oracle           # watcher alone
    .venv/bin/python bench/pipeline.py --render-only --count 10    # just make the videos
    .venv/bin/python bench/pipeline.py --video assets/demo/demo-game.mp4 --out runs/bench-demo.json  # the demo
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from datasets.game_video import (GameRenderer, OracleDetector, VideoSpec, read_frames_truth,  # noqa: E402
                                 read_truth, score_events, seat_hints, seat_zones)
from datasets.video_commands import held_out_faces  # noqa: E402
from referee.cards import rank_of  # noqa: E402
from referee.table import TableReferee  # noqa: E402
from vision.deck_memory import TEACH_SUITS, DeckMemoryError, deck_order  # noqa: E402
from vision.frame_size import frame_size  # noqa: E402
from vision.pipeline import Pipeline, priors_from_view  # noqa: E402
from vision.pot_watcher import UNFIT_WEIGHT, PotWatcher, WatcherConfig  # noqa: E402
from vision.source import open_source  # noqa: E402

NAMES = ["Ann", "Bob", "Cy", "Dee"]
#: the benchmark videos' size unless `--size` says otherwise; other sizes get a folder of their own
SIZE = (VideoSpec.width, VideoSpec.height)


def paths_of(stem: Path) -> dict[str, Path]:
    """A `masta data game-video` video and the truth and frames files beside it."""
    return {"video": stem.with_suffix(".mp4"), "truth": Path(f"{stem}.truth.jsonl"),
            "frames": Path(f"{stem}.frames.jsonl.gz")}


def video_paths(folder: Path, seed: int) -> dict[str, Path]:
    return paths_of(folder / f"bench-{seed:04d}")


def paths_beside(video: Path) -> dict[str, Path]:
    """A video made by `masta data game-video` (the demo's, say) with its truth and frames files
    beside it; a missing one is a clear error."""
    paths = dict(paths_of(video.with_suffix("")), video=video)
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        raise SystemExit(f"--video {video}: missing {', '.join(missing)} (made beside the video by "
                         "`masta data game-video`)")
    return paths


def ensure_video(folder: Path, seed: int, quiet: bool, faces: str | None = None,
                 size: tuple[int, int] = SIZE) -> dict[str, Path]:
    paths = video_paths(folder, seed)
    if all(p.exists() for p in paths.values()):
        return paths
    players = NAMES[: 2 + seed % 3]  # 2, 3 and 4 players
    # the same table in view at any size: a card is a fifth of the frame's height
    spec = VideoSpec(seed=seed, players=players, faces=faces or held_out_faces(seed),
                     width=size[0], height=size[1], card_height=round(size[1] / 5))
    t0 = time.time()
    GameRenderer(spec).render(paths["video"])
    if not quiet:
        print(f"rendered {paths['video'].name} ({len(players)} players, {spec.faces}) in {time.time() - t0:.0f} s",
              flush=True)
    return paths


#: the teaching video of each held-out deck: seed TEACH_SEED + its place in HELD_OUT_STYLES
TEACH_SEED = 800


def ensure_teaching(folder: Path, faces: str, quiet: bool, size: tuple[int, int] = SIZE,
                    suits: str = TEACH_SUITS) -> Path:
    """The video of a deck being taught (`masta learn-deck --suits SUITS`): its teaching cards
    shown one at a time on the same table and camera as the games; rendered on first use."""
    from datasets.faces import HELD_OUT_STYLES
    from datasets.game_video import deck_script

    order = deck_order(suits)
    path = folder / (f"teach-{faces}.mp4" if suits.upper() == TEACH_SUITS else f"teach-{faces}-{suits.upper()}.mp4")
    if path.exists() and Path(f"{path.with_suffix('')}.truth.jsonl").exists():
        return path
    seed = TEACH_SEED + (HELD_OUT_STYLES.index(faces) if faces in HELD_OUT_STYLES else 50)
    spec = VideoSpec(seed=seed, players=NAMES[:2], faces=faces, width=size[0], height=size[1],
                     card_height=round(size[1] / 5))
    t0 = time.time()
    GameRenderer(spec, deck_script(list(order), spec.players)).render(path, frames_truth=False)
    if not quiet:
        print(f"rendered {path.name} (teaching the {faces} deck) in {time.time() - t0:.0f} s", flush=True)
    return path


#: deck memories learnt in this run, by (videos folder, deck style, model, suits, tuning
#: batches): each deck is taught once
_TAUGHT: dict[tuple[Path, str, str, str, int], object] = {}


def deck_settings(text: str) -> tuple[int, float, float]:
    """`--deck-settings K,T,MIN_CLOSE`, e.g. 10,0.04,0.7."""
    try:
        k, t, mc = text.split(",")
        out = (int(k), float(t), float(mc))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give K,TEMPERATURE,MIN_CLOSE, e.g. 5,0.02,0.9") from None
    if out[0] < 1 or out[1] <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: K is a count from 1, TEMPERATURE above 0")
    return out


def taught_deck(folder: Path, faces: str, args):
    """The deck memory learnt from the deck's teaching video, as `masta learn-deck` learns it."""
    from training.deck_tune import tune
    from vision.deck_memory import learn_deck
    from vision.detector import CAMERA, CardDetector

    key = (Path(folder), faces, str(args.model), args.teach_suits, args.tune)
    if key not in _TAUGHT:
        video = ensure_teaching(folder, faces, args.quiet, args.size, args.teach_suits)
        t0 = time.time()
        report = learn_deck(open_source(str(video)).frames(), CardDetector(args.model, **CAMERA, features=True),
                            deck_order(args.teach_suits), name=faces, tune=args.tune, tuner=tune)
        if report.memory is None:
            raise SystemExit(f"teaching the {faces} deck failed: {'; '.join(report.problems)}")
        boxes = sum(len(t.boxes) for t in report.taught)
        ranks = report.memory.ranker_ranks()
        speaks = "" if ranks is None else f"; its rank reader speaks for {' '.join(ranks) or 'no rank'}"
        print(f"taught the {faces} deck: {len(report.taught)} cards, {boxes} index boxes, "
              f"{time.time() - t0:.1f} s{speaks}{'; ' + '; '.join(report.problems) if report.problems else ''}",
              flush=True)
        if args.deck_settings:  # another K, TEMPERATURE, MIN_CLOSE than the committed ones
            report.memory.k, report.memory.temperature, report.memory.min_close = args.deck_settings
        _TAUGHT[key] = report.memory
    return _TAUGHT[key]


def detector_for(kind: str, paths: dict[str, Path], args, faces: str = "") -> tuple[object, object | None]:
    """The oracle or the trained model for one video; `faces`: its deck style (for `--teach`)."""
    if kind == "oracle":
        oracle = OracleDetector(read_frames_truth(paths["frames"]), miss=args.miss, confuse=args.confuse,
                                seed=args.seed, jitter=args.jitter)
        return oracle, oracle.see
    from vision.detector import CAMERA, CardDetector
    model = Path(args.model)
    if not model.is_file():
        raise SystemExit(f"no trained model at {model}: run `masta train` first, or use --detector oracle")
    settings = dict(CAMERA, **({"conf": args.conf} if args.conf is not None else {}))
    if args.mate_near is not None:
        settings["mate_near"] = args.mate_near
    deck = None
    if args.teach:
        deck = taught_deck(paths["video"].parent, faces, args)
    if args.teach and args.learn:  # this game's answers teach this game's copy only
        import copy
        deck = copy.deepcopy(deck)
    elif args.learn:  # taught by what a person answers, from nothing
        from vision.deck_memory import DeckMemory
        deck = DeckMemory.empty(faces)
    return CardDetector(str(model), use_face=not args.no_face, deck=deck, letters=args.deck_letters, **settings), None


class Answerer:
    """A person at the table answering each check as it comes (`--answer`), from the truth:
    a play asked about is corrected to what was played (or confirmed), a mismatch named as the
    play it was, a play that did not happen voided. The referee's state, and with it the
    watcher's priors, is then the table's. With `--learn`, each answer also teaches the
    detector's deck memory: the play's index boxes, cut from the frame that settled it, as the
    rank the person said (`vision.deck_memory.DeckMemory.add`)."""

    def __init__(self, truth: list[dict], ref: TableReferee, detector, learn: bool):
        self.plays = [e for e in truth if e["type"] == "cards_played"]
        self.used: set[int] = set()
        self.ref, self.detector, self.learn = ref, detector, learn
        self.pipe = None
        self.taught = self.answered = 0

    def _apply(self, ev: dict) -> None:
        try:
            self.ref.apply(ev)
        except ValueError:  # refused (the game over on a misread): left as it is
            pass

    def _teach(self, wev, card: str) -> None:
        from vision.deck_memory import turned_crops

        frame = self.pipe.latest_frame()
        crops = [c for b in wev.boxes for c in turned_crops(frame, b)]
        if crops:
            self.detector.classifier.deck.add([card] * len(crops), self.detector.classifier.features(crops))
            self.taught += 1

    def __call__(self, p) -> None:
        wev = p.watch
        if wev.type not in ("cards_played", "mismatch") or not wev.low_conf:
            return  # a person looks at the checks, not at every play
        if any(r.get("kind") == "error" for r in p.rulings):
            return  # the referee refused it (a play after the game's end): nothing to answer
        seq = len(self.ref.log)  # the event the camera just recorded
        near = [i for i, e in enumerate(self.plays) if i not in self.used and e["t_rest"] - 0.05 <= wev.t <= e["t_rest"] + 3.0]
        if not near:
            if wev.type == "cards_played":  # no play there: voided
                self._apply({"type": "void", "event": seq})
            return
        i = max(near, key=lambda k: (len(Counter(wev.cards) & Counter(self.plays[k]["cards"])), self.plays[k]["t_rest"]))
        self.used.add(i)
        real = list(self.plays[i]["cards"])
        self.answered += 1
        if wev.type == "mismatch" or Counter(real) != Counter(wev.cards):  # a mismatch is named even as guessed
            self._apply({"type": "correct", "event": seq, "cards": real})
        ranks = {rank_of(c) for c in real}
        if self.learn and wev.type == "cards_played" and len(ranks) == 1 and "JK" not in ranks:
            self._teach(wev, real[0])


def every_frame_ms(video: Path, detector, n: int = 60) -> tuple[float, float]:
    """(decode ms, detect ms) per frame when the detector runs on every frame (sampled)."""
    cap = cv2.VideoCapture(str(video))
    dec, det = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        ok, frame = cap.read()
        t1 = time.perf_counter()
        if not ok:
            break
        detector.detect(frame)
        dec.append(t1 - t0)
        det.append(time.perf_counter() - t1)
    cap.release()
    return 1000 * statistics.median(dec), 1000 * statistics.median(det)


def run_one(paths: dict[str, Path], kind: str, args) -> dict:
    truth = read_truth(paths["truth"])
    detector, on_frame = detector_for(kind, paths, args, truth.meta["faces"])
    ref = TableReferee()
    setup = {k: v for k, v in truth.events[0].items() if k not in ("seq", "t")}
    ref.apply(setup)

    def referee(ev: dict) -> list[dict]:
        try:
            return ref.apply(ev)
        except ValueError as exc:  # e.g. a misread after the game ended
            return [{"kind": "error", "message": str(exc)}]

    seen = []
    answer = Answerer(truth.camera_events, ref, detector, args.learn) if args.answer else None

    def on_event(p) -> None:
        seen.append(p)
        if answer is not None:
            answer(p)

    seats = seat_zones(truth.meta, setup["players"]) if args.seats else None
    pipe = Pipeline(open_source(str(paths["video"])), detector, referee=referee, on_event=on_event,
                    watcher=PotWatcher(watcher_config(args.watcher), seats=seats), on_frame=on_frame,
                    priors_fn=lambda: replace(priors_from_view(ref.view()), unfit_weight=args.unfit_weight))
    if answer is not None:
        answer.pipe = pipe
    stats = pipe.run()
    got = []
    for p in seen:
        d = {"type": p.watch.type, "cards": p.watch.cards, "t": p.t, "latency": p.lag_s,
             "low_conf": p.watch.low_conf, "more": list(p.watch.maybe_more), "less": list(p.watch.maybe_less),
             "reads": [dict(a) for a in p.watch.alternatives], "gone": p.watch.gone,
             "guesses": list(p.watch.guesses), "seat": p.watch.seat,
             "boxes": [[round(float(v), 1) for v in b] for b in p.watch.boxes], "detail": p.watch.detail}
        last = next((g for g in reversed(got) if g["type"] == "cards_played"), None) \
            if p.watch.type == "cards_amended" else None
        if last is not None:  # the play as amended, ruled on when amended
            last.update(d, type="cards_played")
        else:
            got.append(d)
    score = score_events(truth.camera_events, got)
    flips = prior_flips(truth.camera_events, [p.watch for p in seen])
    if kind == "oracle":
        detector.index = 0
    dec_ms, det_ms = every_frame_ms(paths["video"], detector)
    every_fps = 1000.0 / (dec_ms + det_ms) if dec_ms + det_ms > 0 else float("inf")
    return {"video": paths["video"].name, "faces": truth.meta["faces"], "table": truth.meta["table"],
            "players": len(truth.events[0]["players"]), "frames": stats.frames, **score_fields(score),
            "fps": stats.fps, "detector_share": stats.detector_ratio, "every_frame_fps": every_fps,
            "detect_ms": det_ms, "decode_ms": dec_ms, "low_conf": sum(p.watch.low_conf for p in seen),
            "prior_flips": flips, "seat_hints": seat_hints(truth.camera_events, got) if seats else None,
            "answered": answer.answered if answer else 0, "taught": answer.taught if answer else 0,
            # each decision as scored (cards, reads and their likely others, flags): what the
            # rulings page offered, to weigh other offers against the truth without a rerun
            "decisions": got}


def score_fields(score) -> dict:
    """A video's row in the report, as far as `score_events` scored it."""
    return {"truth_plays": score.truth_plays, "got_plays": score.got_plays, "right_plays": score.right_plays,
            "truth_clears": score.truth_clears, "got_clears": score.got_clears, "right_clears": score.right_clears,
            "extra": score.extra, "perfect": score.perfect, "latencies": score.latencies,
            **{k: getattr(score, k) for k in FLAG_KEYS},
            "errors": score.errors}  # all of them in the JSON; the console shows four a video


def prior_flips(truth: list[dict], decisions: list, window: float = 3.0) -> dict[str, int]:
    """A direct tally of the priors (burned cards, the legality prior), free of the games'
    cascades: each card of a decision that is not its reads' top vote was chosen by a prior.
    `right`: the truth play at that moment holds the chosen card; `wrong`: it holds the top
    vote instead; `neither`: it holds neither (or there is no play then)."""
    out = Counter({"right": 0, "wrong": 0, "neither": 0})
    plays = [ev for ev in truth if ev["type"] == "cards_played"]
    for w in decisions:
        if w.type not in ("cards_played", "mismatch"):
            continue
        near = [ev for ev in plays if ev["t_rest"] - 0.05 <= w.t <= ev["t_rest"] + window]
        held = {c for ev in near for c in ev["cards"]}
        for card, votes in zip(w.cards, w.alternatives):
            top = max(votes, key=votes.get) if votes else card
            if top != card:
                out["right" if card in held else "wrong" if top in held else "neither"] += 1
    return dict(out)


def error_kind(error: str) -> str:
    """What kind of error one of `score_events`' lines is: a play or clear missed, an extra
    decision (by type), or a play read with the wrong cards: short (a card of it missing: a
    double read as one), long (a card too many), suit or rank wrong, other."""
    what = error.split(": ", 1)[1].removesuffix(" (one tap)").removesuffix(" (flagged)").removesuffix(" (a mismatch shown)")
    if what.endswith(" missed"):
        return "missed " + ("play" if what.startswith("cards_played") else "clear")
    if what.startswith("extra "):
        return "extra " + {"cards_played": "play", "pot_cleared": "clear"}.get(what.split()[1], what.split()[1])
    played, read = (Counter(part.split()) for part in what[len("played "):].split(", read "))
    if not read - played:
        return "short"
    if not played - read:
        return "long"
    if sum(played.values()) == sum(read.values()):
        same_ranks = Counter(map(rank_of, played.elements())) == Counter(map(rank_of, read.elements()))
        return "suit wrong" if same_ranks else "rank wrong"
    return "other"


#: the decisions a person is asked to check, counted by `score_events`
FLAG_KEYS = ("wrong_plays", "wrong_flagged", "extra_flagged", "right_flagged", "missed_noted", "one_tap", "unfixed",
             "taps", "clear_taps")


def silent_errors(r: dict) -> int:
    """The camera's errors no one is told of: wrong plays and extra decisions not flagged for a
    check, plays missed with no mismatch shown at the moment, clears missed."""
    missed = r["truth_plays"] - r["right_plays"] - r.get("wrong_plays", 0)
    return ((r.get("wrong_plays", 0) - r.get("wrong_flagged", 0)) + (r["extra"] - r.get("extra_flagged", 0))
            + (missed - r.get("missed_noted", 0)) + (r["truth_clears"] - r["right_clears"]))


def summarise(rows: list[dict], kind: str) -> dict:
    tp = sum(r["right_plays"] for r in rows)
    prec = tp / max(1, sum(r["got_plays"] for r in rows))
    rec = tp / max(1, sum(r["truth_plays"] for r in rows))
    lat = [x for r in rows for x in r["latencies"]]
    fps = sum(r["frames"] for r in rows) / sum(r["frames"] / r["fps"] for r in rows)
    every = statistics.median(r["every_frame_fps"] for r in rows)
    silent = [silent_errors(r) for r in rows]
    return {"detector": kind, "videos": len(rows), "play_precision": prec, "play_recall": rec,
            "clears_right": sum(r["right_clears"] for r in rows), "clears": sum(r["truth_clears"] for r in rows),
            "extra": sum(r["extra"] for r in rows), "perfect_games": sum(r["perfect"] for r in rows),
            **{k: sum(r.get(k, 0) for r in rows) for k in FLAG_KEYS},
            "silent_errors": sum(silent),
            # games a person could bring to no error by answering the page's checks
            "told_games": sum(n == 0 for n in silent),
            # ... and by one tap on each check, on what the page offers (`one_tap_fixes`)
            "one_tap_games": sum(r.get("unfixed", 1) == 0 for r in rows),
            "latency_median_s": statistics.median(lat) if lat else None,
            "latency_p90_s": float(np.percentile(lat, 90)) if lat else None,
            "fps": fps, "every_frame_fps": every, "speedup": fps / every if every else None,
            "detector_share": sum(r["detector_share"] * r["frames"] for r in rows) / sum(r["frames"] for r in rows),
            "detect_ms": statistics.median(r["detect_ms"] for r in rows),
            "error_kinds": dict(Counter(error_kind(e) for r in rows for e in r["errors"]).most_common()),
            "prior_flips": dict(sum((Counter(r["prior_flips"]) for r in rows), Counter())),
            "seat_hints": dict(sum((Counter(r["seat_hints"]) for r in rows if r.get("seat_hints")), Counter()))
            if any(r.get("seat_hints") for r in rows) else None}


def _f(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def watcher_config(overrides: list[str] | None) -> WatcherConfig:
    """`WatcherConfig()` with `name=value` overrides (`--watcher low_conf=0.7`), each a field
    of its own type, for choosing the watcher's settings on dev renders."""
    cfg = WatcherConfig()
    fields = {f.name for f in dataclasses.fields(WatcherConfig)}
    for item in overrides or []:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in fields:
            raise SystemExit(f"--watcher {item!r}: give name=value with a WatcherConfig field "
                             f"({', '.join(sorted(fields))})")
        old = getattr(cfg, name)
        try:
            if isinstance(old, bool):
                new = {"true": True, "1": True, "false": False, "0": False}[value.strip().lower()]
            elif isinstance(old, (int, float)):
                new = type(old)(float(value))
            else:
                raise SystemExit(f"--watcher {item!r}: {name} is a {type(old).__name__}, "
                                 "not a number or true/false")
        except (ValueError, KeyError):
            raise SystemExit(f"--watcher {item!r}: {name} takes a {type(old).__name__}") from None
        cfg = replace(cfg, **{name: new})
    return cfg


def build_parser() -> argparse.ArgumentParser:
    """The command line (also how `bench/table.py`'s `answer` mode calls this benchmark)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--videos", default=None, help="where the videos live (default data/bench-videos, "
                    "data/bench-videos-WxH with another --size, data/bench-videos-FACES with --faces)")
    ap.add_argument("--size", default=f"{SIZE[0]}x{SIZE[1]}", type=frame_size,
                    help="camera frame size WxH (default 640x480; 1280x720 is what `masta watch` asks a "
                         "webcam for): the same table in view, so the cards have more pixels")
    ap.add_argument("--faces", default=None, help="render with this deck style instead of the held-out "
                    "ones (for comparison: e.g. kennard-4color, a style the detector trained on)")
    ap.add_argument("--video", default=None, type=Path, help="score this one video instead (its "
                    ".truth.jsonl and .frames.jsonl.gz beside it), e.g. assets/demo/demo-game.mp4")
    ap.add_argument("--count", type=int, default=10, help="videos (default 10)")
    ap.add_argument("--first-seed", type=int, default=100, help="seed of the first video (default 100)")
    ap.add_argument("--detector", choices=("model", "oracle", "both"), default="model")
    ap.add_argument("--model", default="models/card_index_detector.onnx")
    ap.add_argument("--conf", type=float, default=None, help="model: minimum confidence per card read "
                    "(default: the table camera's, vision.detector.CAMERA)")
    ap.add_argument("--no-face", action="store_true", help="model: read corner indices alone, "
                    "without the card-face reader even when its ONNX is there")
    ap.add_argument("--miss", type=float, default=0.05, help="oracle: share of reads that miss a card")
    ap.add_argument("--confuse", type=float, default=0.02, help="oracle: share of reads that misread a card")
    ap.add_argument("--jitter", type=float, default=2.0, help="oracle: box noise in pixels (sigma)")
    ap.add_argument("--seed", type=int, default=0, help="oracle noise seed")
    ap.add_argument("--teach", action="store_true", help="model: teach each deck first, as a table "
                    "would with `masta learn-deck` (its teaching cards shown one at a time, a video "
                    "rendered beside the games), and read its games with what was learnt")
    ap.add_argument("--teach-suits", default=TEACH_SUITS, help="with --teach: the suits shown, A to K of "
                    f"each (default {TEACH_SUITS}, as `masta learn-deck`; SHCD: the whole deck)")
    ap.add_argument("--tune", type=int, default=0, metavar="BATCHES",
                    help="with --teach: also tune the deck's own rank reader for this many batches "
                         "(training.deck_tune, as `masta learn-deck --tune`; 0: the taught features alone)")
    ap.add_argument("--deck-settings", type=deck_settings, default=None, metavar="K,T,MIN_CLOSE",
                    help="with --teach: the taught deck read with these settings instead of "
                         "vision.deck_memory's K, TEMPERATURE and MIN_CLOSE (bench/deck_settings.py ranks them)")
    ap.add_argument("--unfit-weight", type=float, default=UNFIT_WEIGHT,
                    help=f"the legality prior: a new card of a rank that may not go on the pot counts this "
                         f"share of its votes (default {UNFIT_WEIGHT}; 1 turns the prior off)")
    ap.add_argument("--mate-near", type=float, default=None,
                    help="model: index sizes within which a same-rank card read from a surer card's index "
                         "is dropped (vision.detector.suit_mates; default the detector's, 0 = never)")
    ap.add_argument("--watcher", action="append", metavar="NAME=VALUE",
                    help="a pot-watcher setting other than its default (vision.pot_watcher.WatcherConfig), "
                         "e.g. --watcher low_conf=0.7; repeatable. The report records them")
    ap.add_argument("--seats", action="store_true", help="give the pot watcher each player's side of the "
                    "table as seat zones (as an operator draws them on the set-up page) and count how often "
                    "its hint names the player who played")
    ap.add_argument("--answer", action="store_true", help="model: a person answers each check as it comes, "
                    "from the truth (corrects, names, voids); the camera's own reads are still what is scored")
    ap.add_argument("--learn", action="store_true", help="with --answer: each answer also teaches the deck "
                    "memory the play's index crops as the rank the person said")
    ap.add_argument("--deck-letters", choices=("en", "fr", "nl", "de"), default="en",
                    help="model: the deck's court letters (vision.letters), for decks drawn with lettered "
                         "courts (--faces lettered-test-nl-00)")
    ap.add_argument("--render-only", action="store_true")
    ap.add_argument("--out", default="runs/bench-pipeline.json")
    ap.add_argument("--quiet", action="store_true")
    return ap


def main() -> int:
    ap = build_parser()
    a = ap.parse_args()
    try:  # a typo fails here, not after the first videos are read
        deck_order(a.teach_suits)
    except DeckMemoryError as exc:
        ap.error(f"--teach-suits: {exc}")
    if a.deck_settings and not a.teach:
        ap.error("--deck-settings weighs a taught deck's reads: give --teach too")
    suffix = (f"-{a.faces}" if a.faces else "") + ("" if a.size == SIZE else f"-{a.size[0]}x{a.size[1]}")
    folder = Path(a.videos or f"data/bench-videos{suffix}")
    if a.video is not None:
        videos = [paths_beside(a.video)]
    else:
        videos = [ensure_video(folder, a.first_seed + k, a.quiet, a.faces, a.size) for k in range(a.count)]
    if a.render_only:
        return 0
    kinds = ["oracle", "model"] if a.detector == "both" else [a.detector]
    report = {}
    for kind in kinds:
        label = ("ORACLE detector (renderer's truth; not the model)" if kind == "oracle"
                 else f"model {a.model}" + (f", each deck taught first ({a.teach_suits})" if a.teach else ""))
        what = f"video {a.video}" if a.video is not None else \
            f"videos with the {a.faces} deck (trained on? see models/MODEL_CARD.md)" if a.faces else "held-out videos"
        if a.video is None:
            what += f" at {a.size[0]}x{a.size[1]}"
        print(f"== {label}: {len(videos)} {what} ==", flush=True)
        rows = []
        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        for paths in videos:
            r = run_one(paths, kind, a)
            rows.append(r)
            out.write_text(json.dumps({**report, kind: {"partial": True, "videos": rows}}, indent=1))
            lat = statistics.median(r["latencies"]) if r["latencies"] else float("nan")
            print(f"{r['video']}: {r['players']}p {r['faces']:10s} {r['table']:5s} plays {r['right_plays']}/"
                  f"{r['truth_plays']} (read {r['got_plays']}), clears {r['right_clears']}/{r['truth_clears']}, "
                  f"extra {r['extra']}, {'PERFECT' if r['perfect'] else 'errors'}; latency {lat:.2f} s; "
                  f"{r['fps']:.0f} fps, detector on {r['detector_share']:.1%} of frames", flush=True)
            for e in r["errors"][:4]:
                print(f"    {e}")
        s = summarise(rows, kind)
        s["taught"] = bool(a.teach) and kind == "model"
        if s["taught"]:
            s["taught_suits"] = a.teach_suits.upper()
        s["watcher"] = list(a.watcher or [])
        report[kind] = {"summary": s, "videos": rows}
        print(f"-- {label} --\n"
              f"play precision {s['play_precision']:.4f}, recall {s['play_recall']:.4f} (right cards); "
              f"clears {s['clears_right']}/{s['clears']}; extra decisions {s['extra']}\n"
              f"whole games with no error: {s['perfect_games']}/{s['videos']}\n"
              f"asked for a check (\"please check\"): {s['wrong_flagged']} of {s['wrong_plays']} plays read with "
              f"the wrong cards, {s['extra_flagged']} of {s['extra']} extra decisions; {s['right_flagged']} of "
              f"{sum(r['right_plays'] for r in rows)} right plays; {s['missed_noted']} plays missed with a "
              f"mismatch shown\n"
              f"errors no one is told of: {s['silent_errors']} (wrong plays and extra decisions not flagged, "
              f"plays missed with no mismatch shown, clears missed); whole games with every error asked "
              f"about: {s['told_games']}/{s['videos']}\n"
              f"fixed by one tap on what the page offers: {s['one_tap']} errors; errors left that change "
              f"the game: {s['unfixed']}; whole games right after one tap on each check: "
              f"{s['one_tap_games']}/{s['videos']}\n"
              f"taps that fix every error that changes the game in place on the rulings page (its buttons, "
              f"the card picker, \"Void\", what the camera missed added where it happened): {s['taps']} "
              f"({s['taps'] / max(1, s['unfixed'] + s['one_tap']):.1f} an error); taps that clear the checks "
              f"asked for nothing (\"Right as read\", \"Nothing was played here\"): {s['clear_taps']}\n"
              f"errors by kind: {', '.join(f'{k} {n}' for k, n in s['error_kinds'].items()) or 'none'}\n"
              f"cards chosen by a prior over their top vote: {s['prior_flips'].get('right', 0)} right, "
              f"{s['prior_flips'].get('wrong', 0)} wrong (the top vote was), {s['prior_flips'].get('neither', 0)} "
              f"neither\n"
              + (f"seat zones (each player's side of the table, as drawn on the set-up page): the play's "
                 f"player named rightly {s['seat_hints'].get('right', 0)}, wrongly {s['seat_hints'].get('wrong', 0)}, "
                 f"not named {s['seat_hints'].get('none', 0)}\n" if s.get("seat_hints") else "") +
              f"latency rest -> ruling: median {_f(s['latency_median_s'])} s, p90 {_f(s['latency_p90_s'])} s\n"
              f"throughput: {s['fps']:.0f} frames/s (decode + watcher + detector + referee), detector on "
              f"{s['detector_share']:.1%} of frames; detector on every frame: {s['every_frame_fps']:.1f} "
              f"frames/s ({s['detect_ms']:.1f} ms/detect) -> {s['speedup']:.1f}x", flush=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
