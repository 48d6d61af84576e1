"""The table a user gets: whole values, names that explain themselves, one schema per
template whether a page was mined or extracted by a wrapper."""

from __future__ import annotations

import scrapy_records
from scrapy_records.fields.naming import fragment_name, glued_prefixes, label_name, token_name
from scrapy_records.fields.values import infer_column, price_label


def mined(html: str, url: str = "https://shop.example/list"):
    main = scrapy_records.extract(html, url=url).main
    assert main is not None
    return main


def mined_columns(html: str) -> dict[str, list]:
    """Each column of the main region's records: its name -> the records' values."""
    main = mined(html)
    return {c.name: [r.fields.get(c.name) for r in main.records] for c in main.columns}


BLURB = "A short description of the item, long enough to read as text of its own."


def page(body: str) -> str:
    return f"<html><body><div id='main'>{body}</div></body></html>"


def products(start: int = 1, n: int = 4) -> str:
    return page(
        "<ul class='grid'>"
        + "".join(
            f'<li class="product pl6 col-xs-4"><a href="/p/{i}"><img src="/img/{i}.jpg"></a>'
            f'<h3 class="mt6"><a href="/p/{i}">Kettle model {i}</a></h3>'
            f'<span class="secondary-link-color">${10 + i}<sup>9{i}</sup></span>'
            f'<a class="btn" href="/cart?add={i}">Add to cart</a></li>'
            for i in range(start, start + n)
        )
        + "</ul>"
    )


def test_superscript_cents_make_one_price_and_the_duplicate_link_goes():
    main = mined(products())
    names = [c.name for c in main.columns]
    first = main.records[0].fields
    assert first["price"] == 11.91 and first["price_currency"] == "$"
    assert first["title"] == "Kettle model 1" and first["url"] == "https://shop.example/p/1"
    # the image's link is the title's link in every record: emitted once
    assert sum(1 for v in first.values() if v == "https://shop.example/p/1") == 1
    assert "Add to cart" not in first.values()  # template text, not data
    assert names == ["image", "title", "url", "price", "price_currency", "add_to_cart_url"]


def test_utility_css_tokens_are_no_names():
    for token in ("pl6", "mt6", "col-xs-4", "secondary-link-color", "a-size-base", "fz-ms"):
        assert token_name(token) is None, token
    assert token_name("s-item__price") == "price"
    assert token_name("productPadding") == "product"


def test_highlighted_search_title_is_one_value():
    results = page(
        "".join(
            f'<div class="g"><h3><a href="/r{i}">'
            f"{'<b>Python</b> tutorial' if i % 2 else 'Learn <em>python</em> fast'}"
            f" {i}</a></h3><p>Snippet <b>python</b> number {i}, a text long enough to read as a"
            f" description of the result.</p><cite>site{i}.example</cite></div>"
            for i in range(5)
        )
    )
    main = mined(results)
    titles = [r.fields["title"] for r in main.records]
    assert titles[:2] == ["Learn python fast 0", "Python tutorial 1"]
    assert [c.name for c in main.columns] == ["title", "url", "description", "source"]


def test_labels_name_values_and_are_not_values():
    rows = page(
        "".join(
            f'<div class="item"><h4>Book {i}</h4>'
            f"<div><span>Price:</span> <span>${i}.50</span></div>"
            f'<div><b>By</b> <a href="/author/{i}">Author {i}</a></div>'
            f'<a href="/book/{i}">Read more</a></div>'
            for i in range(1, 5)
        )
    )
    main = mined(rows)
    rec = main.records[0].fields
    assert rec == {
        "title": "Book 1",
        "price": 1.5,
        "price_currency": "$",
        "author": "Author 1",
        "author_url": "https://shop.example/author/1",
        "url": "https://shop.example/book/1",
    }
    assert label_name("By") == "author" and label_name("Price:") == "price"


def test_microdata_and_rdfa_names_win():
    cards = page(
        "".join(
            f'<div class="card" itemscope><span itemprop="name">Lamp {i}</span>'
            f'<span class="c1x2" itemprop="price">{i}.99</span>'
            f'<span property="schema:brand">Acme {i}</span></div>'
            for i in range(1, 5)
        )
    )
    main = mined(cards)
    assert [(c.name, c.evidence) for c in main.columns] == [
        ("name", "itemprop"),
        ("price", "itemprop"),
        ("brand", "property"),
    ]


def test_names_do_not_depend_on_optional_fields_or_positions():
    """A page where an optional part is missing from every record names the other columns
    as a page that has it."""
    with_badge = page(
        "".join(
            f'<div class="r"><span class="badge">New</span><span class="date">2026-01-0{i}</span>'
            f'<a href="/x{i}">Thing {i}</a><span>{i} left</span></div>'
            for i in range(1, 5)
        ).replace('<span class="badge">New</span>', '<span class="badge">Sale</span>', 1)
    )
    without = page(
        "".join(
            f'<div class="r"><span class="date">2026-02-0{i}</span><a href="/y{i}">Other {i}</a>'
            f"<span>{i} left</span></div>"
            for i in range(1, 5)
        )
    )
    a = {c.name for c in mined(with_badge).columns} - {"badge"}
    b = {c.name for c in mined(without).columns}
    assert a == b == {"date", "title", "url", "text"}


def test_wrapper_pages_give_the_mined_names_and_values():
    pages = [(f"https://shop.example/list?p={k}", products(1 + 4 * k)) for k in range(3)]
    w = scrapy_records.induce(pages[:2])
    got = w.extract(pages[2][1], url=pages[2][0])
    want = mined(pages[2][1], pages[2][0])
    assert [r.fields for r in got.records] == [r.fields for r in want.records]
    assert [c.name for c in got.regions[0].columns] == [c.name for c in want.columns]


def test_style_words_with_a_shade_number_or_none_are_no_names():
    for token in ("bgc-lgray3-h", "a-spacing-none", "c-dgray2"):
        assert token_name(token) is None, token
    assert token_name("price2") == "price"


def test_a_heading_inside_the_link_makes_it_the_main_link():
    cards = page(
        "".join(
            f'<div class="c"><a href="/p/{i}"><h2>Kettle {i}</h2></a>'
            f'<div><a href="/cat/{i}">Kitchen and household appliances, see all {i} items</a>'
            f"</div></div>"
            for i in range(1, 5)
        )
    )
    rec = mined(cards).records[0].fields
    assert rec["title"] == "Kettle 1" and rec["url"] == "https://shop.example/p/1"


def test_a_badge_beside_the_title_does_not_rename_it():
    """A short constant text next to the title link ("web") is no label of the title: on a
    page where it varies it is a column of its own, and the title stays the title."""
    rows = page(
        "".join(
            f'<div class="res"><h3><div class="kind">web</div><a href="/doc/{i}">Document {i}'
            f'</a></h3><div class="addr"><a href="/doc/{i}?src">site.example/doc/{i}</a></div>'
            f"<p>Snippet of document {i}, long enough to read as its description.</p></div>"
            for i in range(1, 5)
        )
    )
    main = mined(rows)
    rec = main.records[0].fields
    assert rec["title"] == "Document 1" and rec["url"] == "https://shop.example/doc/1"
    assert "web" not in rec.values() and "web" not in [c.name for c in main.columns]


def test_attribute_texts_name_columns_only_when_records_share_them():
    rows = page(
        "".join(
            f'<div class="r"><a href="/p/{i}">Item number {i} of the list</a>'
            f'<img alt="Product details" src="/i/{i}.jpg"><p>{BLURB}</p>'
            + (f'<span aria-label="Ends Thursday 0:3{i}">0:3{i}</span>' if i == 1 else "")
            + "</div>"
            for i in range(1, 7)
        )
    )
    names = {c.name for c in mined(rows).columns}
    assert "image" in names and not any("details" in n or "ends" in n for n in names)


