"""The Redis wrapper store (issue 8), against a real ``redis-server`` (tests/redis_server.py):
URIs (password, db, prefix, Unix socket), the lazily imported optional dependency, the local
cache revalidated by one GET, compare-and-set under concurrent writer processes, bounded
history, owner-only lease release, outages (cache served, writes queued and replayed, an
unreachable server left alone), and a crawl that mines unsupervised while another worker holds
the induction lease, then induces once the lease expired.

The backend-independent store suite (sqlite, dir, memory, redis) is in
test_scrapy_components.py; crawls of two workers sharing a wrapper and Redis stopped
mid-crawl are in test_scrapy_redis.py.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import subprocess
import sys
import threading
import time

import pytest
from crawl_helpers import (
    REPO,
    crawl,
    finish_crawl,
    records,
    start_crawl,
    subprocess_env,
    wait_for_log,
)
from redis_server import RedisServer

from scrapy_records.scrapy.store import StoreError, VersionConflict, open_store

pytestmark = pytest.mark.redis

LOGGER = "scrapy_records.scrapy.store.redis"


def messages(caplog, text: str) -> int:
    return sum(text in r.getMessage() for r in caplog.records if r.name == LOGGER)


def commandstats(server: RedisServer) -> dict[str, int]:
    """Calls per command since the last ``CONFIG RESETSTAT``."""
    info = server.client().info("commandstats")
    return {k.split("_", 1)[1]: v["calls"] for k, v in info.items()}


# --------------------------------------------------------------------------- URIs
def test_password_db_and_prefix_from_the_uri():
    with RedisServer(password="s3cret") as server:
        uri = f"redis://:s3cret@127.0.0.1:{server.port}/3?prefix=crawl-a"
        s = open_store(uri)
        assert type(s).__name__ == "RedisStore"
        assert s.uri == f"redis://127.0.0.1:{server.port}/3"  # what gets logged: no password
        assert s.put("shop.com", "list", '{"v": 1}', signature={"sketch": [1]}) == 1
        raw = server.client(db=3)
        assert raw.hget("crawl-a:w:shop.com:list", "version") == b"1"
        assert server.client(db=0).dbsize() == 0
        # another prefix is another store on the same server
        other = open_store(f"redis://:s3cret@127.0.0.1:{server.port}/3?prefix=crawl-b")
        assert other.get("shop.com", "list") is None and other.list() == []
        assert open_store(uri).get("shop.com", "list").signature == {"sketch": [1]}


def test_wrong_password_degrades_and_logs_once(caplog):
    with RedisServer(password="s3cret") as server:
        s = open_store(f"redis://:wrong@127.0.0.1:{server.port}/0")
        with caplog.at_level(logging.ERROR, logger=LOGGER):
            assert s.get("shop.com", "list") is None
            assert s.list() == []
            with pytest.raises(StoreError):
                s.put("shop.com", "list", "{}")
        assert messages(caplog, "unavailable") == 1
        assert "wrong" not in caplog.text  # the password is never logged


def test_unix_socket_uri():
    with RedisServer(unix_socket=True) as server:
        s = open_store(server.unix_url)
        assert s.put("shop.com", "list", "{}") == 1
        assert server.client().hget("records:w:shop.com:list", "version") == b"1"
        assert s.uri.startswith("unix://") and s.uri.endswith("redis.sock")


def test_missing_redis_package_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)  # import redis -> ImportError
    with pytest.raises(StoreError, match=r"pip install 'scrapy-records\[redis\]'"):
        open_store("redis://127.0.0.1:6379/0")


def test_bad_uri_options_are_a_clear_error():
    with pytest.raises(StoreError, match="bad Redis wrapper store URI"):
        open_store("redis://127.0.0.1:6379/0?history=many")


# ------------------------------------------------------------------ cache, CAS
def test_readers_notice_updates_with_one_get(redis_server):
    writer = open_store(redis_server.url)
    writer.put("shop.com", "list", '{"v": 1}')
    reader = open_store(redis_server.url + "?cache_seconds=0")  # revalidate on every read
    assert reader.get("shop.com", "list").version == 1
    redis_server.client().config_resetstat()
    for _ in range(10):
        assert reader.get("shop.com", "list").version == 1
    stats = commandstats(redis_server)
    # unchanged store: one MGET of the epoch (and generation) per read, the document
    # never fetched again
    assert stats.get("mget") == 10 and "hgetall" not in stats and "get" not in stats
    writer.put("shop.com", "list", '{"v": 2}', expected_version=1)
    redis_server.client().config_resetstat()
    got = reader.get("shop.com", "list")
    assert (got.version, json.loads(got.document)) == (2, {"v": 2})
    stats = commandstats(redis_server)
    assert (stats.get("mget"), stats.get("hgetall")) == (1, 1)
    # within cache_seconds not even the MGET is sent
    patient = open_store(redis_server.url + "?cache_seconds=3600")
    patient.get("shop.com", "list")
    redis_server.client().config_resetstat()
    for _ in range(5):
        assert patient.get("shop.com", "list").version == 2
    assert "mget" not in commandstats(redis_server)


_INCREMENTER = """
import json, sys
sys.path.insert(0, {repo!r})
from scrapy_records.scrapy.store import VersionConflict, open_store
s = open_store({uri!r})
done = conflicts = 0
while done < {n}:
    cur = s.get("shop.com", "counter")
    doc = json.loads(cur.document) if cur else {{"count": 0, "by": []}}
    doc["count"] += 1
    doc["by"].append({who!r})
    try:
        s.put("shop.com", "counter", json.dumps(doc), expected_version=cur.version if cur else None)
        done += 1
    except VersionConflict:
        conflicts += 1
