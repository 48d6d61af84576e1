"""Unit tests of the Scrapy integration's components: stores, add-on, settings, downloader
decisions, pagination detection, preview, pipeline, commands (no crawl here; crawls are in
test_scrapy_integration.py)."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import time
from typing import Any

import pytest
from crawl_helpers import REPO, subprocess_env
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import HtmlResponse, Request, Response, TextResponse
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

import scrapy_records
from scrapy_records.scrapy.addon import Addon
from scrapy_records.scrapy.items import RecordItem, WrapperItem
from scrapy_records.scrapy.middlewares import (
    MINE_KEY,
    RecordsDownloaderMiddleware,
    RecordsSpiderMiddleware,
    is_js_shell,
)
from scrapy_records.scrapy.pagination import next_page_urls
from scrapy_records.scrapy.pipelines import RecordsPipeline
from scrapy_records.scrapy.preview import render_preview
from scrapy_records.scrapy.runtime import LEASE_TEMPLATE, RecordsRuntime, site_of
from scrapy_records.scrapy.settings import SETTINGS, RecordsConfig, settings_table
from scrapy_records.scrapy.store import StoreError, VersionConflict, open_store
from scrapy_records.scrapy.store.directory import DirectoryStore
from scrapy_records.scrapy.store.memory import MemoryStore
from scrapy_records.scrapy.store.sqlite import SQLiteStore

LIST_PAGE = (
    """<html><head><title>Shop</title><script>alert('x')</script>
<meta http-equiv="refresh" content="0;url=http://evil.example/"></head>
<body onload="steal()"><h1>Products</h1><div class="products">
"""
    + "".join(
        f'<div class="product"><h3><a href="/p/{i}">Lamp model {i}</a></h3>'
        f'<span class="price">${10 + i}.50</span><span class="stock">In stock</span></div>'
        for i in range(1, 9)
    )
    + """</div><a href="javascript:alert(1)">bad</a>
