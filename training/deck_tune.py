"""Fine-tuning a taught deck's own rank reader (`vision.deck_tune` reads with it).

The float classifier is fine-tuned on the taught corners, labelled by rank, and on what lies
beside them, labelled `none` (`vision.deck_tune.store_crop`, `negatives`), for a number of
batches, and exported as ONNX bytes that `vision.deck_tune.Ranker` reads. Torch is needed
(`pip install -e .[train]`); `vision.deck_memory.learn_deck(..., tune=N, tuner=tune)` calls it.
"""
from __future__ import annotations

import io
import threading
import warnings

import numpy as np

from training.models import build_model
from vision.classifier import CLASS_RANK, NONE_ID, to_tensor_batch
from vision.deck_tune import TUNE_BATCH, TUNE_LR, TUNE_STEPS

__all__ = ["tune"]


def _rank_logp(logits, torch):
    """Log-probabilities of the 13 ranks and `none` from the classifier's 54 logits: each rank
    the sum over its suits (and the joker's share left out)."""
    lp = torch.log_softmax(logits, 1)
    cr = torch.as_tensor(CLASS_RANK)
    cols = [torch.logsumexp(lp[:, cr == r], 1) for r in range(13)] + [lp[:, NONE_ID]]
    out = torch.stack(cols, 1)
    return out - torch.logsumexp(out, 1, keepdim=True)


def tune(crops: np.ndarray, slots: np.ndarray, float_classifier, steps: int = TUNE_STEPS,
         seed: int = 0, stop: threading.Event | None = None) -> bytes:
    """The float classifier fine-tuned for `steps` batches on `crops` (STORE px, BGR) labelled
    by rank slot (0-12, `NONE_SLOT`), as ONNX bytes. Norms stay as exported (`freeze_norms`)."""
    import torch

    from training.train import _augment
    from training.train_mix import freeze_norms, onnx_state_dict

    if not len(crops):
        raise ValueError("no taught crops to tune on")
    torch.manual_seed(seed)
    net = build_model()
    from training.letters import card_head  # a classifier with letter glyph classes: its 54 card classes
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
