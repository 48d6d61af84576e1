"""Wrapper application's cheaper paths give what the plain ones give: the budget's measures
through the id index and its bound of the nodes, link values, and single-valued fields
read by pairs (issue 19)."""

from __future__ import annotations

from urllib.parse import urljoin

import pytest
from lxml import etree

from scrapy_records.errors import BudgetExceededError, PageTooLargeError
from scrapy_records.page import parse_html
from scrapy_records.wrappers import budget as budget_mod
from scrapy_records.wrappers.apply import CompiledWrapper, _charges
from scrapy_records.wrappers.budget import ApplyBudget, count_nodes, nodes_and_texts
from scrapy_records.wrappers.idpaths import IdIndex, ids_xpath
from scrapy_records.wrappers.model import FieldSpec, RecordSelector
from scrapy_records.wrappers.reading import FieldReader, to_value
from scrapy_records.wrappers.safe_xpath import check_xpath
from scrapy_records.wrappers.wrapper import Wrapper


def _root(html: str):
    return parse_html(html, None, parser_cls=etree.HTMLParser)[0]


def _shop(n: int, ul_id: str = "results", twice: bool = False) -> str:
    items = "".join(
        f"<li><a href='/p/{k}'>Item {k}</a> <b>{k}.99</b> <i>note</i> {k}</li>" for k in range(n)
    )
    lists = f"<ul id='{ul_id}'>{items}</ul>"
    return f"<html><body><p>head</p>{lists}{lists if twice else ''}<p>foot</p></body></html>"


@pytest.mark.parametrize("twice", [False, True])
def test_id_anchored_context_set_is_measured_through_the_id_index(twice, monkeypatch):
    """``//ul[@id='results']//li`` charges the size of ``//ul[@id='results']``: read from
    the page's id index (no scan of the page), the same size as the XPath's; with two
    anchors of that id the XPath is evaluated as written."""
    root = _root(_shop(30, twice=twice))
    info = check_xpath("//ul[@id='results']//li")
    assert info.spread == ("//ul[@id='results']",)
    plain = ApplyBudget(root, max_work=None)
    plain.top(info, "records")
    ids = IdIndex(root, frozenset({"results"}), ids_xpath({"results"}))
    scans = []
    xp, idp = budget_mod._prefix_xpaths("//ul[@id='results']")

    def spy(node):
        scans.append(node)
        return xp(node)

    monkeypatch.setattr(budget_mod, "_prefix_xpaths", lambda prefix: (spy, idp))
    indexed = ApplyBudget(root, max_work=None)
    indexed.top(info, "records", ids)
    assert indexed.work == plain.work
    assert len(scans) == (1 if twice else 0)  # (two anchors: the XPath as written)
    # an id the index does not list is measured by the XPath: no second pass for the index
    other = IdIndex(root, frozenset({"elsewhere"}), ids_xpath({"elsewhere"}))
    third = ApplyBudget(root, max_work=None)
    third.top(info, "records", other)
    assert third.work == plain.work and other.lists("elsewhere") and not other.lists("results")


def test_nodes_are_bounded_before_they_are_counted():
    """A page given as a tree has no bound from its bytes: its nodes and texts bound its
    nodes (one pass); only a page over ``max_nodes`` by that bound is counted, and refused
    only when its nodes themselves are over."""
    html = "<html><body><ul>" + "<li>x <b>y</b> z</li>" * 200 + "</ul></body></html>"
    root = _root(html)
    nodes, bound = count_nodes(root), nodes_and_texts(root)
    assert nodes < bound
    budget = ApplyBudget(root, max_nodes=bound)
    assert budget._nodes is None  # (not counted: the bound decides)
    between = ApplyBudget(root, max_nodes=nodes)
    assert between._nodes == nodes
    with pytest.raises(PageTooLargeError, match=f"max_nodes={nodes - 1}"):
        ApplyBudget(root, max_nodes=nodes - 1)
    w = Wrapper(
        id="t",
        record=RecordSelector("//ul/li", size=1),
        fields=[FieldSpec("b", "text", "b")],
    )
    assert len(w.extract(root, max_nodes=nodes).records) == 200
    with pytest.raises(PageTooLargeError):
        w.extract(root, max_nodes=nodes - 1)


