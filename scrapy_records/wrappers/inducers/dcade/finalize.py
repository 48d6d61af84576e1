"""From aligned columns to the :class:`Schema`: values per row, the MT/OT/MD/OD labels,
recordset tables and field names (Yuliana & Chang 2019, sections 2 and 3.2.3).

Entry point: :func:`build_schema`. Option ``single_value_rule``: ``"literal"`` (default,
the paper's: a column whose cells have the same text is template, one cell included) or
``"label"`` (a column with one value is template only when it reads as a label).
After the paper's labels come our refinements (``docs/algorithms/dcade.md``): values cut
out of leaves that hold template words too (:mod:`subleaf`), link targets whose text is
template relabelled navigation and values that coincide on the sample relabelled data
(:mod:`roles`), then names (:mod:`names`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from scrapy_records.fields.naming import label_name
from scrapy_records.wrappers.inducers.dcade.columns import Column, ListColumn, column_level
from scrapy_records.wrappers.inducers.dcade.encoding import Encoding
from scrapy_records.wrappers.inducers.dcade.names import container_name, name_columns
from scrapy_records.wrappers.inducers.dcade.roles import coinciding_values, navigation_links
from scrapy_records.wrappers.inducers.dcade.schema import RecordSet, Schema, SchemaColumn
from scrapy_records.wrappers.inducers.dcade.subleaf import leaf_skeleton, split_value


def build_schema(
    enc: Encoding, opts: dict[str, Any], table: list[Column], mts: list[list[int]]
) -> Schema:
    """The schema of the aligned ``table`` (``mts``: the MT landmarks)."""
    cols: list[SchemaColumn] = []
    rsets: list[RecordSet] = []
    for c in table:
        if isinstance(c, ListColumn):
            rs, lc = _recordset(enc, opts, c, len(rsets), len(cols))
            rsets.append(rs)
            cols.append(lc)
        else:
            rows = [(r, c.cells.get(r)) for r in range(enc.m)]
            cols.append(_column(enc, opts, len(cols), c, rows))
    cols = split_leaves(cols)
    for i, sc in enumerate(cols):
        sc.index = i
        if sc.recordset is not None:
            rsets[sc.recordset].column_index = i
    pages, leaves = enc.pages, enc.leaves
    for ci in navigation_links(pages, leaves, cols):
        _relabel(cols[ci], template=True, role="navigation")
    for ci in coinciding_values(pages, leaves, cols):
        _relabel(cols[ci], template=False, role="coinciding")
        _cut_glued_label(cols[ci])
    for rs in rsets:
        rs.columns = split_leaves(rs.columns)
        row_pages = [r for r, _k in rs.rows]
        for ci in navigation_links_in_set(enc, rs):
            _relabel(rs.columns[ci], template=True, role="navigation")
        lc = cols[rs.column_index]
        lc.name = _list_label(cols, rs.column_index) or _list_container(enc, rs) or "list"
        name_columns(pages, leaves, rs.columns, row_pages, list_label=lc.name)
    name_columns(pages, leaves, cols)
    return Schema(enc.m, cols, rsets, mts, dict(opts))


def navigation_links_in_set(enc: Encoding, rs: RecordSet) -> list[int]:
    """:func:`navigation_links` inside a recordset: its rows stand for pages."""
    rows = [r for r, _k in rs.rows]
    pages = [enc.pages[r] for r in rows]
    leaves = [enc.leaves[r] for r in rows]
    return navigation_links(pages, leaves, rs.columns)


def _relabel(c: SchemaColumn, template: bool, role: str) -> None:
    c.label = ("M" if c.mandatory else "O") + ("T" if template else "D")
    c.role = role


def _cut_glued_label(c: SchemaColumn) -> None:
    """A coinciding "Posted: December 6, 2010": the label is template, the rest the value."""
    v = next((x for x in c.values if isinstance(x, str)), "")
    head, sep, rest = v.partition(":")
    if not sep or not rest.strip():
        return
    runs = (" ".join((head + ":").split()),)
    vals = [split_value(x, runs, 1) or None if isinstance(x, str) else None for x in c.values]
    if any(isinstance(x, str) for x in c.values) and all(
        (x is None) == (y is None) for x, y in zip(c.values, vals)
    ):
        c.values, c.split, c.label_text = vals, (runs, 1), runs[0]


def _list_container(enc: Encoding, rs: RecordSet) -> str | None:
    """The class or id word of the element around a recordset's records."""
    items = []
    for f in rs.columns:
        if f.data:
            items = [(r, enc.leaves[r].node[ks[0]]) for (r, _k), ks in zip(rs.rows, f.leaves) if ks]
            break
    return container_name(enc.pages, items) if items else None


