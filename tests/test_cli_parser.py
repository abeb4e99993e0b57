"""The `masta` parser can be built any number of times in one process (the tests do)."""
import gc

from masta.cli import build_parser


def test_parser_rebuilt_many_times_keeps_every_data_verb():
    for _ in range(200):
        parser = build_parser()
        args = parser.parse_args(["data", "synth", "--out", "x"])
        assert args.data_verb == "synth"
        del parser, args
        gc.collect()
