"""Teaching masta the table's own deck: a minute before the evening, read all evening.

Why: the index classifier learnt from 20 deck designs, and some unseen designs fool it the
same way every time (Knoll's hollow Q read as a 6, its 10 as a Q). A table plays one deck all
evening, so the deck itself can teach: show masta the 26 cards of one black and one red suit
(or the whole deck), one at a time, alone in the middle of the table (`DECK_ORDER`: A to K of
spades, then of hearts; `deck_order("SHCD")`: then of clubs and diamonds too), and
`learn_deck` keeps what the classifier's last layer sees in each of their corner indices
(turned to eight angles, cut at two sizes). At play time `DeckMemory.fuse` weighs each read
by how close it looks to the taught indices of each rank: a crop that looks like
this deck's Q is pushed towards Q. Suits are left to the classifier (it already read the
unseen decks' suits right). A crop unlike every taught one (a card half hidden, two indices
in one box) is left to the classifier alone: pushed, such crops were read as new cards.

Shown alone, not dropped on a pile: the new card's shadow changes the indices under it, and
a memory learnt that way read the Knoll deck worse than none (0.82 against 0.87).
Figures: the model card, "Teaching the deck".
"""
from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision import deck_tune
from vision.boxes import iou as _iou
from vision.classifier import CLASS_RANK, CLASSES, NONE_ID, RANKS_ORDER, crop_index, rank_slot as _slot

#: what fine-tunes a taught deck's rank reader: (crops, rank slots, float classifier path, steps,
#: stop=Event) -> ONNX bytes; `training.deck_tune.tune`
Tuner = Callable[..., bytes]

#: the suits a deck is taught with by default, A to K of each in this order: one black and one
#: red suit, a minute of showing cards; `deck_order("SHCD")` teaches the whole deck (each rank's
#: four indices: some designs draw a rank's index differently from suit to suit)
TEACH_SUITS = "SH"


def deck_order(suits: str = TEACH_SUITS) -> tuple[str, ...]:
    """The cards a deck is taught with, in the order they are shown: A to K of each of `suits`."""
    suits = suits.upper()
    if not suits or set(suits) - set("CDHS") or len(set(suits)) != len(suits):
        raise DeckMemoryError(f"suits {suits!r}: give each suit to teach once, from C D H S (e.g. SH, or "
                              f"SHCD for the whole deck)")
    return tuple(r + s for s in suits for r in RANKS_ORDER)

#: each taught index is also seen turned by these angles and cut at these sizes: cards land
#: on the pot at any angle, and the detector's boxes run loose on unseen decks
ANGLES = tuple(range(0, 360, 45))
SCALES = (0.9, 1.15)
#: a rank's closeness is the mean of its `K` closest taught crops; `TEMPERATURE` turns the
#: closeness of the 13 ranks into weights; `MIN_CLOSE` gates it (all three chosen on four game
#: videos rendered for the purpose, never on the benchmark's)
K = 5
TEMPERATURE = 0.02
#: a crop whose closest taught crops are less alike than this is left to the classifier
MIN_CLOSE = 0.9
#: 2 (5 Dec): the file names the classifier it was taught with (`vision.classifier.model_fingerprint`)
FORMAT = 2

def _untaught(cards) -> list[str]:
    """The ids among `cards` a deck cannot be taught with: unknown ones, `none` and the joker
    (no rank to weigh)."""
    return sorted({c for c in cards if c not in CLASSES or c in ("none", "JK")})



class DeckMemoryError(ValueError):
    """A deck memory file that cannot be used; the message says what to do."""


#: the cards a deck is taught with by default, in the order they are shown
DECK_ORDER = deck_order()


