"""One schema per template: the wrapper induced on some pages of a template gives a later
page the field names mining that page gives (issue 15)."""

from __future__ import annotations

from dataclasses import replace

import scrapy_records
from scrapy_records.page import Page

URL = "https://shop.example/list"


def page(body: str) -> str:
    return f"<html><body><div id='main'>{body}</div></body></html>"


def shop(start: int, n: int = 5, extra: str = "") -> str:
    return page(
        "<ul class='results'>"
        + "".join(
            f'<li class="product"><h3><a href="/p/{i}">Kettle model {i}</a></h3>'
            f'<span class="price">${10 + i}.99</span>'
            f"<p>A kettle of {i} litres, long enough to read as a description.</p></li>"
            for i in range(start, start + n)
        )
        + "</ul>"
        + extra
    )


def names(records) -> set[str]:
    return {k for r in records for k, v in r.fields.items() if v not in (None, "", [])}


def test_a_sample_page_without_a_main_region_does_not_choose_the_record_selector():
    pages = [Page(shop(1), url=URL), Page(shop(20), url=URL)]
    ranked = [scrapy_records.extract(p, min_records=2).regions for p in pages]
    main = ranked[0][0]
    assert len(main.records) == 5
    # page 1 lists no products today: its best region is weak (a stray pair of links)
    stray = replace(main, records=main.records[:2], confidence=0.1, xpath="//footer")
    ranked[0] = [stray]
    w = scrapy_records.induce(pages, regions=ranked)
    later = w.extract(shop(40), url=URL)
    assert len(later.records) == 5
    assert names(later.records) == names(scrapy_records.extract(shop(40), url=URL).records)
