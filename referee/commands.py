"""The rules engine's verbs: `masta rule`, `masta rules`, `masta simulate`."""
from __future__ import annotations

import argparse
import json
from collections import Counter

from referee.cards import JOKER, RANK_VALUE, parse_cards, rank_of
from referee.engine import GameState, Play
from referee.pile import compiled, deck_fault, judge_on_pile
from referee.rules import DEFAULT_PRESET, Preset, list_presets, load_preset
from referee.ruling import ILLEGAL, Reason, Ruling

__all__ = ["register"]

#: `masta rule --help`'s examples: the options, what the ruling says, and its verdict (the
#: tests run each one)
RULE_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    ('--rules fr --pile "QD 3C" --play KH --json',
     "one play on a pot (a game of the preset's fewest players and decks)", "legal"),
    ('--play "KH KS KD KC KH"',
     "refused: a one-deck game holds one KH (--decks 2: legal, the five burn)", "illegal"),
    ("--rules palace --pile AS --play JK",
     'refused: palace is played without jokers ("senza Jolly")', "illegal"),
    ("--rules nl --pile 5H --play 2C --hand 2C --stock 0",
     'the Dutch "you may not finish on a special card": a penalty, the Shithead', "penalty"),
    ('--rules nl --pile 5H --play 2C --hand "2C 9D" --stock 0',
     "the same 2 with a card left: legal", "legal"),
    ("--rules palace --pile KH --play 4S --phase down --down 2",
     "a blind card that does not fit: picked up with the pot", "penalty"),
    ('--rules fr --pile KH --pickup --hand "4C 9D"',
     'a forced pick-up: nothing in the hand fits (--hand "4C AD": not allowed)', "legal"),
    ('--rules nl --pile 9H --play 5C --phase up --hand "" --up "5C KD" --stock 3',
     "refused: the stock is not empty, the player plays from the hand", "illegal"),
    ('--rules sydney --first --play 5H --hand "5H 6C KD" --others "4C 9D QS"',
     "who starts: 4C is lower, the other player starts", "illegal"),
    ('--rules fr --players 6 --pile "KH" --play KH',
     "a six-player game: two decks, a second KH is legal", "legal"),
)
RULE_EPILOG = "examples:\n" + "".join(f"  masta rule {args}\n      {says}\n"
                                       for args, says, _ in RULE_EXAMPLES)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "rule", help="judge one play on a pot",
        description="Judge one play on a pot given bottom to top, under a house-rule preset.\n"
                    "With the player's cards (--hand, --up, --down, --stock) the ruling also\n"
                    "weighs what hangs on them: where the player must play from, a blind card,\n"
                    "finishing on a special card, a pick-up, who starts (--first). The player\n"
                    "asking is P0, sitting left of the dealer; the others are P1, P2, ...\n"
                    "clockwise.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=RULE_EPILOG)
    p.add_argument("--rules", default=DEFAULT_PRESET,
                   help="preset name (see `masta rules --list`) or path of a .toml file")
    p.add_argument("--pile", default="", help='the pot, bottom to top: "QD 3C" ("" = empty)')
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--play", help='the cards played together: "KH" or "5S 5D"')
    what.add_argument("--pickup", action="store_true",
                      help="ask whether the player may (or must) pick up the pot instead; "
                           "needs the player's cards")
    p.add_argument("--turbo", action="store_true", help="played out of turn (Turbo)")
    p.add_argument("--phase", choices=("hand", "up", "down"), default="hand",
                   help="where the cards come from (down = a blind card)")
    p.add_argument("--players", type=int, default=None,
                   help="players at the table (default: the preset's fewest, or 1 + the "
                        "hands in --others)")
    p.add_argument("--decks", type=int, default=None,
                   help="decks in the game (default: the preset's count for --players); "
                        "a play with more copies of a card than they hold is refused")
    p.add_argument("--hand", default=None,
                   help='the player\'s hand before the play, the cards played included '
                        '(default: the cards played, when they come from the hand)')
    p.add_argument("--up", default=None,
                   help="the player's face-up cards before the play (default: the cards "
                        "played, when they come from the face-up cards)")
    p.add_argument("--down", type=int, default=None,
                   help="how many face-down cards the player has, a blind card played "
                        "included (default: 1 with --phase down, else 0)")
    p.add_argument("--stock", type=int, default=None,
                   help="cards left in the stock (default: 0 when the player's cards are given)")
    p.add_argument("--first", action="store_true",
                   help="the game's first play (on an empty pot): does the player start, "
                        "and with which card")
    p.add_argument("--others", default=None,
                   help='with --first: the other players\' hands in seat order, "/" between '
                        'them: "4C 9D KS / 3D 5H 8C" (who holds the lowest card starts)')
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
    cards = [] if args.pickup else parse_cards(args.play)
    if not args.pickup and not cards:
        raise ValueError("--play needs at least one card, for example --play KH")
    others = _others(args)
    players = _players(preset, args, others)
    decks = _decks(preset, args, players)
    if _knows_position(args):
        game = _position(preset, args, pile, cards, players, decks, others)
        play = (Play.pick_up(0) if args.pickup else
                Play(tuple(cards), args.phase, 0, 1, False, args.turbo))
        if args.turbo:
            game.turn = 1  # out of turn: somebody else is to play
        if args.first:
            game.begin()
        ruling = (_not_the_starter(game) if args.first and game.turn != 0
                  else game.judge(play))
    else:
        ruling = judge_on_pile(preset, pile, cards, phase=args.phase, turbo=args.turbo,
                               decks=decks)
    if args.json:
        print(json.dumps(ruling.to_dict(), ensure_ascii=False))
        return 0
    what = "pick-up" if args.pickup else " ".join(cards)
    print(f"{what} on [{' '.join(pile)}] under {preset.name} ({players} players, {decks} "
          f"deck{'s' if decks > 1 else ''}): {ruling.verdict.upper()}")
    for r in ruling.reasons:
        print(f"  - {r.text} ({r.code})")
        if r.rule:
            print(f"      \u00ab{r.rule}\u00bb")
    print(f"  effects: {', '.join(ruling.effects) or 'none'}")
    print(f"  next: {ruling.next}")
    return 0