def test_a_class_that_says_the_type_names_the_column_whatever_its_values():
    """A date column whose values all parse on one page and not on another keeps one
    name: its class says what it is."""

    def news(dates):
        return page(
            "".join(
                f'<div class="story"><a href="/s/{i}">Story number {i}</a><p>{BLURB}</p>'
                f'<span class="article-time">{d}</span></div>'
                for i, d in enumerate(dates)
            )
        )

    pages = [
        news(["5 Jan 2017", "6 Jan 2017", "7 Jan 2017", "8 Jan 2017"]),
        news(["5 Jan 2017", "Breaking", "7 Jan 2017", "8 Jan 2017"]),
        news(["9 Jan 2017", "10 Jan 2017", "11 Jan 2017", "12 Jan 2017"]),
    ]
    typed, text = mined(pages[0]), mined(pages[1])
    assert [c.name for c in typed.columns if c.type == "date"] == ["article_time"]
    assert "article_time" in [c.name for c in text.columns]
    # a wrapper from both pages reads the column as text, what both pages agree on
    urls = [f"https://news.example/s?p={k}" for k in range(3)]
    w = scrapy_records.induce(list(zip(urls[:2], pages[:2])))
    got = w.extract(pages[2], url=urls[2]).records[0].fields
    assert got["article_time"] == "9 Jan 2017"


def test_the_fullest_of_two_prices_keeps_the_plain_name():
    def shop(with_old):
        return page(
            "".join(
                f'<div class="p"><a href="/p/{i}">Lamp number {i}</a><p>{BLURB}</p>'
                f'<span class="amount">${i}.99</span>'
                + (f'<span class="was">${i + 5}.99</span>' if with_old and i == 2 else "")
                + "</div>"
                for i in range(1, 7)
            )
        )

    assert {c.name for c in mined(shop(True)).columns} >= {"price", "was_price"}
    assert "price" in {c.name for c in mined(shop(False)).columns}


def test_icons_separators_and_redundant_links_are_no_columns():
    rows = page(
        "".join(
            '<div class="r">'
            + (f'<a href="/p/{i}"><img src="/thumb/{i}.jpg"></a>' if i % 2 else "")
            + f'<h3><a href="/p/{i}">Item {i}</a></h3>'
            + ('<img src="/icons/hot.png"> <span>-</span>' if i != 2 else "")
            + f"<span>{i} sold</span></div>"
            for i in range(1, 6)
        )
    )
    main = mined(rows)
    values = [v for r in main.records for v in r.fields.values()]
    assert "-" not in values and not any("hot.png" in str(v) for v in values)
    # the thumbnail's link goes where the title's does: one url column
    assert sum(1 for c in main.columns if c.type == "url") == 1


def test_cents_in_a_superscript_after_markup_whitespace_make_one_price():
    from lxml import etree

    from scrapy_records.fields.text import inline_text

    offer = '<span class="offer">\n  <sup>$</sup>\n  <span>14</span>\n  <sup>99</sup>\n</span>'
    assert inline_text(etree.fromstring(offer)) == "$ 14.99"


def test_a_price_written_in_pieces_is_one_price_column_mined_and_wrapped():
    """Amazon's '<sup>$</sup> <span>62</span> <sup>99</sup>' with no text of its own
    around the pieces: one price (62.99) and its currency, not price_whole and
    price_fractional."""
    import scrapy_records

    def shop(offset: int) -> str:
        return page(
            "".join(
                f"<div class='r'><h3><a href='/p/{i}'>Product {i} with a name</a></h3>"
                "<span class='sx-price'><sup class='sx-price-currency'>$</sup> "
                f"<span class='sx-price-whole'>{20 + i}</span> "
                f"<sup class='sx-price-fractional'>{50 + i}</sup></span></div>"
                for i in range(offset, offset + 8)
            )
        )

    main = mined(shop(0))
    assert [c.name for c in main.columns] == ["title", "url", "price", "price_currency"]
    assert main.records[1].fields["price"] == 21.51
    w = scrapy_records.induce(
        [("https://shop.example/1", shop(0)), ("https://shop.example/2", shop(8))]
    )
    got = w.extract(shop(16), url="https://shop.example/3").records[0].fields
    assert got["price"] == 36.66 and got["price_currency"] == "$"


def test_a_label_that_starts_most_records_lists_names_the_list_and_is_no_item():
    """'by' before one to three authors (the same tag and class as the authors): the
    list is the authors, named author, mined and wrapped alike."""
    import scrapy_records

    def books(offset: int) -> str:
        rows = []
        for i in range(offset, offset + 9):
            authors = "".join(f"<span class='s'>Author {i}{k}</span>" for k in range(1 + i % 3))
            by = f"<span class='s'>by</span>{authors}" if i % 4 else "<span class='s'>Anon</span>"
            rows.append(
                f"<div class='r'><h3><a href='/p/{i}'>Book number {i}</a></h3>"
                f"<div class='by'>{by}</div><p>About book {i}</p></div>"
            )
        return page("".join(rows))

    main = mined(books(0))
    assert main.records[1].fields["author"] == ["Author 10", "Author 11"]
    assert main.records[0].fields["author"] == ["Anon"]
    w = scrapy_records.induce(
        [("https://b.example/1", books(0)), ("https://b.example/2", books(9))]
    )
    got = w.extract(books(18), url="https://b.example/3").records
    assert got[1].fields["author"] == ["Author 190", "Author 191"]


def verse_page(words: list[str]) -> str:
    return page(
        "".join(
            f'<article class="v"><div class="ref"><a href="/v/{i}">Verse {i}</a></div>'
            f'<div class="text">\nThen the <span>Lord</span> God made a <b>{w}</b>, and the'
            f" {w} was glad.<div class='extras'><a href='/ctx/{i}'>In Context</a> | "
            f"<a href='/ch/{i}'>Full Chapter</a></div></div></article>"
            for i, w in enumerate(words)
        )
    )


def test_text_before_a_block_is_one_whole_value_a_wrapper_reads_too():
    """A text run that shares its element with a block of links reads as a browser shows
    it (no space inside "woman,") and gets an XPath: the wrapper emits the column."""
    pages = [verse_page(["woman", "man", "tree", "garden"]), verse_page(["sea", "sky", "day"])]
    main = mined(pages[0])
    col = next(c for c in main.columns if c.name == "description")
    want = "Then the Lord God made a woman, and the woman was glad."
    assert main.records[0].fields["description"] == want
    assert col.xpath and col.xpath.startswith("substring-before(")
    urls = ["https://bible.example/s?q=1", "https://bible.example/s?q=2"]
    w = scrapy_records.induce(list(zip(urls, pages)))
    got = w.extract(verse_page(["bird", "fish"]), url="https://bible.example/s?q=3")
    want = "Then the Lord God made a fish, and the fish was glad."
    assert got.records[1].fields["description"] == want


def test_a_column_under_a_tag_xpath_cannot_spell_still_gets_a_valid_xpath():
    rows = page(
        "<table>"
        + "".join(
            f'<tr><td><b><a href="/r/{i}">Result <class=highlight>term</class=highlight> {i}'
            f"</a></b><span>{BLURB}</span></td></tr>"
            for i in range(1, 6)
        )
        + "</table>"
    )
    p = scrapy_records.Page(rows, "https://shop.example/s")
    main = scrapy_records.extract(p).main
    assert main is not None
    w = scrapy_records.Wrapper.from_region(main, p)  # every column XPath compiles and reads
    assert [r.fields for r in w.extract(p).records] == [r.fields for r in main.records]


def test_a_wrapper_finds_the_records_when_a_page_wraps_them_once_more():
    def board(k: int, extra: bool) -> str:
        items = "".join(
            f'<div class="grid-item"><a href="/h/{k}{i}">Home number {k}{i}</a><p>{BLURB}</p>'
            f'<span class="count">{i} saves</span></div>'
            for i in range(1, 7)
        )
        return page(f'<div id="digs">{"<div>" + items + "</div>" if extra else items}</div>')

    urls = [f"https://homes.example/b?p={k}" for k in range(3)]
    w = scrapy_records.induce([(urls[0], board(0, False)), (urls[1], board(1, False))])
    got = w.extract(board(2, True), url=urls[2])
    assert len(got.records) == 6 and got.records[0].fields["title"] == "Home number 21"


def test_a_rare_part_before_the_main_one_does_not_take_its_name():
    def shop(bundle: bool, link: bool) -> str:
        a, end = ('<a href="/p/{i}">', "</a>") if link else ("<div>", "</div>")
        return page(
            "".join(
                f'<div class="p">{a.format(i=i)}'
                + (
                    f'<div><span class="name">Set part {i}</span>'
                    f'<span class="cost">$1.{i}0</span></div>'
                    if bundle and i == 2
                    else ""
                )
                + f'<span class="name">Chair number {i}</span>{end}<p>{BLURB}</p></div>'
                for i in range(1, 7)
            )
        )

    with_bundle = mined(shop(True, False))
    assert with_bundle.records[0].fields["name"] == "Chair number 1"
    assert with_bundle.records[1].fields["name_2"] == "Set part 2"
    assert mined(shop(False, False)).records[0].fields["name"] == "Chair number 1"
    # inside the record's link the rare part does not change which text is the link's
    for bundle in (True, False):
        assert mined(shop(bundle, True)).records[0].fields["title"] == "Chair number 1"


