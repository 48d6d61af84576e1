"""The ``auto`` policy (scrapy_records/auto.py): MDR + STEM with agreement, MiBAT routing."""

from __future__ import annotations

import pytest

from scrapy_records import extract
from scrapy_records.extractors import build_region
from scrapy_records.extractors.auto import (
    AUTO_MAIN_THRESHOLD,
    agreement,
    auto_extract,
    main_threshold_for,
)
from scrapy_records.extractors.ranking import rank, region_score
from scrapy_records.page import Page


def wrap(body: str) -> str:
    return (
        "<html><head><title>t</title></head><body><div id='nav'><a href='/'>Home</a> "
        f"<a href='/about'>About</a></div>{body}<div id='foot'>Copyright 2026</div></body></html>"
    )


def results(n: int) -> str:
    return (
        "<div id='results'>"
        + "".join(
            f"<div class='r'><h3><a href='/doc/{i}'>Result title number {i}</a></h3>"
            f"<p>A snippet of text for result {i} that describes the document in a few words.</p>"
            f"<span class='url'>www.example.com/doc/{i}</span></div>"
            for i in range(n)
        )
        + "</div>"
    )


ARTICLE = wrap(
    "<div id='article'><h1>An article</h1>"
    + "".join(
        f"<p>Paragraph {i} of a long article about nothing in particular, with some words.</p>"
        for i in range(4)
    )
    + "<ul class='menu'><li><a href='/a'>News</a></li><li><a href='/b'>Sport</a></li>"
    "<li><a href='/c'>Weather</a></li></ul></div>"
)

BODIES = [
    "I have the same problem with my router since the last update, any idea?",
    "Did you try to reset it to factory settings? That fixed it for me last year.",
    "Yes, I tried that twice and it still drops the connection every evening.",
    "Then it is probably the firmware. Roll back to the previous version from the support site.",
    "Thanks, rolling back worked. The connection has been stable for two days now.",
]


def post(i: int, body: str) -> str:
    return (
        f"<div class='post' id='post{i}'><div class='postheader'>"
        f"<a class='username' href='/member.php?u={i}'>user{i}</a>"
        f" <span class='date'>{i + 3} March 2010, 10:{i:02d}</span></div>"
        f"<div class='postbody'><p>{body}</p></div></div>"
    )


FORUM = wrap("<div id='posts'>" + "".join(post(i, b) for i, b in enumerate(BODIES)) + "</div>")


def test_list_found_by_both_extractors_is_reported_once_with_full_confidence():
    page = Page(wrap(results(8)), url="http://example.com/")
    regions = auto_extract(page)
    main = regions[0]
    assert len(main.records) == 8
    assert main.records[0].xpaths == ["/html/body/div[2]/div[1]"]
    # both MDR and STEM cut the same 8 records: agreement 1, confidence unchanged, one copy
    assert main.meta["agreement"] == 1.0
    assert main.confidence == pytest.approx(main.meta["extractor_confidence"])
    assert main.confidence > 0.8
    other = {"mdr": "stem", "stem": "mdr"}[main.extractor]
    assert main.meta["confirmed_by"] == [other]
    same = [
        r
        for r in regions
        if [rec.nodes for rec in r.records] == [rec.nodes for rec in main.records]
    ]
    assert same == [main]


def test_public_api_auto_main_region_has_fields():
    res = extract(wrap(results(8)), url="http://example.com/")
    fields = res.main.records[0].fields
    assert fields["title"] == "Result title number 0"
    assert fields["url"] == "http://example.com/doc/0"


def test_region_seen_by_one_extractor_only_is_halved():
    page = Page(ARTICLE)
    regions = auto_extract(page)
    alone = [r for r in regions if r.meta["agreement"] == 0.0]
    assert alone
    for r in alone:
        assert r.confidence == pytest.approx(0.5 * r.meta["extractor_confidence"])
    # no list here: the best auto confidence is below the auto main threshold
    assert regions[0].confidence < AUTO_MAIN_THRESHOLD
    res = extract(ARTICLE, main_threshold=main_threshold_for("auto"))
    assert res.main is None and res.regions


