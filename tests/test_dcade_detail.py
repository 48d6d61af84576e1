"""DCADE on detail pages: the record holds the object's data, named by its labels.

Small hand-written sites, five pages of one template each (one book, one car...): menus
whose links carry a session id, labels in ``th``/``dt``/bold/glued form, optional blocks
that shift positions, lists of authors, values that coincide on the sample.
"""

from __future__ import annotations

import pytest

from scrapy_records import induce
from scrapy_records.page import Page
from scrapy_records.wrappers.inducers.dcade import induce_schema, induce_wrapper
from scrapy_records.wrappers.inducers.dcade.names import type_name
from scrapy_records.wrappers.inducers.dcade.subleaf import (
    leaf_skeleton,
    split_value,
    xpath_of_gap,
)

BOOKS = [
    ("The Silent Sea", ["Ann Archer"], "Jove Books", "978-0-515-10001-1", "320", True),
    ("River of Stars", ["Bo Baker", "Cy Cole"], "Ace", "978-0-441-20002-2", "288", False),
    ("Night Train", ["Di Dunn", "Ed Eames", "Flo Ford"], "Tor", "978-0-765-30003-3", "412", True),
    ("Glass Harbor", ["Gus Grant"], "Orbit", "978-0-316-40004-4", "256", False),
    ("Iron Garden", ["Hal Hood", "Ivy Irwin"], "Del Rey", "978-0-345-50005-5", "368", False),
]
NEW_BOOK = ("Copper Moon", ["Jo Jones", "Kim King", "Lu Lane", "Mo Moss"], "Baen", "978-1", "500")


def book(i, title, authors, publisher, isbn, pages, sale, sid=None, binding="Paperback"):
    """A book page: a menu whose links carry the session id, a byline of author links, an
    optional promotion paragraph (it shifts the positions of what follows), a th/td table,
    a bold label with its colon outside, a description and a footer."""
    sid = sid or f"S{i}x{7 * i + 3}"
    menu = "".join(
        f'<li><a href="/{p}?sid={sid}">{t}</a></li>'
        for p, t in (("home", "Home"), ("books", "Books"), ("help", "Help"))
    )
    auth = ", ".join(f'<a href="/author/{a.split()[1].lower()}">{a}</a>' for a in authors)
    promo = "<p class='promo'><b>Sale!</b> 20% off this week</p>" if sale else ""
    return f"""<html><head><title>{title} - Bookshop</title></head><body>
<div id="top"><a href="#main">Skip to content</a><ul class="menu">{menu}</ul></div>
<div id="main"><h1 class="book-title">{title}</h1><p class="byline">by {auth}</p>{promo}
<table class="details"><tr><th>Publisher:</th><td>{publisher}</td></tr>
<tr><th>ISBN-13</th><td>{isbn}</td></tr><tr><th>Binding:</th><td>{binding}</td></tr></table>
<p><b>Pages</b>: {pages}</p>
<p class="blurb">A novel about {title.lower()} and what lies beyond it, in {pages} pages.</p>
</div><div id="foot">Copyright Bookshop Inc. <b>Phone:</b> 555-0100
<a href="/about?sid={sid}">About us</a></div></body></html>"""


def book_pages(books=BOOKS):
    return [(f"http://books.example/b/{i}", book(i, *b)) for i, b in enumerate(books)]


@pytest.fixture(scope="module")
def book_wrapper():
    return induce(book_pages())


def fields_of(w, html, url="http://books.example/b/9"):
    res = w.extract(html, url)
    assert len(res.regions) == 1 and len(res.regions[0].records) == 1
    return res.regions[0].records[0].fields


# ------------------------------------------------------------------- template
def test_auto_takes_detail_pages_to_dcade_with_one_record_per_page(book_wrapper):
    assert book_wrapper.provenance.extractor == "dcade"
    assert book_wrapper.record is not None and book_wrapper.record.xpath == "/html"
    for url, html in book_pages():
        assert len(book_wrapper.extract(html, url).regions[0].records) == 1


def test_menu_links_with_a_session_id_are_navigation_not_fields(book_wrapper):
    specs = list(book_wrapper.fields) + [f for ls in book_wrapper.lists for f in ls.fields]
    # the author links are data (their text varies); no menu, skip link or footer link
    assert [f.name for f in specs if f.type == "url"] == ["byline_url"]
    got = fields_of(book_wrapper, book(9, *NEW_BOOK, sale=False, sid="NEW"))
    flat = " ".join(str(v) for v in got.values())
    assert "sid=" not in flat and "Skip to content" not in flat and "Home" not in flat


def test_text_identical_on_all_sample_pages_is_template(book_wrapper):
    got = [fields_of(book_wrapper, html, url) for url, html in book_pages()]
    for name in {n for g in got for n in g}:
        if name.endswith(("_raw", "_currency")) or name == "binding":
            continue  # binding: see test_a_value_coinciding_on_the_sample_...
        assert len({str(g.get(name)) for g in got}) > 1, name
    assert not any("Copyright" in str(v) or "555-0100" in str(v) for g in got for v in g.values())


# -------------------------------------------------------------------- labels
def test_values_are_named_by_their_labels_without_the_label_text(book_wrapper):
    got = fields_of(book_wrapper, book(9, *NEW_BOOK, sale=False, sid="NEW"))
    assert got["publisher"] == "Baen"
    assert got["isbn_13"] == "978-1"  # a th label without a colon
    # "<b>Pages</b>: 500": the number, without a raw twin repeating ": 500"
    assert got["pages"] == 500 and "pages_raw" not in got
    assert got["book_title"] == "Copper Moon"


def test_a_value_cut_from_a_longer_text_that_repeats_a_field_is_not_a_second_field():
    """ "User Ratings & Reviews for <name>" under the heading <name>: one field, the heading's."""
    names = ["Ledo Pizza", "The Melting Pot", "Orchard Cafe", "Bagel Barn", "Thai Spice"]

    def place(i, name):
        return Page(
            f"<html><body><h1 class='name'>{name}</h1><p>Phone: 555-01{i:02d}</p>"
            f"<h2>User Ratings &amp; Reviews for {name}</h2><p class='review'>Review {i} of {name}, long text"
            f" {'x' * i}.</p></body></html>",
            url=f"http://places.example/{i}",
        )

    w = induce_wrapper([place(i, n) for i, n in enumerate(names)])
    got = fields_of(w, place(9, "Copper Kettle").root)
    assert list(got.values()).count("Copper Kettle") == 1, got
    assert got["name"] == "Copper Kettle"