def test_a_date_keeps_the_text_the_page_wrote_beside_its_iso_value():
    def news(dates: list[str]) -> str:
        return page(
            "".join(
                f'<div class="story"><a href="/s/{i}">Story number {i}</a><p>{BLURB}</p>'
                f"<span>{d}</span></div>"
                for i, d in enumerate(dates)
            )
        )

    written = mined(news(["February 14, 2017", "March 1, 2017", "May 3, 2016"]))
    rec = written.records[0].fields
    assert rec["date"] == "2017-02-14" and rec["date_raw"] == "February 14, 2017"
    iso = mined(news(["2017-02-14", "2017-03-01", "2016-05-03"]))
    assert "date_raw" not in [c.name for c in iso.columns]  # it would say nothing new
    urls = [f"https://news.example/s?p={k}" for k in range(3)]
    pages = [news(["Jan 5, 2017", "Jan 6, 2017"]), news(["Feb 1, 2017", "Feb 2, 2017"])]
    w = scrapy_records.induce(list(zip(urls, pages)))
    got = w.extract(news(["July 4, 2016", "July 5, 2016"]), url=urls[2]).records[0].fields
    assert (got["date"], got["date_raw"]) == ("2016-07-04", "July 4, 2016")


def test_two_blocks_of_one_class_are_two_lists_not_lists_across_them():
    genres = [["Rock", "Pop"], ["Folk"], ["Jazz", "Soul"], ["Pop"], ["Rock", "Funk", "Soul"]]
    moods = [["Calm", "Happy"], ["Sad"], ["Dark"], ["Happy", "Epic"], ["Sad"]]
    rows = page(
        "<table>"
        + "".join(
            f'<tr><td><a href="/t/{i}">Track number {i}</a><p>{BLURB}</p></td><td>'
            + "".join(
                '<div class="tags"><span>'
                + "".join(f'<a href="/tag/{w}">{w}</a> ' for w in words)
                + "</span></div>"
                for words in (g, m)
            )
            + "</td></tr>"
            for i, (g, m) in enumerate(zip(genres, moods))
        )
        + "</table>"
    )
    rec = mined(rows).records[2].fields
    lists = [v for v in rec.values() if isinstance(v, list) and not v[0].startswith("http")]
    assert lists == [["Jazz", "Soul"], ["Dark"]]


def test_a_colon_label_in_one_record_only_is_a_label():
    rows = page(
        "".join(
            f'<div class="p"><a href="/p/{i}">Radio number {i}</a><p>{BLURB}</p>'
            + (
                "<div><span>Sale ends: </span><span>February 14, 2017</span></div>"
                if i == 3
                else ""
            )
            + "</div>"
            for i in range(1, 7)
        )
    )
    rec = mined(rows).records[2].fields
    assert rec["sale_ends"] == "2017-02-14" and "Sale ends:" not in rec.values()


def test_a_varying_block_of_named_parts_is_not_read_as_one_post_body():
    """Listings whose price block varies (a unit price, postage, watchers, a link or not)
    keep price and postage apart: the block's parts carry the site's classes, a post
    body's paragraphs do not."""
    hot = [
        '<div class="hot"><div class="signal"> {i} watching</div></div>',
        '<div class="hot"></div>',
    ]
    rows = page(
        "".join(
            f'<div class="r"><h3><a href="/i/{i}">Item number {i}</a></h3><p>{BLURB}</p>'
            + (
                '<ul class="prices"><li class="price"><span class="bold"> £{i}.99</span>'
                + ('<div class="ppu">(£{i}.99/Unit)</div>' if i % 3 == 1 else "")
                + '</li><li class="format"><span><span class="bin"></span></span></li>'
                + (
                    '<li class="shipping"><span class="ship"><span class="fee"> + £{i}.50 postage'
                    "</span></span></li>"
                    if i % 3 == 0
                    else ""
                )
                + f'<li class="extras">{hot[i % 2]}</li>'
                + (
                    '<div class="links"><a href="/more/{i}">See more</a></div>'
                    if i % 4 == 3
                    else ""
                )
                + "</ul></div>"
            ).format(i=i)
            for i in range(12)
        )
    )
    rec = mined(rows).records[0].fields
    assert rec["price"] == 0.99 and rec["postage"] == "+ £0.50 postage"


def test_text_a_browser_does_not_draw_does_not_extend_a_visible_value():
    """Screen-reader-only and hidden spans inside a value are left out (not those a wider
    screen shows); a value that is only such text keeps it (it is all the page says)."""
    items = "".join(
        f'<li class="item"><h3><a href="/b/{i}">Business law volume {i}'
        f' <span class="d-none d-md-inline">hardcover</span>'
        f' <span class="sr-only is-hidden">already viewed</span>'
        f'<span style="display:none">tracking {i}</span></a></h3>'
        f'<span class="stars"><span class="visually-hidden">{i} of 5 stars</span></span>'
        f"<p>{BLURB}</p></li>"
        for i in range(1, 5)
    )
    main = mined(page(f"<ul>{items}</ul>"))
    first = main.records[0].fields
    assert first["title"] == "Business law volume 1 hardcover"
    assert "1 of 5 stars" in first.values()


def test_a_dash_set_off_by_spaces_is_a_separator_not_part_of_the_value():
    """ "Author - Feb 3, 2017" and "Politics —": the dash between two parts belongs to
    neither; a dash touching a word stays."""
    items = "".join(
        f'<li class="hit"><h3><a href="/a/{i}">Story number {i}</a></h3>'
        f'<p class="meta"><a href="/u/{i}">Writer {i}</a> - Feb {i}, 2017</p>'
        f'<p class="flag">{("Politics", "Sport")[i % 2]} —</p><span class="code">X-{i}</span>'
        f"<p>{BLURB}</p></li>"
        for i in range(1, 5)
    )
    first = mined(page(f"<ul>{items}</ul>")).records[0].fields
    values = [str(v) for v in first.values()]
    assert "Feb 1, 2017" in values and "Sport" in values and "X-1" in values


def _shop(prices: list[str], notes: bool, cls: str) -> str:
    items = "".join(
        f'<li class="item"><h3><a href="/p/{i}">Garden chair model {i}</a></h3>'
        f'<div class="{cls}"><span class="bold">{p}</span>'
        + (f'<div class="unit">({p}/unit)</div>' if notes and i % 2 else "")
        + f"</div><p>{BLURB}</p></li>"
        for i, p in enumerate(prices)
    )
    return page(f"<ul>{items}</ul>")


def _name_of(main, value: str) -> str:
    first = main.records[0].fields
    names = [k for k, v in first.items() if str(v).endswith(value)]
    assert names, first
    return names[0]


def test_a_price_column_is_named_alike_with_or_without_a_range_or_a_unit_note():
    """One "$3.15 to $9.95" among single prices keeps the column a price and its name; a
    note beside the price inside the price block does not take the block's class name from
    the price."""
    single = ["$12.00", "$8.50", "$30.00", "$14.25"]
    with_range = ["$12.00", "$3.15 to $9.95", "$30.00", "$14.25", "$7.00"]
    a = mined(_shop(single, True, "itemprice"))
    b = mined(_shop(with_range, False, "itemprice"))
    assert _name_of(a, "12.0") == _name_of(b, "12.0") == "itemprice"
    c = mined(_shop(with_range, False, "box"))
    assert _name_of(c, "12.0") == "price"


def test_a_relative_date_without_digits_is_a_date_like_the_others():
    """ "an hour ago" and "a day ago" are dates as "3 hours ago" is: the column is typed
    on every page, not only on those where every post is some hours old."""
    ages = ["an hour ago", "3 hours ago", "a day ago", "2 days ago"]
    items = "".join(
        f'<li class="post"><h3><a href="/n/{i}">News story {i}</a></h3>'
        f'<span class="age">{a}</span><p>{BLURB}</p></li>'
        for i, a in enumerate(ages)
    )
    main = mined(page(f"<ul>{items}</ul>"))
    types = {c.name: c.type for c in main.columns}
    assert types.get("date") == "date" and types.get("date_raw") == "text"
    assert [r.fields["date_raw"] for r in main.records] == ages


