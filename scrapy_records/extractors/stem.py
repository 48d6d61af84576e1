"""STEM: data records from repeated tag-path patterns found with a suffix structure.

Fang, Xie, Zhang, Cheng, Zhang, *STEM: a suffix tree-based method for web data records
extraction* (KAIS 2017); working specification: ``shared/papers/stem.md`` (the "digest";
section numbers below refer to it).

Pipeline (digest §0, Algorithm 1):

1. **Preprocessing** (§3.1): the shared :class:`~scrapy_records.page.Page` already dropped
   scripts/styles/comments; *decorative* tags (paper: ``b, i, u, em``) are **unwrapped** here,
   so their children's paths skip them (A2).
2. **WPS** (§3.2, D2-D4): every retained element's root-to-node tag path, numbered by first
   appearance in pre-order from 1 (the *HTPI*); the page becomes the integer sequence of HTPIs.
3. **Suffix structure** (§3.3): :class:`~scrapy_records.extractors.suffix.SuffixIndex`, a suffix array
   + LCP array whose LCP intervals are exactly the internal nodes of the suffix tree of
   ``wps + $`` with the same node sequences and node frequencies (see that module for why this
   replaces Ukkonen's tree).
4. **Four filters in order** (§3.5-§3.8), visiting nodes in lexicographic pre-order (A24):
   frequency (``nf >= 2``, ``2 <= len <= L``), gap (``pvr = h / nf >= beta`` where ``h`` counts
   occurrences followed by an approximate copy, ``LCS >= alpha * l``; equivalent occurrence form
   of §3.6), tree (rotation to the smallest-HTPI root, truncation at its second occurrence,
   duplicate check), repetition (simple and nested).
5. **Record cutting** (§3.9): greedy non-overlapping exact matches (Lemma 1) plus gap records
   with ``rvr >= alpha``; a candidate WPS range maps to its *record roots* (elements of the range
   whose parent is outside it), and a record is the full DOM subtrees of its roots.

Two profiles (§3.12, §6.3):

* ``profile="paper"``: the paper-literal reading (unchunked gaps, no pf re-check, no Case 1/2
  check, nested repetition with unit length 1, simple repetition checked inline against the DRPs
  found so far, one region per DRP, no overlap resolution);
* ``profile="recommended"`` (default, measures better on the development lists): the digest's
  [R] repairs — ``pf(canonical) >= 2``
  against rotation junk (A11), strict Case 1/Case 2 check (A12), nested repetition only for
  units of length >= 2 so table rows survive (A14), order-independent repetition post-pass (A15),
  gaps chunked at the DRP root so page headers are not swallowed into a "record" (§3.9 step 2,
  A16), and one region per record parent (test 19). Redundant sub-patterns (A17) are dropped
  with ``dedupe_regions=True``; it is off in the recommended profile because keeping them and
  letting the ranking choose measured better on the development lists (F1 0.73/0.80/0.81 vs
  0.73/0.78/0.81 on yamada/zhao1/zhao3 with the text-guarded rule, 0.69/0.77/0.81 with the
  digest's rule). Gap records need a DRP of at least ``gap_min_length`` (4) identifiers: with
  a 3-tag pattern such as a separator row ``(tr, td, hr)``, any content row reaches rvr 2/3 and
  the separators swallow the real records (ours, from the development lists). The two-record gap case (A9) stays an option,
  ``gap_denominator="nf_minus_1"``: it accepts two-record lists but measured worse on the
  development lists (more menu-like pairs win the ranking), so both profiles keep Eq. (5)'s ``nf``.

``trim_edges`` (recommended: 0.5; paper: off) drops edge records whose tag string is at a
normalized edit distance above 0.5 from both the middle record and their inner neighbour
(:func:`_trim_edges`, ours): a short DRP's exact match only says a record *starts* like the
others, and result-count headers or footer tables built like the result tables joined the
region. Measured on the development lists (first-region record F1, yamada/zhao1/zhao3):
0.681/0.841/0.828 -> 0.690/0.846/0.838 (0.3: 0.679/0.850/0.833; middle record only:
0.688/0.846/0.832). ``demote_fillers`` (recommended: 0.25; paper: off) halves the confidence
of a region that is another region of the same parent plus near-empty filler records
(:func:`_demote_fillers`, ours). ``attach_gaps`` (recommended: 0.8; paper: off) makes the
gaps that recur between the exact matches of a DRP the rest of the record before them instead
of gap records of their own (:func:`_attach_gaps`, ours): a short DRP that matches a result's
title row turned every price row or snippet into a record. Measured on the development lists
(first-region record F1, yamada/zhao1/zhao3, 2026-11-25): 0.792/0.873/0.875 without it,
0.896/0.911/0.905 with it (and with :func:`_prefer_coarser` treating such joined records as
the coarser segmentation). ``merge_grids`` (recommended: on; paper: one region per DRP
anyway) keeps the cells of a table grid (rows of alike ``td`` records) in one region instead
of one region per row (:func:`_parts_by_parent`, ours): yamada/13's 4 x 4 result table gave
4 of 16 records. Measured (2026-11-26): 0.896/0.913/0.905 -> 0.902/0.913/0.905, nothing else
on the development lists changes and ``negative/`` stays at 59/60.

Every parameter is an option of :meth:`STEMExtractor.extract` (and of :func:`analyze`), and an
explicit option overrides the profile's value.
"""

from __future__ import annotations

import logging
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, compress
from typing import Any

from rapidfuzz.distance import LCSseq

from scrapy_records.extractors.base import build_region
from scrapy_records.extractors.mdr import normalized_distance
from scrapy_records.extractors.suffix import SCAN_FIND_MAX, SuffixIndex, as_string, greedy_matches
from scrapy_records.page import Page
from scrapy_records.results import Region

logger = logging.getLogger(__name__)

__all__ = [
    "STEMExtractor",
    "TagPathSequence",
    "STEMAnalysis",
    "DRP",
    "NodeDecision",
    "analyze",
    "analyze_sequence",
    "canonical_rotation",
    "roots_of",
    "DECORATIVE_PAPER",
    "DECORATIVE_EXTENDED",
    "PROFILES",
]

#: Decorative tags the paper removes (§3.1: "such as em, b, u and i").
DECORATIVE_PAPER = frozenset({"b", "i", "u", "em"})
#: Extended preset (§3.1 [R]): also inline formatting and line breaks that vary per record.
DECORATIVE_EXTENDED = DECORATIVE_PAPER | frozenset(
    {"strong", "font", "small", "big", "s", "strike", "tt", "mark", "sup", "sub", "br", "wbr"}
)

#: Paper-literal and recommended settings (§3.12). ``gap_denominator``: ``nf`` (Eq. 5),
#: ``nf_minus_1`` (A9) or ``pf`` (Eq. 4, A10).
PROFILES: dict[str, dict[str, Any]] = {
    "paper": {
        "gap_denominator": "nf",
        "rotation_mode": "truncate",
        "recheck_pf": False,
        "strict_case_check": False,
        "nested_min_unit": 1,
        "repetition_postpass": False,
        "chunk_gaps": False,
        "gap_min_length": 0,
        "dedupe_regions": False,
        "split_regions": False,
        "merge_grids": False,
        "trim_edges": None,
        "demote_fillers": None,
        "attach_gaps": None,
    },
    "recommended": {
        "gap_denominator": "nf",
        "rotation_mode": "truncate",
        "recheck_pf": True,
        "strict_case_check": True,
        "nested_min_unit": 2,
        "repetition_postpass": True,
        "chunk_gaps": True,
        "gap_min_length": 4,
        "dedupe_regions": False,
        "split_regions": True,
        "merge_grids": True,
        "trim_edges": 0.5,
        "demote_fillers": 0.25,
        "attach_gaps": 0.8,
    },
}

