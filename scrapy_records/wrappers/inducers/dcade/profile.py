"""Record profiles: one column layout for all the records of a data region (option
``record_profile``, default on; our addition to Yuliana & Chang 2019, section 3.2.2).

Between two sub-landmarks of a data region lies one record, or the part of it between two
pattern occurrences. The paper aligns each such subsegment on its own, so records get
different column layouts and the record period (RefGap, a leaf gap) breaks as soon as a
record has an optional or differently typed cell. :func:`record_profile` aligns the
subsegments that sit at the same place in the record (same pair of bounding pattern codes)
together, each (page, subsegment) a pseudo-page, so every record gets one layout.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from scrapy_records.wrappers.inducers.dcade.align import center_star
from scrapy_records.wrappers.inducers.dcade.columns import Column, column_codes
from scrapy_records.wrappers.inducers.dcade.encoding import LEVELS, Encoding

#: the codes of the two sub-landmarks around a subsegment: its place in the record
_Kind = tuple[int | None, int | None]
#: a record body: (subsegment, page, leaf indices)
_Body = tuple[int, int, list[int]]
#: (column period, {subsegment: (width, [(column, page, leaf)], kind index)})
RecordProfile = tuple[int, dict[int, tuple[int, list[tuple[int, int, int]], int]]]


class SpanEncoding:
    """Leaf spans of pages as pseudo-pages with the real level codes."""

    def __init__(self, enc: Encoding, spans: list[tuple[int, list[int]]]) -> None:
        self.lv = [[[L[k] for k in ks] for L in enc.lv[r]] for r, ks in spans]
        self.weak_level = enc.weak_level
        self.recurring = enc.recurring


def merge_profile(sub: SpanEncoding, cols: list[Column], max_level: int) -> list[Column]:
    """Disjunctive merging inside a record profile: two columns no pseudo-page fills both
    of, with no cell of theirs in between, merge at the lowest level 1..max_level where all
    their cells share one code (names whose TypeSets differ, one field)."""
    alive = [True] * len(cols)
    rows = [set(c.cells) for c in cols]
    cache: dict[tuple[int, int], set[int]] = {}

    def codes(i: int, L: int) -> set[int]:
        x = cache.get((i, L))
        if x is None:
            x = cache[(i, L)] = column_codes(sub, cols[i], L)
        return x

    for i in range(len(cols)):
        if not alive[i]:
            continue
        between: set[int] = set()
        for j in range(i + 1, len(cols)):
            if not alive[j]:
                continue
            if rows[i] & rows[j] or rows[j] & between:
                between |= rows[j]
                continue
            for L in range(1, max_level + 1):
                if len(codes(i, L) | codes(j, L)) == 1:
                    cols[i].absorb(cols[j])
                    for L2 in range(LEVELS):
                        cache.pop((i, L2), None)
                    rows[i] |= rows[j]
                    alive[j] = False
                    break
            else:
                between |= rows[j]
    return [c for c, a in zip(cols, alive) if a]


def _landmark_code(enc: Encoding, vec: list[int], level: int) -> int | None:
    """The code of a sub-landmark: that of its leaf on the first page that has one."""
    for r in range(enc.m):
        if vec[r] >= 0:
            return enc.lv[r][level][vec[r]]
    return None


def _record_bodies(
    enc: Encoding, LM: list[list[int]], level: int, gap: int
) -> tuple[dict[_Kind, list[_Body]], dict[int, _Kind]] | None:
    """The inner subsegments grouped by kind, and the kind of each subsegment; ``None``
    when a body is longer than two records."""
    kinds: dict[_Kind, list[_Body]] = {}
    kind_of: dict[int, _Kind] = {}
    for c in range(1, len(LM) - 1):
        a, b = LM[c - 1], LM[c]
        key = (_landmark_code(enc, a, level), _landmark_code(enc, b, level))
        kind_of[c] = key
        lst = kinds.setdefault(key, [])
        for r in range(enc.m):
            if a[r] >= 0 and b[r] > a[r] + 1:
                if b[r] - a[r] - 1 > 2 * gap - 2:
                    return None
                lst.append((c, r, list(range(a[r] + 1, b[r]))))
    return kinds, kind_of


def _bodies_repeat(enc: Encoding, kinds: dict[_Kind, list[_Body]], rep_min: int) -> bool:
    """Whether a TECId repeats with constant gaps inside the bodies: then the bodies are
    groups of whole records, and the paper's per-subsegment mining is kept."""
    gaps: dict[int, list[int]] = {}
    most: Counter[int] = Counter()
    L1 = [enc.lv[r][1] for r in range(enc.m)]
    for spans in kinds.values():
        for _c, r, ks in spans:
            last_at: dict[int, int] = {}
            cnt: Counter[int] = Counter()
            for k in ks:
                t = L1[r][k]
                if t in last_at:
                    gaps.setdefault(t, []).append(k - last_at[t])
                last_at[t] = k
                cnt[t] += 1
            for t, n in cnt.items():
                if n > most[t]:
                    most[t] = n
    return any(most[t] >= rep_min and min(g) == max(g) for t, g in gaps.items())


