"""`CardDetector(model_path).detect(frame_bgr) -> [Detection]`: the cards in a frame.

Two stages, both ONNX on onnxruntime (no torch at inference):
 1. a 1-class YOLO finds corner indices (rank + suit printed in a card's corner);
 2. a small CNN reads each index crop (53 cards + `none`).
`models/` holds int8 copies of both (`training/quantize.py`; 37 instead of 58 ms a 640x480 frame
on 2 cores); `models/float/` the float models they come from, which load the same way.
Indices of the same card id lying within about one card of each other are grouped into one
physical card (a card shows two or four indices); its box spans the grouped indices (the
whole card when two opposite corners are seen, just the index when only one is).

The detector's graph runs cut after its raw box logits and scores, and the boxes of the anchors
that pass the threshold are decoded here (`vision/yolo_head.py`), not all 4,032 in the graph.

The pot region can be passed as `roi=(x0, y0, x1, y1)` so the detector spends its pixels on
the pot; boxes always come back in the frame's own pixels.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.cards import rank_of
from vision.boxes import centre as _centre, side as _side, touch
from vision.card_face import FACE_H, FACE_MODEL_NAME, FACE_W, candidate_pairs, centres, fuse, rectify
from vision.classifier import CLASSES, NONE, NONE_ID, IndexClassifier, crop_index, session_options, to_nchw, turned
from vision.int8_check import check_int8
from vision.yolo_head import decode as decode_boxes
from vision.yolo_head import split_head

MODELS = Path(__file__).resolve().parents[1] / "models"
DETECTOR_NAME = "card_index_detector.onnx"
CLASSIFIER_NAME = "card_index_classifier.onnx"
DEFAULT_DETECTOR = MODELS / DETECTOR_NAME


#: the detector's settings behind a table camera (`masta watch`, the web page's camera, the
#: pipeline benchmark): a play is decided on the agreement of several reads of the settled
#: pot (`vision.pot_watcher.consensus`), so one read may count at a lower confidence, and
#: any surer tighter re-read of a loose index box is taken. Chosen on the benchmark videos
#: (bench/pipeline.py: play recall 0.552 -> 0.568 from conf 0.5 to 0.35, and 0.521 with
#: `accept` 0.8); still photos keep the defaults (real valid F1 0.936 vs 0.921).
#: Faint index boxes (scored under 0.1) only in frames at least 720 px high (`faint_min_side`):
#: with a 1280x720 camera `det_conf` 0.05 read 929 instead of 894 of the benchmark's 1,073
#: plays; at 640x480 (indices ~12 px) they derailed a game (model card, "Faint index boxes").
#: `group_indices`' suit mates: a same-rank card read from a surer card's index counts as
#: it when its own reads give that card at least this (chosen on the real *train* photos)
MATE_READS = 0.1
#: how near (index sizes, closest indices) such a card must lie; 0 = never merged
MATE_NEAR = 1.0

#: No suit mates (`mate_near` 0): in the pot a double of one rank is fanned index over index,
#: and on the 1280x720 benchmark's first four games the rule lost 5 of the pot's 790 cards
#: found for 1 false card fewer (`bench/detector_errors.py --videos ... --count 4 --decks 0
#: --mate-near 1`); the watcher's pooled reads already settle a box's suit.
#: An index still unsure after the re-reads is read at its four quarter turns too (`turns` 4),
#: the reads averaged: on the dev renders (seeds 200-203) 530 of 567 plays right against 521,
#: at 32.9 ms a 640x480 frame against 23 (every crop turned, even the sure ones: 534 plays, but
#: 63 ms, over issue #3's 40; model card, "An unsure index read at its four quarter turns").
#: Two places of one card id within two index sizes are two cards (`beside` 2, `beside_split`):
#: the demo's fanned 2D 2S, its 2S's index read 2D, was one 2D; on the dev renders (seeds
#: 200-205) 802 of 867 plays against 801. Not on still photos: the real valid photos' F1 fell
#: from 0.979 to 0.958 with it (close-ups, where one index's rank and suit boxes need not touch).
CAMERA: dict = {"conf": 0.35, "accept": 0.0, "det_conf": 0.05, "faint_min_side": 720, "mate_near": 0.0,
                "turns": 4, "beside": 2.0}


@dataclass
class Detection:
    card: str
    conf: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in frame pixels
    #: the classifier's other readings of this card (card -> probability, the card itself
    #: included), so that several reads of a still pot can pool them (`pot_watcher.consensus`)
    reads: dict[str, float] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        return {"card": self.card, "conf": round(float(self.conf), 4),
                "box": [round(float(v), 1) for v in self.box]}


class CardReads(list):
    """`detect()`'s cards (a list of `Detection`), with the frame's every index read kept
    apart (`indices`: one `Detection` per index box, however unsure), for a caller that looks
    for what the cards leave out: a fanned pair's lower index, read too faintly to be a card,
    still says "one card more" (`vision.pot.asking.maybe_more`)."""

    def __init__(self, cards: list[Detection], hits: list[IndexHit] = (),
                 reader: Callable[[np.ndarray], list[np.ndarray]] | None = None):
        super().__init__(cards)
        self._hits = list(hits)
        self._reader = reader

    def read_at(self, boxes) -> list[dict[str, float]]:
        """The classifier's reads (card -> probability, 0.05 or more) of more boxes of the same
        frame, where the detector found no index: a fanned card's half-hidden index that the
        watcher expects beside a played card's (`vision.pot.asking.lower_cards`). An empty read per
        box when this read cannot look again (made without its frame)."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if self._reader is None or not len(boxes):
            return [{} for _ in boxes]
        return [{CLASSES[k]: float(p[k]) for k in np.flatnonzero(p[:NONE_ID] >= 0.05)}
                for p in self._reader(boxes)]

    @property
    def indices(self) -> list[Detection]:
        return [Detection(h.card, h.conf, h.box, _readings([h])) for h in self._hits]


