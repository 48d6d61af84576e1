"""A wrapper store in Redis (``redis://[:password@]host:port/db``, ``rediss://`` for TLS,
``unix:///path.sock``): one store shared by crawls across processes and machines (issue 8).

Keys (prefix ``records`` by default, ``?prefix=name`` in the URI to change it):

* ``<p>:w:<site>:<template>``: hash ``version``, ``document``, ``signature`` (JSON), ``updated``;
* ``<p>:h:<site>:<template>``: hash version -> document (every stored version);
* ``<p>:sites`` / ``<p>:t:<site>``: sets indexing sites and their templates;
* ``<p>:epoch``: a counter bumped by every write; readers keep a local cache of the entries
  they read and revalidate it with one ``GET`` of the epoch (or none at all within
  ``cache_seconds``), so noticing an update costs one round trip;
* ``<p>:lease:<site>:<template>``: the induction lease (``SET NX PX``; owner-checked renew
  and release in Lua), which expires by itself when a worker dies.

Updates are compare-and-set in one Lua script: a write based on an old version fails with
:class:`~.base.VersionConflict` and never overwrites a newer wrapper.

Connection loss: reads return "nothing stored" (the crawl goes on with local extraction and
in-memory wrappers), writes raise :class:`~.base.StoreError` (logged by the caller), leases
are granted locally; the problem is logged once, and redis-py reconnects on the next command
(logged once more when the store is back).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from urllib.parse import parse_qs, urlsplit, urlunsplit

from .base import StoredWrapper, StoreError, VersionConflict, WrapperStore

logger = logging.getLogger(__name__)

_PUT = """
local cur = redis.call('HGET', KEYS[1], 'version')
local expected = ARGV[1]
if (cur == false and expected ~= '') or (cur ~= false and cur ~= expected) then
  if cur == false then return {0, ''} end
  return {0, cur}