print(conflicts)
"""


def test_concurrent_writer_processes_never_lose_an_update(redis_server):
    n, workers = 15, 4
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _INCREMENTER.format(
                    repo=str(REPO), uri=redis_server.url + "?cache_seconds=0", n=n, who=f"w{k}"
                ),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(workers)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e[-2000:] for _o, e in outs]
    got = open_store(redis_server.url).get("shop.com", "counter")
    doc = json.loads(got.document)
    # every read-modify-write landed exactly once: the version and the count agree
    assert got.version == doc["count"] == n * workers
    assert sorted(set(doc["by"])) == [f"w{k}" for k in range(workers)]
    assert all(doc["by"].count(f"w{k}") == n for k in range(workers))


def test_stale_writer_never_overwrites_a_newer_version(redis_server):
    a, b = open_store(redis_server.url), open_store(redis_server.url)
    assert a.put("shop.com", "list", '{"by": "a"}') == 1
    base = b.get("shop.com", "list")
    assert a.put("shop.com", "list", '{"by": "a2"}', expected_version=1) == 2
    with pytest.raises(VersionConflict) as ei:
        b.put("shop.com", "list", '{"by": "b"}', expected_version=base.version)
    assert (ei.value.expected, ei.value.actual) == (1, 2)
    assert json.loads(open_store(redis_server.url).get("shop.com", "list").document) == {"by": "a2"}


def test_history_keeps_the_last_versions(redis_server):
    s = open_store(redis_server.url + "?history=3")
    v = None
    for k in range(1, 6):
        v = s.put("shop.com", "list", json.dumps({"v": k}), expected_version=v)
    hist = s.history("shop.com", "list")
    assert [h[0] for h in hist] == [3, 4, 5]
    assert [json.loads(h[2]) for h in hist] == [{"v": 3}, {"v": 4}, {"v": 5}]
    assert all(h[1] > 0 for h in hist)  # update times kept
    assert redis_server.client().hlen("records:h:shop.com:list") == 6  # 3 documents + 3 times


def test_delete_is_noticed_by_other_readers(redis_server):
    a = open_store(redis_server.url + "?cache_seconds=0")
    b = open_store(redis_server.url)
    a.put("shop.com", "list", "{}")
    a.put("shop.com", "item", "{}")
    assert [e.template for e in a.list("shop.com")] == ["item", "list"]
    assert b.delete("shop.com", "item") == 1
    assert [e.template for e in a.list("shop.com")] == ["list"]
    assert a.get("shop.com", "item") is None
    assert b.delete("shop.com") == 1
    assert a.list() == []
    raw = redis_server.client()
    assert raw.keys("records:[wht]:*") == []  # entries, their history and the index are gone


# ------------------------------------------------------------------------ leases
def test_lease_is_released_only_by_its_owner(redis_server):
    a, b = open_store(redis_server.url), open_store(redis_server.url)
    assert a.acquire_lease("shop.com", "list", "worker-a", ttl=30)
    b.release_lease("shop.com", "list", "worker-b")  # not b's lease: left alone
    assert b.lease_owner("shop.com", "list") == "worker-a"
    assert not b.acquire_lease("shop.com", "list", "worker-b", ttl=30)
    a.release_lease("shop.com", "list", "worker-a")
    assert b.lease_owner("shop.com", "list") is None
    # a lease that expired and was taken over is not released by its late first owner
    assert a.acquire_lease("shop.com", "list", "worker-a", ttl=0.2)
    deadline = time.monotonic() + 10
    while not b.acquire_lease("shop.com", "list", "worker-b", ttl=30):
        assert time.monotonic() < deadline, "lease never expired"
        time.sleep(0.05)
    a.release_lease("shop.com", "list", "worker-a")
    assert a.lease_owner("shop.com", "list") == "worker-b"
    # the owner renews its lease (a new expiry)
    assert b.acquire_lease("shop.com", "list", "worker-b", ttl=120)
    assert redis_server.client().pttl("records:lease:shop.com:list") > 60_000


# ----------------------------------------------------------------------- outages
def test_outage_serves_the_cache_queues_writes_and_replays_them(caplog):
    server = RedisServer().start()
    try:
        s = open_store(server.url + "?cache_seconds=0")
        s.put("shop.com", "list", '{"v": 1}')
        assert s.get("shop.com", "list").version == 1
        assert [e.template for e in s.list("shop.com")] == ["list"]
        server.kill()
        with caplog.at_level(logging.INFO, logger=LOGGER):
            # what this worker read before is still served; unknown entries are absent
            assert s.get("shop.com", "list").version == 1
            assert [e.template for e in s.list("shop.com")] == ["list"]
            assert s.get("shop.com", "item") is None
            assert s.acquire_lease("shop.com", "*induction*", "me")  # induce locally
            with pytest.raises(StoreError, match="queued"):
                s.put("shop.com", "item", '{"item": 1}')
            with pytest.raises(StoreError):
                s.put("shop.com", "detail", '{"detail": 1}')
            assert sorted(s.pending) == [("shop.com", "detail"), ("shop.com", "item")]
            assert messages(caplog, "unavailable") == 1  # logged once for the whole outage
            server.start()  # same port, an empty server (no persistence)
            # another worker stores "detail" first: it wins over the queued write
            open_store(server.url).put("shop.com", "detail", '{"detail": "other"}')
            assert s.get("shop.com", "nothing") is None  # first command: back, replay
        assert s.pending == []
        assert messages(caplog, "is back") == 1
        assert messages(caplog, "stored as version 1") == 1
        assert messages(caplog, "dropped: the store has version 1") == 1
        fresh = open_store(server.url)
        assert json.loads(fresh.get("shop.com", "item").document) == {"item": 1}
        assert json.loads(fresh.get("shop.com", "detail").document) == {"detail": "other"}
    finally:
        server.cleanup()


def test_close_writes_what_is_still_queued():
    server = RedisServer().start()
    try:
        s = open_store(server.url)
        s.get("shop.com", "list")
        server.stop()
        with pytest.raises(StoreError):
            s.put("shop.com", "list", '{"late": true}')
        server.start()
        s.close()  # no command since the outage: close replays the queue
        assert json.loads(open_store(server.url).get("shop.com", "list").document) == {"late": True}
    finally:
        server.cleanup()


class _Silent:
    """A TCP server that accepts connections and never answers (an unreachable Redis)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)

    def close(self) -> None:
        for c in self.conns:
            c.close()
        self.sock.close()


