"""Field alignment (partial tree alignment, digest gstm.md §3.10 / mdr.md §8.1) and value typing.

Every page here is hand-written; records are given as node groups, as extractors do.
"""

from __future__ import annotations

import pytest

from scrapy_records import Page
from scrapy_records.extractors.base import build_region
from scrapy_records.fields.alignment import align_records
from scrapy_records.fields.values import (
    decimal_style,
    infer_column,
    parse_date_iso,
    parse_number,
    parse_price,
)


# ----------------------------------------------------------------------------- helpers
def nodes(page: Page, tag: str, cls: str | None = None) -> list[int]:
    return [
        i for i, t in enumerate(page.tag) if t == tag and (cls is None or cls in page.classes(i))
    ]


def align(page: Page, roots: list[int]):
    return align_records(page, [(r,) for r in roots])


def by_name(columns):
    return {c.name: c for c in columns}


def column_of(columns, values, wanted):
    """The column whose values over the records equal ``wanted`` (None = absent)."""
    for c in columns:
        if [v.get(c.name) for v in values] == wanted:
            return c
    raise AssertionError(
        f"no column with values {wanted!r}; columns: {[c.name for c in columns]}\n{values}"
    )


# --------------------------------------------------------------------------- products
PRODUCTS = """<html><head><base href="https://shop.example/catalog/"></head><body>
<h1>Shoes</h1>
<ul id="products">
  <li class="product col-md-4">
    <a class="product-card__title" href="red.html">Red shoe</a>
    <span class="price">$1,299.00</span>
    <img class="thumb" src="img/red.jpg">
    <span class="badge">Sale</span>
    <button>Add to cart</button>
  </li>
  <li class="product col-md-4">
    <a class="product-card__title" href="blue.html">Blue shoe</a>
    <span class="price">$19.99</span>
    <img class="thumb" src="data:image/gif;base64,R0lGOD" data-src="img/blue.jpg">
    <button>Add to cart</button>
  </li>
  <li class="product col-md-4">
    <a class="product-card__title" href="/green.html">Green shoe</a>
    <img class="thumb" srcset="img/green-320.jpg 320w, img/green-640.jpg 640w">
    <button>Add to cart</button>
  </li>
  <li class="product col-md-4">
    <a class="product-card__title" href="https://other.example/black">Black shoe</a>
    <span class="price">$5</span>
    <img class="thumb" src="img/black.jpg">
    <span class="badge">Sale</span>
    <button>Add to cart</button>
  </li>
</ul></body></html>"""


@pytest.fixture(scope="module")
def products():
    page = Page(PRODUCTS, url="https://shop.example/list?page=1")
    cols, vals = align(page, nodes(page, "li", "product"))
    return page, cols, vals


def test_missing_and_optional_fields_align_to_their_columns(products):
    _, cols, vals = products
    title = column_of(cols, vals, ["Red shoe", "Blue shoe", "Green shoe", "Black shoe"])
    price = column_of(cols, vals, [1299.0, 19.99, None, 5.0])  # the green shoe has no price
    badge = column_of(cols, vals, ["Sale", None, None, "Sale"])  # optional badge
    assert (title.name, price.name, badge.name) == ("title", "price", "badge")
    assert price.type == "price" and price.fill == pytest.approx(0.75)
    assert badge.type == "text" and badge.fill == pytest.approx(0.5)
    assert title.fill == 1.0


def test_urls_and_images_are_absolute_against_base_href(products):
    _, cols, vals = products
    link = column_of(
        cols,
        vals,
        [
            "https://shop.example/catalog/red.html",
            "https://shop.example/catalog/blue.html",
            "https://shop.example/green.html",
            "https://other.example/black",
        ],
    )
    assert link.type == "url" and link.name == "url"  # the main link
    image = column_of(
        cols,
        vals,
        [
            "https://shop.example/catalog/img/red.jpg",
            "https://shop.example/catalog/img/blue.jpg",  # data: src skipped for data-src
            "https://shop.example/catalog/img/green-320.jpg",  # first srcset candidate
            "https://shop.example/catalog/img/black.jpg",
        ],
    )
    assert image.type == "image" and image.name == "image"  # its type, before its class


def test_static_template_text_is_not_a_column(products):
    _, cols, vals = products
    assert all("Add to cart" not in v.values() for v in vals)
    assert len(cols) == len({c.name for c in cols})
    # the price currency is a plain companion column
    cur = by_name(cols)["price_currency"]
    assert [v.get("price_currency") for v in vals] == ["$", "$", None, "$"]
    assert cur.fill == pytest.approx(0.75)


def test_every_record_uses_the_column_names(products):
    _, cols, vals = products
    names = [c.name for c in cols]
    for v in vals:
        assert list(v) == [n for n in names if n in v]  # column order, no stray keys


