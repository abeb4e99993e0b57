"""`masta watch SOURCE`: camera, pot watcher and table referee together, printing each event
and its ruling as it happens (one JSON object per line with `--json`)."""
from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from vision.letters_option import add_letters_argument
from vision.frame_size import WEBCAM_SIZE, frame_size

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "card_index_detector.onnx"


def make_detector(model: str | None, oracle: str | None, deck: str | None = None, letters: str = "en") -> Any:
    """The trained detector, or (`--oracle`) the renderer's truth for a synthetic video;
    `deck`: a deck memory file from `masta learn-deck`."""
    if oracle:
        from datasets.game_video import OracleDetector, read_frames_truth
        path = Path(oracle)
        if not path.is_file():
            raise FileNotFoundError(f"no such frames truth file: {oracle} (a NAME.frames.jsonl.gz "
                                    f"written by `masta data game-video`)")
        print("masta watch: ORACLE detector (the renderer's ground truth, not the model): "
              "for testing the pipeline on synthetic videos only", file=sys.stderr)
        return OracleDetector(read_frames_truth(path))
    path = Path(model) if model else DEFAULT_MODEL
    if not path.is_file():
        raise FileNotFoundError(f"no trained card detector at {path}: run `masta train`, or pass "
                                f"--model PATH")
    from vision.detector import CAMERA, CardDetector
    memory = None
    if deck:
        from vision.deck_memory import DeckMemory
        memory = DeckMemory.load(deck)
    return CardDetector(str(path), deck=memory, letters=letters, **CAMERA)


def _describe(outputs: list[dict]) -> str:
    parts = []
    for o in outputs:
        kind = o.get("kind", "ruling")
        if kind == "ruling":
            why = "; ".join(r.get("text", r.get("code", "")) for r in o.get("reasons", [])[:2])
            eff = ",".join(o.get("effects", []))
            parts.append(f"{o.get('verdict', '?')}" + (f" [{eff}]" if eff else "") +
                         (f" next {o['next']}" if o.get("next") else "") + (f" ({why})" if why else ""))
        elif kind == "prompt":
            parts.append(f"operator: {o.get('text') or o.get('question') or o.get('prompt', 'please check')}")
        elif kind == "game_over":
            parts.append("game over: " + ", ".join(f"{p} {t}" for p, t in (o.get("titles") or {}).items()))
        elif kind == "error":
            parts.append(f"not recorded: {o.get('message')}")
        else:
            parts.append(kind + (f" {o.get('player')}" if o.get("player") else ""))
    return " | ".join(parts)


def cmd_watch(args: argparse.Namespace) -> int:
    from referee.events import EventError
    from referee.table import TableReferee, recording_ends_game
    from vision.pipeline import Pipeline, priors_from_view
    from vision.pot_watcher import PotWatcher, WatcherConfig
    from vision.source import open_source

    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if len(players) < 2:
        raise ValueError(f"--players needs at least two names separated by commas, got {args.players!r}")
    dealer = args.dealer or players[-1]
    zone = _fractions(args.zone, "--zone") if args.zone else None  # said before the camera opens
    seats = _seats(args.seat or [], players)
    ref = TableReferee()
    ref.apply({"type": "setup", "players": players, "dealer": dealer, "preset": args.rules,
               "decks": args.decks, "source": "operator"})
    detector = make_detector(args.model, args.oracle, args.deck, args.deck_letters)
    lock = threading.Lock()
    log_fh = open(args.log, "w", encoding="utf-8") if args.log else None
    if log_fh:
        log_fh.write(json.dumps(ref.log[0]) + "\n")

    def referee(event: dict) -> list[dict]:
        with lock:
            try:
                out = ref.apply(event)
            except EventError as exc:  # e.g. a play after the game ended: say so, keep watching
                return [{"kind": "error", "message": str(exc)}]
            if log_fh:
                log_fh.write(json.dumps(ref.log[-1]) + "\n")
                log_fh.flush()
            return out

    def priors():
        with lock:
            return priors_from_view(ref.view(), args.decks)

    kinds: list[str] = []

    def on_status(st) -> None:
        kinds.append(st.kind)
        if args.json:
            print(json.dumps({"t": round(st.t, 3), "event": "source", "status": st.kind, "message": st.message}),
                  flush=True)
        else:
            print(f"[source] {st.kind}: {st.message}", file=sys.stderr, flush=True)

    letters_said = []

    def on_letters() -> None:
        """Once, when the deck's letters look different from --deck-letters."""
        watch = getattr(getattr(detector, "classifier", None), "letter_watch", None)
        msg = watch.mismatch() if watch is not None and not letters_said else None
        if msg:
            letters_said.append(msg)
            if args.json:
                print(json.dumps({"event": "deck_letters", "message": msg}), flush=True)
            else:
                print(f"masta watch: {msg}", file=sys.stderr, flush=True)

    def on_event(pev) -> None:
        on_letters()
        if args.json:
            print(json.dumps(pev.to_json()), flush=True)
        else:
            w = pev.watch
            cards = " ".join(w.cards)
            flag = " (low confidence: please check)" if w.low_conf else ""
            text = w.detail if w.type == "mismatch" else _describe(pev.rulings)
            if w.type in ("cards_played", "cards_amended") and w.detail:  # the strays it set aside, why it amended
                text += f" [{w.detail}]"
            side = f" (from {w.seat}'s side)" if w.seat else ""
            print(f"{pev.t:8.2f}s  {w.type:12s} {cards:12s}{flag}  {text}{side}", flush=True)

    source = open_source(args.source, on_status=on_status, pace=args.pace,
                         live=True if args.live else None, size=args.camera_size)
    cfg = WatcherConfig(evidence_dir=Path(args.evidence) if args.evidence else None, decks=args.decks)
    pipe = Pipeline(source, detector, referee=referee, on_event=on_event, priors_fn=priors,
                    watcher=PotWatcher(cfg, seats=seats), on_frame=getattr(detector, "see", None))
    if zone:
        pipe.watcher.set_zone(zone)
    try:
        stats = pipe.run()
        if kinds[-1:] == ["ended"] and recording_ends_game(ref.view()):
            # the video of a game read through, the counts not ended: placed by who stopped when
            for o in referee({"type": "game_end", "source": "camera"}):
                if o.get("kind") in ("info", "error"):
                    print(f"masta watch: {o.get('text') or o.get('message')}", file=sys.stderr)
    finally:
        if log_fh:
            log_fh.close()
    summary = (f"{stats.frames} frames in {stats.seconds:.1f} s ({stats.fps:.0f} frames/s), detector on "
               f"{stats.detector_ratio:.1%} of frames, {stats.events} events")
    view = ref.view()
    if view.get("titles"):
        summary += "; titles: " + ", ".join(f"{p} {t}" for p, t in view["titles"].items())
    print(f"masta watch: {summary}", file=sys.stderr)
    return 0


