"""The Redis wrapper store (issue 8) against a real ``redis-server`` started on 127.0.0.1:
shared wrappers across two crawler processes, compare-and-set, lease expiry, Redis lost
mid-crawl. (The backend-independent store suite in test_scrapy_components.py runs on Redis too;
outages of the store itself are tested in test_store_redis.py.)"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from crawl_helpers import REPO, finish_crawl, records, start_crawl, wait_for_log
from redis_server import RedisServer

from scrapy_records.scrapy.store import VersionConflict, open_store

pytestmark = pytest.mark.redis


def test_uri_selects_redis_store(redis_server):
    s = open_store(redis_server.url)
    assert type(s).__name__ == "RedisStore" and s.uri == redis_server.url
    s.close()


def test_version_conflict_keeps_the_newer_wrapper(redis_server):
    a = open_store(redis_server.url + "?cache_seconds=0.05")
    b = open_store(redis_server.url)
    assert a.get("x.com", "t") is None and b.get("x.com", "t") is None  # both cache "absent"
    assert a.put("x.com", "t", '{"by": "a"}') == 1
    with pytest.raises(VersionConflict) as ei:
        b.put("x.com", "t", '{"by": "b"}')  # b thought nothing was stored
    assert ei.value.actual == 1
    assert b.put("x.com", "t", '{"by": "b"}', expected_version=1) == 2
    with pytest.raises(VersionConflict):
        a.put("x.com", "t", '{"by": "a, stale"}', expected_version=1)
    time.sleep(a.cache_seconds + 0.05)  # a's cache notices the update through the epoch
    got = a.get("x.com", "t")
    assert (got.version, json.loads(got.document)) == (2, {"by": "b"})
    assert [v for v, _u, _d in a.history("x.com", "t")] == [1, 2]


def test_killed_workers_lease_expires(redis_server):
    code = (
        f"import sys, time; sys.path.insert(0, {str(REPO)!r})\n"
        "from scrapy_records.scrapy.store import open_store\n"
        f"s = open_store({redis_server.url!r})\n"
        "assert s.acquire_lease('x.com', 't', 'dead-worker', ttl=1.0)\n"
        "print('held', flush=True); time.sleep(60)\n"
    )
    worker = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert worker.stdout.readline().strip() == "held"
    worker.send_signal(signal.SIGKILL)
    worker.wait(10)
    s = open_store(redis_server.url)
    assert not s.acquire_lease("x.com", "t", "me", ttl=30)  # still held by the dead worker
    deadline = time.time() + 10
    while not s.acquire_lease("x.com", "t", "me", ttl=30):
        assert time.time() < deadline, "lease never expired"
        time.sleep(0.05)


# ------------------------------------------------------------------------ crawls
def test_two_crawler_processes_share_one_wrapper(tmp_path, redis_server):
    from demo.site import N_PRODUCTS, DemoSite

    # mining in the reactor thread: each worker's page 3 comes after its page 2 was mined;
    # pages 0.1 s apart, and the second worker starts once the first has stored a wrapper:
    # the demo's pages are mined in a millisecond, so a worker that lost the induction
    # lease could otherwise be done before the other's wrapper is stored
    settings = {
        "RECORDS_WRAPPER_STORE": redis_server.url,
        "RECORDS_INDUCTION_SAMPLES": 2,
        "RECORDS_THREADED": False,
        "DOWNLOAD_DELAY": 0.1,
    }
    with DemoSite() as site:
        procs = {"w1": start_crawl(tmp_path, site, "w1", settings=settings, details=True)}
        wait_for_log(tmp_path / "w1.log", "induced wrapper", procs["w1"])
        procs["w2"] = start_crawl(tmp_path, site, "w2", settings=settings, details=True)
        results = {n: finish_crawl(tmp_path, n, p) for n, p in procs.items()}
    store = open_store(redis_server.url)
    entries = store.list()
    # list pages and product pages: two templates, each induced once across both workers
    assert len(entries) == 2 and all(e.version == 1 for e in entries)
    induced = sum(st.get("records/wrapper/induced", 0) for _i, st, _l in results.values())
    assert induced == 2
    stored = {(e.wrapper_id, e.version) for e in entries}
    for items, stats, _log in results.values():
        recs = records(items)
        assert len(records(items, "/page/")) == N_PRODUCTS  # nothing lost
        assert stats["records/wrapper/reused"] >= 1
        used = {
            (r["wrapper_id"], r["wrapper_version"]) for r in recs if r["extractor"] == "wrapper"
        }
        assert used and used <= stored  # every worker used the shared wrappers


def test_redis_stopped_mid_crawl_does_not_stop_the_crawl(tmp_path):
    from demo.site import N_PRODUCTS, DemoSite

    # every page looks at the store (no read cache, wrapper refresh on every page)
    settings = {
        "RECORDS_INDUCTION_SAMPLES": 2,
        "RECORDS_STORE_REFRESH": 0.01,
        "DOWNLOAD_DELAY": 0.3,  # pages go on arriving after the first induction
        "CONCURRENT_REQUESTS": 1,
    }
    with RedisServer() as server, DemoSite() as site:
        settings["RECORDS_WRAPPER_STORE"] = server.url + "?cache_seconds=0"
        proc = start_crawl(tmp_path, site, "down", settings=settings, details=True)
        # stop Redis once the crawl has used it (its first wrapper is stored), mid-crawl
        wait_for_log(tmp_path / "down.log", "induced wrapper", proc)
        server.stop()
        items, stats, log = finish_crawl(tmp_path, "down", proc)
    recs = records(items, "/page/")
    assert len({r["url"] for r in recs}) == 5 and len(recs) == N_PRODUCTS
    assert stats["finish_reason"] == "finished"
    # the outage is reported once, not once per page
    assert sum(1 for line in log.splitlines() if "unavailable (" in line) == 1
