"""Real video files of a table (tests/test_pot_watcher.py's scripted Scene, written through
OpenCV) and a detector that reads them back by looking at the pixels: white card shapes at
the places the scene put them. Index-free, so it works across camera drops and restarts."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from test_pot_watcher import CARD, Scene

#: where each play lands: separate spots inside the pot so every card stays visible
SPOTS = [(60, 90), (110, 90), (160, 90), (210, 90), (60, 150), (110, 150), (160, 150), (210, 150)]


@dataclass
class Det:
    card: str
    conf: float
    box: tuple[float, float, float, float]


class PixelDetector:
    """Finds card-sized white shapes and names them by where the scene placed each card."""

    def __init__(self, places: dict[tuple[int, int], str]):
        self.places = places
        self.calls = 0

    def detect(self, image: np.ndarray) -> list[Det]:
        self.calls += 1
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        n, _, stats, _ = cv2.connectedComponentsWithStats((grey > 200).astype(np.uint8))
        out = []
        for x, y, w, h, _area in stats[1:n]:
            if abs(w - CARD[0] - 1) > 4 or abs(h - CARD[1] - 1) > 4:
                continue  # covered by an arm, or not a card
            for (px, py), card in self.places.items():
                if abs(px - x) <= 4 and abs(py - y) <= 4:
                    out.append(Det(card, 0.95, (px, py, px + CARD[0], py + CARD[1])))
        return out


def game_scene(cards: list[str], seed: int = 0) -> tuple[Scene, list[int]]:
    """A scene where `cards` are played one by one at separate spots; returns the scene and
    the frame index at which each play is over (the arm gone, the table still)."""
    s = Scene(seed)
    s.still(10)
    ends = []
    for card, spot in zip(cards, SPOTS):
        s.play([card], spot)
        s.still(15)
        ends.append(len(s.frames))
    return s, ends


def places_of(cards: list[str]) -> dict[tuple[int, int], str]:
    return dict(zip(SPOTS, cards))


def write_video(path: Path, frames: list[np.ndarray], fps: float = 30.0) -> Path:
    """Motion-JPEG AVI through OpenCV (a real, seekable, decodable video file)."""
    path = Path(path)
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert out.isOpened(), f"cannot write {path}"
    for f in frames:
        out.write(f)
    out.release()
    return path


def render_teaching_video(folder: Path, cards: list[str], seed: int = 11) -> dict:
    """Cards of a training-style deck shown one at a time, as `masta learn-deck` and the
    teach page ask: the rendered video's paths (`video`, `indices`: each index's true box)."""
    from datasets.game_video import GameRenderer, VideoSpec, deck_script

    spec = VideoSpec(seed=seed, players=["Ann", "Bob"], faces="drawn-01", width=1280, height=720, card_height=144)
    r = GameRenderer(spec, deck_script(cards, spec.players))
    r.keep_indices = True
    return r.render(Path(folder) / "teach.mp4", frames_truth=False)


class SeesNothing:
    """A detector on an empty table: it finds no card (for what is tested beside the cards)."""

    def detect(self, frame):
        return []


def plain_video(path: Path, frames: int = 30) -> Path:
    """A small real video file of a bare table slowly brightening (MJPG through OpenCV)."""
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 15, (160, 120))
    for i in range(frames):
        w.write(np.full((120, 160, 3), 40 + i, np.uint8))
    w.release()
    return path
