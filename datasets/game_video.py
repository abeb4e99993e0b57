"""Overhead videos of whole simulated games, with the ground truth beside them.

Why: the camera-to-rulings pipeline is judged on whole games, and real recorded games with
hand-made logs are scarce. A rendered game knows exactly which cards landed when, where
every card is on every frame, and when each card came to rest, so the benchmark can score
play events, whole games and latency, and an *oracle* detector (the renderer's own boxes)
can test the watcher before any model exists.

What a video shows (30 fps, 640x480 by default): a procedural table (wood, felt, cloth,
linen), each seat's face-down and face-up cards near the edges, the pot forming card by card
in the middle (doubles fanned), hands reaching in and out (and sometimes passing over without
playing), burns swept to a burn pile, pick-ups carried off to a seat, camera shake and light
changes, a little blur and sensor noise.

Files written for `out/NAME.mp4`:
* `NAME.mp4`: the video (MPEG-4 part 2, what OpenCV writes everywhere);
* `NAME.truth.jsonl`: line 1 `{"type": "video", ...}` (fps, size, seed, faces, table, card
  size, script engine), then an event log in the contract of docs/architecture.md with `t`
  in *video seconds*: `setup`, `cards_played` (+ `player`, `t_rest`: when the cards came to
  rest), `pot_cleared` (+ `reason`: burn | pickup, `t_rest`: when the pot was gone),
  `picked_up` (operator);
* `NAME.frames.jsonl.gz` (unless `frames=False`): one line per frame
  `{"i": index, "c": [[card, x0, y0, x1, y1, visible, where], ...]}`: every face-up card,
  its box in frame pixels, the visible share of its best corner index (0..1) and where it is
  (`pot`, `seat`, `hand`).
"""
from __future__ import annotations

import gzip
import json
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.cards import RANK_VALUE, STANDARD_DECK, rank_of, suit_of

FPS = 30.0
#: where, across each corner index box, its visibility is sampled (3 x 3 points)
INDEX_SAMPLES = (0.2, 0.5, 0.8)
TABLES = ("wood", "felt", "cloth", "linen")


# =========================================================================== the game script
@dataclass
class Action:
    """One visible thing. `kind`: `play` | `burn` | `pickup` | `fake`.
    `source` (plays): `hand`, `faceup` or `facedown` (blind)."""
    kind: str
    player: int
    cards: list[str] = field(default_factory=list)
    source: str = "hand"
    operator: list[dict] = field(default_factory=list)  # operator events that follow it


@dataclass
class GameScript:
    """What happens on the table during one game, as a camera above it can see it."""
    players: list[str]
    dealer: int
    faceup: list[list[str]]      # each seat's face-up cards once play starts
    facedown: list[int]          # how many face-down cards each seat has
    actions: list[Action]
    preset: str = "fr"
    engine: str = "simple"       # which generator wrote it
    operator: list[dict] = field(default_factory=list)  # operator events before the first play
    setup: dict | None = None    # the setup event (engine games: with the starter if any)
    order: list[str] = field(default_factory=list)      # finishing order (engine games)


def _strength_rank(r: str) -> int:
    return {"2": 20, "10": 21}.get(r, RANK_VALUE[r])


def simple_game(seed: int, players: list[str], fake_rate: float = 0.06, max_actions: int = 400) -> GameScript:
    """A whole game with the core rules and greedy bots: play the lowest rank that fits
    (equal or higher; 2 and 10 on anything), 10 and four of a kind burn, pick up when stuck,
    hand, then face-up, then face-down blind. Used while the engine's bots are not there."""
    rng = random.Random(seed)
    n = len(players)
    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    facedown = [[deck.pop() for _ in range(3)] for _ in range(n)]
    faceup = [[deck.pop() for _ in range(3)] for _ in range(n)]
    hands = [[deck.pop() for _ in range(3)] for _ in range(n)]
    stock = deck
    for i in range(n):  # the exchange: strongest cards face up
        both = sorted(hands[i] + faceup[i], key=lambda c: _strength_rank(rank_of(c)))
        hands[i], faceup[i] = both[:3], both[3:]
    initial_faceup = [list(f) for f in faceup]
    dealer = rng.randrange(n)
    pot: list[str] = []
    actions: list[Action] = []
    out: list[int] = []
    turn = (dealer + 1) % n

    def fits(card: str) -> bool:
        r = rank_of(card)
        return r in ("2", "10") or not pot or RANK_VALUE[r] >= RANK_VALUE[rank_of(pot[-1])]

    def four_in_a_row() -> bool:
        return len(pot) >= 4 and len({rank_of(c) for c in pot[-4:]}) == 1

    def pick_up(player: int) -> None:
        actions.append(Action("pickup", player))
        hands[player].extend(pot)
        pot.clear()

    while len(out) < n - 1 and len(actions) < max_actions:
        if turn in out:
            turn = (turn + 1) % n
            continue
        if rng.random() < fake_rate:
            actions.append(Action("fake", turn))
        zone, src = ((hands[turn], "hand") if hands[turn] else
                     (faceup[turn], "faceup") if faceup[turn] else (facedown[turn], "facedown"))
        if src == "facedown":
            cards = [zone.pop(rng.randrange(len(zone)))]
            ok = fits(cards[0])
        else:
            options = sorted({rank_of(c) for c in zone if fits(c)}, key=_strength_rank)
            if not options:
                pick_up(turn)
                turn = (turn + 1) % n
                continue
            cards = [c for c in zone if rank_of(c) == options[0]]
            if len(cards) > 1 and rng.random() < 0.2:
                cards = cards[:-1]
            for c in cards:
                zone.remove(c)
            ok = True
        actions.append(Action("play", turn, cards, src))
        pot.extend(cards)
        if not ok:
            pick_up(turn)
            turn = (turn + 1) % n
            continue
        while len(hands[turn]) < 3 and stock:
            hands[turn].append(stock.pop())
        burned = rank_of(cards[0]) == "10" or four_in_a_row()
        if burned:
            actions.append(Action("burn", turn))
            pot.clear()
        if not hands[turn] and not faceup[turn] and not facedown[turn]:
            out.append(turn)
            turn = (turn + 1) % n
            continue
        if not burned:
            turn = (turn + 1) % n
    return GameScript(list(players), dealer, initial_faceup, [3] * n, actions, "simple", "simple")


def script_from_engine(seed: int, players: list[str], preset: str = "fr") -> GameScript | None:
    """A game played by the rules engine's bots (`referee.camera_stream`), with the truth
    event log it implies; None when the engine is not importable (then `simple_game`)."""
    try:
        from referee import camera_stream  # noqa: F401
    except ImportError:
        return None
    return _engine_game(seed, players, preset)


_SOURCE = {"hand": "hand", "up": "faceup", "down": "facedown"}


