"""MiBAT on hand-written pages: the digest's §7 test cases (``shared/papers/mibat.md``)."""

from datetime import datetime

import pytest

from scrapy_records.extractors import get_extractor
from scrapy_records.extractors.mibat import MiBATExtractor, is_ugc_page
from scrapy_records.extractors.mibat.anchors import AuthorLinkAnchor, DateAnchor
from scrapy_records.page import Page

BASE = datetime(2020, 6, 15, 12, 0)


def run(html, **opts):
    page = Page(html, "https://forum.example.org/thread/1")
    regions = MiBATExtractor().extract(page, relative_base=BASE, **opts)
    main = [r for r in regions if r.meta.get("main")]
    return page, regions, (main[0] if main else None)


def classes_of(page, region):
    """First class (or tag) of every root of every record."""
    out = []
    for rec in region.records:
        out.append(tuple((page.classes(i) or (page.tag[i],))[0] for i in rec.nodes))
    return out


def wrap(body):
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


# --------------------------------------------------------------- §7 case 1
BODIES = [
    "<p>Short answer, it works.</p>",
    "<p>Long one:</p><ul><li>first</li><li>second</li></ul><img src='a.png'>"
    "<table><tr><td>x</td><td>y</td></tr></table><pre>print('hi')</pre>",
    "<p>One paragraph.</p><p>Two paragraphs here.</p><p>Three paragraphs, done.</p>",
    "<iframe src='https://video.example/embed/1'></iframe><p>see the video</p>",
]
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"]


def table_post(n, body, date="01-05-2010, 10:32 AM"):
    return (
        f"<table class='post'><tr><td class='author'><a href='member.php?u={n}'>{NAMES[n]}</a></td>"
        f"<td class='date'>{date}</td><td class='num'><a href='showthread.php?p={100 + n}#post{100 + n}'>#{n + 1}</a></td></tr>"
        f"<tr><td colspan='3' class='message'>{body}</td></tr></table>"
    )


def test_case1_table_per_post_heterogeneous_bodies():
    html = wrap(
        "<div id='posts'>" + "".join(table_post(i, b) for i, b in enumerate(BODIES)) + "</div>"
    )
    page, regions, main = run(html)
    assert main is not None
    assert len(main.records) == 4
    assert main.meta["k"] == 1 and main.meta["anchor_gap"] == 1
    assert main.meta["anchors"] == [0, 1, 2, 3]
    assert main.xpath.endswith("div[@id='posts']") or main.xpath.endswith("/div")
    assert classes_of(page, main) == [("post",)] * 4
    assert main.meta["pivots"][0].endswith("/td[2]")  # td.date is the real pivot
    rec = main.records[1]
    assert rec.fields["author"] == "bob"
    assert rec.fields["author_url"] == "https://forum.example.org/thread/member.php?u=1"
    assert rec.fields["date"] == "2010-01-05T10:32:00"
    assert rec.fields["date_raw"] == "01-05-2010, 10:32 AM"
    assert (
        rec.fields["permalink"] == "https://forum.example.org/thread/showthread.php?p=101#post101"
    )
    assert rec.fields["text"].startswith("Long one: first second")
    assert "bob" not in rec.fields["text"]
    assert main.confidence >= 0.8


def test_case1_pm_measure_also_finds_the_posts():
    html = wrap(
        "<div id='posts'>" + "".join(table_post(i, b) for i, b in enumerate(BODIES)) + "</div>"
    )
    _, _, main = run(html, measure="pm")
    assert len(main.records) == 4


# --------------------------------------------------------------- §7 case 2
def test_case2_multi_sibling_records_anchor_left():
    posts = "".join(
        f"<div class='postheader'><a href='/members/{NAMES[i]}'>{NAMES[i]}</a> Posted: Tue Jan 0{i + 1}, 2010 10:32 pm</div>"
        f"<div class='postbody'><p>Body number {i} with words.</p></div><div class='spacer'></div>"
        for i in range(5)
    )
    page, _, main = run(wrap(f"<div id='thread'>{posts}</div>"))
    assert len(main.records) == 5
    assert (
        main.meta["k"],
        main.meta["offset"],
        main.meta["anchor_gap"],
        main.meta["expan_len"],
    ) == (3, 0, 3, 3)
    assert classes_of(page, main) == [("postheader", "postbody", "spacer")] * 5
    assert main.records[2].fields["date"] == "2010-01-03T22:32:00"
    assert main.records[2].fields["author"] == "carol"


# --------------------------------------------------------------- §7 case 3
def test_case3_anchor_on_the_right_uses_fixed_offset_loop():
    posts = "".join(
        f"<h3 class='title'>Title {i}</h3><div class='body'><p>Some text {i}.</p><p>More.</p></div>"
        f"<p class='meta'>by {NAMES[i]} on {i + 5} Jan 2010</p>"
        for i in range(3)
    )
    page, _, main = run(wrap(f"<div id='list'>{posts}</div>"))
    assert (main.meta["k"], main.meta["offset"]) == (3, -2)
    # the literal printed pseudocode would give (p, next h3, next div)
    assert classes_of(page, main) == [("title", "body", "meta")] * 3
    assert [r.fields["date"] for r in main.records] == [
        "2010-01-05",
        "2010-01-06",
        "2010-01-07",  # no time of day in the page: dates alone
    ]