def test_a_date_column_with_one_sponsored_byline_is_still_named_date():
    """The type needs every value to convert, the name only most of them: an ad's byline
    in the date's place keeps the column text, not nameless."""
    dates = ["3 Feb 2017", "Sponsored by Acme", "1 Feb 2017", "30 Jan 2017", "29 Jan 2017"]
    items = "".join(
        f'<li class="story"><h3><a href="/n/{i}">News story {i}</a></h3>'
        f'<span class="meta">{d}</span><p>{BLURB}</p></li>'
        for i, d in enumerate(dates)
    )
    main = mined(page(f"<ul>{items}</ul>"))
    col = next(c for c in main.columns if main.records[0].fields.get(c.name) == dates[0])
    assert col.name == "date" and col.type == "text"


def test_a_swatch_titled_with_its_own_colour_is_not_named_after_the_colour():
    """Samsung's product cards: each colour is a button titled with the colour it shows.
    A ``title`` the records share names a column only when it is not the column's value."""
    colours = [["grey", "white"], ["grey", "white", "gold"], ["black", "grey"], ["grey", "white"]]
    html = page(
        "<ul class='results'>"
        + "".join(
            f"<li class='product'><h3><a href='/p/{i}'>Galaxy Tab model {i}</a></h3>"
            f"<p>{BLURB}</p><ul class='swatches'>"
            + "".join(f"<li><button title='{c}'><span>{c}</span></button></li>" for c in cs)
            + "</ul></li>"
            for i, cs in enumerate(colours)
        )
        + "</ul>"
    )
    main = mined(html)
    names = [c.name for c in main.columns]
    assert not {"grey", "white", "black", "gold"} & set(names)
    assert names[:2] == ["title", "url"]
    assert main.records[1].fields["title"] == "Galaxy Tab model 1"
    # a title that is no value of the column still names it
    labelled = html.replace("<span>grey</span>", "<span>Colour 1</span>")
    assert "grey" in [c.name for c in mined(labelled).columns]


def test_the_and_between_two_linked_authors_is_no_author():
    """Amazon's results: "by <span>Kevin Starr</span>" in most records, "by <span><a>Alan
    Lomax</a> and </span><span><a>World Library</a></span>" in one. The span's own text
    there is the "and" between two links: layout, not the author."""

    def item(i: int, linked: bool) -> str:
        by = (
            f"<span><a href='/a/{i}'>Alan Lomax {i}</a> and </span>"
            f"<span><a href='/b/{i}'>World Library {i}</a></span>"
            if linked
            else f"<span>Kevin Starr {i}</span>"
        )
        return (
            f"<li class='r'><h3><a href='/p/{i}'>Album number {i}</a></h3>"
            f"<div class='by'><span>by </span>{by}</div><p>{BLURB} {i}</p></li>"
        )

    main = mined(page("<ul>" + "".join(item(i, i == 2) for i in range(6)) + "</ul>"))
    values = [v for rec in main.records for v in rec.fields.values()]
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    assert "and" not in flat
    assert any(str(x).startswith("Kevin Starr 0") for x in flat)


def _byline_page(bylines: list[str]) -> str:
    return page(
        "<ol class='results'>"
        + "".join(
            f"<li class='result'><h3><a href='/story/{i}'>Story headline number {i}</a></h3>"
            f"<div class='meta subtext'>{b}</div><p>{BLURB} {i}</p></li>"
            for i, b in enumerate(bylines)
        )
        + "</ol>"
    )


def test_a_byline_label_written_two_ways_names_the_author_and_is_no_value():
    """Indianexpress: "Written by <a>Name</a>" in some records, "By: <a>Agency</a>" in
    others. One label in two spellings: template, and it names the link ``author``."""
    bylines = [
        f"{label} <a href='/people/{i}'>Person {i}</a> - May {i + 1}, 2016"
        for i, label in enumerate(["Written by", "By:", "Written by", "By:", "By:"])
    ]
    main = mined(_byline_page(bylines))
    names = [c.name for c in main.columns]
    assert "author" in names and "author_url" in names
    flat = [v for rec in main.records for v in rec.fields.values()]
    assert "Written by" not in flat and "By:" not in flat
    assert main.records[1].fields["author"] == "Person 1"
    # a phrase ending in "by" names the author too; "Sold by" stays a seller
    assert label_name("Blog Entry By") == "author" and label_name("Sold by") == "seller"


def test_a_byline_label_that_holds_its_value_gives_the_value_to_the_author_column():
    """Psychologytoday: "Blog Entry By <a>Name</a> - date" in most records, the same line
    as one text without the link in others. Those records keep their author text."""
    bylines = [
        f"Blog Entry By <a href='/experts/{i}'>Expert {i}</a> - Jun {i + 1}, 2014" for i in range(5)
    ]
    bylines[2] = "Blog Entry By Pamela Madsen - Jun 18, 2014"
    bylines[4] = "Article By <a href='/experts/4'>Expert 4</a> - Jun 5, 2014"
    bylines.append("Article By <a href='/experts/5'>Expert 5</a> - Jun 6, 2014")
    main = mined(_byline_page(bylines))
    authors = [rec.fields.get("author") for rec in main.records]
    assert authors[0] == "Expert 0" and authors[4] == "Expert 4"
    assert authors[2] == "Pamela Madsen - Jun 18, 2014"
    flat = [v for rec in main.records for v in rec.fields.values()]
    assert "Blog Entry By" not in flat and "Article By" not in flat


def test_a_checkbox_caption_names_no_value():
    """Ikea: "<label for=compare_N>Compare</label>" beside the last dimension. A form
    control's caption names nothing: the dimension keeps its own name."""
    html = page(
        "<div class='results'>"
        + "".join(
            f"<div class='product'><a href='/p/{i}'><span class='prodName'>Shelf {i}</span>"
            f"<span class='prodPrice'>${20 + i}.00</span></a><div class='dims'>"
            f"<span class='dim'>Width: {30 + i} cm</span><span class='dim'>Depth: {i + 9} cm</span>"
            f"<span class='dim'>Height: {i + 40} cm</span>"
            f"<div class='compare'><input id='c{i}' type='checkbox'>"
            f"<label for='c{i}'>Compare</label></div><div class='buttons'><a href='/cart/{i}'>"
            f"<div class='caption'>{'Buy online' if i % 2 else 'In store only'}</div></a></div>"
            "</div></div>"
            for i in range(5)
        )
        + "</div>"
    )
    main = mined(html)
    names = [c.name for c in main.columns]
    assert "compare" not in names
    flat = [x for v in main.records[2].fields.values() for x in (v if isinstance(v, list) else [v])]
    assert "Height: 42 cm" in flat


def _pack_shop(start: int, packs: dict[int, str]) -> str:
    return page(
        "<ul class='grid'>"
        + "".join(
            f"<li class='product'><h3><a href='/p/{i}'>Storage box model {i}</a></h3>"
            f"<span class='prodPrice'>${10 + i}.00{packs.get(i, '')}</span><p>{BLURB}</p></li>"
            for i in range(start, start + 6)
        )
        + "</ul>"
    )


def test_a_price_with_a_unit_note_stays_a_price_and_keeps_its_note_mined_and_wrapped():
    """Ikea: "$10.00 /2 pack" among plain prices made the whole column text ("$249.00").
    The amount is the price; the note is the ``<name>_unit`` column, mined and wrapped."""
    first = _pack_shop(1, {3: " /2 pack"})
    main = mined(first)
    types = {c.name: c.type for c in main.columns}
    assert types["price"] == "price"
    rec = main.records[2].fields
    assert (rec["price"], rec["price_currency"], rec["price_unit"]) == (
        13.0,
        "$",
        "2 pack",
    )
    assert "price_unit" not in main.records[0].fields
    second = _pack_shop(21, {24: "/lb"})
    w = scrapy_records.induce(
        [("https://shop.example/a", first), ("https://shop.example/b", second)]
    )
    got = w.extract(_pack_shop(41, {42: " per kg"}), url="https://shop.example/c").records
    assert got[1].fields["price"] == 52.0 and got[1].fields["price_unit"] == "kg"
    assert "price_unit" not in got[0].fields


