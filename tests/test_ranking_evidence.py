"""What ``auto`` weighs to find "the records of this page", one pattern per test: a content
list under class names with menu words, dated product and video lists that are no user
posts, card grids, rows without text, related links beside an article, and the reasons
the ranking gives in words (``meta["rank_reasons"]``, the summary and the preview)."""

from __future__ import annotations

import io

from scrapy_records import extract
from scrapy_records.extractors import build_region
from scrapy_records.extractors.auto import chrome_of
from scrapy_records.extractors.cards import split_card_rows
from scrapy_records.extractors.evidence import PageText, demotion, inner_lists_only
from scrapy_records.extractors.explain import explain
from scrapy_records.extractors.mibat.anchors import DateAnchor
from scrapy_records.extractors.mibat.ugc import is_ugc_page
from scrapy_records.page import Page


def wrap(body: str) -> str:
    return (
        "<html><head><title>t</title></head><body><header><nav><a href='/'>Home</a> "
        f"<a href='/about'>About us</a> <a href='/help'>Help</a></nav></header>{body}"
        "<footer>Copyright 2026 Example Inc. All rights reserved.</footer></body></html>"
    )


def results(n: int) -> str:
    return (
        "<div class='results'>"
        + "".join(
            f"<div class='r'><h3><a href='/doc/{i}'>Result title number {i}</a></h3>"
            f"<p>A snippet of text for result {i} that describes the document in a few words.</p>"
            f"<span class='url'>www.example.com/doc/{i}</span></div>"
            for i in range(n)
        )
        + "</div>"
    )


# ------------------------------------------------------------ class names say nothing
def test_a_result_list_under_menu_words_in_class_names_is_the_main_region():
    # Amazon and Best Buy wrap their result lists in elements named after their menus
    page = Page(
        wrap(
            "<div id='a-page' class='nav_redesign'><div class='has-sticky-nav'>"
            "<div class='s-main fixed-header-offset'>" + results(6) + "</div></div></div>"
        )
    )
    result = extract(page)
    assert result.main is not None and len(result.main.records) == 6
    assert "chrome" not in result.main.meta
    wrapper = [i for i, t in enumerate(page.tag) if page.attr(i, "class") == "has-sticky-nav"][0]
    assert chrome_of(page, wrapper) is None
    # the menu in <nav> is chrome by its landmark
    assert chrome_of(page, page.tag.index("nav")) == "nav"


def test_a_header_of_an_article_is_not_page_chrome():
    # HTML-AAM: a header inside an article or section belongs to it, not to the page
    page = Page(
        "<html><body><main><section><header><ul>"
        + "".join(f"<li><a href='/t/{i}'>Tag {i}</a> and more words {i}</li>" for i in range(4))
        + "</ul></header></section></main><header><ul><li>x</li></ul></header></body></html>"
    )
    section_header, page_header = [i for i, t in enumerate(page.tag) if t == "header"]
    assert chrome_of(page, section_header + 1) is None
    assert chrome_of(page, page_header + 1) == "header"


# ------------------------------------------------------------ dated lists are no posts
def product(i: int) -> str:
    return (
        f"<li class='item'><a href='/p/{i}'>Garden chair model {i} in oak wood</a>"
        f"<div class='by'>by <a href='/brand/{i}'>Brand{i}</a></div>"
        f"<p>A solid chair for the garden, weather proof, made of oak, number {i}.</p>"
        f"<span class='price'>$ {i + 20}.99</span>"
        f"<span class='released'>Release date: March {i + 1}, 2015</span></li>"
    )


def test_a_dated_product_list_stays_with_the_list_extractors():
    page = Page(wrap("<ul class='products'>" + "".join(product(i) for i in range(6)) + "</ul>"))
    assert not is_ugc_page(page)
    result = extract(page)
    main = result.main
    assert main is not None and main.extractor in ("mdr", "stem") and len(main.records) == 6
    # the records keep their title and its link
    values = list(main.records[0].fields.values())
    assert "Garden chair model 0 in oak wood" in values
    assert any(str(v).endswith("/p/0") for v in values)
    assert "None" not in values


def video(i: int) -> str:
    return (
        f"<div class='video'><a href='/watch?v={i}'><img src='/t/{i}.jpg'></a>"
        f"<h3><a href='/watch?v={i}'>How to prune an apple tree, part {i}</a></h3>"
        f"<span class='duration'>{i + 1}:28:0{i}</span>"
        f"<p>Gardener Sam shows the cuts that keep an old tree healthy, lesson {i}.</p></div>"
    )