def test_column_xpath_selects_the_values_in_each_record(products):
    page, cols, vals = products
    roots = nodes(page, "li", "product")
    title = by_name(cols)["title"]
    href = by_name(cols)["url"]
    price = by_name(cols)["price"]
    assert title.xpath == "a" and href.xpath == "a/@href" and price.xpath == "span[1]"
    for r, v in zip(roots, vals):
        el = page.el[r]
        assert [e.text_content() for e in el.xpath(title.xpath)] == [v["title"]]
        assert page.absolute(el.xpath(href.xpath)[0]) == v["url"]


# ---------------------------------------------------------------------- nested sub-list
SUBLIST = """<html><body><div id="results">
<div class="item"><h2>Alpha</h2><span class="date">2021-02-03</span></div>
<div class="item"><h2>Beta</h2><ul class="tags"><li>red</li><li>green</li><li>blue</li></ul>
  <span class="date">2021-02-04</span></div>
<div class="item"><h2>Gamma</h2><span class="date">2021-02-05</span></div>
</div></body></html>"""


def test_extra_repeated_sub_list_does_not_break_other_columns():
    page = Page(SUBLIST)
    cols, vals = align(page, nodes(page, "div", "item"))
    title = column_of(cols, vals, ["Alpha", "Beta", "Gamma"])
    date = column_of(cols, vals, ["2021-02-03", "2021-02-04", "2021-02-05"])
    assert title.name == "title" and date.name == "date" and date.type == "date"
    # the sub-list only record 2 has is one optional list column
    tags = column_of(cols, vals, [None, ["red", "green", "blue"], None])
    assert tags.multiple and tags.fill == pytest.approx(1 / 3) and tags.xpath == "ul/li"


# ------------------------------------------------------------------------------ prices
PRICES = """<html><body><div>
<p class="offer"><b class="shop">A</b> <span class="amount">$1,299.99</span></p>
<p class="offer"><b class="shop">B</b> <span class="amount">1.299,99 €</span></p>
<p class="offer"><b class="shop">C</b> <span class="amount">1 299,99 €</span></p>
<p class="offer"><b class="shop">D</b> <span class="amount">EUR 12,50</span></p>
<p class="offer"><b class="shop">E</b> <span class="amount">12,- €</span></p>
<p class="offer"><b class="shop">F</b> <span class="amount">£7</span></p>
<p class="offer"><b class="shop">G</b> <span class="amount">CHF 1'299.50</span></p>
</div></body></html>"""


def test_prices_in_several_formats_become_numbers():
    page = Page(PRICES)
    cols, vals = align(page, nodes(page, "p", "offer"))
    amount = by_name(cols)["price"]  # the value's type names it before its class
    assert amount.type == "price" and amount.evidence == "type"
    assert [v["price"] for v in vals] == [1299.99, 1299.99, 1299.99, 12.5, 12.0, 7.0, 1299.5]
    assert [v["price_currency"] for v in vals] == ["$", "EUR", "EUR", "EUR", "EUR", "GBP", "CHF"]
    assert by_name(cols)["shop"].type == "text"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("$1,299.00", (1299.0, "$")),
        ("1.299,00 €", (1299.0, "EUR")),
        ("1\u202f299,00\u00a0€", (1299.0, "EUR")),
        ("US$ 10", (10.0, "USD")),
        ("from £3.99", (3.99, "GBP")),
        ("12.99", (12.99, None)),
        ("Call for price", None),
        ("$10 - $20", (10.0, "$")),  # a range: its low end (the high end: price_range)
        ("$20 - $10", None),
        ("2010-2011", None),
        ("List CAD 277.48", (277.48, "CAD")),  # a label written before the price
        ("You Save: $3.00", (3.0, "$")),
        ("Size 12", None),  # a label and a number without a currency is no price
        ("Rs. 20", (20.0, "INR")),  # a currency, not a label
        ("Free", (0.0, None)),  # an app among priced products
        ("Free shipping", None),
    ],
)
def test_parse_price(text, expected):
    assert parse_price(text) == expected


@pytest.mark.parametrize(
    "text, decimal, expected",
    [
        ("1,234.5", None, 1234.5),
        ("1.234,5", None, 1234.5),
        ("1 234,5", None, 1234.5),
        ("1,234", None, 1234),
        ("1.234", None, 1.234),
        ("1.234", ",", 1234),
        ("-5", None, -5),
        ("007", None, None),
        ("12a", None, None),
        ("10 20", None, None),
    ],
)
def test_parse_number(text, decimal, expected):
    got = parse_number(text, decimal)
    assert got == expected and type(got) is type(expected)


