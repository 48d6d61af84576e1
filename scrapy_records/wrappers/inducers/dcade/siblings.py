"""Short sets: values that are sibling elements of one parent, one column each in TableA.

DCADE makes a recordset of a repeat only when some page has more than ``theta_rp`` (2)
occurrences (Yuliana & Chang 2019, section 3.2.2), so a book with one or two authors on
every sample page gets an ``author`` and an ``author_2`` column and a later page with three
loses the third. In the wrapper (our design) consecutive data columns whose values are
sibling elements of the same tag and class under one parent, with only separators between them (no
label: ``dt``/``dd`` pairs stay fields), become one ``multiple`` field reading all those
siblings, checked on the induction pages to return exactly the columns' values in order
(and their links, a ``<name>_url`` field).
"""

from __future__ import annotations

from dataclasses import dataclass

from scrapy_records.wrappers.inducers.dcade.schema import Schema, SchemaColumn
from scrapy_records.wrappers.inducers.dcade.tokens import type_masks
from scrapy_records.wrappers.inducers.dcade.xpaths import SchemaSelectors, stable_path
from scrapy_records.wrappers.model import FieldSpec


@dataclass
class SiblingSet:
    """Columns of TableA read as one ``multiple`` field (and its links)."""

    columns: list[int]
    links: list[int]
    field: FieldSpec
    url: FieldSpec | None


def _element(sel: SchemaSelectors, c: SchemaColumn, r: int) -> int | None:
    """The element whose whole text is the column's value on page ``r``."""
    if not c.leaves[r] or len(c.leaves[r]) != 1:
        return None
    node, suf = sel.leaf_target(r, c.leaves[r][0])
    return node if not suf else None


def _candidate(c: SchemaColumn) -> bool:
    return c.data and c.kind == "text" and c.split is None


def _ptypes(c: SchemaColumn) -> set[int]:
    return {type_masks(v)[1] for v in c.values if isinstance(v, str)}


def _follows(sel: SchemaSelectors, a: SchemaColumn, b: SchemaColumn) -> bool:
    """On every page with ``b``: ``a`` too, both sibling elements of one tag and one class,
    ``b`` after (``p.price``, ``p.stock`` and ``p.desc`` are three fields, not a set), and
    values of one kind: items of a set share a PTypeSet somewhere, the code of their
    common role at encoding level 5 (section 3.2.3), where a seller's name and the
    "(50)" of its rating beside it, two links in one ``b``, share none."""
    if _ptypes(a).isdisjoint(_ptypes(b)):
        return False
    seen = False
    for r in range(sel.s.m):
        if not b.leaves[r]:
            continue
        ea, eb = _element(sel, a, r), _element(sel, b, r)
        if ea is None or eb is None:
            return False
        page = sel.pages[r]
        x, y = page.el[ea], page.el[eb]
        if x.tag != y.tag or x.getparent() is not y.getparent() or not ea < eb:
            return False
        if (x.get("class") or "").split() != (y.get("class") or "").split():
            return False
        seen = True
    return seen


def _between_ok(cols: list[SchemaColumn], i: int, j: int, group: list[int]) -> list[int] | None:
    """The link columns between ``i`` and ``j`` when all else there is separators
    (", ", "|"): a label between two values makes them two fields, not a set."""
    links = []
    for k in range(i + 1, j):
        c = cols[k]
        if c.kind == "href":
            links.append(k)
        elif c.kind == "list" or (c.data and k not in group):
            return None
        elif any(ch.isalnum() for v in c.values if isinstance(v, str) for ch in v):
            return None
    return links


def _groups(sel: SchemaSelectors, cols: list[SchemaColumn]) -> list[tuple[list[int], list[int]]]:
    out = []
    i = 0
    n = len(cols)
    while i < n:
        if not _candidate(cols[i]):
            i += 1
            continue
        group, links = [i], []
        j = i + 1
        while j < n and j - group[-1] <= 4:
            if _candidate(cols[j]) and _follows(sel, cols[group[-1]], cols[j]):
                between = _between_ok(cols, group[-1], j, group)
                if between is None:
                    break
                links += between
                group.append(j)
            elif cols[j].data and cols[j].kind == "text":
                break
            j += 1
        if len(group) >= 2:
            after = group[-1] + 1
            if after < n and cols[after].kind == "href":
                links.append(after)
            out.append((group, links))
            i = group[-1] + 1
        else:
            i += 1
    return out


def sibling_sets(sel: SchemaSelectors, schema: Schema) -> list[SiblingSet]:
    """The short sets of TableA (module docstring), each checked on the induction pages."""
    cols = schema.columns
    out = []
    for group, links in _groups(sel, cols):
        first = cols[group[0]]
        rows = [r for r in range(schema.m) if first.leaves[r]]
        parents = {}
        for r in rows:
            e = _element(sel, first, r)
            if e is None:
                break
            parents[r] = sel.pages[r].parent[e]
        else:
            tag = sel.pages[rows[0]].tag[_element(sel, first, rows[0]) or 0]
            base = stable_path(sel, rows, parents)
            if not base:
                continue
            xp = f"{base}/{tag}"
            want = [
                [cols[k].values[r] for k in group if cols[k].values[r]] for r in range(schema.m)
            ]
            spec = FieldSpec(first.name, "text", xp, None, None, optional=True, multiple=True)
            if sel.evaluate_multiple(spec) != want:
                continue
            url = None
            if tag == "a" and links:
                url = FieldSpec(f"{first.name}_url", "url", xp, None, "href", True, True)
                hrefs = [
                    [cols[k].values[r] for k in links if cols[k].values[r]] for r in range(schema.m)
                ]
                if sel.evaluate_multiple(url) != hrefs:
                    url = None
            out.append(SiblingSet(group, links if url else [], spec, url))
    return out
