"""A detail page's field paths from ``/html`` read from the root element ``html``: the same
nodes as the absolute paths (the document node and what precedes the root skipped)."""

from __future__ import annotations

import pytest
from lxml import etree

from scrapy_records.page import parse_html
from scrapy_records.wrappers.model import FieldSpec, RecordSelector
from scrapy_records.wrappers.reading import FieldReader, root_relative
from scrapy_records.wrappers.scans import read_single
from scrapy_records.wrappers.wrapper import Wrapper

PAGE = (
    "<!DOCTYPE html><!-- before the root --><html lang='en'><head><title>T</title></head>"
    "<body><div class='a'><h1>Name</h1><p>one</p><p>two</p></div>"
    "<table><tr><td>Phone:</td><td>555</td></tr></table><a href='/x'>X</a></body></html>"
)
PATHS = [
    "/html/head/title",
    "/html/body/div[1]/p[2]",
    "/html/body/div/p",
    "/html/body/div[1]/h1/text()",
    "/html/@lang",
    "/html/body/a | /html/head/title",
    "/html/body/table/tr[1][td[1][normalize-space()='Phone:']]/td[2] | /html[not(/html/body/"
    "table/tr[1][td[1][normalize-space()='Phone:']]/td[2])]//td[normalize-space()='Phone:']"
    "/../td[2]",
    "/html/body/table/tr[2][td[1][normalize-space()='Phone:']]/td[2] | /html[not(/html/body/"
    "table/tr[2][td[1][normalize-space()='Phone:']]/td[2])]//td[normalize-space()='Phone:']"
    "/../td[2]",
    "/html/body/nothing",
]


def test_root_relative_forms():
    assert root_relative("/html/body/div") == "body/div"
    assert root_relative(" /html/@lang") == "@lang"
    assert root_relative("/html//div") is None
    assert root_relative("/html[1]/body") is None
    assert root_relative("//html/body") is None
    assert root_relative("body/div") is None


@pytest.mark.parametrize("path", PATHS)
def test_fields_from_the_root_read_what_the_absolute_paths_select(path):
    root = parse_html(PAGE, None, parser_cls=etree.HTMLParser)[0]
    f = FieldReader(FieldSpec(name="f", xpath=path, multiple=True), "/html")
    assert f.rel is not None
    got = read_single([f], root, None, set())[f.key]
    want = f.value(root.xpath(path), None)
    assert got == want
    assert got is None if path.endswith("nothing") else got


def test_a_detail_wrapper_reads_its_values_from_the_root():
    w = Wrapper(
        id="w",
        record=RecordSelector(xpath="/html"),
        fields=[
            FieldSpec(name="name", xpath="/html/body/div[1]/h1"),
            FieldSpec(name="second", xpath="/html/body/div/p[2]"),
            FieldSpec(name="phone", xpath=PATHS[6]),
        ],
    )
    fields = w.extract(PAGE.encode()).regions[0].records[0].fields
    assert fields == {"name": "Name", "second": "two", "phone": "555"}


def test_the_whole_page_record_is_the_root_element_as_slash_html_selects_it():
    """A ``/html`` record is the document's root element when it is ``html`` (from any
    element of the page the wrapper is given), no record otherwise: what the XPath
    selects."""
    w = Wrapper(
        id="w",
        record=RecordSelector(xpath="/html"),
        fields=[FieldSpec(name="name", xpath="/html/body/div[1]/h1")],
    )
    root = parse_html(PAGE, None, parser_cls=etree.HTMLParser)[0]
    inner = root.find("body/div")
    for source in (PAGE, root, inner):
        recs = w.extract(source).regions[0].records
        assert [r.fields for r in recs] == [{"name": "Name"}]
    other = etree.fromstring("<doc><body><div><h1>x</h1></div></body></doc>")
    assert etree.XPath("/html")(other) == []
    assert w.extract(other).regions[0].records == []
