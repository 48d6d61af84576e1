"""Suffix array + LCP array, and the suffix-tree internal nodes they encode (STEM's suffix
tree, Fang et al. 2017, section 4.1, Step 3).

STEM builds a suffix tree of the page's tag-path sequence with Ukkonen's algorithm and visits
its nodes. We build the equivalent **enhanced suffix array** instead: suffix array (SA), LCP
array (Kasai et al. 2001), and the *LCP intervals* enumerated with one stack pass (Abouelhoda,
Kurtz & Ohlebusch 2004). Why:

* it yields **exactly the same candidate patterns and frequencies**: the internal nodes of the
  suffix tree of ``text + $`` are the right-branching repeats, and each of them is one LCP
  interval ``[lb, rb]`` with string depth ``d`` (the node sequence is ``text[SA[lb]:SA[lb]+d]``)
  and node frequency ``nf = rb - lb + 1`` (overlapping occurrences ``SA[lb..rb]``);
  ``tests/test_stem.py`` checks this against a brute-force enumeration;
* the arrays are flat integer lists built by C code: a pointer-based Ukkonen tree in pure
  Python costs ~20 objects per symbol, the arrays cost two ints;
* the gap filter's "descend until the concatenation reaches ``l``" becomes a scan of
  ``LCP[lb+1..rb]`` for values below ``2l``, and any pattern's occurrences are found by binary
  search; Lemma 1's greedy matches by C-level ``str.find`` on the text written as a ``str``
  (:func:`as_string`, :meth:`SuffixIndex.greedy_find`).

Backends: ``pydivsufsort`` (libdivsufsort, C; integer alphabets supported, its Kasai is
Cython) when installed, else a pure-Python **SA-IS** (Nong, Zhang & Chan 2009; a port of the
AtCoder Library routine), which is linear-time. libdivsufsort's guaranteed bound is
O(n log n) but it is the fastest suffix sorter in practice. Kasai and the interval
enumeration are O(n) in both cases. Short sequences (most pages: a few hundred elements) skip
both: sorting the suffixes as strings is quicker there than libdivsufsort's fixed set-up cost
(:data:`SORT_MAX`).
"""

from __future__ import annotations

import ctypes
import glob
import logging
import os
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy.typing as npt

logger = logging.getLogger(__name__)

_np: ModuleType | None = None  # numpy, when the optional pydivsufsort backend is installed
try:  # pragma: no cover - exercised when installed
    import numpy
    import pydivsufsort
    from pydivsufsort import divsufsort as _divsufsort
    from pydivsufsort import kasai as _kasai

    _np = numpy
except Exception:  # pragma: no cover - optional dependency
    pass
HAVE_DIVSUFSORT = _np is not None


def _single_thread_divsufsort() -> None:  # pragma: no cover - depends on the wheel's layout
    """libdivsufsort in the pydivsufsort wheel is built with OpenMP and links its *own* vendored
    libgomp copy; spinning up a thread team costs 5-10 ms per call on a busy machine, 20x the
    sort of a typical page. Pin that private copy to one thread (no other library uses it)."""
    libs = os.path.join(
        os.path.dirname(os.path.dirname(pydivsufsort.__file__)), "pydivsufsort.libs"
    )
    for path in glob.glob(os.path.join(libs, "libgomp*.so*")):
        try:
            ctypes.CDLL(path).omp_set_num_threads(1)
        except OSError:
            pass


if HAVE_DIVSUFSORT:
    try:
        _single_thread_divsufsort()
    except Exception:  # pragma: no cover
        logger.debug("could not pin pydivsufsort's OpenMP runtime to one thread", exc_info=True)

__all__ = [
    "sa_is",
    "suffix_array",
    "lcp_array",
    "SuffixIndex",
    "HAVE_DIVSUFSORT",
    "greedy_matches",
    "as_string",
]


