"""Wrapper model, JSON validation, induction (from_region / induce) and health."""

from __future__ import annotations

import json

import pytest

from scrapy_records import Page, WrapperError, register_extractor
from scrapy_records.extractors.base import build_region
from scrapy_records.selectors import stable_id, stable_token
from scrapy_records.wrappers.induce import induce, register_inducer
from scrapy_records.wrappers.model import FieldSpec, Health, ListSpec, Provenance, RecordSelector
from scrapy_records.wrappers.wrapper import Wrapper

SHOP = """<html><head><title>Phones</title><script>var x = "<li class='item'>";</script></head>
<body><div id="nav"><a href="/">Home</a> <a href="/about">About</a></div>
<ul id="results">
<li class="item css-1x2y3z"><h3><a href="/p/1">Alpha phone</a></h3><span class="price">$10.00</span>
  <p>Nice phone <b>new</b> today</p></li>
<li class="item featured css-9q8w7e"><h3><a href="/p/2">Beta phone</a></h3><span class="price">$12.50</span>
  <p>Good <b>used</b> one</p></li>
<li class="item css-4r5t6y"><h3><a href="/p/3">Gamma phone</a></h3><p>No price <b>x</b></p></li>
<li class="ad">Sponsored: buy things</li>
</ul><div id="foot">Copyright</div></body></html>"""

SHOP_PAGE2 = """<html><body><div id="nav"><a href="/">Home</a></div>
<ul id="results">
<li class="item"><h3><a href="/p/7">Delta phone</a></h3><span class="price">$99.00</span><p>Big <b>new</b></p></li>
<li class="item"><h3><a href="/p/8">Epsilon phone</a></h3><span class="price">$5.00</span><p>Small <b>old</b></p></li>
<li class="ad">Sponsored</li>
<li class="item"><h3><a href="/p/9">Zeta phone</a></h3><span class="price">$7.25</span><p>Red <b>new</b></p></li>
<li class="item"><h3><a href="/p/10">Eta phone</a></h3><span class="price">$8.00</span><p>Blue <b>new</b></p></li>
</ul></body></html>"""

# the same site after a redesign: the wrapper's selectors no longer match
SHOP_REDESIGN = """<html><body><main><section class="grid">
<article class="card"><h2><a href="/p/1">Alpha phone</a></h2><em>$10.00</em></article>
<article class="card"><h2><a href="/p/2">Beta phone</a></h2><em>$12.50</em></article>
</section></main></body></html>"""

TABLE = """<html><body><table>
<tr><th>Name</th><th>Team</th><th>Avg</th></tr>
<tr><td><a href="/pl/ruth">Babe Ruth</a></td><td>NYY</td><td>.342</td></tr>
<tr><td><a href="/pl/cobb">Ty Cobb</a></td><td>DET</td><td>.366</td></tr>
<tr><td><a href="/pl/gehrig">Lou Gehrig</a></td><td>NYY</td><td>.340</td></tr>
<tr><td colspan="3">3 players</td></tr>
</table></body></html>"""

DEFLIST = """<html><body><div class="content"><dl>
<dt>Apple</dt><dd>A red fruit</dd>
<dt>Banana</dt><dd>A yellow fruit</dd>
<dt>Cherry</dt><dd>A small fruit</dd>
</dl></div></body></html>"""


def _region(page: Page, nodes_per_record, extractor="test"):
    parent = page.parent[nodes_per_record[0][0]]
    return build_region(page, extractor, parent, nodes_per_record, 0.9)


def _nodes(page: Page, tag: str, cls: str | None = None):
    return [
        i for i in range(page.n) if page.tag[i] == tag and (cls is None or cls in page.classes(i))
    ]


def shop_wrapper():
    page = Page(SHOP, "http://shop.example/list")
    region = _region(page, [(i,) for i in _nodes(page, "li", "item")])
    return Wrapper.from_region(region, page), region, page


# ------------------------------------------------------------------ from_region
def test_from_region_reextracts_same_records_and_values():
    w, region, page = shop_wrapper()
    res = w.extract(SHOP, url="http://shop.example/list")
    recs = res.regions[0].records
    assert [r.xpaths for r in recs] == [r.xpaths for r in region.records]
    assert [r.text for r in recs] == [r.text for r in region.records]
    assert recs[0].text == "Alpha phone $10.00 Nice phone new today"  # script text excluded
    assert res.regions[0].extractor == f"wrapper:{w.id}"
    by_type = {f.type: f.name for f in w.fields}
    price, url = by_type["price"], by_type["url"]
    # typed as the extractors type columns (scrapy_records.fields.values): amount + currency
    assert [r.fields.get(price) for r in recs] == [10.0, 12.5, None]
    assert [r.fields.get(price + "_currency") for r in recs] == ["$", "$", None]
    assert [r.fields[url] for r in recs] == [
        "http://shop.example/p/1",
        "http://shop.example/p/2",
        "http://shop.example/p/3",
    ]
    assert w.verify(page, region) == {
        "records": 3,
        "expected": 3,
        "records_exact": True,
        "same_text": 1.0,
    }


