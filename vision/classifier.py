"""The second stage: read a corner index (rank + suit) from a small crop.

The detector only finds corner indices (one class), which a CPU learns fast; telling the
53 cards apart is left to this small CNN on a 64x64 crop around each index. It has one
extra class, `none`, for crops that are not a readable index (a pip, a court picture,
a half-covered corner), so that the detector's false alarms can be rejected.

`crop_index` is shared by training and inference so both see crops made the same way.
Torch is only needed to train (`training.models.build_model`); inference runs the ONNX export.
"""
from __future__ import annotations

import threading

import cv2
import numpy as np

from referee.cards import JOKER, rank_of

from vision.card_classes import CLASSES, NONE, NONE_ID  # noqa: F401 (the classifier's outputs, for its callers)
#: the ranks a taught deck's reads are weighed over (`vision.deck_memory`, `vision.deck_tune`),
#: in the order a deck is shown
RANKS_ORDER = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def rank_slot(card: str) -> int:
    """A card's rank's place in RANKS_ORDER (-1: `none`, the joker: never taught)."""
    return -1 if card in (NONE, JOKER) else RANKS_ORDER.index(rank_of(card))


#: for each class, its rank's place in RANKS_ORDER (-1: none, the joker)
CLASS_RANK = np.array([rank_slot(c) for c in CLASSES])
CROP = 64
#: the crop is a square around the index box, this many times its longer side
CROP_MARGIN = 1.3
MAX_BATCH = 64  # crops per classifier run


