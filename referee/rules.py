"""House rules as data: presets are TOML files, validated here into dataclasses.

A preset says, per rank, what the card does (its *powers*) and, for the table, how a
game is dealt, started and ended.  Every rule carries the sentence of the source text
(`../shared/rules/`) it implements (`cite`) and, where the text is ambiguous, the
reading chosen (`reading`), so a ruling can quote the rule it applies.

A variant preset names its base with `extends = "nl"`: its `[table]` keys and `[cite]`
entries override the base's one by one; a `[ranks.X]` table replaces the base's rank X
as a whole (so an empty one, with just its `cite`, makes the card plain again).

Unknown keys and bad values raise `PresetError`, naming the key and the file.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from referee.cards import JOKER, RANKS, SUIT_ORDER, parse_rank

__all__ = ["PresetError", "RankRule", "TableRules", "Cite", "Preset", "load_preset",
           "list_presets", "DEFAULT_PRESET", "RANK_ORDER", "TABLE_RULE_KEYS"]

DEFAULT_PRESET = "fr"
#: All ranks a preset may give powers to, jokers last.
RANK_ORDER: tuple[str, ...] = RANKS + (JOKER,)


class PresetError(ValueError):
    """A preset that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Cite:
    """The source sentence a rule implements, and the reading chosen where it is unclear."""
    text: str
    reading: str = ""


@dataclass(frozen=True)
class RankRule:
    """What one rank does.  A rank with no entry in a preset is a plain card."""
    rank: str
    anywhere: bool = False          # may be played on anything (otherwise it must fit)
    not_on: tuple[str, ...] = ()    # ...except on these (effective) top ranks
    only_on_lower: bool = False     # may only go on a strictly lower card
    reset: bool = False             # after it anything may be played
    mirror: bool = False            # copies the card beneath: its value and its power
    transparent: bool = False       # the card beneath counts, its power is not replayed
    lower: str = ""                 # "", "or_equal" (next <= it) or "strict" (next < it)
    skip: int = 0                   # players skipped per card played
    burn: bool = False              # burns the pot
    reverse: bool = False           # reverses the direction of play, per card
    give_pot: bool = False          # the player gives the pot to a player of their choice
    next_picks_up: bool = False     # the next player must pick up unless they counter
    counter: tuple[str, ...] = ()   # ranks that answer give_pot / next_picks_up
    removed_on_pickup: bool = False  # when the pot is picked up, these leave the game
    in_four: str = "counts"         # "counts" or "skipped" (invisible to four of a kind)
    cite: Cite | None = None

    @property
    def special(self) -> bool:
        """Whether the card has any power (a 'pestkaart', a magic card)."""
        return bool(self.anywhere or self.only_on_lower or self.reset or self.mirror
                    or self.transparent or self.lower or self.skip or self.burn
                    or self.reverse or self.give_pot or self.next_picks_up)

    def powers_in_words(self) -> list[str]:
        words = []
        if self.anywhere:
            words.append("may be played on anything" + (
                f" except on {', '.join(self.not_on)}" if self.not_on else ""))
        if self.only_on_lower:
            words.append("may only be played on a strictly lower card")
        if self.reset:
            words.append("resets the pot: anything may follow")
        if self.mirror:
            words.append("copies the card beneath it (value and power)")
        if self.transparent:
            words.append("is transparent: the card beneath counts")
        if self.lower == "or_equal":
            words.append(f"the next play must be {self.rank} or lower")
        if self.lower == "strict":
            words.append(f"the next play must be lower than {self.rank}")
        if self.skip:
            words.append(f"skips {self.skip} player per card")
        if self.burn:
            words.append("burns the pot")
        if self.reverse:
            words.append("reverses the direction of play")
        if self.give_pot:
            words.append("gives the pot to a player of the player's choice")
        if self.next_picks_up:
            words.append("the next player must pick up the pot")
        if self.counter:
            words.append(f"can be countered with {' '.join(self.counter)}")
        if self.removed_on_pickup:
            words.append("leaves the game when the pot is picked up")
        if self.in_four == "skipped":
            words.append("does not count in four of a kind")
        return words or ["plain card"]


