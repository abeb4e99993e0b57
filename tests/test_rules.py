"""Presets: loading, inheritance, validation errors, and honest citations."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.pile import judge_on_pile
from referee.rules import (DEFAULT_PRESET, TABLE_RULE_KEYS, PresetError, list_presets,
                           load_preset)

RULES_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "rules"
REQUIRED = ["fr", "nl", "nl-v1", "nl-v2", "nl-v3", "sydney", "palace", "palace-3-transparent",
            "palace-5-under", "palace-king-burns", "palace-four-layers", "palace-straights",
            "palace-strict-pickup"]


def test_list_presets_default_first_and_complete():
    names = list_presets()
    assert names[0] == DEFAULT_PRESET == "fr"
    assert set(REQUIRED) <= set(names)


@pytest.mark.parametrize("name", list_presets())
def test_every_preset_loads_and_cites_its_special_cards(name):
    p = load_preset(name)
    assert p.name == name
    for r in p.special_ranks:
        if r == "JK" and not p.table.jokers_per_deck:
            continue
        assert p.ranks[r].cite is not None, f"{name}: rank {r} has powers but no citation"
    for key in ("higher_or_equal", "start", "pickup", "blind", "finish"):
        assert p.citation(key), f"{name}: no citation for {key}"


def _norm(s: str) -> str:
    for a, b in (("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'), ("\u00ab", '"'),
                 ("\u00bb", '"')):
        s = s.replace(a, b)
    return re.sub(r"\s+", " ", s).strip().lower()


@pytest.mark.skipif(not RULES_DIR.exists(), reason="../shared/rules is not checked out")
@pytest.mark.parametrize("name", list_presets())
def test_citations_are_verbatim_from_the_source(name):
    """Every cited sentence (pieces between '[...]') appears word for word in the text."""
    p = load_preset(name)
    src = _norm((RULES_DIR / p.source).read_text(encoding="utf-8"))
    cites = [(k, c.text) for k, c in p.cite.items()]
    cites += [(f"rank:{r}", rr.cite.text) for r, rr in p.ranks.items() if rr.cite]
    assert cites
    for key, text in cites:
        for piece in text.split("[...]"):
            piece = _norm(piece).strip(" .")
            if piece:
                assert piece in src, f"{name} {key}: not in {p.source}: {piece!r}"


def test_variant_overrides_only_what_it_names():
    base, v1 = load_preset("nl"), load_preset("nl-v1")
    assert v1.extends == "nl"
    assert base.ranks["8"].transparent and v1.ranks["8"].lower == "strict"
    assert v1.ranks["9"].transparent and not base.ranks["9"].special
    assert v1.table.jokers_per_deck == 0 and base.table.jokers_per_deck == 2
    assert v1.table.start_suit_order == base.table.start_suit_order == "CSHD"
    assert v1.cite["start"] == base.cite["start"]


def test_in_words_prints_rules_with_their_citations():
    text = load_preset("fr").in_words()
    assert "Turbo" in text and "copies the card beneath" in text
    assert "Le 8 : Le joueur suivant passe son tour" in text
    assert "[reading:" in text


def _write(tmp_path: Path, body: str, name: str = "mine.toml") -> Path:
    f = tmp_path / name
    f.write_text(body, encoding="utf-8")
    return f


def test_user_preset_by_path_extends_a_shipped_one(tmp_path):
    f = _write(tmp_path, 'name = "home"\ntitle = "our table"\nsource = "x.txt"\n'
                         'extends = "fr"\n[ranks.9]\nskip = 2\ncite = "9 skips two"\n')
    p = load_preset(str(f))
    assert p.name == "home" and p.ranks["9"].skip == 2 and p.ranks["8"].skip == 1
    r = judge_on_pile(p, ["5H"], ["9S"])
    assert r.effects == ["skip:2"] and r.reasons[-1].rule == "9 skips two"


@pytest.mark.parametrize("body,key", [
    ('colour = "red"\n', "colour"),
    ('[table]\nplayerz = [2, 4]\n', "table.playerz"),
    ('[table]\nvoluntary_pickup = "yes"\n', "table.voluntary_pickup"),
    ('[table]\nplayers = [1, 4]\n', "table.players"),
    ('[table]\nstart = "youngest"\n', "table.start"),
    ('[table]\nturbo_ranks = ["4", "Z"]\n', "table.turbo_ranks"),
    ('[table]\nstart_suit_order = "CDH"\n', "table.start_suit_order"),
    ('[table]\ndecks = [[3, 1]]\n', "table.decks"),
    ('[table]\ncards_per_layer = 9\n', "table.decks"),
    ('[ranks.7]\nlower = "less"\n', "ranks.7.lower"),
    ('[ranks.7]\nlowr = "strict"\n', "ranks.7.lowr"),
    ('[ranks.8]\nskip = -1\n', "ranks.8.skip"),
    ('[ranks.8]\nskip = true\n', "ranks.8.skip"),
    ('[ranks.Z]\nburn = true\n', "ranks.Z"),
    ('[ranks.A]\ncounter = ["A", "11"]\n', "ranks.A.counter"),
    ('[ranks.3]\nin_four = "sometimes"\n', "ranks.3.in_four"),
    ('[ranks.3]\nmirror = true\ntransparent = true\n', "ranks.3"),
    ('[cite.tea]\ntext = "x"\n', "cite.tea"),
    ('[cite.start]\nreading = "x"\n', "cite.start.text"),
])
def test_bad_keys_and_values_name_the_key_and_the_file(tmp_path, body, key):
    head = 'name = "bad"\ntitle = "bad"\nsource = "x.txt"\nextends = "fr"\n'
    f = _write(tmp_path, head + body)
    with pytest.raises(PresetError) as err:
        load_preset(str(f))
    msg = str(err.value)
    assert str(f) in msg and key in msg, msg


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(PresetError) as err:
        load_preset("martian")
    assert "martian" in str(err.value) and "nl-v3" in str(err.value)


def test_missing_file_and_broken_toml(tmp_path):
    with pytest.raises(PresetError, match="no such rules file"):
        load_preset(str(tmp_path / "nope.toml"))
    f = _write(tmp_path, "name = \n")
    with pytest.raises(PresetError, match="not valid TOML"):
        load_preset(str(f))


def test_missing_required_keys_and_inheritance_loop(tmp_path):
    f = _write(tmp_path, '[table]\nvoluntary_pickup = true\n')
    with pytest.raises(PresetError, match="name"):
        load_preset(str(f))
    a = _write(tmp_path, 'name="a"\ntitle="a"\nsource="a"\nextends="b.toml"\n', "a.toml")
    _write(tmp_path, 'name="b"\ntitle="b"\nsource="b"\nextends="a.toml"\n', "b.toml")
    with pytest.raises(PresetError, match="loops"):
        load_preset(str(a))


def test_table_rule_keys_cover_every_citation():
    for name in list_presets():
        assert set(load_preset(name).cite) <= set(TABLE_RULE_KEYS)
