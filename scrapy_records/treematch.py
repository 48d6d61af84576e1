"""Simple tree matching and G-STM (generalized simple tree matching with list grammars).

Implements Jindal & Liu, *A Generalized Tree Matching Algorithm Considering Nested Lists
for Web Data Extraction* (paper ``004_fafc328803373d0e.txt``) following the engineering
digest ``gstm.md`` (section numbers below refer to the digest):

* §2.2 / §3.2 simple tree matching: :class:`Shapes` (shape interning) and :class:`STM`
  (memoised score, traceback, class tie-break and LCS budgets as parameters), the one STM
  of the project: G-STM's baseline (:meth:`Matcher.stm`), field alignment
  (:mod:`scrapy_records.fields.alignment`) and MiBAT (:mod:`scrapy_records.extractors.mibat`)
  all use it;
* §3.3 G-STM, §3.4 Detect-Lists, §3.5 Grammar-Generation, §3.6 UpdateW, consolidated in
  §3.7 (:meth:`Matcher.match`, :meth:`Matcher.detail`, :func:`grammar_generation`);
* §3.9 record segmentation from the grammar's back edges (:func:`segment`).

Design (digest §3.7 **[proj]** "memoize on structural hashes", §4 complexity notes):

* Trees are interned as *shapes*: a shape is ``(label, tuple of child shapes)``; two
  sub-trees with the same shape id are structurally identical (labels are the lower-cased
  tag, text leaves are ``#text`` and match regardless of content, R-9). Shape ids of a
  :class:`~scrapy_records.page.Page` are computed once, bottom-up in reverse pre-order over
  the page arrays (:meth:`Matcher.page_tree`): no recursion, no lxml walk.
* G-STM results depend only on the two shapes, so they are memoized per shape pair, which
  makes matching a page against its own copy (Problem 2) cost ``O(distinct shape pairs)``.
  Evaluation is iterative (explicit stack), never recursive.
* A cell budget (``max_cells``, the number of ``W`` cells evaluated) bounds the time:
  past it, new pairs get a cheap approximation (LCS of the pre-order label strings, a C-level
  rapidfuzz routine) and are reported in :attr:`Matcher.approximated`.

Options for the digest's repairs (paper-literal behaviour kept for comparison):

* ``r2="skeleton"`` (R-2, default) / ``"literal"`` / ``"lenient"``: when the two child
  grammars "match";
* ``sizes="r3"`` (R-3, default) / ``"literal"``: which collapsed sizes propagate;
* ``grammar="r6"`` (R-6, default) / ``"literal"``: laminar loop repair in grammar generation.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import mul as _mul
from typing import Any

from rapidfuzz.distance import LCSseq

logger = logging.getLogger(__name__)

__all__ = [
    "Shapes",
    "STM",
    "TAU1",
    "TAU2",
    "TEXT",
    "Grammar",
    "grammar_generation",
    "render",
    "segment",
    "Detail",
    "PageTree",
    "Matcher",
]

TAU1 = 0.50  #: digest §3.1, Detect-Lists criterion 1 (strict ``>``)
TAU2 = 0.70  #: digest §3.1, Detect-Lists criteria 2 and 3 (strict ``>``)
TEXT = "#text"  #: label of text leaves (R-9)

DEFAULT_MAX_CELLS = 2_000_000
#: a node pair whose children matrix is larger than this is approximated directly
DEFAULT_MAX_NODE_CELLS = 1_000_000


# --------------------------------------------------------------------------- shapes + STM
class Shapes:
    """Intern table of tree *shapes* ``(label, sig, child shapes)`` (digest §3.7 [proj]).

    Two sub-trees with the same shape id are structurally identical, so everything that
    depends only on structure (STM scores, tracebacks, G-STM results) is memoised per shape
    pair. ``label`` is what tree matching compares (an interned tag, ``#text``, ...);
    ``sig`` is an optional second key that only the tie-break of :class:`STM` reads (field
    alignment puts the element's class signature there, everyone else ``0``). ``size`` is
    the node count. Each caller builds its shapes bottom-up over the page arrays (reverse
    pre-order), never by walking the DOM recursively.
    """

    __slots__ = ("ids", "label", "sig", "kids", "size", "_pre")

    def __init__(self) -> None:
        self.ids: dict[tuple[int, int, tuple[int, ...]], int] = {}
        self.label: list[int] = []
        self.sig: list[int] = []
        self.kids: list[tuple[int, ...]] = []
        self.size: list[int] = []
        self._pre: dict[int, list[int]] = {}

    def __len__(self) -> int:
        return len(self.label)

    def intern(self, label: int, kids: tuple[int, ...], sig: int = 0) -> int:
        """The id of shape ``(label, sig, kids)`` (``kids`` are shape ids), created if new."""
        key = (label, sig, kids)
        s = self.ids.get(key)
        if s is None:
            s = self.ids[key] = len(self.label)
            self.label.append(label)
            self.sig.append(sig)
            self.kids.append(kids)
            sz = self.size
            n = 1
            for k in kids:
                n += sz[k]
            sz.append(n)
        return s

    def intern_elements(
        self, labels: Sequence[int], children: Sequence[Sequence[int]], end: Sequence[int]
    ) -> tuple[list[int], dict[int, int]]:
        """Shapes of every element of a page given its pre-order arrays (elements only, no
        text; ``end[i]`` the last pre-order index of ``i``'s sub-tree), bottom-up in
        reverse pre-order. Returns ``(shape of each element, {new shape: an element of
        that shape})``; an element's sub-tree size is ``end[i] - i + 1``."""
        n = len(labels)
        shape = [0] * n
        rep: dict[int, int] = {}
        ids = self.ids
        ids_get = ids.get
        lab, sig, kids, size = self.label, self.sig, self.kids, self.size
        get = shape.__getitem__
        leaf: dict[int, int] = {}  # label -> shape of a childless element
        for i in range(n - 1, -1, -1):
            ch = children[i]
            t = labels[i]
            if not ch:
                s = leaf.get(t)
                if s is None:
                    k0 = len(lab)
                    s = leaf[t] = self.intern(t, ())
                    if s >= k0:
                        rep[s] = i
                shape[i] = s
                continue
            kt = tuple(map(get, ch))
            key = (t, 0, kt)
            s = ids_get(key)
            if s is None:
                s = ids[key] = len(lab)
                lab.append(t)
                sig.append(0)
                kids.append(kt)
                size.append(end[i] - i + 1)
                rep[s] = i
            shape[i] = s
        return shape, rep

    def preorder(self, s: int) -> list[int]:
        """The labels of shape ``s`` in pre-order (iterative; cached up to 50,000 shapes)."""
        out = self._pre.get(s)
        if out is None:
            out = []
            stack = [s]
            lab, kids = self.label, self.kids
            while stack:
                x = stack.pop()
                out.append(lab[x])
                stack.extend(reversed(kids[x]))
            if len(self._pre) < 50_000:
                self._pre[s] = out
        return out


def diagonal_first_traceback(
    W: list[list[Any]], m: list[list[Any]], k: int, n: int
) -> list[tuple[int, int]]:
    """Matched child pairs ``(i, j)`` of an STM/G-STM table, walking back from ``(k, n)``:
    a pair whose weight ``W[i][j] > 0`` explains ``m`` is taken first, then a skip of a
    row, then of a column (digest gstm.md R-11). In document order."""
    out: list[tuple[int, int]] = []
    i, j = k, n
    while i > 0 and j > 0:
        w = W[i - 1][j - 1]
        v = m[i][j]
        if w > 0 and v == m[i - 1][j - 1] + w:
            out.append((i - 1, j - 1))
            i -= 1
            j -= 1
        elif v == m[i - 1][j]:
            i -= 1
        else:
            j -= 1
    out.reverse()
    return out


def _stm_rows(W: list[list[int]], n: int) -> list[list[int]]:
    """The STM dynamic programme ``M[i][j] = max(M[i-1][j], M[i][j-1], M[i-1][j-1] + W)``
    (digest §2.2), all rows. Plain comparisons: measured about 3x faster than
    ``map(max, ...)``/``accumulate`` on the small matrices tree matching sees (1x1 to
    30x30), where the call overhead of ``max`` dominates."""
    prev = [0] * (n + 1)
    rows = [prev]
    rng = range(1, n + 1)
    for wi in W:
        cur = [0] * (n + 1)
        left = 0
        for j in rng:
            v = prev[j - 1] + wi[j - 1]
            if left > v:
                v = left
            u = prev[j]
            if u > v:
                v = u
            cur[j] = left = v
        rows.append(cur)
        prev = cur
    return rows


class STM:
    """Simple tree matching (Yang 1991; digest §2.2/§3.2) on interned :class:`Shapes`:
    the one implementation behind G-STM's baseline (:meth:`Matcher.stm`), field alignment
    (:mod:`scrapy_records.fields.alignment`) and MiBAT (:mod:`scrapy_records.extractors.mibat`).

    ``score(a, b)`` is the maximum top-down matching of shapes ``a`` and ``b`` (no level
    crossing, no relabelling), memoised per shape pair and evaluated with an explicit stack
    (no recursion over the tree); identical shapes score ``self_score`` without a DP.
    ``pairs(a, b)`` is the DP traceback at the pair: the matched child positions.

    What differs between callers is a parameter, not a copy:

    * weights: a matched node pair counts ``unit``, plus ``sig_bonus`` when both shapes have
      the same ``sig``; with ``unit`` larger than any tree's bonus total this maximises
      matched nodes first and agreement second (alignment's class tie-break [proj]);
    * ``tie``: traceback order among equal matchings, ``"diagonal"`` (match > up > left, the
      paper's and MiBAT's §3.4 MAPPING) or ``"skip"`` (up > left > match: pairs sit leftmost,
      so the first items of variable-length lists align, alignment [proj]);
    * ``symmetric``: memoise ``(a, b)`` and ``(b, a)`` as one entry (scores only);
    * budgets (digest §4, "fall back" past a budget), ``approx``:

      - ``"none"``: always exact;
      - ``"score"``: a pair whose ``size_a * size_b`` exceeds ``max_size_product`` scores
        the LCS of the two pre-order label strings (rapidfuzz, C; an upper bound of STM),
        ``seq(shape)`` giving the string (default :meth:`Shapes.preorder`); tracebacks stay
        exact at the level of children (MiBAT);
      - ``"pairs"``: a pair whose children matrix exceeds ``max_node_cells``, or any pair
        once more than ``max_cells`` DP cells were spent, aligns its children by the LCS of
        their label sequences and matches below those pairs only (field alignment). The
        decision is taken when the pair is evaluated, so the order of evaluation (the
        caller's order of requests) is part of the result, as it was.

    ``eager=True`` keeps the traceback of every pair solved by the DP (from the same DP
    rows, when most solved pairs are traced later, as in field alignment); by default a
    traceback is computed when :meth:`pairs` first asks for it.

    The memo lives as long as the object: callers keep one per page (alignment shares it
    between every region and extractor of a page, MiBAT between the parents of one run).
    """

    __slots__ = (
        "shapes",
        "unit",
        "sig_bonus",
        "tie",
        "symmetric",
        "approx",
        "max_size_product",
        "max_node_cells",
        "max_cells",
        "seq",
        "eager",
        "memo",
        "tb",
        "cells",
        "approximated",
    )

    def __init__(
        self,
        shapes: Shapes,
        *,
        unit: int = 1,
        sig_bonus: int = 0,
        tie: str = "diagonal",
        symmetric: bool = False,
        approx: str = "none",
        max_size_product: int | None = None,
        max_node_cells: int | None = None,
        max_cells: int | None = None,
        seq: Any = None,
        eager: bool = False,
    ) -> None:
        if tie not in ("diagonal", "skip"):
            raise ValueError(f"tie must be 'diagonal' or 'skip', not {tie!r}")
        if approx not in ("none", "score", "pairs"):
            raise ValueError(f"approx must be 'none', 'score' or 'pairs', not {approx!r}")
        self.shapes = shapes
        self.unit = int(unit)
        self.sig_bonus = int(sig_bonus)
        self.tie = tie
        self.symmetric = bool(symmetric)
        self.approx = approx
        self.max_size_product = max_size_product
        self.max_node_cells = max_node_cells
        self.max_cells = max_cells
        self.seq = seq if seq is not None else shapes.preorder
        self.eager = bool(eager)
        self.memo: dict[tuple[int, int], int] = {}
        #: tracebacks (and the LCS child pairs of budget-approximated pairs, "pairs" mode)
        self.tb: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
        self.cells = 0  #: DP cells evaluated (the ``max_cells`` budget counts these)
        self.approximated = 0  #: pairs answered by an LCS approximation

    # ------------------------------------------------------------ public
    def self_score(self, a: int) -> int:
        """STM of a shape against itself: every node matched, every ``sig`` equal."""
        return self.shapes.size[a] * (self.unit + self.sig_bonus)

    def score(self, a: int, b: int) -> int:
        """STM score of shapes ``a`` and ``b`` (0 when the root labels differ)."""
        s = self.shapes
        if a == b:
            return s.size[a] * (self.unit + self.sig_bonus)
        if s.label[a] != s.label[b]:
            return 0
        key = (b, a) if self.symmetric and b < a else (a, b)
        v = self.memo.get(key)
        if v is None:
            self._solve(key[0], key[1])
            v = self.memo[key]
        return v

    def pairs(self, a: int, b: int) -> tuple[tuple[int, int], ...]:
        """Matched child positions ``(i, j)`` of the maximum matching at ``(a, b)``, in
        order (the traceback, ``tie`` order; LCS pairs for a budget-approximated pair in
        ``"pairs"`` mode). The root labels are not compared."""
        if a == b:
            return tuple((i, i) for i in range(len(self.shapes.kids[a])))
        r = self.tb.get((a, b))
        if r is None:
            if self.approx == "pairs":
                if (a, b) not in self.memo:
                    self._solve(a, b)
                r = self.tb.get((a, b))
                if r is not None:
                    return r
            r = self.tb[(a, b)] = self._traceback(a, b)
        return r

    # ------------------------------------------------------------ internals
    def _key(self, x: int, y: int) -> tuple[int, int]:
        return (y, x) if self.symmetric and y < x else (x, y)

    def _lcs_pairs(self, ka: tuple[int, ...], kb: tuple[int, ...]) -> list[tuple[int, int]]:
        lab = self.shapes.label
        out = []
        for op in LCSseq.opcodes([lab[x] for x in ka], [lab[y] for y in kb]):
            if op.tag == "equal":
                for d in range(op.src_end - op.src_start):
                    out.append((op.src_start + d, op.dest_start + d))
        return out

    def _weights(self, ka: tuple[int, ...], kb: tuple[int, ...]) -> list[list[int]]:
        """The children score matrix (children solved or solvable on demand)."""
        lab = self.shapes.label
        memo = self.memo
        score = self.score
        sym = self.symmetric
        one = self.unit + self.sig_bonus
        sz = self.shapes.size
        W = []
        for x in ka:
            lx = lab[x]
            row = []
            for y in kb:
                if lab[y] != lx:
                    row.append(0)
                elif x == y:
                    row.append(sz[x] * one)
                else:
                    v = memo.get((y, x) if sym and y < x else (x, y))
                    row.append(score(x, y) if v is None else v)
            W.append(row)
        return W

    def _solve(self, a0: int, b0: int) -> None:
        """Evaluate the pair ``(a0, b0)`` (a memo key) and every pair below it it needs.

        Depth-first with an explicit stack: a pair is expanded (the child pairs it needs
        pushed) on its first visit and combined when it is on top again, i.e. once all of
        them are solved. The ``"pairs"`` budget is decided at combination time (the cell
        count may have grown meanwhile); child pairs needed by an exact DP cover those of
        the LCS alignment, so a pair never needs a second expansion."""
        s = self.shapes
        label, kids, sig, size = s.label, s.kids, s.sig, s.size
        memo = self.memo
        sym = self.symmetric
        approx = self.approx
        unit, bonus = self.unit, self.sig_bonus
        one = unit + bonus
        lim_size = self.max_size_product if approx == "score" else None
        pairs_mode = approx == "pairs"
        lim_node = self.max_node_cells
        cap = self.max_cells
        skip = self.tie == "skip"
        stack: list[tuple[int, int, Any]] = [(a0, b0, None)]
        while stack:
            a, b, seen = stack[-1]
            if (a, b) in memo:
                stack.pop()
                continue
            ka, kb = kids[a], kids[b]
            if lim_size is not None and size[a] * size[b] > lim_size:
                self.approximated += 1
                memo[(a, b)] = int(LCSseq.similarity(self.seq(a), self.seq(b)))
                stack.pop()
                continue
            cand = None
            if pairs_mode and (
                (lim_node is not None and len(ka) * len(kb) > lim_node)
                or (cap is not None and self.cells > cap)
            ):
                cand = seen if isinstance(seen, list) else self._lcs_pairs(ka, kb)
            if seen is None:  # first visit: expand
                if cand is not None:
                    need = [
                        (ka[i], kb[j], None)
                        for i, j in cand
                        if ka[i] != kb[j] and (ka[i], kb[j]) not in memo
                    ]
                else:
                    need = []
                    for x in ka:
                        lx = label[x]
                        for y in kb:
                            if x != y and label[y] == lx:
                                if sym and y < x:
                                    if (y, x) not in memo:
                                        need.append((y, x, None))
                                elif (x, y) not in memo:
                                    need.append((x, y, None))
                if need:
                    stack[-1] = (a, b, cand if cand is not None else True)
                    stack.extend(need)
                    continue
            stack.pop()
            base = one if bonus and sig[a] == sig[b] else unit
            if cand is not None:
                self.approximated += 1
                tot = base
                for i, j in cand:
                    x, y = ka[i], kb[j]
                    tot += size[x] * one if x == y else memo[(x, y)]
                memo[(a, b)] = tot
                self.tb[(a, b)] = tuple(cand)
                continue
            k, n = len(ka), len(kb)
            self.cells += k * n
            if k == 0 or n == 0:
                memo[(a, b)] = base
                continue
            W = []
            done: dict[int, list[int]] = {}
            for x in ka:
                row = done.get(x)
                if row is None:
                    lx = label[x]
                    row = done[x] = []
                    for y in kb:
                        if label[y] != lx:
                            row.append(0)
                        elif x == y:
                            row.append(size[x] * one)
                        else:
                            row.append(memo[(y, x) if sym and y < x else (x, y)])
                W.append(row)
            if k == 1 or n == 1:
                # one row (column): the best single pair, no DP; the traceback takes the
                # first maximum ("skip": up/left before the match) or the last ("diagonal")
                w = W[0] if k == 1 else [r[0] for r in W]
                best = max(w)
                memo[(a, b)] = best + base
                if self.eager:
                    if best <= 0:
                        self.tb[(a, b)] = ()
                    else:
                        at = w.index(best) if skip else len(w) - 1 - w[::-1].index(best)
                        self.tb[(a, b)] = ((0, at),) if k == 1 else ((at, 0),)
                continue
            m = _stm_rows(W, n)
            memo[(a, b)] = m[k][n] + base
            if self.eager:
                self.tb[(a, b)] = self._trace(W, m, k, n)

    def _traceback(self, a: int, b: int) -> tuple[tuple[int, int], ...]:
        ka, kb = self.shapes.kids[a], self.shapes.kids[b]
        k, n = len(ka), len(kb)
        if k == 0 or n == 0:
            return ()
        W = self._weights(ka, kb)
        return self._trace(W, _stm_rows(W, n), k, n)

    def _trace(
        self, W: list[list[int]], m: list[list[int]], k: int, n: int
    ) -> tuple[tuple[int, int], ...]:
        """Walk the DP rows ``m`` back from ``(k, n)`` in ``tie`` order."""
        out: list[tuple[int, int]] = []
        i, j = k, n
        if self.tie == "skip":
            while i > 0 and j > 0:
                v = m[i][j]
                if v == m[i - 1][j]:
                    i -= 1
                elif v == m[i][j - 1]:
                    j -= 1
                else:
                    out.append((i - 1, j - 1))
                    i -= 1
                    j -= 1
        else:
            return tuple(diagonal_first_traceback(W, m, k, n))
        out.reverse()
        return tuple(out)


# --------------------------------------------------------------------------- grammar
@dataclass
class Grammar:
    """A union-free regex over a linear state chain (digest §3.5, R-6).

    ``edges[e]`` is the symbol of chain edge ``q_e -> q_{e+1}`` (each symbol labels exactly
    one edge, §2.6); ``opt`` the optional edges (``x?``); ``loops`` the back edges
    ``(f, g)`` = epsilon ``q_f -> q_g`` meaning ``(e_g ... e_{f-1})+``; ``pos_edge[p]`` the
    edge consumed by the p-th input symbol and ``back[p]`` the loop traversed just before
    consuming it (``None`` when none): the events §3.9 segments records with.
    """

    edges: list[Any]
    opt: set[int]
    loops: set[tuple[int, int]]
    pos_edge: list[int] = field(default_factory=list)
    back: list[tuple[int, int] | None] = field(default_factory=list)

    def list_symbols(self) -> set[Any]:
        """Symbols under a ``+`` (the set L of R-2)."""
        out: set[Any] = set()
        for f, g in self.loops:
            out.update(self.edges[g:f])
        return out

    def __str__(self) -> str:
        return render(self)


def _laminar(g: int, f: int, loops: set[tuple[int, int]]) -> bool:
    for f2, g2 in loops:
        # edge ranges [g, f) and [g2, f2) must be nested or disjoint
        if g < g2 < f < f2 or g2 < g < f2 < f:
            return False
    return True


def grammar_generation(seq: Sequence[Any], literal: bool = False) -> Grammar:
    """Grammar-Generation (paper Figure 7) in the implementable R-6 form of digest §3.5.

    ``literal=True`` keeps the paper's line 9 as written (the back edge always starts at
    the current state, without the R-6b laminarity repair), which can yield crossing loops
    (digest T9: ``abcba``).
    """
    edges: list[Any] = []
    pos: dict[Any, int] = {}
    opt: set[int] = set()
    loops: set[tuple[int, int]] = set()
    pos_edge: list[int] = []
    back: list[tuple[int, int] | None] = []
    c = 0

    def skip_to(t: int) -> None:
        nonlocal c
        while c < t:
            opt.add(c)
            c += 1

    for s in seq:
        e = pos.get(s)
        used: tuple[int, int] | None = None
        if e is None:  # lines 11-13; R-6a: append at the end of the chain
            skip_to(len(edges))
            e = pos[s] = len(edges)
            edges.append(s)
            c += 1
        elif e >= c:  # lines 4-5, or a forward skip over optional edges
            skip_to(e)
            c = e + 1
        else:  # a repeat: loop back to q_e
            i = e
            cands = [f for (f, g) in loops if g == i and f >= c]
            if cands:  # lines 7-8: reuse the existing loop into q_i
                f = min(cands)
                skip_to(f)
                used = (f, i)
                c = i + 1
            elif literal:  # line 9 as written: epsilon q_c -> q_i
                used = (c, i)
                loops.add(used)
                c = i + 1
            else:  # R-6b: the first laminar f >= c
                n = len(edges)
                f = next((f for f in range(c, n + 1) if _laminar(i, f, loops)), None)
                if f is not None:
                    skip_to(f)
                    used = (f, i)
                    loops.add(used)
                    c = i + 1
                else:
                    encl = [g2 for (f2, g2) in loops if g2 < i <= f2]
                    g = min(encl) if encl else 0
                    opt.update(range(g, i))
                    f = next((f for f in range(c, n + 1) if _laminar(g, f, loops)), n)
                    skip_to(f)
                    used = (f, g)
                    loops.add(used)
                    c = i + 1
        pos_edge.append(e)
        back.append(used)
    skip_to(len(edges))  # lines 14-16: trailing edges of the last record become optional
    return Grammar(edges, opt, loops, pos_edge, back)


def render(g: Grammar, names: Any = None, only: set[Any] | None = None) -> str:
    """Figure 7 line 17: the regular expression of a grammar (``(d)+`` written ``d+``).

    :param names: optional mapping or callable symbol -> display string.
    :param only: render only these edge symbols (used by the literal R-2 comparison).
    """

    def name(s: Any) -> str:
        if names is None:
            return str(s)
        return str(names(s) if callable(names) else names[s])

    out: list[str] = []
    n = len(g.edges)
    opens: dict[int, int] = {}
    closes: dict[int, list[int]] = {}
    for f, gg in g.loops:
        opens[gg] = opens.get(gg, 0) + 1
        closes.setdefault(f, []).append(gg)
    for i in range(n + 1):
        for gg in sorted(closes.get(i, ()), reverse=True):  # inner groups first
            body_start = len(out) - 1
            # find the matching "(" to drop parentheses around a single atom
            depth = 0
            j = len(out) - 1
            while j >= 0:
                if out[j] == ")+":
                    depth += 1
                elif out[j] == "(":
                    if depth == 0:
                        break
                    depth -= 1
                j -= 1
            if (
                j >= 0
                and body_start - j == 1
                and not out[body_start].endswith("?")
                and len(out[body_start]) == 1
                and out[body_start] != ")+"
            ):
                out.pop(j)
                out.append("+")
            else:
                out.append(")+")
        if i == n:
            break
        out.extend("(" for _ in range(opens.get(i, 0)))
        if only is None or g.edges[i] in only:
            out.append(name(g.edges[i]) + ("?" if i in g.opt else ""))
    s = "".join(out)
    if only is not None:  # drop empty groups left by filtered symbols
        prev = None
        while prev != s:
            prev = s
            s = s.replace("()+", "")
    return s


def segment(
    g: Grammar, lo: int = 0, hi: int | None = None, scope: tuple[int, int] | None = None
) -> list[Any]:
    """Record segmentation from the grammar's back edges (digest §3.9, R-7).

    Returns the items of input positions ``lo..hi-1``: an ``int`` (a position outside any
    loop of ``scope``) or a ``list`` of instances for a loop, each instance being again a
    list of items. A traversal of loop ``(f, g)``'s back edge closes the current instance
    and opens a new one; entering ``[g, f)`` opens the first one; leaving it closes the group.
    """
    if hi is None:
        hi = len(g.pos_edge)
    if scope is None:
        inner = sorted(g.loops, key=lambda fg: (fg[1], -fg[0]))
    else:
        sf, sg = scope
        inner = [(f, gg) for (f, gg) in g.loops if sg <= gg and f <= sf and (f, gg) != scope]
    # outermost loops within the scope
    outer = [L for L in inner if not any(o != L and o[1] <= L[1] and L[0] <= o[0] for o in inner)]
    items: list[Any] = []
    p = lo
    pe = g.pos_edge
    while p < hi:
        e = pe[p]
        L = next(((f, gg) for (f, gg) in outer if gg <= e < f), None)
        if L is None:
            items.append(p)
            p += 1
            continue
        f, gg = L
        q = p
        while q < hi and gg <= pe[q] < f:
            q += 1
        starts = [p] + [
            r
            for r in range(p + 1, q)
            if g.back[r] is not None and g.back[r][1] <= gg and g.back[r][0] >= f
        ]
        starts.append(q)
        insts = [segment(g, a, b, L) for a, b in zip(starts, starts[1:])]
        items.append(insts)
        p = q
    return items


def flatten(items: list[Any]) -> list[int]:
    """All positions of a segmented item list, in order."""
    out: list[int] = []
    stack = [iter(items)]
    while stack:
        for it in stack[-1]:
            if isinstance(it, list):
                stack.append(iter(it))
                break
            out.append(it)
        else:
            stack.pop()
    return out


# --------------------------------------------------------------------------- matcher
class _UF:
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
    """One list symbol collapsed by UpdateW (digest §3.6/§3.7): A and B instances."""

    symbol: int
    ia: list[int]
    ib: list[int]
    avg_score: float
    avg_nodes: float


@dataclass
class Detail:
    """Everything G-STM computed at one node pair (for traceback, R-11, and pattern building).

    ``W`` and ``W_norm`` are kept per pair of child *shape classes* (children with the same
    structural hash have equal rows): ``cls_a[i]`` / ``cls_b[j]`` index ``cw`` / ``cwn``;
    :meth:`w_at` / :meth:`wn_at` (and the full matrices :attr:`w` / :attr:`wn`) read them.
    """

    score: float
    na: float
    nb: float
    cls_a: list[int]
    cls_b: list[int]
    cw: list[list[tuple[float, float, float]]]
    cwn: list[list[float]]
    sym_a: list[int]
    sym_b: list[int]
    gram_a: Grammar | None
    gram_b: Grammar | None
    lists: bool  # the grammars matched and UpdateW ran
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
    def w(self) -> list[list[tuple[float, float, float]]]:
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
    # symbols are small ints; render as letters a..z, then s<n>
    return chr(ord("a") + s) if s < 26 else f"<{s}>"


@dataclass
class PageTree:
    """A page's elements and text leaves as shapes (built by :meth:`Matcher.page_tree`).

    ``shape[i]`` is the shape id of element ``i``; ``kids[i]`` its children in document
    order as ints: ``>= 0`` an element index, ``< 0`` the text leaf ``~k`` (``-k-1``).
    """

    page: Any
    shape: list[int]
    kids: list[list[int]]
    root: int

    def kid_nodes(self, i: int, positions: Sequence[int]) -> list[int]:
        """The element indices among the given child positions of element ``i``."""
        ks = self.kids[i]
        return [ks[p] for p in positions if ks[p] >= 0]


class Matcher:
    """Shape intern table plus memoized STM / G-STM (digest §3.7).

    One matcher is shared by the trees that are compared (a page and its copy, or the
    training pages of one template), so equal sub-trees get equal ids.
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
        """Shape ids of every element of ``page`` (reverse pre-order over the page arrays).

        Text leaves are children labelled ``#text`` placed in document order among the
        element children (a leaf ``k`` precedes element ``c`` iff ``leaf_elem[k] <= c``).
        """
        n = len(page.tag)
        kids: list[list[int]] = [[] for _ in range(n)]
        owned: list[list[int]] = [[] for _ in range(n)]
        for k, o in enumerate(page.leaf_owner):
            owned[o].append(k)
        children = page.children
        leaf_elem = page.leaf_elem
        for i in range(n):
            ch = children[i]
            lv = owned[i]
            if not lv:
                kids[i] = list(ch)
                continue
            if not ch:
                kids[i] = [-k - 1 for k in lv]
                continue
            out: list[int] = []
            a = b = 0
            while a < len(ch) or b < len(lv):
                if b < len(lv) and (a >= len(ch) or leaf_elem[lv[b]] <= ch[a]):
                    out.append(-lv[b] - 1)
                    b += 1
                else:
                    out.append(ch[a])
                    a += 1
            kids[i] = out
        shape = [0] * n
        tid = page.tag_id
        lab = [self.label(name) for name in sorted(page.tag_names, key=page.tag_names.get)]
        ts = self.text_shape
        intern = self.intern
        for i in range(n - 1, -1, -1):
            shape[i] = intern(lab[tid[i]], tuple(shape[c] if c >= 0 else ts for c in kids[i]))
        r = page.body if root is None else root
        return PageTree(page, shape, kids, r)

    def from_spec(self, spec: str) -> int:
        """Shape of a tree written ``a(b(d,d,c),b(c,f,g))`` (tests, digest §7 notation)."""
        stack: list[tuple[int, list[int]]] = []
        tok = ""
        result: int | None = None
        pending: int | None = None

        def close_leaf() -> None:
            nonlocal tok, pending
            if tok:
                pending = self.intern(self.label(tok), ())
                tok = ""

        for ch in spec.replace(" ", "") + "\0":
            if ch.isalnum() or ch in "#_-":
                tok += ch
            elif ch == "(":
                stack.append((self.label(tok), []))
                tok = ""
            elif ch in ",)\0":
                close_leaf()
                if pending is not None:
                    if stack:
                        stack[-1][1].append(pending)
                    else:
                        result = pending
                    pending = None
                if ch == ")":
                    lab, ch_ = stack.pop()
                    pending = self.intern(lab, tuple(ch_))
                if ch == "\0" and pending is not None:
                    result = pending
            else:
                raise ValueError(f"bad character {ch!r} in tree spec")
        if result is None or stack:
            raise ValueError(f"malformed tree spec {spec!r}")
        return result

    def to_spec(self, h: int) -> str:
        """Inverse of :meth:`from_spec` (iterative)."""
        out: list[str] = []
        stack: list[Any] = [h]
        while stack:
            x = stack.pop()
            if isinstance(x, str):
                out.append(x)
                continue
            out.append(self.label_names[self.s_label[x]])
            ch = self.s_children[x]
            if ch:
                stack.append(")")
                for k, c in enumerate(reversed(ch)):
                    stack.append(c)
                    if k < len(ch) - 1:
                        stack.append(",")
                stack.append("(")
        return "".join(out)

    # ------------------------------------------------------------ STM (baseline)
    def stm(self, a: int, b: int) -> int:
        """Simple tree matching W(A, B) (digest §2.2, §3.2): the shared :class:`STM`,
        memoized, iterative, exact."""
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
        """G-STM(A, B) -> ``(score, nodes_A, nodes_B)`` (paper Figure 5, digest §3.7)."""
        lab, chn, sz, memo = self.s_label, self.s_children, self.s_size, self.memo
        if lab[a] != lab[b]:
            return (0.0, float(sz[a]), float(sz[b]))
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
            self.cells += len(ux) * len(uy) + len(cx) if diag else kn
            if diag:
                self.approximated += 1
            if x == y:
                # a node against its copy (Problem 2): keep the detail when it holds lists,
                # so that list extraction does not recompute it
                d = self._combine(x, x, True, diag)
                memo[(x, x)] = (d.score, d.na, d.nb)
                self._sd[x] = d if d.lists else None
            else:
                memo[(x, y)] = self._combine(x, y, False)  # type: ignore[assignment]
            stack.pop()
        return memo[(a, b)]

    def norm(self, a: int, b: int) -> float:
        """Normalized score ``score / max(nodes_A, nodes_B)`` (digest §2.4)."""
        s, na, nb = self.match(a, b)
        m = max(na, nb)
        return s / m if m else 0.0

    def self_lists(self, h: int) -> Detail | None:
        """The detail of G-STM(h, copy(h)) when it found lists, else ``None`` (Problem 2)."""
        if h not in self._sd:
            self.match(h, h)
            if h not in self._sd:  # computed before through the symmetric memo
                d = self.detail(h, h)
                self._sd[h] = d if d.lists else None
        return self._sd[h]

    def detail(self, a: int, b: int) -> Detail:
        """The full G-STM computation at the pair ``(a, b)``: W, symbols, grammars, lists,
        the DP traceback (R-11). Child pairs come from the memo (computed if needed)."""
        lab = self.s_label
        if lab[a] != lab[b]:
            return _empty_detail(0.0, float(self.s_size[a]), float(self.s_size[b]))
        r = self.match(a, b)
        kn = len(self.s_children[a]) * len(self.s_children[b])
        if self.max_node_cells is not None and kn > self.max_node_cells:
            if a == b and a in self._sd and self._sd[a] is not None:
                return self._sd[a]
            if a == b and len(set(self.s_children[a])) ** 2 <= self.max_node_cells:
                return self._combine(a, a, True, True)  # type: ignore[return-value]
            return _empty_detail(r[0], r[1], r[2])
        # the budget may have approximated the children: make sure the cells exist
        memo = self.memo
        for p in self.s_children[a]:
            for q in self.s_children[b]:
                if lab[p] == lab[q] and (p, q) not in memo:
                    self.match(p, q)
        return self._combine(a, b, True)  # type: ignore[return-value]

    def _cell(self, p: int, q: int) -> tuple[float, float, float]:
        if self.s_label[p] != self.s_label[q]:
            return (0.0, float(self.s_size[p]), float(self.s_size[q]))
        r = self.memo.get((p, q))
        if r is None:
            r2 = self.memo.get((q, p))
            if r2 is not None:
                return (r2[0], r2[2], r2[1])
            return self.match(p, q)
        return r

    def _combine(self, a: int, b: int, want: bool, diag: bool = False) -> Any:
        """Lines 8-15 of Figure 5 given the memoized child results (digest §3.7).

        Children with the same shape have identical W rows, so W, W_norm, the row/column
        maxima, the match criteria and UpdateW's averages are computed per pair of shape
        *classes* (exactly equivalent, ``O(d_A * d_B)`` instead of ``O(k * n)``); only the
        DP runs over all ``k * n`` cells (:func:`_stm_rows`, the same rows as STM's).
        """
        ca, cb = self.s_children[a], self.s_children[b]
        k, n = len(ca), len(cb)
        sz = self.s_size
        if k == 0 or n == 0:
            if want:
                return _empty_detail(1.0, float(sz[a]), float(sz[b]))
            return (1.0, float(sz[a]), float(sz[b]))
        lab = self.s_label
        memo = self.memo
        same = a == b
        ida: dict[int, int] = {}
        cls_a = [ida.setdefault(p, len(ida)) for p in ca]
        ua = list(ida)
        if same:
            cls_b, ub = cls_a, ua
        else:
            idb: dict[int, int] = {}
            cls_b = [idb.setdefault(q, len(idb)) for q in cb]
            ub = list(idb)
        da, db = len(ua), len(ub)
        cw: list[list[tuple[float, float, float]]] = []
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
                r = memo.get((p, q))
                if r is None:
                    r2 = memo.get((q, p))
                    r = (r2[0], r2[2], r2[1]) if r2 is not None else self.match(p, q)
                row.append(r)
                s0 = r[0]
                if s0 > 0:
                    nrow.append(s0 / (r[1] if r[1] > r[2] else r[2]))
                else:
                    nrow.append(0.0)
            cw.append(row)
            cwn.append(nrow)
        # ---- Detect-Lists (Figure 6): criteria per class pair
        rmax = [max(r) for r in cwn]
        cmax = rmax if same else [max(col) for col in zip(*cwn)]
        t1, t2 = self.tau1, self.tau2
        uf: _UF | None = None
        for u in range(da):
            ru = rmax[u]
            if ru <= t1:
                continue
            row_n = cwn[u]
            for v in range(u, db) if same else range(db):
                sc = row_n[v]
                if sc > t1 and sc / ru > t2 and sc / cmax[v] > t2:
                    if uf is None:
                        uf = _UF(da + db)
                    uf.union(u, da + v)
                    if same:
                        uf.union(v, da + u)
        if uf is not None and self.group_check:
            # R-4 [proj]: transitive chaining (A1~B2~A3) may join dissimilar children; reject
            # a group whose weakest cross pair is not above tau1
            members: dict[int, tuple[list[int], list[int]]] = {}
            for x in range(da + db):
                side = members.setdefault(uf.find(x), ([], []))
                (side[0] if x < da else side[1]).append(x if x < da else x - da)
            for r, (us, vs) in members.items():
                if us and vs and min(cwn[u][v] for u in us for v in vs) <= t1:
                    for u in us:
                        uf.p[u] = u
                    for v in vs:
                        uf.p[da + v] = da + v
            if all(uf.p[x] == x for x in range(da + db)):
                uf = None
        groups: list[ListGroup] = []
        sym_a: list[int] = []
        sym_b: list[int] = []
        gA = gB = None
        if uf is not None or want:
            # symbols: a matched class's children share its group's symbol; every child of
            # an unmatched class gets a unique symbol (digest §2.5)
            matched = [False] * (da + db)
            if uf is not None:
                for x in range(da + db):
                    if uf.p[x] != x:
                        matched[x] = True
                        matched[uf.find(x)] = True
            ids: dict[Any, int] = {}
            for i in range(k):
                u = cls_a[i]
                key = ("g", uf.find(u)) if matched[u] else ("a", i)  # type: ignore[union-attr]
                sym_a.append(ids.setdefault(key, len(ids)))
            for j in range(n):
                v = da + cls_b[j]
                key = ("g", uf.find(v)) if matched[v] else ("b", j)  # type: ignore[union-attr]
                sym_b.append(ids.setdefault(key, len(ids)))
        if uf is not None and len(set(sym_a)) == k and len(set(sym_b)) == n:
            uf = None  # every symbol occurs once on each side: no repeat, no list (fast path)
        if uf is not None:
            lit = self.literal_grammar
            gA = grammar_generation(sym_a, lit)
            gB = grammar_generation(sym_b, lit)
            L = gA.list_symbols() | gB.list_symbols()
            listed = False
            if L:
                if self.r2 == "literal":
                    listed = (
                        bool(gA.loops)
                        and bool(gB.loops)
                        and render(gA, only=L) == render(gB, only=L)
                    )
                else:
                    if self.r2 == "lenient":
                        L = L & set(sym_a) & set(sym_b)
                    listed = bool(L) and [x for x in gA.edges if x in L] == [
                        x for x in gB.edges if x in L
                    ]
            if listed:
                # ---- UpdateW (Figure 9), per symbol, averages from class counts
                ea = set(gA.edges)
                order = [x for x in gA.edges if x in L] + [
                    x for x in gB.edges if x in L and x not in ea
                ]
                for sy in order:
                    ia = [i for i in range(k) if sym_a[i] == sy]
                    ib = [j for j in range(n) if sym_b[j] == sy]
                    if not ia or not ib:
                        continue
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
                    groups.append(ListGroup(sy, ia, ib, tot_s / cnt, tot_n / (2 * cnt)))
        # ---- W2 scores and the DP (lines 12-14), one row at a time
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
            # budget path for a huge node against its copy: the identity alignment instead of
            # the k*k DP (W2 is symmetric and each child's best partner is itself)
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
            return self._finish(
                a, b, want, tot + 1.0, pairs, groups, cw, cwn, cls_a, cls_b, sym_a, sym_b, gA, gB
            )
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
        m_rows = _stm_rows(rows_s, n)
        score = m_rows[k][n] + 1.0
        # ---- traceback
        pairs = diagonal_first_traceback(rows_s, m_rows, k, n)
        return self._finish(
            a, b, want, score, pairs, groups, cw, cwn, cls_a, cls_b, sym_a, sym_b, gA, gB
        )

    def _finish(
        self,
        a: int,
        b: int,
        want: bool,
        score: float,
        pairs: list[tuple[int, int]],
        groups: list[ListGroup],
        cw: Any,
        cwn: Any,
        cls_a: list[int],
        cls_b: list[int],
        sym_a: list[int],
        sym_b: list[int],
        gA: Grammar | None,
        gB: Grammar | None,
    ) -> Any:
        ca, cb = self.s_children[a], self.s_children[b]
        k, n = len(ca), len(cb)
        sz = self.s_size
        # ---- sizes (R-3, or the literal lines 19-22 / Figure 6 line 19)
        if self.sizes == "literal" and not groups:
            na, nb = float(sz[a]), float(sz[b])
        else:
            inA = {i for g in groups for i in g.ia}
            inB = {j for g in groups for j in g.ib}
            gl = sum(g.avg_nodes for g in groups)
            na = nb = 1.0 + gl
            if self.sizes == "literal":
                na += sum(sz[ca[i]] for i in range(k) if i not in inA)
                nb += sum(sz[cb[j]] for j in range(n) if j not in inB)
            else:
                alA = {i: j for i, j in pairs}
                alB = {j: i for i, j in pairs}
                for i in range(k):
                    if i not in inA:
                        na += cw[cls_a[i]][cls_b[alA[i]]][1] if i in alA else sz[ca[i]]
                for j in range(n):
                    if j not in inB:
                        nb += cw[cls_a[alB[j]]][cls_b[j]][2] if j in alB else sz[cb[j]]
        if not want:
            return (score, na, nb)
        return Detail(
            score, na, nb, cls_a, cls_b, cw, cwn, sym_a, sym_b, gA, gB, bool(groups), groups, pairs
        )
