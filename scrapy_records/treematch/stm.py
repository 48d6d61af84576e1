"""Simple tree matching (STM) on interned shapes: the one STM of the library.

STM (Yang 1991; Jindal and Liu 2010, section 4.1) scores the largest top-down matching of two
trees, without level crossing or relabelling, by a dynamic programme over their
children. :class:`STM` is used by G-STM's baseline, field alignment and MiBAT; what
differs between them is a parameter (weights, tie order, budgets), not a copy.
:func:`stm_rows` and :func:`diagonal_first_traceback` are shared with G-STM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

from rapidfuzz.distance import LCSseq

from scrapy_records.treematch.shapes import Shapes

#: :meth:`STM._expand` finds a child's partners by label beyond this many children
_BY_LABEL = 6


def diagonal_first_traceback(
    W: Sequence[Sequence[Any]], m: Sequence[Sequence[Any]], k: int, n: int
) -> list[tuple[int, int]]:
    """Matched child pairs ``(i, j)`` of an STM/G-STM table, walking back from ``(k, n)``:
    a pair whose weight ``W[i][j] > 0`` explains ``m`` is taken first, then a skip of a
    row, then of a column. In document order."""
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


@overload
def stm_rows(W: list[list[int]], n: int) -> list[list[int]]: ...
@overload
def stm_rows(W: list[list[float]], n: int) -> list[list[float]]: ...
def stm_rows(W: list[list[Any]], n: int) -> list[list[Any]]:
    """The STM dynamic programme ``M[i][j] = max(M[i-1][j], M[i][j-1], M[i-1][j-1] + W)``,
    all rows. Plain comparisons: about 3x faster than ``map(max, ...)``/``accumulate`` on
    the small matrices tree matching sees (1x1 to 30x30), where calls to ``max`` dominate.

    A row of zero weights (a child whose label no child of the other tree has: a third of
    the rows) repeats the row above, which is non-decreasing: it is shared, not recomputed
    (the rows are only read)."""
    prev = [0] * (n + 1)
    rows = [prev]
    rng = range(1, n + 1)
    for wi in W:
        if not any(wi):
            rows.append(prev)
            continue
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


def _by_label(kb: Sequence[int], lab: Sequence[int]) -> dict[int, list[int]]:
    """The positions of the shapes ``kb`` by label."""
    at: dict[int, list[int]] = {}
    for j, y in enumerate(kb):
        js = at.get(lab[y])
        if js is None:
            at[lab[y]] = [j]
        else:
            js.append(j)
    return at


class STM:
    """Simple tree matching on interned :class:`~scrapy_records.treematch.shapes.Shapes`.

    ``score(a, b)`` is the maximum top-down matching of shapes ``a`` and ``b`` (no level
    crossing, no relabelling), memoised per shape pair and evaluated with an explicit stack
    (no recursion over the tree); identical shapes score ``self_score`` without a DP.
    ``pairs(a, b)`` is the DP traceback at the pair: the matched child positions.

    What differs between callers is a parameter, not a copy:

    * weights: a matched node pair counts ``unit``, plus ``sig_bonus`` when both shapes have
      the same ``sig``; with ``unit`` larger than any tree's bonus total this maximises
      matched nodes first and agreement second (field alignment's class tie-break);
    * ``tie``: traceback order among equal matchings, ``"diagonal"`` (match > up > left, the
      paper's and MiBAT's) or ``"skip"`` (up > left > match: pairs sit leftmost, so the
      first items of variable-length lists align, as field alignment wants);
    * ``symmetric``: memoise ``(a, b)`` and ``(b, a)`` as one entry (scores only);
    * budgets, ``approx``:

      - ``"none"``: always exact;
      - ``"score"``: a pair whose ``size_a * size_b`` exceeds ``max_size_product`` scores
        the LCS of the two pre-order label strings (rapidfuzz, C; an upper bound of STM),
        ``seq(shape)`` giving the string (default :meth:`Shapes.preorder`); tracebacks stay
        exact at the level of children (MiBAT);
      - ``"pairs"``: a pair whose children matrix exceeds ``max_node_cells``, or any pair
        once more than ``max_cells`` DP cells were spent, aligns its children by the LCS of
        their label sequences and matches below those pairs only (field alignment). The
        decision is taken when the pair is evaluated, so the order of evaluation (the
        caller's order of requests) is part of the result.

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

    # ------------------------------------------------------------ evaluation
    def _solve(self, a0: int, b0: int) -> None:
        """Evaluate the pair ``(a0, b0)`` (a memo key) and every pair below it it needs,
        depth-first with an explicit stack: a pair pushes the child pairs it needs on its
        first visit and is combined when it is on top again (see the class docstring)."""
        s = self.shapes
        kids, size, sig = s.kids, s.size, s.sig
        memo, unit, bonus = self.memo, self.unit, self.sig_bonus
        lim_size = self.max_size_product if self.approx == "score" else None
        pairs_mode, lim_node, cap = self.approx == "pairs", self.max_node_cells, self.max_cells
        skip = self.tie == "skip"
        stack: list[tuple[int, int, Any]] = [(a0, b0, None)]
        while stack:
            a, b, seen = stack[-1]
            W = None
            if (a, b) in memo:
                stack.pop()
                continue
            ka, kb = kids[a], kids[b]
            if lim_size is not None and size[a] * size[b] > lim_size:
                self.approximated += 1
                memo[(a, b)] = int(LCSseq.similarity(self.seq(a), self.seq(b)))
                stack.pop()
                continue
            cand = None  # "pairs" budget spent: the child pairs of the LCS alignment
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
                else:  # (and the children score matrix, its holes the pairs missing)
                    need, W, holes = self._expand(ka, kb)
                if need:
                    stack[-1] = (a, b, cand if cand is not None else (W, holes))
                    stack.extend(need)
                    continue
            elif cand is None and seen.__class__ is tuple:
                # back after the missing child pairs: the first visit's matrix, its holes
                # filled from the memo (what _weights would read again cell by cell)
                W, holes = seen
                for row, j, key in holes:
                    row[j] = memo[key]
            stack.pop()
            base = unit + bonus if bonus and sig[a] == sig[b] else unit
            if cand is not None:
                self._combine_lcs(a, b, cand, base)
                continue
            k, n = len(ka), len(kb)
            self.cells += k * n
            if k == 0 or n == 0:
                memo[(a, b)] = base
                continue
            if W is None:
                W = self._weights(ka, kb)
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
            m = stm_rows(W, n)
            memo[(a, b)] = m[k][n] + base
            if self.eager:
                self.tb[(a, b)] = self._trace(W, m, k, n)

    def _combine_lcs(self, a: int, b: int, cand: list[tuple[int, int]], base: int) -> None:
        """Score the pair ``(a, b)`` along the LCS child pairs ``cand`` (budget spent)."""
        ka, kb = self.shapes.kids[a], self.shapes.kids[b]
        size, memo = self.shapes.size, self.memo
        one = self.unit + self.sig_bonus
        self.approximated += 1
        tot = base
        for i, j in cand:
            x, y = ka[i], kb[j]
            tot += size[x] * one if x == y else memo[(x, y)]
        memo[(a, b)] = tot
        self.tb[(a, b)] = tuple(cand)

    def _expand(
        self, ka: tuple[int, ...], kb: tuple[int, ...]
    ) -> tuple[list[tuple[int, int, None]], list[list[int]], list[tuple[list[int], int, Any]]]:
        """A pair's first visit: the child pairs not solved yet, in the order the stack
        takes them (a repeated child asks again: the order of evaluation is part of the
        budgeted result), the children score matrix of :meth:`_weights` from the same
        scan, and its holes ``(row, column, memo key)``: the cells of the pairs missing
        (0 until they are solved).

        A child meets only the other's children of its label (its row's other cells are
        0): with more than a few of them, those are found by label, not cell by cell."""
        lab, size, memo, sym = self.shapes.label, self.shapes.size, self.memo, self.symmetric
        one = self.unit + self.sig_bonus
        get = memo.get
        need: list[tuple[int, int, None]] = []
        W = []
        holes: list[tuple[list[int], int, Any]] = []
        done: dict[int, list[int]] = {}
        missing: dict[int, list[tuple[int, int, None]]] = {}
        n = len(kb)
        at = _by_label(kb, lab) if n > _BY_LABEL else None
        for x in ka:
            row = done.get(x)
            if row is not None:
                need.extend(missing[x])
                W.append(row)
                continue
            lx = lab[x]
            miss = missing[x] = []
            if at is not None:
                row = done[x] = [0] * n
                for j in at.get(lx, ()):
                    y = kb[j]
                    if x == y:
                        row[j] = size[x] * one
                    else:
                        key = (y, x) if sym and y < x else (x, y)
                        v = get(key)
                        if v is None:
                            miss.append((key[0], key[1], None))
                            holes.append((row, j, key))
                        else:
                            row[j] = v
            else:
                row = done[x] = []
                for y in kb:
                    if lab[y] != lx:
                        row.append(0)
                    elif x == y:
                        row.append(size[x] * one)
                    else:
                        key = (y, x) if sym and y < x else (x, y)
                        v = get(key)
                        if v is None:
                            miss.append((key[0], key[1], None))
                            holes.append((row, len(row), key))
                            row.append(0)
                        else:
                            row.append(v)
            need.extend(miss)
            W.append(row)
        return need, W, holes

    def _weights(self, ka: tuple[int, ...], kb: tuple[int, ...]) -> list[list[int]]:
        """The children score matrix W (equal children share one row; a child pair not
        solved yet is solved now; partners by label as in :meth:`_expand`)."""
        lab, size = self.shapes.label, self.shapes.size
        memo = self.memo
        sym = self.symmetric
        one = self.unit + self.sig_bonus
        W = []
        done: dict[int, list[int]] = {}
        n = len(kb)
        at = _by_label(kb, lab) if n > _BY_LABEL else None
        for x in ka:
            row = done.get(x)
            if row is None:
                lx = lab[x]
                if at is not None:
                    row = done[x] = [0] * n
                    for j in at.get(lx, ()):
                        y = kb[j]
                        if x == y:
                            row[j] = size[x] * one
                        else:
                            try:
                                row[j] = memo[(y, x) if sym and y < x else (x, y)]
                            except KeyError:  # (only for a traceback asked before its pair)
                                row[j] = self.score(x, y)
                    W.append(row)
                    continue
                row = done[x] = []
                for y in kb:
                    if lab[y] != lx:
                        row.append(0)
                    elif x == y:
                        row.append(size[x] * one)
                    else:
                        try:
                            row.append(memo[(y, x) if sym and y < x else (x, y)])
                        except KeyError:  # (only for a traceback asked before its pair)
                            row.append(self.score(x, y))
            W.append(row)
        return W

    def _lcs_pairs(self, ka: tuple[int, ...], kb: tuple[int, ...]) -> list[tuple[int, int]]:
        """The child pairs of the LCS of the two children label sequences (the budget's
        alignment)."""
        lab = self.shapes.label
        out = []
        for op in LCSseq.opcodes([lab[x] for x in ka], [lab[y] for y in kb]):
            if op.tag == "equal":
                for d in range(op.src_end - op.src_start):
                    out.append((op.src_start + d, op.dest_start + d))
        return out

    # ------------------------------------------------------------ traceback
    def _traceback(self, a: int, b: int) -> tuple[tuple[int, int], ...]:
        ka, kb = self.shapes.kids[a], self.shapes.kids[b]
        k, n = len(ka), len(kb)
        if k == 0 or n == 0:
            return ()
        W = self._weights(ka, kb)
        return self._trace(W, stm_rows(W, n), k, n)

    def _trace(
        self, W: list[list[int]], m: list[list[int]], k: int, n: int
    ) -> tuple[tuple[int, int], ...]:
        """Walk the DP rows ``m`` back from ``(k, n)`` in ``tie`` order."""
        if self.tie != "skip":
            return tuple(diagonal_first_traceback(W, m, k, n))
        out: list[tuple[int, int]] = []
        i, j = k, n
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
        out.reverse()
        return tuple(out)