# ----------------------------------------------------------------------------- SA-IS (pure Python)
def sa_is(s: Sequence[int], upper: int) -> list[int]:
    """Suffix array of ``s`` (values in ``0..upper``) by induced sorting, O(n); recursion only
    on the reduced problem of the LMS substrings (depth O(log n))."""
    n = len(s)
    if n == 0:
        return []
    if n == 1:
        return [0]
    if n == 2:
        return [0, 1] if s[0] < s[1] else [1, 0]
    ls = _s_types(s)
    sum_l, sum_s = _bucket_starts(s, ls, upper)
    lms_map = [-1] * (n + 1)  # position -> index among the LMS positions
    lms: list[int] = []
    for i in range(1, n):
        if not ls[i - 1] and ls[i]:
            lms_map[i] = len(lms)
            lms.append(i)
    sa = [0] * n
    _induce(s, ls, sum_s, sum_l, lms, sa)
    if lms:
        sorted_lms = [v for v in sa if lms_map[v] != -1]
        rec_s, rec_upper = _name_lms_substrings(s, lms, lms_map, sorted_lms)
        rec_sa = sa_is(rec_s, rec_upper)
        _induce(s, ls, sum_s, sum_l, [lms[i] for i in rec_sa], sa)
    return sa


def _s_types(s: Sequence[int]) -> list[bool]:
    """``ls[i]``: suffix ``i`` is S-type (smaller than suffix ``i + 1``)."""
    n = len(s)
    ls = [False] * n
    for i in range(n - 2, -1, -1):
        ls[i] = ls[i + 1] if s[i] == s[i + 1] else (s[i] < s[i + 1])
    return ls


def _bucket_starts(s: Sequence[int], ls: list[bool], upper: int) -> tuple[list[int], list[int]]:
    """``(sum_l, sum_s)``: the start of each symbol's L-type and S-type bucket in the SA."""
    sum_l = [0] * (upper + 2)
    sum_s = [0] * (upper + 2)
    for i in range(len(s)):
        if not ls[i]:
            sum_s[s[i]] += 1
        else:
            sum_l[s[i] + 1] += 1
    for i in range(upper + 1):
        sum_s[i] += sum_l[i]
        if i < upper:
            sum_l[i + 1] += sum_s[i]
    return sum_l, sum_s


def _induce(
    s: Sequence[int],
    ls: list[bool],
    sum_s: list[int],
    sum_l: list[int],
    lms: list[int],
    sa: list[int],
) -> None:
    """Induced sorting into ``sa``: the LMS positions ``lms`` (in their order) seed the S
    buckets, then one left-to-right pass places the L-type suffixes and one right-to-left
    pass the S-type ones."""
    n = len(s)
    for i in range(n):
        sa[i] = -1
    buf = sum_s[:]
    for d in lms:
        if d == n:
            continue
        sa[buf[s[d]]] = d
        buf[s[d]] += 1
    buf = sum_l[:]
    sa[buf[s[n - 1]]] = n - 1
    buf[s[n - 1]] += 1
    for i in range(n):
        v = sa[i]
        if v >= 1 and not ls[v - 1]:
            c = s[v - 1]
            sa[buf[c]] = v - 1
            buf[c] += 1
    buf = sum_l[:]
    for i in range(n - 1, -1, -1):
        v = sa[i]
        if v >= 1 and ls[v - 1]:
            c = s[v - 1] + 1
            buf[c] -= 1
            sa[buf[c]] = v - 1