def test_a_price_range_stays_a_price_with_its_high_end_beside_it_mined_and_wrapped():
    """eBay: one "£2.99 to £8.99" among plain prices made that page's price column text,
    while the template's other pages had typed prices. The low end is the price, the high
    end the ``<name>_max`` column (a price), mined and wrapped."""
    first = _pack_shop(1, {3: " - $19.00"})
    main = mined(first)
    types = {c.name: c.type for c in main.columns}
    assert types["price"] == "price" and types["price_max"] == "price"
    rec = main.records[2].fields
    assert (rec["price"], rec["price_max"], rec["price_currency"]) == (
        13.0,
        19.0,
        "$",
    )
    assert "price_max" not in main.records[0].fields
    w = scrapy_records.induce(
        [("https://shop.example/a", first), ("https://shop.example/b", _pack_shop(21, {}))]
    )
    got = w.extract(_pack_shop(41, {42: " to $60.00"}), url="https://shop.example/c").records
    assert (got[1].fields["price"], got[1].fields["price_max"]) == (52.0, 60.0)
    assert "price_max" not in got[0].fields


def test_an_and_that_ends_an_author_before_a_linked_one_is_cut_off():
    """Amazon: "by <span>Dennis Ojima and </span><span><a>Keith Paustian</a></span>": the
    first author's text ends with the "and" that joins it to the linked second author."""

    def item(i: int) -> str:
        second = f"<span><a href='/a/{i}'>Second Author {i}</a></span>" if i % 2 else ""
        first = f"First Author {i} and " if i % 2 else f"First Author {i}"
        return (
            f"<li class='r'><h3><a href='/p/{i}'>Report number {i}</a></h3>"
            f"<div class='by'><span>by </span><span class='a1'>{first}</span>{second}</div>"
            f"<p>{BLURB} {i}</p></li>"
        )

    main = mined(page("<ul>" + "".join(item(i) for i in range(6)) + "</ul>"))
    flat = [v for rec in main.records for v in rec.fields.values()]
    assert "First Author 1" in flat and "First Author 2" in flat
    assert not any(isinstance(v, str) and v.endswith(" and") for v in flat)


def test_a_label_cell_that_changes_from_record_to_record_gives_one_column_per_label():
    """Ancestry: each record's second row is "Civil: <value>" or "Residence: <value>". The
    label is not a value: one column per label, each named after it."""
    rows = [("Civil:", "Quebec"), ("Residence:", "Ottawa"), ("Civil:", "Montreal")]
    rows += [("Residence:", "Toronto"), ("Civil:", "Halifax")]
    html = page(
        "<table><tbody>"
        + "".join(
            f"<tr class='rec'><td><a href='/r/{i}'>Society record number {i}</a></td><td>"
            f"<table><tr><td><span>Name:</span></td><td>Person {i} of the index</td></tr>"
            f"<tr><td><span>{label}</span></td><td>{value}</td></tr></table></td></tr>"
            for i, (label, value) in enumerate(rows)
        )
        + "</tbody></table>"
    )
    main = mined(html)
    names = [c.name for c in main.columns]
    assert "civil" in names and "residence" in names
    assert main.records[1].fields["residence"] == "Ottawa"
    assert (
        main.records[2].fields["civil"] == "Montreal" and "residence" not in main.records[2].fields
    )
    flat = [v for rec in main.records for v in rec.fields.values()]
    assert "Civil:" not in flat and "Residence:" not in flat


def test_long_texts_that_end_with_a_colon_are_values_not_a_label_in_two_spellings():
    notes = [
        "Everything below ships from our warehouse in two days:",
        "Everything below is made to order and ships in three weeks:",
    ]
    html = page(
        "<ul>"
        + "".join(
            f"<li class='r'><h3><a href='/p/{i}'>Garden bench model {i}</a></h3>"
            f"<p class='note'>{notes[i % 2]}</p><p>{BLURB} {i}</p></li>"
            for i in range(6)
        )
        + "</ul>"
    )
    flat = [v for rec in mined(html).records for v in rec.fields.values()]
    assert notes[0] in flat and notes[1] in flat


def test_the_heading_links_the_image_the_title_is_the_text_link_to_the_same_page():
    import scrapy_records

    cards = "".join(
        f'<li class="product"><h3><a href="/p/{i}"><img src="/img/{i}.jpg" alt=""></a></h3>'
        f'<div class="details"><span class="price">${10 + i}.50</span>'
        f'<p class="details--title"><a href="/p/{i}">Garden chair model {i}</a></p></div></li>'
        for i in range(5)
    )
    res = scrapy_records.extract(
        f"<html><body><ul>{cards}</ul></body></html>", url="https://shop.example/s"
    )
    rec = res.main.records[2].fields
    assert rec["title"] == "Garden chair model 2"
    assert rec["url"] == "https://shop.example/p/2"
    assert "details" not in rec


def test_a_bem_modifier_names_the_value_only_when_its_block_does_not():
    from scrapy_records.fields.naming import token_name

    assert token_name("details--title") == "title"  # the block says nothing, the modifier does
    assert token_name("price--sale") == "price"  # a real modifier
    assert token_name("details--messaging") == "details"


def test_a_value_microdata_names_is_data_even_when_every_record_has_the_same():
    import scrapy_records

    def jobs(town_attr: str) -> str:
        return "".join(
            f'<div class="job"><h2><a href="/j/{i}">Accountant job number {i}</a></h2>'
            f"<span {town_attr}>Edmonton, AB</span>"
            f"<p>Job {i} keeps the books of a company, a description long enough.</p></div>"
            for i in range(5)
        )

    got = scrapy_records.extract(f"<html><body>{jobs('itemprop=addressLocality')}</body></html>")
    assert [r.fields.get("address_locality") for r in got.main.records] == ["Edmonton, AB"] * 5
    plain = scrapy_records.extract(f"<html><body>{jobs('class=loc')}</body></html>")
    assert "Edmonton, AB" not in {v for r in plain.main.records for v in r.fields.values()}


def test_an_item_around_the_value_does_not_name_it():
    import scrapy_records

    cards = "".join(
        f'<li><div itemprop="itemListElement" itemscope itemtype="http://schema.org/Offer">'
        f'<a href="/p/{i}"><img src="/i/{i}.jpg"></a><h3><a href="/p/{i}">Desk lamp {i}</a></h3>'
        f'<span itemprop="price">{10 + i}.00</span></div></li>'
        for i in range(5)
    )
    rec = scrapy_records.extract(f"<html><body><ul>{cards}</ul></body></html>").main.records[0]
    assert rec.fields["image"] == "/i/0.jpg" and rec.fields["title"] == "Desk lamp 0"
    assert not any("item_list" in k for k in rec.fields)


def test_the_address_a_result_writes_out_is_display_url_not_url_2():
    import scrapy_records

    results = "".join(
        f'<div class="result"><h4><a href="https://www.health.gov/topic/{i}">Health topic '
        f'number {i}</a></h4><div class="url">www.health.gov/topic/{i}</div>'
        f"<p>About health topic {i}: a snippet long enough to read as a description.</p></div>"
        for i in range(5)
    )
    rec = scrapy_records.extract(f"<html><body>{results}</body></html>").main.records[3]
    assert rec.fields["url"] == "https://www.health.gov/topic/3"
    assert rec.fields["display_url"] == "www.health.gov/topic/3"
    assert "url_2" not in rec.fields


def test_a_class_names_the_value_without_the_sites_record_namespace():
    from scrapy_records.fields.naming import token_name

    got = [token_name(t) for t in ("search-result-title", "search_score", "prodName", "res-date")]
    assert got == ["title", "score", "name", "date"]
    assert token_name("product") == "product"  # a word alone stays
    assert token_name("item-price") == "price"


def _was_shop(start: int, label: str) -> str:
    return page(
        "".join(
            f'<div class="p"><a href="/p/{i}">Lamp number {i}</a><p>{BLURB}</p>'
            f'<span class="now">CAD {i}.99</span><span class="old">{label}&nbsp;CAD {i + 5}.49</span>'
            "</div>"
            for i in range(start, start + 6)
        )
    )


def test_a_label_written_before_a_price_names_it_and_leaves_the_value_mined_and_wrapped():
    """Target: "List CAD 277.48" beside the price was a text column ``price_2``. The word
    before the amount is its label: ``list_price`` 277.48 with ``list_price_currency``, the
    same whether the page was mined or read by a wrapper."""
    main = mined(_was_shop(1, "List"))
    rec = main.records[1].fields
    assert (rec["price"], rec["list_price"], rec["list_price_currency"]) == (2.99, 7.49, "CAD")
    assert {c.name: c.type for c in main.columns}["list_price"] == "price"
    w = scrapy_records.induce(
        [
            ("https://shop.example/a", _was_shop(1, "List")),
            ("https://shop.example/b", _was_shop(11, "List")),
        ]
    )
    got = w.extract(_was_shop(21, "List"), url="https://shop.example/c").records[0].fields
    assert (got["price"], got["list_price"], got["list_price_currency"]) == (21.99, 26.49, "CAD")
    # a label that already says "price" is the name as it stands
    assert "you_save" in {c.name for c in mined(_was_shop(1, "You Save:")).columns}