@dataclass(frozen=True)
class TableRules:
    """Rules of the table: dealing, starting, picking up, Turbo, finishing."""
    players: tuple[int, int] = (2, 5)
    decks: tuple[tuple[int, int], ...] = ((5, 1), (11, 2))  # (up to N players, decks)
    jokers_per_deck: int = 0
    cards_per_layer: int = 3
    exchange: bool = True
    start: str = "left_of_dealer"        # or "lowest"
    start_rank: str = "3"
    start_suit_order: str = "CDHS"
    start_skip_special: bool = True
    start_must_play: bool = False
    voluntary_pickup: bool = False
    turbo: str = "off"                   # "off", "same_rank", "complete_four"
    turbo_ranks: tuple[str, ...] = ()
    four_of_a_kind: bool = True
    four_count: int = 4
    burn_plays_again: bool = True
    no_finish_on_special: bool = False
    strict_pickup: bool = False
    straights: bool = False
    straight_min: int = 3
    straight_scale: tuple[str, ...] = ()

    def decks_for(self, players: int) -> int:
        for upto, n in self.decks:
            if players <= upto:
                return n
        raise PresetError(f"no deck count for {players} players")


#: Table rules a `[cite]` entry may document (besides the ranks, cited in `[ranks.X]`).
TABLE_RULE_KEYS = ("deal", "decks", "exchange", "start", "higher_or_equal", "multiple",
                   "draw", "pickup", "voluntary_pickup", "magic_fit", "phases", "face_up",
                   "blind", "blind_pickup", "four_of_a_kind", "burn_again", "turbo",
                   "finish", "no_finish_on_special", "strict_pickup", "straights",
                   "four_layers", "jokers")


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    source: str
    table: TableRules
    ranks: dict[str, RankRule]            # every rank in RANK_ORDER, plain ones included
    cite: dict[str, Cite] = field(default_factory=dict)
    extends: str | None = None
    path: str = ""
    description: str = ""

    def rule(self, rank: str) -> RankRule:
        return self.ranks[rank]

    def citation(self, key: str) -> str:
        """The cited sentence for a table rule or a rank (`"rank:7"`), '' if none."""
        if key.startswith("rank:"):
            c = self.ranks[key[5:]].cite
        else:
            c = self.cite.get(key)
        if c is None:
            return ""
        return c.text + (f" [reading: {c.reading}]" if c.reading else "")

    @property
    def special_ranks(self) -> tuple[str, ...]:
        return tuple(r for r in RANK_ORDER if self.ranks[r].special)

    def in_words(self) -> str:
        """The preset's rules in plain words, each followed by the sentence it cites."""
        t = self.table
        out = [f"{self.name}: {self.title}", f"source: ../shared/rules/{self.source}"]
        if self.extends:
            out.append(f"variant of: {self.extends}")
        if self.description:
            out.append(self.description)
        out.append("")
        out.append("Table")
        deck_words = ", ".join(f"up to {u} players: {d} deck{'s' if d > 1 else ''}"
                               for u, d in t.decks)
        lines = [
            ("deal", f"{t.players[0]} to {t.players[1]} players; {deck_words}"
                     f"{f', {t.jokers_per_deck} jokers per deck' if t.jokers_per_deck else ''};"
                     f" each player gets {t.cards_per_layer} face-down, "
                     f"{t.cards_per_layer} face-up and {t.cards_per_layer} in hand"),
            ("jokers", f"{t.jokers_per_deck} joker{'s' if t.jokers_per_deck > 1 else ''} per "
                       "deck" if t.jokers_per_deck else "no jokers: a joker is not in the game"),
            ("exchange", "before play, hand and face-up cards may be exchanged"
             if t.exchange else "no exchange before play"),
            ("start", "the player left of the dealer starts" if t.start == "left_of_dealer"
             else f"the player holding the lowest card from {t.start_rank} up starts"
                  f" (suit order {t.start_suit_order})"
                  + (", and must play it" if t.start_must_play else "")),
            ("higher_or_equal", "a play must be equal or higher than the card on top"),
            ("multiple", "several cards of one rank may be played at once"),
            ("draw", f"after playing, draw back to {t.cards_per_layer} while the stock lasts"),
            ("pickup", "a player who cannot play picks up the pot"
             + ("; picking up is also allowed by choice" if t.voluntary_pickup else "")),
            ("phases", "hand first; face-up once hand and stock are empty; then face-down"),
            ("blind", "a face-down card that does not fit is picked up with the pot"),
            ("four_of_a_kind", f"{t.four_count} cards of one rank in a row burn the pot"
             if t.four_of_a_kind else "four of a kind does not burn"),
            ("burn_again", "whoever burns the pot plays again" if t.burn_plays_again
             else "after a burn the next player starts a new pot"),
        ]
        if t.turbo != "off":
            lines.append(("turbo", "Turbo: anyone may drop the same rank out of turn"
                          f" ({' '.join(t.turbo_ranks)})" if t.turbo == "same_rank" else
                          "out of turn, a player who can complete four of a kind may do so"
                          " and takes the turn"))
        if t.no_finish_on_special:
            lines.append(("no_finish_on_special", "you may not finish on a special card"))
        if t.strict_pickup:
            lines.append(("strict_pickup", "after picking up with stock left, skip the next draw"))
        if t.straights:
            lines.append(("straights", f"straights of {t.straight_min}+ consecutive ranks"
                          f" ({' '.join(t.straight_scale)}) may be played as one play"))
        for key, words in lines:
            out.append(f"- {words}.")
            c = self.citation(key)
            if c:
                out.append(f"    \u00ab{c}\u00bb")
        out.append("")
        out.append("Cards")
        for r in RANK_ORDER:
            rr = self.ranks[r]
            if r == JOKER and not t.jokers_per_deck:
                continue
            if not rr.special and rr.cite is None:
                continue
            out.append(f"- {r}: {'; '.join(rr.powers_in_words())}.")
            c = self.citation(f"rank:{r}")
            if c:
                out.append(f"    \u00ab{c}\u00bb")
        return "\n".join(out)


