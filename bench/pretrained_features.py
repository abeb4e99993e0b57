"""Do pretrained OCR weights read card ranks on unseen decks better than masta's own classifier?

    PYTHONPATH=$PWD .venv/bin/python bench/pretrained_features.py [--train DIR] [--limit N]

Issue 54. Model hubs are out of reach here, but the `rapidocr_onnxruntime` wheel (Apache-2.0)
ships PaddleOCR's PP-OCRv4 text recognizer as an ONNX file inside the wheel; nothing is
downloaded at run time. This script is a measurement only: the runtime (vision/, web/) never
imports it, and the package is optional (`pip install 'masta[ocr-bench]'` or
`pip install rapidocr_onnxruntime`); without it the script says so and exits 2.

Every figure reads crops cut around the ground-truth corner-index boxes of each dataset
(`meta/<split>/*.json`, `indices`), so the detector plays no part; `vision.classifier.crop_index`
cuts them (64 x 64, 1.3 times the box's longer side), as the runtime does. The score is rank
accuracy over the 13 ranks (suits ignored; jokers left out). Per dataset it prints:

 a. masta's classifier (`models/card_index_classifier.onnx` by default): the crop's most
    likely class, read as its rank (`none` or a joker counts as wrong); `a1` reads the crop as
    cut, `a4` averages the four quarter turns (as the table camera reads, `vision.detector.CAMERA`);
 b. rapidocr's text recognizer alone (no text detection): `b2` reads the crop as cut and turned
    180 degrees and keeps the surer read (issue 54's recipe), `b4` keeps the surest of the four
    quarter turns; its text is mapped to a rank (A K Q J, 10 written 10/IO/1O/lO, 2-9); `empty`
    is how often the kept read is no text at all, `unmapped` how often it is text with no rank;
 c. a softmax-regression head on the recognizer's features, cut out of its graph (the
    backbone's pooled output `p2o.AveragePool.1`, 480 channels, and the SVTR neck's output
    `transpose_51.tmp_0`, 120 channels, each mean- and max-pooled over the sequence), a 13-rank softmax regression trained
    on crops of synthetic pots drawn in the TRAINING deck styles only (`--train`, made with
    `datasets.synth.write_dataset` and `datasets.faces.training_styles()` when missing;
    never Knoll or the photographed deck), every crop at its four quarter turns; `c1` reads
    the crop as cut, `c4` averages the four turns; `backbone mlp` is a one-hidden-layer MLP
    (256 ReLU units, numpy) on the backbone features instead, its epoch picked on a tenth of
    the training pots held aside;
 ctl. the same head trained the same way on masta's classifier's own last-layer features
    (`vision.classifier.features_graph`): what the same little training set gives a head on
    from-scratch features, so c is compared with c's own control as well as with a (linear,
    and `ctl mlp` the same MLP).

Measured 7 Dec 2026 (2-core CPU shared with other runs, 691 s; `--train` a 1,000-pot render,
seed 777, 6,255 training crops): rank accuracy, Knoll 545 crops / photographed deck 534 crops:
a1 0.833 / 0.908, a4 0.861 / 0.929; b2 0.094 / 0.215 (empty 0.084 / 0.075), b4 0.116 / 0.251,
b4 with lookalikes 0.134 / 0.268, any turn right 0.228 / 0.448; c4 backbone 0.760 / 0.762,
c4 neck 0.639 / 0.635, c4 backbone MLP 0.747 / 0.798; ctl4 0.868 / 0.923, ctl4 MLP 0.862 / 0.912.
No pretrained variant comes near masta's own classifier on either unseen deck.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DEFAULT_SETS = ("data/bench-heldout-knoll-n100", "data/bench-heldout-photo-deck-n100")
DEFAULT_TRAIN = "data/synth-train-ocrbench-s777-n1000"
#: the recognizer's feature layers (ONNX tensor names in ch_PP-OCRv4_rec_infer.onnx) and widths
FEATURE_LAYERS = {"backbone": "p2o.AveragePool.1", "neck": "transpose_51.tmp_0"}
REC_HEIGHT = 48  # the recognizer's input height (rapidocr's config: rec_img_shape [3, 48, 320])


def need_rapidocr():
    """The rapidocr_onnxruntime package directory, or exit 2 with how to install it."""
    try:
        import rapidocr_onnxruntime
    except ImportError:
        print("bench/pretrained_features.py: rapidocr_onnxruntime is not installed; it is optional "
              "and only this measurement needs it: .venv/bin/pip install rapidocr_onnxruntime "
              "(or the extra: pip install -e '.[ocr-bench]')", file=sys.stderr)
        sys.exit(2)
    return Path(rapidocr_onnxruntime.__file__).resolve().parent


def package_note(pkg: Path) -> str:
    from importlib import metadata

    try:
        md = metadata.metadata("rapidocr_onnxruntime")
        lic = md.get("License") or "?"
        return f"rapidocr_onnxruntime {md['Version']} (licence {lic}), recognizer {REC_MODEL}"
    except metadata.PackageNotFoundError:
        return f"rapidocr_onnxruntime (no metadata) at {pkg}"


REC_MODEL = "models/ch_PP-OCRv4_rec_infer.onnx"


# --------------------------------------------------------------------------- crops
def load_crops(folder: Path, limit: int | None = None) -> tuple[list[np.ndarray], np.ndarray]:
    """64 px BGR crops around every ground-truth index of a synthetic set whose rank is one of
    the 13 (jokers left out), and their rank numbers (places in RANKS)."""
    metas = sorted(folder.glob("meta/*/*.json"))
    if limit:
        metas = metas[:limit]
    crops, ranks = [], []
    for mp in metas:
        c, r = _one_pot(folder, mp)
        crops += c
        ranks += r
    return crops, np.array(ranks, np.int64)


def quarter_turns(crops: list[np.ndarray]) -> list[list[np.ndarray]]:
    """The crops as cut, then turned one, two and three quarter turns (four lists)."""
    return [crops] + [[np.ascontiguousarray(np.rot90(c, k)) for c in crops] for k in (1, 2, 3)]


# --------------------------------------------------------------------------- a. masta
def masta_ranks(model: Path, crops: list[np.ndarray], threads: int) -> dict[str, np.ndarray]:
    """The classifier's rank for each crop: as cut (a1), and its probabilities averaged over the
    four quarter turns (a4); -1 where the most likely class is `none` or the joker."""
    from vision.classifier import CLASS_RANK, IndexClassifier

    cls = IndexClassifier(str(model), threads=threads)
    probs = [cls.probabilities(t)[0] for t in quarter_turns(crops)]
    # RANKS_ORDER (vision.classifier) is RANKS: A, 2, ..., 10, J, Q, K
    return {"a1": CLASS_RANK[probs[0].argmax(1)], "a4": CLASS_RANK[np.mean(probs, 0).argmax(1)]}


# --------------------------------------------------------------------------- b. OCR
#: letters the recognizer reads for a digit on these crops; only the `lookalike` variant maps
#: them. They were picked after looking at a few held-out (photo-deck) crops' reads, so that
#: variant is an optimistic one, not a clean held-out figure
LOOKALIKES = str.maketrans({"G": "6", "S": "5", "B": "8", "Z": "2"})


def text_rank(text: str, lookalike: bool = False) -> int | None:
    """A recognized string's rank (a place in RANKS), or None when it names none. The first
    rank found wins; 10 may come out as 10, IO, 1O, lO, I0 (the recognizer's lookalikes);
    `lookalike` also reads G, S, B, Z as 6, 5, 8, 2."""
    t = "".join(text.split()).upper()
    if lookalike:
        t = t.translate(LOOKALIKES)
    ten = t.translate(str.maketrans({"I": "1", "L": "1", "|": "1", "!": "1", "O": "0", "D": "0"}))
    for i, ch in enumerate(t):
        if ten[i:i + 2] == "10":
            return RANKS.index("10")
        if ch in "AKQJ23456789":
            return RANKS.index(ch)
    return None


def ocr_reads(pkg: Path, crops: list[np.ndarray], threads: int) -> list[list[tuple[str, float]]]:
    """rapidocr's text recognizer (no detection, no direction classifier) on each quarter turn
    of each crop, as the package runs it (its own resizing, padding and CTC decoding)."""
    from rapidocr_onnxruntime.ch_ppocr_rec import TextRecognizer
    from rapidocr_onnxruntime.utils import read_yaml

    cfg = read_yaml(str(pkg / "config.yaml"))["Rec"]
    cfg.update(model_path=str(pkg / REC_MODEL), intra_op_num_threads=threads, inter_op_num_threads=1)
    rec = TextRecognizer(cfg)
    return [rec(t)[0] for t in quarter_turns(crops)]


def ocr_ranks(reads: list[list[tuple[str, float]]], turns: tuple[int, ...],
              lookalike: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each crop, the surest read among `turns` (indices into `reads`): its rank (-1 for
    none), whether it was empty, whether it was text with no rank."""
    ranks, empty, unmapped = [], [], []
    for i in range(len(reads[0])):
        text, _ = max((reads[k][i] for k in turns), key=lambda r: r[1])
        r = text_rank(text, lookalike)
        ranks.append(-1 if r is None else r)
        empty.append(not text.strip())
        unmapped.append(bool(text.strip()) and r is None)
    return np.array(ranks), np.array(empty), np.array(unmapped)


# --------------------------------------------------------------------------- c. features + head
class RecFeatures:
    """The recognizer's graph with its feature layers as extra outputs; each crop is resized to
    48 x 48 and normalized as rapidocr does ((x / 255 - 0.5) / 0.5, BGR), without padding."""

    def __init__(self, pkg: Path, threads: int):
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper

        from vision.classifier import session_options

        model = onnx.load(str(pkg / REC_MODEL))
        names = {n for node in model.graph.node for n in node.output}
        for name in FEATURE_LAYERS.values():
            if name not in names:
                raise SystemExit(f"{REC_MODEL} has no tensor {name}: another recognizer version?")
            model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
        self.session = ort.InferenceSession(model.SerializeToString(), session_options(threads),
                                            providers=["CPUExecutionProvider"])
        self.outputs = list(FEATURE_LAYERS.values())

    def __call__(self, crops: list[np.ndarray], batch: int = 64) -> dict[str, np.ndarray]:
        import cv2

        out: dict[str, list[np.ndarray]] = {k: [] for k in FEATURE_LAYERS}
        for s in range(0, len(crops), batch):
            x = np.stack([cv2.resize(c, (REC_HEIGHT, REC_HEIGHT), interpolation=cv2.INTER_AREA)
                          for c in crops[s:s + batch]]).astype(np.float32)
            x = (x.transpose(0, 3, 1, 2) / 255.0 - 0.5) / 0.5
            res = self.session.run(self.outputs, {"x": x})
            for (key, _), v in zip(FEATURE_LAYERS.items(), res):
                seq = v.reshape(v.shape[0], v.shape[1], -1).transpose(0, 2, 1) if v.ndim == 4 else v
                # (n, T, C): pool over the sequence
                out[key].append(np.concatenate([seq.mean(1), seq.max(1)], 1))
        return {k: np.concatenate(v) for k, v in out.items()}


def masta_features(model: Path, crops: list[np.ndarray], threads: int) -> np.ndarray:
    from vision.classifier import IndexClassifier

    cls = IndexClassifier(str(model), threads=threads, features=True)
    return np.concatenate([cls.features(crops[s:s + 64]) for s in range(0, len(crops), 64)])


def fit_softmax(x: np.ndarray, y: np.ndarray, decay: float, steps: int = 400, lr: float = 0.05,
                seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Multinomial logistic regression (numpy, Adam, full batch, L2 `decay`) on standardized
    features: (mean, std, W, b)."""
    mu, sd = x.mean(0), x.std(0) + 1e-6
    z = (x - mu) / sd
    k = len(RANKS)
    rng = np.random.default_rng(seed)
    w = rng.normal(0, 0.01, (z.shape[1], k)).astype(np.float32)
    b = np.zeros(k, np.float32)
    onehot = np.eye(k, dtype=np.float32)[y]
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    for t in range(1, steps + 1):
        logits = z @ w + b
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) / len(z)
        grads = [z.T @ g + decay * w, g.sum(0)]
        for i, (param, grad) in enumerate(zip((w, b), grads)):
            m[i] = 0.9 * m[i] + 0.1 * grad
            v[i] = 0.999 * v[i] + 0.001 * grad * grad
            param -= lr * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    return mu, sd, w, b


def fit_mlp(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray, hidden: int = 256,
            epochs: int = 12, lr: float = 1e-3, decay: float = 1e-4, batch: int = 256,
            seed: int = 0) -> tuple[tuple, float]:
    """A one-hidden-layer MLP (ReLU, numpy, Adam, minibatches) on standardized features; the
    epoch that reads (xv, yv) best is kept: (head, its accuracy there)."""
    rng = np.random.default_rng(seed)
    mu, sd = x.mean(0), x.std(0) + 1e-6
    z = ((x - mu) / sd).astype(np.float32)
    k = len(RANKS)
    params = [rng.normal(0, np.sqrt(2 / z.shape[1]), (z.shape[1], hidden)).astype(np.float32),
              np.zeros(hidden, np.float32),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, k)).astype(np.float32),
              np.zeros(k, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    onehot = np.eye(k, dtype=np.float32)[y]
    best, t = (None, -1.0), 0
    for _ in range(epochs):
        order = rng.permutation(len(z))
        for s in range(0, len(z), batch):
            i = order[s:s + batch]
            w1, b1, w2, b2 = params
            h = np.maximum(z[i] @ w1 + b1, 0)
            logits = h @ w2 + b2
            p = np.exp(logits - logits.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            g = (p - onehot[i]) / len(i)
            gh = (g @ w2.T) * (h > 0)
            grads = [z[i].T @ gh + decay * w1, gh.sum(0), h.T @ g + decay * w2, g.sum(0)]
            t += 1
            for j, grad in enumerate(grads):
                m[j] = 0.9 * m[j] + 0.1 * grad
                v[j] = 0.999 * v[j] + 0.001 * grad * grad
                params[j] -= lr * (m[j] / (1 - 0.9 ** t)) / (np.sqrt(v[j] / (1 - 0.999 ** t)) + 1e-8)
        head = (mu, sd, *[q.copy() for q in params])
        acc = float((head_probs(head, xv).argmax(1) == yv).mean())
        if acc > best[1]:
            best = (head, acc)
    return best


def head_probs(head, x: np.ndarray) -> np.ndarray:
    if len(head) == 6:  # fit_mlp's
        mu, sd, w1, b1, w, b = head
        x = np.maximum(((x - mu) / sd) @ w1 + b1, 0)
        mu, sd = 0.0, 1.0
    else:
        mu, sd, w, b = head
    logits = ((x - mu) / sd) @ w + b
    e = np.exp(logits - logits.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def train_head(feats: list[np.ndarray], y: np.ndarray, pot: np.ndarray, log, mlp: bool = False) -> tuple:
    """A head on four turns' features of the training crops: the L2 decay that reads a tenth
    of the training pots, held aside (never the test decks), best; the head kept is the one
    fitted on the other nine tenths (no refit: the CPU is small)."""
    held = pot % 10 == 0
    x_all = np.concatenate(feats)
    y_all = np.tile(y, len(feats))
    h_all = np.tile(held, len(feats))
    if mlp:
        head, acc = fit_mlp(x_all[~h_all], y_all[~h_all], x_all[h_all], y_all[h_all])
        log(f"    MLP: {acc:.4f} on the held-aside training pots")
        return head, (acc, 1e-4)
    best = None
    for decay in (1e-4, 1e-3, 1e-2):
        head = fit_softmax(x_all[~h_all], y_all[~h_all], decay)
        acc = float((head_probs(head, x_all[h_all]).argmax(1) == y_all[h_all]).mean())
        log(f"    decay {decay:g}: {acc:.4f} on the held-aside training pots")
        if best is None or acc > best[0]:
            best = (acc, decay, head)
    return best[2], best[:2]


# --------------------------------------------------------------------------- main
def table(rows: list[dict], cols: list[str]) -> str:
    width = {c: max(len(c), 6, *(len(str(r[c])) for r in rows if isinstance(r[c], str))) for c in cols}
    cell = lambda v, c: f"{v:>{width[c]}}" if not isinstance(v, float) else f"{v:>{width[c]}.4f}"  # noqa: E731
    lines = [" | ".join(f"{c:>{width[c]}}" for c in cols)]
    lines += [" | ".join(cell(r[c], c) for c in cols) for r in rows]
    return "\n".join(lines)


def ensure_train(folder: Path, count: int, log) -> Path:
    """A synthetic training-style set in `folder` (made when missing; never the held-out decks)."""
    if not (folder / "meta").is_dir() or len(list(folder.glob("meta/*/*.json"))) < count:
        from datasets.faces import HELD_OUT_STYLES, training_styles
        from datasets.synth import write_dataset

        styles = tuple(s for s in training_styles() if s not in HELD_OUT_STYLES)
        log(f"rendering {count} training-style pots into {folder} ({len(styles)} styles) ...")
        write_dataset(folder, count, seed=777, size=640, styles=styles, progress=False)
    return folder


def train_crops(folder: Path, limit: int | None) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Crops of the training pots, their ranks, and each crop's pot number."""
    crops, ranks, pots = [], [], []
    metas = sorted(folder.glob("meta/*/*.json"))[:limit]
    for k, mp in enumerate(metas):
        c, r = _one_pot(folder, mp)
        crops += c
        ranks += list(r)
        pots += [k] * len(c)
    return crops, np.array(ranks, np.int64), np.array(pots)


def _one_pot(folder: Path, mp: Path) -> tuple[list[np.ndarray], list[int]]:
    import cv2

    from referee.cards import rank_of
    from vision.classifier import crop_index

    img = cv2.imread(str(folder / "images" / mp.parent.name / (mp.stem + ".jpg")))
    if img is None:
        return [], []
    crops, ranks = [], []
    for lab in json.loads(mp.read_text())["indices"]:
        if rank_of(lab["card"]) in RANKS:
            crops.append(crop_index(img, lab["box"]))
            ranks.append(RANKS.index(rank_of(lab["card"])))
    return crops, ranks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS),
                    help="YOLO folders with meta/<split>/*.json index boxes to read (never trained on)")
    ap.add_argument("--train", default=DEFAULT_TRAIN, help="synthetic pots in the training styles "
                    "for the heads of c and ctl (rendered there when missing)")
    ap.add_argument("--train-count", type=int, default=1000, help="pots to render / use for training")
    ap.add_argument("--classifier", default=str(ROOT / "models" / "card_index_classifier.onnx"))
    ap.add_argument("--limit", type=int, default=None, help="images per test set")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-mlp", dest="mlp", action="store_false", help="linear heads only (no "
                    "one-hidden-layer MLP heads on the backbone's and the control's features)")
    args = ap.parse_args(argv)
    pkg = need_rapidocr()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.0f} s] {msg}", file=sys.stderr, flush=True)

    # c's heads first: they are trained once and read every test set
    train = ensure_train(Path(args.train), args.train_count, log)
    tc, ty, tpot = train_crops(train, args.train_count)
    log(f"training crops: {len(tc)} from {tpot.max() + 1} pots in {train}; features of 4 turns ...")
    rec = RecFeatures(pkg, args.threads)
    turns = quarter_turns(tc)
    rec_feats = [rec(t) for t in turns]
    heads = {}
    for key in FEATURE_LAYERS:
        log(f"  head on the recognizer's {key} features:")
        heads[key] = train_head([f[key] for f in rec_feats], ty, tpot, log)
    if args.mlp:
        log("  MLP head on the recognizer's backbone features:")
        heads["backbone mlp"] = train_head([f["backbone"] for f in rec_feats], ty, tpot, log, mlp=True)
    log("  head on masta's classifier's own features (control):")
    model = Path(args.classifier)
    ctl_feats = [masta_features(model, t, args.threads) for t in turns]
    heads["ctl"] = train_head(ctl_feats, ty, tpot, log)
    if args.mlp:
        log("  MLP head on masta's classifier's own features (control):")
        heads["ctl mlp"] = train_head(ctl_feats, ty, tpot, log, mlp=True)
    del rec_feats, turns, ctl_feats

    rows = []
    for s in args.sets:
        folder = Path(s)
        crops, y = load_crops(folder, args.limit)
        if not crops:
            print(f"{s}: no index crops (needs meta/<split>/*.json with `indices`): skipped")
            continue
        log(f"{folder.name}: {len(crops)} crops")
        acc = lambda pred: float((np.asarray(pred) == y).mean())  # noqa: E731
        row = {"set": folder.name, "n": len(crops)}
        a = masta_ranks(model, crops, args.threads)
        row.update({k: acc(v) for k, v in a.items()})
        log("  OCR reads (4 turns) ...")
        reads = ocr_reads(pkg, crops, args.threads)
        for name, ks in (("b2", (0, 2)), ("b4", (0, 1, 2, 3))):
            r, empty, unmapped = ocr_ranks(reads, ks)
            row[name] = acc(r)
            row[name + " empty"] = float(empty.mean())
            row[name + " unmapped"] = float(unmapped.mean())
        row["b4 lookalike"] = acc(ocr_ranks(reads, (0, 1, 2, 3), lookalike=True)[0])
        # an upper bound, not a reader: right when any of the four turns' texts names the rank
        row["b4 any turn"] = float(np.mean([any(text_rank(r[i][0], True) == y[i] for r in reads)
                                            for i in range(len(y))]))
        qt = quarter_turns(crops)
        rf = [rec(t) for t in qt]
        for key in heads:
            if key.startswith("ctl"):
                continue
            p = [head_probs(heads[key][0], f[key.split()[0]]) for f in rf]
            row[f"c1 {key}"] = acc(p[0].argmax(1))
            row[f"c4 {key}"] = acc(np.mean(p, 0).argmax(1))
        mf = [masta_features(model, t, args.threads) for t in qt]
        for key in ("ctl", "ctl mlp"):
            if key in heads:
                p = [head_probs(heads[key][0], f) for f in mf]
                row[key.replace("ctl", "ctl1")] = acc(p[0].argmax(1))
                row[key.replace("ctl", "ctl4")] = acc(np.mean(p, 0).argmax(1))
        rows.append(row)

    print(package_note(pkg))
    print(f"classifier: {args.classifier}; heads trained on {len(tc)} crops x 4 turns from "
          f"{tpot.max() + 1} pots in {args.train} (training styles only); held-aside accuracy: "
          + ", ".join(f"{k} {v[1][0]:.4f} (decay {v[1][1]:g})" for k, v in heads.items()))
    print("rank accuracy on ground-truth index crops (13 ranks; empty/unmapped: share of crops)")
    if rows:
        keys = list(rows[0])
        cut = keys.index("c1 backbone")
        for cols in (keys[:cut], keys[:2] + keys[cut:]):
            print(table(rows, cols))
    print(f"wall time {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
