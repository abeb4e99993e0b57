"""bench/detector_errors.py: how each miss and each false card is classified."""
import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("detector_errors", ROOT / "bench" / "detector_errors.py")
errors = importlib.util.module_from_spec(spec)
spec.loader.exec_module(errors)


def test_false_cards_are_named_by_the_card_under_them():
    assert errors.kind_of_false("7S", ["7C", "QH"]) == "wrong suit"
    assert errors.kind_of_false("6H", ["9H"]) == "6 and 9 swapped"
    assert errors.kind_of_false("9D", ["6C"]) == "6 and 9 swapped"
    assert errors.kind_of_false("JH", ["5C"]) == "another card"
    assert errors.kind_of_false("10S", []) == "outside every card"
    assert errors.kind_of_false("10S", ["10C"]) == "wrong suit"


def test_a_blank_photo_misses_its_labelled_card(tmp_path, capsys):
    (tmp_path / "valid" / "images").mkdir(parents=True)
    (tmp_path / "valid" / "labels").mkdir()
    (tmp_path / "data.yaml").write_text("names: ['queen of spades']\nval: valid/images\n")
    cv2.imwrite(str(tmp_path / "valid" / "images" / "a.jpg"), np.full((480, 640, 3), 90, np.uint8))
    (tmp_path / "valid" / "labels" / "a.txt").write_text("0 0.5 0.5 0.2 0.3\n")
    assert errors.main(["--data", str(tmp_path), "--list"]) == 0
    out = capsys.readouterr().out
    assert "a.jpg: missed QS (not found)" in out
    assert "1 labelled cards, 0 found; missed 1: not found 1" in out
    assert errors.main(["--data", str(tmp_path / "nowhere")]) == 2


def test_game_video_cases_hold_each_play_on_the_pot_and_are_tallied(tmp_path, capsys):
    from datasets.game_video import GameRenderer, VideoSpec, read_truth

    r = GameRenderer(VideoSpec(seed=5, players=["Ann", "Bob"], faces="drawn-01", max_actions=6))
    paths = r.render(tmp_path / "g.mp4")
    plays = [e for e in read_truth(paths["truth"]).events if e.get("type") == "cards_played"]
    cases = list(errors.video_cases(tmp_path, count=1))
    assert plays and len(cases) == len(plays)
    for (name, img, truth, roi), play in zip(cases, plays):
        assert img.shape == (480, 640, 3)
        on_pot = [c for c, _ in truth]
        assert all(c in on_pot for c in play["cards"]), (name, play["cards"], on_pot)
        assert 0 <= roi[0] < roi[2] <= 640 and 0 <= roi[1] < roi[3] <= 480
    assert errors.main(["--videos", str(tmp_path), "--count", "1"]) == 0
    out = capsys.readouterr().out
    labelled = sum(len(t) for _, _, t, _ in cases)
    assert f"{labelled} labelled cards, " in out
    assert errors.main(["--videos", str(tmp_path / "none")]) == 2


def test_shrunk_copies_of_the_real_photos_keep_their_labels(tmp_path):
    spec2 = importlib.util.spec_from_file_location("bench_detector", ROOT / "bench" / "detector.py")
    bench = importlib.util.module_from_spec(spec2)
    spec2.loader.exec_module(bench)
    src = tmp_path / "src"
    (src / "valid" / "images").mkdir(parents=True)
    (src / "valid" / "labels").mkdir()
    (src / "data.yaml").write_text("names: ['queen of spades']\nval: valid/images\n")
    cv2.imwrite(str(src / "valid" / "images" / "a.jpg"), np.full((400, 600, 3), 90, np.uint8))
    (src / "valid" / "labels" / "a.txt").write_text("0 0.5 0.5 0.2 0.3\n")
    yaml = bench.shrunk_copy(src, "valid", 0.35, tmp_path / "small")
    assert yaml.read_text() == (src / "data.yaml").read_text()
    assert cv2.imread(str(tmp_path / "small" / "valid" / "images" / "a.jpg")).shape == (140, 210, 3)
    assert (tmp_path / "small" / "valid" / "labels" / "a.txt").read_text() == "0 0.5 0.5 0.2 0.3\n"


