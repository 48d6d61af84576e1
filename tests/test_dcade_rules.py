"""DCADE rules on small page sets: template texts that vary with the page's variant, the
alignment and re-arrangement around them (Yuliana & Chang 2019, sections 3.2.2-3.2.3)."""

from __future__ import annotations

from scrapy_records.page import Page
from scrapy_records.wrappers.inducers.dcade import induce_schema

ITEMS = [
    ("Blue stamp", "Michigan", "Country/Region", "USA/Detroit"),
    ("Red stamp", "Ohio", "Country/Region", "USA/Columbus"),
    ("Green stamp", "Kent", "Country", "UK"),
    ("Old coin", "Texas", "Country/Region", "USA/Austin"),
    ("Gold coin", "Essex", "Country", "France"),
    ("Silver coin", "Oregon", "Country/Region", "USA/Portland"),
    ("Tin coin", "Idaho", "Country/Region", "USA/Boise"),
    ("Lead coin", "Utah", "Country/Region", "USA/Provo"),
    ("Iron coin", "Iowa", "Country/Region", "USA/Ames"),
    ("Zinc coin", "Maine", "Country/Region", "USA/Bangor"),
]


def item_page(title: str, where: str, label: str, country: str) -> Page:
    return Page(
        f"<html><body><h1>{title}</h1><table>"
        f"<tr><td><font>Location</font></td><td><div><span><b>{where}</b></span></div></td></tr>"
        f"<tr><td><font>{label}</font></td><td><div><span><b>{country}</b></span></div></td></tr>"
        f"<tr><td><font>Started</font></td><td><div><span><b>Feb-0{len(title) % 9}-02</b></span></div></td></tr>"
        "</table></body></html>",
        url="http://auction.example/item",
    )


def test_two_template_labels_stay_template_columns():
    """'Country/Region' on most pages, 'Country' on the others: two constant texts, two
    optional template columns, no data column mixing the labels (a weak match at level 5
    joined them)."""
    s = induce_schema([item_page(*x) for x in ITEMS])
    mixed = [c for c in s.columns if "Country" in c.values and "Country/Region" in c.values]
    assert not mixed, [(c.label, c.values) for c in mixed]
    for text in ("Country", "Country/Region"):
        cols = [c for c in s.columns if text in c.values]
        assert cols and all(not c.data for c in cols), [(c.label, c.values) for c in cols]
    where = [c for c in s.columns if "Michigan" in c.values]
    assert len(where) == 1 and where[0].data and None not in where[0].values
