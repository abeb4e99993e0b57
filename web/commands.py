"""`masta serve` (a webcam or any source, or manual entry) and `masta demo` (the bundled game video)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO_DIR = ROOT / "assets" / "demo"
VIDEO_EXT = (".mp4", ".avi", ".mkv", ".mov", ".webm")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve the table's web page (live rulings, disputes, the evening)",
                       description="Serve the table's web page with waitress. Without --source, plays are "
                                   "entered by hand on the manual-entry page.")
    _common(p)
    p.add_argument("--source", default=None,
                   help="camera: a webcam index (0), a video file, an image folder or a stream URL")
    p.add_argument("--deck", default=None, metavar="DECK.npz",
                   help="the table's deck as taught with `masta learn-deck` (a design the model never "
                        "saw is read better). Without it, the deck last taught on the page /teach/ is read "
                        "with, if any")
    p.add_argument("--teach-tune", type=int, default=None, metavar="BATCHES",
                   help="a deck taught on the page /teach/ then also tunes its own rank reader for this "
                        "many batches (300 takes about 80 s on a 2-core CPU; see `masta learn-deck --help`); "
                        "default 0: the taught indices alone weigh the reads")
    from vision.letters_option import add_letters_argument
    add_letters_argument(p, default=None)  # None: the table's setting from set-up (en when never set)
    p.set_defaults(func=serve)
    d = sub.add_parser("demo", help="referee the bundled demo game video live in the browser",
                       description="Serve the bundled demo video (assets/demo/) refereed live. Opens "
                                   "nothing: open the printed URL.")
    _common(d)
    d.add_argument("--no-operator", action="store_true",
                   help="nobody answers for the camera: who an Ace gives the pot to, who played a Turbo "
                        "are assumed (the side the arm came from, else the next in turn), marked 'assumed' "
                        "and asked one question at a time on the live page; the game runs to its titles and "
                        "the terminal says the questions asked and taps taken (by default the demo taps the "
                        "answers from the video's script, marked 'demo script', right after the camera "
                        "records the play)")
    d.set_defaults(func=demo)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 for phones on the network)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", default=None, help="SQLAlchemy URL (default: SQLite file in the data folder), "
                                              "for example postgresql://user@host/masta")
    p.add_argument("--table", default="main",
                   help="which table of the club (several servers may share one --db), default main")
    p.add_argument("--data-dir", default=None, help="data folder (default: $MASTA_DATA_DIR or ~/.local/share/masta)")
    p.add_argument("--threads", type=int, default=96,
                   help="server threads (default 96; each open page holds one or two, 8 are kept for posts)")


def _config(args, **kw):
    from .config import Config, default_data_dir
    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port must be between 1 and 65535, not {args.port}")
    return Config(data_dir=Path(args.data_dir) if args.data_dir else default_data_dir(),
                  db_url=args.db, table=args.table, host=args.host, port=args.port, threads=args.threads, **kw)


def _build(config):
    from sqlalchemy.exc import ArgumentError, OperationalError
    from .app import create_app
    from .store import StoreWriteError
    try:
        return create_app(config)
    except StoreWriteError as exc:
        raise ValueError(f"{exc}: masta records every event as it happens and cannot referee "
                         f"without saving; use a writable --db or --data-dir") from None
    except (PermissionError, NotADirectoryError, FileExistsError) as exc:  # the data folder itself
        raise ValueError(f"cannot use the data folder {config.data_dir}: {exc.strerror or exc} "
                         f"({exc.filename}); give a writable --data-dir") from None
    except ArgumentError as exc:
        raise ValueError(f"--db {config.db_url!r} is not a database URL: {exc}") from None
    except OperationalError as exc:
        raise ValueError(f"cannot open the database {config.database_url}: {exc.orig}") from None
    except ModuleNotFoundError as exc:
        raise ValueError(f"the database driver {exc.name!r} is not installed "
                         f"(for PostgreSQL: pip install psycopg[binary])") from None


def _lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent), for phones' links."""
    import socket
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return None


def _announce(app, config, extra: list[str]) -> None:
    from . import qr
    base = config.base_url()
    if config.host in ("0.0.0.0", "::", ""):
        lan = _lan_address()
        if lan:
            base = f"http://{lan}:{config.port}"
    token = app.extensions["masta.token"]
    app.config[qr.PUBLIC_URL] = base  # the set-up page's QR codes show this address
    local = config.host in ("127.0.0.1", "localhost", "::1")
    print(f"masta: serving on {base}/  (everyone: watch and vote)", flush=True)
    if not local:
        print("masta: phones at the table scan this to watch (the set-up page shows it too):", flush=True)
        qr.terminal(base + "/", sys.stdout)
    print(f"masta: operator link (open once per device): {base}/auth?token={token}", flush=True)
    if local:
        print("masta: only this machine can connect; use --host 0.0.0.0 for phones on the network "
              "(a QR code to scan is then shown here and on the set-up page)", flush=True)
    print(f"masta: database {config.database_url.split('@')[-1]}", flush=True)
    for line in extra:
        print("masta: " + line, flush=True)