_DEFAULTS: dict[str, Any] = {
    "L": 100,
    "alpha": 0.6,
    "beta": 0.6,
    "min_length": 2,
    "min_frequency": 2,
    "decorative": "paper",
    "backend": "auto",
    "align": True,
    "max_regions": 5,
    "min_confidence": 0.05,
}
OPTION_NAMES = frozenset(_DEFAULTS) | frozenset(PROFILES["paper"]) | {"profile"}
_EPS = 1e-9


# =============================================================================== representation
class TagPathSequence:
    """The WPS of a page (digest D4) with its HTPI table (D3).

    ``ids[p]``: HTPI at WPS position ``p`` (from 1); ``parent_pos[p]``: WPS position of the nearest
    retained ancestor (-1 for the root); ``nodes[p]``: the :class:`Page` index of the element (or
    ``p`` itself when built from paths); ``subtree_end[p]``: last WPS position in that element's
    subtree. ``htpi_parent[h]`` / ``htpi_tag[h]`` / ``htpi_depth[h]`` describe tag path ``h``
    (index 0 is the empty path above ``/html``).
    """

    __slots__ = (
        "ids",
        "parent_pos",
        "nodes",
        "subtree_end",
        "htpi_parent",
        "htpi_tag",
        "htpi_depth",
        "chars",
        "_tin",
        "_tout",
        "_paths",
        "_positions",
        "_string",
    )

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.parent_pos: list[int] = []
        self.nodes: list[int] = []
        self.subtree_end: list[int] = []
        self.htpi_parent: list[int] = [0]
        self.htpi_tag: list[str] = [""]
        self.htpi_depth: list[int] = [0]
        self.chars: list[int] = []  # text characters in the element's subtree (0 without a page)
        self._tin: list[int] | None = None
        self._tout: list[int] = []
        self._paths: dict[int, str] = {}
        self._positions: dict[int, list[int]] | None = None
        self._string: str | None = None

    @property
    def string(self) -> str | None:
        """The WPS as a ``str``, one character per HTPI (:func:`~scrapy_records.extractors.suffix.as_string`):
        LCS on its slices gives the same values as on ``ids`` slices, C-level (rapidfuzz's string
        path is ~4x quicker than on lists of ints). ``None`` if an HTPI is out of ``chr``'s range."""
        st = self._string
        if st is None:
            st = self._string = as_string(self.ids)
        return st

    def positions(self, h: int) -> list[int]:
        """Sorted WPS positions holding HTPI ``h`` (found once per ``h``: C-level ``str.find``
        on :attr:`string`, one call per position; only the DRPs' first identifiers are asked)."""
        pos = self._positions
        if pos is None:
            pos = self._positions = {}
        lst = pos.get(h)
        if lst is None:
            st = self.string
            if st is None or not 0 < h < 0x110000:
                lst = [q for q, x in enumerate(self.ids) if x == h]
            else:
                lst = []
                ch = chr(h)
                q = st.find(ch)
                while q >= 0:
                    lst.append(q)
                    q = st.find(ch, q + 1)
            pos[h] = lst
        return lst

    def _number_paths(self) -> None:
        """Pre/post numbers of the path trie (iterative DFS) for O(1) ancestry tests."""
        m = len(self.htpi_parent)
        kids: list[list[int]] = [[] for _ in range(m)]
        for h in range(1, m):
            kids[self.htpi_parent[h]].append(h)
        tin = [0] * m
        tout = [0] * m
        clock = 0
        stack = [(0, 0)]
        while stack:
            h, k = stack.pop()
            if k == 0:
                tin[h] = clock
                clock += 1
            if k < len(kids[h]):
                stack.append((h, k + 1))
                stack.append((kids[h][k], 0))
            else:
                tout[h] = clock
        self._tin, self._tout = tin, tout

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def from_page(cls, page: Page, decorative: Iterable[str] = DECORATIVE_PAPER) -> TagPathSequence:
        """Steps 1-2 (§3.1-§3.2) from the page's pre-order arrays.

        A node's HTPI (or, for a decorative node, its retained ancestor's) depends only on its
        page path (``page.path_id``: interned by parent path and tag), so it is worked out once
        per path, in one pass over ``page.path_keys``, and the nodes' arrays follow by list
        comprehensions (no per-node Python loop)."""
        deco = frozenset(t.lower() for t in decorative)
        self = cls()
        n = page.n
        parents, end, pids = page.parent, page.end, page.path_id
        names = [""] * len(page.tag_names)
        for t, tid in page.tag_names.items():
            names[tid] = t
        # per page path, in page-path order (``page.path_keys``: ``(parent path, tag id)``
        # numbered at each path's first node, so the order of first appearance in
        # pre-order, the HTPI order, and a parent path before its children)
        path_h: list[int] = []  # its HTPI, or -1 for a decorative (unwrapped) path
        eff_h: list[int] = []  # its HTPI, or its retained ancestor's for a decorative one
        keymap: dict[tuple[int, str], int] = {}
        hpar, htag, hdep = self.htpi_parent, self.htpi_tag, self.htpi_depth
        for ppid, tid in page.path_keys:
            par_h = eff_h[ppid] if ppid >= 0 else 0
            t = names[tid]
            if t in deco and ppid >= 0:
                eff_h.append(par_h)
                path_h.append(-1)
                continue
            key = (par_h, t)
            h = keymap.get(key)
            if h is None:
                h = keymap[key] = len(hpar)
                hpar.append(par_h)
                htag.append(t)
                hdep.append(hdep[par_h] + 1)
            eff_h.append(h)
            path_h.append(h)
        # per node, by list comprehensions: the WPS is the retained nodes' HTPIs in pre-order
        hs = [path_h[pid] for pid in pids]
        keep = [h >= 0 for h in hs]
        count = list(accumulate(keep, initial=0))  # count[i]: WPS positions among nodes 0..i-1
        if count[-1] == n:  # nothing unwrapped: WPS positions are page indices
            self.ids = hs
            self.nodes = nodes = list(range(n))
            self.parent_pos = list(parents)
            self.subtree_end = list(end)
        else:
            self.nodes = nodes = list(compress(range(n), keep))
            self.ids = list(compress(hs, keep))
            eff_pos = count[:n]  # WPS position of a retained node, or of its retained ancestor
            for i in compress(range(n), [not k for k in keep]):  # (pre-order: parent first)
                eff_pos[i] = eff_pos[parents[i]]
            eff_pos.append(-1)  # (eff_pos[-1]: above the root)
            self.parent_pos = [eff_pos[parents[i]] for i in nodes]
            self.subtree_end = [count[end[i] + 1] - 1 for i in nodes]
        prefix = [0]
        prefix.extend(accumulate(map(len, page.leaves)))
        lo, hi = page.leaf_lo, page.leaf_hi
        self.chars = [prefix[hi[x]] - prefix[lo[x]] for x in nodes]
        return self

    @classmethod
    def from_paths(cls, paths: Sequence[str]) -> TagPathSequence:
        """Build from a pre-order list of tag paths (``"/html/body/div"``), one per element, as
        the paper's figures give them. Parents are inferred as the nearest preceding element
        whose path is the path's parent path."""
        self = cls()
        keymap: dict[tuple[int, str], int] = {}
        last_pos_of_path: dict[str, int] = {}
        for pos, path in enumerate(paths):
            parts = [x for x in path.strip().lower().split("/") if x]
            par_h = 0
            for k, t in enumerate(parts):
                key = (par_h, t)
                h = keymap.get(key)
                if h is None:
                    h = keymap[key] = len(self.htpi_parent)
                    self.htpi_parent.append(par_h)
                    self.htpi_tag.append(t)
                    self.htpi_depth.append(k + 1)
                par_h = h
            parent_path = "/" + "/".join(parts[:-1]) if len(parts) > 1 else None
            self.ids.append(par_h)
            self.parent_pos.append(last_pos_of_path.get(parent_path, -1) if parent_path else -1)
            self.nodes.append(pos)
            last_pos_of_path["/" + "/".join(parts)] = pos
        n = len(self.ids)
        end = list(range(n))
        for q in range(n - 1, -1, -1):  # children after parents: propagate ends upwards
            pp = self.parent_pos[q]
            if pp >= 0 and end[q] > end[pp]:
                end[pp] = end[q]
        self.subtree_end = end
        self.chars = [0] * n
        return self

    def path(self, h: int) -> str:
        memo = self._paths
        v = memo.get(h)
        if v is None:
            v = memo[h] = self._path(h)
        return v

    def _path(self, h: int) -> str:
        parts = []
        while h > 0:
            parts.append(self.htpi_tag[h])
            h = self.htpi_parent[h]
        return "/" + "/".join(reversed(parts))

    def is_ancestor_path(self, a: int, b: int) -> bool:
        """Strict, component-wise: path ``a`` is a proper prefix of path ``b`` (D18 [R])."""
        tin = self._tin
        if tin is None or len(tin) != len(self.htpi_parent):
            self._number_paths()
            tin = self._tin
        return tin[a] < tin[b] < self._tout[a]  # type: ignore[index]

    def roots_in(self, a: int, b: int) -> list[int]:
        """WPS positions in ``[a, b)`` whose parent lies outside the range (record roots, §3.9)."""
        # A position whose parent lies inside the range lies inside the sub-tree of an
        # earlier root, so the roots are a chain of sub-tree jumps: O(roots), not O(b - a).
        send = self.subtree_end
        out = []
        q = a
        while q < b:
            out.append(q)
            q = send[q] + 1
        return out