def test_a_breadcrumb_that_repeats_the_heading_where_it_is_there_is_no_field():
    """ "Jobs / <title>" in the breadcrumb on most pages, absent on one: the heading is
    the field, the breadcrumb's cut copy is none."""
    titles = ["Java Developer", "Office Manager", "Firewall Engineer", "Data Analyst", "Nurse"]

    def job(i, title):
        crumb = f"<p class='crumbs'><a href='/jobs'>Jobs</a> / {title}</p>" if i else ""
        return Page(
            f"<html><body>{crumb}<h1>{title}</h1><p>Pay: {40 + i}k a year</p>"
            f"<p class='about'>About job {i}: {'long text ' * (i + 2)}</p></body></html>",
            url=f"http://jobs.example/{i}",
        )

    w = induce_wrapper([job(i, t) for i, t in enumerate(titles)])
    got = fields_of(w, job(9, "Plumber").root)
    assert list(got.values()).count("Plumber") == 1, got


def test_a_label_glued_to_its_value_names_it_and_is_cut_off():
    def car(i, price, make):
        return Page(
            f"<html><body><h1>Car {i}</h1><div class='p'>MSRP: {price}</div>"
            f"<div class='m'>Made by: {make}</div></body></html>",
            url=f"http://cars.example/{i}",
        )

    cars = [("$61,550", "BMW"), ("$34,200", "Audi"), ("$36,050", "Kia"), ("$9,900", "Fiat")]
    pages = [car(i, p, m) for i, (p, m) in enumerate(cars + [("$12,000", "Seat")])]
    w = induce_wrapper(pages)
    got = fields_of(w, car(9, "$41,000", "Opel").root)
    assert got["msrp"] == 41000.0 and got["msrp_raw"] == "MSRP: $41,000"
    assert got["made_by"] == "Opel"


def test_a_value_after_its_label_is_kept_over_its_copy_in_a_hidden_price_table():
    """The price shown as "MSRP: $61,550" and again in a hidden table cell of class
    ``price``: one field, the labelled one, whose raw twin keeps the text as written."""

    def car(i, msrp, invoice):
        return Page(
            f"<html><body><h1>Car {i}</h1><div class='quote'><div>MSRP: {msrp}</div>"
            f"<div>Invoice: {invoice}</div></div><p class='blurb'>{'Fast car. ' * (i + 1)}</p>"
            f"<table style='display: none'><tr><td></td><td>Invoice</td><td>MSRP</td></tr>"
            f"<tr><td>Base</td><td class='price'>{invoice}</td><td class='price'>{msrp}</td>"
            "</tr></table></body></html>",
            url=f"http://cars.example/{i}",
        )

    prices = [("$61,550", "$56,625"), ("$34,200", "$31,465"), ("$36,050", "$33,165")]
    prices += [("$36,200", "$33,305"), ("$35,150", "$32,340")]
    w = induce_wrapper([car(i, m, v) for i, (m, v) in enumerate(prices)])
    got = fields_of(w, car(9, "$43,950", "$40,100").root)
    assert got["msrp"] == 43950.0 and got["msrp_raw"] == "MSRP: $43,950", got
    assert got["invoice_raw"] == "Invoice: $40,100", got
    assert [v for v in got.values() if v == 43950.0] == [43950.0], got


def test_a_microformat_class_names_a_value_inside_its_root_before_a_label():
    """``class="fn"`` inside an hCard (``vcard``) is markup: the name, although the same
    name stands after an "Overview:" label further down; ``class="price"`` with no
    microformat root around it is a class word, after the label."""

    def school(i, name, fee):
        return Page(
            f"<html><body><div class='vcard'><h1 class='fn org'>{name}</h1></div>"
            f"<p>{'About us. ' * (i + 1)}</p><h3>Overview: {name}</h3>"
            f"<p>Fee: <span class='price'>{fee}</span></p></body></html>",
            url=f"http://schools.example/{i}",
        )

    schools = [("Abilene College", "$50"), ("Adelphi University", "$35"), ("Adrian Hall", "$0")]
    schools += [("Agnes Scott", "$35"), ("Alaska Pacific", "$25")]
    s = induce_schema([school(i, *x) for i, x in enumerate(schools)])
    texts = [(c.values[0], c.name, c.evidence) for c in s.columns if c.data and c.kind == "text"]
    assert ("Abilene College", "name", "itemprop") in texts, texts
    assert ("$50", "fee", "label") in texts, texts
    w = induce_wrapper([school(i, *x) for i, x in enumerate(schools)])
    got = fields_of(w, school(9, "Baylor University", "$60").root)
    assert list(got.values()).count("Baylor University") == 1 and got["name"], got


def test_a_word_on_one_sample_page_names_no_link():
    """ "Gran Turismo" after one page's model name, in the link to next year's model: the
    link's URL is not named after it (a name says what the template says, not one page)."""
    models = ["1 Series", "1 Series", "3 Series", "3 Series", "5 Series Gran Turismo"]

    def car(i, model):
        slug = model.lower().replace(" ", "_")
        return Page(
            f"<html><body><h1>2010 BMW {model} {i}</h1><p class='blurb'>{'Good. ' * (i + 1)}</p>"
            f"<div class='next'><a href='/bmw/{slug}/2011'>Also Available: 2011 BMW {model}</a>"
            "</div></body></html>",
            url=f"http://cars.example/{i}",
        )

    w = induce_wrapper([car(i, m) for i, m in enumerate(models)])
    names = [f.name for f in w.fields]
    assert not [n for n in names if "gran" in n or "turismo" in n], names
    got = fields_of(w, car(9, "3 Series").root)
    assert any(str(v).endswith("/bmw/3_series/2011") for v in got.values()), got


def test_a_field_repeating_the_first_item_of_a_list_on_every_page_is_left_to_the_list():
    """The first similar job shown on its own above the list that shows it again: the
    list holds it; no field repeats it (nor its link)."""
    cities = ["Jersey City, NJ", "New York, NY", "Austin, TX", "Boston, MA", "Denver, CO"]
    cities += ["Miami, FL", "Salem, OR", "Reno, NV", "Tulsa, OK", "Provo, UT", "Akron, OH"]

    def job(i, n):
        first = f"<p class='top'><a class=joblinks href='/job/{i}-0'>{cities[5 * i % 11]}</a></p>"
        rows = "".join(
            f"<li><a class=joblinks href='/job/{i}-{k}'>{cities[(5 * i + k) % 11]}</a></li>"
            for k in range(n)
        )
        return Page(
            f"<html><body><h1>Job {i}</h1><p>Pay: ${50 + i}/h</p><p class='desc'>"
            f"{'We need you. ' * (i + 2)}</p><h3>Similar jobs</h3>{first}"
            f"<ul class='similar'>{rows}</ul></body></html>",
            url=f"http://jobs.example/{i}",
        )

    w = induce_wrapper([job(i, n) for i, n in enumerate([5, 4, 6, 5, 3])])
    got = fields_of(w, job(9, 4).root)
    assert sorted(got) == ["description", "pay", "similar", "title"], got
    assert [x["similar"] for x in got["similar"]] == [cities[(45 + k) % 11] for k in range(4)]


