"""Measure the card models on any YOLO-format folder (`masta eval`, bench/detector.py).

What is compared is the *card set* of each image (which cards are visible, as a multiset),
whatever the style of the folder's boxes: whole cards (one box per card, class = card) or
our corner indices (class `index`, the card ids in `meta/*.json`). Reported: per-image
card-set precision, recall and F1 (mean over images, and pooled), top-card accuracy where
the labels say which card is on top, corner-index AP50 where the boxes are corner indices,
and milliseconds per image.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.cards import name_to_card, parse_card

IMG_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


@dataclass
class ImageResult:
    image: str
    truth: list[str]
    found: list[str]
    tp: int
    precision: float
    recall: float
    f1: float
    ms: float
    top_truth: str | None = None
    top_found: str | None = None


@dataclass
class Report:
    data: str
    images: list[ImageResult] = field(default_factory=list)
    ap50: float | None = None
    ap50_note: str = ""
    unreadable: list[str] = field(default_factory=list)
    corrected: int = 0  # labels fixed by an errata file

    def figures(self) -> dict:
        n = len(self.images)
        if not n:
            return {"images": 0}
        tp = sum(r.tp for r in self.images)
        nf = sum(len(r.found) for r in self.images)
        nt = sum(len(r.truth) for r in self.images)
        p = tp / nf if nf else 1.0
        rc = tp / nt if nt else 1.0
        tops = [r for r in self.images if r.top_truth]
        ms = [r.ms for r in self.images]
        return {
            "images": n,
            "card_set_f1_mean": float(np.mean([r.f1 for r in self.images])),
            "card_set_precision_mean": float(np.mean([r.precision for r in self.images])),
            "card_set_recall_mean": float(np.mean([r.recall for r in self.images])),
            "card_set_f1_pooled": 2 * p * rc / (p + rc) if p + rc else 0.0,
            "card_set_precision_pooled": p,
            "card_set_recall_pooled": rc,
            "exact_set_share": float(np.mean([r.f1 == 1.0 for r in self.images])),
            "top_card_accuracy": (float(np.mean([r.top_found == r.top_truth for r in tops]))
                                  if tops else None),
            "top_card_images": len(tops),
            "index_ap50": self.ap50,
            "ms_per_image_median": float(np.median(ms)),
            "ms_per_image_mean": float(np.mean(ms)),
            "unreadable": len(self.unreadable),
            "labels_corrected": self.corrected,
        }

    def summary(self) -> str:
        f = self.figures()
        if not f.get("images"):
            return f"{self.data}: no images evaluated"
        fixed = f", {self.corrected} label(s) corrected by the errata" if self.corrected else ""
        lines = [f"{self.data}: {f['images']} images{fixed}",
                 f"  card-set F1 {f['card_set_f1_mean']:.4f} (mean per image; precision "
                 f"{f['card_set_precision_mean']:.4f}, recall {f['card_set_recall_mean']:.4f})",
                 f"  card-set F1 {f['card_set_f1_pooled']:.4f} pooled (precision "
                 f"{f['card_set_precision_pooled']:.4f}, recall {f['card_set_recall_pooled']:.4f}); "
                 f"images read exactly: {f['exact_set_share']:.3f}"]
        if f["top_card_accuracy"] is not None:
            lines.append(f"  top-card accuracy {f['top_card_accuracy']:.4f} ({f['top_card_images']} images)")
        else:
            lines.append("  top-card accuracy: n/a (the labels do not say which card is on top)")
        lines.append(f"  corner-index AP50 {self.ap50:.4f}" if self.ap50 is not None
                     else f"  mAP50: n/a ({self.ap50_note})")
        lines.append(f"  {f['ms_per_image_median']:.1f} ms/image median ({f['ms_per_image_mean']:.1f} mean)")
        if self.unreadable:
            lines.append(f"  {len(self.unreadable)} unreadable image(s) skipped, e.g. {self.unreadable[0]}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"data": self.data, "figures": self.figures(),
                "images": [r.__dict__ for r in self.images], "unreadable": self.unreadable}


def multiset_prf(truth: list[str], found: list[str]) -> tuple[int, float, float, float]:
    tp = sum((Counter(truth) & Counter(found)).values())
    p = tp / len(found) if found else (1.0 if not truth else 0.0)
    r = tp / len(truth) if truth else (1.0 if not found else 0.0)
    f = 2 * p * r / (p + r) if p + r else 0.0
    return tp, p, r, f


def _name_list(names) -> list[str]:
    """A data.yaml's `names`, a list or a {class id: name} map, as a list by class id."""
    return [names[k] for k in sorted(names)] if isinstance(names, dict) else list(names)


def read_yolo_names(data_yaml: Path) -> list[str]:
    import yaml

    return _name_list(yaml.safe_load(Path(data_yaml).read_text())["names"])