# --------------------------------------------------------------- §7 case 4
def test_case4_overlapping_expansions_pick_offset_by_eq3():
    rec = (
        "<div class='a'><h4>Headline {i}</h4><p>teaser {i}</p></div>"
        "<div class='b'><span>tag</span><span>other tag</span></div>"
        "<div class='c'><span class='date'>Jan {d}, 2010</span> by <b>someone</b></div>"
    )
    items = "".join(rec.format(i=i, d=i + 3) for i in range(3))
    footer = "<div class='pager'><a href='?p=1'>1</a><a href='?p=2'>2</a><a href='?p=3'>3</a><a href='?p=4'>4</a></div>"
    footer += "<div class='footer'><p>(c) 2010 Example</p><p>imprint</p><p>contact</p></div>"
    page, _, main = run(wrap(f"<div id='list'>{items}{footer}</div>"))
    assert (main.meta["anchor_gap"], main.meta["expan_len"], main.meta["k"]) == (3, 5, 3)
    assert main.meta["offset"] == -2
    assert classes_of(page, main) == [("a", "b", "c")] * 3


# --------------------------------------------------------------- §7 case 5 and 6
def div_post(i, date=None, extra=""):
    date = date or f"{i + 1} Jan 2010, 10:0{i}"
    return (
        f"<div class='post'><div class='head'><a href='/u/{NAMES[i % 6]}'>{NAMES[i % 6]}</a>"
        f"<span class='time'>{date}</span></div><div class='content'>{extra}<p>Post body {i} talks.</p></div></div>"
    )


def test_case5_non_consecutive_records_skip_the_ad():
    ad = "<div class='ad'><img src='ad.png'><p>Buy now!</p></div>"
    html = wrap(
        "<div id='posts'>"
        + div_post(0)
        + div_post(1)
        + ad
        + div_post(2)
        + div_post(3)
        + div_post(4)
        + "</div>"
    )
    page, _, main = run(html)
    assert main.meta["anchors"] == [0, 1, 3, 4, 5]
    assert main.meta["k"] == 1
    assert len(main.records) == 5
    assert all("Buy now" not in r.text for r in main.records)


def test_case6_multi_sibling_records_with_interposed_ad():
    pair = (
        "<div class='head'><a href='/members/{n}'>{n}</a> {d}</div>"
        "<div class='body'><p>text of {n}</p><p>second paragraph</p></div>"
    )
    parts = [pair.format(n=NAMES[i], d=f"2010-01-0{i + 1} 10:00") for i in range(4)]
    html = wrap(
        "<div id='t'>"
        + parts[0]
        + parts[1]
        + "<aside class='ad'>advert</aside>"
        + parts[2]
        + parts[3]
        + "</div>"
    )
    page, _, main = run(html)
    assert main.meta["k"] == 2
    assert len(main.records) == 4
    assert classes_of(page, main) == [("head", "body")] * 4


# --------------------------------------------------------------- §7 case 7 and 8
def test_case7_quoted_posts_nested_in_posts():
    q = "<blockquote><div>Originally Posted by <a href='/u/bob'>bob</a> on 01-04-2010 09:00 PM</div><p>quoted text</p></blockquote>"
    posts = [
        div_post(0),
        div_post(1, extra=q),
        div_post(2, extra=q + q.replace("01-04", "01-03")),
        div_post(3, extra=q),
    ]
    page, regions, main = run(wrap("<div id='posts'>" + "".join(posts) + "</div>"))
    assert len(main.records) == 4
    assert main.xpath.endswith("/div")
    assert "quoted text" in main.records[1].text  # the whole post, quote included
    assert [r.fields["date"] for r in main.records] == [
        "2010-01-01T10:00:00",
        "2010-01-02T10:01:00",
        "2010-01-03T10:02:00",
        "2010-01-04T10:03:00",
    ]
    # the author is the poster, not the quoted user
    assert [r.fields["author"] for r in main.records] == ["alice", "bob", "carol", "dave"]
    assert main.records[2].fields["author_url"].endswith("/u/carol")
    # a region of the two quotes of post 3 may exist but loses
    for r in regions:
        if r is not main:
            assert r.confidence < main.confidence


def test_case8_ugc_dates_at_random_positions():
    extras = [
        "<p>I bought it on 2009-12-01</p>",
        "<div><p>see <b>3.10.12</b> release</p></div>",
        "",
        "<p>back in March 2008</p>",
    ]
    posts = [div_post(i, extra=e) for i, e in enumerate(extras)]
    _, _, main = run(wrap("<div id='posts'>" + "".join(posts) + "</div>"))
    assert len(main.records) == 4
    assert len(main.meta["pivots"]) == 1
    assert main.records[0].fields["date_raw"] == "1 Jan 2010, 10:00"
    assert main.records[3].fields["date"] == "2010-01-04T10:03:00"


