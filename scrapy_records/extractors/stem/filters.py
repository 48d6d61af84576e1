"""STEM's refining filters on suffix-tree nodes (Fang et al. 2017, section 5).

A node sequence is a data record pattern (DRP) only if it passes, in order: the frequency
filter (applied by the node enumeration and the caller), the gap filter (:func:`gap_h`),
the tree filter (:func:`canonical_rotation`, :func:`case_ok`) and the repetition filter
(:func:`is_power_of`, :func:`smallest_period`). The driver is
:mod:`scrapy_records.extractors.stem.analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import LCSseq

from scrapy_records.extractors.stem.sequence import TagPathSequence
from scrapy_records.extractors.stem.suffix import SuffixIndex

__all__ = [
    "EPS",
    "roots_of",
    "canonical_rotation",
    "smallest_period",
    "is_power_of",
    "case_ok",
    "gap_h",
]

#: Tolerance of the threshold comparisons (``alpha * l``, ``beta * nf``).
EPS = 1e-9


def roots_of(seq: Sequence[int], tps: TagPathSequence) -> list[int]:
    """Indices (into ``seq``) of the root entries by the paper's procedure (section 5.3): walk
    the list; each kept path removes the *consecutive* following paths it is an ancestor of."""
    out: list[int] = []
    tin, tout = tps.path_numbers()
    i = 0
    m = len(seq)
    while i < m:
        out.append(i)
        p = seq[i]
        lo, hi = tin[p], tout[p]
        j = i + 1
        while j < m and lo < tin[seq[j]] < hi:
            j += 1
        i = j
    return out


def canonical_rotation(
    seq: Sequence[int], tps: TagPathSequence, mode: str = "truncate"
) -> tuple[int, ...]:
    """Tree filter rotation (Eq. 6): rotate to the first occurrence of the smallest-HTPI
    root; then ``truncate`` at the next occurrence of that root (keep one period) or, with
    ``delete_all_other``, delete the other occurrences of it."""
    if not seq:
        return ()
    # The smallest-HTPI root is simply min(seq): an entry is only ever removed as a descendant
    # of an earlier kept root, whose HTPI is smaller, so the global minimum always stays a root.
    sr = min(seq)
    seq = seq if isinstance(seq, (list, tuple)) else list(seq)
    r = seq.index(sr)
    if mode == "truncate":
        # the rotation seq[r:] + seq[:r] cut before the next occurrence of sr, without building
        # it (r is the first occurrence, so the next one can only lie after it)
        try:
            return tuple(seq[r : seq.index(sr, r + 1)])
        except ValueError:
            return tuple(seq[r:]) + tuple(seq[:r])
    rot = list(seq[r:]) + list(seq[:r])
    if mode == "delete_all_other":
        rot = [rot[0]] + [x for x in rot[1:] if x != sr]
    else:
        raise ValueError(f"unknown rotation_mode {mode!r}")
    return tuple(rot)


def smallest_period(seq: Sequence[int]) -> int:
    """Length of the smallest period by the KMP failure function (nested repetition)."""
    m = len(seq)
    if m == 0:
        return 0
    fail = [0] * m
    k = 0
    for i in range(1, m):
        while k and seq[i] != seq[k]:
            k = fail[k - 1]
        if seq[i] == seq[k]:
            k += 1
        fail[i] = k
    per = m - fail[-1]
    return per if m % per == 0 else m


def is_power_of(x: Sequence[int], s: Sequence[int]) -> bool:
    """``s == x * k`` for some ``k >= 2`` (simple repetition, Eq. 7)."""
    lx, ls = len(x), len(s)
    return lx > 0 and ls >= 2 * lx and ls % lx == 0 and tuple(s) == tuple(x) * (ls // lx)


def case_ok(c: Sequence[int], tps: TagPathSequence) -> bool:
    """Strict Case 1 / Case 2 check: one root, or all roots share the same parent path."""
    roots = roots_of(c, tps)
    if len(roots) == 1:
        return True
    hp = tps.htpi_parent
    par = hp[c[roots[0]]]
    return all(hp[c[i]] == par for i in roots)


def gap_h(
    index: SuffixIndex, lb: int, rb: int, plen: int, s: Sequence[int], alpha: float, need: float
) -> int:
    """``h`` of the gap filter (section 5.2, in its occurrence form): the number of occurrences
    of ``s`` (of length ``plen``) followed by ``plen`` symbols whose LCS with ``s`` is ``>=
    alpha * plen``.

    Occurrences sharing their next ``plen`` symbols are one run of the SA interval (LCP >=
    ``2 * plen``),
    i.e. one stopping node of the paper's descent; each run's window is compared once. Stops
    early once ``h >= need`` or once ``need`` is out of reach (the decision, not ``h``, is
    what the filter needs; ``need <= 0`` disables early stops)."""
    sa, n = index.sa, index.n
    text: Sequence[int] | str = index.text
    pat: Sequence[int] | str = s
    if index.string is not None:  # the same comparisons on str slices: C-level, 4x quicker LCS
        text = index.string
        p = sa[lb]
        pat = text[p : p + plen]
    bound = 2 * plen
    threshold = alpha * plen - EPS
    h = 0
    remaining = rb - lb + 1
    early = need > 0
    lcp = index.lcp
    cuts: list[int] | None = (
        None  # (short intervals: one run at a time, early stops spare the rest)
    )
    if rb - lb > 64:  # run boundaries k (lcp[k] < 2l) of a long interval at once, by numpy
        cuts = index.small_lcp_positions(lb, rb, bound)
        cuts.append(rb + 1)
    k0 = lb
    j = 0
    while k0 <= rb:
        if cuts is None:
            k = k0 + 1
            while k <= rb and lcp[k] >= bound:
                k += 1
        else:
            k = cuts[j]
            j += 1
        size = k - k0  # one run [k0, k): occurrences sharing their next plen symbols
        remaining -= size
        p = sa[k0]
        if p + bound <= n:
            w = text[p + plen : p + bound]
            if w == pat or LCSseq.similarity(pat, w) >= threshold:
                h += size
        if early and (h >= need or h + remaining < need):
            break
        k0 = k
    return h
