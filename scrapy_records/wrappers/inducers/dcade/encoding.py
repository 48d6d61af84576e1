"""DCADE's multi-level encoding of the leaves (Yuliana & Chang 2019, section 3.1, Fig. 4).

:class:`Encoding` clusters the distinct paths into PathIds (``Sim > theta_path``) and the
distinct (path, ids, classes) structures into SimSeqIds (``simTEC > theta_tec``), both by
complete link, then gives every leaf its codes at the seven levels:

===== ====================== =====
level code                   name
===== ====================== =====
0     PathId, ContentId      CECId
1     SimSeqId, TypeSet      TECId
2     SimSeqId, PTypeSet
3     SimSeqId
4     PathId, TypeSet
5     PathId, PTypeSet
6     PathId
===== ====================== =====
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cdist

from scrapy_records.page import Page
from scrapy_records.wrappers.inducers.dcade.leaves import Interner, PageLeaves, page_leaves
from scrapy_records.wrappers.inducers.dcade.tokens import type_masks

LEVELS = 7


class LevelCodes(Protocol):
    """Leaf codes per page and level, ``lv[r][level][k]``, and the level of a weak match.

    :class:`Encoding` is one; the alignment also runs on stand-ins (spans of pages, abstract
    code sequences) that have the same shape.
    """

    lv: list[list[list[int]]]
    weak_level: int
    recurring: frozenset[int]


def _chars(seq: Iterable[int]) -> str:
    """A sequence of small ids as a string (skipping the surrogates) for rapidfuzz."""
    out = []
    for x in seq:
        c = 0x100 + x
        if c >= 0xD800:
            c += 0x800
        out.append(chr(c))
    return "".join(out)


def _sim_matrix(items: list[str]) -> np.ndarray:
    return cdist(items, items, scorer=LCSseq.normalized_similarity, dtype=np.float32, workers=1)


def _complete_link(sim: np.ndarray, theta: float, order: Sequence[int]) -> list[int]:
    """Clusters where every pair has ``sim > theta`` (complete-link consistency).

    Greedy and deterministic: items in ``order`` (most frequent first) join the first
    cluster all of whose members are similar enough, else start a new cluster.
    """
    n = sim.shape[0]
    ok_rows = sim > theta
    labels = [-1] * n
    # row c: the items similar enough to every member of cluster c
    fits = np.zeros((n, n), dtype=bool)
    clusters = 0
    for j in order:
        hit = np.flatnonzero(fits[:clusters, j])
        if len(hit):
            c = int(hit[0])
            labels[j] = c
            fits[c] &= ok_rows[j]
        else:
            labels[j] = clusters
            fits[clusters] = ok_rows[j]
            clusters += 1
    return labels


def _frequency_order(keys: Iterable[Iterable[int]], count: int) -> list[int]:
    """Ids ``0..count-1``, the most frequent in ``keys`` first (ties: smaller id)."""
    freq: Counter[int] = Counter()
    for k in keys:
        freq.update(k)
    return sorted(range(count), key=lambda i: (-freq[i], i))


def _cluster_paths(
    paths: Interner, leaves: list[PageLeaves], opts: dict[str, Any]
) -> tuple[list[int], np.ndarray | None]:
    """PathId of every distinct path, and the path similarity matrix (``None`` when there
    are more than ``max_cluster_items`` paths: then every path is its own cluster)."""
    path_list = paths.keys_by_id()
    if not 0 < len(path_list) <= opts["max_cluster_items"]:
        return list(range(len(path_list))), None
    psim = _sim_matrix([_chars(p) for p in path_list])
    order = _frequency_order((pl.path for pl in leaves), len(path_list))
    return _complete_link(psim, opts["theta_path"], order), psim


def _cluster_structures(
    structs: Interner,
    paths: Interner,
    psim: np.ndarray | None,
    leaves: list[PageLeaves],
    opts: dict[str, Any],
) -> list[int]:
    """SimSeqId of every distinct (path, ids, classes) structure (eq. 3 weights)."""
    struct_list = structs.keys_by_id()
    if not 0 < len(struct_list) <= opts["max_cluster_items"]:
        return list(range(len(struct_list)))
    pidx = np.array([paths[s[0]] for s in struct_list], dtype=np.int64)
    ids = Interner()
    cls = Interner()
    iidx = np.array([ids.id(s[1]) for s in struct_list], dtype=np.int64)
    cidx = np.array([cls.id(s[2]) for s in struct_list], dtype=np.int64)
    sp = (
        psim[np.ix_(pidx, pidx)]
        if psim is not None
        else (pidx[:, None] == pidx[None, :]).astype(np.float32)
    )
    si = _sim_matrix([_chars(k) for k in ids.keys_by_id()])[np.ix_(iidx, iidx)]
    sc = _sim_matrix([_chars(k) for k in cls.keys_by_id()])[np.ix_(cidx, cidx)]
    tec = opts["w_path"] * sp + opts["w_id"] * si + opts["w_class"] * sc
    order = _frequency_order((pl.struct for pl in leaves), len(struct_list))
    return _complete_link(tec, opts["theta_tec"], order)


class Encoding:
    """All pages' leaves with their level codes ``lv[r][level][k]``.

    ``cec[r]`` and ``tec[r]`` are the level 0 and level 1 codes of page ``r``;
    ``typeset_of_cec`` maps a CECId to its TypeSet bit mask; ``recurring`` holds the CECIds
    found on at least two pages and at most once on any page (a single template, ST: a
    constant text, the same content in the same place).
    """

    def __init__(self, pages: list[Page], opts: dict[str, Any]) -> None:
        self.pages = pages
        self.opts = opts
        tags, paths, toks, structs = Interner(), Interner(), Interner(), Interner()
        self.leaves = [page_leaves(p, opts, tags, paths, toks, structs) for p in pages]
        self.m = len(pages)
        self.n = [len(pl.content) for pl in self.leaves]
        self.path_cluster, psim = _cluster_paths(paths, self.leaves, opts)
        self.struct_cluster = _cluster_structures(structs, paths, psim, self.leaves, opts)
        self.lv: list[list[list[int]]] = []
        self.typeset_of_cec: dict[int, int] = {}
        self._level_codes()
        self.weak_level = int(opts["nw_weak_level"])
        self.cec = [L[0] for L in self.lv]
        self.tec = [L[1] for L in self.lv]
        pages_of: Counter[int] = Counter()
        repeated: set[int] = set()
        for codes in self.cec:
            once = set(codes)
            pages_of.update(once)
            if len(once) < len(codes):
                repeated.update(c for c, n in Counter(codes).items() if n > 1)
        self.recurring = frozenset(c for c, n in pages_of.items() if n >= 2 and c not in repeated)

    def _level_codes(self) -> None:
        path_cluster, struct_cluster = self.path_cluster, self.struct_cluster
        contents = Interner()
        tmask: dict[str, tuple[int, int]] = {}
        levels = [Interner() for _ in range(LEVELS)]
        for pl in self.leaves:
            L: list[list[int]] = [[] for _ in range(LEVELS)]
            for content, path, struct in zip(pl.content, pl.path, pl.struct):
                cid = contents.id(content)
                tm = tmask.get(content)
                if tm is None:
                    tm = tmask[content] = type_masks(content)
                ts, pts = tm
                pid = path_cluster[path]
                sid = struct_cluster[struct]
                c0 = levels[0].id((pid, cid))
                L[0].append(c0)
                L[1].append(levels[1].id((sid, ts)))
                L[2].append(levels[2].id((sid, pts)))
                L[3].append(levels[3].id(sid))
                L[4].append(levels[4].id((pid, ts)))
                L[5].append(levels[5].id((pid, pts)))
                L[6].append(levels[6].id(pid))
                self.typeset_of_cec[c0] = ts
            self.lv.append(L)
