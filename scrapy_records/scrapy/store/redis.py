"""A wrapper store in Redis: one store shared by crawls across processes and machines.

URIs (``RECORDS_WRAPPER_STORE``), as redis-py's ``Redis.from_url`` reads them:

* ``redis://[[user]:password@]host[:port][/db]`` (``/0`` by default);
* ``rediss://...`` for TLS (``?ssl_cert_reqs=required&ssl_ca_certs=/path/ca.pem`` and the
  other ``ssl_*`` options of redis-py in the query string);
* ``unix:///path/redis.sock?db=0`` for a local socket.

Query parameters read by this store (the others go to redis-py): ``prefix`` (key namespace,
default ``records``), ``cache_seconds`` (see *Reads*), ``retry_seconds`` (see *Outages*),
``history`` (versions kept per wrapper, default 20). The password never appears in
:attr:`RedisStore.uri` (what is logged).

Keys (``<p>`` is the prefix):

* ``<p>:w:<site>:<template>``: hash ``version``, ``document``, ``signature`` (JSON),
  ``updated`` -- the current wrapper document;
* ``<p>:h:<site>:<template>``: hash ``<version>`` -> document and ``t:<version>`` -> time
  of the last ``history`` versions (older ones are trimmed by the write itself; deleting
  the wrapper deletes them too);
* ``<p>:sites`` / ``<p>:t:<site>``: sets indexing the sites and their templates;
* ``<p>:epoch``: a counter bumped by every write and delete;
* ``<p>:gen``: the server's data generation, a random id set by the first writer or reader
  of an empty server (a restart without persistence, a ``FLUSHALL``: new generation);
* ``<p>:lease:<site>:<template>``: an induction lease.

``<site>`` and ``<template>`` are escaped in key names (``%`` and ``:`` as ``%25`` and
``%3A``), so ``("a:b", "c")`` and ``("a", "b:c")`` are two keys.

**Writes** are compare-and-set in one Lua script (atomic on the server, no WATCH round
trips): ``put`` succeeds only when the stored version is ``expected_version`` (``None`` =
create), writes ``version + 1`` and bumps the epoch; otherwise it raises
:class:`~.base.VersionConflict` and the newer stored wrapper stays untouched. A write
carries the generation its expected version was read in: when the server lost its data
since (another generation) and the entry is gone, nobody else wrote it, and the write
stores ``expected_version + 1``; an entry written in the new generation wins over it.

**Reads** keep a local cache of every entry (and every site listing) read. The cache is
revalidated with one ``MGET <p>:epoch <p>:gen`` at most every ``cache_seconds`` (default
1 s): while
the epoch is unchanged no wrapper document crosses the network again, so a worker notices
another worker's update within ``cache_seconds`` for the price of one small round trip.

**Leases** (one per ``(site, template)``; the engine takes one per site, see
``engine.LEASE_TEMPLATE``): ``SET <key> <owner> PX <ttl>`` when free or already held by the
same owner (which renews it), in a Lua script; taking it also makes the next read
revalidate the cache (the previous holder may have just stored a wrapper). A script
releases it only when the key still holds the caller's owner id, so a late worker never
releases a lease that expired and was taken by another one. A killed worker's lease
expires after ``ttl``.

**Outages** (connection refused or lost, timeouts, a read-only replica, out of memory): the
first failure is logged once (ERROR). A failure that took time (a timeout: the host is
unreachable or the server hangs) makes the store leave Redis alone for ``retry_seconds``
(default 5 s, doubling up to 60 s while it stays down), so an unreachable server costs the
crawl one timeout per pause, not one per page; a refused connection (a few milliseconds)
is simply tried again by the next command. Meanwhile ``get``/``list`` return what the local
cache holds (else nothing: the engine mines unsupervised), ``acquire_lease`` grants the
lease locally (the worker induces for itself), and ``put`` keeps the write in a bounded
queue (latest document per wrapper) and raises :class:`~.base.StoreError`, so the engine
uses the wrapper in memory. The first successful command after the pause logs that Redis
is back and replays the queued writes, each still compare-and-set on the version it was
based on (a wrapper stored meanwhile by another worker wins); ``close`` tries once more.
Records are produced by the engine whatever the store does: nothing extracted is lost.

Template samples (pages waiting for induction) are not kept in Redis: they stay in each
worker's memory, bounded by ``RECORDS_MAX_SAMPLES`` (``engine.RecordsRuntime``).
"""