def test_column_decimal_style_resolves_ambiguous_separators():
    # "1.234" is a thousand and more in a column that writes decimals with a comma
    typ, conv, _ = infer_column(["1.234", "12,5", "3,75"])
    assert typ == "number" and conv == [1234, 12.5, 3.75]
    typ, conv, _ = infer_column(["1.234", "12.5"])
    assert typ == "number" and conv == [1.234, 12.5]
    # one value that is not a price keeps the whole column as text
    typ, conv, _ = infer_column(["$5", "Call for price"])
    assert typ == "text" and conv == ["$5", "Call for price"]


def test_dates_are_iso():
    assert parse_date_iso("2021-02-03") == "2021-02-03"
    assert parse_date_iso("Jan 5, 2020") == "2020-01-05"
    assert parse_date_iso("5 January 2020 10:30") == "2020-01-05T10:30:00"
    assert parse_date_iso("10:30") is None  # a bare time is not a date
    assert parse_date_iso("Posted by Ann on Jan 5, 2020") is None  # not only a date


# ------------------------------------------------------------------------------ naming
NAMING = """<html><body><div id="list">
<div class="rec" itemscope>
  <h2 itemprop="name"><a href="/a">Ann's post</a></h2>
  <div class="meta">Author: <span>ann</span></div>
  <span class="info" title="Comments">12</span>
  <span class="x7Gh2kLq">Lorem</span>
  <span class="meta">one</span><span class="meta">two</span>
</div>
<div class="rec" itemscope>
  <h2 itemprop="name"><a href="/b">Bob's post</a></h2>
  <div class="meta">Author: <span>bob</span></div>
  <span class="info" title="Comments">3</span>
  <span class="x7Gh2kLq">Ipsum</span>
  <span class="meta">three</span><span class="meta">four</span>
</div>
</div></body></html>"""


@pytest.fixture(scope="module")
def naming():
    page = Page(NAMING, url="https://blog.example/")
    return align(page, nodes(page, "div", "rec"))


def test_name_from_itemprop_and_link_suffix(naming):
    cols, vals = naming
    c = column_of(cols, vals, ["Ann's post", "Bob's post"])
    assert (c.name, c.evidence) == ("name", "itemprop")
    u = column_of(cols, vals, ["https://blog.example/a", "https://blog.example/b"])
    assert u.name == "url"  # the record's main link, whatever names its text


def test_name_from_label_text_and_label_is_not_a_column(naming):
    cols, vals = naming
    c = column_of(cols, vals, ["ann", "bob"])
    assert (c.name, c.evidence) == ("author", "label")
    assert all("Author:" not in v.values() for v in vals)


def test_name_from_stable_title_attribute_and_number_type(naming):
    cols, vals = naming
    c = column_of(cols, vals, [12, 3])
    assert (c.name, c.evidence, c.type) == ("comments", "title", "number")


def test_hash_classes_are_skipped_and_names_are_unique(naming):
    cols, vals = naming
    c = column_of(cols, vals, ["Lorem", "Ipsum"])
    assert (c.name, c.evidence) == ("text", "generic")  # no usable class: a generic name
    m1 = column_of(cols, vals, ["one", "three"])
    m2 = column_of(cols, vals, ["two", "four"])
    assert (m1.name, m2.name) == ("meta", "meta_2")  # as many in every record: two columns
    assert len({c.name for c in cols}) == len(cols)


def test_framework_noise_classes_are_not_names():
    html = """<div><div class="r"><span class="col-md-6 mt-2 text-muted">A1</span><span class="d-flex">x</span></div>
    <div class="r"><span class="col-md-6 mt-2 text-muted">B2</span><span class="d-flex">y</span></div></div>"""
    page = Page(html)
    cols, vals = align(page, nodes(page, "div", "r"))
    assert [c.name for c in cols] == ["text", "text_2"]
    assert [c.evidence for c in cols] == ["generic", "generic"]


# ------------------------------------------------------------------- multi-root records
TABLE = """<html><body><table id="t">
<tr><th>Name</th><th>Score</th><th>Updated</th></tr>
<tr class="main"><td><a href="/u/1">Ann</a></td><td>1.234,5</td><td>2020-01-05</td></tr>
<tr class="detail"><td colspan="3">first comment</td></tr>
<tr class="main"><td><a href="/u/2">Bob</a></td><td>12,5</td><td>2021-03-04</td></tr>
<tr class="detail"><td colspan="3">second comment</td></tr>
<tr class="main"><td><a href="/u/3">Cid</a></td><td>7</td><td>2022-12-31</td></tr>
<tr class="detail"><td colspan="3">third comment</td></tr>
</table></body></html>"""


