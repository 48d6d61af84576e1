"""Records a list extractor left out between or beside the records it cut.

MDR and STEM find a list by the records' structure: a result with an extra image, a
rating or a badge breaks the repeat, and the extractor skips it ("1 2 _ 4 5") or starts
the list after it. When the page's own markup says the element is one of the list's
items (the same tag and the same class attribute as every record of the region, all of
them children of one parent), it is a record too: :func:`fill_class_siblings` adds it.

The rule reads the class attribute, not its meaning, and only a non-empty one: children
without a class (tables, divs, paragraphs) are too common to say anything. Elements
between the first and the last record are added; before the first or after the last
record only a run of them that touches the region (an item of another kind in between
ends the list). Elements without text are no records.
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
    parent = region.parent
    first = recs[0].nodes
    if len(first) != 1 or parent < 0:
        return 0
    tag, classes = page.tag, page.classes
    kind = (tag[first[0]], classes(first[0]))
    if not kind[1]:
        return 0
    have = set()
    for r in recs:
        if len(r.nodes) != 1 or page.parent[r.nodes[0]] != parent:
            return 0
        n = r.nodes[0]
        if (tag[n], classes(n)) != kind:
            return 0
        have.add(n)
    kids = page.children[parent]
    at = [k for k, c in enumerate(kids) if c in have]
    lo, hi = at[0], at[-1]
    add = [c for c in kids[lo:hi] if c not in have and (tag[c], classes(c)) == kind]
    k = lo - 1
    while k >= 0 and (tag[kids[k]], classes(kids[k])) == kind:
        add.append(kids[k])
        k -= 1
    k = hi + 1
    while k < len(kids) and (tag[kids[k]], classes(kids[k])) == kind:
        add.append(kids[k])
        k += 1
    add = [c for c in add if page.leaf_hi[c] > page.leaf_lo[c]]
    if not add:
        return 0
    conf = min(r.confidence for r in recs)
    for c in add:
        recs.append(Record([page.xpath(c)], page.record_text((c,)), {}, conf, (c,)))
    recs.sort(key=lambda r: r.nodes[0])
    region.meta["filled"] = len(add)
    return len(add)