@pytest.mark.parametrize(
    "raw",
    [
        "http://example.com/a/b?q=1",
        "https://example.com/",
        "HTTP://Example.com/A",  # a scheme urljoin lower-cases
        "Http://example.com/",
        "ftp://files.example.com/x",
        "svn+ssh://host/repo",
        "1http://host/",
        "http://example.com/a/../b",
        "http://example.com/a b",
        "http://example.com/a#",
        "http://example.com/a?",
        "http://example.com/?#frag",  # an empty query before a fragment: urljoin drops it
        "  http://example.com/padded  ",
        "/root/relative?x=1",
        "//other.host/path",
        "page.html",
        "../up.html",
        "?only=query",
        "#frag",
        "mailto:someone@example.com",
        "http://exa\tmple.com/tab",
        "a\nb.html",
        "https://example.com/x?q=1#f",
        "http://example.com/no\u00a0break",
        "http://example.com/v\x0btab",
        "http://example.com/a..b",
        "https:///no-host",
    ],
)
@pytest.mark.parametrize("base", ["http://example.com/dir/page.html", "file:///site/index.html"])
def test_link_values_are_what_urljoin_makes(raw, base):
    assert to_value("url", raw, base) == urljoin(base, raw.strip())
    assert to_value("image", raw, base) == urljoin(base, raw.strip())


@pytest.mark.parametrize(
    "raw",
    [
        "../up.html",
        "../../../../above/the/root.html",
        "./here.html",
        ".",
        "..",
        "../",
        "a/./b/../c.html",
        "a//b/../c.html",  # (urljoin drops the empty segment first)
        "/x/../y/./z",
        "../a.html?p=1&q=../2",
        "../a.html?",
        "?page=2",
        "?",
        "?a#b",
        "../a#b",
        "../a;p",
        ".a/b",
        "../x:y",
    ],
)
@pytest.mark.parametrize(
    "base",
    [
        "http://example.com/dir/sub/page.html?x=1#top",
        "https://example.com",
        "http://example.com/",
        "http://example.com/a//b/./c/",
        "http://example.com/a;p/b",
        "HTTP://example.com/a/b",
        "http://[::1]/a/b",
    ],
)
def test_dot_segments_and_queries_join_as_urljoin_does(raw, base):
    """Relative links with dot segments and query-only links (a detail page's "../city.html",
    a pager's "?page=2") are joined without urljoin on plain http(s) bases, to the same URL."""
    assert to_value("url", raw, base) == urljoin(base, raw)


@pytest.mark.parametrize("raw", ["javascript:void(0)", "  JavaScript:go()", "DATA:image/png;x", ""])
def test_script_and_data_links_are_no_values(raw):
    assert to_value("url", raw, "http://example.com/") is None
    assert to_value("text", raw, "http://example.com/") == raw


PAIRS = """<html><body><ul>
<li><b>1</b> <a href='/one'>one</a></li>
<li><b> </b><b>2</b> <a href='javascript:x()'>js</a><a href='/two'>two</a></li>
<li><i>no b</i></li>
<li><b>4</b><b>four</b> <a href='/four'>four</a></li>
<li><b>5</b> <a>no href</a></li>
</ul></body></html>"""


@pytest.mark.parametrize("path", ["b", "a"])
def test_single_valued_fields_read_over_all_records_as_record_by_record(path):
    """Whether each record has one node of the field (read by pairs) or not (empty first
    nodes, several, none), a field's value is the record's first non-empty one: what the
    field's XPath gives from each record alone."""
    fields = [
        FieldSpec("text", "text", path),
        FieldSpec("url", "url", path, attribute="href"),
    ]
    w = Wrapper(id="t", record=RecordSelector("//ul/li", size=1), fields=fields)
    base = "http://example.com/list"
    root = _root(PAIRS)
    got = [r.fields for r in CompiledWrapper(w).apply(root, base).records]
    readers = [FieldReader(f, "//ul/li") for f in fields]
    want = []
    for li in root.xpath("//ul/li"):
        vals = {f.name: f.read(li, base) for f in readers}
        want.append({k: v for k, v in vals.items() if v is not None})
    assert got == want
    one = _root(
        PAIRS.replace("<b> </b>", "").replace("<b>four</b>", "").replace("<i>no b</i>", "<b>3</b>")
    )
    if path == "b":  # one b in each record: the pairs
        assert [r.fields["text"] for r in CompiledWrapper(w).apply(one, base).records] == [
            "1",
            "2",
            "3",
            "4",
            "5",
        ]