def test_multi_root_records_two_sibling_rows():
    page = Page(TABLE, url="https://ex.com/scores")
    rows = nodes(page, "tr")[1:]
    groups = [(rows[k], rows[k + 1]) for k in range(0, len(rows), 2)]
    cols, vals = align_records(page, groups)
    # the record's main link is `url` whatever its header says
    assert [c.name for c in cols] == ["name", "url", "score", "updated", "text"]
    assert [c.evidence for c in cols][:4] == ["header", "link", "header", "header"]
    assert [v["name"] for v in vals] == ["Ann", "Bob", "Cid"]
    assert [v["url"] for v in vals] == [
        "https://ex.com/u/1",
        "https://ex.com/u/2",
        "https://ex.com/u/3",
    ]
    assert [v["score"] for v in vals] == [1234.5, 12.5, 7]
    assert [v["updated"] for v in vals] == ["2020-01-05", "2021-03-04", "2022-12-31"]
    assert [v["text"] for v in vals] == ["first comment", "second comment", "third comment"]
    detail = by_name(cols)["text"]
    assert detail.xpath == "following-sibling::tr[1]/td"
    for (r0, _), v in zip(groups, vals):
        assert page.el[r0].xpath(f"string({detail.xpath})") == v["text"]


# ------------------------------------------------------------------ inline formatting
SNIPPETS = """<html><body><div id="res">
<div class="g"><h3><a href="http://a.example/1">Best <b>shoes</b> 2024</a></h3>
  <p>Buy <b>shoes</b> online and more <b>shoes</b> here</p><cite>a.example</cite></div>
<div class="g"><h3><a href="http://b.example/2">Shoe shop</a></h3>
  <p><b>Shoes</b> for everyone</p><cite>b.example</cite></div>
<div class="g"><h3><a href="http://c.example/3">Running</a></h3>
  <p>Nothing highlighted</p><cite>c.example</cite></div>
</div></body></html>"""


def test_variable_inline_markup_is_one_text_value():
    page = Page(SNIPPETS)
    cols, vals = align(page, nodes(page, "div", "g"))
    title = column_of(cols, vals, ["Best shoes 2024", "Shoe shop", "Running"])
    snippet = column_of(
        cols,
        vals,
        [
            "Buy shoes online and more shoes here",
            "Shoes for everyone",
            "Nothing highlighted",
        ],
    )
    assert title.name == "title" and title.xpath == "h3/a"
    assert snippet.xpath == "p"
    assert len(cols) == 4  # title, url, snippet, cite


def test_inline_formatting_never_splits_a_value_even_without_collapsing():
    """A text flowing around inline markup is one run of the page (not only a collapsed
    template node), so ``collapse_inline=False`` gives the same whole values."""
    page = Page(SNIPPETS)
    groups = [(i,) for i in nodes(page, "div", "g")]
    cols, vals = align_records(page, groups, collapse_inline=False)
    assert [v["title"] for v in vals] == ["Best shoes 2024", "Shoe shop", "Running"]
    assert vals[1]["text"] == "Shoes for everyone"
    assert len(cols) == 4


# ------------------------------------------------------------------- via build_region
def test_build_region_fills_fields_and_columns(products):
    page = Page(PRODUCTS, url="https://shop.example/list")
    ul = nodes(page, "ul")[0]
    region = build_region(page, "test", ul, [(i,) for i in nodes(page, "li", "product")], 0.9)
    assert [c.name for c in region.columns][:3] == ["title", "url", "price"]
    assert region.records[2].fields["title"] == "Green shoe"
    assert "price" not in region.records[2].fields
    assert region.records[0].fields["price"] == 1299.0
    d = region.to_dict()
    assert d["columns"][2]["type"] == "price" and d["columns"][2]["fill"] == 0.75


# --------------------------------------------------------------------------- edge cases
def test_empty_and_single_record():
    page = Page("<html><body><p>Only <b>one</b></p></body></html>")
    assert align_records(page, []) == ([], [])
    p = nodes(page, "p")[0]
    cols, vals = align_records(page, [(p,)])
    assert [vals[0][c.name] for c in cols] == ["Only one"]  # inline markup: one value


def test_nested_roots_in_a_group_are_ignored():
    page = Page("<div><p class='a'>x <span>y</span></p><p class='a'>z <span>w</span></p></div>")
    ps = nodes(page, "p")
    spans = nodes(page, "span")
    cols, vals = align_records(page, [(ps[0], spans[0]), (ps[1], spans[1])])
    assert [list(v.values()) for v in vals] == [["x y"], ["z w"]]


def test_deep_records_do_not_recurse():
    depth = 400
    rec = "<div>" * depth + "v{}" + "</div>" * depth
    html = (
        "<html><body><section>"
        + "".join(f"<article>{rec.format(k)}<i>t</i></article>" for k in range(3))
        + "</section></body></html>"
    )
    page = Page(html)
    cols, vals = align(page, nodes(page, "article"))
    assert [v[cols[0].name] for v in vals] == ["v0", "v1", "v2"]