def test_a_long_text_nothing_names_is_the_description():
    """A paragraph of several sentences with no label, class or heading: ``description``
    (as on list pages), not ``field``."""
    blurbs = [
        "A stylish suburban bagel shop for breakfast and lunch. Fresh coffee all day long.",
        "Fondue, anyone? Some things never go out of style here. Dip bread in cheese.",
        "Home-style Persian cooking in a quiet room. The kebabs are the thing to order.",
        "More than just bagels at this shop. Sandwiches and salads fill the menu too.",
        "Hearty Italian-style meals delight customers. The pizza comes square and thin.",
    ]

    def place(i, blurb):
        return Page(
            f"<html><body><h1>Place {i}</h1><p>Phone: 555-01{i:02d}</p><div><p>{blurb}</p>"
            "</div></body></html>",
            url=f"http://places.example/{i}",
        )

    s = induce_schema([place(i, b) for i, b in enumerate(blurbs)])
    names = {c.values[0]: c.name for c in s.columns if c.data and c.kind == "text"}
    assert names[blurbs[0]] == "description", names


def test_template_words_around_the_title_are_no_field_nor_their_links():
    """ "Compare the <model> against similar models" and "<model> Price Quote", links the
    template writes about the car (their text is its title within template words): no
    fields, nor their URLs; the title and the car's own values stay."""
    models = ["2011 BMW Z4", "2010 BMW 1 Series", "2010 Audi A5", "2011 Kia Rio", "2010 Fiat 500"]

    def car(i, model):
        slug = model.lower().replace(" ", "_")
        return Page(
            f"<html><body><h1>{model} Overview</h1><p>Engine: {2 + i}.0L I{4 + i}</p>"
            f"<p class='blurb'>{'Quick and fun. ' * (i + 1)}</p><div class='next'><p>"
            f"<a href='/{slug}/compare'>Compare the {model} against similar models</a></p>"
            f"<ul><li><a href='/{slug}/quote'>{model} Price Quote</a></li></ul></div>"
            "</body></html>",
            url=f"http://cars.example/{i}",
        )

    w = induce_wrapper([car(i, m) for i, m in enumerate(models)])
    got = fields_of(w, car(9, "2011 Opel Astra").root)
    assert not [v for v in got.values() if "Compare" in str(v) or "Quote" in str(v)], got
    assert not [v for v in got.values() if str(v).endswith(("/compare", "/quote"))], got
    assert "2011 Opel Astra Overview" in got.values() and got["engine"] == "11.0L I13", got


def test_names_from_microdata_then_value_type_then_class():
    people = [("Ann", "555-123-4567", "a@x.org", "S1"), ("Bo", "555-234-5678", "b@y.com", "S2")]
    people += [("Cy", "555-345-6789", "c@z.net", "S3"), ("Di", "555-456-7890", "d@w.io", "S4")]
    people += [("Ed", "555-567-8901", "e@v.de", "S5")]

    def person(name, tel, mail, sku):
        return Page(
            f"<html><body><div itemscope><span itemprop='givenName'>{name}</span></div>"
            f"<div><span>{tel}</span></div><div><span>{mail}</span></div>"
            f"<div><span class='sku'>{sku}</span></div></body></html>"
        )

    s = induce_schema([person(*p) for p in people])
    names = {c.values[0]: (c.name, c.evidence) for c in s.columns if c.data}
    assert names["Ann"] == ("given_name", "itemprop")
    assert names["555-123-4567"] == ("phone", "type")
    assert names["a@x.org"] == ("email", "type")
    assert names["S1"] == ("sku", "class")


def test_value_types():
    assert type_name(["410-821-6358 |", "(952) 851-0066"]) == "phone"
    assert type_name(["www.acu.edu", "http://x.org"]) == "website"
    assert type_name(["901 Goucher Blvd. (Putty Hill Ave.)", "3310 Crain Hwy."]) == "address"
    assert type_name(["Abilene Christian University", "Adrian College"]) is None
    # ISO dates have a phone number's digits and dashes: the demo shop's review dates
    assert type_name(["2026-01-19", "2026-02-21"]) == "date"
    assert type_name(["212.840.8666", "212.768.7188"]) == "phone"


# ------------------------------------------------------------- robust paths
def test_an_optional_block_that_shifts_positions_does_not_shift_values(book_wrapper):
    for sale in (True, False):
        got = fields_of(book_wrapper, book(9, *NEW_BOOK, sale=sale, sid="NEW"))
        assert got["pages"] == 500 and got["publisher"] == "Baen"
        assert got["blurb"].startswith("A novel about copper moon")


def test_a_detail_page_missing_a_field_is_still_one_record(book_wrapper):
    html = book(9, *NEW_BOOK, sale=False).replace("<tr><th>ISBN-13</th><td>978-1</td></tr>", "")
    got = fields_of(book_wrapper, html)
    assert "isbn_13" not in got and got["publisher"] == "Baen"


# -------------------------------------------------------------------- sets
def test_authors_are_a_list_field(book_wrapper):
    # one to three authors on the sample pages: a recordset, a list field named after the
    # byline's label ("by") or its element
    got = fields_of(book_wrapper, book(9, *NEW_BOOK, sale=True))
    lists = {k: v for k, v in got.items() if isinstance(v, list)}
    assert len(lists) == 1
    name, rows = lists.popitem()
    assert name in ("author", "authors", "byline")
    names = [next(x for x in r.values() if "/" not in x) for r in rows]
    assert names == ["Jo Jones", "Kim King", "Lu Lane", "Mo Moss"]