def _engine_game(seed: int, players: list[str], preset: str) -> GameScript:
    """Drive the engine exactly as `referee.camera_stream.stream_game` does, also noting
    what a camera sees (who played, from where, burn or pick-up) for the renderer."""
    from referee.bots import Bot, make_bot
    from referee.camera_stream import _Recorder
    from referee.engine import GameState
    from referee.rules import load_preset
    from referee.simulate import DEFAULT_STYLES

    class VisualRecorder(_Recorder):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.actions: list[Action] = []

        def _push(self, play) -> None:
            g = self.g
            p = g.turn if play.player is None else play.player
            n0, burns0 = len(self.out.events), g.burns
            super()._push(play)
            for ev in self.out.events[n0:]:
                if ev["type"] == "cards_played":
                    self.actions.append(Action("play", p, list(ev["cards"]), _SOURCE.get(play.source, "hand")))
                elif ev["type"] == "pot_cleared":
                    self.actions.append(Action("burn" if g.burns > burns0 else "pickup", p))
                elif self.actions:  # operator events follow the camera event they explain
                    self.actions[-1].operator.append({k: v for k, v in ev.items() if k not in ("seq", "t")})
                else:
                    self.pre_operator.append({k: v for k, v in ev.items() if k not in ("seq", "t")})

    pr = load_preset(preset)
    n = len(players)
    rng = random.Random(seed)
    bots: list[Bot] = [make_bot(DEFAULT_STYLES[(i + seed) % len(DEFAULT_STYLES)]) for i in range(n)]
    g = GameState.new(pr, n, rng=rng, history=False, dealer=rng.randrange(n))
    if pr.table.exchange:
        for i, b in enumerate(bots):
            b.exchange(g, i)
    g.begin()
    faceup = [list(u) for u in g.up]
    facedown = [len(d) for d in g.down]
    rec = VisualRecorder(g, list(players), 1, 0.0, False)
    rec.pre_operator = []
    rec.setup()
    setup = {k: v for k, v in rec.out.events[0].items() if k not in ("seq", "t")}
    turbo_on = pr.table.turbo != "off"
    turbo_bots = [b for b in bots if type(b).turbo is not Bot.turbo]
    while not g.over and g.plays < 2000:
        if turbo_on and turbo_bots and g.pile:
            tp = g.turbo_plays()
            if tp:
                for q in {x.player for x in tp}:
                    choice = bots[q].turbo(g, [x for x in tp if x.player == q], rng)
                    if choice is not None:
                        rec.push(choice)
                        break
                if g.over:
                    break
        rec.push(bots[g.turn].choose(g, g.legal_plays(), rng))
    if not g.over:
        raise RuntimeError(f"engine game seed {seed} did not end in 2000 plays")
    script = GameScript(list(players), g.dealer, faceup, facedown, rec.actions, pr.name, "engine")
    script.setup = setup
    script.operator = rec.pre_operator
    script.order = [players[i] for i in g.finished]
    return script


def deck_script(cards: list[str], players: list[str] | None = None) -> GameScript:
    """A deck being taught to masta (`masta learn-deck`): one player drops each of `cards` in
    the middle of the table, in that order, at any angle, and takes it back before the next."""
    players = players or ["Ann", "Bob"]
    actions = [a for c in cards for a in (Action("play", 0, [c]), Action("pickup", 0))]
    return GameScript(players, 0, [[] for _ in players], [0 for _ in players], actions, engine="deck")


def game_script(seed: int, players: list[str], preset: str = "fr", engine: bool = True,
                fake_rate: float = 0.06) -> GameScript:
    """The engine's game when it is there (with hands that reach in without playing mixed
    in at `fake_rate`), else the built-in simple game."""
    script = script_from_engine(seed, players, preset) if engine else None
    if script is None:
        return simple_game(seed, players, fake_rate=fake_rate)
    rng = random.Random(seed + 99)
    actions: list[Action] = []
    for a in script.actions:
        if rng.random() < fake_rate:
            actions.append(Action("fake", rng.randrange(len(players))))
        actions.append(a)
    script.actions = actions
    return script


