"""The table's event log in a database: append-only, committed before anything is shown.

SQLite by default (one file under the user's data folder), any SQLAlchemy URL otherwise
(PostgreSQL when a club runs several tables on one server). Events are never updated or
deleted: a correction is a new event, and the state is rebuilt by replaying the log, so a
server killed mid-game and restarted resumes the same game with nothing lost.
"""
from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import (Column, Float, ForeignKey, Integer, MetaData, String, Table, Text,
                        UniqueConstraint, create_engine, event, func, insert, inspect, select, text)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

metadata = MetaData()


class StoreWriteError(Exception):
    """A write the database refused (read-only, disk full, locked): nothing of it is stored,
    and everything stored before is kept. The message says which, in words."""


def write_failure(exc: BaseException) -> str:
    """Why the database refused a write, in the operator's words."""
    text = str(getattr(exc, "orig", None) or exc)
    low = text.lower()
    if "readonly" in low or "read-only" in low or "read only" in low:
        why = "the database is read-only (its file, or its folder, cannot be written)"
    elif "disk is full" in low or "no space" in low or "disk full" in low:
        why = "the disk is full (free some space)"
    elif "locked" in low or "busy" in low:
        why = "the database is locked by another program"
    elif "disk i/o" in low or "i/o error" in low:
        why = "the disk failed to write (an I/O error)"
    else:
        why = f"the database refused the write ({text.splitlines()[0][:200] if text else type(exc).__name__})"
    return why

evenings = Table(
    "evenings", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("created", Float, nullable=False),
    #: which table of the club: several `masta serve --table NAME` may share one database
    Column("table_name", String(80), nullable=False, default="main", index=True),
)

events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("evening_id", Integer, ForeignKey("evenings.id"), nullable=False, index=True),
    Column("seq", Integer, nullable=False),
    Column("t", Float, nullable=False),
    Column("type", String(40), nullable=False),
    Column("source", String(20), nullable=False),
    Column("body", Text, nullable=False),  # the whole event as JSON
    UniqueConstraint("evening_id", "seq", name="uq_event_seq"),
)

games = Table(
    "games", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("evening_id", Integer, ForeignKey("evenings.id"), nullable=False, index=True),
    Column("number", Integer, nullable=False),
    Column("setup_seq", Integer, nullable=False),
    Column("preset", String(80), nullable=False),
    Column("players", Text, nullable=False),  # JSON list in seat order
    Column("created", Float, nullable=False),
    UniqueConstraint("evening_id", "number", name="uq_game_number"),
)

settings = Table(
    "settings", metadata,
    Column("key", String(80), primary_key=True),
    Column("value", Text, nullable=False),
)

_APPEND_ONLY_SQLITE = [
    "CREATE TRIGGER IF NOT EXISTS events_append_only_u BEFORE UPDATE ON events "
    "BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events "
    "BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END",
]


_APPEND_ONLY_POSTGRES = [
    "CREATE OR REPLACE FUNCTION masta_append_only() RETURNS trigger AS $$ "
    "BEGIN RAISE EXCEPTION 'the event log is append-only'; END $$ LANGUAGE plpgsql",
    "DROP TRIGGER IF EXISTS events_append_only ON events",
    "CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events "
    "FOR EACH ROW EXECUTE FUNCTION masta_append_only()",
]


def normalise_url(url: str) -> str:
    """`postgresql://...` uses psycopg 3 when psycopg2 is not installed."""
    if url.startswith(("postgresql://", "postgres://")):
        try:
            import psycopg2  # noqa: F401
        except ImportError:
            return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


