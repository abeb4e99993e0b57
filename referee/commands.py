"""The rules engine's verbs: `masta rule`, `masta rules`, `masta simulate`."""
from __future__ import annotations

import argparse
import json

from referee.cards import parse_cards
from referee.pile import judge_on_pile
from referee.rules import DEFAULT_PRESET, list_presets, load_preset

__all__ = ["register"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "rule", help="judge one play on a pot",
        description="Judge one play on a pot given bottom to top, under a house-rule preset.",
        epilog='example: masta rule --rules fr --pile "QD 3C" --play KH --json')
    p.add_argument("--rules", default=DEFAULT_PRESET,
                   help="preset name (see `masta rules --list`) or path of a .toml file")
    p.add_argument("--pile", default="", help='the pot, bottom to top: "QD 3C" ("" = empty)')
    p.add_argument("--play", required=True, help='the cards played together: "KH" or "5S 5D"')
    p.add_argument("--turbo", action="store_true", help="played out of turn (Turbo)")
    p.add_argument("--phase", choices=("hand", "up", "down"), default="hand",
                   help="where the cards come from (down = a blind card)")
    p.add_argument("--json", action="store_true", help="print the ruling as one JSON object")
    p.set_defaults(func=cmd_rule)

    p = subparsers.add_parser(
        "rules", help="list the presets or print one preset's rules in plain words",
        description="Print a preset's rules in plain words, each with the sentence it cites.")
    p.add_argument("preset", nargs="?", default=None, help="preset name or .toml path")
    p.add_argument("--list", action="store_true", help="list the shipped presets")
    p.set_defaults(func=cmd_rules)

    p = subparsers.add_parser(
        "simulate", help="play bot games and print statistics",
        description="Play games between built-in bots and print games per second, plays and "
                    "burns per game, finishing positions per bot style and how many ended.")
    p.add_argument("--rules", default=DEFAULT_PRESET, help="preset name or .toml path")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bots", default="saver,aggressive,lowest,random",
                   help="comma-separated bot styles, seated in turn: "
                        "random, lowest, saver, aggressive")
    p.add_argument("--max-plays", type=int, default=2000,
                   help="a game still going after this many plays counts as stuck")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.set_defaults(func=cmd_simulate)


def cmd_rule(args: argparse.Namespace) -> int:
    preset = load_preset(args.rules)
    pile = parse_cards(args.pile)
    cards = parse_cards(args.play)
    if not cards:
        raise ValueError("--play needs at least one card, for example --play KH")
    ruling = judge_on_pile(preset, pile, cards, phase=args.phase, turbo=args.turbo)
    if args.json:
        print(json.dumps(ruling.to_dict(), ensure_ascii=False))
        return 0
    print(f"{' '.join(cards)} on [{' '.join(pile)}] under {preset.name}: {ruling.verdict.upper()}")
    for r in ruling.reasons:
        print(f"  - {r.text} ({r.code})")
        if r.rule:
            print(f"      \u00ab{r.rule}\u00bb")
    print(f"  effects: {', '.join(ruling.effects) or 'none'}")
    print(f"  next: {ruling.next}")
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    if args.list or args.preset is None:
        for name in list_presets():
            p = load_preset(name)
            base = f" (variant of {p.extends})" if p.extends else ""
            print(f"{name:<22} {p.title}{base}")
        return 0
    print(load_preset(args.preset).in_words())
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from referee.bots import BOTS
    from referee.simulate import simulate

    preset = load_preset(args.rules)
    styles = [s.strip() for s in args.bots.split(",") if s.strip()]
    for s in styles:
        if s not in BOTS:
            raise ValueError(f"unknown bot {s!r}: use one of {', '.join(BOTS)}")
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    lo, hi = preset.table.players
    if not lo <= args.players <= hi:
        raise ValueError(f"{preset.name} is played by {lo} to {hi} players, not {args.players}")
    st = simulate(preset, args.players, args.games, seed=args.seed, styles=styles,
                  max_plays=args.max_plays, progress=args.games >= 500)
    if args.json:
        print(json.dumps({
            "preset": st.preset, "players": st.players, "games": st.games,
            "ended": st.ended, "stuck": st.stuck, "forced_loops": st.cycles,
            "games_per_s": round(st.games_per_s, 1),
            "plays_per_game": st.plays / st.games, "burns_per_game": st.burns / st.games,
            "positions": {k: {str(pos): n for pos, n in sorted(v.items())}
                          for k, v in st.positions.items()}}))
        return 0
    print(st.report())
    return 0
