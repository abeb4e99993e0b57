"""`masta data game-video`: render overhead videos of whole simulated games, with truth."""
from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

from datasets.commands import get_data_subparsers


def held_out_faces(seed: int) -> str:
    """A deck style the detector never trained on, alternating by seed."""
    from datasets.faces import HELD_OUT_STYLES, face_styles
    present = [s for s in HELD_OUT_STYLES if s in face_styles()]
    if not present:
        raise ValueError("no held-out deck style is present (is ../shared/data there?); "
                         "pass --faces with a drawn style such as drawn-03")
    return present[seed % len(present)]


def reencode_h264(path: Path, crf: int = 30) -> Path:
    """Re-encode with the system ffmpeg (H.264): about ten times smaller, plays in browsers."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise ValueError("--h264 needs the ffmpeg program (apt-get install ffmpeg); "
                         "without it the video stays MPEG-4 part 2")
    tmp = path.with_suffix(".h264.mp4")
    cmd = [ffmpeg, "-y", "-loglevel", "error", "-i", str(path), "-c:v", "libx264", "-preset", "slow",
           "-crf", str(crf), "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(tmp)]
    subprocess.run(cmd, check=True)
    tmp.replace(path)
    return path


def cmd_game_video(args: argparse.Namespace) -> int:
    from datasets.game_video import TABLES, GameRenderer, VideoSpec, deck_script
    from referee.cards import parse_card  # noqa: F401  (fail early on a broken install)

    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if not 2 <= len(players) <= 5:
        raise ValueError(f"--players needs 2 to 5 names separated by commas, got {args.players!r}")
    if args.table != "auto" and args.table not in TABLES:
        raise ValueError(f"unknown --table {args.table!r}: use auto or one of {', '.join(TABLES)}")
    out = Path(args.out)
    for k in range(args.count):
        seed = args.seed + k
        faces = held_out_faces(seed) if args.faces == "held-out" else args.faces
        spec = VideoSpec(seed=seed, players=players, preset=args.rules, faces=faces, table=args.table,
                         width=args.width, height=args.height, card_height=args.card_height,
                         max_actions=args.max_actions, noise=args.noise, engine=not args.simple)
        script = None
        if args.teach_deck:  # a deck being taught (`masta learn-deck`), not a game
            from vision.deck_memory import deck_order
            script = deck_script(list(deck_order(args.teach_suits)), players)
        renderer = GameRenderer(spec, script)
        name = f"{args.prefix}{seed:04d}.mp4"
        paths = renderer.render(out / name, frames_truth=not args.no_frames, progress=not args.quiet)
        if args.h264:
            reencode_h264(paths["video"], args.crf)
        size = paths["video"].stat().st_size / 1e6
        plays = sum(1 for e in renderer.events if e["type"] == "cards_played")  # cards shown, when teaching
        print(f"{paths['video']}: {renderer.frame_index} frames ({renderer.frame_index / spec.fps:.0f} s, "
              f"{size:.1f} MB), {plays} plays, deck {faces}, table {renderer.table_kind}, "
              f"game from {renderer.script.engine}; truth {paths['truth']}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    sub = get_data_subparsers(subparsers)
    p = sub.add_parser("game-video", help="render overhead videos of whole simulated games",
                       description="Render a whole game played by the engine's bots as seen by a "
                                   "webcam above the table (30 fps), with the ground-truth event log "
                                   "(NAME.truth.jsonl) and per-frame card boxes (NAME.frames.jsonl.gz).")
    p.add_argument("--seed", type=int, default=0, help="game and rendering seed")
    p.add_argument("--count", type=int, default=1, help="videos to render (seeds seed, seed+1, ...)")
    p.add_argument("--out", default="data/game-videos", help="output folder (default data/game-videos)")
    p.add_argument("--prefix", default="game-", help="file name prefix (default game-)")
    p.add_argument("--players", default="Ann,Bob,Cy", help="names in seat order (2 to 5)")
    p.add_argument("--rules", default="fr", help="rules preset the bots play (default fr)")
    p.add_argument("--faces", default="held-out",
                   help="deck style: held-out (decks the detector never trained on, the default) "
                        "or a style name from datasets/faces.py")
    p.add_argument("--table", default="auto", help="auto, wood, felt, cloth or linen")
    p.add_argument("--width", type=int, default=640)
    p.add_argument("--height", type=int, default=480)
    p.add_argument("--card-height", type=int, default=96, help="card height in pixels (default 96)")
    p.add_argument("--max-actions", type=int, default=None, help="stop after N table actions (a short clip)")
    p.add_argument("--noise", type=float, default=2.0, help="sensor noise sigma (default 2)")
    p.add_argument("--simple", action="store_true", help="use the built-in simple game, not the engine")
    p.add_argument("--teach-deck", action="store_true",
                   help="instead of a game, the cards `masta learn-deck` is taught with, shown one at "
                        "a time in the middle of the table (A to K of each of --teach-suits)")
    p.add_argument("--teach-suits", default="SH", help="with --teach-deck: the suits shown, in order "
                   "(default SH: spades then hearts; SHCD: the whole deck)")
    p.add_argument("--no-frames", action="store_true", help="skip the per-frame box file")
    p.add_argument("--h264", action="store_true", help="re-encode with ffmpeg/libx264 (small, browser-playable)")
    p.add_argument("--crf", type=int, default=30, help="H.264 quality with --h264 (lower is better)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_game_video)
