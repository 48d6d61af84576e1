"""From aligned columns to the :class:`Schema`: values per row, the MT/OT/MD/OD labels,
recordset tables and field names (Yuliana & Chang 2019, sections 2 and 3.2.3).

Entry point: :func:`build_schema`. Option ``single_value_rule``: ``"label"`` (default; a
column with one value is template only when it reads as a label) or ``"literal"``.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from scrapy_records.wrappers.inducers.dcade.columns import Column, ListColumn, column_level
from scrapy_records.wrappers.inducers.dcade.encoding import Encoding
from scrapy_records.wrappers.inducers.dcade.schema import RecordSet, Schema, SchemaColumn

_SLUG = re.compile(r"[^0-9a-zA-Z]+")


def _slug(text: str) -> str:
    s = _SLUG.sub("_", text).strip("_").lower()
    if not s:
        return ""
    if s[0].isdigit():
        s = "f_" + s
    return s[:40]


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
    name_columns(cols)
    return Schema(enc.m, cols, rsets, mts, dict(opts))


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
    present = [v for v in vals if v is not None]
    support = len(present) / len(vals) if vals else 0.0
    template = bool(present) and len(set(present)) == 1 and (c is None or c.kind != "B")
    if template and len(present) == 1 and opts["single_value_rule"] == "label":
        # one value cannot show constancy: it is template only if it reads as a label
        v = present[0]
        template = v.endswith(":") or not any(ch.isalnum() for ch in v)
    mand = support >= 1.0
    label = ("M" if mand else "O") + ("T" if template else "D")
    kind = kinds.most_common(1)[0][0] if kinds else "text"
    level = column_level(enc, c) if c is not None else None
    return SchemaColumn(index, label, "", kind, vals, nodes, leaves, level, support)


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
    name_columns(fields)
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


def _first_value(c: SchemaColumn) -> Any:
    return next(v for v in c.values if v is not None)


def _field_name(cols: list[SchemaColumn], i: int) -> str:
    """A data column's name: the nearest preceding short template label (up to three
    columns back), or for a link/image the name of the text right before it."""
    c = cols[i]
    name = ""
    for j in range(i - 1, max(-1, i - 4), -1):
        p = cols[j]
        if p.template and p.kind == "text":
            lab = _first_value(p)
            if len(lab) <= 40 and len(lab.split()) <= 5:
                name = _slug(lab)
            break
        if p.data and p.kind == "text" and c.kind != "text" and j == i - 1:
            name = p.name or f"field_{j}"
            break
    if c.kind == "href":
        name = (name + "_url") if name else "url"
    elif c.kind == "src":
        name = (name + "_image") if name else "image"
    return name or "field"


def name_columns(cols: list[SchemaColumn]) -> None:
    """Name the columns after the nearest preceding template label; repeated names get
    ``_2``, ``_3``... in order."""
    used: Counter[str] = Counter()
    for i, c in enumerate(cols):
        name = ""
        if c.kind == "list":
            # label: the template column right before the list
            for j in range(i - 1, max(-1, i - 3), -1):
                p = cols[j]
                if p.template and p.kind == "text":
                    name = _slug(_first_value(p))
                    break
            name = name or "list"
        elif c.template:
            name = "t_" + (_slug(_first_value(c)) or "const")
        else:
            name = _field_name(cols, i)
        used[name] += 1
        c.name = name if used[name] == 1 else f"{name}_{used[name]}"