def test_many_records_beyond_the_template_sample_still_align():
    items = "".join(
        f"<li><a href='/p{k}'>Item {k}</a>{'<em>new</em>' if k % 7 == 0 else ''}<span>{k},50 €</span></li>"
        for k in range(120)
    )
    page = Page(f"<html><body><ul>{items}</ul></body></html>", url="https://x.example/")
    cols, vals = align_records(page, [(i,) for i in nodes(page, "li")], max_template_records=10)
    price = column_of(cols, vals, [k + 0.5 for k in range(120)])
    assert price.type == "price"
    assert [v["url"] for v in vals][:2] == ["https://x.example/p0", "https://x.example/p1"]
    flag = column_of(cols, vals, ["new" if k % 7 == 0 else None for k in range(120)])
    assert flag.fill == pytest.approx(18 / 120)


def test_values_are_json_scalars(products):
    _, _, vals = products
    for v in vals:
        for x in v.values():
            assert isinstance(x, (str, int, float))


# ------------------------------------------------------------- same-tag optional siblings
def test_optional_sibling_of_the_same_tag_goes_to_its_own_column():
    html = """<div>
    <div class="p"><b>A</b><span class="price">10 €</span><span class="old">12 €</span></div>
    <div class="p"><b>B</b><span class="price">11 €</span></div>
    <div class="p"><b>C</b><span class="old">15 €</span></div>
    <div class="p"><b>D</b><span class="price">13 €</span><span class="old">14 €</span></div>
    </div>"""
    page = Page(html)
    cols, vals = align(page, nodes(page, "div", "p"))
    # tag-only STM ties; the class signature decides which span an optional one is
    price = column_of(cols, vals, [10.0, 11.0, None, 13.0])
    old = column_of(cols, vals, [12.0, None, 15.0, 14.0])
    assert (price.name, old.name) == ("price", "old_price")  # one type, told apart by class


def test_variable_length_lists_align_leftmost_and_plain_siblings_are_not_labels():
    html = """<div>
    <div class="r"><h4>One</h4><ul class="specs"><li>red</li><li>big</li><li>cheap</li></ul></div>
    <div class="r"><h4>Two</h4><ul class="specs"><li>blue</li></ul></div>
    <div class="r"><h4>Three</h4><ul class="specs"><li>green</li><li>small</li></ul></div>
    </div>"""
    page = Page(html)
    cols, vals = align(page, nodes(page, "div", "r"))
    specs = column_of(cols, vals, [["red", "big", "cheap"], ["blue"], ["green", "small"]])
    assert (specs.name, specs.xpath, specs.multiple) == ("specs", "ul/li", True)


def test_rare_variant_outside_the_template_sample_gets_its_column():
    items = "".join(
        f"<li><a href='/p{k}'>Item {k}</a>"
        + ("<span class='stock'>only 1 left</span>" if k == 13 else "")
        + f"<span class='sku'>S-{k}</span></li>"
        for k in range(40)
    )
    page = Page(f"<html><body><ul>{items}</ul></body></html>", url="https://x.example/")
    cols, vals = align_records(page, [(i,) for i in nodes(page, "li")], max_template_records=4)
    stock = column_of(cols, vals, ["only 1 left" if k == 13 else None for k in range(40)])
    assert stock.name == "stock"
    sku = column_of(cols, vals, [f"S-{k}" for k in range(40)])
    assert sku.name == "sku"


def test_flowing_text_with_highlights_is_one_value_but_labels_stay_apart():
    html = """<div id="res">
    <li class="hit"><a href="/1">One</a><br>The <b>rust</b> compiler and the <b>rust</b> book<br>
      Price: <b>$5</b></li>
    <li class="hit"><a href="/2">Two</a><br><b>Rust</b> by example, a long description of it<br>
      Price: <b>$7</b></li>
    <li class="hit"><a href="/3">Three</a><br>Nothing highlighted in this one at all<br>
      Price: <b>$9</b></li>
    </div>"""
    page = Page(html, url="https://s.example/")
    cols, vals = align(page, nodes(page, "li", "hit"))
    column_of(
        cols,
        vals,
        [
            "The rust compiler and the rust book",
            "Rust by example, a long description of it",
            "Nothing highlighted in this one at all",
        ],
    )
    price = column_of(cols, vals, [5.0, 7.0, 9.0])
    assert (price.name, price.evidence, price.type) == ("price", "label", "price")
    assert len(cols) == 5  # title, title link, snippet, price, currency


