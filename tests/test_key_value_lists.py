"""Lists of keys beside lists of values in each record ("Place of Origin:" / "Zhejiang", in
any order) are one column per key (fields/repeats.py), whatever the keys look like."""

from __future__ import annotations

import scrapy_records

URL = "https://shop.example/search"

ZHEJIANG = [("Place of Origin:", "Zhejiang"), ("Brand Name:", "Tiger"), ("Model Number:", "E45")]
SHENDONG = [("Brand Name:", "Shendong"), ("Place of Origin:", "Shandong"), ("Model Number:", "U4")]
GLOBE = [("Brand Name:", "Globe"), ("Model Number:", "B-12"), ("Place of Origin:", "Beijing")]
BEIJING = [("Place of Origin:", "Beijing"), ("Model Number:", "B-12"), ("Brand Name:", "Globe")]
SUN = [("Place of Origin:", "Fujian"), ("Brand Name:", "Sun"), ("Model Number:", "S-9")]


def cards(keys: list[list[tuple[str, str]]]) -> str:
    rows = []
    for i, kv in enumerate(keys):
        props = "".join(f'<div class="kv">{k} <b>{v}</b></div>' for k, v in kv)
        rows.append(
            f'<div class="item"><h2><a href="/product/{i}">Product number {i} for business</a>'
            f'</h2><div class="kv-prop">{props}</div>'
            f'<span class="price">US $3{i}.00 / Piece</span></div>'
        )
    return "<html><body><div id='main'>" + "".join(rows) + "</div></body></html>"


def test_a_key_too_long_for_a_label_elsewhere_is_a_key_of_the_list():
    # one product's key has five words: the list is still keys and values, not two lists
    odd = [("Model Number:", "YCQ-2"), ("2D code recognition software embedding:", "Yes")]
    main = scrapy_records.extract(cards([ZHEJIANG, SHENDONG, odd, GLOBE, SUN]), url=URL).main
    assert main is not None
    assert not [c.name for c in main.columns if c.multiple]
    assert main.records[1].fields["place_of_origin"] == "Shandong"
    assert main.records[2].fields["model_number"] == "YCQ-2"
    assert main.records[2].fields["f_2d_code_recognition_software_embedding"] == "Yes"


def test_the_key_most_lists_start_with_stays_a_key():
    # "Place of Origin:" opens three lists of five: a key like the others, not a label of
    # the whole list ("by" before authors) to drop, which would pair keys and values wrongly
    short = [("Model Number:", "YCQ-2"), ("Color:", "Red")]
    main = scrapy_records.extract(cards([ZHEJIANG, SHENDONG, short, BEIJING, SUN]), url=URL).main
    assert main is not None
    first = main.records[0].fields
    assert (first["place_of_origin"], first["brand_name"], first["model_number"]) == (
        "Zhejiang",
        "Tiger",
        "E45",
    )
    assert main.records[2].fields["color"] == "Red"


# --------------------------------------------------------------- wrappers of lists of keys
CAR = [("Year:", "2015"), ("Fuel:", "Diesel"), ("Brand Name:", "ZF")]
VAN = [("Fuel:", "Petrol"), ("Year:", "2019"), ("Made In:", "China")]


def test_a_wrapper_reads_keys_its_sample_pages_never_showed_as_mining_names_them():
    # the keys differ by product: a later page's "Year:" and "Fuel:" are columns of the
    # wrapper's records as of the mined page, not dropped because pages 1-2 lacked them
    first = cards([ZHEJIANG, SHENDONG, GLOBE, SUN])
    second = cards([SUN, BEIJING, SHENDONG, ZHEJIANG])
    third = cards([CAR, VAN, ZHEJIANG, CAR])
    w = scrapy_records.induce([(URL, first), (URL + "?p=2", second)])
    keyed = [f for f in w.fields if f.keys is not None]
    assert len(keyed) == 1 and keyed[0].name == "keys"
    assert not any(f.name in ("place_of_origin", "brand_name") for f in w.fields)
    wrapped = [r.fields for r in w.extract(third, url=URL + "?p=3").records]
    mined = scrapy_records.extract(third, url=URL + "?p=3").main
    assert mined is not None
    assert wrapped == [r.fields for r in mined.records]
    assert wrapped[0]["year"] == "2015" and wrapped[0]["fuel"] == "Diesel"
    assert wrapped[1]["made_in"] == "China" and wrapped[2]["place_of_origin"] == "Zhejiang"
    assert "keys" not in wrapped[0]
    columns = [c.name for c in w.extract(third, url=URL + "?p=3").main.columns]
    assert {"year", "fuel", "made_in", "brand_name"} <= set(columns) and "keys" not in columns


