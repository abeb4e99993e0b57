"""`masta rule`, `masta rules`, `masta simulate` through the real command."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from contextlib import nullcontext
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


# -- a card the decks cannot hold, and the player's position (issue 56, 12-14) ------------

@pytest.mark.parametrize("preset,pile,cited", [
    ("fr", "5H", "un jeu de 52 cartes"), ("palace", "AS", "senza Jolly"),
    ("sydney", "5H", "52-card deck"), ("nl-v1", "5H", "names no joker")])
def test_a_joker_in_a_preset_without_jokers_is_refused_citing_its_text(capsys, preset, pile,
                                                                        cited):
    assert main(["rule", "--rules", preset, "--pile", pile, "--play", "JK", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "illegal" and out["reasons"][0]["code"] == "not_in_deck"
    assert cited in out["reasons"][0]["rule"]  # the preset's own sentence
    assert out["next"] == f">= {pile[:-1]}"  # the pot is unchanged


def test_a_joker_stays_legal_where_the_preset_deals_jokers(capsys):
    assert main(["rule", "--rules", "nl", "--pile", "5H", "--play", "JK", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "legal"


def test_five_kings_need_two_decks(capsys):
    assert main(["rule", "--play", "KH KS KD KC KH", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "illegal" and out["reasons"][0]["code"] == "too_many_copies"
    assert "1 deck holds only 1 KH" in out["reasons"][0]["text"]
    for argv in (["--decks", "2"], ["--players", "6"]):
        assert main(["rule", "--play", "KH KS KD KC KH", *argv, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["verdict"] == "legal" and out["effects"] == ["burn", "again"]


@pytest.mark.parametrize("argv,verdict,code", [
    # the Dutch "you may not finish on a special card": only when it is the last card
    (["--rules", "nl", "--pile", "5H", "--play", "2C", "--hand", "2C", "--stock", "0"],
     "penalty", "no_finish_on_special"),
    (["--rules", "nl", "--pile", "5H", "--play", "2C", "--hand", "2C 9D"], "legal", "anywhere"),
    (["--rules", "nl", "--pile", "5H", "--play", "2C", "--hand", "2C", "--stock", "4"],
     "legal", "anywhere"),
    (["--rules", "nl", "--pile", "5H", "--play", "2C", "--phase", "up", "--up", "2C",
      "--down", "1"], "legal", "anywhere"),
    (["--rules", "nl", "--pile", "5H", "--play", "9C", "--hand", "9C"], "legal", "fits"),
    (["--rules", "fr", "--pile", "5H", "--play", "2C", "--hand", "2C"], "legal", "anywhere"),
    # a blind card
    (["--rules", "palace", "--pile", "KH", "--play", "4S", "--phase", "down", "--down", "2"],
     "penalty", "blind_miss"),
    (["--rules", "palace", "--pile", "4H", "--play", "KS", "--phase", "down", "--down", "3"],
     "legal", "fits"),
    (["--rules", "palace", "--pile", "4H", "--play", "KS", "--phase", "down", "--hand", "9C"],
     "illegal", "wrong_phase"),
    # where the player must play from
    (["--rules", "nl", "--pile", "9H", "--play", "KC", "--phase", "up", "--hand", "",
      "--up", "KC 5D", "--stock", "3"], "illegal", "wrong_phase"),
    # a forced pick-up, and one a player who can play may not make
    (["--rules", "fr", "--pile", "KH", "--pickup", "--hand", "4C 9D"], "legal", "pickup_forced"),
    (["--rules", "fr", "--pile", "KH", "--pickup", "--hand", "4C AD"], "illegal",
     "pickup_not_allowed"),
    (["--rules", "palace", "--pile", "KH", "--pickup", "--hand", "4C AD"], "legal",
     "pickup_voluntary"),
    # who starts
    (["--rules", "sydney", "--first", "--play", "5H", "--hand", "5H 6C KD", "--others",
      "4C 9D QS"], "illegal", "not_the_starter"),
    (["--rules", "sydney", "--first", "--play", "5H", "--hand", "5H 6C KD", "--others",
      "7C 9D QS"], "legal", "fits"),
    (["--rules", "sydney", "--first", "--play", "6C", "--hand", "5H 6C KD"], "illegal",
     "start_rank"),
    (["--rules", "nl", "--first", "--play", "3D", "--hand", "3D 6C", "--others",
      "3S 9D / 4C 5C"], "illegal", "not_the_starter"),
    (["--rules", "fr", "--first", "--play", "9H", "--hand", "9H 6C KD", "--others", "3C"],
     "legal", "fits"),
])
def test_rulings_that_hang_on_the_players_cards(capsys, argv, verdict, code):
    assert main(["rule", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == verdict and code in [r["code"] for r in out["reasons"]], out


@pytest.mark.parametrize("argv,needle", [
    (["--play", "KH", "--players", "12"], "2 to 11 players, not 12"),
    (["--play", "KH", "--players", "1"], "2 to 11 players, not 1"),
    (["--play", "KH", "--decks", "0"], "at least 1 deck(s)"),
    (["--play", "KH", "--players", "7", "--decks", "1"], "need 63 cards"),
    (["--play", "5H", "--hand", "6C KD"], "lacks 5H"),
    (["--play", "5H", "--phase", "up", "--up", "6C"], "lacks 5H"),
    (["--play", "5H", "--hand", "5H JK"], "JK is not in the game"),
    (["--play", "5H", "--hand", "5H KD", "--pile", "KD"], "1 deck holds only 1 KD"),
    (["--play", "5H", "--stock", "99"], "holds 0 to 34 cards"),
    (["--play", "5H", "--stock", "-1"], "holds 0 to 34 cards"),
    (["--play", "5H", "--down", "4"], "0 to 3 face-down"),
    (["--play", "5H", "--up", "2C 3C 4C 6C"], "deals 3 face up"),
    (["--play", "5H", "--phase", "down", "--down", "0"], "--down must be at least 1"),
    (["--pickup", "--pile", "KH"], "--pickup needs the player's cards"),
    (["--first", "--play", "5H", "--pile", "KH", "--hand", "5H"], "empty pot"),
    (["--others", "5C", "--play", "5H"], "give it with --first"),
    (["--first", "--play", "5H", "--others", "5C / ", "--hand", "5H"], "empty hand"),
    (["--first", "--play", "5H", "--others", "5C", "--players", "3"], "give 2 hand(s)"),
    (["--players", "x", "--play", "5H"], "invalid int value"),
])
def test_position_options_are_checked(capsys, argv, needle):
    with pytest.raises(SystemExit) if needle == "invalid int value" else nullcontext():
        assert main(["rule", *argv]) == 2  # argparse exits 2 itself on a non-number
    err = capsys.readouterr().err
    assert needle in err, err


def test_rule_help_shows_the_examples(capsys):
    with pytest.raises(SystemExit):
        main(["rule", "--help"])
    out = capsys.readouterr().out
    for opt in ("--players", "--decks", "--phase", "--hand", "--stock", "--first", "--pickup"):
        assert opt in out
    assert 'masta rule --play "KH KS KD KC KH"' in out and "--stock 0" in out


def test_every_example_in_the_rule_help_runs_as_it_says(capsys):
    from referee.commands import RULE_EXAMPLES

    assert {v for _, _, v in RULE_EXAMPLES} == {"legal", "illegal", "penalty"}
    for args, _, verdict in RULE_EXAMPLES:
        argv = ["rule", *shlex.split(args)]
        assert main(argv + ([] if "--json" in argv else ["--json"])) == 0, args
        assert json.loads(capsys.readouterr().out)["verdict"] == verdict, args
