"""Needleman-Wunsch alignment of a page's leaves to a column profile, and centre-star
alignment of several pages (Yuliana & Chang 2019, section 3.2.2, eq. 5-6).

Entry points: :func:`nw_align` (one page against the profile), :func:`center_star`
(several pages, the longest first) and :func:`align_codes` (the same on abstract code
sequences, for tests and tools). The dynamic program is vectorised row by row with numpy;
above ``max_cells`` matrix cells a C-level LCS (:func:`lcs_align`) aligns instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Indel

from scrapy_records.wrappers.inducers.dcade.columns import Column
from scrapy_records.wrappers.inducers.dcade.encoding import LevelCodes
from scrapy_records.wrappers.inducers.dcade.leaves import Interner
from scrapy_records.wrappers.inducers.dcade.options import resolve_options

# traceback operations
_INSERT, _GAP, _MATCH = 0, 1, 2


def _new_column(enc: LevelCodes, r: int, k: int) -> Column:
    c = Column()
    c.add(enc, r, k)
    return c


def _mark_matches(
    S: np.ndarray,
    seq: Sequence[int],
    leaf_codes: list[int],
    column_codes: Iterable[set[int]],
    score: int,
) -> None:
    """``S[i, j] = score`` where the code of leaf ``seq[i]`` is one of column ``j``'s."""
    needed = {leaf_codes[k] for k in seq}
    where: dict[int, list[int]] = {}
    for j, codes in enumerate(column_codes):
        for code in codes & needed:  # a few leaves against many columns: pending pages
            where.setdefault(code, []).append(j)
    for i, k in enumerate(seq):
        js = where.get(leaf_codes[k])
        if js:
            S[i, js] = score


def _deny_constants(
    S: np.ndarray,
    cols: list[Column],
    enc: LevelCodes,
    seq: Sequence[int],
    r: int,
    scores: tuple[int, int],
) -> None:
    """No weak match between two different constant texts: a leaf whose CECId recurs on
    other pages and a column holding one other recurring CECId are two template roles
    ("Country/Region" on most pages, "Country" on some), which a TECId does not join
    either (section 3.2.3: template columns have the same content; dynamic encoding
    generalises the codes of data leaves only)."""
    rec, cec = enc.recurring, enc.lv[r][0]
    weak, mismatch = scores
    rows = [i for i, k in enumerate(seq) if cec[k] in rec]
    if not rows:
        return
    tcols = [j for j, c in enumerate(cols) if len(c.c0) == 1 and not c.c0.isdisjoint(rec)]
    if not tcols:
        return
    sub = S[np.ix_(rows, tcols)]
    sub[sub == weak] = mismatch
    S[np.ix_(rows, tcols)] = sub


def _score_matrix(
    cols: list[Column],
    enc: LevelCodes,
    r: int,
    seq: Sequence[int],
    opts: dict[str, Any],
    mode: str,
) -> np.ndarray:
    """Leaf-vs-column scores (eq. 6): a CECId match overrides a TECId match, which
    overrides a weak match, which overrides a mismatch."""
    S = np.full((len(seq), len(cols)), opts["mismatch"], dtype=np.int32)
    codes = enc.lv[r]
    weak = opts["nw_weak"]
    if mode == "both" and weak is not None and len(codes) > 2:
        # a leaf whose code at a general level (default 5: PathId + PTypeSet) occurs in
        # the column scores nw_weak instead of a mismatch, so same-role leaves with
        # different TypeSets keep their order
        _mark_matches(S, seq, codes[enc.weak_level], (c.cw for c in cols), weak)
        _deny_constants(S, cols, enc, seq, r, (weak, opts["mismatch"]))
    if mode in ("both", "tec"):
        _mark_matches(S, seq, codes[1], (c.c1 for c in cols), opts["match_tec"])
    if mode in ("both", "cec"):
        _mark_matches(S, seq, codes[0], (c.c0 for c in cols), opts["match_cec"])
    return S


def _fill(S: np.ndarray, gp: int) -> np.ndarray:
    """The Needleman-Wunsch matrix (eq. 5) for the scores ``S`` and gap penalty ``gp``.

    Row by row: the diagonal and vertical moves are vector operations; the horizontal
    chain ``H[i, j] = H[i, j - 1] - gp`` is a running maximum of ``H + j * gp``.
    """
    n, C = S.shape
    H = np.empty((n + 1, C + 1), dtype=np.int64)
    ar = np.arange(C + 1, dtype=np.int64) * gp
    H[0] = -ar
    A = np.empty(C + 1, dtype=np.int64)
    for i in range(1, n + 1):
        prev = H[i - 1]
        A[0] = prev[0] - gp
        np.maximum(prev[:-1] + S[i - 1], prev[1:] - gp, out=A[1:])
        H[i] = np.maximum.accumulate(A + ar) - ar
    return H