def test_agreement_is_shared_record_starts_over_the_larger_region():
    page = Page(wrap(results(6)))
    kids = page.children[page.index(page.root.xpath("//div[@id='results']")[0])]
    full = build_region(page, "mdr", page.parent[kids[0]], [(k,) for k in kids], 0.9, align=False)
    part = build_region(
        page, "stem", page.parent[kids[0]], [(k,) for k in kids[:3]], 0.9, align=False
    )
    other = build_region(
        page, "stem", page.body, [(page.body + 1,), (page.body + 2,)], 0.9, align=False
    )
    ag = agreement({"mdr": [full], "stem": [part, other]})
    assert ag[id(full)] == (0.5, part)
    assert ag[id(part)] == (0.5, full)
    assert ag[id(other)] == (0.0, None)


def test_forum_page_is_routed_to_mibat():
    res = extract(FORUM, url="http://forum.example.com/t/1")
    main = res.main
    assert main.extractor == "mibat" and len(main.records) == 5
    assert main.records[0].fields["author"] == "user0"
    assert main.records[0].fields["date"].startswith("2010-03-03T10:00")
    # without the routing the list extractors see the same 5 posts, without post fields
    plain = auto_extract(Page(FORUM), ugc=False)
    assert plain[0].extractor in ("mdr", "stem") and len(plain[0].records) == 5


def test_options_go_to_the_extractors_that_accept_them():
    page = Page(wrap(results(8)))
    a = auto_extract(page, K=5, alpha=0.7, tau=0.5, align=False)
    assert len(a[0].records) == 8
    only_mdr = auto_extract(page, extractors=("mdr",), ugc=False)
    assert {r.extractor for r in only_mdr} == {"mdr"}
    assert "agreement" not in only_mdr[0].meta
    with pytest.raises(TypeError):
        auto_extract(page, no_such_option=1)
    with pytest.raises(TypeError):
        extract(wrap(results(3)), extractor="auto", no_such_option=1)


def test_count_exponent_of_the_ranking():
    page = Page(wrap(results(8)))
    r = build_region(
        page,
        "x",
        page.body,
        [(page.body + 1,), (page.body + 2,), (page.body + 3,)],
        1.0,
        align=False,
    )
    one = region_score(page, r)
    half = region_score(page, r, count_exponent=0.5)
    assert one == pytest.approx(half * 2.0**0.5)  # log2(1 + 3) = 2
    assert rank(page, [r], count_exponent=0.5)[0].score == pytest.approx(half)


def _menu(n: int) -> str:
    return (
        "<ul>"
        + "".join(
            f"<li><a href='/section/{i}'>Section number {i}</a><ul><li><a href='/section/{i}/a'>Latest "
            f"news of section {i}</a></li><li><a href='/section/{i}/b'>Archive of section {i}</a></li></ul></li>"
            for i in range(n)
        )
        + "</ul>"
    )


def test_a_menu_in_page_chrome_is_no_main_region_but_the_list_is():
    from scrapy_records.extractors.auto import chrome_of

    # a big menu of 30 sections outranks a list of 4 results by size alone
    page = Page(
        "<html><body class='home custom-header'><nav class='main-nav'>" + _menu(30) + "</nav>"
        "<main>" + results(4) + "</main></body></html>"
    )
    result = extract(page)
    assert result.main is not None and result.main.xpath.endswith("div")
    assert [r.text.split(" ")[3] for r in result.main.records] == ["0", "1", "2", "3"]
    menus = [r for r in result.regions if r.meta.get("chrome")]
    assert menus and all(r.meta["chrome"] == "nav" for r in menus)
    assert any("inside <nav>" in why for why in menus[0].meta["rank_reasons"])
    # the body's CMS classes say nothing; a wrapper named after content and sidebar neither
    assert chrome_of(page, page.body) is None
    wrap_page = Page(
        "<html><body><div class='content-sidebar-wrap'>" + results(3) + "</div></body></html>"
    )
    assert chrome_of(wrap_page, wrap_page.tag.index("div")) is None
    aside = Page(
        "<html><body><main>" + results(8) + "</main><div role='complementary'>"
        "<div class='widget-list'>" + results(2) + "</div></div></body></html>"
    )
    outer = [i for i, t in enumerate(aside.tag) if t == "div" and aside.attr(i, "role")][0]
    assert chrome_of(aside, outer) == "role=complementary"
    # class names are not read: the nearest reason is the landmark role above
    assert chrome_of(aside, outer + 1) == "role=complementary"