def test_selectors_prefer_stable_ids_and_classes_and_skip_generated_tokens():
    w, _region_, _page = shop_wrapper()
    assert "@id='results'" in w.record.xpath
    assert "' item '" in w.record.xpath
    assert "css-" not in w.record.xpath
    assert "[1]" not in w.record.xpath and "[2]" not in w.record.xpath
    assert w.record.css == "ul#results li.item"  # at any depth under the id anchor
    price = next(f for f in w.fields if f.type == "price")
    assert price.optional and not price.multiple and price.css == "span.price"
    assert w.health.fill_rates[price.name] == pytest.approx(2 / 3, abs=1e-3)
    assert w.health.expected_records == (3, 3)


def test_stable_token_rules():
    assert stable_token("item") and stable_token("product-title") and stable_token("searchResult")
    for bad in ("css-1x2y3z", "sc-bdVaJa", "Title_title__3xYz1", "post-12345", "active", "a'b"):
        assert not stable_token(bad), bad
    assert stable_id("results") and not stable_id("post-123456")


def test_from_region_table_rows_excludes_header_and_footer():
    page = Page(TABLE, "http://ball.example/players")
    rows = _nodes(page, "tr")[1:4]
    region = _region(page, [(i,) for i in rows])
    w = Wrapper.from_region(region, page)
    res = w.extract(TABLE, url="http://ball.example/players")
    assert "position()" in w.record.xpath  # header and footer rows have the same tag
    assert [r.text for r in res.records] == [
        "Babe Ruth NYY .342",
        "Ty Cobb DET .366",
        "Lou Gehrig NYY .340",
    ]
    link = next(f for f in w.fields if f.type == "url")
    assert [r.fields[link.name] for r in res.records] == [
        "http://ball.example/pl/ruth",
        "http://ball.example/pl/cobb",
        "http://ball.example/pl/gehrig",
    ]
    team = next(f for f in w.fields if f.xpath == "td[2]")
    avg = next(f for f in w.fields if f.xpath == "td[3]")
    assert [r.fields[team.name] for r in res.records] == ["NYY", "DET", "NYY"]
    assert [r.fields[avg.name] for r in res.records] == [".342", ".366", ".340"]


def test_from_region_generalized_nodes_of_two_siblings():
    page = Page(DEFLIST)
    dts = _nodes(page, "dt")
    region = _region(page, [(i, i + 1) for i in dts])
    w = Wrapper.from_region(region, page)
    assert w.record.size == 2
    res = w.extract(DEFLIST)
    assert [r.text for r in res.records] == [
        "Apple A red fruit",
        "Banana A yellow fruit",
        "Cherry A small fruit",
    ]
    assert [len(r.xpaths) for r in res.records] == [2, 2, 2]
    values = [sorted(v for v in r.fields.values()) for r in res.records]
    assert values[1] == ["A yellow fruit", "Banana"]


# -------------------------------------------------------------- application
def test_apply_to_another_page_of_the_template():
    w, _r, _p = shop_wrapper()
    res = w.extract(SHOP_PAGE2.encode("utf-8"), url="http://shop.example/list?page=2")
    names = [
        r.fields[next(f.name for f in w.fields if f.type == "text" and f.xpath == "h3/a")]
        for r in res.records
    ]
    assert names == ["Delta phone", "Epsilon phone", "Zeta phone", "Eta phone"]
    h = res.regions[0].meta["health"]
    assert h["records"] == 4 and h["fits"] and h["missing_required"] == []
    assert h["records_fit"] == pytest.approx(0.75)
    assert not w.stale
    assert res.main is res.regions[0]


def test_raw_input_honours_base_href_like_the_page_model():
    """Applied to raw markup (no page model, as the crawl's wrapper path does), link fields
    are made absolute against the document's <base href>, as from a Page."""
    from scrapy_records import Page

    w, _r, _p = shop_wrapper()
    html = SHOP_PAGE2.replace(
        "<html><body>", '<html><head><base href="http://cdn.example/shop/"></head><body>'
    )
    link = next(f.name for f in w.fields if f.attribute == "href")
    raw = w.extract(html.encode("utf-8"), url="http://shop.example/list?page=2")
    via_page = w.extract(Page(html, url="http://shop.example/list?page=2"))
    assert [r.fields[link] for r in raw.records][:2] == [
        "http://cdn.example/p/7",
        "http://cdn.example/p/8",
    ]
    assert [r.fields for r in raw.records] == [r.fields for r in via_page.records]


