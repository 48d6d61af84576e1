"""One schema per template: the wrapper induced on some pages of a template gives a later
page the field names mining that page gives (issue 15)."""

from __future__ import annotations

from dataclasses import replace

import scrapy_records
from scrapy_records.page import Page

URL = "https://shop.example/list"


def page(body: str) -> str:
    return f"<html><body><div id='main'>{body}</div></body></html>"


def shop(start: int, n: int = 5, extra: str = "") -> str:
    return page(
        "<ul class='results'>"
        + "".join(
            f'<li class="product"><h3><a href="/p/{i}">Kettle model {i}</a></h3>'
            f'<span class="price">${10 + i}.99</span>'
            f"<p>A kettle of {i} litres, long enough to read as a description.</p></li>"
            for i in range(start, start + n)
        )
        + "</ul>"
        + extra
    )


def names(records) -> set[str]:
    return {k for r in records for k, v in r.fields.items() if v not in (None, "", [])}


def test_a_sample_page_without_a_main_region_does_not_choose_the_record_selector():
    pages = [Page(shop(1), url=URL), Page(shop(20), url=URL)]
    ranked = [scrapy_records.extract(p, min_records=2).regions for p in pages]
    main = ranked[0][0]
    assert len(main.records) == 5
    # page 1 lists no products today: its best region is weak (a stray pair of links)
    stray = replace(main, records=main.records[:2], confidence=0.1, xpath="//footer")
    ranked[0] = [stray]
    w = scrapy_records.induce(pages, regions=ranked)
    later = w.extract(shop(40), url=URL)
    assert len(later.records) == 5
    assert names(later.records) == names(scrapy_records.extract(shop(40), url=URL).records)


def results(start: int, nested: bool, badges: list[str] | None = None) -> str:
    rows = []
    for k, i in enumerate(range(start, start + 5)):
        badge = f'<span class="label">{badges[k]}</span>' if badges else ""
        body = (
            f'<h3>{badge}<a href="/doc/{i}">Result number {i} about kettles</a></h3>'
            f"<p>Snippet {i} of the result, long enough to read as a description of it.</p>"
        )
        rows.append(f'<div class="res">{f"<div>{body}</div>" if nested else body}</div>')
    return page("".join(rows))


def test_a_column_at_another_place_on_each_sample_page_is_read_on_both():
    # page 2 of the template lays the result out one level flatter
    w = scrapy_records.induce([(URL, results(1, True)), (URL, results(20, False))])
    assert {"title", "url", "description"} <= {f.name for f in w.fields}
    later = w.extract(results(40, True), url=URL)
    assert names(later.records) == names(scrapy_records.extract(results(40, True), url=URL).records)


def test_text_one_sample_page_holds_in_every_record_is_no_field_of_the_wrapper():
    mixed = results(1, False, ["web", "web", "web", "web", "pdf"])
    same = results(20, False, ["web"] * 5)
    assert "label" in names(scrapy_records.extract(mixed, url=URL).records)
    assert "label" not in names(scrapy_records.extract(same, url=URL).records)  # template text
    w = scrapy_records.induce([(URL, mixed), (URL, same)])
    assert "label" not in {f.name for f in w.fields}
    later = results(40, False, ["web"] * 5)
    got = w.extract(later, url=URL).records
    assert names(got) == names(scrapy_records.extract(later, url=URL).records)


def test_a_link_address_written_out_under_the_title_is_the_url_emitted_once():
    html = page(
        "".join(
            f'<li class="hit"><h2><a href="https://shop.example/doc/{i}">Result {i} on kettles'
            f'</a></h2><p class="addr">https://shop.example/doc/{i}</p>'
            f"<p>Snippet {i} of the result, long enough to read as a description of it.</p></li>"
            for i in range(5)
        )
    )
    main = scrapy_records.extract(html, url=URL).main
    assert main is not None
    assert [c.name for c in main.columns] == ["title", "url", "description"]