def test_user_generated_post_bodies_become_one_text_column():
    bodies = [
        "<p>I agree.</p><blockquote><cite>ann wrote:</cite><p>Use <code>ls -la</code></p></blockquote>",
        "<p>First line</p><ul><li>one</li><li>two</li></ul><p>Thanks, <a href='/u/ann'>ann</a></p>",
        "<pre>error: code 12</pre><p>Any idea?</p><p>Edit: <i>solved</i></p><p>bye</p>",
        "<p>Just one paragraph here.</p>",
        "<div class='quote'><p>quoted</p></div><p>reply text</p><img src='/smile.gif'><p>x</p>",
    ]
    html = (
        "<div id='posts'>"
        + "".join(
            f"<div class='post'><span class='author'>user{k}</span><span class='date'>2020-01-0{k + 1}</span>"
            f"<div class='content'>{b}</div></div>"
            for k, b in enumerate(bodies)
        )
        + "</div>"
    )
    page = Page(html, url="https://forum.example/t/1")
    cols, vals = align(page, nodes(page, "div", "post"))
    assert [c.name for c in cols] == ["author", "date", "content"]
    assert vals[1]["content"] == "First line one two Thanks, ann"
    assert vals[3]["content"] == "Just one paragraph here."
    assert by_name(cols)["content"].xpath == "div"
    cols2, _ = align_records(
        page, [(i,) for i in nodes(page, "div", "post")], collapse_variable=False
    )
    assert len(cols2) > 6


def test_align_region_fills_a_region_built_without_alignment():
    from scrapy_records.fields.alignment import align_region

    page = Page(PRODUCTS, url="https://shop.example/list")
    ul = nodes(page, "ul")[0]
    region = build_region(
        page, "test", ul, [(i,) for i in nodes(page, "li", "product")], 0.9, align=False
    )
    assert region.columns == [] and region.records[0].fields == {}
    align_region(page, region)
    assert [c.name for c in region.columns][:3] == ["title", "url", "price"]
    assert region.records[1].fields["price"] == 19.99


def test_heterogeneous_records_give_a_bounded_number_of_columns():
    recs = "".join(
        "<section>" + "".join(f"<{t}>w{k}_{j}</{t}>" for j, t in enumerate(tags)) + "</section>"
        for k, tags in enumerate([["p", "b", "i"] * 20, ["i", "p"] * 30, ["b"] * 50 + ["u"] * 40])
    )
    page = Page(f"<html><body><main>{recs}</main></body></html>")
    secs = [(i,) for i, t in enumerate(page.tag) if t == "section"]
    cols, vals = align_records(page, secs, max_columns=25)
    assert len(cols) == 25
    assert all(set(v) <= {c.name for c in cols} for v in vals)


def test_page_memo_does_not_keep_pages_alive():
    import gc

    from scrapy_records.fields import records

    page = Page(PRODUCTS)
    align(page, nodes(page, "li", "product"))
    assert page in records._CACHE
    before = len(records._CACHE)
    del page
    gc.collect()
    assert len(records._CACHE) == before - 1


def test_time_datetime_attribute_gives_the_date():
    html = """<div>
    <div class="c"><span class="who">ann</span><time datetime="2019-07-01T09:30:00">Monday</time></div>
    <div class="c"><span class="who">bob</span><time datetime="2019-07-02">Tuesday</time></div>
    </div>"""
    page = Page(html)
    cols, vals = align(page, nodes(page, "div", "c"))
    when = column_of(cols, vals, ["2019-07-01T09:30:00", "2019-07-02"])
    assert (when.name, when.type, when.xpath) == ("date", "date", "time/@datetime")


def test_value_first_labels_and_constant_link_text():
    html = """<table>
    <tr class="r"><td><span>7</span> <i>Food</i></td><td><span>9</span> <i>Decor</i></td>
      <td><a href="/c/1">Cached</a></td></tr>
    <tr class="r"><td><span>5</span> <i>Food</i></td><td><span>8</span> <i>Decor</i></td>
      <td><a href="/c/2">Cached</a></td></tr>
    </table>"""
    page = Page(html, url="https://r.example/")
    cols, vals = align(page, nodes(page, "tr", "r"))
    assert column_of(cols, vals, [7, 5]).name == "food"
    assert column_of(cols, vals, [9, 8]).name == "decor"
    assert (
        column_of(cols, vals, ["https://r.example/c/1", "https://r.example/c/2"]).name
        == "url"  # the record's only link is its main link
    )


def test_slots_without_any_value_are_not_columns():
    html = """<ul><li><a name="x1"></a><a href="/1">One</a></li><li><a name="x2"></a><a href="/2">Two</a></li></ul>"""
    page = Page(html, url="https://e.example/")
    cols, vals = align(page, nodes(page, "li"))
    assert all(c.fill > 0 for c in cols)
    assert [c.name for c in cols] == ["title", "url"]
    assert vals[1] == {"title": "Two", "url": "https://e.example/2"}


