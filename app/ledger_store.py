"""Where privacy ledgers live between page loads: an append-only log of entries in a SQL database (SQLAlchemy Core).

By default the database is one SQLite file, ``ledgers.sqlite3`` in the data directory named by the environment
variable ``DPX_DATA_DIR`` (default ``./.dpx-data``, created on the first write). With ``DATABASE_URL`` set to a
PostgreSQL address (``postgresql://user:password@host:5432/db``) the same code shares ledgers between app replicas.

A ledger's id is its key, so the data is this user's alone: a data directory made here is ``0700`` and every
database file ``0600`` (:func:`private_dir`, :func:`private_sqlite_file`; other stores kept in the data directory
use them too).

Each ledger has an unguessable id (:func:`new_id`, 128 random bits): whoever holds the id can read the ledger and
add to it (a capability link). Each change appends one or more timestamped entries (``add``, ``refuse``,
``budget``, ``remove_last``, ``clear``, ``import``, ``clear_log``) and updates a snapshot row (the current ledger
as :meth:`dpcore.ledger.Ledger.to_json`, the refusal log and the entry count) in the SAME transaction, so a crash
leaves either the whole change or none of it; :func:`replay` rebuilds the snapshot from the entries. An ``add``
decides accept or refuse against the ledger as stored, under a lock on its row (``SELECT … FOR UPDATE`` on
PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so two tabs adding at once can never overspend the budget.

Every database failure surfaces as :class:`StoreUnavailable` with a sentence a user can read; the app then keeps
the ledger in the browser session and says so (app/ledger.py).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from dpcore import ledger as dl

__all__ = [
    "DATA_DIR_ENV",
    "DATABASE_URL_ENV",
    "DEFAULT_DATA_DIR",
    "MAX_LOG",
    "OPS",
    "Entry",
    "LedgerNotFound",
    "LedgerStore",
    "Outcome",
    "Snapshot",
    "StoreUnavailable",
    "data_dir",
    "database_url",
    "get_store",
    "is_ledger_id",
    "ledger_from_json",
    "new_id",
    "plain_error",
    "private_dir",
    "private_file",
    "private_sqlite_file",
    "replay",
]

DATA_DIR_ENV = "DPX_DATA_DIR"
DATABASE_URL_ENV = "DATABASE_URL"
DEFAULT_DATA_DIR = ".dpx-data"
SQLITE_FILE = "ledgers.sqlite3"
MAX_LOG = 200  # refusals kept in the snapshot's log (every refusal stays an entry)
OPS = ("create", "add", "refuse", "budget", "remove_last", "clear", "import", "clear_log")
_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")

metadata = sa.MetaData()
ledgers = sa.Table(
    "dpx_ledgers",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),  # number of entries so far
    sa.Column("state", sa.Text, nullable=False),  # the current ledger, Ledger.to_json()
    sa.Column("refusals", sa.Text, nullable=False),  # JSON list of the last MAX_LOG refusals
)
entries = sa.Table(
    "dpx_ledger_entries",
    metadata,
    sa.Column("ledger_id", sa.String(32), sa.ForeignKey("dpx_ledgers.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("op", sa.String(16), nullable=False),
    sa.Column("data", sa.Text, nullable=False),  # JSON
)
# the two reads of every page run, built once (a statement is otherwise rebuilt and looked up in the cache each time)
_SEQ = sa.select(ledgers.c.seq).where(ledgers.c.id == sa.bindparam("id"))
_LOAD = sa.select(ledgers).where(ledgers.c.id == sa.bindparam("id"))


class StoreUnavailable(RuntimeError):
    """The ledger database cannot be used (down, read-only, full, …); the message is meant for the user."""


class LedgerNotFound(KeyError):
    """No ledger has this id in the store."""


@dataclass(frozen=True)
class Snapshot:
    """A stored ledger: its id, the ledger, the refusal log (dicts: label, source, kind, reason), entry count."""

    id: str
    ledger: dl.Ledger
    refusals: tuple[dict[str, str], ...]
    seq: int
    updated_at: datetime


@dataclass(frozen=True)
class Outcome:
    """Result of :meth:`LedgerStore.add`: the ledger after the decision, and whether the release was accepted."""

    snapshot: Snapshot
    accepted: bool
    reason: str = ""


@dataclass(frozen=True)
class Entry:
    """One append-only entry of a ledger's history."""

    seq: int
    at: datetime
    op: str
    data: dict[str, Any]