def test_video_durations_are_no_post_dates_and_the_list_is_no_forum():
    page = Page(wrap("<div class='videos'>" + "".join(video(i) for i in range(5)) + "</div>"))
    durations = [i for i, t in enumerate(page.tag) if page.attr(i, "class") == "duration"]
    assert not set(durations) & set(DateAnchor().candidates(page))
    result = extract(page)
    main = result.main
    assert main is not None and main.extractor in ("mdr", "stem") and len(main.records) == 5
    # the duration stays the text it is, never a date of today
    assert any(v == "1:28:00" for v in main.records[0].fields.values())


def test_forum_posts_still_go_to_the_post_extractor():
    posts = "".join(
        f"<div class='post'><div class='head'><a href='/member.php?u={i}'>user{i}</a> "
        f"<span>{i + 3} March 2010, 10:0{i}</span></div>"
        f"<div class='body'><p>I tried the fix number {i} from the manual, and the router "
        f"still drops the connection every evening, any other idea?</p></div></div>"
        for i in range(4)
    )
    result = extract(wrap("<div id='posts'>" + posts + "</div>"))
    assert result.main is not None and result.main.extractor == "mibat"
    assert any("user posts" in why for why in result.main.meta["rank_reasons"])


# ------------------------------------------------------------------------ card grids
def card(i: int) -> str:
    return (
        f"<li class='card'><a href='/p/{i}'><img src='/i/{i}.jpg'></a>"
        f"<h4><a href='/p/{i}'>Headphones model {i}</a></h4>"
        f"<span class='price'>${i}9.99</span></li>"
    )


def test_a_row_of_cards_is_split_into_the_cards():
    rows = "".join(
        "<ul class='row'>" + "".join(card(4 * r + k) for k in range(4)) + "</ul>" for r in range(3)
    )
    page = Page(wrap("<div class='grid'>" + rows + "</div>"))
    result = extract(page)
    main = result.main
    assert main is not None and len(main.records) == 12
    assert main.records[5].text.startswith("Headphones model 5")
    # an extractor that took the rows for the records: the cards take their place
    grid = [i for i, t in enumerate(page.tag) if page.attr(i, "class") == "grid"][0]
    by_rows = build_region(page, "stem", grid, [(r,) for r in page.children[grid]], 0.9)
    cards = split_card_rows(page, by_rows, PageText(page))
    assert cards is not None and len(cards.records) == 12 and cards.meta["cards_from"] == 3
    assert cards.confidence == 0.9 and cards.records[4].text.startswith("Headphones model 4")
    explain([cards])
    assert any("row of cards" in why for why in cards.meta["rank_reasons"])


def test_card_rows_are_worked_out_once_per_record_and_page():
    def rows_page(n_rows: int) -> Page:
        rows = "".join(
            "<ul class='row'>" + "".join(card(4 * r + k) for k in range(4)) + "</ul>"
            for r in range(n_rows)
        )
        return Page(wrap("<div class='grid'>" + rows + "</div>"))

    page = rows_page(3)
    grid = [i for i, t in enumerate(page.tag) if page.attr(i, "class") == "grid"][0]
    groups = [(r,) for r in page.children[grid]]
    text = PageText(page)
    # two extractors cut the same records: the second region reads the first one's rows
    first = split_card_rows(page, build_region(page, "mdr", grid, groups, 0.8), text)
    assert len(text.card_rows) == 3
    second = split_card_rows(page, build_region(page, "stem", grid, groups, 0.9), text)
    fresh = split_card_rows(page, build_region(page, "stem", grid, groups, 0.9), PageText(page))
    assert first is not None and second is not None and fresh is not None
    assert [r.nodes for r in second.records] == [r.nodes for r in fresh.records]
    assert len(second.records) == 12 and second.extractor == "stem"
    # another page (the same node numbers) has its own rows: two rows of cards, not three
    other = rows_page(2)
    other_text = PageText(other)
    grid2 = [i for i, t in enumerate(other.tag) if other.attr(i, "class") == "grid"][0]
    groups2 = [(r,) for r in other.children[grid2]]
    split = split_card_rows(other, build_region(other, "stem", grid2, groups2, 0.9), other_text)
    assert split is not None and len(split.records) == 8
    assert set(other_text.card_rows) == set(groups2)


def test_a_table_row_of_field_cells_is_not_split():
    rows = "".join(
        f"<tr><td><img src='/i/{i}.jpg'></td><td><a href='/p/{i}'>Book title {i}</a> by Author</td>"
        f"<td>${i}.99</td></tr>"
        for i in range(5)
    )
    page = Page(wrap("<table>" + rows + "</table>"))
    result = extract(page)
    assert result.main is not None and len(result.main.records) == 5
    assert split_card_rows(page, result.main, PageText(page)) is None