<div class="pagination"><a href="/list/1">1</a> <span>2</span> <a href="/list/3">3</a>
<a href="/list/4">4</a></div></body></html>"""
)


def html_response(
    url: str, body: str, ctype: str = "text/html; charset=utf-8", meta=None
) -> HtmlResponse:
    req = Request(url, meta=meta or {})
    return HtmlResponse(
        url,
        body=body.encode("utf-8"),
        headers={"Content-Type": ctype},
        encoding="utf-8",
        request=req,
    )


# ------------------------------------------------------------------------ stores
@pytest.fixture(params=["sqlite", "dir", "memory", pytest.param("redis", marks=pytest.mark.redis)])
def store(request, tmp_path):
    if request.param == "redis":
        from redis_server import RedisServer

        server = RedisServer().start()
        request.addfinalizer(server.cleanup)
        uri = server.url
    else:
        uri = {
            "sqlite": f"sqlite:///{tmp_path / 'w.sqlite'}",
            "dir": f"dir://{tmp_path / 'wrappers'}",
            "memory": "memory:",
        }[request.param]
    s = open_store(uri)
    yield s
    s.close()


def test_store_versions_and_compare_and_set(store):
    assert store.get("a.com", "t1") is None
    assert store.put("a.com", "t1", '{"v": 1}', signature={"sketch": [1, 2]}) == 1
    with pytest.raises(VersionConflict):
        store.put("a.com", "t1", '{"v": 2}')  # create, but it exists
    with pytest.raises(VersionConflict) as ei:
        store.put("a.com", "t1", '{"v": 2}', expected_version=7)
    assert ei.value.actual == 1
    assert store.put("a.com", "t1", '{"v": 2}', expected_version=1) == 2
    w = store.get("a.com", "t1")
    assert (w.version, json.loads(w.document), w.signature) == (2, {"v": 2}, None)
    store.put("a.com", "t2", '{"v": 1}')
    store.put("b.org", "t1", '{"v": 1}')
    assert [x.wrapper_id for x in store.list()] == ["a.com/t1", "a.com/t2", "b.org/t1"]
    assert [x.template for x in store.list("a.com")] == ["t1", "t2"]
    assert store.delete("a.com", "t2") == 1
    assert store.delete("a.com") == 1
    assert [x.wrapper_id for x in store.list()] == ["b.org/t1"]


def test_store_signature_round_trip(store):
    store.put("a.com", "t1", "{}", signature={"method": "m", "sketch": [3, 4]})
    assert store.get("a.com", "t1").signature == {"method": "m", "sketch": [3, 4]}


def test_store_induction_lease(store):
    assert store.acquire_lease("a.com", "t1", "w1", ttl=60)
    assert not store.acquire_lease("a.com", "t1", "w2", ttl=60)
    assert store.acquire_lease("a.com", "t1", "w1", ttl=60)  # re-entrant for the owner
    store.release_lease("a.com", "t1", "w1")
    assert store.acquire_lease("a.com", "t1", "w2", ttl=0.001)  # expires at once
    time.sleep(0.01)
    assert store.acquire_lease("a.com", "t1", "w3", ttl=60)


def _hammer(uri: str, n: int) -> None:
    s = open_store(uri)
    done = 0
    while done < n:
        cur = s.get("a.com", "t")
        try:
            s.put(
                "a.com",
                "t",
                json.dumps({"n": (cur.version if cur else 0)}),
                expected_version=cur.version if cur else None,
            )
            done += 1
        except VersionConflict:
            pass
    s.close()


@pytest.mark.parametrize("kind", ["sqlite", "dir"])
def test_store_is_safe_with_several_processes(tmp_path, kind):
    uri = f"sqlite:///{tmp_path / 'w.sqlite'}" if kind == "sqlite" else f"dir://{tmp_path / 'd'}"
    ctx = multiprocessing.get_context("fork")  # no re-import of this module per process
    procs = [ctx.Process(target=_hammer, args=(uri, 15)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    s = open_store(uri)
    w = s.get("a.com", "t")
    # every successful compare-and-set produced exactly one version: no lost update
    assert w.version == 45 and json.loads(w.document) == {"n": 44}
    if kind == "sqlite":
        assert [v for v, _u, _d in s.history("a.com", "t")] == list(range(1, 46))


def test_directory_store_damaged_file_is_returned_for_validation(tmp_path):
    s = open_store(f"dir://{tmp_path}")
    s.put("a.com", "t1", "{}")
    path = tmp_path / "a.com" / "t1.json"
    path.write_text('{"site": "a.com", "templ')
    w = s.get("a.com", "t1")
    assert w is not None and w.version == 0 and w.document.startswith('{"site"')
    assert s.put("a.com", "t1", '{"ok": 1}', expected_version=0) == 1


def test_open_store_uris(tmp_path):
    assert type(open_store("memory:")).__name__ == "MemoryStore"
    assert type(open_store(str(tmp_path / "plain"))).__name__ == "DirectoryStore"
    with pytest.raises(StoreError):
        open_store("ftp://nope")


# ------------------------------------------------------------- add-on / settings
def test_addon_installs_components_and_defaults():
    s = Settings({"RECORDS_MIN_CONFIDENCE": 0.9})
    Addon().update_settings(s)
    dmw = {getattr(k, "__name__", k): v for k, v in s.getdict("DOWNLOADER_MIDDLEWARES").items()}
    smw = {getattr(k, "__name__", k): v for k, v in s.getdict("SPIDER_MIDDLEWARES").items()}
    pipes = {getattr(k, "__name__", k): v for k, v in s.getdict("ITEM_PIPELINES").items()}
    assert dmw == {"RecordsDownloaderMiddleware": 950}
    assert smw == {"RecordsSpiderMiddleware": 950}
    assert pipes == {"RecordsPipeline": 300}
    assert s.getfloat("RECORDS_MIN_CONFIDENCE") == 0.9  # the project's value wins
    assert s.get("RECORDS_EXTRACTOR") == "auto"
    assert "DOWNLOAD_HANDLERS" not in s or not s.getdict("DOWNLOAD_HANDLERS")


def test_addon_playwright_settings():
    s = Settings({"RECORDS_PLAYWRIGHT_AUTO": True, "RECORDS_BROWSER_PATH": "/opt/chromium"})
    Addon().update_settings(s)
    handlers = s.getdict("DOWNLOAD_HANDLERS")
    assert handlers["https"] == "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
    assert s.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")["executable_path"] == "/opt/chromium"
    assert "--no-sandbox" in s.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")["args"]


def test_addon_importable_from_package():
    assert scrapy_records.Addon is Addon


def test_every_setting_documented_and_parsed():
    doc = (REPO / "docs" / "settings.md").read_text()
    assert settings_table() in doc  # regenerate: python -m scrapy_records.scrapy.settings
    for name, (_default, text) in SETTINGS.items():
        assert text and f"`{name}`" in doc, name
    cfg = RecordsConfig.from_settings(
        Settings({"RECORDS_REGIONS": "all", "RECORDS_CONTENT_TYPES": "text/html"})
    )
    assert cfg.regions == "all" and cfg.content_types == ["text/html"]
    with pytest.raises(ValueError):
        RecordsConfig.from_settings(Settings({"RECORDS_REGIONS": "some"}))


def test_components_not_configured_when_disabled():
    crawler = get_crawler(settings_dict={"RECORDS_ENABLED": False})
    for cls in (RecordsDownloaderMiddleware, RecordsSpiderMiddleware, RecordsPipeline):
        with pytest.raises(NotConfigured):
            cls.from_crawler(crawler)


def test_per_extractor_options():
    cfg = RecordsConfig(extractor_options={"mdr": {"K": 5}, "T": 0.2})
    assert cfg.options_for("mdr") == {"K": 5}
    assert cfg.options_for("stem") == {"T": 0.2}


# ------------------------------------------------------------ downloader middleware
def _dmw(**settings):
    crawler = get_crawler(
        settings_dict={"RECORDS_WORKERS": 0, "RECORDS_WRAPPER_STORE": "memory:", **settings}
    )
    crawler.stats.open_spider()
    return RecordsDownloaderMiddleware.from_crawler(crawler), crawler


def test_downloader_decisions():
    mw, crawler = _dmw(RECORDS_MAX_PAGE_BYTES=5000)
    ok = html_response("http://a.com/", LIST_PAGE)
    assert mw.process_response(ok.request, ok) is ok and ok.request.meta[MINE_KEY] is True
    big = html_response("http://a.com/big", "<p>x</p>" * 2000)
    mw.process_response(big.request, big)
    assert big.request.meta[MINE_KEY] == "too_large"
    req = Request("http://a.com/x.json")
    js = TextResponse(
        "http://a.com/x.json",
        body=b'{"a": 1}',
        headers={"Content-Type": "application/json"},
        request=req,
    )
    mw.process_response(req, js)
    assert req.meta[MINE_KEY] == "non_html"
    req = Request("http://a.com/i.png")
    mw.process_response(req, Response("http://a.com/i.png", body=b"\x89PNG", request=req))
    assert req.meta[MINE_KEY] == "non_html"
    off = html_response("http://a.com/off", LIST_PAGE, meta={"records": False})
    mw.process_response(off.request, off)
    assert off.request.meta[MINE_KEY] == "disabled"
    assert crawler.stats.get_value("records/skipped/non_html") == 2
    assert crawler.stats.get_value("records/skipped/too_large") == 1


def test_js_shell_detection_and_rerequest():
    shell = "<html><head><script src='/app.js'></script></head><body><div id='root'></div></body></html>"
    assert is_js_shell(shell.encode())
    assert not is_js_shell(LIST_PAGE.encode())
    assert not is_js_shell(b"<html><body><p>short</p></body></html>")  # no script: not a shell
    mw, crawler = _dmw(RECORDS_PLAYWRIGHT_AUTO=True)
    resp = html_response("http://a.com/app", shell)
    out = mw.process_response(resp.request, resp)
    assert isinstance(out, Request) and out.meta["playwright"] is True and out.dont_filter
    rendered = html_response("http://a.com/app", shell, meta=out.meta)
    assert mw.process_response(rendered.request, rendered) is rendered  # no loop
    assert crawler.stats.get_value("records/playwright/rerequested") == 1


def test_playwright_on_request():
    mw, _ = _dmw(RECORDS_PLAYWRIGHT=True)
    r = Request("http://a.com/")
    mw.process_request(r)
    assert r.meta["playwright"] is True
    r2 = Request("http://a.com/", meta={"playwright": False})
    mw.process_request(r2)
    assert r2.meta["playwright"] is False


# ------------------------------------------------------------------- engine
def test_runtime_mines_and_uses_meta_template():
    crawler = get_crawler(
        settings_dict={
            "RECORDS_WORKERS": 0,
            "RECORDS_WRAPPER_STORE": "memory:",
            "RECORDS_INDUCTION_SAMPLES": 1,
        }
    )
    rt = RecordsRuntime.for_crawler(crawler)
    assert RecordsRuntime.for_crawler(crawler) is rt
    resp = html_response("http://www.a.com/list", LIST_PAGE, meta={"records_template": "lists"})
    out = rt.mine(resp, {"records_template": "lists"})
    assert out.error is None and out.template == "lists" and out.site == "a.com"
    assert len(out.result.main.records) == 8
    # the one sample is kept; a template that goes on beyond it is worth a wrapper
    assert "records/wrapper/induced" not in out.stats
    out = rt.mine(html_response("http://a.com/list1", LIST_PAGE), {"records_template": "lists"})
    assert out.source != "wrapper" and out.stats["records/wrapper/induced"] == 1
    assert [w["template"] for w in out.new_wrappers] == ["lists"]
    again = rt.mine(html_response("http://a.com/list2", LIST_PAGE), {"records_template": "lists"})
    assert again.source == "wrapper" and len(again.result.records) == 8
    assert again.stats["records/wrapper/reused"] == 1


def test_small_pages_of_a_site_with_a_wrapper_are_extracted_inline():
    """A page of a site whose wrapper is in memory is extracted in the calling (reactor)
    thread when it is small; a page the wrapper does not fit comes back parsed and signed,
    and mining it from there gives the records mining the bytes gives."""
    crawler = get_crawler(
        settings_dict={
            "RECORDS_WORKERS": 0,
            "RECORDS_WRAPPER_STORE": "memory:",
            "RECORDS_INDUCTION_SAMPLES": 1,
            "RECORDS_INLINE_MAX_BYTES": len(LIST_PAGE) + 100,
        }
    )
    rt = RecordsRuntime.for_crawler(crawler)
    first = html_response("http://a.com/list", LIST_PAGE)
    assert rt.mine_inline(first) == (None, None)  # no wrapper for the site yet
    rt.mine(first)
    assert rt.mine(html_response("http://a.com/list1", LIST_PAGE)).new_wrappers
    done, attempt = rt.mine_inline(html_response("http://a.com/list2", LIST_PAGE))
    assert attempt is None and done.source == "wrapper" and len(done.result.records) == 8
    assert done.stats["records/wrapper/inline"] == 1 and done.template_name == "list"
    # another template of the site: parsed and signed here, mined in the pool from there
    news = html_response("http://a.com/news", NEWS_PAGE)
    done, attempt = rt.mine_inline(news)
    assert done is None and attempt is not None and attempt.root.tag == "html"
    assert attempt.mined.signature is not None and attempt.mined.template is None
    mined = rt.mine(news, None, attempt)
    assert mined.source == "auto" and len(mined.result.main.records) == 8
    assert mined.result.main.records[0].text.startswith("Story number 1 about things")
    # bytes that are no page: nothing parsed, mining in the pool says why
    junk = HtmlResponse(
        "http://a.com/list4", body=b"\x00\x01\x02" * 10, request=Request("http://a.com/list4")
    )
    assert rt.mine_inline(junk) == (None, None)
    assert rt.mine(junk).skipped == "non_html"
    # larger than RECORDS_INLINE_MAX_BYTES: left to the pool
    big = LIST_PAGE.replace("</body>", "<p>" + "padding " * 100 + "</p></body>")
    assert rt.mine_inline(html_response("http://a.com/list3", big)) == (None, None)


NEWS_PAGE = (
    "<html><body><h1>News</h1><ul class='news'>"
    + "".join(
        f'<li class="item"><h3><a href="/n/{i}">Story number {i} about things</a></h3>'
        f'<span class="posted">{i} hours ago</span><p>Summary of story {i}, long enough to read.</p></li>'
        for i in range(1, 9)
    )
    + "</ul></body></html>"
)


def test_runtime_dates_relative_to_the_response_date_header():
    """ "3 hours ago" counts from when the server sent the page (its ``Date`` header), on the
    unsupervised path and on the wrapper path, so a page replayed from the HTTP cache keeps
    its dates; without the header it counts from now."""
    from datetime import datetime, timedelta, timezone

    def news(url, date=None):
        headers = {"Content-Type": "text/html; charset=utf-8"}
        if date:
            headers["Date"] = date
        return HtmlResponse(
            url, body=NEWS_PAGE.encode(), headers=headers, encoding="utf-8", request=Request(url)
        )

    sent = datetime(2020, 3, 3, 12, 0, tzinfo=timezone.utc).astimezone().replace(tzinfo=None)
    want = [(sent - timedelta(hours=i)).isoformat() for i in range(1, 9)]
    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:", induction_samples=1))
    for k in (1, 9):  # a sample, then a page that starts the induction
        first = rt.mine(news(f"http://a.com/{k}", "Tue, 03 Mar 2020 12:00:00 GMT"))
        assert first.source != "wrapper"
        # a list of headlines: the list extractors keep the titles, the date is a typed column
        date = [c.name for c in first.result.main.columns if c.type == "date"][0]
        assert [r.fields[date] for r in first.result.main.records] == want
    again = rt.mine(news("http://a.com/2", "Tue, 03 Mar 2020 12:00:00 GMT"))
    assert again.source == "wrapper"
    assert [r.fields[date] for r in again.result.records] == want
    fresh = rt.mine(news("http://a.com/3"))
    got = datetime.fromisoformat(fresh.result.records[0].fields[date])
    assert abs(got + timedelta(hours=1) - datetime.now()) < timedelta(minutes=5)


def test_wrapper_pages_emit_the_fields_mined_pages_emit():
    """A template's items keep their columns when its wrapper takes over: the wrapper is
    induced from the results the crawl already emitted, so it carries MiBAT's ``date``
    (ISO), ``date_raw`` and ``text`` rather than the aligner's generic names (which once
    gave ``date_raw``/``field_3`` here, and a per-template CSV then dropped the text)."""
    names = ["carol", "dave", "erin", "frank", "grace", "heidi"]

    def product(k):
        reviews = "".join(
            f'<li class="review"><span class="author">{names[(i + k) % 6]}</span> '
            f'<span class="date">Jan {i + k + 1}, 2025</span><p>Review {i} of product {k}: it '
            f"works as described, arrived on time and the box was intact.</p></li>"
            for i in range(5)
        )
        body = (
            f"<html><body><h1>Product {k}</h1><p class='desc'>A product.</p>"
            f"<ul class='reviews'>{reviews}</ul></body></html>"
        )
        return html_response(f"http://a.com/p/{k}", body)

    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:", induction_samples=1))
    rt.mine(product(0))  # the sample
    first = rt.mine(product(1))
    assert first.source == "auto" and first.result.main.extractor == "mibat"
    assert first.stats["records/wrapper/induced"] == 1
    again = rt.mine(product(2))
    assert again.source == "wrapper"
    mined = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:", wrappers=False)).mine(
        product(2)
    )
    want = [{k: v for k, v in r.fields.items() if v is not None} for r in mined.result.main.records]
    assert want[0] == {
        "date": "2025-01-03",
        "date_raw": "Jan 3, 2025",
        "author": "erin",
        "text": "Review 0 of product 2: it works as described, arrived on time "
        "and the box was intact.",
    }
    assert [r.fields for r in again.result.records] == want


def test_runtime_wrapper_path_builds_no_page_model():
    """A page a stored wrapper extracts costs the parse, the signature walk and the
    selectors: the page model is built only for unsupervised mining."""
    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:", induction_samples=1))
    rt.mine(html_response("http://a.com/list0", LIST_PAGE))
    first = rt.mine(html_response("http://a.com/list", LIST_PAGE))
    assert first.source != "wrapper" and first.stats["records/wrapper/induced"] == 1
    assert first.built_page
    again = rt.mine(html_response("http://a.com/list2", LIST_PAGE.replace("Lamp", "Desk")))
    assert again.source == "wrapper" and again.template == first.template
    assert len(again.result.records) == 8 and not again.built_page
    assert [r.text for r in again.result.records] == [
        r.text.replace("Lamp", "Desk") for r in first.result.main.records
    ]
    assert again.result.records[0].fields["title"] == "Desk model 1"
    assert again.result.records[0].fields["url"] == "http://a.com/p/1"


TWO_LISTS = LIST_PAGE.replace("</body>", NEWS_PAGE.split("<body>")[1])


def test_a_mined_page_comes_back_with_the_regions_its_items_read():
    """With ``RECORDS_REGIONS = "main"`` a mined page comes back from its worker with its
    main region only, the one its items read (the others are most of the bytes a worker
    sends and the crawl's process reads back); the regions an induction sample keeps are
    every region, serialised in the worker; without wrappers there is no sample to keep."""
    from scrapy_records.scrapy.worker import PageJob, Sample, mine_page

    page = html_response("http://a.com/list", TWO_LISTS)
    cfg = dict(workers=0, wrapper_store="memory:")
    full = RecordsRuntime(RecordsConfig(regions="all", **cfg)).mine(page)
    assert len(full.result.regions) >= 2
    main = RecordsRuntime(RecordsConfig(**cfg)).mine(page)
    assert len(main.result.regions) == 1 and main.source == full.source
    assert main.result.main.records == full.result.main.records
    job = PageJob(page.url, page.body, "utf-8", None, "auto", {}, regions="main", pack=True)
    mined = mine_page(job)
    assert len(mined.result.regions) == 1
    kept = Sample.keep(job, mined.packed, mined.detail).regions
    assert [r.records for r in kept] == [r.records for r in full.result.regions]
    unsupervised = PageJob(page.url, page.body, "utf-8", None, "auto", {}, use_wrappers=False)
    assert mine_page(unsupervised).packed == b""


def test_pages_mined_in_worker_processes_give_what_mining_here_gives():
    """The same pages (a sample, the page that starts the induction, pages the wrapper takes,
    a page of another template) mined in two worker processes and in this process: the same
    outcomes, record for record."""
    pages = [
        ("http://a.com/list0", LIST_PAGE),
        ("http://a.com/list1", LIST_PAGE),
        ("http://a.com/list2", LIST_PAGE.replace("Lamp", "Desk")),
        ("http://a.com/news", NEWS_PAGE),
        ("http://a.com/both", TWO_LISTS),
    ]

    def mine_all(workers):
        cfg = RecordsConfig(
            workers=workers, worker_min_bytes=0, wrapper_store="memory:", induction_samples=1
        )
        rt = RecordsRuntime(cfg)
        try:
            assert rt.executor.ready(120)
            outs = [rt.mine(html_response(url, body)) for url, body in pages]
        finally:
            rt.close()
        in_workers = sum(o.stats.pop("records/pages_in_workers", 0) for o in outs)
        return in_workers, [
            (o.source, o.template, o.stats, [(r.text, r.fields) for r in o.result.records])
            for o in outs
        ]

    here, mined_here = mine_all(0)
    there, mined_there = mine_all(2)
    assert (here, there) == (0, len(pages))
    assert mined_there == mined_here
    assert [m[0] for m in mined_here][1:3] == ["auto", "wrapper"]


def test_runtime_reports_bad_pages_without_raising():
    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:", max_nodes=50))
    out = rt.mine(html_response("http://a.com/", "<ul>" + "<li>x</li>" * 200 + "</ul>"))
    assert out.skipped == "too_large"
    out = rt.mine(html_response("http://a.com/", "   "))
    assert out.skipped == "non_html"


def test_site_of():
    assert site_of("https://WWW.Example.com:8080/x") == "example.com"
    assert site_of("file:///tmp/x.html") == "local"


# ------------------------------------------------------------------ pagination
def test_next_page_from_numbers_and_rel():
    resp = html_response("http://a.com/list/2", LIST_PAGE)
    assert next_page_urls(resp) == ["http://a.com/list/3"]
    rel = html_response(
        "http://a.com/x",
        '<html><head><link rel="next" href="/x?p=2"></head><body>'
        '<a href="/other">Next</a></body></html>',
    )
    assert next_page_urls(rel) == ["http://a.com/x?p=2"]
    word = html_response(
        "http://a.com/x", '<body><a href="/a">About</a><a href="/x?page=2">Next ›</a></body>'
    )
    assert next_page_urls(word) == ["http://a.com/x?page=2"]
    offsite = html_response(
        "http://a.com/x", '<body><a rel="next" href="http://b.com/2">next</a></body>'
    )
    assert next_page_urls(offsite) == []
    none = html_response("http://a.com/x", "<body><a href='/1'>1</a><a href='/2'>2</a></body>")
    assert next_page_urls(none) == []  # no current page marked: no guess


# --------------------------------------------------------------------- preview
def test_preview_is_neutralised_and_annotated():
    result = scrapy_records.extract(LIST_PAGE, url="http://a.com/list/2")
    out = render_preview(LIST_PAGE, "http://a.com/list/2", result)
    low = out.lower()
    assert "<script" not in low and "onload" not in low and "javascript:" not in low
    assert "refresh" not in low and "content-security-policy" in low
    assert "R0.1" in out and "R0.8" in out and "R0.9" not in out
    assert "Lamp model 8" in out and "data-records-region" in out


# -------------------------------------------------------------------- pipeline
def _pipeline(**settings):
    crawler = get_crawler(
        settings_dict={"RECORDS_WORKERS": 0, "RECORDS_WRAPPER_STORE": "memory:", **settings}
    )
    crawler.stats.open_spider()
    return RecordsPipeline.from_crawler(crawler), crawler


def _scraped(pipe, item):
    """``item`` through the pipeline and, as the engine does for an item every pipeline
    passed, the ``item_scraped`` signal."""
    from scrapy import signals

    out = pipe.process_item(item)
    pipe.crawler.signals.send_catch_log(signals.item_scraped, item=out, response=None, spider=None)
    return out


def _record(conf=0.9, **fields):
    return RecordItem(
        url="http://a.com/",
        site="a.com",
        template="t",
        wrapper_id=None,
        wrapper_version=None,
        region=0,
        index=0,
        fields=fields or {"price": "$1"},
        text="x",
        xpaths=["/html/body/div"],
        confidence=conf,
        extractor="mdr",
    )


def test_pipeline_drops_low_confidence_and_flattens():
    pipe, crawler = _pipeline(RECORDS_MIN_CONFIDENCE=0.5, RECORDS_FLATTEN_FIELDS=True)
    with pytest.raises(DropItem):
        pipe.process_item(_record(0.2))
    assert crawler.stats.get_value("records/dropped/low_confidence") == 1
    flat = pipe.process_item(_record(0.9, url="http://a.com/p/1", tags=["a", "b"]))
    assert flat["page_url"] == "http://a.com/" and flat["url"] == "http://a.com/p/1"
    assert flat["tags"] == "a | b"
    assert pipe.process_item({"own": 1}) == {"own": 1}


def test_a_resumed_crawl_writes_the_rows_an_interrupted_run_left_for_templates_it_skips(
    tmp_path,
):
    """Ctrl-C twice leaves each template's rows in its spool; a resumed crawl whose
    JOBDIR has those pages done sees no record of that template, and still writes them."""
    import csv

    first, _ = _pipeline(
        JOBDIR=str(tmp_path / "job"),
        RECORDS_CSV_PER_TEMPLATE=str(tmp_path / "%(site)s-%(template)s.csv"),
    )
    _scraped(first, _record(0.9, price="$1"))
    _scraped(first, _record(0.9, price="$2"))
    assert (tmp_path / "a.com-t.csv.rows").exists()  # (killed: close_spider never runs)
    second, _ = _pipeline(
        JOBDIR=str(tmp_path / "job"),
        RECORDS_CSV_PER_TEMPLATE=str(tmp_path / "%(site)s-%(template)s.csv"),
    )
    second.close_spider()
    with open(tmp_path / "a.com-t.csv", encoding="utf-8") as f:
        assert [r["price"] for r in csv.DictReader(f)] == ["$1", "$2"]
    assert not (tmp_path / "a.com-t.csv.rows").exists()


def test_pipeline_stores_and_emits_wrapper_once():
    pipe, crawler = _pipeline()
    doc = wrapper_doc("x")
    item = WrapperItem(
        wrapper_id="a.com/t",
        site="a.com",
        template="t",
        version=None,
        status="new",
        sample_urls=[],
        document=doc,
        stored=False,
    )
    out = pipe.process_item(item)
    assert out["stored"] is True and out["version"] == 1
    assert json.loads(pipe.runtime.store.get("a.com", "t").document)["id"] == "x"
    dup = WrapperItem(
        wrapper_id="a.com/t",
        site="a.com",
        template="t",
        version=1,
        status="new",
        sample_urls=[],
        document=doc,
        stored=True,
    )
    with pytest.raises(DropItem):
        pipe.process_item(dup)


def test_pipeline_csv_per_template(tmp_path):
    pattern = str(tmp_path / "%(site)s-%(template)s.csv")
    pipe, _ = _pipeline(RECORDS_CSV_PER_TEMPLATE=pattern)
    _scraped(pipe, _record(0.9, name="Lamp", price="$2"))
    _scraped(pipe, _record(0.9, name="Mug", price="$3"))
    pipe.close_spider()
    lines = (tmp_path / "a.com-t.csv").read_text().splitlines()
    assert lines[0].endswith("name,price") and lines[2].endswith("Mug,$3")


def test_pipeline_csv_rows_are_the_records_every_pipeline_passed(tmp_path):
    """A record a later pipeline drops (a user's de-duplication) is no row of the
    template's CSV, as it is none of the feeds'."""
    from scrapy import signals

    pattern = str(tmp_path / "%(site)s-%(template)s.csv")
    pipe, crawler = _pipeline(RECORDS_CSV_PER_TEMPLATE=pattern)
    _scraped(pipe, _record(0.9, name="Lamp", price="$2"))
    dropped = pipe.process_item(_record(0.9, name="Lamp", price="$2"))
    crawler.signals.send_catch_log(
        signals.item_dropped, item=dropped, response=None, spider=None, exception=DropItem("dup")
    )
    _scraped(pipe, _record(0.9, name="Mug", price="$3"))
    pipe.close_spider()
    lines = (tmp_path / "a.com-t.csv").read_text().splitlines()
    assert len(lines) == 3 and lines[1].endswith("Lamp,$2") and lines[2].endswith("Mug,$3")


def test_pipeline_csv_rows_of_items_a_later_pipeline_copied_are_kept(tmp_path):
    """A later pipeline that returns a copy of the item: the engine signals the copy, the
    row waits for the end of the crawl, and is written then."""
    from scrapy import signals

    pattern = str(tmp_path / "%(site)s-%(template)s.csv")
    pipe, crawler = _pipeline(RECORDS_CSV_PER_TEMPLATE=pattern)
    out = pipe.process_item(_record(0.9, name="Lamp", price="$2"))
    copy = out.copy()
    crawler.signals.send_catch_log(signals.item_scraped, item=copy, response=None, spider=None)
    pipe.close_spider()
    lines = (tmp_path / "a.com-t.csv").read_text().splitlines()
    assert len(lines) == 2 and lines[1].endswith("Lamp,$2")


def test_pipeline_csv_per_template_keeps_fields_that_appear_later(tmp_path):
    """An optional field the first record lacks (or one a newer wrapper adds) gets a
    column: the header is rewritten at the end and earlier rows are padded."""
    import csv

    pattern = str(tmp_path / "%(site)s-%(template)s.csv")
    pipe, _ = _pipeline(RECORDS_CSV_PER_TEMPLATE=pattern)
    _scraped(pipe, _record(0.9, name="Lamp", price="$2"))
    _scraped(pipe, _record(0.9, name="Mug", price="$3", old_price="$4"))
    _scraped(pipe, _record(0.9, name="Cup", price="$1"))
    pipe.close_spider()
    with open(tmp_path / "a.com-t.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["name"], r["price"], r["old_price"]) for r in rows] == [
        ("Lamp", "$2", ""),
        ("Mug", "$3", "$4"),
        ("Cup", "$1", ""),
    ]
    assert not (tmp_path / "a.com-t.csv.tmp").exists()


# --------------------------------------------------------------------- commands
def _scrapy_command(capsys, *argv: str) -> tuple[int, str]:
    """Run ``scrapy ARGV`` in this process (the commands need no crawler): (exit code, stdout)."""
    from scrapy.cmdline import execute

    with pytest.raises(SystemExit) as ei:
        execute(
            ["scrapy", *argv],
            settings=Settings({"COMMANDS_MODULE": "scrapy_records.scrapy.commands"}),
        )
    return ei.value.code, capsys.readouterr().out


def test_records_and_wrappers_commands(tmp_path, capsys):
    page = tmp_path / "list.html"
    page.write_text(LIST_PAGE)
    # `scrapy records` end to end, as a user runs it in the example project
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "records",
            str(page),
            "--main",
            "--preview",
            str(tmp_path / "p.html"),
        ],
        cwd=REPO / "example_project",
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Lamp model 1" in out.stdout and "(main)" in out.stdout and "8 records" in out.stdout
    assert "<script" not in (tmp_path / "p.html").read_text().lower()
    s = open_store(f"sqlite:///{tmp_path / 'w.sqlite'}")
    s.put("a.com", "t-1", json.dumps({"record": {"xpath": "//li"}, "fields": [{"name": "title"}]}))
    s.close()
    store = ["--store", f"sqlite:///{tmp_path / 'w.sqlite'}"]
    code, listed = _scrapy_command(capsys, "wrappers", "list", *store)
    assert code == 0 and "a.com/t-1" in listed and "title" in listed
    code, shown = _scrapy_command(capsys, "wrappers", "show", "a.com/t-1", *store)
    assert json.loads(shown)["record"]["xpath"] == "//li"
    _scrapy_command(capsys, "wrappers", "export", str(tmp_path / "exp"), *store)
    assert json.loads((tmp_path / "exp" / "a.com" / "t-1.json").read_text())["version"] == 1
    assert "deleted 1" in _scrapy_command(capsys, "wrappers", "delete", "a.com", *store)[1]
    assert "a.com/t-1" not in _scrapy_command(capsys, "wrappers", "list", *store)[1]


def test_runtime_stale_wrapper_is_reinduced():
    rt = RecordsRuntime(
        RecordsConfig(workers=0, wrapper_store="memory:", induction_samples=1, stale_after=2)
    )
    meta = {"records_template": "lists"}
    rt.mine(html_response("http://a.com/0", LIST_PAGE), meta)  # the sample
    first = rt.mine(html_response("http://a.com/1", LIST_PAGE), meta)
    assert first.stats["records/wrapper/induced"] == 1
    # the site changed its layout: the same records now sit in table rows
    table = (
        "<html><body><table class='grid'>"
        + "".join(
            f"<tr class='row'><td><a href='/p/{i}'>Lamp model {i}</a></td><td>${10 + i}.50</td>"
            f"<td>In stock</td></tr>"
            for i in range(1, 9)
        )
        + "</table></body></html>"
    )
    second = rt.mine(html_response("http://a.com/2", table), meta)
    assert second.source == "auto" and "records/wrapper/stale" not in second.stats
    assert second.stats["records/wrapper/misfit"] == 1
    assert len(second.result.records) == 8  # the misfit page is mined unsupervised: nothing lost
    third = rt.mine(html_response("http://a.com/3", table), meta)
    assert third.stats["records/wrapper/stale"] == 1  # sampling starts again with this page
    third = rt.mine(html_response("http://a.com/3b", table), meta)
    assert third.stats["records/wrapper/induced"] == 1  # re-induced from the new layout
    assert third.new_wrappers[0]["status"] == "updated" and third.new_wrappers[0]["version"] == 2
    fourth = rt.mine(html_response("http://a.com/4", table), meta)
    assert fourth.source == "wrapper" and fourth.wrapper_version == 2
    assert len(fourth.result.records) == 8


def test_runtime_never_reinduce_policy():
    rt = RecordsRuntime(
        RecordsConfig(
            workers=0, wrapper_store="memory:", induction_samples=1, stale_after=1, reinduce="never"
        )
    )
    meta = {"records_template": "lists"}
    rt.mine(html_response("http://a.com/0", LIST_PAGE), meta)
    rt.mine(html_response("http://a.com/1", LIST_PAGE), meta)
    other = (
        "<html><body><ol>"
        + "".join(f"<li><b>Item {i}</b> <i>{i} EUR</i></li>" for i in range(6))
        + "</ol></body></html>"
    )
    for k in range(3):
        out = rt.mine(html_response(f"http://a.com/x{k}", other), meta)
        assert out.source == "auto" and not out.new_wrappers
    again = rt.mine(html_response("http://a.com/5", LIST_PAGE), meta)
    assert again.source == "wrapper" and again.wrapper_version == 1


def test_meta_extractor_and_options():
    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:", wrappers=False))
    out = rt.mine(html_response("http://a.com/", LIST_PAGE), {"records_extractor": "stem"})
    assert out.source == "stem" and out.stats["records/extractor/stem/pages"] == 1
    assert out.result.main is not None and all(r.extractor == "stem" for r in out.result.regions)
    # per-page options: demanding more records than the list has leaves no region
    out = rt.mine(html_response("http://a.com/", LIST_PAGE), {"records": {"min_records": 9}})
    assert out.result.regions == []
    out = rt.mine(html_response("http://a.com/", LIST_PAGE), {"records": {"min_records": 8}})
    assert len(out.result.main.records) == 8


@pytest.mark.browser
def test_records_command_screenshot(tmp_path):
    page = tmp_path / "list.html"
    page.write_text(LIST_PAGE)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "records",
            str(page),
            "--preview",
            str(tmp_path / "p.html"),
            "--screenshot",
            str(tmp_path / "p.png"),
        ],
        cwd=REPO / "example_project",
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.returncode == 0, out.stderr
    png = (tmp_path / "p.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000


# ------------------------------------------------- stored versions, outages, leases
class QueueingStore(MemoryStore):
    """A memory store that, while ``down``, queues writes and raises ``StoreError`` (what the
    Redis store does during an outage); :meth:`replay` writes the queue compare-and-set."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.queued: list[tuple[str, str, str, int | None]] = []
        self.leases: list[float] = []

    def put(self, site, template, document, *, expected_version=None, signature=None) -> int:
        if self.down:
            self.queued.append((site, template, document, expected_version))
            raise StoreError(f"store down: wrapper {site}/{template} queued")
        return super().put(
            site, template, document, expected_version=expected_version, signature=signature
        )

    def replay(self) -> None:
        for site, template, document, expected in self.queued:
            try:
                super().put(site, template, document, expected_version=expected)
            except VersionConflict:
                pass  # another worker's wrapper wins
        self.queued.clear()

    def acquire_lease(self, site, template, owner, ttl=60.0) -> bool:
        self.leases.append(ttl)
        return super().acquire_lease(site, template, owner, ttl)


def wrapper_doc(by: str) -> dict:
    """A valid wrapper document told apart by its id."""
    from scrapy_records.wrappers.model import RecordSelector
    from scrapy_records.wrappers.wrapper import Wrapper

    return Wrapper(id=by, record=RecordSelector("//li")).to_dict()


def _wrapper_item(**kw):
    item = dict(
        wrapper_id="a.com/t",
        site="a.com",
        template="t",
        version=None,
        status="new",
        sample_urls=[],
        document=wrapper_doc("me"),
    )
    item.update(kw)
    return WrapperItem(**item)


def test_pipeline_never_overwrites_a_newer_wrapper():
    pipe, _ = _pipeline()
    store = pipe.runtime.store
    store.put("a.com", "t", json.dumps(wrapper_doc("other")))
    store.put("a.com", "t", json.dumps(wrapper_doc("other, newer")), expected_version=1)
    # a spider's wrapper based on version 1: the store has version 2 from another worker
    out = pipe.process_item(_wrapper_item(base_version=1, status="updated"))
    assert not out.get("stored") and "expected version 1, store has 2" in out["store_error"]
    # an engine wrapper the store did not take (queued during an outage): not written again
    out = pipe.process_item(
        _wrapper_item(
            template="t2",
            base_version=None,
            stored=False,
            store_error="queued",
            document=wrapper_doc("engine"),
        )
    )
    assert out["store_error"] == "queued" and store.get("a.com", "t2") is None
    got = store.get("a.com", "t")
    assert (got.version, json.loads(got.document)["id"]) == (2, "other, newer")


def test_wrapper_store_password_is_never_logged(caplog):
    for uri in (
        "redis://:s3cret@127.0.0.1:1/0?history=many",
        "ftp://user:s3cret@host/x?password=s3cret",
    ):
        rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store=uri))
        with caplog.at_level("INFO"):
            assert type(rt.store).__name__ == "MemoryStore"  # this crawl only
    assert "cannot open wrapper store 'redis://127.0.0.1:1/0?history=many'" in caplog.text
    assert "ftp://host/x?password=***" in caplog.text
    assert "s3cret" not in caplog.text


