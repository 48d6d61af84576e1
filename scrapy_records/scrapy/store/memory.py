"""An in-process wrapper store (``memory:``): wrappers live for one crawl only."""

from __future__ import annotations

import threading
import time

from scrapy_records.scrapy.store.base import StoredWrapper, VersionConflict, WrapperStore


class MemoryStore(WrapperStore):
    @classmethod
    def from_uri(cls, uri: str) -> MemoryStore:
        return cls(uri)

    def __init__(self, uri: str = "memory:") -> None:
        self.uri = uri
        self._data: dict[tuple[str, str], StoredWrapper] = {}
        self._leases: dict[tuple[str, str], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def get(self, site: str, template: str) -> StoredWrapper | None:
        with self._lock:
            return self._data.get((site, template))

    def put(self, site, template, document, *, expected_version=None, signature=None) -> int:
        with self._lock:
            cur = self._data.get((site, template))
            actual = cur.version if cur else None
            if actual != expected_version:
                raise VersionConflict(site, template, expected_version, actual)
            version = (actual or 0) + 1
            self._data[(site, template)] = StoredWrapper(
                site, template, version, document, signature, time.time()
            )
            return version

    def list(self, site: str | None = None) -> list[StoredWrapper]:
        with self._lock:
            out = [w for w in self._data.values() if site is None or w.site == site]
        return sorted(out, key=lambda w: (w.site, w.template))

    def delete(self, site: str, template: str | None = None) -> int:
        with self._lock:
            keys = [
                k for k in self._data if k[0] == site and (template is None or k[1] == template)
            ]
            for k in keys:
                del self._data[k]
            return len(keys)

    def acquire_lease(self, site: str, template: str, owner: str, ttl: float = 60.0) -> bool:
        now = time.time()
        with self._lock:
            held = self._leases.get((site, template))
            if held and held[0] != owner and held[1] > now:
                return False
            self._leases[(site, template)] = (owner, now + ttl)
            return True

    def release_lease(self, site: str, template: str, owner: str) -> None:
        with self._lock:
            held = self._leases.get((site, template))
            if held and held[0] == owner:
                del self._leases[(site, template)]