def bylined(start: int, words: list[str]) -> str:
    return page(
        "".join(
            f'<div class="post"><h3><a href="/post/{i}">Post number {i} about kettles</a></h3>'
            f'<div><span>{w}</span> <a href="/user/{i}">Writer {i}</a></div>'
            f"<p>Body {i} of the post, long enough to read as a description of it.</p></div>"
            for w, i in zip(words, range(start, start + len(words)))
        )
    )


def test_one_slot_two_sample_pages_name_differently_is_one_wrapper_field():
    labelled = bylined(1, ["By:"] * 5)
    # (one label in two spellings, each twice or more, is a label: "Von:" and "Par:" once
    # each are not, so this page names the slot otherwise)
    mixed = bylined(20, ["By:", "Von:", "By:", "Par:", "By:"])
    first = {c.name: c.xpath for c in scrapy_records.extract(labelled, url=URL).main.columns}
    second = {c.name: c.xpath for c in scrapy_records.extract(mixed, url=URL).main.columns}
    assert first["author"] in second.values() and "author" not in second
    w = scrapy_records.induce([(URL, labelled), (URL, mixed)])
    xpaths = [(f.xpath, f.attribute) for f in w.fields]
    assert len(xpaths) == len(set(xpaths))  # no slot read twice
    assert {"author", "author_url"} <= {f.name for f in w.fields}


def test_an_open_ended_age_is_a_date_so_the_column_keeps_its_type_and_raw_twin():
    ages = ["1 hour ago", "3 days ago", "30+ days ago", "8 hours ago", "5 days ago"]
    html = page(
        "".join(
            f'<div class="job"><h2><a href="/job/{i}">Job number {i} in kettles</a></h2>'
            f'<span class="date">{a}</span>'
            f"<p>Job {i} description, long enough to read as a description of it.</p></div>"
            for i, a in enumerate(ages)
        )
    )
    main = scrapy_records.extract(html, url=URL).main
    assert main is not None
    types = {c.name: c.type for c in main.columns}
    assert types["date"] == "date" and "date_raw" in types
    assert main.records[2].fields["date_raw"] == "30+ days ago"


def test_a_link_with_one_text_wherever_it_is_there_is_no_title():
    html = page(
        "".join(
            f'<div class="rec"><span class="who">Person number {i} of the index</span>'
            + (f'<a class="viewrec" href="/img/{i}">View image</a>' if i % 5 else "")
            + f'<span class="where">Town {i}</span></div>'
            for i in range(1, 8)
        )
    )
    main = scrapy_records.extract(html, url=URL).main
    assert main is not None
    first = main.records[0].fields
    assert first.get("title") != "View image"
    # the caption of links to different images is template text, as on a page where
    # every record shows it: the link is kept, its caption is no value
    assert "View image" not in first.values()
    assert first["url"] == "https://shop.example/img/1"


def test_a_page_the_wrapper_does_not_fit_is_mined_under_the_schema_names():
    from scrapy_records.scrapy.worker import PageJob, TemplateRef, mine_page
    from scrapy_records.wrappers.pins import rename_field

    w = scrapy_records.induce([(URL, shop(1)), (URL, shop(20))])
    rename_field(w, "price", "cost")  # the template's schema, as a person named it
    # a later page of the template: many more products, none with a description
    job = PageJob(
        url=URL,
        body=shop(40, n=30).encode().replace(b"<p>", b"<!--").replace(b"</p>", b"-->"),
        encoding="utf-8",
        date=None,
        extractor="auto",
        options={},
        fixed_template="t1",
        templates=(TemplateRef("t1", None, w.to_json()),),
    )
    out = mine_page(job)
    assert out.wrapper_fits is False and out.source == "auto"
    main = out.result.main
    assert main is not None
    names = {c.name for c in main.columns}
    assert {"cost", "cost_currency", "title"} <= names and "price" not in names
    assert main.records[0].fields["cost"] == 50.99