def read_yolo_labels(path: Path, w: int, h: int) -> list[tuple[int, tuple[float, float, float, float] | None]]:
    """(class id, box x0, y0, x1, y1 in pixels of a w x h image) per line of a YOLO label
    file; the box is None on a polygon line (more than five fields), blank lines skipped."""
    out = []
    for line in Path(path).read_text().splitlines():
        p = line.split()
        if len(p) < 5:
            continue
        box = None
        if len(p) == 5:
            cx, cy, bw, bh = map(float, p[1:])
            box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
        out.append((int(p[0]), box))
    return out


def _resolve(data: str | Path, split: str) -> tuple[Path, list[str]]:
    import yaml

    data = Path(data)
    if data.is_dir():
        data = data / "data.yaml"
    if not data.is_file():
        raise FileNotFoundError(f"{data}: no YOLO data.yaml there (give the file or its folder)")
    try:
        d = yaml.safe_load(data.read_text())
    except yaml.YAMLError as exc:
        raise ValueError(f"{data}: not a readable YAML file ({exc})")
    if not isinstance(d, dict) or "names" not in d:
        raise ValueError(f"{data}: a YOLO data.yaml needs 'names' and the image folders")
    names = _name_list(d["names"])
    key = split if split in d else ("val" if split == "valid" and "val" in d else None)
    if key is None:
        raise ValueError(f"{data}: no '{split}' split (it has {', '.join(k for k in ('train', 'val', 'test') if k in d)})")
    root = Path(d.get("path") or ".")
    if not root.is_absolute():
        root = (data.parent / root).resolve()
    images = root / d[key]
    if not images.is_dir():
        raise FileNotFoundError(f"{images}: the '{key}' image folder of {data} is missing")
    return images, names


def _names_map(names: list[str], names_map: str | None) -> dict[int, str] | None:
    """Class number -> card id; None for a corner-index set (ids come from meta JSON)."""
    if names_map and names_map != "auto":
        mp = json.loads(Path(names_map).read_text())
        out = {}
        for i, n in enumerate(names):
            if n not in mp:
                raise ValueError(f"--names-map {names_map} has no entry for class {n!r}")
            out[i] = name_to_card(mp[n])
        return out
    if names == ["index"]:
        return None
    out = {}
    for i, n in enumerate(names):
        try:
            out[i] = name_to_card(n)
        except ValueError:
            raise ValueError(f"class name {n!r} is not a card name: pass --names-map FILE.json "
                             f"mapping each class name to a card id")
    return out


def _truth(img_path: Path, images: Path, cmap: dict[int, str] | None, w: int, h: int):
    """(cards, top card or None, index boxes or None) of one image."""
    rel = img_path.relative_to(images)
    labels = Path(str(images).replace("/images", "/labels")) / rel.with_suffix(".txt")
    if cmap is None:
        meta = Path(str(images).replace("/images", "/meta")) / rel.with_suffix(".json")
        if not meta.exists():
            raise FileNotFoundError(f"{meta}: a corner-index set needs its meta JSON for card ids")
        m = json.loads(meta.read_text())
        seen: dict = {}
        for lab in m["indices"]:
            seen[(lab["card"], lab.get("layer", lab["card"]))] = lab["card"]
        boxes = [lab["box"] for lab in m["indices"]]
        return list(seen.values()), m.get("top_card"), boxes
    cards = [cmap[c] for c, _ in read_yolo_labels(labels, w, h)] if labels.exists() else []
    return cards, None, None


def average_precision(dets: list[tuple[float, int, np.ndarray]], gts: dict[int, np.ndarray],
                      iou: float = 0.5) -> float:
    """VOC-style AP (all-point interpolation) of class-agnostic boxes."""
    n_gt = sum(len(g) for g in gts.values())
    if n_gt == 0:
        return 0.0
    used = {k: np.zeros(len(g), bool) for k, g in gts.items()}
    dets = sorted(dets, key=lambda d: -d[0])
    tp = np.zeros(len(dets))
    for k, (_, img, b) in enumerate(dets):
        g = gts.get(img)
        if g is None or not len(g):
            continue
        ix = np.clip(np.minimum(g[:, 2], b[2]) - np.maximum(g[:, 0], b[0]), 0, None)
        iy = np.clip(np.minimum(g[:, 3], b[3]) - np.maximum(g[:, 1], b[1]), 0, None)
        inter = ix * iy
        ua = (g[:, 2] - g[:, 0]) * (g[:, 3] - g[:, 1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
        ov = inter / np.maximum(ua, 1e-9)
        j = int(ov.argmax())
        if ov[j] >= iou and not used[img][j]:
            used[img][j] = True
            tp[k] = 1
    ctp = np.cumsum(tp)
    rec = ctp / n_gt
    prec = ctp / np.arange(1, len(dets) + 1)
    mrec = np.concatenate([[0], rec, [1]])
    mpre = np.concatenate([[0], prec, [0]])
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    idx = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]))


