"""`masta replay LOG.jsonl [--json]`: replay a saved table log and print its rulings.

Every ruling, burn, pick-up, suspicion and game end is printed in log order, then the titles
of each game. A bad line stops the replay: what came before it is still printed, then the
error (naming the line) and exit code 2.
"""
from __future__ import annotations

import argparse
import json
import sys

from referee.events import EventError, read_log
from referee.table import TableReferee


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "replay", help="replay a saved table log (JSON lines) and print every ruling",
        description="Replay a table's event log: every ruling and the titles of each game.")
    p.add_argument("log", help="the event log, one JSON object per line")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (rulings, outputs, games, view) instead of text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    error: EventError | None = None
    try:
        events = read_log(args.log)
    except EventError as exc:
        events, error = exc.accepted, exc
    ref = TableReferee()
    for ev in events:
        try:
            ref.apply(ev)
        except EventError as exc:
            error = exc
            break
    if args.json:
        print(json.dumps(report(ref, error), ensure_ascii=False))
    else:
        print_text(ref)
    if error is not None:
        raise EventError(f"{args.log}: {error}" if str(args.log) not in str(error)
                         else str(error))
    return 0


def report(ref: TableReferee, error: EventError | None = None) -> dict:
    """Everything the replay found, as one JSON-serialisable object."""
    return {"events": len(ref.log), "rulings": ref.rulings(),
            "outputs": [o for seq in sorted(ref.outputs) for o in ref.outputs[seq]],
            "games": [r.to_dict() for r in ref.book.results],
            "view": ref.view(), "error": str(error) if error else None}


def describe(o: dict) -> str | None:
    """One line for one output of the referee (None for the quiet ones)."""
    k = o.get("kind")
    seq = f"#{o.get('event')}"
    if k == "ruling":
        eff = f" [{', '.join(o['effects'])}]" if o["effects"] else ""
        why = "; ".join(r["text"] for r in o["reasons"])
        who = o.get("player") or "?"
        turbo = " (turbo)" if o.get("turbo") else ""
        then = f"; then: {o['then']}" if o.get("then") else ""
        return (f"{seq} {who}{turbo} {' '.join(o['cards'])}: {o['verdict'].upper()}{eff}; "
                f"next {o['next']} -- {why}{then}")
    if k == "burn":
        return f"{seq} burn by {o['player']} ({len(o['cards'])} cards; {o['burns']} this game)"
    if k == "pickup":
        return f"{seq} {o['player']} picks up {len(o['cards'])} card(s)"
    if k == "out":
        return f"{seq} {o['player']} is out (place {o['place']})"
    if k == "suspicion":
        return f"{seq} SUSPICION {o['suspicion']}: {o['text']}"
    if k == "prompt":
        return f"{seq} ? {o['text']}"
    if k == "game_over":
        titles = ", ".join(f"{p} {t}" for p, t in o["titles"].items())
        return f"{seq} game {o['game']} over: {titles}"
    if k in ("duty_broken", "order_decided"):
        return f"{seq} {o.get('text') or k}"
    return None


def print_text(ref: TableReferee, out=None) -> None:
    out = out or sys.stdout
    for seq in sorted(ref.outputs):
        for o in ref.outputs[seq]:
            line = describe(o)
            if line:
                print(line, file=out)
    for r in ref.book.results:
        print(f"game {r.game} titles:", file=out)
        for p, t in r.titles.items():
            print(f"  {t:<10} {p}", file=out)
    g = ref.game
    if g is not None and not g.over:
        print(f"game {g.number} not finished: {g.turn or '?'} to play, next {g.next}", file=out)