def test_a_price_named_by_a_label_of_its_own_says_it_is_a_price():
    """eBay: "Was:" in its own element before the old price named the column ``was``. A
    label that does not say it names an amount gets ``_price`` ("Was:" -> ``was_price``);
    "Postage:" stays ``postage``."""
    html = page(
        "".join(
            f'<div class="p"><a href="/p/{i}">Lamp number {i}</a><p>{BLURB}</p>'
            f'<span class="now">£{i}.99</span><span class="l">Was:</span> <span>£{i + 5}.49</span>'
            f'<span class="l">Postage:</span> <span>£{i}.50</span></div>'
            for i in range(1, 7)
        )
    )
    rec = mined(html).records[1].fields
    assert (rec["price"], rec["was_price"], rec["postage"]) == (2.99, 7.49, 2.5)


def test_a_label_opening_with_a_year_names_the_thing_first():
    """usnews: "2009 Endowment:" and "2010-2011 Tuition and Fees:" gave ``f_2009_endowment``
    and ``f_2010_2011_tuition_and_fees``; the year goes last, as a person would write it."""
    assert label_name("2009 Endowment:") == "endowment_2009"
    assert label_name("2010-2011 Tuition and Fees:") == "tuition_and_fees_2010_2011"
    assert label_name("2D barcode:") == "f_2d_barcode"  # a word that starts with a digit stays


def test_a_free_item_among_priced_ones_keeps_the_price_column_a_price():
    """Amazon: one app at "Free" among "$ 62.99"s made the whole column text; "Free" is a
    price of 0."""
    html = page(
        "".join(
            f'<div class="p"><a href="/p/{i}">Lamp number {i}</a><p>{BLURB}</p>'
            f'<span class="cost">{"Free" if i == 3 else f"$ {i}.99"}</span></div>'
            for i in range(1, 7)
        )
    )
    main = mined(html)
    assert {c.name: c.type for c in main.columns}["price"] == "price"
    assert [r.fields["price"] for r in main.records[1:4]] == [2.99, 0.0, 4.99]


def _na_shop(start: int, missing: int) -> str:
    return page(
        "".join(
            f'<div class="p"><a href="/p/{i}">Lamp number {i}</a><p>{BLURB}</p>'
            f'<span class="cost">{"N/A" if i == missing else f"${i}.99"}</span></div>'
            for i in range(start, start + 6)
        )
    )


def _byline_films() -> str:
    """Films with a year after the title in some records and "by" before a maker in
    others: the maker a link in one record, plain text in the rest, some with no maker."""
    years = ["2008", "May 1, 2008", "2005", "", "Jan 3, 2016", "1999"]

    def by(i: int) -> str:
        if i in (0, 2):
            return ""
        who = f'<a href="/maker/{i}">Maker {i}</a>' if i == 3 else f"Studio {i}"
        return f'<div><span class="small">by </span><span class="small">{who}</span></div>'

    return page(
        "".join(
            f'<div class="res"><div><a href="/p/{i}"><h2>Film number {i}</h2></a>'
            + (f'<span class="small">{years[i]}</span>' if years[i] else "")
            + "</div>"
            + by(i)
            + f"<p>Some description text long enough {i} to be a description of this item.</p>"
            + "</div>"
            for i in range(6)
        )
    )


def test_a_missing_value_written_n_a_leaves_the_price_column_a_price_mined_and_wrapped():
    """usnews: one "N/A" among endowments made the column text. "N/A" says the value is
    missing: the others type the column, that record has no price, and a wrapper reading
    such a page counts no type error (the page still fits)."""
    main = mined(_na_shop(1, 3))
    assert {c.name: c.type for c in main.columns}["price"] == "price"
    assert "price" not in main.records[2].fields and main.records[3].fields["price"] == 4.99
    w = scrapy_records.induce(
        [("https://shop.example/a", _na_shop(1, 0)), ("https://shop.example/b", _na_shop(11, 0))]
    )
    res = w.extract(_na_shop(21, 22), url="https://shop.example/c")
    region = res.regions[0]
    assert region.meta["health"]["fits"] and region.meta["health"]["type_errors"] == 0
    assert "price" not in region.records[1].fields and region.records[2].fields["price"] == 23.99


def test_by_is_a_label_of_the_value_after_it_in_every_record():
    main = mined(_byline_films())
    cols = {c.name: [r.fields.get(c.name) for r in main.records] for c in main.columns}
    # "by" is no value of its own (it was a list item after the year), and it names the
    # maker whether the maker is a link or plain text
    assert cols["author"] == [None, "Studio 1", None, "Maker 3", "Studio 4", "Studio 5"]
    assert cols["author_url"][3] == "https://shop.example/maker/3"
    assert not any("by" in str(v) for vals in cols.values() for v in vals if v)
    years = next(vals for vals in cols.values() if "1999" in vals)
    assert years[:3] == ["2008", "May 1, 2008", "2005"]


def test_a_prefix_glued_to_the_records_class_names_is_no_part_of_them():
    rows = page(
        "<ul>"
        + "".join(
            f'<li class="lvresult"><h3 class="lvtitle"><a href="/i/{i}">Game {i}</a></h3>'
            f'<div class="lvprice"><span>£{i}.95</span></div>'
            f'<div class="lvformat"><span>{f"{i} bids" if i % 2 else "Buy it now"}</span></div>'
            f'<div class="lvdetails"><span>From Spain {i}</span></div></li>'
            for i in range(1, 6)
        )
        + "</ul>"
    )
    main = mined(rows)
    assert [c.name for c in main.columns] == [
        "title",
        "url",
        "price",
        "price_currency",
        "format",
        "details",
    ]
    assert main.records[0].fields["format"] == "1 bids"
    # two consonants that start words are no glued prefix ("price", "product", "promo")
    assert glued_prefixes(["lvtitle", "lvprice", "lvformat"]) == {"lv"}
    assert glued_prefixes(["price", "product", "promo", "stock", "style", "store"]) == set()
    assert glued_prefixes(["lvtitle", "lvprice"]) == set()  # two tokens are no namespace


def test_a_charge_written_after_its_amount_names_its_column():
    postage = ["+ £3.99 postage", "Free Postage", "+ £10.96 postage", "+ £3.00 postage"]
    rows = page(
        "<ul>"
        + "".join(
            f'<li class="item"><h3><a href="/i/{i}">Game {i}</a></h3>'
            f'<span class="bold">£{i}.95</span><span class="fee">{p}</span></li>'
            for i, p in enumerate(postage, 1)
        )
        + "</ul>"
    )
    cols = mined_columns(rows)
    assert cols["postage"] == postage  # (the whole text: the word is the page's)
    assert cols["price"] == [1.95, 2.95, 3.95, 4.95]
    assert price_label("+ $3.99 shipping") == "shipping" and price_label("Free Postage")
    assert price_label("$8.73 used & new (80 offers)") is None  # no charge's name
    # an item's price and a charge in one column: neither names it
    mixed = ["$37.50", "+ $3.99 shipping", "$17.00"]
    assert infer_column(mixed)[0] == "text"


def test_a_buttons_caption_is_the_action_it_offers():
    caption = ["add to cart", "add to cart", "preorder now", "add to cart"]
    rows = page(
        "".join(
            f'<div class="tile"><a href="/p/{i}">Book number {i}</a><span>${i}.50</span>'
            '<button class="btn btn-primary btn-sm flip-active clearfix flip-plp-cart-btn">'
            f"{c}</button></div>"
            for i, c in enumerate(caption, 1)
        )
    )
    main = mined(rows)
    assert [r.fields.get("action") for r in main.records] == caption
    assert "flip" not in [c.name for c in main.columns]


def test_a_swatchs_caption_is_no_action():
    colours = [("black", "gold"), ("white", "gold"), ("black", "blue")]
    rows = page(
        "".join(
            f'<div class="tile"><a href="/p/{i}">Tablet number {i}</a>'
            + "".join(f'<button class="customizations-option">{c}</button>' for c in cs)
            + "</div>"
            for i, cs in enumerate(colours, 1)
        )
    )
    assert "action" not in [c.name for c in mined(rows).columns]