def _traceback(H: np.ndarray, gp: int) -> list[tuple[int, int, int]]:
    """``(operation, leaf i, column j)`` from the end back to the start.

    Ties: insert the leaf as a new column, then gap the profile, then the diagonal; a
    mismatch (which ties with two gaps) is never kept in one column.
    """
    ops: list[tuple[int, int, int]] = []
    i, j = H.shape[0] - 1, H.shape[1] - 1
    while i > 0 or j > 0:
        h = H[i, j]
        if i > 0 and h == H[i - 1, j] - gp:
            ops.append((_INSERT, i - 1, -1))
            i -= 1
        elif j > 0 and h == H[i, j - 1] - gp:
            ops.append((_GAP, -1, j - 1))
            j -= 1
        else:
            ops.append((_MATCH, i - 1, j - 1))
            i -= 1
            j -= 1
    return ops


def nw_align(
    cols: list[Column],
    enc: LevelCodes,
    r: int,
    seq: Sequence[int],
    opts: dict[str, Any],
    mode: str = "both",
) -> list[Column]:
    """Align page ``r``'s leaves ``seq`` to the column profile ``cols`` (Needleman-Wunsch).

    Score: +``match_cec`` when the leaf's CECId is in the column, +``match_tec`` when its
    TECId is (``mode`` "cec"/"tec" restricts to one code), else ``mismatch``; gap
    ``gap``. Returns the new profile (columns in order, the leaves added to their columns).
    """
    n, C = len(seq), len(cols)
    if n == 0:
        return cols
    if C == 0:
        return [_new_column(enc, r, k) for k in seq]
    if n * C > opts["max_cells"]:
        return lcs_align(cols, enc, r, seq)
    gp = -opts["gap"]
    ops = _traceback(_fill(_score_matrix(cols, enc, r, seq, opts, mode), gp), gp)
    out: list[Column] = []
    for op, a, b in reversed(ops):
        if op == _INSERT:
            out.append(_new_column(enc, r, seq[a]))
        elif op == _GAP:
            out.append(cols[b])
        else:
            cols[b].add(enc, r, seq[a])
            out.append(cols[b])
    return out


def lcs_align(cols: list[Column], enc: LevelCodes, r: int, seq: Sequence[int]) -> list[Column]:
    """Bounded fallback for huge segments: C-level LCS on TECIds (each column by its smallest)."""
    prof = [min(c.c1) if c.c1 else -1 for c in cols]
    L1 = enc.lv[r][1]
    mine = [L1[k] for k in seq]
    out: list[Column] = []
    for op in Indel.opcodes(prof, mine):
        a0, a1, b0, b1 = op.src_start, op.src_end, op.dest_start, op.dest_end
        if op.tag == "equal":
            for a, b in zip(range(a0, a1), range(b0, b1)):
                cols[a].add(enc, r, seq[b])
                out.append(cols[a])
        else:
            out.extend(cols[a0:a1])
            out.extend(_new_column(enc, r, seq[b]) for b in range(b0, b1))
    return out


def center_star(
    enc: LevelCodes, seqs: dict[int, list[int]], opts: dict[str, Any], mode: str = "both"
) -> list[Column]:
    """Centre-star multiple alignment: the longest sequence first, then the others."""
    if not seqs:
        return []
    order = sorted(seqs, key=lambda r: (-len(seqs[r]), r))
    cols: list[Column] = []
    for r in order:
        cols = nw_align(cols, enc, r, seqs[r], opts, mode)
    return cols


class CodeStub:
    """Abstract code sequences in the shape of an encoding: two levels (CEC and TEC)."""

    def __init__(self, seqs: list[list[tuple[int, int]]]) -> None:
        self.lv = [[[c for c, _ in s], [t for _, t in s]] for s in seqs]
        self.weak_level = 1  # unused: a weak match needs more than two levels
        self.recurring: frozenset[int] = frozenset()


def align_codes(
    seqs: Sequence[Sequence[Any]], mode: str = "tec", **options: Any
) -> list[list[int]]:
    """Centre-star NW alignment of abstract code sequences (the paper's Fig. 6).

    ``seqs[r]`` is page ``r``'s sequence of codes; with ``mode="tec"`` equal codes score
    ``match_tec``, with ``"cec"`` ``match_cec``. Returns the aligned table: one list per
    column giving, per page, the position of its element in that column or -1.
    """
    o = resolve_options(options)
    intern = Interner()
    coded = [[(intern.id(c), intern.id(c)) for c in s] for s in seqs]
    stub = CodeStub(coded)
    cols = center_star(stub, {r: list(range(len(s))) for r, s in enumerate(coded) if s}, o, mode)
    return [[c.cells[r][0] if r in c.cells else -1 for r in range(len(seqs))] for c in cols]
