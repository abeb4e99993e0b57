"""A taught deck's own rank reader: the index classifier fine-tuned on the deck's taught corners.

Why: a taught deck weighs the classifier's reads by how close their last-layer features lie to
the taught indices (`DeckMemory.rank_weights`). Those features belong to a network that never
saw the deck, and on the held-out decks they moved little: Knoll's camera crops read right 0.859
-> 0.865. Knoll's jacks are read as no index at all, which no weighing of ranks can undo.
Fine-tuning the network itself on the taught corners (a minute or two on the CPU, at teaching
time) teaches it the deck's own glyphs: the rank of each crop, and `none` for what lies beside
the shown card (pips, court figures, the table). The classifier keeps its say on the suit (the
ranker was shown two suits), and the ranker speaks only for the ranks the camera misread while
the cards were shown (`vision.deck_memory.weak_ranks`).

Asked for, not the default (`masta learn-deck --tune 300`): over the benchmark's games it reads
Knoll's deck better (382 of 423 plays against 364 taught without it) and the photographed deck,
which the classifier already reads well, worse (607 of 650 against 636): the model card, "A
taught deck's own rank reader". Torch is needed to tune (`pip install -e .[train]`, as `make`
installs); reading with a tuned ranker needs ONNX Runtime only.
"""
from __future__ import annotations

import io
import threading
import warnings
from pathlib import Path

import numpy as np

from vision.classifier import CLASSES, CROP_MARGIN, NONE_ID, crop_index, session_options, to_tensor_batch

JOKER = CLASSES.index("JK")
#: the ranker's classes: the 13 ranks (A to K), then `none`
NONE_SLOT = 13
#: crops are kept this big (the training augmentation cuts a jittered 64 px crop from them)
STORE = 80
STORE_MARGIN = CROP_MARGIN * STORE / 64
#: batches of fine-tuning at the end of teaching (about 80 s on a 2-core CPU); counted in
#: batches, not seconds, so that a deck taught twice from one video tunes the same reader
TUNE_STEPS = 300
TUNE_LR = 3e-4
TUNE_BATCH = 128
#: what lies beside a taught card is `none` when its centre is this many index sides from every
#: taught index box (nearer, it may be the card's other corner)
NEG_REACH = 1.5
#: how far around the taught indices, in index sides, the `none` crops are taken from
NEG_AROUND = 6.0
#: random squares taken as `none` around each taught card, besides the detector's boxes there
NEG_RANDOM = 6


def float_twin(path) -> Path:
    """The float classifier an int8 one was made from (`models/float/` beside it), or itself."""
    p = Path(path)
    twin = p.parent / "float" / p.name
    return twin if twin.is_file() else p


def _class_rank() -> np.ndarray:
    from vision.deck_memory import CLASS_RANK

    return CLASS_RANK


def by_rank(probs: np.ndarray) -> np.ndarray:
    """(n, 13): each read's probability of each rank, its four suits summed."""
    cr = _class_rank()
    out = np.zeros((len(probs), NONE_SLOT), probs.dtype)
    np.add.at(out.T, cr[cr >= 0], probs[:, cr >= 0].T)
    return out


def store_crop(image: np.ndarray, box) -> np.ndarray:
    return crop_index(image, box, size=STORE, margin=STORE_MARGIN)


def negatives(image: np.ndarray, boxes, detector, rng: np.random.Generator) -> list[np.ndarray]:
    """`none` crops around one taught card: the detector's boxes and random squares there, at
    least `NEG_REACH` index sides from every one of its index `boxes`."""
    tb = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not len(tb):
        return []
    cx, cy = (tb[:, 0] + tb[:, 2]) / 2, (tb[:, 1] + tb[:, 3]) / 2
    side = float(max(np.max(tb[:, 2] - tb[:, 0]), np.max(tb[:, 3] - tb[:, 1]), 2.0))
    H, W = image.shape[:2]
    reach = NEG_AROUND * side
    roi = (int(max(0, cx.min() - reach)), int(max(0, cy.min() - reach)),
           int(min(W, cx.max() + reach)), int(min(H, cy.max() + reach)))
    far = lambda x, y: float(np.min(np.hypot(cx - x, cy - y))) > NEG_REACH * side  # noqa: E731
    out = []
    found, _ = detector.find_indices(image, roi=roi)
    for b in found:
        if far((b[0] + b[2]) / 2, (b[1] + b[3]) / 2):
            out.append(store_crop(image, b))
    for _ in range(NEG_RANDOM):
        x, y = rng.uniform(roi[0], roi[2]), rng.uniform(roi[1], roi[3])
        if far(x, y):
            out.append(store_crop(image, (x - side / 2, y - side / 2, x + side / 2, y + side / 2)))
    return out