def test_a_link_whose_text_most_records_lack_is_not_the_title():
    html = page(
        "".join(
            f'<div class="card"><img src="/img/{i}.jpg"><ul>'
            f'<li><a href="/home/{i}">'
            f"{'A board with a rather long name ' + str(i) if i % 4 == 0 else ''}</a></li>"
            f'<li><a href="/home/{i}">Town {i}, CA</a></li></ul>'
            f'<span class="saves">{i * 3}</span></div>'
            for i in range(1, 9)
        )
    )
    main = scrapy_records.extract(html, url=URL).main
    assert main is not None
    assert [r.fields.get("title") for r in main.records][:2] == ["Town 1, CA", "Town 2, CA"]


def listing(start: int, sub: set[int], badge: set[int]) -> str:
    rows = []
    for i in range(start, start + 8):
        extra = '<div class="promo"><span>Promoted</span></div>' if i in badge else ""
        if i in sub:
            extra += f'<div class="subtitle">Free delivery on item {i}</div>'
        rows.append(
            f'<li class="item"><h3><a href="/i/{i}">Item number {i} of the list</a></h3>{extra}'
            f'<span class="cost">${i}.50</span></li>'
        )
    return page("<ul>" + "".join(rows) + "</ul>")


def test_a_rare_column_its_own_path_cannot_tell_apart_is_read_by_its_class():
    pages = [
        Page(listing(1, set(), {2, 5}), url=URL),
        Page(listing(20, {21, 23}, {23, 26}), url=URL),
    ]
    ranked = [scrapy_records.extract(p, min_records=2).regions for p in pages]
    sub = next(c for c in ranked[1][0].columns if c.name == "subtitle")
    sub.xpath = "div"  # as a page's alignment may give it: every div of the record
    w = scrapy_records.induce(pages, regions=ranked)
    assert "subtitle" in {f.name for f in w.fields}  # two records of 16 hold it
    later = listing(40, {41, 44}, {41, 46})
    got = w.extract(later, url=URL).records
    assert names(got) == names(scrapy_records.extract(later, url=URL).records)


def availability(start: int, second: str, two: range | set[int] = range(8)) -> str:
    rows = []
    for k, i in enumerate(range(start, start + 8)):
        items = f'<li class="status">{"Available online" if i % 3 else "Online only"}</li>'
        if k in two:
            stores = "Sold out in stores" if i % 2 else "Available at nearby stores"
            items += f'<li class="{second}">{stores}</li>'
        rows.append(
            f'<li class="product"><h3><a href="/p/{i}">Kettle model {i}</a></h3>'
            f'<span class="price">${10 + i}.99</span><ul class="availability">{items}</ul></li>'
        )
    return page('<ul class="results">' + "".join(rows) + "</ul>")


def test_a_list_on_one_sample_page_and_numbered_columns_on_another_keeps_both_columns():
    # page 1: the two statuses differ in class, two columns; page 2: one class, a list
    first, second = availability(1, "status store"), availability(20, "status", {1, 4})
    assert isinstance(
        scrapy_records.extract(second, url=URL).main.records[1].fields["status"], list
    )
    later = availability(40, "status store")
    w = scrapy_records.induce([(URL, first), (URL, second)])
    wrapped = w.extract(later, url=URL).records
    assert names(wrapped) == names(scrapy_records.extract(later, url=URL).records)
    assert wrapped[1].fields["status"] == "Available online"


def details(start: int, origin: tuple[int, ...], timed: tuple[int, ...]) -> str:
    countries = ["Germany", "Spain", "China", "India", "Italy"]
    rows = []
    for k, i in enumerate(range(start, start + 8)):
        if k in origin:
            li = f"<li>From {countries[i % 5]}</li>"
        elif k in timed:
            li = f'<li class="timeleft"><span class="tme"><span class="hours">{i}h left</span></span></li>'
        else:
            li = f'<li><div class="sme"><a href="/sme/{i}" class="smemsg">Buy {i}, get 1 free</a></div></li>'
        rows.append(
            f'<li class="item"><h3><a href="/i/{i}">Game cartridge {i}</a></h3>'
            f'<span class="price">£{i}.99</span><ul class="details">{li}</ul></li>'
        )
    return page('<ul class="results">' + "".join(rows) + "</ul>")


