"""The ``mibat`` extractor: records of user-generated content anchored on a field that
occurs once per record, the post date by default (Song et al. 2010, section 5.1).

:meth:`MiBATExtractor.find` runs the algorithm once per anchor kind and chooses the main
region; :meth:`MiBATExtractor.to_regions` turns the regions into :class:`Region` objects
with the post fields. The options and their defaults are :data:`DEFAULTS`.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from scrapy_records.extractors.base import build_region
from scrapy_records.extractors.mibat.anchor_trees import PageContext
from scrapy_records.extractors.mibat.anchors import (
    AnchorClassifier,
    DateAnchor,
    get_anchor,
    links_of,
)
from scrapy_records.extractors.mibat.boundaries import MiBATRegion, run_kind
from scrapy_records.extractors.mibat.main_region import (
    is_pure_date_region,
    merge_union,
    recover_first_post,
    select_main,
)
from scrapy_records.extractors.mibat.record_fields import (
    add_field_columns,
    body_consensus,
    content_text,
    record_fields,
)
from scrapy_records.page import Page
from scrapy_records.results import Region

logger = logging.getLogger(__name__)

__all__ = ["MiBATExtractor", "DEFAULTS", "with_defaults"]

#: Extractor options and their defaults.
DEFAULTS: dict[str, Any] = {
    "measure": "ps",  # "ps" (Pivot and Siblings, best in the paper) or "pm" (Pivot Match)
    "tau": 0.5,  # DOMAINSIMILARITY threshold, strict ">"
    "ps_require_pivot_match": False,  # also require (u, v) in the mapping for PS
    "min_anchors": 2,  # records per list, at least
    "anchors": ("date", "author", "permalink"),  # kinds tried (or classifier objects)
    "combine": "fallback",  # "fallback": first kind with a main region | "union"
    "max_pivot_text": 200,  # longer texts are content, never date pivots
    "pure_date_share": 0.8,  # drop a region when >= 80% of its records are only a date
    "prefer_nested": True,  # a spurious high-level pair gives way to a list inside it
    "first_post_recovery": True,  # prepend a first post styled apart
    "exact_cells": 2500,  # STM DP size above which a pair is approximated by LCS
    "max_compares": 20000,  # per-page budget of DOMAINCOMPARE calls
    "time_budget": 2.0,  # seconds per page before the remaining parents are skipped
    "relative_base": None,  # reference time for relative dates ("3 hours ago")
    "languages": None,  # dateparser languages for the date field
    "align": True,  # run the shared field alignment (build_region)
    "fields": True,  # add author/date/text/permalink fields
    "record_text": "content",  # Record.text: "content" (without profile chrome) | "block"
}

#: The options with a closed set of values.
_CHOICES = {
    "measure": ("ps", "pm"),
    "combine": ("fallback", "union"),
    "record_text": ("content", "block"),
}


def with_defaults(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` over :data:`DEFAULTS`; an unknown name raises ``TypeError``."""
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown mibat option(s): {', '.join(sorted(unknown))}")
    return {**DEFAULTS, **options}


class MiBATExtractor:
    """MiBAT: records of user-generated content anchored on a field that occurs once per
    record, the post date by default.

    Options (see :data:`DEFAULTS`): ``measure`` (``"ps"``/``"pm"``), ``tau``,
    ``ps_require_pivot_match``, ``min_anchors``, ``anchors`` (kinds or classifier objects),
    ``combine`` (``"fallback"``: the kinds in order, the first whose main region has >= 2
    records wins; ``"union"``: every kind, per parent the region with the most records),
    ``max_pivot_text``, ``pure_date_share``, ``prefer_nested``, ``first_post_recovery``,
    ``exact_cells``, ``max_compares``, ``time_budget``, ``relative_base``, ``languages``,
    ``align``, ``fields``, ``record_text`` (``"content"``: the post without profile boxes,
    signatures and action bars; ``"block"``: the text of the whole sub-tree).

    ``extract`` returns every region that survives the date-only filter; the main region
    (max H2) gets the highest confidence, the others a confidence scaled by their H2
    relative to it, so :mod:`~scrapy_records.extractors.ranking` keeps the main region first.
    """

    name = "mibat"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        opts = with_defaults(options)
        for name, allowed in _CHOICES.items():
            if opts[name] not in allowed:
                raise TypeError(f"mibat {name} must be {' or '.join(map(repr, allowed))}")
        regions, main = self.find(page, **opts)
        return self.to_regions(page, regions, main, opts)

    def find(self, page: Page, **opts: Any) -> tuple[list[MiBATRegion], MiBATRegion | None]:
        """The algorithm without Region building: every region that is not date-only, and
        the main region (used by the UGC routing and by tests)."""
        opts = {**DEFAULTS, **opts}
        if len(page.el) < 3:
            return [], None
        ctx = PageContext(page, opts)
        deadline = time.perf_counter() + float(opts["time_budget"])
        anchors = _anchor_classifiers(opts)
        all_regions: list[MiBATRegion] = []
        main = None
        for anchor in anchors:
            regs = run_kind(page, ctx, anchor, deadline)
            for r in regs:
                r.pure_date = is_pure_date_region(page, r, opts["pure_date_share"])
            all_regions.extend(regs)
            if opts["combine"] == "fallback":
                main = select_main(page, regs, opts)
                if main is not None and len(main.groups) >= 2:
                    all_regions = regs
                    break
        if opts["combine"] == "union":
            all_regions = merge_union(all_regions)
            main = select_main(page, all_regions, opts)
        if main is not None and opts["first_post_recovery"]:
            kind = next((a for a in anchors if a.kind == main.kind), anchors[0])
            recover_first_post(ctx, main, ctx.candidates(kind))
        if ctx.approximated:
            logger.debug("mibat: %d STM pairs approximated on %s", ctx.approximated, page.url)
        return [r for r in all_regions if not r.pure_date], main

    def to_regions(
        self,
        page: Page,
        regions: list[MiBATRegion],
        main: MiBATRegion | None,
        opts: dict[str, Any],
        dates: list[int] | None = None,
    ) -> list[Region]:
        """The regions as :class:`Region` objects with the post fields (``dates``: the
        page's date candidates when known, for regions of other anchor kinds)."""
        if not regions:
            return []
        links = links_of(page)
        if dates is None and any(r.kind != "date" for r in regions):
            dates = sorted(DateAnchor().candidates(page))
        main_conf = _confidence(main) if main is not None else 0.3
        top_h2 = main.h2 if main is not None and main.h2 > 0 else max(r.h2 for r in regions) or 1.0
        out = []
        for reg in regions:
            is_main = reg is main
            conf = main_conf if is_main else main_conf * min(0.5, reg.h2 / top_h2)
            if reg.kind != "date":
                conf *= 0.9
            # field alignment only for the main region: aligning free-form post bodies of
            # secondary regions costs more than the whole of MiBAT
            region = build_region(
                page,
                "mibat",
                reg.parent,
                reg.groups,
                conf,
                meta=_meta(page, reg, is_main, opts),
                align=bool(opts["align"]) and (is_main or main is None),
            )
            if opts["fields"] and (is_main or len(reg.groups) <= 200):
                _add_fields(page, region, reg, opts, links, dates)
            elif opts["record_text"] == "content":  # no fields: keep the pivot only
                for rec, g, pv in zip(region.records, reg.groups, reg.pivots):
                    rec.text = content_text(page, g, (pv,)) or rec.text
            out.append(region)
        return out


