"""Golden scenarios: one file per preset (referee/scenarios/<preset>.jsonl).

Each line is a pot and a play with the expected ruling (over `decks` decks when it says),
or a small game (a deal or a layout, then steps) with the expected state.  A variant's file may start with
`{"include": "<base>", "except": [ids]}` to inherit its base's scenarios.  Every rule a
preset cites (each `[cite]` entry and each cited rank) must be covered by a scenario.
"""
from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from referee.cards import parse_cards
from referee.engine import GameState, Play
from referee.pile import judge_on_pile
from referee.rules import list_presets, load_preset

SCENARIO_DIR = Path(str(resources.files("referee") / "scenarios"))


def load_scenarios(name: str) -> list[dict]:
    out: list[dict] = []
    path = SCENARIO_DIR / f"{name}.jsonl"
    if not path.exists():
        return out  # the coverage test reports it
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        sc = json.loads(line)
        if "include" in sc:
            drop = set(sc.get("except", []))
            base = load_scenarios(sc["include"])
            missing = drop - {b["id"] for b in base}
            assert not missing, f"{name}: except names unknown scenarios {missing}"
            out += [b for b in base if b["id"] not in drop]
        else:
            out.append(sc)
    return out


def _cards(s: str) -> list[str]:
    return parse_cards(s) if s else []


def _check(g: GameState, exp: dict, ruling, error: bool, where: str) -> None:
    for k, v in exp.items():
        if k == "verdict":
            assert ruling.verdict == v, f"{where}: {ruling.to_dict()}"
        elif k == "codes":
            assert set(v) <= set(ruling.codes), f"{where}: codes {ruling.codes}"
        elif k == "effects":
            assert ruling.effects == v, f"{where}: effects {ruling.effects}"
        elif k == "next":
            assert ruling.next == v, f"{where}: next {ruling.next}"
        elif k in ("hand", "up", "down"):
            zone = {"hand": g.hands, "up": g.up, "down": g.down}[k]
            for p, cards in v.items():
                assert Counter(zone[int(p)]) == Counter(_cards(cards)), \
                    f"{where}: {k} of P{p} is {zone[int(p)]}"
        elif k == "hand_size":
            for p, n in v.items():
                assert len(g.hands[int(p)]) == n, f"{where}: hand of P{p} {g.hands[int(p)]}"
        elif k == "pile":
            assert g.pile == _cards(v), f"{where}: pile {g.pile}"
        elif k == "stock":
            assert len(g.stock) == v, f"{where}: stock {len(g.stock)}"
        elif k == "out":
            assert len(g.out) == v, f"{where}: out {g.out}"
        elif k == "turn":
            assert g.turn == v, f"{where}: turn is P{g.turn}"
        elif k == "finished":
            assert g.finished == v, f"{where}: finished {g.finished}"
        elif k == "over":
            assert g.over == v, f"{where}: over {g.over}"
        elif k == "direction":
            assert g.direction == v, f"{where}: direction {g.direction}"
        elif k == "grades":
            assert g.grades() == {int(p): s for p, s in v.items()}, f"{where}: {g.grades()}"
        elif k == "cards":
            assert len(g.all_cards()) == v, f"{where}: {len(g.all_cards())} cards"
        elif k == "zones":
            for p in range(g.n):
                assert [len(g.down[p]), len(g.up[p]), len(g.hands[p])] == v, f"{where}: P{p}"
        elif k == "jokers":
            assert g.all_cards().count("JK") == v, f"{where}: jokers"
        elif k == "start_rank":
            assert g.start_rank == v, f"{where}: start rank {g.start_rank}"
        elif k == "legal":
            got = sorted(" ".join(x.cards) if not x.pickup else "pickup"
                         for x in g.legal_plays())
            assert got == sorted(v), f"{where}: legal plays {got}"
        elif k == "error":
            assert error == v, f"{where}: error {error}"
        else:
            raise AssertionError(f"{where}: unknown expectation {k!r}")


def run_scenario(preset_name: str, sc: dict) -> None:
    preset = load_preset(preset_name)
    where = f"{preset_name}:{sc['id']}"
    if "pile" in sc:
        r = judge_on_pile(preset, _cards(sc["pile"]), _cards(sc["play"]),
                          phase=sc.get("phase", "hand"), turbo=sc.get("turbo", False),
                          decks=sc.get("decks"))
        exp = {k: sc[k] for k in ("verdict", "codes", "effects", "next") if k in sc}
        assert r.to_dict() == judge_on_pile(preset, _cards(sc["pile"]), _cards(sc["play"]),
                                            phase=sc.get("phase", "hand"),
                                            turbo=sc.get("turbo", False),
                                            decks=sc.get("decks")).to_dict()
        _check(None, exp, r, False, where)  # type: ignore[arg-type]
        return
    setup = sc["game"]
    if "new" in setup:
        g = GameState.new(preset, **setup["new"])
    else:
        lay = dict(setup["layout"])
        hands = [_cards(h) for h in lay.pop("hands")]
        kw = {k: [_cards(h) for h in lay.pop(k)] for k in ("up", "down") if k in lay}
        for k in ("stock", "pile", "out"):
            if k in lay:
                kw[k] = _cards(lay.pop(k))
        g = GameState.from_layout(preset, hands, **kw, **lay)
    _check(g, sc.get("expect", {}), None, False, where)
    for i, step in enumerate(sc.get("steps", [])):
        ruling, error = None, False
        do = step["do"]
        if do == "begin":
            g.begin()
        elif do == "swap":
            try:
                g.swap(step["player"], step["hand"], step["up"])
            except ValueError:
                error = True
        elif do in ("play", "pickup"):
            play = (Play.pick_up(step.get("player")) if do == "pickup" else
                    Play(tuple(_cards(step["cards"])), step.get("source", "hand"),
                         step.get("player"), step.get("target"), False,
                         step.get("turbo", False)))
            ruling = g.judge(play)
            if ruling.verdict != "illegal":
                g.push(play)
        else:
            raise AssertionError(f"{where}: unknown step {do!r}")
        _check(g, step.get("expect", {}), ruling, error, f"{where} step {i + 1} ({do})")


ALL = [(name, sc) for name in list_presets() for sc in load_scenarios(name)]


@pytest.mark.parametrize("name,sc", ALL, ids=[f"{n}:{s['id']}" for n, s in ALL])
def test_scenario(name, sc):
    run_scenario(name, sc)


@pytest.mark.parametrize("name", list_presets())
def test_every_cited_rule_is_covered(name):
    p = load_preset(name)
    scs = load_scenarios(name)
    assert scs, f"{name} has no scenarios"
    ids = [s["id"] for s in scs]
    assert len(ids) == len(set(ids)), f"{name}: duplicate scenario ids"
    rules = set(p.cite) | {f"rank:{r}" for r, rr in p.ranks.items() if rr.cite is not None}
    covered = set().union(*(set(s["rules"]) for s in scs))
    assert not covered - rules, f"{name}: scenarios cite rules the preset lacks: {covered - rules}"
    assert not rules - covered, f"{name}: rules without a scenario: {sorted(rules - covered)}"
