"""The ``mdr`` extractor: MDR's data regions and records as regions (Liu et al. 2003,
section 3).

Entry points: :func:`mine` (the driver, without Region building) and :class:`MDRExtractor`.

Options (:data:`DEFAULTS`; ``mode="paper"`` changes those in :data:`PAPER_MODE`):

* ``K`` (10): longest generalized node; ``T`` (0.3): edit-distance threshold;
  ``min_depth`` (3): only nodes of that tree depth or more are mined (a leaf has depth 1);
* ``recover_left`` (True; paper: False): IdentDRs' interval recursion also left of a region;
* ``harmonic_guard``, ``all_runs`` (True; paper: False): IdentDRs' choice of runs;
* ``split_guard`` (True; paper: False): FindRecords-1 splits only nodes of depth >= 3;
* ``vacuous_split`` (False; paper: True): a node with a single child "has all children
  similar" (FindRecords-1 line 1 read literally);
* ``resplit`` (True; paper: False), ``resplit_outliers`` (0.25): smaller records in a
  region of harmonics; ``bridge`` (True; paper: False): one odd record does not cut a list;
* ``keep_nested`` (False): regions inside a covering region kept as its ``meta``;
* ``merge_adjacent`` (True): non-contiguous regions under sibling parents merged;
* ``recover_orphans`` (True): records outside regions;
* ``table_tags_only`` (False; paper: True): only regions of table and form tags;
* ``max_tokens`` (None): a budget on tag-string lengths; ``align`` (True): field alignment.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from scrapy_records.extractors.base import build_region
from scrapy_records.extractors.mdr.records import RecordMiner, merge_adjacent_regions
from scrapy_records.extractors.mdr.regions import DataRegion
from scrapy_records.page import Page
from scrapy_records.results import Region

logger = logging.getLogger(__name__)

__all__ = ["MDRExtractor", "DEFAULTS", "PAPER_MODE", "mine"]

#: Option defaults (the recommended mode).
DEFAULTS: dict[str, Any] = {
    "K": 10,
    "T": 0.3,
    "min_depth": 3,
    "recover_left": True,
    "harmonic_guard": True,
    "all_runs": True,
    "split_guard": True,
    "vacuous_split": False,
    "resplit": True,
    "resplit_outliers": 0.25,
    "bridge": True,
    "keep_nested": False,
    "merge_adjacent": True,
    "recover_orphans": True,
    "table_tags_only": False,
    "max_tokens": None,
    "align": True,
}

#: Values that ``mode="paper"`` changes (the paper-literal reading).
PAPER_MODE: dict[str, Any] = {
    "recover_left": False,
    "harmonic_guard": False,
    "all_runs": False,
    "split_guard": False,
    "vacuous_split": True,
    "resplit": False,
    "bridge": False,
    "table_tags_only": True,
}


def mine(
    page: Page,
    *,
    keep_nested: bool = False,
    merge_adjacent: bool = True,
    recover_orphans: bool = True,
    **options: Any,
) -> tuple[RecordMiner, list[DataRegion]]:
    """The MDR driver without Region building: returns the miner and the regions (with
    ``groups`` = records as tuples of node indices) in document order. ``options`` are the
    remaining :data:`DEFAULTS` (K, T, min_depth, recover_left, ...)."""
    miner = RecordMiner(page, **options)
    if len(page.tag) == 0:
        return miner, []
    root = page.body if 0 <= page.body < len(page.tag) else 0
    regions = miner.find_drs(root, keep_nested)
    by_parent: dict[int, list[DataRegion]] = {}
    for r in regions:
        by_parent.setdefault(r.parent, []).append(r)
    for r in regions:
        miner.find_records(r)
    if recover_orphans:
        for r in regions:
            cov: set[int] = set()
            for o in by_parent[r.parent]:
                cov.update(range(o.start, o.start + o.covered))
            miner.recover_orphans(r, cov)
    if merge_adjacent:
        regions = merge_adjacent_regions(miner, regions)
    return miner, regions


def _confidence(page: Page, r: DataRegion, T: float) -> tuple[float, list[float]]:
    """Region confidence in [0, 1] (comparable across extractors) and the records':

    ``similarity * count * content * structure`` where

    * ``similarity = 1 - 0.5 * meanND / T``: 1.0 for identical tag strings, 0.5 at the
      threshold (the mean ND between adjacent generalized nodes);
    * ``count = 1 - 0.55 ** (n - 1)``: 0.45 for a pair, 0.8 for 3, 0.96 for 6 records;
    * ``content``: share of records with text times a richness term (mean text leaves per
      record, saturating at 3: a menu of one-word links is less sure than records with
      several pieces of text);
    * ``structure = min(1, 0.4 + 0.6 (m - 1) / 5)`` with m the mean number of elements per
      record: data records have a title, a link, a snippet... (m >= 6 gives 1.0); a run of
      bare paragraphs or one-link menu items (m = 1-2) is rarely a list of records.

    Merged regions (non-contiguous case 2, "may not be safe") are discounted by 0.8 and
    recovered orphans carry 0.8 of the region's confidence. The main region of a list page
    typically scores about 0.9, that of a page without a list (articles, home pages) about
    0.45.
    """
    n = len(r.groups)
    if n == 0:
        return 0.0, []
    sim = 1.0 - 0.5 * min(1.0, r.score / T) if T > 0 else 1.0
    count = 1.0 - 0.55 ** (n - 1)
    lo, hi = page.leaf_lo, page.leaf_hi
    end = page.end
    with_text = 0
    leaves = 0
    elems = 0
    for g in r.groups:
        k = 0
        for x in g:
            k += hi[x] - lo[x]
            elems += end[x] - x + 1
        leaves += k
        if k:
            with_text += 1
    share = with_text / n
    rich = min(1.0, 0.5 + 0.5 * (leaves / n) / 3.0)
    structure = min(1.0, 0.4 + 0.6 * (elems / n - 1.0) / 5.0)
    conf = sim * count * share * rich * structure
    if r.kind == "merged_regions":
        conf *= 0.8
    conf = max(0.0, min(1.0, conf))
    rec = set(r.recovered)
    per = [
        conf
        * (0.8 if g[0] in rec and len(g) == 1 else 1.0)
        * (1.0 if sum(hi[x] - lo[x] for x in g) else 0.5)
        for g in r.groups
    ]
    return conf, per


class MDRExtractor:
    """MDR as an :class:`~scrapy_records.extractors.base.Extractor`.

    Options (see the module docstring): ``K=10``, ``T=0.3``, ``min_depth=3``,
    ``recover_left=True``, ``harmonic_guard=True``, ``all_runs=True``, ``resplit=True``,
    ``resplit_outliers=0.25``, ``bridge=True``, ``split_guard=True``,
    ``vacuous_split=False``, ``keep_nested=False``, ``merge_adjacent=True``,
    ``recover_orphans=True``, ``table_tags_only=False``, ``max_tokens=None``,
    ``align=True`` (field alignment in :func:`build_region`),
    ``mode="recommended"|"paper"``. Unknown options raise ``TypeError``.

    Each region's ``meta``: ``g``, ``start``, ``covered`` (the DR triple, 0-based start),
    ``kind`` (``gnode``, ``children``, ``noncontiguous``, ``merged_regions`` or ``mixed``),
    ``score`` (mean ND between adjacent generalized nodes), ``n_gnodes``, ``recovered``
    (XPaths of orphan records), ``resplit_from`` (the g before ``resplit``) and,
    with ``keep_nested``, ``nested`` regions (``xpath``, ``g``, ``start``, ``covered`` and
    the index of the ``record`` holding them).
    """

    name = "mdr"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        opts = self.resolve_options(options)
        align = opts.pop("align")
        miner, drs = mine(page, **opts)
        out: list[Region] = []
        for r in drs:
            if not r.groups:
                continue
            conf, per = _confidence(page, r, opts["T"])
            meta = {
                "g": r.g,
                "start": r.start,
                "covered": r.covered,
                "n_gnodes": r.covered // r.g if r.g else 0,
                "kind": r.kind,
                "score": round(r.score, 4),
            }
            if r.resplit_from:
                meta["resplit_from"] = r.resplit_from
            if r.recovered:
                meta["recovered"] = [page.xpath(x) for x in r.recovered]
            if r.nested:
                meta["nested"] = [
                    {
                        "xpath": page.xpath(n["parent"]),
                        "g": n["g"],
                        "start": n["start"],
                        "covered": n["covered"],
                        "record": _record_of(r, n["parent"], page),
                    }
                    for n in r.nested
                ]
            out.append(
                build_region(
                    page,
                    self.name,
                    r.parent,
                    r.groups,
                    conf,
                    record_confidences=per,
                    meta=meta,
                    align=align,
                )
            )
        logger.debug("mdr: %d regions, %d edit distances on %r", len(out), miner.n_calls, page)
        return out

    @staticmethod
    def resolve_options(options: dict[str, Any]) -> dict[str, Any]:
        """Merge ``options`` over the mode's defaults; unknown names raise ``TypeError``."""
        opts = dict(options)
        mode = opts.pop("mode", "recommended")
        if mode not in ("recommended", "paper"):
            raise TypeError(f"mdr: mode must be 'recommended' or 'paper', not {mode!r}")
        unknown = set(opts) - set(DEFAULTS)
        if unknown:
            raise TypeError(
                f"mdr: unknown option(s) {', '.join(sorted(unknown))}; "
                f"accepted: mode, {', '.join(DEFAULTS)}"
            )
        res = dict(DEFAULTS)
        if mode == "paper":
            res.update(PAPER_MODE)
        res.update(opts)
        K, T = res["K"], res["T"]
        if not isinstance(K, int) or K < 1:
            raise TypeError(f"mdr: K must be a positive int, not {K!r}")
        if not isinstance(T, (int, float)) or not math.isfinite(T) or T < 0:
            raise TypeError(f"mdr: T must be a non-negative number, not {T!r}")
        return res


def _record_of(r: DataRegion, node: int, page: Page) -> int | None:
    """Index of the record of ``r`` whose sub-tree holds ``node`` (for nested regions)."""
    for k, g in enumerate(r.groups):
        for x in g:
            if page.is_ancestor(x, node):
                return k
    return None
