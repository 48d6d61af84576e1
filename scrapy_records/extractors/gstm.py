"""G-STM on a single list page: the lists of a page by matching it against itself
(Jindal & Liu, *A Generalized Tree Matching Algorithm Considering Nested Lists for Web Data
Extraction*; Jindal & Liu, sections 4.3 and 4.9).

The page is matched against its own copy with generalized simple tree matching,
``G-STM(T, copy(T))``: every ``(D)+`` group of a node's child grammar is a list, segmented
into records by the grammar's back edges and returned as a region. The matching engine
(STM, G-STM, Detect-Lists, Grammar-Generation, UpdateW, record segmentation) is
:mod:`scrapy_records.treematch`; the multi-page problem (a wrapper from several pages of one
template) is :mod:`scrapy_records.wrappers.inducers.gstm`.

Entry points: :class:`GSTMExtractor` (``name = "gstm"``; options in its docstring),
:func:`find_lists`, :func:`make_matcher`.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from scrapy_records.extractors.base import build_region
from scrapy_records.extractors.ranking import groups_link_share, region_score
from scrapy_records.page import Page, as_page
from scrapy_records.results import Region
from scrapy_records.treematch import Detail, Matcher, PageTree, flatten, segment

logger = logging.getLogger(__name__)

__all__ = [
    "GSTMExtractor",
    "find_lists",
    "make_matcher",
    "ListFound",
]

_MATCHER_OPTIONS = (
    "tau1",
    "tau2",
    "r2",
    "sizes",
    "grammar",
    "max_cells",
    "max_node_cells",
    "group_check",
)


def make_matcher(options: dict[str, Any]) -> Matcher:
    """A :class:`~scrapy_records.treematch.Matcher` from the matcher's options (``tau1``,
    ``tau2``, ``r2``, ``sizes``, ``grammar``, ``max_cells``, ``max_node_cells``,
    ``group_check``), which are popped from ``options``."""
    kw = {k: options.pop(k) for k in _MATCHER_OPTIONS if k in options}
    return Matcher(**kw)


@dataclass
class ListFound:
    """One ``(D)+`` group found at a node of the page.

    :param parent: page index of the node whose children form the list.
    :param records: one list of page element indices per record (its root elements).
    :param positions: the same records as child positions of ``parent`` (text leaves included).
    :param grammar: the child grammar of ``parent`` (rendered with symbols as letters).
    :param similarity: mean normalized G-STM score between instances of the same symbol.
    :param nested: True for an inner same-level list such as ``(bc?)+`` in ``(a(bc?)+)+``.
    :param record_nodes: mean number of nodes per record.
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
    cwn, cls_a = d.cwn, d.cls_a
    for ps in by_sym.values():
        for x in range(len(ps)):
            row = cwn[cls_a[ps[x]]]
            for y in range(x + 1, len(ps)):
                tot += row[cls_a[ps[y]]]
                cnt += 1
    return tot / cnt if cnt else 0.0


