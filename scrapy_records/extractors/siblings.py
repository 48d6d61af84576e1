"""Records a list extractor left out between or beside the records it cut.

MDR and STEM find a list by the records' structure: a result with an extra image, a
rating or a badge breaks the repeat, and the extractor skips it ("1 2 _ 4 5") or starts
the list after it; sponsored results in a block of their own before or after the list
are never in the repeat. When the page's own markup says an element is one of the list's
items, it is a record too: :func:`fill_class_siblings` adds

* a sibling of the records (all of them children of one parent, of one tag) with their
  tag and every class name they all carry ("row result" for "row result", "lastRow row
  result" and "row sjlast result");
* the children of a sibling whose element children are all such items (a block of
  sponsored results among the list's items).

Siblings between the first and the last record are read; before the first or after the
last record only a run that touches the records (elements without text aside: an item
of another kind ends the list). The rule reads class names, not their meaning, and only
when the records have one in common: children without a class (tables, divs,
paragraphs) are too common to say anything. Elements without text are no records.
"""

from __future__ import annotations

from scrapy_records.page import Page
from scrapy_records.results import Record, Region

__all__ = ["fill_class_siblings", "MIN_RECORDS"]

#: Records a region needs before its class says what its items are.
MIN_RECORDS = 3


def fill_class_siblings(page: Page, region: Region) -> int:
    """Add to ``region`` the siblings of its records that carry their tag and class (see
    the module docstring); returns how many were added (``meta["filled"]`` says so too).
    A region whose records already have fields (aligned) is left as it is."""
    recs = region.records
    if len(recs) < MIN_RECORDS or region.columns or any(r.fields for r in recs):
        return 0
    kind = _kind(page, region)
    if kind is None:
        return 0
    tag, common = kind
    have = {r.nodes[0] for r in recs}

    def alike(c: int) -> bool:
        return page.tag[c] == tag and common <= set(page.classes(c))

    def block(c: int) -> list[int]:
        """The items of a block of the list's items (a sponsored group among them)."""
        kids = page.children[c]
        return list(kids) if kids and all(map(alike, kids)) else []

    def empty(c: int) -> bool:
        return page.leaf_hi[c] == page.leaf_lo[c]

    kids = page.children[region.parent]
    at = [k for k, c in enumerate(kids) if c in have]
    lo, hi = at[0], at[-1]
    add: list[int] = []
    for c in kids[lo:hi]:
        if c not in have:
            add.extend([c] if alike(c) else block(c))
    for run in (range(lo - 1, -1, -1), range(hi + 1, len(kids))):
        for k in run:  # a run touching the records (elements without text aside)
            c = kids[k]
            got = [c] if alike(c) else block(c)
            if not got and not empty(c):
                break
            add.extend(got)
    add = [c for c in add if not empty(c)]
    if not add:
        return 0
    conf = min(r.confidence for r in recs)
    for c in add:
        recs.append(Record([page.xpath(c)], page.record_text((c,)), {}, conf, (c,)))
    recs.sort(key=lambda r: r.nodes[0])
    region.meta["filled"] = len(add)
    return len(add)


def _kind(page: Page, region: Region) -> tuple[str, set[str]] | None:
    """The records' tag and the class names all of them carry, when every record is one
    element under the region's parent, all of one tag, with a class name in common."""
    parent, tags = region.parent, set()
    common: set[str] | None = None
    for r in region.records:
        if len(r.nodes) != 1 or parent < 0 or page.parent[r.nodes[0]] != parent:
            return None
        n = r.nodes[0]
        tags.add(page.tag[n])
        names = set(page.classes(n))
        common = names if common is None else common & names
        if not common or len(tags) > 1:
            return None
    return (tags.pop(), common) if common else None
