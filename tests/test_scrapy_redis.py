"""The Redis wrapper store (issue 8) against a real ``redis-server`` started on 127.0.0.1:
shared wrappers across two crawler processes, compare-and-set, lease expiry, Redis lost
mid-crawl. (The backend-independent store suite in test_scrapy_components.py runs on Redis too.)"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scrapy_records.scrapy.store import StoreError, VersionConflict, open_store

pytestmark = pytest.mark.redis

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(REPO / "example_project"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A throw-away ``redis-server`` on 127.0.0.1 (no persistence)."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or _free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@pytest.fixture
def redis_server():
    server = RedisServer().start()
    yield server
    server.stop()


def test_uri_selects_redis_store(redis_server):
    s = open_store(redis_server.url)
    assert type(s).__name__ == "RedisStore" and s.uri == redis_server.url
    s.close()


def test_version_conflict_keeps_the_newer_wrapper(redis_server):
    a = open_store(redis_server.url)
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
    code = ("import sys, time; sys.path.insert(0, %r)\n"
            "from scrapy_records.scrapy.store import open_store\n"
            "s = open_store(%r)\n"
            "assert s.acquire_lease('x.com', 't', 'dead-worker', ttl=1.5)\n"
            "print('held', flush=True); time.sleep(60)\n") % (str(REPO), redis_server.url)
    worker = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert worker.stdout.readline().strip() == "held"
    worker.send_signal(signal.SIGKILL)
    worker.wait(10)
    s = open_store(redis_server.url)
    assert not s.acquire_lease("x.com", "t", "me", ttl=30)  # still held by the dead worker
    deadline = time.time() + 10
    while not s.acquire_lease("x.com", "t", "me", ttl=30):
        assert time.time() < deadline, "lease never expired"
        time.sleep(0.2)


def test_store_survives_redis_restart(caplog):
    server = RedisServer().start()
    s = open_store(server.url)
    s.put("x.com", "t", "{}")
    server.stop()
    with caplog.at_level("WARNING"):
        assert s.get("y.com", "t") is None  # down: nothing stored, no exception
        assert s.list() == []
        assert s.acquire_lease("x.com", "t", "me")  # induce locally
        with pytest.raises(StoreError):
            s.put("x.com", "t", "{}", expected_version=1)
    assert sum("unavailable" in r.getMessage() for r in caplog.records) == 1  # logged once
    server2 = RedisServer(server.port).start()  # same port, empty server
    try:
        assert s.put("x.com", "t", '{"again": 1}') == 1  # reconnected
        assert any("is back" in r.getMessage() for r in caplog.records)
    finally:
        server2.stop()


# ------------------------------------------------------------------------ crawls
def _crawl_cmd(tmp_path: Path, site, name: str, settings: dict, **cfg):
    from test_scrapy_integration import RUNNER

    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    cfg.update(base=site.url, log=str(tmp_path / f"{name}.log"), out=str(tmp_path / f"{name}.json"),
               settings=settings)
    (tmp_path / f"{name}.cfg.json").write_text(json.dumps(cfg))
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, str(runner), str(tmp_path / f"{name}.cfg.json")],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(tmp_path: Path, name: str, proc) -> tuple[list, dict, str]:
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    data = json.loads((tmp_path / f"{name}.json").read_text())
    return data["items"], data["stats"], (tmp_path / f"{name}.log").read_text()


def test_two_crawler_processes_share_one_wrapper(tmp_path, redis_server):
    from demo.site import N_PRODUCTS, DemoSite

    # mining in the reactor thread: each worker's page 3 comes after its page 2 was mined
    settings = {"RECORDS_WRAPPER_STORE": redis_server.url, "RECORDS_INDUCTION_SAMPLES": 2,
                "RECORDS_THREADED": False}
    with DemoSite() as site:
        procs = {n: _crawl_cmd(tmp_path, site, n, settings, details=True) for n in ("w1", "w2")}
        results = {n: _result(tmp_path, n, p) for n, p in procs.items()}
    store = open_store(redis_server.url)
    entries = store.list()
    # list pages and product pages: two templates, each induced once across both workers
    assert len(entries) == 2 and all(e.version == 1 for e in entries)
    induced = sum(st.get("records/wrapper/induced", 0) for _i, st, _l in results.values())
    assert induced == 2
    stored = {(e.wrapper_id, e.version) for e in entries}
    for items, stats, _log in results.values():
        recs = [i for i in items if i["__class__"] == "RecordItem"]
        assert sum(1 for r in recs if "/page/" in r["url"]) == N_PRODUCTS  # nothing lost
        assert stats["records/wrapper/reused"] >= 1
        used = {(r["wrapper_id"], r["wrapper_version"]) for r in recs if r["extractor"] == "wrapper"}
        assert used and used <= stored  # every worker used the shared wrappers


def test_redis_stopped_mid_crawl_does_not_stop_the_crawl(tmp_path):
    from demo.site import N_PRODUCTS, DemoSite

    server = RedisServer().start()
    settings = {"RECORDS_WRAPPER_STORE": server.url, "RECORDS_INDUCTION_SAMPLES": 2,
                "DOWNLOAD_DELAY": 0.15, "CONCURRENT_REQUESTS": 1}
    try:
        with DemoSite() as site:
            proc = _crawl_cmd(tmp_path, site, "down", settings, details=True)
            time.sleep(1.0)  # somewhere during the crawl
            server.stop()
            items, stats, log = _result(tmp_path, "down", proc)
    finally:
        server.stop()
    recs = [i for i in items if i["__class__"] == "RecordItem"]
    assert len({r["url"] for r in recs if "/page/" in r["url"]}) == 5
    assert sum(1 for r in recs if "/page/" in r["url"]) == N_PRODUCTS
    assert stats["finish_reason"] == "finished"
    # the outage is reported once, not once per page
    assert sum(1 for line in log.splitlines() if "unavailable (" in line) <= 1
