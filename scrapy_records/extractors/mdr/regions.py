"""Generalized nodes and data regions (Liu et al. 2003, sections 3.2.1 and 3.2.3).

Under every node deep enough, CombComp compares adjacent combinations of 1..K children
(generalized nodes) by the normalized edit distance of their tag strings; IdentDRs picks
the runs of similar combinations as data regions (smallest generalized nodes covering the
most children, with the interval recursion on both sides of each chosen region); FindDRs
keeps the regions no region of an ancestor covers. Everything is iterative (no recursion
over the DOM).

Ours, with a switch each (off in ``mode="paper"``): ``harmonic_guard`` and ``all_runs`` in
IdentDRs (:meth:`RegionMiner.ident_drs`, :func:`guarded_best`), ``bridge``
(:meth:`RegionMiner.bridge_regions`).

Entry point: :class:`RegionMiner` (its record step is
:class:`~scrapy_records.extractors.mdr.records.RecordMiner`).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from itertools import accumulate, compress
from typing import Any

from rapidfuzz.distance import Levenshtein

from scrapy_records.extractors.mdr.distance import EPS, INF
from scrapy_records.page import Page

__all__ = ["DataRegion", "RegionMiner", "TABLE_FORM_TAGS", "comb_comp_pairs", "guarded_best"]

#: "table and form related tags, i.e., table, form, tr, td, etc." (the paper's scope).
TABLE_FORM_TAGS = frozenset(
    {
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "td",
        "th",
        "caption",
        "colgroup",
        "col",
        "form",
        "fieldset",
        "legend",
        "label",
        "input",
        "select",
        "option",
        "optgroup",
        "textarea",
        "button",
    }
)


def comb_comp_pairs(n: int, K: int) -> list[tuple[int, int]]:
    """The comparisons of CombComp (Fig. 6, its loop bound repaired), in the paper's order.

    Returns ``(g, a)`` pairs meaning: compare the ``g``-combination starting at child ``a``
    with the one starting at child ``a + g`` (0-based). For ``n = 10, K = 3`` these are the
    21 comparisons of the paper's worked example.
    """
    out: list[tuple[int, int]] = []
    for s in range(K):  # paper i = s + 1: start node
        for g in range(s + 1, K + 1):  # paper j >= i: combination length
            if s + 2 * g > n:  # paper line 3
                continue
            a = s
            while a + 2 * g <= n:  # paper line 6 (k + j - 1 <= n)
                out.append((g, a))
                a += g
    return out


@dataclass
class DataRegion:
    """A data region triple [g, start, covered] under ``parent`` (0-based start), with its
    records once found (``groups``: root nodes per record) and how they were found."""

    parent: int
    g: int
    start: int
    covered: int
    score: float = 0.0
    groups: list[tuple[int, ...]] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    recovered: list[int] = field(default_factory=list)
    nested: list[dict[str, Any]] = field(default_factory=list)
    kind: str = "gnode"
    resplit_from: int = 0


class RegionMiner:
    """The data regions of one page (holds the per-page arrays and distance tables); the
    options are those of :data:`~scrapy_records.extractors.mdr.extractor.DEFAULTS`."""

    def __init__(
        self,
        page: Page,
        K: int = 10,
        T: float = 0.3,
        min_depth: int = 3,
        recover_left: bool = True,
        harmonic_guard: bool = True,
        all_runs: bool = True,
        split_guard: bool = True,
        vacuous_split: bool = False,
        resplit: bool = True,
        resplit_outliers: float = 0.25,
        bridge: bool = True,
        table_tags_only: bool = False,
        max_tokens: int | None = None,
    ) -> None:
        self.page = page
        self.tid = page.tag_id
        #: the tag ids as a ``str`` (one character per node): tag strings are ``str``
        #: slices, compared and edit-distanced by rapidfuzz's string fast path (the same
        #: distances as on the int lists, without converting a list per comparison)
        self.tstr = page.tag_chars
        self.end = page.end
        self.children = page.children
        self.K = K
        self.T = T
        self.min_depth = min_depth
        self.recover_left = recover_left
        self.harmonic_guard = harmonic_guard
        self.all_runs = all_runs
        self.split_guard = split_guard
        self.vacuous_split = vacuous_split
        self.resplit = resplit
        self.resplit_outliers = resplit_outliers
        self.bridge = bridge
        self.table_tags_only = table_tags_only
        self.max_tokens = max_tokens
        self.height: list[int] = []
        self.dist: dict[int, list[list[float]]] = {}  # parent -> dist[g][a]
        self.n_calls = 0

    # ------------------------------------------------------------ distances
    def nd_range(self, a0: int, a1: int, b0: int, b1: int, T: float | None = None) -> float:
        """ND of token ranges ``[a0, a1)`` and ``[b0, b1)`` (``inf`` when > T)."""
        la = a1 - a0
        lb = b1 - b0
        L = la + lb
        if L == 0:
            return 0.0
        if T is None:
            T = self.T
        diff = la - lb if la > lb else lb - la
        if 2 * diff > T * L + EPS:
            return INF
        if self.max_tokens is not None and L > 2 * self.max_tokens:
            return INF  # optional budget, off by default
        tstr = self.tstr
        x = tstr[a0:a1]
        y = tstr[b0:b1]
        if x == y:
            return 0.0
        cut = int(T * L / 2 + EPS)
        self.n_calls += 1
        d = Levenshtein.distance(x, y, score_cutoff=cut)
        if d > cut:
            return INF
        return 2.0 * d / L

    def nd_nodes(self, x: int, y: int) -> float:
        """ND of the tag strings of nodes ``x`` and ``y`` (``inf`` when > T)."""
        end = self.end
        return self.nd_range(x, end[x] + 1, y, end[y] + 1)

    # ---------------------------------------------------------- tree depth
    def compute_height(self) -> None:
        """TreeDepth of every node (leaf = 1), one reverse pre-order pass."""
        parent = self.page.parent
        n = len(parent)
        h = [1] * n
        for i in range(n - 1, 0, -1):
            p = parent[i]
            if p >= 0 and h[i] >= h[p]:
                h[p] = h[i] + 1
        self.height = h

    # ------------------------------------------------------------ CombComp
    def comb_comp(self, v: int) -> list[list[float]]:
        """All ``Distance(v, g, a)`` of CombComp: ``dist[g][a]`` (``dist[0]`` unused).

        Equivalent to the paper's enumeration (every (g, a) with ``a + 2g <= n`` is reached
        from the start offset ``a mod g``), computed phase-free for speed.
        """
        ch = self.children[v]
        n = len(ch)
        end = self.end
        starts = ch
        stops = [end[c] + 1 for c in ch]
        lim = self.T
        # :meth:`nd_range` inlined (the same tests and the same arithmetic): this is the
        # loop of MDR's edit distances
        tstr, distance = self.tstr, Levenshtein.distance
        max_l = INF if self.max_tokens is None else 2 * self.max_tokens
        calls = 0
        dist: list[list[float]] = [[]]
        for g in range(1, min(self.K, n // 2) + 1):
            row = [INF] * (n - 2 * g + 1)
            for a in range(0, n - 2 * g + 1):
                b = a + g
                x0 = starts[a]
                x1 = stops[b - 1]
                y0 = starts[b]
                y1 = stops[b + g - 1]
                la = x1 - x0
                lb = y1 - y0
                L = la + lb  # (> 0: a child's sub-tree holds one node at least)
                # the exact length bound first: most pairs stop here
                if 2 * (la - lb if la > lb else lb - la) > lim * L + EPS or L > max_l:
                    continue
                x = tstr[x0:x1]
                y = tstr[y0:y1]
                if x == y:
                    row[a] = 0.0
                    continue
                cut = int(lim * L / 2 + EPS)
                calls += 1
                d = distance(x, y, score_cutoff=cut)
                if d <= cut:
                    row[a] = 2.0 * d / L
            dist.append(row)
            if g == 1 and max(row) <= lim + EPS:
                # every adjacent pair is similar: the g = 1 run covers all n children and
                # no longer combination can cover more (IdentDRs line 13), so CombComp
                # for g >= 2 cannot change the result (exact shortcut)
                break
        self.n_calls += calls
        return dist

    # ------------------------------------------------------------ IdentDRs
    def ident_drs(self, v: int, dist: list[list[float]], n: int) -> list[DataRegion]:
        """IdentDRs (Fig. 9 repaired): the regions among ``v``'s ``n`` children.

        Recommended: interval recursion on both sides of each chosen region;
        paper-literal (``recover_left=False``): only to the right. Iterative. With
        ``all_runs`` every run of similar combinations from an offset is a candidate (the
        paper's first-run rule lets a run of three ``<br>`` hide the records right after
        it); with ``harmonic_guard`` a longer generalized node that overlaps the best run
        replaces it only if it covers at least one more whole generalized node (a g = 8
        combination that swallows a list's heading and trailer must not win).
        """
        T = self.T + EPS
        Kmax = len(dist) - 1
        guard = self.harmonic_guard
        all_runs = self.all_runs
        live = [False] + [min(row) <= T for row in dist[1:]]
        out: list[DataRegion] = []
        if not any(live):
            return out
        stack = [(0, n)]
        while stack:
            lo, hi = stack.pop()
            best: tuple[int, int, int] | None = None
            runs: list[tuple[int, int, int]] = []  # every run (g, start, cov), in scan order
            for g in range(1, Kmax + 1):
                if lo + 2 * g > hi:
                    break
                if not live[g]:
                    continue  # no similar pair of g-combinations at all under v
                row = dist[g]
                for f in range(lo, min(lo + g, hi)):
                    cur_start = -1
                    cur_cov = 0
                    a = f
                    while True:
                        more = a + 2 * g <= hi
                        if more and row[a] <= T:
                            if cur_start < 0:
                                cur_start = a
                                cur_cov = 2 * g
                            else:
                                cur_cov += g
                        elif cur_start >= 0:
                            # a run ended: the line-13 test (paper: only the FIRST run
                            # from offset f, Fig. 9 line 11; all_runs: every run)
                            runs.append((g, cur_start, cur_cov))
                            if best is None:
                                best = (g, cur_start, cur_cov)
                            elif cur_cov > best[2] and (all_runs or cur_start <= best[1]):
                                if not (
                                    guard
                                    and g > best[0]
                                    and cur_cov < best[2] + g
                                    and cur_start < best[1] + best[2]
                                    and best[1] < cur_start + cur_cov
                                ):
                                    best = (g, cur_start, cur_cov)
                            if not all_runs or not more:
                                break
                            cur_start = -1
                        if not more:
                            break
                        a += g
            if best is None:
                continue
            if guard and all_runs and len(runs) > 1:
                best = guarded_best(runs)
            g, st, cov = best
            vals = [dist[g][a] for a in range(st, st + cov - g, g)]
            out.append(DataRegion(v, g, st, cov, score=sum(vals) / len(vals)))
            if st + cov < hi:
                stack.append((st + cov, hi))
            if self.recover_left and st > lo:
                stack.append((lo, st))
        out.sort(key=lambda r: r.start)
        if self.bridge and len(out) > 1:
            out = self.bridge_regions(v, out)
        return out

    def bridge_regions(self, v: int, regions: list[DataRegion]) -> list[DataRegion]:
        """``bridge`` (ours): join consecutive regions of ``v`` with the same g when at
        most one generalized node lies between them and every child from the first to the
        last has the tag of the same position in a g-period (one ``<li>`` list, ten
        ``<blockquote>`` results), the two regions' facing generalized nodes are within
        ND <= 2T (the same kind of record), what lies between carries text (an ad
        frame between two halves of a list stays out), and one side is a list
        of at least 3 generalized nodes (two pairs of footer link columns do not make one).
        One odd record (a result with another inner structure,
        an ad built as a result) is more than T from both neighbours, which cut the list
        into two regions, and the ranking then reports half of it; the odd one becomes a
        record of the joined region. (The paper leaves such a sibling outside every region.)
        """
        ch = self.children[v]
        tid, end = self.tid, self.end
        leaf_lo, leaf_hi = self.page.leaf_lo, self.page.leaf_hi
        T2 = 2 * self.T
        out = [regions[0]]
        for r in regions[1:]:
            q = out[-1]
            gap = r.start - (q.start + q.covered)
            if (
                q.g == r.g
                and 0 <= gap <= q.g
                and (gap == 0 or gap == q.g)
                and max(q.covered, r.covered) >= 3 * q.g
            ):
                lo, hi = q.start, r.start + r.covered
                g = q.g
                a0 = ch[q.start + q.covered - g]  # the last generalized node of q
                b0 = ch[r.start]  # the first of r
                a1, b1 = end[ch[q.start + q.covered - 1]] + 1, end[ch[r.start + g - 1]] + 1
                gap_nodes = ch[q.start + q.covered : r.start]
                if (
                    all(tid[ch[k]] == tid[ch[lo + (k - lo) % g]] for k in range(lo, hi))
                    and all(leaf_hi[x] > leaf_lo[x] for x in gap_nodes)
                    and self.nd_range(a0, a1, b0, b1, T2) <= T2 + EPS
                ):
                    vals_n = (q.covered - q.g) // q.g + (r.covered - r.g) // r.g
                    score = (
                        q.score * ((q.covered - q.g) // q.g) + r.score * ((r.covered - r.g) // r.g)
                    ) / max(1, vals_n)
                    out[-1] = DataRegion(v, g, lo, hi - lo, score=score)
                    continue
            out.append(r)
        return out

    def _own_regions(self, root: int, skip_covered: bool) -> dict[int, list[DataRegion]]:
        """CombComp + IdentDRs at every node of ``root``'s sub-tree with ``TreeDepth >=
        min_depth`` and two children or more: ``node -> regions`` (nodes without any left
        out).

        ``skip_covered``: a node inside a child that a region of an ancestor covers is not
        computed: its regions would be discarded (UnCoveredDRs), so they are not needed
        unless nested regions are kept. Pre-order visits every ancestor before the node;
        the covered children of one region are one contiguous pre-order range."""
        self.compute_height()
        h = self.height
        children, end = self.children, self.end
        tag = self.page.tag
        md = self.min_depth
        table_only = self.table_tags_only
        own: dict[int, list[DataRegion]] = {}
        pending: list[tuple[int, int]] = []  # covered ranges not reached yet (a heap)
        skip_end = -1  # the end of the covered range the walk is in
        last = self.end[root] + 1
        # the nodes of two children or more, chosen in C, then those high enough
        multi = compress(range(root, last), map((1).__lt__, map(len, children[root:last])))
        for v in [v for v in multi if h[v] >= md]:
            if skip_covered:
                while pending and pending[0][0] <= v:
                    e = heapq.heappop(pending)[1]
                    if e > skip_end:
                        skip_end = e
                if v <= skip_end:
                    continue
            ch = children[v]
            dist = self.comb_comp(v)
            self.dist[v] = dist
            regs = self.ident_drs(v, dist, len(ch))
            if table_only:
                regs = [
                    r
                    for r in regs
                    if tag[v] in TABLE_FORM_TAGS
                    and all(tag[c] in TABLE_FORM_TAGS for c in ch[r.start : r.start + r.covered])
                ]
            if regs:
                own[v] = regs
                if skip_covered:
                    for r in regs:
                        heapq.heappush(pending, (ch[r.start], end[ch[r.start + r.covered - 1]]))
        return own

    # ------------------------------------------------------------- FindDRs
    def find_drs(self, root: int, keep_nested: bool) -> list[DataRegion]:
        """FindDRs + UnCoveredDRs over the sub-tree of ``root``, iteratively.

        Every node with ``TreeDepth >= min_depth`` gets its own regions (CombComp +
        IdentDRs); a region survives when no region of an ancestor covers the path to it
        (a covered child discards every region below it, Fig. 10). With ``keep_nested``,
        regions exactly one covering level down are attached to the covering region.
        Returns the surviving regions in document order.
        """
        own = self._own_regions(root, skip_covered=not keep_nested)
        # UnCoveredDRs as a prefix sum: every child covered by a region of its parent adds
        # 1 to its whole sub-tree; a node's regions survive when their node has 0 (the
        # paper's recursion discards everything below a covered child).
        end, children = self.end, self.children
        parent = self.page.parent
        diff = [0] * (len(end) + 1)
        cover_of: dict[int, DataRegion] = {}
        for v, regs in own.items():
            ch = children[v]
            for r in regs:
                for c in ch[r.start : r.start + r.covered]:
                    diff[c] += 1
                    diff[end[c] + 1] -= 1
                    cover_of[c] = r
        ncov = list(accumulate(diff))
        kept: list[DataRegion] = []
        for v in sorted(own):
            c = ncov[v]
            if c == 0:
                kept.extend(own[v])
            elif c == 1 and keep_nested:
                u = v
                while u not in cover_of:  # the one covered node on the path to v
                    u = parent[u]
                cover_of[u].nested.extend(
                    {"parent": x.parent, "g": x.g, "start": x.start, "covered": x.covered}
                    for x in own[v]
                )
        return kept


def guarded_best(runs: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """The widest run that no overlapping run of shorter generalized nodes vetoes.

    ``harmonic_guard`` against *every* overlapping run, not only against the best run so
    far: scanning g = 1..K, a g = 7 run of 14 children (heading + five records, five records
    + trailer) that overlaps the ten single records of a g = 1 run must not win just because
    a wider, non-overlapping run of links elsewhere became the best in between. A run of
    length ``g`` is vetoed by an overlapping run ``(g', s', c')`` with ``g' < g`` when it
    does not cover at least one more whole generalized node (``cov < c' + g``). Ties keep
    the scan order (smaller g, earlier offset), as the paper's strict ``>`` does."""
    order = sorted(range(len(runs)), key=lambda k: (-runs[k][2], k))
    for k in order:
        g, st, cov = runs[k]
        if not any(
            g2 < g and st < s2 + c2 and s2 < st + cov and cov < c2 + g for g2, s2, c2 in runs
        ):
            return runs[k]
    return runs[order[0]]