LISTS = {"records_template": "lists"}


def _induced_during_outage() -> tuple[QueueingStore, RecordsRuntime, Any]:
    """A runtime whose store is down when it induces the ``lists`` wrapper (induction on the
    page after one sample, the store looked at again on every page); returns that page's
    outcome."""
    store = QueueingStore()
    rt = RecordsRuntime(
        RecordsConfig(workers=0, induction_samples=1, store_refresh=0.001), store=store
    )
    store.down = True
    rt.mine(html_response("http://a.com/0", LIST_PAGE), LISTS)
    return store, rt, rt.mine(html_response("http://a.com/1", LIST_PAGE), LISTS)


def test_wrapper_stored_by_a_replay_is_recognised_as_our_own(caplog):
    with caplog.at_level("INFO", logger="scrapy_records"):
        store, rt, first = _induced_during_outage()
        w = first.new_wrappers[0]
        assert (w["stored"], w["version"], w["base_version"]) == (False, None, None)
        assert "queued" in w["store_error"]
        warned = [r for r in caplog.records if r.levelname == "WARNING"]
        assert any("store down: wrapper a.com/lists queued" in r.getMessage() for r in warned)
        store.down = False
        store.replay()  # the store is back: our write lands as version 1
        time.sleep(0.005)
        second = rt.mine(html_response("http://a.com/2", LIST_PAGE), LISTS)
    assert second.source == "wrapper" and second.wrapper_version == 1
    assert "records/wrapper/adopted" not in second.stats
    assert "stored by another process" not in caplog.text
    assert "induced during the store outage is stored as version 1" in caplog.text


