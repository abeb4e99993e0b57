"""One index-classifier run on every crop source at once, by the clock: for a leased GPU.

On a CPU `masta train` trains the classifier in stages (synthetic crops, then real ones, then
table-video ones), a few thousand augmented crops a second, for hours. A leased GPU is lent
for minutes and reads crops as fast as its cores can augment them. So here:

- the sources are mixed in one run, each at a set share of every batch (the real photos'
  crops are few, the synthetic ones many: shares, not counts, keep both heard);
- worker processes augment (the same `_augment` as the CPU recipe), the GPU only trains;
- the learning rate follows the wall clock (a short warm-up, then a cosine to zero at the
  deadline), so a run ends on time with its schedule finished, whatever the throughput;
- it can start from an exported ONNX classifier (`onnx_state_dict`): the committed model's
  weights live only as ONNX, with each batch norm folded into its convolution.

Validation reads each source's own held-back crops and prints them apart: a gain on one
source bought by a loss on another shows.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.classifier import NONE_ID
from training.train import _augment, _centre, evaluate_classifier


@dataclass
class CropSource:
    """One source of stored 80 px crops: `share` of every batch is drawn from it."""
    name: str
    x: np.ndarray
    y: np.ndarray
    xv: np.ndarray
    yv: np.ndarray
    share: float


def load_sources(work: Path, shares: dict[str, float], real_val_tenth: bool = True) -> list[CropSource]:
    """`crops-<name>.npz` of the work folder for each name in `shares` that exists there.

    A file without validation crops (the real one) gives its first tenth to validation, as
    `stage_classifier` does: crops are stored in photo order, so those are whole photos.
    """
    out = []
    for name, share in shares.items():
        path = work / f"crops-{name}.npz"
        if share <= 0 or not path.exists():
            continue
        d = np.load(path)
        x, y = d["x"], d["y"]
        if "xv" in d.files:
            xv, yv = d["xv"], d["yv"]
        else:
            nv = max(1, len(x) // 10) if real_val_tenth else 0
            xv, yv, x, y = x[:nv], y[:nv], x[nv:], y[nv:]
        if len(x):
            out.append(CropSource(name, x, y, xv, yv, share))
    if not out:
        raise FileNotFoundError(f"no crop file of {sorted(shares)} in {work}: make them first "
                                "(masta train --stages crops,real,videocrops)")
    total = sum(s.share for s in out)
    for s in out:
        s.share /= total
    return out


def onnx_state_dict(path: Path) -> dict:
    """The classifier's weights from its ONNX export, for `training.models.build_model`.

    The export folds each batch norm into the convolution before it (weight and a new bias).
    Here the folded weight goes back to the convolution and its bias to the batch norm's
    shift, with scale 1, mean 0 and variance 1 - eps: with the batch norms left in eval mode
    (`freeze_norms`) the network computes exactly what the ONNX model does.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    from training.models import build_model

    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    net = build_model()
    state = net.state_dict()
    mods = list(net)
    conv_idx = [k for k, m in enumerate(mods) if isinstance(m, torch.nn.Conv2d)]
    if len(conv_idx) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, the classifier has {len(conv_idx)}: "
                         "not an export of training.models.build_model")
    for k, node in zip(conv_idx, convs):
        w = inits[node.input[1]]
        b = inits[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
        if tuple(state[f"{k}.weight"].shape) != w.shape:
            raise ValueError(f"{path}: convolution {k} is {w.shape}, expected {tuple(state[f'{k}.weight'].shape)}")
        bn = mods[k + 1]
        state[f"{k}.weight"] = torch.from_numpy(w.copy())
        state[f"{k + 1}.weight"] = torch.ones(w.shape[0])
        state[f"{k + 1}.bias"] = torch.from_numpy(b.copy())
        state[f"{k + 1}.running_mean"] = torch.zeros(w.shape[0])
        state[f"{k + 1}.running_var"] = torch.full((w.shape[0],), 1.0 - bn.eps)
    lin = [k for k, m in enumerate(mods) if isinstance(m, torch.nn.Linear)][0]
    state[f"{lin}.weight"] = torch.from_numpy(inits[gemm.input[1]].copy())
    state[f"{lin}.bias"] = torch.from_numpy(inits[gemm.input[2]].copy())
    return state


def classifier_weights(path: Path) -> tuple[dict, bool]:
    """(the state dict, whether its batch norms are folded statistics) of a classifier saved as
    a training checkpoint (`.pt`, `{"model": ...}`) or an ONNX export (`onnx_state_dict`)."""
    import torch

    path = Path(path)
    if path.suffix == ".onnx":
        return onnx_state_dict(path), True
    state = torch.load(path, map_location="cpu", weights_only=False)["model"]
    return state, folded_norms(state)


def folded_norms(state: dict) -> bool:
    """Whether every batch norm of `state` keeps the statistics `onnx_state_dict` gives it (mean
    0, variance 1 - eps, never updated): weights that began as an ONNX export (a fine-tune of
    it saved as `.pt`, a soup) must keep those norms frozen, or the first training batches
    overwrite the statistics the convolutions were folded with (their scales and shifts train)."""
    means = [k for k in state if k.endswith(".running_mean")]
    if not means:
        return False
    for k in means:
        p = k[:-len("running_mean")]
        if state[k].abs().max() > 0 or (state[p + "running_var"] - 1).abs().max() > 1e-3:
            return False
    return True


def freeze_norms(model) -> None:
    """Batch norms keep their running statistics (eval mode) while the rest trains."""
    import torch

    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def _batches(sources: list[CropSource], batch: int, seed: int, lowres: float, wide: float):
    """Endless batches (uint8 N x 64 x 64 x 3 BGR, labels) drawn by share and augmented."""
    rng = np.random.default_rng(seed)
    shares = np.array([s.share for s in sources])
    while True:
        pick = rng.choice(len(sources), batch, p=shares)
        xs, ys = [], []
        for k in pick:
            s = sources[k]
            i = int(rng.integers(len(s.x)))
            xs.append(_augment(rng, s.x[i], lowres, wide))
            ys.append(s.y[i])
        yield np.stack(xs), np.array(ys, np.int64)


def _stream(sources: list[CropSource], batch: int, seed: int, lowres: float, wide: float):
    """A torch IterableDataset of `_batches`, each worker with its own seed."""
    import torch
    from torch.utils.data import IterableDataset, get_worker_info

    class Stream(IterableDataset):
        def __iter__(self):
            import cv2

            cv2.setNumThreads(1)  # one augmenting process per core: threads inside each oversubscribe
            torch.set_num_threads(1)
            info = get_worker_info()
            wid = info.id if info is not None else 0
            for xb, yb in _batches(sources, batch, seed * 1000 + wid, lowres, wide):
                yield torch.from_numpy(xb), torch.from_numpy(yb)

    return Stream()


def lr_at(frac: float, peak: float, warm: float = 0.05) -> float:
    """The rate at this fraction of the time budget: linear warm-up, then a cosine to zero."""
    if frac < warm:
        return peak * max(frac / warm, 0.02)
    return peak * 0.5 * (1 + math.cos(math.pi * min(1.0, (frac - warm) / (1 - warm))))


def train_mix(sources: list[CropSource], out: Path, minutes: float, lr: float = 3e-3,
              init: Path | None = None, batch: int = 512, workers: int = 8, seed: int = 1,
              lowres: float = 0.3, wide: float = 0.0, eval_every: float = 60.0,
              label_smoothing: float = 0.05, log=print, classes: int | None = None,
              steps: int | None = None) -> Path:
    """Train for `minutes` of wall clock, or for `steps` batches when given (the same run on any
    machine, however loaded: what a test needs); write `out` (the `{"model": state_dict}` that
    `training.train.export_classifier` reads) after every validation and at the end, with a
    JSON log of each validation beside it. `classes`: the model's outputs (default the 54 card
    classes; `len(vision.letters.MODEL_CLASSES)` with letter glyph classes, a 54-class start
    widened by `training.letters.widen_state`)."""
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader

    from training.models import build_model

    torch.manual_seed(seed)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    model = build_model(classes) if classes else build_model()
    frozen = False  # an ONNX start's batch norms are folded statistics: kept as they are
    if init is not None:
        state, frozen = classifier_weights(init)
        if classes:
            from training.letters import widen_state
            state = widen_state(state, classes)
        model.load_state_dict(state)
    model.to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    loader = DataLoader(_stream(sources, batch, seed, lowres, wide), batch_size=None,
                        num_workers=workers, pin_memory=dev == "cuda", prefetch_factor=4 if workers else None,
                        persistent_workers=workers > 0)
    history: list[dict] = []

    def validate(step: int, seen: int, elapsed: float) -> None:
        accs = {s.name: round(evaluate_classifier(model, s.xv, s.yv, dev, _centre), 4)
                for s in sources if len(s.xv)}
        rec = {"step": step, "crops": seen, "minutes": round(elapsed / 60, 2), "val": accs}
        history.append(rec)
        log(f"mix classifier: {seen} crops in {elapsed / 60:.1f} min "
            f"({seen / max(elapsed, 1e-9):.0f}/s), val {accs}")
        torch.save({"model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
                    "val": accs, "crops": seen}, out)
        out.with_suffix(".json").write_text(json.dumps(
            {"sources": {s.name: {"train": len(s.x), "val": len(s.xv), "share": round(s.share, 3)}
                         for s in sources}, "init": str(init) if init else None, "lr": lr,
             "batch": batch, "minutes": minutes, "steps": steps, "lowres": lowres, "wide": wide,
             "history": history}, indent=1))

    def train_mode() -> None:
        model.train()
        if frozen:
            freeze_norms(model)

    budget = minutes * 60
    t0 = time.time()
    last_eval = t0
    step = seen = 0
    train_mode()
    mean = None
    for xb, yb in loader:
        frac = step / steps if steps else (time.time() - t0) / budget
        if frac >= 1:
            break
        for g in opt.param_groups:
            g["lr"] = lr_at(frac, lr)
        xb = xb.to(dev, non_blocking=True).permute(0, 3, 1, 2).flip(1).float().div_(255.0)
        yb = yb.to(dev, non_blocking=True)
        loss = F.cross_entropy(model(xb), yb, label_smoothing=label_smoothing)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        seen += len(yb)
        if step % 50 == 0:
            v = loss.item()
            mean = v if mean is None else 0.9 * mean + 0.1 * v
        if time.time() - last_eval >= eval_every:
            log(f"mix classifier: step {step}, loss {mean if mean is None else round(mean, 3)}, "
                f"lr {lr_at(frac, lr):.2e}")
            validate(step, seen, time.time() - t0)
            train_mode()
            last_eval = time.time()
    validate(step, seen, time.time() - t0)
    return out


def soup(a: Path, b: Path, weight: float, out: Path) -> Path:
    """The weights of two classifiers of one lineage averaged, `weight` of `b` (a `.pt` or
    an exported `.onnx` each): a fine-tune's gain on unseen decks, half kept, with half of what
    its start knew (one fine-tune from the committed model, two weights, one network)."""
    import torch

    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"--weight {weight}: the share of the second model, between 0 and 1")

    (sa, _), (sb, _) = classifier_weights(a), classifier_weights(b)
    if sa.keys() != sb.keys() or any(sa[k].shape != sb[k].shape for k in sa):
        raise ValueError(f"{a} and {b} are not the same network: nothing to average")
    mixed = {k: (sa[k].double() * (1 - weight) + sb[k].double() * weight).to(sa[k].dtype)
             if sa[k].is_floating_point() else sb[k] for k in sa}
    torch.save({"model": mixed, "soup": {"a": str(a), "b": str(b), "weight": weight}}, out)
    return out