def _fractions(text: str, what: str) -> tuple[float, float, float, float]:
    """`x0,y0,x1,y1` as typed, checked as every zone is (`vision.boxes.zone`)."""
    from vision.boxes import zone as check_zone
    parts = text.split(",")
    if len(parts) != 4:
        raise ValueError(f"{what} takes x0,y0,x1,y1 fractions of the frame, got {text!r}")
    return check_zone(parts, f"{what} {text!r}")


def _seats(given: list[str], players: list[str]) -> dict[str, tuple[float, float, float, float]]:
    """`--seat Ann=0,0.7,1,1` ...: each player's side of the table."""
    seats = {}
    for item in given:
        name, sep, zone = item.partition("=")
        name = name.strip()
        if not sep or name not in players:
            raise ValueError(f"--seat takes NAME=x0,y0,x1,y1 with NAME one of --players ({', '.join(players)}), "
                             f"got {item!r}")
        seats[name] = _fractions(zone, f"--seat {name}")
    return seats


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "watch", help="referee a video, a webcam or a stream: camera -> cards -> rulings",
        description="Watch the pot through a camera (webcam index such as 0, a video file, a folder "
                    "of images, or an http/rtsp URL), read the cards that land on it and print each "
                    "event with the table referee's ruling as it happens.")
    p.add_argument("source", help="webcam index (0), video file, image folder or stream URL")
    p.add_argument("--rules", default="fr", help="rules preset (default fr)")
    p.add_argument("--players", required=True, help='names in seat order, e.g. "Ann,Bob,Cy"')
    p.add_argument("--dealer", default=None, help="who dealt (default: the last player)")
    p.add_argument("--decks", type=int, default=1, help="decks in play (default 1)")
    p.add_argument("--json", action="store_true",
                   help='one JSON object per line: {"t", "event", "cards", "ruling", ...}')
    p.add_argument("--model", default=None, help=f"detector ONNX (default {DEFAULT_MODEL.name} in models/, int8; "
                   f"models/float/{DEFAULT_MODEL.name} is the float pair, a little better at 640x480)")
    p.add_argument("--oracle", default=None, metavar="FRAMES.jsonl.gz",
                   help="use a synthetic video's ground-truth boxes instead of the model (testing only)")
    p.add_argument("--deck", default=None, metavar="DECK.npz",
                   help="the table's deck as taught with `masta learn-deck`: read with it, a deck the "
                        "model never saw is read better")
    add_letters_argument(p)
    p.add_argument("--zone", default=None, help="pot zone x0,y0,x1,y1 as fractions (default: automatic)")
    p.add_argument("--seat", action="append", default=None, metavar="NAME=x0,y0,x1,y1",
                   help="a player's side of the table, where their arm comes in, as fractions of the frame "
                        "(repeatable): each play then says which side it came from, a hint, never a ruling")
    p.add_argument("--evidence", default=None, help="folder for before/after JPEGs of each event")
    p.add_argument("--log", default=None, help="write the event log (JSON lines) here as it grows")
    p.add_argument("--pace", action="store_true", help="play a file at its own frame rate (as if live)")
    p.add_argument("--live", action="store_true", help="treat the source as a camera: retry when it drops")
    p.add_argument("--camera-size", default=WEBCAM_SIZE, type=frame_size, metavar="WxH",
                   help=f"frame size to ask a webcam for (default {WEBCAM_SIZE[0]}x{WEBCAM_SIZE[1]}: the cards' "
                        f"corners need the pixels; a camera that cannot keeps its own)")
    p.set_defaults(func=cmd_watch)
