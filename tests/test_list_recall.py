"""Records of a list the extractors skip (issue 15, cell recall): each rule on a small page."""

from __future__ import annotations

import scrapy_records
from scrapy_records.extractors.siblings import fill_class_siblings
from scrapy_records.page import as_page
from scrapy_records.results import Record, Region

PLAIN = (
    '<li class="result"><h3><a href="/story/{k}">{title}</a></h3>'
    '<p class="meta"><span class="date">Feb {k}, 2017</span></p>'
    "<p>A short summary of the story about {title}.</p></li>"
)
# the same kind of item with a picture, a video badge and a comment count
RICH = (
    '<li class="result"><a href="/story/{k}"><img src="/i/{k}.jpg"></a>'
    '<span class="badge"><i class="icon-video"></i>Video</span>'
    '<h3><a href="/story/{k}">{title}</a></h3>'
    '<p class="meta"><span class="date">Feb {k}, 2017</span> <a href="/c/{k}">12 comments</a></p>'
    "</li>"
)
TITLES = ["Rental app", "Lunar new year", "Train tickets", "Hotel prices", "Car sharing",
          "Bike lanes", "City budget", "School meals"]  # fmt: skip


def _page(kinds: str, cls: str = "result") -> str:
    items = "".join(
        (RICH if kind == "R" else PLAIN)
        .format(k=k + 1, title=TITLES[k])
        .replace('class="result"', f'class="{cls}"' if cls else "")
        for k, kind in enumerate(kinds)
    )
    return f"<html><body><h1>Search</h1><ul id='results'>{items}</ul></body></html>"


def test_an_item_with_the_records_class_before_them_is_a_record():
    """A first result with a picture and a badge breaks the repeat the extractors find;
    the page marks it as one of the list's items (same tag, same class): it is a record."""
    res = scrapy_records.extract(_page("RPPPPPPP"), url="https://news.example/search")
    assert res.main is not None
    assert len(res.main.records) == 8
    assert "Rental app" in res.main.records[0].text
    assert res.main.meta["filled"] == 1


def test_a_panel_built_otherwise_is_no_record():
    """A detail page's panels share one class: a box of a table is no item of a list of
    short stories, however it is classed."""
    panel = (
        '<li class="result"><h3>Prices</h3><table>'
        + "".join(f"<tr><td>Item {k}</td><td>${k}0</td><td>${k}5</td></tr>" for k in range(6))
        + "</table></li>"
    )
    html = _page("PPPPPPP").replace("</ul>", panel + "</ul>")
    page = as_page(html, url="https://news.example/search")
    kids = _items(page)
    region = _region(page, kids[:7])
    assert fill_class_siblings(page, region) == 0
    region = _region(page, kids[:6])
    assert fill_class_siblings(page, region) == 1  # the seventh story, not the panel


def test_an_item_whose_title_link_sits_elsewhere_is_no_record():
    """Indeed: sponsored jobs carry the results' tag and class, but their title is a bare
    link where the results have ``h3 > a``: added, their values filled columns of their own
    (``jobtitle``, ``text``, ``text_4`` = "Sponsored": 17 columns became 29). They stay out;
    a result whose title link is where the others' is comes in."""
    ad = (
        '<li class="result"><a href="/ad/{k}">Sponsored story {k}</a>'
        '<p class="meta"><span class="date">Feb {k}, 2017</span></p>'
        "<p>A short summary of the sponsored story.</p><span>Sponsored</span></li>"
    )
    html = _page("PPPPPP").replace("</ul>", "".join(ad.format(k=k) for k in (7, 8)) + "</ul>")
    page = as_page(html, url="https://news.example/search")
    kids = _items(page)
    assert fill_class_siblings(page, _region(page, kids[:5])) == 1  # the sixth story only


def _region(page, nodes: list[int]) -> Region:
    recs = [Record([page.xpath(n)], page.text(n), {}, 0.9, (n,)) for n in nodes]
    return Region(
        "stem", recs, 0.9, page.xpath(page.parent[nodes[0]]), parent=page.parent[nodes[0]]
    )


def _items(page) -> list[int]:
    ul = next(i for i in range(len(page.tag)) if page.el[i].get("id") == "results")
    return list(page.children[ul])


def test_the_fill_adds_the_gap_and_the_run_at_the_ends():
    page = as_page(_page("PPPPPPPP"), url="https://news.example/search")
    kids = _items(page)
    region = _region(page, [kids[1], kids[2], kids[4], kids[5]])
    assert fill_class_siblings(page, region) == 4
    assert [r.nodes[0] for r in region.records] == kids[:6] + kids[6:]
    assert region.meta["filled"] == 4


def test_an_item_of_another_class_is_no_record_and_ends_the_run():
    html = _page("PPPPPPPP").replace(
        '<li class="result"><h3><a href="/story/7">', '<li class="ad"><h3><a href="/story/7">'
    )
    page = as_page(html, url="https://news.example/search")
    kids = _items(page)
    region = _region(page, kids[2:5])
    assert fill_class_siblings(page, region) == 3  # kids 0, 1 and 5; the ad (6) ends the run
    assert [r.nodes[0] for r in region.records] == kids[:6]


def test_children_without_a_class_say_nothing():
    """Tables or list items without a class are too common to be read as the list's items."""
    page = as_page(_page("PPPPPPPP", cls=""), url="https://news.example/search")
    kids = _items(page)
    region = _region(page, [kids[1], kids[2], kids[4]])
    assert fill_class_siblings(page, region) == 0
    assert len(region.records) == 3


JOB = (
    '<div class="row result{extra}"><h2 class="jobtitle"><a href="/job/{k}">{title}</a></h2>'
    '<span class="company">Company {k}</span> - <span class="location">Edmonton, AB</span>'
    '<div class="summary">What the job {k} asks for.</div></div>'
)