def read_errata(path: str | Path) -> dict[str, list[tuple[str, str]]]:
    """Label fixes {image file name: [(labelled card id, true card id)]} from an errata JSON.

    A dataset's label errors are fixed in the measurement, not in the dataset (it is read-only
    and shared); the file says why for each, so anyone can look at the photo and check.
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
        fixes = doc["fixes"]
        out: dict[str, list[tuple[str, str]]] = {}
        for k, fx in enumerate(fixes):
            try:
                pair = (parse_card(fx["labelled"]), parse_card(fx["is"]))
                out.setdefault(str(fx["image"]), []).append(pair)
            except (KeyError, TypeError, ValueError) as e:
                raise ValueError(f"fix {k + 1}: {e}") from e
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not a usable errata file ({e}); it must be JSON with "
                         "'fixes': [{'image': file name, 'labelled': card id, 'is': card id}, ...]") from e
    return out


def apply_errata(truth: list[str], fixes: list[tuple[str, str]], image: str) -> list[str]:
    """`truth` (an image's labelled card ids, in label order) with `fixes` applied, each to the
    first label of its card; a fix naming a card the labels lack is an error."""
    truth = list(truth)
    for was, now in fixes:
        if was not in truth:
            raise ValueError(f"errata: {image} has no {was} in its labels ({' '.join(sorted(truth))}); "
                             "the fix names the wrong photo or card")
        truth[truth.index(was)] = now
    return truth


def evaluate_folder(data: str | Path, model: str | Path | None = None, names_map: str | None = None,
                    split: str = "val", limit: int | None = None, per_image: bool = False,
                    detector=None, decks: int | None = None,
                    errata: str | Path | None = None) -> Report:
    """`decks`: the detector's limit of copies per card id (None: the detector's own setting).
    `errata`: a JSON file of label fixes (`read_errata`), applied to the truth before comparing."""
    from vision.detector import CardDetector

    images, names = _resolve(data, split)
    cmap = _names_map(names, names_map)
    det = detector or CardDetector(model)
    copies = getattr(det, "decks", None) if decks is None else (decks or None)
    paths = sorted(p for p in images.rglob("*") if p.suffix.lower() in IMG_EXT)
    if limit:
        paths = paths[:limit]
    if not paths:
        raise ValueError(f"{images}: no images there")
    fixes = read_errata(errata) if errata else {}
    rep = Report(str(data))
    dets, gts = [], {}
    for k, p in enumerate(paths):
        img = cv2.imread(str(p))
        if img is None:
            rep.unreadable.append(str(p))
            continue
        h, w = img.shape[:2]
        truth, top, gboxes = _truth(p, images, cmap, w, h)
        if p.name in fixes:
            truth = apply_errata(truth, fixes[p.name], p.name)
            rep.corrected += len(fixes[p.name])
        t0 = time.perf_counter()
        hits = det.read_indices(img)
        from vision.detector import group_indices
        found = [d for d in group_indices(hits, copies=copies, mate_near=getattr(det, "mate_near", 0.0))
                 if d.conf >= det.conf]
        ms = (time.perf_counter() - t0) * 1000
        if gboxes is not None:
            boxes, scores = det.find_indices(img)
            gts[k] = np.array(gboxes, np.float64).reshape(-1, 4)
            dets += [(float(s), k, b) for b, s in zip(boxes, scores)]
        cards = [d.card for d in found]
        tp, pr, rc, f1 = multiset_prf(truth, cards)
        top_found = found[0].card if found else None
        if top is not None:
            top_found = top_card_guess(found)
        r = ImageResult(str(p), sorted(truth), sorted(cards), tp, pr, rc, f1, ms, top, top_found)
        rep.images.append(r)
        if per_image:
            print(f"{p.name}: P {pr:.2f} R {rc:.2f} F1 {f1:.2f}  truth {' '.join(r.truth)}  "
                  f"found {' '.join(r.found)}  {ms:.0f} ms", flush=True)
    if gts:
        rep.ap50 = average_precision(dets, gts)
    else:
        rep.ap50_note = "the boxes here are whole cards and the detector finds corner indices"
    return rep


def top_card_guess(found) -> str | None:
    """The card on top: the detection with the most indices showing and the largest box.

    A covered card shows at most one corner; the top card usually shows both, so its
    grouped box spans the card. Ties go to the most confident.
    """
    if not found:
        return None
    def area(d):
        return (d.box[2] - d.box[0]) * (d.box[3] - d.box[1])
    return max(found, key=lambda d: (area(d), d.conf)).card