# --------------------------------------------------------------------------- carried data
def pack_crops(npz: Path, out: Path, quality: int = 90) -> Path:
    """A crop file as JPEG bytes (about 1.8 KB a crop instead of 19 KB), to travel light."""
    import cv2

    d = np.load(npz)
    blobs = [cv2.imencode(".jpg", c, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].reshape(-1) for c in d["x"]]
    ends = np.cumsum([len(b) for b in blobs])
    np.savez(out, jpg=np.concatenate(blobs), ends=ends, y=d["y"])
    return out


def unpack_crops(packed: Path, out: Path) -> Path:
    """`pack_crops` undone: the `x`, `y` crop file the training reads."""
    import cv2

    d = np.load(packed)
    jpg, ends = d["jpg"], d["ends"]
    starts = np.concatenate([[0], ends[:-1]])
    x = np.stack([cv2.imdecode(jpg[a:b], cv2.IMREAD_COLOR) for a, b in zip(starts, ends)])
    np.savez(out, x=x, y=d["y"])
    return out


def _video_job(args: tuple) -> tuple[str, np.ndarray, np.ndarray] | None:
    """Render one training video and cut its index crops (a process pool's job)."""
    from training.train import _render_training_video, video_crops

    spec, path, seed = args
    _render_training_video(spec, path)
    crops = video_crops(path.parent, seed, stems=[path.stem])
    if path.stem not in crops:
        return None
    x, y = crops[path.stem]
    return path.stem, x, y