def _jobs() -> str:
    """Sponsored jobs in blocks of their own before and after the list, their items
    marked with the list items' class names."""
    job = [JOB.format(k=k, title=f"Job title {k}", extra="") for k in range(9)]
    ad = [JOB.format(k=k, title=f"Sponsored job {k}", extra=" sponsored") for k in range(20, 23)]
    return (
        "<html><body><div id='results'><div class='top'>Jobs 1 to 6 of 120</div>"
        f"<div class='ads'>{ad[0]}{ad[1]}</div>{''.join(job[:6])}<div></div>"
        f"<div class='ads'>{ad[2]}</div><div class='pages'><a href='/p2'>Next</a></div>"
        "</div></body></html>"
    )


def test_a_block_of_the_lists_items_beside_the_list_holds_records():
    page = as_page(_jobs(), url="https://jobs.example/search")
    kids = _items(page)
    organic = [c for c in kids if page.classes(c) == ("row", "result")]
    region = _region(page, organic)
    assert fill_class_siblings(page, region) == 3
    texts = [r.text for r in region.records]
    assert texts[0].startswith("Sponsored job 20") and texts[-1].startswith("Sponsored job 22")
    assert not any(t.startswith(("Jobs 1 to", "Next")) for t in texts)


def test_sponsored_blocks_join_the_mined_list():
    res = scrapy_records.extract(_jobs(), url="https://jobs.example/search")
    assert res.main is not None
    texts = [r.text for r in res.main.records]
    assert len(texts) == 9, texts
    assert sum(t.startswith("Sponsored job") for t in texts) == 3


STORY = (
    '<li class="story"><a class="title" href="/news/{k}">{title}</a>'
    '<p class="teaser">What happened in story {k}, told in a sentence or two.</p>'
    '<span class="date">Feb {k}, 2017</span></li>'
)


def _blocks(far: bool = False) -> str:
    """Results in two blocks, an advertisement between them (``far``: the second block in
    another section of the page, three levels up)."""
    stories = [STORY.format(k=k + 1, title=f"Story number {k + 1}") for k in range(7)]
    first = f"<ul class='results'>{''.join(stories[:4])}</ul>"
    second = f"<ul class='results'>{''.join(stories[4:])}</ul>"
    ad = "<div class='ad'><a href='https://ads.example/x'>Buy now</a></div>"
    if far:
        return (
            "<html><body><div class='page'><div class='main'>"
            f"<div class='box'>{first}</div></div><div class='side'>"
            f"<div class='box'>{second}</div></div></div></body></html>"
        )
    return (
        "<html><body><h1>Search results</h1><div class='column'>"
        f"<section class='results-top'>{first}</section>{ad}"
        f"<section class='results-bottom'>{second}</section></div></body></html>"
    )


def test_a_list_split_by_an_advertisement_is_one_list():
    """Two blocks of the same results, in sibling sections: one list of seven records."""
    res = scrapy_records.extract(_blocks(), url="https://news.example/search")
    assert res.main is not None
    texts = [r.text for r in res.main.records]
    assert [t.split(" What")[0] for t in texts] == [f"Story number {k}" for k in range(1, 8)]
    assert res.main.meta["blocks"] == 2
    assert len(res.main.columns) >= 3  # the fields are aligned over both blocks
    assert all(r.fields.get("title") for r in res.main.records)


def test_blocks_in_other_sections_of_the_page_stay_apart():
    res = scrapy_records.extract(_blocks(far=True), url="https://news.example/search")
    assert res.main is not None
    assert len(res.main.records) in (3, 4)
    assert "blocks" not in res.main.meta


def test_a_block_built_otherwise_stays_apart():
    """The second block's items carry the class of the results but hold other content
    (a topic name and three links, no teaser, no date): they are no records of the list."""
    topics = "".join(
        f'<li class="story"><b>Topic {k}</b> <i>see</i> <a href="/t/{k}a">{k} one</a>, '
        f'<a href="/t/{k}b">{k} two</a>, <a href="/t/{k}c">{k} three</a></li>'
        for k in "xyzw"
    )
    html = _blocks().replace(
        "<section class='results-bottom'><ul class='results'>",
        f"<section class='results-bottom'><ul class='results'>{topics}</ul><ul class='gone'>",
    )
    res = scrapy_records.extract(html, url="https://news.example/search")
    assert res.main is not None
    assert not any(r.text.startswith("Topic") for r in res.main.records)


def test_a_wrapper_reads_every_block_of_the_list():
    """The records of a list in two blocks lie under two parents: a wrapper induced on two
    such pages selects the records of both blocks on a third."""
    pages = []
    for i in range(3):
        n1, n2 = 4 + i % 2, 3 + i % 3
        stories = [STORY.format(k=10 * i + k, title=f"Story {10 * i + k}") for k in range(n1 + n2)]
        html = (
            "<html><body><h1>Search results</h1><div class='column'><section class='top'>"
            f"<ul class='results'>{''.join(stories[:n1])}</ul></section>"
            "<div class='ad'><a href='https://ads.example/x'>Buy now</a></div>"
            f"<section class='bottom'><ul class='results'>{''.join(stories[n1:])}</ul>"
            "</section></div></body></html>"
        )
        pages.append((f"https://news.example/search?q={i}", html))
    mined = scrapy_records.extract(pages[2][1], url=pages[2][0]).main
    assert mined is not None and len(mined.records) == 9 and mined.meta["blocks"] == 2
    wrapper = scrapy_records.induce(pages[:2])
    wrapped = wrapper.extract(pages[2][1], url=pages[2][0])
    assert [r.text for r in wrapped.records] == [r.text for r in mined.records]
