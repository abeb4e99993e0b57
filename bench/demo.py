"""The demo as `masta demo` runs it, unpaced: does the game come out as its script?

The bundled demo video goes through the real app (camera runner, pot watcher, table, store)
with its scripted operator (`web.demo_operator`), as fast as this CPU reads it. Then the
game in the store is compared with the one its truth log gives: every ruling in the order of
play (player, cards, verdict), the finishing order and titles, burns, and suspicions raised.
The camera's reads depend on the CPU (its int8 arithmetic), so this is a benchmark that
prints what it found, not a test.

    .venv/bin/python bench/demo.py            # [--no-operator]: the camera alone
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from datasets.game_video import read_truth  # noqa: E402
from referee.events import COMMON_KEYS, EVENT_SPECS  # noqa: E402
from referee.table import TableReferee  # noqa: E402


def script_referee(truth_log: Path) -> TableReferee:
    """The game its truth log gives (the renderer's extra keys dropped)."""
    ref = TableReferee()
    for ev in read_truth(truth_log).events:
        spec = EVENT_SPECS[ev["type"]]
        keep = set(COMMON_KEYS) | set(spec.required) | set(spec.optional)
        ref.apply({k: v for k, v in ev.items() if k in keep and k != "seq"})
    return ref


def played(ref: TableReferee) -> list[tuple]:
    """Each ruling in the order of play: (player, cards as a set, verdict)."""
    return [(r.get("player"), tuple(sorted(r.get("cards") or [])), r.get("verdict")) for r in ref.rulings()]


def compare(game: TableReferee, script: TableReferee) -> dict:
    a, b = played(game), played(script)
    # aligned, so that one ruling too many or too few costs one, not every ruling after it
    same = sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
    va, vb = game.view(), script.view()
    return {"rulings": len(a), "script_rulings": len(b), "same_in_order": same,
            "first_difference": None if first is None else {"at": first + 1, "game": a[first], "script": b[first]},
            "identical": a == b, "titles_same": va.get("titles") == vb.get("titles"),
            "titles": va.get("titles"), "script_titles": vb.get("titles"),
            "finishing_order": va.get("finishing_order"), "burns_same": va.get("burns") == vb.get("burns"),
            "suspicions": [s["text"] for s in va.get("suspicions") or []]}


def seat_hints(table) -> dict[str, int]:
    """The camera's seat hints (`meta.seat`) against the player each ruling names once the
    operator has answered: `right`, `wrong`, `none` (a camera play with no side named)."""
    by_seq = {e["seq"]: e for e in table.log}
    out = {"right": 0, "wrong": 0, "none": 0}
    for r in table.referee.rulings():
        ev = by_seq.get(r.get("event"))
        if not ev or ev.get("source") != "camera" or ev["type"] != "cards_played":
            continue
        seat = (ev.get("meta") or {}).get("seat")
        out["none" if not seat else "right" if seat == r.get("player") else "wrong"] += 1
    return out


def run(no_operator: bool = False, timeout: float = 600.0) -> dict:
    from web.app import create_app
    from web.camera import attach_camera, find_model, load_detector, wait_for
    from web.commands import DemoEnd, demo_seat_zones, demo_setup, find_demo
    from web.config import Config
    from web.demo_operator import DemoOperator, scripted_plays

    video, log = find_demo()
    if video is None or log is None:
        raise SystemExit("no demo video and truth log in assets/demo/")
    model = find_model()
    if model is None:
        raise SystemExit("no card models in models/")
    with tempfile.TemporaryDirectory() as d:
        app = create_app(Config(data_dir=Path(d), token="bench"))
        table = app.extensions["masta.table"]
        table.submit(demo_setup(log), source="system")
        app.extensions["masta.store"].set_setting("seat_zones", demo_seat_zones(log))  # as `masta demo`
        op = None if no_operator else DemoOperator(table, scripted_plays(log))
        said: list[str] = []
        watch = {"most_open": 0, "turn_unknown": 0, "shown": 0}

        def seen(event: dict, video_t: float | None) -> None:
            """After each camera event: the questions open and whether the turn is known."""
            t = table.view()["table"]
            if t.get("game") and not t.get("over"):
                watch["most_open"] = max(watch["most_open"], len(t.get("questions") or []))
                watch["shown"] = max(watch["shown"], 1 if t.get("question") else 0)
                watch["turn_unknown"] += t.get("turn") is None

        end = DemoEnd(table, op.after_camera if op else None, say=said.append)
        t0 = time.perf_counter()
        runner = attach_camera(app, load_detector(model), str(video), pace=False,
                               after_event=lambda e, vt: (end(e, vt), seen(e, vt)))
        try:
            if not wait_for(lambda: runner._threads and not runner._threads[0].is_alive(), timeout):
                raise SystemExit(f"the demo did not end within {timeout:.0f} s")
        finally:
            runner.stop()
        wall = time.perf_counter() - t0
        out = compare(table.referee, script_referee(log))
        out["seat_hints"] = seat_hints(table)
        out["log"] = list(table.log)
        out["summary"] = table.summary()
        out["end_said"] = said[0] if said else None
        out.update(watch)
        out.update(video=str(video), operator=not no_operator, seconds=round(wall, 1),
                   events=len(table.log), by_operator=sum((e.get("meta") or {}).get("by") == "demo script"
                                                          for e in table.log))
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-operator", action="store_true", help="the camera alone: nobody answers or corrects")
    ap.add_argument("--out", default="runs/bench-demo-game.json")
    args = ap.parse_args()
    r = run(args.no_operator)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(r, indent=1))
    print(f"{r['video']}: {'with' if r['operator'] else 'without'} the scripted operator "
          f"({r['by_operator']} of its {r['events']} events), {r['seconds']} s")
    print(f"rulings the same as the script's, in the order of play (aligned): {r['same_in_order']} of {r['script_rulings']} "
          f"({r['rulings']} ruled){'; identical' if r['identical'] else ''}")
    if r["first_difference"]:
        print(f"first difference at ruling {r['first_difference']['at']}: game {r['first_difference']['game']}, "
              f"script {r['first_difference']['script']}")
    print(f"titles {r['titles']} ({'as' if r['titles_same'] else 'NOT as'} the script's); burns "
          f"{'as' if r['burns_same'] else 'NOT as'} the script's; suspicions: {len(r['suspicions'])}")
    sm = r["summary"]
    print(f"questions asked (one at a time): {sm['asked']}, still open {sm['open']}; taps {sm['taps']}; "
          f"the most open at once {r['most_open']} (spectators see at most {r['shown']}); "
          f"camera events after which the turn was unknown: {r['turn_unknown']}")
    print(f"the demo's end line: {r['end_said'] or '(none: the game did not end)'}")
    h = r["seat_hints"]
    print(f"the side each camera play came from (the demo table's seat zones, as `masta demo` draws them) names "
          f"its player rightly {h['right']}, wrongly {h['wrong']}, not at all {h['none']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