def test_a_column_in_an_elements_own_text_where_others_hold_a_child_there_is_read():
    # "From Germany" is the <li>'s own text; other records' <li> hold the time or an offer
    first, second = details(1, (1, 4), (2, 5, 6)), details(20, (0, 3, 7), (1, 2))
    later = details(40, (1, 4), (2, 5, 6))
    w = scrapy_records.induce([(URL, first), (URL, second)])
    wrapped = w.extract(later, url=URL).records
    assert names(wrapped) == names(scrapy_records.extract(later, url=URL).records)
    assert [r.fields.get("details") for r in wrapped][:2] == [None, "From Spain"]
    assert wrapped[2].fields.get("hours") == "42h left"


JOBS = ["Interior design", "Architecture", "General contracting", "Staging"]


def boards(start: int, people: bool = False) -> str:
    rows = []
    for k, i in enumerate(range(start, start + 6)):
        who = f"<div>Designer number {i}</div>" if people else ""
        job = f"<ul><li>{JOBS[i % 4]}</li></ul>" if not (people and k == 2) else ""
        rows.append(
            f'<li class="board"><h3><a href="/b/{i}">Board of rooms {i}</a></h3>{job}{who}</li>'
        )
    return page('<ul class="boards">' + "".join(rows) + "</ul>")


def test_a_number_a_sample_page_gave_after_a_column_the_wrapper_does_not_read_is_dropped():
    # page 2 has a fuller text before it, so the job is "text_2" there and "text" elsewhere
    first, second = boards(1), boards(20, people=True)
    assert "text_2" in scrapy_records.extract(second, url=URL).main.records[0].fields
    later = boards(40)
    wrapped = scrapy_records.induce([(URL, first), (URL, second)]).extract(later, url=URL)
    assert names(wrapped.records) == names(scrapy_records.extract(later, url=URL).records)
    assert wrapped.records[0].fields["text"] == "Interior design"


def renamed(region, names: dict[str, str]):
    """``region`` as a page that numbered its columns after more namesakes would name it."""
    cols = [replace(c, name=names.get(c.name, c.name)) for c in region.columns]
    recs = [
        replace(r, fields={names.get(k, k): v for k, v in r.fields.items()}) for r in region.records
    ]
    return replace(region, columns=cols, records=recs)


def test_the_wrapper_numbers_namesakes_as_mining_does_not_as_its_first_page_did():
    # page 1 had two more "text" columns the wrapper does not read: its columns are text_3
    # and text_4 there; mining page 3 numbers the two it has text and text_2
    pages = [Page(boards(1, people=True), url=URL), Page(boards(20, people=True), url=URL)]
    ranked = [scrapy_records.extract(p).regions for p in pages]
    ranked[0] = [renamed(ranked[0][0], {"text": "text_3", "text_2": "text_4"})]
    w = scrapy_records.induce(pages, regions=ranked)
    later = boards(40, people=True)
    wrapped = w.extract(later, url=URL).records
    mined = scrapy_records.extract(later, url=URL).records
    assert names(wrapped) == names(mined) == {"title", "url", "text", "text_2"}
    assert wrapped[0].fields["text"] == mined[0].fields["text"] == "Designer number 40"