def _landmarks_per_record(codes: list[int | None]) -> int | None:
    """Sub-landmarks per record: the modal distance between two of the same code;
    ``None`` when the codes do not cycle with it (some records lack one)."""
    nxt: dict[int | None, int] = {}
    dist: Counter[int] = Counter()
    for c in range(len(codes) - 1, -1, -1):
        if codes[c] in nxt:
            dist[nxt[codes[c]] - c] += 1
        nxt[codes[c]] = c
    per_rec = min(dist.items(), key=lambda kv: (-kv[1], kv[0]))[0] if dist else 1
    if any(codes[c] != codes[c + per_rec] for c in range(len(codes) - per_rec)):
        return None
    return per_rec


def _align_bodies(
    enc: Encoding,
    opts: dict[str, Any],
    kinds: dict[_Kind, list[_Body]],
    kind_of: dict[int, _Kind],
    cycle: set[_Kind],
) -> RecordProfile:
    """One centre-star alignment per kind; the period sums 1 (the sub-landmark) plus the
    width of each kind in the record's cycle."""
    out: dict[int, tuple[int, list[tuple[int, int, int]], int]] = {}
    period = 0
    for ki, (key, spans) in enumerate(kinds.items()):
        sub = SpanEncoding(enc, [(r, ks) for _c, r, ks in spans])
        seqs = {q: list(range(len(ks))) for q, (_c, _r, ks) in enumerate(spans)}
        prof = merge_profile(
            sub, center_star(sub, seqs, opts, "both"), int(opts["merge_max_level"])
        )
        width = len(prof)
        if key in cycle:
            period += 1 + width
        cells: dict[int, list[tuple[int, int, int]]] = {}
        for j, pc in enumerate(prof):
            for q, idx in pc.cells.items():
                c, r, ks = spans[q]
                for i in idx:
                    cells.setdefault(c, []).append((j, r, ks[i]))
        for c, k in kind_of.items():
            if k == key:
                out[c] = (width, cells.get(c, []), ki)
    return period, out


def record_profile(
    enc: Encoding,
    opts: dict[str, Any],
    rep_min: int,
    LM: list[list[int]],
    level: int,
    gap: int,
) -> RecordProfile | None:
    """One column layout for the record bodies between the sub-landmarks ``LM``.

    ``level`` is the sub-landmarks' code level (0 for RT, 1 for RD), ``gap`` the RefGap.
    Returns ``(column period, {subsegment: (width, [(column, page, leaf)], kind)})``, or
    ``None`` when the bodies are not single records (then the paper's alignment is kept).
    """
    bodies = _record_bodies(enc, LM, level, gap)
    if bodies is None:
        return None
    kinds, kind_of = bodies
    if _bodies_repeat(enc, kinds, rep_min):
        return None
    per_rec = _landmarks_per_record([_landmark_code(enc, vec, level) for vec in LM[:-1]])
    if per_rec is None:
        return None
    cycle = {k for k, _n in Counter(kind_of.values()).most_common(per_rec)}
    return _align_bodies(enc, opts, kinds, kind_of, cycle)