def new_id() -> str:
    """A fresh ledger id: 22 URL-safe characters, 128 random bits (unguessable; it is the capability)."""
    return secrets.token_urlsafe(16)


def is_ledger_id(value: Any) -> bool:
    """True when ``value`` has the shape of a ledger id (checked before any database look-up)."""
    return isinstance(value, str) and bool(_ID.match(value))


def ledger_from_json(text: str) -> dl.Ledger:
    """The ledger of :meth:`~dpcore.ledger.Ledger.to_json` as it was accepted (no replay through the filter)."""
    return dl.restore(text)


def _refusal(release: dl.Release, reason: str) -> dict[str, str]:
    return {"label": release.label, "source": release.source, "kind": release.kind, "reason": reason}


def replay(history: Sequence[Entry]) -> tuple[dl.Ledger, tuple[dict[str, str], ...]]:
    """The ledger and refusal log that a history of entries describes (what the snapshot row must equal)."""
    led, log = dl.Ledger(), []
    for e in history:
        d = e.data
        if e.op == "create":
            led, log = ledger_from_json(json.dumps(d["ledger"])), list(d["refusals"])
        elif e.op == "import":
            led = ledger_from_json(json.dumps(d["ledger"]))
            log += [_refusal(dl.Release.from_dict(r), why) for r, why in d["refused"]]
        elif e.op == "add":
            led = led.try_add(dl.Release.from_dict(d["release"]))
        elif e.op == "refuse":
            log.append(_refusal(dl.Release.from_dict(d["release"]), d["reason"]))
        elif e.op == "budget":
            led = led.with_budget(d["epsilon"], d["delta"], d["enforce"])
        elif e.op == "remove_last":
            led = led.remove_last()
        elif e.op == "clear":
            led = led.clear()
        elif e.op == "clear_log":
            log = []
        else:
            raise ValueError(f"op must be one of {', '.join(OPS)}, got {e.op!r}")
        del log[:-MAX_LOG]
    return led, tuple(log)


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)  # SQLite returns naive UTC


# ---- where the database is --------------------------------------------------------------------------------------


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The data directory named by ``DPX_DATA_DIR`` (default ``./.dpx-data``), as an absolute path; not created."""
    env = os.environ if env is None else env
    return Path(env.get(DATA_DIR_ENV, "").strip() or DEFAULT_DATA_DIR).expanduser().resolve()


def database_url(env: Mapping[str, str] | None = None) -> str:
    """The SQLAlchemy URL from the environment: ``DATABASE_URL`` (PostgreSQL through psycopg 3) or the SQLite file."""
    env = os.environ if env is None else env
    url = env.get(DATABASE_URL_ENV, "").strip()
    if url:
        for prefix in ("postgres://", "postgresql://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url
    return f"sqlite:///{data_dir(env) / SQLITE_FILE}"


# ---- files only this user can read ---------------------------------------------------------------------------------

PRIVATE_DIR_MODE, PRIVATE_FILE_MODE = 0o700, 0o600
#: Files SQLite keeps beside a database (it gives them the database file's mode).
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def private_dir(path: Path) -> Path:
    """Make the directory ``path`` (and its parents) if missing; a directory made here is ``0700``.

    An existing directory is left as it is: it may be shared on purpose (a mounted volume, ``/tmp``), and the files
    in it are private anyway (:func:`private_file`)."""
    path = Path(path)
    try:
        path.mkdir(mode=PRIVATE_DIR_MODE, parents=True)
    except FileExistsError:
        if not path.is_dir():
            raise
        return path
    path.chmod(PRIVATE_DIR_MODE)  # mkdir's mode is narrowed by the umask, never widened: make it exactly 0700
    return path


def private_file(path: Path) -> Path:
    """Make the file ``path`` if missing, readable and writable by this user only (``0600`` from its first instant:
    created with that mode, never chmod-ed after). An existing file of this user's loses what others could do with
    it (a ledger file written ``0644`` by an older version becomes ``0600``; a read-only ``0444`` one ``0400``); where
    that cannot be changed (a read-only disk) it is left as it is."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), PRIVATE_FILE_MODE)
    except FileExistsError:
        info = path.stat()
        if info.st_uid == os.geteuid() and info.st_mode & 0o077:
            with contextlib.suppress(OSError):
                path.chmod(info.st_mode & 0o700)
        return path
    os.close(fd)
    return path


