"""G-STM: generalized simple tree matching with list grammars (Jindal & Liu).

Paper ``004_fafc328803373d0e.txt``; working specification ``gstm.md`` (digest sections are
cited as §n). The matching engine (STM, G-STM, Detect-Lists, Grammar-Generation, UpdateW,
record segmentation) lives in :mod:`scrapy_records.treematch`; this module holds the two
problem formulations of digest §1.2-§1.4:

* **Problem 2, a single list page** (§1.3, §3.11): :class:`GSTMExtractor` (``name =
  "gstm"``) matches the page against its own copy, ``G-STM(T, copy(T))``; every ``(D)+``
  group of a node's child grammar is a list, segmented into records by the grammar's back
  edges (§3.9) and returned as a Region via :func:`build_region`.
* **Problem 1, several pages of one template** (§1.2, §3.10, §8): :func:`induce_pattern`
  builds a serialisable :class:`Pattern` (a template tree with list and optional markers
  and data/constant text slots) by collapsing each page's lists (lower-level lists first,
  their records merged by partial tree alignment) and merging the collapsed trees by
  partial tree alignment with G-STM as the tree matcher; :func:`induce_wrapper` turns the
  pattern into a :class:`~scrapy_records.wrapper.Wrapper`.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

from ..page import Page, as_page
from ..results import Region
from ..treematch import TAU1, TAU2, TEXT, Detail, Matcher, PageTree, flatten, segment
from .base import build_region

logger = logging.getLogger(__name__)

__all__ = [
    "GSTMExtractor",
    "find_lists",
    "ListFound",
    "Pattern",
    "PNode",
    "PList",
    "Slot",
    "induce_pattern",
    "induce_wrapper",
]

_MATCHER_OPTIONS = ("tau1", "tau2", "r2", "sizes", "grammar", "max_cells", "max_node_cells")


def _matcher(options: dict[str, Any]) -> Matcher:
    kw = {k: options.pop(k) for k in _MATCHER_OPTIONS if k in options}
    return Matcher(**kw)


# ============================================================== Problem 2
@dataclass
class ListFound:
    """One ``(D)+`` group found at a node of the page (Problem 2).

    :param parent: page index of the node whose children form the list.
    :param records: one list of page element indices per record (its root elements).
    :param positions: the same records as child positions of ``parent`` (text leaves included).
    :param grammar: the child grammar of ``parent`` (digest §3.5 rendering, symbols as letters).
    :param similarity: mean normalized G-STM score between instances of the same symbol.
    :param nested: True for an inner same-level list such as ``(bc?)+`` in ``(a(bc?)+)+``.
    """

    parent: int
    records: list[list[int]]
    positions: list[list[int]]
    grammar: str
    similarity: float
    nested: bool = False
    record_nodes: float = 0.0


def _instance_similarity(d: Detail, insts: list[list[int]], cap: int = 24) -> float:
    """Mean ``W_norm`` over pairs of distinct instances carrying the same symbol."""
    by_sym: dict[int, list[int]] = {}
    for inst in insts[:cap]:
        for p in inst:
            by_sym.setdefault(d.sym_a[p], []).append(p)
    tot = 0.0
    cnt = 0
    for ps in by_sym.values():
        for x in range(len(ps)):
            row = d.wn[ps[x]]
            for y in range(x + 1, len(ps)):
                tot += row[ps[y]]
                cnt += 1
    return tot / cnt if cnt else 0.0


def find_lists(page: Page, matcher: Matcher | None = None, tree: PageTree | None = None,
               *, nested: bool = True) -> tuple[list[ListFound], Matcher, PageTree]:
    """All lists of a page by ``G-STM(T, copy(T))`` (digest §1.4 Problem 2, §3.11).

    Every element's child sequence is examined once per distinct shape (the shape pair
    ``(h, h)`` of every node has been evaluated by the root match).
    """
    M = matcher or Matcher()
    T = tree or M.page_tree(page)
    out: list[ListFound] = []
    if not len(page):
        return out, M, T
    root = T.root
    M.match(T.shape[root], T.shape[root])
    lab = M.s_label
    cache: dict[int, Detail | None] = {}
    end = page.end
    for v in range(root, end[root] + 1):
        kids = T.kids[v]
        if len(kids) < 2:
            continue
        h = T.shape[v]
        if h in cache:
            d = cache[h]
        else:
            ch = M.s_children[h]
            seen: set[int] = set()
            dup = False
            for c in ch:
                lc = lab[c]
                if lc in seen:
                    dup = True
                    break
                seen.add(lc)
            d = M.detail(h, h) if dup else None
            if d is not None and not d.lists:
                d = None
            cache[h] = d
        if d is None or d.gram_a is None:
            continue
        items = segment(d.gram_a)
        gtxt = d.grammar_a()
        stack: list[tuple[list[Any], bool]] = [(items, False)]
        while stack:
            its, inner = stack.pop()
            for it in its:
                if not isinstance(it, list):
                    continue
                insts = [flatten(inst) for inst in it]
                recs = [T.kid_nodes(v, ps) for ps in insts]
                sizes = [sum(M.s_size[M.s_children[h][p]] for p in ps) for ps in insts]
                out.append(ListFound(v, recs, insts, gtxt, _instance_similarity(d, insts), inner,
                                     sum(sizes) / len(sizes) if sizes else 0.0))
                if nested:
                    for inst in it:
                        stack.append((inst, True))
    return out, M, T


def _text_share(page: Page, T: PageTree, v: int, positions: list[int], elems: list[int]) -> tuple[int, int]:
    """(chars of the instance, chars inside its elements): text leaves may sit between them."""
    kids = T.kids[v]
    tot = el = 0
    leaves = page.leaves
    for p in positions:
        c = kids[p]
        if c >= 0:
            n = sum(len(leaves[k]) for k in range(page.leaf_lo[c], page.leaf_hi[c]))
            tot += n
            el += n
        else:
            tot += len(leaves[-c - 1])
    return tot, el


class GSTMExtractor:
    """Problem 2 of the paper: lists of data records on one page (digest §1.3, §3.11).

    Options (unknown ones raise ``TypeError``):

    * ``tau1`` (0.5), ``tau2`` (0.7): Detect-Lists thresholds (§2.5);
    * ``r2`` (``"skeleton"``; ``"literal"``, ``"lenient"``), ``sizes`` (``"r3"``;
      ``"literal"``), ``grammar`` (``"r6"``; ``"literal"``): the digest's repairs (§6);
    * ``max_cells`` (400,000) / ``max_node_cells`` (40,000): time budget in W cells;
      beyond it pairs are approximated (:mod:`scrapy_records.treematch`);
    * ``min_records`` (2), ``min_record_nodes`` (3): post-filters A-13 / A-15 (a list of
      bare ``a(t)`` or ``input`` siblings is not a record list, test T7);
    * ``nested`` (True): also report inner same-level lists (``(bc)+`` in ``(a(bc)+)+``);
    * ``align`` (True): field alignment in :func:`build_region`.
    """

    name = "gstm"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        opts = dict(options)
        M = _matcher(opts)
        min_records = int(opts.pop("min_records", 2))
        min_nodes = float(opts.pop("min_record_nodes", 3))
        nested = bool(opts.pop("nested", True))
        align = bool(opts.pop("align", True))
        if opts:
            raise TypeError(f"unknown option(s) for gstm: {', '.join(sorted(opts))}")
        page = as_page(page)
        if not len(page):
            return []
        found, M, T = find_lists(page, M, nested=nested)
        regions: list[Region] = []
        seen: set[tuple[int, ...]] = set()
        for lf in found:
            recs = [r for r in lf.records if r]
            if len(recs) < min_records or lf.record_nodes < min_nodes:
                continue
            key = tuple(x for r in recs for x in r)
            if key in seen:
                continue
            tot = el = 0
            texty = 0
            for ps, r in zip(lf.positions, lf.records):
                t, e = _text_share(page, T, lf.parent, ps, r)
                tot += t
                el += e
                if e or any(page.tag[x] == "img" or page.tag[x] in ("img", "picture") for x in r):
                    texty += 1
            if tot == 0 or el < 0.5 * tot or texty < 0.5 * len(recs):
                continue
            seen.add(key)
            n = len(recs)
            avg_chars = el / n
            count_f = 1.0 - 0.5 ** (n - 1)
            content_f = math.sqrt(min(1.0, lf.record_nodes / 8.0) * min(1.0, avg_chars / 40.0))
            conf = max(0.0, min(1.0, lf.similarity)) * count_f * content_f
            meta = {
                "grammar": lf.grammar,
                "similarity": round(lf.similarity, 4),
                "record_nodes": round(lf.record_nodes, 2),
                "nested": lf.nested,
                "approximated_pairs": M.approximated,
            }
            regions.append(build_region(page, self.name, lf.parent, recs, conf, meta=meta, align=align))
        return regions
