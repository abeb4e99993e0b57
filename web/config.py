"""Every setting of the web app in one place, so tests, `masta serve` and `masta demo` agree."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


def default_data_dir() -> Path:
    """The user's data folder for masta: $MASTA_DATA_DIR, else $XDG_DATA_HOME/masta, else ~/.local/share/masta."""
    if os.environ.get("MASTA_DATA_DIR"):
        return Path(os.environ["MASTA_DATA_DIR"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "masta"


@dataclass
class Config:
    """What the app needs to run; everything has a default that works on a laptop."""

    data_dir: Path = field(default_factory=default_data_dir)
    #: SQLAlchemy URL; None means the SQLite file `masta.sqlite3` in `data_dir`.
    db_url: str | None = None
    #: Evidence frames are served only from here; None means `data_dir/evidence`.
    evidence_dir: Path | None = None
    #: The operator token; None means the one saved in the database (made on first start).
    token: str | None = None
    #: Which table of the club this server referees (several may share one database).
    table: str = "main"
    host: str = "127.0.0.1"
    port: int = 8000
    #: Camera source shown on the set-up page (webcam index, file, URL); None: manual entry only.
    source: str | None = None
    #: waitress worker threads; each open page holds one for its event stream and one for the
    #: camera picture (MJPEG); 8 are kept for everything else (30 phones on the live page: 68).
    threads: int = 96
    #: Seconds between keep-alive comments on idle event streams.
    keepalive_s: float = 15.0
    #: Batches a deck taught on the Teach page tunes its own rank reader for (`training.deck_tune`;
    #: 300 takes about 80 s on a 2-core CPU; 0, the default: the taught indices alone weigh the
    #: reads. `masta serve --teach-tune`).
    teach_tune: int = 0
    #: What tunes it: `training.deck_tune.tune`, given by `masta serve` when `teach_tune` asks
    #: for it (the server's own modules never import training code); None: not tuned, said so.
    tuner: Callable[..., bytes] | None = None
    testing: bool = False

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir).expanduser()
        if self.evidence_dir is None:
            self.evidence_dir = self.data_dir / "evidence"
        self.evidence_dir = Path(self.evidence_dir).expanduser()

    @property
    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        return f"sqlite:///{(self.data_dir / 'masta.sqlite3').resolve()}"

    @property
    def presets_dir(self) -> Path:
        """House-rule presets saved from the set-up page."""
        return self.data_dir / "presets"

    def base_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"
