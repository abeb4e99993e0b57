"""The camera side of the server: vision.pipeline run in a background thread, its events sent
through the same path as the operator's (checked, ruled, committed, then pushed).

The pipeline is optional: without a trained model or a camera the server still serves every
page and the manual-entry page. Its API is documented in vision/pipeline.py.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from .errors import ApiError
from .frames import FrameHub
from .table_service import TableService

#: vision.detector's default: the index detector, with card_index_classifier.onnx beside it.
MODEL = "models/card_index_detector.onnx"
CLASSIFIER = "models/card_index_classifier.onnx"


def find_model(root: Path | None = None) -> Path | None:
    """The trained detector in models/ (both ONNX files of `masta train`), or None."""
    root = root or Path(__file__).resolve().parent.parent
    if (root / MODEL).is_file() and (root / CLASSIFIER).is_file():
        return root / MODEL
    return None


def load_detector(model: Path) -> Any:
    from vision.detector import CardDetector  # lands with the detector; import only when used
    return CardDetector(str(model))


class CameraRunner:
    """Owns the pipeline thread; restartable with a new source from the set-up page."""

    def __init__(self, table: TableService, frames: FrameHub, detector: Any, *,
                 zone: tuple[float, float, float, float] | None = None, pace: bool = False,
                 live: bool | None = None, evidence_dir: Path | None = None):
        self.table = table
        self.frames = frames
        self.detector = detector
        self.zone = zone
        self.pace = pace
        self.live = live
        self.evidence_dir = Path(evidence_dir) if evidence_dir else None
        self.source: str | None = None
        self.pipe: Any = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.errors: list[str] = []

    # the pipeline calls this for every watcher decision
    def referee(self, event: dict) -> list[dict]:
        raw = dict(event)
        meta = dict(raw.pop("meta", None) or {})
        if raw.pop("low_conf", False):
            meta["low_conf"] = True
        if raw.get("type") == "note" and "cards" in raw:
            meta["cards"] = raw.pop("cards")
        raw.pop("source", None)
        raw.pop("t", None)
        if meta:
            raw["meta"] = meta
        if isinstance(raw.get("evidence"), dict):
            raw["evidence"] = {k: self._relative(v) for k, v in raw["evidence"].items()}
        try:
            return self.table.submit(raw, source="camera")["outputs"]
        except ApiError as exc:  # for example no game set up yet: say so, keep watching
            self.errors.append(exc.message)
            self.frames.status = f"camera event not recorded: {exc.message}"
            return []

    def _relative(self, path: str) -> str:
        """Evidence paths as the /evidence/ route serves them: relative to the evidence folder."""
        if self.evidence_dir is None:
            return str(path)
        try:
            return Path(path).resolve().relative_to(self.evidence_dir.resolve()).as_posix()
        except ValueError:
            return str(path)

    def _priors(self):
        from vision.pipeline import priors_from_view
        with self.table.lock:
            return priors_from_view(self.table.view().get("table") or {})

    def start(self, source: str) -> str:
        from vision.pipeline import Pipeline
        from vision.pot_watcher import WatcherConfig
        from vision.source import open_source

        def on_status(st) -> None:
            self.frames.status = f"camera {st.kind}: {st.message}"

        src = open_source(source, on_status=on_status, pace=self.pace, live=self.live)  # may refuse: old camera goes on
        self.stop()
        self._stop = threading.Event()
        cfg = WatcherConfig(evidence_dir=self.evidence_dir / f"evening-{self.table.evening_id}"
                            if self.evidence_dir else None)
        self.pipe = Pipeline(src, self.detector, referee=self.referee, on_status=on_status, config=cfg,
                             priors_fn=self._priors)
        if self.zone:
            self.pipe.watcher.set_zone(self.zone)
        self.source = source
        run = threading.Thread(target=self._run, args=(self.pipe, self._stop), name="masta-pipeline", daemon=True)
        snap = threading.Thread(target=self._snapshots, args=(self.pipe, self._stop), name="masta-frames", daemon=True)
        self._threads = [run, snap]
        run.start()
        snap.start()
        self.frames.status = f"camera {source}: starting"
        return f"watching {source}"

    def _run(self, pipe: Any, stop: threading.Event) -> None:
        try:
            pipe.run(stop)
            self.frames.status = f"camera {self.source}: ended"
        except Exception as exc:  # a broken source must not take the server down
            self.frames.status = f"camera {self.source} failed: {exc}; enter plays on the manual entry page"
        finally:
            stop.set()

    def _snapshots(self, pipe: Any, stop: threading.Event, fps: float = 8.0) -> None:
        while not stop.wait(1.0 / fps):
            jpeg = pipe.snapshot_jpeg()
            if jpeg:
                self.frames.publish(jpeg)

    def set_zone(self, zone: tuple[float, float, float, float]) -> None:
        self.zone = zone
        if self.pipe is not None:
            self.pipe.watcher.set_zone(zone)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)
        self._threads = []

    def restart(self, source: str | None) -> str:
        if not source:
            self.stop()
            self.frames.status = "no camera: enter plays on the manual entry page"
            return "camera off: enter plays on the manual entry page"
        try:
            return self.start(source)
        except (ValueError, FileNotFoundError) as exc:
            raise ApiError(400, f"cannot open camera {source!r}: {exc}") from None


def attach_camera(app, detector: Any, source: str | None, **kw) -> CameraRunner:
    """Wire a CameraRunner into `app` (set-up page: camera source and pot zone go to it)."""
    zone = app.extensions["masta.store"].get_setting("pot_zone")
    runner = CameraRunner(app.extensions["masta.table"], app.extensions["masta.frames"], detector,
                          zone=tuple(zone) if zone else None, evidence_dir=app.config["MASTA"].evidence_dir, **kw)
    app.extensions["masta.camera"] = runner
    app.extensions["masta.restart_camera"] = runner.restart
    app.extensions["masta.set_zone"] = runner.set_zone
    if source:
        runner.start(source)
    return runner


def wait_for(predicate, timeout: float, step: float = 0.05) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