def test_a_key_named_like_another_field_is_numbered_as_mining_numbers_it():
    # "Price:" among the keys of some products, beside every product's own price
    odd = [("Price:", "on request"), ("Brand Name:", "Odd")]
    page = cards([ZHEJIANG, odd, SUN, GLOBE])
    w = scrapy_records.induce([(URL, page), (URL + "?p=2", cards([SUN, odd, GLOBE, BEIJING]))])
    wrapped = w.extract(page, url=URL).records[1].fields
    mined = scrapy_records.extract(page, url=URL).main
    assert mined is not None
    assert wrapped["price_2"] == mined.records[1].fields["price_2"] == "on request"
    assert wrapped["price"] == mined.records[1].fields["price"]


def registry(rows: list[tuple[str, str]]) -> str:
    """Ancestry's results: a "Name:" row, then a row whose label changes by record."""
    return (
        "<html><body><div id='main'><table><tbody>"
        + "".join(
            f"<tr class='rec'><td><a href='/r/{i}'>Society record number {i}</a></td><td>"
            f"<table><tr><td><span>Name:</span></td><td>Person {i} of the index</td></tr>"
            f"<tr><td><span>{label}</span></td><td>{value}</td></tr></table></td></tr>"
            for i, (label, value) in enumerate(rows)
        )
        + "</tbody></table></div></body></html>"
    )


def test_a_label_cell_that_changes_by_record_is_read_by_the_wrapper_for_any_label():
    # pages 1-2 show "Civil:" and "Residence:" rows; page 3 a "Birth:" row too: the wrapper
    # gives it its column, and the "Name:" row every record shows stays the name column
    one = [("Civil:", "Quebec"), ("Residence:", "Ottawa"), ("Civil:", "Montreal")]
    two = [("Residence:", "Toronto"), ("Civil:", "Halifax"), ("Residence:", "Regina")]
    three = [("Birth:", "1871"), ("Civil:", "Laval"), ("Birth:", "1880"), ("Residence:", "Hull")]
    w = scrapy_records.induce([(URL, registry(one)), (URL + "?p=2", registry(two))])
    mined = scrapy_records.extract(registry(three), url=URL).main
    assert mined is not None
    wrapped = [r.fields for r in w.extract(registry(three), url=URL).records]
    assert wrapped == [r.fields for r in mined.records]
    assert wrapped[0]["birth"] == "1871" and wrapped[1]["civil"] == "Laval"
    assert "name_2" not in wrapped[0]


# -------------------------------------------- names people give the columns of the keys
def test_a_key_column_renamed_or_dropped_stays_so_after_reinduction():
    from scrapy_records import Page, Wrapper
    from scrapy_records.wrappers.pins import carry_over, drop_field, rename_field

    samples = [(URL, cards([CAR, ZHEJIANG, VAN, SUN])), (URL + "?p=2", cards([VAN, CAR, GLOBE]))]
    w = scrapy_records.induce(samples)
    assert any(f.keys is not None for f in w.fields)
    rename_field(w, "fuel", "fuel_type")  # "Fuel:" is a key, no field of the wrapper
    drop_field(w, "made_in")
    rename_field(w, "fuel_type", "energy")  # renaming the renamed column renames the key's
    third = cards([VAN, CAR, SUN])
    rows = [r.fields for r in Wrapper.from_json(w.to_json()).extract(third, url=URL).records]
    assert rows[0]["energy"] == "Petrol" and rows[1]["energy"] == "Diesel"
    assert not any("fuel" in r or "fuel_type" in r or "made_in" in r for r in rows)
    assert rows[0]["year"] == "2019"  # the other keys keep mining's names
    # the template is induced again (the site changed): the edits carry over
    pages = [Page(html, url=url) for url, html in samples]
    new = carry_over(scrapy_records.induce(pages), w, pages)
    rows = [r.fields for r in new.extract(third, url=URL).records]
    assert rows[0]["energy"] == "Petrol" and "made_in" not in rows[0] and "fuel" not in rows[0]