@dataclass
class DeckMemory:
    """Taught crops' features (unit vectors) and their card ids."""
    cards: np.ndarray            # (N,) card ids
    feats: np.ndarray            # (N, D) float32, unit length
    name: str = ""               # what deck, for the operator
    classifier: str = ""         # the classifier its features were read with ("": not yet used)
    k: int = K
    temperature: float = TEMPERATURE
    min_close: float = MIN_CLOSE
    #: the classifier fine-tuned on the taught corners (`vision.deck_tune`, ONNX bytes; b"": none)
    ranker: bytes = b""
    #: the rank slots the ranker speaks for (None: every rank): those the classifier misread
    #: while the deck was taught (`weak_ranks`)
    weak: tuple[int, ...] | None = None
    _rank: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.cards = np.asarray(self.cards).astype(str)
        self.feats = np.asarray(self.feats, np.float32)
        self._rank = np.array([_slot(c) for c in self.cards])
        self.ranks = sorted({int(r) for r in self._rank if r >= 0})  # ranks taught
        self._reader = None  # the ranker's session, made on first use

    def ranker_reads(self) -> bool:
        """Whether reads are weighed by the tuned ranker (given the crops), not by features."""
        return bool(self.ranker)

    def ranker_ranks(self) -> list[str] | None:
        """The ranks the tuned ranker reads, for the operator (None: there is no ranker)."""
        if not self.ranker:
            return None
        return list(RANKS_ORDER) if self.weak is None else [RANKS_ORDER[w] for w in self.weak]

    def rank_weights(self, feats: np.ndarray) -> np.ndarray:
        """(n, 13) weights summing to 1 over the ranks; uniform for a crop no closer than
        `min_close` to any taught crop (a card half hidden, two indices in one box)."""
        f = feats / (np.linalg.norm(feats, axis=1, keepdims=True) + 1e-9)
        sims = f @ self.feats.T
        close = np.full((len(f), len(RANKS_ORDER)), -np.inf, np.float32)
        for r in self.ranks:
            s = sims[:, self._rank == r]
            k = min(self.k, s.shape[1])
            close[:, r] = np.partition(s, s.shape[1] - k, axis=1)[:, -k:].mean(1)
        untaught = [r for r in range(len(RANKS_ORDER)) if r not in self.ranks]
        if untaught:  # neither pushed nor pulled: as close as the middle taught rank
            close[:, untaught] = np.median(close[:, self.ranks], axis=1, keepdims=True)
        w = np.exp((close - close.max(1, keepdims=True)) / self.temperature)
        w /= w.sum(1, keepdims=True)
        far = close.max(1) < self.min_close
        w[far] = 1.0 / len(RANKS_ORDER)
        return w

    def fuse(self, probs: np.ndarray, feats: np.ndarray, crops: list[np.ndarray] | None = None) -> np.ndarray:
        """The classifier's probabilities (n, classes) read with the taught deck. With a tuned
        ranker and the `crops` read: each crop's rank (or none) is the ranker's, its suit the
        classifier's (`vision.deck_tune.combine`). Otherwise weighed by each rank's closeness
        to the taught deck; `none` and the joker are weighed by the closest rank's weight, so
        a crop that looks like no taught index keeps its odds of being no index."""
        if self.ranker and crops is not None and len(crops) == len(probs):
            if self._reader is None:
                self._reader = deck_tune.Ranker(self.ranker)
            ranks = self._reader.ranks(list(crops))
            out = deck_tune.combine(probs, ranks)
            if self.weak is not None:  # elsewhere the classifier's own read stands
                weak = list(self.weak)
                mine = ~(np.isin(deck_tune.top_slot(probs), weak) | np.isin(ranks.argmax(1), weak))
                out[mine] = probs[mine]
            return out
        if not self.ranks:
            return probs
        w = self.rank_weights(feats)
        top = w.max(1, keepdims=True)
        known = CLASS_RANK >= 0
        out = np.empty_like(probs)
        out[:, known] = probs[:, known] * w[:, CLASS_RANK[known]]
        out[:, ~known] = probs[:, ~known] * top
        s = out.sum(1, keepdims=True)
        return np.where(s > 0, out / np.maximum(s, 1e-12), probs)

    def check_classifier(self, fingerprint: str) -> None:
        """Refuse to be read by another classifier than the one this deck was taught with: its
        features would be compared with another network's (the models change with masta). A
        memory never read yet (`empty`, filled from answers) takes this one's."""
        if not self.classifier:
            self.classifier = fingerprint
        elif self.classifier != fingerprint:
            raise DeckMemoryError(
                f"the taught deck{f' {self.name!r}' if self.name else ''} was taught with another card "
                f"classifier ({self.classifier}) than the one reading now ({fingerprint}): the models "
                f"changed since; teach the deck again (`masta learn-deck`, or the Teach page)")

    @classmethod
    def empty(cls, name: str = "") -> "DeckMemory":
        """A memory with nothing taught yet (it weighs nothing until `add` gives it ranks)."""
        return cls(np.array([], dtype=str), np.zeros((0, 0), np.float32), name)

    def add(self, cards: Iterable[str], feats: np.ndarray) -> None:
        """More taught crops: what a person said the cards were during the evening (a
        correction, a read confirmed), beside those shown before it."""
        cards = np.asarray(list(cards)).astype(str)
        feats = np.asarray(feats, np.float32).reshape(len(cards), -1)
        feats = feats / (np.linalg.norm(feats, axis=1, keepdims=True) + 1e-9)
        self.cards = np.concatenate([self.cards, cards])
        self.feats = feats if not self.feats.size else np.concatenate([self.feats, feats])
        self.__post_init__()

    # ------------------------------------------------------------------ files
    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        np.savez_compressed(buf, format=np.array(FORMAT), cards=self.cards, feats=self.feats,
                            name=np.array(self.name), classifier=np.array(self.classifier),
                            ranker=np.frombuffer(self.ranker, np.uint8),
                            weak=np.array(self.weak if self.weak is not None else [-1], np.int64))
        path.write_bytes(buf.getvalue())
        return path

    @classmethod
    def load(cls, path: str | Path) -> "DeckMemory":
        path = Path(path)
        if path.is_dir():
            raise DeckMemoryError(f"deck memory {path} is a folder, not a deck file: name the .npz "
                                  f"that `masta learn-deck SOURCE --out DECK.npz` wrote")
        if not path.is_file():
            raise DeckMemoryError(f"deck memory {path} not found: teach the deck first with "
                                  f"`masta learn-deck SOURCE --out {path}`")
        import zipfile
        if not zipfile.is_zipfile(path):  # numpy would answer with its pickle wording
            raise DeckMemoryError(f"{path} is not a taught deck: `masta learn-deck` saves a deck as "
                                  f".npz (a zip of arrays) and this file is not one; name that file, "
                                  f"or teach the deck with `masta learn-deck SOURCE --out DECK.npz`")
        try:
            with np.load(path, allow_pickle=False) as z:
                fmt = int(z["format"])
                cards, feats, name = z["cards"].astype(str), z["feats"].astype(np.float32), str(z["name"])
                classifier = str(z["classifier"]) if "classifier" in z.files else ""
                ranker = z["ranker"].astype(np.uint8).tobytes() if "ranker" in z.files else b""
                weak = [int(v) for v in z["weak"]] if "weak" in z.files else [-1]
        except KeyError as exc:  # a .npz of something else
            raise DeckMemoryError(f"{path} is not a taught deck (it lacks the arrays a deck holds: "
                                  f"format, cards, feats, name): name the .npz `masta learn-deck` "
                                  f"wrote, or teach the deck again") from None
        except Exception as exc:  # a truncated file, arrays of objects
            why = "arrays of Python objects" if "pickle" in str(exc) else exc.__class__.__name__
            raise DeckMemoryError(f"deck memory {path} is unreadable ({why}); teach the deck again "
                                  f"with `masta learn-deck`") from None
        if fmt == 1:  # before 5 Dec: taught with the classifier masta had then, which it no longer has
            raise DeckMemoryError(f"deck memory {path} was taught with an earlier masta's card classifier "
                                  f"(the models changed on 5 Dec): teach the deck again with `masta learn-deck`")
        if fmt != FORMAT:
            raise DeckMemoryError(f"deck memory {path} has format {fmt}, this masta reads {FORMAT}: "
                                  f"teach the deck again with `masta learn-deck`")
        if feats.ndim != 2 or len(feats) != len(cards) or not len(cards):
            raise DeckMemoryError(f"deck memory {path} holds no usable crops; teach the deck again "
                                  f"with `masta learn-deck`")
        unknown = _untaught(cards)
        if unknown:
            raise DeckMemoryError(f"deck memory {path} names unknown cards {unknown}; teach the deck "
                                  f"again with `masta learn-deck`")
        memory = cls(cards, feats, name, classifier, ranker=ranker,
                     weak=None if weak == [-1] else tuple(w for w in weak if 0 <= w < len(RANKS_ORDER)))
        if ranker:  # read now: a damaged one is said at load, not at the first play
            try:
                memory._reader = deck_tune.Ranker(ranker)
            except Exception as exc:
                raise DeckMemoryError(f"deck memory {path}: its tuned rank reader cannot be read "
                                      f"({exc.__class__.__name__}); teach the deck again with "
                                      f"`masta learn-deck`") from None
        return memory