def test_replay_lost_to_another_worker_adopts_its_wrapper(caplog):
    store, rt, first = _induced_during_outage()
    doc = dict(first.new_wrappers[0]["document"])
    doc["provenance"] = dict(doc.get("provenance") or {}, sample_urls=["http://a.com/other"])
    MemoryStore.put(store, "a.com", "lists", json.dumps(doc))  # another worker, meanwhile
    store.down = False
    store.replay()  # conflict: the other worker's version 1 stays
    time.sleep(0.005)
    with caplog.at_level("INFO", logger="scrapy_records"):
        second = rt.mine(html_response("http://a.com/2", LIST_PAGE), LISTS)
    assert second.stats["records/wrapper/adopted"] == 1
    assert second.source == "wrapper" and second.wrapper_version == 1
    assert "stored by another process" in caplog.text


def test_induction_lease_is_renewed_during_a_slow_induction():
    store = QueueingStore()
    rt = RecordsRuntime(
        RecordsConfig(workers=0, induction_samples=1, lease_seconds=0.15), store=store
    )
    induce = rt._induce
    held_by_other = []

    def slow_induce(*args, **kw):
        time.sleep(0.4)  # longer than the lease: renewals keep it
        held_by_other.append(store.acquire_lease("a.com", LEASE_TEMPLATE, "other", ttl=1))
        return induce(*args, **kw)

    rt._induce = slow_induce
    rt.mine(html_response("http://a.com/0", LIST_PAGE), {"records_template": "lists"})
    out = rt.mine(html_response("http://a.com/1", LIST_PAGE), {"records_template": "lists"})
    assert out.stats["records/wrapper/induced"] == 1
    assert held_by_other == [False]  # still ours after 0.4 s with a 0.15 s lease
    ours = store.leases[:-1] if len(store.leases) > 1 else store.leases
    assert set(store.leases) == {0.15, 1} and len([t for t in ours if t == 0.15]) >= 3
    assert store.acquire_lease("a.com", LEASE_TEMPLATE, "other", ttl=1)  # released at the end
    assert RecordsConfig.from_settings(Settings({"RECORDS_LEASE_SECONDS": 5})).lease_seconds == 5