# ----------------------------------------------------------------------------- loading

_TOP_KEYS = {"name", "title", "source", "extends", "description", "table", "ranks", "cite"}
_BOOL_TABLE = {"exchange", "start_skip_special", "start_must_play", "voluntary_pickup",
               "four_of_a_kind", "burn_plays_again", "no_finish_on_special", "strict_pickup",
               "straights"}
_INT_TABLE = {"jokers_per_deck", "cards_per_layer", "four_count", "straight_min"}
_TABLE_KEYS = _BOOL_TABLE | _INT_TABLE | {"players", "decks", "start", "start_rank",
                                          "start_suit_order", "turbo", "turbo_ranks",
                                          "straight_scale"}
_BOOL_RANK = {"anywhere", "only_on_lower", "reset", "mirror", "transparent", "burn",
              "reverse", "give_pot", "next_picks_up", "removed_on_pickup"}
_RANK_KEYS = _BOOL_RANK | {"not_on", "lower", "skip", "counter", "in_four", "cite", "reading"}
_CITE_KEYS = {"text", "reading"}


def _err(file: str, key: str, msg: str) -> PresetError:
    return PresetError(f"{file}: {key}: {msg}")


def _check_keys(file: str, where: str, got: dict, known: set[str]) -> None:
    for k in got:
        if k not in known:
            name = f"{where}.{k}" if where else k
            raise _err(file, name, f"unknown key (known keys: {', '.join(sorted(known))})")