def test_unreachable_server_is_left_alone_during_the_pause(caplog):
    silent = _Silent()
    try:
        s = open_store(f"redis://127.0.0.1:{silent.port}/0?socket_timeout=0.3&retry_seconds=600")
        with caplog.at_level(logging.ERROR, logger=LOGGER):
            assert s.get("shop.com", "list") is None  # one timeout
            tried = len(silent.conns)
            assert tried >= 1
            for _ in range(20):  # during the pause nothing goes to the network
                assert s.get("shop.com", "list") is None
                assert s.list("shop.com") == []
                assert s.acquire_lease("shop.com", "list", "me")
                with pytest.raises(StoreError):
                    s.put("shop.com", "list", "{}")
            assert len(silent.conns) == tried
        assert messages(caplog, "unavailable") == 1
        assert not s.available and s.pending == [("shop.com", "list")]
    finally:
        silent.close()


# ------------------------------------------------------------------------ crawls
def test_worker_mines_unsupervised_while_another_holds_the_lease(tmp_path, redis_server):
    from demo.site import N_PRODUCTS, DemoSite

    from scrapy_records.scrapy.runtime import LEASE_TEMPLATE, site_of

    settings = {
        "RECORDS_WRAPPER_STORE": redis_server.url,
        "RECORDS_INDUCTION_SAMPLES": 2,
        "RECORDS_THREADED": False,
    }
    raw = redis_server.client()
    with DemoSite() as site:
        lease = f"records:lease:{site_of(site.url)}:{LEASE_TEMPLATE}"
        # a worker that crashed while inducing left its lease behind
        raw.set(lease, "crashed-worker", px=600_000)
        items, stats, _log = crawl(tmp_path, site, "held", settings=settings)
        recs = records(items, "/page/")
        assert len(recs) == N_PRODUCTS  # every product extracted, unsupervised
        assert all(r["extractor"] != "wrapper" and not r["wrapper_id"] for r in recs)
        assert stats.get("records/wrapper/induced", 0) == 0
        assert stats["records/wrapper/lease_busy"] >= 1
        assert open_store(redis_server.url).list() == []
        assert raw.get(lease) == b"crashed-worker"  # not ours to release
        # the lease expires: the next crawl induces and stores the wrapper
        raw.pexpire(lease, 200)
        while raw.exists(lease):
            time.sleep(0.05)
        items, stats, _log = crawl(tmp_path, site, "free", settings=settings)
    recs = records(items, "/page/")
    assert len(recs) == N_PRODUCTS
    assert stats["records/wrapper/induced"] == 1 and stats["records/wrapper/reused"] >= 1
    assert [e.version for e in open_store(redis_server.url).list()] == [1]
    assert not raw.exists(lease)  # released after the induction