def _anchor_classifiers(opts: dict[str, Any]) -> list[AnchorClassifier]:
    """The classifiers of the ``anchors`` option, in order (the date anchor with the
    ``max_pivot_text`` option)."""
    kinds = opts["anchors"]
    # (an AnchorClassifier is whatever has ``candidates``: no Protocol isinstance, which
    # costs more than a small page's MiBAT run)
    if isinstance(kinds, str) or hasattr(kinds, "candidates"):
        kinds = (kinds,)
    anchors = []
    for spec in kinds:
        a = get_anchor(spec)
        if isinstance(spec, str) and spec == "date" and isinstance(a, DateAnchor):
            a.max_text = opts["max_pivot_text"]
        anchors.append(a)
    return anchors


def _confidence(reg: MiBATRegion) -> float:
    """The main region's confidence: more records and more similar partners score higher."""
    m = len(reg.groups)
    sim = sum(reg.sims[1:]) / max(1, m - 1)
    base = 0.55 + 0.45 * min(1.0, (m - 1) / 4.0)
    return max(0.05, min(1.0, base * (0.7 + 0.3 * min(1.0, sim))))


def _meta(page: Page, reg: MiBATRegion, is_main: bool, opts: dict[str, Any]) -> dict[str, Any]:
    """A region's ``meta``: anchor kind, the boundary (k, offset, anchor positions, gap,
    expansion), H2, whether it is the main region, the measure, and the first pivots."""
    meta = {
        "anchor": reg.kind,
        "k": reg.k,
        "offset": reg.offset,
        "anchors": list(reg.anchors),
        "anchor_gap": reg.anchor_gap,
        "expan_len": reg.expan_len,
        "h2": reg.h2,
        "main": is_main,
        "measure": opts["measure"],
        "tau": opts["tau"],
        "pivots": [page.xpath(u) for u in reg.real_pivots][:3],
        "record_text": opts["record_text"],  # "content": Record.text without chrome
    }
    if reg.recovered_first:
        meta["first_post_recovered"] = True
    if reg.agreement:
        meta["agreement"] = True
    return meta


def _add_fields(
    page: Page,
    region: Region,
    reg: MiBATRegion,
    opts: dict[str, Any],
    links: list[int],
    dates: list[int] | None,
) -> None:
    """The post fields of every record, the bodies the records agree on, the record text
    without chrome (``record_text="content"``) and the field columns."""
    bodies: list[int] = []
    keeps: list[tuple[int, ...]] = []
    for rec, g, pv in zip(region.records, reg.groups, reg.pivots):
        f, body, author_node = record_fields(page, g, pv, opts, links, reg.kind, dates)
        rec.fields.update(f)
        bodies.append(body)
        keeps.append((pv, author_node))
    for ri, node in body_consensus(page, reg.groups, bodies).items():
        bodies[ri] = node
        region.records[ri].fields["text"] = page.text(node)
    if opts["record_text"] == "content":
        for rec, g, body, keep in zip(region.records, reg.groups, bodies, keeps):
            rec.text = content_text(page, g, (body,) + keep) or rec.text
    add_field_columns(region)