def prepare(work: Path, styles: list[str], synth_count: int, video_count: int,
            video_size: tuple[int, int] = (1280, 720), video_actions: int = 40,
            workers: int = 16, seed: int = 3, camera: bool = False, log=print) -> None:
    """Synthetic pots and training-style table videos drawn here, in `styles` only, cut into
    `crops-synth.npz` and `crops-video.npz` (the last video validates); with `camera`, also
    `crops-camera.npz`: the same videos cut around the committed detector's own boxes as the
    table camera reads them (`training.train.camera_crops`), its misplaced boxes as `none`."""
    import cv2

    from datasets.faces import HELD_OUT_STYLES
    from datasets.synth import write_dataset
    from masta.pool import process_pool
    from training.train import synth_crops, training_video_spec

    held = [s for s in styles if s in HELD_OUT_STYLES]
    if held:
        raise ValueError(f"{held} are held out to measure unseen decks: never train on them")
    work.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)  # here too: one thread for this process's share, as many processes as cores
    t0 = time.time()
    w, h = video_size
    vids = work / "videos"
    jobs = []
    for k in range(video_count):
        spec = training_video_spec(k, seed, styles, video_size, video_actions)
        jobs.append((spec, vids / f"train-{spec['seed']}.mp4", seed * 1000 + k))
    vids.mkdir(parents=True, exist_ok=True)
    with process_pool(workers) as ex:
        futs = [ex.submit(_video_job, j) for j in jobs]  # the long jobs first
        synth = work / "synth"
        write_dataset(synth, synth_count, seed=seed, size=640, styles=tuple(styles), val_fraction=0.05,
                      workers=max(1, workers // 2), progress=False)
        log(f"prepare: {synth_count} synthetic pots in {time.time() - t0:.0f} s")
        x, y = synth_crops(synth, "train", seed)
        xv, yv = synth_crops(synth, "val", seed + 1)
        np.savez(work / "crops-synth.npz", x=x, y=y, xv=xv, yv=yv)
        log(f"prepare: synthetic crops {len(x)} + {len(xv)} val, {time.time() - t0:.0f} s")
        done = [f.result() for f in futs]
    done = sorted(d for d in done if d is not None)
    if done:
        x, y, xv, _ = _save_last_validates(work / "crops-video.npz", [(d[1], d[2]) for d in done])
        log(f"prepare: {len(done)} videos at {w}x{h}, crops {len(x)} + {len(xv)} val, {time.time() - t0:.0f} s")
        if camera:
            from training.train import camera_crops

            cut = camera_crops(vids, seed + 8, stems=[d[0] for d in done])
            parts = [cut[d[0]] for d in done if d[0] in cut]
            if parts:
                cx, cy, _, cyv = _save_last_validates(work / "crops-camera.npz", parts)
                log(f"prepare: camera crops {len(cx)} ({int((cy == NONE_ID).sum())} none) + "
                    f"{len(cyv)} val, {time.time() - t0:.0f} s")


def _save_last_validates(path: Path, parts: list[tuple[np.ndarray, np.ndarray]]):
    """One crop file from each video's (crops, labels), the last video held back to validate
    (none when there is one video only); returns x, y, xv, yv."""
    train, val = (parts[:-1], parts[-1:]) if len(parts) > 1 else (parts, [])
    x, y = np.concatenate([p[0] for p in train]), np.concatenate([p[1] for p in train])
    xv, yv = val[0] if val else (x[:0], y[:0])
    np.savez(path, x=x, y=y, xv=xv, yv=yv)
    return x, y, xv, yv


def main(argv: list[str] | None = None) -> int:
    import argparse

    from vision.frame_size import frame_size

    p = argparse.ArgumentParser(prog="python -m training.train_mix", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    pk = sub.add_parser("pack", help="a crop file as JPEG bytes, to carry")
    pk.add_argument("npz", type=Path)
    pk.add_argument("out", type=Path)
    pr = sub.add_parser("prepare", help="synthetic pots and table videos, cut into crop files")
    pr.add_argument("--work", type=Path, required=True, help="the folder the crop files are written to")
    pr.add_argument("--styles", required=True, help="comma list of training face styles")
    pr.add_argument("--synth-count", type=int, default=4000, help="synthetic pots to draw (default 4000)")
    pr.add_argument("--video-count", type=int, default=32,
                    help="table videos to render (default 32; the last one validates)")
    pr.add_argument("--video-size", default="1280x720", type=frame_size, help="their frame size (default 1280x720)")
    pr.add_argument("--video-actions", type=int, default=40, help="plays, burns and pick-ups a video")
    pr.add_argument("--workers", type=int, default=16, help="processes drawing at once (default 16)")
    pr.add_argument("--seed", type=int, default=3, help="random seed of the pots and videos")
    pr.add_argument("--real-packed", type=Path, help="a packed real crop file to unpack into the work folder")
    pr.add_argument("--camera-crops", action="store_true",
                    help="also cut the videos around the committed detector's own boxes, as the table "
                         "camera reads them (crops-camera.npz: its boxes on no index are `none`)")
    sp = sub.add_parser("soup", help="two classifiers' weights averaged (and exported to ONNX)")
    sp.add_argument("a", type=Path, help="the first model (.pt or exported .onnx)")
    sp.add_argument("b", type=Path, help="the second model, of the same network")
    sp.add_argument("--weight", type=float, default=0.5, help="the second model's share (default 0.5)")
    sp.add_argument("--out", type=Path, required=True, help="the averaged weights (.pt)")
    sp.add_argument("--onnx", type=Path, help="also export them here")
    tr = sub.add_parser("train", help="one classifier on every crop file of the work folder, by the clock "
                        "(or by steps)")
    tr.add_argument("--work", type=Path, required=True, help="the folder of crops-<source>.npz files")
    tr.add_argument("--out", type=Path, required=True, help="the weights (.pt), written after each validation")
    budget = tr.add_mutually_exclusive_group(required=True)
    budget.add_argument("--minutes", type=float, help="wall-clock budget; the schedule ends on it")
    budget.add_argument("--steps", type=int, help="or this many batches, whatever the clock says")
    tr.add_argument("--init", type=Path, help="start from these weights (.pt, or an exported .onnx)")
    tr.add_argument("--lr", type=float, default=3e-3, help="peak rate (default 3e-3; 1e-3 from trained weights)")
    tr.add_argument("--batch", type=int, default=512, help="crops a step (default 512)")
    tr.add_argument("--workers", type=int, default=8, help="augmenting processes (default 8; one core each)")
    tr.add_argument("--shares", default="synth=0.4,real=0.25,video=0.35",  # camera=...: crops-camera.npz
                    help="each source's share of a batch (a missing file is left out)")
    tr.add_argument("--lowres", type=float, default=0.3, help="share of crops seen shrunk to a 12-40 px index")
    tr.add_argument("--wide", type=float, default=0.0, help="share of crops cut from a loose, off-centre box")
    tr.add_argument("--seed", type=int, default=1, help="random seed of the draws")
    tr.add_argument("--eval-every", type=float, default=60.0, help="seconds between validations (default 60)")
    a = p.parse_args(argv)
    say = lambda m: print(f"[train_mix {time.strftime('%H:%M:%S')}] {m}", flush=True)  # noqa: E731
    if a.verb == "pack":
        pack_crops(a.npz, a.out)
        say(f"packed {a.npz} -> {a.out} ({a.out.stat().st_size / 2**20:.1f} MiB)")
    elif a.verb == "soup":
        soup(a.a, a.b, a.weight, a.out)
        say(f"{a.out}: {1 - a.weight:g} x {a.a} + {a.weight:g} x {a.b}")
        if a.onnx is not None:
            from training.train import export_classifier
            export_classifier(a.out, a.onnx)
            say(f"exported {a.onnx}")
    elif a.verb == "prepare":
        if a.real_packed is not None:
            a.work.mkdir(parents=True, exist_ok=True)
            unpack_crops(a.real_packed, a.work / "crops-real.npz")
            say(f"real crops unpacked from {a.real_packed}")
        prepare(a.work, [s for s in a.styles.split(",") if s], a.synth_count, a.video_count, a.video_size,
                a.video_actions, a.workers, a.seed, a.camera_crops, log=say)
    else:
        try:
            shares = {k.strip(): float(v) for k, v in (kv.split("=") for kv in a.shares.split(","))}
        except ValueError:
            p.error(f"--shares {a.shares!r}: give source=share pairs, e.g. synth=0.4,real=0.25,video=0.35")
        sources = load_sources(a.work, shares)
        say("sources: " + ", ".join(f"{s.name} {len(s.x)} (+{len(s.xv)} val, share {s.share:.2f})" for s in sources))
        train_mix(sources, a.out, a.minutes or 0.0, a.lr, a.init, a.batch, a.workers, a.seed, a.lowres, a.wide,
                  a.eval_every, log=say, steps=a.steps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
