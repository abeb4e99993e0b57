"""The YOLO detector's box decoding, done for the boxes worth it instead of for every anchor.

Why: the exported detector decodes a box at each of its 4,032 anchors (at 512x384): a softmax
over 16 distance bins on an axis that ONNX Runtime transposes for, then the box arithmetic,
although a frame keeps the ~250 anchors scored 0.03 or more. That decoding took 5.6 of 24.6
ms of the int8 detector on 2 cores. `split_head` cuts the graph after the raw box logits and
the scores; `decode` turns the kept anchors' logits into boxes with the graph's arithmetic
(float32, the same steps), so the boxes agree with the graph's to float rounding.
A graph that is not an ultralytics YOLOv8-style Detect head is left whole (`split_head` -> None).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: the Detect head's strides, finest first, as ultralytics builds YOLOv8
STRIDES = (8, 16, 32)


@dataclass
class Head:
    logits: str  # the raw box logits, (1, 4 * bins, anchors)
    scores: str  # the class scores after their sigmoid, (1, classes, anchors)
    weights: np.ndarray  # the DFL convolution's weights over the bins (0, 1, ... bins - 1)
    anchors: np.ndarray  # (2, anchors) float32: each anchor's grid cell centre
    strides: np.ndarray  # (anchors,) float32


def _anchors(input_hw: tuple[int, int], count: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Anchor centres and strides in the head's order (each stride's grid, row by row), as
    ultralytics' `make_anchors`; None when the input size does not give `count` anchors."""
    h, w = input_hw
    pts, strides = [], []
    for s in STRIDES:
        gh, gw = h // s, w // s
        gy, gx = np.meshgrid(np.arange(gh, dtype=np.float32) + 0.5, np.arange(gw, dtype=np.float32) + 0.5,
                             indexing="ij")
        pts.append(np.stack([gx.ravel(), gy.ravel()]))
        strides.append(np.full(gh * gw, s, np.float32))
    anchors = np.concatenate(pts, 1)
    return (anchors, np.concatenate(strides)) if anchors.shape[1] == count else None


def split_head(path: str | Path) -> tuple[bytes, Head] | None:
    """The detector graph cut after its box logits and scores (serialised, for ONNX Runtime),
    with what `decode` needs; None when the graph is not a YOLOv8-style single-output head, or
    where the onnx package is missing (the graph then runs whole)."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return None

    model = onnx.load(str(path))
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    softmax = [n for n in g.node if n.op_type == "Softmax" and "/dfl/" in n.name]
    if len(softmax) != 1 or len(g.output) != 1:
        return None
    transpose = producer.get(softmax[0].input[0])
    reshape = producer.get(transpose.input[0]) if transpose is not None and transpose.op_type == "Transpose" else None
    conv = [n for n in g.node if n.op_type == "Conv" and softmax[0].output[0] in n.input]
    final = producer.get(g.output[0].name)
    if reshape is None or reshape.op_type != "Reshape" or len(conv) != 1 or final is None or final.op_type != "Concat":
        return None
    sigmoid = [producer[i] for i in final.input if i in producer and producer[i].op_type == "Sigmoid"]
    inits = {t.name: t for t in g.initializer}
    if len(sigmoid) != 1 or conv[0].input[1] not in inits:
        return None
    weights = numpy_helper.to_array(inits[conv[0].input[1]]).astype(np.float32).ravel()
    in_dims = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
    out_dims = [d.dim_value for d in g.output[0].type.tensor_type.shape.dim]
    if len(in_dims) != 4 or len(out_dims) != 3 or out_dims[1] != 5:  # one class: cx, cy, w, h, score
        return None
    grid = _anchors((in_dims[2], in_dims[3]), out_dims[2])
    if grid is None:
        return None
    head = Head(reshape.input[0], sigmoid[0].output[0], weights, *grid)
    # keep only what the two outputs need
    del g.output[:]
    g.output.extend([onnx.helper.make_tensor_value_info(head.logits, onnx.TensorProto.FLOAT, None),
                     onnx.helper.make_tensor_value_info(head.scores, onnx.TensorProto.FLOAT, None)])
    needed, kept = {head.logits, head.scores}, []
    for n in reversed(list(g.node)):
        if any(o in needed for o in n.output):
            kept.append(n)
            needed.update(n.input)
    del g.node[:]
    g.node.extend(reversed(kept))
    unused = [t for t in g.initializer if t.name not in needed]
    for t in unused:
        g.initializer.remove(t)
    return model.SerializeToString(), head


def decode(head: Head, logits: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """(4, len(idx)) cx, cy, w, h in input pixels of anchors `idx`, from `logits` (4 * bins,
    anchors): a softmax over each side's bins, their expected distance, then the graph's
    `dist2bbox` (lt, rb -> centre and size) times the stride."""
    bins = head.weights.size
    x = logits[:, idx].reshape(4, bins, -1)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    dist = np.einsum("sbn,b->sn", p, head.weights)  # left, top, right, bottom
    a = head.anchors[:, idx]
    x1y1 = a - dist[:2]
    x2y2 = a + dist[2:]
    out = np.concatenate([(x1y1 + x2y2) / np.float32(2), x2y2 - x1y1])
    return out * head.strides[idx]
