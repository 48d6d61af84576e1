"""Insertion passes of partial tree alignment on a partial mapping (identical sub-trees
mapped at their root only) grow the same template as on the full mapping."""

from __future__ import annotations

from scrapy_records import Page
from scrapy_records.fields.alignment import align_records
from scrapy_records.fields.records import VROOT, RecordTree, page_data
from scrapy_records.fields.template import (
    build_template,
    insert_runs,
    map_record,
    reshape,
    template_from,
)

BODY = "".join(
    f"<p>Paragraph {k} of a long post body, <b>bold</b> and <i>more</i>.</p>" for k in range(8)
)


def _posts(extra: set[int]) -> Page:
    posts = "".join(
        f"<li class='post'><div class='body'>{BODY}</div>"
        + (f"<span class='tag'>Tag {i}</span>" if i in extra else "")
        + f"<a href='/u/{i}'>user{i}</a></li>"
        for i in range(4)
    )
    return Page(f"<html><body><ul>{posts}</ul></body></html>")


def _trees(page: Page) -> list[RecordTree]:
    pd = page_data(page)
    return [RecordTree(pd, (i,)) for i, t in enumerate(page.tag) if t == "li"]


def test_a_partial_mapping_stops_at_identical_sub_trees():
    page = _posts({1})
    trees = _trees(page)
    pd = trees[0].pd
    template = template_from(trees[0], VROOT)
    reshape(template, pd.shapes)
    full = map_record(template, trees[1], pd.matcher)
    whole: set = set()
    part = map_record(template, trees[1], pd.matcher, whole=whole)
    body = [t for t, x in full.items() if x >= 0 and page.tag[x] == "div"]
    assert len(body) == 1 and body[0] in whole and body[0] in part
    # the body's paragraphs are in the full mapping only; the rest is the same
    assert len(part) < len(full)
    assert all(full[t] == x for t, x in part.items())
    # an identical record: its virtual root alone
    whole = set()
    assert map_record(template, trees[2], pd.matcher, whole=whole) == {template: VROOT}
    assert whole == {template}


def test_insertion_from_a_partial_mapping_is_the_one_from_the_full_mapping():
    page = _posts({1})
    trees = _trees(page)
    pd = trees[0].pd
    grown = []
    for partial in (False, True):
        template = template_from(trees[0], VROOT)
        reshape(template, pd.shapes)
        whole: set = set()
        m = map_record(template, trees[1], pd.matcher, whole=whole if partial else None)
        assert insert_runs(trees[1], m, False, whole if partial else None) == (True, False)
        reshape(template, pd.shapes)
        grown.append(template.shape)
    assert grown[0] == grown[1]
    # nothing left to insert for the record once the template holds its tag
    whole = set()
    m = map_record(template, trees[1], pd.matcher, whole=whole)
    assert insert_runs(trees[1], m, False, whole) == (False, False)


def test_an_optional_field_beside_a_long_body_gets_its_column():
    page = _posts({1, 3})
    trees = _trees(page)
    template, progs = build_template(trees, page_data(page).matcher, 30, True)
    assert progs == {}  # (insertion passes record no programs: the final mapping does)
    columns, values = align_records(page, [tree.roots for tree in trees])
    tags = [v for v in values if any(str(x).startswith("Tag ") for x in v.values())]
    assert len(tags) == 2
    assert all(any(str(x) == f"user{i}" for x in v.values()) for i, v in enumerate(values))


def test_class_steps_are_verified_on_every_checked_record():
    # an optional badge shifts the price's position: the column reads it by its class,
    # an XPath checked (compiled once) against each record
    items = "".join(
        f"<li><a href='/p/{i}'>Product number {i}</a>"
        + ("<span class='badge'>New</span>" if i % 2 else "")
        + f"<span class='price'>${i}.99</span><span class='note'>Ships in {i} days</span></li>"
        for i in range(5)
    )
    page = Page(f"<html><body><ul>{items}</ul></body></html>")
    groups = [(i,) for i, t in enumerate(page.tag) if t == "li"]
    columns, values = align_records(page, groups)
    by_name = {c.name: c.xpath for c in columns}
    assert (
        by_name["price"] == "span[contains(concat(' ', normalize-space(@class), ' '), ' price ')]"
    )
    for (root,), v in zip(groups, values):
        found = page.el[root].xpath(by_name["price"])
        assert len(found) == 1 and found[0].text == f"${v['price']}"
    assert by_name["badge"] == "span[1]"  # (the records holding one agree on its position)