def _name_lms_substrings(
    s: Sequence[int], lms: list[int], lms_map: list[int], sorted_lms: list[int]
) -> tuple[list[int], int]:
    """The reduced problem: each LMS position's substring (up to the next LMS position) named
    by its rank among the distinct LMS substrings, in text order, and the largest name."""
    n, m = len(s), len(lms)
    rec_s = [0] * m
    rec_upper = 0
    rec_s[lms_map[sorted_lms[0]]] = 0
    for i in range(1, m):
        left, right = sorted_lms[i - 1], sorted_lms[i]
        end_l = lms[lms_map[left] + 1] if lms_map[left] + 1 < m else n
        end_r = lms[lms_map[right] + 1] if lms_map[right] + 1 < m else n
        same = True
        if end_l - left != end_r - right:
            same = False
        else:
            while left < end_l:
                if s[left] != s[right]:
                    break
                left += 1
                right += 1
            if left == n or s[left] != s[right]:
                same = False
        if not same:
            rec_upper += 1
        rec_s[lms_map[sorted_lms[i]]] = rec_upper
    return rec_s, rec_upper


def _kasai_py(s: Sequence[int], sa: Sequence[int]) -> list[int]:
    """``lcp[i] = LCP(s[sa[i-1]:], s[sa[i]:])`` for ``i >= 1``, ``lcp[0] = 0`` (Kasai, O(n))."""
    n = len(s)
    rank = [0] * n
    for i, p in enumerate(sa):
        rank[p] = i
    lcp = [0] * n
    h = 0
    for i in range(n):
        r = rank[i]
        if r == 0:
            h = 0
            continue
        j = sa[r - 1]
        while i + h < n and j + h < n and s[i + h] == s[j + h]:
            h += 1
        lcp[r] = h
        if h:
            h -= 1
    return lcp


#: Up to this length ``suffix_array`` sorts the suffixes as strings (C-level comparisons):
#: O(n^2) characters copied, but no fixed cost. libdivsufsort spends ~120 us on any input (it sets
#: up 256 x 256 buckets), more than sorting the string suffixes of a 700-symbol page (~100 us).
SORT_MAX = 768


#: Up to this length ``lcp_array`` runs Kasai in Python: the C routine's array conversions cost
#: more than the whole pure-Python pass on a few dozen symbols (7 us against 3 us on 13).
KASAI_PY_MAX = 40
#: Longest sequence searched by scanning (``str.find``, C-level but linear in the sequence per
#: search); longer ones are searched in the suffix array (``O(|pattern| log n)``), so that a
#: search per suffix-tree node stays linear overall on huge pages.
SCAN_FIND_MAX = 4096


def as_string(s: Sequence[int]) -> str | None:
    """The sequence as a ``str`` with one character per symbol (``chr(x)``; ``None`` when a
    symbol is out of ``chr``'s range). Equal symbols are equal characters and ``str`` order is
    symbol order, so C-level ``str`` operations (slicing, comparison, ``find``, rapidfuzz's
    string fast path) stand in for the same operations on the integer sequence."""
    try:
        return "".join(map(chr, s))
    except (ValueError, OverflowError, TypeError):
        return None


def _sorted_suffixes(string: str) -> list[int]:
    """Suffix array by sorting the suffixes as strings: a proper prefix sorts first, as in
    every suffix array here."""
    return sorted(range(len(string)), key=lambda i: string[i:])


def suffix_array(s: Sequence[int], backend: str = "auto") -> list[int]:
    """Suffix array of non-negative ints (``backend``: ``auto``, ``divsufsort``, ``sais``).

    ``auto``: string sort up to :data:`SORT_MAX` symbols, then libdivsufsort when
    installed, else SA-IS. The suffix array of a sequence is unique, so the backend only
    changes the time taken."""
    if backend not in ("auto", "divsufsort", "sais"):
        raise ValueError(f"unknown suffix-array backend {backend!r}")
    if backend == "divsufsort" and not HAVE_DIVSUFSORT:
        raise ImportError("backend='divsufsort' needs the pydivsufsort package")
    if not s:
        return []
    if backend == "auto" and len(s) <= SORT_MAX:
        string = as_string(s)
        if string is not None:
            return _sorted_suffixes(string)
    if _np is not None and backend != "sais" and len(s) > 1:
        return _divsufsort(_np.asarray(s, dtype=_np.int32)).tolist()
    return sa_is(s, max(s))


