"""The wrapper store interface.

A store keeps one wrapper document (JSON text) per ``(site, template)`` with an integer
``version`` that grows by one on every update. Updates are compare-and-set: ``put`` with
``expected_version`` only succeeds when the stored version is still that one, so two
processes never silently overwrite each other's wrapper (the loser gets
:class:`VersionConflict` and reloads). ``expected_version=None`` means "create": it fails
when an entry exists. A store also keeps each entry's template *signature* (what template
grouping needs to recognise a page of a known template in a later crawl) and a per-template
induction lease, so that in a multi-process crawl only one worker induces a template at a time.

Backends: :mod:`.sqlite` (default), :mod:`.directory`, :mod:`.memory`, and
:mod:`.redis` (shared between machines). :func:`~scrapy_records.scrapy.store.open_store`
picks one from a URI's scheme; a backend is built with its ``from_uri`` class method.
"""

from __future__ import annotations

import abc
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

#: Query parameters whose values :func:`redact_uri` hides.
SECRET_PARAMS = ("password", "passwd", "pass", "secret", "token", "key", "auth")


def redact_uri(uri: Any) -> str:
    """``uri`` safe to log: the user info (``user:password@``) is dropped and the values of
    password-like query parameters (``?password=...``) are replaced by ``***``. Anything that
    does not parse as a URI is reduced to its scheme (a plain path is returned as it is)."""
    text = str(uri if uri is not None else "")
    if "://" not in text:
        return text
    try:
        parts = urlsplit(text)
        netloc = parts.netloc.rsplit("@", 1)[-1]
        query = urlencode(
            [
                (k, "***" if any(s in k.lower() for s in SECRET_PARAMS) else v)
                for k, v in parse_qsl(parts.query, keep_blank_values=True)
            ],
            safe="*/:",
        )
        return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
    except ValueError:
        return text.split("://", 1)[0] + "://..."


class StoreError(Exception):
    """A wrapper store cannot be opened or used."""


class VersionConflict(StoreError):
    """``put`` lost a compare-and-set race: the stored version is not the expected one."""

    def __init__(self, site: str, template: str, expected: int | None, actual: int | None):
        self.site, self.template, self.expected, self.actual = site, template, expected, actual
        super().__init__(
            f"wrapper {site}/{template}: expected version {expected}, store has {actual}"
        )


@dataclass
class StoredWrapper:
    """One store entry. ``document`` is the wrapper's JSON text exactly as stored."""

    site: str
    template: str
    version: int
    document: str
    signature: Any = None
    updated: float = field(default_factory=time.time)

    @property
    def wrapper_id(self) -> str:
        return f"{self.site}/{self.template}"

    def summary(self) -> dict[str, Any]:
        return {
            "wrapper_id": self.wrapper_id,
            "site": self.site,
            "template": self.template,
            "version": self.version,
            "updated": self.updated,
            "bytes": len(self.document or ""),
        }


class WrapperStore(abc.ABC):
    """Interface every backend implements (all methods are safe to call from threads)."""

    uri: str = ""

    @classmethod
    @abc.abstractmethod
    def from_uri(cls, uri: str) -> WrapperStore:
        """The store a ``RECORDS_WRAPPER_STORE`` URI names (each backend parses its own)."""

    @abc.abstractmethod
    def get(self, site: str, template: str) -> StoredWrapper | None:
        """The entry of ``(site, template)`` or ``None``."""

    @abc.abstractmethod
    def put(
        self,
        site: str,
        template: str,
        document: str,
        *,
        expected_version: int | None = None,
        signature: Any = None,
    ) -> int:
        """Store ``document`` and return its new version (compare-and-set, see the module doc).

        :raises VersionConflict: the stored version is not ``expected_version``.
        """

    @abc.abstractmethod
    def list(self, site: str | None = None) -> list[StoredWrapper]:
        """All entries (of one site), sorted by site then template."""

    @abc.abstractmethod
    def delete(self, site: str, template: str | None = None) -> int:
        """Delete one entry, or every entry of ``site``; return how many were deleted."""

    def acquire_lease(self, site: str, template: str, owner: str, ttl: float = 60.0) -> bool:
        """Try to take the induction lease of ``(site, template)`` for ``ttl`` seconds.

        The default implementation (single process) always succeeds.
        """
        return True

    def release_lease(self, site: str, template: str, owner: str) -> None:  # noqa: B027
        """Give the lease back (no-op when not held; backends without leases need nothing)."""

    def close(self) -> None:  # noqa: B027 - a backend without resources needs nothing
        """Release resources."""

    def __enter__(self) -> WrapperStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.uri}>"