def test_links_with_tabs_or_line_breaks_read_alike_mined_and_wrapped():
    """An href written over two lines ("/p/1\n?ref=list", absolute or not) loses its line
    break when the page model joins it (urljoin, as browsers do); the wrapper's reading,
    which skips the join for a URL already absolute, loses it too."""
    import scrapy_records

    def shop(prefix: str) -> str:
        items = "".join(
            f'<li><h3><a href="{prefix}/p/{i}\n?ref=list">Item number {i} title</a></h3>'
            f"<p>Some text about item {i} here.</p></li>"
            for i in range(5)
        )
        return f"<html><body><ul>{items}</ul></body></html>"

    for prefix in ("http://shop.example", ""):
        html = shop(prefix)
        mined = scrapy_records.extract(html, url="http://shop.example/s").main.records
        w = induce([("http://shop.example/s", html), ("http://shop.example/t", html)])
        wrapped = w.extract(html, url="http://shop.example/u").records
        assert [r.fields["url"] for r in wrapped] == [r.fields["url"] for r in mined]
        assert wrapped[1].fields["url"] == "http://shop.example/p/1?ref=list"


def test_changed_page_marks_wrapper_stale():
    w, _r, _p = shop_wrapper()
    res = w.extract(SHOP_REDESIGN, url="http://shop.example/list")
    h = res.regions[0].meta["health"]
    assert h["records"] == 0 and h["fit"] == 0.0 and not h["fits"]
    assert w.stale
    assert w.check(res)["fits"] is False


def test_missing_required_fields_lower_fit():
    w, _r, _p = shop_wrapper()
    broken = (
        SHOP_PAGE2.replace("<h3>", "<h4>")
        .replace("</h3>", "</h4>")
        .replace("<p>", "<div>")
        .replace("</p>", "</div>")
    )
    res = w.extract(broken)
    h = res.regions[0].meta["health"]
    assert h["records"] == 4
    assert h["required_fill"] == 0.0 and len(h["missing_required"]) >= 3
    assert not h["fits"] and w.stale


def test_apply_to_page_object_sets_nodes():
    w, region, page = shop_wrapper()
    res = w.extract(page)
    assert [r.nodes for r in res.records] == [r.nodes for r in region.records]


def test_nested_lists_and_page_fields():
    html = """<html><body><h1>Recipes</h1><div id="r">
    <div class="recipe"><h2>Soup</h2><ul><li>water</li><li>salt</li></ul></div>
    <div class="recipe"><h2>Tea</h2><ul><li>leaves</li></ul></div></div></body></html>"""
    w = Wrapper(
        id="nested1",
        record=RecordSelector("//div[@id='r']/div", "div#r > div"),
        fields=[FieldSpec("name", "text", "h2", css="h2")],
        lists=[ListSpec("ingredients", RecordSelector("ul/li"), [FieldSpec("item", "text", ".")])],
        page_fields=[FieldSpec("heading", "text", "//h1")],
        health=Health((2, 2), {"name": 1.0}),
    )
    w2 = Wrapper.from_json(w.to_json())
    res = w2.extract(html)
    assert [r.fields for r in res.records] == [
        {"name": "Soup", "ingredients": [{"item": "water"}, {"item": "salt"}]},
        {"name": "Tea", "ingredients": [{"item": "leaves"}]},
    ]
    assert res.regions[0].meta["page"] == {"heading": "Recipes"}


# ------------------------------------------------------------------- JSON
def test_json_round_trip_is_unchanged():
    w, _r, _p = shop_wrapper()
    text = w.to_json()
    w2 = Wrapper.from_json(text)
    assert w2.to_json() == text
    assert w2 == w
    assert json.loads(text)["format"] == "scrapy-records-wrapper"
    assert json.loads(text)["provenance"]["sample_urls"] == ["http://shop.example/list"]
    # the loaded wrapper extracts the same records
    assert [r.text for r in w2.extract(SHOP).records] == [r.text for r in w.extract(SHOP).records]


def _doc():
    w, _r, _p = shop_wrapper()
    return json.loads(w.to_json())