def turned_crops(frame: np.ndarray, box, angles=ANGLES, scales=SCALES) -> list[np.ndarray]:
    """Crops of one index as if its card lay at each angle, cut as the detector's box would be
    (the turned index's upright bounding box) at each scale."""
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    reach = max(x1 - x0, y1 - y0) * 3
    px, py = int(max(0, cx - reach)), int(max(0, cy - reach))
    patch = frame[py:int(cy + reach) + 1, px:int(cx + reach) + 1]
    centre = (cx - px, cy - py)
    corners = np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]], np.float64) - (px, py)
    out = []
    for a in angles:
        M = cv2.getRotationMatrix2D(centre, a, 1.0)
        turned = cv2.warpAffine(patch, M, (patch.shape[1], patch.shape[0]), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE) if a else patch
        c = corners @ M[:, :2].T + M[:, 2]
        mx, my = (c[:, 0].min() + c[:, 0].max()) / 2, (c[:, 1].min() + c[:, 1].max()) / 2
        hw, hh = (c[:, 0].max() - c[:, 0].min()) / 2, (c[:, 1].max() - c[:, 1].min()) / 2
        for s in scales:
            out.append(crop_index(turned, (mx - hw * s, my - hh * s, mx + hw * s, my + hh * s)))
    return out


# ---------------------------------------------------------------------- learning
@dataclass
class Taught:
    """One card learnt: when it lay still, and the corner index boxes it was learnt from."""
    card: str
    t: float
    boxes: list[tuple[float, float, float, float]]


