"""A guarded XPath (``P | /html[not(P)]//...``, DCADE's checked absolute path and its
anchored fallback) read with ``P`` first gives the XPath's own result."""

from __future__ import annotations

import pytest
from lxml import etree

from scrapy_records.page import parse_html
from scrapy_records.wrappers.model import FieldSpec
from scrapy_records.wrappers.reading import FieldReader, guarded_first

PAGE = """<html><body>
<table><tr><td>Phone:</td><td>555</td></tr><tr><td>Fax:</td><td>556</td></tr></table>
<div><h3>Costs</h3><p>12 <b>USD</b></p><p>13</p></div>
</body></html>"""

P_PHONE = "/html/body/table/tr[1][td[1][normalize-space()='Phone:']]/td[2]"
P_MOVED = "/html/body/table/tr[2][td[1][normalize-space()='Phone:']]/td[2]"
ANCHOR = "//td[normalize-space()='Phone:']/../td[2]"


def _root():
    return parse_html(PAGE, None, parser_cls=etree.HTMLParser)[0]


@pytest.mark.parametrize(
    ("xpath", "first"),
    [
        (f"{P_PHONE} | /html[not({P_PHONE})]{ANCHOR}", P_PHONE),  # the path holds
        (f"{P_MOVED} | /html[not({P_MOVED})]{ANCHOR}", P_MOVED),  # the fallback scan
        (f"{P_MOVED}/text() | /html[not({P_MOVED}/text())]{ANCHOR}/text()", P_MOVED + "/text()"),
        (f"{P_PHONE}/text() | /html[not({P_PHONE}/text())]{ANCHOR}/text()", P_PHONE + "/text()"),
        ("/html/body/div/p | /html[not(/html/body/div/p)]//p", "/html/body/div/p"),
        ("/html/body/div/i | /html[not(/html/body/div/i)]//b", "/html/body/div/i"),
        # not guarded: another guard, a third branch, a guard that is not the path
        (f"{P_PHONE} | /html[not({P_MOVED})]{ANCHOR}", None),
        (f"{P_MOVED}/text() | /html[not({P_MOVED})]{ANCHOR}/text()", None),
        (f"{P_PHONE} | /html[not({P_PHONE})]{ANCHOR} | //p", None),
        (f"{P_PHONE} | //p", None),
        (f"normalize-space({P_PHONE} | /html[not({P_PHONE})]{ANCHOR})", None),
    ],
)
def test_a_guarded_xpath_reads_as_written(xpath, first):
    assert guarded_first(xpath) == first
    root = _root()
    for multiple in (False, True):
        reader = FieldReader(FieldSpec("f", "text", xpath, multiple=multiple), "/html")
        assert (reader.first is not None) == (first is not None)
        nodes = etree.XPath(xpath, smart_strings=False)(root)
        if not isinstance(nodes, list):
            nodes = [str(nodes)] if nodes not in (None, "") else []
        assert reader.read(root, None) == reader.value(nodes, None)


MOVED = """<html><body><p>A notice above the details</p>
<table><tr><td>Phone:</td><td>555</td></tr><tr><td>Fax:</td><td>556</td></tr>
<tr><td>Email:</td><td><a href="mailto:x@example.com">x@example.com</a></td></tr>
<tr><td>Phone: (office)</td><td>557</td></tr></table>
<ul><li class="x">one</li><li class="y">two</li><li class="x">three</li></ul>
<span><b>Site:</b> <i>www.example.com</i></span>
</body></html>"""


def _guarded(label: str, tail: str, tag: str = "td") -> str:
    first = f"/html/body/table/tr[9][{tag}[1][normalize-space()='{label}']]{tail}"
    return f"{first} | /html[not({first})]//{tag}[normalize-space()='{label}']/..{tail}"


@pytest.mark.parametrize("multiple", [False, True])
def test_the_scans_of_a_moved_layout_are_shared_and_give_each_fields_own_nodes(multiple):
    """On a page where the absolute paths select nothing (a block was added above the
    details), the fields whose scans look for the same tag share one scan for all their
    labels, and each gets what its own XPath selects: its label's nodes only."""
    from scrapy_records.wrappers.apply import CompiledWrapper
    from scrapy_records.wrappers.model import RecordSelector
    from scrapy_records.wrappers.scans import _shared_scan, scan_parts
    from scrapy_records.wrappers.wrapper import Wrapper

    specs = [
        FieldSpec("phone", "text", _guarded("Phone:", "/td[2]"), multiple=multiple),
        FieldSpec("fax", "text", _guarded("Fax:", "/td[2]"), multiple=multiple),
        FieldSpec("email", "url", _guarded("Email:", "/td[2]/a"), attribute="href"),
        FieldSpec("missing", "text", _guarded("Mobile:", "/td[2]")),
        FieldSpec(
            "x",
            "text",
            "/html/body/ul/li[9][@class='x'] | /html[not(/html/body/ul/li[9][@class='x'])]"
            "//li[@class='x']",
            multiple=multiple,
        ),
        FieldSpec(
            "site",
            "text",
            "/html/body/div/span[b[normalize-space()='Site:']]/i | /html[not(/html/body/div/"
            "span[b[normalize-space()='Site:']]/i)]//span[b[normalize-space()='Site:']]/i",
        ),
    ]
    w = Wrapper(id="t", record=RecordSelector("/html", size=1), fields=specs)
    cw = CompiledWrapper(w)
    assert all(f.scan is not None for f in cw.fields)
    assert scan_parts("//td[2]") is None  # (a position: not a test)
    _shared_scan.cache_clear()
    got = w.extract(MOVED).records[0].fields
    assert _shared_scan.cache_info().misses == 1  # (the td labels' one scan)
    root = parse_html(MOVED, None, parser_cls=etree.HTMLParser)[0]
    for f in cw.fields:
        nodes = etree.XPath(f.path, smart_strings=False)(root)
        want = f.value(nodes, None)
        assert got.get(f.name) == want
    assert got["phone"] == (["555"] if multiple else "555")
    assert got["fax"] == (["556"] if multiple else "556")
    assert got["email"] == "mailto:x@example.com"
    assert "missing" not in got
    assert got["x"] == (["one", "three"] if multiple else "one")
    assert got["site"] == "www.example.com"
