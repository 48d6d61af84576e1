"""STEM's driver: from the tag-path sequence to data record patterns and their records
(Fang et al. 2017, section 4.1, Algorithm 1).

The suffix-tree nodes (:class:`~scrapy_records.extractors.stem.suffix.SuffixIndex`) are
visited in lexicographic pre-order and pass the four filters of
:mod:`scrapy_records.extractors.stem.filters`; each kept node gives a :class:`DRP`, whose
records :mod:`scrapy_records.extractors.stem.records` cuts out of the sequence.

Entry points: :func:`analyze` (a page) and :func:`analyze_sequence` (a tag-path sequence);
both return a :class:`STEMAnalysis` with every intermediate result and take the options of
:mod:`scrapy_records.extractors.stem.options`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scrapy_records.extractors.stem.filters import (
    EPS,
    canonical_rotation,
    case_ok,
    gap_h,
    is_power_of,
    roots_of,
    smallest_period,
)
from scrapy_records.extractors.stem.options import resolve_options
from scrapy_records.extractors.stem.records import DRP, cut_records, dedupe
from scrapy_records.extractors.stem.sequence import TagPathSequence
from scrapy_records.extractors.stem.suffix import SCAN_FIND_MAX, SuffixIndex, greedy_matches
from scrapy_records.page import Page

__all__ = ["NodeDecision", "STEMAnalysis", "analyze", "analyze_sequence"]


@dataclass
class NodeDecision:
    """One visited suffix-tree node and what the filters decided (the paper's node table)."""

    sequence: tuple[int, ...]
    nf: int
    h: int | None = None
    pvr: float | None = None
    outcome: str = ""  # frequency | gap | tree | repetition | kept
    canonical: tuple[int, ...] | None = None


@dataclass
class STEMAnalysis:
    """Everything :func:`analyze` computed, for tests and for the extractor's ``meta``."""

    tps: TagPathSequence
    drps: list[DRP]
    decisions: list[NodeDecision]
    options: dict[str, Any]
    stats: dict[str, int]

    @property
    def wps(self) -> list[int]:
        return self.tps.ids

    def decision(self, seq: Sequence[int]) -> NodeDecision | None:
        t = tuple(seq)
        for d in self.decisions:
            if d.sequence == t:
                return d
        return None


def analyze(page: Page, *, trace: bool = False, **options: Any) -> STEMAnalysis:
    """Run STEM on a :class:`Page` and return every intermediate result (WPS, node decisions,
    DRPs with their records as WPS ranges and root positions)."""
    opts = resolve_options(options)
    tps = TagPathSequence.from_page(page, opts["decorative"])
    return _analyze_sequence(tps, opts, trace)


def analyze_sequence(tps: TagPathSequence, *, trace: bool = False, **options: Any) -> STEMAnalysis:
    """The suffix structure, the filters and record cutting on a tag-path sequence.

    ``trace=True`` computes every gap-filter ``h`` exactly (no early stop) and records a
    :class:`NodeDecision` for every node that reached the gap filter. Without it, a node that
    the tree filter rejects whatever the gap filter says (its canonical rotation is already a
    DRP, is shorter than ``min_length``, or, with ``recheck_pf``, a full rotation with fewer
    than two non-overlapping matches) skips the gap filter: it counts as ``"tree"`` in
    ``stats`` and gets no :class:`NodeDecision`. The DRPs are the same either way."""
    return _analyze_sequence(tps, resolve_options(options), trace)


def _analyze_sequence(tps: TagPathSequence, opts: dict[str, Any], trace: bool) -> STEMAnalysis:
    """:func:`analyze_sequence` with the options already resolved."""
    stats = {"nodes": 0, "frequency": 0, "gap": 0, "tree": 0, "repetition": 0, "kept": 0}
    if len(tps) < 2:
        return STEMAnalysis(tps, [], [], opts, stats)
    index = SuffixIndex(tps.ids, backend=opts["backend"])
    tps.share_string(index.string)  # the same sequence
    search = _PatternSearch(tps, index, opts, trace, stats)
    if opts["rotation_mode"] == "truncate" and not trace:
        search.visit_with_shortcut()
    else:
        search.visit_in_order()
    drps = search.drps
    if opts["repetition_postpass"] and drps:
        drps = _repetition_postpass(drps, search.decisions, stats)
    stats["kept"] = len(drps)
    attach = opts["attach_gaps"]
    for d in drps:
        cut_records(
            d,
            tps,
            search.matches_of(d.pattern),
            float(opts["alpha"]),
            bool(opts["chunk_gaps"]),
            len(d.pattern) >= int(opts["gap_min_length"]),
            float(attach) if attach else 0.0,
        )
    drps = [d for d in drps if d.groups]
    if opts["dedupe_regions"]:
        drps = dedupe(drps, tps)
    return STEMAnalysis(tps, drps, search.decisions, opts, stats)


#: The rotation state of a visited node for :meth:`_PatternSearch.visit_with_shortcut`:
#: interval right bound, depth, smallest identifier ``m``, first position ``r0`` of ``m``,
#: next position ``r1`` of ``m`` (None when ``m`` occurs once), canonical rotation.
_Frame = tuple[int, int, int, int, int | None, tuple[int, ...]]


class _PatternSearch:
    """The suffix-tree nodes of one sequence through the four filters, in pre-order; the
    kept node sequences become :attr:`drps`."""

    def __init__(
        self,
        tps: TagPathSequence,
        index: SuffixIndex,
        opts: dict[str, Any],
        trace: bool,
        stats: dict[str, int],
    ) -> None:
        self.tps, self.index, self.opts, self.trace, self.stats = tps, index, opts, trace, stats
        self.alpha, self.beta = float(opts["alpha"]), float(opts["beta"])
        self.min_len = int(opts["min_length"])
        self.decisions: list[NodeDecision] = []
        self.drps: list[DRP] = []
        self.extracted: set[tuple[int, ...]] = set()
        self.pf_cache: dict[tuple[int, ...], list[int]] = {}

    def matches_of(self, c: tuple[int, ...], interval: tuple[int, int] | None = None) -> list[int]:
        """Lemma 1's non-overlapping matches of ``c`` (cached); ``interval``: the node's own
        SA interval when ``c`` is its sequence (no search)."""
        m = self.pf_cache.get(c)
        if m is None:
            index = self.index
            if interval:
                m = greedy_matches(sorted(index.sa[interval[0] : interval[1] + 1]), len(c))
            else:
                m = index.greedy_find(c)
            self.pf_cache[c] = m
        return m

    def frequent_nodes(self) -> list[tuple[int, int, int]]:
        """Filter 1, frequency: the ``(lb, depth, rb)`` nodes with ``min_length <= depth <=
        L`` (bounds applied by the enumeration, every node counted) and ``nf >=
        min_frequency``."""
        stats, min_freq = self.stats, int(self.opts["min_frequency"])
        frequent, stats["nodes"] = self.index.intervals(
            max(self.min_len, 1), int(self.opts["L"]), min_freq
        )
        stats["frequency"] = stats["nodes"] - len(frequent)
        return frequent

    def visit_in_order(self) -> None:
        """The paper's filter order; without ``trace``, a node whose canonical rotation is
        already a DRP or too short is settled by the tree filter before the gap test."""
        tps, index, mode = self.tps, self.index, self.opts["rotation_mode"]
        extracted, min_len, shortcut = self.extracted, self.min_len, not self.trace
        n_tree = 0
        for lb, depth, rb in self.frequent_nodes():
            c0 = None
            if shortcut:
                c0 = canonical_rotation(index.node_sequence(lb, depth), tps, mode)
                if c0 in extracted or len(c0) < min_len:
                    n_tree += 1
                    continue
            self.judge(lb, depth, rb, c0)
        self.stats["tree"] += n_tree

    def visit_with_shortcut(self) -> None:
        """The tree filter's outcome first wherever it is certain (``truncate`` rotations, no
        ``trace``): the same DRPs as :meth:`visit_in_order`, far fewer gap tests.

        A node's truncated rotation is derived from that of its nearest visited ancestor,
        whose sequence is a prefix of the node's (a :data:`_Frame` per ancestor on the
        stack, above a sentinel for the root: empty sequence, ``m`` above every identifier).
        """
        index, extracted, min_len = self.index, self.extracted, self.min_len
        text, sa = index.text, index.sa
        # the pf pre-check searches the whole sequence once per node: only where that search
        # is a short C-level scan (on a huge page it would make the node loop quadratic)
        precheck = bool(self.opts["recheck_pf"]) and len(text) <= SCAN_FIND_MAX
        pairs = set(zip(text, text[1:])) if precheck else set()  # adjacent identifier pairs
        top: _Frame = (len(sa), 0, len(sa) + max(text, default=0), 0, None, ())
        stack = [top]
        n_tree = 0  # nodes settled by the shortcut
        for lb, depth, rb in self.frequent_nodes():
            while top[0] < lb:
                stack.pop()
                top = stack[-1]
            # the node's sequence s = s_a + t, with s_a the ancestor's
            _, da, m, r0, r1, c0 = top
            p = sa[lb]
            t = text[p + da : p + depth]
            mt = min(t)
            if mt < m:  # a smaller identifier first occurs in t (always below the root)
                m = mt
                r0 = t.index(m)
                try:
                    r1 = da + t.index(m, r0 + 1)
                except ValueError:
                    r1 = None
                r0 += da
                c0 = (
                    text[p + r0 : p + r1]
                    if r1 is not None
                    else text[p + r0 : p + depth] + text[p : p + r0]
                )
            elif r1 is not None:
                pass  # same smallest identifier, same first two occurrences: the same rotation
            elif mt > m:  # m still occurs once: the whole rotation
                c0 = text[p + r0 : p + depth] + text[p : p + r0]
            else:  # the second occurrence of m is in t
                r1 = da + t.index(m)
                c0 = text[p + r0 : p + r1]
            top = (rb, depth, m, r0, r1, c0)
            stack.append(top)
            if (
                len(c0) < min_len
                or (extracted and c0 in extracted)  # (no tuple hash while nothing is kept)
                or (
                    precheck
                    and r1 is None
                    and (
                        # a rotation joining s's last identifier to its first: a pair the
                        # WPS never holds (the first test of _rotation_recurs, inline)
                        (r0 and (text[p + depth - 1], text[p]) not in pairs)
                        or not self._rotation_recurs(p, depth, r0, c0, pairs)
                    )
                )
            ):
                n_tree += 1
                continue
            self.judge(lb, depth, rb, c0)
        self.stats["tree"] += n_tree

    def _rotation_recurs(
        self, p: int, depth: int, r0: int, c0: tuple[int, ...], pairs: set[tuple[int, int]]
    ) -> bool:
        """The pf re-check for a full rotation (the smallest identifier occurs once), settled
        before the gap filter: such a rotation rarely occurs twice in the WPS."""
        text, st = self.index.text, self.index.string
        if r0 and (text[p + depth - 1], text[p]) not in pairs:
            return False  # it joins s's last identifier to its first: a pair the WPS never holds
        mm = self.pf_cache.get(c0)
        if mm is not None:
            return len(mm) >= 2
        if st is None:
            mm = self.pf_cache[c0] = self.index.greedy_find(c0)
            return len(mm) >= 2
        # two of Lemma 1's leftmost non-overlapping matches, the first two of greedy_find's
        # scan (the caller only scans strings this short): no need to find them all
        pat = st[p + r0 : p + depth] + st[p : p + r0]
        i = st.find(pat)
        return i >= 0 and st.find(pat, i + depth) >= 0

    def judge(self, lb: int, depth: int, rb: int, c0: tuple[int, ...] | None) -> None:
        """Filters 2-4 on one node; ``c0``: its canonical rotation when already known."""
        index, tps, opts, stats = self.index, self.tps, self.opts, self.stats
        nf = rb - lb + 1
        s = index.node_sequence(lb, depth)
        # filter 2: gap (section 5.2)
        denom_mode = opts["gap_denominator"]
        if denom_mode == "nf":
            denom = nf
        elif denom_mode == "nf_minus_1":
            denom = max(nf - 1, 1)
        else:
            denom = max(len(greedy_matches(index.occurrences(lb, rb), depth)), 1)
        need = self.beta * denom - EPS
        h = gap_h(index, lb, rb, depth, s, self.alpha, 0.0 if self.trace else need)
        pvr = min(1.0, h / denom)
        dec = NodeDecision(s, nf, h, pvr)
        self.decisions.append(dec)
        if h < need:
            dec.outcome = "gap"
            stats["gap"] += 1
            return
        # filter 3: tree (section 5.3)
        c = c0 if c0 is not None else canonical_rotation(s, tps, opts["rotation_mode"])
        dec.canonical = c
        if (
            len(c) < self.min_len
            or c in self.extracted
            or (opts["recheck_pf"] and len(self.matches_of(c, (lb, rb) if c == s else None)) < 2)
            or (opts["strict_case_check"] and not case_ok(c, tps))
        ):
            dec.outcome = "tree"
            stats["tree"] += 1
            return
        # filter 4: repetition (section 5.4)
        if self._repeats(s, c):
            dec.outcome = "repetition"
            stats["repetition"] += 1
            return
        dec.outcome = "kept"
        self.extracted.add(c)
        self.drps.append(DRP(c, [tps.path(x) for x in c], nf=nf, h=h, pvr=pvr, source=s))

    def _repeats(self, s: tuple[int, ...], c: tuple[int, ...]) -> bool:
        """The repetition filter: a simple repetition of a DRP found so far (unless the
        post-pass does that test), or a root followed by a purely repeated body."""
        if not self.opts["repetition_postpass"] and any(
            is_power_of(d.pattern, s) or is_power_of(d.pattern, c) for d in self.drps
        ):
            return True
        roots = set(roots_of(c, self.tps))
        rest = [x for i, x in enumerate(c) if i not in roots]
        if rest:
            per = smallest_period(rest)
            if per < len(rest) and per >= int(self.opts["nested_min_unit"]):
                return True
        return False


def _repetition_postpass(
    drps: list[DRP], decisions: list[NodeDecision], stats: dict[str, int]
) -> list[DRP]:
    """The simple-repetition test against every DRP, whatever the visiting order: drop a DRP
    whose pattern or source sequence repeats another DRP's pattern."""
    # another DRP's pattern can only be a prefix of the sequence whose length divides it
    # (DRP patterns are distinct)
    patterns = {d.pattern for d in drps}
    lengths = sorted({len(x) for x in patterns})

    def repeats_another(seq: tuple[int, ...], own: tuple[int, ...]) -> bool:
        ls = len(seq)
        for lx in lengths:
            if 2 * lx > ls:
                return False
            if ls % lx == 0:
                x = seq[:lx]
                if x != own and x in patterns and x * (ls // lx) == seq:
                    return True
        return False

    keep = []
    for d in drps:
        if repeats_another(d.pattern, d.pattern) or repeats_another(tuple(d.source), d.pattern):
            stats["repetition"] += 1
            for dec in decisions:
                if dec.canonical == d.pattern and dec.outcome == "kept":
                    dec.outcome = "repetition"
            continue
        keep.append(d)
    return keep