# ------------------------------------------------------------------- rows without text
def test_rows_without_text_rank_after_the_records():
    spacers = "<table class='spacer'>" + "<tr><td><img src='/s.gif'></td></tr>" * 12 + "</table>"
    page = Page(wrap(spacers + results(3)))
    result = extract(page)
    assert result.main is not None and len(result.main.records) == 3
    empty = [r for r in result.regions if "no_text" in r.meta]
    assert empty and result.regions.index(empty[0]) > 0
    assert any("have no text" in why for why in empty[0].meta["rank_reasons"])
    assert demotion(page, empty[0], PageText(page)) == ("no_text", empty[0].meta["no_text"])


# ------------------------------------------------------------- related links beside text
def test_related_links_beside_an_article_are_no_main_region():
    article = "".join(
        f"<p>Paragraph {i} of the story, told at length with many words of its own.</p>"
        for i in range(12)
    )
    related = (
        "<ul class='more'>"
        + "".join(f"<li><a href='/story/{i}'>Another story headline {i}</a></li>" for i in range(8))
        + "</ul>"
    )
    result = extract(wrap("<article>" + article + "</article>" + related))
    assert result.main is None
    links = [r for r in result.regions if "links_only" in r.meta]
    assert links and any("link text" in why for why in links[0].meta["rank_reasons"])


def test_a_page_of_bare_title_links_keeps_its_main_region():
    # a search result page of titles only: no text of the page's own beside the links
    items = "".join(
        f"<li><a href='/doc/{i}'>Annual report of the department number {i}</a></li>"
        for i in range(15)
    )
    result = extract(wrap("<ol>" + items + "</ol>"))
    assert result.main is not None and len(result.main.records) == 15
    assert "links_only" not in result.main.meta


# ---------------------------------------------------------------------- explanations
def test_summary_and_preview_show_why_regions_rank_where_they_do():
    from scrapy_records.cli import _summary
    from scrapy_records.scrapy.preview import render_preview

    html = wrap(results(5))
    result = extract(html, url="http://example.com/s")
    reasons = result.regions[0].meta["rank_reasons"]
    assert reasons[0].startswith("ranked first")
    assert any(why.startswith("score ") for why in reasons)
    out = io.StringIO()
    _summary(result, out)
    text = out.getvalue()
    assert "ranked first" in text and "score " in text
    preview = render_preview(html, "http://example.com/s", result)
    assert "ranked first" in preview


def test_a_block_of_cards_under_a_heading_is_split_into_the_cards():
    # a search page that groups its results by kind: "Products (3)", "News (3)"
    blocks = "".join(
        f"<div class='block'><h2>{kind} results</h2><div class='items'>"
        + "".join(card(10 * b + k) for k in range(3))
        + "</div></div>"
        for b, kind in enumerate(("Products", "News"))
    )
    page = Page(wrap("<div class='groups'>" + blocks + "</div>"))
    groups = [i for i, t in enumerate(page.tag) if page.attr(i, "class") == "groups"][0]
    by_block = build_region(page, "stem", groups, [(b,) for b in page.children[groups]], 0.8)
    cards = split_card_rows(page, by_block, PageText(page))
    assert cards is not None and cards.meta["cards_from"] == 2
    assert [r.text.split(" $")[0] for r in cards.records] == [
        f"Headphones model {n}" for n in (0, 1, 2, 10, 11, 12)
    ]


BODIES = [
    "<p>" + "A long opinion about the election and what it means for the country. " * 3 + "</p>",
    "<table>"
    + "".join(f"<tr><td>State {k}</td><td>{k * 7}%</td></tr>" for k in range(12))
    + "</table><p>Numbers from the count tonight.</p>",
    "<ul>"
    + "".join(f"<li>Point {k}: about the polls and the turnout</li>" for k in range(9))
    + "</ul>",
    "<p>Short question about voting by mail in my county, does anyone know the deadline?</p>"
    "<blockquote><p>quoted rule text here</p></blockquote><p>Thanks for any help.</p>",
    "<p>Results are in and the turnout was the highest in decades, analysts say today.</p>",
]


def search_post(k: int, body: str) -> str:
    """A forum's search result: a headline to the thread, points, date, author, the body."""
    return (
        f"<div class='search-result'><a href='/r/politics/comments/{k}/story_{k}'>Election "
        f"story number {k} with a headline</a><div><span>{k * 13 + 5} points</span> submitted "
        f"<time datetime='2016-0{k + 1}-1{k}T10:00:00+00:00'>{k + 2} months ago</time> by "
        f"<a href='/user/user{k}'>user{k}</a></div><div class='body'>{body}</div></div>"
    )


