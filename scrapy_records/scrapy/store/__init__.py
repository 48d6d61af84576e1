"""Wrapper stores: where induced wrappers are kept between crawls (see :mod:`.base`)."""

from __future__ import annotations

from urllib.parse import urlparse

from scrapy_records.scrapy.store.base import (
    StoredWrapper,
    StoreError,
    VersionConflict,
    WrapperStore,
    redact_uri,
)

__all__ = [
    "open_store",
    "WrapperStore",
    "StoredWrapper",
    "StoreError",
    "VersionConflict",
    "redact_uri",
]


def open_store(uri: str | None) -> WrapperStore:
    """Open the store named by ``uri``.

    * ``sqlite`` / ``None`` / ``""``: ``<project>/.scrapy/records/wrappers.sqlite``;
    * ``sqlite:///abs/path.db`` or ``sqlite://relative/path.db``;
    * ``dir:///path`` (or ``file:///path``, or a plain directory path): one JSON file per wrapper;
    * ``memory:``: this process only;
    * ``redis://[:password@]host:port/db`` / ``rediss://...``: shared store (needs ``redis``).
    """
    uri = (uri or "sqlite").strip()
    if uri == "sqlite":
        from scrapy_records.scrapy.store.sqlite import SQLiteStore

        return SQLiteStore()
    if uri.startswith("memory:"):
        from scrapy_records.scrapy.store.memory import MemoryStore

        return MemoryStore(uri)
    if uri.startswith("sqlite://"):
        from scrapy_records.scrapy.store.sqlite import SQLiteStore

        path = uri[len("sqlite://") :]
        if path.startswith("/") and not path.startswith("//"):
            pass  # sqlite:///abs -> /abs
        return SQLiteStore(path or None)
    if uri.startswith(("redis://", "rediss://", "unix://")):
        from scrapy_records.scrapy.store.redis import RedisStore

        return RedisStore(uri)
    if uri.startswith(("dir://", "file://")):
        from scrapy_records.scrapy.store.directory import DirectoryStore

        return DirectoryStore(
            urlparse(uri).path if uri.startswith("file://") else uri.split("://", 1)[1]
        )
    if "://" not in uri:
        from scrapy_records.scrapy.store.directory import DirectoryStore

        return DirectoryStore(uri)
    raise StoreError(f"unknown wrapper store URI {redact_uri(uri)!r}")
