"""Small real models for tests: nothing trained, nothing downloaded."""
from __future__ import annotations

from pathlib import Path


def untrained_glyph_classifier(folder: Path) -> Path:
    """A real (untrained) classifier with letter glyph classes, exported to ONNX in `folder` as
    training exports one: `card_index_classifier.onnx`."""
    import torch

    from training.models import build_model
    from training.train_letters import export
    from vision.letters import MODEL_CLASSES

    torch.manual_seed(0)
    net = build_model(len(MODEL_CLASSES))
    for m in net.modules():  # distinct norms: an untrained net's identical ones export as shared tensors
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.bias.data.uniform_(-0.1, 0.1)
    torch.save({"model": net.state_dict()}, folder / "cls.pt")
    return export(folder / "cls.pt", folder / "card_index_classifier.onnx")
