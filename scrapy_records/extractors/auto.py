"""The ``auto`` policy: which extractor(s) run on a page, and how their regions are ranked.

Entry points: :func:`auto_extract` (the policy), :func:`run_extractor` (a named extractor
or ``auto``, ranked) and :func:`main_threshold_for`.

Rule (quoted by the README)::

    1. run MDR and STEM on the page (both: they fail on different pages);
    1b. card grids: a region whose records are rows of cards (each row's children alike,
       each with text in two pieces or more and a link) is replaced by the region of the
       cards (:func:`scrapy_records.extractors.cards.split_card_rows`);
    2. agreement: for every region, the share of its records that the other extractor
       also found (same record start nodes; |A & B| / max(|A|, |B|) against the other
       extractor's best-matching region);
    3. auto confidence = extractor confidence * (0.5 + 0.5 * agreement): a list both
       independent methods cut the same way keeps its confidence, a region only one of
       them sees is halved (menus, teasers and other page chrome rarely agree);
       except where STEM is blind: MDR's records alike up to the length of their inner
       lists (:func:`scrapy_records.extractors.evidence.inner_lists_only`: swatches,
       feature lists) count as half agreed (:data:`INNER_LISTS_AGREEMENT`,
       ``meta["inner_lists"]``);
    3b. demotions (:func:`scrapy_records.extractors.evidence.demotion`): a region whose
       records mostly hold no text, a region in page chrome (a ``nav``/``menu``/``aside``
       element, a page-level ``header``/``footer``, an ARIA role of chrome;
       :func:`chrome_of`; class and id names are not read), and a region of links only
       beside more text of the page's own (related stories, tag lists), and a region of
       form-control text only (a filter panel's legends and checkbox labels) get
       ``CHROME_FACTOR`` (0.4) of their auto confidence, ``meta["no_text"]``,
       ``meta["chrome"]``, ``meta["links_only"]`` or ``meta["controls"]`` says why, and
       they rank after every other region (regions without text last);
    4. a region both found once is reported once (the better-scored copy, with
       ``meta["agreement"]`` and ``meta["confirmed_by"]``);
    5. rank all regions with the ranking rule (:mod:`scrapy_records.extractors.ranking`;
       the record count enters as ``sqrt(log2(1 + n))`` here, see
       :data:`AUTO_COUNT_EXPONENT`);
    5c. skipped items: the children of the first region's parent with the tag and the
       class names all its records carry, between them or in a run touching them, and the
       items of a block of such children, are records too
       (:func:`scrapy_records.extractors.siblings.fill_class_siblings`: a result with an
       extra image broke the repeat, sponsored results sit in a block of their own),
       ``meta["filled"]``;
    5d. a list in blocks: the regions whose parents are twins of the first region's
       (same tags up to a common ancestor close above), whose records sit alike under them
       and are built alike, join the first region
       (:func:`scrapy_records.extractors.siblings.join_blocks`, ``meta["blocks"]``);
    6. UGC routing: when MiBAT (date anchors) finds date-anchored user content that is
       not dwarfed by the best list region
       (:func:`scrapy_records.extractors.mibat.ugc.ugc_router`, rule documented there),
       the page is a forum/comment/review page and MiBAT's regions are returned instead
       (records with an author or reply/quote structure and a free-text body, and no list
       of distinct headline links: news, shop and video lists stay with the list extractors).
       The check runs first and compares against MDR's best region, so on user-content
       pages STEM never runs;
    7. posts with headlines (a forum's search results: author, date and a body, with a
       headline link to the thread): when no list region reaches
       :data:`AUTO_MAIN_THRESHOLD`, MiBAT's posts rank first (``meta["teaser_posts"]``).

Main region: at ``main_threshold=0.4`` (:data:`AUTO_MAIN_THRESHOLD`,
:func:`main_threshold_for`) ``extract(..., extractor="auto")`` reports no main region on
pages where the best region's auto confidence is lower: most pages without a list
(articles, home pages) fall below it, real lists stay above (0.5 would drop some).
Running both list extractors measures better than either alone on the development lists;
``extractor="mdr"`` and ``"stem"`` stay selectable.

``options`` given to ``auto`` go to every extractor that accepts them (e.g. ``K`` and
``T`` to MDR, ``alpha`` to STEM, ``tau`` to MiBAT); an option no extractor accepts raises
``TypeError``. ``ugc=False`` disables step 6, ``extractors=("mdr",)`` restricts steps 1-4.

Every region of :func:`run_extractor` carries ``meta["rank_reasons"]``: why it ranks where
it does, in words (:func:`scrapy_records.extractors.explain.explain`).
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Sequence
from typing import Any

from scrapy_records.extractors import BUILTIN_EXTRACTORS, get_extractor
from scrapy_records.extractors.cards import split_card_rows
from scrapy_records.extractors.evidence import (
    PageText,
    demotion,
    inner_lists_only,
    landmark_of,
)
from scrapy_records.extractors.explain import DEMOTIONS, explain
from scrapy_records.extractors.mdr.extractor import DEFAULTS
from scrapy_records.extractors.mibat.extractor import DEFAULTS as MIBAT_DEFAULTS
from scrapy_records.extractors.mibat.ugc import ugc_router
from scrapy_records.extractors.ranking import rank
from scrapy_records.extractors.siblings import fill_class_siblings, join_blocks
from scrapy_records.extractors.stem.options import OPTION_NAMES
from scrapy_records.page import Page
from scrapy_records.results import Region

logger = logging.getLogger(__name__)

__all__ = [
    "run_extractor",
    "auto_extract",
    "agreement",
    "AUTO_MAIN_THRESHOLD",
    "AUTO_COUNT_EXPONENT",
    "LIST_EXTRACTORS",
    "main_threshold_for",
    "chrome_of",
    "CHROME_FACTOR",
    "INNER_LISTS_AGREEMENT",
]

#: The list extractors ``auto`` runs and combines (step 1).
LIST_EXTRACTORS: tuple[str, ...] = ("mdr", "stem")
#: Default ``main_threshold`` for ``auto`` (on the auto confidence, step 3).
AUTO_MAIN_THRESHOLD = 0.4
#: STEM's ``max_regions`` in ``auto`` when alignment is deferred: twice its own 5.
AUTO_STEM_REGIONS = 10
#: Exponent of the record-count term ``log2(1 + n)`` when ranking the union (step 5).
AUTO_COUNT_EXPONENT = 0.5


#: Step 5b: a finer region inside the first one's records goes first with this many times
#: its auto confidence (:func:`_prefer_finer`).
NEST_RATIO = 1.5
#: Step 3: the agreement an MDR region STEM cannot see gets (records alike up to the
#: length of their inner lists): confidence x 0.75 instead of halved.
INNER_LISTS_AGREEMENT = 0.5
#: Step 3b: factor on the auto confidence of a demoted region (page chrome, no text).
CHROME_FACTOR = 0.4


def chrome_of(page: Page, node: int, text: PageText | None = None) -> str | None:
    """Why the region under ``node`` is page chrome by its landmarks, or ``None``
    (:func:`scrapy_records.extractors.evidence.landmark_of`: a ``nav``/``menu`` element, a
    page-level ``header``/``footer``/``aside``, an ARIA role of chrome; class and id names
    are not read)."""
    return landmark_of(page, node, text)


def main_threshold_for(name: str) -> float:
    """The default ``main_threshold`` for extractor ``name``: :data:`AUTO_MAIN_THRESHOLD`
    for ``auto`` (its confidences carry the agreement evidence), 0.0 for a single
    extractor (whose confidences are not calibrated against page chrome)."""
    return AUTO_MAIN_THRESHOLD if name == "auto" else 0.0


def run_extractor(
    page: Page, name: str, *, defer_alignment: bool = False, **options: Any
) -> list[Region]:
    """Run extractor ``name`` (or the ``auto`` policy) and return ranked regions.

    :param defer_alignment: built-in extractors skip field alignment (``align=False``);
        the caller aligns the regions it keeps (:func:`scrapy_records.extract` does).
        Third-party extractors are called unchanged.
    """
    if (
        defer_alignment
        and "align" not in options
        and (name == "auto" or name in BUILTIN_EXTRACTORS)
    ):
        options["align"] = False
    if name == "auto":
        return explain(auto_extract(page, **options))
    return explain(rank(page, get_extractor(name).extract(page, **options)))


def _accepted(name: str) -> frozenset[str] | None:
    """Option names extractor ``name`` accepts (None: unknown, pass nothing extra)."""
    if name == "mdr":
        return frozenset(DEFAULTS) | {"mode"}
    if name == "stem":
        return frozenset(OPTION_NAMES)
    if name == "mibat":
        return frozenset(MIBAT_DEFAULTS)
    return None


def _split_options(names: Sequence[str], options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    per: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for name in names:
        acc = _accepted(name)
        if acc is None:
            per[name] = {}
            continue
        per[name] = {k: v for k, v in options.items() if k in acc}
        used.update(per[name])
    unknown = set(options) - used
    if unknown:
        raise TypeError(f"auto: no extractor accepts option(s) {', '.join(sorted(unknown))}")
    return per


def _starts(region: Region) -> frozenset[int]:
    return frozenset(rec.nodes[0] for rec in region.records if rec.nodes)


def agreement(
    regions_by_extractor: dict[str, list[Region]],
) -> dict[int, tuple[float, Region | None]]:
    """Step 2: ``id(region) -> (agreement, best-matching region of another extractor)``.

    Agreement of region ``A`` = max over regions ``B`` of the other extractors of
    ``|starts(A) & starts(B)| / max(|starts(A)|, |starts(B)|)`` where ``starts`` are the
    first nodes of the records. Cost: one set intersection per pair of regions."""
    out: dict[int, tuple[float, Region | None]] = {}
    starts = {id(r): _starts(r) for regs in regions_by_extractor.values() for r in regs}
    names = list(regions_by_extractor)
    for name in names:
        others = [r for o in names if o != name for r in regions_by_extractor[o]]
        for a in regions_by_extractor[name]:
            sa = starts[id(a)]
            best, match = 0.0, None
            if sa:
                for b in others:
                    sb = starts[id(b)]
                    if not sb:
                        continue
                    inter = len(sa & sb)
                    if inter:
                        v = inter / max(len(sa), len(sb))
                        if v > best:
                            best, match = v, b
            out[id(a)] = (best, match)
    return out


def auto_extract(
    page: Page,
    *,
    extractors: Sequence[str] = LIST_EXTRACTORS,
    ugc: bool = True,
    **options: Any,
) -> list[Region]:
    """The ``auto`` policy (module docstring): ranked regions, best first."""
    names = list(extractors)
    per = _split_options(names + (["mibat"] if ugc else []), options)
    if "stem" in per and per["stem"].get("align") is False:
        # regions built without alignment are cheap: let STEM report more of them, so
        # that a list MDR also found is not cut by STEM's own pre-score
        per["stem"].setdefault("max_regions", AUTO_STEM_REGIONS)
    decide = None
    if ugc:
        decide = ugc_router(page, **per["mibat"])
    found: dict[str, list[Region]] = {}
    if names:
        found[names[0]] = list(get_extractor(names[0]).extract(page, **per[names[0]]))
    if decide is not None and not decide.teasers:
        # step 6 needs the best list region only: decide on the first list extractor's
        # (MDR's) before running the others, so user-content pages skip them
        routed = decide(rank(page, found.get(names[0], [])) if names else None)
        if routed is not None:
            logger.debug("auto: %s routed to MiBAT (user content)", page.url)
            return rank(page, routed)
    for name in names[1:]:
        found[name] = list(get_extractor(name).extract(page, **per[name]))
    if len(found) > 1:
        regions = _combine(page, found)
    else:
        regions = rank(page, [r for regs in found.values() for r in regs])
    if decide is not None and (not regions or regions[0].confidence < AUTO_MAIN_THRESHOLD):
        # step 7: user posts with headlines (a forum's search results) when the list
        # extractors found no list above the main threshold
        posts = decide(regions)
        if posts:
            logger.debug("auto: %s: MiBAT's posts, no list above the threshold", page.url)
            return rank(page, posts) + regions
    return regions


def _combine(page: Page, found: dict[str, list[Region]]) -> list[Region]:
    """Steps 2-5 on the regions of several extractors: agreement, auto confidence,
    demotions (page chrome, records without text), ranking, duplicates."""
    regions: list[Region] = []
    text = PageText(page)
    # step 1b: a record that is a row of cards gives way to the cards
    found = {
        name: [split_card_rows(page, r, text) or r for r in regs] for name, regs in found.items()
    }
    agree = agreement(found)
    for regs in found.values():
        for r in regs:
            a, _ = agree[id(r)]
            r.meta["extractor_confidence"] = r.confidence
            r.meta["agreement"] = round(a, 4)
            if a < INNER_LISTS_AGREEMENT and r.extractor == "mdr" and inner_lists_only(page, r):
                r.meta["inner_lists"] = True
                a = INNER_LISTS_AGREEMENT
            r.confidence = r.confidence * (0.5 + 0.5 * a)
            demoted = demotion(page, r, text)
            if demoted is not None:
                kind, why = demoted
                r.meta[kind] = why
                r.confidence *= CHROME_FACTOR
            regions.append(r)
    regions = rank(page, regions, count_exponent=AUTO_COUNT_EXPONENT, text=text)
    # step 3b: demoted regions rank after every other region (stable): chrome and links
    # beside the page's text, then regions without text
    regions.sort(key=lambda r: 2 if "no_text" in r.meta else any(k in r.meta for k in DEMOTIONS))
    _prefer_finer(page, regions)
    regions = _drop_duplicates(regions)
    if regions and not any(k in regions[0].meta for k in DEMOTIONS):
        fill_class_siblings(page, regions[0])  # step 5c: the list's items it skipped
    return join_blocks(page, regions, DEMOTIONS)  # step 5d: a list in several blocks


def _prefer_finer(page: Page, ranked: list[Region]) -> None:
    """Step 5b: when the first region's records hold the records of a lower region that
    cuts the same content finer (at least as many records) with clearly more certainty
    (:data:`NEST_RATIO` times the auto confidence: both extractors cut it so, only one cut
    the coarse records), the finer region goes first: the coarse one won on its text alone,
    which the two share."""
    if len(ranked) < 2 or any(k in ranked[0].meta for k in DEMOTIONS):
        return
    top = ranked[0]
    roots = sorted(x for rec in top.records for x in rec.nodes)
    end = page.end
    for k in range(1, len(ranked)):
        r = ranked[k]
        if any(m in r.meta for m in DEMOTIONS):
            break
        if len(r.records) < len(top.records) or r.confidence < NEST_RATIO * top.confidence:
            continue
        if all(_inside(roots, end, x) for rec in r.records for x in rec.nodes):
            r.meta["finer_than"] = f"{top.extractor}:{len(top.records)}"
            ranked.insert(0, ranked.pop(k))
            return


def _inside(roots: list[int], end: list[int], node: int) -> bool:
    """Is ``node`` in the sub-tree of one of ``roots`` (sorted pre-order indices)?"""
    k = bisect.bisect_right(roots, node) - 1
    return k >= 0 and node <= end[roots[k]]


def _drop_duplicates(ranked: list[Region]) -> list[Region]:
    """Step 4: keep the first (best-ranked) of regions with the same records."""
    seen: dict[tuple[int, tuple[tuple[int, ...], ...]], Region] = {}
    out = []
    for r in ranked:
        key = (r.parent, tuple(tuple(rec.nodes) for rec in r.records))
        first = seen.get(key)
        if first is not None:
            first.meta.setdefault("confirmed_by", []).append(r.extractor)
            continue
        seen[key] = r
        out.append(r)
    return out