# --------------------------------------------------------------- §7 case 9 and 10
def test_case9_first_post_styled_differently_is_lost_faithfully():
    first = (
        "<div class='post first'><div class='head'><div class='banner'>Thread starter</div><h2>Big title</h2>"
        "<a href='/u/alice'>alice</a><span class='time'>1 Jan 2010, 09:00</span><span>1234 views</span>"
        "<span>5 replies</span></div><div class='content'><p>Opening post.</p></div></div>"
    )
    html = wrap("<div id='posts'>" + first + "".join(div_post(i) for i in range(1, 6)) + "</div>")
    page, _, main = run(html, first_post_recovery=False)
    assert len(main.records) == 5
    assert "Opening post" not in " ".join(r.text for r in main.records)


def test_case9_milder_variant_body_difference_only():
    first = div_post(
        0, extra="<div class='banner'><h2>Big title</h2><ul><li>a</li><li>b</li></ul></div>"
    )
    html = wrap("<div id='posts'>" + first + "".join(div_post(i) for i in range(1, 6)) + "</div>")
    _, _, main = run(html, first_post_recovery=False)
    assert len(main.records) == 6


def test_case10_first_post_under_a_different_parent():
    html = wrap(
        "<div id='firstpost'>"
        + div_post(0)
        + "</div><div id='replies'>"
        + "".join(div_post(i) for i in range(1, 6))
        + "</div>"
    )
    _, _, faithful = run(html, first_post_recovery=False)
    assert len(faithful.records) == 5
    _, _, main = run(html)  # recovery is on by default (measured better, §6.2 #17)
    assert len(main.records) == 6
    assert main.meta.get("first_post_recovered") is True
    assert "div[1]" in main.records[0].xpaths[0]
    assert main.records[0].fields["author"] == "alice"
    assert main.records[0].fields["date"] == "2010-01-01T10:00:00"


# --------------------------------------------------------------- §7 case 11
def blog_page():
    comments = "".join(
        f"<li class='comment' id='comment-{i}'><cite class='fn'>{NAMES[i]}</cite> says:"
        f"<a class='permalink' href='#comment-{i}'>January {i + 5}, 2010 at 10:3{i} am</a>"
        f"<p>Comment text number {i}, with an opinion about the article.</p></li>"
        for i in range(6)
    )
    archives = "".join(
        f"<li><a href='/2010/{m:02d}/'>{name} 2010</a></li>"
        for m, name in enumerate(
            [
                "January",
                "February",
                "March",
                "April",
                "May",
                "June",
                "July",
                "August",
                "September",
                "October",
                "November",
                "December",
            ],
            start=1,
        )
    )
    recent = "".join(
        f"<li><a href='/p/{i}'>Recent post {i}</a> Jan {i + 1}, 2010</li>" for i in range(5)
    )
    return wrap(
        "<div id='content'><article><h1>Article</h1><p>Article text is long enough to read.</p></article>"
        f"<ol class='commentlist'>{comments}</ol></div>"
        f"<div id='sidebar'><ul class='archives'>{archives}</ul><ul class='recent'>{recent}</ul></div>"
    )


def test_case11_blog_comments_with_date_laden_sidebar():
    page, regions, main = run(blog_page())
    assert len(main.records) == 6
    assert main.xpath.endswith("/ol")
    # the archive list is a purely-date region: dropped
    assert not any(r.xpath.endswith("ul[1]") for r in regions)
    rec = main.records[2]
    assert rec.fields["author"] == "carol"
    assert rec.fields["permalink"] == "https://forum.example.org/thread/1#comment-2"
    assert rec.fields["date"] == "2010-01-07T10:32:00"
    assert rec.fields["text"] == "Comment text number 2, with an opinion about the article."


# --------------------------------------------------------------- §7 case 12 and 13
def test_case12_relative_and_mixed_date_formats():
    dates = [
        "Today, 10:32 AM",
        "Yesterday, 09:00 PM",
        "3 hours ago",
        "01-02-2010, 08:15 AM",
        "vor 2 Tagen",
    ]
    posts = [div_post(i, date=d) for i, d in enumerate(dates)]
    _, _, main = run(wrap("<div id='posts'>" + "".join(posts) + "</div>"))
    assert len(main.records) == 5
    assert [r.fields["date"] for r in main.records] == [
        "2020-06-15T10:32:00",
        "2020-06-14T21:00:00",
        "2020-06-15T09:00:00",
        "2010-01-02T08:15:00",
        "2020-06-13T12:00:00",
    ]
    assert main.records[2].fields["date_raw"] == "3 hours ago"


def test_case13_time_element_datetime_attribute():
    posts = "".join(
        f"<div class='post'><header><a href='/members/{n}'>{n}</a> <time datetime='2010-01-0{i + 1}T10:32:00Z'>Jan '10</time>"
        f"</header><div class='content'><p>text {i}</p></div></div>"
        for i, n in enumerate(NAMES[:4])
    )
    _, _, main = run(wrap(f"<main>{posts}</main>"))
    assert len(main.records) == 4
    assert main.records[0].fields["date"] == "2010-01-01T10:32:00+00:00"
    assert main.records[0].fields["date_raw"] == "Jan '10"


# --------------------------------------------------------------- §7 case 14 and 15
def test_case14_single_post_thread_has_no_main_region():
    html = wrap("<div id='posts'>" + div_post(0) + "</div><div id='footer'><p>About us</p></div>")
    _, regions, main = run(html)
    assert main is None
    assert regions == []