from __future__ import annotations

import builtins  # the store's list() method shadows list in annotations below it
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit

from scrapy_records.scrapy.store.base import (
    StoredWrapper,
    StoreError,
    VersionConflict,
    WrapperStore,
    redact_uri,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: KEYS: wrapper hash, history hash, sites set, site's templates set, epoch, generation.
#: ARGV: expected version ('' = create), document, signature JSON, time, site, template,
#: history length (0 = keep every version), the generation the expected version was read
#: in ('' = unknown), a new generation id (for an empty server).
#: Returns {stored (0/1), version or '', the server's generation}.
_PUT = """
local gen = redis.call('GET', KEYS[6])
if gen == false then
  gen = ARGV[9]
  redis.call('SET', KEYS[6], gen)
end
local cur = redis.call('HGET', KEYS[1], 'version')
local expected = ARGV[1]
local lost = cur == false and expected ~= '' and ARGV[8] ~= '' and ARGV[8] ~= gen
if not lost and ((cur == false and expected ~= '') or (cur ~= false and cur ~= expected)
    or (cur ~= false and ARGV[8] ~= '' and ARGV[8] ~= gen)) then
  if cur == false then return {0, '', gen} end
  return {0, cur, gen}
end
local v = 1
if lost then v = tonumber(expected) + 1 elseif cur ~= false then v = tonumber(cur) + 1 end
redis.call('HSET', KEYS[1], 'version', v, 'document', ARGV[2], 'signature', ARGV[3],
           'updated', ARGV[4])
redis.call('HSET', KEYS[2], v, ARGV[2], 't:' .. v, ARGV[4])
local keep = tonumber(ARGV[7])
if keep > 0 and v > keep then
  redis.call('HDEL', KEYS[2], v - keep, 't:' .. (v - keep))
end
redis.call('SADD', KEYS[3], ARGV[5])
redis.call('SADD', KEYS[4], ARGV[6])
redis.call('INCR', KEYS[5])
return {1, tostring(v), gen}
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

#: Most writes queued while Redis is unreachable (the oldest is dropped beyond it).
MAX_PENDING = 1000
#: Longest pause between reconnection attempts while Redis stays down.
MAX_RETRY_SECONDS = 60.0
#: A failure that took at least this long (seconds: a timeout, an unreachable host) starts a
#: reconnection pause; a faster one (connection refused) lets the next command try again.
SLOW_FAILURE = 0.25


class _Unavailable(Exception):
    """Internal: Redis did not answer (or is in its reconnection pause)."""


def key_part(name: str) -> str:
    """``name`` as a part of a key: ``%`` and ``:`` escaped, so parts never run together."""
    return name.replace("%", "%25").replace(":", "%3A")


class RedisStore(WrapperStore):
    """:class:`WrapperStore` in Redis (see the module docstring for keys and behaviour).

    :param uri: ``redis://``, ``rediss://`` or ``unix://`` URL (query parameters: see the
        module docstring).
    :param prefix: key namespace (overrides ``?prefix=``).
    :param cache_seconds: how long a read trusts its local cache before one ``GET`` of the
        epoch revalidates it.
    :param socket_timeout: connect and read timeout of each command (seconds).
    :param retry_seconds: first pause after a failure before Redis is tried again.
    :param history: versions kept per wrapper (0 = all).
    """

    @classmethod
    def from_uri(cls, uri: str) -> RedisStore:
        return cls(uri)

    def __init__(
        self,
        uri: str,
        *,
        prefix: str | None = None,
        cache_seconds: float | None = None,
        socket_timeout: float = 2.0,
        retry_seconds: float | None = None,
        history: int | None = None,
    ) -> None:
        try:
            import redis
        except ImportError as exc:
            raise StoreError(
                f"the Redis wrapper store ({redact_uri(uri)}) needs the redis package:"
                " pip install 'scrapy-records[redis]' (or pip install redis)"
            ) from exc
        self._redis_mod = redis
        parts = urlsplit(uri)
        own: dict[str, str] = {}
        passed: list[tuple[str, str]] = []
        for k, v in parse_qsl(parts.query, keep_blank_values=True):
            if k in ("prefix", "cache_seconds", "retry_seconds", "history"):
                own[k] = v
            else:
                passed.append((k, v))
        try:
            self.prefix = prefix or own.get("prefix") or "records"
            self.cache_seconds = float(
                cache_seconds if cache_seconds is not None else own.get("cache_seconds", 1.0)
            )
            self.retry_seconds = float(
                retry_seconds if retry_seconds is not None else own.get("retry_seconds", 5.0)
            )
            self.history_length = int(history if history is not None else own.get("history", 20))
        except ValueError as exc:
            raise StoreError(f"bad Redis wrapper store URI {self._public(parts)}: {exc}") from exc
        self.uri = self._public(parts)
        try:
            self.client = redis.Redis.from_url(
                uri.split("?", 1)[0] + (f"?{urlencode(passed)}" if passed else ""),
                socket_timeout=socket_timeout,
                socket_connect_timeout=socket_timeout,
                health_check_interval=30,
            )
        except (ValueError, redis.RedisError) as exc:
            raise StoreError(f"bad Redis wrapper store URI {self.uri}: {exc}") from exc
        self._lock = threading.RLock()
        self._cache: dict[tuple[str, str], StoredWrapper | None] = {}
        self._lists: dict[str | None, list[StoredWrapper]] = {}
        self._epoch: bytes | None = None
        self._epoch_checked = float("-inf")
        #: (site, template) -> (document, expected version, signature, time, generation)
        self._pending: dict[tuple[str, str], tuple[str, int | None, Any, float, bytes]] = {}
        self._generation = b""  # the server's data generation last seen (b"": not yet)
        self._down = False
        self._down_until = 0.0
        self._pause = self.retry_seconds
        self._flushing = False
        self._put = self.client.register_script(_PUT)
        self._lease = self.client.register_script(_LEASE)
        self._release = self.client.register_script(_RELEASE)

    @staticmethod
    def _public(parts: Any) -> str:
        """The URI without credentials nor query (safe to log)."""
        netloc = parts.netloc.rsplit("@", 1)[-1]
        return f"{parts.scheme}://{netloc}{parts.path}"

    # ------------------------------------------------------------ connection
    def _errors(self) -> tuple[type[BaseException], ...]:
        # RedisError covers refused/lost connections, timeouts, authentication, READONLY
        # replicas and OOM; OSError what a socket raises outside redis-py's wrapping
        return (self._redis_mod.RedisError, OSError)

    @property
    def available(self) -> bool:
        """False while the store is in an outage (Redis failed and was not reached since)."""
        return not self._down

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one Redis operation; map a failure to :class:`_Unavailable` (logged once per
        outage) and skip Redis altogether during the reconnection pause."""
        if self._down and time.monotonic() < self._down_until:
            raise _Unavailable(what)
        t0 = time.monotonic()
        try:
            result = fn()
        except self._errors() as exc:
            now = time.monotonic()
            with self._lock:
                first = not self._down
                if now - t0 >= SLOW_FAILURE:
                    # timeouts: leave Redis alone for a while, doubling while it stays down
                    self._down_until = now + self._pause
                    self._pause = min(self._pause * 2, MAX_RETRY_SECONDS)
                else:
                    self._down_until = now  # refused at once: cheap to try on the next call
                self._down = True
            if first:
                logger.error(
                    "scrapy_records: Redis wrapper store %s unavailable (%s: %s: %s); the crawl"
                    " goes on with local extraction and wrappers kept in memory, reconnecting"
                    " in the background",
                    self.uri,
                    what,
                    type(exc).__name__,
                    exc,
                )
            else:
                logger.debug("Redis wrapper store still down (%s): %s", what, exc)
            raise _Unavailable(what) from exc
        if self._down:
            self._back()
        return result

    def _back(self) -> None:
        with self._lock:
            if not self._down:
                return
            self._down = False
            self._pause = self.retry_seconds
            self._epoch_checked = float("-inf")  # the server may have lost or changed data
            n = len(self._pending)
        logger.warning(
            "scrapy_records: Redis wrapper store %s is back%s",
            self.uri,
            f"; writing {n} queued wrapper(s)" if n else "",
        )
        self.flush()

    def flush(self) -> int:
        """Replay the writes queued during an outage (compare-and-set on the version each
        was based on); return how many were stored. Conflicts drop the queued write: the
        wrapper another worker stored meanwhile wins."""
        with self._lock:
            if self._flushing or not self._pending:
                return 0
            self._flushing = True
        stored = 0
        try:
            while True:
                with self._lock:
                    if not self._pending:
                        break
                    key = next(iter(self._pending))
                    document, expected, signature, updated, gen = self._pending[key]
                site, template = key
                try:
                    ok, val = self._run_put(
                        site, template, document, expected, signature, updated, gen
                    )
                except _Unavailable:
                    break  # down again: keep the rest queued
                with self._lock:
                    if self._pending.get(key, (None,))[0] is document:
                        del self._pending[key]
                    self._cache.pop(key, None)
                if int(ok):
                    stored += 1
                    logger.info(
                        "scrapy_records: queued wrapper %s/%s stored as version %s",
                        site,
                        template,
                        int(val),
                    )
                else:
                    logger.info(
                        "scrapy_records: queued wrapper %s/%s dropped: the store has"
                        " version %s from another worker",
                        site,
                        template,
                        val.decode() if isinstance(val, bytes) else val,
                    )
        finally:
            with self._lock:
                self._flushing = False
        return stored

    @property
    def pending(self) -> list[tuple[str, str]]:
        """``(site, template)`` of the writes waiting for Redis to come back."""
        with self._lock:
            return list(self._pending)

    def _k(self, kind: str, site: str, template: str | None = None) -> str:
        key = f"{self.prefix}:{kind}:{key_part(site)}"
        return key + (f":{key_part(template)}" if template is not None else "")

    @staticmethod
    def _entry(site: str, template: str, h: dict[bytes, bytes]) -> StoredWrapper | None:
        if not h or b"version" not in h:
            return None
        sig = h.get(b"signature") or b""
        try:
            signature = json.loads(sig) if sig else None
        except ValueError:
            signature = None
        return StoredWrapper(
            site=site,
            template=template,
            version=int(h[b"version"]),
            document=(h.get(b"document") or b"").decode("utf-8", "replace"),
            signature=signature,
            updated=float(h.get(b"updated") or 0.0),
        )

    # ------------------------------------------------------------------ reads
    def _revalidate(self) -> None:
        """Drop the local cache when another writer bumped the epoch (one ``GET``, at most
        every ``cache_seconds``)."""
        now = time.monotonic()
        if now - self._epoch_checked < self.cache_seconds:
            return
        epoch, gen = self._call("get", self._epoch_and_generation)
        with self._lock:
            self._epoch_checked = now
            if gen != self._generation:  # the server lost its data: nothing cached holds
                self._cache.clear()
                self._lists.clear()
                self._generation = gen
            if epoch != self._epoch:
                self._cache.clear()
                self._lists.clear()
                self._epoch = epoch

    def _epoch_and_generation(self) -> tuple[bytes | None, bytes]:
        """One ``MGET``; an empty server first gets a generation (``SET NX``)."""
        epoch, gen = self.client.mget(f"{self.prefix}:epoch", f"{self.prefix}:gen")
        if gen is None:
            self.client.set(f"{self.prefix}:gen", uuid.uuid4().hex, nx=True)
            gen = self.client.get(f"{self.prefix}:gen") or b""
        return (None if epoch is None else _bytes(epoch)), _bytes(gen)

    def get(self, site: str, template: str) -> StoredWrapper | None:
        key = (site, template)
        try:
            self._revalidate()
            with self._lock:
                if key in self._cache:
                    return self._cache[key]
            entry = self._entry(
                site,
                template,
                self._call("get", lambda: _hash(self.client.hgetall(self._k("w", site, template)))),
            )
            with self._lock:
                self._cache[key] = entry
            return entry
        except _Unavailable:
            with self._lock:
                return self._cache.get(key)

    def list(self, site: str | None = None) -> list[StoredWrapper]:
        try:
            self._revalidate()
            with self._lock:
                if site in self._lists:
                    return list(self._lists[site])

            def fetch() -> list[StoredWrapper]:
                sites = (
                    [site]
                    if site is not None
                    else sorted(_text(s) for s in self.client.smembers(f"{self.prefix}:sites"))
                )
                pairs = []
                for s in sites:
                    pairs += [(s, _text(t)) for t in self.client.smembers(self._k("t", s))]
                pairs.sort()
                pipe = self.client.pipeline(transaction=False)
                for s, t in pairs:
                    pipe.hgetall(self._k("w", s, t))
                hashes = pipe.execute() if pairs else []
                return [
                    e for (s, t), h in zip(pairs, hashes) if (e := self._entry(s, t, h)) is not None
                ]

            out = self._call("list", fetch)
            with self._lock:
                self._lists[site] = out
                for e in out:
                    self._cache[(e.site, e.template)] = e
            return list(out)
        except _Unavailable:
            with self._lock:
                if site in self._lists:
                    return list(self._lists[site])
                return sorted(
                    (
                        e
                        for (s, _t), e in self._cache.items()
                        if e is not None and (site is None or s == site)
                    ),
                    key=lambda e: (e.site, e.template),
                )

    def history(self, site: str, template: str) -> builtins.list[tuple[int, float, str]]:
        """``(version, updated, document)`` of the kept versions, oldest first."""
        try:
            h = self._call(
                "history", lambda: _hash(self.client.hgetall(self._k("h", site, template)))
            )
        except _Unavailable:
            return []
        out = []
        for k, d in h.items():
            if k.startswith(b"t:"):
                continue
            out.append((int(k), float(h.get(b"t:" + k) or 0.0), d.decode("utf-8", "replace")))
        return sorted(out)

    # ----------------------------------------------------------------- writes
    def _run_put(self, site, template, document, expected, signature, updated, generation):
        """The put script: ``(stored, version)``; remembers the server's generation."""
        ok, val, gen = self._call(
            "put",
            lambda: self._put(
                keys=[
                    self._k("w", site, template),
                    self._k("h", site, template),
                    f"{self.prefix}:sites",
                    self._k("t", site),
                    f"{self.prefix}:epoch",
                    f"{self.prefix}:gen",
                ],
                args=[
                    "" if expected is None else str(int(expected)),
                    document,
                    json.dumps(signature) if signature is not None else "",
                    repr(updated),
                    site,
                    template,
                    self.history_length,
                    generation,
                    uuid.uuid4().hex,
                ],
            ),
        )
        with self._lock:
            self._generation = gen
        return ok, val

    def put(self, site, template, document, *, expected_version=None, signature=None) -> int:
        key = (site, template)
        now = time.time()
        gen = self._generation  # (the generation expected_version was read in)
        try:
            ok, val = self._run_put(site, template, document, expected_version, signature, now, gen)
        except _Unavailable as exc:
            with self._lock:
                self._pending.pop(key, None)
                self._pending[key] = (document, expected_version, signature, now, gen)
                while len(self._pending) > MAX_PENDING:
                    dropped = next(iter(self._pending))
                    del self._pending[dropped]
                    logger.warning(
                        "scrapy_records: Redis outage: queued wrapper %s/%s dropped"
                        " (more than %d queued)",
                        *dropped,
                        MAX_PENDING,
                    )
            raise StoreError(
                f"Redis wrapper store {self.uri} unavailable: wrapper {site}/{template} queued,"
                " stored when Redis is back"
            ) from exc
        with self._lock:
            self._cache.pop(key, None)
            self._lists.clear()
            self._pending.pop(key, None)  # a newer write supersedes a queued one
            self._epoch_checked = float("-inf")
        if not int(ok):
            actual = int(val) if val not in (b"", "", None) else None
            raise VersionConflict(site, template, expected_version, actual)
        return int(val)

    def delete(self, site: str, template: str | None = None) -> int:
        def run() -> int:
            templates = (
                [template]
                if template is not None
                else [_text(t) for t in self.client.smembers(self._k("t", site))]
            )
            pipe = self.client.pipeline()
            for t in templates:
                pipe.delete(self._k("w", site, t))
                pipe.srem(self._k("t", site), t)
                pipe.delete(self._k("h", site, t))
            pipe.incr(f"{self.prefix}:epoch")
            res = pipe.execute()
            if not self.client.scard(self._k("t", site)):
                self.client.srem(f"{self.prefix}:sites", site)
            return sum(int(r) for r in res[0:-1:3])

        try:
            n = self._call("delete", run)
        except _Unavailable as exc:
            raise StoreError(
                f"Redis wrapper store {self.uri} unavailable: nothing deleted"
            ) from exc
        with self._lock:
            self._cache.clear()
            self._lists.clear()
            self._epoch_checked = float("-inf")
            for k in [k for k in self._pending if k[0] == site and template in (None, k[1])]:
                del self._pending[k]
        return n

    # ----------------------------------------------------------------- leases
    def acquire_lease(self, site: str, template: str, owner: str, ttl: float = 60.0) -> bool:
        """Take (or renew, for its owner) the lease for ``ttl`` seconds; during an outage the
        lease is granted locally (no other worker can store a wrapper either)."""
        try:
            got = bool(
                self._call(
                    "lease",
                    lambda: self._lease(
                        keys=[self._k("lease", site, template)],
                        args=[owner, max(1, int(ttl * 1000))],
                    ),
                )
            )
        except _Unavailable:
            return True
        if got:
            # the previous holder may have stored a wrapper just before releasing: what the
            # lease holder reads next is revalidated against the epoch, never the cache alone
            with self._lock:
                self._epoch_checked = float("-inf")
        return got

    def release_lease(self, site: str, template: str, owner: str) -> None:
        """Release the lease if ``owner`` still holds it (an expired lease taken over by
        another worker is left alone)."""
        try:
            self._call(
                "release",
                lambda: self._release(keys=[self._k("lease", site, template)], args=[owner]),
            )
        except _Unavailable:
            pass  # it expires by itself

    def lease_owner(self, site: str, template: str) -> str | None:
        """Who holds the lease of ``(site, template)`` now (``None``: free or unknown)."""
        try:
            v = self._call("lease", lambda: self.client.get(self._k("lease", site, template)))
        except _Unavailable:
            return None
        return _text(v) if v is not None else None

    def close(self) -> None:
        """Try once more to store queued writes, then close the connections."""
        if self._pending:
            with self._lock:
                self._down_until = 0.0  # one last attempt, even within the pause
            try:
                self._call("flush", lambda: self.client.ping())
            except _Unavailable:
                pass
            self.flush()
            if self._pending:
                logger.error(
                    "scrapy_records: Redis wrapper store %s: %d wrapper(s) could not be"
                    " stored before the crawl ended (Redis still down): %s",
                    self.uri,
                    len(self._pending),
                    ", ".join(f"{s}/{t}" for s, t in self._pending),
                )
        try:
            self.client.close()
        except Exception:  # pragma: no cover - closing never matters
            pass


# The client answers bytes (``decode_responses`` is off); redis-py types its answers
# ``bytes | str`` (either setting): these read them as what they are here.
def _bytes(v: bytes | str) -> bytes:
    return v if isinstance(v, bytes) else v.encode()


def _text(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v


def _hash(h: Mapping[Any, Any]) -> dict[bytes, bytes]:
    return {_bytes(k): _bytes(v) for k, v in h.items()}