def find_lists(
    page: Page, matcher: Matcher | None = None, tree: PageTree | None = None, *, nested: bool = True
) -> tuple[list[ListFound], Matcher, PageTree]:
    """All lists of a page by ``G-STM(T, copy(T))``, with the matcher and the page tree
    used (made here when not given; ``nested``: also inner same-level lists).

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
            d = M.self_lists(h) if dup else None
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
                sim = _instance_similarity(d, insts)
                out.append(
                    ListFound(
                        v, recs, insts, gtxt, sim, inner, sum(sizes) / len(sizes) if sizes else 0.0
                    )
                )
                if nested:
                    for inst in it:
                        stack.append((inst, True))
    return out, M, T


def _text_share(page: Page, T: PageTree, v: int, positions: list[int]) -> tuple[int, int]:
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
    """Lists of data records on one page by G-STM.

    Options (unknown ones raise ``TypeError``):

    * ``tau1`` (0.5), ``tau2`` (0.7): Detect-Lists thresholds;
    * ``r2`` (``"skeleton"``, see :attr:`default_r2`; ``"literal"``, ``"lenient"``),
      ``sizes`` (``"r3"``; ``"literal"``), ``grammar`` (``"r6"``; ``"literal"``): repairs
      of the paper's definitions, or the literal readings (:mod:`scrapy_records.treematch`);
    * ``max_cells`` (2,000,000) / ``max_node_cells`` (1,000,000): time budget in W cells;
      beyond it pairs are approximated (:mod:`scrapy_records.treematch`);
    * ``min_records`` (2), ``min_record_nodes`` (3): a list of bare ``a(t)`` or ``input``
      siblings is not a record list;
    * ``nested`` (True): also report inner same-level lists (``(bc)+`` in ``(a(bc)+)+``);
    * ``align`` (True): field alignment in :func:`build_region`;
    * ``align_top`` (3): only the regions ranked best by
      :func:`scrapy_records.extractors.ranking.region_score` are field-aligned (alignment
      is the costliest step after matching; the others keep their records, without
      columns).
    """

    name = "gstm"

    #: The reading of the child-similarity test for a single page. ``"literal"`` measures
    #: about one point better on flat result lists but loses the paper's nested-list
    #: behaviour (a record whose inner list has one item no longer matches its siblings,
    #: so the outer list is missed); pass ``r2="literal"`` to compare.
    default_r2 = "skeleton"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        opts = dict(options)
        opts.setdefault("r2", self.default_r2)
        M = make_matcher(opts)
        min_records = int(opts.pop("min_records", 2))
        min_nodes = float(opts.pop("min_record_nodes", 3))
        nested = bool(opts.pop("nested", True))
        align = bool(opts.pop("align", True))
        align_top = int(opts.pop("align_top", 3))
        if opts:
            raise TypeError(f"unknown option(s) for gstm: {', '.join(sorted(opts))}")
        page = as_page(page)
        if not len(page):
            return []
        found, M, T = find_lists(page, M, nested=nested)
        root = T.root
        page_chars = sum(len(x) for x in page.leaves[page.leaf_lo[root] : page.leaf_hi[root]])
        regions: list[Region] = []
        seen: set[tuple[int, ...]] = set()
        for lf in found:
            recs = [r for r in lf.records if r]
            if len(recs) < min_records or lf.record_nodes < min_nodes:
                continue
            key = tuple(x for r in recs for x in r)
            if key in seen:
                continue
            conf = _confidence(page, T, lf, recs, page_chars)
            if conf is None:
                continue
            seen.add(key)
            meta = {
                "grammar": lf.grammar,
                "similarity": round(lf.similarity, 4),
                "record_nodes": round(lf.record_nodes, 2),
                "nested": lf.nested,
                "approximated_pairs": M.approximated,
            }
            regions.append(
                build_region(page, self.name, lf.parent, recs, conf, meta=meta, align=False)
            )
        if align and regions:
            _align_best(page, regions, align_top)
        return regions


def _confidence(
    page: Page, T: PageTree, lf: ListFound, recs: list[list[int]], page_chars: int
) -> float | None:
    """The list's confidence, or ``None`` when its records are not content: most of their
    text must lie inside their elements and half of them must hold text or an image.

    Confidence = similarity x record count x content (nodes and text per record) x page
    part (a "record" holding a large share of the page's text is a page part) x links (a
    list whose text is almost all anchor text is a menu, a tag cloud or pagination)."""
    tot = el = 0
    texty = 0
    for ps, r in zip(lf.positions, lf.records):
        t, e = _text_share(page, T, lf.parent, ps)
        tot += t
        el += e
        if e or any(page.tag[x] in ("img", "picture") for x in r):
            texty += 1
    if tot == 0 or el < 0.5 * tot or texty < 0.5 * len(recs):
        return None
    n = len(recs)
    avg_chars = el / n
    count_f = 1.0 - 0.5 ** (n - 1)
    content_f = math.sqrt(min(1.0, lf.record_nodes / 8.0) * min(1.0, avg_chars / 40.0))
    share = avg_chars / page_chars if page_chars else 0.0
    part_f = 1.0 if share <= 0.25 else max(0.2, 1.0 - 2.0 * (share - 0.25))
    conf = max(0.0, min(1.0, lf.similarity)) * count_f * content_f * part_f
    link_f = 1.0 - 0.6 * max(0.0, groups_link_share(page, recs) - 0.8) / 0.2
    return conf * link_f


def _align_best(page: Page, regions: list[Region], align_top: int) -> None:
    """Rebuild the ``align_top`` regions ranked best, with field alignment."""
    scored = sorted(range(len(regions)), key=lambda x: -region_score(page, regions[x]))
    for x in scored[: max(0, align_top)]:
        region = regions[x]
        regions[x] = build_region(
            page,
            region.extractor,
            region.parent,
            [rec.nodes for rec in region.records],
            region.confidence,
            record_confidences=[rec.confidence for rec in region.records],
            meta=region.meta,
            align=True,
        )