def hot(start: int, both: tuple[int, ...] = ()) -> str:
    rows = []
    for k, i in enumerate(range(start, start + 8)):
        sig = f'<div class="hotness-signal red">{i} watching</div>' if k % 3 else ""
        if k in both:
            sig = (
                '<div class="hotness-signal red">Only 1 left!</div>'
                f'<div class="hotness-signal black">{i} sold</div>'
            )
        rows.append(
            f'<li class="item"><h3><a href="/i/{i}">Television set {i}</a></h3>'
            f'<span class="price">£{i}.99</span><div class="hotness">{sig}</div></li>'
        )
    return page('<ul class="results">' + "".join(rows) + "</ul>")


def test_siblings_whose_classes_differ_in_a_colour_only_are_one_repeated_field():
    # "hotness-signal red" and "hotness-signal black": one badge kind in two colours
    later = hot(40, both=(1, 4))
    mined = scrapy_records.extract(later, url=URL).records
    assert mined[1].fields["hotness_signal"] == ["Only 1 left!", "41 sold"]
    w = scrapy_records.induce([(URL, hot(1)), (URL, hot(20))])
    assert names(w.extract(later, url=URL).records) == names(mined)


def jobs(start: int, linked: set[int], n: int = 6) -> str:
    """Job results whose company is plain text, or a link in ``linked``."""
    rows = []
    for i in range(start, start + n):
        company = f"Company number {i} Ltd"
        if i in linked:
            company = f'<a href="/cmp/{i}">{company}</a>'
        rows.append(
            f'<div class="row"><h2><a href="/job/{i}">Job title {i} in town</a></h2>'
            f'<span class="company"><span>{company}</span></span>'
            f"<p>Description of job {i}, long enough to read as a description of it.</p></div>"
        )
    return page("".join(rows))


OVERVIEW, SUPPORT = "Product overview", "Support & troubleshooting"
DRIVERS, MANUALS = "Software & driver downloads", "Manuals"


def printers(start: int, links: list[list[list[str]]]) -> str:
    """Printer cards with blocks of help links (``links``: per card, its blocks' texts)."""
    rows = []
    for k, blocks in enumerate(links):
        i = start + k
        uls = "".join(
            "<ul>"
            + "".join(f'<li><a href="/{t.split()[-1].lower()}/{i}">{t}</a></li>' for t in block)
            + "</ul>"
            for block in blocks
        )
        rows.append(
            f'<div class="product"><h3><a href="/p/{i}">Printer model {i} with a long name</a></h3>'
            f"<p>Printer {i} prints pages fast, long enough to read as a description.</p>"
            f'<div class="more_links">{uls}</div></div>'
        )
    return page("".join(rows))


def test_a_company_that_is_a_link_in_some_records_is_one_column():
    html = jobs(1, linked={2, 5})
    res = scrapy_records.extract(html, url=URL)
    got = [r.fields.get("company") for r in res.main.records]
    assert got == [f"Company number {i} Ltd" for i in range(1, 7)]
    assert "company_2" not in names(res.main.records)
    assert [r.fields.get("company_url") for r in res.main.records][
        1
    ] == "https://shop.example/cmp/2"
    w = scrapy_records.induce([(URL, html), (URL, jobs(20, linked={21, 24, 25}))])
    later = jobs(40, linked={41})
    wrapped = w.extract(later, url=URL).records
    assert [r.fields.get("company") for r in wrapped] == [
        f"Company number {i} Ltd" for i in range(40, 46)
    ]
    assert names(wrapped) == names(scrapy_records.extract(later, url=URL).records)


def test_an_analytics_class_is_no_column_name():
    from scrapy_records.fields.naming import token_name

    assert [
        token_name(t) for t in ("track-event", "za-track-event", "ga-click", "js-tracking")
    ] == [None] * 4
    assert token_name("track") == "track"  # a music track is a track
    html = page(
        "".join(
            f'<div class="item"><a class="track-event" href="/h/{i}">Home number {i} for sale'
            f"</a><p>Three bedrooms and a garden, house {i}, close to the station.</p></div>"
            for i in range(5)
        )
    )
    assert not any("track" in k for k in names(scrapy_records.extract(html, url=URL).records))