def test_a_pinned_column_of_one_key_keeps_its_name_when_the_keys_become_one_field():
    # an older wrapper read "Place of Origin:" as a field of its own, which a person named
    # origin; re-induced, the keys are one list field: the key's column is still origin
    from scrapy_records import Page
    from scrapy_records.wrappers.model import FieldSpec
    from scrapy_records.wrappers.pins import carry_over

    samples = [(URL, cards([ZHEJIANG, SHENDONG, GLOBE, SUN])), (URL + "?p=2", cards([SUN, GLOBE]))]
    pages = [Page(html, url=url) for url, html in samples]
    old = scrapy_records.induce(pages)
    old.fields = [f for f in old.fields if f.keys is None] + [
        FieldSpec(
            "origin",
            xpath=".//div[@class='kv'][starts-with(normalize-space(), 'Place of Origin:')]/b",
            pinned=True,
        )
    ]
    assert [r.fields["origin"] for r in old.extract(samples[0][1], url=URL).records] == [
        "Zhejiang",
        "Shandong",
        "Beijing",
        "Fujian",
    ]
    new = carry_over(scrapy_records.induce(pages), old, pages)
    keyed = [f.keys for f in new.fields if f.keys is not None]
    assert keyed and keyed[0].names == {"place_of_origin": "origin"}
    rows = [r.fields for r in new.extract(cards([SHENDONG, CAR]), url=URL).records]
    assert rows[0]["origin"] == "Shandong" and "place_of_origin" not in rows[0]


def test_a_list_of_prices_beside_a_list_of_names_is_no_list_of_keys():
    # each record holds items of a price and a name: the prices, typed as numbers, are
    # no labels of the names (the key-value reading once called str.strip on a price)
    recs = []
    for i in range(4):
        items = "".join(
            f'<li><span class="p">${40 + i + k}.99</span> '
            f'<a href="/p/{i}{k}">Bed rail model {i}{k} in white</a></li>'
            for k in range(2 if i % 2 == 0 else 3)
        )
        recs.append(
            f'<div class="rec"><h3><a href="/r/{i}">Bundle number {i} for the nursery</a></h3>'
            f"<p>Some text about bundle {i} here.</p><ul>{items}</ul></div>"
        )
    html = "<html><body><div id='main'>" + "".join(recs) + "</div></body></html>"
    main = scrapy_records.extract(html, url=URL).main
    assert main is not None and len(main.records) == 4
    prices = [c for c in main.columns if c.type == "price" and c.multiple]
    assert prices and main.records[1].fields[prices[0].name] == [41.99, 42.99, 43.99]


def linked_registry(rows: list[list[tuple[str, str]]]) -> str:
    """Rows of labels and values, a value cell holding links among its text ("<a>1935</a>
    - <a>Essex</a>, Ontario")."""
    recs = []
    for i, kv in enumerate(rows):
        cells = "".join(f"<tr><td><span>{k}</span></td><td>{v}</td></tr>" for k, v in kv)
        recs.append(
            f"<tr class='rec'><td class='title'><a href='/r/{i}'>Society record number {i}</a>"
            f"</td><td class='data'><table>{cells}</table></td></tr>"
        )
    return "<html><body><div id='main'><table>" + "".join(recs) + "</table></div></body></html>"


def place(year: str, town: str, rest: str) -> str:
    return f"<a href='/y/{year}'>{year}</a> - <a href='/t/{town}'>{town}</a>, {rest}"