class Store:
    """One database; several evenings (each one event log with its own `seq` 1, 2, ...)."""

    def __init__(self, url: str):
        url = normalise_url(url)
        self.url = url
        if url.startswith("sqlite:///") and not url.startswith("sqlite:///file:"):
            Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
        kwargs: dict[str, Any] = {"future": True}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        self.engine: Engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_conn, _record):  # durable: a commit is on disk before we answer
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=FULL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()
        metadata.create_all(self.engine)
        cols = {c["name"] for c in inspect(self.engine).get_columns("evenings")}
        if "table_name" not in cols:  # a database from before tables had names
            with self.engine.begin() as conn:
                conn.execute(text("ALTER TABLE evenings ADD COLUMN table_name VARCHAR(80) NOT NULL DEFAULT 'main'"))
        triggers = (_APPEND_ONLY_SQLITE if url.startswith("sqlite")
                    else _APPEND_ONLY_POSTGRES if url.startswith("postgres") else [])
        with self.engine.begin() as conn:
            for stmt in triggers:
                conn.execute(text(stmt))
        self._lock = threading.Lock()

    # --- evenings -------------------------------------------------------------------
    def new_evening(self, name: str | None = None, table: str = "main") -> int:
        with self._writing("the new evening"), self.engine.begin() as conn:
            now = time.time()
            name = name or time.strftime("Evening of %Y-%m-%d", time.localtime(now))
            return int(conn.execute(insert(evenings).values(name=name, created=now, table_name=table))
                       .inserted_primary_key[0])

    def latest_evening(self, table: str = "main") -> int | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(func.max(evenings.c.id)).where(evenings.c.table_name == table)).scalar()
        return None if row is None else int(row)

    def evening(self, evening_id: int) -> dict | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(evenings).where(evenings.c.id == evening_id)).mappings().first()
        return None if row is None else dict(row)

    def list_evenings(self, table: str | None = None) -> list[dict]:
        q = select(evenings).order_by(evenings.c.id)
        if table is not None:
            q = q.where(evenings.c.table_name == table)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(q).mappings()]

    # --- events ---------------------------------------------------------------------
    def next_seq(self, evening_id: int) -> int:
        with self.engine.connect() as conn:
            top = conn.execute(select(func.max(events.c.seq)).where(events.c.evening_id == evening_id)).scalar()
        return int(top or 0) + 1

    def append(self, evening_id: int, ev: dict) -> dict:
        """Commit `ev` (which carries its `seq`, `t`, `type`, `source`) and return it.

        The seq must be the next one: two writers cannot both append the same seq (the
        unique constraint refuses the second), so the log never forks.
        """
        body = json.dumps(ev, separators=(",", ":"), sort_keys=False)
        with self._lock, self._writing(f"event {ev.get('seq')} ({ev.get('type')})"), self.engine.begin() as conn:
            conn.execute(insert(events).values(
                evening_id=evening_id, seq=int(ev["seq"]), t=float(ev["t"]), type=str(ev["type"]),
                source=str(ev.get("source", "operator")), body=body))
            if ev["type"] == "setup":
                conn.execute(insert(games).values(
                    evening_id=evening_id, number=int(ev.get("game") or 1), setup_seq=int(ev["seq"]),
                    preset=str(ev.get("preset", "fr")), players=json.dumps(list(ev.get("players", []))),
                    created=float(ev["t"])))
        return ev

    def events(self, evening_id: int, after_seq: int = 0) -> list[dict]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(events.c.body).where(
                events.c.evening_id == evening_id, events.c.seq > after_seq).order_by(events.c.seq)).scalars()
            return [json.loads(b) for b in rows]

    def count_events(self, evening_id: int) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(events).where(
                events.c.evening_id == evening_id)).scalar() or 0)

    def games(self, evening_id: int) -> list[dict]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(games).where(games.c.evening_id == evening_id)
                                .order_by(games.c.number)).mappings()
            return [dict(r, players=json.loads(r["players"])) for r in rows]

    # --- settings -------------------------------------------------------------------
    def get_setting(self, key: str, default: Any = None) -> Any:
        with self.engine.connect() as conn:
            v = conn.execute(select(settings.c.value).where(settings.c.key == key)).scalar()
        return default if v is None else json.loads(v)

    def set_setting(self, key: str, value: Any) -> None:
        data = json.dumps(value)
        with self._lock, self._writing(f"the setting {key!r}"), self.engine.begin() as conn:
            if conn.execute(select(settings.c.key).where(settings.c.key == key)).first():
                conn.execute(settings.update().where(settings.c.key == key).values(value=data))
            else:
                conn.execute(insert(settings).values(key=key, value=data))

    @contextlib.contextmanager
    def _writing(self, what: str):
        """A refused write becomes StoreWriteError saying what was not saved and why."""
        try:
            yield
        except OperationalError as exc:
            raise StoreWriteError(f"{what} was not saved: {write_failure(exc)}; nothing of it was "
                                  f"recorded and everything saved before is kept") from None

    def check_writable(self) -> None:
        """Refuse to serve a database that cannot be written (StoreWriteError): a write is
        tried and rolled back, so nothing changes."""
        try:
            with self._lock, self.engine.connect() as conn:
                trans = conn.begin()
                try:
                    conn.execute(insert(settings).values(key="masta:write-check", value="1"))
                finally:
                    trans.rollback()
        except OperationalError as exc:
            raise StoreWriteError(f"cannot write to the database {self.url.split('@')[-1]}: "
                                  f"{write_failure(exc)}") from None

    def close(self) -> None:
        self.engine.dispose()