def _rank_list(file: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _err(file, key, f"must be a list of ranks, got {value!r}")
    out = []
    for v in value:
        try:
            out.append(parse_rank(str(v)))
        except ValueError as exc:
            raise _err(file, key, str(exc)) from None
    return tuple(out)


def _want(file: str, key: str, value: Any, typ: type) -> Any:
    if typ is int and isinstance(value, bool) or not isinstance(value, typ):
        raise _err(file, key, f"must be {typ.__name__}, got {value!r}")
    return value


def _check_file(file: str, raw: dict) -> None:
    """Reject unknown keys and badly typed values in one preset file."""
    _check_keys(file, "", raw, _TOP_KEYS)
    for k in ("name", "title", "source", "extends", "description"):
        if k in raw:
            _want(file, k, raw[k], str)
    table = _want(file, "table", raw.get("table", {}), dict)
    _check_keys(file, "table", table, _TABLE_KEYS)
    for k, v in table.items():
        key = f"table.{k}"
        if k in _BOOL_TABLE:
            _want(file, key, v, bool)
        elif k in _INT_TABLE:
            if _want(file, key, v, int) < (0 if k == "jokers_per_deck" else 1):
                raise _err(file, key, f"must be positive, got {v}")
        elif k == "players":
            if (not isinstance(v, list) or len(v) != 2 or not all(
                    isinstance(x, int) and not isinstance(x, bool) for x in v)
                    or not 2 <= v[0] <= v[1]):
                raise _err(file, key, f"must be [min, max] with 2 <= min <= max, got {v!r}")
        elif k == "decks":
            if (not isinstance(v, list) or not v or not all(
                    isinstance(p, list) and len(p) == 2 and all(
                        isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in p)
                    for p in v)):
                raise _err(file, key, f"must be a list of [up_to_players, decks], got {v!r}")
        elif k == "start":
            if v not in ("left_of_dealer", "lowest"):
                raise _err(file, key, f"must be 'left_of_dealer' or 'lowest', got {v!r}")
        elif k == "start_rank":
            _rank_list(file, key, [v])
        elif k == "start_suit_order":
            if not isinstance(v, str) or sorted(v) != sorted(SUIT_ORDER):
                raise _err(file, key, f"must list the suits C D H S once each, got {v!r}")
        elif k == "turbo":
            if v not in ("off", "same_rank", "complete_four"):
                raise _err(file, key,
                           f"must be 'off', 'same_rank' or 'complete_four', got {v!r}")
        elif k in ("turbo_ranks", "straight_scale"):
            _rank_list(file, key, v)
    ranks = _want(file, "ranks", raw.get("ranks", {}), dict)
    for rname, rd in ranks.items():
        where = f"ranks.{rname}"
        try:
            parse_rank(rname)
        except ValueError as exc:
            raise _err(file, where, str(exc)) from None
        _want(file, where, rd, dict)
        _check_keys(file, where, rd, _RANK_KEYS)
        for k, v in rd.items():
            key = f"{where}.{k}"
            if k in _BOOL_RANK:
                _want(file, key, v, bool)
            elif k in ("not_on", "counter"):
                _rank_list(file, key, v)
            elif k == "lower":
                if v not in ("", "or_equal", "strict"):
                    raise _err(file, key, f"must be 'or_equal' or 'strict', got {v!r}")
            elif k == "skip":
                if _want(file, key, v, int) < 0:
                    raise _err(file, key, f"must be >= 0, got {v}")
            elif k == "in_four":
                if v not in ("counts", "skipped"):
                    raise _err(file, key, f"must be 'counts' or 'skipped', got {v!r}")
            elif k in ("cite", "reading"):
                _want(file, key, v, str)
    cites = _want(file, "cite", raw.get("cite", {}), dict)
    for k, v in cites.items():
        if k not in TABLE_RULE_KEYS:
            raise _err(file, f"cite.{k}",
                       f"unknown rule (known rules: {', '.join(TABLE_RULE_KEYS)})")
        _want(file, f"cite.{k}", v, dict)
        _check_keys(file, f"cite.{k}", v, _CITE_KEYS)
        if "text" not in v:
            raise _err(file, f"cite.{k}.text", "missing: cite the sentence of the source")
        for kk, vv in v.items():
            _want(file, f"cite.{k}.{kk}", vv, str)


def _package_dir() -> Path:
    return Path(str(resources.files("referee") / "presets"))


def list_presets() -> list[str]:
    """Names of the shipped presets, default first."""
    names = sorted(p.stem for p in _package_dir().glob("*.toml"))
    names.remove(DEFAULT_PRESET)
    return [DEFAULT_PRESET] + names


def _find(name_or_path: str, relative_to: Path | None = None) -> Path:
    p = Path(name_or_path)
    if name_or_path.endswith(".toml") or "/" in name_or_path or p.suffix:
        if not p.is_absolute() and relative_to is not None and not p.exists():
            p = relative_to / p
        if not p.exists():
            raise PresetError(f"{name_or_path}: no such rules file")
        if not p.is_file():
            raise PresetError(f"{name_or_path} is a folder, not a rules file: name a preset "
                              f"(masta rules --list) or the path of its .toml file")
        return p
    q = _package_dir() / f"{name_or_path}.toml"
    if not q.exists():
        raise PresetError(f"unknown preset {name_or_path!r}: use one of "
                          f"{', '.join(list_presets())} or the path of a .toml file")
    return q


def _read(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise PresetError(f"{path}: cannot be read ({exc.strerror or exc}): name a readable "
                          f".toml file or a preset (masta rules --list)") from None
    _check_file(str(path), raw)
    return raw


def _merged(path: Path, seen: tuple[str, ...] = ()) -> tuple[dict, dict[str, str]]:
    """The raw preset with its base merged in, and which file each key came from."""
    key = str(path.resolve())
    if key in seen:
        raise PresetError(f"{path}: extends: preset inheritance loops ({' -> '.join(seen)})")
    raw = _read(path)
    origin = {"*": str(path)}
    if "extends" not in raw:
        return raw, origin
    base, origin = _merged(_find(raw["extends"], path.parent), seen + (key,))
    out = {k: v for k, v in base.items() if k not in ("table", "ranks", "cite", "description")}
    out.update({k: v for k, v in raw.items() if k not in ("table", "ranks", "cite")})
    out["extends"] = raw["extends"]
    out["table"] = {**base.get("table", {}), **raw.get("table", {})}
    out["ranks"] = {**{parse_rank(k): v for k, v in base.get("ranks", {}).items()},
                    **{parse_rank(k): v for k, v in raw.get("ranks", {}).items()}}
    out["cite"] = {**base.get("cite", {}), **raw.get("cite", {})}
    origin = dict(origin)
    for k in raw.get("table", {}):
        origin[f"table.{k}"] = str(path)
    origin["*"] = str(path)
    return out, origin


def _build(raw: dict, path: Path) -> Preset:
    file = str(path)
    table_raw = dict(raw.get("table", {}))
    kw: dict[str, Any] = {}
    for k, v in table_raw.items():
        if k in ("turbo_ranks", "straight_scale"):
            kw[k] = _rank_list(file, f"table.{k}", v)
        elif k == "players":
            kw[k] = (v[0], v[1])
        elif k == "decks":
            kw[k] = tuple(sorted((a, b) for a, b in v))
        elif k == "start_rank":
            kw[k] = parse_rank(v)
        else:
            kw[k] = v
    table = TableRules(**kw)
    if table.decks[-1][0] < table.players[1]:
        raise _err(file, "table.decks", f"no deck count for {table.players[1]} players "
                   f"(table.players allows up to {table.players[1]})")
    for n_players in range(table.players[0], table.players[1] + 1):
        need = 3 * table.cards_per_layer * n_players
        have = table.decks_for(n_players) * (52 + table.jokers_per_deck)
        if need > have:
            raise _err(file, "table.decks", f"{n_players} players need {need} cards but "
                       f"{table.decks_for(n_players)} deck(s) hold {have}")
    if table.turbo == "same_rank" and not table.turbo_ranks:
        raise _err(file, "table.turbo_ranks", "Turbo 'same_rank' needs the ranks it allows")
    ranks: dict[str, RankRule] = {}
    raw_ranks = {parse_rank(k): v for k, v in raw.get("ranks", {}).items()}
    for r in RANK_ORDER:
        rd = dict(raw_ranks.get(r, {}))
        cite = Cite(rd.pop("cite"), rd.pop("reading", "")) if "cite" in rd else None
        if "reading" in rd:
            raise _err(file, f"ranks.{r}.reading", "a reading needs the cite it reads")
        for k in ("not_on", "counter"):
            if k in rd:
                rd[k] = _rank_list(file, f"ranks.{r}.{k}", rd[k])
        rr = RankRule(rank=r, cite=cite, **rd)
        if rr.mirror and rr.transparent:
            raise _err(file, f"ranks.{r}", "a card cannot be both mirror and transparent")
        if (rr.give_pot or rr.next_picks_up) and rr.burn:
            raise _err(file, f"ranks.{r}", "a card that burns cannot also hand the pot on")
        ranks[r] = rr
    cites = {k: Cite(v["text"], v.get("reading", "")) for k, v in raw.get("cite", {}).items()}
    for k in ("name", "title", "source"):
        if k not in raw:
            raise _err(file, k, "missing")
    return Preset(name=raw["name"], title=raw["title"], source=raw["source"], table=table,
                  ranks=ranks, cite=cites, extends=raw.get("extends"), path=file,
                  description=raw.get("description", ""))


@lru_cache(maxsize=64)
def _load_cached(path: str, mtime: float) -> Preset:
    p = Path(path)
    raw, _ = _merged(p)
    return _build(raw, p)


def load_preset(name_or_path: str | Preset | None = None) -> Preset:
    """Load a shipped preset by name (`fr`, `nl-v2`, ...) or a user's TOML by path."""
    if isinstance(name_or_path, Preset):
        return name_or_path
    p = _find(name_or_path or DEFAULT_PRESET)
    return _load_cached(str(p.resolve()), p.stat().st_mtime)