def test_case15_two_posts_beat_a_sidebar_of_small_dated_items():
    side = (
        "<ul class='recent'>"
        + "".join(f"<li><a href='/p/{i}'>Topic {i}</a> {i + 1} Feb 2010</li>" for i in range(6))
        + "</ul>"
    )
    # real posts carry a profile block and a signature: structurally larger than sidebar items
    profile = (
        "<dl class='profile'><dd>Posts: 12</dd><dd>Location: here</dd><dd>Rank: member</dd></dl>"
    )
    sig = "<div class='signature'><p>my sig</p></div>"
    html = wrap(
        "<div id='posts'>"
        + div_post(0, extra=profile + "<p>" + "long words " * 40 + "</p>" + sig)
        + div_post(1, extra=profile + "<p>" + "more text " * 40 + "</p>" + sig)
        + f"</div><div id='side'>{side}</div>"
    )
    _, _, main = run(html)
    assert len(main.records) == 2
    assert main.records[0].fields["author"] == "alice"


# --------------------------------------------------------------- §7 case 16 and 17
def test_case16_threaded_comments_top_level_records_include_replies():
    def li(n, inner=""):
        return (
            f"<li class='comment'><div class='meta'><cite>{NAMES[n]}</cite> <span>{n + 2} Mar 2011</span></div>"
            f"<p>words of {NAMES[n]}</p>{inner}</li>"
        )

    html = wrap(
        "<ol class='comments'>"
        + li(0, "<ul class='children'>" + li(1) + li(2) + "</ul>")
        + li(3)
        + li(4)
        + "</ol>"
    )
    page, regions, main = run(html)
    assert main.xpath.endswith("/ol")
    assert len(main.records) == 3
    assert "words of bob" in main.records[0].text


def test_case17_spurious_high_level_pair_loses_to_the_posts():
    posts = "".join(div_post(i, extra="<p>" + "content " * 20 + "</p>") for i in range(3))
    html = wrap(
        f"<div id='main'><h1>Thread</h1><div class='posts'>{posts}</div></div>"
        "<div id='sidebar'><h1>Widget</h1><div class='w'><p>Next meetup: 12 Jan 2010</p></div></div>"
    )
    page, _, main = run(html)
    assert len(main.records) == 3
    assert classes_of(page, main) == [("post",)] * 3


# --------------------------------------------------------------- §8 pluggable anchors
def test_author_anchor_fallback_when_dates_are_images():
    posts = "".join(
        f"<div class='post'><div class='head'><a href='/members/{n}.{i}/'>{n}</a><img src='date{i}.png'></div>"
        f"<div class='content'><p>Body {i} with text.</p></div></div>"
        for i, n in enumerate(NAMES[:4])
    )
    page, _, main = run(wrap(f"<div id='posts'>{posts}</div>"))
    assert main is not None and main.meta["anchor"] == "author"
    assert len(main.records) == 4
    assert main.records[1].fields["author"] == "bob"
    _, none_regions, _ = run(wrap(f"<div id='posts'>{posts}</div>"), anchors=("date",))
    assert none_regions == []


def test_custom_anchor_object_and_union_combination():
    class ClassAnchor:
        kind = "postnum"

        def candidates(self, page):
            return [i for i in range(len(page.el)) if "num" in page.classes(i)]

    html = wrap(
        "<div id='posts'>" + "".join(table_post(i, b) for i, b in enumerate(BODIES)) + "</div>"
    )
    _, _, main = run(html, anchors=(ClassAnchor(),))
    assert main.meta["anchor"] == "postnum" and len(main.records) == 4
    _, _, main = run(html, anchors=("date", "author"), combine="union")
    assert len(main.records) == 4
    assert main.meta["anchor"] == "date" and main.meta.get("agreement") is True


def test_archive_only_page_has_no_region():
    archives = "".join(
        f"<li><a href='/2010/{m:02d}/'>{name} 2010</a></li>"
        for m, name in enumerate(["January", "February", "March", "April", "May", "June"], start=1)
    )
    _, regions, _ = run(wrap(f"<ul class='archives'>{archives}</ul>"))
    assert regions == []


def test_anchor_classifiers_mark_lowest_nodes():
    html = wrap(
        "<div><span class='d'>Posted <b>Jan 5, 2010</b></span><time datetime='2010-01-05'>x</time>"
        "<a href='memberlist.php?mode=viewprofile&u=2'>bob</a></div>"
    )
    page = Page(html)
    assert [page.tag[i] for i in DateAnchor().candidates(page)] == ["b", "time"]
    assert [page.text(i) for i in AuthorLinkAnchor().candidates(page)] == ["bob"]


# --------------------------------------------------------------- options, routing, robustness
def test_unknown_option_and_registry():
    page = Page(wrap("<p>x</p>"))
    with pytest.raises(TypeError):
        MiBATExtractor().extract(page, nonsense=1)
    with pytest.raises(TypeError):
        MiBATExtractor().extract(page, measure="ts")
    assert get_extractor("mibat").name == "mibat"


