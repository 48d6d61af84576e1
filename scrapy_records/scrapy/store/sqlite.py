"""The default wrapper store: one SQLite file (``<project>/.scrapy/records/wrappers.sqlite``).

Safe with several processes: the database runs in WAL mode with a busy timeout, and every
update is one ``BEGIN IMMEDIATE`` transaction that checks the expected version and writes the
new one (compare-and-set), so a write is atomic and never overwrites a newer wrapper.
Every version ever stored stays in the ``history`` table (``scrapy wrappers show --history``).

Every SQLite error (a corrupt or read-only file, a full disk, a lock held too long) is raised
as :class:`~.base.StoreError`, which the engine treats as a store outage: wrappers are
used from memory, nothing is lost and nothing is induced again.
"""

from __future__ import annotations

import builtins  # the store's list() method shadows list in annotations below it
import functools
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from scrapy_records.scrapy.store.base import (
    StoredWrapper,
    StoreError,
    VersionConflict,
    WrapperStore,
)

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def store_errors(fn: F) -> F:
    """Raise the SQLite errors of a store method as :class:`StoreError` (an outage to the
    engine), naming the file and the operation."""

    @functools.wraps(fn)
    def wrapper(self: SQLiteStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except sqlite3.Error as e:
            raise StoreError(
                f"wrapper store {self.path}: {fn.__name__} failed: {type(e).__name__}: {e}"
            ) from e

    return wrapper  # type: ignore[return-value]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS wrappers (
    site TEXT NOT NULL,
    template TEXT NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL,
    signature TEXT,
    updated REAL NOT NULL,
    PRIMARY KEY (site, template)
);
CREATE TABLE IF NOT EXISTS history (
    site TEXT NOT NULL,
    template TEXT NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (site, template, version)
);
CREATE TABLE IF NOT EXISTS leases (
    site TEXT NOT NULL,
    template TEXT NOT NULL,
    owner TEXT NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (site, template)
);
"""


def default_sqlite_path() -> str:
    """``records/wrappers.sqlite`` under the project's ``.scrapy`` data directory."""
    from scrapy.utils.project import data_path

    return os.path.join(data_path("records", createdir=True), "wrappers.sqlite")


class SQLiteStore(WrapperStore):
    """:class:`WrapperStore` on one SQLite file (``sqlite:///path``; ``sqlite``: the default)."""

    @classmethod
    def from_uri(cls, uri: str) -> SQLiteStore:
        """``sqlite`` (the project's default file), ``sqlite:///abs/path.db`` or
        ``sqlite://relative/path.db``."""
        return cls(uri.split("://", 1)[1] or None if "://" in uri else None)

    def __init__(self, path: str | None = None, *, timeout: float = 30.0) -> None:
        self.path = path or default_sqlite_path()
        self.uri = f"sqlite:///{os.path.abspath(self.path)}"
        parent = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(parent, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            self._init_database(timeout)
        except sqlite3.Error as e:
            raise StoreError(f"cannot open wrapper store {self.path}: {e}") from e

    def _init_database(self, timeout: float) -> None:
        """WAL mode and the schema. Switching a new file to WAL needs an exclusive lock and
        SQLite answers "database is locked" at once, without the busy handler, when several
        processes open the new file together: retry until ``timeout``."""
        deadline = time.monotonic() + timeout
        delay = 0.01
        while True:
            try:
                mode = self._conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.executescript(_SCHEMA)
                return
            except sqlite3.OperationalError as e:
                msg = str(e).lower()
                if ("locked" not in msg and "busy" not in msg) or time.monotonic() > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        """One ``BEGIN IMMEDIATE`` transaction (it takes the database's write lock at once,
        so a check-then-write cannot interleave with another process): committed when the
        block ends, rolled back when it or the commit raises. The error raised is the one
        that happened: after ``SQLITE_FULL`` SQLite may have rolled back already, and a
        failing ``ROLLBACK`` must not hide why."""
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
                cur.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    try:
                        cur.execute("ROLLBACK")
                    except sqlite3.Error as e:  # the first error is the one to report
                        logger.debug("scrapy_records: rollback of %s failed: %s", self.path, e)
                raise

    @staticmethod
    def _row(row: tuple) -> StoredWrapper:
        site, template, version, document, signature, updated = row
        try:
            sig = json.loads(signature) if signature else None
        except ValueError:
            sig = None
        return StoredWrapper(site, template, int(version), document, sig, float(updated))

    @store_errors
    def get(self, site: str, template: str) -> StoredWrapper | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT site, template, version, document, signature, updated FROM wrappers"
                " WHERE site = ? AND template = ?",
                (site, template),
            ).fetchone()
        return self._row(row) if row else None

    @store_errors
    def put(self, site, template, document, *, expected_version=None, signature=None) -> int:
        now = time.time()
        sig = json.dumps(signature) if signature is not None else None
        with self._transaction() as cur:
            row = cur.execute(
                "SELECT version FROM wrappers WHERE site = ? AND template = ?",
                (site, template),
            ).fetchone()
            actual = int(row[0]) if row else None
            if actual != expected_version:
                raise VersionConflict(site, template, expected_version, actual)
            version = (actual or 0) + 1
            cur.execute(
                "INSERT OR REPLACE INTO wrappers (site, template, version, document, signature,"
                " updated) VALUES (?, ?, ?, ?, ?, ?)",
                (site, template, version, document, sig, now),
            )
            cur.execute(
                "INSERT OR REPLACE INTO history (site, template, version, document, updated)"
                " VALUES (?, ?, ?, ?, ?)",
                (site, template, version, document, now),
            )
        return version

    @store_errors
    def list(self, site: str | None = None) -> list[StoredWrapper]:
        q = "SELECT site, template, version, document, signature, updated FROM wrappers"
        args: tuple = ()
        if site is not None:
            q += " WHERE site = ?"
            args = (site,)
        with self._lock:
            rows = self._conn.execute(q + " ORDER BY site, template", args).fetchall()
        return [self._row(r) for r in rows]

    @store_errors
    def history(self, site: str, template: str) -> builtins.list[tuple[int, float, str]]:
        """``(version, updated, document)`` of every stored version, oldest first."""
        with self._lock:
            return self._conn.execute(
                "SELECT version, updated, document FROM history WHERE site = ? AND template = ?"
                " ORDER BY version",
                (site, template),
            ).fetchall()

    @store_errors
    def delete(self, site: str, template: str | None = None) -> int:
        with self._lock:
            if template is None:
                n = self._conn.execute("DELETE FROM wrappers WHERE site = ?", (site,)).rowcount
            else:
                n = self._conn.execute(
                    "DELETE FROM wrappers WHERE site = ? AND template = ?", (site, template)
                ).rowcount
        return n

    @store_errors
    def acquire_lease(self, site: str, template: str, owner: str, ttl: float = 60.0) -> bool:
        now = time.time()
        with self._transaction() as cur:
            row = cur.execute(
                "SELECT owner, expires FROM leases WHERE site = ? AND template = ?",
                (site, template),
            ).fetchone()
            if row and row[0] != owner and row[1] > now:
                return False  # held by another owner (the empty transaction just commits)
            cur.execute(
                "INSERT OR REPLACE INTO leases (site, template, owner, expires)"
                " VALUES (?, ?, ?, ?)",
                (site, template, owner, now + ttl),
            )
        return True

    @store_errors
    def release_lease(self, site: str, template: str, owner: str) -> None:
        with self._lock:
            self._conn.execute(
                "DELETE FROM leases WHERE site = ? AND template = ? AND owner = ?",
                (site, template, owner),
            )

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.Error:  # pragma: no cover
                pass
