"""Finding anchor trees: which children of a parent are records of one list (Song et al.
2010, sections 4 and 5.2, Algorithm 2).

Two sub-trees are records of one list when the candidate pivots (anchors, e.g. post dates)
of one are matched by candidates of the other under the domain constraint: the pivot's
path from the sub-tree root is mapped by tree matching, and (measure ``ps``, Pivot and
Siblings) the pivot's siblings are similar, or (``pm``, Pivot Match) the pivot itself is
mapped to a candidate. Tree matching is Simple Tree Matching on elements, memoised on
structural shapes; a pair of large sub-trees whose DP would exceed ``exact_cells`` is
approximated by the LCS of their pre-order tag strings (an upper bound of the mapping
size). The child alignment along the seed's root-to-pivot path is always exact, so PM and
PS see a real top-down mapping.

Entry points: :class:`PageContext` (per-page state) and :func:`find_anchor_trees`.
"""

from __future__ import annotations

import time
from typing import Any

from scrapy_records.extractors.mibat.anchors import AnchorClassifier, in_sorted
from scrapy_records.page import Page
from scrapy_records.treematch import STM, Shapes

__all__ = ["PageContext", "domain_compare", "find_anchor_trees"]

#: Per matched tree: seed pivot -> (its partner in the tree, similarity).
Partners = dict[int, tuple[int, float]]


class PageContext:
    """Per-page state of one MiBAT run: the options, structural shapes, the STM memo, the
    candidate pivots of each anchor kind, and the DOMAINCOMPARE budget count."""

    def __init__(self, page: Page, opts: dict[str, Any]) -> None:
        self.page = page
        self.opts = opts
        self.align_memo: dict[tuple[int, int], dict[int, int]] = {}
        self.exact_cells = int(opts["exact_cells"])
        self.compares = 0
        self.cands: dict[str, list[int]] = {}
        # built on first use: most pages have too few candidates to match any trees
        self._size: list[int] | None = None
        self._shape: list[int] | None = None
        self._stm: STM | None = None

    @property
    def size(self) -> list[int]:
        """Sub-tree size (nodes) of every element."""
        if self._size is None:
            end = self.page.end
            self._size = [end[i] - i + 1 for i in range(len(end))]
        return self._size

    @property
    def shape(self) -> list[int]:
        """Structural shape id of every element (:meth:`Shapes.intern_elements`)."""
        if self._shape is None:
            self._build_matcher()
        assert self._shape is not None
        return self._shape

    @property
    def stm(self) -> STM:
        """The shared STM (:class:`~scrapy_records.treematch.STM`), memo per page run; a
        pair with ``size_a * size_b > exact_cells`` scores the LCS of the pre-order tag
        strings, tracebacks diagonal > up > left (the paper's MAPPING)."""
        if self._stm is None:
            self._build_matcher()
        assert self._stm is not None
        return self._stm

    def _build_matcher(self) -> None:
        page = self.page
        # structural shapes (elements only), bottom-up in reverse pre-order (no recursion);
        # rep[s]: an element of shape s (its pre-order tag string is a slice of tag_id)
        shapes = Shapes()
        self._shape, rep = shapes.intern_elements(page.tag_id, page.children, page.end)
        tag_id = page.tag_id
        end = page.end

        def seq(s: int) -> list[int]:
            r = rep[s]
            return tag_id[r : end[r] + 1]

        self._stm = STM(
            shapes,
            symmetric=True,
            approx="score",
            max_size_product=self.exact_cells,
            seq=seq,
            tie="diagonal",
        )

    def candidates(self, anchor: AnchorClassifier) -> list[int]:
        """The sorted candidate pivots of ``anchor`` (found once per kind)."""
        got = self.cands.get(anchor.kind)
        if got is None:
            got = self.cands[anchor.kind] = sorted(anchor.candidates(self.page))
        return got

    # ---------------------------------------------------------------- tree matching
    @property
    def approximated(self) -> int:
        """STM pairs answered by the LCS approximation (the per-page budget)."""
        return self._stm.approximated if self._stm is not None else 0

    def w(self, a: int, b: int) -> int:
        """|M| of the maximum top-down mapping of sub-trees ``a`` and ``b`` (Simple Tree
        Matching), memoised on shapes; LCS approximation for very large pairs."""
        return self.stm.score(self.shape[a], self.shape[b])

    def align(self, a: int, b: int) -> dict[int, int]:
        """Child mapping of the matched pair (a, b): child of a -> child of b (the paper's
        MAPPING, one level, tie-break diagonal > up > left). The DP depends on the
        structural shapes only: pairs of sub-trees built alike (the same header in every
        post) reuse the child positions (:meth:`STM.pairs`)."""
        key = (a, b)
        got = self.align_memo.get(key)
        if got is not None:
            return got
        cx, cy = self.page.children[a], self.page.children[b]
        out: dict[int, int] = {}
        if cx and cy:
            out = {cx[i]: cy[j] for i, j in self.stm.pairs(self.shape[a], self.shape[b])}
        self.align_memo[key] = out
        return out

    def tree_sim(self, a: int, b: int) -> float:
        """Eq. 1, TreeSim = |M| / ((|V1| + |V2|) / 2)."""
        return self.w(a, b) / ((self.size[a] + self.size[b]) / 2.0)