def test_a_count_on_links_to_one_fragment_is_named_by_it():
    rows = page(
        "".join(
            f'<div class="r"><h2><a href="/dp/{i}">Player model {i}</a></h2>'
            f'<span class="a-size-small">{i}.5 out of 5 stars</span>'
            f'<a class="a-size-small a-link-normal" href="/dp/{i}?ref=sr_{i}#customerReviews">'
            f"{i * 17}</a>"
            f'<a class="a-size-small" href="/dp/{i}#top-nav-bar">{BLURB} {i}</a></div>'
            for i in range(1, 5)
        )
    )
    cols = mined_columns(rows)
    assert cols["customer_reviews"] == [17, 34, 51, 68]
    assert cols["customer_reviews_url"][0] == "https://shop.example/dp/1?ref=sr_1#customerReviews"
    assert not any(name.startswith("top_nav") for name in cols)  # no field word: no name
    assert fragment_name("#comments") == "comments" and fragment_name("#top-nav-bar") is None


def test_a_price_colours_class_does_not_name_texts_without_a_currency():
    stock = ["Only 1 left in stock", "In stock on May 2", "Only 3 left in stock", "Sold out"]
    rows = page(
        "".join(
            f'<div class="r"><h2><a href="/p/{i}">Lamp model {i}</a></h2>'
            f'<span class="a-color-price">${i}.99</span>'
            f'<p><span class="a-color-price">{s}</span></p>'
            f'<p><span class="a-color-price">US ${i}-{i + 4} / Piece</span></p></div>'
            for i, s in enumerate(stock, 1)
        )
    )
    cols = mined_columns(rows)
    assert cols["price"] == [1.99, 2.99, 3.99, 4.99]
    named = [n for n, vals in cols.items() if vals == stock]
    assert named and "price" not in named[0]  # (no "price_2" of stock notes)
    ranges = [n for n, vals in cols.items() if vals[0] == "US $1-5 / Piece"]
    assert ranges and "price" in ranges[0]  # a price range with a unit keeps the name


def test_a_count_is_named_by_the_noun_it_counts():
    counts = ["71 reviews", "459 reviews", "1 review", "93 reviews"]
    tags = ["1 tag", "2 tags", "1 tag", "5 tags"]
    rows = page(
        "".join(
            f'<div class="row"><h2><a href="/job/{i}">Receptionist number {i}</a></h2>'
            f"<span>{c}</span><em>{t}</em>"
            f'<span>{i}12 KB</span><span class="comments">{i}3 comments</span></div>'
            for i, (c, t) in enumerate(zip(counts, tags), 1)
        )
    )
    cols = mined_columns(rows)
    assert cols["reviews"] == counts and cols["tags"] == tags  # whole values
    assert cols["comments"] == ["13 comments", "23 comments", "33 comments", "43 comments"]
    assert not {"kb", "kbs"} & set(cols)  # kilobytes measure, they count nothing


def test_counted_noun_reads_counts_not_sizes_or_kinds():
    from scrapy_records.fields.naming import counted_noun

    assert counted_noun(["1 reply", "3 replies"]) == "replies"
    assert counted_noun(["1,145 points", "(3) points"]) == "points"
    assert counted_noun(["3 days", "4 days"]) is None
    assert counted_noun(["4 Stroke", "6 Stroke"]) is None
    assert counted_noun(["0 bids", "Buy it now", "Buy it now"]) is None


def test_an_icon_header_names_its_column_by_the_icons_text():
    head = (
        "<tr><th>Title</th><th>Author</th>"
        '<th><a href="?sort=c"><img src="/i/comments.gif" alt="Comments"></a></th>'
        '<th><span class="icon-star" title="Recommends"></span></th></tr>'
    )
    rows = "".join(
        f'<tr><td><a href="/story/{i}">A diary of day {i}</a></td>'
        f'<td class="mid"><a href="/user/u{i}">user{i}</a></td>'
        f'<td class="mid">{3 * i}</td><td class="mid">{i + 1}</td></tr>'
        for i in range(1, 6)
    )
    main = mined(page(f"<table class='styled'>{head}{rows}</table>"))
    cols = {c.name: [r.fields.get(c.name) for r in main.records] for c in main.columns}
    assert cols["comments"] == [3, 6, 9, 12, 15]
    assert cols["recommends"] == [2, 3, 4, 5, 6]
    assert "mid" not in cols


def test_an_address_written_out_under_a_result_is_display_url_whatever_its_class():
    hosts = ["www.wikihow.com/Start-a-Business", "webbusiness.com", "www.web.com/default2.aspx"]
    rows = page(
        "".join(
            f'<div class="algo"><h3><a href="https://r.search.example/{i}">Result number {i}</a>'
            f'</h3><span class="comp title">{h}</span><p>{BLURB}</p></div>'
            for i, h in enumerate(hosts * 2)
        )
    )
    cols = mined_columns(rows)
    assert cols["display_url"] == hosts * 2
    assert not any(n.startswith("comp") for n in cols)


def test_share_links_are_the_pages_widget_not_fields():
    rows = page(
        "".join(
            f'<article class="card"><h3><a href="/story/{i}">Story number {i}</a></h3>'
            f"<p>{BLURB}</p>"
            f'<a class="button" href="mailto:?subject=Story%20{i}&amp;body=/story/{i}">Mail</a>'
            f'<a href="https://www.facebook.com/sharer/sharer.php?u=/story/{i}">Share</a>'
            f'<a href="/author/a{i}">Author {i}</a></article>'
            for i in range(1, 5)
        )
    )
    main = mined(rows)
    values = [str(v) for r in main.records for v in r.fields.values()]
    assert not any("mailto:" in v or "sharer" in v for v in values)
    assert [r.fields.get("title") for r in main.records][:2] == ["Story number 1", "Story number 2"]
    assert any(v.endswith("/author/a1") for v in values)


def test_unnamed_columns_are_named_by_what_their_values_are():
    from scrapy_records.fields.naming import is_written_address, shape_name

    sizes = ["19.8KB", "4.1KB", "288K", "3282 bytes"]
    scores = ["97%", "95%", "94%", "91%"]
    rows = page(
        "".join(
            f"<table><tr><td>{i}.</td><td><a href='/doc/{i}'>Admission guide part {i}</a>"
            f"<br>{BLURB} {i}<br><font>www.uni.example/admission/{i}/ -</font>"
            f"<font>{s}</font><font>{p}</font></td></tr></table>"
            for i, (s, p) in enumerate(zip(sizes, scores), 1)
        )
    )
    cols = mined_columns(rows)
    assert cols["rank"] == ["1.", "2.", "3.", "4."]
    assert cols["size"] == sizes and cols["percent"] == scores
    assert cols["display_url"][0].startswith("www.uni.example/admission/1/")
    assert shape_name(["15:50", "9:09 pm", "08:55"]) == "time"
    assert shape_name(["1.", "1.", "2."]) is None  # no count up: no rank
    assert shape_name(["Paperback", "Hardcover"]) is None
    # Google's address and size, an address cut short: still the address written out
    assert is_written_address(["www.cmu.edu/admission/ - 14k", "www.cmu.edu/grad.html - 16k"])
    assert is_written_address(["www.omnis.com...", "order.1and1.com...", "www.dnbuy.com..."])
    assert not is_written_address(["Node.js", "Vue.js"])


def test_an_action_some_records_offer_is_a_caption_not_a_column():
    rows = page(
        "".join(
            '<li class="it">'
            + (f'<p><a class="src" href="/home/{i}">Home from Zillow</a></p>' if i < 4 else "")
            + f'<h3><a href="/i/{i}">Board game number {i}</a></h3><span>£{i}.95</span>'
            + (f'<a class="more" href="/similar?i={i}">See more like this</a>' if i % 2 else "")
            + "</li>"
            for i in range(1, 7)
        )
    )
    cols = mined_columns(f"<ul>{rows}</ul>")
    assert not any(v == "See more like this" for vals in cols.values() for v in vals)
    assert cols["see_more_like_this_url"][0] == "https://shop.example/similar?i=1"
    # a caption that names no action tells the records that show it apart: a column
    assert any(v == "Home from Zillow" for vals in cols.values() for v in vals)