def crop_index(image: np.ndarray, box, size: int = CROP, margin: float = CROP_MARGIN,
               jitter: tuple[float, float, float] = (0.0, 0.0, 1.0)) -> np.ndarray:
    """A `size` x `size` BGR crop centred on `box` (x0, y0, x1, y1), edges replicated.

    `jitter` = (dx, dy, scale) moves the centre by dx, dy (fractions of the side) and scales
    the side, for training-time augmentation.
    """
    x0, y0, x1, y1 = [float(v) for v in box]
    side = max(x1 - x0, y1 - y0, 2.0) * margin * jitter[2]
    cx = (x0 + x1) / 2 + jitter[0] * side
    cy = (y0 + y1) / 2 + jitter[1] * side
    s = size / side
    m = np.array([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]], np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def model_fingerprint(path) -> str:
    """A short digest of a model file. A taught deck (`vision.deck_memory`) holds what one
    classifier's last layer saw; read with another classifier, those features mean nothing."""
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def to_nchw(images: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """BGR uint8 N x h x w x 3 -> float32 N x 3 x h x w RGB in [0, 1], written once, into
    `out` when given (both models' input; a buffer reused from frame to frame saves a new
    allocation and its page faults each time)."""
    arr = images[..., ::-1].transpose(0, 3, 1, 2)
    if out is None:
        out = np.empty(arr.shape, np.float32)
    np.multiply(arr, np.float32(1 / 255.0), out=out, casting="unsafe")
    return out


def to_tensor_batch(crops: list[np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
    """BGR uint8 crops -> the classifier's input, into the first len(crops) rows of `out`
    when given."""
    return to_nchw(np.stack(crops), None if out is None else out[:len(crops)])


def session_options(threads: int = 2):
    """ONNX Runtime options for both card models: `threads` intra-op threads that sleep
    between runs instead of spinning. Spinning threads burn the cores the rest of the referee
    (video decoding, the web server) needs; on the loaded 2-core machine this measured
    faster (detector 50 vs 83 ms median, classifier 49 vs 54 ms on 25 crops)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return so


#: how many ways an index crop may be read (`turned`; `CardDetector(turns=...)`): as cut, also
#: upside down, or at every quarter turn
TURNS = (1, 2, 4)


def turned(crops: list[np.ndarray], turns: int) -> list[np.ndarray]:
    """`crops`, then each turned by a half turn (`turns` 2) or by one, two and three quarter
    turns (4), in that order. A card lies at any angle on the pot and the classifier trained on
    every angle, so each turn is another look at the same index; exact quarter turns add no
    blur. The mean of the four looks read the held-out decks' camera crops (14,132, four dev
    videos) 0.875 -> 0.900 (Knoll) and 0.878 -> 0.899 (photographed deck); turning only the
    crops read under 0.8 gains as much."""
    if turns not in TURNS:
        raise ValueError(f"turns={turns!r}: give 1 (each crop as cut), 2 (and upside down) or 4 "
                         f"(every quarter turn)")
    if turns == 1:
        return list(crops)
    ks = (2,) if turns == 2 else (1, 2, 3)
    return list(crops) + [np.ascontiguousarray(np.rot90(c, k)) for k in ks for c in crops]


def features_graph(onnx_path) -> bytes:
    """The classifier's graph with a second output, `features`: what its last layer reads
    (the input of the final Gemm, dequantized when the graph is int8), for a taught deck."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(onnx_path))
    g = model.graph
    last = [n for n in g.node if n.op_type in ("Gemm", "QGemm", "MatMul")]
    if not last:
        raise ValueError(f"{onnx_path} has no final Gemm: not a masta index classifier")
    node = last[-1]
    if node.op_type == "QGemm":  # inputs: A, A_scale, A_zero_point, ...
        g.node.append(helper.make_node("DequantizeLinear", list(node.input[:3]), ["features"]))
    else:
        g.node.append(helper.make_node("Identity", [node.input[0]], ["features"]))
    g.output.append(helper.make_tensor_value_info("features", TensorProto.FLOAT, None))
    return model.SerializeToString()


class IndexClassifier:
    """Runs an exported crop classifier (ONNX) on crops of `shape` (height, width: the index
    classifier's 64 x 64 by default, the face classifier's upright card too); returns
    (class name, probability, every class's probability).

    A classifier trained with letter glyph classes (`vision.letters`) has more outputs than
    `CLASSES`: `letters` (the deck's court letters, `en` by default) folds them into `CLASSES`,
    and `letter_watch` counts the glyphs read that the setting does not print."""

    def __init__(self, onnx_path: str, threads: int = 2, shape: tuple[int, int] = (CROP, CROP),
                 features: bool = False, deck=None, letters: str = "en"):
        import onnxruntime as ort

        # with a taught deck (`vision.deck_memory`), the graph also gives what its last layer
        # reads, and each crop's probabilities are weighed by how close it looks to the deck
        self.fingerprint = model_fingerprint(onnx_path)
        self.path = str(onnx_path)
        self._deck = None
        self.deck = deck
        self.with_features = features or deck is not None
        if self.with_features:
            model = features_graph(onnx_path)
        else:
            model = str(onnx_path)
        self.session = ort.InferenceSession(model, session_options(threads), providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        self.shape = shape
        self._batch = np.empty((MAX_BATCH, 3, *shape), np.float32)  # reused run to run
        self._lock = threading.Lock()
        out = self.session.get_outputs()[0].shape
        self.outputs = int(out[1]) if len(out) > 1 and isinstance(out[1], int) else len(CLASSES)
        self.letters = letters

    @property
    def letters(self) -> str:
        """The deck's court letters these reads are folded with (`vision.letters.LETTER_SETS`)."""
        return self._letters

    @letters.setter
    def letters(self, value: str) -> None:
        from vision.letters import LetterWatch, check_letters, fold_matrix

        check_letters(value, self.outputs)
        self._fold = None if self.outputs == len(CLASSES) else fold_matrix(value, self.outputs)
        self.letter_watch = LetterWatch(value)
        self._letters = value

    @property
    def deck(self):
        """The taught deck this classifier reads with (None: its own reads alone)."""
        return self._deck

    @deck.setter
    def deck(self, memory) -> None:
        # a deck taught with another classifier is refused (`DeckMemory.check_classifier`)
        if memory is not None:
            memory.check_classifier(self.fingerprint)
        self._deck = memory

    def classify(self, crops: list[np.ndarray]) -> list[tuple[str, float, np.ndarray]]:
        if not crops:
            return []
        p, feats = self.probabilities(crops)
        deck = self.deck  # read once: the teach page may set or forget it meanwhile
        if deck is not None:
            p = deck.fuse(p, feats, crops)
        out = []
        for row in p:
            k = int(row.argmax())
            out.append((CLASSES[k], float(row[k]), row))
        return out

    def probabilities(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
        """The classifier's own probabilities (n, classes), never weighed by a taught deck,
        and its features (None when loaded without them)."""
        if not crops:
            return np.zeros((0, len(CLASSES)), np.float32), None
        logits, feats = self._run(crops)
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        fold = self._fold
        if fold is not None:  # glyph classes: counted, then read as the deck's letters say
            self.letter_watch.add(p)
            p = p @ fold
        return p, feats

    def features(self, crops: list[np.ndarray]) -> np.ndarray:
        """What the last layer reads from each crop (n, D): for teaching a deck."""
        if not self.with_features:
            raise ValueError("this classifier was loaded without its features: IndexClassifier(..., features=True)")
        if not crops:
            return np.zeros((0, 0), np.float32)
        return self._run(crops)[1]

    def _run(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
        # in batches of at most MAX_BATCH: ONNX Runtime keeps the memory of the largest batch
        # it has ever run, so one frame full of false hits would raise the floor for good
        buf = self._batch if all(c.shape == (*self.shape, 3) for c in crops) else None
        with self._lock:
            runs = [self.session.run(None, {self.input: to_tensor_batch(crops[k:k + MAX_BATCH], buf)})
                    for k in range(0, len(crops), MAX_BATCH)]
        logits = np.concatenate([r[0] for r in runs])
        feats = np.concatenate([r[1].reshape(len(r[0]), -1) for r in runs]) if self.with_features else None
        return logits, feats
