"""Real crawls with Scrapy's crawler against the demo site served on 127.0.0.1 by the test.

Each crawl runs in a subprocess (Twisted's reactor starts once per process) through
``crawl_helpers.RUNNER``, which writes the scraped items, the final stats and the log to files.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from crawl_helpers import crawl, records
from demo.site import N_PRODUCTS, PER_PAGE, DemoSite


@pytest.fixture(scope="module")
def site():
    with DemoSite() as s:
        yield s


def store_setting(tmp_path: Path) -> dict:
    return {
        "RECORDS_WRAPPER_STORE": f"sqlite:///{tmp_path / 'wrappers.sqlite'}",
        "RECORDS_INDUCTION_SAMPLES": 2,
    }


def test_records_next_to_spider_items_and_wrapper_reuse(tmp_path, site):
    # waiting for mining in the reactor thread makes the order deterministic: page 3's
    # induction is done before page 4 is requested (threaded mining lets the spider run
    # ahead); the mining itself runs in the worker processes
    settings = dict(store_setting(tmp_path), RECORDS_THREADED=False)
    items, stats, log = crawl(tmp_path, site, "first", settings=settings)
    n_pages = (N_PRODUCTS + PER_PAGE - 1) // PER_PAGE
    # the spider's own items pass through untouched, one per list page
    own = [i for i in items if i["__class__"] == "dict"]
    assert sorted(i["url"] for i in own) == sorted(
        f"{site.url}shop/page/{k}" for k in range(1, n_pages + 1)
    )
    assert all(set(i) == {"kind", "url", "__class__"} for i in own)
    # every product of the shop is a record, with its price as a field
    recs = records(items)
    assert len(recs) == N_PRODUCTS
    names = [r["text"] for r in recs]
    assert any("Blender 1 " in t for t in names)
    assert all(any(str(v).startswith("$") for v in r["fields"].values()) for r in recs)
    # a wrapper was induced from 2 pages and reused on the later pages of the template
    assert stats["records/pages_mined"] == n_pages
    assert stats["records/wrapper/induced"] == 1
    # two induction samples, and the page after them, which starts the induction
    assert stats["records/extractor/auto/pages"] == 3
    assert stats["records/wrapper/reused"] == n_pages - 3
    by_wrapper = [r for r in recs if r["extractor"] == "wrapper"]
    assert by_wrapper and all(r["wrapper_version"] == 1 and r["wrapper_id"] for r in by_wrapper)
    wrappers = [i for i in items if i["__class__"] == "WrapperItem"]
    assert len(wrappers) == 1 and wrappers[0]["version"] == 1 and wrappers[0]["status"] == "new"
    assert wrappers[0]["document"]["record"]["xpath"]
    assert "induced wrapper" in log and "scrapy_records summary" in log
    # the log names the template as the files do (its URL pattern), then its id
    assert "induced wrapper 127.0.0.1/shop-page-N [t-" in log
    assert stats["records/records"] == N_PRODUCTS


def test_second_crawl_reuses_stored_wrapper(tmp_path, site):
    settings = store_setting(tmp_path)
    crawl(tmp_path, site, "first", settings=settings)
    items, stats, log = crawl(tmp_path, site, "second", settings=settings)
    assert stats.get("records/wrapper/induced", 0) == 0
    assert stats["records/wrapper/reused"] == stats["records/pages_mined"] == 5
    # the demo's pages are small: their wrapper runs in the reactor thread once a pool
    # thread has read the site's wrappers from the store (the first page; how many more
    # arrive before that is up to the reactor)
    assert 1 <= stats.get("records/wrapper/inline", 0) <= 4
    assert len(records(items)) == N_PRODUCTS
    assert not [i for i in items if i["__class__"] == "WrapperItem"]
    assert "induced wrapper" not in log


def test_a_small_sites_template_is_induced_when_idle_for_the_next_crawl(tmp_path, site):
    """Three pages of one template and nothing after them: by default no wrapper (its
    induction would not pay off in this crawl); with RECORDS_INDUCE_WHEN_IDLE the idle
    crawl induces and stores it, and the next crawl extracts the three pages by it."""
    pages = ["shop/page/1", "shop/page/2", "shop/page/3"]
    store = f"sqlite:///{tmp_path / 'idle.sqlite'}"
    plain = {"RECORDS_WRAPPER_STORE": f"sqlite:///{tmp_path / 'plain.sqlite'}"}
    _items, stats, _log = crawl(tmp_path, site, "plain", start=pages, follow=False, settings=plain)
    assert stats.get("records/wrapper/induced", 0) == 0
    idle = {"RECORDS_WRAPPER_STORE": store, "RECORDS_INDUCE_WHEN_IDLE": True}
    items, stats, log = crawl(tmp_path, site, "first", start=pages, follow=False, settings=idle)
    assert stats["records/wrapper/induced"] == 1
    assert stats["records/extractor/auto/pages"] == 3
    wrappers = [i for i in items if i["__class__"] == "WrapperItem"]
    assert len(wrappers) == 1 and wrappers[0]["stored"] and len(wrappers[0]["sample_urls"]) == 3
    assert "wrappers induced for the next crawl" in log
    items, stats, _log = crawl(tmp_path, site, "next", start=pages, follow=False, settings=idle)
    assert stats.get("records/wrapper/induced", 0) == 0
    assert stats["records/wrapper/reused"] == 3
    assert len(records(items)) == 3 * PER_PAGE


def test_corrupt_store_entry_is_reinduced(tmp_path, site):
    settings = store_setting(tmp_path)
    crawl(tmp_path, site, "first", settings=settings)
    db = tmp_path / "wrappers.sqlite"
    with sqlite3.connect(db) as conn:
        (n,) = conn.execute("SELECT count(*) FROM wrappers").fetchone()
        assert n == 1
        conn.execute('UPDATE wrappers SET document = \'{"format": "scrapy-records-wr\'')
    items, stats, log = crawl(tmp_path, site, "second", settings=settings)
    assert stats["records/wrapper/corrupt"] == 1
    assert stats["records/wrapper/induced"] == 1
    assert "is corrupt" in log
    wrappers = [i for i in items if i["__class__"] == "WrapperItem"]
    assert [w["version"] for w in wrappers] == [2] and wrappers[0]["status"] == "updated"
    assert len(records(items)) == N_PRODUCTS
    with sqlite3.connect(db) as conn:
        version, document = conn.execute("SELECT version, document FROM wrappers").fetchone()
    assert version == 2 and json.loads(document)["format"] == "scrapy-records-wrapper"


def test_non_html_and_oversized_responses_are_skipped(tmp_path, site):
    settings = dict(store_setting(tmp_path), RECORDS_MAX_PAGE_BYTES=100_000)
    items, stats, _ = crawl(
        tmp_path,
        site,
        "skip",
        follow=False,
        start=["data.json", "img/1.png", "huge", "shop/page/1"],
        settings=settings,
    )
    assert stats["records/skipped/non_html"] == 2
    assert stats["records/skipped/too_large"] == 1
    assert stats["records/pages_mined"] == 1  # only the shop page
    assert {r["url"] for r in records(items)} == {site.url + "shop/page/1"}
    # the spider still got every response (its own items pass through)
    assert len([i for i in items if i["__class__"] == "dict"]) == 4


def test_low_confidence_records_dropped_and_meta_off(tmp_path, site):
    settings = dict(store_setting(tmp_path), RECORDS_MIN_CONFIDENCE=1.01, RECORDS_WRAPPERS=False)
    items, stats, _ = crawl(tmp_path, site, "drop", settings=settings)
    assert records(items) == []
    assert stats["records/dropped/low_confidence"] == stats["records/records"] == N_PRODUCTS
    assert stats.get("records/wrapper/induced", 0) == 0


def test_templates_get_separate_wrappers(tmp_path, site):
    items, stats, _ = crawl(tmp_path, site, "both", details=True, settings=store_setting(tmp_path))
    wrappers = [i for i in items if i["__class__"] == "WrapperItem"]
    # list pages and product pages are two templates with two wrappers
    assert len({w["template"] for w in wrappers}) == 2
    templates = {r["template"] for r in records(items)}
    assert len(templates) == 2


def test_pagination_following_and_previews(tmp_path, site):
    settings = dict(
        store_setting(tmp_path),
        RECORDS_FOLLOW_PAGINATION=True,
        RECORDS_PREVIEW_DIR=str(tmp_path / "previews"),
    )
    items, stats, _ = crawl(tmp_path, site, "pages", follow=False, settings=settings)
    # the spider follows nothing itself: pages 2..5 come from the detected pagination
    assert stats["records/pagination/followed"] == 4
    assert sorted({r["url"] for r in records(items)}) == sorted(
        f"{site.url}shop/page/{k}" for k in range(1, 6)
    )
    assert len(records(items)) == N_PRODUCTS
    previews = sorted((tmp_path / "previews").iterdir())
    assert len(previews) == 5
    text = previews[0].read_text()
    assert "R0.1" in text and "<script" not in text.lower()


@pytest.mark.browser
def test_playwright_renders_js_page(tmp_path, site):
    settings = dict(store_setting(tmp_path), RECORDS_PLAYWRIGHT_AUTO=True, RECORDS_WRAPPERS=False)
    items, stats, log = crawl(tmp_path, site, "js", follow=False, start=["js/"], settings=settings)
    assert stats["records/playwright/rerequested"] == 1
    recs = records(items)
    assert len(recs) == 10, log[-3000:]
    assert any("Blender 1" in r["text"] for r in recs)


def test_demo_crawl_csv_is_one_stable_table(tmp_path):
    """`scrapy crawl shop -O out.csv`, with a fresh store and then reusing it: one row per
    record, one column per field, the same header both times, no dict cells, no wrapper
    rows; the per-template CSVs are named after the URL pattern of their pages."""
    import csv
    import subprocess
    import sys

    from crawl_helpers import EXAMPLE, subprocess_env
    from demo.site import N_PRODUCTS

    env = subprocess_env(DEMO_OUTPUT_DIR=str(tmp_path / "output"))
    headers, rows = [], []
    for run in ("fresh", "reuse"):
        out = tmp_path / f"{run}.csv"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "scrapy",
                "crawl",
                "shop",
                "-O",
                str(out),
                "-s",
                f"RECORDS_WRAPPER_STORE=sqlite:///{tmp_path / 'w.sqlite'}",
                "-s",
                f"LOG_FILE={tmp_path / run}.log",
            ],
            cwd=EXAMPLE,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        with open(out, newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
        headers.append(table[0])
        rows.append(table[1:])
    assert headers[0] == headers[1]
    header = headers[0]
    assert header[:2] == ["page_url", "template"]
    assert {"title", "url", "price", "author", "date", "text"} <= set(header)
    assert not {"document", "wrapper_id", "fields"} & set(header)  # no wrapper rows, flat
    for table in rows:
        assert len(table) == N_PRODUCTS + sum(3 + i % 3 for i in range(1, N_PRODUCTS + 1))
        assert not any(c.startswith(("{", "[")) for r in table for c in r)  # no dict cells
    reuse_log = (tmp_path / "reuse.log").read_text()
    assert "records/wrapper/reused" in reuse_log
    assert sorted(p.name for p in (tmp_path / "output").glob("127.0.0.1-*.csv")) == [
        "127.0.0.1-shop-page-N.csv",
        "127.0.0.1-shop-product-N.csv",
    ]


DETAIL_CRAWL = """
import json, sys, scrapy
from scrapy.crawler import CrawlerProcess
base, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])