def test_fields_charged_at_once_cost_what_they_cost_one_by_one():
    """The fields of a list page are charged as one sum when the budget holds it: the same
    work as their charges one by one; over the budget, application still stops at the
    field that passes it, before its XPath runs."""
    fields = [
        FieldSpec("text", "text", "b"),
        FieldSpec("url", "url", "a", attribute="href"),
        FieldSpec("title", "text", "a"),
        FieldSpec("next", "text", "following-sibling::li[1]/b"),
    ]
    w = Wrapper(id="t", record=RecordSelector("//ul/li", size=1), fields=fields)
    cw = CompiledWrapper(w)
    root = _root(_shop(40))
    n = 40
    at_once = ApplyBudget(root, max_work=None)
    assert at_once.all_fields(_charges(cw.fields, n), n)
    one_by_one = ApplyBudget(root, max_work=None)
    seen = set()
    for f in cw.fields:
        one_by_one.values(n, f.name)
        if f.batch is None:
            one_by_one.per_record(f.info, n, f.name)
        elif f.path not in seen:
            seen.add(f.path)
            one_by_one.batched(f.info, n, f.name)
    assert at_once.work == one_by_one.work
    # a budget the record selector and the first fields fit in, not the last one
    tight = at_once.work - 1
    with pytest.raises(BudgetExceededError, match="at field next"):
        w.extract(_shop(40), max_work=tight)


def test_a_detail_pages_fields_summed_once_cost_what_they_cost_one_by_one():
    """A single record's fields are charged with their sums kept by the compiled wrapper
    (:class:`FieldTotals`): the same work as each field's charges, context sets and nested
    descendant steps (the page's depth) included."""
    fields = [
        FieldSpec("title", "text", "/html/body/h1"),
        FieldSpec("next", "text", "/html/body/ul/li[1]/following-sibling::li[1]/b"),
        FieldSpec("up", "text", "/html/body//b[normalize-space()='1.99']/../a"),
        FieldSpec("deep", "text", "/html/body/ul/li[.//b]/a"),
        FieldSpec("rel", "text", "body/ul/li[.//b][2]/a"),
        FieldSpec("link", "url", "/html/body/ul/li[2]/a", attribute="href"),
    ]
    w = Wrapper(id="t", record=RecordSelector("/html", size=1), fields=fields)
    cw = CompiledWrapper(w)
    root = _root(_shop(30))
    at_once = ApplyBudget(root, max_work=None)
    at_once.fields(cw.fields, 1, cw.totals)
    one_by_one = ApplyBudget(root, max_work=None)
    for f in cw.fields:
        one_by_one.values(1, f.name)
        one_by_one.per_record(f.info, 1, f.name)
    assert at_once.work == one_by_one.work > 0
    assert cw.totals.nested_deep and cw.totals.deep
    with_deadline = ApplyBudget(root, max_work=None, max_seconds=60)
    with_deadline.fields(cw.fields, 1, cw.totals)  # (charged one by one)
    assert with_deadline.work == one_by_one.work


@pytest.mark.parametrize(
    "values",
    [
        {"a": "Name", "b": "one two", "n": 3, "l": [{"x": "p q", "y": 2}, "r"]},
        {"a": "http://x.example/a  b", "b": "c"},
        {"a": "tab\there", "b": " lead", "c": "trail "},
        {"a": "no\u00a0break", "b": "em\u2003space", "c": "line\u2028sep"},
        {"a": "", "b": "after empty"},
        {"a": "zero\u200bwidth", "b": "x"},
        {},
    ],
)
def test_a_whole_page_record_text_is_its_values_normalised(values):
    """The text of a detail page's record: its text values joined, white space collapsed
    as ``split()`` does it, whether the values were normalised already or not."""
    from scrapy_records.wrappers.apply import _values_text

    parts = []
    for v in values.values():
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, dict):
                    parts += [y for y in x.values() if isinstance(y, str)]
                elif isinstance(x, str):
                    parts.append(x)
    assert _values_text(values) == " ".join(" ".join(parts).split())