def test_tau_threshold_is_strict():
    # posts whose headers share exactly half of their siblings: PS = 0.5, not > 0.5
    def post(i, extra):
        return (
            f"<div class='post'><div class='head'><a href='/u/{i}'>u{i}</a><span>{i + 1} Jan 2010</span>{extra}</div>"
            f"<div class='content'><p>text</p></div></div>"
        )

    html = wrap(
        "<div id='p'>" + post(0, "<i>a</i><i>b</i>") + post(1, "<b>c</b><u>d</u>") + "</div>"
    )
    _, regions, _ = run(html, tau=0.5, anchors=("date",))
    assert regions == []
    _, regions, main = run(html, tau=0.4, anchors=("date",))
    assert len(main.records) == 2


def test_is_ugc_page_routing_rule():
    forum = Page(
        wrap(
            "<div id='posts'>" + "".join(table_post(i, b) for i, b in enumerate(BODIES)) + "</div>"
        )
    )
    assert is_ugc_page(forum)
    shop = Page(
        wrap(
            "<ul>"
            + "".join(
                f"<li><a href='/p/{i}'>Product {i}</a> <span>$ {i}9.99</span></li>"
                for i in range(8)
            )
            + "</ul>"
        )
    )
    assert not is_ugc_page(shop)


def test_ugc_routing_author_links_of_three_words_are_no_headlines():
    # the author links have three words, like a headline, and differ from post to post:
    # the teaser test asks about them one by one (not by a scan of every link of the
    # page) and must still know them as author links, or the thread reads as a list of
    # teasers
    def post(i, name):
        return (
            f"<div class='post'><div class='head'><a href='/members/{i}/'>{name}</a>"
            f"<span class='time'>{i + 1} Jan 2010, 10:0{i}</span></div>"
            f"<div class='content'><p>Post body {i} talks about the question at length,"
            f" with enough words to be a post.</p></div></div>"
        )

    names = ["Jane Q Public", "John Doe Smith", "Mary Ann Jones", "Ed Van Halen"]
    forum = Page(
        wrap("<div id='posts'>" + "".join(post(i, n) for i, n in enumerate(names)) + "</div>")
    )
    assert is_ugc_page(forum)
    # the same records with headline links to pages of their own are teasers
    teasers = forum.root.getroottree().getroot()
    for a in teasers.iter("a"):
        a.set("href", "/story/" + a.text.replace(" ", "-").lower())
    assert not is_ugc_page(Page(teasers))


def test_empty_and_deep_pages_do_not_crash():
    assert MiBATExtractor().extract(Page("<html><body></body></html>")) == []
    deep = "<div>" * 3000 + "Jan 5, 2010" + "</div>" * 3000
    assert MiBATExtractor().extract(Page(wrap(deep))) == []


def test_case18_performance_guard_150_posts():
    posts = "".join(
        div_post(
            i,
            date=f"{(i % 28) + 1} Feb 2010, 10:{i % 60:02d}",
            extra="<p>" + "lorem ipsum " * 150 + "</p>",
        )
        for i in range(150)
    )
    _, _, main = run(wrap(f"<div id='posts'>{posts}</div>"), align=False)
    assert len(main.records) == 150


# --------------------------------------------------------------- common forum engines
def test_xenforo_like_thread():
    def msg(i, n, body):
        return (
            f"<article class='message message--post' data-author='{n}' id='js-post-{i}'>"
            f"<div class='message-inner'><div class='message-cell message-cell--user'>"
            f"<section class='message-user'><h4 class='message-name'><a href='/members/{n}.{i}/' class='username'>{n}</a></h4>"
            f"<h5 class='userTitle'>Well-known member</h5><dl class='pairs'><dt>Messages</dt><dd>{i * 37}</dd></dl></section></div>"
            f"<div class='message-cell message-cell--main'><header class='message-attribution'>"
            f"<a href='/threads/t.1/post-{i}' class='u-concealed'><time class='u-dt' datetime='2020-04-1{i}T09:1{i}:00+0200'>"
            f"1{i}. April 2020</time></a><a href='/threads/t.1/post-{i}'>#{i + 1}</a></header>"
            f"<div class='message-content'><div class='bbWrapper'>{body}</div></div>"
            f"<div class='message-signature'><div class='bbWrapper'>my long signature with links and more words than the post</div></div>"
            f"</div></div></article>"
        )

    bodies = [
        "Hallo zusammen.",
        "<blockquote class='bbCodeBlock--quote'>Quote of eve</blockquote>Ja!",
        "Danke.",
        "Gern geschehen, viel Erfolg.",
    ]
    html = wrap(
        "<div class='block-body'>"
        + "".join(msg(i, NAMES[i], b) for i, b in enumerate(bodies))
        + "</div>"
    )
    page, _, main = run(html)
    assert len(main.records) == 4
    rec = main.records[2]
    assert rec.fields["author"] == "carol"
    assert rec.fields["author_url"] == "https://forum.example.org/members/carol.2/"
    assert rec.fields["date"] == "2020-04-12T09:12:00+02:00"
    assert rec.fields["date_raw"] == "12. April 2020"
    assert rec.fields["permalink"] == "https://forum.example.org/threads/t.1/post-2"
    assert rec.fields["text"] == "Danke."
    assert "signature" not in main.records[0].fields["text"]


