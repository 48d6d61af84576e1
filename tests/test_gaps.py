"""A value cut out of another field's text (DCADE's gaps) reads in Python what its XPath
string expression reads, from the nodes the other field's path selected."""

from __future__ import annotations

import re

import pytest
from lxml import etree

from scrapy_records.page import parse_html
from scrapy_records.wrappers.apply import CompiledWrapper
from scrapy_records.wrappers.gaps import gap_text, parse_gap, xpath_normalize
from scrapy_records.wrappers.inducers.dcade.subleaf import xpath_of_gap
from scrapy_records.wrappers.model import FieldSpec, RecordSelector
from scrapy_records.wrappers.reading import FieldReader
from scrapy_records.wrappers.scans import read_single
from scrapy_records.wrappers.wrapper import Wrapper

PATH = "/html/body/div[1]"
TEXTS = [
    "MSRP: $61,550 Invoice: $56,625",
    "MSRP:\u00a0$61,550\u00a0 Invoice: $56,625",
    "  MSRP: \t\n $61,550\r\n  Invoice:   $56,625  ",
    "MSRP: <b>$61</b>,550 <i>Invoice:</i> $56,625",
    "MSRP: $61,550",
    "Invoice: $56,625 MSRP: $1",
    "MSRP: MSRP: $2 Invoice: Invoice: $3",
    "no label at all",
    "MSRP:\u2003$4\u000c Invoice: $5",
    "MSRP: $6<!-- a comment --> Invoice: $7",
    "MSRP: $8<script>var a = 1;</script> Invoice: $9<?pi x?>",
    "",
]


def _page(text: str):
    html = f"<html><body><div>{text}</div><p>other</p></body></html>"
    return parse_html(html, None, parser_cls=etree.HTMLParser)[0]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize(
    "runs,gap", [(["MSRP:", "Invoice:"], 0), (["MSRP:", "Invoice:"], 1), (["MSRP:"], 1)]
)
def test_gap_text_is_what_the_xpath_reads(text, runs, gap):
    """White space XPath does not collapse (an em space, a form feed) stays, a no-break
    space reads as a space, a missing label gives an empty value."""
    root = _page(text)
    expr = xpath_of_gap(PATH, runs, gap)
    parsed = parse_gap(expr)
    assert parsed is not None and parsed[0] == PATH
    assert gap_text(parsed[1], root.xpath(PATH)) == root.xpath(expr)


def test_gap_of_a_text_node_and_of_nothing():
    root = _page("Posted: May 3 <b>x</b>")
    path = "/html/body/div[1]/text()[normalize-space()][1]"
    expr = xpath_of_gap(path, ["Posted:"], 1)
    parsed = parse_gap(expr)
    assert parsed is not None and parsed[0] == path
    assert gap_text(parsed[1], root.xpath(path)) == root.xpath(expr) == "May 3"
    missing = xpath_of_gap("/html/body/table", ["Posted:"], 1)
    assert gap_text(parse_gap(missing)[1], root.xpath("/html/body/table")) == ""
    assert root.xpath(missing) == ""


@pytest.mark.parametrize(
    "expr",
    [
        "normalize-space(/html/body/div)",
        "string(/html/body/div)",
        "normalize-space(substring-after(/html/body/div, 'x'))",
        "normalize-space(concat(' ', substring-after(concat(' ', normalize-space("
        "translate(/html/body/div, '\u00a0', ' ')), ' '), concat('a', \"'\", 'b'))))",
    ],
)
def test_other_string_expressions_are_not_gaps(expr):
    assert parse_gap(expr) is None


def test_xpath_normalize_collapses_xml_white_space_only():
    assert xpath_normalize(" a \t\r\n b\u00a0c\u2003d ") == "a b\u00a0c\u2003d"
    for s in (" a b ", "a b", "", " ", "a\x0cb ", "  a", "a\u00a0 b"):
        assert xpath_normalize(s) == " ".join(x for x in re.split("[ \t\r\n]+", s) if x)


def _wrapper(text_path: str, expr: str, twin: bool = True) -> CompiledWrapper:
    fields = [FieldSpec(name="msrp", xpath=expr, type="price")]
    if twin:
        fields.append(FieldSpec(name="msrp_raw", xpath=text_path, optional=True))
    return CompiledWrapper(Wrapper(id="w", record=RecordSelector(xpath="/html"), fields=fields))


@pytest.mark.parametrize("text", TEXTS[:4])
def test_detail_page_reads_the_gap_from_its_twin_as_the_xpath_does(text):
    """On a detail page the gap is computed from its ``_raw`` twin's nodes: the value the
    expression evaluated as written gives (without the twin, it is)."""
    root = _page(text)
    expr = xpath_of_gap(PATH, ["MSRP:", "Invoice:"], 1)
    cw = _wrapper(PATH, expr)
    assert cw.fields[0].gap is not None
    got = read_single(cw.fields, root, None, set())
    alone = FieldReader(FieldSpec(name="msrp", xpath=expr, type="price"), "/html")
    assert got[cw.fields[0].key] == alone.read(root, None)
    assert read_single(_wrapper(PATH, expr, twin=False).fields, root, None, set()) == {
        cw.fields[0].key: alone.read(root, None)
    }
    res = Wrapper(
        id="w",
        record=RecordSelector(xpath="/html"),
        fields=[
            FieldSpec(name="msrp", xpath=expr, type="price"),
            FieldSpec(name="msrp_raw", xpath=PATH, optional=True),
        ],
    ).extract(f"<html><body><div>{text}</div><p>other</p></body></html>")
    assert res.regions[0].records[0].fields["msrp"] == 61550.0