def _mutations():
    def drop(key):
        def f(d):
            del d[key]

        return f

    def setter(path, value):
        def f(d):
            cur = d
            for p in path[:-1]:
                cur = cur[p]
            cur[path[-1]] = value

        return f

    return {
        "wrong version": setter(["version"], 4),
        "bool version": setter(["version"], True),
        "wrong format": setter(["format"], "something-else"),
        "missing record": drop("record"),
        "missing health": drop("health"),
        "unknown key": setter(["extra"], 1),
        "size as string": setter(["record", "size"], "1"),
        "size zero": setter(["record", "size"], 0),
        "optional not bool": setter(["fields", 0, "optional"], "yes"),
        "bad field type": setter(["fields", 0, "type"], "colour"),
        "xpath does not compile": setter(["record", "xpath"], "//li[@class='x'"),
        "css does not parse": setter(["record", "css"], "li..x >"),
        "fields not a list": setter(["fields"], {"a": 1}),
        "range reversed": setter(["health", "expected_records"], [5, 2]),
        "fill rate above 1": setter(["health", "fill_rates", "x"], 1.5),
        "empty id": setter(["id"], ""),
        "signature of strings": setter(["template", "signature"], ["a"]),
        "missing field key": lambda d: d["fields"][0].pop("attribute"),
        "duplicate field name": lambda d: d["fields"].append(dict(d["fields"][0])),
    }


@pytest.mark.parametrize("name", sorted(_mutations()))
def test_corrupt_documents_raise_wrapper_error(name):
    d = _doc()
    _mutations()[name](d)
    with pytest.raises(WrapperError):
        Wrapper.from_json(json.dumps(d))