def test_links_named_by_the_templates_texts_are_columns_not_a_list():
    # "Software & driver downloads" and "Manuals" in most cards, "Manuals" alone in some:
    # two links a card shows some of, named by their texts as a lone one is on a page
    # whose cards all show only it, not a list of link texts
    both, alone = [[DRIVERS, MANUALS]], [[MANUALS]]
    cards = [both, alone, both, both, alone, both]
    region = scrapy_records.extract(printers(1, cards), url=URL).main
    assert not [c.name for c in region.columns if c.multiple]
    assert {"software_driver_downloads_url", "manuals_url"} <= {c.name for c in region.columns}
    assert region.records[1].fields["manuals_url"] == "https://shop.example/manuals/2"
    assert "software_driver_downloads_url" not in region.records[1].fields
    lone = scrapy_records.extract(printers(1, [alone] * 6), url=URL).main
    assert "manuals_url" in {c.name for c in lone.columns}


def test_a_link_named_by_its_text_is_read_by_its_text_where_its_place_moved():
    # the sample pages show "Support & troubleshooting" second in its block; a later page
    # of the template lacks the overview link, so it is first there
    w = scrapy_records.induce(
        [
            (URL, printers(1, [[[OVERVIEW, SUPPORT]]] * 6)),
            (URL, printers(20, [[[OVERVIEW, SUPPORT]]] * 6)),
        ]
    )
    # found by its text inside the block its class names (a feature selector's class step
    # kept), not by the text anywhere under any div/ul
    (support,) = [f for f in w.fields if f.name == "support_troubleshooting_url"]
    assert "more_links" in support.xpath and "Support &" in support.xpath
    later = printers(40, [[[SUPPORT]]] * 6)
    wrapped = w.extract(later, url=URL).records
    mined = scrapy_records.extract(later, url=URL).records
    assert (
        wrapped[0].fields["support_troubleshooting_url"]
        == "https://shop.example/troubleshooting/40"
    )
    assert names(wrapped) == names(mined)


def test_a_record_that_starts_with_a_link_of_one_text_gets_a_wrapper():
    # the record's first element is the "Similar pages" link: it is read as ".", and
    # anchoring that on its text (".[...]") is no XPath: no candidate by its text there
    def flat(start: int) -> str:
        return page(
            "".join(
                f'<a href="/similar/{i}">Similar pages</a>'
                f'<h3><a href="/doc/{i}">Result number {i} about kettles</a></h3>'
                f"<p>Snippet {i} of the result, long enough to read as a description.</p>"
                for i in range(start, start + 6)
            )
        )

    w = scrapy_records.induce([(URL, flat(1)), (URL, flat(20))])
    got = w.extract(flat(40), url=URL).records
    assert got[0].fields["similar_pages_url"] == "https://shop.example/similar/40"


def archive(has_image: list[bool]) -> str:
    rows = []
    for i, has in enumerate(has_image):
        image = f'<a class="viewrec" href="/img/{i}?p=1">View image</a>' if has else ""
        rows.append(
            f'<li class="rec"><h3><a href="/rec/{i}">Record number {i} of the archive</a></h3>'
            f'<span class="place">Town {i}</span>{image}</li>'
        )
    return page("<ul>" + "".join(rows) + "</ul>")


def test_a_link_caption_most_records_show_names_the_link_as_when_all_show_it():
    # "View image" on links to different images: the caption of an action, template text
    # whether every record shows it or some lack it, and the link is named after it
    for has in ([True] * 6, [True, True, False, True, True, True], [False] + [True] * 4):
        got = scrapy_records.extract(archive(has), url=URL)
        cols = {c.name: c for c in got.main.columns}
        assert "viewrec" not in cols and "view_image_url" in cols, cols
        assert got.main.records[1].fields["view_image_url"] == "https://shop.example/img/1?p=1"
    w = scrapy_records.induce(
        [(URL, archive([True] * 6)), (URL, archive([True, False, True, True, True]))]
    )
    later = archive([True, True, False, True, True, True, True])
    assert names(w.extract(later, url=URL).records) == names(
        scrapy_records.extract(later, url=URL).records
    )


