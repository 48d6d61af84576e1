"""Whole, separate cells on list pages (issue 15): each rule on a small hand-written page."""

from __future__ import annotations

from lxml import etree

import scrapy_records
from scrapy_records.fields.text import inline_text


def mined(html: str) -> list[dict]:
    res = scrapy_records.extract(html, url="https://shop.example/search")
    assert res.main is not None
    return [dict(r.fields) for r in res.main.records]


# ------------------------------------------------------------- spacers and icons
def test_an_empty_classed_element_between_words_parts_them():
    """A spacer or an icon the style sheet draws separates the words around it as the
    browser does; an empty element without a class draws nothing."""
    spaced = '<a href="/o"><span>$35.99</span><span class="letter-space"></span>used</a>'
    assert inline_text(etree.fromstring(spaced)) == "$35.99 used"
    icon = '<span>Rate<i class="icon-star"></i>4.5</span>'
    assert inline_text(etree.fromstring(icon)) == "Rate 4.5"
    assert inline_text(etree.fromstring("<b>Micro<span></span>soft</b>")) == "Microsoft"


def test_offers_with_spacers_read_as_the_page_shows_them():
    items = [("Red lamp", "35.99", 6), ("Blue chair", "7.37", 74), ("Oak desk", "149.69", 3)]
    rows = "".join(
        f'<li class="result"><h2><a href="/p/{k}">{title}</a></h2>'
        f'<a class="offers" href="/offers/{k}"><span class="amount">${price}</span>'
        f'<span class="letter-space"></span>used &amp; new<span class="letter-space"></span>'
        f'<span class="count">({count} offers)</span></a>'
        f'<p class="more"><b>Home &amp; Kitchen:</b><span class="letter-space"></span>'
        f"See all {count + 3} items</p></li>"
        for k, (title, price, count) in enumerate(items)
    )
    records = mined(f"<html><body><ul id='results'>{rows}</ul></body></html>")
    texts = [v for r in records for v in r.values() if isinstance(v, str)]
    assert not any("used&" in t or "99used" in t or "new(" in t for t in texts)
    assert not any(":See" in t for t in texts)
    assert any(t == "See all 9 items" or t.endswith(": See all 9 items") for t in texts)
