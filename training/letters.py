"""A classifier's head widened to the letter glyph classes, or cut back to the card classes:
training's side of `vision.letters` (torch state dicts)."""
from __future__ import annotations

from vision.card_classes import CLASSES
from vision.letters import GLYPH_CLASSES, MODEL_CLASSES


#: the card class a 54-class classifier learnt each glyph as (drawn decks printed R, D, V and
#: B as K, Q, J, J): a widened head starts each glyph class from it
_LEARNT_AS = {"R": "K", "D": "Q", "V": "J", "H": "K", "B": "J", "1": "A"}


def widen_state(state: dict, classes: int) -> dict:
    """A classifier's state dict with its last layer widened to `classes` outputs: each glyph
    class starts as a copy of the card class a 54-class model read that glyph as."""
    import torch

    key = [k for k in state if k.endswith(".weight") and state[k].ndim == 2][-1]
    bkey = key[:-len("weight")] + "bias"
    w, b = state[key], state[bkey]
    if w.shape[0] == classes:
        return state
    if w.shape[0] != len(CLASSES) or classes != len(MODEL_CLASSES):
        raise ValueError(f"cannot widen a {w.shape[0]}-class head to {classes}: "
                         f"from {len(CLASSES)} to {len(MODEL_CLASSES)} only")
    src = [CLASSES.index(_LEARNT_AS[c[:-1]] + c[-1]) for c in GLYPH_CLASSES]
    out = dict(state)
    out[key] = torch.cat([w, w[src].clone()])
    out[bkey] = torch.cat([b, b[src].clone()])
    return out


def card_head(state: dict) -> dict:
    """A classifier's state dict with only the 54 card classes' outputs: a taught deck's own rank
    reader (`vision.deck_tune`) learns the deck's printed glyphs as its ranks from the taught
    cards themselves, whatever the letters, so the glyph classes are left out."""
    key = [k for k in state if k.endswith(".weight") and state[k].ndim == 2][-1]
    bkey = key[:-len("weight")] + "bias"
    if state[key].shape[0] == len(CLASSES):
        return state
    out = dict(state)
    out[key], out[bkey] = state[key][:len(CLASSES)].clone(), state[bkey][:len(CLASSES)].clone()
    return out