def _rank_logp(logits, torch):
    """Log-probabilities of the 13 ranks and `none` from the classifier's 54 logits: each rank
    the sum over its suits (and the joker's share left out)."""
    lp = torch.log_softmax(logits, 1)
    cr = torch.as_tensor(_class_rank())
    cols = [torch.logsumexp(lp[:, cr == r], 1) for r in range(13)] + [lp[:, NONE_ID]]
    out = torch.stack(cols, 1)
    return out - torch.logsumexp(out, 1, keepdim=True)


def tune(crops: np.ndarray, slots: np.ndarray, float_classifier, steps: int = TUNE_STEPS,
         seed: int = 0, stop: threading.Event | None = None) -> bytes:
    """The float classifier fine-tuned for `steps` batches on `crops` (STORE px, BGR) labelled
    by rank slot (0-12, `NONE_SLOT`), as ONNX bytes. Norms stay as exported (`freeze_norms`)."""
    import torch

    from vision.train import _augment
    from vision.train_mix import freeze_norms, onnx_state_dict
    from vision.classifier import build_model

    if not len(crops):
        raise ValueError("no taught crops to tune on")
    torch.manual_seed(seed)
    net = build_model()
    from vision.letters import card_head  # a classifier with letter glyph classes: its 54 card classes
    net.load_state_dict(card_head(onnx_state_dict(float_classifier)))
    net.train()
    freeze_norms(net)
    opt = torch.optim.AdamW(net.parameters(), lr=TUNE_LR, weight_decay=1e-4)
    rng = np.random.default_rng(seed)
    labels = torch.as_tensor(np.asarray(slots, np.int64))
    with torch.enable_grad():
        for _ in range(int(steps)):
            if stop is not None and stop.is_set():
                break
            k = rng.integers(0, len(crops), TUNE_BATCH)
            xb = torch.from_numpy(to_tensor_batch([_augment(rng, crops[i], 0.0, 0.3) for i in k]))
            loss = torch.nn.functional.nll_loss(_rank_logp(net(xb), torch), labels[k])
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    buf = io.BytesIO()
    with warnings.catch_warnings():  # the TorchScript exporter's deprecation: `masta train` exports so too
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(net, torch.zeros(1, 3, 64, 64), buf, input_names=["crops"], output_names=["logits"],
                          dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    return buf.getvalue()


class Ranker:
    """Reads a tuned ranker (ONNX bytes): each crop's probabilities over the 13 ranks and none."""

    def __init__(self, model: bytes, threads: int = 2):
        import onnxruntime as ort

        self.model = bytes(model)
        self.session = ort.InferenceSession(self.model, session_options(threads),
                                            providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        self._lock = threading.Lock()

    def ranks(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, NONE_SLOT + 1), np.float32)
        with self._lock:
            logits = np.concatenate([self.session.run(None, {self.input: to_tensor_batch(crops[k:k + 64])})[0]
                                     for k in range(0, len(crops), 64)])
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        out = np.concatenate([by_rank(p), p[:, NONE_ID:NONE_ID + 1]], 1)  # the joker left out
        return (out / out.sum(1, keepdims=True)).astype(np.float32)


def combine(probs: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The classifier's probabilities (n, classes) with the rank and `none` the ranker's, each
    rank's suit the classifier's (its odds among the rank's four cards). The joker, never
    taught, keeps the classifier's share of what is an index.

    Why the ranker's `none` and not both experts' (their product): Knoll's jacks, which the
    classifier calls no index, stayed none that way (the dev renders' Knoll games read 189
    plays right against 207), and keeping the classifier's read wherever the two agree on a
    rank read 536 of 567 plays against 540 (the model card, "A taught deck's own rank reader")."""
    cr = _class_rank()
    known = cr >= 0
    out = np.zeros_like(probs)
    ranked = probs[:, known]
    rk = cr[known]
    per_rank = by_rank(probs)
    suit = np.where(per_rank[:, rk] > 0, ranked / np.maximum(per_rank[:, rk], 1e-12), 0.25)
    none = ranks[:, NONE_SLOT:]
    r = ranks[:, :NONE_SLOT] / np.maximum(ranks[:, :NONE_SLOT].sum(1, keepdims=True), 1e-12)
    joker = probs[:, JOKER:JOKER + 1]
    out[:, known] = (1 - none) * (1 - joker) * r[:, rk] * suit
    out[:, JOKER] = (1 - none[:, 0]) * joker[:, 0]
    out[:, NONE_ID] = none[:, 0]
    return out


def top_slot(probs: np.ndarray) -> np.ndarray:
    """Each read's likeliest rank slot (0-12), or `NONE_SLOT` for no index (the joker too)."""
    ranks = by_rank(probs)
    return np.concatenate([ranks, 1 - ranks.sum(1, keepdims=True)], 1).argmax(1)