def test_a_value_cell_with_links_beside_a_label_cell_is_one_value():
    # the value a person reads beside "Residence:" is the whole cell, not its links and the
    # text between them in three columns
    rows = [
        [("Name:", "Ann Smith"), ("Residence:", place("1935", "Essex", "Ontario, Canada"))],
        [("Name:", "Bob Jones"), ("Civil:", place("1949", "Laval", "Quebec, Canada"))],
        [("Name:", "Cy Brown"), ("Residence:", place("1935", "Regina", "Saskatchewan"))],
        [("Name:", "Di Green"), ("Residence:", place("1940", "Hull", "Quebec"))],
    ]
    main = scrapy_records.extract(linked_registry(rows), url=URL).main
    assert main is not None and len(main.records) == 4
    fields = [r.fields for r in main.records]
    assert fields[0]["residence"] == "1935 - Essex, Ontario, Canada"
    assert fields[1]["civil"] == "1949 - Laval, Quebec, Canada"
    assert fields[3]["name"] == "Di Green" and "residence" not in fields[1]
    assert sorted(fields[0]) == ["name", "residence", "title", "url"]


def test_a_key_only_one_record_shows_is_read_by_its_label_not_its_row():
    # one record shows "Photo:" / "Category:" / "Description:" rows: mining reads its
    # description by the label, so a wrapper reads it on a page whose record of that kind
    # lacks the category row, and never reads the next key's value as the description
    photo = [("Photo:", "Old church"), ("Category:", "Other"), ("Description:", "A church")]
    one = [
        [("Name:", "Ann Smith"), ("Residence:", place("1935", "Essex", "Ontario"))],
        photo,
        [("Name:", "Bob Jones"), ("Civil:", place("1949", "Laval", "Quebec"))],
        [("Name:", "Cy Brown"), ("Residence:", place("1935", "Regina", "Canada"))],
    ]
    main = scrapy_records.extract(linked_registry(one), url=URL).main
    assert main is not None
    desc = next(c for c in main.columns if c.name == "description")
    assert desc.keys is not None and "Description:" in (desc.xpath or "")
    two = [one[3], one[0], one[2]]
    w = scrapy_records.induce([(URL, linked_registry(one)), (URL + "?p=2", linked_registry(two))])
    assert not [f.name for f in w.fields if f.name == "description"]  # a key of the list
    three = [one[0], [("Photo:", "Old mill"), ("Description:", "A mill")], one[2]]
    rows = [r.fields for r in w.extract(linked_registry(three), url=URL).records]
    assert rows[1]["description"] == "A mill" and rows[1]["photo"] == "Old mill"
    assert "category" not in rows[1]


def test_a_key_every_page_reads_from_the_list_is_left_to_the_list_whatever_its_selector():
    # the inducer chose class steps and the row's position for "Description:" (the one
    # record showing it); every sample page mined it as a key of the list: the list reads
    # it by its key, not a row that holds another key in a record without "Category:"
    from scrapy_records.results import Column, Region
    from scrapy_records.wrappers.inducers.columns import key_list_fields
    from scrapy_records.wrappers.model import FieldSpec

    paths = ("td[2]/table/tr", "td[1]/span", "td[2]")
    keyed = "td[2]/table/tr[starts-with(normalize-space(.), 'Description:')]/td[2]"
    page = Region(
        "auto", [], 1.0, "/html/body/table", [Column("description", xpath=keyed, keys=paths)]
    )
    chosen = {
        "description": FieldSpec("description", xpath="td[@class='data']/table/tr[3]/td[2]"),
        "title": FieldSpec("title", xpath="td[1]/a"),
    }
    fields, _fill = key_list_fields([page, page], chosen)
    assert list(chosen) == ["title"]
    assert [(f.xpath, f.keys.key, f.keys.value) for f in fields if f.keys] == [
        ("td[2]/table/tr", "td[1]/span", "td[2]")
    ]
    # a name another page reads outside the list stays a field of its own
    chosen["description"] = FieldSpec("description", xpath="td[@class='data']/p")
    other = Region("auto", [], 1.0, "/html/body/table", [Column("description", xpath="td[2]/p")])
    key_list_fields([page, other], chosen)
    assert "description" in chosen
