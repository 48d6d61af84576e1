"""Aligned columns, DCADE's working table (Yuliana & Chang 2019, section 3.2), and what a
column's codes say about it."""

from __future__ import annotations

from typing import Any

from scrapy_records.wrappers.inducers.dcade.encoding import LEVELS, Encoding, LevelCodes


class Column:
    """An aligned column: ``cells`` maps page -> leaf indices (one leaf, or a merged run).

    ``kind``: ``"MT"`` (landmark), ``"LM"`` (sub-landmark), ``"D"`` (aligned data or
    template), ``"B"`` (merged low-density block), ``"L"`` (recordset, :class:`ListColumn`).
    ``c0``, ``c1`` and ``cw`` are the codes of its cells at level 0, level 1 and the weak
    match level, what the alignment scores a leaf against. ``roles``: the record-profile
    columns it holds (one column of a profile is the same field in every record).
    """

    __slots__ = ("cells", "kind", "c0", "c1", "cw", "roles")

    def __init__(self, kind: str = "D") -> None:
        self.cells: dict[int, list[int]] = {}
        self.kind = kind
        self.c0: set[int] = set()
        self.c1: set[int] = set()
        self.cw: set[int] = set()
        self.roles: frozenset[tuple[int, int, int]] = frozenset()

    def add(self, enc: LevelCodes, r: int, k: int) -> None:
        self.cells.setdefault(r, []).append(k)
        lv = enc.lv[r]
        self.c0.add(lv[0][k])
        self.c1.add(lv[1][k])
        if len(lv) > 2:
            self.cw.add(lv[enc.weak_level][k])

    def absorb(self, other: Column) -> None:
        """Take the cells of ``other``, a column of other pages (disjunctive merging)."""
        for r, ks in other.cells.items():
            self.cells[r] = list(ks)
        self.c0 |= other.c0
        self.c1 |= other.c1
        self.cw |= other.cw
        self.roles |= other.roles

    def copy(self) -> Column:
        """A column with the same cells (an alignment variant changes its own copy)."""
        c = Column(self.kind)
        c.cells = {r: list(ks) for r, ks in self.cells.items()}
        c.c0, c.c1, c.cw = set(self.c0), set(self.c1), set(self.cw)
        c.roles = self.roles
        return c

    def mask(self) -> int:
        """The pages with a cell, as a bit mask."""
        m = 0
        for r in self.cells:
            m |= 1 << r
        return m


class ListColumn(Column):
    """A recordset in TableA: ``blocks`` are the record occurrences (``ref_gap`` columns each)."""

    __slots__ = ("blocks", "ref_gap")

    def __init__(self, blocks: list[list[Column | None]], ref_gap: int) -> None:
        super().__init__("L")
        self.blocks = blocks
        self.ref_gap = ref_gap
        for b in blocks:
            for c in b:
                if c is not None:
                    for r in c.cells:
                        self.cells.setdefault(r, [])


def column_codes(enc: LevelCodes, c: Column, level: int) -> set[int]:
    """The codes of the column's leaves at ``level``."""
    lv = enc.lv
    return {lv[r][level][k] for r, ks in c.cells.items() for k in ks}


def column_level(enc: LevelCodes, c: Column) -> int | None:
    """The most specific level at which all the column's leaves share one code."""
    for L in range(LEVELS):
        if len(column_codes(enc, c, L)) == 1:
            return L
    return None


def is_template(enc: Encoding, opts: dict[str, Any], c: Column) -> bool:
    """A column of one content (one CECId) on several pages (``mt_exclude_numeric`` keeps
    numbers and punctuation out of the landmarks only: a "-" cell is still template)."""
    return len(c.cells) >= 2 and len(c.c0) == 1 and c.kind != "B"