# =========================================================================== drawing helpers
def _lowfreq(rng: np.random.Generator, w: int, h: int, cells: tuple[int, int]) -> np.ndarray:
    small = rng.random((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def make_table(kind: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A procedural table surface (BGR uint8). Our own textures, none from the training set."""
    if kind == "wood":
        base = np.array([rng.uniform(30, 60), rng.uniform(70, 110), rng.uniform(120, 170)], np.float32)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        warp = _lowfreq(rng, w, h, (4, 3)) * 40
        grain = np.sin((ys + warp) * rng.uniform(0.18, 0.35) + 3 * np.sin(xs / rng.uniform(60, 140)))
        fine = rng.normal(0, 1, (h, w)).astype(np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), sigmaX=6, sigmaY=0.6)
        shade = 1.0 + 0.12 * grain + 0.05 * fine + 0.15 * (_lowfreq(rng, w, h, (3, 3)) - 0.5)
        img = base[None, None, :] * shade[..., None]
    elif kind == "felt":
        base = np.array(rng.choice([[60, 110, 30], [110, 70, 20], [40, 40, 120], [50, 90, 60]]), np.float32)
        noise = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8)
        shade = 1.0 + 0.07 * noise + 0.2 * (_lowfreq(rng, w, h, (5, 4)) - 0.5)
        img = base[None, None, :] * shade[..., None]
    elif kind == "cloth":
        c1 = np.array([245, 245, 245], np.float32)
        c2 = np.array(rng.choice([[40, 40, 200], [160, 80, 30], [40, 130, 40], [30, 30, 30]]), np.float32)
        period = rng.uniform(28, 48)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(-0.3, 0.3)
        u = xs * math.cos(ang) + ys * math.sin(ang)
        v = -xs * math.sin(ang) + ys * math.cos(ang)
        a = ((u // (period / 2)) % 2).astype(np.float32)
        b = ((v // (period / 2)) % 2).astype(np.float32)
        mix = (a + b) / 2.0
        weave = 0.04 * np.sin(xs * 1.7) * np.sin(ys * 1.7)
        img = (c1[None, None] * (1 - mix[..., None]) + c2[None, None] * mix[..., None]) * (1 + weave[..., None])
        img = cv2.GaussianBlur(img, (3, 3), 0)
    elif kind == "linen":
        base = np.array([rng.uniform(150, 190), rng.uniform(175, 205), rng.uniform(190, 220)], np.float32)
        noise = rng.normal(0, 1, (h, w)).astype(np.float32)
        weave = cv2.GaussianBlur(noise, (0, 0), sigmaX=0.5, sigmaY=3) + cv2.GaussianBlur(noise, (0, 0), sigmaX=3, sigmaY=0.5)
        img = base[None, None] * (1 + 0.06 * weave[..., None] + 0.1 * (_lowfreq(rng, w, h, (4, 3))[..., None] - 0.5))
    else:
        raise ValueError(f"unknown table {kind!r}: use one of {', '.join(TABLES)}")
    return np.clip(img, 0, 255).astype(np.uint8)


def make_back(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A card back: a coloured lattice inside a white border."""
    color = np.array(rng.choice([[40, 40, 170], [150, 60, 20], [40, 110, 40], [30, 30, 30]]), np.float32)
    img = np.full((h, w, 3), 250, np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    lattice = (np.sin((xs + ys) * 0.9) > 0.3) | (np.sin((xs - ys) * 0.9) > 0.3)
    inner = np.zeros((h, w), bool)
    m = max(2, w // 12)
    inner[m:h - m, m:w - m] = True
    img[inner] = color
    img[inner & lattice] = color * 0.6 + 100
    return img.astype(np.uint8)


def rounded_mask(w: int, h: int, r: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


@dataclass
class Pose:
    x: float
    y: float
    angle: float  # degrees, counter-clockwise as cv2.getRotationMatrix2D

    def lerp(self, other: "Pose", a: float) -> "Pose":
        d = (other.angle - self.angle + 180) % 360 - 180
        return Pose(self.x + (other.x - self.x) * a, self.y + (other.y - self.y) * a, self.angle + d * a)


@dataclass
class CardObj:
    card: str            # card id, or "" for a back
    pose: Pose
    face_up: bool = True
    where: str = "pot"
    oid: int = 0


def _ease(a: float) -> float:
    return 1 - (1 - a) ** 2


# =========================================================================== the renderer
@dataclass
class VideoSpec:
    seed: int = 0
    players: list[str] = field(default_factory=lambda: ["Ann", "Bob", "Cy"])
    preset: str = "fr"
    faces: str = "knoll"
    table: str = "auto"
    width: int = 640
    height: int = 480
    fps: float = FPS
    card_height: int = 96
    max_actions: int | None = None    # cut the game short (a short demo)
    shake: bool = True
    light: bool = True
    noise: float = 2.0
    fake_rate: float = 0.06
    engine: bool = True


class GameRenderer:
    """Renders a `GameScript` frame by frame; `render(path)` writes the video and the truth."""

    def __init__(self, spec: VideoSpec, script: GameScript | None = None):
        self.spec = spec
        self.rng = random.Random(spec.seed * 7919 + 17)
        self.nrng = np.random.default_rng(spec.seed + 1000)
        self.script = script or game_script(spec.seed, spec.players, spec.preset, spec.engine, spec.fake_rate)
        if spec.max_actions is not None:
            self.script.actions = _cut(self.script.actions, spec.max_actions)
        W, H = spec.width, spec.height
        self.table_kind = spec.table if spec.table != "auto" else TABLES[spec.seed % len(TABLES)]
        self.table = make_table(self.table_kind, W, H, self.nrng)
        self._load_faces()
        # geometry
        n = len(self.script.players)
        self.center = (W / 2 + self.rng.uniform(-20, 20), H / 2 + self.rng.uniform(-15, 15))
        self.seats = seat_geometry(W, H, self.ch, n)
        ch = self.ch
        rx, ry = W / 2 - 0.62 * ch, H / 2 - 0.62 * ch
        th = math.pi / 2 + math.pi / n  # between the first two seats: away from everyone's cards
        self.burn_pos = (W / 2 + 1.08 * rx * math.cos(th), H / 2 + 1.08 * ry * math.sin(th))
        self.skin = [tuple(int(v) for v in self.rng.choice([(140, 170, 225), (120, 150, 200), (90, 120, 170),
                                                             (60, 85, 130), (150, 180, 230)])) for _ in range(n)]
        self._oid = 0
        self.slots: list[list[list[CardObj]]] = []
        for i in range(n):
            seat = self.seats[i]
            slots = []
            for k in range(3):
                off = (k - 1) * self.cw * 1.15
                x = seat["pos"][0] + seat["tan"][0] * off
                y = seat["pos"][1] + seat["tan"][1] * off
                stack = [self._obj("", Pose(x, y, seat["angle"] + self.rng.uniform(-4, 4)), False, "seat")
                         for _ in range(self.script.facedown[i] and 1)]
                if k < len(self.script.faceup[i]):
                    stack.append(self._obj(self.script.faceup[i][k], Pose(x + self.rng.uniform(-3, 3), y + self.rng.uniform(-3, 3),
                                                                            seat["angle"] + self.rng.uniform(-6, 6)), True, "seat"))
                slots.append(stack)
            self.slots.append(slots)
        self.pot: list[CardObj] = []
        self.burned = 0
        self.frames_truth: list[dict] = []
        #: per frame, each corner index at least 60% in view: [card, x0, y0, x1, y1, visible]
        #: (kept only when `keep_indices`: classifier crops cut from the video itself)
        self.keep_indices = False
        self.frames_indices: list[list[list]] = []
        self.events: list[dict] = []
        self.frame_index = 0
        # effects state
        self.gain = 1.0
        self.gain_target = 1.0
        self.grad_phase = self.rng.uniform(0, 6.28)
        self.shake_left = 0
        self.shake_offset = (0.0, 0.0)
        self.bump = (0.0, 0.0)
        self.noise_bank = [self.nrng.normal(0, spec.noise, (H, W, 1)).astype(np.float32) for _ in range(6)] if spec.noise > 0 else []
        self._static_dirty = True

    # -- assets ----------------------------------------------------------------------------
    def _load_faces(self) -> None:
        from datasets.faces import FACE_HEIGHT, load_faces
        faces = load_faces(self.spec.faces)
        if len(faces) < 52:
            raise ValueError(f"face style {self.spec.faces!r} has {len(faces)} cards, not a whole deck: "
                             f"pick another style (see datasets/faces.py face_styles())")
        ch = self.spec.card_height
        sample = next(iter(faces.values())).image
        cw = int(round(ch * sample.shape[1] / sample.shape[0]))
        self.ch, self.cw = ch, cw
        s = ch / FACE_HEIGHT
        self.face_img: dict[str, np.ndarray] = {}
        self.face_idx: dict[str, np.ndarray] = {}
        for card, f in faces.items():
            img = cv2.resize(f.image, (cw, ch), interpolation=cv2.INTER_AREA)
            self.face_img[card] = img
            sx = cw / f.image.shape[1]
            pts = []
            boxes = f.indices or [(0.03 * f.image.shape[1], 0.03 * FACE_HEIGHT, 0.2 * f.image.shape[1], 0.26 * FACE_HEIGHT)]
            for (x0, y0, x1, y1) in boxes:
                for fx in INDEX_SAMPLES:
                    for fy in INDEX_SAMPLES:
                        pts.append((x0 + (x1 - x0) * fx) * sx)
                        pts.append((y0 + (y1 - y0) * fy) * s)
            self.face_idx[card] = np.array(pts, np.float32).reshape(len(boxes), 9, 2)
        self.back_img = make_back(cw, ch, self.nrng)
        self.mask = rounded_mask(cw, ch, max(3, cw // 12))
        self.maskf = self.mask.astype(np.float32) / 255.0

    def _obj(self, card: str, pose: Pose, face_up: bool, where: str) -> CardObj:
        self._oid += 1
        return CardObj(card, pose, face_up, where, self._oid)

    # -- composing -------------------------------------------------------------------------
    def _matrix(self, pose: Pose) -> np.ndarray:
        M = cv2.getRotationMatrix2D((self.cw / 2, self.ch / 2), pose.angle, 1.0)
        M[0, 2] += pose.x - self.cw / 2
        M[1, 2] += pose.y - self.ch / 2
        return M

    def _corners(self, M: np.ndarray) -> np.ndarray:
        pts = np.array([[0, 0, 1], [self.cw, 0, 1], [self.cw, self.ch, 1], [0, self.ch, 1]], np.float32)
        return pts @ M.T

    def _paste(self, canvas: np.ndarray, label: np.ndarray, obj: CardObj) -> None:
        H, W = canvas.shape[:2]
        M = self._matrix(obj.pose)
        c = self._corners(M)
        x0, y0 = max(0, int(math.floor(c[:, 0].min())) - 3), max(0, int(math.floor(c[:, 1].min())) - 3)
        x1, y1 = min(W, int(math.ceil(c[:, 0].max())) + 5), min(H, int(math.ceil(c[:, 1].max())) + 6)
        if x1 <= x0 or y1 <= y0:
            return
        Mr = M.copy()
        Mr[0, 2] -= x0
        Mr[1, 2] -= y0
        size = (x1 - x0, y1 - y0)
        img = self.face_img[obj.card] if obj.face_up else self.back_img
        warped = cv2.warpAffine(img, Mr, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        m = cv2.warpAffine(self.maskf, Mr, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        Ms = Mr.copy()
        Ms[0, 2] += 2
        Ms[1, 2] += 3
        shadow = cv2.warpAffine(self.maskf, Ms, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        roi = canvas[y0:y1, x0:x1].astype(np.float32)
        roi *= (1 - 0.35 * shadow)[..., None]
        roi = roi * (1 - m[..., None]) + warped.astype(np.float32) * m[..., None]
        canvas[y0:y1, x0:x1] = roi.astype(np.uint8)
        label[y0:y1, x0:x1][m > 0.5] = obj.oid

    def _draw_hand(self, canvas: np.ndarray, label: np.ndarray, player: int, palm: tuple[float, float]) -> None:
        seat = self.seats[player]
        ox, oy = seat["out"]
        far = (palm[0] + ox * 900, palm[1] + oy * 900)
        color = self.skin[player]
        dark = tuple(int(v * 0.8) for v in color)
        wid = int(self.cw * 0.75)
        hm = np.zeros(label.shape, np.uint8)
        cv2.line(hm, (int(far[0]), int(far[1])), (int(palm[0] + ox * self.ch * 0.3), int(palm[1] + oy * self.ch * 0.3)), 255, wid, cv2.LINE_AA)
        ang = math.degrees(math.atan2(oy, ox))
        cv2.ellipse(hm, (int(palm[0]), int(palm[1])), (int(self.ch * 0.42), int(self.cw * 0.5)), ang, 0, 360, 255, -1, cv2.LINE_AA)
        for k in range(4):  # fingers
            spread = (k - 1.5) * 0.16 * self.cw
            fx = palm[0] - ox * self.ch * 0.48 + seat["tan"][0] * spread
            fy = palm[1] - oy * self.ch * 0.48 + seat["tan"][1] * spread
            cv2.ellipse(hm, (int(fx), int(fy)), (int(self.ch * 0.2), int(self.cw * 0.08)), ang, 0, 360, 255, -1, cv2.LINE_AA)
        m = hm.astype(np.float32)[..., None] / 255.0
        shade = np.array(color, np.float32)[None, None, :]
        region = m[..., 0] > 0
        if not region.any():
            return
        ys, xs = np.nonzero(region)
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        sub = canvas[y0:y1, x0:x1].astype(np.float32)
        ms = m[y0:y1, x0:x1]
        edge = cv2.GaussianBlur(ms, (9, 9), 0)
        edge = edge[..., None] if edge.ndim == 2 else edge
        tone = shade * (0.85 + 0.15 * edge) + np.array(dark, np.float32) * 0.0
        sub = sub * (1 - ms) + tone * ms
        canvas[y0:y1, x0:x1] = sub.astype(np.uint8)
        label[y0:y1, x0:x1][ms[..., 0] > 0.5] = -2

    def _static(self) -> tuple[np.ndarray, np.ndarray, list[CardObj]]:
        if not self._static_dirty:
            return self._static_cache
        canvas = self.table.copy()
        label = np.full(canvas.shape[:2], -1, np.int32)
        objs: list[CardObj] = []
        bx, by = self.burn_pos
        brng = random.Random(self.spec.seed)
        for k in range(min(self.burned, 12)):
            o = CardObj("", Pose(bx + brng.uniform(-4, 4), by + brng.uniform(-4, 4), brng.uniform(0, 360)), False, "burn", -3)
            self._paste(canvas, label, o)
        for slots in self.slots:
            for stack in slots:
                for o in stack:
                    self._paste(canvas, label, o)
                    objs.append(o)
        for o in self.pot:
            self._paste(canvas, label, o)
            objs.append(o)
        self._static_cache = (canvas, label, objs)
        self._static_dirty = False
        return self._static_cache

    def _compose(self, moving: list[CardObj], hands: list[tuple[int, tuple[float, float]]]) -> tuple[np.ndarray, list[list]]:
        base, base_label, objs = self._static()
        canvas, label = base.copy(), base_label.copy()
        for o in moving:
            self._paste(canvas, label, o)
        for player, palm in hands:
            self._draw_hand(canvas, label, player, palm)
        # effects: shake (also applied to the truth), light, blur, noise
        S = np.array([[1, 0, 0], [0, 1, 0]], np.float32)
        if self.spec.shake:
            if self.shake_left == 0 and self.rng.random() < 1 / (12 * self.spec.fps):
                self.shake_left = self.rng.randint(5, 12)
                if self.rng.random() < 0.4:
                    self.bump = (self.rng.uniform(-3, 3), self.rng.uniform(-3, 3))
            dx, dy, rot = self.bump[0], self.bump[1], 0.0
            if self.shake_left > 0:
                self.shake_left -= 1
                dx += self.rng.uniform(-4, 4)
                dy += self.rng.uniform(-4, 4)
                rot = self.rng.uniform(-0.6, 0.6)
            if dx or dy or rot:
                S = cv2.getRotationMatrix2D((canvas.shape[1] / 2, canvas.shape[0] / 2), rot, 1.0).astype(np.float32)
                S[0, 2] += dx
                S[1, 2] += dy
                canvas = cv2.warpAffine(canvas, S, (canvas.shape[1], canvas.shape[0]), borderMode=cv2.BORDER_REFLECT)
        img = canvas.astype(np.float32)
        if self.spec.light:
            if self.rng.random() < 1 / (15 * self.spec.fps):
                self.gain_target = self.rng.uniform(0.72, 1.12)  # a lamp switched, a cloud
            self.gain += (self.gain_target - self.gain) * 0.15
            self.grad_phase += 0.004
            H, W = img.shape[:2]
            gx = np.linspace(-1, 1, W, dtype=np.float32)[None, :] * math.cos(self.grad_phase)
            gy = np.linspace(-1, 1, H, dtype=np.float32)[:, None] * math.sin(self.grad_phase)
            img *= (self.gain * (1 + 0.12 * (gx + gy)))[..., None]
        img = cv2.GaussianBlur(img, (3, 3), 0.7)
        if self.noise_bank:
            img += self.noise_bank[self.frame_index % len(self.noise_bank)]
        frame = np.clip(img, 0, 255).astype(np.uint8)
        truth = self._truth(objs + moving, label, S)
        return frame, truth

    def _truth(self, objs: list[CardObj], label: np.ndarray, S: np.ndarray) -> list[list]:
        H, W = label.shape
        out, indices = [], []
        for o in objs:
            if not o.face_up or not o.card:
                continue
            M = self._matrix(o.pose)
            pts = self.face_idx[o.card] @ M[:, :2].T + M[:, 2]
            best = 0.0
            for corner in pts:
                xs = np.clip(corner[:, 0].round().astype(int), -1, W)
                ys = np.clip(corner[:, 1].round().astype(int), -1, H)
                inside = (xs >= 0) & (xs < W) & (ys >= 0) & (ys < H)
                hits = np.zeros(len(xs), bool)
                hits[inside] = label[ys[inside], xs[inside]] == o.oid
                vis = float(hits.mean())
                best = max(best, vis)
                if self.keep_indices and vis >= 0.6:
                    # the 3x3 sample points span the middle of the index box: widen them back
                    f = corner @ S[:, :2].T + S[:, 2]
                    span = INDEX_SAMPLES[-1] - INDEX_SAMPLES[0]
                    c, half = (f.min(0) + f.max(0)) / 2, (f.max(0) - f.min(0)) / 2 / span
                    b = [float(np.clip(c[0] - half[0], 0, W)), float(np.clip(c[1] - half[1], 0, H)),
                         float(np.clip(c[0] + half[0], 0, W)), float(np.clip(c[1] + half[1], 0, H))]
                    if b[2] - b[0] >= 3 and b[3] - b[1] >= 3:
                        indices.append([o.card, *(round(v, 1) for v in b), round(vis, 2)])
            c = self._corners(M)
            c = np.hstack([c, np.ones((4, 1), np.float32)]) @ S.T
            x0, y0 = float(np.clip(c[:, 0].min(), 0, W)), float(np.clip(c[:, 1].min(), 0, H))
            x1, y1 = float(np.clip(c[:, 0].max(), 0, W)), float(np.clip(c[:, 1].max(), 0, H))
            if x1 - x0 < 2 or y1 - y0 < 2:
                continue
            out.append([o.card, round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1), round(best, 2), o.where])
        if self.keep_indices:
            self.frames_indices.append(indices)
        return out

    # -- animation -------------------------------------------------------------------------
    def _emit(self, moving=(), hands=()) -> tuple[np.ndarray, list[list]]:
        frame, truth = self._compose(list(moving), list(hands))
        self.frames_truth.append({"i": self.frame_index, "c": truth})
        self.frame_index += 1
        return frame

    @property
    def t(self) -> float:
        return self.frame_index / self.spec.fps

    def _edge_point(self, player: int) -> tuple[float, float]:
        seat = self.seats[player]
        return (seat["pos"][0] + seat["out"][0] * self.ch * 1.6, seat["pos"][1] + seat["out"][1] * self.ch * 1.6)

    def _idle(self, seconds: float):
        for _ in range(max(1, int(seconds * self.spec.fps))):
            yield self._emit()

    def _move_hand(self, player: int, a: tuple[float, float], b: tuple[float, float], n: int, carry: list[CardObj] = (),
                   carry_from: list[Pose] | None = None, carry_to: list[Pose] | None = None):
        for k in range(1, n + 1):
            f = _ease(k / n)
            palm = (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)
            if carry and carry_from and carry_to:
                for o, p0, p1 in zip(carry, carry_from, carry_to):
                    o.pose = p0.lerp(p1, f)
            yield self._emit(carry, [(player, palm)])

    def _take_from_seat(self, player: int, source: str, cards: list[str]) -> None:
        for card in cards:
            for stack in self.slots[player]:
                if source == "faceup" and stack and stack[-1].face_up and stack[-1].card == card:
                    stack.pop()
                    break
                if source == "facedown" and stack and not stack[-1].face_up:
                    stack.pop()
                    break
        self._static_dirty = True

    def _play(self, a: Action):
        seat = self.seats[a.player]
        self._take_from_seat(a.player, a.source, a.cards)
        cx, cy = self.center
        spread = 0.14 * self.ch
        base = Pose(cx + self.nrng.normal(0, spread), cy + self.nrng.normal(0, spread),
                    self.rng.uniform(-40, 40) + (180 if self.rng.random() < 0.5 else 0))
        # fanned the way players fan them: sideways along the card, indices left visible
        rad = math.radians(base.angle)
        along = (math.cos(rad), -math.sin(rad))  # the card's own x axis in the frame
        step = self.rng.uniform(0.28, 0.38) * self.cw
        finals = []
        for k, _ in enumerate(a.cards):
            finals.append(Pose(base.x + along[0] * step * k, base.y + along[1] * step * k,
                               base.angle - k * self.rng.uniform(3, 9)))
        objs = [self._obj(c, Pose(0, 0, 0), True, "hand") for c in a.cards]
        edge = self._edge_point(a.player)
        back = (seat["out"][0] * self.ch * 0.45, seat["out"][1] * self.ch * 0.45)
        release = (base.x + back[0], base.y + back[1])
        lift = [Pose(p.x + back[0] * 0.6, p.y + back[1] * 0.6, p.angle - 10) for p in finals]
        start = [Pose(p.x + edge[0] - release[0], p.y + edge[1] - release[1], p.angle - 10) for p in lift]
        yield from self._move_hand(a.player, edge, release, self.rng.randint(9, 13), objs, start, lift)
        n_drop = 3
        for k in range(1, n_drop + 1):
            for o, p0, p1 in zip(objs, lift, finals):
                o.pose = p0.lerp(p1, _ease(k / n_drop))
            yield self._emit(objs, [(a.player, release)])
        t_rest = self.t
        for o in objs:
            o.where = "pot"
        self.pot.extend(objs)
        self._static_dirty = True
        self._event({"type": "cards_played", "cards": list(a.cards), "player": self.script.players[a.player],
                     "from": a.source, "t_rest": round(t_rest, 3)})
        self._operator(a)
        yield from self._move_hand(a.player, release, edge, self.rng.randint(6, 9))
        yield from self._idle(self.rng.uniform(0.5, 1.4))

    def _clear(self, a: Action):
        player = a.player
        edge = self._edge_point(player)
        cx, cy = self.center
        yield from self._move_hand(player, edge, (cx, cy), self.rng.randint(8, 11))
        cards = self.pot
        self.pot = []
        self._static_dirty = True
        if a.kind == "burn":
            target = self.burn_pos
        else:
            target = edge
        start = [o.pose for o in cards]
        dest = [Pose(p.x + target[0] - cx, p.y + target[1] - cy, p.angle + self.rng.uniform(-20, 20)) for p in start]
        for o in cards:
            o.where = "hand"
        t_gone = None
        far = 1.6 * self.ch
        for frame in self._move_hand(player, (cx, cy), target, self.rng.randint(10, 14), cards, start, dest):
            if t_gone is None and all(math.hypot(o.pose.x - cx, o.pose.y - cy) > far for o in cards):
                t_gone = self.t  # the pot has left the pot area
            yield frame
        if a.kind == "burn":
            self.burned += len(cards)
            self._static_dirty = True
        t_rest = min(self.t, t_gone) if t_gone is not None else self.t
        self._event({"type": "pot_cleared", "reason": a.kind, "player": self.script.players[player],
                     "cards": [o.card for o in cards], "t_rest": round(t_rest, 3)})
        if a.kind == "pickup" and self.script.engine == "simple":
            self._event({"type": "picked_up", "player": self.script.players[player], "source": "operator"})
        self._operator(a)
        if a.kind != "pickup":
            yield from self._move_hand(player, target, edge, self.rng.randint(6, 9))
        yield from self._idle(self.rng.uniform(0.5, 1.2))

    def _fake(self, a: Action):
        edge = self._edge_point(a.player)
        cx, cy = self.center
        seat = self.seats[a.player]
        hover = (cx + seat["out"][0] * self.ch * 0.3 + self.rng.uniform(-20, 20), cy + seat["out"][1] * self.ch * 0.3)
        yield from self._move_hand(a.player, edge, hover, self.rng.randint(7, 10))
        for _ in range(self.rng.randint(3, 8)):
            yield self._emit((), [(a.player, (hover[0] + self.rng.uniform(-6, 6), hover[1] + self.rng.uniform(-6, 6)))])
        yield from self._move_hand(a.player, hover, edge, self.rng.randint(7, 10))
        yield from self._idle(self.rng.uniform(0.3, 0.8))

    def _operator(self, a: Action) -> None:
        """The operator events that go with `a` (a Turbo's player, an Ace's target, ...),
        their `event` pointing at `a`'s camera event."""
        seq = self.events[-1]["seq"] if self.events else 1
        for op in a.operator:
            ev = dict(op)
            if "event" in ev:
                ev["event"] = seq
            ev["source"] = "operator"
            self._event(ev)

    def _event(self, ev: dict) -> None:
        ev.setdefault("source", "camera")
        ev["t"] = round(self.t, 3)
        ev["seq"] = len(self.events) + 2  # setup is 1
        self.events.append(ev)

    def frames(self):
        """Yield the video's frames (BGR); truth accumulates in `frames_truth` and `events`."""
        for op in self.script.operator:
            self._event({**op, "source": "operator"})
        yield from self._idle(1.0)
        for a in self.script.actions:
            if a.kind == "play":
                yield from self._play(a)
            elif a.kind in ("burn", "pickup"):
                yield from self._clear(a)
            elif a.kind == "fake":
                yield from self._fake(a)
        yield from self._idle(1.0)

    def meta(self) -> dict[str, Any]:
        s = self.spec
        return {"type": "video", "fps": s.fps, "size": [s.width, s.height], "seed": s.seed, "faces": s.faces,
                "table": self.table_kind, "card_height": self.ch, "card_width": self.cw,
                "script": self.script.engine, "preset": self.script.preset, "frames": self.frame_index,
                "clock": "video seconds", "pot_center": [round(v, 1) for v in self.center]}

    def setup_event(self) -> dict[str, Any]:
        s = self.script
        if s.setup:
            return {"seq": 1, "t": 0.0, **s.setup, "source": "operator", "decks": 1}
        return {"seq": 1, "t": 0.0, "type": "setup", "source": "operator", "players": list(s.players),
                "dealer": s.players[s.dealer], "preset": s.preset if s.engine != "simple" else self.spec.preset,
                "decks": 1, "game": 1}

    def render(self, path: str | Path, frames_truth: bool = True, progress: bool = False) -> dict[str, Path]:
        """Write the video and its truth files; returns their paths."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        s = self.spec
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), s.fps, (s.width, s.height))
        if not writer.isOpened():
            raise OSError(f"cannot write video {path}: is the folder writable?")
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(desc=path.name, unit="frame")
        try:
            for frame in self.frames():
                writer.write(frame)
                if bar is not None:
                    bar.update(1)
        finally:
            writer.release()
            if bar is not None:
                bar.close()
        stem = path.with_suffix("")
        truth = Path(f"{stem}.truth.jsonl")
        with truth.open("w") as fh:
            for obj in [self.meta(), self.setup_event(), *self.events]:
                fh.write(json.dumps(obj) + "\n")
        out = {"video": path, "truth": truth}
        if frames_truth:
            fpath = Path(f"{stem}.frames.jsonl.gz")
            with gzip.open(fpath, "wt") as fh:
                for rec in self.frames_truth:
                    fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            out["frames"] = fpath
        if self.keep_indices:
            ipath = Path(f"{stem}.indices.jsonl.gz")
            with gzip.open(ipath, "wt") as fh:
                for i, rec in enumerate(self.frames_indices):
                    fh.write(json.dumps({"i": i, "x": rec}, separators=(",", ":")) + "\n")
            out["indices"] = ipath
        return out


def _cut(actions: list[Action], n: int) -> list[Action]:
    """The first `n` actions, ended on a clear when possible, so a short demo looks whole."""
    out = actions[:n]
    return out


# =========================================================================== reading truth
@dataclass
class Truth:
    meta: dict[str, Any]
    events: list[dict[str, Any]]  # setup first

    @property
    def camera_events(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") in ("cards_played", "pot_cleared")]


def read_truth(path: str | Path) -> Truth:
    lines = [json.loads(l) for l in Path(path).read_text().splitlines() if l.strip()]
    if not lines or lines[0].get("type") != "video":
        raise ValueError(f"{path} is not a game-video truth file (its first line must be a 'video' object)")
    return Truth(lines[0], lines[1:])


def _read_per_frame(path: str | Path, key: str, what: str) -> list[list[list]]:
    out: list[list[list]] = []
    try:
        with gzip.open(path, "rt") as fh:
            for line in fh:
                out.append(json.loads(line)[key])
    except (OSError, EOFError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not {what} written by `masta data game-video` "
                         f"({exc}); render the video again") from None
    return out


def read_frames_truth(path: str | Path) -> list[list[list]]:
    """Per frame, the visible face-up cards `[card, x0, y0, x1, y1, visible, where]`."""
    return _read_per_frame(path, "c", "a frames truth file")


def read_frame_indices(path: str | Path) -> list[list[list]]:
    """Per frame, the corner indices at least 60% in view `[card, x0, y0, x1, y1, visible]`
    (`NAME.indices.jsonl.gz`, written when the renderer's `keep_indices` is set)."""
    return _read_per_frame(path, "x", "an index truth file")


@dataclass
class OracleDetection:
    card: str
    conf: float
    box: tuple[float, float, float, float]


class OracleDetector:
    """A detector that reads the renderer's truth instead of pixels: the ORACLE.

    It stands in for the trained model to test the watcher and the pipeline, never to report
    the model's figures. A card is found when `min_visible` of its best corner index is
    visible; `miss`, `confuse` and `jitter` (box pixels) add per-read noise (seeded). It must be told the frame index
    (`Pipeline(on_frame=oracle.see)` or `oracle.index = i`)."""

    def __init__(self, frames: list[list[list]], min_visible: float = 0.6, miss: float = 0.0,
                 confuse: float = 0.0, seed: int = 0, jitter: float = 0.0):
        self.frames = frames
        self.min_visible = min_visible
        self.miss = miss
        self.confuse = confuse
        self.jitter = jitter
        self.rng = random.Random(seed)
        self.index = 0

    def see(self, frame) -> None:
        self.index = frame.index

    def detect(self, image: np.ndarray) -> list[OracleDetection]:
        if self.index >= len(self.frames):
            return []
        out = []
        for card, x0, y0, x1, y1, vis, _where in self.frames[self.index]:
            if vis < self.min_visible or self.rng.random() < self.miss:
                continue
            conf = 0.9 + 0.09 * self.rng.random()
            if self.rng.random() < self.confuse:
                card = _confusion(card, self.rng)
                conf = 0.4 + 0.3 * self.rng.random()
            if self.jitter:
                x0, y0, x1, y1 = (v + self.rng.gauss(0, self.jitter) for v in (x0, y0, x1, y1))
            out.append(OracleDetection(card, conf, (x0, y0, x1, y1)))
        return out


def _confusion(card: str, rng: random.Random) -> str:
    """A plausible misread: same rank other suit of the same colour, or a neighbouring rank."""
    if card == "JK":
        return card
    r, s = rank_of(card), card[-1]
    if rng.random() < 0.5:
        return r + {"C": "S", "S": "C", "D": "H", "H": "D"}[s]
    ranks = list(RANK_VALUE)[:13]
    i = ranks.index(r)
    return ranks[max(0, min(12, i + rng.choice((-1, 1))))] + s


def seat_geometry(W: int, H: int, ch: float, n: int) -> list[dict]:
    """Where each of `n` players sits in a rendered video (the first at the bottom, then
    clockwise on screen): `pos` of their cards, `out` towards the table's edge, `tan` along it,
    and the `angle` that turns a card's top towards the pot."""
    seats = []
    rx, ry = W / 2 - 0.62 * ch, H / 2 - 0.62 * ch
    for i in range(n):
        th = math.pi / 2 + 2 * math.pi * i / n
        sx, sy = W / 2 + rx * math.cos(th), H / 2 + ry * math.sin(th)
        seats.append({"pos": (sx, sy), "out": (math.cos(th), math.sin(th)), "tan": (-math.sin(th), math.cos(th)),
                      # card 'up' points to the centre: angle so that the card's top faces the pot
                      "angle": -math.degrees(th) + 90 + 180})
    return seats


def seat_zones(meta: dict, players: list[str], reach: float = 1.5) -> dict[str, tuple[float, float, float, float]]:
    """Each player's side of the table in a rendered video, as an operator would draw it on
    the set-up page: a box `reach` card heights around their seat, in fractions of the frame
    (`PotWatcher(seats=...)`). `meta`: the truth file's `video` line."""
    W, H = meta["size"]
    ch = meta["card_height"]
    zones = {}
    for name, seat in zip(players, seat_geometry(W, H, ch, len(players))):
        cx, cy = seat["pos"][0] + seat["out"][0] * 0.3 * ch, seat["pos"][1] + seat["out"][1] * 0.3 * ch
        x0, y0 = max(0.0, cx - reach * ch) / W, max(0.0, cy - reach * ch) / H
        x1, y1 = min(W, cx + reach * ch) / W, min(H, cy + reach * ch) / H
        zones[name] = (round(x0, 4), round(y0, 4), round(x1, 4), round(y1, 4))
    return zones


def seat_hints(truth: list[dict], got: list[dict], window: float = 3.0) -> dict[str, int]:
    """How the seat zones' hints (`got[i]["seat"]`) name who played: for each play decided
    within `window` seconds after a truth play of at least one of its cards, `right` (the
    player who played it), `wrong` (another) or `none` (no hint)."""
    out = {"right": 0, "wrong": 0, "none": 0}
    plays = [ev for ev in truth if ev["type"] == "cards_played"]
    for g in got:
        if g["type"] != "cards_played":
            continue
        near = [ev for ev in plays if ev["t_rest"] - 0.05 <= g["t"] <= ev["t_rest"] + window
                and set(ev["cards"]) & set(g.get("cards") or [])]
        if not near:
            continue
        ev = max(near, key=lambda e: e["t_rest"])
        seat = g.get("seat")
        out["none" if not seat else "right" if seat == ev.get("player") else "wrong"] += 1
    return out


# =========================================================================== scoring
@dataclass
class Score:
    """How a transcription compares with a video's truth (camera events only)."""
    truth_plays: int = 0
    got_plays: int = 0
    right_plays: int = 0          # a play at the right moment with exactly the right cards
    truth_clears: int = 0
    got_clears: int = 0
    right_clears: int = 0
    extra: int = 0                # decisions that match nothing (mismatches included)
    wrong_plays: int = 0          # plays matched in time but read with the wrong cards
    # what a person is asked to check (`low_conf`: the page says "check"): the wrong plays and
    # extra decisions asked about, the right plays asked about for nothing, and the plays missed
    # while a camera mismatch was shown ("please check")
    wrong_flagged: int = 0
    extra_flagged: int = 0
    right_flagged: int = 0
    missed_noted: int = 0
    # errors a person fixes with one tap on what the page offers (`one_tap_fixes`): a wrong
    # play asked about, a missed play whose mismatch offers its cards ("Played here");
    # `unfixed`: the errors left that change the game (a mismatch that names no play changes
    # nothing, so it needs no fix)
    one_tap: int = 0
    unfixed: int = 0
    # `taps`: the taps that fix, in place on the rulings page, every error that changes the game
    # (`fix_taps`: one tap where the page offers the fix, else the card picker, else "Void";
    # `missed_taps`: a play or a clear missed with nothing shown, added where it happened)
    taps: int = 0
    # `clear_taps`: taps that clear the checks asked for nothing ("Right as read" on a right
    # play asked about, "Nothing was played here" on a mismatch that names no play)
    clear_taps: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds from rest to decision
    errors: list[str] = field(default_factory=list)

    @property
    def perfect(self) -> bool:
        return (self.right_plays == self.truth_plays == self.got_plays and
                self.right_clears == self.truth_clears == self.got_clears and self.extra == 0)

    @property
    def one_tap_perfect(self) -> bool:
        """Every error that changes the game is fixed by one tap on what the page asks."""
        return self.unfixed == 0


def _other_suits(rank: str, cards: list[str]) -> list[str]:
    """The cards of `rank` not among `cards` (`otherSuits` on the rulings page)."""
    return [rank + x for x in "CDHS" if rank + x not in cards]


#: the ranks in the order the rulings page's corrector lists them (`RANK_ORDER` in rulings.js)
RANK_ORDER = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


#: a read's other card the rulings page offers (`likely` there): at least this likely
LIKELY = 0.05


def _likely_others(cards: list[str], reads: list[dict]) -> list[list[str]]:
    """Each read's two likeliest other cards, at least `LIKELY` (its `reads` votes)."""
    return [[c for _, c in sorted(((p, c) for c, p in (votes or {}).items()
                                   if c != cards[i] and p >= LIKELY), reverse=True)[:2]]
            for i, votes in enumerate(reads[:len(cards)])]


def agreed_rank(cards: list[str], reads: list[dict]) -> list[list[str]]:
    """A play is one rank. Where two reads or more of a play read in several ranks agree on
    another rank among their likely others (at least 5%: an unfamiliar deck's fanned jacks read
    "Q♣ 7♥", each with a jack among its others), those cards of that rank, and them with one
    more of it; the rank the reads' chances for it sum highest on (`agreedRank` on the page)."""
    if len({rank_of(c) for c in cards}) < 2:
        return []
    score: dict[str, float] = {}
    picked: dict[str, list[str]] = {}
    for i, votes in enumerate(reads[:len(cards)]):
        best: dict[str, tuple[float, str]] = {}
        for c, p in (votes or {}).items():
            if c != "JK" and p >= LIKELY and p > best.get(rank_of(c), (0.0, ""))[0]:
                best[rank_of(c)] = (p, c)
        for rank, (p, c) in best.items():
            if c not in picked.setdefault(rank, []):
                picked[rank].append(c)
                score[rank] = score.get(rank, 0.0) + p
    agreed = [r for r in picked if len(picked[r]) >= 2]
    if not agreed:
        return []
    rank = max(agreed, key=lambda r: (score[r], -RANK_ORDER.index(r)))
    seen = picked[rank]
    return [seen] + ([seen + [c] for c in _other_suits(rank, seen)] if len(seen) < 4 else [])


def one_tap_fixes(g: dict) -> list[list[str]]:
    """The cards a person can set a decision to with one tap on the rulings page
    (`web/rulings/static/rulings.js`): a play asked about offers its cards with `more` added,
    each of `more` in the place of its least sure read (of two cards or more), with `less`
    taken out, with one card put in the place of a read's (`reads`: each card's two likeliest
    others, at least 5%), each of `less` in the other suits of its rank, of two cards or more
    without any one of them, with one more card of its rank (each suit but the one `more`
    names alone), with `more` and one more of its rank, the rank its reads agree on
    (`agreed_rank`), or voided ("Nothing was played here": `fix_taps` with no cards); a mismatch
    offers each rank it half saw ("Played here"), each of its cards alone ("or only"), its
    cards with one more of that rank ("or one more: + QH"), and the rank its reads agree on; of
    one whose cards left the pot (`gone`), the same of what may cover them (`guesses`)."""
    if not g.get("low_conf") and g["type"] == "cards_played":
        return []
    if g["type"] == "cards_played":
        cards = list(g.get("cards") or [])
        more = [c for c in g.get("more") or [] if c not in cards]
        less = g.get("less") or []
        kept = [c for c in cards if c not in less]
        out = ([cards + more] if more else []) + ([kept] if kept and len(kept) < len(cards) else [])
        reads = g.get("reads") or []
        if more and len(cards) > 1 and len(reads) >= len(cards):  # or `more` in the least sure card's place
            weakest = min(range(len(cards)), key=lambda k: (reads[k] or {}).get(cards[k], 0.0))
            out += [cards[:weakest] + [c] + cards[weakest + 1:] for c in more]
        likely = _likely_others(cards, reads)
        for i, others in enumerate(likely):
            out += [cards[:i] + [c] + cards[i + 1:] for c in others if c not in cards]
        for i, c in enumerate(cards):  # a card read half under the play, in another suit
            if c in less and c != "JK":
                out += [cards[:i] + [x] + cards[i + 1:] for x in _other_suits(rank_of(c), cards)
                        if x not in (likely[i] if i < len(likely) else [])]
        if len(cards) > 1:
            out += [cards[:i] + cards[i + 1:] for i in range(len(cards))]
        ranks = {rank_of(c) for c in cards}
        if len(ranks) == 1 and "JK" not in ranks and len(cards) < 4:
            rank = ranks.pop()
            out += [cards + [c] for c in _other_suits(rank, cards) if [c] != more]
            if more and {rank_of(c) for c in more} == {rank} and len(cards + more) < 4:  # a triple read as one
                out += [cards + more + [c] for c in _other_suits(rank, cards + more)]
        return out + agreed_rank(cards, reads)
    if g["type"] == "mismatch":  # cards that left the pot are no play; what may cover them is
        groups: dict[str, list[str]] = {}
        for c in (g.get("guesses") or []) if g.get("gone") else (g.get("cards") or []):
            groups.setdefault(rank_of(c), []).append(c)
        out = []
        for rank, seen in groups.items():
            out.append(seen)
            out += [[c] for c in seen] if len(seen) > 1 else []
            if rank != "JK" and len(seen) < 4:
                out += [seen + [c] for c in _other_suits(rank, seen)]
        if not g.get("gone"):
            out += agreed_rank(list(g.get("cards") or []), g.get("reads") or [])
        return out
    return []


def _voided_by_one_tap(g: dict) -> bool:
    """Does the page offer "Nothing was played here" for decision `g` (a play it asks about)?"""
    return g["type"] == "cards_played" and bool(g.get("low_conf"))


def editor_fixes(g: dict) -> list[list[str]]:
    """The cards a person sets play `g` to with one tap once its "Correct #n…" is open
    (`quickFixes` on the rulings page), whether the camera asked about it or not: each read's
    two likeliest others in its place (at least 5%; of a one-card play, one of another rank also
    with one more of that rank), the rank its reads agree on (`agreed_rank`), the cards half
    seen (`more`) added, one more card of its rank (each suit not in it), any one of two or
    more taken out, and (a play of one rank) the same suits in another rank: an unfamiliar
    deck's court read surely as a pip card, Q♥ as 3♥, needed the whole picker."""
    cards = list(g.get("cards") or [])
    if g["type"] != "cards_played" or not cards:
        return []
    more = [c for c in g.get("more") or [] if c not in cards]
    out = [cards + more] if more else []
    reads = g.get("reads") or []
    for i, others in enumerate(_likely_others(cards, reads)):
        for c in others:
            if c in cards:
                continue
            out.append(cards[:i] + [c] + cards[i + 1:])
            if len(cards) == 1 and c != "JK" and rank_of(c) != rank_of(cards[0]):  # ... and more of its rank
                out += [[c, x] for x in _other_suits(rank_of(c), [c])]
    out += agreed_rank(cards, reads)
    if len(cards) > 1:
        out += [cards[:i] + cards[i + 1:] for i in range(len(cards))]
    ranks = {rank_of(c) for c in cards}
    if len(ranks) == 1 and "JK" not in ranks:
        rank = ranks.pop()
        if len(cards) < 4:
            out += [cards + [c] for c in _other_suits(rank, cards)]
        out += [[r + suit_of(c) for c in cards] for r in RANK_ORDER if r != rank]
    return out


def _one_tap(g: dict, cards: list[str], offers=one_tap_fixes) -> bool:
    """Does one tap on what the page offers for decision `g` (`offers`) make it `cards`?"""
    return any(sorted(f) == sorted(cards) for f in offers(g))


def picker_taps(start: list[str], cards: list[str]) -> int:
    """Taps on the rulings page's card picker (`masta.cardPicker`) that turn the cards `start`
    into `cards`: one on the chip of each card not played, then for the cards missing one on
    each rank and one on each of its suits (a joker: one tap)."""
    gone = Counter(start) - Counter(cards)
    add = list((Counter(cards) - Counter(start)).elements())
    return sum(gone.values()) + len({rank_of(c) for c in add if c != "JK"}) + len(add)


def fix_taps(g: dict, cards: list[str] | None) -> int:
    """Taps on the rulings page that fix decision `g` in place: make it the play of `cards`,
    or, with `cards` None, undo a decision that matches nothing. One where the page offers
    the fix (`one_tap_fixes`); two where "Correct #n…" does once open (`editor_fixes`). Else a
    play's picker ("Other cards…", or "Correct #n…" when it asked nothing), starting from the
    read, then "Correct cards"; a mismatch's picker ("Pick the cards…"), then "Played here";
    a play or clear that did not happen: "Correct #n…", "Void", and the browser's "OK". A play
    missed with no mismatch shown is `missed_taps`."""
    if cards is None:  # a play asked about: "Nothing was played here"
        return 0 if g["type"] == "mismatch" else 1 if _voided_by_one_tap(g) else 3
    if _one_tap(g, cards):
        return 1
    if _one_tap(g, cards, editor_fixes):
        return 2
    start = list(g.get("cards") or []) if g["type"] == "cards_played" else []
    return 1 + picker_taps(start, cards) + 1


def missed_taps(cards: list[str] | None) -> int:
    """Taps that add a play nothing was shown for, right after the event before it: "Correct
    #n…", "A play the camera missed after #n…", the card picker, "Add this play here"; with
    `cards` None, a clear: "The pot went here" instead of the picker."""
    return 2 + (1 if cards is None else picker_taps([], cards) + 1)


def _shared(g: dict, ev: dict) -> bool:
    """Does decision `g` name a card of truth event `ev`: one of its cards, or, when it asks
    about them, one the rulings page offers in its place or beside it (`one_tap_fixes`)?
    A QH read "6H, or QH?" is the QH's reading, not the play before it."""
    named = set(g.get("cards") or [])
    if g.get("low_conf"):
        named.update(c for fix in one_tap_fixes(g) for c in fix)
    return bool(named & set(ev.get("cards") or []))


def score_events(truth: list[dict], got: list[dict], window: float = 3.0) -> Score:
    """Match decisions to truth. `truth`: the truth file's camera events (`type`, `cards`,
    `t_rest`); `got`: `{"type", "cards", "t", "latency"?}` where `type` is `cards_played`,
    `pot_cleared` or `mismatch`. A decision can match a truth event of its type whose rest
    time lies within `window` seconds before it: first the decisions with exactly the right
    cards (earliest first), then the rest (a play read with the wrong cards), where a decision
    naming no card of a play but one of a later play it fits (`_shared`: its cards, or those
    the page offers when it asks) is that later play's reading (an unread play, then the next
    read short: the reading is the next play's, not the unread one's); what is left is missed
    (truth) or extra (decisions). One early mistake does not shift every later match."""
    s = Score()
    used = [False] * len(got)
    named_by: set[int] = set()  # mismatches a person names as a missed play with one tap
    match: list[int | None] = [None] * len(truth)

    def fits(ev: dict, g: dict) -> bool:
        return g["type"] == ev["type"] and ev["t_rest"] - 0.05 <= g["t"] <= ev["t_rest"] + window

    for exact in (True, False):
        for i, ev in enumerate(truth):
            if match[i] is not None:
                continue
            for j, g in enumerate(got):
                if used[j] or not fits(ev, g):
                    continue
                if exact and sorted(g.get("cards") or []) != sorted(ev.get("cards") or []) \
                        and ev["type"] == "cards_played":
                    continue
                if not exact and ev["type"] == "cards_played" and not _shared(g, ev) and any(
                        match[k] is None and _shared(g, truth[k]) and fits(truth[k], g)
                        for k in range(i + 1, len(truth))):
                    continue  # a later play's reading (a card of it), not this one's
                used[j], match[i] = True, j
                break
    for i, ev in enumerate(truth):
        kind = ev["type"]
        if kind == "cards_played":
            s.truth_plays += 1
        else:
            s.truth_clears += 1
        j = match[i]
        if j is None:
            shown = [k for k, g in enumerate(got) if kind == "cards_played" and not used[k]
                     and g["type"] == "mismatch" and fits(dict(ev, type="mismatch"), g)]
            noted = bool(shown)
            named = next((k for k in shown if k not in named_by and _one_tap(got[k], ev["cards"])), None)
            if named is not None:
                named_by.add(named)
                s.one_tap += 1
                s.taps += 1
            else:
                s.unfixed += 1
                # the first mismatch shown there not named already, with the card picker
                picked = next((k for k in shown if k not in named_by), None) if kind == "cards_played" else None
                if picked is None:
                    s.taps += missed_taps(ev["cards"] if kind == "cards_played" else None)
                else:
                    named_by.add(picked)
                    s.taps += fix_taps(got[picked], ev["cards"])
            s.missed_noted += noted
            s.errors.append(f"t={ev['t_rest']:.2f}: {kind} {' '.join(ev.get('cards', []))} missed"
                            + (" (a mismatch shown)" if noted else "") + (" (one tap)" if named is not None else ""))
            continue
        g = got[j]
        if kind == "cards_played" and sorted(g["cards"]) != sorted(ev["cards"]):
            tap = _one_tap(g, ev["cards"])
            s.one_tap += tap
            s.unfixed += not tap
            s.taps += fix_taps(g, ev["cards"])
            s.errors.append(f"t={ev['t_rest']:.2f}: played {' '.join(ev['cards'])}, read {' '.join(g['cards'])}"
                            + (" (flagged)" if g.get("low_conf") else "") + (" (one tap)" if tap else ""))
            s.wrong_plays += 1
            s.wrong_flagged += bool(g.get("low_conf"))
            continue
        if kind == "cards_played":
            s.right_plays += 1
            s.right_flagged += bool(g.get("low_conf"))
            s.clear_taps += bool(g.get("low_conf"))
        else:
            s.right_clears += 1
        s.latencies.append(g["t"] - ev["t_rest"] + g.get("latency", 0.0))
    for j, g in enumerate(got):
        if g["type"] == "cards_played":
            s.got_plays += 1
        elif g["type"] == "pot_cleared":
            s.got_clears += 1
        if not used[j]:
            s.extra += 1
            s.extra_flagged += bool(g.get("low_conf"))
            tap = _voided_by_one_tap(g)
            s.one_tap += tap
            s.unfixed += g["type"] != "mismatch" and not tap  # a note changes nothing; a play or clear does
            s.taps += fix_taps(g, None)
            s.clear_taps += g["type"] == "mismatch" and j not in named_by
            s.errors.append(f"t={g['t']:.2f}: extra {g['type']} {' '.join(g.get('cards', []))}"
                            + (" (flagged)" if g.get("low_conf") else "") + (" (one tap)" if tap else ""))
    return s