def test_a_price_behind_a_zero_width_no_break_space_is_a_price():
    from scrapy_records import extract

    items = "".join(
        f"<li><a href='/p/{k}'>Book number {k} about things</a>"
        f" <span class='price'>\ufeffCAD {k}3.59</span></li>"
        for k in range(1, 6)
    )
    page = f"<html><body><ul>{items}</ul></body></html>"
    main = extract(page).main
    assert main is not None
    assert main.records[1].fields["price"] == 23.59
    assert main.records[1].fields["price_currency"] == "CAD"
    # a wrapper reads it the same way
    from scrapy_records import induce

    wrapper = induce([page, page.replace("Book", "Novel")])
    got = wrapper.extract(page.replace("Book", "Atlas")).records[1].fields
    assert (got["price"], got["price_currency"]) == (23.59, "CAD")


def test_a_label_behind_a_zero_width_character_still_anchors_its_value():
    """A spec table whose labels start with a BOM ("\ufeffColour"): the page model reads
    "Colour", and the wrapper's label XPath matches it the same way (without the BOM, the
    field falls back to a positional ``td``)."""
    from scrapy_records import Wrapper, induce

    def page(k: int) -> str:
        reviews = "".join(
            f"<li class='review'><span class='author'>user{j}</span> <span class='date'>"
            f"2026-0{j + 1}-1{j}</span><p>Review {j} of product {k}, with more words.</p></li>"
            for j in range(3)
        )
        return (
            f"<html><body><main><div><h1>Product {k}</h1><p class='price'>${k}.99</p>"
            f"<table><tr><th>\ufeffColour</th><td>Colour{k}</td></tr><tr><th>\ufeffWeight"
            f"</th><td>{k}.5 kg</td></tr></table><ul class='reviews'>{reviews}</ul></div>"
            "</main></body></html>"
        )

    wrapper = Wrapper.from_json(induce([page(1), page(2), page(3)]).to_json())
    names = [f.name for f in wrapper.page_fields]
    assert "colour" in names and "weight" in names
    got = wrapper.extract(page(7)).regions[0].meta["page"]
    assert (got["colour"], got["weight"]) == ("Colour7", "7.5 kg")


def shop_with_controls(buy: set[int], badge: set[int]) -> Page:
    """Products; ``buy`` ones have a "Buy online" button (a link to ``#``), ``badge`` ones a
    "Sponsored" badge."""
    items = []
    for i in range(6):
        button = (
            '<a href="#" class="button"><div class="buttonCaption">Buy online</div></a>'
            if i in buy
            else ""
        )
        tag = '<span class="promo">Sponsored</span>' if i in badge else ""
        items.append(
            f'<li class="p">{tag}<a href="/p/{i}">Lamp model {i}</a>'
            f'<span class="price">${20 + i}.00</span>{button}</li>'
        )
    return Page(f"<html><body><ul>{''.join(items)}</ul></body></html>", url="https://s.example/")


def test_one_text_on_a_button_in_some_records_is_template_a_badge_is_data():
    page = shop_with_controls(buy={0, 1, 3, 4}, badge={1, 2})
    columns, values = align(page, nodes(page, "li"))
    held = {v for rec in values for v in rec.values()}
    assert "Buy online" not in held  # a control's caption: no column
    assert column_of(columns, values, [None, "Sponsored", "Sponsored", None, None, None])


@pytest.mark.parametrize(
    "text",
    ["1.234", "12,5", "1,234.5", "1.234,5", "$63,900", "1.2.3", "", "Call", None, "3 500,25"],
)
def test_a_single_values_decimal_style_is_the_style_a_column_of_it_proves(text):
    """A detail page's column is one value: its style is read without the vote, the same."""
    assert decimal_style([text]) == decimal_style([text, text])


def test_an_optional_block_of_links_few_records_show_is_no_post_body():
    # "Read more: <a>A</a>, <a>B</a>" in three of eight records, 1-3 links: over all records
    # its parts are sparse only because few records show the block; over those that do,
    # the label and the first link are in every one: links with their URLs, not one text
    tags = {2: ["Alpha"], 4: ["Beta", "Gamma", "Delta"], 6: ["Eta", "Theta"]}
    recs = []
    for k in range(8):
        links = ", ".join(f'<a href="/about/{t.lower()}">{t}</a>' for t in tags.get(k, []))
        block = f'<div class="tags"><strong>Read more: </strong>{links}</div>' if links else ""
        recs.append(
            f'<div class="story"><h3><a href="/s/{k}">Story number {k}</a></h3>'
            f"<p>Summary of story {k} in a few words.</p>{block}</div>"
        )
    page = Page(f"<div id='list'>{''.join(recs)}</div>", url="https://news.example/")
    cols, vals = align(page, nodes(page, "div", "story"))
    texts = [v for row in vals for k, v in row.items() if isinstance(v, str)]
    assert not any(t.startswith("Read more") for t in texts)
    urls = {v for row in vals for v in row.values() if isinstance(v, str)}
    urls |= {x for row in vals for v in row.values() if isinstance(v, list) for x in v}
    assert "https://news.example/about/alpha" in urls
    assert "https://news.example/about/beta" in urls