def test_posts_with_headlines_are_the_records_when_no_list_is_trusted(monkeypatch):
    """Reddit's search results: user posts (author, date, a body of any shape) that lead to
    their threads by headlines. Headlines keep them with the list extractors; when those
    find no list above the main threshold (bodies of tables and lists), MiBAT's posts are
    the main region, and the summary says why."""
    import scrapy_records.extractors.auto as auto

    html = wrap(
        "<div class='results'>"
        + "".join(search_post(k, b) for k, b in enumerate(BODIES))
        + "</div>"
    )
    page = Page(html)
    assert not is_ugc_page(page)  # (headlines: no user-content page by the routing rule)

    class NoList:
        name = "nolist"

        def extract(self, page, **options):
            return []

    real = auto.get_extractor
    monkeypatch.setattr(
        auto, "get_extractor", lambda n: NoList() if n in ("mdr", "stem") else real(n)
    )
    main = extract(html).main
    assert main is not None and main.extractor == "mibat" and len(main.records) == 5
    assert [r.fields["author"] for r in main.records] == [f"user{k}" for k in range(5)]
    assert main.meta["teaser_posts"] is True
    assert "no list above the main threshold" in " ".join(main.meta["rank_reasons"])


def test_result_sections_in_asides_are_the_content_of_a_page_without_text_of_its_own():
    """WebMD's search page: its results stand in <aside role=complementary> sections
    inside <main>, beside a large menu; the page has no text outside its landmarks, so
    the asides hold its content. Beside an article of the page's own they are chrome."""

    def doc(k0: int, n: int) -> str:
        return "".join(
            f"<div class='doc'><p class='t'><a href='/a/{k}'>Melanoma skin cancer guide {k}</a>"
            f"</p><p class='d'>Find skin cancer information and treatment options, part {k}.</p>"
            "</div>"
            for k in range(k0, k0 + n)
        )

    menu = "".join(
        f"<li><a href='/m/{k}'>Health topic number {k} of the menu</a></li>" for k in range(40)
    )
    html = (
        f"<html><body><header><nav><ul>{menu}</ul></nav></header><main><h1>Results</h1>"
        f"<aside role='complementary'><header>Top results</header><div>{doc(0, 3)}</div></aside>"
        f"<aside role='complementary'><header>Slideshows</header><div>{doc(10, 6)}</div></aside>"
        "</main></body></html>"
    )
    main = extract(html).main
    assert main is not None and "chrome" not in main.meta
    texts = [r.text for r in main.records]
    assert any(t.startswith("Melanoma skin cancer guide 10") for t in texts)
    # the two sections are blocks of one list of results (auto step 5d)
    assert len(texts) == 9 and main.meta["blocks"] == 2
    # the same asides beside an article of the page's own: chrome again
    article = (
        "<article><p>" + "Words of the page's own article about skin care. " * 40 + "</p></article>"
    )
    page = Page(html.replace("<h1>Results</h1>", article))
    aside = [r for r in extract(page).regions if r.records[0].text.startswith("Melanoma")]
    assert aside and all(r.meta.get("chrome") == "aside" for r in aside)


# --------------------------------------------------- STEM's blind spot: inner lists
def _product_card(i: int, colours: list[str], links: int) -> str:
    swatches = "".join(f"<li><button title='{c}'><span>{c}</span></button></li>" for c in colours)
    features = "".join(f"<li>Feature {k} of tablet {i}<br></li>" for k in range(3))
    more = "".join(f"<li><a href='/p/{i}/{k}'>Link {k}</a></li>" for k in range(links))
    return (
        f"<li class='product'><div class='img'><a href='/p/{i}'><img src='/i/{i}.png' "
        "alt='Front'></a><button><span>Zoom</span></button></div><div class='details'>"
        f"<div class='title'><a href='/p/{i}'>Galaxy Tab model {i}</a></div><div class='info'>"
        f"<div class='opts'><em>Color</em><ul>{swatches}</ul></div>"
        f"<a href='/buy/{i}'>Where to Buy</a><ul class='feat'>{features}</ul>"
        f"<div><button><span>Compare</span></button><ul class='links'>{more}</ul></div>"
        "</div></div></li>"
    )


def _shop(cards: str) -> str:
    return wrap(
        f"<div id='content'><h1>Search results</h1><ul class='results'>{cards}</ul>"
        "<p>Showing 3 of 3 results for tablets in our shop today.</p></div>"
    )