# ----------------------------------------------------------------------------- CSV
def test_csv_cells_of_dicts_and_lists_are_json(tmp_path):
    import csv
    import io

    from scrapy.exporters import JsonLinesItemExporter

    from scrapy_records.scrapy.exporters import JsonCellCsvItemExporter

    item = _record(0.9, date="2026-01-10", author=None, tags=["a", "b"])
    buf = io.BytesIO()
    exporter = JsonCellCsvItemExporter(
        buf, fields_to_export=["url", "fields", "xpaths", "confidence"]
    )
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    row = list(csv.DictReader(io.StringIO(buf.getvalue().decode())))[0]
    assert json.loads(row["fields"]) == {"date": "2026-01-10", "author": None, "tags": ["a", "b"]}
    assert json.loads(row["xpaths"]) == ["/html/body/div"] and row["confidence"] == "0.9"
    buf = io.BytesIO()
    JsonLinesItemExporter(buf).export_item(item)  # JSON feeds keep the nested object
    assert json.loads(buf.getvalue())["fields"]["tags"] == ["a", "b"]


def test_records_csv_exporter_writes_one_flat_table():
    """One row per record, one column per field: the header is the union of the columns in
    template order (whatever order the pages came in), lists are joined, wrapper items and
    dict cells are not written; ``flat=False`` keeps the nested form."""
    import csv
    import io

    from scrapy_records.scrapy.exporters import RecordsCsvItemExporter

    def record(template, **fields):
        item = _record(0.9, **fields)
        item["template_name"] = template
        return item

    wrapper = WrapperItem(wrapper_id="a.com/t", site="a.com", template="t", document={"x": 1})
    items = [
        record("shop-product-N", author="ann", date="2026-01-10"),
        {"own": "item"},
        wrapper,
        record("shop-page-N", title="Kettle", price=19.97, tags=["red", "tea"]),
        record("shop-page-N", title="Pot", price=5.0, stock="In stock"),  # a late column
    ]
    buf = io.BytesIO()
    exporter = RecordsCsvItemExporter(buf)
    exporter.start_exporting()
    for item in items:
        exporter.export_item(item)
    exporter.finish_exporting()
    table = list(csv.reader(io.StringIO(buf.getvalue().decode())))
    assert table[0] == [
        "page_url",
        "template",
        "own",
        "title",
        "price",
        "tags",
        "stock",
        "author",
        "date",
    ]
    rows = [dict(zip(table[0], r)) for r in table[1:]]
    assert len(rows) == 4  # no wrapper row
    assert rows[2]["tags"] == "red | tea" and rows[2]["price"] == "19.97"
    assert rows[3]["stock"] == "In stock" and rows[0]["author"] == "ann"
    assert rows[3]["price"] == "5"  # a whole price as a person writes it, not "5.0"
    assert not any(c.startswith("{") for r in table for c in r)
    nested = io.BytesIO()
    exporter = RecordsCsvItemExporter(nested, flat=False, fields_to_export=["url", "fields"])
    exporter.export_item(items[0])
    exporter.finish_exporting()
    row = list(csv.DictReader(io.StringIO(nested.getvalue().decode())))[0]
    assert json.loads(row["fields"]) == {"author": "ann", "date": "2026-01-10"}