def shop_with_offers(heading: set[int], offers: set[int], flag: set[int] = frozenset()) -> Page:
    """Products; ``offers`` ones show a block of other offers, headed "More Buying Choices"
    in the ``heading`` ones; ``flag`` ones a "New listing" badge before the title."""
    items = []
    for i in range(6):
        head = (
            '<div class="h"><span class="s">More Buying Choices</span></div>'
            if i in heading
            else ""
        )
        row = (
            f'<div class="r"><a href="/offers/{i}">${10 + i}.50 used ({i + 2} offers)</a></div>'
            if i in offers
            else ""
        )
        block = f'<div class="o">{head}{row}</div>' if head or row else ""
        badge = '<span class="newly">New listing</span> ' if i in flag else ""
        items.append(
            f'<li class="p"><h3><a href="/p/{i}">{badge}Lamp model {i}</a></h3>'
            f'<span class="price">${20 + i}.00</span>{block}</li>'
        )
    return Page(f"<html><body><ul>{''.join(items)}</ul></body></html>", url="https://s.example/")


def test_a_text_some_records_show_above_a_value_only_they_have_heads_it():
    # "More Buying Choices" is never shown without the offers below it, and some records
    # show offers without it: it heads them, it says nothing about the record on its own
    page = shop_with_offers(heading={0, 2, 3}, offers={0, 1, 2, 3})
    columns, values = align(page, nodes(page, "li"))
    held = {v for rec in values for v in rec.values()}
    assert "More Buying Choices" not in held
    offers = by_name(columns)["more_buying_choices"]  # its text names the offers' column
    assert [v.get(offers.name) for v in values][:4] == [
        "$10.50 used (2 offers)",
        "$11.50 used (3 offers)",
        "$12.50 used (4 offers)",
        "$13.50 used (5 offers)",
    ]


def test_a_badge_beside_a_value_every_record_has_stays_a_column():
    # "New listing" before a title every record has comes and goes on its own: a flag
    page = shop_with_offers(heading=set(), offers=set(), flag={1, 4})
    columns, values = align(page, nodes(page, "li"))
    assert column_of(columns, values, [None, "New listing", None, None, "New listing", None])


def test_a_text_shown_without_the_value_after_it_is_no_heading():
    # the text alone in record 5 (no offers there): it tells something of its own
    page = shop_with_offers(heading={0, 2, 5}, offers={0, 1, 2})
    columns, values = align(page, nodes(page, "li"))
    held = {v for rec in values for v in rec.values()}
    assert "More Buying Choices" in held


def jobs(lead: set[int], badge: set[int]) -> Page:
    """Job ads; ``lead`` ones end with "Learn more about working at <a>Firm k</a>", the
    ``badge`` ones write "Easily apply" before the date every ad has, in its element."""
    recs = []
    for k in range(6):
        more = (
            f'<span class="more">Learn more about working at <a href="/cmp/{k}">Firm {k}</a></span>'
            if k in lead
            else ""
        )
        flag = "Easily apply " if k in badge else ""
        recs.append(
            f'<div class="job"><h2><a href="/job/{k}">Job opening {k}</a></h2>'
            f"<p>Duties of job {k} in a few words.</p>"
            f'<div class="meta">{flag}<div class="age">{k + 1} days ago</div></div>{more}</div>'
        )
    return Page(f"<div id='list'>{''.join(recs)}</div>", url="https://jobs.example/")


def test_a_lead_in_before_a_link_some_records_have_is_template_text():
    # "Learn more about working at <a>Firm</a>": no label by its form (it names nothing in
    # a few words), but it comes exactly with the firm's link, inside its element
    page = jobs(lead={1, 2, 4}, badge=set())
    columns, values = align(page, nodes(page, "div", "job"))
    held = {v for rec in values for v in rec.values()}
    assert not any(str(v).startswith("Learn more") for v in held)
    assert column_of(columns, values, [None, "Firm 1", "Firm 2", None, "Firm 4", None])


def test_a_badge_before_a_value_every_record_has_stays_a_column():
    # "Easily apply" before the age every ad shows comes and goes on its own: a flag
    page = jobs(lead=set(), badge={0, 3})
    columns, values = align(page, nodes(page, "div", "job"))
    assert column_of(columns, values, ["Easily apply", None, None, "Easily apply", None, None])