def test_three_products_that_differ_in_their_swatch_counts_are_the_main_region():
    """Samsung's search page: three product cards with two or three colour swatches and
    six or seven links. STEM's patterns cannot cut records whose inner lists differ in
    length, so only MDR sees the list; its silence is no evidence against it, and the
    cards are the main region instead of being halved below the threshold."""
    html = _shop(
        _product_card(0, ["grey", "white"], 6)
        + _product_card(1, ["grey", "white", "gold"], 6)
        + _product_card(2, ["black", "gold"], 7)
    )
    main = extract(html).main
    assert main is not None and main.extractor == "mdr" and len(main.records) == 3
    assert main.meta["inner_lists"] is True and main.meta["agreement"] == 0.0
    assert main.records[1].text.startswith("Zoom Galaxy Tab model 1 Color grey white gold")
    assert any("inner lists" in why for why in main.meta["rank_reasons"])


def test_inner_lists_only_needs_the_same_paths_and_unequal_tag_strings():
    alike = [_product_card(i, ["grey", "white"], 6) for i in range(3)]
    swatches = [_product_card(i, ["grey", "white"][: 1 + i % 2], 6) for i in range(3)]
    for cards, expected in ((swatches, True), (alike, False)):
        page = Page(_shop("".join(cards)))
        ul = page.index(page.root.xpath("//ul[@class='results']")[0])
        region = build_region(page, "mdr", ul, [[c] for c in page.children[ul]], 0.6)
        assert inner_lists_only(page, region) is expected
    # one card with a part the others lack (a price): not the same records up to counts
    odd = swatches[2].replace(
        "<div class='opts'>", "<div class='price'><b>$199</b></div><div class='opts'>"
    )
    page = Page(_shop(swatches[0] + swatches[1] + odd))
    ul = page.index(page.root.xpath("//ul[@class='results']")[0])
    region = build_region(page, "mdr", ul, [[c] for c in page.children[ul]], 0.6)
    assert inner_lists_only(page, region) is False


# ------------------------------------------------------------ a filter panel beside a few
def _filter_panel() -> str:
    groups = {
        "Category": ["Products", "News", "Support"],
        "Item type": ["Monitor", "Printer and multifunction", "Smartphones", "Tablets"],
        "Business": ["Printers", "Cloud display", "LED signage"],
        "Screen size": ["24 inch", "27 inch", "32 inch"],
    }
    out = ""
    for g, opts in groups.items():
        boxes = "".join(
            f"<li><input type='checkbox' id='{g}{o}'><label for='{g}{o}'>{o}</label></li>"
            for o in opts
        )
        out += (
            f"<div class='filter'><button type='button'><span>{g}</span> <span>Collapse"
            f"</span></button><fieldset><legend>{g} option</legend><ul>{boxes}</ul>"
            "</fieldset></div>"
        )
    return f"<div class='filters'>{out}</div>"


def test_a_filter_panel_does_not_outrank_a_short_result_list():
    # three products beside four very regular facet groups: the groups' text is all
    # legends, buttons and checkbox labels (form controls), the page's filters
    products = [
        ("Curved business monitor S34", "size 34 inch", "Built-in speakers, adjustable stand"),
        ("Galaxy tablet Pro S", "colour black", "Windows 10 Pro, detachable keyboard and pen"),
        ("LED monitor with vibrant colours", "size 32 inch", "HDMI input, UHD resolution"),
    ]
    cards = "".join(
        f"<li><div class='card'><a href='/p/{i}'><img src='/i/{i}.jpg'></a><h3><a "
        f"href='/p/{i}'>{t}</a></h3><p class='opt'>{o}</p><p>{d}</p><a href='/buy/{i}'>"
        "Where to buy</a></div></li>"
        for i, (t, o, d) in enumerate(products)
    )
    result = extract(wrap(f"<main>{_filter_panel()}<ul class='products'>{cards}</ul></main>"))
    assert result.main is not None
    assert [r.text.split(" size")[0] for r in result.main.records][:1] == [products[0][0]]
    panel = next(r for r in result.regions if r.records[0].text.startswith("Category"))
    assert panel.meta["controls"] == "1.00"
    assert any("form controls" in why for why in panel.meta["rank_reasons"])


def test_a_list_of_records_with_a_button_each_is_no_filter_panel():
    # an "Add to cart" button in every card is a small share of the record's text
    cards = "".join(
        f"<li><h3><a href='/p/{i}'>Product number {i} with a long descriptive name</a></h3>"
        f"<p>A description of product {i}, its size, colour and use.</p>"
        f"<button>Add to cart</button></li>"
        for i in range(6)
    )
    result = extract(wrap(f"<ul>{cards}</ul>"))
    assert result.main is not None and len(result.main.records) == 6
    assert "controls" not in result.main.meta
