"""Items told apart by their labels (issue 15): an optional item before a labelled one
shifts its position, so the alignment pairs items two records label alike, and the
column's XPath is anchored on the label; a wrapper reads the column mining reads."""

from __future__ import annotations

import scrapy_records

URL = "https://jobs.example/search"


def jobs(start: int, more: set[int], learn: set[int], linked: set[int] = frozenset()) -> str:
    """Job results with a list of links: "View all" for the jobs in ``more``, always
    "Salary Search:", "Learn more about working at" for the jobs in ``learn``; the
    company a link for the jobs in ``linked``."""
    rows = []
    for i in range(start, start + 8):
        items = []
        if i in more:
            items.append(
                f'<li><span class="mat">View all <a href="/q/{i}">Firm {i} jobs</a></span></li>'
            )
        items.append(
            f'<li><span class="mat">Salary Search: <a href="/salaries/{i}">Role {i} salaries'
            f" in Town</a></span></li>"
        )
        if i in learn:
            items.append(
                f'<li><span class="mat">Learn more about working at <a href="/cmp/{i}">Firm {i}'
                f"</a></span></li>"
            )
        company = f'<a href="/cmp/{i}">Firm {i}</a>' if i in linked else f"Firm {i}"
        rows.append(
            f'<div class="row"><h2><a href="/job/{i}">Job title {i} in town</a></h2>'
            f'<span class="company"><span>{company}</span></span>'
            f"<p>Description of job {i}, long enough to read as a description of it.</p>"
            f"<ul>{''.join(items)}</ul></div>"
        )
    return "<html><body><div id='main'>" + "".join(rows) + "</div></body></html>"


def names(records) -> set[str]:
    return {k for r in records for k, v in r.fields.items() if v not in (None, "", [])}


def test_an_item_after_an_optional_one_is_aligned_by_its_label():
    # every other job lacks "View all": its salary item is the list's first
    main = scrapy_records.extract(jobs(1, more=set(range(1, 99, 2)), learn=set()), url=URL).main
    assert main is not None
    col = next(c for c in main.columns if c.name == "salary_search")
    assert [r.fields.get("salary_search") for r in main.records[:3]] == [
        "Role 1 salaries in Town",
        "Role 2 salaries in Town",
        "Role 3 salaries in Town",
    ]
    assert col.xpath is not None and "'Salary Search:'" in col.xpath


def test_a_wrapper_reads_the_items_mining_tells_apart_by_their_labels():
    # (some job shows all three items on every page: the alignment's template)
    samples = [
        (URL, jobs(1, more=set(range(1, 99, 2)), learn={2, 3, 6})),
        (URL, jobs(20, more={20, 21, 24, 27}, learn={20, 22, 25})),
    ]
    w = scrapy_records.induce(samples)
    later = jobs(40, more={40, 43, 45}, learn={41, 43, 44})
    mined = scrapy_records.extract(later, url=URL).main
    wrapped = w.extract(later, url=URL)
    assert names(wrapped.records) == names(mined.records)
    assert "salary_search" in names(wrapped.records)
    assert [r.fields for r in wrapped.records] == [r.fields for r in mined.records]


def test_a_company_linked_in_some_records_stays_one_full_column_beside_a_repeat_of_it():
    # the linked companies (and one more) are repeated after "Learn more about working at":
    # the company column still holds every record's company
    page = jobs(1, more=set(range(1, 99, 2)), learn={1, 3, 4, 6}, linked={1, 4, 6})
    main = scrapy_records.extract(page, url=URL).main
    assert main is not None
    companies = [r.fields.get("company") for r in main.records]
    assert companies == [f"Firm {i}" for i in range(1, 9)]


def test_items_each_led_in_by_a_text_of_their_own_are_columns_not_one_list():
    # "View all <a>" and "Learn more about working at <a>" are both template text: each
    # item is a part of its own, its link a column of its own, not an item of one list
    page = jobs(1, more=set(range(1, 99, 2)), learn={2, 3, 6})
    main = scrapy_records.extract(page, url=URL).main
    assert main is not None
    view = [r.fields.get("view_all_url") for r in main.records[:4]]
    assert view == [
        "https://jobs.example/q/1",
        None,
        "https://jobs.example/q/3",
        None,
    ]
    salaries = [r.fields.get("salary_search_url") for r in main.records[:2]]
    assert salaries == ["https://jobs.example/salaries/1", "https://jobs.example/salaries/2"]
