"""MDR: Mining Data Records in Web Pages (Liu, Grossman & Zhai, KDD 2003).

Faithful implementation of the engineering digest ``shared/papers/mdr.md`` (paper
``001_69ae563571eca8dc.txt``) on top of the shared :class:`~scrapy_records.page.Page`
arrays. Section numbers below refer to the digest.

Pipeline (digest §3.0, driver §3.10):

1. **Tag tree** (§3.1): the page model already is one (elements only, scripts, styles,
   comments dropped, void elements kept as leaves). Mining starts at ``page.body``.
2. **Tag strings** (§3.2, A1/A2): the tag string of a node is its pre-order opening-tag
   sequence, i.e. the slice ``page.tag_id[i:end[i] + 1]``; the combined tag string of
   adjacent siblings ``ch[a..b-1]`` is the contiguous slice ``tag_id[ch[a]:end[ch[b-1]] + 1]``
   (no string building). The normalized edit distance ``ND = 2 d / (|s1| + |s2|)`` is
   computed token-level by rapidfuzz's C Levenshtein over int lists, with the exact length
   bound ``2 |l1 - l2| / (l1 + l2) > T`` (A4, lossless, stronger than the paper's 2x rule)
   and ``score_cutoff = floor(T (l1 + l2) / 2)``.
3. **CombComp** (§3.3, Fig. 6 repaired, A5) at every node whose ``TreeDepth >= min_depth``
   (§3.4, leaf depth 1, A8), **IdentDRs** (§3.5, Fig. 9 repaired, A6) with the digest's
   interval recursion (``recover_left``, A7), **FindDRs / UnCoveredDRs** (§3.6, Figs. 8/10):
   regions under a child that a parent region covers are discarded (A10; ``keep_nested``
   keeps them as metadata of the covering region).
4. **Records** (§3.7): FindRecords-1 (split into children when all adjacent children are
   similar and the node is not a data-table row, A11/A12, ``split_guard``), FindRecords-n
   (non-contiguous case 1: corresponding children of the nodes of a generalized node,
   A13), non-contiguous case 2 (``merge_adjacent``: chains of dissimilar full-span
   regions under consecutive sibling parents, A14) and records outside regions (§3.8,
   ``recover_orphans``, A15: only siblings not covered by any region of the same parent).

Everything is iterative (no recursion over the DOM; IdentDRs uses an explicit interval
stack). Cost: O(N K) C-level edit distances (§4), most of them pruned by the length bound.

Three further resolutions of this project (not in the digest; measured on the development
list pages, record F1 of the first-ranked region 0.62 -> 0.83 together; each has a switch
and is off in paper mode):

* ``harmonic_guard`` (IdentDRs line 13): a longer generalized node that overlaps the
  current best run replaces it only if it covers at least one more *whole* generalized
  node (``cov >= best_cov + g``). Without it, a g = 8 combination that swallows the
  heading and the trailer of a 20-record list "covers more" and wins, which contradicts
  the paper's own preference for "generalized nodes of the smallest length" (§3.5).
* ``all_runs`` (IdentDRs lines 5-12): every run of similar g-combinations from an offset
  is a candidate, not only the first one, and the widest run is chosen first (the
  interval recursion then finds the others). The paper's first-run rule lets a run of
  three ``<br>`` hide the list of records right after it.
* ``resplit`` (FindRecords): a region whose generalized nodes (g > 1) repeat with a
  smaller tag period g' (same-tag components: g' = 1; ``li`` + empty ``p`` separator:
  g' = 2) whose adjacent g'-combinations are within ND <= 2T (all but a share
  ``resplit_outliers``, 0.25: one odd result among ten breaks two adjacent pairs), and that is not a
  non-contiguous layout (FindRecords-n line 1), is re-expressed with g'. Search snippets
  with query highlighting are a little over T from their neighbours while longer
  combinations average out; the records are the smaller units (the paper's
  smallest-generalized-node principle).

Two more of ours, measured on the same pages (0.880/0.892/0.903 -> 0.881/0.901/0.905):

* the ``harmonic_guard`` is checked against every overlapping run of shorter generalized
  nodes, not only against the best run so far (:func:`_guarded_best`): a g = 7 run of a
  heading plus ten results plus a trailer no longer wins because a wider run of links
  elsewhere was the best in between;
* ``bridge``: consecutive regions of one parent with the same g, one generalized node or
  nothing between them, the same kind of record on both sides (ND <= 2T) and text in
  between are one region (:meth:`_Miner._bridge`): one odd result no longer cuts a list.

``mode="recommended"`` (default) uses the digest's [R] resolutions and the ones above;
``mode="paper"`` is the paper-literal variant: ``recover_left=False`` (right-only
IdentDRs recursion), ``harmonic_guard=all_runs=resplit=bridge=False``, ``split_guard=False`` and
``vacuous_split=True`` (FindRecords-1 line 1 read literally: a node with a single child
"has all children similar"), ``table_tags_only=True`` (the paper's scope, §1/A16).
Options given explicitly override the mode's values.

Confidence: see :func:`_confidence`.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from rapidfuzz.distance import Levenshtein

from scrapy_records.extractors.base import build_region
from scrapy_records.page import Page
from scrapy_records.results import Region

logger = logging.getLogger(__name__)

__all__ = [
    "MDRExtractor",
    "DEFAULTS",
    "PAPER_MODE",
    "TABLE_FORM_TAGS",
    "normalized_distance",
    "comb_comp_pairs",
    "mine",
]

_INF = float("inf")
_EPS = 1e-9

#: Option defaults: the digest's recommended values (§3.10 table).
DEFAULTS: dict[str, Any] = {
    "K": 10,
    "T": 0.3,
    "min_depth": 3,
    "recover_left": True,
    "harmonic_guard": True,
    "all_runs": True,
    "split_guard": True,
    "vacuous_split": False,
    "resplit": True,
    "resplit_outliers": 0.25,
    "bridge": True,
    "keep_nested": False,
    "merge_adjacent": True,
    "recover_orphans": True,
    "table_tags_only": False,
    "max_tokens": None,
    "align": True,
}

#: Values that ``mode="paper"`` changes (the paper-literal reading, digest §3.5/A7, A11, A16).
PAPER_MODE: dict[str, Any] = {
    "recover_left": False,
    "harmonic_guard": False,
    "all_runs": False,
    "split_guard": False,
    "vacuous_split": True,
    "resplit": False,
    "bridge": False,
    "table_tags_only": True,
}

#: "table and form related tags, i.e., table, form, tr, td, etc." (paper §1, digest A16).
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

_CELL_TAGS = frozenset({"td", "th"})


def normalized_distance(x: list[int], y: list[int], T: float | None = None) -> float:
    """ND of two token sequences (digest §3.2): ``d / mean length``; may exceed 1.

    With ``T`` given, returns ``inf`` as soon as the pair is provably dissimilar (length
    bound, then the Levenshtein cut-off), so only "ND <= T" results are exact.
    """
    L = len(x) + len(y)
    if L == 0:
        return 0.0
    if T is None:
        return 2.0 * Levenshtein.distance(x, y) / L
    diff = abs(len(x) - len(y))
    if 2 * diff > T * L + _EPS:
        return _INF
    cut = int(T * L / 2 + _EPS)
    d = Levenshtein.distance(x, y, score_cutoff=cut)
    if d > cut:
        return _INF
    return 2.0 * d / L


def comb_comp_pairs(n: int, K: int) -> list[tuple[int, int]]:
    """The comparisons of CombComp (digest §3.3, Fig. 6 repaired), in the paper's order.

    Returns ``(g, a)`` pairs meaning: compare the ``g``-combination starting at child ``a``
    with the one starting at child ``a + g`` (0-based). For ``n = 10, K = 3`` these are the
    21 comparisons of the paper's worked example (TC-19).
    """
    out: list[tuple[int, int]] = []
    for s in range(K):  # paper i = s + 1: start node
        for g in range(s + 1, K + 1):  # paper j >= i: combination length
            if s + 2 * g > n:  # paper line 3
                continue
            a = s
            while a + 2 * g <= n:  # paper line 6 (k + j - 1 <= n, A5)
                out.append((g, a))
                a += g
    return out


@dataclass
class _DR:
    """A data region triple [g, start, covered] (§2) under ``parent``, 0-based start."""

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


class _Miner:
    """One MDR run over one page (holds the per-page arrays and distance tables)."""

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
        self._pos_cache: dict[int, dict[int, int]] = {}

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
        if 2 * diff > T * L + _EPS:
            return _INF
        if self.max_tokens is not None and L > 2 * self.max_tokens:
            return _INF  # A26: optional deviation, off by default
        tid = self.tid
        x = tid[a0:a1]
        y = tid[b0:b1]
        if x == y:
            return 0.0
        cut = int(T * L / 2 + _EPS)
        self.n_calls += 1
        d = Levenshtein.distance(x, y, score_cutoff=cut)
        if d > cut:
            return _INF
        return 2.0 * d / L

    def nd_nodes(self, x: int, y: int) -> float:
        end = self.end
        return self.nd_range(x, end[x] + 1, y, end[y] + 1)

    # ---------------------------------------------------------- tree depth
    def compute_height(self) -> None:
        """TreeDepth of every node (leaf = 1, §2), one reverse pre-order pass."""
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
        """All ``Distance(v, g, a)`` of CombComp (§3.3): ``dist[g][a]`` (``dist[0]`` unused).

        Equivalent to the paper's enumeration (every (g, a) with ``a + 2g <= n`` is reached
        from the start offset ``a mod g``), computed phase-free for speed.
        """
        ch = self.children[v]
        n = len(ch)
        end = self.end
        starts = ch
        stops = [end[c] + 1 for c in ch]
        nd = self.nd_range
        lim = self.T
        dist: list[list[float]] = [[]]
        for g in range(1, min(self.K, n // 2) + 1):
            row = [_INF] * (n - 2 * g + 1)
            for a in range(0, n - 2 * g + 1):
                b = a + g
                x0 = starts[a]
                x1 = stops[b - 1]
                y0 = starts[b]
                y1 = stops[b + g - 1]
                la = x1 - x0
                lb = y1 - y0
                # exact length bound inlined (A4): most pairs stop here
                if 2 * (la - lb if la > lb else lb - la) > lim * (la + lb) + _EPS:
                    continue
                row[a] = nd(x0, x1, y0, y1)
            dist.append(row)
            if g == 1 and max(row) <= lim + _EPS:
                # every adjacent pair is similar: the g = 1 run covers all n children and
                # no longer combination can cover more (IdentDRs line 13), so CombComp
                # for g >= 2 cannot change the result (exact shortcut)
                break
        return dist

    # ------------------------------------------------------------ IdentDRs
    def ident_drs(self, v: int, dist: list[list[float]], n: int) -> list[_DR]:
        """IdentDRs (§3.5, Fig. 9 repaired): the regions among ``v``'s ``n`` children.

        Recommended: interval recursion on both sides of each chosen region (A7);
        paper-literal (``recover_left=False``): only to the right. Iterative.
        """
        T = self.T + _EPS
        Kmax = len(dist) - 1
        guard = self.harmonic_guard
        all_runs = self.all_runs
        live = [False] + [min(row) <= T for row in dist[1:]]
        out: list[_DR] = []
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
                best = _guarded_best(runs)
            g, st, cov = best
            vals = [dist[g][a] for a in range(st, st + cov - g, g)]
            out.append(_DR(v, g, st, cov, score=sum(vals) / len(vals)))
            if st + cov < hi:
                stack.append((st + cov, hi))
            if self.recover_left and st > lo:
                stack.append((lo, st))
        out.sort(key=lambda r: r.start)
        if self.bridge and len(out) > 1:
            out = self._bridge(v, out)
        return out

    def _bridge(self, v: int, regions: list[_DR]) -> list[_DR]:
        """[R] ``bridge`` (ours): join consecutive regions of ``v`` with the same g when at
        most one generalized node lies between them and every child from the first to the
        last has the tag of the same position in a g-period (one ``<li>`` list, ten
        ``<blockquote>`` results), the two regions' facing generalized nodes are within
        ND <= 2T (the same kind of record), what lies between carries text (an ad
        frame between two halves of a list stays out, digest TC-15), and one side is a list
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
                    and self.nd_range(a0, a1, b0, b1, T2) <= T2 + _EPS
                ):
                    vals_n = (q.covered - q.g) // q.g + (r.covered - r.g) // r.g
                    score = (
                        q.score * ((q.covered - q.g) // q.g) + r.score * ((r.covered - r.g) // r.g)
                    ) / max(1, vals_n)
                    out[-1] = _DR(v, g, lo, hi - lo, score=score)
                    continue
            out.append(r)
        return out

    # ------------------------------------------------------------- FindDRs
    def find_drs(self, root: int, keep_nested: bool) -> list[_DR]:
        """FindDRs + UnCoveredDRs (§3.6) over the sub-tree of ``root``, iteratively.

        Every node with ``TreeDepth >= min_depth`` gets its own regions (CombComp +
        IdentDRs); a region survives when no region of an ancestor covers the path to it
        (a covered child discards every region below it, Fig. 10). With ``keep_nested``,
        regions exactly one covering level down are attached to the covering region.
        Returns the surviving regions in document order.
        """
        self.compute_height()
        h = self.height
        children = self.children
        tag = self.page.tag
        md = self.min_depth
        table_only = self.table_tags_only
        own: dict[int, list[_DR]] = {}
        last = self.end[root]
        for v in [v for v in range(root, last + 1) if h[v] >= md and len(children[v]) > 1]:
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
        # UnCoveredDRs as a prefix sum: every child covered by a region of its parent adds
        # 1 to its whole sub-tree; a node's regions survive when their node has 0 (the
        # paper's recursion discards everything below a covered child).
        end = self.end
        parent = self.page.parent
        diff = [0] * (len(end) + 1)
        cover_of: dict[int, _DR] = {}
        for v, regs in own.items():
            ch = children[v]
            for r in regs:
                for c in ch[r.start : r.start + r.covered]:
                    diff[c] += 1
                    diff[end[c] + 1] -= 1
                    cover_of[c] = r
        ncov = list(accumulate(diff))
        kept: list[_DR] = []
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

    def _pos(self, p: int, v: int) -> int:
        """Position of ``v`` among the children of ``p`` (cached per parent)."""
        cache = self._pos_cache
        m = cache.get(p)
        if m is None:
            m = cache[p] = {c: k for k, c in enumerate(self.children[p])}
        return m[v]

    # ---------------------------------------------------------- FindRecords
    def children_similar(self, x: int) -> bool:
        """Line 1 of FindRecords-1/-n: every adjacent pair of ``x``'s children has ND <= T.

        Recommended (A11): at least 2 children, and with ``split_guard`` only when
        ``TreeDepth(x) >= 3``. Paper-literal ``vacuous_split``: a single child counts.
        """
        c = self.children[x]
        if len(c) < 2:
            return self.vacuous_split and len(c) == 1
        if self.split_guard and self.height[x] < 3:
            return False
        T = self.T + _EPS
        d = self.dist.get(x)
        if d is not None and len(d) > 1:
            return all(v <= T for v in d[1])
        nd = self.nd_nodes
        return all(nd(c[k], c[k + 1]) <= T for k in range(len(c) - 1))

    def is_data_table_row(self, x: int) -> bool:
        """A12: a ``tr`` whose children are td/th each holding <= 1 piece of text."""
        page = self.page
        if page.tag[x] != "tr":
            return False
        lo, hi = page.leaf_lo, page.leaf_hi
        tag = page.tag
        for c in self.children[x]:
            if tag[c] not in _CELL_TAGS or hi[c] - lo[c] > 1:
                return False
        return True

    def resplit_period(self, r: _DR) -> int:
        """[R] ``resplit``: the smallest period g' < g into which ``r``'s generalized
        nodes (g > 1) fall apart, or 0.

        g' must divide g, the sequence of the region's component tags must repeat with
        period g', and adjacent g'-combinations must be within ND <= 2T, all but a share
        ``resplit_outliers`` of the pairs (an odd record breaks the two pairs it is in). Then
        the generalized nodes are harmonics of smaller records whose tag strings vary a
        little too much for T (query highlighting, optional fields): IdentDRs took the
        longer combinations because combining averages the differences out. The paper
        reports "generalized nodes of the smallest length that cover a data region"
        (§3.5), so such a region is re-expressed with g'.
        """
        ch = self.children[r.parent]
        span = ch[r.start : r.start + r.covered]
        tags = [self.tid[x] for x in span]
        end = self.end
        T2 = 2 * self.T
        lim = T2 + _EPS
        for gp in range(1, r.g):
            if r.g % gp or any(tags[k] != tags[k - gp] for k in range(gp, len(tags))):
                continue
            # every g'-unit must carry text: a unit without any is a separator or a
            # spacer of a longer record, not a record of its own
            lo, hi = self.page.leaf_lo, self.page.leaf_hi
            if any(hi[span[a + gp - 1]] == lo[span[a]] for a in range(0, len(span), gp)):
                continue
            pairs = range(0, len(span) - 2 * gp + 1, gp)
            allowed = int(self.resplit_outliers * len(pairs))
            bad = 0
            for a in pairs:
                if (
                    self.nd_range(
                        span[a],
                        end[span[a + gp - 1]] + 1,
                        span[a + gp],
                        end[span[a + 2 * gp - 1]] + 1,
                        T2,
                    )
                    > lim
                ):
                    bad += 1
                    if bad > allowed:
                        break
            ok = bad <= allowed
            if ok and (gp == 1 or not self.noncontiguous(span[:gp])):
                return gp
        return 0

    def noncontiguous(self, G: list[int]) -> bool:
        """FindRecords-n line 1 (Fig. 15, A13): every node of ``G`` has the same number
        m >= 2 of children and those children are similar."""
        children = self.children
        m = len(children[G[0]])
        return (
            m >= 2
            and all(len(children[x]) == m for x in G)
            and all(self.children_similar(x) for x in G)
        )

    def find_records(self, r: _DR) -> None:
        """FindRecords-1 / FindRecords-n (§3.7) for every generalized node of ``r``."""
        ch = self.children[r.parent]
        if r.g > 1 and self.resplit and not self.noncontiguous(ch[r.start : r.start + r.g]):
            gp = self.resplit_period(r)
            if gp:
                r.resplit_from = r.g
                r.g = gp
        groups: list[tuple[int, ...]] = []
        kinds: set[str] = set()
        for s in range(r.start, r.start + r.covered, r.g):
            G = ch[s : s + r.g]
            if r.g == 1:
                x = G[0]
                if self.children_similar(x) and not self.is_data_table_row(x):
                    groups.extend((c,) for c in self.children[x])  # Fig. 11
                    kinds.add("children")
                else:
                    groups.append((x,))  # Fig. 13 / Fig. 14
                    kinds.add("gnode")
            elif self.noncontiguous(G):
                # Fig. 17/18: record k = k-th child of every node of G
                m = len(self.children[G[0]])
                groups.extend(tuple(self.children[x][k] for x in G) for k in range(m))
                kinds.add("noncontiguous")
            else:
                groups.append(tuple(G))  # Fig. 16
                kinds.add("gnode")
        r.groups = groups
        r.kinds = kinds
        r.kind = next(iter(kinds)) if len(kinds) == 1 else "mixed"

    def recover_orphans(self, r: _DR, covered_pos: set[int]) -> None:
        """Records outside data regions (§3.8, A15): g == 1 only; siblings not covered by
        any region of the same parent; their children when the region was split."""
        if r.g != 1 or not r.groups:
            return
        p = r.parent
        ch = self.children[p]
        split = r.kind in ("children", "mixed")
        end = self.end
        tid = self.tid
        exemplars: dict[tuple[int, ...], tuple[int, int]] = {}
        for grp in r.groups:
            x = grp[0]
            key = tuple(tid[x : end[x] + 1])
            if key not in exemplars:
                exemplars[key] = (x, end[x] + 1)
        ex = list(exemplars.values())
        T = self.T + _EPS
        found: list[int] = []
        for k, S in enumerate(ch):
            if r.start <= k < r.start + r.covered or k in covered_pos:
                continue
            cands = self.children[S] if split else [S]
            for x in cands:
                xe = end[x] + 1
                for q0, q1 in ex:
                    if self.nd_range(x, xe, q0, q1) <= T:
                        found.append(x)
                        break
        if found:
            r.groups.extend((x,) for x in found)
            r.groups.sort(key=lambda g: g[0])
            r.recovered = found

    def group_string(self, grp: tuple[int, ...]) -> list[int]:
        tid, end = self.tid, self.end
        out: list[int] = []
        for x in grp:
            out.extend(tid[x : end[x] + 1])
        return out


def _merge_adjacent(miner: _Miner, regions: list[_DR]) -> list[_DR]:
    """Non-contiguous case 2 (§3.7, A14): merge chains R1..Rm (m >= 2) where the parents
    are consecutive siblings, each Ri spans all children of its parent, all have the same
    number of records and consecutive first records are dissimilar (ND > T)."""
    page = miner.page
    children = page.children
    parent = page.parent
    full: dict[int, _DR] = {}
    nper: dict[int, int] = {}
    for r in regions:
        nper[r.parent] = nper.get(r.parent, 0) + 1
    for r in regions:
        if (
            nper[r.parent] == 1
            and r.start == 0
            and r.covered == len(children[r.parent])
            and r.groups
            and not r.recovered
        ):
            full[r.parent] = r
    if len(full) < 2:
        return regions
    T = miner.T + _EPS
    merged_away: set[int] = set()
    out_new: list[_DR] = []
    done: set[int] = set()
    for p in sorted(full):
        if p in done:
            continue
        gp = parent[p]
        if gp < 0:
            continue
        sibs = children[gp]
        k = miner._pos(gp, p)
        chain = [full[p]]
        j = k + 1
        while j < len(sibs) and sibs[j] in full:
            nxt = full[sibs[j]]
            prev = chain[-1]
            if len(nxt.groups) != len(prev.groups):
                break
            d = normalized_distance(
                miner.group_string(prev.groups[0]), miner.group_string(nxt.groups[0]), miner.T
            )
            if d <= T:
                break
            chain.append(nxt)
            j += 1
        for r in chain:
            done.add(r.parent)
        if len(chain) < 2:
            continue
        groups = [tuple(x for r in chain for x in r.groups[i]) for i in range(len(chain[0].groups))]
        m = _DR(
            gp,
            1,
            k,
            len(chain),
            score=sum(r.score for r in chain) / len(chain),
            groups=groups,
            kinds={"merged_regions"},
            kind="merged_regions",
        )
        for r in chain:
            merged_away.add(id(r))
            m.nested.extend(r.nested)
        out_new.append(m)
    if not out_new:
        return regions
    res = [r for r in regions if id(r) not in merged_away] + out_new
    res.sort(key=lambda r: r.groups[0][0] if r.groups else r.parent)
    return res


def _guarded_best(runs: list[tuple[int, int, int]]) -> tuple[int, int, int]:
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


def mine(
    page: Page,
    *,
    keep_nested: bool = False,
    merge_adjacent: bool = True,
    recover_orphans: bool = True,
    **options: Any,
) -> tuple[_Miner, list[_DR]]:
    """The MDR driver (§3.10) without Region building: returns the miner and the regions
    (with ``groups`` = records as tuples of node indices) in document order. ``options``
    are the remaining :data:`DEFAULTS` (K, T, min_depth, recover_left, ...)."""
    miner = _Miner(page, **options)
    if len(page.tag) == 0:
        return miner, []
    root = page.body if 0 <= page.body < len(page.tag) else 0
    regions = miner.find_drs(root, keep_nested)
    by_parent: dict[int, list[_DR]] = {}
    for r in regions:
        by_parent.setdefault(r.parent, []).append(r)
    for r in regions:
        miner.find_records(r)
    if recover_orphans:
        for r in regions:
            cov: set[int] = set()
            for o in by_parent[r.parent]:
                cov.update(range(o.start, o.start + o.covered))
            miner.recover_orphans(r, cov)
    if merge_adjacent:
        regions = _merge_adjacent(miner, regions)
    return miner, regions


def _confidence(page: Page, r: _DR, T: float) -> tuple[float, list[float]]:
    """Region confidence in [0, 1] (comparable across extractors, see the brief):

    ``similarity * count * content * structure`` where

    * ``similarity = 1 - 0.5 * meanND / T``: 1.0 for identical tag strings, 0.5 at the
      threshold (the mean ND between adjacent generalized nodes, §2);
    * ``count = 1 - 0.55 ** (n - 1)``: 0.45 for a pair, 0.8 for 3, 0.96 for 6 records;
    * ``content``: share of records with text times a richness term (mean text leaves per
      record, saturating at 3: a menu of one-word links is less sure than records with
      several pieces of text);
    * ``structure = min(1, 0.4 + 0.6 (m - 1) / 5)`` with m the mean number of elements per
      record: data records have a title, a link, a snippet... (m >= 6 gives 1.0); a run of
      bare paragraphs or one-link menu items (m = 1-2) is rarely a list of records.

    Merged regions (non-contiguous case 2, "may not be safe") are discounted by 0.8 and
    recovered orphans carry 0.8 of the region's confidence. Measured on the development
    sets: the main region of list pages has a median of about 0.9, that of pages without a
    list (articles, home pages) about 0.45.
    """
    n = len(r.groups)
    if n == 0:
        return 0.0, []
    sim = 1.0 - 0.5 * min(1.0, r.score / T) if T > 0 else 1.0
    count = 1.0 - 0.55 ** (n - 1)
    lo, hi = page.leaf_lo, page.leaf_hi
    end = page.end
    with_text = 0
    leaves = 0
    elems = 0
    for g in r.groups:
        k = 0
        for x in g:
            k += hi[x] - lo[x]
            elems += end[x] - x + 1
        leaves += k
        if k:
            with_text += 1
    share = with_text / n
    rich = min(1.0, 0.5 + 0.5 * (leaves / n) / 3.0)
    structure = min(1.0, 0.4 + 0.6 * (elems / n - 1.0) / 5.0)
    conf = sim * count * share * rich * structure
    if r.kind == "merged_regions":
        conf *= 0.8
    conf = max(0.0, min(1.0, conf))
    rec = set(r.recovered)
    per = [
        conf
        * (0.8 if g[0] in rec and len(g) == 1 else 1.0)
        * (1.0 if sum(hi[x] - lo[x] for x in g) else 0.5)
        for g in r.groups
    ]
    return conf, per


class MDRExtractor:
    """MDR as an :class:`~scrapy_records.extractors.base.Extractor` (digest ``mdr.md``).

    Options (digest §3.10): ``K=10``, ``T=0.3``, ``min_depth=3``, ``recover_left=True``,
    ``harmonic_guard=True``, ``all_runs=True``, ``resplit=True`` (module docstring),
    ``split_guard=True``, ``vacuous_split=False``, ``keep_nested=False``,
    ``merge_adjacent=True``, ``recover_orphans=True``, ``table_tags_only=False``,
    ``max_tokens=None`` (A26), ``align=True`` (field alignment in :func:`build_region`),
    ``mode="recommended"|"paper"`` (see the module docstring). Unknown options raise
    ``TypeError``.

    Each region's ``meta``: ``g``, ``start``, ``covered`` (the DR triple, 0-based start),
    ``kind`` (``gnode``, ``children``, ``noncontiguous``, ``merged_regions`` or ``mixed``),
    ``score`` (mean ND between adjacent generalized nodes), ``n_gnodes``, ``recovered``
    (XPaths of orphan records, §3.8), ``resplit_from`` (the g before ``resplit``) and,
    with ``keep_nested``, ``nested`` regions (``xpath``, ``g``, ``start``, ``covered`` and
    the index of the ``record`` holding them).
    """

    name = "mdr"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        opts = self.resolve_options(options)
        align = opts.pop("align")
        miner, drs = mine(page, **opts)
        out: list[Region] = []
        for r in drs:
            if not r.groups:
                continue
            conf, per = _confidence(page, r, opts["T"])
            meta = {
                "g": r.g,
                "start": r.start,
                "covered": r.covered,
                "n_gnodes": r.covered // r.g if r.g else 0,
                "kind": r.kind,
                "score": round(r.score, 4),
            }
            if r.resplit_from:
                meta["resplit_from"] = r.resplit_from
            if r.recovered:
                meta["recovered"] = [page.xpath(x) for x in r.recovered]
            if r.nested:
                meta["nested"] = [
                    {
                        "xpath": page.xpath(n["parent"]),
                        "g": n["g"],
                        "start": n["start"],
                        "covered": n["covered"],
                        "record": _record_of(r, n["parent"], page),
                    }
                    for n in r.nested
                ]
            out.append(
                build_region(
                    page,
                    self.name,
                    r.parent,
                    r.groups,
                    conf,
                    record_confidences=per,
                    meta=meta,
                    align=align,
                )
            )
        logger.debug("mdr: %d regions, %d edit distances on %r", len(out), miner.n_calls, page)
        return out

    @staticmethod
    def resolve_options(options: dict[str, Any]) -> dict[str, Any]:
        """Merge ``options`` over the mode's defaults; unknown names raise ``TypeError``."""
        opts = dict(options)
        mode = opts.pop("mode", "recommended")
        if mode not in ("recommended", "paper"):
            raise TypeError(f"mdr: mode must be 'recommended' or 'paper', not {mode!r}")
        unknown = set(opts) - set(DEFAULTS)
        if unknown:
            raise TypeError(
                f"mdr: unknown option(s) {', '.join(sorted(unknown))}; "
                f"accepted: mode, {', '.join(DEFAULTS)}"
            )
        res = dict(DEFAULTS)
        if mode == "paper":
            res.update(PAPER_MODE)
        res.update(opts)
        K, T = res["K"], res["T"]
        if not isinstance(K, int) or K < 1:
            raise TypeError(f"mdr: K must be a positive int, not {K!r}")
        if not isinstance(T, (int, float)) or not math.isfinite(T) or T < 0:
            raise TypeError(f"mdr: T must be a non-negative number, not {T!r}")
        return res


def _record_of(r: _DR, node: int, page: Page) -> int | None:
    """Index of the record of ``r`` whose sub-tree holds ``node`` (for nested regions)."""
    for k, g in enumerate(r.groups):
        for x in g:
            if page.is_ancestor(x, node):
                return k
    return None
