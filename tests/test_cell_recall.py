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


# ------------------------------------------------------- captioned parts of a record
def _supplier(items: list[tuple[str, str | None, str | None, str]]) -> str:
    rows = []
    for title, deals, volume, rate in items:
        first = (
            f'<li><div class="lab">{deals}</div><div class="num">{volume}</div></li>'
            if deals
            else ""
        )
        rows.append(
            f'<div class="item"><h2><a href="/p/{title.replace(" ", "-")}">{title}</a></h2>'
            f'<ul class="record">{first}<li><div class="lab">Response Rate</div>'
            f'<div class="num">{rate}</div></li></ul></div>'
        )
    return "<html><body><div id='list'>" + "".join(rows) + "</div></body></html>"


SUPPLIERS = [
    ("Red lamp", "1 Transaction(6 months)", "30,000+", "73.6%"),
    ("Blue chair", "3 Transactions(6 months)", "10,000+", "60.0%"),
    ("Green table", None, None, "93.0%"),
    ("Oak desk", "82 Transactions(6 months)", "470,000+", "88.1%"),
    ("Steel shelf", "5 Transactions(6 months)", "2,000+", "51.2%"),
]


def _column(records: list[dict], value: str) -> str:
    return next(k for k in records[0] if records[0][k] == value)


def test_parts_told_apart_by_a_caption_are_columns_not_a_list():
    """Two items of one class, the second captioned "Response Rate", the first a count
    that varies and that some records lack: a column per part, and the record without
    the first part has its rate in the rate column (not read as the first part)."""
    records = mined(_supplier(SUPPLIERS))
    volume, rate = _column(records, "30,000+"), _column(records, "73.6%")
    assert volume != rate
    assert [r.get(volume) for r in records] == ["30,000+", "10,000+", None, "470,000+", "2,000+"]
    assert [r.get(rate) for r in records] == ["73.6%", "60.0%", "93.0%", "88.1%", "51.2%"]
    assert "Response Rate" not in [v for r in records for v in r.values()]
    page = _supplier(SUPPLIERS)
    w = scrapy_records.induce([("https://shop.example/a", page), ("https://shop.example/b", page)])
    other = [
        ("Teak bench", None, None, "40.0%"),
        ("Elm stool", "7 Transactions(6 months)", "5,000+", "66.6%"),
        ("Ash bed", "2 Transactions(6 months)", "1,000+", "12.5%"),
    ]
    wrapped = [
        dict(r.fields) for r in w.extract(_supplier(other), "https://shop.example/c").records
    ]
    assert [r.get(rate) for r in wrapped] == ["40.0%", "66.6%", "12.5%"]
    assert [r.get(volume) for r in wrapped] == [None, "5,000+", "1,000+"]


def test_a_caption_whose_class_says_label_names_its_value_mined_and_wrapped():
    """``<div class="lab">Response Rate</div><div class="num">73.6%</div>``: the rate is
    ``response_rate``; a Bootstrap badge (``class="label"``) before a title link names no
    title."""
    page = _supplier(SUPPLIERS).replace("<h2>", "<h2><span class='label'>new</span>")
    records = mined(page)
    assert _column(records, "73.6%") == "response_rate"
    assert records[0]["title"] == "Red lamp"
    w = scrapy_records.induce([("https://shop.example/a", page), ("https://shop.example/b", page)])
    got = w.extract(page, "https://shop.example/c").records
    assert [r.fields.get("response_rate") for r in got][:2] == ["73.6%", "60.0%"]


def test_items_under_a_few_captions_in_any_order_stay_a_list():
    """Links under 'Salary Search:' or 'Learn more about working at' in either order (a
    few captions taking turns, no count that varies): one list, as before."""
    rows = []
    for k, company in enumerate(["Acme", "Globex", "Initech", "Umbrella", "Hooli"]):
        items = [
            f'<li><span class="mat">Salary Search: <a href="/s/{k}">Clerk salaries</a></span></li>',
            f'<li><span class="mat">Learn more about working at <a href="/c/{k}">{company}</a>'
            "</span></li>",
        ]
        if k % 2:
            items.reverse()
        rows.append(
            f'<div class="result"><h2><a href="/job/{k}">Clerk at {company}</a></h2>'
            f"<ul>{''.join(items[: 1 + (k % 3 > 0)])}</ul></div>"
        )
    records = mined("<html><body><div id='jobs'>" + "".join(rows) + "</div></body></html>")
    assert any(isinstance(v, list) for r in records for v in r.values())


def test_a_badge_after_a_name_in_some_records_is_its_own_column():
    people = ["Jane Roe Smith", "Li Wei Chen", "Omar Haddad", "Ana Lucia Reyes", "Tom Baker"]
    rows = "".join(
        f'<li class="review"><p class="who">{name}'
        + (' <span class="badge">Verified</span>' if k % 2 == 0 else "")
        + f'</p><p class="text">Review number {k} says the lamp is fine.</p>'
        f'<a href="/r/{k}">Permalink</a></li>'
        for k, name in enumerate(people)
    )
    records = mined(f"<html><body><ul id='reviews'>{rows}</ul></body></html>")
    names = _column(records, "Jane Roe Smith")
    assert [r.get(names) for r in records] == people
    badge = _column(records, "Verified")
    assert [r.get(badge) for r in records] == ["Verified", None, "Verified", None, "Verified"]