def test_vbulletin_like_thread_with_relative_dates():
    def post(i, n, date, body):
        return (
            f"<li class='postbitlegacy' id='post_{100 + i}'><div class='posthead'><span class='postdate'>"
            f"<span class='date'>{date}</span></span><span class='nodecontrols'>"
            f"<a name='post{100 + i}' href='showthread.php?t=5&p={100 + i}#post{100 + i}' class='postcounter'>#{i + 1}</a></span></div>"
            f"<div class='postdetails'><div class='userinfo'><a class='username' href='member.php?u={i}'><strong>{n}</strong></a>"
            f"<span class='usertitle'>Member</span><dl class='userinfo_extra'><dt>Join Date</dt><dd>Mar 2009</dd></dl></div>"
            f"<div class='postbody'><div class='content'><div id='post_message_{100 + i}'><blockquote class='postcontent restore'>{body}</blockquote></div></div>"
            f"<div class='after_content'><blockquote class='signature restore'>sig of {n} with several words</blockquote></div></div></div></li>"
        )

    dates = ["Today, 10:32 AM", "Yesterday, 09:00 PM", "06-12-2020, 08:15 AM"]
    bodies = ["First question about the thing.", "Second: an answer.", "Third reply, thanks"]
    html = wrap(
        "<ol id='posts' class='posts'>"
        + "".join(post(i, NAMES[i], d, b) for i, (d, b) in enumerate(zip(dates, bodies)))
        + "</ol>"
    )
    page, _, main = run(html)
    assert len(main.records) == 3
    assert [r.fields["date"] for r in main.records] == [
        "2020-06-15T10:32:00",
        "2020-06-14T21:00:00",
        "2020-06-12T08:15:00",
    ]
    assert [r.fields["author"] for r in main.records] == ["alice", "bob", "carol"]
    assert (
        main.records[1].fields["permalink"]
        == "https://forum.example.org/thread/showthread.php?t=5&p=101#post101"
    )
    assert main.records[1].fields["text"] == "Second: an answer."


# --------------------------------------------------------------- record text and body consensus
def phpbb_post(i, body, extra=""):
    """phpBB-like post: profile box, header (title, byline with the date), body, notice,
    signature."""
    n = NAMES[i]
    return (
        f"<div class='post bg{i % 2 + 1}' id='p{500 + i}'><div class='inner'>"
        f"<dl class='postprofile' id='profile{500 + i}'><dt><a class='username' href='./memberlist.php?mode=viewprofile&u={i}'>{n}</a></dt>"
        f"<dd class='profile-posts'>Posts: {i * 1234 + 7}</dd><dd class='profile-joined'>Joined: 07 Mar 2006, 09:2{i}</dd>"
        f"<dd>Location: somewhere far away from everything</dd></dl>"
        f"<div class='postbody'><div id='post_content{500 + i}'><h3><a href='#p{500 + i}'>Re: The topic</a></h3>"
        f"<ul class='post-buttons'><li><a href='./posting.php?mode=quote&p={500 + i}'>Quote</a></li></ul>"
        f"<p class='author'>by <strong>{n}</strong> &raquo; 1{i} Jan 2018, 12:3{i}</p>"
        f"<div class='content'>{body}</div>{extra}"
        f"<div class='signature' id='sig{500 + i}'>The long signature of {n} that repeats under every single post here</div>"
        f"</div></div><div class='back2top'><a class='top' href='#top'>Top</a></div></div></div>"
    )


def test_record_text_leaves_out_profile_and_signature_chrome():
    bodies = [
        "I could also possibly help!",
        "Links still work for me.",
        "Thanks, solved.",
        "Me too.",
    ]
    html = wrap(
        "<div id='page-body'>" + "".join(phpbb_post(i, b) for i, b in enumerate(bodies)) + "</div>"
    )
    page, _, main = run(html)
    assert len(main.records) == 4
    rec = main.records[1]
    # the header (title, author, date) and the author's name are record data and stay;
    # the rest of the profile box, the quote button, signature and "Top" link are chrome
    assert rec.text == "bob Re: The topic by bob » 11 Jan 2018, 12:31 Links still work for me."
    assert rec.fields["text"] == "Links still work for me."
    assert rec.fields["author"] == "bob"
    assert main.meta["record_text"] == "content"
    # the paper-literal view: the whole post block
    _, _, block = run(html, record_text="block")
    assert block.records[1].text.startswith("bob Posts: 1241 Joined: 07 Mar 2006")
    assert "signature of bob" in block.records[1].text
    assert block.records[1].xpaths == rec.xpaths  # same records, only the text differs
    with pytest.raises(TypeError):
        run(html, record_text="body")


def test_body_consensus_placeholder_post_beats_its_edit_notice():
    bodies = ["A first answer with some words.", ".", "Another reply here.", "And the last one."]
    notice = "<div class='notice'>Last edited by bob on 13 Jan 2018, 12:42, edited 1 time in total.</div>"
    html = wrap(
        "<div id='page-body'>"
        + "".join(phpbb_post(i, b, notice if i == 1 else "") for i, b in enumerate(bodies))
        + "</div>"
    )
    page, _, main = run(html)
    assert len(main.records) == 4
    assert main.records[1].fields["text"] == "."
    assert "Last edited" not in main.records[1].text  # the notice is chrome
    assert [r.fields["text"] for r in main.records[2:]] == bodies[2:]


