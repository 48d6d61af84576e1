"""The page-level shortcuts of wrapper label fields and of post-date candidates give what
the plain scans give: :func:`label_hits` by tag against its list of every text, and
:func:`maybe_dates` against :func:`is_date_candidate` on every text."""

from __future__ import annotations

import random

import pytest
from lxml import etree

from scrapy_records.extractors.mibat.anchors import maybe_dates
from scrapy_records.fields.dates import is_date_candidate
from scrapy_records.page.parse import parse_html
from scrapy_records.wrappers.labels import label_hits

LABELS = {"Price": None, "Date": None, "By": None}


def _root(html: str):
    return parse_html(html.encode(), None, parser_cls=etree.HTMLParser)[0]


def _both(root, tags):
    fast = label_hits(root, LABELS, tags)
    listed = [h for h in label_hits(root, LABELS, tags | {"*"}) if h[1] in tags]
    return fast, listed


@pytest.mark.parametrize(
    "html,tags,want",
    [
        # nested elements of one tag: document order, not iteration order
        (
            "<div><span>Price<span>Date</span>By</span><b>9</b> <i>x</i></div>",
            {"span"},
            [("Price", "span", "Date"), ("Date", "span", "By"), ("By", "span", "9")],
        ),
        # tails, comments, scripts and blank texts are skipped as the list skips them
        (
            "<p>Price<!--c--> <script>var a</script>\n<em> </em>12 EUR</p>",
            {"p"},
            [("Price", "p", "12 EUR")],
        ),
        # whitespace and zero-width characters inside a label
        ("<ul><li>  Da\u200bte \n</li><li>today</li></ul>", {"li"}, [("Date", "li", "today")]),
        # the last text of the page has no text after it
        ("<p>x</p><p>Price</p>", {"p"}, []),
        # a tag the labels do not name is not read
        ("<div>Price</div><p>1</p>", {"span"}, []),
    ],
)
def test_label_hits_by_tag(html, tags, want):
    fast, listed = _both(_root(html), tags)
    assert fast == listed
    assert [(n, t, str(x)) for n, t, x in fast] == want


def test_label_hits_random_trees():
    rnd = random.Random(7)
    parts = ["Price", " Date ", "By", "x", "\xa0", "<!--Price-->", "<br>"]
    tags = ["span", "div", "b", "p", "script", "style"]

    def frag(depth: int) -> str:
        out = []
        for _ in range(rnd.randint(0, 4)):
            if depth < 4 and rnd.random() < 0.5:
                t = rnd.choice(tags)
                out.append(f"<{t}>{frag(depth + 1)}</{t}>")
            else:
                out.append(rnd.choice(parts))
        return "".join(out)

    for _ in range(300):
        root = _root(f"<html><body>{frag(0)}</body></html>")
        chosen = set(rnd.sample(["span", "div", "b", "p", "body"], 2))
        fast, listed = _both(root, chosen)
        assert fast == listed


def test_label_hits_other_trees_use_the_list():
    root = etree.fromstring("<html><body><SPAN>Price</SPAN><p>3</p></body></html>")
    assert [(n, t, str(x)) for n, t, x in label_hits(root, LABELS, {"span"})] == [
        ("Price", "span", "3")
    ]


def test_maybe_dates_keeps_every_date_candidate():
    rnd = random.Random(3)
    pieces = ["a", "Yesterday", "today,", "3 days ago", "il y a", "hace", "é", "2024", " ", "\x1f"]
    for _ in range(500):
        texts = ["".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 5))) for _ in range(6)]
        keep = set(maybe_dates(texts))
        assert all(k in keep for k, t in enumerate(texts) if is_date_candidate(t))
    assert maybe_dates(["Home", "About us", "Posted yesterday", "12 May", "Contact"]) == [2, 3]


def test_maybe_dates_drops_numbers_without_a_date_mark_or_word():
    texts = [
        "Results 1 - 10 of 2,340",  # numbers, no date mark, no date word
        "Price 10.99",
        "10:30",  # a clock reading in a short text
        "x" * 45 + " 10:30",  # ... in a long one is no date
        "x" * 45 + " 1:30-05-05",  # the clock must not hide the date mark after it
        "12/05/2020",
        "Posted 3 days ago",
        "Mar 5",
        "Größe 12",  # not ASCII: kept (NFKC may make anything of it)
    ]
    assert maybe_dates(texts) == [2, 4, 5, 6, 7, 8]
    rnd = random.Random(5)
    pieces = ["1", "12", ":", "h", "H", "30", "-", "/", ".", " ", "May", "ago", "x" * 20, "é"]
    for _ in range(2000):
        texts = ["".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 8))) for _ in range(6)]
        keep = set(maybe_dates(texts))
        assert all(k in keep for k, t in enumerate(texts) if is_date_candidate(t))