def test_abbreviated_class_and_rdfa_words_are_written_out():
    assert token_name("article-desc") == "article_description"
    assert token_name("prev-price") == "previous_price"
    assert token_name("new_img") == "new_image"  # no "new_img_image"
    from scrapy_records.fields.naming import property_name

    assert property_name("f:durl") == "display_url"
    assert property_name("catalogNumber") == "catalog_number"  # whole words only
    html = page(
        "".join(
            f'<div class="res"><h3><a href="/doc/{i}">Regional housing office {i}</a></h3>'
            f'<p class="desc">Office {i} helps with applications, a text long enough here.</p>'
            f'<span class="qty">{i + 2} left</span></div>'
            for i in range(1, 6)
        )
    )
    cols = mined_columns(html)
    assert cols["description"][0].startswith("Office 1 helps")
    assert cols["quantity"] == [f"{i + 2} left" for i in range(1, 6)]
    assert not {"desc", "qty"} & set(cols)


def test_rdfa_url_on_other_links_names_neither_their_captions_nor_the_main_url():
    """A result whose title link and sitelinks all carry ``property="f:url"``-style RDFa:
    the record's link is ``url``, the sitelinks are named by their block, their captions
    are no "display_url" (they are no addresses)."""
    html = page(
        "".join(
            f'<li class="result"><h3><a property="f:title" href="https://org{i}.example/">'
            f"Regional housing office {i}</a></h3>"
            f'<p property="f:desc">Office {i} helps with applications, a text long enough.</p>'
            f'<div class="sitelinks"><a property="f:url" href="https://org{i}.example/apply">'
            f'Apply at office {i}</a> <a property="f:url" href="https://org{i}.example/units">'
            f"Find a unit {i}</a></div></li>"
            for i in range(1, 6)
        )
    )
    cols = mined_columns(html)
    assert cols["url"] == [f"https://org{i}.example/" for i in range(1, 6)]
    assert cols["description"][0].startswith("Office 1 helps")
    assert "display_url" not in cols
    assert (cols["sitelinks"][0], cols["sitelinks_2"][0]) == ("Apply at office 1", "Find a unit 1")
    assert cols["sitelinks_url"][0] == "https://org1.example/apply"  # not "sitelinks"
    assert cols["sitelinks_url_2"][0] == "https://org1.example/units"


def json_ld_shop(n: int = 5) -> str:
    import json

    items = [
        {
            "@type": "ListItem",
            "position": i,
            "item": {
                "@type": "Product",
                "name": f"Kettle model {i}",
                "url": f"/p/{i}",
                "brand": {"@type": "Brand", "name": f"Acme {i % 2}"},
                "offers": {"@type": "Offer", "price": f"{10 + i}.97", "priceCurrency": "USD"},
                "aggregateRating": {"@type": "AggregateRating", "ratingValue": 3 + i / 10},
            },
        }
        for i in range(1, n + 1)
    ]
    doc = {"@context": "https://schema.org", "@type": "ItemList", "itemListElement": items}
    cards = "".join(
        f'<div class="c7 x1"><a class="k2" href="/p/{i}">Kettle model {i}</a>'
        f'<span class="q9">Acme {i % 2}</span><span class="q3">${10 + i}.97</span>'
        f'<span class="q4">{3 + i / 10}</span></div>'
        for i in range(1, n + 1)
    )
    return (
        f'<html><head><script type="application/ld+json">{json.dumps(doc)}</script></head>'
        f"<body><div id='main'>{cards}</div></body></html>"
    )


def test_json_ld_items_name_the_columns_their_values_fill():
    main = mined(json_ld_shop())
    cols = {c.name: c for c in main.columns}
    assert {"name", "url", "brand", "price", "rating"} <= set(cols), list(cols)
    assert cols["brand"].evidence == "json-ld" and cols["rating"].evidence == "json-ld"
    assert [r.fields["brand"] for r in main.records][:2] == ["Acme 1", "Acme 0"]
    assert [r.fields["price"] for r in main.records][:2] == [11.97, 12.97]
    assert main.records[0].fields["url"] == "https://shop.example/p/1"
    # a wrapper from two such pages gives a third the names mining gives it
    pages = [(f"https://shop.example/list?p={k}", json_ld_shop(4 + k)) for k in range(3)]
    w = scrapy_records.induce(pages[:2])
    got = w.extract(pages[2][1], url=pages[2][0])
    assert [c.name for c in got.regions[0].columns] == [c.name for c in mined(pages[2][1]).columns]
    assert [r.fields for r in got.records] == [r.fields for r in mined(pages[2][1]).records]


def test_json_ld_that_describes_only_the_page_names_nothing():
    import json

    page_doc = json.dumps({"@context": "https://schema.org", "@type": "WebPage", "name": "Kettles"})
    head, body = json_ld_shop().split("</head>", 1)
    lists, _ = head.split("</script>", 1)
    scripts = (
        f'<script type="application/ld+json">{page_doc}</script>'
        '<script type="application/ld+json">{"@type": "Product", not json</script>'
    )
    both = mined(f"{lists}</script>{scripts}</head>{body}")  # the list still names
    assert {"brand", "rating"} <= {c.name for c in both.columns}
    only_page = mined(f"<html><head>{scripts}</head>{body}")
    assert not {"brand", "rating"} & {c.name for c in only_page.columns}


def test_hostile_json_ld_is_skipped_and_the_page_still_mines():
    deep = "[" * 200_000 + "]" * 200_000  # past the JSON parser's stack
    head, body = json_ld_shop().split("</head>", 1)
    html = f'<html><head><script type="application/ld+json">{deep}</script></head>{body}'
    main = mined(html)
    assert len(main.records) == 5
    assert "brand" not in {c.name for c in main.columns}


def test_a_part_repeating_a_field_in_two_variants_is_no_column_of_its_own():
    """The company is a link in some records and plain text in others (one column); a
    hidden menu repeats it ("Learn more about working at Acme") in the linked ones, once
    in other capitals: no second column."""

    def job(i: int) -> str:
        linked = i in (2, 3, 6, 7, 8)
        name = f'<a href="/cmp/{i}">Company {i} Ltd</a>' if linked else f"Company {i} Ltd"
        learn = (
            f'<li><span class="mat">Learn more about working at <a href="/cmp/{i}">'
            f"Company {i} {'LTD' if i == 3 else 'Ltd'}</a></span></li>"
            if linked
            else ""
        )
        return (
            f'<div class="job"><h2><a href="/j/{i}">Accountant number {i}</a></h2>'
            f'<div class="sjcl"><span class="company">{name}</span></div>'
            f'<span class="location">Town {i}</span><table><tr><td class="snip">'
            f'<span class="summary">Job {i} keeps the books of a company, long enough.</span>'
            f'</td></tr></table><div class="tabs"><div style="display:none"><ul>'
            f'<li><span class="mat">View all <a href="/q/{i}">Company {i} Ltd jobs</a></span>'
            f'</li><li><span class="mat">Salary Search: <a href="/s/{i}">Accountant {i}'
            f" salaries</a></span></li>{learn}</ul></div></div></div>"
        )

    cols = mined_columns(page("".join(job(i) for i in range(1, 10))))
    assert cols["company"] == [f"Company {i} Ltd" for i in range(1, 10)]
    dup = [n for n, v in cols.items() if n != "company" and "Company 2 Ltd" in v]
    assert not dup, dup


def test_a_label_written_at_the_start_of_the_values_names_them():
    def book(i: int) -> str:
        return (
            f'<li><h3><a href="/b/{i}">A novel of the sea, part {i}</a></h3>'
            f'<span class="s1">By: Author Number{i}</span><span class="s2">Depth: {i % 3}</span>'
            "</li>"
        )

    cols = mined_columns(page("<ul>" + "".join(book(i) for i in range(1, 7)) + "</ul>"))
    assert cols["author"][0] == "By: Author Number1"  # named by it; the text stays whole
    assert cols["depth"][1] == "Depth: 2"
    titles = page(
        "<ul>"
        + "".join(
            f'<li><h3><a href="/d/{i}">MIT Admissions: class of 20{i:02d}</a></h3>'
            f"<p>https://mit.example/{i} is a page of the admissions office, text {i}.</p></li>"
            for i in range(1, 7)
        )
        + "</ul>"
    )
    cols = mined_columns(titles)
    assert "title" in cols and "mit_admissions" not in cols  # the main link is the title
    assert "https" not in cols  # a scheme is no label