class Books(scrapy.Spider):
    name = "books"
    async def start(self):
        for i in range(n):
            yield scrapy.Request(f"{base}b/{i}", callback=self.parse)
    def parse(self, response):
        return []

items = []
process = CrawlerProcess({
    "ADDONS": {"scrapy_records.Addon": 300}, "RECORDS_WRAPPER_STORE": "memory:",
    "LOG_LEVEL": "INFO", "CONCURRENT_REQUESTS": 1, "TELNETCONSOLE_ENABLED": False,
})
crawler = process.create_crawler(Books)
def scraped(item, response, spider):  # a named function: signals hold weak references
    items.append(dict(item))
crawler.signals.connect(scraped, signal=scrapy.signals.item_scraped)
process.crawl(crawler)
process.start()
json.dump([{k: v for k, v in i.items() if k in ("url", "fields", "extractor")} for i in items],
          open(out, "w"))
"""


def test_a_crawl_of_a_few_detail_pages_emits_their_records_when_idle(tmp_path):
    """Three detail pages of a template (fewer than DCADE's samples): their records wait
    for a wrapper that never comes; the idle crawl induces one from them and emits one
    record per page with the same columns.
    (The crawl script has no main guard: worker processes must not run it again.)"""
    import http.server
    import subprocess
    import sys
    import threading

    from crawl_helpers import subprocess_env
    from test_dcade_detail import BOOKS, book

    pages = {f"/b/{i}": book(i, *b).encode() for i, b in enumerate(BOOKS[:3])}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path, b"")
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    script = tmp_path / "crawl.py"
    script.write_text(DETAIL_CRAWL)
    out = tmp_path / "items.json"
    try:
        proc = subprocess.run(
            [sys.executable, str(script), f"http://127.0.0.1:{server.server_port}/", str(out), "3"],
            env=subprocess_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = json.loads(out.read_text())
    assert sorted(i["url"].rsplit("/", 1)[1] for i in items) == ["0", "1", "2"], proc.stderr[-4000:]
    assert {i["extractor"] for i in items} == {"dcade"}
    assert sorted(i["fields"]["publisher"] for i in items) == ["Ace", "Jove Books", "Tor"]
    assert len({tuple(sorted(i["fields"])) for i in items}) == 1
    assert "3 records of 3 pages that waited for a wrapper" in proc.stderr
    assert proc.stderr.count("Spider opened") == 1  # the workers did not crawl again


def test_records_are_the_same_with_and_without_worker_processes(tmp_path, site):
    """The same crawl (shop lists and product pages, induction and wrapper reuse) mined in
    this process and in two worker processes: the same records, field for field.
    (Waiting for mining in the reactor thread keeps the page order, and so the samples a
    wrapper is induced from, the same in both.)"""

    def run(name, workers):
        settings = dict(
            RECORDS_WRAPPER_STORE=f"sqlite:///{tmp_path / (name + '.sqlite')}",
            RECORDS_INDUCTION_SAMPLES=2,
            RECORDS_THREADED=False,
            RECORDS_WORKERS=workers,
            CONCURRENT_REQUESTS=1,
        )
        items, stats, _log = crawl(tmp_path, site, name, settings=settings, details=True)
        keys = ("url", "template", "index", "extractor", "fields", "text", "wrapper_version")
        return sorted(
            json.dumps({k: r[k] for k in keys}, sort_keys=True) for r in records(items)
        ), stats

    in_thread, st0 = run("inthread", 0)
    in_workers, st2 = run("workers", 2)
    assert st0["records/wrapper/induced"] == st2["records/wrapper/induced"] >= 1
    assert len(in_thread) > N_PRODUCTS  # list records and the product pages' records
    assert in_thread == in_workers