def _not_the_starter(game: GameState) -> Ruling:
    """The ruling when another player holds the card the game starts with."""
    t, p = game.preset.table, game.preset
    special = compiled(p).special
    low = min((c for c in game.hands[game.turn] if c != JOKER
               and RANK_VALUE[rank_of(c)] >= RANK_VALUE[t.start_rank]
               and not (t.start_skip_special and rank_of(c) in special)),
              key=lambda c: (RANK_VALUE[rank_of(c)], t.start_suit_order.index(c[-1])))
    return Ruling(ILLEGAL, [Reason("not_the_starter", f"P{game.turn} starts, not P0: they "
                                   f"hold {low}, the lowest card from {t.start_rank} up",
                                   p.citation("start"))], [], "any", [])


def _knows_position(args: argparse.Namespace) -> bool:
    """Whether the player's cards were given: then the full-information engine judges."""
    return (args.pickup or args.first or args.others is not None
            or any(v is not None for v in (args.hand, args.up, args.down, args.stock)))


def _others(args: argparse.Namespace) -> list[list[str]] | None:
    if args.others is None:
        return None
    if not args.first:
        raise ValueError("--others (the other players' hands) says who starts: give it with "
                         "--first")
    hands = [parse_cards(h) for h in args.others.split("/")]
    if not all(hands):
        raise ValueError(f"--others {args.others!r} has an empty hand: give each other "
                         'player\'s cards, "/" between players: "4C 9D KS / 3D 5H 8C"')
    return hands