end
local v = 1
if cur ~= false then v = tonumber(cur) + 1 end
redis.call('HSET', KEYS[1], 'version', v, 'document', ARGV[2], 'signature', ARGV[3], 'updated', ARGV[4])
redis.call('HSET', KEYS[2], v, ARGV[2])
redis.call('SADD', KEYS[3], ARGV[5])
redis.call('SADD', KEYS[4], ARGV[6])
redis.call('INCR', KEYS[5])
return {1, tostring(v)}
"""

_LEASE = """
local cur = redis.call('GET', KEYS[1])
if cur == false or cur == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisStore(WrapperStore):
    """:class:`WrapperStore` in Redis (see the module docstring)."""

    def __init__(self, uri: str, *, prefix: str | None = None, cache_seconds: float = 1.0,
                 socket_timeout: float = 2.0) -> None:
        try:
            import redis
        except ImportError as exc:  # pragma: no cover - optional dependency
            raise StoreError("the Redis wrapper store needs redis-py: pip install scrapy-records[redis]") from exc
        self._redis_mod = redis
        parts = urlsplit(uri)
        query = parse_qs(parts.query)
        self.prefix = prefix or query.pop("prefix", ["records"])[0]
        clean = urlunsplit(parts._replace(query="&".join(f"{k}={v[0]}" for k, v in query.items())))
        self.uri = urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else "")
                                             if parts.hostname else parts.netloc, query=""))
        self.client = redis.Redis.from_url(
            clean, socket_timeout=socket_timeout, socket_connect_timeout=socket_timeout,
            retry_on_timeout=False, health_check_interval=30,
        )
        self.cache_seconds = cache_seconds
        self._cache: dict[tuple[str, str], StoredWrapper | None] = {}
        self._epoch: bytes | None = None
        self._epoch_checked = 0.0
        self._lock = threading.Lock()
        self._down = False
        self._put = self.client.register_script(_PUT)
        self._lease = self.client.register_script(_LEASE)
        self._release = self.client.register_script(_RELEASE)

    # ------------------------------------------------------------ connection
    def _failed(self, exc: Exception, what: str) -> None:
        if not self._down:
            self._down = True
            logger.error(
                "scrapy_records: Redis wrapper store %s unavailable (%s: %s); the crawl goes on"
                " with local extraction and reconnects automatically", self.uri, what, exc,
            )

    def _ok(self) -> None:
        if self._down:
            self._down = False
            logger.warning("scrapy_records: Redis wrapper store %s is back", self.uri)

    def _errors(self) -> tuple[type[BaseException], ...]:
        r = self._redis_mod
        return (r.ConnectionError, r.TimeoutError, OSError)

    def _k(self, kind: str, site: str, template: str | None = None) -> str:
        return f"{self.prefix}:{kind}:{site}" + (f":{template}" if template is not None else "")

    def _entry(self, site: str, template: str, h: dict[bytes, bytes]) -> StoredWrapper | None:
        if not h or b"version" not in h:
            return None
        sig = h.get(b"signature") or b""
        try:
            signature = json.loads(sig) if sig else None
        except ValueError:
            signature = None
        return StoredWrapper(
            site=site, template=template, version=int(h[b"version"]),
            document=(h.get(b"document") or b"").decode("utf-8", "replace"),
            signature=signature, updated=float(h.get(b"updated") or 0.0),
        )

    # ------------------------------------------------------------------ reads
    def _revalidate(self) -> None:
        """Drop the local cache when another writer bumped the epoch."""
        now = time.monotonic()
        if now - self._epoch_checked < self.cache_seconds:
            return
        epoch = self.client.get(f"{self.prefix}:epoch")
        self._epoch_checked = now
        if epoch != self._epoch:
            self._cache.clear()
            self._epoch = epoch

    def get(self, site: str, template: str) -> StoredWrapper | None:
        try:
            with self._lock:
                self._revalidate()
                if (site, template) in self._cache:
                    entry = self._cache[(site, template)]
                else:
                    entry = self._entry(site, template, self.client.hgetall(self._k("w", site, template)))
                    self._cache[(site, template)] = entry
            self._ok()
            return entry
        except self._errors() as exc:
            self._failed(exc, "get")
            return None

    def list(self, site: str | None = None) -> list[StoredWrapper]:
        try:
            sites = [site] if site is not None else sorted(
                s.decode() for s in self.client.smembers(f"{self.prefix}:sites"))
            out = []
            for s in sites:
                for t in sorted(x.decode() for x in self.client.smembers(self._k("t", s))):
                    e = self._entry(s, t, self.client.hgetall(self._k("w", s, t)))
                    if e is not None:
                        out.append(e)
            self._ok()
            return out
        except self._errors() as exc:
            self._failed(exc, "list")
            return []

    def history(self, site: str, template: str) -> list[tuple[int, float, str]]:
        h = self.client.hgetall(self._k("h", site, template))
        return sorted((int(v), 0.0, d.decode("utf-8", "replace")) for v, d in h.items())

    # ----------------------------------------------------------------- writes
    def put(self, site, template, document, *, expected_version=None, signature=None) -> int:
        try:
            ok, val = self._put(
                keys=[self._k("w", site, template), self._k("h", site, template),
                      f"{self.prefix}:sites", self._k("t", site), f"{self.prefix}:epoch"],
                args=["" if expected_version is None else str(expected_version), document,
                      json.dumps(signature) if signature is not None else "", repr(time.time()),
                      site, template],
            )
        except self._errors() as exc:
            self._failed(exc, "put")
            raise StoreError(f"Redis wrapper store unavailable: {exc}") from exc
        self._ok()
        with self._lock:
            self._cache.pop((site, template), None)
            self._epoch_checked = 0.0
        if not int(ok):
            actual = int(val) if val not in (b"", "", None) else None
            raise VersionConflict(site, template, expected_version, actual)
        return int(val)

    def delete(self, site: str, template: str | None = None) -> int:
        try:
            templates = [template] if template is not None else [
                t.decode() for t in self.client.smembers(self._k("t", site))]
            n = 0
            pipe = self.client.pipeline()
            for t in templates:
                pipe.delete(self._k("w", site, t))
                pipe.srem(self._k("t", site), t)
            pipe.incr(f"{self.prefix}:epoch")
            res = pipe.execute()
            n = sum(int(r) for r in res[0:-1:2])
            if not self.client.scard(self._k("t", site)):
                self.client.srem(f"{self.prefix}:sites", site)
        except self._errors() as exc:
            self._failed(exc, "delete")
            raise StoreError(f"Redis wrapper store unavailable: {exc}") from exc
        with self._lock:
            self._cache.clear()
        return n

    # ----------------------------------------------------------------- leases
    def acquire_lease(self, site: str, template: str, owner: str, ttl: float = 60.0) -> bool:
        try:
            got = bool(self._lease(keys=[self._k("lease", site, template)],
                                   args=[owner, max(1, int(ttl * 1000))]))
            self._ok()
            return got
        except self._errors() as exc:
            self._failed(exc, "lease")
            return True  # no shared store: induce locally

    def release_lease(self, site: str, template: str, owner: str) -> None:
        try:
            self._release(keys=[self._k("lease", site, template)], args=[owner])
        except self._errors() as exc:
            self._failed(exc, "release")

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # pragma: no cover
            pass