def test_a_detail_record_set_is_parallel_columns_in_the_csv():
    """A detail page's set (several cuisines, each a link) is not a JSON cell: one column
    per sub-field, the items' values in the same order, an item without one left empty."""
    import csv
    import io

    from scrapy_records.scrapy.exporters import RecordsCsvItemExporter

    cuisines = [
        {"cuisine": "Bagels", "cuisine_url": "http://g.example/bagels", "n": 1},
        {"cuisine": "Deli", "n": 2},
        {"cuisine": "Cafe", "cuisine_url": "http://g.example/cafe", "n": 3},
    ]
    item = _record(0.9, name="Einstein Bros", cuisine=cuisines, nested=[{"a": {"b": 1}}])
    buf = io.BytesIO()
    exporter = RecordsCsvItemExporter(buf)
    exporter.export_item(item)
    exporter.finish_exporting()
    table = list(csv.reader(io.StringIO(buf.getvalue().decode())))
    assert table[0][2:] == ["name", "cuisine", "cuisine_url", "cuisine.n", "nested"]
    row = dict(zip(table[0], table[1]))
    assert row["cuisine"] == "Bagels | Deli | Cafe" and row["cuisine.n"] == "1 | 2 | 3"
    assert row["cuisine_url"] == "http://g.example/bagels |  | http://g.example/cafe"
    assert json.loads(row["nested"]) == [{"a": {"b": 1}}]  # deeper than a set: JSON