def lcp_array(s: Sequence[int], sa: Sequence[int], backend: str = "auto") -> list[int]:
    """LCP array: ``lcp[i]``, the longest common prefix of suffixes ``sa[i-1]`` and ``sa[i]``
    (``lcp[0] = 0``)."""
    if not s:
        return []
    if _np is not None and backend != "sais" and len(s) > KASAI_PY_MAX:
        k = _kasai(_np.asarray(s, dtype=_np.int32), _np.asarray(sa, dtype=_np.int32)).tolist()
        return [0] + k[:-1]
    return _kasai_py(s, sa)


class SuffixIndex:
    """Enhanced suffix array of ``text + [0]`` (``text`` holds ints ``>= 1``; 0 is the unique
    terminator).

    Internal suffix-tree nodes are ``(lb, rb, depth)`` LCP intervals over ``sa``; the node
    sequence is ``text[sa[lb]:sa[lb] + depth]``, its node frequency ``rb - lb + 1``. ``text``
    is kept as a tuple, so node sequences and other slices of it are tuples (hashable, no copy
    to make them so), and as a ``str`` (``string``) for C-level searches and comparisons.
    """

    __slots__ = ("text", "string", "n", "sa", "lcp", "_lcp_np", "backend")

    def __init__(self, text: Sequence[int], backend: str = "auto") -> None:
        self.text: tuple[int, ...] = tuple(text)
        if self.text and min(self.text) <= 0:
            raise ValueError("SuffixIndex text symbols must be >= 1 (0 is the terminator)")
        self.n = len(self.text)
        #: the text as a ``str`` (:func:`as_string`), for C-level searches and comparisons
        self.string = as_string(self.text)
        full = list(self.text)
        full.append(0)
        if backend == "auto" and len(full) <= SORT_MAX and self.string is not None:
            self.backend = "sort"
            self.sa = _sorted_suffixes(self.string + "\0")
        else:
            self.backend = "divsufsort" if (HAVE_DIVSUFSORT and backend != "sais") else "sais"
            self.sa = suffix_array(full, backend)
        self.lcp = lcp_array(full, self.sa, backend)
        self._lcp_np: npt.NDArray[Any] | None = None

    # ------------------------------------------------------------------ nodes
    def nodes(self, min_depth: int = 1, max_depth: int | None = None) -> list[tuple[int, int, int]]:
        """Internal nodes ``(lb, rb, depth)`` with ``min_depth <= depth <= max_depth`` in the suffix
        tree's lexicographic pre-order (a node before its descendants, siblings by first symbol).

        One left-to-right stack pass over the LCP array: O(n)."""
        return [(lb, rb, d) for lb, d, rb in self.intervals(min_depth, max_depth)[0]]

    def intervals(
        self, min_depth: int = 1, max_depth: int | None = None, min_size: int = 2
    ) -> tuple[list[tuple[int, int, int]], int]:
        """:meth:`nodes` as ``(lb, depth, rb)`` triples (pre-order is then their natural order:
        no sort key), and the number of internal nodes of depth >= 1 whatever their depth.

        ``min_size``: only nodes of that many suffixes or more (the frequency filter; every
        node has two or more)."""
        lcp = self.lcp
        m = len(lcp)
        out: list[tuple[int, int, int]] = []
        if m <= 1:
            return out, 0
        hi = max_depth if max_depth is not None else m
        total = 0
        stack_d = [0]
        stack_lb = [0]
        top = 0  # stack_d[-1]
        for i in range(1, m):
            cur = lcp[i]
            if cur < top:
                lb = i - 1
                while cur < top:  # close the intervals deeper than cur: they end at i - 1
                    stack_d.pop()
                    lb = stack_lb.pop()
                    total += 1
                    if min_depth <= top <= hi and i - lb >= min_size:
                        out.append((lb, top, i - 1))
                    top = stack_d[-1]
                if cur > top:  # a shallower interval starting where the last closed one did
                    stack_d.append(cur)
                    stack_lb.append(lb)
                    top = cur
            elif cur > top:
                stack_d.append(cur)
                stack_lb.append(i - 1)
                top = cur
        while len(stack_d) > 1:  # the terminator's lcp 0 closes the rest
            d = stack_d.pop()
            lb = stack_lb.pop()
            total += 1
            if min_depth <= d <= hi and m - lb >= min_size:
                out.append((lb, d, m - 1))
        # post-order -> pre-order: by lb ascending, ancestors (smaller depth) first
        out.sort()
        return out, total

    def node_sequence(self, lb: int, depth: int) -> tuple[int, ...]:
        p = self.sa[lb]
        return self.text[p : p + depth]

    def occurrences(self, lb: int, rb: int) -> list[int]:
        """Start positions of the node's (overlapping) occurrences, sorted."""
        return sorted(self.sa[lb : rb + 1])

    def small_lcp_positions(self, lb: int, rb: int, bound: int) -> list[int]:
        """Indices ``k`` in ``lb+1..rb`` with ``lcp[k] < bound`` (run boundaries in a node)."""
        if rb - lb > 64 and _np is not None:
            lcp_np = self._lcp_np
            if lcp_np is None:
                lcp_np = self._lcp_np = _np.asarray(self.lcp, dtype=_np.int64)
            idx = _np.flatnonzero(lcp_np[lb + 1 : rb + 1] < bound)
            return (idx + (lb + 1)).tolist()
        lcp = self.lcp
        return [k for k in range(lb + 1, rb + 1) if lcp[k] < bound]

    # ----------------------------------------------------------------- search
    def find(self, pattern: Sequence[int]) -> tuple[int, int] | None:
        """SA interval ``(lb, rb)`` of the suffixes starting with ``pattern`` (None if absent).
        O(|pattern| log n) by binary search."""
        pat = tuple(pattern)
        k = len(pat)
        if k == 0 or k > self.n:
            return None
        text, sa = self.text, self.sa

        def key(p: int) -> tuple[int, ...]:
            return text[p : p + k]

        lo = bisect_left(sa, pat, key=key)
        hi = bisect_right(sa, pat, lo=lo, key=key)
        if lo >= hi:
            return None
        return lo, hi - 1

    def find_all(self, pattern: Sequence[int]) -> list[int]:
        """All (overlapping) start positions of ``pattern``, sorted."""
        iv = self.find(pattern)
        if iv is None:
            return []
        return sorted(self.sa[iv[0] : iv[1] + 1])

    def greedy_find(self, pattern: Sequence[int] | str) -> list[int]:
        """Lemma 1's leftmost non-overlapping matches of ``pattern``, i.e.
        ``greedy_matches(self.find_all(pattern), len(pattern))``, by C-level ``str.find`` on
        :attr:`string` from the end of the previous match (no binary search, no sort) when the
        sequence is at most :data:`SCAN_FIND_MAX` long, else by that suffix-array search.
        ``pattern`` may also be given in its :func:`as_string` form (when :attr:`string`
        exists)."""
        k = len(pattern)
        if k == 0:
            return []
        st = self.string
        pat = None
        if st is not None and len(st) <= SCAN_FIND_MAX:
            pat = pattern if isinstance(pattern, str) else as_string(pattern)
        if st is None or pat is None:
            ids = [ord(ch) for ch in pattern] if isinstance(pattern, str) else pattern
            return greedy_matches(self.find_all(ids), k)
        out: list[int] = []
        i = st.find(pat)
        while i >= 0:
            out.append(i)
            i = st.find(pat, i + k)
        return out


def greedy_matches(positions: Sequence[int], length: int) -> list[int]:
    """Lemma 1: leftmost non-overlapping matches from sorted occurrence positions."""
    out: list[int] = []
    nxt = -1
    for p in positions:
        if p >= nxt:
            out.append(p)
            nxt = p + length
    return out
