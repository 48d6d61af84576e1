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
paragraphs) are too common to say anything. Elements without text are no records, nor
are elements built otherwise than every record (a normalised tag-string distance above
:data:`FILL_DISTANCE` from the nearest one: a detail page's panels share a class), nor
items whose first link with text is not where most records hold theirs (a sponsored
result's bare title link beside the results' ``h2 > a``: its values would fill columns
of their own, not the table's).
"""

from __future__ import annotations

from scrapy_records.extractors.mdr.distance import normalized_distance
from scrapy_records.page import Page
from scrapy_records.results import Record, Region

__all__ = [
    "fill_class_siblings",
    "join_blocks",
    "MIN_RECORDS",
    "FILL_DISTANCE",
    "BLOCK_LEVELS",
    "BLOCK_DISTANCE",
]

#: Records a region needs before its class says what its items are.
MIN_RECORDS = 3
#: Largest normalised tag-string distance of an added item from its nearest record: an
#: item the extractor skipped differs from the records (an extra image, a badge), a
#: panel of another kind that shares their class (a detail page's boxes, a "Showing 1 -
#: 10 of 3,200 results" bar) is built otherwise.
FILL_DISTANCE = 0.8


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
    if add:
        tc, end = page.tag_chars, page.end
        mine = [tc[x : end[x] + 1] for x in have]
        add = [c for c in add if _near(tc[c : end[c] + 1], mine, FILL_DISTANCE)]
    link = _common_link_path(page, have)
    if add and link is not None:
        add = [c for c in add if _link_path(page, c) == link]
    if not add:
        return 0
    conf = min(r.confidence for r in recs)
    for c in add:
        recs.append(Record([page.xpath(c)], page.record_text((c,)), {}, conf, (c,)))
    recs.sort(key=lambda r: r.nodes[0])
    region.meta["filled"] = len(add)
    return len(add)


def _link_path(page: Page, root: int) -> tuple[str, ...] | None:
    """The tags from ``root`` down to its first link with text (``None``: it has none)."""
    tag, parent, lo, hi = page.tag, page.parent, page.leaf_lo, page.leaf_hi
    for x in range(root + 1, page.end[root] + 1):
        if tag[x] == "a" and hi[x] > lo[x]:
            path = []
            while x != root:
                path.append(tag[x])
                x = parent[x]
            return tuple(reversed(path))
    return None


def _common_link_path(page: Page, records: set[int]) -> tuple[str, ...] | None:
    """The :func:`_link_path` most records share, when more than half do: where a record
    holds its title link. An item whose title link sits elsewhere (a sponsored result's
    bare link beside the results' ``h2 > a``) has its values in columns of its own."""
    counts: dict[tuple[str, ...], int] = {}
    for r in records:
        p = _link_path(page, r)
        if p is not None:
            counts[p] = counts.get(p, 0) + 1
    best = max(counts, key=counts.__getitem__) if counts else None
    return best if best is not None and counts[best] * 2 > len(records) else None


def _near(tags: str, mine: list[str], limit: float) -> bool:
    """Is a tag string within ``limit`` (normalised distance) of one of ``mine``?"""
    return any(normalized_distance(tags, m, limit) <= limit for m in mine)


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


#: How far above the two blocks their common ancestor may be: sibling blocks, or blocks in
#: sibling wrappers (one more level reaches the page's sections: other lists of results).
BLOCK_LEVELS = 2
#: Largest median normalised tag-string distance of another block's records from their
#: nearest record of the first block: records built alike.
BLOCK_DISTANCE = 0.5


def join_blocks(page: Page, ranked: list[Region], skip: tuple[str, ...] = ()) -> list[Region]:
    """A list the page shows in several blocks (results grouped under headings, a list
    split by an advertisement): the regions of the other blocks join the first region.

    A region joins when it has no ``skip`` key in its ``meta`` (demoted regions), its
    parent and the first region's are twins (same depth, the same tag at each level up to
    a common ancestor at most :data:`BLOCK_LEVELS` levels above, the class names may
    differ: "results-top" / "results-bottom"), its records sit under their parent as the
    first region's do (the same tags and class attributes on the way down), are built
    alike (:data:`BLOCK_DISTANCE`), and no region of its block joined before it (twin
    parents hold disjoint sub-trees: the blocks' records never overlap). Returns the
    regions left, the first one holding every block's records in document order
    (``meta["blocks"]``: how many blocks)."""
    if len(ranked) < 2 or any(k in ranked[0].meta for k in skip) or not ranked[0].records:
        return ranked
    top = ranked[0]
    shape = _record_shape(page, top)
    if shape is None:
        return ranked
    tc, end = page.tag_chars, page.end
    mine = [_tags(tc, end, r.nodes) for r in top.records]
    joined: list[Region] = []
    parents = {top.parent}
    for r in ranked[1:]:
        if any(k in r.meta for k in skip) or not _twins(page, top.parent, r.parent):
            continue
        if r.parent in parents or _record_shape(page, r) != shape:
            continue  # (a second region of a block taken: another cut of its records)
        theirs = [_tags(tc, end, x.nodes) for x in r.records]
        near = sum(1 for t in theirs if _near(t, mine, BLOCK_DISTANCE))
        if near <= len(theirs) // 2:  # (their median nearest distance is above the limit)
            continue
        joined.append(r)
        parents.add(r.parent)
    if not joined:
        return ranked
    for r in joined:
        top.records.extend(r.records)
    top.records.sort(key=lambda rec: rec.nodes[0])
    top.meta["blocks"] = 1 + len(joined)
    gone = {id(r) for r in joined}
    return [r for r in ranked if id(r) not in gone]


def _record_shape(page: Page, region: Region) -> tuple | None:
    """The tags and class attributes from a region's parent down to its records' first
    roots (the most common path), ``None`` when the region has no parent."""
    if region.parent < 0:
        return None
    paths: dict[tuple, int] = {}
    for rec in region.records:
        if not rec.nodes:
            return None
        path = []
        x = rec.nodes[0]
        while x != region.parent and x >= 0:
            path.append((page.tag[x], page.classes(x)))
            x = page.parent[x]
        if x < 0:
            return None
        key = tuple(path)
        paths[key] = paths.get(key, 0) + 1
    return max(paths, key=paths.__getitem__) if paths else None


def _twins(page: Page, p: int, q: int) -> bool:
    if p < 0 or q < 0 or p == q or page.depth[p] != page.depth[q]:
        return False
    for _ in range(BLOCK_LEVELS):
        if page.tag[p] != page.tag[q]:
            return False
        p, q = page.parent[p], page.parent[q]
        if p == q:
            return True
    return False


def _tags(tc: str, end: list[int], nodes: tuple[int, ...]) -> str:
    return "".join(tc[x : end[x] + 1] for x in nodes)