def test_a_repeated_link_text_that_keeps_its_target_stays_a_value():
    # one agency's name on its own page in three records of five: data, not a caption
    rows = []
    for i in range(5):
        by = '<a class="src" href="/agency/reuters">Reuters</a>' if i % 2 == 0 else ""
        rows.append(
            f'<li class="rec"><h3><a href="/rec/{i}">Story number {i} of the day</a></h3>'
            f"<p>Story {i} in a sentence long enough to read as its summary here.</p>{by}</li>"
        )
    got = scrapy_records.extract(page("<ul>" + "".join(rows) + "</ul>"), url=URL)
    assert ["Reuters" in r.fields.values() for r in got.main.records] == [True, False] * 2 + [True]


def suppliers(places: list[str], years: list[int]) -> str:
    rows = []
    for i, (place, y) in enumerate(zip(places, years)):
        held = (
            f'<span class="years"><a href="/supplier/{i}/history">{y} yrs</a></span>' if y else ""
        )
        rows.append(
            f'<div class="item"><h2><a href="/product/{i}">Product number {i} for business</a>'
            f'</h2><div class="supplier"><span class="location">{place}</span>{held}</div></div>'
        )
    return page("".join(rows))


def test_a_text_standing_alone_in_a_third_of_the_records_names_no_value_beside_it():
    # every supplier is in China on one page: template text, but no label of the years a
    # supplier has been trading, which a third of them lack; named as where places vary
    years = [3, 0, 5, 7, 0, 2]
    china = scrapy_records.extract(suppliers(["China"] * 6, years), url=URL).main
    mixed = scrapy_records.extract(suppliers(["China", "India"] + ["China"] * 4, years), url=URL)
    assert china is not None and mixed.main is not None
    assert [c.name for c in china.columns] == ["title", "url", "years", "years_url"]
    assert [c.name for c in mixed.main.columns] == [
        "title",
        "url",
        "location",
        "years",
        "years_url",
    ]
    assert china.records[2].fields["years"] == "5 yrs"


def lazy_shop(start: int, lazy: tuple[int, ...]) -> str:
    rows = []
    for k, i in enumerate(range(start, start + 6)):
        img = (
            f'<img data-src="/img/{i}.jpg" src="data:image/gif;base64,R0lGOD">'
            if k in lazy
            else f'<img src="/img/{i}.jpg">'
        )
        rows.append(
            f'<li class="product"><a class="pic" href="/p/{i}">{img}</a>'
            f'<h3><a href="/p/{i}">Kettle model {i}</a></h3><span class="price">${10 + i}.99</span></li>'
        )
    return page("<ul>" + "".join(rows) + "</ul>")


def test_images_some_records_load_lazily_are_a_column_the_wrapper_reads():
    # the last records keep their image in data-src until they scroll into view: mining
    # reads both, and the column's XPath (src) reads both in a wrapper too
    mined = scrapy_records.extract(lazy_shop(1, (3, 4, 5)), url=URL).main
    assert mined is not None
    assert {c.name: c.xpath for c in mined.columns}["image"] == "a/img/@src"
    w = scrapy_records.induce([(URL, lazy_shop(1, (3, 4, 5))), (URL, lazy_shop(20, (2, 3, 4)))])
    assert "image" in {f.name for f in w.fields}
    got = w.extract(lazy_shop(40, (1, 5)), url=URL).records
    assert [r.fields.get("image") for r in got] == [
        f"https://shop.example/img/{i}.jpg" for i in range(40, 46)
    ]


def food(start: int, image: str | None = None) -> str:
    return page(
        "".join(
            f'<div class="food"><img src="{image or f"/img/{i}.png"}">'
            f'<a href="/food/{i}">Oat bar {i}</a><span class="kcal">{100 + i} kcal</span></div>'
            for i in range(start, start + 5)
        )
    )