def test_one_or_two_authors_on_every_sample_page_still_give_a_list_field():
    # no page has three authors: DCADE makes no recordset (MaxRep > 2), the sibling
    # columns become one multiple field
    two = [b[:1] + (b[1][:2],) + b[2:] for b in BOOKS]
    w = induce(book_pages(two))
    got = fields_of(w, book(9, *NEW_BOOK, sale=False))
    assert got["byline"] == ["Jo Jones", "Kim King", "Lu Lane", "Mo Moss"]
    assert got["byline_url"][0] == "http://books.example/author/jones"
    got1 = fields_of(w, book(8, "Solo", ["Una Uno"], "Ace", "978-2", "100", False))
    assert got1["byline"] == ["Una Uno"]


# ------------------------------------------------------- coinciding values
def test_a_value_coinciding_on_the_sample_in_a_label_value_table_is_data(book_wrapper):
    # every sample book is a paperback, but "Binding:" heads a row like Publisher's
    got = fields_of(book_wrapper, book(9, *NEW_BOOK, sale=False, binding="Hardcover"))
    assert got["binding"] == "Hardcover"
    # the footer's "Phone: 555-0100" is no such row: template
    assert "phone" not in got


def test_the_record_text_is_the_objects_values_not_the_page(book_wrapper):
    res = book_wrapper.extract(book(9, *NEW_BOOK, sale=False), "http://books.example/b/9")
    text = res.regions[0].records[0].text
    assert "Copper Moon" in text and "Baen" in text
    assert "Skip to content" not in text and "Copyright" not in text


# -------------------------------------------------------------- list pages
def test_auto_keeps_list_pages_away_from_dcade():
    def shop(offset):
        items = "".join(
            f"<li class='item'><a href='/p/{k}'>Product number {k} with a long name</a>"
            f"<span class='price'>${k}.99</span></li>"
            for k in range(offset, offset + 6 + offset % 3)
        )
        return f"<html><body><h1>Shop</h1><ul id='results'>{items}</ul></body></html>"

    pages = [(f"https://s.example/{n}", shop(10 * n)) for n in range(5)]
    w = induce(pages)
    assert w.provenance.extractor != "dcade"
    assert len(w.extract(shop(70), url="https://s.example/9").regions[0].records) == 7


# ---------------------------------------------------------------- sub-leaf
def test_leaf_skeleton_cuts_values_at_template_words():
    sk = leaf_skeleton(["1 - 3 of 3", "1 - 12 of 40", "13 - 25 of 40"])
    assert sk is not None and sk.runs == ("-", "of")
    assert [split_value("13 - 25 of 40", sk.runs, g) for g in sk.slots] == ["13", "25", "40"]
    sk = leaf_skeleton(["Date Posted: 05/20/2011", "Date Posted: 05/18/2011"])
    assert sk is not None and sk.slots == (1,) and sk.label_of(1) == "Date Posted:"
    # a separator before more template words: the site's suffix of a page title
    sk = leaf_skeleton(
        ["Adrian College - Best Colleges - US News", "Rice - Best Colleges - US News"]
    )
    assert sk is not None and sk.slots == (0,)
    # lowercase words opening every value: a lead-in ("by"), not part of a name
    sk = leaf_skeleton(["by Acura", "by BMW", "by Alfa Romeo"])
    assert sk is not None and sk.runs == ("by",) and sk.slots == (1,)


def test_a_word_the_sample_values_share_inside_a_value_does_not_cut_it():
    """carquotes: every sample car was a BMW, so "Also Available: 2010 BMW Z4" was cut at
    "BMW" into a "year" 2010 and a "model" Z4. Only the label is template; a separator with
    punctuation between values ("(Ends") still cuts."""
    values = ["Also Available: 2010 BMW Z4", "Also Available: 2011 BMW 1 Series"]
    sk = leaf_skeleton(values)
    assert sk is not None and sk.runs == ("Also Available:",) and sk.slots == (1,)
    assert split_value(values[1], sk.runs, 1) == "2011 BMW 1 Series"
    sk = leaf_skeleton(["item 13 (Ends May-09 PST ) - Stamp", "item 27 (Ends Jun-11 PST ) - Coin"])
    assert sk is not None and sk.runs == ("item", "(Ends", "PST ) -")


@pytest.mark.parametrize(
    "values",
    [
        ["University of Alabama", "University of Alaska"],  # names sharing words
        ["the end of it", "the end of days"],  # lowercase words that do not lead in
        ["17 mpg City, 24 mpg Hwy", "18 mpg City, 28 mpg Hwy"],  # one value with commas
        ["Small city (50,000 - 249,999)", "Large town (10,000 - 49,999)"],  # inside brackets
        ["same", "same"],  # no variation
        # a separator closing every value introduces none: "days," and "hours" are units
        ["4 days, 7 hours +", "3 days, 22 hours +", "6 days, 0 hours +"],
    ],
)
def test_leaf_skeleton_leaves_whole_values_alone(values):
    assert leaf_skeleton(values) is None


def test_the_gap_xpath_reads_what_split_value_reads():
    from lxml import etree

    runs = ("MSRP:", "-")
    root = etree.fromstring(
        "<html><body><p>MSRP:\u00a0$1 -  $2</p></body></html>", etree.HTMLParser()
    )
    for gap, want in ((1, "$1"), (2, "$2")):
        assert root.xpath(xpath_of_gap("/html/body/p", runs, gap)) == want
        assert split_value("MSRP: $1 - $2", runs, gap) == want


def test_codes_and_percentages_stay_text_numbers_are_typed():
    rows = [("21286", "56%", "1,200"), ("21204", "61%", "980"), ("20603", "47%", "15,000")]
    rows += [("20902", "70%", "2,282"), ("21162", "38%", "534")]

    def college(zip_code, rate, size):
        return Page(
            f"<html><body><dl><dt>Zip:</dt><dd>{zip_code}</dd><dt>Admitted:</dt>"
            f"<dd>{rate}</dd><dt>Students:</dt><dd>{size}</dd></dl></body></html>"
        )

    w = induce_wrapper([college(*r) for r in rows])
    got = fields_of(w, college("02134", "12%", "7,040").root)
    assert got["zip"] == "02134" and got["admitted"] == "12%" and got["students"] == 7040


def test_an_n_a_among_amounts_leaves_the_detail_field_an_amount():
    """usnews: "2009 Endowment: N/A" on one training page kept the field text ("$239,532,858")."""
    rows = [("21286", "$1,200"), ("21204", "N/A"), ("20603", "$15,000"), ("20902", "$2,282")]
    rows += [("21162", "$534")]

    def college(zip_code, endowment):
        return Page(
            f"<html><body><dl><dt>Zip:</dt><dd>{zip_code}</dd><dt>Endowment:</dt>"
            f"<dd>{endowment}</dd></dl></body></html>"
        )

    w = induce_wrapper([college(*r) for r in rows])
    assert fields_of(w, college("02134", "$7,040").root)["endowment"] == 7040.0
    assert "endowment" not in fields_of(w, college("02135", "N/A").root)


