"""`--deck-letters`, shared by watch, serve and detect: light, so the CLI starts fast."""
from __future__ import annotations

import argparse

#: the court letter sets (`vision.letters.LETTER_SETS` says what each glyph means)
LETTER_NAMES = ("en", "fr", "nl", "de")
LETTERS_HELP = "en A K Q J (default), fr R D V with 1 or A, nl H V B, de K D B"


def add_letters_argument(p: argparse.ArgumentParser, default: str | None = "en") -> None:
    p.add_argument("--deck-letters", choices=LETTER_NAMES, default=default, metavar="|".join(LETTER_NAMES),
                   help=f"the letters the deck prints on its courts: {LETTERS_HELP}. The model reads what is "
                        "printed and this turns it into ranks (V is the French jack, the Dutch queen); "
                        "a deck whose letters look different is said so")
