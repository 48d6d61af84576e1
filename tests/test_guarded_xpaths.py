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
