"""What DCADE induces: ``TableA`` (one row per page, one column per role) and a table per
recordset, with the values of the induction pages (Yuliana & Chang 2019, section 2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scrapy_records.page import Page
from scrapy_records.wrappers.inducers.dcade.leaves import PageLeaves


@dataclass
class SchemaColumn:
    """One column of ``TableA`` or of a recordset table.

    :param label: ``MT``/``OT``/``MD``/``OD`` (template/data x mandatory/optional) or
        ``MR``/``OR`` for the list column of a recordset.
    :param values: one value per row (page for TableA, record for a recordset), ``None`` = null.
    :param nodes: per row, the pre-order indices of the leaves' owner elements.
    :param kind: ``text``, ``href`` or ``src`` (the leaf kind), ``list`` for list columns.
    :param level: the most specific encoding level all cells share, ``None`` if none.
    :param leaves: per row, the leaf indices of its value (into ``Schema.page_leaves``).
    :param support: the share of rows with a value.
    :param recordset: for a list column, the index of its :class:`RecordSet`.
    :param split: for a value cut out of its leaves (``subleaf``): the template runs of the
        leaf text and the gap between them that holds the value.
    :param label_text: the label the value stands next to ("Price:"), if any.
    :param evidence: what the name was made from (``label``, ``itemprop``, ``type``,
        ``class``, ``tag``, ``link``, ``list``, ``position``).
    :param role: ``navigation`` for a link target whose text is template, ``coinciding``
        for a value constant on the sample in a place where values vary (``roles``).
    """

    index: int
    label: str
    name: str
    kind: str
    values: list[Any]
    nodes: list[tuple[int, ...]] = field(default_factory=list, repr=False)
    leaves: list[tuple[int, ...]] = field(default_factory=list, repr=False)
    level: int | None = None
    support: float = 1.0
    recordset: int | None = None
    split: tuple[tuple[str, ...], int] | None = None
    label_text: str | None = None
    evidence: str = ""
    role: str = ""

    @property
    def template(self) -> bool:
        return self.label in ("MT", "OT")

    @property
    def data(self) -> bool:
        return self.label in ("MD", "OD")

    @property
    def mandatory(self) -> bool:
        return self.label.startswith("M")


@dataclass
class RecordSet:
    """A recordset table: rows keyed ``SetId-DocId-RecId``."""

    set_id: int
    ref_gap: int
    columns: list[SchemaColumn]
    rows: list[tuple[int, int]]  # (page, record number on that page)
    column_index: int  # index of its list column in TableA

    def records(self, page: int) -> list[dict[str, Any]]:
        """The records of one page as ``{column name: value}`` (data columns only)."""
        out = []
        for i, (r, _k) in enumerate(self.rows):
            if r != page:
                continue
            out.append(
                {c.name: c.values[i] for c in self.columns if c.data and c.values[i] is not None}
            )
        return out

    def pointers(self) -> list[str]:
        return [f"{self.set_id}-{r}-{k}" for r, k in self.rows]


@dataclass
class Schema:
    """The result of DCADE: ``TableA`` (``columns``) and the recordset tables.

    ``page_leaves`` are the leaves the leaf indices of the columns point into.
    """

    m: int
    columns: list[SchemaColumn]
    recordsets: list[RecordSet]
    landmarks: list[list[int]] = field(repr=False, default_factory=list)
    options: dict[str, Any] = field(repr=False, default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    pages: list[Page] = field(repr=False, default_factory=list)
    page_leaves: list[PageLeaves] = field(repr=False, compare=False, default_factory=list)

    def data_columns(self) -> list[SchemaColumn]:
        return [c for c in self.columns if c.data]

    def column(self, name: str) -> SchemaColumn:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def page_record(self, page: int) -> dict[str, Any]:
        """One page as a record: named data fields plus a list per recordset (detail view)."""
        rec: dict[str, Any] = {}
        for c in self.columns:
            if c.kind == "list":
                assert c.recordset is not None
                rs = self.recordsets[c.recordset]
                rows = rs.records(page)
                if rows:
                    rec[c.name] = rows
            elif c.data and c.values[page] is not None:
                rec[c.name] = c.values[page]
        return rec

    def to_dict(self) -> dict[str, Any]:
        def col(c: SchemaColumn) -> dict[str, Any]:
            return {
                "index": c.index,
                "label": c.label,
                "name": c.name,
                "kind": c.kind,
                "level": c.level,
                "support": round(c.support, 4),
                "values": list(c.values),
                "recordset": c.recordset,
            }

        return {
            "m": self.m,
            "columns": [col(c) for c in self.columns],
            "recordsets": [
                {
                    "set_id": rs.set_id,
                    "ref_gap": rs.ref_gap,
                    "pointers": rs.pointers(),
                    "columns": [col(c) for c in rs.columns],
                }
                for rs in self.recordsets
            ],
        }