def test_a_crawl_gives_detail_pages_one_record_each_with_the_same_columns():
    """In a crawl, a detail template's first pages wait for its DCADE wrapper (induced
    from 5 samples, on the 6th page): every page, held or later, gives one record with the
    same named fields; records still waiting when the crawl is idle get a wrapper from the held pages."""
    from scrapy.http import HtmlResponse, Request

    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    def response(url, html):
        return HtmlResponse(url, body=html.encode(), encoding="utf-8", request=Request(url))

    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:"))
    books = BOOKS + [(*NEW_BOOK, False), BOOKS[0]]
    outs = [
        rt.mine(response(f"http://books.example/b/{i}", book(i, *b))) for i, b in enumerate(books)
    ]
    assert all(o.result is None and o.stats["records/held"] == 1 for o in outs[:5])
    assert outs[5].stats["records/wrapper/induced"] == 1
    assert outs[5].new_wrappers[0]["document"]["provenance"]["extractor"] == "dcade"
    pages = [*outs[5].released, outs[6]]
    assert [p.url for p in pages[:5]] == [f"http://books.example/b/{i}" for i in range(5)]
    records = [p.result.records for p in pages]
    assert all(len(r) == 1 for r in records)
    names = {tuple(sorted(r[0].fields)) for r in records}
    assert len(names) == 1  # the same columns on every page
    first = records[0][0].fields
    assert first["publisher"] == "Jove Books" and "Ann Archer" in str(first)
    # a template that never gets its wrapper: when the crawl is idle, its held pages get a
    # DCADE wrapper of their own (not stored) and one record each
    rt2 = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:"))
    held = [
        rt2.mine(response(f"http://books.example/b/{i}", book(i, *b)))
        for i, b in enumerate(BOOKS[:3])
    ]
    assert all(o.result is None for o in held) and rt2.has_held()
    released = rt2.flush_held()
    assert [r.url for r in released] == [f"http://books.example/b/{i}" for i in range(3)]
    assert [r.source for r in released] == ["dcade"] * 3
    assert [r.result.records[0].fields["publisher"] for r in released] == [
        "Jove Books",
        "Ace",
        "Tor",
    ]
    assert rt2.store.list("books.example") == []  # a wrapper of 3 pages is not kept
    assert not rt2.has_held()


CARS = [
    ("Z4 Roadster", "61,550", "3.0L I6, 335 HP", "17 mpg City", "Automatic", "Sleek and quick."),
    ("1 Series Cabriolet", "34,200", "3.0L I6, 230 HP", "18 mpg City", "Manual", "Compact fun."),
    ("3 Series Coupe", "36,050", "3.0L Turbo I6, 300 HP", "18 mpg City", "Manual", "Balanced."),
    ("5 Series Sedan", "45,900", "4.4L V8, 400 HP", "15 mpg City", "Automatic", "Roomy, calm."),
    ("X3 Crossover", "39,700", "3.0L I6, 240 HP", "19 mpg City", "Automatic", "Seats five."),
    ("7 Series Sedan", "81,300", "4.4L Turbo V8, 400 HP", "14 mpg City", "Automatic", "Flagship."),
    ("M3 Coupe", "58,400", "4.0L V8, 414 HP", "14 mpg City", "Manual", "Track ready."),
]


def car(model, price, engine, mpg, trans, blurb):
    """A car's page: three look-alike boxes of label rows hold about a third of its text, so
    mining finds them as a list of three records."""
    box = "<div class='box'><h3>{}</h3><p>{}</p><p>{}</p></div>"
    return f"""<html><head><title>{model} Overview</title></head><body>
<div id="nav"><a href="/">Home</a> <a href="/new">New cars</a> <a href="/help">Help</a></div>
<div id="main"><h1>{model} Overview</h1><div class="price">MSRP: ${price}</div>
<p class="blurb">{blurb} Read our full review of the {model}, with photos and specs.</p>
{box.format("Vehicle Highlights", f"Fuel Economy: {mpg}", f"Engine: {engine}")}
{box.format("Drivetrain", f"Transmission: {trans}", "Doors: 2")}
{box.format("Warranty", "Basic: 4 Years / 50,000 Miles", "Roadside: 4 Years / Unlimited")}
<p class="note">Prices exclude destination charges, taxes, title and registration fees.
Dealers set their own prices; ask a dealer near you for a quote on the {model}.</p></div>
<div id="foot">Copyright CarSite Inc. <a href="/privacy">Privacy</a></div></body></html>"""


def _car_responses():
    from scrapy.http import HtmlResponse, Request

    for i, c in enumerate(CARS):
        url = f"http://cars.example/c/{i}"
        yield HtmlResponse(url, body=car(*c).encode(), encoding="utf-8", request=Request(url))


def test_a_crawl_compares_pages_whose_main_list_holds_a_third_of_their_text():
    """Car pages whose three spec boxes are mined as a list holding about a third of the
    page's text: the crawl compares their pages before calling them a list, finds detail
    pages (what varies lies mostly outside the boxes) and gives one record per page."""
    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:"))
    outs = [rt.mine(r) for r in _car_responses()]
    assert all(o.result is None and o.stats["records/held"] == 1 for o in outs[:5])
    assert outs[5].new_wrappers[0]["document"]["provenance"]["extractor"] == "dcade"
    pages = [*outs[5].released, outs[6]]
    assert all(len(p.result.records) == 1 for p in pages)
    assert [p.result.records[0].fields["msrp"] for p in pages] == [
        float(c[1].replace(",", "")) for c in CARS
    ]


SCHOOLS = [
    ("Abilene College", "Private", "1906", "urban", "3,916", "semester", "$22,760"),
    ("Adelphi University", "Private", "1896", "suburban", "4,954", "semester", "$27,400"),
    ("Adrian Hall", "Public", "1859", "rural", "1,609", "quarter", "$25,900"),
    ("Agnes Scott", "Private", "1889", "urban", "842", "semester", "$31,283"),
    ("Alaska Pacific", "Public", "1957", "urban", "534", "trimester", "$26,360"),
    ("Baylor University", "Private", "1845", "city", "12,000", "semester", "$30,100"),
]


