"""Cutting records out of the tag-path sequence with a DRP (Fang et al. 2017, section 4.1,
Eq. 1-2), and the record-level refinements of the recommended profile.

Entry point: :func:`cut_records` (one DRP). The exact matches of the pattern are records;
a gap between them is a record when its record validation rate reaches ``alpha``. A
candidate range maps to its *record roots* (positions whose parent lies outside it): a
record is the full DOM subtrees of its roots. :func:`attach_gaps` (``attach_gaps``) and
:func:`dedupe` (``dedupe_regions``) are ours, not the paper's.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from rapidfuzz.distance import LCSseq

from scrapy_records.extractors.stem.filters import EPS, roots_of
from scrapy_records.extractors.stem.sequence import TagPathSequence
from scrapy_records.extractors.stem.suffix import as_string

__all__ = ["DRP", "cut_records", "attach_gaps", "dedupe"]

#: A candidate record: WPS range ``[start, stop)`` and its record validation rate.
_Span = tuple[int, int, float]


@dataclass
class DRP:
    """A data record pattern and the records cut with it."""

    pattern: tuple[int, ...]
    paths: list[str]
    nf: int = 0
    h: int = 0
    pvr: float = 0.0
    matches: list[int] = field(default_factory=list)  # WPS start positions of exact matches
    records: list[_Span] = field(default_factory=list)  # (start, end, rvr) WPS ranges
    groups: list[tuple[int, ...]] = field(default_factory=list)  # record roots (WPS positions)
    source: tuple[int, ...] = ()  # the raw node sequence it came from
    attached: int = 0  # gaps attached to the record before them (:func:`attach_gaps`)


def cut_records(
    d: DRP,
    tps: TagPathSequence,
    matches: list[int],
    alpha: float,
    chunk: bool,
    gaps: bool = True,
    attach: float = 0.0,
) -> None:
    """Set ``d.matches``, ``d.records`` and ``d.groups``: exact matches are records; a gap
    (or, with ``chunk``, each piece of a gap starting at the DRP's first identifier, bounded
    by that element's subtree for one-root patterns, or by its parent and ``2 * len(drp)``
    positions otherwise) is a record when ``rvr >= alpha``; ``gaps=False``: matches only.

    ``attach`` (ours): when the matches are one sibling run and at least that share of the
    gaps between consecutive matches hold elements of one common shape, each record runs
    from its match to the next match (:func:`attach_gaps`)."""
    plen = len(d.pattern)
    d.matches = list(matches)
    if not matches:  # no exact match: no records
        return
    joined = attach_gaps(tps, d.pattern, matches, attach) if attach and len(matches) >= 4 else None
    if joined is None:
        spans = [(m, m + plen) for m in matches]
    else:
        attached, last_stop = joined
        d.attached = sum(attached)
        spans = [
            (m, nxt if att else m + plen) for m, nxt, att in zip(matches, matches[1:], attached)
        ]
        spans.append((matches[-1], last_stop))
    cand: list[_Span] = [(a, b, 1.0) for a, b in spans]
    if gaps:
        cand.extend(_gap_records(d.pattern, tps, _gaps_between(spans, len(tps)), alpha, chunk))
    cand.sort()
    d.records, d.groups = _with_roots(cand, tps, chunk)


def _comparable(
    tps: TagPathSequence, pattern: Sequence[int]
) -> tuple[Sequence[int] | str, Sequence[int] | str]:
    """The WPS and ``pattern`` as ``str`` when the WPS has a ``str`` form, else as ids: LCS
    on ``str`` slices gives the same values as on id slices, at C level."""
    string = tps.string
    if string is None:
        return tps.ids, list(pattern)
    pat = as_string(pattern)
    assert pat is not None  # the pattern's identifiers are the sequence's
    return string, pat


def _gaps_between(spans: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The stretches of ``[0, n)`` before, between and after the record spans."""
    out = []
    prev = 0
    for a, b in spans:
        if prev < a:
            out.append((prev, a))
        prev = b
    if prev < n:
        out.append((prev, n))
    return out


