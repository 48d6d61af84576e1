"""Field alignment: the records of a region become one table of typed, named columns.

Partial tree alignment (Zhai & Liu 2005, as summarised in Jindal & Liu, section 4.6), with
Simple Tree Matching as the pairwise matcher; docs/algorithms/alignment.md describes it.
Every extractor finds *where* records are; :func:`align_records` (called by
:func:`~scrapy_records.extractors.base.build_region`) aligns their sub-trees, and
:func:`align_region` fills a region built without alignment. The phases live in
:mod:`~scrapy_records.fields.records` (record trees), :mod:`~scrapy_records.fields.template`
(template), :mod:`~scrapy_records.fields.slots` (slots and values),
:mod:`~scrapy_records.fields.naming` (names) and :mod:`~scrapy_records.fields.xpaths`.

Options of :func:`align_records` (defaults): ``max_template_records`` (30), ``max_cells``
(200,000), ``max_node_cells`` (2,500), ``keep_unaligned`` (True), ``collapse_inline``
(True), ``collapse_variable`` (True), ``max_columns`` (100).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from scrapy_records.fields.namer import EVIDENCE_RANK, name_slots
from scrapy_records.fields.records import (
    DEFAULT_MAX_CELLS,
    DEFAULT_MAX_NODE_CELLS,
    INLINE_TAGS,
    RecordTree,
    page_data,
)
from scrapy_records.fields.slot_names import mark_static
from scrapy_records.fields.slots import (
    Slot,
    collapse_variable_subtrees,
    data_slots,
    drop_duplicates,
    fill_slots,
    find_slots,
    merge_complementary,
    type_slots,
)
from scrapy_records.fields.template import Layout, build_template, map_record
from scrapy_records.fields.xpaths import set_xpaths
from scrapy_records.page import Page
from scrapy_records.results import Column

logger = logging.getLogger(__name__)

_WORD_RE = re.compile(r"\w+")

__all__ = ["align_records", "align_region", "align_beneath", "titled_records", "INLINE_TAGS"]

DEFAULT_MAX_TEMPLATE_RECORDS = 30
DEFAULT_MAX_COLUMNS = 100


def align_records(
    page: Page,
    groups: Sequence[Sequence[int]],
    *,
    max_template_records: int = DEFAULT_MAX_TEMPLATE_RECORDS,
    max_cells: int = DEFAULT_MAX_CELLS,
    max_node_cells: int = DEFAULT_MAX_NODE_CELLS,
    keep_unaligned: bool = True,
    collapse_inline: bool = True,
    collapse_variable: bool = True,
    max_columns: int = DEFAULT_MAX_COLUMNS,
) -> tuple[list[Column], list[dict[str, Any]]]:
    """Align the records of a region into columns.

    :param groups: one tuple of root node indices per record (several roots allowed).
    :param max_template_records: at most this many records (an even sample) build the
        template with the retry loop; then at most as many further records with a record
        shape not seen yet get one insertion pass; all others are only matched against
        the template (items without a place are dropped).
    :param max_cells: STM dynamic-programming budget per call; past it, child sequences are
        aligned by a C-level LCS of their labels.
    :param max_node_cells: a node pair whose children matrix is larger is aligned by LCS.
    :param keep_unaligned: give items without a unique template position their own columns
        instead of dropping them (as DEPTA does).
    :param collapse_inline: read inline-only sub-trees with varying structure as one text.
    :param collapse_variable: read a sub-tree as one text when its structure differs in
        most records and its slots are sparse (at least 4 slots, at most one filled in
        >= 90 % of the records, mean fill < 50 %): user-generated post bodies.
    :param max_columns: keep at most this many data columns (the fullest ones; a
        heterogeneous group of records would otherwise give thousands).
    :returns: ``(columns, values)``, ``values`` holding one ``{column name: value}`` dict per
        record (absent columns are absent keys). Column names follow the rules of
        :mod:`scrapy_records.fields.naming`; duplicates get ``_2``, ``_3``...; a price
        column with currencies gets a ``<name>_currency`` companion column (one with unit
        notes, "/2 pack", a ``<name>_unit`` column, and one with ranges, "£2.99 to £8.99",
        a ``<name>_max`` column holding their high ends).
    """
    roots = [_clean_group(page, g) for g in groups]
    n = len(roots)
    if n == 0:
        return [], []
    if not any(roots):
        return [], [{} for _ in roots]
    pd = page_data(page)
    matcher = pd.matcher
    matcher.max_cells = matcher.cells + max_cells  # budget per call
    matcher.max_node_cells = max_node_cells
    trees = [RecordTree(pd, g) for g in roots]
    template, progs = build_template(trees, matcher, max_template_records, keep_unaligned)
    maps = [map_record(template, rt, matcher, progs) for rt in trees]
    layout = Layout(template)
    if matcher.approximated:
        logger.debug(
            "alignment: %d node pairs approximated by LCS (budget %d cells)",
            matcher.approximated,
            max_cells,
        )
    slots = find_slots(page, layout, trees, maps, collapse_inline)
    fill_slots(page, slots, maps)
    if collapse_variable and n >= 3:
        slots = collapse_variable_subtrees(page, slots, layout, trees, maps)
    mark_static(slots, n, page)
    data = data_slots(slots, max_columns)
    companions = type_slots(data, n)
    set_xpaths(page, data, trees, roots)
    data = name_slots(page, slots, data, trees, maps, layout)
    data = drop_duplicates(data, EVIDENCE_RANK)
    merged = merge_complementary(data, companions)
    if len(merged) < len(data):
        # once a field's variants are one column, a part that repeats it where present goes
        merged = drop_duplicates(merged, EVIDENCE_RANK)
    data = merged
    return _assemble(data, companions, n)


def _clean_group(page: Page, g: Sequence[int]) -> tuple[int, ...]:
    """Sorted, de-duplicated roots with nested roots removed (a node inside another root)."""
    out: list[int] = []
    end = page.end
    for i in sorted(set(g)):
        if 0 <= i < len(end) and (not out or i > end[out[-1]]):
            out.append(i)
    return tuple(out)


def _assemble(
    data: list[Slot], companions: dict[int, dict[str, list[Any]]], n: int
) -> tuple[list[Column], list[dict[str, Any]]]:
    """The columns (unique names, each price column followed by its currency and unit
    columns) and one ``{column name: value}`` dict per record.

    Of columns that share a name the fullest keeps it and the others get ``_2``, ``_3`` in
    document order: a rare optional part before the main one does not rename the main one
    on the pages that have it."""
    columns: list[Column] = []
    used_names: set[str] = set()
    out: list[tuple[str, list[Any]]] = []

    def unique(base: str) -> str:
        name, k = base, 2
        while name in used_names:
            name = f"{base}_{k}"
            k += 1
        used_names.add(name)
        return name

    fills = [sum(1 for v in s.values if v is not None) for s in data]
    names: dict[int, str] = {}
    for k in sorted(range(len(data)), key=lambda k: -fills[k]):  # stable: document order
        if data[k].name not in used_names:
            names[k] = unique(data[k].name)
    for k, s in enumerate(data):
        if k not in names:
            names[k] = unique(s.name)
    for k, s in enumerate(data):
        name = names[k]
        fill = fills[k] / n
        columns.append(Column(name, s.type, fill, s.xpath, s.evidence, s.multiple, s.keys))
        out.append((name, s.values))
        raw = _date_raw(s)
        if raw is not None:  # the date as the page writes it ("3 hours ago", "05/06")
            rname = unique(f"{name}_raw")
            columns.append(Column(rname, "text", fill, s.xpath, "raw"))
            out.append((rname, raw))
        # currency, unit ("2 pack"), then a range's high end ("£2.99 to £8.99": 8.99)
        for key, cl in companions.get(id(s), {}).items():
            cname = unique(f"{name}_{key}")
            cfill = sum(1 for c in cl if c is not None) / n
            ctype = "price" if key == "max" else "text"
            columns.append(Column(cname, ctype, cfill, s.xpath, key))
            out.append((cname, cl))
    values: list[dict[str, Any]] = [{} for _ in range(n)]
    for name, vals in out:
        for r, v in enumerate(vals):
            if v is not None:
                values[r][name] = v
    return columns, values


def _date_raw(s: Slot) -> list[Any] | None:
    """A date column's values as written, when the page writes them otherwise than the
    ISO value (not its own machine-readable ``datetime``, not ISO dates already)."""
    if s.type != "date" or s.raw is None or s.multiple or "datetime" in s.attr:
        return None
    if all(r == v for r, v in zip(s.raw, s.values)):
        return None
    return s.raw


def align_region(page: Page, region: Any) -> Any:
    """Align a :class:`~scrapy_records.results.Region` built with ``align=False``, in place.

    For lazy alignment: extractors may build every candidate region without fields
    (``build_region(..., align=False)``) and the caller aligns only the regions it keeps
    (the main region, or the top few after ranking), which is where most of the cost of
    a page goes otherwise. Uses each record's ``nodes``; records rebuilt from JSON (no
    nodes) leave the region unchanged. Returns the region.
    """
    groups = [tuple(r.nodes) for r in region.records]
    if not groups or not all(groups):
        return region
    columns, values = align_records(page, groups)
    region.columns = columns
    for rec, vals in zip(region.records, values):
        rec.fields = vals
    return region


def titled_records(page: Page, region: Any, share: float = 0.8) -> bool:
    """The records open with a title: in at least ``share`` of them, the first link with
    text has three words or more, and those titles differ (search results and article
    lists dated like posts; a thread's posts open with an author name, a post number or
    one "Re: subject" repeated)."""
    tag, end, el = page.tag, page.end, page.el
    titles = []
    recs = region.records
    for rec in recs:
        first = None
        for root in rec.nodes:
            for i in range(root, end[root] + 1):
                if tag[i] == "a" and el[i].get("href") and page.text(i):
                    first = page.text(i)
                    break
            if first is not None:
                break
        if first is not None and len(first.split()) >= 3:
            titles.append(first)
    n = len(recs)
    return n >= 2 and len(titles) >= share * n and len(set(titles)) >= share * len(titles)


def align_beneath(page: Page, region: Any) -> Any:
    """Align a region whose records already hold an extractor's own fields (MiBAT's
    ``date``, ``author``, ``permalink``, ``text``), in place: the aligned columns join them
    (a search result's title, score and comment count), the extractor's fields win a name
    and an aligned column repeating one of them (the body again, read around its inline
    markup) is left out. Returns the region."""
    groups = [tuple(r.nodes) for r in region.records]
    if not groups or not all(groups):
        return region
    columns, values = align_records(page, groups)
    own = list(region.columns)
    taken = {c.name for c in own}
    seqs = [[_words(r.fields.get(c.name)) for r in region.records] for c in own]
    base_kept = False
    for col in columns:  # a companion (price_currency, date_raw) follows its column
        seq = [v.get(col.name) for v in values]
        if col.evidence in ("currency", "unit", "max", "raw"):
            keep = base_kept and col.name not in taken
        else:
            words = [_words(v) for v in seq]
            keep = base_kept = col.name not in taken and not any(
                _repeats(words, other) for other in seqs
            )
        if not keep:
            continue
        own.append(col)
        for rec, v in zip(region.records, seq):
            if v is not None:
                rec.fields[col.name] = v
    region.columns = own
    return region


def _words(v: Any) -> Counter[str] | None:
    """The word tokens of a value (``None`` for no value)."""
    if v is None:
        return None
    return Counter(_WORD_RE.findall(str(v).lower()))


def _repeats(col: list[Counter[str] | None], other: list[Counter[str] | None]) -> bool:
    """``col`` says what ``other`` says: in every record where it has a value, the other has
    nearly the same words (>= 90% of each one's words shared; spacing and punctuation
    around inline markup differ between the two readings)."""
    seen = False
    for a, b in zip(col, other):
        if a is None:
            continue
        if b is None:
            return False
        shared = sum((a & b).values())
        if shared < 0.9 * max(a.total(), b.total()):
            return False
        seen = True
    return seen