@dataclass
class IndexHit:
    """One corner index: where, how sure the detector is, what the classifier read."""

    box: tuple[float, float, float, float]
    det_conf: float
    card: str
    cls_conf: float
    probs: np.ndarray | None = field(default=None, repr=False)  # the classifier's, every class

    @property
    def conf(self) -> float:
        # the detector's score says "an index is here", the classifier's which card: the
        # classifier dominates (a faint but clearly read index is a card)
        return self.cls_conf * min(1.0, self.det_conf / 0.3) ** 0.5


def letterbox(img: np.ndarray, shape: tuple[int, int],
              out: np.ndarray | None = None) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping the aspect ratio and pad to `shape` (h, w) with grey, as YOLO trains;
    into `out` (uint8, h x w x 3) when given, so a video reuses one buffer."""
    h, w = img.shape[:2]
    r = min(shape[0] / h, shape[1] / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    interp = cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR
    top = (shape[0] - nh) // 2
    left = (shape[1] - nw) // 2
    if out is None:
        out = np.empty((shape[0], shape[1], 3), np.uint8)
    if (nw, nh) == (shape[1], shape[0]):  # a 4:3 frame into a 4:3 input: no border
        resized = cv2.resize(img, (nw, nh), dst=out, interpolation=interp)
        if resized is not out:  # OpenCV made its own (another pixel type): copy it in
            out[:] = resized
    else:
        out[:] = 114
        out[top:top + nh, left:left + nw] = cv2.resize(img, (nw, nh), interpolation=interp)
    return out, r, (left, top)


def to_blob(img: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """BGR uint8 h x w x 3 -> the detector's float32 1 x 3 x h x w input (`to_nchw`; half
    the time of cv2.dnn.blobFromImage here, and no new 2.4 MB buffer per frame)."""
    return to_nchw(img[None], out)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Greedy non-maximum suppression; returns kept indices, best first. The overlaps of
    every pair at once, then one pass down the scores (a frame's ~250 faint and firm boxes:
    0.7 instead of 1.9 ms for a loop of array slices; the same boxes kept)."""
    order = scores.argsort()[::-1]
    b = boxes[order]
    areas = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    w = np.clip(np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]), 0, None)
    h = np.clip(np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]), 0, None)
    inter = w * h
    suppresses = inter / (areas[:, None] + areas[None, :] - inter + 1e-9) >= iou
    alive = np.ones(len(order), bool)
    keep: list[int] = []
    for i in range(len(order)):
        if alive[i]:
            keep.append(int(order[i]))
            alive &= ~suppresses[i]
    return keep