# =============================================================================== filters
def roots_of(seq: Sequence[int], tps: TagPathSequence) -> list[int]:
    """Indices (into ``seq``) of the root entries by the paper's procedure (§3.7 step 2): walk the
    list; each kept path removes the *consecutive* following paths it is an ancestor of."""
    out: list[int] = []
    if tps._tin is None or len(tps._tin) != len(tps.htpi_parent):
        tps._number_paths()
    tin, tout = tps._tin, tps._tout
    i = 0
    m = len(seq)
    while i < m:
        out.append(i)
        p = seq[i]
        lo, hi = tin[p], tout[p]  # type: ignore[index]
        j = i + 1
        while j < m and lo < tin[seq[j]] < hi:  # type: ignore[index]
            j += 1
        i = j
    return out


def canonical_rotation(
    seq: Sequence[int], tps: TagPathSequence, mode: str = "truncate"
) -> tuple[int, ...]:
    """Tree filter rotation (§3.7, Eq. 6, A11): rotate to the first occurrence of the smallest-HTPI
    root; then ``truncate`` at the next occurrence of that root (keep one period) or, with
    ``delete_all_other``, delete the other occurrences of it."""
    if not seq:
        return ()
    # The smallest-HTPI root is simply min(seq): an entry is only ever removed as a descendant of
    # an earlier kept root, whose HTPI is smaller (D3), so the global minimum always stays a root.
    sr = min(seq)
    seq = seq if isinstance(seq, (list, tuple)) else list(seq)
    r = seq.index(sr)
    if mode == "truncate":
        # rotation seq[r:] + seq[:r] cut before the next occurrence of sr, without building it
        # (called for every suffix-tree node that passes the frequency filter)
        # (r is the first occurrence, so the next one can only lie after it)
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


def _smallest_period(seq: Sequence[int]) -> int:
    """Length of the smallest period by the KMP failure function (§3.8)."""
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