@dataclass
class LearnReport:
    """What `learn_deck` learnt (None if nothing) and what the operator should hear about."""
    memory: DeckMemory | None
    taught: list[Taught]
    problems: list[str]


def _small(image: np.ndarray, width: int = 160) -> np.ndarray:
    h, w = image.shape[:2]
    g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.GaussianBlur(cv2.resize(g, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA),
                            (3, 3), 0).astype(np.int16)


#: a pixel changed between two settled scenes: its brightness against its neighbourhood's moved
#: by this much (a lamp or a cloud changes the whole picture's brightness, not this)
CHANGED = 0.25
#: an index box is the new card's when its pixels changed by this much on average
NEW_INDEX = 0.08


def _detail(image: np.ndarray, width: int = 640) -> np.ndarray:
    """Brightness over the neighbourhood's: a new card's ink shows, a change of light does not."""
    g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = g.shape
    g = cv2.resize(g, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA).astype(np.float32)
    return g / (cv2.GaussianBlur(g, (0, 0), 6) + 8.0)


def _card_boxes(image: np.ndarray, detector, diff: np.ndarray, changed: np.ndarray) -> tuple[list, np.ndarray]:
    """The index boxes of the card lying where the picture changed, found in the changed
    region at three margins (the detector's boxes vary with the region it is given: more
    ways to cut each index), and the classifier's probabilities of each (n, classes)."""
    ys, xs = np.nonzero(changed)
    H, W = image.shape[:2]
    f = W / changed.shape[1]
    found: list[tuple[float, float, float, float]] = []
    for pad in (16, 64, 160):
        roi = (int(max(0, xs.min() * f - pad)), int(max(0, ys.min() * f - pad)),
               int(min(W, (xs.max() + 1) * f + pad)), int(min(H, (ys.max() + 1) * f + pad)))
        boxes, scores = detector.find_indices(image, roi=roi)
        for b, sc in zip(boxes, scores):
            b = tuple(float(v) for v in b)
            gx0, gy0 = int(b[0] / f), int(b[1] / f)
            gx1, gy1 = max(gx0 + 1, int(np.ceil(b[2] / f))), max(gy0 + 1, int(np.ceil(b[3] / f)))
            # on the card (the bare table's pixels there changed), not the same cut twice
            if sc >= 0.15 and diff[gy0:gy1, gx0:gx1].mean() >= NEW_INDEX and all(_iou(b, o) < 0.9 for o in found):
                found.append(b)
    if not found:
        return [], np.zeros((0, len(CLASSES)), np.float32)
    # left out: what the classifier is sure is no index (a pip, a court figure)
    probs = detector.classifier.probabilities([crop_index(image, b) for b in found])[0]
    keep = [i for i, row in enumerate(probs) if not (int(row.argmax()) == NONE_ID and row[NONE_ID] >= 0.5)]
    return [found[i] for i in keep], probs[keep]


