"""Names people give a template's fields survive re-induction; dropped fields stay out."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from crawl_helpers import subprocess_env

import scrapy_records
from scrapy_records import Page, Wrapper, WrapperError
from scrapy_records.scrapy.store import open_store
from scrapy_records.wrappers.model import WRAPPER_VERSION
from scrapy_records.wrappers.pins import carry_over, drop_field, rename_field


def shop(page: int, wrapped: bool = False) -> tuple[str, str]:
    """A list page of the shop; ``wrapped``: the redesign puts each product in one more div
    and moves the image after the title (every field's XPath changes)."""
    items = []
    for i in range(page * 10, page * 10 + 6):
        img = f'<a href="/p/{i}"><img src="/img/{i}.jpg"></a>'
        title = f'<h3><a href="/p/{i}">Kettle model {i}</a></h3>'
        price = f'<span class="price">${i}.{i % 90 + 10}</span>'
        stock = f'<span class="stock">{i % 7} left</span>'
        body = (title + img if wrapped else img + title) + price + stock
        items.append(f'<li class="product">{"<div>" + body + "</div>" if wrapped else body}</li>')
    html = f"<html><body><ul id='list'>{''.join(items)}</ul></body></html>"
    return f"http://shop.example/list?page={page}", html


def pages(*numbers: int, wrapped: bool = False) -> list[Page]:
    return [Page(html, url=url) for url, html in (shop(n, wrapped) for n in numbers)]


def test_rename_and_drop_survive_reinduction_of_a_redesigned_template():
    w = scrapy_records.induce(pages(1, 2))
    assert {"title", "url", "price", "image"} <= {f.name for f in w.fields}
    rename_field(w, "price", "cost")
    drop_field(w, "image")
    assert w.dropped[0]["name"] == "image" and any(f.name == "cost" and f.pinned for f in w.fields)
    # the site is redesigned: the old wrapper no longer fits, a new one is induced
    fresh = pages(3, 4, wrapped=True)
    new = scrapy_records.induce(fresh)
    assert "price" in {f.name for f in new.fields} and "image" in {f.name for f in new.fields}
    carry_over(new, w, fresh)
    names = [f.name for f in new.fields]
    assert "cost" in names and "price" not in names and "image" not in names
    assert next(f for f in new.fields if f.name == "cost").pinned
    assert new.dropped == w.dropped
    got = new.extract(shop(5, wrapped=True)[1], url=shop(5, wrapped=True)[0])
    assert got.records[0].fields["cost"] == 50.6 and "image" not in got.records[0].fields
    # the edits are data: they round-trip through JSON
    again = Wrapper.from_json(new.to_json())
    assert again.dropped == new.dropped and [f.pinned for f in again.fields] == [
        f.pinned for f in new.fields
    ]


def test_rename_refuses_unknown_and_taken_names():
    w = scrapy_records.induce(pages(1, 2))
    with pytest.raises(WrapperError, match="no field 'nope'"):
        rename_field(w, "nope", "x")
    with pytest.raises(WrapperError, match="already has a field 'url'"):
        rename_field(w, "title", "url")


def test_version_1_documents_still_load():
    w = scrapy_records.induce(pages(1, 2))
    d = json.loads(w.to_json())
    d["version"] = 1
    del d["dropped"]
    for f in d["fields"]:
        del f["pinned"], f["keys"]  # (lists of keys came with version 3)
    old = Wrapper.from_dict(d)
    assert old.dropped == [] and not any(f.pinned for f in old.fields)
    assert json.loads(old.to_json())["version"] == WRAPPER_VERSION == 3


def test_wrappers_command_renames_and_drops_in_the_store(tmp_path):
    uri = f"sqlite:///{tmp_path / 'w.sqlite'}"
    w = scrapy_records.induce(pages(1, 2))
    store = open_store(uri)
    store.put("shop.example", "t-1", w.to_json())
    store.close()

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "scrapy", "wrappers", *args, "--store", uri],
            cwd=tmp_path,
            env=subprocess_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )

    done = run("rename", "shop.example/t-1", "price", "cost")
    assert done.returncode == 0, done.stderr
    assert "version 2" in done.stdout and "cost" in done.stdout
    assert run("drop", "shop.example/t-1", "stock").returncode == 0
    bad = run("rename", "shop.example/t-1", "nope", "x")
    assert bad.returncode == 2 and "no field 'nope'" in bad.stderr
    stored = Wrapper.from_json(open_store(uri).get("shop.example", "t-1").document)
    assert [f.name for f in stored.fields if f.pinned] == ["cost"]
    assert [d["name"] for d in stored.dropped] == ["stock"]


def test_a_crawl_reinducing_a_stale_template_keeps_the_pinned_name():
    """The stored wrapper's field was renamed by a person; the site is redesigned, the
    wrapper goes stale and is induced again in the crawl: the records keep the name."""
    from scrapy.http import HtmlResponse, Request
    from scrapy.utils.test import get_crawler

    from scrapy_records.scrapy.runtime import RecordsRuntime

    def response(url: str, html: str) -> HtmlResponse:
        return HtmlResponse(url, body=html.encode(), encoding="utf-8", request=Request(url))

    crawler = get_crawler(
        settings_dict={
            "RECORDS_WORKERS": 0,
            "RECORDS_WRAPPER_STORE": "memory:",
            "RECORDS_INDUCTION_SAMPLES": 2,
            "RECORDS_STALE_AFTER": 1,
        }
    )
    rt = RecordsRuntime.for_crawler(crawler)
    meta = {"records_template": "list"}
    for n in (1, 2, 8):  # two samples, then one more page: the wrapper is induced
        rt.mine(response(*shop(n)), meta)
    stored = rt.store.get("shop.example", "list")
    w = Wrapper.from_json(stored.document)
    rename_field(w, "price", "cost")
    rt.store.put("shop.example", "list", w.to_json(), expected_version=stored.version)
    rt.config.store_refresh = 0.0001  # the crawl picks the edited wrapper up
    out = rt.mine(response(*shop(3)), meta)
    assert out.source == "wrapper" and "cost" in out.result.records[0].fields
    outs = [rt.mine(response(*shop(n, wrapped=True)), meta) for n in (4, 5, 6, 7)]
    assert any(o.stats.get("records/wrapper/induced") for o in outs)
    last = outs[-1]
    assert last.source == "wrapper"
    assert "cost" in last.result.records[0].fields and "price" not in last.result.records[0].fields
