"""The ``stem`` extractor: the records of STEM's patterns as ranked-ready regions.

:class:`STEMExtractor` runs :func:`~scrapy_records.extractors.stem.analysis.analyze`, turns
each DRP's records into candidate regions (one per record parent, table grids kept whole),
scores them, and settles competing segmentations of the same sibling run before the best
ones are built. The refinements here are ours, not the paper's (STEM leaves the choice
between DRPs open): :func:`_trim_edges` (``trim_edges``), :func:`_prefer_coarser`,
:func:`_prefer_core` and :func:`_demote_fillers` (``demote_fillers``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rapidfuzz.distance import LCSseq

from scrapy_records.extractors.base import build_region, leaf_text_prefix
from scrapy_records.extractors.mdr.distance import normalized_distance
from scrapy_records.extractors.stem.analysis import STEMAnalysis, analyze
from scrapy_records.extractors.stem.records import DRP
from scrapy_records.page import Page
from scrapy_records.results import Region

__all__ = ["STEMExtractor"]

#: A candidate region: (pre-score, parent node, record root groups, record rvrs,
#: confidence, meta). The pre-score is the ranking rule's size terms, to build the best only.
_Candidate = tuple[float, int, list[tuple[int, ...]], list[float], float, dict[str, Any]]
#: Records of one DRP: (root positions in the WPS, rvr).
_Items = list[tuple[tuple[int, ...], float]]


class STEMExtractor:
    """The ``stem`` extractor (options: :mod:`scrapy_records.extractors.stem.options`).

    Options: ``profile`` (``"recommended"`` | ``"paper"``), ``L`` (100), ``alpha`` (0.6),
    ``beta`` (0.6), ``min_length`` (2), ``min_frequency`` (2), ``decorative`` (``"paper"``,
    ``"extended"``, ``"none"`` or a set of tag names), ``gap_denominator``,
    ``rotation_mode``, ``recheck_pf``, ``strict_case_check``, ``nested_min_unit``,
    ``repetition_postpass``, ``chunk_gaps``, ``gap_min_length``, ``dedupe_regions``,
    ``split_regions``, ``merge_grids``, ``trim_edges`` (0.5; ``False`` disables),
    ``demote_fillers`` (0.25; ``False`` disables), ``attach_gaps`` (0.8; ``False``
    disables), ``backend`` (suffix array: ``auto``/``divsufsort``/``sais``), ``align``
    (field alignment, default True), ``max_regions`` (5: only the best regions by the
    ranking's size terms are built and aligned; ``None`` for all), ``min_confidence``
    (0.05: weaker regions are not reported).
    """

    name = "stem"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        analysis = analyze(page, **options)
        opts = analysis.options
        cands = _candidates(page, analysis)
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


def _candidates(page: Page, analysis: STEMAnalysis) -> list[_Candidate]:
    """Every DRP's records as candidate regions: one per record parent (``split_regions``,
    ``merge_grids``) or one under the records' common ancestor, edge records trimmed
    (``trim_edges``), scored; regions under ``min_confidence`` are left out."""
    opts, tps = analysis.options, analysis.tps
    nodes, parent_of, wchars = tps.nodes, page.parent, tps.chars
    node_of = nodes.__getitem__
    trim = opts["trim_edges"]
    tag_str = page.tag_chars if trim else None  # tag strings of records: str slices
    cands: list[_Candidate] = []
    for k, d in enumerate(analysis.drps):
        recs = list(zip(d.groups, [r for _, _, r in d.records]))
        parts: list[tuple[int, _Items]]
        if opts["split_regions"]:
            by_parent: dict[int, _Items] = {}
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
            # the ranking rule's size terms (scrapy_records.extractors.ranking)
            pre = conf * math.sqrt(chars) * math.log2(1 + len(groups))
            cands.append((pre, parent, groups, rvrs, conf, _meta(d, k, rvrs, opts)))
    return cands


def _meta(d: DRP, k: int, rvrs: list[float], opts: dict[str, Any]) -> dict[str, Any]:
    """A region's ``meta``: its DRP (paths, identifiers, nf, h, pvr), exact matches, gap
    records, attached gaps, the DRP's index and the profile."""
    return {
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


def _confidence(
    page: Page,
    groups: list[tuple[int, ...]],
    rvrs: list[float],
    plen: int,
    pvr: float,
    chars: int | None = None,
) -> tuple[float, int]:
    """``(confidence, record text chars)``. Confidence = how sure we are this is a list of
    data records (comparable across extractors): similarity (mean rvr; exact matches are 1)
    x record count (2 records: 0.5, 3: 0.75, 5+: ~0.94) x pattern richness (a 2-tag pattern
    like ``li/a`` is weak evidence) x content (records with little text, e.g. menu items,
    score low) x contiguity (pvr)."""
    k = len(groups)
    if k < 2:
        return 0.0, 0
    sim = sum(rvrs) / k
    count = 1.0 - 0.5 ** (k - 1)
    rich = min(1.0, 0.4 + 0.15 * plen)
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


def _trim_edges(
    page: Page, groups: list[tuple[int, ...]], T: float, tag_str: str | None = None
) -> tuple[int, int]:
    """``(lo, hi)``: the records ``groups[lo:hi]`` kept after dropping edge records whose tag
    string (MDR's: the pre-order tag ids of the record's subtrees) is at a normalized edit
    distance above ``T`` both from the middle record and from its inner neighbour, unless it
    is the last record, larger, and holds that record's tag string as a subsequence (LCS >=
    80 %: a real record with extra content after it, e.g. a last review that swallowed a
    trailing box).

    An exact match of a short DRP only says that a record *starts* like the others, so a
    result-count header or a footer table built like the result tables became the first or
    last "record" of the region. At most one comparison per dropped record plus two.
    ``tag_str``: ``page.tag_id`` as a str (``page.tag_chars``), whose slices are the
    tag strings with the same distances, compared by rapidfuzz's quicker string path."""
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


def _demote_fillers(page: Page, cands: list[_Candidate], frac: float) -> None:
    """A region B that is another region A of the same parent *plus filler records*: every
    (>= 80 %) record root of A, whose records are single elements, is also a record of B,
    and B's other records (at least 0.3 x as many as A's) carry on average less than
    ``frac`` of the text of A's records (spacer rows, separators, "new!" badges cut by a
    short pattern such as ``(tr, td)``). B's record count only comes from the fillers, so
    it is demoted (:func:`_demote`)."""
    if len(cands) < 2:
        return
    # text sizes by prefix sums over the page's leaves, worked out only for the few pairs
    # that pass the cheap record-root tests (most pages have none)
    prefix: list[int] = []
    lo, hi = page.leaf_lo, page.leaf_hi

    def chars(g: tuple[int, ...]) -> int:
        if not prefix:
            prefix.extend(leaf_text_prefix(page))
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
                    _demote(cands, b, "fillers_of", cands[a][5]["drp_index"])
                    demoted.add(b)


def _demote(cands: list[_Candidate], i: int, why: str, other: int) -> None:
    """Halve candidate ``i``'s pre-score and confidence; ``meta[why]`` names the DRP of the
    region preferred to it."""
    c = cands[i]
    cands[i] = (c[0] * 0.5, c[1], c[2], c[3], c[4] * 0.5, {**c[5], why: other})


def _same_parent_groups(cands: list[_Candidate]) -> list[list[int]]:
    """Indices of the candidate regions that share a parent, for every parent with several."""
    by_parent: dict[int, list[int]] = {}
    for i, c in enumerate(cands):
        by_parent.setdefault(c[1], []).append(i)
    return [idx for idx in by_parent.values() if len(idx) > 1]


def _prefer_coarser(cands: list[_Candidate]) -> None:
    """Two segmentations of the same sibling run (same parent): rows cut one by one by a
    short pattern such as ``(tr, td, img)`` versus multi-row records cut by a longer DRP (or
    by a DRP whose records took in the systematic gaps between its matches,
    :func:`.records.attach_gaps`) whose record roots include most of those rows. The coarser
    records are the data records (the pattern the rows repeat with): the finer region is
    demoted (:func:`_demote`)."""
    for idx in _same_parent_groups(cands):
        for b in idx:
            gb, mb = cands[b][2], cands[b][5]
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
                    _demote(cands, b, "finer_than", ma["drp_index"])
                    break


def _prefer_core(cands: list[_Candidate]) -> None:
    """Region A holds every record of region B (same parent, same record roots) plus records
    only before B's first or after B's last record, and B is at least as confident: A is B
    with the page chrome around the list (result-count bars, "sponsored links" boxes built
    with the same tables as the results) cut by a shorter, looser DRP, so A is demoted
    (:func:`_demote`). Extra records *between* B's are left alone (they are records with a
    missing field, which the looser DRP rightly keeps). Runs with ``trim_edges``."""
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
                _demote(cands, a, "chrome_of", cands[b][5]["drp_index"])
                break


def _parts_by_parent(
    page: Page, by_parent: dict[int, _Items], nodes: list[int], grids: bool
) -> list[tuple[int, _Items]]:
    """``split_regions``: the records of one DRP as regions, one per parent element (at least
    2 records), except table grids when ``grids`` (``merge_grids``, ours: records of one DRP
    under different parents are told apart by parent, but a grid's rows are one list).

    A grid lays its records out in rows: the parents are sibling ``tr`` rows of one table,
    every record is a single ``td``/``th`` cell, all rows but the last hold the same number
    (at least 2) of records and the last no more, and the cells of each row are alike (none
    has more than twice the elements of another: a rank cell beside a result cell is a
    row record's two parts, not two records). A grid is one region under the table (a 4 x 4
    product table: 16 records, not four regions of 4)."""
    tag, parent, end = page.tag, page.parent, page.end
    out: list[tuple[int, _Items]] = []
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