def school(name, control, founded, setting, enrollment, calendar, fees):
    """A university's page whose facts table (label rows: "Year founded: | 1906") holds
    most of its text: mining finds the rows as a list covering the page."""
    rows = [
        ("Institutional Control:", control),
        ("Year founded:", founded),
        ("Setting:", setting),
        ("Total undergraduate enrollment:", enrollment),
        ("Academic calendar:", calendar),
        ("Tuition and fees:", fees),
        ("Campus size:", f"{len(name) * 7} acres"),
    ]
    trs = "".join(f"<tr><td class='label'>{k}</td><td class='value'>{v}</td></tr>" for k, v in rows)
    return f"""<html><head><title>{name} - Colleges</title></head><body>
<div id="nav"><a href="/">Home</a> <a href="/rank">Rankings</a></div><h1>{name}</h1>
<table class="index"><tr><th>General Information</th><th></th></tr>{trs}</table>
</body></html>"""


def test_a_crawl_compares_pages_whose_main_list_is_a_table_of_label_rows():
    """A facts table of label rows holding most of each page's text: mined as a list of
    rows, yet the crawl compares the pages (the rows open with labels), finds detail pages
    and gives one record per page with the rows as named fields."""
    from scrapy.http import HtmlResponse, Request

    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:"))
    outs = []
    for i, sc in enumerate(SCHOOLS):
        url = f"http://colleges.example/s/{i}"
        body = school(*sc).encode()
        outs.append(rt.mine(HtmlResponse(url, body=body, encoding="utf-8", request=Request(url))))
    assert all(o.result is None and o.stats["records/held"] == 1 for o in outs[:5])
    assert outs[5].new_wrappers[0]["document"]["provenance"]["extractor"] == "dcade"
    pages = outs[5].released  # (the sixth page was held as well: all six go out now)
    assert [p.url for p in pages] == [f"http://colleges.example/s/{i}" for i in range(6)]
    assert all(len(p.result.records) == 1 for p in pages)
    assert [p.result.records[0].fields["year_founded"] for p in pages] == [
        int(sc[2]) for sc in SCHOOLS
    ]


def test_a_facts_table_ranked_after_description_paragraphs_still_hints_a_detail_page():
    """usnews: one university's three long description paragraphs ranked above its facts
    table; mined first, that page made the template a list template (227 rows of ``value``
    instead of 15 records, in one crawl of four). Label rows in a region ranked right after
    the main one send the hint too: the crawl compares the pages."""
    from scrapy_records.scrapy.worker import PageJob, mine_page

    para = "The college sits on a green campus near the river, with old halls and new labs."
    about = "".join(f"<div class='para'><p>{para} {para} Part {k}.</p></div>" for k in range(3))
    html = school(*SCHOOLS[0]).replace("</table>", f"</table><div class='about'>{about}</div>")
    url = "http://colleges.example/s/0"
    job = PageJob(
        url=url,
        body=html.encode(),
        encoding="utf-8",
        date=None,
        extractor="auto",
        options={},
        min_records=2,
        max_bytes=10**7,
        max_nodes=10**5,
        threshold=0.8,
        use_wrappers=True,
        fixed_template=None,
        templates=(),
    )
    mined = mine_page(job)
    assert mined.result.main.records[0].text.startswith("The college sits")
    assert mined.detail is not None


def test_a_set_of_links_names_its_url_column_after_its_text_column():
    """A restaurant's cuisines, one to three links: one list whose URL column is named after
    its text column ("list", "list_url"), not "field_url"."""
    cuisines = [["Bagels"], ["Fondue", "Swiss"], ["Middle Eastern", "Persian", "Grill"]]
    cuisines += [["Japanese"], ["Mexican", "Street food"]]

    def restaurant(i: int, cs: list[str]) -> str:
        links = "".join(f'<li><a href="/cuisine/{c.lower()}">{c}</a></li>' for c in cs)
        return (
            f"<html><body><div id='top'><a href='/'>Home</a></div><h1>Place {i}</h1>"
            f"<p class='addr'>{100 + i} Main Street</p><ul>{links}</ul>"
            f"<p class='blurb'>Place {i} serves food number {i} every day.</p></body></html>"
        )

    w = induce([(f"http://g.example/r/{i}", restaurant(i, cs)) for i, cs in enumerate(cuisines)])
    assert w.provenance.extractor == "dcade"
    [ls] = w.lists
    text, url = (f.name for f in ls.fields)
    assert url == f"{text}_url"
    got = w.extract(restaurant(9, ["Thai", "Vegan"]), "http://g.example/r/9").records[0]
    assert [(x[text], x[url]) for x in got.fields[ls.name]] == [
        ("Thai", "http://g.example/cuisine/thai"),
        ("Vegan", "http://g.example/cuisine/vegan"),
    ]


def test_sibling_paragraphs_of_different_classes_are_fields_not_a_set():
    """The demo shop's product page: ``p.price``, ``p.stock`` and ``p.desc`` are siblings
    of one tag, but three fields (they were one ``multiple`` field holding all three); the
    reviews, whose count varies, are the set."""
    import crawl_helpers  # noqa: F401 - makes the demo site importable
    from demo.site import shop_product

    pages = [(f"http://shop.example/shop/product/{i}", shop_product(i)) for i in range(1, 6)]
    w = induce(pages, extractor="dcade")
    assert not any(f.multiple for f in w.fields)
    got = w.extract(shop_product(9), "http://shop.example/shop/product/9").records[0].fields
    assert (got["price"], got["stock"]) == (153.17, "In stock")
    assert got["description"].startswith("Fox a while box")
    [reviews] = [v for v in got.values() if isinstance(v, list)]
    assert [r["author"] for r in reviews] == ["dave", "erin", "frank"]


def test_a_value_with_no_label_or_class_is_named_by_its_section_heading():
    """Carquotes: "Convertible Research", a link in a plain list under the heading "More
    Options", was ``field_3``; it is ``more_options`` (and its link ``more_options_url``)."""
    bodies = ["Convertible", "Coupe", "Sedan", "Wagon", "Coupe"]

    def car(i: int, body: str) -> str:
        return (
            f"<html><body><h1>Car {i} Overview</h1><p class='price'>MSRP: ${30 + i},000</p>"
            f"<div class='pod'><h3>More Options</h3><ul><li><a href='/bmw'>All models</a></li>"
            f"<li><a href='/{body.lower()}'>{body} Research</a></li></ul></div></body></html>"
        )

    w = induce([(f"http://cars.example/c/{i}", car(i, b)) for i, b in enumerate(bodies)])
    got = w.extract(car(9, "Truck"), "http://cars.example/c/9").records[0].fields
    assert got["more_options"] == "Truck Research"
    assert got["more_options_url"] == "http://cars.example/truck"