class CardDetector:
    """Find the cards in BGR frames with the exported ONNX models.

    `model_path`: the detector ONNX (default `models/card_index_detector.onnx`); the
    classifier is `card_index_classifier.onnx` next to it unless `classifier_path` is given.
    """

    def __init__(self, model_path: str | Path | None = None, classifier_path: str | Path | None = None,
                 conf: float = 0.5, det_conf: float = 0.03, iou: float = 0.5, threads: int = 2,
                 decks: int | None = 1, max_zoom: float = 1.0, use_face: bool = True,
                 box_scales: tuple[float, ...] = (1.0, 1.4, 0.8, 1.8, 0.65), sure: float = 0.9, accept: float = 0.8,
                 reread_from: float = 0.1, faint_min_side: int = 0, decode_kept: bool = True,
                 deck=None, features: bool = False, mate_near: float = MATE_NEAR, turns: int = 1,
                 beside: float = 0.0,
                 letters: str = "en"):
        import onnxruntime as ort

        model_path = Path(model_path) if model_path else DEFAULT_DETECTOR
        if not model_path.is_file():
            raise FileNotFoundError(f"card detector model {model_path} not found: run `masta train` "
                                    f"or pass the path of card_index_detector.onnx")
        classifier_path = Path(classifier_path) if classifier_path else model_path.with_name(CLASSIFIER_NAME)
        if not classifier_path.is_file():
            raise FileNotFoundError(f"card index classifier {classifier_path} not found next to the "
                                    f"detector: both ONNX files come from `masta train`")
        # an int8 file with 8-bit weights misreads most cards on a CPU without VNNI: refuse it
        check_int8(model_path, classifier_path)
        # the box decoding of the likely anchors only, when the graph is a YOLOv8 head
        # (`vision.yolo_head`: the run takes about 6 ms less on 2 cores); else the whole graph
        cut = split_head(model_path) if decode_kept else None
        self.head = cut[1] if cut else None
        self.session = ort.InferenceSession(cut[0] if cut else str(model_path), session_options(threads),
                                            providers=["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        shp = inp.shape
        self.input_hw = (int(shp[2]) if isinstance(shp[2], int) else 384,
                         int(shp[3]) if isinstance(shp[3], int) else 512)
        # `deck`: a `vision.deck_memory.DeckMemory` taught at this table (`masta learn-deck`);
        # `features`: load the classifier with its features, for teaching one
        # `letters`: the deck's court letters (`vision.letters`; a classifier with glyph classes
        # reads what is printed, the letters make it a rank)
        self.classifier = IndexClassifier(str(classifier_path), threads=threads, features=features, deck=deck,
                                          letters=letters)
        # an index still read unsure after the re-reads is read again at `turns` quarter turns
        # (1: never), the reads averaged (`read_boxes`); a wrong count fails here, at start-up
        turned((), turns)
        self.turns = turns
        # the card-face reader is optional: models exported before it read indices alone
        face_path = classifier_path.with_name(FACE_MODEL_NAME)
        self.face = (IndexClassifier(str(face_path), threads=threads, shape=(FACE_H, FACE_W))
                     if use_face and face_path.is_file() else None)
        ih, iw = self.input_hw
        self._canvas = np.empty((ih, iw, 3), np.uint8)
        self._blob = np.empty((1, 3, ih, iw), np.float32)
        self._lock = threading.Lock()
        # det_conf 0.03 (was 0.1, 1 Dec): a faint index box counts little alone (a card's
        # confidence is scaled by its box's score, `IndexHit.conf`) but completes a card seen
        # at another corner; chosen on the real *train* photos and the synthetic tuning set
        # (model card, "Faint index boxes")
        self.conf, self.det_conf, self.iou = conf, det_conf, iou
        # a deck holds each card once: with one deck, a second read of the same id elsewhere is a
        # misread (a pip or a court figure taken for an index), not a second card; None = no limit
        self.decks = decks
        # a same-rank card within this many index sizes of a surer one, read from its index
        # with another suit, is dropped (`suit_mates`); 0 keeps every such card
        self.mate_near = mate_near
        self.beside = beside
        # how far a region of interest may be magnified to fill the model's input (1 = never)
        self.max_zoom = max_zoom
        # an index box read at less than `sure` is read again cut to these multiples of its
        # size, looser and tighter, one at a time until a read is sure (a read is kept when
        # surer than the one before and than `accept`)
        self.box_scales, self.sure, self.accept = tuple(box_scales), sure, accept
        # only boxes the detector scores at least this are re-read: the faint ones that
        # det_conf 0.03 lets in (about half of a real photo's boxes) are read once, which keeps
        # a frame under 40 ms (36 vs 50 ms; real valid F1 0.967 vs 0.970)
        self.reread_from = reread_from
        # in frames whose short side is under this, boxes scored under `reread_from` are not
        # read at all (the threshold is at least `reread_from`); 0: every frame reads them
        self.faint_min_side = faint_min_side
        self.last_timing: dict[str, float] = {}

    # ---------------------------------------------------------------- stage 1
    def find_indices(self, frame: np.ndarray, roi=None) -> tuple[np.ndarray, np.ndarray]:
        """Boxes (N, 4) in frame pixels and scores (N,) of the corner indices."""
        ox, oy = 0, 0
        img = frame
        if roi is not None:
            x0, y0, x1, y1 = self._no_zoom(roi, frame.shape[1], frame.shape[0])
            x0, y0 = max(0, x0), max(0, y0)
            x1, y1 = min(frame.shape[1], x1), min(frame.shape[0], y1)
            if x1 - x0 < 8 or y1 - y0 < 8:
                return np.zeros((0, 4), np.float32), np.zeros((0,), np.float32)
            img, ox, oy = frame[y0:y1, x0:x1], x0, y0
        with self._lock:  # the input buffers are reused from frame to frame
            lb, r, (left, top) = letterbox(img, self.input_hw, out=self._canvas)  # fixed-shape export
            x = to_blob(lb, out=self._blob)
            outs = self.session.run(None, {self.input_name: x})
        # (5, N): cx, cy, w, h, score; or, the head cut, the box logits and the scores
        scores = outs[0][0][4] if self.head is None else outs[1][0][0]
        floor = self.det_conf
        if min(frame.shape[:2]) < self.faint_min_side:
            floor = max(floor, self.reread_from)  # small indices: faint boxes are mostly noise
        keep = scores >= floor
        if not keep.any():
            return np.zeros((0, 4), np.float32), np.zeros((0,), np.float32)
        if self.head is None:
            out = outs[0][0]
            cx, cy, bw, bh = out[0, keep], out[1, keep], out[2, keep], out[3, keep]
        else:
            cx, cy, bw, bh = decode_boxes(self.head, outs[0][0], np.flatnonzero(keep))
        boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
        scores = scores[keep]
        k = nms(boxes, scores, self.iou)
        boxes, scores = boxes[k], scores[k]
        boxes[:, [0, 2]] = (boxes[:, [0, 2]] - left) / r + ox
        boxes[:, [1, 3]] = (boxes[:, [1, 3]] - top) / r + oy
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, frame.shape[1])
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, frame.shape[0])
        return boxes.astype(np.float32), scores.astype(np.float32)

    def _no_zoom(self, roi, fw: int, fh: int) -> tuple[int, int, int, int]:
        """Grow a region smaller than the model's input (in frame pixels, over `max_zoom`)
        around its centre, shifted to stay inside the frame: magnified cards come out larger
        and blurrier than any the detector trained on, and it misses them (game videos, pot
        crops at 640x480: 18 of 30 plays read at 1x, 10 at 1.6x)."""
        def grow(lo: float, hi: float, need: float, limit: int) -> tuple[int, int]:
            if hi - lo < need:
                c = (lo + hi) / 2
                lo, hi = c - need / 2, c + need / 2
                shift = max(0.0, -lo) - max(0.0, hi - limit)
                lo, hi = lo + shift, hi + shift
            return int(round(lo)), int(round(hi))

        x0, y0, x1, y1 = (float(v) for v in roi)
        ih, iw = self.input_hw
        x0, x1 = grow(x0, x1, iw / self.max_zoom, fw)
        y0, y1 = grow(y0, y1, ih / self.max_zoom, fh)
        return x0, y0, x1, y1

    # ---------------------------------------------------------------- stage 2
    def read_indices(self, frame: np.ndarray, roi=None) -> list[IndexHit]:
        t0 = time.perf_counter()
        boxes, scores = self.find_indices(frame, roi)
        t1 = time.perf_counter()
        probs = self.read_boxes(frame, boxes, scores)
        t2 = time.perf_counter()
        hits = [IndexHit(tuple(float(v) for v in b), float(s), CLASSES[int(p.argmax())], float(p.max()), p)
                for b, s, p in zip(boxes, scores, probs)]
        if self.face is not None:
            hits = self.read_faces(frame, hits)
        t3 = time.perf_counter()
        self.last_timing = {"detector_ms": (t1 - t0) * 1000, "classifier_ms": (t2 - t1) * 1000,
                            "face_ms": (t3 - t2) * 1000}
        return [h for h in hits if h.card != NONE]

    def read_boxes(self, frame: np.ndarray, boxes: np.ndarray, scores: np.ndarray | None = None,
                   with_deck: bool = True) -> list[np.ndarray]:
        """The classifier's probabilities for each index box. A box it is not sure of (no
        card above `sure`) is read again cut looser and tighter (`box_scales`), one scale a
        round until its read is sure (a fifth fewer crops than all at once), and a read is kept
        when its card is surer than the best so far and than `accept`.
        Tighter: on decks it never trained on the detector's boxes run loose and off-centre
        (1.2-1.3 times the index), and the index, small in a loose crop, is misread (held-out
        decks in game videos: 57-63% of indices read right from the box as found, 77-82% with
        the tighter reads). A tighter cut can lose a big index's suit, so on still photos only
        a sure re-read replaces the first (`accept` 0.8; the table camera takes any surer one).
        Looser: where the suit sits apart below the rank, the box often holds the rank alone
        and the suit is a guess (the real photos' 7C read 7S from a box on the bare 7). A
        looser read may change the suit only: on small cards it also takes in the face and
        the neighbours (photographed-deck cards read as jokers). Figures: the model card,
        "Looser re-reads". With `scores`, boxes scored under `reread_from` are read once.
        With `turns` 2 or 4, a box whose kept read is still under `sure` (of a card or of no
        card) is read at its kept cut turned too, the reads averaged (`classifier.turned`),
        whatever rank they give: four looks at a looser cut are not one look at a neighbour
        (held to its suit as the looser reads are, the benchmark read 985 plays against 990).
        A taught deck (`deck`) weighs each box's kept read last: which cuts are read, and which
        read is kept, stay the classifier's own choice (`with_deck` False: not weighed)."""
        if not len(boxes):
            return []
        cut = [crop_index(frame, b) for b in boxes]  # the cut of each box's kept read
        probs, feats = self.classifier.probabilities(cut)
        probs = list(probs)
        for sc in self.box_scales[1:]:  # one scale a round: a box read surely stops there
            again = [i for i, p in enumerate(probs) if _card_conf(p) < self.sure
                     and (scores is None or scores[i] >= self.reread_from)]
            if not again:
                break
            crops = [crop_index(frame, boxes[i], jitter=(0.0, 0.0, sc)) for i in again]
            ps, fs = self.classifier.probabilities(crops)
            for k, (i, p) in enumerate(zip(again, ps)):
                if sc > 1 and _rank(p) != _rank(probs[i]):
                    continue  # a looser cut is for the suit: it may take in a neighbour's rank
                if _card_conf(p) > max(_card_conf(probs[i]), self.accept):
                    probs[i], cut[i] = p, crops[k]
                    if feats is not None:
                        feats[i] = fs[k]
        if self.turns > 1:
            # still unsure (of a card, or of no card): the kept cut read at its other turns too
            unsure = [i for i, p in enumerate(probs) if p.max() < self.sure]
            if unsure:
                more, _ = self.classifier.probabilities(turned([cut[i] for i in unsure], self.turns)[len(unsure):])
                more = more.reshape(self.turns - 1, len(unsure), -1).sum(0)
                for k, i in enumerate(unsure):
                    probs[i] = (probs[i] + more[k]) / self.turns
        deck = self.classifier.deck if with_deck else None
        if deck is not None:  # a tuned ranker reads each box's kept cut again
            probs = list(deck.fuse(np.array(probs), feats, cut if deck.ranker_reads() else None))
        return probs

    def read_faces(self, frame: np.ndarray, hits: list[IndexHit]) -> list[IndexHit]:
        """Read the whole card between index pairs that may be one card's opposite corners;
        where the face reader says they are, both indices take the card that the face and
        the two corner reads agree on (`vision.card_face.fuse`), best pairs first."""
        if len(hits) < 2:
            return hits
        boxes = np.array([h.box for h in hits], np.float32)
        pairs = candidate_pairs(boxes)
        if not pairs:
            return hits
        c = centres(boxes)
        faces = self.face.classify([rectify(frame, c[i], c[j]) for i, j in pairs])
        fused = []
        for (i, j), (_, _, fp) in zip(pairs, faces):
            k, p = fuse(fp, hits[i].probs, hits[j].probs, NONE_ID)
            if k != NONE_ID:
                fused.append((float(fp[k]) * p, i, j, k, p))
        used: set[int] = set()
        out = list(hits)
        for _, i, j, k, p in sorted(fused, key=lambda f: -f[0]):
            if i in used or j in used:
                continue
            used.update((i, j))
            for n in (i, j):
                out[n] = IndexHit(hits[n].box, hits[n].det_conf, CLASSES[k], p, hits[n].probs)
        return out

    # ---------------------------------------------------------------- cards
    def detect(self, frame: np.ndarray, roi=None) -> CardReads:
        """One Detection per physical card seen in `frame` (BGR), most confident first; the
        index reads they were made of in `.indices`."""
        if frame is None or not hasattr(frame, "shape") or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError("detect() needs a BGR image (H x W x 3 numpy array)")
        hits = self.read_indices(frame, roi)
        return CardReads(self.cards_of(hits), hits, lambda boxes: self.read_boxes(frame, boxes))

    def cards_of(self, hits: list[IndexHit]) -> list[Detection]:
        """The physical cards that `read_indices`' hits make, at this detector's settings."""
        cards = group_indices(hits, copies=self.decks, mate_near=self.mate_near, beside=self.beside)
        return [c for c in cards if c.conf >= self.conf]