# ------------------------------------------------------------------ store registry
class _FakeStore(MemoryStore):
    """A third-party backend: registered by scheme through RECORDS_WRAPPER_STORES."""

    @classmethod
    def from_uri(cls, uri):
        store = cls(uri)
        store.opened_from = uri
        return store


def test_store_backends_resolved_by_scheme(tmp_path):
    assert isinstance(open_store(f"sqlite:///{tmp_path}/w.db"), SQLiteStore)
    assert isinstance(open_store(f"dir://{tmp_path}/d"), DirectoryStore)
    assert isinstance(open_store(str(tmp_path / "plain")), DirectoryStore)
    assert isinstance(open_store("memory:"), MemoryStore)
    with pytest.raises(StoreError, match="unknown wrapper store URI 'ftp://h/x'.*schemes: "):
        open_store("ftp://h/x")


def test_store_backend_from_setting():
    crawler = get_crawler(
        settings_dict={
            "RECORDS_WORKERS": 0,
            "RECORDS_WRAPPER_STORE": "fake://bucket/wrappers",
            "RECORDS_WRAPPER_STORES": {"fake": f"{__name__}._FakeStore"},
        }
    )
    runtime = RecordsRuntime.for_crawler(crawler)
    assert isinstance(runtime.store, _FakeStore)
    assert runtime.store.opened_from == "fake://bucket/wrappers"