def test_a_product_page_whose_reviews_hold_half_its_text_gives_its_reviews_at_once():
    """The demo shop's product pages: the reviews hold 46-59% of each page's text, so the
    template is a list of reviews from its first page, whichever pages come first (it is
    not held for a comparison that such pages make a coin toss)."""
    import crawl_helpers  # noqa: F401 - makes the demo site importable
    from demo.site import shop_product
    from scrapy.http import HtmlResponse, Request

    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:"))
    for i in (3, 1, 2, 4):  # product 3 has the fewest reviews: the least list-like first
        url = f"http://shop.example/shop/product/{i}"
        body = shop_product(i).encode()
        out = rt.mine(HtmlResponse(url, body=body, encoding="utf-8", request=Request(url)))
        assert "records/held" not in out.stats
        assert len(out.result.records) == 3 + i % 3
        assert out.result.records[0].fields["author"]


def test_a_detail_page_mined_while_its_wrapper_was_induced_goes_through_it(monkeypatch):
    """A page sent to mining before its detail template had a wrapper comes back after the
    wrapper was induced: its records are the wrapper's one record, not the boxes mining
    found on it."""
    import scrapy_records.scrapy.worker as worker
    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:"))
    responses = list(_car_responses())
    for r in responses[:6]:
        rt.mine(r)
    # the last page's job was made before the wrapper existed: mining tried no wrapper
    monkeypatch.setattr(worker, "_try_wrapper", lambda job, out, root: None)
    late = rt.mine(responses[6])
    assert late.stats.get("records/wrapper/late_detail") == 1
    assert late.source == "wrapper" and late.wrapper_id
    assert [r.fields["msrp"] for r in late.result.records] == [58400.0]


def test_the_crawl_detail_check_reads_what_mining_sent_back(monkeypatch):
    """Three held pages of a detail template are compared from the evidence mining sent
    back with their records: each page is parsed once, by its mining."""
    from scrapy.http import HtmlResponse, Request

    import scrapy_records.scrapy.worker as worker
    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    parsed = []
    real = worker.parse_html

    def counting(source, url=None, **kw):
        parsed.append(url)
        return real(source, url, **kw)

    monkeypatch.setattr(worker, "parse_html", counting)
    rt = RecordsRuntime(RecordsConfig(workers=0, wrapper_store="memory:"))
    outs = []
    for i, b in enumerate(BOOKS[:3]):
        url = f"http://books.example/b/{i}"
        html = book(i, *b).encode()
        outs.append(rt.mine(HtmlResponse(url, body=html, encoding="utf-8", request=Request(url))))
    assert all(o.stats.get("records/held") == 1 for o in outs)
    assert "records/held_released_as_list" not in outs[2].stats  # still a detail template
    assert parsed == [f"http://books.example/b/{i}" for i in range(3)]


def test_the_heading_the_page_title_repeats_is_the_title():
    """No h1: the h2 holding the job title, repeated in the page's <title>, is ``title``."""
    titles = ["Java Developer", "Office Manager", "Firewall Engineer", "Data Analyst", "Nurse"]

    def job(i, title):
        return Page(
            f"<html><head><title>'{title}' in Town {i} job posting</title></head><body>"
            f"<h2>{title}</h2><p>Pay: {40 + i}k a year</p>"
            f"<p class='about'>About job {i}: {'long text ' * (i + 2)}</p></body></html>",
            url=f"http://jobs.example/{i}",
        )

    w = induce_wrapper([job(i, t) for i, t in enumerate(titles)])
    got = fields_of(w, job(9, "Plumber").root)
    assert got["title"] == "Plumber", got


def test_a_page_title_that_is_the_objects_name_is_the_title():
    titles = ["Java Developer", "Office Manager", "Firewall Engineer", "Data Analyst", "Nurse"]

    def job(i, title):
        return Page(
            f"<html><head><title>{title}</title></head><body><p>Pay: {40 + i}k a year</p>"
            f"<p class='about'>About job {i}: {'long text ' * (i + 2)}</p></body></html>",
            url=f"http://jobs.example/{i}",
        )

    w = induce_wrapper([job(i, t) for i, t in enumerate(titles)])
    got = fields_of(w, job(9, "Plumber").root)
    assert got["title"] == "Plumber" and "page_title" not in got, got


def test_numbering_counts_the_fields_kept_not_the_columns():
    """``address_2`` and ``address_3`` with no ``address`` field (its column gave none):
    the street is ``address``; a typed field's ``_raw`` twin follows its name."""
    from scrapy_records.wrappers.inducers.dcade.fieldnames import compact_numbering
    from scrapy_records.wrappers.inducers.dcade.schema import Schema, SchemaColumn
    from scrapy_records.wrappers.model import FieldSpec

    cols = [
        SchemaColumn(i, "MD", n, "text", ["x", "y"])
        for i, n in enumerate(["address", "address_2", "address_3", "price", "price_2"])
    ]
    fields = [
        FieldSpec("address_2"),
        FieldSpec("address_3"),
        FieldSpec("price_2", "price"),
        FieldSpec("price_2_raw"),
        FieldSpec("line_2"),
    ]
    compact_numbering(Schema(2, cols, []), fields, ["address_list"])
    assert [f.name for f in fields] == ["address", "address_2", "price", "price_raw", "line_2"]


WORDS = [
    "alpha",
    "bravo",
    "carbon",
    "delta",
    "ember",
    "falcon",
    "garnet",
    "harbor",
    "iris",
    "juniper",
]


