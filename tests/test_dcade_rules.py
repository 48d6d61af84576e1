"""DCADE rules on small page sets: template texts that vary with the page's variant, the
alignment and re-arrangement around them (Yuliana & Chang 2019, sections 3.2.2-3.2.3)."""

from __future__ import annotations

from scrapy_records.page import Page
from scrapy_records.wrappers.inducers.dcade import induce_schema, schema_to_wrapper

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


HEIGHTS = [
    ("1.8", "5", "11"),
    ("1.75", "5", "9"),
    ("1.83", "6", "0"),
    ("1.73", "5", "8"),
    ("1.9", "6", "3"),
]


def player_page(i: int, metres: str, ft: str, inch: str) -> Page:
    return Page(
        f"<html><body><h1>Player {chr(65 + i)}lpha</h1><table>"
        f"<tr><td>Height:</td><td><b>{metres} metres ( {ft} ft. {inch} in. )</b></td></tr>"
        f"<tr><td>Plays:</td><td><b>{'Left' if i % 2 else 'Right'}</b></td></tr>"
        "</table></body></html>",
        url="http://tennis.example/player",
    )


def test_bracket_is_no_separator_inside_a_leaf():
    """'1.8 metres ( 5 ft. 11 in. )' is one value with a remark in brackets: the bracket
    the template writes opens no value of its own, so the leaf stays whole (the paper
    never splits a leaf; a sub-leaf cut needs a label or a separator)."""
    s = induce_schema([player_page(i, *h) for i, h in enumerate(HEIGHTS)])
    height = [c for c in s.columns if c.data and any("1.75" in (v or "") for v in c.values)]
    assert len(height) == 1, [(c.name, c.values) for c in height]
    assert height[0].values[1] == "1.75 metres ( 5 ft. 9 in. )"


FEATURES = [
    "Not Available",
    "Color; interactive menus; scene access",
    "Not Available",
    "Color; menus",
    "Not Available",
    "Color; region 1 encoding; menus",
    "Not Available",
    "Commentary; trailer",
    "Color; region 1 encoding",
    "Color; region 1; trailer",
]


def dvd_page(i: int, feat: str) -> Page:
    """Three pages wrap the features in more markup (another PathId, the same SimSeqId);
    seven show a preview link after them."""
    val = f"<div><p><span>{feat}</span></p></div>" if i in (5, 8, 9) else feat
    preview = "" if i in (1, 4, 8) else "<tr><td><a href=/p>Movie Preview</a></td></tr>"
    return Page(
        f"<html><body><h1>Film {chr(65 + i)}{chr(97 + i)}</h1><table>"
        f"<tr><td><b>Other Features:</b></td><td><font>{val}</font></td></tr>{preview}"
        f"<tr><td><b>Length:</b></td><td><font>{90 + i} minutes</font></td></tr>"
        "</table></body></html>",
        url="http://dvd.example/film",
    )


def test_sub_landmark_holding_data_takes_disjunctive_cells():
    """'Not Available' is an ST whose sub-landmark column the other pages' features join;
    the pages whose features sit deeper fill a disjunctive column, which merges into it
    at the SimSeqId level (section 3.2.3): one features column, not two."""
    s = induce_schema([dvd_page(i, f) for i, f in enumerate(FEATURES)])
    cols = [c for c in s.columns if c.data and any("Color" in (v or "") for v in c.values)]
    assert len(cols) == 1, [c.values for c in cols]
    assert cols[0].values == FEATURES


SELLERS = [
    ("ahhaim", 50),
    ("kennedy10", 1311),
    ("usbob", 326),
    ("haagantique", 2594),
    ("lgregg2", 231),
]


def seller_page(i: int, name: str, rating: int) -> Page:
    return Page(
        f"<html><body><h1>Lot {chr(65 + i)}{chr(97 + i)}</h1><table><tr><td>Seller (Rating)</td>"
        f"<td><b><a href='/ask?u={name}'>{name}</a> <a href='/feedback?u={name}'>({rating})</a>"
        "</b></td></tr></table></body></html>",
        url="http://auction.example/lot",
    )


def test_sibling_links_of_different_kinds_are_fields_not_a_set():
    """A seller's name and its rating "(50)" are two links in one ``b`` on every page:
    sibling elements of one tag, but no values of one kind (their PTypeSets differ), so
    two fields, not one ``multiple`` field reading both."""
    w = schema_to_wrapper(induce_schema([seller_page(i, *x) for i, x in enumerate(SELLERS)]))
    assert not any(f.multiple for f in w.fields)
    got = w.extract(seller_page(9, "bauhaus22", 502)).records[0].fields
    assert "bauhaus22" in got.values()