# `none` is the last class, so the cards are probs[:NONE_ID] (a slice: np.delete's copy cost 3 ms
# of a 640x480 frame's ~45, the classifier's probabilities being tested ~260 times a frame)
assert NONE_ID == len(CLASSES) - 1


def _rank(probs: np.ndarray) -> str:
    """The rank of the classifier's likeliest card (`none` left out; the joker is its own)."""
    return rank_of(CLASSES[int(probs[:NONE_ID].argmax())])


def _card_conf(probs: np.ndarray) -> float:
    """The classifier's probability of its likeliest card (`none` left out)."""
    return float(probs[:NONE_ID].max())


def _readings(group: list[IndexHit], top: int = 3, least: float = 0.05) -> dict[str, float]:
    """The group's `top` cards by mean probability (at least `least`), its own card first."""
    rows = [h.probs for h in group if h.probs is not None]
    if not rows:
        return {}
    mean = np.mean(rows, axis=0)
    order = [int(k) for k in np.argsort(-mean) if int(k) != NONE_ID][:top]
    out = {group[0].card: float(mean[CLASSES.index(group[0].card)])}
    out.update({CLASSES[k]: float(mean[k]) for k in order if mean[k] >= least and CLASSES[k] not in out})
    return out


def group_indices(hits: list[IndexHit], copies: int | None = None,
                  mate_near: float = 0.0, mate_reads: float = MATE_READS, beside: float = 0.0) -> list[Detection]:
    """Merge the indices of one physical card (same id, within about one card's length).

    A card's length is about 5.5 times its index's longer side; two identical cards (two
    decks) further apart than that stay two cards. `copies`: how many cards of one id can
    exist (the decks in play; jokers twice that); beyond that, the least confident groups of that id are dropped.
    `mate_near` > 0: a card whose closest index lies within `mate_near` index sizes of a
    surer card's of the same rank, and whose own reads give that card at least `mate_reads`,
    is that card's index read with the wrong suit, not a card (`suit_mates`).
    `beside` > 0: two places of one id that close (index sizes) are two cards (`beside_split`).
    """
    hits = sorted(hits, key=lambda h: -h.conf)
    groups: list[list[IndexHit]] = []
    for h in hits:
        cx, cy = (h.box[0] + h.box[2]) / 2, (h.box[1] + h.box[3]) / 2
        size = max(h.box[2] - h.box[0], h.box[3] - h.box[1])
        for g in groups:
            if g[0].card != h.card:
                continue
            gx, gy = (g[0].box[0] + g[0].box[2]) / 2, (g[0].box[1] + g[0].box[3]) / 2
            gsize = max(g[0].box[2] - g[0].box[0], g[0].box[3] - g[0].box[1])
            if np.hypot(cx - gx, cy - gy) <= 5.5 * max(size, gsize):
                g.append(h)
                break
        else:
            groups.append([h])
    split = [beside_split(g, beside) if beside > 0 else [g] for g in groups]
    groups = [part for parts in split for part in parts]
    split_off = {id(part) for parts in split for part in parts[1:]}
    out = []
    for g in groups:
        b = np.array([h.box for h in g])
        # confidence: the best index, raised a little when several indices agree (counting one
        # index's overlapping boxes once was measured 1 Dec and not kept: see the model card)
        p = 1.0 - np.prod([1.0 - h.conf for h in g])
        d = Detection(g[0].card, float(min(1.0, max(p, g[0].conf))),
                      (float(b[:, 0].min()), float(b[:, 1].min()),
                       float(b[:, 2].max()), float(b[:, 3].max())), _readings(g))
        out.append(other_suit(d) if id(g) in split_off else d)
    if mate_near > 0:
        out = suit_mates(out, groups, mate_near, mate_reads)
    out.sort(key=lambda d: -d.conf)
    if copies is not None:
        seen: dict[str, int] = {}
        kept = []
        for d in out:  # most confident first
            seen[d.card] = seen.get(d.card, 0) + 1
            if seen[d.card] <= (2 * copies if d.card == "JK" else copies):  # two jokers a deck
                kept.append(d)
        out = kept
    return out