def _search_page(q: int) -> Page:
    """A shop's search page: three products, two news stories and a line of related
    searches, all varying with the query."""

    def w(k: int) -> str:
        return WORDS[(q * 3 + k) % len(WORDS)]

    products = "".join(
        f"<li class='product'><a href='/p/{q}{i}'><img src='/i/{q}{i}.png'></a>"
        f"<h3><a href='/p/{q}{i}'>{w(i)} tablet {q}{i}</a></h3>"
        f"<span class='price'>${100 + q * 10 + i}.00</span></li>"
        for i in range(3)
    )
    news = "".join(
        f"<li class='news'><h4><a href='/n/{q}{i}'>{w(i + 4)} {w(i + 5)} news story number"
        f" {q}{i} about the {w(i)} launch</a></h4><p>... the {w(i + 2)} {w(i + 3)} announcement"
        f" said {w(i)} {w(i + 1)} was ready for schools and offices ...</p></li>"
        for i in range(2)
    )
    related = (
        f"<p>Did you mean {w(5)} {w(6)}? Related searches: {w(7)} {w(8)} deals, {w(9)} {w(0)}"
        f" reviews, {w(1)} {w(2)} accessories, {w(3)} {w(4)} support and {w(5)} {w(7)}"
        f" downloads for the {w(8)} {w(9)} series.</p>"
    )
    return Page(
        "<html><body><header><nav><a href='/'>Home</a> <a href='/shop'>Shop</a></nav></header>"
        f"<main><h1>Results for {w(0)} {w(1)}</h1><p>Your search for {w(0)} {w(1)} {w(2)}"
        f" matched products and news in the {w(3)} {w(4)} catalogue.</p>{related}"
        f"<ul class='products'>{products}</ul><h2>News</h2><ul class='newslist'>{news}</ul>"
        "</main><footer>Copyright 2026 Example Inc. All rights reserved.</footer></body></html>",
        url=f"https://shop.example/search?q={q}",
    )


def test_a_search_page_with_two_short_lists_is_no_detail_page():
    """Samsung's search pages: three products and two news stories. Neither list alone
    holds half of the text that varies across the pages, both together do: the check
    counts the records of the page's two best lists, and the pages stay a list template
    (in a crawl they were held and given one DCADE record each)."""
    from scrapy_records import extract
    from scrapy_records.wrappers.induce import detail_evidence, detail_template

    pages = [_search_page(q) for q in range(3)]
    ranked = [extract(p).regions for p in pages]
    assert {len(r.records) for r in ranked[0][:2]} == {2, 3}
    assert not detail_template(pages, ranked)
    # each list alone: a detail page by the share of the varying text
    only_first = [[r[0]] for r in ranked]
    assert detail_template(pages, only_first)
    leaves, records = detail_evidence(pages[0], ranked[0])
    assert records is not None and len(records) == 5
    # the books stay detail pages
    books = [Page(book(i, *b), url=f"http://books.example/b/{i}") for i, b in enumerate(BOOKS)]
    assert detail_template(books, [extract(p).regions for p in books])


def _film(i: int, director: str, studio: str) -> str:
    """A film page: label/value rows whose values are links, and a reviews heading whose
    link ("Write a review!") reads the same on every page."""
    return f"""<html><body><h1>Film {i}: {director.split()[0]}'s {studio} story</h1>
<p><b>Director:</b> <a href="/person/{i}">{director}</a></p>
<p><b>Studio:</b> <a href="/studio/{i}">{studio}</a></p>
<p><b>Member Reviews</b> <a href="/review?film={i}">Write a review!</a></p>
<p>{10 + 7 * i} reviews so far</p></body></html>"""


def test_a_link_whose_text_is_the_same_on_every_page_is_no_coinciding_value():
    # the call to action sits under a bold heading like the linked values sit under their
    # labels, but a link reading the same on every page is navigation (its URL varies)
    films = [("Ann Archer", "Pinewood"), ("Bo Baker", "Ealing"), ("Cy Cole", "Hammer")]
    films += [("Di Dunn", "Elstree"), ("Ed Eames", "Shepperton")]
    pages = [
        Page(_film(i, d, s).encode(), url=f"http://films.example/{i}")
        for i, (d, s) in enumerate(films)
    ]
    schema = induce_schema(pages)
    by_text = {next(v for v in c.values if v is not None): c for c in schema.columns}
    assert by_text["Write a review!"].template
    assert by_text["Ann Archer"].data and by_text["Pinewood"].data


def test_a_value_inside_a_sentence_is_named_by_the_words_leading_up_to_it():
    from scrapy_records.fields.naming import phrase_name

    jobs = [
        ("Java Developer", "10-01617"),
        ("Firewall Engineer", "CRR-SW7"),
        ("Business Analyst", "10-06563"),
        ("Web Designer", "10-04296"),
        ("DBA", "10-01712"),
    ]
    pages = [
        (
            f"http://jobs.example/job/{i}",
            f"<html><body><h1>{t}</h1><p>We are hiring a {t.lower()} for a {i + 2} month"
            f" project in a growing team of {i + 5} people.</p><p>Please refer to job code"
            f" <b>{code}</b> when responding to this ad.</p></body></html>",
        )
        for i, (t, code) in enumerate(jobs)
    ]
    rec = induce(pages).extract(pages[1][1], url=pages[1][0]).records[0].fields
    assert rec["job_code"] == "CRR-SW7"
    assert phrase_name("Call us at") == "call_us" and phrase_name("Sold by") is None
    assert phrase_name("Read the full story here.") is None


def test_json_ld_of_the_object_a_detail_page_is_about_names_its_fields():
    import json

    def product(i: int) -> str:
        doc = {
            "@context": "https://schema.org",
            "@type": "Product",
            "name": f"Kettle model {i}",
            "sku": f"KT-{1000 + 7 * i}",
            "brand": {"@type": "Brand", "name": ["Acme", "Brewster", "Calor"][i % 3]},
            "offers": {"@type": "Offer", "price": f"{20 + i}.50", "priceCurrency": "EUR"},
        }
        site = {"@context": "https://schema.org", "@type": "WebSite", "name": "Kettle Shop"}
        return (
            f'<html><head><script type="application/ld+json">{json.dumps(site)}</script>'
            f'<script type="application/ld+json">{json.dumps(doc)}</script></head><body>'
            f"<div class='nav'><a href='/'>Home</a> <a href='/k'>Kettles</a></div>"
            f"<h1>Kettle model {i}</h1><div class='x9'><span class='q1'>"
            f"{['Acme', 'Brewster', 'Calor'][i % 3]}</span></div><div class='x8'>"
            f"<span class='q2'>KT-{1000 + 7 * i}</span></div><div class='x7'><span class='q3'>"
            f"{20 + i}.50 EUR</span></div><p>Kettle {i} boils water quickly, a text long "
            f"enough to read as a description of its own.</p></body></html>"
        )

    pages = [(f"https://shop.example/p/{i}", product(i)) for i in range(1, 6)]
    w = induce(pages, extractor="dcade")
    got = w.extract(product(8), "https://shop.example/p/8").records[0].fields
    assert got["brand"] == "Calor" and got["sku"] == "KT-1056", got