def test_one_placeholder_image_every_record_shows_is_no_column_of_a_wrapped_page():
    # page 3's products have no photo: each shows the same "no image" picture, which mining
    # calls template text; the wrapper's image field leaves it out as well
    w = scrapy_records.induce([(URL, food(1)), (URL, food(10))])
    assert "image" in {f.name for f in w.fields}
    third = food(20, "/static/no_image.png")
    mined = scrapy_records.extract(third, url=URL).main
    assert mined is not None
    wrapped = w.extract(third, url=URL).records
    assert names(wrapped) == names(mined.records) and "image" not in names(wrapped)
    assert [r.fields["title"] for r in wrapped] == [f"Oat bar {i}" for i in range(20, 25)]
    # a page of distinct images keeps them
    got = w.extract(food(30), url=URL).records
    assert [r.fields.get("image") for r in got][:2] == [
        "https://shop.example/img/30.png",
        "https://shop.example/img/31.png",
    ]


def openings(start: int, n: int = 6) -> str:
    rows = []
    for i in range(start, start + n):
        links = [
            f"<li><a href='/cmp/{i % 4}/jobs'>Company {i % 4} jobs</a></li>",
            "<li><a href='/jobs-in-leeds'>Jobs in Leeds</a></li>",
        ]
        if i % 3:
            links.append(f"<li><a href='/salaries/{i}'>Role {i} salaries in Leeds</a></li>")
        rows.append(
            f"<div class='job'><h2><a href='/job/{i}'>Job opening number {i}</a></h2>"
            f"<span class='company'>Company {i % 4}</span>"
            f"<p>Summary of opening {i}, long enough to read as a description.</p>"
            f"<ul class='more'>{''.join(links)}</ul></div>"
        )
    return page("".join(rows))


def test_a_list_item_every_record_shows_at_one_place_is_left_out_of_wrapped_lists_too():
    # each job's links: its company's jobs, "Jobs in Leeds" (the same second link in every
    # record: template), some its salaries; mining's lists leave the shared link out
    mined = scrapy_records.extract(openings(40), url=URL).main.records
    assert mined[0].fields["more_url"] == [
        "https://shop.example/cmp/0/jobs",
        "https://shop.example/salaries/40",
    ]
    w = scrapy_records.induce([(URL, openings(1)), (URL, openings(20))])
    got = w.extract(openings(40), url=URL).records
    assert names(got) == names(mined) >= {"more", "more_url"}
    assert [r.fields.get("more") for r in got] == [r.fields.get("more") for r in mined]


def chairs(start: int, unlinked: tuple[int, ...] = (), n: int = 6) -> str:
    out = []
    for i in range(start, start + n):
        name = f"Garden chair model {i} in oak"
        title = name if i in unlinked else f"<a href='/p/{i}'>{name}</a>"
        out.append(
            f"<div class='card'><a href='/p/{i}'><img src='/img/{i}.jpg'></a><h3>{title}</h3>"
            f"<p>A chair of {i} kilos, long enough to read as its description.</p></div>"
        )
    return page("".join(out))


def test_a_record_without_its_title_link_does_not_rename_the_records_url():
    # page 1: one card's title is no link; the image link to the same page, in every card,
    # is the fuller column of those addresses: it keeps the name the title link gives
    first = scrapy_records.extract(chairs(1, unlinked=(3,)), url=URL).main
    assert "url" in names(first.records) and "link" not in names(first.records)
    assert [r.fields["url"] for r in first.records][2] == "https://shop.example/p/3"
    w = scrapy_records.induce([(URL, chairs(1, unlinked=(3,))), (URL, chairs(20))])
    later = w.extract(chairs(40), url=URL).records
    assert names(later) == names(scrapy_records.extract(chairs(40), url=URL).records)