#: aligning the cards seen with the order they were asked for (`align`): what skipping a card
#: of the order costs, and what leaving out a card seen (shown twice, say) costs, in the
#: classifier's log-odds. A card's misread costs it a few; a shifted run of cards costs that
#: at every card after the shift
SKIP_COST = 2.0
DROP_COST = 4.0


def align(scores: np.ndarray, finished: bool = True) -> list[int]:
    """For each card seen (a row of `scores`: the log-odds of its boxes being each card of the
    order), its place in the order (-1: left out), in order, maximising the total score less
    `SKIP_COST` for each card of the order passed over and `DROP_COST` for each one left out.

    Why: a card shown too briefly, or never, would otherwise shift every later card's label
    by one, and teach the deck wrong from there on, silently. `finished` False: the cards after
    the last one seen may still come (a live camera), so they cost nothing yet."""
    n, m = scores.shape
    places = [-1] * n
    if n == 0 or m == 0:
        return places
    skips = SKIP_COST * np.arange(m)
    best = scores[0] - skips  # best[j]: the best score with the latest card kept at place j
    back = [np.full(m, -2)]   # where state (i, j) came from: j' < j kept, -2 none kept, -3 card i left out
    none = -DROP_COST          # every card so far left out
    for i in range(1, n):
        take, src = none - skips, np.full(m, -2)  # the cards before it all left out
        run, run_j = -np.inf, -1  # max over j' < j of best[j'] + SKIP_COST * (j' + 1)
        for j in range(m):
            if run - SKIP_COST * j > take[j]:
                take[j], src[j] = run - SKIP_COST * j, run_j
            if best[j] + SKIP_COST * (j + 1) > run:
                run, run_j = best[j] + SKIP_COST * (j + 1), j
        take = take + scores[i]
        drop = best - DROP_COST
        back.append(np.where(take >= drop, src, -3))
        best = np.maximum(take, drop)
        none -= DROP_COST
    end = best - (SKIP_COST * (m - 1 - np.arange(m)) if finished else 0)
    j = int(end.argmax())
    if none - (SKIP_COST * m if finished else 0) > end[j]:
        return places
    for i in range(n - 1, -1, -1):
        src = int(back[i][j])
        if src == -3:
            continue
        places[i] = j
        if src == -2:
            break
        j = src
    return places