def _players(preset: Preset, args: argparse.Namespace, others: list[list[str]] | None) -> int:
    lo, hi = preset.table.players
    n = args.players
    if others is not None:
        if n is not None and n != len(others) + 1:
            raise ValueError(f"--players {n} but --others names {len(others)} other hand(s): "
                             f"give {n - 1} hand(s), or leave out --players")
        n = len(others) + 1
    if n is None:
        return lo
    if not lo <= n <= hi:
        raise ValueError(f"{preset.name} is played by {lo} to {hi} players, not {n}")
    return n


def _decks(preset: Preset, args: argparse.Namespace, players: int) -> int:
    t = preset.table
    if args.decks is None:
        return t.decks_for(players)
    need, per_deck = 3 * t.cards_per_layer * players, 52 + t.jokers_per_deck
    if args.decks < 1 or args.decks * per_deck < need:
        raise ValueError(f"--decks {args.decks}: {players} players of {preset.name} need "
                         f"{need} cards, so at least {-(-need // per_deck)} deck(s) of "
                         f"{per_deck}")
    return args.decks


def _position(preset: Preset, args: argparse.Namespace, pile: list[str], cards: list[str],
              players: int, decks: int, others: list[list[str]] | None) -> GameState:
    """The asking player's position from the options, each checked against the others."""
    t = preset.table
    phase = args.phase
    hand = parse_cards(args.hand) if args.hand is not None else (
        list(cards) if phase == "hand" else [])
    up = parse_cards(args.up) if args.up is not None else (list(cards) if phase == "up" else [])
    down = args.down if args.down is not None else (1 if phase == "down" else 0)
    stock = args.stock if args.stock is not None else 0
    if args.pickup and args.hand is None and args.up is None and args.down is None:
        raise ValueError("--pickup needs the player's cards (--hand, or --up / --down) to "
                         "know whether they could play")
    if phase in ("hand", "up") and not args.pickup:
        held = hand if phase == "hand" else up
        rest = list(held)
        for c in cards:
            if c not in rest:
                raise ValueError(f"--{phase} {' '.join(held) or '(none)'} lacks {c}, which is "
                                 f"played: give the whole {phase}, the cards played included")
            rest.remove(c)
    if len(up) > t.cards_per_layer:
        raise ValueError(f"--up has {len(up)} cards but {preset.name} deals "
                         f"{t.cards_per_layer} face up")
    if not 0 <= down <= t.cards_per_layer:
        raise ValueError(f"--down {down}: {preset.name} deals 0 to {t.cards_per_layer} "
                         "face-down cards")
    if phase == "down" and not args.pickup and down < 1:
        raise ValueError("--phase down plays a face-down card: --down must be at least 1")
    left = decks * (52 + t.jokers_per_deck) - 3 * t.cards_per_layer * players
    if not 0 <= stock <= left:
        raise ValueError(f"--stock {stock}: after the deal the stock of {players} players "
                         f"holds 0 to {left} cards")
    if args.first:
        if pile:
            raise ValueError("--first asks the game's first play, which goes on an empty pot: "
                             "leave out --pile")
        if args.turbo or args.pickup:
            raise ValueError("--first asks who starts with which card: not with --turbo or "
                             "--pickup")
    blind = list(cards) if phase == "down" and not args.pickup else []
    named = {"--pile": pile, "--hand": hand, "--up": up, "--others": [
        c for h in (others or []) for c in h]}
    played = Counter(cards)
    for card in dict.fromkeys(c for cs in named.values() for c in cs):
        where = [k for k, cs in named.items() if card in cs]
        n = sum(cs.count(card) for cs in named.values()) - (
            played[card] if phase in ("hand", "up") else 0)
        fault = deck_fault(preset, [], [card] * max(n, 0), decks)
        if n > 0 and fault is not None:
            raise ValueError(f"{' '.join(where)}: {fault.text}; check the cards given")
    return GameState.for_one_player(preset, players, hand=hand, up=up, down=down, blind=blind,
                                    stock=stock, pile=pile, others=others, first=args.first,
                                    decks=decks)


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