def _gap_records(
    pattern: tuple[int, ...],
    tps: TagPathSequence,
    gaps: list[tuple[int, int]],
    alpha: float,
    chunk: bool,
) -> list[_Span]:
    """The gaps (or, with ``chunk``, their pieces) whose LCS with the pattern reaches
    ``alpha * len(pattern)`` (Eq. 2), with their rvr."""
    plen = len(pattern)
    threshold = alpha * plen - EPS
    seq, pat = _comparable(tps, pattern)
    out: list[_Span] = []
    if not chunk:
        for a, b in gaps:
            r = LCSseq.similarity(pat, seq[a:b])
            if r >= threshold:
                out.append((a, b, r / plen))
        return out
    case1 = len(roots_of(pattern, tps)) == 1
    send, ppos = tps.subtree_end, tps.parent_pos
    fp = tps.positions(pattern[0])
    for a, b in gaps:
        starts = fp[bisect_left(fp, a) : bisect_left(fp, b)]
        last = len(starts) - 1
        for j, q in enumerate(starts):
            stop = starts[j + 1] if j < last else b
            if case1:
                stop = min(stop, send[q] + 1)
            else:  # Case 2: stay under the same parent and within two pattern lengths
                par = ppos[q]
                if par >= 0:
                    stop = min(stop, send[par] + 1)
                stop = min(stop, q + 2 * plen)
            r = LCSseq.similarity(pat, seq[q:stop])
            if r >= threshold:
                out.append((q, stop, r / plen))
    return out


def _with_roots(
    cand: list[_Span], tps: TagPathSequence, chunk: bool
) -> tuple[list[_Span], list[tuple[int, ...]]]:
    """The records (sorted candidates) with their root positions; with ``chunk``, a
    candidate nested inside the previous record is dropped (the outer one stays)."""
    send = tps.subtree_end
    records: list[_Span] = []
    groups: list[tuple[int, ...]] = []
    last_end = -1  # last WPS position covered by the previous record's root subtrees
    for a, b, r in cand:
        if a >= b or (chunk and a <= last_end):
            continue
        roots = tps.roots_in(a, b)
        records.append((a, b, r))
        groups.append(tuple(roots))
        last_end = send[roots[-1]]  # roots are disjoint, in document order
    return records, groups


# ------------------------------------------------------------------ systematic gaps (ours)
def attach_gaps(
    tps: TagPathSequence, pattern: Sequence[int], matches: list[int], share: float
) -> tuple[list[bool], int] | None:
    """Which gaps between consecutive exact matches are the rest of the preceding record,
    and where the last record ends; ``None`` when the gaps are not systematic.

    A short DRP often matches only the first part of each record (the title row of a
    result whose price row follows), and Eq. 2 then makes every price row a gap record of
    its own. When at least ``share`` of the gaps between consecutive matches hold elements
    and most of those (60 %) have one shape (the same root identifiers), the gaps of that
    shape belong to the record before them. Other gaps (a record with a missing field,
    several records in one gap, a near copy of the DRP: :func:`_holds_records`) are left to
    Eq. 2. The gap after the last match is attached when it has the common shape; the gap
    before the first match never is (a header). Only for matches that are one sibling run
    and mostly hold text (a DRP that matches empty separator rows leaves the records in its
    gaps)."""
    pp = tps.parent_pos
    parent = pp[matches[0]]
    if any(pp[m] != parent for m in matches):
        return None
    plen = len(pattern)
    if tps.chars and not _mostly_texty(tps.chars, matches, plen):
        return None  # the DRP matches text-less separators: the gaps are the records (Eq. 2)
    shapes = _gap_shapes(tps, pattern, matches)
    common = _common_shape(shapes, share)
    if common is None:
        return None
    return [x == common for x in shapes], _last_record_stop(tps, matches[-1] + plen, parent, common)


def _mostly_texty(chars: list[int], matches: list[int], plen: int) -> bool:
    """At least half of the matches hold text. A match's roots hold text iff any of its
    positions does (a root's subtree holds the others), so a C-level any() over the slice
    decides; the count stops once half the matches hold text."""
    need, texty = 0.5 * len(matches), 0
    for m in matches:
        if any(chars[m : m + plen]):
            texty += 1
            if texty >= need:
                return True
    return texty >= need


def _gap_shapes(
    tps: TagPathSequence, pattern: Sequence[int], matches: list[int]
) -> list[tuple[int, ...] | None]:
    """Per gap between consecutive matches: the identifiers of its roots (``()`` for no gap),
    or ``None`` when it holds records of its own (:func:`_holds_records`)."""
    wps, plen = tps.ids, len(pattern)
    seq, pat = _comparable(tps, pattern)
    firsts = tps.positions(pattern[0])
    shapes: list[tuple[int, ...] | None] = []
    for k, m in enumerate(matches[:-1]):
        a, b = m + plen, matches[k + 1]
        if a >= b:
            shapes.append(())  # nothing between two matches
        elif _holds_records(seq, pat, firsts, a, b):
            shapes.append(None)  # records of their own: Eq. 2, not counted either way
        else:
            shapes.append(tuple(wps[x] for x in tps.roots_in(a, b)))
    return shapes