def _places(g: list[IndexHit]) -> list[list[IndexHit]]:
    """The hits of one card id in places: boxes that touch are one index (the rank alone, rank
    and suit, a looser box)."""
    places: list[list[IndexHit]] = []
    for h in g:
        joined = [p for p in places if any(touch(h.box, o.box) for o in p)]
        for p in joined:
            places.remove(p)
        places.append([x for p in joined for x in p] + [h])
    return places


def beside_split(g: list[IndexHit], beside: float) -> list[list[IndexHit]]:
    """One card id's group of hits, split where an index place lies right beside a surer one
    (within `beside` index sizes: a place's tightest box's longer side, centre to centre,
    without touching): a card's corner indices lie at least its width apart (about 3.5 index
    sizes), while a fanned double of one rank lays its lower card's index right beside the
    upper card's, and that lower index, read with the upper card's suit, was counted as the
    upper card's, the lower card lost. The less sure place is another card's index (it keeps
    its own group; which card it is, `other_suit` says). The group's first hit stays first."""
    places = _places(g)
    if len(places) < 2:
        return [g]
    places.sort(key=lambda p: -max(h.conf for h in p))
    # each place's size is its tightest box's: a loose box spans much more than the index
    size = [min(_side(h.box) for h in p) for p in places]
    kept, apart = [0], []
    for i in range(1, len(places)):
        near = any(np.hypot(*np.subtract(_centre(a.box), _centre(b.box))) <= beside * min(size[k], size[i])
                   for k in kept for a in places[k] for b in places[i])
        (apart if near else kept).append(i)
    stays = {id(h) for k in kept for h in places[k]}
    return [[h for h in g if id(h) in stays]] + [sorted(places[i], key=lambda h: -h.conf) for i in apart]


