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


# ------------------------------------------------------------------ badges
def _listing(items: list[tuple[str, str, str]], badge: str = "newly") -> str:
    rows = "".join(
        f'<li class="item"><h3 class="title"><a href="/itm/{k}-{title[:4]}">'
        + (f'<span class="{badge}">{flag}</span>\n' if flag else "")
        + f'{title}</a></h3><span class="price">£{price}</span></li>'
        for k, (title, flag, price) in enumerate(items)
    )
    return f"<html><body><ul id='results'>{rows}</ul></body></html>"


GAMES = [
    ("PS3 Call of Duty World at War", "New listing", "11.95"),
    ("Snooker bundle for PS2", "", "4.99"),
    ("FIFA 17 for Xbox One", "New listing", "19.50"),
    ("Halo 5 Guardians", "", "9.00"),
    ("Gran Turismo Sport PS4", "", "14.00"),
]


def test_a_badge_some_titles_open_with_is_its_own_column():
    """'<a><span class="newly">New listing</span> Red lamp</a>' in a few records: the
    title is the link's own text in every record, the badge a column of its own, mined
    and wrapped alike."""
    records = mined(_listing(GAMES))
    assert [r["title"] for r in records] == [g[0] for g in GAMES]
    badge = [k for k in records[0] if records[0][k] == "New listing"]
    assert len(badge) == 1 and [r.get(badge[0]) for r in records] == [
        "New listing",
        None,
        "New listing",
        None,
        None,
    ]
    page2 = [
        ("Mario Kart 8 Deluxe", "", "39.99"),
        ("Zelda Breath of the Wild", "New listing", "44.00"),
        ("Forza Horizon 4", "", "24.50"),
        ("Minecraft Starter Pack", "New listing", "15.00"),
    ]
    w = scrapy_records.induce(
        [("https://shop.example/s1", _listing(GAMES)), ("https://shop.example/s2", _listing(GAMES))]
    )
    wrapped = [
        dict(r.fields) for r in w.extract(_listing(page2), "https://shop.example/s3").records
    ]
    assert [r["title"] for r in wrapped] == [g[0] for g in page2]
    assert [r.get(badge[0]) for r in wrapped] == [None, "New listing", None, "New listing"]


def test_a_highlighted_word_that_also_sits_inside_titles_stays_in_the_title():
    """The query's word highlighted at the start of some titles and inside others is
    part of each title, not a badge."""
    items = [
        ("regional</em> library of Reston", "", "1.00"),
        ("Best <em class='hl'>regional</em> maps", "", "2.00"),
        ("regional</em> cooking of Okinawa", "", "3.00"),
        ("The <em class='hl'>regional</em> press", "", "4.00"),
    ]
    rows = "".join(
        f'<li class="item"><h3><a href="/p/{k}">'
        + ("<em class='hl'>" if not t.startswith(("Best", "The")) else "")
        + f"{t}</a></h3><span class='price'>£{p}</span></li>"
        for k, (t, _, p) in enumerate(items)
    )
    records = mined(f"<html><body><ul id='results'>{rows}</ul></body></html>")
    titles = [r.get("title") for r in records]
    assert titles == [
        "regional library of Reston",
        "Best regional maps",
        "regional cooking of Okinawa",
        "The regional press",
    ]


def test_a_currency_in_its_own_element_stays_with_the_amount():
    rows = "".join(
        f'<li class="item"><a href="/p/{k}">{t}</a>'
        f'<span class="price"><span class="cur">USD</span> {p}</span></li>'
        for k, (t, p) in enumerate(
            [("Red lamp", "5.00"), ("Blue chair", "45.50"), ("Oak desk", "120.00")]
        )
    )
    records = mined(f"<html><body><ul id='results'>{rows}</ul></body></html>")
    prices = [(r.get("price"), r.get("price_currency")) for r in records]
    assert prices == [(5.0, "USD"), (45.5, "USD"), (120.0, "USD")]
