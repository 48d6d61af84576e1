"""G-STM: simple tree matching that recognises lists (Jindal and Liu 2010, sections 4.2-4.5).

At each node pair, G-STM scores the children pairs (the matrix W, Figure 5), marks the
children that match (Detect-Lists, Figure 6), infers a grammar over the children's
symbols (:mod:`~scrapy_records.treematch.grammar`) and, when both grammars hold the same
lists, collapses each list to one averaged instance (UpdateW, Figure 9) before STM's
dynamic programme. A list of 3 records then matches a list of 30 as well as 3 against 3.

Entry point: :class:`Matcher` (``match``, ``detail``, ``self_lists``). Options, with
their defaults: ``tau1=0.5`` / ``tau2=0.7`` (the match criteria); ``r2="skeleton"``
(when two grammars hold the same lists; ``"literal"``, ``"lenient"``); ``sizes="r3"``
(the sizes a node reports; ``"literal"``); ``grammar="r6"`` (``"literal"``: the figure's
loops as written); ``max_cells=2_000_000`` / ``max_node_cells=1_000_000`` (the time
budget, in children-matrix cells plus :data:`PAIR_CELLS` a node pair, past which pairs
get an LCS approximation); ``symmetric=True`` (``(a, b)`` and
``(b, a)`` share a memo entry); ``group_check=False`` (undo groups joined only through
chaining). What each choice means: ``docs/algorithms/treematch.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import mul as _mul
from typing import Any, Literal, overload

from rapidfuzz.distance import LCSseq

from scrapy_records.treematch.grammar import Grammar, grammar_generation, render
from scrapy_records.treematch.pagetree import (
    PageTree,
    build_page_tree,
    format_spec,
    parse_spec,
)
from scrapy_records.treematch.shapes import Shapes
from scrapy_records.treematch.stm import STM, diagonal_first_traceback, stm_rows

TAU1 = 0.50  #: Detect-Lists criterion 1: a normalized score above this (strict)
TAU2 = 0.70  #: Detect-Lists criteria 2 and 3: above this share of the row/column best
TEXT = "#text"  #: label of text leaves (they match whatever their text)

DEFAULT_MAX_CELLS = 2_000_000
#: a node pair whose children matrix is larger than this is approximated directly
DEFAULT_MAX_NODE_CELLS = 1_000_000
#: what one node pair costs besides its children matrix, in cells of the budget (a pair
#: of one child each costs as much as a matrix of about 100 cells): many small pairs
#: spend the budget too (1,000 distinct nested blocks against each other: a million
#: pairs of one cell each). The development pages stay under half the default budget.
PAIR_CELLS = 100

#: W per pair of child classes: ``(score, nodes_a, nodes_b)`` of G-STM on the two children
ClassW = list[list[tuple[float, float, float]]]


class _UnionFind:
    __slots__ = ("p",)

    def __init__(self, n: int) -> None:
        self.p = list(range(n))

    def find(self, x: int) -> int:
        p = self.p
        while p[x] != x:
            p[x] = p[p[x]]
            x = p[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if ra < rb:
                self.p[rb] = ra
            else:
                self.p[ra] = rb


@dataclass
class ListGroup:
    """One list symbol collapsed by UpdateW: its instances in A and in B, the average
    score of an A instance against a B instance, and the average instance size."""

    symbol: int
    ia: list[int]
    ib: list[int]
    avg_score: float
    avg_nodes: float


@dataclass
class Detail:
    """Everything G-STM computed at one node pair (for the traceback and pattern building).

    ``W`` and ``W_norm`` are kept per pair of child *shape classes* (children with the same
    shape have equal rows): ``cls_a[i]`` / ``cls_b[j]`` index ``cw`` / ``cwn``;
    :meth:`w_at` / :meth:`wn_at` (and the full matrices :attr:`w` / :attr:`wn`) read them.
    """

    score: float
    na: float
    nb: float
    cls_a: list[int]
    cls_b: list[int]
    cw: ClassW
    cwn: list[list[float]]
    sym_a: list[int]
    sym_b: list[int]
    gram_a: Grammar | None
    gram_b: Grammar | None
    lists: bool  # the grammars held the same lists and UpdateW ran
    groups: list[ListGroup]
    pairs: list[tuple[int, int]]  # DP traceback: aligned child pairs (first instances for lists)

    @property
    def norm(self) -> float:
        m = max(self.na, self.nb)
        return self.score / m if m else 0.0

    def w_at(self, i: int, j: int) -> tuple[float, float, float]:
        return self.cw[self.cls_a[i]][self.cls_b[j]]

    def wn_at(self, i: int, j: int) -> float:
        return self.cwn[self.cls_a[i]][self.cls_b[j]]

    @property
    def w(self) -> ClassW:
        return [[self.cw[u][v] for v in self.cls_b] for u in self.cls_a]

    @property
    def wn(self) -> list[list[float]]:
        return [[self.cwn[u][v] for v in self.cls_b] for u in self.cls_a]

    def grammar_a(self) -> str:
        return render(self.gram_a, _sym_name) if self.gram_a else ""

    def grammar_b(self) -> str:
        return render(self.gram_b, _sym_name) if self.gram_b else ""


def _empty_detail(score: float, na: float, nb: float) -> Detail:
    return Detail(score, na, nb, [], [], [], [], [], [], None, None, False, [], [])


def _sym_name(s: int) -> str:
    # symbols are small ints; render as letters a..z, then <n>
    return chr(ord("a") + s) if s < 26 else f"<{s}>"


class Matcher:
    """Shape intern table plus memoized STM and G-STM.

    One matcher is shared by the trees that are compared (a page and its copy, or the
    training pages of one template), so equal sub-trees get equal ids. Options: the
    module docstring.
    """

    def __init__(
        self,
        *,
        tau1: float = TAU1,
        tau2: float = TAU2,
        r2: str = "skeleton",
        sizes: str = "r3",
        grammar: str = "r6",
        max_cells: int | None = DEFAULT_MAX_CELLS,
        max_node_cells: int | None = DEFAULT_MAX_NODE_CELLS,
        symmetric: bool = True,
        group_check: bool = False,
    ) -> None:
        if r2 not in ("skeleton", "literal", "lenient"):
            raise ValueError(f"r2 must be 'skeleton', 'literal' or 'lenient', not {r2!r}")
        if sizes not in ("r3", "literal"):
            raise ValueError(f"sizes must be 'r3' or 'literal', not {sizes!r}")
        if grammar not in ("r6", "literal"):
            raise ValueError(f"grammar must be 'r6' or 'literal', not {grammar!r}")
        self.tau1 = float(tau1)
        self.tau2 = float(tau2)
        self.r2 = r2
        self.sizes = sizes
        self.literal_grammar = grammar == "literal"
        self.max_cells = max_cells
        self.max_node_cells = max_node_cells
        self.symmetric = symmetric
        self.group_check = bool(group_check)
        self.label_ids: dict[str, int] = {}
        self.label_names: list[str] = []
        self.shapes = Shapes()
        self.s_label: list[int] = self.shapes.label
        self.s_children: list[tuple[int, ...]] = self.shapes.kids
        self.s_size: list[int] = self.shapes.size
        self.memo: dict[tuple[int, int], tuple[float, float, float]] = {}
        self._stm = STM(self.shapes)
        self.cells = 0
        self.approximated = 0
        self._sd: dict[int, Detail | None] = {}
        self.text_label = self.label(TEXT)
        self.text_shape = self.intern(self.text_label, ())

    # ------------------------------------------------------------ interning
    def label(self, name: str) -> int:
        i = self.label_ids.get(name)
        if i is None:
            i = self.label_ids[name] = len(self.label_names)
            self.label_names.append(name)
        return i

    def intern(self, label: int, children: tuple[int, ...]) -> int:
        """The shape id of ``(label, children)`` (:meth:`Shapes.intern`)."""
        return self.shapes.intern(label, children)

    def page_tree(self, page: Any, root: int | None = None) -> PageTree:
        """Shape ids of every element of ``page`` (see
        :func:`~scrapy_records.treematch.pagetree.build_page_tree`)."""
        return build_page_tree(self, page, root)

    def from_spec(self, spec: str) -> int:
        """Shape of a tree written ``a(b(d,d,c),b(c,f,g))`` (tests and examples)."""
        return parse_spec(self, spec)

    def to_spec(self, h: int) -> str:
        """Inverse of :meth:`from_spec`."""
        return format_spec(self, h)

    # ------------------------------------------------------------ STM (baseline)
    def stm(self, a: int, b: int) -> int:
        """Simple tree matching W(A, B): the shared :class:`STM`, memoized, exact."""
        return self._stm.score(a, b)

    # ------------------------------------------------------------ G-STM
    def _approx(self, a: int, b: int) -> tuple[float, float, float]:
        """Budget fallback: LCS of pre-order label strings (an upper bound of STM)."""
        self.approximated += 1
        sa, sb = self.s_size[a], self.s_size[b]
        if a == b:
            return (float(sa), float(sa), float(sb))
        score = LCSseq.similarity(self.shapes.preorder(a), self.shapes.preorder(b))
        return (float(score), float(sa), float(sb))

    def match(self, a: int, b: int) -> tuple[float, float, float]:
        """G-STM(A, B) -> ``(score, nodes_A, nodes_B)`` (Figure 5), iteratively: a pair is
        combined once the child pairs it needs are in the memo."""
        lab, chn, memo = self.s_label, self.s_children, self.memo
        if lab[a] != lab[b]:
            return (0.0, float(self.s_size[a]), float(self.s_size[b]))
        if (a, b) in memo:
            return memo[(a, b)]
        sym = self.symmetric
        stack = [(a, b)]
        while stack:
            x, y = stack[-1]
            if (x, y) in memo:
                stack.pop()
                continue
            if sym and (y, x) in memo:
                s, nb, na = memo[(y, x)]
                memo[(x, y)] = (s, na, nb)
                stack.pop()
                continue
            cx, cy = chn[x], chn[y]
            kn = len(cx) * len(cy)
            over = self.max_cells is not None and self.cells >= self.max_cells
            if over and (x != y or kn > PAIR_CELLS):
                # the budget is spent: a pair is approximated outright (combined, it would
                # cost its children matrix whatever approximates the children); only a
                # small node against its copy is still combined (its lists)
                memo[(x, y)] = self._approx(x, y)
                if x == y:
                    self._sd[x] = None
                stack.pop()
                continue
            ux = list(dict.fromkeys(cx))  # distinct child shapes: equal children, equal pairs
            uy = ux if x == y else list(dict.fromkeys(cy))
            diag = False
            if self.max_node_cells is not None and kn > self.max_node_cells:
                if x == y and len(ux) * len(ux) <= self.max_node_cells:
                    diag = True  # a huge list against its copy: class-level lists, diagonal DP
                else:
                    memo[(x, y)] = self._approx(x, y)
                    if x == y:
                        self._sd[x] = None
                    stack.pop()
                    continue
            missing = []
            for u, p in enumerate(ux):
                lp = lab[p]
                for q in uy[u:] if x == y else uy:
                    if lab[q] == lp and (p, q) not in memo and not (sym and (q, p) in memo):
                        missing.append((p, q))
            if missing:
                if over:
                    for p, q in missing:
                        memo[(p, q)] = self._approx(p, q)
                else:
                    stack.extend(missing)
                    continue
            self.cells += (len(ux) * len(uy) + len(cx) if diag else kn) + PAIR_CELLS
            if diag:
                self.approximated += 1
            if x == y:
                # a node against its copy (a single list page): keep the detail when it
                # holds lists, so that list extraction does not recompute it
                d = self._combine(x, x, True, diag)
                memo[(x, x)] = (d.score, d.na, d.nb)
                self._sd[x] = d if d.lists else None
            else:
                memo[(x, y)] = self._combine(x, y, False)
            stack.pop()
        return memo[(a, b)]

    def norm(self, a: int, b: int) -> float:
        """Normalized score ``score / max(nodes_A, nodes_B)``."""
        s, na, nb = self.match(a, b)
        m = max(na, nb)
        return s / m if m else 0.0

    def self_lists(self, h: int) -> Detail | None:
        """The detail of G-STM(h, copy(h)) when it found lists, else ``None`` (the
        single list page formulation)."""
        if h not in self._sd:
            self.match(h, h)
            if h not in self._sd:  # computed before through the symmetric memo
                d = self.detail(h, h)
                self._sd[h] = d if d.lists else None
        return self._sd[h]

    def detail(self, a: int, b: int) -> Detail:
        """The full G-STM computation at the pair ``(a, b)``: W, symbols, grammars, lists,
        the DP traceback. Child pairs come from the memo (computed if needed)."""
        lab = self.s_label
        if lab[a] != lab[b]:
            return _empty_detail(0.0, float(self.s_size[a]), float(self.s_size[b]))
        r = self.match(a, b)
        kn = len(self.s_children[a]) * len(self.s_children[b])
        spent = self.max_cells is not None and self.cells >= self.max_cells
        if spent or (self.max_node_cells is not None and kn > self.max_node_cells):
            d = self._sd.get(a) if a == b else None
            if d is not None:
                return d
            limit = self.max_node_cells
            if not spent and a == b and limit is not None:
                if len(set(self.s_children[a])) ** 2 <= limit:
                    return self._combine(a, a, True, True)
            return _empty_detail(r[0], r[1], r[2])
        # the budget may have approximated the children: make sure the cells exist (this
        # loop is quadratic in the children: once the budget is spent, no detail)
        memo = self.memo
        for p in self.s_children[a]:
            for q in self.s_children[b]:
                if lab[p] == lab[q] and (p, q) not in memo:
                    if self.max_cells is not None and self.cells >= self.max_cells:
                        return _empty_detail(r[0], r[1], r[2])
                    self.match(p, q)
        self.cells += kn + PAIR_CELLS
        return self._combine(a, b, True)

    # ------------------------------------------------------------ one node pair
    @overload
    def _combine(self, a: int, b: int, want: Literal[True], diag: bool = False) -> Detail: ...
    @overload
    def _combine(
        self, a: int, b: int, want: Literal[False], diag: bool = False
    ) -> tuple[float, float, float]: ...
    def _combine(
        self, a: int, b: int, want: bool, diag: bool = False
    ) -> Detail | tuple[float, float, float]:
        """Lines 8-15 of Figure 5 at ``(a, b)``, the child pairs being in the memo: W,
        Detect-Lists, the grammars and UpdateW, the DP and its traceback, the sizes.
        ``(score, nodes_A, nodes_B)``, or the whole :class:`Detail` when ``want``.

        Children with the same shape have identical W rows, so W, W_norm, the row/column
        maxima, the match criteria and UpdateW's averages are computed per pair of shape
        *classes* (exactly equivalent, ``O(d_A * d_B)`` instead of ``O(k * n)``); only the
        DP runs over all ``k * n`` cells. ``diag``: the budget's identity alignment of a
        huge node against its copy instead of the DP.
        """
        ca, cb = self.s_children[a], self.s_children[b]
        k, n = len(ca), len(cb)
        if k == 0 or n == 0:
            sizes = (1.0, float(self.s_size[a]), float(self.s_size[b]))
            return _empty_detail(*sizes) if want else sizes
        same = a == b
        cls_a, cls_b, cw, cwn = self._class_weights(ca, cb, same)
        uf = self._detect_lists(cwn, same)
        sym_a: list[int] = []
        sym_b: list[int] = []
        if uf is not None or want:
            sym_a, sym_b = _symbols(uf, cls_a, cls_b, len(cw))
        gA = gB = None
        groups: list[ListGroup] = []
        # a list needs a symbol repeated on one side at least
        if uf is not None and (len(set(sym_a)) < k or len(set(sym_b)) < n):
            gA, gB, groups = self._update_w(sym_a, sym_b, cls_a, cls_b, cw)
        score, pairs = _align(cw, cls_a, cls_b, groups, diag)
        na, nb = self._sizes(a, b, pairs, groups, cw, cls_a, cls_b)
        if not want:
            return (score, na, nb)
        return Detail(
            score, na, nb, cls_a, cls_b, cw, cwn, sym_a, sym_b, gA, gB, bool(groups), groups, pairs
        )

    def _class_weights(
        self, ca: tuple[int, ...], cb: tuple[int, ...], same: bool
    ) -> tuple[list[int], list[int], ClassW, list[list[float]]]:
        """Each child's class (the index of its shape among the distinct ones), and W and
        W_norm (score over the larger size) per pair of classes (Figure 5 lines 8-10,
        Figure 6 line 4)."""
        ids: dict[int, int] = {}
        cls_a = [ids.setdefault(p, len(ids)) for p in ca]
        ua = list(ids)
        if same:
            cls_b, ub = cls_a, ua
        else:
            ids = {}
            cls_b = [ids.setdefault(q, len(ids)) for q in cb]
            ub = list(ids)
        lab, sz, memo = self.s_label, self.s_size, self.memo
        cw: ClassW = []
        cwn: list[list[float]] = []
        for u, p in enumerate(ua):
            lp = lab[p]
            sp = float(sz[p])
            row: list[tuple[float, float, float]] = []
            nrow: list[float] = []
            for v, q in enumerate(ub):
                if same and v < u:  # symmetric up to the size swap
                    r = cw[v][u]
                    row.append((r[0], r[2], r[1]))
                    nrow.append(cwn[v][u])
                    continue
                if lab[q] != lp:
                    row.append((0.0, sp, float(sz[q])))
                    nrow.append(0.0)
                    continue
                c = memo.get((p, q))
                if c is None:
                    r2 = memo.get((q, p))
                    c = (r2[0], r2[2], r2[1]) if r2 is not None else self.match(p, q)
                row.append(c)
                s0 = c[0]
                if s0 > 0:
                    nrow.append(s0 / (c[1] if c[1] > c[2] else c[2]))
                else:
                    nrow.append(0.0)
            cw.append(row)
            cwn.append(nrow)
        return cls_a, cls_b, cw, cwn

    def _detect_lists(self, cwn: list[list[float]], same: bool) -> _UnionFind | None:
        """Detect-Lists' match criteria (Figure 6 lines 5-12) per pair of classes: the
        groups of matching children, A's classes then B's (``None``: no match at all)."""
        da, db = len(cwn), len(cwn[0])
        rmax = [max(r) for r in cwn]
        cmax = rmax if same else [max(col) for col in zip(*cwn)]
        t1, t2 = self.tau1, self.tau2
        uf: _UnionFind | None = None
        for u in range(da):
            ru = rmax[u]
            if ru <= t1:
                continue
            row_n = cwn[u]
            for v in range(u, db) if same else range(db):
                sc = row_n[v]
                if sc > t1 and sc / ru > t2 and sc / cmax[v] > t2:
                    if uf is None:
                        uf = _UnionFind(da + db)
                    uf.union(u, da + v)
                    if same:
                        uf.union(v, da + u)
        if uf is not None and self.group_check:
            uf = _split_weak_groups(uf, cwn, t1)
        return uf

    def _update_w(
        self, sym_a: list[int], sym_b: list[int], cls_a: list[int], cls_b: list[int], cw: ClassW
    ) -> tuple[Grammar, Grammar, list[ListGroup]]:
        """The grammars of both symbol strings (Figure 6 lines 15-16) and, when they hold
        the same lists, UpdateW (Figure 9) on each list symbol."""
        lit = self.literal_grammar
        gA = grammar_generation(sym_a, lit)
        gB = grammar_generation(sym_b, lit)
        L = self._shared_lists(gA, gB, sym_a, sym_b)
        if not L:
            return gA, gB, []
        ea = set(gA.edges)
        order = [x for x in gA.edges if x in L] + [x for x in gB.edges if x in L and x not in ea]
        groups = []
        for sy in order:
            g = _collapse(sy, sym_a, sym_b, cls_a, cls_b, cw)
            if g is not None:
                groups.append(g)
        return gA, gB, groups

    def _shared_lists(
        self, gA: Grammar, gB: Grammar, sym_a: list[int], sym_b: list[int]
    ) -> set[Any]:
        """The list symbols when "g_A matches g_B" (Figure 6 line 17), else an empty set.

        ``r2="skeleton"``: the list symbols of either grammar occur in the same order in
        both (the paper's own example matches ``X+Y`` with ``XY``); ``"lenient"``: the
        same, on the symbols present on both sides; ``"literal"``: both have loops and
        render alike once the other symbols are removed."""
        L = gA.list_symbols() | gB.list_symbols()
        if not L:
            return L
        if self.r2 == "literal":
            same = bool(gA.loops) and bool(gB.loops) and render(gA, only=L) == render(gB, only=L)
            return L if same else set()
        if self.r2 == "lenient":
            L = L & set(sym_a) & set(sym_b)
        same = bool(L) and [x for x in gA.edges if x in L] == [x for x in gB.edges if x in L]
        return L if same else set()

    def _sizes(
        self,
        a: int,
        b: int,
        pairs: list[tuple[int, int]],
        groups: list[ListGroup],
        cw: ClassW,
        cls_a: list[int],
        cls_b: list[int],
    ) -> tuple[float, float]:
        """The node counts ``a`` and ``b`` report: with ``sizes="r3"``, counted after the
        alignment (a list counts one average instance, an aligned child its collapsed
        size, any other child its raw size); ``"literal"``: raw sizes unless lists were
        collapsed here (Figure 9 lines 17-22)."""
        ca, cb = self.s_children[a], self.s_children[b]
        sz = self.s_size
        if self.sizes == "literal" and not groups:
            return float(sz[a]), float(sz[b])
        inA = {i for g in groups for i in g.ia}
        inB = {j for g in groups for j in g.ib}
        na = nb = 1.0 + sum(g.avg_nodes for g in groups)
        if self.sizes == "literal":
            na += sum(sz[ca[i]] for i in range(len(ca)) if i not in inA)
            nb += sum(sz[cb[j]] for j in range(len(cb)) if j not in inB)
            return na, nb
        alA = {i: j for i, j in pairs}
        alB = {j: i for i, j in pairs}
        for i in range(len(ca)):
            if i not in inA:
                na += cw[cls_a[i]][cls_b[alA[i]]][1] if i in alA else sz[ca[i]]
        for j in range(len(cb)):
            if j not in inB:
                nb += cw[cls_a[alB[j]]][cls_b[j]][2] if j in alB else sz[cb[j]]
        return na, nb


# --------------------------------------------------------------------------- phases
def _split_weak_groups(uf: _UnionFind, cwn: list[list[float]], t1: float) -> _UnionFind | None:
    """Undo each group whose weakest cross pair is not above ``t1``: transitive chaining
    (A1~B2~A3) can join dissimilar children (``group_check=True``)."""
    da, db = len(cwn), len(cwn[0])
    members: dict[int, tuple[list[int], list[int]]] = {}
    for x in range(da + db):
        side = members.setdefault(uf.find(x), ([], []))
        (side[0] if x < da else side[1]).append(x if x < da else x - da)
    for us, vs in members.values():
        if us and vs and min(cwn[u][v] for u in us for v in vs) <= t1:
            for u in us:
                uf.p[u] = u
            for v in vs:
                uf.p[da + v] = da + v
    if all(uf.p[x] == x for x in range(da + db)):
        return None
    return uf


def _symbols(
    uf: _UnionFind | None, cls_a: list[int], cls_b: list[int], da: int
) -> tuple[list[int], list[int]]:
    """The children's symbol strings (Figure 6 lines 12-14): the children of a matched
    class share their group's symbol; every other child gets a symbol of its own."""
    k, n = len(cls_a), len(cls_b)
    if uf is None:
        return list(range(k)), list(range(k, k + n))
    matched = [False] * len(uf.p)
    for x in range(len(uf.p)):
        if uf.p[x] != x:
            matched[x] = True
            matched[uf.find(x)] = True
    ids: dict[Any, int] = {}
    sym_a = []
    for i in range(k):
        u = cls_a[i]
        key = ("g", uf.find(u)) if matched[u] else ("a", i)
        sym_a.append(ids.setdefault(key, len(ids)))
    sym_b = []
    for j in range(n):
        v = da + cls_b[j]
        key = ("g", uf.find(v)) if matched[v] else ("b", j)
        sym_b.append(ids.setdefault(key, len(ids)))
    return sym_a, sym_b


def _collapse(
    sy: int, sym_a: list[int], sym_b: list[int], cls_a: list[int], cls_b: list[int], cw: ClassW
) -> ListGroup | None:
    """UpdateW (Figure 9 lines 7-13) for list symbol ``sy``: the average score and size
    over every pair of its A and B instances, from the class counts. ``None`` when one
    side has no instance."""
    ia = [i for i in range(len(sym_a)) if sym_a[i] == sy]
    ib = [j for j in range(len(sym_b)) if sym_b[j] == sy]
    if not ia or not ib:
        return None
    na_c: dict[int, int] = {}
    for i in ia:
        na_c[cls_a[i]] = na_c.get(cls_a[i], 0) + 1
    nb_c: dict[int, int] = {}
    for j in ib:
        nb_c[cls_b[j]] = nb_c.get(cls_b[j], 0) + 1
    tot_s = tot_n = 0.0
    for u, cu in na_c.items():
        row = cw[u]
        for v, cv in nb_c.items():
            c = row[v]
            m = cu * cv
            tot_s += m * c[0]
            tot_n += m * (c[1] + c[2])
    cnt = len(ia) * len(ib)
    return ListGroup(sy, ia, ib, tot_s / cnt, tot_n / (2 * cnt))


def _align(
    cw: ClassW, cls_a: list[int], cls_b: list[int], groups: list[ListGroup], diag: bool
) -> tuple[float, list[tuple[int, int]]]:
    """Figure 5 lines 12-15 on the collapsed W (each list's first instances score its
    average, its other instances nothing): the score and the aligned child pairs."""
    k, n = len(cls_a), len(cls_b)
    cs = [[c[0] for c in row] for row in cw]
    zero_rows: set[int] = set()
    colmask = None
    first: dict[tuple[int, int], float] = {}
    if groups:
        colmask = [1.0] * n
        for g in groups:
            zero_rows.update(g.ia[1:])
            for j in g.ib[1:]:
                colmask[j] = 0.0
            first[(g.ia[0], g.ib[0])] = g.avg_score
    if diag:
        # the identity alignment instead of the k*k DP (W is symmetric and each child's
        # best partner is itself)
        pairs = []
        tot = 0.0
        for i in range(k):
            if i in zero_rows:
                continue
            v = first.get((i, i))
            if v is None:
                v = cs[cls_a[i]][cls_b[i]] * (colmask[i] if colmask is not None else 1.0)
            if v > 0:
                pairs.append((i, i))
                tot += v
        return tot + 1.0, pairs
    zero = [0.0] * n
    rows_s: list[list[float]] = []
    for i in range(k):
        if i in zero_rows:
            srow = zero
        else:
            srow = list(map(cs[cls_a[i]].__getitem__, cls_b))
            if colmask is not None:
                srow = list(map(_mul, srow, colmask))
            if first:
                for (fi, fj), val in first.items():
                    if fi == i:
                        srow[fj] = val
        rows_s.append(srow)
    m_rows = stm_rows(rows_s, n)
    return m_rows[k][n] + 1.0, diagonal_first_traceback(rows_s, m_rows, k, n)