def test_body_consensus_image_only_post_has_empty_text():
    bodies = [
        "A first answer with some words.",
        "<img src='funny.gif' alt=''>",
        "Another reply here.",
    ]
    html = wrap(
        "<div id='page-body'>" + "".join(phpbb_post(i, b) for i, b in enumerate(bodies)) + "</div>"
    )
    page, _, main = run(html)
    assert len(main.records) == 3
    # not the post title, the author or the signature: the body is there, without text
    assert main.records[1].fields["text"] == ""
    assert main.records[1].fields["author"] == "bob"


def test_body_keeps_a_quote_next_to_the_reply():
    """Discourse-like: the body element is named ``articleBody``; a post made of a quote
    and one reply line keeps both (the quote's text counts less, but the descent must not
    cut it off)."""

    def post(i, body):
        return (
            f"<div class='topic-body crawler-post'><div class='crawler-post-meta'>"
            f"<span class='creator'><a href='/u/{NAMES[i]}'>{NAMES[i]}</a></span>"
            f"<span class='crawler-post-infos'><time class='post-time' datetime='2019-01-05T20:3{i}:33Z'>5. Januar 2019 um 20:3{i}</time>"
            f"<span>#{i + 1}</span></span></div><div class='post' itemprop='articleBody'>{body}</div></div>"
        )

    quote = (
        "<aside class='quote no-group'><div class='title'>alice:</div><blockquote><p>ich finde die "
        "prada etwas zu elegant.</p></blockquote></aside>"
    )
    bodies = [
        "<p>Welche Tasche soll ich kaufen? Die prada oder eine andere?</p>",
        quote
        + "<p>Die Befürchtung habe ich auch ein bisschen. Naja ich muss sie mir mal ansehen und probetragen.</p>",
        "<p>Sehr cool.</p>",
    ]
    html = wrap("<div id='posts'>" + "".join(post(i, b) for i, b in enumerate(bodies)) + "</div>")
    page, _, main = run(html)
    assert len(main.records) == 3
    text = main.records[1].fields["text"]
    assert text.startswith("alice: ich finde die prada etwas zu elegant.")
    assert text.endswith("probetragen.")
    assert main.records[2].fields["text"] == "Sehr cool."


def test_body_consensus_first_post_without_own_date_skips_the_answer_box():
    """A recovered first post (a question, no date of its own) whose content holds a dated
    "best answer" box: the body is the whole content container, as in the other posts."""

    def post(i, body, meta=True):
        date = f"<li><a class='post__date'>1{i} April 2020</a></li>" if meta else ""
        return (
            f"<div class='post box__pad qa-topic-post-box' id='post{40 + i}'>"
            f"<div class='post__user__meta'><ul class='list text--meta'><li><a class='username' href='/members/{NAMES[i]}-{i}'>{NAMES[i]}</a></li>"
            f"<li>{i + 3} replies</li>{date}</ul></div>"
            f"<div class='post__content'>{body}</div>"
            f"<div class='post__footer'><div class='signature'>sig of {NAMES[i]}</div><ul class='post__actions'><li>Like</li><li>Quote</li></ul></div></div>"
        )

    answer = (
        "<div class='answer-field'><p><strong>Best answer by bob</strong> <span class='text--meta'>31 January 2020, 12:29</span></p>"
        "<div><p>Please reinstall the program and reboot.</p></div></div>"
    )
    first = post(
        0,
        "<p>Hi,</p><p>the rootkit scan never runs on my machine, any idea how to get this working?</p>"
        + answer,
        meta=False,
    )
    rest = [post(i, f"<p>Reply number {i} with a few words of content.</p>") for i in range(1, 4)]
    html = wrap(
        "<div class='question'>" + first + "</div><div class='replies'>" + "".join(rest) + "</div>"
    )
    page, _, main = run(html)
    assert main.meta.get("first_post_recovered") is True
    assert len(main.records) == 4
    text = main.records[0].fields["text"]
    assert text.startswith("Hi, the rootkit scan never runs")
    assert main.records[1].fields["text"] == "Reply number 1 with a few words of content."


def test_record_text_without_fields_still_drops_chrome():
    bodies = ["I could also possibly help!", "Links still work for me.", "Thanks, solved."]
    html = wrap(
        "<div id='page-body'>" + "".join(phpbb_post(i, b) for i, b in enumerate(bodies)) + "</div>"
    )
    page, _, main = run(html, fields=False)
    rec = main.records[2]
    assert "author_url" not in rec.fields and "date_raw" not in rec.fields  # no MiBAT fields
    # without the author field the profile box goes whole (the name is in the byline)
    assert rec.text == "Re: The topic by carol » 12 Jan 2018, 12:32 Thanks, solved."


def test_record_text_chrome_named_wrapper_around_the_post_is_looked_into():
    """A class naming chrome ("edited") on a wrapper that holds the header and the body is
    no chrome: the title and the byline stay, only the signature inside goes."""

    def post(i, body):
        return (
            f"<div class='post' id='p{i}'><div class='message-edited'><h3>Re: Topic {i}</h3>"
            f"<p class='byline'>by <a href='/members/{NAMES[i]}.{i}/'>{NAMES[i]}</a> on 1{i} Jan 2018, 12:3{i}</p>"
            f"<div class='content'>{body}</div><div class='signature'>sig of {NAMES[i]}</div></div></div>"
        )

    bodies = ["First words of the thread.", "A reply with words.", "The third post here."]
    html = wrap("<div id='posts'>" + "".join(post(i, b) for i, b in enumerate(bodies)) + "</div>")
    page, _, main = run(html)
    assert [r.text for r in main.records] == [
        f"Re: Topic {i} by {NAMES[i]} on 1{i} Jan 2018, 12:3{i} {b}" for i, b in enumerate(bodies)
    ]