def _bind(app, config):
    """The server, bound: done before the camera starts, so a port in use is said and the
    command exits 2 with no pipeline thread running (whose native threads, cut at exit,
    aborted the process: "terminate called without an active exception")."""
    from .server import make_server
    try:
        return make_server(app, config.host, config.port, config.threads)
    except OSError as exc:
        raise ValueError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}; "
                         f"choose another --port") from None


def _run(app, config, lines: list[str], server=None) -> int:
    """Bind first (unless `server` is bound already), then print the links (so they work the
    moment they are shown), then serve."""
    server = server if server is not None else _bind(app, config)
    _announce(app, config, lines)
    try:
        server.run()
    finally:
        app.extensions["masta.broadcaster"].close_all()
        teacher = app.extensions.get("masta.teacher")
        if teacher:  # cards being shown: nothing learnt is kept, the camera is not started again
            teacher.close()
        cam = app.extensions.get("masta.camera")
        if cam:
            cam.stop()
    return 0


def _camera(app, source: str | None, deck=None, letters: str = "en", **kw) -> list[str]:
    """Start the pipeline on `source` if a detector is available; say what happens either way.
    `deck`: a `vision.deck_memory.DeckMemory` to read with. A source that cannot be opened
    raises ValueError: `serve` then starts without the camera saved in Set-up and says so."""
    from .camera import CameraRunner, attach_camera, find_model, load_detector, mask_source
    if not source:
        return ["no camera (--source): enter plays on the manual-entry page /manual/"]
    model = find_model()
    if model is None:
        app.extensions["masta.frames"].status = "no trained card detector in models/: enter plays by hand"
        return [f"no trained card detector in {ROOT / 'models'} (card_index_detector.onnx and "
                f"card_index_classifier.onnx, from `masta train`): the camera is not watched; "
                f"enter plays on the manual-entry page /manual/"]
    from vision.deck_memory import DeckMemoryError
    said: list[str] = []
    try:
        try:
            detector = load_detector(model, deck, letters)
        except DeckMemoryError:  # the deck taught on /teach/ was read by another classifier
            said.append("the deck taught before was taught with another card classifier than this masta's "
                        "(the models changed since): teach it again on /teach/; until then the camera reads "
                        "with its model alone")
            deck = None
            detector = load_detector(model, letters=letters)
    except (ImportError, ValueError, OSError) as exc:  # includes FileNotFoundError
        return said + [f"cannot load the card detector {model}: {exc}; enter plays on /manual/"]
    try:
        attach_camera(app, detector, source, **kw)
    except OSError as exc:  # a name too long for a file, a device refused: said, not a traceback
        raise ValueError(mask_source(f"cannot open camera {source[:200]!r}: {exc.strerror or exc}")) from None
    return said + [f"watching {mask_source(source)} with {model.name}" + (f" and the taught deck {deck.name!r}" if deck else "")]


def serve(args) -> int:
    deck = None
    if args.deck:  # a bad file, or one taught with another classifier, is said before anything starts
        from vision.classifier import model_fingerprint
        from vision.deck_memory import DeckMemory
        from vision.detector import CLASSIFIER_NAME

        from .camera import find_model
        deck = DeckMemory.load(args.deck)
        model = find_model()
        if model is not None:
            deck.check_classifier(model_fingerprint(model.with_name(CLASSIFIER_NAME)))
    if args.teach_tune is not None and args.teach_tune < 0:
        raise ValueError(f"--teach-tune {args.teach_tune}: give a number of batches from 0 (0: no tuning)")
    tuning = {}
    if args.teach_tune:  # training code, imported only when asked for
        from training.deck_tune import tune
        tuning = {"teach_tune": args.teach_tune, "tuner": tune}
    elif args.teach_tune is not None:
        tuning = {"teach_tune": args.teach_tune}
    config = _config(args, source=args.source, **tuning)
    app = _build(config)
    server = _bind(app, config)
    store = app.extensions["masta.store"]
    source = args.source if args.source is not None else store.get_setting("camera_source")
    said: list[str] = []
    if deck is None and source:  # the deck taught on /teach/ before the server last stopped
        from .deck_teacher import saved_deck
        deck, problem = saved_deck(app)
        said = [problem] if problem else []
    if args.deck_letters is not None:  # said on the command line: the table's setting from now on
        store.set_setting("deck_letters", args.deck_letters)
    letters = store.get_setting("deck_letters") or "en"
    try:
        lines = said + _camera(app, source, deck, letters=letters)
    except ValueError as exc:  # includes vision.source.SourceError ("no camera 7")
        if args.source is not None:  # asked for on the command line: an error
            server.close()
            raise
        # the camera saved on the set-up page is not there tonight: serve, and say so
        from .camera import mask_source
        why = mask_source(f"the camera saved in Set-up ({source[:200]!r}) cannot be opened: {str(exc)[:300]}")
        app.extensions["masta.frames"].status = f"{why}; no camera: enter plays by hand"
        lines = said + [f"{why}; serving without a camera: enter plays on /manual/, or choose another "
                        f"camera under Set-up, Camera"]
    except BaseException:
        server.close()
        raise
    return _run(app, config, lines, server)