def test_truncated_and_non_json_documents():
    text = shop_wrapper()[0].to_json()
    for bad in (text[: len(text) // 2], "", "null", "[1, 2]", b"\xff\xfe\x00", "not json"):
        with pytest.raises(WrapperError):
            Wrapper.from_json(bad)


def test_version_error_message_is_clear():
    d = _doc()
    d["version"] = 99
    with pytest.raises(WrapperError, match="unsupported wrapper version 99"):
        Wrapper.from_json(json.dumps(d))


# ----------------------------------------------------------------- induce
class _ItemsExtractor:
    """Test extractor: the children of the parent with the most same-tag children."""

    name = "testitems"

    def extract(self, page, **options):
        if options:
            raise TypeError(f"unknown options {sorted(options)}")
        best = None
        for p in range(page.n):
            kids = page.children[p]
            by_tag: dict[str, list[int]] = {}
            for k in kids:
                by_tag.setdefault(page.tag[k], []).append(k)
            for tag, ks in by_tag.items():
                if (
                    tag in ("li", "tr", "div")
                    and len(ks) >= 2
                    and (best is None or len(ks) > len(best[1]))
                ):
                    best = (p, ks)
        if best is None:
            return []
        p, ks = best
        return [build_region(page, self.name, p, [(k,) for k in ks], 0.8)]


register_extractor("testitems", _ItemsExtractor())


def test_induce_from_two_pages_keeps_what_holds_on_both():
    pages = [
        ("http://shop.example/a", SHOP_PAGE2),
        ("http://shop.example/b", SHOP_PAGE2.replace("Delta", "Omega")),
    ]
    w = induce(pages, extractor="testitems", template_id="t-lists")
    assert w.template.id == "t-lists" and w.template.method == "bottomk-tagpath-v2"
    assert len(w.template.signature) > 10
    assert w.provenance.extractor == "testitems"
    assert w.provenance.sample_urls == ["http://shop.example/a", "http://shop.example/b"]
    assert w.site == "shop.example"
    res = w.extract(SHOP_PAGE2)
    assert len(res.records) == 5  # the extractor's records include the ad on these pages
    assert Wrapper.from_json(w.to_json()).to_json() == w.to_json()


DETAIL = """<html><body><div id="hd">Book shop</div><h1>{title}</h1>
<p class="info"><b>Author:</b> {author}<br><b>Price:</b> {price}<br><b>Stock:</b> yes</p>
<div id="ft">(c) shop</div></body></html>"""


def test_induce_detail_pages_learns_page_fields():
    a = DETAIL.format(title="Dune", author="Frank Herbert", price="$9.99")
    b = DETAIL.format(title="Emma", author="Jane Austen", price="$4.50")
    c = DETAIL.format(title="Ulysses", author="James Joyce", price="$12.00")
    w = induce(
        [("http://books.example/1", a), ("http://books.example/2", b)], extractor="testitems"
    )
    res = w.extract(c)
    page_vals = res.regions[0].meta["page"]
    assert sorted(map(str, page_vals.values())) == ["$", "12.0", "James Joyce", "Ulysses"]
    # template text ("Title:", "Book shop") is not a field
    assert "Title:" not in page_vals.values() and "Book shop" not in page_vals.values()


def test_page_fields_are_named_by_their_heading_role_or_class_words():
    page = """<html><body><h1>{t}</h1><p class="price">{p}</p><p class="css-9x8y7z stock">{s}</p>
<p>{d}</p><div class="list"><span class="x">a</span></div></body></html>"""
    pages = [
        (f"http://shop.example/{k}", page.format(t=t, p=p, s=s, d=d))
        for k, (t, p, s, d) in enumerate(
            [("Lamp", "$5", "In stock", "Bright."), ("Fan", "$9", "Sold out", "Cool.")]
        )
    ]
    w = induce(pages, extractor="testitems")
    assert {f.name for f in w.page_fields} == {"title", "price", "stock", "p"}


def test_the_numbers_of_a_pagination_are_no_page_fields():
    """The demo shop's list pages: "1 [2] 3 4 5" below the products changes with the page,
    but a page number among numbered links is navigation; the heading stays a field."""
    page = """<html><body><h1>All products, page {k}</h1><ul>{items}</ul>
<div class="pagination">{pager}</div></body></html>"""

    def shop(k: int) -> str:
        items = "".join(
            f"<li><a href='/p/{k}{i}'>Product {k}{i}</a> <span>${k}{i}.00</span></li>"
            for i in range(4)
        )
        pager = " ".join(
            f"<span class='current'>{j}</span>" if j == k else f"<a href='/page/{j}'>{j}</a>"
            for j in range(1, 6)
        )
        return page.format(k=k, items=items, pager=pager)

    w = induce([(f"http://shop.example/page/{k}", shop(k)) for k in (2, 3)])
    assert [f.name for f in w.page_fields] == ["title"]
    assert w.extract(shop(4)).regions[0].meta["page"]["title"] == "All products, page 4"


def test_induce_registry_and_errors():
    calls = []

    def fake(pages, **options):
        calls.append((len(pages), options))
        return shop_wrapper()[0]

    register_inducer("fake", fake)
    w = induce([SHOP, SHOP_PAGE2], extractor="fake", x=1)
    assert calls == [(2, {"x": 1})] and w.record is not None
    with pytest.raises(WrapperError):
        induce([], extractor="testitems")
    with pytest.raises(WrapperError):
        induce(["<html><body><p>just one paragraph</p></body></html>"], extractor="testitems")


def test_hand_built_wrapper_validates():
    w = Wrapper(
        id="x",
        record=RecordSelector("//li"),
        fields=[FieldSpec("a", "colour", "a")],
        provenance=Provenance(extractor="gstm"),
    )
    with pytest.raises(WrapperError, match="colour"):
        w.validate()


NESTED = """<html><body><div id="posts">
<div class="post"><h2>First</h2><ul class="comments">
  <li><a href="/u/ann">ann</a> <span>Nice post</span></li>
  <li><a href="/u/bob">bob</a> <span>Agreed</span></li></ul></div>
<div class="post"><h2>Second</h2><ul class="comments">
  <li><a href="/u/cy">cy</a> <span>Hmm</span></li></ul></div>
<div class="post"><h2>Third</h2><ul class="comments">
  <li><a href="/u/dee">dee</a> <span>Yes</span></li>
  <li><a href="/u/eve">eve</a> <span>No</span></li>
  <li><a href="/u/fay">fay</a> <span>Maybe</span></li></ul></div>
</div></body></html>"""


def test_repeated_parts_are_list_fields_mined_and_wrapped_alike():
    """Each post's comments are one list per value (names, links, texts), not comments,
    comments_2, comments_3; the wrapper reads the same lists as mining."""
    page = Page(NESTED, "http://blog.example/")
    region = _region(page, [(i,) for i in _nodes(page, "div", "post")])
    lists = [c for c in region.columns if c.multiple]
    assert [c.xpath for c in lists] == ["ul/li/a", "ul/li/a/@href", "ul/li/span"]
    mined = [r.fields for r in region.records]
    assert [len(f[lists[0].name]) for f in mined] == [2, 1, 3]
    assert mined[2][lists[2].name] == ["Yes", "No", "Maybe"]
    assert mined[0][lists[1].name][0] == "http://blog.example/u/ann"
    w = Wrapper.from_region(region, page)
    assert all(f.multiple for f in w.fields if f.name in {c.name for c in lists})
    res = w.extract(NESTED, url="http://blog.example/")
    assert [r.fields for r in res.records] == mined
    assert Wrapper.from_json(w.to_json()).to_json() == w.to_json()


def test_label_anchored_page_fields_survive_layout_shift():
    a = DETAIL.format(title="Dune", author="Frank Herbert", price="$9.99")
    b = DETAIL.format(title="Emma", author="Jane Austen", price="$4.50")
    w = induce(
        [("http://books.example/1", a), ("http://books.example/2", b)], extractor="testitems"
    )
    labelled = [f for f in w.page_fields if "following::text()" in f.xpath]
    assert {"author", "price"} <= {f.name for f in labelled}
    shifted = DETAIL.format(title="Ulysses", author="James Joyce", price="$12.00").replace(
        '<p class="info">', '<div class="banner"><p>Sale!</p></div><p class="info">'
    )
    res = w.extract(shifted)
    page_vals = res.regions[0].meta["page"]
    assert page_vals["author"] == "James Joyce" and page_vals["price"] == 12.0
    # the one-pass evaluation gives what the stored XPaths give
    from lxml import html as lhtml

    root = lhtml.document_fromstring(shifted)
    for f in labelled:
        got = " ".join(root.xpath(f.xpath)[0].split())
        assert got == (page_vals[f.name] if f.type == "text" else "$12.00")


def test_a_value_two_sample_pages_share_is_no_label_of_the_next_paragraph():
    """The demo shop's product pages: "In stock" in its own paragraph on both sample pages
    read as a label, and the description after it became a page field ``in_stock`` that
    an out-of-stock page lacked. A label ends with ":", sits in a label element, or shares
    a small element with its value."""
    page = (
        "<html><body><div class='detail'><h1>{t}</h1><p class='stock'>{s}</p>"
        "<p class='desc'>{d}</p><table><tr><th>Colour</th><td>{c}</td></tr></table>"
        "<ul class='reviews'>{r}</ul></div></body></html>"
    )
    reviews = "".join(
        f"<li class='review'><span class='author'>{who}</span><p>Review text by {who}.</p></li>"
        for who in ("ann", "bob", "cy")
    )
    a = page.format(t="Teapot 3", s="In stock", d="A teapot that pours.", c="Green", r=reviews)
    b = page.format(t="Lamp 7", s="In stock", d="A lamp for long nights.", c="Steel", r=reviews)
    w = induce([("http://shop.example/p/3", a), ("http://shop.example/p/7", b)])
    labelled = {f.name for f in w.page_fields if "following::text()" in f.xpath}
    assert "colour" in labelled and "in_stock" not in labelled
    c = page.format(t="Kettle 9", s="Out of stock", d="A kettle that sings.", c="Blue", r=reviews)
    vals = w.extract(c, url="http://shop.example/p/9").regions[0].meta["page"]
    assert vals["colour"] == "Blue" and "in_stock" not in vals


def test_field_names_follow_the_extractor_columns_when_values_agree():
    w, region, page = shop_wrapper()
    res = w.extract(page)
    shared = {f.name for f in w.fields} & {c.name for c in region.columns}
    assert shared
    for name in shared:
        assert [str(r.fields.get(name)) for r in res.records] == [
            str(r.fields.get(name)) for r in region.records
        ]
    assert len({f.name for f in w.fields}) == len(w.fields)


def test_wrapper_copies_after_use():
    import copy

    w, _r, _p = shop_wrapper()
    first = [r.fields for r in w.extract(SHOP).records]
    w2 = copy.deepcopy(w)
    assert w2 == w and [r.fields for r in w2.extract(SHOP).records] == first


def test_bad_and_extreme_inputs():
    from scrapy_records import EmptyDocumentError, NotHTMLError

    w, _r, _p = shop_wrapper()
    with pytest.raises(EmptyDocumentError):
        w.extract(b"   \n")
    with pytest.raises(NotHTMLError):
        w.extract(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    w.stale = False
    deep = "<html><body>" + "<div>" * 1500 + "x" + "</div>" * 1500 + SHOP[SHOP.index("<ul") :]
    res = w.extract(deep)
    assert [r.fields.get("price") for r in res.records] == [10.0, 12.5, None]
    assert not w.stale


def test_apply_to_scrapy_response_reuses_its_url():
    from scrapy.http import HtmlResponse

    w, _r, _p = shop_wrapper()
    resp = HtmlResponse(
        url="http://shop.example/list?p=2", body=SHOP_PAGE2.encode(), encoding="utf-8"
    )
    res = w.extract(resp)
    assert res.url == "http://shop.example/list?p=2"
    url_field = next(f.name for f in w.fields if f.type == "url")
    assert [r.fields[url_field] for r in res.records][:2] == [
        "http://shop.example/p/7",
        "http://shop.example/p/8",
    ]


def test_response_tree_is_reused_when_it_exists():
    from scrapy.http import HtmlResponse

    w, _r, _p = shop_wrapper()
    fresh = HtmlResponse(
        url="http://shop.example/l", body=SHOP_PAGE2.encode("cp1252"), encoding="cp1252"
    )
    used = HtmlResponse(
        url="http://shop.example/l", body=SHOP_PAGE2.encode("cp1252"), encoding="cp1252"
    )
    assert len(used.css("li.item")) == 4  # the spider already built the selector tree
    a, b = w.extract(fresh), w.extract(used)
    assert [r.fields for r in a.records] == [r.fields for r in b.records]
    assert [r.xpaths for r in a.records] == [r.xpaths for r in b.records]
    assert len(a.records) == 4


def _detail_page(name: str, price: str, maker: str, year: str) -> str:
    return f"""<html><body><div id="nav"><a href="/">Home</a> <a href="/cars">Cars</a></div>
    <div class="car"><h1>{name}</h1>
    <table class="specs"><tr><td>Price:</td><td>{price}</td></tr>
    <tr><td>Maker:</td><td>{maker}</td></tr><tr><td>Year:</td><td>{year}</td></tr></table>
    <p class="about">The {name} is a car made by {maker} in {year}, offered at {price}
    with a full service history and two keys.</p></div>
    <div id="footer">Copyright Cars Inc.</div></body></html>"""


def test_auto_induction_prefers_dcade_for_detail_pages_and_lists_for_list_pages():
    from scrapy_records import induce

    details = [
        (f"https://cars.example/car/{k}", _detail_page(n, p, m, y))
        for k, (n, p, m, y) in enumerate(
            [
                ("Roadster", "$21,000", "Acme", "2019"),
                ("Wagon", "$18,500", "Bolt", "2017"),
                ("Coupe", "$30,250", "Crux", "2021"),
                ("Van", "$16,100", "Euro", "2016"),
                ("Sedan", "$19,990", "Fiat", "2018"),
            ]
        )
    ]
    w = induce(details, extractor="auto")
    assert w.provenance.extractor == "dcade"
    assert induce(details[:2], extractor="auto").provenance.extractor != "dcade"  # too few pages
    got = w.extract(
        _detail_page("Pickup", "$25,900", "Dyna", "2020"), url="https://cars.example/car/9"
    )
    values = " ".join(str(v) for r in got.regions for rec in r.records for v in rec.fields.values())
    assert "Pickup" in values and "Dyna" in values

    def list_page(offset: int) -> str:
        items = "".join(
            f"<li class='item'><a href='/p/{k}'>Product number {k} with a long name</a>"
            f"<span class='price'>${k}.99</span></li>"
            for k in range(offset, offset + 6)
        )
        return f"<html><body><h1>Shop</h1><ul id='results'>{items}</ul></body></html>"

    w = induce([("https://s.example/1", list_page(0)), ("https://s.example/2", list_page(10))])
    assert w.provenance.extractor != "dcade"
    assert w.record is not None
    assert len(w.extract(list_page(40), url="https://s.example/3").regions[0].records) == 6


def test_records_of_varying_length_round_trip_with_until_next_span():
    from scrapy_records import Page, Wrapper
    from scrapy_records.extractors import build_region

    items = []
    for k in range(5):
        items.append(
            f"<table class='res'><tr><td><a href='/r/{k}'>Result {k}</a> snippet {k}</td></tr></table>"
        )
        if k < 4:  # the last result has no separator
            items.append("<hr>")
    html = (
        f"<html><body><div class='results'>{''.join(items)}</div><p>footer text</p></body></html>"
    )
    page = Page(html, url="https://s.example/")
    box = page.tag.index("div")
    kids = page.children[box]
    groups = [kids[i : i + 2] for i in range(0, 8, 2)] + [[kids[8]]]
    region = build_region(page, "test", box, groups, 0.9)
    w = Wrapper.from_region(region, page)
    assert w.record.span == "until_next" and w.record.size == 2
    again = Wrapper.from_json(w.to_json())
    got = again.extract(html, url="https://s.example/").regions[0]
    assert [r.xpaths for r in got.records] == [r.xpaths for r in region.records]
    assert got.records[-1].xpaths == ["/html/body/div/table[5]"]
    doc = json.loads(w.to_json())
    doc["record"]["span"] = "sometimes"
    with pytest.raises(WrapperError, match="span"):
        Wrapper.from_json(json.dumps(doc))


def test_until_next_records_whose_first_record_is_the_short_one():
    from scrapy_records import Page, Wrapper
    from scrapy_records.extractors import build_region

    parts = ["<table class='res'><tr><td><a href='/r/0'>Result 0</a></td></tr></table>"]
    for k in range(1, 5):
        parts.append(
            f"<table class='res'><tr><td><a href='/r/{k}'>Result {k}</a></td></tr></table>"
            f"<p class='note'>note {k}</p>"
        )
    html = f"<html><body><div class='results'>{''.join(parts)}</div></body></html>"
    page = Page(html)
    kids = page.children[page.tag.index("div")]
    groups = [[kids[0]]] + [kids[i : i + 2] for i in range(1, 9, 2)]
    w = Wrapper.from_region(build_region(page, "test", page.tag.index("div"), groups, 0.9), page)
    recs = w.extract(html).regions[0].records
    assert [len(r.xpaths) for r in recs] == [1, 2, 2, 2, 2]
    assert "note 4" in recs[-1].text


def test_records_with_gaps_span_to_their_last_element():
    from scrapy_records import Page, Wrapper
    from scrapy_records.extractors import build_region

    parts = "".join(
        f"<a href='/r/{k}'>Result {k}</a><br><b>hot</b> snippet {k}<br><small>site{k}.example</small><br>"
        for k in range(4)
    )
    html = f"<html><body><div class='results'>{parts}</div></body></html>"
    page = Page(html)
    box = page.tag.index("div")
    kids = page.children[box]  # a br b br small br, per record
    groups = [
        [kids[i], kids[i + 1], kids[i + 3], kids[i + 4], kids[i + 5]] for i in range(0, 24, 6)
    ]  # <b> left out
    region = build_region(page, "test", box, groups, 0.9)
    assert region.records[1].text == "Result 1 hot snippet 1 site1.example"
    w = Wrapper.from_region(region, page)
    assert w.record.span == "until_next" and w.record.size == 6
    got = w.extract(html).regions[0].records
    assert [r.text for r in got] == [r.text for r in region.records]


def test_records_of_a_list_libxml2_nested_have_their_own_text():
    # unclosed <dd> items, each ending in an open <p>: libxml2 nests every item in the one
    # before; the wrapper's records carry one item's text each, as the page model's do
    from scrapy_records import extract as _extract

    html = (
        "<html><body><h2>Results</h2><dl><dt>"
        + "".join(
            f"<dd>{k} -- <b>Title {k}</b> -- {k}0 Bytes<br><a href='/doc/{k}'>/doc/{k}</a><br><p>\n"
            for k in range(1, 7)
        )
        + "</dl></body></html>"
    )
    result = _extract(html, extractor="mdr")
    main = result.main
    assert [r.text for r in main.records][:2] == [
        "1 -- Title 1 -- 10 Bytes /doc/1",
        "2 -- Title 2 -- 20 Bytes /doc/2",
    ]
    w = Wrapper.from_region(main, Page(html))
    got = w.extract(html)
    assert [r.text for r in got.records] == [r.text for r in main.records]
    assert [r.xpaths for r in got.records] == [r.xpaths for r in main.records]


def test_inducers_from_the_entry_point_group(monkeypatch):
    import importlib
    from importlib.metadata import EntryPoint

    # the registry induce() reads
    reg = importlib.import_module("scrapy_records.wrappers.registry")

    eps = [
        EntryPoint(
            name="toy-inducer", value="tests.test_wrapper:_toy_inducer", group=reg.ENTRY_POINT_GROUP
        ),
        EntryPoint(name="broken", value="tests.no_such_module:fn", group=reg.ENTRY_POINT_GROUP),
    ]
    monkeypatch.setattr(
        reg, "entry_points", lambda group: eps if group == reg.ENTRY_POINT_GROUP else []
    )
    monkeypatch.setattr(reg, "_registered", {})  # registrations of this test end with it
    w = induce([SHOP, SHOP_PAGE2], extractor="toy-inducer", marker="ep")
    assert w.provenance.extractor == "toy-inducer" and w.provenance.options == {"marker": "ep"}
    with pytest.raises(WrapperError, match="broken"):
        induce([SHOP], extractor="broken")
    # a run-time registration takes precedence over the entry point
    register_inducer("toy-inducer", lambda pages, **options: shop_wrapper()[0])
    assert induce([SHOP], extractor="toy-inducer").provenance.extractor == "test"


def _toy_inducer(pages, **options):
    w = shop_wrapper()[0]
    w.provenance.extractor = "toy-inducer"
    w.provenance.options = dict(options)
    return w