def test_record_text_wordpress_comments_drop_edit_and_reply_links():
    def c(i, body):
        n = NAMES[i]
        return (
            f"<li class='comment even depth-1' id='comment-{i}'><article class='comment-body'><footer class='comment-meta'>"
            f"<div class='comment-author vcard'><img class='avatar avatar-56' src='a.png' alt=''><b class='fn'>"
            f"<a href='https://{n}.example' class='url'>{n}</a></b> <span class='says'>says:</span></div>"
            f"<div class='comment-metadata'><a href='https://blog.example/post/#comment-{i}'>"
            f"<time datetime='2010-01-0{i + 1}T10:3{i}:00+00:00'>January {i + 1}, 2010 at 10:3{i} am</time></a>"
            f"<span class='edit-link'><a class='comment-edit-link' href='/wp-admin/comment.php?c={i}'>Edit</a></span></div></footer>"
            f"<div class='comment-content'>{body}</div><div class='reply'>"
            f"<a class='comment-reply-link' href='?replytocom={i}'>Reply</a></div></article></li>"
        )

    bodies = [
        "<p>Great article, thanks.</p>",
        "<p>I disagree with point two.</p><p>Here is why: reasons.</p>",
        "<p>Me too!</p>",
    ]
    html = wrap(
        "<div id='comments'><h2>3 comments</h2><ol class='comment-list'>"
        + "".join(c(i, b) for i, b in enumerate(bodies))
        + "</ol></div>"
    )
    page, _, main = run(html)
    assert [r.text for r in main.records] == [
        "alice says: January 1, 2010 at 10:30 am Great article, thanks.",
        "bob says: January 2, 2010 at 10:31 am I disagree with point two. Here is why: reasons.",
        "carol says: January 3, 2010 at 10:32 am Me too!",
    ]
    assert main.records[1].fields["text"] == "I disagree with point two. Here is why: reasons."
    assert main.records[1].fields["permalink"] == "https://blog.example/post/#comment-1"


def test_a_raw_date_column_only_when_it_says_more_than_the_date():
    """``date_raw`` keeps the page's own text of a date; when every post already writes
    its date as the ISO value, the column would only repeat ``date``."""

    def posts(dates):
        return wrap(
            "".join(
                table_post(n, f"<p>Post number {n} says hello.</p>", d) for n, d in enumerate(dates)
            )
        )

    _, _, main = run(posts(["01-05-2010, 10:32 AM", "01-06-2010, 11:00 AM", "01-07-2010, 9:15 PM"]))
    assert [r.fields["date_raw"] for r in main.records][0] == "01-05-2010, 10:32 AM"
    assert "date_raw" in {c.name for c in main.columns}
    _, _, main = run(posts(["2010-01-05", "2010-01-06", "2010-01-07"]))
    assert [r.fields["date"] for r in main.records] == ["2010-01-05", "2010-01-06", "2010-01-07"]
    assert all("date_raw" not in r.fields for r in main.records)
    assert "date_raw" not in {c.name for c in main.columns}


def dated_results(titled: bool) -> str:
    """Posts (or, ``titled``, search results) with a score, a date and an author link."""
    items = []
    for i in range(5):
        head = (
            f'<a class="search-title" href="/r/news/comments/{i}">Story number {i} about '
            f"the election results</a>"
            if titled
            else ""
        )
        items.append(
            f'<div class="result">{head}<div class="meta"><span class="search-score">'
            f'{100 + 7 * i} points</span> <span class="search-time">submitted <time '
            f'datetime="2016-04-{10 + i}T10:00:00">{i + 2} months ago</time></span> '
            f'<span class="search-author">by <a href="/user/u{i}">user{i}</a></span></div>'
            f'<div class="body"><p>Text of post {i}: {"lorem ipsum dolor " * (3 + i)}</p>'
            "</div></div>"
        )
    return wrap("".join(items))


def test_dated_search_results_keep_their_title_and_score_beside_the_post_fields():
    import scrapy_records

    res = scrapy_records.extract(
        dated_results(True), url="https://s.example/search", extractor="mibat"
    )
    recs = res.main.records
    assert len(recs) == 5
    assert [r.fields.get("title") for r in recs][:2] == [
        "Story number 0 about the election results",
        "Story number 1 about the election results",
    ]
    assert recs[1].fields["author"] == "user1" and recs[1].fields["date"].startswith("2016-04-11")
    assert "107 points" in recs[1].fields.values()
    # the post's body is not repeated under another name
    assert sum("lorem" in str(v) for v in recs[0].fields.values()) == 1
    # posts that open with their author keep the post fields only
    plain = scrapy_records.extract(
        dated_results(False), url="https://s.example/t", extractor="mibat"
    )
    assert {c.name for c in plain.main.columns} <= {
        "author",
        "author_url",
        "date",
        "date_raw",
        "text",
        "permalink",
    }