# ------------------------------------------------------------------ Algorithm 2
def _path(page: Page, root: int, u: int) -> list[int]:
    """The nodes from ``root`` down to its descendant ``u``."""
    out = [u]
    p = page.parent
    while u != root:
        u = p[u]
        out.append(u)
    out.reverse()
    return out


def domain_compare(
    ctx: PageContext, ti: int, tj: int, cpset: list[int], cand_set: set[int]
) -> Partners:
    """DOMAINCOMPARE (Algorithm 2) with DOMAINSIMILARITY (section 4.2): the seed pivots
    ``u`` of ``ti`` (``cpset``) matched in ``tj``, each with its best partner ``v`` among
    the candidates (``cand_set``) and the similarity."""
    page = ctx.page
    ctx.compares += 1
    measure, tau = ctx.opts["measure"], ctx.opts["tau"]
    require = ctx.opts["ps_require_pivot_match"]
    out: Partners = {}
    children = page.children
    for u in cpset:
        if u == ti:  # the pivot is the anchor root: PS degrades to PM
            if tj in cand_set:
                out[u] = (tj, 1.0)
            continue
        path = _path(page, ti, u)
        a, b = ti, tj
        ok = True
        for nxt in path[1:-1]:
            partner = ctx.align(a, b).get(nxt)
            if partner is None:
                ok = False
                break
            a, b = nxt, partner
        if not ok:
            continue
        # a = parent(u) and b its partner
        mapping = ctx.align(a, b)
        v = mapping.get(u)
        if measure == "pm":
            if v is not None and v in cand_set:
                out[u] = (v, 1.0)
            continue
        if require and (v is None or v not in cand_set):
            continue
        s1, s2 = children[a], children[b]
        sim = len(mapping) / ((len(s1) + len(s2)) / 2.0)
        if sim <= tau:
            continue
        if v is None or v not in cand_set:
            # any candidate among the siblings in tj (PS does not need (u, v) in M)
            vs = [c for c in s2 if c in cand_set]
            if not vs:
                # a candidate deeper under one of b's children also shares parent(v) = b
                # only if it is a child of b: otherwise the formula gives 0
                continue
            pos_u = s1.index(u)
            v = min(vs, key=lambda c: abs(s2.index(c) - pos_u))
        out[u] = (v, sim)
    return out


def find_anchor_trees(
    ctx: PageContext,
    kids: list[int],
    has: list[bool],
    cands: list[int],
    cand_set: set[int],
    deadline: float,
) -> list[tuple[list[int], list[int], dict[int, Partners]]]:
    """Algorithm 2: the anchor lists among the children ``kids`` of one parent (``has``:
    the child holds a candidate) as ``(child positions, the seed's surviving pivots, the
    partners per matched position)``. The seed is the first uncovered child; stops early
    at the compare budget or the ``deadline``."""
    page = ctx.page
    n = len(kids)
    covered = [False] * n
    tag_id = page.tag_id
    end = page.end
    out = []
    max_cmp = ctx.opts["max_compares"]
    for i in range(n):
        if covered[i] or not has[i]:
            continue
        ti = kids[i]
        cpset = in_sorted(cands, ti, end[ti])
        anchors = [i]
        partners: dict[int, Partners] = {}
        for j in range(i + 1, n):
            if covered[j] or not has[j] or tag_id[kids[j]] != tag_id[ti]:
                continue
            if ctx.compares >= max_cmp or time.perf_counter() > deadline:
                break
            matched = domain_compare(ctx, ti, kids[j], cpset, cand_set)
            if matched:
                anchors.append(j)
                cpset = [u for u in cpset if u in matched]
                partners[j] = matched
                covered[j] = True
        if len(anchors) >= ctx.opts["min_anchors"]:
            out.append((anchors, cpset, partners))
    return out