def private_sqlite_file(path: Path) -> Path:
    """The SQLite database file ``path`` made private before SQLite opens it: its directory (:func:`private_dir`),
    the file itself (:func:`private_file`; SQLite accepts the empty file as a new database) and any journal files
    SQLite left beside it; SQLite gives the journals it creates later the database file's mode."""
    path = Path(path)
    private_dir(path.parent)
    private_file(path)
    for suffix in SQLITE_SIDE_FILES:
        side = path.with_name(path.name + suffix)
        if side.exists():
            private_file(side)
    return path


def plain_error(exc: BaseException) -> str:
    """A short, password-free description of a database error."""
    orig = getattr(exc, "orig", None) or exc
    text = " ".join(str(orig).split())
    text = re.sub(r"://[^@/\s]*@", "://…@", text)
    return text[:200] or type(orig).__name__


class LedgerStore:
    """Ledgers in one SQL database (SQLite file or PostgreSQL); thread-safe, one engine per process."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0) -> None:
        self.url = sa.make_url(url)
        self.sqlite = self.url.get_backend_name() == "sqlite"
        self._ready = False
        self._lock = threading.Lock()
        if self.sqlite:
            self.path = Path(self.url.database or "")
            if not self.url.database or self.url.database == ":memory:":
                raise ValueError("url: an SQLite ledger store needs a file (sqlite:///path/ledgers.sqlite3)")
            engine = sa.create_engine(self.url, connect_args={"timeout": 30.0}, pool_size=8, max_overflow=16)

            @sa.event.listens_for(engine, "connect")
            def _connect(dbapi_conn: Any, _record: Any) -> None:
                dbapi_conn.isolation_level = None  # SQLAlchemy's begin event emits the BEGIN itself
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA synchronous=FULL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()

            @sa.event.listens_for(engine, "begin")
            def _begin(conn: sa.Connection) -> None:
                conn.exec_driver_sql("BEGIN IMMEDIATE")  # take the write lock before reading: decide-and-write

        else:
            self.path = None
            args = (
                {"connect_timeout": max(1, round(connect_timeout))}
                if self.url.get_backend_name() == "postgresql"
                else {}
            )
            engine = sa.create_engine(self.url, connect_args=args, pool_pre_ping=True, pool_size=5, max_overflow=10)
        self.engine = engine
        # Reads are one statement each (consistent on its own), so on a server database they run outside a
        # transaction: no BEGIN and ROLLBACK round trips on the check every page run makes. SQLite keeps its own
        # settings (its connections stay in the driver's autocommit mode; see above).
        self._reader = engine if self.sqlite else engine.execution_options(isolation_level="AUTOCOMMIT")

    def describe(self) -> str:
        """Where the ledgers are, in words (no password)."""
        if self.sqlite:
            return f"the SQLite file {self.path}"
        u = self.url
        return f"the {u.get_backend_name()} database {u.database or ''} on {u.host or 'localhost'}:{u.port or ''}"

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    # ---- plumbing ---------------------------------------------------------------------------------------------
    def _prepare(self, *, create: bool) -> bool:
        """Make the directory and tables on first use; False when an SQLite file does not exist and ``create``
        is off."""
        if self._ready:
            return True
        with self._lock:
            if self._ready:
                return True
            if self.sqlite:
                if not create and not self.path.exists():
                    return False
                try:
                    private_sqlite_file(self.path)  # this user's alone: the ids in it are keys
                except OSError as exc:
                    raise StoreUnavailable(
                        f"the data directory {self.path.parent} cannot be created ({exc.strerror or exc})"
                    ) from exc
            try:
                metadata.create_all(self.engine)
            except sa.exc.IntegrityError:  # another replica created the tables at the same moment
                metadata.create_all(self.engine)
            except sa.exc.ProgrammingError as exc:
                if "already exists" not in str(exc):
                    raise
                metadata.create_all(self.engine)
            if self.sqlite:  # readers never wait for a writer; a setting of the file, made once
                raw = self.engine.raw_connection()
                try:
                    if raw.driver_connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                        raw.driver_connection.execute("PRAGMA journal_mode=WAL")
                finally:
                    raw.close()
            self._ready = True
            return True

    def prepare(self, *, create: bool) -> bool:
        """The first use's set-up (directory, ledger tables, SQLite's settings), for other tables kept in the same
        database (the class polls, app/poll_store.py); False when an SQLite file does not exist and ``create`` is
        off. Database errors are the caller's to report."""
        return self._prepare(create=create)

    def _guard(self, fn: Callable[[], Any], *, create: bool) -> Any:
        try:
            if not self._prepare(create=create):
                return None
            return fn()
        except StoreUnavailable:
            raise
        except (sa.exc.SQLAlchemyError, OSError) as exc:
            raise StoreUnavailable(
                f"the ledger database ({self.describe()}) cannot be used: {plain_error(exc)}"
            ) from exc

    @staticmethod
    def _snapshot(row: Any) -> Snapshot:
        return Snapshot(
            row.id, ledger_from_json(row.state), tuple(json.loads(row.refusals)), int(row.seq), _utc(row.updated_at)
        )

    def _change(
        self,
        ledger_id: str,
        fn: Callable[[Snapshot], tuple[dl.Ledger, list[dict[str, str]], list[tuple[str, dict[str, Any]]], Any]],
    ) -> Any:
        """Read the ledger under a row lock, let ``fn`` decide, append its entries and the new snapshot; commit."""
        if not is_ledger_id(ledger_id):
            raise LedgerNotFound(ledger_id)

        def run() -> Any:
            with self.engine.begin() as conn:
                row = conn.execute(sa.select(ledgers).where(ledgers.c.id == ledger_id).with_for_update()).first()
                if row is None:
                    raise LedgerNotFound(ledger_id)
                snap = self._snapshot(row)
                new, log, ops, result = fn(snap)
                if not ops:
                    return snap, result
                now = _now()
                conn.execute(
                    entries.insert(),
                    [
                        {
                            "ledger_id": ledger_id,
                            "seq": snap.seq + 1 + i,
                            "at": now,
                            "op": op,
                            "data": json.dumps(data, allow_nan=False),
                        }
                        for i, (op, data) in enumerate(ops)
                    ],
                )
                log = log[-MAX_LOG:]
                conn.execute(
                    ledgers.update()
                    .where(ledgers.c.id == ledger_id)
                    .values(seq=snap.seq + len(ops), updated_at=now, state=new.to_json(), refusals=json.dumps(log))
                )
                return Snapshot(ledger_id, new, tuple(log), snap.seq + len(ops), now), result

        return self._guard(run, create=True)

    # ---- reading ----------------------------------------------------------------------------------------------
    def _read(self, ledger_id: str, query: Callable[[sa.Connection], Any]) -> Any:
        """``query`` on a reading connection, for a well-formed ledger id; None for any other id or when there is no
        database to read yet."""
        if not is_ledger_id(ledger_id):
            return None

        def run() -> Any:
            with self._reader.connect() as conn:
                return query(conn)

        return self._guard(run, create=False)

    def load(self, ledger_id: str) -> Snapshot | None:
        """The stored ledger with this id, or None when there is none."""
        row = self._read(ledger_id, lambda conn: conn.execute(_LOAD, {"id": ledger_id}).first())
        return None if row is None else self._snapshot(row)

    def seq(self, ledger_id: str) -> int | None:
        """How many entries the ledger has (changes whenever the ledger does); None when there is no such ledger."""
        return self._read(ledger_id, lambda conn: conn.execute(_SEQ, {"id": ledger_id}).scalar())

    def history(self, ledger_id: str) -> list[Entry]:
        """Every entry of the ledger, oldest first."""
        select = sa.select(entries).where(entries.c.ledger_id == ledger_id).order_by(entries.c.seq)
        rows = self._read(ledger_id, lambda conn: conn.execute(select).all()) or []
        return [Entry(int(r.seq), _utc(r.at), r.op, json.loads(r.data)) for r in rows]

    # ---- writing ----------------------------------------------------------------------------------------------
    def create(self, ledger: dl.Ledger | None = None, refusals: Sequence[Mapping[str, str]] = ()) -> Snapshot:
        """A new ledger (default: the default budget, no releases) under a fresh id."""
        led = dl.Ledger() if ledger is None else ledger
        if not isinstance(led, dl.Ledger):
            raise ValueError("ledger must be a dpcore.ledger.Ledger")
        log = [dict(r) for r in refusals][-MAX_LOG:]
        ledger_id, now = new_id(), _now()

        def run() -> Snapshot:
            with self.engine.begin() as conn:
                conn.execute(
                    ledgers.insert().values(
                        id=ledger_id,
                        created_at=now,
                        updated_at=now,
                        seq=1,
                        state=led.to_json(),
                        refusals=json.dumps(log),
                    )
                )
                conn.execute(
                    entries.insert().values(
                        ledger_id=ledger_id,
                        seq=1,
                        at=now,
                        op="create",
                        data=json.dumps({"ledger": json.loads(led.to_json()), "refusals": log}),
                    )
                )
            return Snapshot(ledger_id, led, tuple(log), 1, now)

        return self._guard(run, create=True)

    def add(self, ledger_id: str, release: dl.Release) -> Outcome:
        """Add ``release`` if the enforcing accountant accepts it against the ledger as stored; else log a refusal."""
        if not isinstance(release, dl.Release):
            raise ValueError("release must be a dpcore.ledger.Release")

        def decide(s: Snapshot):
            try:
                new = s.ledger.try_add(release)
            except dl.BudgetExceeded as exc:
                reason = str(exc)
                return (
                    s.ledger,
                    [*s.refusals, _refusal(release, reason)],
                    [("refuse", {"release": release.to_dict(), "reason": reason})],
                    (False, reason),
                )
            return new, list(s.refusals), [("add", {"release": release.to_dict()})], (True, "")

        snap, (ok, reason) = self._change(ledger_id, decide)
        return Outcome(snap, ok, reason)

    def set_budget(self, ledger_id: str, epsilon: float, delta: float, enforce: str | None = None) -> Snapshot:
        """Same releases under another budget (an over-spent ledger is allowed; it then refuses every addition)."""

        def decide(s: Snapshot):
            new = s.ledger.with_budget(epsilon, delta, enforce)
            if new == s.ledger:
                return s.ledger, list(s.refusals), [], None
            return (
                new,
                list(s.refusals),
                [("budget", {"epsilon": new.epsilon, "delta": new.delta, "enforce": new.enforce})],
                None,
            )

        return self._change(ledger_id, decide)[0]

    def remove_last(self, ledger_id: str) -> Snapshot:
        """Drop the last release (an entry records it; nothing is erased from the history)."""
        return self._change(
            ledger_id,
            lambda s: (
                s.ledger.remove_last(),
                list(s.refusals),
                [("remove_last", {})] if s.ledger.releases else [],
                None,
            ),
        )[0]

    def clear(self, ledger_id: str) -> Snapshot:
        """Drop every release (same budget)."""
        return self._change(
            ledger_id,
            lambda s: (s.ledger.clear(), list(s.refusals), [("clear", {})] if s.ledger.releases else [], None),
        )[0]

    def clear_log(self, ledger_id: str) -> Snapshot:
        """Empty the refusal log."""
        return self._change(ledger_id, lambda s: (s.ledger, [], [("clear_log", {})] if s.refusals else [], None))[0]

    def replace(self, ledger_id: str, imported: dl.Imported) -> Snapshot:
        """Replace the ledger by an imported one (its refused releases join the refusal log)."""
        refused = [(r.to_dict(), why) for r, why in imported.refused]

        def decide(s: Snapshot):
            log = [*s.refusals, *(_refusal(r, why) for r, why in imported.refused)]
            return (
                imported.ledger,
                log,
                [("import", {"ledger": json.loads(imported.ledger.to_json()), "refused": refused})],
                None,
            )

        return self._change(ledger_id, decide)[0]


@functools.cache
def _store_for(url: str) -> LedgerStore:
    return LedgerStore(url)


def get_store(env: Mapping[str, str] | None = None) -> LedgerStore:
    """The process-wide store for the environment's database (one engine and connection pool per URL)."""
    return _store_for(database_url(env))