def _stat(log: str, key: str) -> int:
    m = re.search(rf"'{re.escape(key)}': (\d+)", log)
    return int(m.group(1)) if m else 0


def test_example_project_with_scrapy_redis(tmp_path, redis_server):
    """demo/settings_redis.py: two `scrapy crawl shop` workers share the scrapy-redis queue
    and dupefilter (every page fetched once overall) and the wrappers (each template induced
    once overall); every product ends up a record."""
    from demo.site import N_PRODUCTS, DemoSite

    # the project's own per-worker feeds go to tmp_path too, not into the repository
    env = subprocess_env(
        SCRAPY_PROJECT="redis",
        REDIS_URL=redis_server.url,
        DEMO_RUN="t1",
        DEMO_OUTPUT_DIR=str(tmp_path / "output"),
    )
    with DemoSite() as site:
        procs = {}
        for w in ("w1", "w2"):
            procs[w] = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "scrapy",
                    "crawl",
                    "shop",
                    "-O",
                    str(tmp_path / f"{w}.jsonl"),
                    "-s",
                    f"DEMO_SITE_URL={site.url}",
                    "-s",
                    f"LOG_FILE={tmp_path / w}.log",
                    "-s",
                    "DOWNLOAD_DELAY=0.1",
                    "-s",
                    "WAIT_FOR_PEERS_SECONDS=2",
                    "-s",
                    "RECORDS_INDUCTION_SAMPLES=2",
                    "-s",
                    "TELNETCONSOLE_ENABLED=False",
                ],
                cwd=REPO / "example_project",
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        for p in procs.values():
            _out, err = p.communicate(timeout=300)
            assert p.returncode == 0, err[-3000:]
    items = {
        w: [json.loads(line) for line in (tmp_path / f"{w}.jsonl").read_text().splitlines()]
        for w in procs
    }
    logs = {w: (tmp_path / f"{w}.log").read_text() for w in procs}
    assert all("Traceback" not in log for log in logs.values())
    product_pages = {
        w: {i["url"] for i in items[w] if "/shop/product/" in i.get("url", "") and "fields" in i}
        for w in procs
    }
    assert not product_pages["w1"] & product_pages["w2"]  # shared dupefilter: once each
    assert len(product_pages["w1"] | product_pages["w2"]) == N_PRODUCTS
    assert all(product_pages.values())  # both workers worked
    recs = [
        i for w in procs for i in items[w] if "/shop/page/" in i.get("url", "") and "fields" in i
    ]
    assert len(recs) == N_PRODUCTS  # each list page mined once, by one worker or the other
    # list pages and product pages: two templates, each induced once across both workers
    assert sum(_stat(log, "records/wrapper/induced") for log in logs.values()) == 2
    entries = open_store(redis_server.url + "?prefix=records-demo").list()
    assert sorted(e.version for e in entries) == [1, 1]
    assert redis_server.client().exists("t1:shop:dupefilter")
    assert len(list((tmp_path / "output").glob("shop-worker*.jsonl"))) == 2