def _load_bench(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_pipeline_errors_are_tallied_by_kind_from_the_scorers_own_lines():
    """bench/pipeline.py names each of score_events' error lines (so the model card's error mix
    is one command): a double read as one is short, a misread suit is a suit, and so on."""
    from datasets.game_video import score_events
    pipeline = _load_bench("pipeline")
    truth = [{"type": "cards_played", "cards": c, "t_rest": float(t)} for t, c in enumerate(
        [["7H", "7S"], ["5C"], ["QD"], ["9S"], ["2H"], ["KD"]])] + [{"type": "pot_cleared", "t_rest": 9.0}]
    got = [{"type": "cards_played", "cards": c, "t": t + 0.5} for t, c in enumerate(
        [["7H"], ["5C", "5D"], ["QH"], ["6S"], ["3H", "4H"]])] + [{"type": "mismatch", "cards": ["4C"], "t": 20.0}]
    kinds = [pipeline.error_kind(e) for e in score_events(truth, got).errors]
    assert kinds == ["short", "long", "suit wrong", "rank wrong", "other", "missed play", "missed clear",
                     "extra mismatch"]
    # a decision the page asked about is the same kind of error, marked "(flagged)"
    flagged = [dict(g, low_conf=True) for g in got]
    lines = score_events(truth, flagged).errors
    assert [pipeline.error_kind(e) for e in lines] == kinds
    assert [("(flagged)" in e) for e in lines] == [True] * 5 + [False] * 2 + [True]


def test_the_priors_choices_are_tallied_against_the_truth_directly():
    """bench/pipeline.py counts each card a prior chose over its reads' top vote: right when the
    play at that moment holds it, wrong when it holds the top vote instead."""
    from vision.pot_watcher import WatchEvent
    pipeline = _load_bench("pipeline")
    truth = [{"type": "cards_played", "cards": ["QC"], "t_rest": 1.0},
             {"type": "cards_played", "cards": ["6S"], "t_rest": 10.0},
             {"type": "cards_played", "cards": ["8H"], "t_rest": 20.0}]
    decisions = [WatchEvent("cards_played", 1.5, 1.2, 45, ["QC"], [0.6], True, alternatives=[{"6C": 0.7, "QC": 0.6}]),
                 WatchEvent("cards_played", 10.5, 10.2, 300, ["KS"], [0.5], True, alternatives=[{"6S": 0.6, "KS": 0.5}]),
                 WatchEvent("cards_played", 20.5, 20.2, 600, ["8H"], [0.9], False, alternatives=[{"8H": 0.9}]),
                 WatchEvent("pot_cleared", 30.0, 29.0, 900)]
    assert pipeline.prior_flips(truth, decisions) == {"right": 1, "wrong": 1, "neither": 0}


def test_the_untold_errors_and_the_games_with_every_error_asked_about_are_counted():
    """bench/pipeline.py's "errors no one is told of" and the games a person could bring to no
    error by answering the checks: a game whose only error was flagged counts, one with a wrong
    play read surely, or a play missed with no mismatch shown, does not."""
    from datasets.game_video import score_events
    pipeline = _load_bench("pipeline")
    truth = [{"type": "cards_played", "cards": ["7H", "7S"], "t_rest": 1.0},
             {"type": "cards_played", "cards": ["9C"], "t_rest": 10.0}, {"type": "pot_cleared", "t_rest": 20.0}]

    def row(got):
        return {**pipeline.score_fields(score_events(truth, got)), "frames": 900, "fps": 90.0,
                "every_frame_fps": 10.0, "detector_share": 0.1, "detect_ms": 90.0, "prior_flips": {}}

    clear = {"type": "pot_cleared", "t": 20.5}
    asked = row([{"type": "cards_played", "cards": ["7H"], "t": 1.5, "low_conf": True},
                 {"type": "cards_played", "cards": ["9C"], "t": 10.5}, clear])
    sure = row([{"type": "cards_played", "cards": ["7H"], "t": 1.5},
                {"type": "cards_played", "cards": ["9C"], "t": 10.5}, clear])
    missed = row([{"type": "cards_played", "cards": ["7H", "7S"], "t": 1.5}, clear])
    noted = row([{"type": "cards_played", "cards": ["7H", "7S"], "t": 1.5},
                 {"type": "mismatch", "cards": [], "t": 10.5, "low_conf": True}, clear])
    assert [pipeline.silent_errors(r) for r in (asked, sure, missed, noted)] == [0, 1, 1, 0]
    s = pipeline.summarise([asked, sure, missed, noted], "model")
    assert s["silent_errors"] == 2 and s["told_games"] == 2 and s["perfect_games"] == 0


def test_the_errors_one_tap_fixes_and_the_games_right_after_them_are_counted():
    """A person fixes with one tap what the page offers: a double read as one whose "one card
    more" names the other card, a missed play whose mismatch half saw its cards ("Played
    here"), a card read half under the play that "one card less" takes out, an extra play it
    asks about ("Nothing was played here"). An extra mismatch changes nothing; an extra play
    not asked about, a misread with no fix offered, a missed clear need more."""
    from datasets.game_video import one_tap_fixes, picker_taps, score_events
    pipeline = _load_bench("pipeline")
    truth = [{"type": "cards_played", "cards": ["7H", "7S"], "t_rest": 1.0},
             {"type": "cards_played", "cards": ["9C"], "t_rest": 10.0},
             {"type": "cards_played", "cards": ["JD"], "t_rest": 20.0}, {"type": "pot_cleared", "t_rest": 30.0}]
    clear = {"type": "pot_cleared", "t": 30.5}
    fixed = [{"type": "cards_played", "cards": ["7H"], "t": 1.5, "low_conf": True, "more": ["7S"]},
             {"type": "mismatch", "cards": ["9C", "QD"], "t": 10.5, "low_conf": True},
             {"type": "cards_played", "cards": ["JD", "JH"], "t": 20.5, "low_conf": True, "less": ["JH"]},
             {"type": "mismatch", "cards": ["3S"], "t": 25.0, "low_conf": True}, clear]
    # "it was", then "+ 7C", "+ 7D", then the two and one more (a triple read as one)
    assert one_tap_fixes(fixed[0]) == [["7H", "7S"], ["7H", "7C"], ["7H", "7D"], ["7H", "7S", "7C"], ["7H", "7S", "7D"]]
    assert one_tap_fixes(dict(fixed[0], more=["9S"]))[-1] == ["7H", "7S"]  # another rank half seen: no third
    assert one_tap_fixes(fixed[1]) == [["9C"], ["9C", "9D"], ["9C", "9H"], ["9C", "9S"],
                                       ["QD"], ["QD", "QC"], ["QD", "QH"], ["QD", "QS"]]
    # a card half seen, also in the place of the play's least sure card
    twos = {"type": "cards_played", "cards": ["2H", "2D", "2C"], "low_conf": True, "more": ["2S"],
            "reads": [{"2H": 0.83}, {"2D": 0.24, "7D": 0.03}, {"2C": 0.99}]}
    assert one_tap_fixes(twos)[:2] == [["2H", "2D", "2C", "2S"], ["2H", "2S", "2C"]]
    assert ["2H", "2S", "2C"] not in one_tap_fixes(dict(twos, reads=[]))  # no reads: no least sure card
    # a rank seen twice: both, each alone, both and one more
    assert one_tap_fixes({"type": "mismatch", "cards": ["7C", "7S"], "low_conf": True}) == \
        [["7C", "7S"], ["7C"], ["7S"], ["7C", "7S", "7D"], ["7C", "7S", "7H"]]
    assert one_tap_fixes(dict(fixed[1], gone=True)) == []  # cards that left the pot are no play
    # ... what the camera half read covering them is (a JH on the JC)
    assert one_tap_fixes(dict(fixed[1], gone=True, guesses=["JH"])) == \
        [["JH"], ["JH", "JC"], ["JH", "JD"], ["JH", "JS"]]
    # "Not JH" ("It was" without it), the JH in another suit, each alone, one more
    assert one_tap_fixes(fixed[2]) == [["JD"], ["JD", "JC"], ["JD", "JS"], ["JH"], ["JD"],
                                       ["JD", "JH", "JC"], ["JD", "JH", "JS"]]
    # ... not a suit its read's "or" offers already (a JC JS JD read "JC JD JH")
    jacks = {"type": "cards_played", "cards": ["JC", "JD", "JH"], "low_conf": True, "less": ["JH"],
             "reads": [{"JC": 0.43}, {"JD": 0.87}, {"JH": 0.74, "JS": 0.2}]}
    assert one_tap_fixes(jacks).count(["JC", "JD", "JS"]) == 1
    assert ["JC", "JD", "JS"] not in one_tap_fixes(dict(jacks, less=[], reads=jacks["reads"][:2]))
    assert one_tap_fixes(dict(fixed[0], low_conf=False)) == []
    # several named: all of them at once, or each alone ("+ 7S" is the fix of a 7H 7S read "7H")
    assert one_tap_fixes(dict(fixed[0], more=["7D", "7S"])) == \
        [["7H", "7D", "7S"], ["7H", "7C"], ["7H", "7D"], ["7H", "7S"], ["7H", "7D", "7S", "7C"]]
    # a read's likelier others, put in its place (at least 5%, two at most, none already played)
    reads = [{"7H": 0.5, "1H": 0.0, "7D": 0.3, "7S": 0.2, "4H": 0.1, "2H": 0.01}]
    assert one_tap_fixes({"type": "cards_played", "cards": ["7H"], "low_conf": True, "reads": reads})[:2] == \
        [["7D"], ["7S"]]
    assert one_tap_fixes({"type": "cards_played", "cards": ["7H", "7S"], "low_conf": True, "reads": reads})[:3] == \
        [["7D", "7S"], ["7S"], ["7H"]]
    four = {"type": "cards_played", "cards": ["7H", "7S", "7C", "7D"], "low_conf": True}
    assert ["7H", "7S", "7C", "7D", "7H"] not in one_tap_fixes(four) and len(one_tap_fixes(four)) == 4
    s = score_events(truth, fixed)
    assert (s.one_tap, s.unfixed, s.one_tap_perfect, s.perfect) == (3, 0, True, False)
    assert s.taps == 3  # a tap each; the extra mismatch needs none
    assert s.clear_taps == 1  # but clearing its check takes one ("Nothing was played here")
    right = score_events(truth[:1], [dict(fixed[0], cards=["7H", "7S"])])  # right, but asked about
    assert (right.right_plays, right.right_flagged, right.clear_taps, right.taps) == (1, 1, 1, 0)
    assert sum(e.endswith("(one tap)") for e in s.errors) == 3
    assert [pipeline.error_kind(e) for e in s.errors] == ["short", "missed play", "long", "extra mismatch", "extra mismatch"]
    # the wrong "one card more", a mismatch that saw another rank, an extra play, a clear missed
    worse = [dict(fixed[0], cards=["7C"], more=["7D"]), dict(fixed[1], cards=["QD"]), fixed[2],
             {"type": "cards_played", "cards": ["4C"], "t": 26.0}]
    s = score_events(truth, worse)
    assert (s.one_tap, s.unfixed, s.one_tap_perfect) == (1, 4, False)
    # an extra play the page asks about: "Nothing was played here", one tap
    asked = score_events(truth[:1], [fixed[0] | {"cards": ["7H", "7S"]}, dict(worse[3], low_conf=True)])
    assert (asked.one_tap, asked.unfixed, asked.taps, asked.one_tap_perfect) == (1, 0, 1, True)
    assert asked.errors == ["t=26.00: extra cards_played 4C (flagged) (one tap)"]
    # by taps in place: 7C -> 7H 7S by the picker (open, take 7C out, 7, hearts, spades, send:
    # 6), 9C named by the picker (open, 9, clubs, send: 4), "Not JH" (1), the extra 4C voided
    # (open, Void, OK: 3); the clear missed added where it happened (open, A play the camera
    # missed, The pot went here: 3)
    assert s.taps == 6 + 4 + 1 + 3 + 3
    # the 9C missed with nothing shown: added after the play before it (Correct #n, A play the
    # camera missed, 9, clubs, Add: 5)
    s = score_events(truth, [worse[0], fixed[2], clear])
    assert (s.taps, s.one_tap, s.unfixed) == (6 + 5 + 1, 1, 2)
    assert [picker_taps(a, b) for a, b in ((["6C"], ["QC"]), ([], ["9S", "9H"]), ([], ["9S", "QH"]),
                                            (["JK"], ["JK", "JK"]), (["7C", "7C"], ["7C"]))] == [3, 3, 4, 1, 1]
    rows = [{**pipeline.score_fields(score_events(truth, got)), "frames": 900, "fps": 90.0, "every_frame_fps": 10.0,
             "detector_share": 0.1, "detect_ms": 90.0, "prior_flips": {}} for got in (fixed, worse)]
    summary = pipeline.summarise(rows, "model")
    assert (summary["one_tap"], summary["unfixed"], summary["one_tap_games"]) == (4, 4, 1)
    assert summary["taps"] == 3 + 17


def test_a_sure_misread_the_corrector_offers_costs_two_taps_else_the_picker():
    """"Correct #n" opens on the likeliest fixes of any play (`editor_fixes`, the page's
    `quickFixes`): a sure 3H that was a QH, a 6S 6C that was QS QC, a card more or less, cost
    that tap and the one that opened it; what it does not offer goes by the picker."""
    from datasets.game_video import editor_fixes, fix_taps
    sure = {"type": "cards_played", "cards": ["3H"], "reads": [{"3H": 0.9, "3D": 0.06, "8D": 0.01}]}
    assert [fix_taps(sure, c) for c in (["QH"], ["3D"], ["3H", "3S"])] == [2, 2, 2]
    assert fix_taps(sure, ["8D"]) == 5  # under 5%: open, take 3H out, 8, diamonds, send
    assert fix_taps(sure, ["JD"]) == 5
    pair = {"type": "cards_played", "cards": ["6S", "6C"]}
    assert fix_taps(pair, ["QS", "QC"]) == 2 and fix_taps(pair, ["6C"]) == 2
    assert fix_taps(pair, ["QS", "QH"]) == 1 + (2 + 1 + 2) + 1
    assert len(editor_fixes(pair)) == 2 + 2 + 12  # one more (2 suits), one less (2), 12 ranks
    assert editor_fixes({"type": "cards_played", "cards": ["JK"]}) == []  # a joker has no rank to change
    assert editor_fixes({"type": "cards_played", "cards": ["3H", "QS"]}) == [["QS"], ["3H"]]
    assert editor_fixes({"type": "mismatch", "cards": ["3H"], "low_conf": True}) == []
    # asked about, the page's own one tap still costs one
    assert fix_taps(dict(sure, low_conf=True), ["3D"]) == 1
    # a likely other of another rank, with one more of it: a fanned J♥ J♣ read "7♥"
    seven = {"type": "cards_played", "cards": ["7H"], "reads": [{"7H": 0.39, "JH": 0.24, "7D": 0.08}]}
    assert fix_taps(seven, ["JH", "JC"]) == 2 and fix_taps(seven, ["7D", "7C"]) == 1 + (1 + 1 + 2) + 1


def test_reads_that_agree_on_another_rank_offer_it_with_one_tap():
    """A play is one rank: fanned jacks read "Q♣ 7♥", each with a jack among its likely others,
    are offered as J♣ J♥ and with one more jack; not from one read alone, nor a rank every card
    has already, nor cards that left the pot."""
    from datasets.game_video import agreed_rank, fix_taps, one_tap_fixes
    reads = [{"QC": 0.47, "KC": 0.26, "JC": 0.25}, {"7H": 0.47, "JH": 0.17, "KH": 0.07}]
    assert agreed_rank(["QC", "7H"], reads) == [["JC", "JH"], ["JC", "JH", "JD"], ["JC", "JH", "JS"]]
    assert agreed_rank(["QC", "7H"], [reads[0], {"7H": 0.47, "KH": 0.3}]) == \
        [["KC", "KH"], ["KC", "KH", "KD"], ["KC", "KH", "KS"]]  # the kings, now likelier
    assert agreed_rank(["QC", "7H"], [reads[0], {"7H": 0.9}]) == []  # one read alone
    assert agreed_rank(["JC", "JH"], reads) == []  # one rank already
    assert agreed_rank(["QC", "7H"], [{"QC": 0.9, "JC": 0.04}, {"7H": 0.9, "JH": 0.04}]) == []  # under 5%
    mismatch = {"type": "mismatch", "cards": ["QC", "7H"], "low_conf": True, "reads": reads}
    assert fix_taps(mismatch, ["JC", "JH", "JD"]) == 1
    assert ["JC", "JH"] not in one_tap_fixes(dict(mismatch, gone=True, guesses=["QC", "7H"]))


def test_pipeline_watcher_settings_are_overridden_by_name_with_their_own_types():
    """`bench/pipeline.py --watcher low_conf=0.7`: dev renders choose the watcher's settings."""
    from vision.pot_watcher import WatcherConfig

    pipeline = _load_bench("pipeline")
    cfg = pipeline.watcher_config(["low_conf=0.7", "still_frames=5"])
    assert cfg.low_conf == 0.7 and isinstance(cfg.still_frames, int) and cfg.still_frames == 5
    assert pipeline.watcher_config(None) == WatcherConfig()
    for bad, says in (("nope=1", "WatcherConfig field"), ("low_conf", "name=value"),
                      ("low_conf=high", "takes a float")):
        with pytest.raises(SystemExit, match=says):
            pipeline.watcher_config([bad])


def test_the_answering_person_corrects_names_and_voids_the_checks_from_the_truth():
    """`bench/pipeline.py --answer`: a play asked about is corrected to what was played, one
    read right is left as it is, a mismatch is named as its play, a play asked about where
    nothing was played is voided; a play not asked about is not looked at."""
    from referee.table import TableReferee
    from vision.pot_watcher import WatchEvent

    pipeline = _load_bench("pipeline")
    truth = [{"type": "cards_played", "cards": ["7H", "7S"], "t_rest": 1.0},
             {"type": "cards_played", "cards": ["9C"], "t_rest": 5.0},
             {"type": "cards_played", "cards": ["JD"], "t_rest": 9.0},
             {"type": "cards_played", "cards": ["QS"], "t_rest": 13.0}]
    ref = TableReferee()
    ref.apply({"type": "setup", "players": ["Ann", "Bob"], "dealer": "Bob"})
    answer = pipeline.Answerer(truth, ref, detector=None, learn=False)

    class Decided:  # what the pipeline hands over: the watcher's decision and its rulings
        def __init__(self, wev):
            self.watch = wev
            self.rulings = ref.apply(wev.to_log_event())

    for wev in (WatchEvent("cards_played", 1.3, 1.1, 30, ["7H"], [0.6], True),      # a card short
                WatchEvent("mismatch", 5.4, 5.2, 150, ["9C"], [], True, "unread"),  # named
                WatchEvent("cards_played", 9.3, 9.1, 270, ["JD"], [0.7], True),     # right as read
                WatchEvent("cards_played", 11.0, 10.8, 330, ["5S"], [0.5], True),   # nothing there
                WatchEvent("cards_played", 13.3, 13.1, 390, ["QH"], [0.95], False)):  # not asked
        answer(Decided(wev))
    fixes = [(e["type"], e["event"], e.get("cards")) for e in ref.log if e["type"] in ("correct", "void")]
    assert fixes == [("correct", 2, ["7H", "7S"]), ("correct", 4, ["9C"]), ("void", 7, None)]
    assert answer.answered == 3
    assert ref.view()["pot"] == ["7H", "7S", "9C", "JD", "QH"]


def test_deck_settings_are_parsed_and_bad_ones_refused():
    """bench/pipeline.py --deck-settings K,T,MIN_CLOSE: read as numbers; a missing or
    impossible part is refused with what to give."""
    import argparse

    pipeline = _load_bench("pipeline")
    assert pipeline.deck_settings("10,0.04,0.7") == (10, 0.04, 0.7)
    for bad in ("5,0.02", "x,0.02,0.9", "0,0.02,0.9", "5,0,0.9"):
        with pytest.raises(argparse.ArgumentTypeError, match="K"):
            pipeline.deck_settings(bad)


def test_a_reading_goes_to_the_play_it_shares_a_card_with_not_an_earlier_one():
    """Knoll's JD JH JS land unread (a mismatch shown), then QC QS QH
    are read as "QS". Earliest first, the QS went to the jacks ("played JD JH JS, read QS")
    and the queens were missed with nothing shown: an error untold that the page did ask
    about. A decision sharing no card with a play, but one with the next play it fits, is
    the next play's reading; with none in common it stays the earlier play's misread."""
    from datasets.game_video import score_events

    truth = [{"type": "cards_played", "cards": ["JD", "JH", "JS"], "t_rest": 128.2},
             {"type": "cards_played", "cards": ["QC", "QS", "QH"], "t_rest": 130.0}]
    got = [{"type": "mismatch", "cards": ["JC", "KH", "QD"], "t": 128.4, "low_conf": True},
           {"type": "cards_played", "cards": ["QS"], "t": 130.4, "low_conf": True}]
    s = score_events(truth, got)
    assert s.errors == ["t=128.20: cards_played JD JH JS missed (a mismatch shown)",
                        "t=130.00: played QC QS QH, read QS (flagged)",
                        "t=128.40: extra mismatch JC KH QD (flagged)"]  # a mismatch matches no play
    assert s.missed_noted == 1 and s.wrong_flagged == 1 and s.extra == 1
    # read as a 6 (no card of the queens): still the jacks' misread, the queens missed
    six = [got[0], dict(got[1], cards=["6S"])]
    assert score_events(truth, six).errors[:2] == ["t=128.20: played JD JH JS, read 6S (flagged)",
                                                   "t=130.00: cards_played QC QS QH missed"]


def test_a_reading_goes_to_the_play_whose_card_the_page_offers_in_its_place():
    """Knoll's QC QS land as a mismatch (8C QS), then a QH is read
    "6H", asked about with QH offered in its place. The 6H named no card of either play, so
    it went to the queens before it ("played QC QS, read 6H") and the QH was missed with
    nothing shown. The page offers the QH: it is the QH's reading, asked about. A read that
    is not asked about offers nothing, and stays the earlier play's misread."""
    from datasets.game_video import score_events

    truth = [{"type": "cards_played", "cards": ["QC", "QS"], "t_rest": 39.9},
             {"type": "cards_played", "cards": ["QH"], "t_rest": 41.73}]
    six = {"type": "cards_played", "cards": ["6H"], "t": 42.1, "low_conf": True,
           "reads": [{"6H": 0.395, "QH": 0.171, "8H": 0.117, "9H": 0.1}]}
    clash = {"type": "mismatch", "cards": ["8C", "QS"], "t": 40.33, "low_conf": True}
    s = score_events(truth, [clash, six])
    assert s.errors == ["t=39.90: cards_played QC QS missed (a mismatch shown) (one tap)",  # "QS + QC"
                        "t=41.73: played QH, read 6H (flagged) (one tap)",
                        "t=40.33: extra mismatch 8C QS (flagged)"]  # a mismatch matches no play
    assert s.missed_noted == 1 and s.wrong_flagged == 1 and s.one_tap == 2
    sure = dict(six, low_conf=False)
    assert score_events(truth, [clash, sure]).errors[:2] == ["t=39.90: played QC QS, read 6H",
                                                             "t=41.73: cards_played QH missed"]