def _list_label(cols: Sequence[SchemaColumn], i: int) -> str | None:
    """The label or heading right before a list column (up to three columns back)."""
    for j in range(i - 1, max(-1, i - 4), -1):
        p = cols[j]
        if p.template and p.kind == "text":
            v = next((x for x in p.values if isinstance(x, str)), "")
            n = label_name(v)
            if n:
                return n
        elif p.data:
            return None
    return None


def _column(
    enc: Encoding,
    opts: dict[str, Any],
    index: int,
    c: Column | None,
    rows: list[tuple[int, list[int] | None]],
) -> SchemaColumn:
    """One column from its cells per row: the values are the leaves' contents joined."""
    vals: list[Any] = []
    nodes: list[tuple[int, ...]] = []
    leaves: list[tuple[int, ...]] = []
    kinds: Counter[str] = Counter()
    for r, ks in rows:
        if ks:
            pl = enc.leaves[r]
            vals.append(" ".join(pl.content[k] for k in ks))
            nodes.append(tuple(pl.node[k] for k in ks))
            leaves.append(tuple(ks))
            kinds.update(pl.kind[k] for k in ks)
        else:
            vals.append(None)
            nodes.append(())
            leaves.append(())
    kind = kinds.most_common(1)[0][0] if kinds else "text"
    level = column_level(enc, c) if c is not None else None
    label = _label(opts, vals, merged=c is not None and c.kind == "B")
    support = sum(1 for v in vals if v is not None) / len(vals) if vals else 0.0
    return SchemaColumn(index, label, "", kind, vals, nodes, leaves, level, support)


def _label(opts: dict[str, Any], vals: Sequence[Any], merged: bool = False) -> str:
    """MT/OT/MD/OD from the values of a column (None: no cell)."""
    present = [v for v in vals if v is not None]
    template = bool(present) and len(set(present)) == 1 and not merged
    if template and len(present) == 1 and opts.get("single_value_rule") == "label":
        # one value cannot show constancy: it is template only if it reads as a label
        v = present[0]
        template = v.endswith(":") or not any(ch.isalnum() for ch in v)
    return ("M" if len(present) == len(vals) else "O") + ("T" if template else "D")


def split_leaves(cols: list[SchemaColumn]) -> list[SchemaColumn]:
    """Each data text column whose leaves hold template words too becomes one column per
    value between them (:mod:`subleaf`); the template words are dropped."""
    out: list[SchemaColumn] = []
    for c in cols:
        if not (c.data and c.kind == "text" and c.split is None):
            out.append(c)
            continue
        if any(len(ks) > 1 for ks in c.leaves):
            out.append(c)
            continue
        sk = leaf_skeleton([v for v in c.values if isinstance(v, str)])
        if sk is None:
            out.append(c)
            continue
        for g in sk.slots:
            vals = [
                split_value(v, sk.runs, g) or None if isinstance(v, str) else None for v in c.values
            ]
            keep = [v is not None for v in vals]
            sc = SchemaColumn(
                c.index,
                _label({}, vals),
                "",
                c.kind,
                vals,
                [n if k else () for n, k in zip(c.nodes, keep)],
                [x if k else () for x, k in zip(c.leaves, keep)],
                c.level,
                sum(keep) / len(keep) if keep else 0.0,
                split=(sk.runs, g),
                label_text=sk.label_of(g),
            )
            out.append(sc)
    return out


def _recordset(
    enc: Encoding, opts: dict[str, Any], c: ListColumn, set_id: int, index: int
) -> tuple[RecordSet, SchemaColumn]:
    """The recordset table of a list column (one row per non-empty record block), and its
    column in TableA (the number of records per page)."""
    m = enc.m
    rows: list[tuple[int, int]] = []
    cellrows: list[list[list[int] | None]] = [[] for _ in range(c.ref_gap)]
    for r in range(m):
        k = 0
        for blk in c.blocks:
            cells = [x.cells.get(r) if x is not None else None for x in blk]
            if not any(cells):
                continue
            rows.append((r, k))
            k += 1
            for f in range(c.ref_gap):
                cellrows[f].append(cells[f])
    fields = []
    for f in range(c.ref_gap):
        rr = [(r, ks) for (r, _k), ks in zip(rows, cellrows[f])]
        fields.append(_column(enc, opts, f, c.blocks[0][f], rr))
    pages_with = {r for r, _ in rows}
    rs = RecordSet(set_id, c.ref_gap, fields, rows, index)
    lc = SchemaColumn(
        index,
        "MR" if len(pages_with) == m else "OR",
        f"list_{set_id}",
        "list",
        [sum(1 for rr in rows if rr[0] == r) or None for r in range(m)],
        support=len(pages_with) / m if m else 0.0,
        recordset=set_id,
    )
    return rs, lc
