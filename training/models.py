"""The card models' networks, as torch builds them to train: the runtime reads their ONNX
exports (`vision.classifier.IndexClassifier`, `vision.card_face`) and never needs torch."""
from __future__ import annotations

from vision.classifier import CLASSES

__all__ = ["build_model", "build_face_model"]


def build_model(num_classes: int = len(CLASSES)):
    """A small CNN (~0.25 M parameters, ~45 MFLOPs a crop): cheap enough to train on a CPU."""
    import torch.nn as nn

    def block(cin: int, cout: int) -> list:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.MaxPool2d(2)]

    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        *block(16, 32), *block(32, 64), *block(64, 128),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(128, num_classes))


def build_face_model(num_classes: int):
    """A small CNN on the 48 x 68 upright card (~0.1 M parameters, ~20 MFLOPs a crop)."""
    import torch.nn as nn

    def block(cin: int, cout: int) -> list:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.MaxPool2d(2)]

    return nn.Sequential(
        nn.Conv2d(3, 24, 3, padding=1, bias=False), nn.BatchNorm2d(24), nn.ReLU(inplace=True),
        nn.MaxPool2d(2), *block(24, 32), *block(32, 64), *block(64, 96),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(96, num_classes))
