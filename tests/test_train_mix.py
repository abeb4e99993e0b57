"""The leased-GPU classifier run (training/train_mix.py) and the face cache it travels with."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from datasets import faces as faces_mod
from training.train_mix import (classifier_weights, lr_at, load_sources, onnx_state_dict, pack_crops, prepare,
                              soup, train_mix, unpack_crops)

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "models" / "float" / "card_index_classifier.onnx"


def _crops(n: int, seed: int, noise: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Stored 80 px crops: a dark blob whose place says the label (learnable, not noise)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    x = np.full((n, 80, 80, 3), 220, np.uint8)
    for i, k in enumerate(y):
        r, c = divmod(int(k), 2)
        x[i, 20 + r * 24:36 + r * 24, 20 + c * 24:36 + c * 24] = 30
    x = np.clip(x.astype(int) + rng.integers(-noise, noise + 1, x.shape), 0, 255).astype(np.uint8)
    return x, y.astype(np.int64)


def test_the_committed_onnx_classifier_becomes_the_same_torch_network():
    import onnxruntime as ort
    import torch

    from training.models import build_model

    x = np.random.default_rng(3).random((6, 3, 64, 64), dtype=np.float32)
    sess = ort.InferenceSession(str(COMMITTED))
    want = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    net = build_model()
    net.load_state_dict(onnx_state_dict(COMMITTED))
    net.eval()
    got = net(torch.from_numpy(x)).detach().numpy()
    assert np.abs(got - want).max() < 1e-3
    assert (got.argmax(1) == want.argmax(1)).all()


def test_an_onnx_model_of_another_shape_is_refused_with_what_it_is(tmp_path):
    import torch

    bad = tmp_path / "bad.onnx"
    other = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(4, 54))
    torch.onnx.export(other, torch.zeros(1, 3, 64, 64), str(bad), dynamo=False)
    with pytest.raises(ValueError, match="not an export of training.models.build_model"):
        onnx_state_dict(bad)


def test_a_soup_is_the_weighted_mean_of_two_models_of_one_network(tmp_path):
    import torch

    from training.models import build_model

    base = onnx_state_dict(COMMITTED)
    other = {k: v + 1.0 if v.is_floating_point() else v for k, v in base.items()}
    torch.save({"model": other}, tmp_path / "b.pt")
    out = soup(COMMITTED, tmp_path / "b.pt", 0.25, tmp_path / "s.pt")
    got = torch.load(out, map_location="cpu", weights_only=False)
    assert torch.allclose(got["model"]["0.weight"], base["0.weight"] + 0.25, atol=1e-6)
    assert got["soup"]["weight"] == 0.25
    build_model().load_state_dict(got["model"])  # still the classifier's network
    small = {k: v[:1] if v.dim() else v for k, v in base.items()}
    torch.save({"model": small}, tmp_path / "small.pt")
    with pytest.raises(ValueError, match="not the same network"):
        soup(COMMITTED, tmp_path / "small.pt", 0.5, tmp_path / "x.pt")
    with pytest.raises(ValueError, match="between 0 and 1"):
        soup(COMMITTED, tmp_path / "b.pt", 1.5, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


def test_the_rate_warms_up_then_falls_to_nothing_at_the_deadline():
    rates = [lr_at(f, 1e-3) for f in np.linspace(0, 1, 201)]
    peak = int(np.argmax(rates))
    assert 0 < peak < 20  # the warm-up is the first 5%
    assert rates[0] < rates[peak] / 10
    after = rates[peak:]
    assert all(a >= b for a, b in zip(after, after[1:]))
    assert rates[-1] == pytest.approx(0.0, abs=1e-12) and lr_at(1.5, 1e-3) == pytest.approx(0.0, abs=1e-12)


def test_packed_crops_travel_light_and_come_back_close(tmp_path):
    x, y = _crops(50, 0, noise=2)
    np.savez(tmp_path / "c.npz", x=x, y=y)
    packed = pack_crops(tmp_path / "c.npz", tmp_path / "p.npz")
    assert packed.stat().st_size < (tmp_path / "c.npz").stat().st_size / 2
    back = np.load(unpack_crops(packed, tmp_path / "u.npz"))
    assert back["x"].shape == x.shape and (back["y"] == y).all()
    assert np.abs(back["x"].astype(int) - x).mean() < 3


def test_sources_are_mixed_by_share_and_a_file_without_validation_gives_its_first_tenth(tmp_path):
    x, y = _crops(40, 1)
    np.savez(tmp_path / "crops-real.npz", x=x, y=y)
    xs, ys = _crops(30, 2)
    np.savez(tmp_path / "crops-synth.npz", x=xs, y=ys, xv=xs[:5], yv=ys[:5])
    src = {s.name: s for s in load_sources(tmp_path, {"synth": 3, "real": 1, "video": 2})}
    assert set(src) == {"synth", "real"}  # no video file: left out, the shares renormalised
    assert src["synth"].share == pytest.approx(0.75) and src["real"].share == pytest.approx(0.25)
    assert len(src["real"].xv) == 4 and (src["real"].xv == x[:4]).all() and len(src["real"].x) == 36
    with pytest.raises(FileNotFoundError, match="masta train --stages"):
        load_sources(tmp_path / "empty", {"synth": 1})


@pytest.mark.parametrize("from_onnx", [False, True])
def test_a_short_run_learns_writes_its_weights_and_a_log_and_keeps_folded_norms(tmp_path, from_onnx):
    import torch

    x, y = _crops(400, 4)
    xv, yv = _crops(80, 5)
    np.savez(tmp_path / "crops-synth.npz", x=x, y=y, xv=xv, yv=yv)
    sources = load_sources(tmp_path, {"synth": 1})
    out = tmp_path / "cls.pt"
    train_mix(sources, out, minutes=0, steps=40 if from_onnx else 80, lr=3e-3,
              init=COMMITTED if from_onnx else None, batch=32, workers=0, eval_every=5, log=lambda m: None)
    st = torch.load(out, map_location="cpu", weights_only=False)
    log = json.loads(out.with_suffix(".json").read_text())
    assert log["history"] and log["history"][-1]["crops"] == st["crops"] == 32 * log["steps"]
    assert log["sources"]["synth"] == {"train": 400, "val": 80, "share": 1.0}
    if from_onnx:  # batch norms stay the folded statistics of the export
        assert torch.allclose(st["model"]["1.running_mean"], torch.zeros(16))
        assert torch.allclose(st["model"]["1.running_var"], torch.full((16,), 1 - 1e-5))
    else:  # four easy classes out of 54: far above chance after 80 steps (0.71 at 60)
        assert st["val"]["synth"] > 0.5


def test_training_data_is_never_drawn_from_a_held_out_deck(tmp_path):
    with pytest.raises(ValueError, match="held out"):
        prepare(tmp_path, ["drawn-00", "knoll"], synth_count=1, video_count=0)
    assert not (tmp_path / "crops-synth.npz").exists()


def test_prepare_with_camera_crops_writes_each_source_with_its_last_video_validating(tmp_path):
    prepare(tmp_path, ["drawn-00", "drawn-01"], synth_count=4, video_count=2, video_actions=3,
            workers=2, seed=1, camera=True, log=lambda m: None)
    cam = np.load(tmp_path / "crops-camera.npz")
    vid = np.load(tmp_path / "crops-video.npz")
    assert cam["x"].shape[1:] == (80, 80, 3) and len(cam["x"]) == len(cam["y"]) > 0
    assert len(cam["xv"]) > 0 and len(vid["xv"]) > 0  # the second video validates, in both files
    assert set(np.unique(cam["y"])) <= set(range(54))
    assert (tmp_path / "crops-synth.npz").exists()


def test_cached_faces_are_read_back_as_drawn_without_their_source(tmp_path, monkeypatch):
    want = faces_mod.load_faces("drawn-00")
    faces_mod.save_faces(["drawn-00"], tmp_path)
    monkeypatch.setenv(faces_mod.FACE_CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(faces_mod, "_draw_deck", lambda style: pytest.fail("drew instead of reading the cache"))
    faces_mod.load_faces.cache_clear()
    try:
        got = faces_mod.load_faces("drawn-00")
        assert sorted(got) == sorted(want)
        for card, f in want.items():
            assert (got[card].image == f.image).all()
            assert np.allclose(got[card].indices, f.indices)
    finally:
        faces_mod.load_faces.cache_clear()


def test_a_cached_drawn_deck_records_its_font(tmp_path):
    faces_mod.save_faces(["drawn-00"], tmp_path)
    with np.load(tmp_path / "drawn-00.npz") as data:
        assert str(data["font"]) == Path(faces_mod.drawn_font("drawn-00")).name


def test_a_drawn_deck_follows_the_fonts_installed_and_says_when_they_are_not_the_recipes(monkeypatch, capsys):
    """drawn-00 to drawn-15 pick among DejaVu and Liberation only; without Liberation (a machine
    where chromium never brought fonts-liberation) the deck is another one, and it says so."""
    fonts = faces_mod.available_fonts()
    if not any("/liberation/" in f for f in fonts) or not any("/dejavu/" in f for f in fonts):
        pytest.skip("needs both DejaVu and Liberation installed (make test installs them with chromium)")
    first = [faces_mod.drawn_font(f"drawn-{i:02d}") for i in range(faces_mod.FIRST_FONT_STYLES)]
    assert all(f in fonts and ("/dejavu/" in f or "/liberation/" in f) for f in first)
    assert first == [faces_mod.drawn_font(f"drawn-{i:02d}") for i in range(faces_mod.FIRST_FONT_STYLES)]
    assert "make train-fonts" not in capsys.readouterr().err
    monkeypatch.setattr(faces_mod, "available_fonts", lambda: [f for f in fonts if "/liberation/" not in f])
    without = [faces_mod.drawn_font(f"drawn-{i:02d}") for i in range(faces_mod.FIRST_FONT_STYLES)]
    assert without != first and all("/liberation/" not in f for f in without)
    err = capsys.readouterr().err
    assert "no liberation fonts installed" in err and "make train-fonts" in err


def test_masta_data_faces_lists_the_drawn_decks_fonts():
    run = subprocess.run([sys.executable, "-m", "masta", "data", "faces", "--fonts", "--styles",
                          "drawn-00,drawn-20"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = [line.split("\t") for line in run.stdout.splitlines()]
    assert [s for s, _ in lines] == ["drawn-00", "drawn-20"]
    assert lines[0][1] == faces_mod.drawn_font("drawn-00") and Path(lines[1][1]).is_file()
    bare = subprocess.run([sys.executable, "-m", "masta", "data", "faces"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert bare.returncode != 0 and "--out" in bare.stderr


def test_a_cached_vector_style_counts_as_present_without_the_shared_data(tmp_path, monkeypatch):
    (tmp_path / "cache").mkdir()
    x = np.full((10, 8, 3), 255, np.uint8)
    import cv2
    np.savez(tmp_path / "cache" / "kennard-4color.npz", **{"AS.png": cv2.imencode(".png", x)[1].reshape(-1),
                                                          "AS.boxes": np.array([[0, 0, 2, 3]], float)})
    monkeypatch.setattr(faces_mod, "SHARED_DATA", tmp_path / "nothing")
    monkeypatch.setenv(faces_mod.FACE_CACHE_ENV, str(tmp_path / "cache"))
    styles = faces_mod.face_styles()
    assert "kennard-4color" in styles and "kennard-2color" not in styles and "knoll" not in styles


def test_a_damaged_cache_file_says_how_to_make_it_again(tmp_path, monkeypatch):
    np.savez(tmp_path / "drawn-03.npz", **{"AS.png": np.zeros(20, np.uint8), "AS.boxes": np.zeros((1, 4))})
    monkeypatch.setenv(faces_mod.FACE_CACHE_ENV, str(tmp_path))
    faces_mod.load_faces.cache_clear()
    try:
        with pytest.raises(ValueError, match="masta data faces --out"):
            faces_mod.load_faces("drawn-03")
    finally:
        faces_mod.load_faces.cache_clear()


def test_masta_data_faces_writes_one_file_a_style_and_refuses_an_unknown_one(tmp_path):
    run = subprocess.run([sys.executable, "-m", "masta", "data", "faces", "--out", str(tmp_path / "c"),
                          "--styles", "drawn-01"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["drawn-01.npz"]
    assert "MASTA_FACE_CACHE=" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "masta", "data", "faces", "--out", str(tmp_path / "d"),
                          "--styles", "drawn-99"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "drawn-99" in (bad.stdout + bad.stderr)
    assert not (tmp_path / "d").exists()


def test_a_malformed_share_list_is_refused_with_an_example():
    run = subprocess.run([sys.executable, "-m", "training.train_mix", "train", "--work", "nowhere", "--out", "x.pt",
                          "--minutes", "1", "--shares", "synth0.4"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2 and "synth=0.4,real=0.25" in run.stderr


def test_a_checkpoint_that_began_as_the_onnx_export_goes_on_with_its_norms_frozen(tmp_path):
    """A fine-tune or a soup of the ONNX export, saved as `.pt` and trained again: its batch
    norms are the export's folded statistics, and training them on batch statistics would
    undo the convolutions' folding (5 Dec: a soup restarted so read the real crops 0.57)."""
    import torch

    from training.models import build_model

    x, y = _crops(200, 6)
    np.savez(tmp_path / "crops-synth.npz", x=x, y=y, xv=x[:40], yv=y[:40])
    sources = load_sources(tmp_path, {"synth": 1})
    soup(COMMITTED, COMMITTED, 0.5, tmp_path / "soup.pt")
    state, frozen = classifier_weights(tmp_path / "soup.pt")
    assert frozen
    again = tmp_path / "again.pt"
    train_mix(sources, again, minutes=0, steps=30, lr=1e-3, init=tmp_path / "soup.pt", batch=32, workers=0,
              eval_every=5, log=lambda m: None)
    st = torch.load(again, map_location="cpu", weights_only=False)["model"]
    assert torch.allclose(st["4.running_mean"], torch.zeros_like(st["4.running_mean"]))
    assert classifier_weights(again)[1]  # and so on, run after run
    # a network trained from nothing has norms of its own: they train
    net = build_model()
    net.train()
    net(torch.rand(8, 3, 64, 64))
    torch.save({"model": net.state_dict()}, tmp_path / "scratch.pt")
    assert not classifier_weights(tmp_path / "scratch.pt")[1]