def test_a_page_whose_only_list_is_its_menu_has_no_main_region():
    page = Page(
        "<html><body><header><nav>" + _menu(10) + "</nav></header>"
        "<article><h1>A story</h1><p>"
        + "Words of the story. " * 40
        + "</p></article></body></html>"
    )
    result = extract(page)
    assert result.main is None
    assert result.regions and result.regions[0].meta.get("chrome") in ("nav", "header")


def test_share_buttons_are_pushed_down_by_their_links_not_by_their_class():
    """A row of share links ("Share this with Facebook"...) is not chrome by its class
    names (``share-tools``), but its text is all link text: a real list next to it ranks
    first."""
    from scrapy_records.extractors.auto import chrome_of

    share = "".join(
        f"<li class='sharetools__item'><a href='https://share.example/{n}'>"
        f"<span>Share this with {n}</span></a></li>"
        for n in ("Facebook", "Twitter", "Messenger", "Email", "Pinterest", "LinkedIn")
    )
    page = Page(
        "<html><body><div class='story-body'><h1>A story</h1>"
        "<div class='share-tools--event-tag'><ul class='sharetools'>" + share + "</ul></div>"
        "<p>" + "Words of the story, told at length. " * 10 + "</p>"
        "<div class='related'>" + results(4) + "</div></div></body></html>"
    )
    ul = page.tag.index("ul")
    assert chrome_of(page, ul) is None
    result = extract(page)
    assert result.main is not None and len(result.main.records) == 4
    buttons = [r for r in result.regions if r.parent == ul]
    assert buttons and buttons[0].meta["score_terms"]["link_share"] == 1.0
    assert any("100% of the text in links" in why for why in buttons[0].meta["rank_reasons"])


def test_a_main_column_named_after_its_sidebar_is_no_chrome():
    from scrapy_records.extractors.auto import chrome_of

    # WordPress-style layout classes on the wrapper of the page's main content
    page = Page(
        "<html><body><div id='primary' class='content-area with-sidebar'>"
        + results(6)
        + "</div><div class='sidebar'><ul><li><a href='/a'>About</a></li></ul></div></body></html>"
    )
    wrapper = page.tag.index("div")
    assert chrome_of(page, wrapper) is None
    sidebar = [
        i for i, t in enumerate(page.tag) if t == "div" and page.attr(i, "class") == "sidebar"
    ][0]
    assert chrome_of(page, sidebar) is None  # a name is no evidence, an <aside> would be
    result = extract(page)
    assert (
        result.main is not None
        and len(result.main.records) == 6
        and "chrome" not in result.main.meta
    )


def test_results_whose_snippets_wrap_each_word_in_empty_tags_are_one_list():
    # WebMD's search results: some snippets hold hundreds of empty <strong></strong> pairs,
    # which made those results look unlike the others and the list came out cut in pieces
    def snippet(i: int) -> str:
        words = f"Chemicals are the most likely source number {i} of air contamination".split()
        if i % 3 == 0:
            return "".join(f"<strong></strong>{w}<strong></strong> " for w in words)
        return " ".join(words)

    items = "".join(
        f"<li><a href='/a/{i}'>Public <strong>health</strong> threat {i}</a><br>"
        f"<div class='desc'>{snippet(i)}</div> <div class='src'>WebMD News {i}</div></li>"
        for i in range(8)
    )
    result = extract(wrap(f"<ul class='results'>{items}</ul>"))
    assert result.main is not None
    assert len(result.main.records) == 8
    assert result.main.records[3].text.startswith("Public health threat 3")
    assert "Chemicals are the most likely source number 3" in result.main.records[3].text
