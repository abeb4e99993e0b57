"""`masta rule`, `masta rules`, `masta simulate` through the real command."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from masta.cli import main
from referee.rules import list_presets

ROOT = Path(__file__).resolve().parents[1]


def test_rule_json_has_exactly_the_contract_keys(capsys):
    assert main(["rule", "--rules", "fr", "--pile", "QD 3C", "--play", "KH", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"verdict", "reasons", "effects", "next"}
    assert out["verdict"] == "legal" and out["next"] == ">= K" and out["effects"] == []
    assert set(out["reasons"][0]) == {"code", "text", "rule"}


@pytest.mark.parametrize("argv,verdict,effects,nxt", [
    (["--pile", "6D 9H", "--play", "10S"], "legal", ["burn", "again"], "any"),
    (["--pile", "7H", "--play", "8S"], "illegal", [], "<= 7"),
    (["--pile", "6H", "--play", "8S 8D"], "legal", ["skip:2"], ">= 8"),
    (["--pile", "KH", "--play", "AS"], "legal", ["give_pot"], "counter A 2 10 3 or pick up"),
    (["--pile", "JH JD JS", "--play", "JC", "--turbo"], "legal", ["burn", "again"], "any"),
    (["--pile", "KH", "--play", "4S", "--phase", "down"], "penalty", [], "any"),
    (["--rules", "sydney", "--pile", "KH", "--play", "3C"], "legal", ["next_picks_up"],
     "counter 3 or pick up"),
    (["--rules", "nl-v1", "--pile", "5H", "--play", "7C"], "legal", ["reverse"], ">= 7"),
])
def test_rule_effects(capsys, argv, verdict, effects, nxt):
    assert main(["rule", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["verdict"], out["effects"], out["next"]) == (verdict, effects, nxt)


def test_rule_plain_words_cite_the_rule(capsys):
    assert main(["rule", "--pile", "7H", "--play", "8S"]) == 0
    out = capsys.readouterr().out
    assert "ILLEGAL" in out and "inférieure ou égale à 7" in out


@pytest.mark.parametrize("argv,needle", [
    (["rule", "--pile", "QD 3X", "--play", "KH"], "unknown card '3X'"),
    (["rule", "--rules", "klingon", "--play", "KH"], "unknown preset 'klingon'"),
    (["rule", "--play", ""], "--play needs"),
    (["rules", "klingon"], "unknown preset"),
    (["simulate", "--rules", "sydney", "--players", "6", "--games", "1"], "2 to 4 players"),
    (["simulate", "--bots", "genius", "--games", "1"], "unknown bot"),
])
def test_user_errors_are_one_line_and_exit_2(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_rules_list_and_words(capsys):
    assert main(["rules", "--list"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names == list_presets()
    assert main(["rules", "sydney"]) == 0
    out = capsys.readouterr().out
    assert "the next player must pick up the pot" in out
    assert "Can only be played on cards lower than 7" in out


def test_simulate_prints_statistics(capsys):
    assert main(["simulate", "--rules", "palace", "--players", "3", "--games", "15",
                 "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "games/s" in out and "ended:" in out and "burns" in out and "saver" in out
    assert main(["simulate", "--games", "5", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["games"] == 5 and st["ended"] + st["stuck"] == 5


def test_real_process_exit_code_for_unknown_card():
    p = subprocess.run([sys.executable, "-m", "masta", "rule", "--play", "ZZ"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "unknown card" in p.stderr and not p.stdout