def _is_power_of(x: Sequence[int], s: Sequence[int]) -> bool:
    """``s == x * k`` for some ``k >= 2`` (simple repetition, Eq. 7)."""
    lx, ls = len(x), len(s)
    return lx > 0 and ls >= 2 * lx and ls % lx == 0 and tuple(s) == tuple(x) * (ls // lx)


def _case_ok(c: Sequence[int], tps: TagPathSequence) -> bool:
    """Strict Case 1 / Case 2 check (A12): one root, or all roots share the same parent path."""
    roots = roots_of(c, tps)
    if len(roots) == 1:
        return True
    hp = tps.htpi_parent
    par = hp[c[roots[0]]]
    return all(hp[c[i]] == par for i in roots)


# =============================================================================== results
@dataclass
class NodeDecision:
    """One visited suffix-tree node and what the filters decided (§3.11 node table)."""

    sequence: tuple[int, ...]
    nf: int
    h: int | None = None
    pvr: float | None = None
    outcome: str = ""  # frequency | gap | tree | repetition | kept
    canonical: tuple[int, ...] | None = None


@dataclass
class DRP:
    """A data record pattern and the records cut with it (Step 5)."""

    pattern: tuple[int, ...]
    paths: list[str]
    nf: int = 0
    h: int = 0
    pvr: float = 0.0
    matches: list[int] = field(default_factory=list)  # WPS start positions of exact matches
    records: list[tuple[int, int, float]] = field(
        default_factory=list
    )  # (start, end, rvr) WPS ranges
    groups: list[tuple[int, ...]] = field(default_factory=list)  # record roots (WPS positions)
    source: tuple[int, ...] = ()  # the raw node sequence it came from
    attached: int = 0  # gaps attached to the record before them (_attach_gaps)


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


def _resolve_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = set(options) - OPTION_NAMES
    if unknown:
        raise TypeError(f"stem got unknown option(s): {', '.join(sorted(unknown))}")
    profile = options.get("profile", "recommended")
    if profile not in PROFILES:
        raise ValueError(f"unknown STEM profile {profile!r}; choose from {sorted(PROFILES)}")
    opts = dict(_DEFAULTS)
    opts.update(PROFILES[profile])
    opts.update({k: v for k, v in options.items() if v is not None})
    opts["profile"] = profile
    if opts["gap_denominator"] not in ("nf", "nf_minus_1", "pf"):
        raise ValueError(f"unknown gap_denominator {opts['gap_denominator']!r}")
    if opts["rotation_mode"] not in ("truncate", "delete_all_other"):
        raise ValueError(f"unknown rotation_mode {opts['rotation_mode']!r}")
    if not 0 < float(opts["alpha"]) <= 1 or not 0 < float(opts["beta"]) <= 1:
        raise ValueError("alpha and beta must be in (0, 1]")
    if int(opts["L"]) < 2:
        raise ValueError("L must be >= 2")
    deco = opts["decorative"]
    if isinstance(deco, str):
        if deco == "paper":
            deco = DECORATIVE_PAPER
        elif deco == "extended":
            deco = DECORATIVE_EXTENDED
        elif deco == "none":
            deco = frozenset()
        else:
            raise ValueError(
                f"unknown decorative preset {deco!r} (paper, extended, none, or a set of tags)"
            )
    opts["decorative"] = frozenset(deco)
    return opts


# =============================================================================== Step 4
def _gap_h(
    index: SuffixIndex, lb: int, rb: int, l: int, s: Sequence[int], alpha: float, need: float
) -> int:
    """``h`` of the gap filter (§3.6, equivalent occurrence form): the number of occurrences of ``s``
    followed by ``l`` symbols whose LCS with ``s`` is ``>= alpha*l``. Occurrences sharing their next
    ``l`` symbols are one run of the SA interval (LCP >= 2l), i.e. one stopping node q' of the
    paper's Step 1; each run's window is compared once. Stops early once ``h >= need`` or once
    ``need`` is out of reach (the decision, not ``h``, is what the filter needs; ``need <= 0``
    disables early stops)."""
    text, sa, n = index.text, index.sa, index.n
    if index.string is not None:  # the same comparisons on str slices: C-level, 4x quicker LCS
        text = index.string
        p = sa[lb]
        s = text[p : p + l]
    bound = 2 * l
    threshold = alpha * l - _EPS
    h = 0
    remaining = rb - lb + 1
    early = need > 0
    if rb - lb > 64:  # run boundaries k (lcp[k] < 2l) of a long interval at once, by numpy
        cuts = index.small_lcp_positions(lb, rb, bound)
        cuts.append(rb + 1)
    else:  # found one run at a time below: the early stop often spares the rest
        cuts = None
        lcp = index.lcp
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
        size = k - k0  # one run [k0, k): occurrences sharing their next l symbols
        remaining -= size
        p = sa[k0]
        if p + bound <= n:
            w = text[p + l : p + bound]
            if w == s or LCSseq.similarity(s, w) >= threshold:
                h += size
        if early and (h >= need or h + remaining < need):
            break
        k0 = k
    return h


def analyze_sequence(tps: TagPathSequence, *, trace: bool = False, **options: Any) -> STEMAnalysis:
    """Steps 3-5 on a tag-path sequence (see the module docstring). Options as :func:`analyze`.

    ``trace=True`` computes every gap-filter ``h`` exactly (no early stop) and records a
    :class:`NodeDecision` for every node that reached the gap filter. Without it, a node that
    the tree filter rejects whatever the gap filter says (its canonical rotation is already a
    DRP, is shorter than ``min_length``, or, with ``recheck_pf``, a full rotation with fewer
    than two non-overlapping matches) skips the gap filter: it counts as ``"tree"`` in
    ``stats`` and gets no :class:`NodeDecision`. The DRPs are the same either way."""
    return _analyze_sequence(tps, _resolve_options(options), trace)


def _analyze_sequence(tps: TagPathSequence, opts: dict[str, Any], trace: bool) -> STEMAnalysis:
    """:func:`analyze_sequence` with the options already resolved (:func:`_resolve_options`)."""
    L, alpha, beta = int(opts["L"]), float(opts["alpha"]), float(opts["beta"])
    min_len, min_freq = int(opts["min_length"]), int(opts["min_frequency"])
    stats = {"nodes": 0, "frequency": 0, "gap": 0, "tree": 0, "repetition": 0, "kept": 0}
    decisions: list[NodeDecision] = []
    drps: list[DRP] = []
    if len(tps) < 2:
        return STEMAnalysis(tps, drps, decisions, opts, stats)
    index = SuffixIndex(tps.ids, backend=opts["backend"])
    if tps._string is None:
        tps._string = index.string  # the same sequence
    extracted: set[tuple[int, ...]] = set()
    pf_cache: dict[tuple[int, ...], list[int]] = {}

    def matches_of(c: tuple[int, ...], interval: tuple[int, int] | None = None) -> list[int]:
        m = pf_cache.get(c)
        if m is None:
            if interval:  # the node's own SA interval when c is its sequence (no search)
                m = greedy_matches(sorted(index.sa[interval[0] : interval[1] + 1]), len(c))
            else:
                m = index.greedy_find(c)
            pf_cache[c] = m
        return m

    denom_mode = opts["gap_denominator"]
    truncate = opts["rotation_mode"] == "truncate"
    # Shortcut with the same outcome (not with ``trace``, which follows the paper's order exactly,
    # for the node table): a node whose canonical rotation is already a DRP, or too short, is
    # pruned by the tree filter whatever the gap filter says, so the rotation is computed first
    # and the costlier gap test skipped. The truncated rotation of a node is derived from that of
    # its nearest visited ancestor (whose sequence is a prefix of the node's): ``stack`` holds, per
    # ancestor, its interval's right bound, depth, smallest identifier ``m``, first position ``r0``
    # of ``m``, next position ``r1`` of ``m`` (None when ``m`` occurs once) and canonical rotation.
    fast = truncate and not trace
    recheck = bool(opts["recheck_pf"])
    text, sa, st = index.text, index.sa, index.string
    # the pf pre-check below searches the whole sequence once per node: only where that search
    # is a short C-level scan (on a huge page it would make the node loop quadratic)
    precheck = recheck and len(text) <= SCAN_FIND_MAX
    # ancestors on the pre-order stack (nested intervals) above a sentinel for the root (empty
    # sequence, "m" above every identifier, never popped)
    top = (len(sa), 0, len(sa) + max(text, default=0), 0, None, ())
    stack = [top]
    n_tree = 0  # nodes settled by the shortcut (added to stats["tree"] at the end)
    pairs = set(zip(text, text[1:])) if fast and precheck else set()  # adjacent identifier pairs
    # ---- filter 1: frequency (§3.5; L bound A4): the length bounds are applied by the interval
    # enumeration itself (every node counts in stats), nf below
    nodes, stats["nodes"] = index.intervals(max(min_len, 1), L)
    stats["frequency"] = stats["nodes"] - len(nodes)
    for lb, depth, rb in nodes:
        nf = rb - lb + 1
        if nf < min_freq:
            stats["frequency"] += 1
            continue
        c0 = None
        if fast:
            while top[0] < lb:
                stack.pop()
                top = stack[-1]
            # canonical_rotation(s, tps, "truncate") from the ancestor's: s = s_a + t
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
            if c0 in extracted or len(c0) < min_len:
                n_tree += 1
                continue
            # a full rotation (the smallest identifier occurs once) rarely occurs twice in the
            # WPS (10k of the 11k such nodes that reach the gap filter on the development lists):
            # the pf re-check, a C-level string search, settles them before the gap filter
            if precheck and r1 is None:
                if r0 and (text[p + depth - 1], text[p]) not in pairs:
                    # the rotation joins s's last identifier to its first: a pair the WPS never
                    # holds (8k of those 18k nodes on the development lists), so no match at all
                    n_tree += 1
                    continue
                mm = pf_cache.get(c0)
                if mm is None:  # matches_of(c0), searched for as the same rotation of the string
                    mm = pf_cache[c0] = index.greedy_find(
                        c0 if st is None else st[p + r0 : p + depth] + st[p : p + r0]
                    )
                if len(mm) < 2:
                    n_tree += 1
                    continue
        elif not trace:
            c0 = canonical_rotation(index.node_sequence(lb, depth), tps, opts["rotation_mode"])
            if c0 in extracted or len(c0) < min_len:
                n_tree += 1
                continue
        s = index.node_sequence(lb, depth)
        # ---- filter 2: gap (§3.6)
        if denom_mode == "nf":
            denom = nf
        elif denom_mode == "nf_minus_1":
            denom = max(nf - 1, 1)
        else:
            denom = max(len(greedy_matches(index.occurrences(lb, rb), depth)), 1)
        need = beta * denom - _EPS
        h = _gap_h(index, lb, rb, depth, s, alpha, 0.0 if trace else need)
        pvr = min(1.0, h / denom)
        dec = NodeDecision(s, nf, h, pvr)
        decisions.append(dec)
        if h < need:
            dec.outcome = "gap"
            stats["gap"] += 1
            continue
        # ---- filter 3: tree (§3.7)
        c = c0 if c0 is not None else canonical_rotation(s, tps, opts["rotation_mode"])
        dec.canonical = c
        if len(c) < min_len or c in extracted:
            dec.outcome = "tree"
            stats["tree"] += 1
            continue
        if opts["recheck_pf"] and len(matches_of(c, (lb, rb) if c == s else None)) < 2:
            dec.outcome = "tree"
            stats["tree"] += 1
            continue
        if opts["strict_case_check"] and not _case_ok(c, tps):
            dec.outcome = "tree"
            stats["tree"] += 1
            continue
        # ---- filter 4: repetition (§3.8)
        if not opts["repetition_postpass"] and any(
            _is_power_of(d.pattern, s) or _is_power_of(d.pattern, c) for d in drps
        ):
            dec.outcome = "repetition"
            stats["repetition"] += 1
            continue
        roots = set(roots_of(c, tps))
        rest = [x for i, x in enumerate(c) if i not in roots]
        if rest:
            per = _smallest_period(rest)
            if per < len(rest) and per >= int(opts["nested_min_unit"]):
                dec.outcome = "repetition"
                stats["repetition"] += 1
                continue
        dec.outcome = "kept"
        extracted.add(c)
        drps.append(DRP(c, [tps.path(x) for x in c], nf=nf, h=h, pvr=pvr, source=s))
    stats["tree"] += n_tree
    if opts["repetition_postpass"] and drps:
        # "another DRP o with _is_power_of(o.pattern, d.pattern or d.source)": o's pattern can
        # only be a prefix of d's sequence whose length divides it (DRP patterns are distinct)
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
        drps = keep
    stats["kept"] = len(drps)
    # ---- Step 5: record cutting (§3.9)
    attach = opts["attach_gaps"]
    for d in drps:
        gap_ok = len(d.pattern) >= int(opts["gap_min_length"])
        _cut_records(
            d,
            tps,
            matches_of(d.pattern),
            alpha,
            bool(opts["chunk_gaps"]),
            gap_ok,
            float(attach) if attach else 0.0,
        )
    drps = [d for d in drps if d.groups]
    if opts["dedupe_regions"]:
        drps = _dedupe(drps, tps)
    return STEMAnalysis(tps, drps, decisions, opts, stats)


def _cut_records(
    d: DRP,
    tps: TagPathSequence,
    matches: list[int],
    alpha: float,
    chunk: bool,
    gaps: bool = True,
    attach: float = 0.0,
) -> None:
    """Eq. (1)-(2): exact matches are records; a gap (or, chunked, each piece of a gap starting at
    the DRP's first identifier, bounded by that element's subtree for Case 1 patterns, or by its
    parent and ``2 * len(drp)`` positions for Case 2) is a record when ``rvr >= alpha`` (§3.9, A16).

    ``attach`` (recommended 0.8, paper off; ours): when the matches are sibling runs and at
    least that share of the gaps between consecutive matches hold elements, with one shape
    (the same identifiers) for most of them, the gaps are the rest of each record, not records:
    each record runs from its match to the next match (:func:`_attach_gaps`)."""
    c = d.pattern
    l = len(c)
    d.matches = list(matches)
    if not matches:  # A16: k = 0 gives no records
        return
    joined = _attach_gaps(tps, c, matches, attach) if attach and len(matches) >= 4 else None
    wps = tps.ids
    n = len(wps)
    threshold = alpha * l - _EPS
    first = c[0]
    case1 = len(roots_of(c, tps)) == 1
    cand: list[tuple[int, int, float]] = []

    # LCS on str slices of the WPS: the same values as on ids slices, C-level
    seq = tps.string
    if seq is None:
        seq, cl = wps, list(c)
    else:
        cl = as_string(c)

    send, ppos = tps.subtree_end, tps.parent_pos
    fp = tps.positions(first) if gaps and chunk else []

    def gap(a: int, b: int) -> None:  # (a < b)
        if not chunk:
            r = LCSseq.similarity(cl, seq[a:b])
            if r >= threshold:
                cand.append((a, b, r / l))
            return
        starts = fp[bisect_left(fp, a) : bisect_left(fp, b)]
        last = len(starts) - 1
        for j, q in enumerate(starts):
            stop = starts[j + 1] if j < last else b
            if case1:
                stop = min(stop, send[q] + 1)
            else:  # Case 2: stay under the same parent and within two pattern lengths
                par = ppos[q]
                if par >= 0:
                    stop = min(stop, send[par] + 1)
                stop = min(stop, q + 2 * l)
            r = LCSseq.similarity(cl, seq[q:stop])
            if r >= threshold:
                cand.append((q, stop, r / l))

    prev = 0
    if joined is None:
        for m in matches:
            if gaps and prev < m:
                gap(prev, m)
            cand.append((m, m + l, 1.0))
            prev = m + l
    else:
        attached, last_stop = joined
        d.attached = sum(attached)
        for k, m in enumerate(matches):
            if gaps and prev < m:
                gap(prev, m)
            if k + 1 < len(matches):
                stop = matches[k + 1] if attached[k] else m + l
            else:
                stop = last_stop
            cand.append((m, stop, 1.0))
            prev = stop
    if gaps and prev < n:
        gap(prev, n)
    cand.sort()
    records: list[tuple[int, int, float]] = []
    groups: list[tuple[int, ...]] = []
    last_end = -1  # last WPS position covered by the previous record's root subtrees
    for a, b, r in cand:
        # the record roots: tps.roots_in(a, b), whose first root is a itself
        if a >= b:
            continue
        if chunk and a <= last_end:
            continue  # nested inside the previous record (keep the outer one)
        roots = [a]
        q = send[a] + 1
        while q < b:
            roots.append(q)
            q = send[q] + 1
        records.append((a, b, r))
        groups.append(tuple(roots))
        last_end = send[roots[-1]]  # roots are disjoint, in document order
    d.records = records
    d.groups = groups


def _attach_gaps(
    tps: TagPathSequence, pattern: Sequence[int], matches: list[int], share: float
) -> tuple[list[bool], int] | None:
    """Which gaps between consecutive exact matches are the rest of the preceding record, and
    where the last record ends; ``None`` when the gaps are not systematic. Ours, not the paper's.

    A short DRP often matches only the first part of each record: the title row of a result
    built from a title row and a price row (``tr`` ``tr``), or the ``<br><font><a>`` title of
    a ``<br><font><a>title</a></font><br><font>snippet</font>`` result. Eq. (1)-(2) then make
    every price row or snippet a *gap record* of its own (its rvr passes alpha), which
    doubles the record count and splits every record. When at least ``share`` of the gaps
    between consecutive matches hold elements and most of those (60 %) have one shape (the
    same root identifiers), the gaps of that shape belong to the record before them; other
    gaps (a record with a missing field, several records in one gap) are left to Eq. (2), and
    so is a gap that is, or that holds several pieces starting at the DRP's first identifier
    one of which is, a near copy of the DRP (LCS at least 80 % of the longer of the two):
    whole records that differ a little from the exact matches, as records with optional
    fields do. The gap after the last match is attached when it has the common shape; the
    gap before the first match never is (a header). Only for at least 4 matches that are
    one sibling run and mostly hold text (a DRP that matches empty separator rows leaves the
    records in its gaps, which Eq. (2) handles)."""
    wps, pp, send = tps.ids, tps.parent_pos, tps.subtree_end
    parent = pp[matches[0]]
    if any(pp[m] != parent for m in matches):
        return None
    l = len(pattern)
    chars = tps.chars
    if chars:
        # matches holding text: a match's roots hold text iff any of its positions does (a
        # root's subtree holds the others), so a C-level any() over the slice decides; the
        # count stops once half the matches hold text
        need, texty = 0.5 * len(matches), 0
        for m in matches:
            if any(chars[m : m + l]):
                texty += 1
                if texty >= need:
                    break
        if texty < need:
            return None  # the DRP matches text-less separators: the gaps are the records (Eq. 2)
    seq = tps.string  # LCS on str slices: the same values as on ids slices, C-level
    if seq is None:
        seq, pat = wps, list(pattern)
    else:
        pat = as_string(pattern)
    firsts = tps.positions(pattern[0])

    def holds_records(a: int, b: int) -> bool:
        """The gap, or one of several pieces of it starting at the DRP's first identifier,
        is a near copy of the DRP: records of their own (three product cards with an extra
        badge between two exact matches), not the rest of the record before them."""
        if LCSseq.normalized_similarity(pat, seq[a:b]) >= 0.8:
            return True
        starts = firsts[bisect_left(firsts, a) : bisect_left(firsts, b)]
        if len(starts) < 2:
            return False  # one piece: the whole-gap test above decides
        for j, q in enumerate(starts):
            stop = starts[j + 1] if j + 1 < len(starts) else b
            if LCSseq.normalized_similarity(pat, seq[q:stop]) >= 0.8:
                return True
        return False

    shapes: list[tuple[int, ...] | None] = []
    for k, m in enumerate(matches[:-1]):
        a, b = m + l, matches[k + 1]
        if a >= b:
            shapes.append(())  # nothing between two matches
        elif holds_records(a, b):
            shapes.append(None)  # records of their own: Eq. (2), not counted either way
        else:
            shapes.append(tuple(wps[x] for x in tps.roots_in(a, b)))
    filled = [x for x in shapes if x]
    counted = sum(1 for x in shapes if x is not None)
    if len(filled) < max(2, share * counted):
        return None
    common = max(set(filled), key=filled.count)
    if filled.count(common) < 0.6 * len(filled):
        return None
    last = matches[-1]
    stop = last + l
    q, after = stop, []
    limit = send[parent] + 1 if parent >= 0 else len(wps)
    while q < limit and len(after) < len(common):
        if pp[q] == parent:
            after.append(q)
            q = send[q] + 1
        else:
            q += 1
    if tuple(wps[x] for x in after) == common:
        stop = send[after[-1]] + 1
    return [x == common for x in shapes], stop


def _dedupe(drps: list[DRP], tps: TagPathSequence) -> list[DRP]:
    """A17: drop DRPs with < 2 records; drop B when every record root of B lies inside a record of
    another DRP A with at least as many records *and B's records carry (nearly, >= 90 %) the same
    text* — a redundant sub-pattern such as ``(h3,a,p)`` inside ``(div,h3,a,p)`` (equal record
    sets: keep more exact matches, then the longer pattern). The text condition is ours: the
    digest's containment rule alone dropped finer, correct segmentations on the development lists."""
    drps = [d for d in drps if len(d.groups) >= 2]
    ends = tps.subtree_end

    def intervals(d: DRP) -> tuple[list[int], list[int]]:
        iv = sorted((x, ends[x]) for g in d.groups for x in g)
        return [a for a, _ in iv], [b for _, b in iv]

    ivs = [intervals(d) for d in drps]

    def inside(b: int, a: int) -> bool:
        st, en = ivs[a]
        for g in drps[b].groups:
            for x in g:
                k = bisect_right(st, x) - 1
                if k < 0 or en[k] < x:
                    return False
        return True

    chars = tps.chars

    def text_of(d: DRP) -> int:
        return sum(chars[x] for g in d.groups for x in g) if chars else 0

    texts = [text_of(d) for d in drps]

    def rank(i: int) -> tuple[int, int, int]:
        d = drps[i]
        return (len(d.groups), len(d.matches), len(d.pattern))

    out = []
    for b in range(len(drps)):
        dropped = False
        for a in range(len(drps)):
            if a == b or len(drps[a].groups) < len(drps[b].groups) or not inside(b, a):
                continue
            if texts[b] < 0.9 * texts[a]:
                continue  # B's records are a finer, different segmentation: keep both, ranking decides
            if inside(a, b):  # same record set
                if rank(a) > rank(b) or (rank(a) == rank(b) and a < b):
                    dropped = True
                    break
            else:
                dropped = True
                break
        if not dropped:
            out.append(drps[b])
    return out


# =============================================================================== page level
def analyze(page: Page, *, trace: bool = False, **options: Any) -> STEMAnalysis:
    """Run STEM on a :class:`Page` and return every intermediate result (WPS, node decisions,
    DRPs with their records as WPS ranges and root positions)."""
    opts = _resolve_options(options)
    tps = TagPathSequence.from_page(page, opts["decorative"])
    return _analyze_sequence(tps, opts, trace)


def _confidence(
    page: Page,
    groups: list[tuple[int, ...]],
    rvrs: list[float],
    l: int,
    pvr: float,
    chars: int | None = None,
) -> tuple[float, int]:
    """``(confidence, record text chars)``. Confidence = how sure we are this is a list of data
    records (comparable across extractors, brief): similarity (mean rvr; exact matches are 1)
    x record count (2 records: 0.5, 3: 0.75, 5+: ~0.94) x pattern richness (a 2-tag pattern like
    ``li/a`` is weak evidence) x content (records with little text, e.g. menu items, score low)
    x contiguity (pvr)."""
    k = len(groups)
    if k < 2:
        return 0.0, 0
    sim = sum(rvrs) / k
    count = 1.0 - 0.5 ** (k - 1)
    rich = min(1.0, 0.4 + 0.15 * l)
    if chars is None:  # (the caller may know it: the text characters of the groups' roots)
        chars = 0
        lo_, hi_, leaves = page.leaf_lo, page.leaf_hi, page.leaves
        for g in groups:
            for x in g:
                for t in leaves[lo_[x] : hi_[x]]:
                    chars += len(t)
    avg = chars / k
    content = min(1.0, 0.2 + avg / 60.0)
    conf = sim * count * rich * content * (0.75 + 0.25 * pvr)
    return max(0.0, min(1.0, conf)), chars


class STEMExtractor:
    """The ``stem`` extractor (see the module docstring for the algorithm and the options).

    Options: ``profile`` (``"recommended"`` | ``"paper"``), ``L`` (100), ``alpha`` (0.6),
    ``beta`` (0.6), ``min_length`` (2), ``min_frequency`` (2), ``decorative`` (``"paper"``,
    ``"extended"``, ``"none"`` or a set of tag names), ``gap_denominator``, ``rotation_mode``,
    ``recheck_pf``, ``strict_case_check``, ``nested_min_unit``, ``repetition_postpass``,
    ``chunk_gaps``, ``gap_min_length``, ``dedupe_regions``, ``split_regions``, ``merge_grids``
    (table grids are one region, :func:`_parts_by_parent`), ``trim_edges`` (0.5; ``False``
    disables), ``demote_fillers`` (0.25; ``False`` disables), ``attach_gaps`` (0.8; ``False``
    disables), ``backend`` (suffix array:
    ``auto``/``divsufsort``/``sais``), ``align`` (field alignment, default True),
    ``max_regions`` (5: only the best regions by the ranking's size terms are built and aligned;
    ``None`` for all), ``min_confidence`` (0.05: weaker regions are not reported).
    """

    name = "stem"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        analysis = analyze(page, **options)
        opts = analysis.options
        tps = analysis.tps
        cands: list[
            tuple[float, int, list[tuple[int, ...]], list[float], float, dict[str, Any]]
        ] = []
        nodes, parent_of, wchars = tps.nodes, page.parent, tps.chars
        node_of = nodes.__getitem__
        trim = opts["trim_edges"]
        tag_str = as_string(page.tag_id) if trim else None  # tag strings of records: str slices
        for k, d in enumerate(analysis.drps):
            recs = list(zip(d.groups, [r for _, _, r in d.records]))
            if opts["split_regions"]:
                by_parent: dict[int, list[tuple[tuple[int, ...], float]]] = {}
                for g, r in recs:
                    by_parent.setdefault(parent_of[nodes[g[0]]], []).append((g, r))
                parts = _parts_by_parent(page, by_parent, nodes, bool(opts["merge_grids"]))
            else:
                parts = [(_common_parent(page, [nodes[x] for g, _ in recs for x in g]), recs)]
            for parent, items in parts:
                wgroups = [g for g, _ in items]  # record roots as WPS positions
                groups = [tuple(map(node_of, g)) for g in wgroups]
                rvrs = [r for _, r in items]
                if trim and len(groups) > 2:
                    lo_k, hi_k = _trim_edges(page, groups, float(trim), tag_str)
                    groups, rvrs, wgroups = groups[lo_k:hi_k], rvrs[lo_k:hi_k], wgroups[lo_k:hi_k]
                    if len(groups) < 2:
                        continue
                # record text characters: tps.chars holds each root's (the page's leaves)
                chars = sum(wchars[x] for g in wgroups for x in g)
                conf, chars = _confidence(page, groups, rvrs, len(d.pattern), d.pvr, chars)
                if conf < float(opts["min_confidence"]):
                    continue
                meta = {
                    "drp": list(d.paths),
                    "drp_ids": list(d.pattern),
                    "nf": d.nf,
                    "h": d.h,
                    "pvr": round(d.pvr, 4),
                    "exact": len(d.matches),
                    "gap_records": sum(1 for r in rvrs if r < 1.0),
                    "attached_gaps": d.attached,
                    "drp_index": k,
                    "profile": opts["profile"],
                }
                # the ranking rule's size terms (scrapy_records.extractors.ranking), to keep the best regions only
                pre = conf * math.sqrt(chars) * math.log2(1 + len(groups))
                cands.append((pre, parent, groups, rvrs, conf, meta))
        _prefer_coarser(cands)
        if opts["trim_edges"]:
            _prefer_core(cands)
        if opts["demote_fillers"]:
            _demote_fillers(page, cands, float(opts["demote_fillers"]))
        cands.sort(key=lambda c: -c[0])
        limit = opts["max_regions"]
        if limit is not None:
            cands = cands[: int(limit)]
        return [
            build_region(
                page,
                self.name,
                parent,
                groups,
                conf,
                record_confidences=rvrs,
                meta=meta,
                align=bool(opts["align"]),
            )
            for _, parent, groups, rvrs, conf, meta in cands
        ]


def _trim_edges(
    page: Page, groups: list[tuple[int, ...]], T: float, tag_str: str | None = None
) -> tuple[int, int]:
    """``(lo, hi)``: the records ``groups[lo:hi]`` kept after dropping edge records whose tag
    string (MDR's, digest mdr.md §3.2: the pre-order tag ids of the record's subtrees) is at a
    normalized edit distance above ``T`` both from the middle record and from its inner
    neighbour, unless it is the last record, larger, and holds that record's tag string as a
    subsequence (LCS >= 80 %: a real record with extra content after it, e.g. a last review
    that swallowed a trailing box). Ours, not the paper's: an exact
    match of a short DRP only says that a record *starts* like the others, so a result-count
    header or a footer table built like the result tables (``table/tr/td/font/a``) became the
    first or last "record" of the region. C-level Levenshtein with the length cut-off, at most
    one comparison per dropped record plus two. ``tag_str``: ``page.tag_id`` as a str
    (:func:`~scrapy_records.extractors.suffix.as_string`), whose slices are the tag strings with the same
    distances, compared by rapidfuzz's quicker string path."""
    tid, end = page.tag_id, page.end

    def tags(g: tuple[int, ...]) -> Sequence[int] | str:
        if tag_str is not None:
            return "".join([tag_str[x : end[x] + 1] for x in g])
        out: list[int] = []
        for x in g:
            out.extend(tid[x : end[x] + 1])
        return out

    k = len(groups)
    m = k // 2
    cache: dict[int, Sequence[int] | str] = {}

    def t(i: int) -> Sequence[int] | str:
        v = cache.get(i)
        if v is None:
            v = cache[i] = tags(groups[i])
        return v

    def unlike(i: int, j: int) -> bool:
        a, b = t(i), t(j)
        if normalized_distance(a, b, T) <= T:
            return False
        # the last record with extra content after a whole record (the last review swallowing
        # the page's trailing box) is still a record: keep it when it holds ref's tags in order
        return i != k - 1 or len(a) <= len(b) or LCSseq.similarity(a, b) < 0.8 * len(b)

    def odd(i: int, inner: int) -> bool:
        # unlike the middle record and unlike its inner neighbour (records vary; a header
        # or footer resembles none of them)
        ref = {m, inner}
        ref.discard(i)
        return all(unlike(i, j) for j in ref)

    lo, hi = 0, k
    while hi - lo > 2 and lo < m and odd(lo, lo + 1):
        lo += 1
    while hi - lo > 2 and hi - 1 > m and odd(hi - 1, hi - 2):
        hi -= 1
    return lo, hi


def _demote_fillers(page: Page, cands: list, frac: float) -> None:
    """A region B that is another region A of the same parent *plus filler records*: every
    (>= 80 %) record root of A, whose records are single elements, is also a record of B, and
    B's other records (at least 0.3 x as many as A's) carry on average less than ``frac`` of the
    text of A's records (spacer rows, separators, "new!" badges cut by a short pattern such as
    ``(tr, td)``). B's record count only comes from the fillers, so its confidence and
    pre-score are halved. Ours, not the paper's (same family as :func:`_prefer_coarser`);
    measured on the development lists with ``frac=0.25``: first-region F1 0.690/0.846/0.838 ->
    0.698/0.846/0.845 (yamada/zhao1/zhao3), negative pages unchanged."""
    if len(cands) < 2:
        return
    # text sizes by prefix sums over the page's leaves, worked out only for the few pairs
    # that pass the cheap record-root tests (most pages have none)
    prefix: list[int] = []
    lo, hi = page.leaf_lo, page.leaf_hi

    def chars(g: tuple[int, ...]) -> int:
        if not prefix:
            prefix.append(0)
            prefix.extend(accumulate(map(len, page.leaves)))
        return sum(prefix[hi[x]] - prefix[lo[x]] for x in g)

    demoted: set[int] = set()
    for idx in _same_parent_groups(cands):
        for a in idx:
            ga = cands[a][2]
            if any(len(g) > 1 for g in ga):
                continue
            firsts = {g[0] for g in ga}
            mean_a = None
            for b in idx:
                gb = cands[b][2]
                if b == a or b in demoted or len(gb) <= len(ga):
                    continue
                if len(firsts & {g[0] for g in gb}) < 0.8 * len(firsts):
                    continue
                extra = [g for g in gb if g[0] not in firsts]
                if len(extra) < 0.3 * len(ga):
                    continue
                if mean_a is None:
                    mean_a = sum(chars(g) for g in ga) / len(ga)
                if sum(chars(g) for g in extra) / len(extra) < frac * mean_a:
                    c = cands[b]
                    cands[b] = (
                        c[0] * 0.5,
                        c[1],
                        c[2],
                        c[3],
                        c[4] * 0.5,
                        {**c[5], "fillers_of": cands[a][5]["drp_index"]},
                    )
                    demoted.add(b)


def _same_parent_groups(cands: list) -> list[list[int]]:
    """Indices of the candidate regions that share a parent, for every parent with several."""
    by_parent: dict[int, list[int]] = {}
    for i, c in enumerate(cands):
        by_parent.setdefault(c[1], []).append(i)
    return [idx for idx in by_parent.values() if len(idx) > 1]


def _prefer_coarser(cands: list) -> None:
    """Two segmentations of the same sibling run (same parent): rows cut one by one by a short
    pattern such as ``(tr, td, img)`` versus multi-row records cut by a longer DRP (or by a DRP
    whose records took in the systematic gaps between its matches, :func:`_attach_gaps`) whose
    record roots include most of those rows. The coarser records are the data records (the
    pattern the rows repeat with), so the finer region's confidence and pre-score are halved. Ours, not the
    paper's: STEM leaves the choice between DRPs open (§1.3, A17)."""
    for idx in _same_parent_groups(cands):
        for b in idx:
            pb, gb, conf_b, mb = cands[b][0], cands[b][2], cands[b][4], cands[b][5]
            roots_b = {g[0] for g in gb}
            for a in idx:
                ga, ma = cands[a][2], cands[a][5]
                if a == b or len(ga) >= len(gb):
                    continue
                if len(ma["drp_ids"]) <= len(mb["drp_ids"]) and not ma.get("attached_gaps"):
                    continue
                if not any(len(g) > 1 for g in ga):
                    continue
                if sum(map(len, ga)) * len(gb) < 1.5 * sum(map(len, gb)) * len(ga):
                    continue  # not coarser: as many roots per record (another phase, say)
                roots_a = {x for g in ga for x in g}
                if len(roots_b & roots_a) >= 0.8 * len(roots_b):
                    c = cands[b]
                    cands[b] = (
                        pb * 0.5,
                        c[1],
                        c[2],
                        c[3],
                        conf_b * 0.5,
                        {**mb, "finer_than": ma["drp_index"]},
                    )
                    break


def _prefer_core(cands: list) -> None:
    """Region A holds every record of region B (same parent, same record roots) plus records
    only before B's first or after B's last record, and B is at least as confident: A is B
    with the page chrome around the list (result-count bars, "sponsored links" boxes built
    with the same tables as the results) cut by a shorter, looser DRP, so A's confidence and
    pre-score are halved. Extra records *between* B's are left alone (they are records with
    a missing field, which the looser DRP rightly keeps). Ours, with ``trim_edges``."""
    for idx in _same_parent_groups(cands):
        firsts = {i: [g[0] for g in cands[i][2]] for i in idx}
        for a in idx:
            fa = firsts[a]
            sa = set(fa)
            for b in idx:
                fb = firsts[b]
                if a == b or len(fb) < 3 or len(fa) <= len(fb) or cands[b][4] < cands[a][4]:
                    continue
                if not sa.issuperset(fb):
                    continue
                lo, hi = fb[0], fb[-1]
                if any(lo < x < hi for x in sa.difference(fb)):
                    continue
                c = cands[a]
                cands[a] = (
                    c[0] * 0.5,
                    c[1],
                    c[2],
                    c[3],
                    c[4] * 0.5,
                    {**c[5], "chrome_of": cands[b][5]["drp_index"]},
                )
                break


def _parts_by_parent(
    page: Page,
    by_parent: dict[int, list[tuple[tuple[int, ...], float]]],
    nodes: list[int],
    grids: bool,
) -> list[tuple[int, list[tuple[tuple[int, ...], float]]]]:
    """``split_regions``: the records of one DRP as regions, one per parent element (at least
    2 records), except table grids when ``grids`` (``merge_grids``, ours; digest TC-19 asks
    that records of one DRP under different parents be told apart by parent, not that every
    parent be a list of its own).

    A grid lays its records out in rows: the parents are sibling ``tr`` rows of one table,
    every record is a single ``td``/``th`` cell, all rows but the last hold the same number
    (at least 2) of records and the last no more, and the cells of each row are alike (none
    has more than twice the elements of another: a rank cell beside a result cell is a
    row record's two parts, not two records). A grid is one region under the table (a 4 x 4
    product table: 16 records, not four regions of 4)."""
    tag, parent, end = page.tag, page.parent, page.end
    out: list[tuple[int, list[tuple[tuple[int, ...], float]]]] = []
    done: set[int] = set()
    if grids:
        rows: dict[int, list[int]] = {}
        for p in by_parent:
            if p >= 0 and tag[p] == "tr":
                rows.setdefault(parent[p], []).append(p)
        for table, ps in rows.items():
            if len(ps) < 2:
                continue
            ps.sort()
            counts = [len(by_parent[p]) for p in ps]
            if min(counts[:-1]) < 2 or len(set(counts[:-1])) > 1 or counts[-1] > counts[0]:
                continue
            cells = [it for p in ps for it in by_parent[p]]
            if any(len(g) != 1 or tag[nodes[g[0]]] not in ("td", "th") for g, _ in cells):
                continue
            if any(
                max(sizes) > 2 * min(sizes)
                for sizes in (
                    [end[nodes[g[0]]] - nodes[g[0]] + 1 for g, _ in by_parent[p]] for p in ps
                )
            ):
                continue
            out.append((table, sorted(cells, key=lambda it: it[0][0])))
            done.update(ps)
    for p, v in by_parent.items():
        if p not in done and len(v) >= 2:
            out.append((p, v))
    return out


def _common_parent(page: Page, nodes: list[int]) -> int:
    """Lowest common ancestor of the nodes' parents (iterative, by depth)."""
    if not nodes:
        return -1
    parent, depth = page.parent, page.depth
    a = parent[nodes[0]]
    for x in nodes[1:]:
        b = parent[x]
        while a != b and a >= 0 and b >= 0:
            if depth[a] > depth[b]:
                a = parent[a]
            elif depth[b] > depth[a]:
                b = parent[b]
            else:
                a, b = parent[a], parent[b]
        if a != b:
            return -1
    return a