def _holds_records(
    seq: Sequence[int] | str, pat: Sequence[int] | str, firsts: list[int], a: int, b: int
) -> bool:
    """The gap ``[a, b)``, or one of several pieces of it starting at the DRP's first
    identifier, is a near copy of the DRP (LCS at least 80 % of the longer): records of
    their own (product cards with an extra badge), not the rest of the record before."""
    if LCSseq.normalized_similarity(pat, seq[a:b]) >= 0.8:
        return True
    starts = firsts[bisect_left(firsts, a) : bisect_left(firsts, b)]
    if len(starts) < 2:
        return False  # one piece: the whole-gap test above decides
    for j, q in enumerate(starts):
        stop = starts[j + 1] if j + 1 < len(starts) else b
        if LCSseq.normalized_similarity(pat, seq[q:stop]) >= 0.8:
            return True
    return False


def _common_shape(shapes: list[tuple[int, ...] | None], share: float) -> tuple[int, ...] | None:
    """The shape most filled gaps share, if the gaps are systematic (see :func:`attach_gaps`)."""
    filled = [x for x in shapes if x]
    counted = sum(1 for x in shapes if x is not None)
    if len(filled) < max(2, share * counted):
        return None
    common = max(set(filled), key=filled.count)
    if filled.count(common) < 0.6 * len(filled):
        return None
    return common


def _last_record_stop(tps: TagPathSequence, stop: int, parent: int, common: tuple[int, ...]) -> int:
    """End of the last record: after the siblings following the last match when they have
    the common shape, else ``stop`` (the end of the match)."""
    wps, pp, send = tps.ids, tps.parent_pos, tps.subtree_end
    q = stop
    after: list[int] = []
    limit = send[parent] + 1 if parent >= 0 else len(wps)
    while q < limit and len(after) < len(common):
        if pp[q] == parent:
            after.append(q)
            q = send[q] + 1
        else:
            q += 1
    if tuple(wps[x] for x in after) == common:
        stop = send[after[-1]] + 1
    return stop


# ------------------------------------------------------------------ redundant DRPs
def dedupe(drps: list[DRP], tps: TagPathSequence) -> list[DRP]:
    """Drop DRPs with fewer than 2 records, and a DRP B when every record root of B lies
    inside a record of another DRP A with at least as many records *and B's records carry
    nearly (>= 90 %) the same text*: a redundant sub-pattern such as ``(h3,a,p)`` inside
    ``(div,h3,a,p)`` (for equal record sets: keep more exact matches, then the longer
    pattern). The text condition is ours: containment alone dropped finer, correct
    segmentations."""
    drps = [d for d in drps if len(d.groups) >= 2]
    ends = tps.subtree_end

    def intervals(d: DRP) -> tuple[list[int], list[int]]:
        iv = sorted((x, ends[x]) for g in d.groups for x in g)
        return [a for a, _ in iv], [b for _, b in iv]

    ivs = [intervals(d) for d in drps]

    def inside(b: int, a: int) -> bool:
        st, en = ivs[a]
        for g in drps[b].groups:
            for x in g:
                k = bisect_right(st, x) - 1
                if k < 0 or en[k] < x:
                    return False
        return True

    chars = tps.chars

    def text_of(d: DRP) -> int:
        return sum(chars[x] for g in d.groups for x in g) if chars else 0

    texts = [text_of(d) for d in drps]

    def rank(i: int) -> tuple[int, int, int]:
        d = drps[i]
        return (len(d.groups), len(d.matches), len(d.pattern))

    out = []
    for b in range(len(drps)):
        dropped = False
        for a in range(len(drps)):
            if a == b or len(drps[a].groups) < len(drps[b].groups) or not inside(b, a):
                continue
            if texts[b] < 0.9 * texts[a]:
                continue  # B's records are a finer, other segmentation: the ranking decides
            if inside(a, b):  # same record set
                if rank(a) > rank(b) or (rank(a) == rank(b) and a < b):
                    dropped = True
                    break
            else:
                dropped = True
                break
        if not dropped:
            out.append(drps[b])
    return out
