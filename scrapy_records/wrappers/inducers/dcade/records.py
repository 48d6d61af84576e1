"""Record boundaries in the data regions of an aligned segment, and their replacement by
recordset columns (Yuliana & Chang 2019, section 3.2.3, eq. 8-9).

Entry points: :func:`detect_records` on the working columns, :func:`rec_detection` (eq.
8-9 on a list of codes, as in the paper's Example 8). Options: ``record_match_levels``
((1, 2, 4, 5)), ``record_min_score`` (0.5), ``record_tiebreak`` (on: among equally scored
record starts prefer records that fill one element), ``record_resync`` (on: skip extra
columns to the next block that starts like the first record), ``record_leftovers``
("fields": the extra columns that fold into no field become fields of their own; "drop").
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from scrapy_records.wrappers.inducers.dcade.columns import (
    Column,
    ListColumn,
    column_codes,
    column_level,
    is_template,
)
from scrapy_records.wrappers.inducers.dcade.encoding import Encoding
from scrapy_records.wrappers.inducers.dcade.rearrange import fills_one_element

#: levels at which a stray column may join a record's field
_FOLD_LEVELS = (1, 2, 4, 5, 6)


class DataRegion(NamedTuple):
    """A (sub)segment split on repeat patterns: its pattern type, its column period and its
    first and last sub-landmark columns (tracked by identity)."""

    ptype: str
    period: int
    first: Column
    last: Column
    right: list[int]


def rec_detection(
    codes: list[Any], ref_gap: int, p1: int, pK: int, pK1: int
) -> tuple[int, int, int, list[int]]:
    """Eq. 8-9 on a list of column codes (1-based positions, as in Example 8).

    Returns ``(SDR, EDR, SR1, record starts)``; ``match`` is code equality.
    """
    G = ref_gap
    sdr = max(p1 - G + 1, 1)
    edr = min(pK + G - 1, pK1 - 1)
    sr1, best = sdr, -1.0
    for s in range(sdr, edr - 2 * G + 1):
        score = sum(codes[s - 1 + i] == codes[s - 1 + G + i] for i in range(G)) / G
        if score > best:
            sr1, best = s, score
        if score == 1:
            break
    starts = list(range(sr1, edr - G + 2, G))
    return sdr, edr, sr1, starts


def detect_records(
    enc: Encoding,
    opts: dict[str, Any],
    rep_min: int,
    seg: list[Column],
    regions: list[DataRegion],
    by_fields: bool = False,
) -> tuple[list[Column], list[Column], bool]:
    """The segment with the records of each data region replaced by one
    :class:`ListColumn` (``seg`` is changed in place too; empty columns are dropped), the
    extra columns that no field of their record could take (their text is lost), and
    whether some region's records were found by their record-profile fields
    (``by_fields``: allowed when eq. 9 finds no record near SDR by codes)."""
    detector = _RecordDetector(enc, opts, rep_min, seg)
    for region in regions:
        detector.region(region, by_fields)
    kept = [c for c in seg if c.cells or isinstance(c, ListColumn)]
    return kept, detector.dropped, detector.used_roles


def _region_bounds(seg: list[Column], region: DataRegion) -> tuple[int, int] | None:
    """``(SDR, EDR)`` of eq. 8 (1-based columns), ``None`` when the region's landmarks
    are gone or it overlaps a recordset already split out."""
    G = region.period
    pos = {id(c): i for i, c in enumerate(seg)}
    if id(region.first) not in pos or id(region.last) not in pos or G < 1:
        return None
    p1, pK = pos[id(region.first)] + 1, pos[id(region.last)] + 1
    pK1 = len(seg) + 1
    for i in range(pK, len(seg)):
        if seg[i].kind in ("MT", "L"):
            pK1 = i + 1
            break
    sdr = max(p1 - G + 1, 1)
    edr = min(pK + G - 1, pK1 - 1)
    if any(seg[i - 1].kind == "L" for i in range(sdr, edr + 1)):
        return None
    return sdr, edr


def _enough_records(blocks: list[list[Column | None]], rep_min: int) -> bool:
    """Some page has at least ``rep_min`` records (else the "set" is two look-alikes)."""
    per_page: Counter[int] = Counter()
    for blk in blocks:
        for r in {r for x in blk if x is not None for r in x.cells}:
            per_page[r] += 1
    return max(per_page.values(), default=0) >= rep_min


def _list_column(blocks: list[list[Column | None]], G: int) -> ListColumn:
    """The recordset column, without the fields no record fills (record-profile columns)."""
    keep = [f for f in range(G) if any((x := b[f]) is not None and x.cells for b in blocks)]
    if len(keep) < G:
        blocks = [[b[f] for f in keep] for b in blocks]
    return ListColumn(blocks, len(keep))


def _leftover_fields(
    enc: Encoding,
    blocks: list[list[Column | None]],
    G: int,
    leftovers: list[tuple[list[Column | None], Column]],
) -> int:
    """Give the extra columns that no field took fields of their own after the G fields,
    one per code (the n-th extra column of one code in a record takes the n-th such field),
    so that every leaf stays in some column (section 3.2.3). Returns the new width."""
    fields: dict[tuple[frozenset[int], int], int] = {}
    seen: dict[tuple[int, frozenset[int]], int] = {}
    placed: list[tuple[list[Column | None], int, Column]] = []
    for blk, x in leftovers:
        code = frozenset(column_codes(enc, x, 1))
        n = seen[id(blk), code] = seen.get((id(blk), code), -1) + 1
        f = fields.setdefault((code, n), G + len(fields))
        placed.append((blk, f, x))
    width = G + len(fields)
    for blk in blocks:
        blk.extend([None] * (width - len(blk)))
    for blk, f, x in placed:
        blk[f] = x
    return width


class _RecordDetector:
    def __init__(
        self, enc: Encoding, opts: dict[str, Any], rep_min: int, seg: list[Column]
    ) -> None:
        self.enc = enc
        self.o = opts
        self.rep_min = rep_min
        self.seg = seg
        self.dropped: list[Column] = []
        # (block, column) of the extra columns no field took, in the current region
        self.leftovers: list[tuple[list[Column | None], Column]] = []
        self.use_roles = False
        self.used_roles = False

    def region(self, region: DataRegion, by_fields: bool = False) -> None:
        """Split the records of one data region out of the segment, if it has a set."""
        bounds = _region_bounds(self.seg, region)
        if bounds is None:
            return
        sdr, edr = bounds
        G = region.period
        self.use_roles = False
        sr1 = self.first_record(sdr, edr, G)
        if by_fields and (sr1 is None or sr1 >= sdr + 2 * G):
            sr1 = self.first_record_by_fields(sdr, edr, G, sr1)
        if sr1 is None:
            return
        self.leftovers = []
        blocks, end = self.records(sr1, G, edr)
        start = sr1
        if self.o["record_resync"]:
            before, start = self.records_before(sr1, G, sdr, blocks[0])
            blocks = before + blocks
        if (
            len(blocks) < 2
            or not _enough_records(blocks, self.rep_min)
            or (G == 1 and not self.one_path(blocks))
        ):
            return  # no recordset: the extra columns stay in the segment
        if self.o["record_leftovers"] == "fields":
            G = _leftover_fields(self.enc, blocks, G, self.leftovers)
        else:
            self.dropped += [x for _b, x in self.leftovers]
        self.seg[start - 1 : end] = [_list_column(blocks, G)]
        self.used_roles |= self.use_roles

    def first_record_by_fields(self, sdr: int, edr: int, G: int, sr1: int | None) -> int | None:
        """Eq. 9 again when it found no record near SDR by codes, where the columns of one
        record-profile column match whatever their codes (descriptions of mixed token
        types are one field): ``sr1`` when that finds none either."""
        if not any(c.roles for c in self.seg[sdr - 1 : edr]):
            return sr1
        self.use_roles = True
        by_fields = self.first_record(sdr, edr, G)
        if by_fields is None:
            self.use_roles = False
            return sr1
        return by_fields

    def records_before(
        self, sr1: int, G: int, sdr: int, schema: list[Column | None]
    ) -> tuple[list[list[Column | None]], int]:
        """The records before ``sr1`` whose extra columns (an optional cell, a text in
        pieces) broke the period, so that eq. 9 started at a later record: from ``sr1``
        back, the run of G to 2G-1 columns that starts like the first record and holds at
        least half of its fields in order; the extra columns are folded into it
        (``record_resync`` backwards). A wider first record may start up to G-1 columns
        before SDR, never across a landmark or a recordset. Returns the blocks and the
        1-based column where the first of them starts."""
        out: list[list[Column | None]] = []
        s = sr1
        while True:
            for d in range(G):
                b = s - G - d
                if b < max(1, sdr - G + 1):
                    return out, s
                cols = self.seg[b - 1 : s - 1]
                if any(c.kind in ("MT", "L") for c in cols):
                    return out, s
                if not self.match(cols[0], schema[0]):
                    continue
                blk, extras = self.align_block(cols, schema)
                if 2 * sum(1 for x in blk if x is not None) >= G and self.own_element(cols, schema):
                    self.fold(blk, extras)
                    out.insert(0, blk)
                    s = b
                    break
            else:
                return out, s

    def own_element(self, cols: list[Column], schema: list[Column | None]) -> bool:
        """A record read with extra columns fills an element of its own (a row) when the
        first record does: else the chain of matches paired columns of other records."""
        first = [c for c in schema if c is not None]
        if not fills_one_element(self.enc, self.o, first, strict_run=False):
            return True
        return fills_one_element(self.enc, self.o, cols, strict_run=False)

    def align_block(
        self, cols: list[Column], schema: list[Column | None]
    ) -> tuple[list[Column | None], list[Column]]:
        """``cols`` on the record's fields: the longest in-order chain of matches puts each
        matched column at its field; between two matches, the first column left takes the
        first field left (a title whose token types differ from the first record's); the
        other columns are returned to be folded."""
        n, G = len(cols), len(schema)
        ok = [[self.match(cols[i], schema[j]) for j in range(G)] for i in range(n)]
        dp = [[0] * (G + 1) for _ in range(n + 1)]
        for i in range(n - 1, -1, -1):
            for j in range(G - 1, -1, -1):
                dp[i][j] = dp[i + 1][j + 1] + 1 if ok[i][j] else max(dp[i + 1][j], dp[i][j + 1])
        pairs = [(-1, -1)]
        i = j = 0
        while i < n and j < G:
            if ok[i][j] and dp[i][j] == dp[i + 1][j + 1] + 1:
                pairs.append((i, j))
                i, j = i + 1, j + 1
            elif dp[i + 1][j] >= dp[i][j + 1]:
                i += 1
            else:
                j += 1
        pairs.append((n, G))
        blk: list[Column | None] = [None] * G
        extras: list[Column] = []
        for (i1, j1), (i2, j2) in zip(pairs, pairs[1:]):
            if i2 < n:
                blk[j2] = cols[i2]
            gap_cols = cols[i1 + 1 : i2]
            if gap_cols and j2 - j1 > 1:
                blk[j1 + 1] = gap_cols[0]
                gap_cols = gap_cols[1:]
            extras += gap_cols
        return blk, extras

    def one_path(self, blocks: list[list[Column | None]]) -> bool:
        """Records of one leaf are items of one list only if, on every page, they share one
        tag path: a label in ``td/font`` and its value in ``td/b`` may share a TECId
        ("Country/Region", "USA/Detroit") but are a label/value row, not two items."""
        paths: dict[int, set[int]] = {}
        for blk in blocks:
            c = blk[0]
            if c is None:
                continue
            for r, ks in c.cells.items():
                paths.setdefault(r, set()).update(self.enc.leaves[r].path[k] for k in ks)
        return all(len(v) == 1 for v in paths.values())

    def first_record(self, sdr: int, edr: int, G: int) -> int | None:
        """SR1 of eq. 9: the start whose record best matches the next one, if good enough.

        The second record may be cut by EDR (the last record of a list often lacks its
        trailing separator). With ``record_tiebreak`` the starts within one period of the
        first perfect score compete, and the one whose records fill their own element wins.
        """
        seg, tiebreak = self.seg, self.o["record_tiebreak"]
        sr1, best = None, -1.0
        scores: list[tuple[int, float]] = []
        first_one = None
        for s in range(sdr, edr - G + 1):
            if first_one is not None and (s >= first_one + G or not tiebreak):
                break
            pairs = (
                self.match(seg[s - 1 + i], seg[s - 1 + G + i])
                for i in range(G)
                if s - 1 + G + i < edr
            )
            score = sum(pairs) / G
            scores.append((s, score))
            if score > best:
                sr1, best = s, score
            if score == 1 and first_one is None:
                first_one = s
        if tiebreak and sr1 is not None:
            ties = [x for x, sc in scores if sc >= best - 1e-9]
            if len(ties) > 1:
                sr1 = max(ties, key=lambda x: (self.contained_blocks(x, G, edr), -x))
        if sr1 is None or best < self.o["record_min_score"]:
            return None
        return sr1

    def records(self, sr1: int, G: int, edr: int) -> tuple[list[list[Column | None]], int]:
        """The record blocks from ``sr1`` on, and the 1-based index of the last column taken.

        With ``record_resync``, a break in the period (an extra column: an optional field, a
        value in a column of its own) skips up to G-1 columns to the next block that starts
        like the first record, folding the skipped ones into the previous record's fields.
        """
        seg = self.seg
        schema: list[Column | None] = list(seg[sr1 - 1 : sr1 - 1 + G])
        blocks: list[list[Column | None]] = [schema]
        s = sr1 + G
        while s <= edr:
            blk = self.block_at(s, schema, G, edr)
            if blk is None and self.o["record_resync"]:
                for d in range(1, G):
                    if s + d > edr:
                        break
                    cand = self.block_at(s + d, schema, G, edr)
                    # skipping columns to a record cut short by EDR would fold away
                    # columns that are no record's: the record must hold half its fields
                    if (
                        cand is not None
                        and self.match(cand[0], schema[0])
                        and 2 * sum(1 for x in cand if x is not None) >= G
                    ):
                        self.fold(blocks[-1], seg[s - 1 : s - 1 + d])
                        s += d
                        blk = cand
                        break
            if blk is None and self.o["record_resync"]:
                blk, s = self.wide_record(s, schema, G, edr)
                if blk is not None:
                    blocks.append(blk)
                    continue
            if blk is None:
                break
            blocks.append(blk)
            s += G
        return blocks, s - 1

    def wide_record(
        self, s: int, schema: list[Column | None], G: int, edr: int
    ) -> tuple[list[Column | None] | None, int]:
        """A record at ``s`` with up to G-1 extra columns inside (a text in pieces): it
        starts like the first record, half its fields match in order, and the next record
        starts right after it; the last one may reach up to G-1 columns past EDR (eq. 8
        bounds the region by the period), never across a landmark or a recordset, and
        takes the width that matches most fields."""
        seg = self.seg
        if not self.match(seg[s - 1], schema[0]):
            return None, s
        best: tuple[int, list[Column | None], list[Column], int] | None = None
        for d in range(1, G):
            e = s + G + d  # the next record's start
            if e - 1 > len(seg) or any(c.kind in ("MT", "L") for c in seg[s - 1 : e - 1]):
                break
            if e <= edr and not self.match(seg[e - 1], schema[0]):
                continue
            blk, extras = self.align_block(seg[s - 1 : e - 1], schema)
            k = sum(1 for x in blk if x is not None)
            if 2 * k < G or not self.own_element(seg[s - 1 : e - 1], schema):
                continue
            if e <= edr:
                best = (k, blk, extras, e)
                break
            if best is None or k > best[0]:
                best = (k, blk, extras, e)
        if best is None:
            return None, s
        _k, blk, extras, e = best
        self.fold(blk, extras)
        return blk, e

    def block_at(
        self, s: int, schema: list[Column | None], G: int, edr: int
    ) -> list[Column | None] | None:
        """The record starting at column ``s``, if at least half its columns match."""
        blk = [self.seg[s - 1 + i] if s - 1 + i < edr else None for i in range(G)]
        hits = sum(self.match(x, y) for x, y in zip(blk, schema) if x is not None)
        present = sum(1 for x in blk if x is not None)
        return None if (hits == 0 or hits * 2 < present) else blk

    def match(self, a: Column | None, b: Column | None) -> bool:
        """Eq. 9's ``match``: the same template, or one code at the coarser level of the two."""
        if a is None or b is None:
            return False
        if not a.cells or not b.cells:
            return True  # a record-profile column empty in this block: no evidence either way
        if self.use_roles and a.roles & b.roles:
            return True  # one column of a record profile: one field by construction
        enc = self.enc
        ta, tb = is_template(enc, self.o, a), is_template(enc, self.o, b)
        if ta or tb:
            return ta and tb and a.c0 == b.c0
        la, lb = column_level(enc, a), column_level(enc, b)
        lo = max(la or 1, lb or 1, 1)
        for L in self.o["record_match_levels"]:
            if L >= lo and len(column_codes(enc, a, L) | column_codes(enc, b, L)) == 1:
                return True
        return False

    def fold(self, block: list[Column | None], extras: list[Column]) -> None:
        """Move the cells of ``extras`` into disjoint fields of ``block`` (same code first);
        the columns no field takes are kept in :attr:`leftovers`."""
        enc = self.enc
        for x in extras:
            xm = x.mask()
            for f in block:
                if f is None or f.kind not in ("D", "LM") or f.mask() & xm:
                    continue
                if any(
                    len(column_codes(enc, f, L) | column_codes(enc, x, L)) == 1
                    for L in _FOLD_LEVELS
                ):
                    f.absorb(x)
                    break
            else:
                self.leftovers.append((block, x))

    def contained_blocks(self, sr1: int, G: int, edr: int, limit: int = 3) -> int:
        """How many of the first ``limit`` records from ``sr1`` fill an element of their own."""
        n = 0
        for b in range(limit):
            start = sr1 - 1 + b * G
            if start + G > edr:
                break
            if fills_one_element(self.enc, self.o, self.seg[start : start + G], strict_run=False):
                n += 1
        return n