def test_an_extractor_registered_in_the_crawl_process_mines_there(caplog):
    """Worker processes never run the crawl script's ``register_extractor()``: a runtime
    that is told to use such an extractor mines in its own process, and says why."""
    from scrapy_records.extractors import get_extractor

    class Shouting:
        name = "shouting"

        def extract(self, page, **options):
            return get_extractor("mdr").extract(page, **options)

    scrapy_records.register_extractor("shouting_here", Shouting)
    with caplog.at_level("WARNING", logger="scrapy_records.scrapy.runtime"):
        rt = RecordsRuntime(RecordsConfig(workers=2, extractor="shouting_here", wrappers=False))
    assert rt.executor.workers == 0
    assert "'shouting_here' registered in this process" in caplog.text
    html = (
        "<html><body><ul>"
        + "".join(f"<li><a href='/p/{i}'>Item {i}</a> <span>${i}.00</span></li>" for i in range(5))
        + "</ul></body></html>"
    )
    url = "http://shop.example/list"
    out = rt.mine(HtmlResponse(url, body=html.encode(), encoding="utf-8", request=Request(url)))
    assert out.error is None and len(out.result.main.records) == 5
    assert RecordsRuntime(RecordsConfig(workers=2, wrappers=False)).executor.workers == 2


def test_template_names_read_like_the_url_path():
    from scrapy_records.scrapy.runtime import url_pattern

    assert url_pattern("https://shop.example/shop/product/12.html") == "shop-product-N"
    assert url_pattern("https://shop.example/") == "home"
    assert url_pattern("https://shop.example/caf%C3%A9/menu?page=2") == "café-menu"
    # a saved page: escapes decoded, no "_N" left of "%20", the query's slug gone; a long
    # path keeps its end
    saved = "file:///tmp/est/2-%20Business/9-%20Target.com/1-%20materials%20business/p.htm"
    assert url_pattern(saved) == "tmp-est-N_Business-N_Target_com-p"
    # one product's slug and identifier name no template: its pages share one name
    for slug, asin in (("Plains-Regional-Report", "161091435X"), ("Kettle-Blue-2", "B00GJ7Y7MU")):
        assert url_pattern(f"https://shop.example/{slug}/dp/{asin}/ref=sr_1_1") == "dp-N"
    assert url_pattern("https://forum.example/r/news/comments/4fhse2/a_long_title/") == (
        "r-news-comments-N"
    )
    assert url_pattern("https://shop.example/blue-kettle-2000") == "blue_kettle_N"
    deep = "https://x.example/" + "/".join(f"section{k}" for k in range(20)) + "/item"
    name = url_pattern(deep)
    assert len(name) <= 60 and name.endswith("sectionN-item") and not name.startswith("-")


MINERS_LOADED = (
    "import sys\n"
    "print(sorted(m for m in sys.modules if m.startswith(('scrapy_records.api',"
    " 'scrapy_records.extractors.', 'scrapy_records.wrappers.inducers'))))\n"
)


def test_a_crawl_with_workers_imports_the_miners_only_to_mine_here(tmp_path):
    """Without workers the runtime imports the extractors and inducers when it starts; with
    workers they are the workers' (the forkserver preloads them), so a crawl whose pages fit
    stored wrappers never imports them."""
    store = f"sqlite:///{tmp_path / 'w.sqlite'}"
    script = (
        "import sys\n"
        "from scrapy.http import HtmlResponse, Request\n"
        "from scrapy_records.scrapy.runtime import RecordsRuntime\n"
        "from scrapy_records.scrapy.settings import RecordsConfig\n"
        f"page = {LIST_PAGE!r}.encode()\n"
        "def resp(u):\n"
        "    return HtmlResponse(u, body=page, encoding='utf-8', request=Request(u))\n"
        "workers, url = int(sys.argv[1]), sys.argv[2]\n"
        f"rt = RecordsRuntime(RecordsConfig(workers=workers, wrapper_store={store!r},"
        " induction_samples=1))\n"
        f"{MINERS_LOADED}"
        "for k in range(int(sys.argv[3])):\n"
        "    out = rt.mine(resp(url + str(k)))\n"
        "    print(out.source, len(out.result.records))\n"
        f"{MINERS_LOADED}"
        "rt.executor.close()\n"
    )

    def run(*args: str) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-c", script, *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=subprocess_env(),
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout.splitlines()

    # in-thread mining: loaded at start; two pages mined, the second induces the wrapper
    out = run("0", "http://a.com/list", "2")
    assert out[0] != "[]" and out[1:3] == ["auto 8", "auto 8"]
    # workers, and a stored wrapper for every page: never loaded in this process
    out = run("2", "http://a.com/list", "3")
    assert out == ["[]", "wrapper 8", "wrapper 8", "wrapper 8", "[]"]


@pytest.mark.parametrize("freeze", [True, False])
def test_the_crawl_s_start_up_objects_leave_the_collector_s_walks(freeze):
    """RECORDS_GC_FREEZE: when the engine starts, what the process holds (modules, settings,
    components) is frozen, so full collections during the crawl walk only its own objects."""
    import gc

    from scrapy import signals

    gc.unfreeze()
    try:
        crawler = get_crawler(settings_dict={"RECORDS_WORKERS": 0, "RECORDS_GC_FREEZE": freeze})
        mw = RecordsSpiderMiddleware.from_crawler(crawler)  # (signals hold it weakly)
        assert gc.get_freeze_count() == 0
        crawler.signals.send_catch_log(signals.engine_started)
        assert (gc.get_freeze_count() > 1000) is freeze and mw.config.gc_freeze is freeze
    finally:
        gc.unfreeze()


def test_a_page_mined_in_a_crawl_thread_counts_that_thread_s_cpu_once():
    """records/mining_seconds is CPU time. A small page mined in a crawl thread while the
    workers exist (RECORDS_WORKER_MIN_BYTES) counted the whole process's CPU (every thread's)
    and then again as a worker's: more seconds than the wall clock, with another thread
    busy meanwhile."""
    import threading

    crawler = get_crawler(settings_dict={"RECORDS_WORKERS": 2, "RECORDS_WRAPPERS": False})
    rt = RecordsRuntime.for_crawler(crawler)
    stop = threading.Event()

    def spin() -> None:  # another crawl thread at work (Python code: it takes turns)
        while not stop.is_set():
            sum(range(1000))

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        t0 = time.perf_counter()
        out = rt.mine(html_response("http://a.com/list", LIST_PAGE))
        wall = time.perf_counter() - t0
    finally:
        stop.set()
        spinner.join()
        rt.close()
    assert len(out.result.main.records) == 8
    assert 0 < out.seconds <= wall


def test_samples_held_for_induction_are_out_of_the_garbage_collector_s_walks():
    """A template's sample pages wait in the crawl's process for its induction; their mined
    regions (every record, field and column) are kept serialised, so the cyclic collector's
    full collections, pauses of the reactor, do not walk them; induction reads them back."""
    import gc

    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:", induction_samples=3))
    for k in range(2):
        rt.mine(html_response(f"http://a.com/list{k}", LIST_PAGE))
    samples = [s for st in rt._states.values() for s in st.samples]
    assert len(samples) == 2
    import types

    seen, todo, tracked = set(), list(samples), 0
    while todo:  # everything the samples hold that the collector would walk (not classes)
        o = todo.pop()
        if id(o) in seen or not gc.is_tracked(o) or isinstance(o, (type, types.ModuleType)):
            continue
        seen.add(id(o))
        tracked += 1
        todo.extend(gc.get_referents(o))
    assert tracked < 20  # (the samples, their attribute dicts, the detail evidence)
    assert [len(s.regions[0].records) for s in samples] == [8, 8]
    assert samples[0].regions[0].records[0].fields == samples[1].regions[0].records[0].fields