def find_demo() -> tuple[Path | None, Path | None]:
    """(the demo video, its ground-truth/setup log) in assets/demo/, either may be None."""
    if not DEMO_DIR.is_dir():
        return None, None
    videos = sorted(p for p in DEMO_DIR.iterdir() if p.suffix.lower() in VIDEO_EXT)
    if not videos:
        return None, None
    truth = videos[0].with_name(videos[0].stem + ".truth.jsonl")  # datasets/game_video.py's name
    logs = [truth] if truth.is_file() else sorted(DEMO_DIR.glob("*.jsonl"))
    return videos[0], (logs[0] if logs else None)


def demo_setup(log: Path | None) -> dict:
    """The demo game's setup event (players, dealer, preset) from its log, else a default table."""
    if log is not None:
        for line in log.read_text(encoding="utf-8").splitlines():
            if line.strip():
                ev = json.loads(line)
                if ev.get("type") == "setup":
                    return {k: ev[k] for k in ("type", "players", "dealer", "preset", "decks") if k in ev}
    return {"type": "setup", "players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee", "preset": "fr"}


def demo_seat_zones(log: Path | None) -> dict | None:
    """Each player's side of the demo's table, as an operator would draw them on the set-up
    page (`datasets.game_video.seat_zones`, from the video's truth file), or None."""
    if log is None:
        return None
    from datasets.game_video import read_truth, seat_zones
    try:
        truth = read_truth(log)
        players = demo_setup(log)["players"]
        return {k: list(v) for k, v in seat_zones(truth.meta, players).items()}
    except (ValueError, KeyError, TypeError):  # a log of another kind: no sides drawn
        return None


def demo_summary(table) -> str:
    """One line for the end of the demo game: its titles, the questions the page asked (one at
    a time) and the taps people took."""
    v = table.view()
    t, sm = v["table"], v["summary"]
    titles = ", ".join(f"{p} {title}" for p, title in (t.get("titles") or {}).items())
    return f"the demo game is over: {titles or 'no titles'}; {sm['text']}"


class DemoEnd:
    """Tells the terminal once, when the demo game ends, how it ended (`demo_summary`); `then`:
    the camera's other listener (the scripted operator), called first."""

    def __init__(self, table, then=None, say=None):
        self.table, self.then = table, then
        self.say = say or (lambda line: print("masta: " + line, flush=True))
        self.said = False

    def __call__(self, event: dict, video_t: float | None) -> None:
        if self.then is not None:
            self.then(event, video_t)
        if not self.said and self.table.game_over():
            self.said = True
            self.say(demo_summary(self.table))


def demo(args) -> int:
    from .config import default_data_dir
    data = Path(args.data_dir) if args.data_dir else default_data_dir() / "demo"
    args.data_dir = str(data)
    config = _config(args)
    app = _build(config)
    server = _bind(app, config)  # a port in use: said before anything starts or is recorded
    video, log = find_demo()
    table = app.extensions["masta.table"]
    table.new_evening("Demo")  # each demo run is a fresh evening; earlier runs stay in Export
    table.submit(demo_setup(log), source="system")
    if video is None:
        lines = [f"no demo video in {DEMO_DIR} yet: serving the manual-entry page only "
                 f"({config.base_url()}/manual/ after opening the operator link)"]
    else:
        after = None
        seats = demo_seat_zones(log)
        if seats:  # the demo table's sides, as drawn on the set-up page: each play says whose side
            app.extensions["masta.store"].set_setting("seat_zones", seats)
        if log is not None and not args.no_operator:
            from .demo_operator import DemoOperator, scripted_plays
            after = DemoOperator(table, scripted_plays(log)).after_camera
        lines = _camera(app, str(video), pace=True, after_event=DemoEnd(table, after))
        if seats:
            lines.append("each player's side of the demo table is drawn (Set-up): the rulings page says from "
                         "which side each play came")
        if after is not None:
            lines.append("the operator's part (an Ace's target, a Turbo's player, a misread corrected) "
                         "is tapped from the demo's script, marked 'demo script'; --no-operator leaves "
                         "it to you")
        else:
            lines.append("nobody answers for the camera (--no-operator): what it cannot see is assumed, "
                         "marked 'assumed', and asked one question at a time on the live page")
    return _run(app, config, lines, server)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)