def other_suit(d: Detection) -> Detection:
    """A card split off beside a surer card of its id (`beside_split`) is another card of that
    rank, the read's own card lying there already, its index next door: the likeliest other
    suit its reads give, as sure as its rank is read (the watcher asks while the suits stay
    split), its reads without the card it cannot be. With no other suit read at all it stays
    a second copy."""
    others = {c: p for c, p in d.reads.items() if c != d.card and rank_of(c) == rank_of(d.card)}
    own = d.reads.get(d.card, 0.0)
    if not others or own <= 0:
        return d
    card = max(others, key=others.get)
    conf = min(1.0, d.conf * (own + sum(others.values())) / own)
    return Detection(card, conf, d.box, {card: others[card], **{c: p for c, p in d.reads.items()
                                                                if c not in (card, d.card)}})


def suit_mates(cards: list[Detection], groups: list[list[IndexHit]], near: float,
               reads: float = MATE_READS) -> list[Detection]:
    """Drop the cards that are a surer card's index read with another suit.

    An index is often found as several boxes (the rank alone, rank and suit, a looser one)
    that overlap too little for the suppression, and a box on the bare rank guesses the suit:
    the real photos' 7C read 7C from one box and 7S from the next. A card of the same rank
    whose index lies within `near` index sizes of a surer one's, and whose own reads give the
    surer card at least `reads`, is that card (the real *train* photos, F1 0.958 -> 0.969 at 1
    index size and 0.971 at 6: model card, "Suit mates"). `cards[i]` is made of `groups[i]`.
    """
    order = sorted(range(len(cards)), key=lambda i: -cards[i].conf)
    kept: list[int] = []
    for i in order:
        d = cards[i]
        mate = False
        for k in kept:
            other = cards[k]
            if other.card == d.card or rank_of(other.card) != rank_of(d.card):
                continue
            if d.reads.get(other.card, 0.0) < reads:
                continue
            gap = min(np.hypot(*np.subtract(_centre(a.box), _centre(b.box)))
                      / max(1e-6, min(_side(a.box), _side(b.box))) for a in groups[i] for b in groups[k])
            if gap <= near:
                mate = True
                break
        if not mate:
            kept.append(i)
    return [cards[i] for i in sorted(kept)]


def letters_mismatch(detector: "CardDetector") -> str | None:
    """A sentence for the page when the deck on the table prints other court letters than the
    detector's setting (`vision.letters.LetterWatch`); None while they agree or cannot be told."""
    return detector.classifier.letter_watch.mismatch()
