"""Id-anchored XPaths read through the page's id index give the XPath's own result."""

from __future__ import annotations

import pytest
from lxml import etree

from scrapy_records.page import parse_html
from scrapy_records.wrappers.apply import CompiledWrapper
from scrapy_records.wrappers.idpaths import IdIndex, id_path, ids_xpath
from scrapy_records.wrappers.model import FieldSpec, RecordSelector
from scrapy_records.wrappers.wrapper import Wrapper

PAGE = """<html><body>
<div id="main"><ul><li>one <b>1</b></li><li>two</li><li id="x">three</li></ul>
  <span id="count">3 results</span></div>
<p id="dup">first</p><div><p id="dup">second <i>it</i></p></div>
<section id="main">not a div</section>
<div id="quo'te">quoted</div>
</body></html>"""


def _root():
    return parse_html(PAGE, None, parser_cls=etree.HTMLParser)[0]


@pytest.mark.parametrize(
    "xpath",
    [
        "//div[@id='main']",
        "//div[@id='main']/ul/li[2]",
        "//div[@id='main']/ul/li/text()",
        "//div[@id='main']//b",
        "//div[@id='main']/ul/li[position() >= 2 and position() <= 3]",
        "//*[@id='main']/ul/li[1]",
        "//li[@id='x']/../li[1]",
        "//span[@id='count']/text()[1]",
        "//p[@id='dup']",
        "//p[@id='dup']/i",
        "//div[@id='nothing']/a",
        '//div[@id="quo\'te"]',
        "//div[@id='main']/following::p[1]",
    ],
)
def test_same_nodes_as_the_xpath(xpath):
    root = _root()
    want = etree.XPath(xpath, smart_strings=False)(root)
    ip = id_path(xpath)
    assert ip is not None
    got = ip.nodes(IdIndex(root))
    if got is None:  # several anchors: evaluated as written
        assert xpath.startswith(("//p[@id='dup']", "//*[@id='main']"))
        return
    assert got == want


@pytest.mark.parametrize(
    "xpath",
    [
        "//div[@id='main'][1]/ul",  # a second predicate on the anchor step
        "//div[@id='main']/ul | //p",  # a union
        "//div[@id='main']/ul = 'x'",  # a comparison
        "//div[@id='main'] and //p",
        "/html/body/div[@id='main']",
        "//div[@class='main']/ul",
        "count(//div[@id='main'])",
        "//div[@id='main']/concat('a', 'b')",
    ],
)
def test_other_xpaths_are_evaluated_as_written(xpath):
    assert id_path(xpath) is None


def test_wrapper_reads_id_anchored_page_fields_and_records():
    w = Wrapper(
        id="t",
        record=RecordSelector("//div[@id='main']/ul/li", size=1),
        fields=[FieldSpec("text", "text", ".")],
        page_fields=[
            FieldSpec("count", "text", "//span[@id='count']"),
            FieldSpec("dup", "text", "//p[@id='dup']", optional=True, multiple=True),
        ],
    )
    root = _root()
    res = CompiledWrapper(w).apply(root, None)
    assert [r.fields["text"] for r in res.records] == ["one 1", "two", "three"]
    assert res.regions[0].meta["page"] == {"count": "3 results", "dup": ["first", "second it"]}


def test_index_of_named_ids_lists_them_and_all_others_on_demand():
    root = _root()
    full = IdIndex(root)
    values = frozenset({"main", "dup", "quo'te"})
    named = IdIndex(root, values, ids_xpath(set(values)))
    for v in ["main", "dup", "quo'te", "x", "count", "absent", "main"]:
        assert named.get(v) == full.get(v)
    assert ids_xpath({"both'\"quotes"}) is None
    assert IdIndex(root, values, None).get("x") == full.get("x")


def test_index_lists_the_ids_of_the_whole_document_as_the_xpath_does():
    # the index reads the id of every element of the document, also when built from a
    # sub-element (only elements carry attributes): what ``//*[@id=...]`` finds
    root = _root()
    sub = root.find(".//ul")
    assert sub is not None
    for values in (None, frozenset({"count", "x"})):
        xp = ids_xpath(set(values)) if values else None
        index = IdIndex(sub, values, xp)
        for v in ("count", "x", "main"):
            assert index.get(v) == etree.XPath(f"//*[@id='{v}']")(root)