def test_wrapper_induced_during_an_outage_is_stored_when_redis_is_back(tmp_path):
    """Redis is down when the crawl starts: the crawl mines, induces and uses its wrapper in
    memory; Redis comes back mid-crawl and the queued wrapper is written (replayed)."""
    from demo.site import N_PRODUCTS, DemoSite

    server = RedisServer()  # not started yet: its port refuses connections
    # the store is refreshed on every page: the page after the replay looks at the store
    settings = {
        "RECORDS_WRAPPER_STORE": server.url,
        "RECORDS_INDUCTION_SAMPLES": 2,
        "RECORDS_THREADED": False,
        "RECORDS_STORE_REFRESH": 0.01,
        "DOWNLOAD_DELAY": 0.15,
        "CONCURRENT_REQUESTS": 1,
    }
    try:
        with DemoSite() as site:
            proc = start_crawl(tmp_path, site, "crawl", settings=settings, details=True)
            # wait until the crawl saw the outage and induced a wrapper without the store
            wait_for_log(tmp_path / "crawl.log", "induced wrapper", proc)
            server.start()
            items, stats, text = finish_crawl(tmp_path, "crawl", proc)
        recs = records(items, "/page/")
        assert len(recs) == N_PRODUCTS  # nothing extracted was lost
        assert any(r["extractor"] == "wrapper" for r in recs)  # the in-memory wrapper was used
        assert stats["finish_reason"] == "finished"
        assert text.count("unavailable (") == 1
        assert text.count("is back; writing 1 queued wrapper(s)") == 1
        assert "stored as version 1" in text  # the queued write was replayed
        # the engine logged why its wrapper was not stored, and the pipeline did not write it
        # again on top of whatever the store holds by then
        assert "is used from memory, the store did not take it: Redis wrapper store" in text
        wrappers = [i for i in items if i["__class__"] == "WrapperItem"]
        queued = [w for w in wrappers if w.get("store_error")]
        assert queued and all(not w["stored"] and w["version"] is None for w in queued)
        assert all(w["stored"] for w in wrappers if w not in queued)  # induced after the return
        # after the replay the worker recognises its own wrapper: nothing is "adopted"
        assert "stored by another process" not in text
        assert "records/wrapper/adopted" not in stats
        entries = open_store(server.url).list()
        assert len(entries) == stats["records/wrapper/induced"] >= 1
        assert [e.version for e in entries] == [1] * len(entries)
        assert all(json.loads(e.document)["site"] == "127.0.0.1" for e in entries)
    finally:
        server.cleanup()
