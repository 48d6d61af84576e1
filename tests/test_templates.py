"""Template grouping: list, detail and forum pages of one hand-made site get separate ids."""

from __future__ import annotations

import pytest

from scrapy_records import Page, WrapperError
from scrapy_records.wrappers.templates import TemplateGrouper, page_signature, similarity

HEAD = """<html><head><title>{title}</title></head><body>
<div id="header"><a href="/">Shop</a> <a href="/forum">Forum</a> <a href="/help">Help</a></div>
<div id="main">"""
FOOT = """</div><div id="footer"><p>(c) 2024 Shop Inc.</p><a href="/terms">Terms</a></div></body></html>"""


def list_page(n: int, offset: int = 0) -> str:
    items = "".join(
        f'<li class="product"><a href="/p/{offset + k}"><img src="/i/{offset + k}.jpg"></a>'
        f'<h3><a href="/p/{offset + k}">Product {offset + k}</a></h3><span class="price">${k}.99</span></li>'
        for k in range(n)
    )
    return (
        HEAD.format(title="Products")
        + '<h1>Products</h1><ul class="products">'
        + items
        + '</ul><div class="pager"><a href="?p=2">next</a></div>'
        + FOOT
    )


def detail_page(k: int, reviews: int = 0) -> str:
    rev = "".join(
        f'<blockquote class="review">Review {r} of {k}</blockquote>' for r in range(reviews)
    )
    return (
        HEAD.format(title=f"Product {k}")
        + f'<div class="product-detail"><h1>Product {k}</h1><img class="hero" src="/i/{k}.jpg">'
        + f'<table class="specs"><tr><th>Weight</th><td>{k} kg</td></tr>'
        + "<tr><th>Colour</th><td>red</td></tr></table>"
        + f'<p class="description">Product {k} is very good.</p>'
        + f'<button class="buy">Add to cart</button>{rev}</div>'
        + FOOT
    )


def forum_page(posts: int, topic: str = "Help") -> str:
    body = "".join(
        f'<div class="post"><div class="post-author"><a href="/u/{p}">user{p}</a>'
        f'<span class="post-date">2024-01-0{1 + p % 9}</span></div>'
        f'<div class="post-body"><p>Message {p} about {topic}</p></div></div>'
        for p in range(posts)
    )
    return (
        HEAD.format(title=f"Thread {topic}")
        + f'<h2 class="thread-title">{topic}</h2>'
        + f'<div class="thread">{body}</div><form class="reply"><textarea></textarea></form>'
        + FOOT
    )


SITE = {
    "list": [list_page(10), list_page(12, 10), list_page(7, 30)],
    "detail": [detail_page(1), detail_page(2, reviews=2), detail_page(3, reviews=1)],
    "forum": [forum_page(4, "Help"), forum_page(9, "Prices"), forum_page(2, "Shipping")],
}


def test_grouping_separates_list_detail_and_forum_pages():
    g = TemplateGrouper()
    ids = {kind: [g.assign(Page(html)) for html in pages] for kind, pages in SITE.items()}
    for kind, got in ids.items():
        assert len(set(got)) == 1, (kind, got)
    assert len({got[0] for got in ids.values()}) == 3
    assert len(g) == 3
    assert g.counts == {ids["list"][0]: 3, ids["detail"][0]: 3, ids["forum"][0]: 3}


def test_grouping_is_deterministic_across_groupers_and_orderings_of_members():
    order = [html for pages in SITE.values() for html in pages]
    a = [TemplateGrouper().assign(h) for h in order[:1]]
    g1, g2 = TemplateGrouper(), TemplateGrouper()
    first = [g1.assign(h) for h in order]
    second = [g2.assign(Page(h)) for h in order]
    assert first == second
    assert first[0] == a[0]
    assert all(t.startswith("t-") and len(t) == 12 for t in first)
    # the signature is a pure function of the page
    assert page_signature(Page(order[0])) == page_signature(Page(order[0]))


def test_saved_grouper_keeps_assigning_stored_ids():
    g = TemplateGrouper()
    ids = [g.assign(h) for h in (SITE["list"][0], SITE["forum"][0])]
    g2 = TemplateGrouper.from_json(g.to_json())
    assert g2.assign(SITE["list"][2]) == ids[0]
    assert g2.assign(SITE["forum"][1]) == ids[1]
    assert g2.to_json() != g.to_json()  # page counts moved on
    assert len(g2) == 2


def test_similarity_values():
    s_list = [page_signature(Page(h)) for h in SITE["list"]]
    s_detail = page_signature(Page(SITE["detail"][0]))
    assert similarity(s_list[0], s_list[0]) == 1.0
    assert similarity(s_list[0], s_list[1]) >= 0.9
    assert similarity(s_list[0], s_detail) < 0.6
    assert 0.0 <= similarity(s_list[2], s_detail) <= 1.0


def test_threshold_one_splits_everything_that_differs():
    g = TemplateGrouper(threshold=1.0)
    a = g.assign(SITE["detail"][0])
    b = g.assign(SITE["detail"][1])  # has reviews: different paths
    assert a != b
    assert g.assign(SITE["detail"][0]) == a


def test_bad_inputs():
    with pytest.raises(ValueError):
        TemplateGrouper(threshold=0)
    with pytest.raises(WrapperError):
        TemplateGrouper.from_json("{not json")
    with pytest.raises(WrapperError):
        TemplateGrouper.from_json(
            '{"threshold": 0.6, "k": 128, "clusters": [{"id": "t", "pages": 1, '
            '"signature": {"method": "other"}}]}'
        )


def test_signature_from_the_tree_equals_the_page_models_even_after_repairs():
    """The crawl's wrapper path signs the parsed tree without building a page model; the
    unsupervised path signs the page model. Both must give one signature, also where the
    model repaired the tree (unclosed <li>s nest in libxml2's tree, not in the model)."""
    from lxml import etree

    from scrapy_records.wrappers.templates import METHOD, Signature

    unclosed = (
        "<html><body><ul>"
        + "".join(f"<li><font size=2><a href='/{k}'>item {k}</a> text" for k in range(6))
        + "</ul><script>var x = '<div>';</script><svg><g><path/></g></svg></body></html>"
    )
    for html in (list_page(5), forum_page(3), unclosed):
        page = Page(html)
        sig = page_signature(page)
        assert page_signature(html) == sig  # raw markup
        assert page_signature(etree.fromstring(html, etree.HTMLParser())) == sig  # a parsed tree
        assert sig.method == METHOD == "bottomk-tagpath-v2"
    page = Page(unclosed)
    assert page._rparent is not page.parent  # the model did repair this one
    # the v1 signatures of existing stores are still read (and compared)
    old = Signature.from_dict(dict(page_signature(page).to_dict(), method="bottomk-tagpath-v1"))
    assert old.method == "bottomk-tagpath-v1" and similarity(old, page_signature(page)) == 1.0
    with pytest.raises(WrapperError):
        Signature.from_dict(dict(old.to_dict(), method="something-else"))


def test_signature_from_the_tree_is_the_page_models_with_empty_inline_elements():
    import lxml.html

    html = (
        "<html><body><ul>"
        + "".join(
            f"<li><a href='/{k}'>Item {k}</a><strong></strong>word<strong></strong> <b>x</b></li>"
            for k in range(30)
        )
        + "</ul></body></html>"
    )
    from_tree = page_signature(lxml.html.fromstring(html))
    from_model = page_signature(Page(html))
    assert from_tree.sketch == from_model.sketch
