"""Wrapper stores: where induced wrappers are kept between crawls (see :mod:`.base`)."""

from __future__ import annotations

from collections.abc import Mapping

from scrapy.utils.misc import load_object

from scrapy_records.scrapy.settings import STORE_BACKENDS
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


def open_store(uri: str | None, backends: Mapping[str, str] | None = None) -> WrapperStore:
    """Open the store named by ``uri``, by its scheme.

    * ``sqlite`` / ``None`` / ``""``: ``<project>/.scrapy/records/wrappers.sqlite``;
    * ``sqlite:///abs/path.db`` or ``sqlite://relative/path.db``;
    * ``dir:///path`` (or ``file:///path``, or a plain directory path): one JSON file per wrapper;
    * ``memory:``: this process only;
    * ``redis://[:password@]host:port/db`` / ``rediss://...``: shared store (needs ``redis``).

    :param backends: scheme -> import path of the store class (default: the built-in ones,
        :data:`~scrapy_records.scrapy.settings.STORE_BACKENDS`; a crawl passes them merged
        with ``RECORDS_WRAPPER_STORES``).
    """
    uri = (uri or "sqlite").strip()
    table = backends if backends is not None else STORE_BACKENDS
    scheme = uri.split(":", 1)[0].lower() if ":" in uri else uri.lower()
    if scheme not in table and "://" not in uri:
        scheme = "dir"  # a plain path: a directory of JSON files
    path = table.get(scheme)
    if path is None:
        known = ", ".join(sorted(table))
        raise StoreError(f"unknown wrapper store URI {redact_uri(uri)!r} (schemes: {known})")
    cls = load_object(path)
    return cls.from_uri(uri)