def card_scores(probs: list[np.ndarray], order: list[str]) -> np.ndarray:
    """(cards seen, len(order)): the mean log-odds over each seen card's boxes of being each
    card of the order, by the classifier alone."""
    cols = [CLASSES.index(c) for c in order]
    return np.array([np.log(np.clip(p[:, cols], 1e-3, 1.0)).mean(0) for p in probs]).reshape(len(probs), len(order))


def learn_deck(frames: Iterable, detector, order: Iterable[str] = DECK_ORDER, name: str = "",
               still_frames: int = 5, on_card: Callable[[Taught], None] | None = None,
               tune: int = 0, stop=None, on_tune: Callable[[], None] | None = None,
               tuner: Tuner | None = None) -> LearnReport:
    """Watch the cards of `order` shown one at a time on the table and remember their indices.

    The first settled scene is the bare table. Each later settled scene that differs from it,
    and from the last card's, holds the next card: the index boxes found where it differs from
    the bare table are that card's. A card shown alone gives clean labels; on a pile, the new
    card's shadow changes the indices under it (measured: such a memory read the Knoll deck
    worse than none). Which card of `order` each one is comes from `align`, not from counting:
    a card shown too briefly to be seen, or shown twice, leaves the others' labels right.
    With `tune` batches, the classifier is then fine-tuned on the taught corners and what lies
    beside them by `tuner` (`training.deck_tune.tune`, given by the caller: the runtime never
    imports training code) into the deck's own rank reader (`vision.deck_tune`; `on_tune` is
    called as it starts, `stop`, an Event, ends it early).
    `frames` yields objects with `.image` and `.t` (`vision.source`)."""
    order = [str(c) for c in order]
    bad = _untaught(order)
    if bad:
        raise DeckMemoryError(f"{bad} cannot be taught: use the ids of ranked cards, like AS, 10H, QD")
    seen: list[tuple[float, list, list]] = []  # each settled new card: when, its index boxes, their crops
    # and for tuning (`deck_tune`): its index crops, crops beside it, the camera's reads of its boxes
    stored: list[tuple[list, list, list]] = []
    rng = np.random.default_rng(0)
    probs: list[np.ndarray] = []         # the classifier's reads of its boxes
    places: list[int] = []               # each one's place in `order` (-1: left out)
    prev = bare = last = None
    still = 0
    for fr in frames:
        if places and places[-1] == len(order) - 1:
            break
        small = _small(fr.image)
        moving = prev is not None and float((np.abs(small - prev) > 10).mean()) > 0.002
        prev = small
        still = 0 if moving else still + 1
        if still != still_frames:
            continue
        detail = _detail(fr.image)
        if bare is None:
            bare = detail
            continue
        diff = np.abs(detail - bare)
        changed = cv2.morphologyEx((diff > CHANGED).astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        if changed.mean() < 0.0005:
            last = None  # the table is bare again
            continue
        if last is not None and float((np.abs(detail - last) > CHANGED).mean()) < 0.0005:
            continue  # the same card still lies there (a hand came and went)
        last = detail
        boxes, read = _card_boxes(fr.image, detector, diff, changed)
        if not boxes:
            continue
        seen.append((float(fr.t), boxes, [c for b in boxes for c in turned_crops(fr.image, b)]))
        if tune > 0:
            stored.append(([deck_tune.store_crop(fr.image, b) for b in boxes],
                           deck_tune.negatives(fr.image, boxes, detector, rng),
                           detector.read_boxes(fr.image, np.array(boxes), None, with_deck=False)))
        probs.append(read)
        # which card of the order this is, given every card seen so far: one shown too briefly
        # to be seen must not shift the labels of all the cards after it
        places = align(card_scores(probs, order), finished=False)
        if on_card is not None and places[-1] >= 0:
            on_card(Taught(order[places[-1]], float(fr.t), boxes))
    places = align(card_scores(probs, order))
    taught = [Taught(order[j], t, boxes) for (t, boxes, _), j in zip(seen, places) if j >= 0]
    crops = [c for (_, _, cs), j in zip(seen, places) if j >= 0 for c in cs]
    labels = [order[j] for (_, _, cs), j in zip(seen, places) if j >= 0 for _ in cs]
    problems: list[str] = []
    missing = [c for k, c in enumerate(order) if k not in set(places)]
    if missing:
        problems.append(f"{len(taught)} of {len(order)} cards seen: {' '.join(missing)} "
                        f"{'was' if len(missing) == 1 else 'were'} never seen lying still, alone, in the "
                        f"middle of the table (the cards after {'it' if len(missing) == 1 else 'them'} are "
                        f"still learnt as themselves)")
    extra = [t for (t, _, _), j in zip(seen, places) if j < 0]
    if extra:
        problems.append(f"{len(extra)} card{'s' if len(extra) != 1 else ''} seen at "
                        f"{', '.join(f'{t:.1f} s' for t in extra)} matched no card of the order and "
                        f"{'were' if len(extra) != 1 else 'was'} left out (one shown twice?)")
    if not crops:
        return LearnReport(None, taught, problems + ["no card index was seen: is the pot in view?"])
    feats = detector.classifier.features(crops)  # run in the classifier's own batches
    feats /= np.linalg.norm(feats, axis=1, keepdims=True) + 1e-9
    memory = DeckMemory(np.array(labels), feats, name, getattr(detector.classifier, "fingerprint", ""))
    if tune > 0:
        if on_tune is not None:
            on_tune()
        kept = [(pos, j) for pos, j in zip(stored, places) if j >= 0]
        xs = [c for (pos, _, _), j in kept for c in pos]
        ys = [_slot(order[j]) for (pos, _, _), j in kept for _ in pos]
        neg = [c for _, ns, _ in stored for c in ns]
        memory.ranker, problem = _tuned(tuner, detector.classifier, xs, ys, neg, tune, stop)
        problems += [problem] if problem else []
        if memory.ranker:
            memory.weak = weak_ranks([(_slot(order[j]), reads) for (_, _, reads), j in kept])
    return LearnReport(memory, taught, problems)


#: a rank the camera read at under this probability (the mean over its taught index boxes, as
#: the table camera reads them) is one the deck's ranker speaks for (chosen on the dev renders)
WEAK_RANK = 0.9


def weak_ranks(reads: list[tuple[int, list[np.ndarray]]], below: float = WEAK_RANK) -> tuple[int, ...]:
    """The rank slots whose taught boxes the camera read, on average, with the right rank at
    under `below`: `reads` holds each taught card's rank slot and the camera's reads of its
    index boxes (`CardDetector.read_boxes`, no deck). Why: a tuned ranker reads every rank of
    the deck, but where the classifier already reads a rank right, letting the ranker speak
    made plays read a card long (the ranker is sure of the rank of a card's second corner or a
    half-hidden index, and the classifier guesses its suit)."""
    got: dict[int, list[float]] = {}
    for slot, rows in reads:
        for row in rows:
            got.setdefault(slot, []).append(float(np.asarray(row)[CLASS_RANK == slot].sum()))
    return tuple(sorted(s for s, v in got.items() if np.mean(v) < below))


def _tuned(tuner: Tuner | None, classifier, crops: list, slots: list, beside: list, steps: int,
           stop) -> tuple[bytes, str]:
    """(the ranker tuned on the taught index `crops` of rank `slots` and the `none` crops
    `beside` them, "") or (b"", why not: said to the operator; the taught features still weigh
    the reads)."""
    if tuner is None:
        return b"", ("the deck's own rank reader was not tuned (no tuner was given: "
                     "training.deck_tune.tune); the camera reads with the taught indices alone")
    try:
        return tuner(np.stack(crops + beside), np.array(slots + [deck_tune.NONE_SLOT] * len(beside)),
                     deck_tune.float_twin(classifier.path), steps, stop=stop), ""
    except ImportError as exc:
        return b"", (f"the deck's own rank reader was not tuned ({exc.name or exc} is not installed: "
                     f"pip install -e '.[train]'); the camera reads with the taught indices alone")
