"""The routing rule of ``auto``: is the page's best region date-anchored user content?

Entry points: :func:`is_ugc_page`, :func:`ugc_router` (the rule in two halves, so ``auto``
runs the list extractors only as far as the decision needs them), :func:`ugc_regions`,
:func:`ugc_evidence`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scrapy_records.extractors.mibat.anchors import AuthorLinkAnchor, in_sorted
from scrapy_records.extractors.mibat.boundaries import MiBATRegion
from scrapy_records.extractors.mibat.extractor import MiBATExtractor, with_defaults
from scrapy_records.extractors.mibat.hints import is_ugc_hint
from scrapy_records.page import Page
from scrapy_records.results import Region

__all__ = ["is_ugc_page", "ugc_router", "ugc_regions", "ugc_evidence"]


def ugc_evidence(
    page: Page, groups: list[tuple[int, ...]], author_links: list[int] | None = None, scan: int = 80
) -> float:
    """Share of records that look like user posts: a profile link with a name-like text
    (1-40 characters, a letter; the author anchor's links, or ``author_links``), or a
    class / id naming posts, comments, reviews, authors... among the first ``scan``
    elements of the record."""
    if not groups:
        return 0.0
    if author_links is None:
        author_links = [
            i
            for i in AuthorLinkAnchor().candidates(page)
            if 0 < len(page.text(i)) <= 40 and any(ch.isalpha() for ch in page.text(i))
        ]
    hits = 0
    for g in groups:
        found = False
        for r in g:
            if in_sorted(author_links, r, page.end[r]):
                found = True
                break
            for i in range(r, min(page.end[r], r + scan) + 1):
                el = page.el[i]
                if el.attrib:
                    h = (
                        (el.get("class") or "")
                        + " "
                        + (el.get("id") or "")
                        + " "
                        + (el.get("itemprop") or "")
                    )
                    if h.strip() and is_ugc_hint(h):
                        found = True
                        break
            if found:
                break
        hits += found
    return hits / len(groups)


def _ugc_decision(
    page: Page,
    main: MiBATRegion | None,
    regions: list[Region] | None,
    min_text: int,
    min_evidence: float,
) -> bool:
    """The three tests of :func:`is_ugc_page` on MiBAT's main region; ``regions=None``
    skips the third."""
    if main is None or len(main.groups) < 2:
        return False
    chars = sum(len(page.texts(g)) for g in main.groups)
    if chars / len(main.groups) < min_text:
        return False
    if ugc_evidence(page, main.groups) < min_evidence:
        return False
    if not regions:
        return True
    best = regions[0]
    if best.parent == main.parent and len(best.records) > len(main.groups):
        return False  # the list extractor sees more records of the same list
    other = sum(len(r.text) for r in best.records)
    if chars >= 0.5 * other:
        return True
    p = best.parent
    return p >= 0 and (page.is_ancestor(p, main.parent) or page.is_ancestor(main.parent, p))


def is_ugc_page(
    page: Page,
    regions: list[Region] | None = None,
    *,
    min_text: int = 60,
    min_evidence: float = 0.6,
    **options: Any,
) -> bool:
    """Routing rule for ``auto``: is the page's best region date-anchored user content?

    True when MiBAT (date anchor, PS) finds a main region of >= 2 records such that

    1. the records carry content: mean record text >= ``min_text`` characters;
    2. they look like user posts: >= ``min_evidence`` of them hold a profile link or a
       class / id naming posts, comments, reviews, authors (:func:`ugc_evidence`); search
       results and product lists also carry dates, this is what tells them apart;
    3. the region is not dwarfed by the best region the list extractors found
       (``regions``, ranked): that region does not hold more records under the same
       parent, and MiBAT's text is at least half of its text or one region contains the
       other.

    ``regions=None`` decides from MiBAT alone. See :func:`ugc_regions` to get MiBAT's
    regions in the same pass.
    """
    return (
        ugc_regions(
            page, regions, min_text=min_text, min_evidence=min_evidence, build=False, **options
        )
        is not None
    )


def ugc_router(
    page: Page,
    *,
    min_text: int = 60,
    min_evidence: float = 0.6,
    **options: Any,
) -> Callable[..., list[Region] | None] | None:
    """The routing rule in two halves, so ``auto`` runs the list extractors only as far as
    the decision needs them.

    Runs MiBAT once (date anchors) and checks tests 1-2 of :func:`is_ugc_page` (content,
    user-post evidence). ``None``: the page is not user content, whatever the lists are.
    Otherwise a function ``decide(list_regions, build=True)`` that applies test 3 (not
    dwarfed by the best list region) and returns MiBAT's regions (``[]`` with
    ``build=False``), or ``None``.
    """
    opts = with_defaults(options)
    ext = MiBATExtractor()
    regs, main = ext.find(page, **{**opts, "anchors": ("date",)})
    if not _ugc_decision(page, main, None, min_text, min_evidence):
        return None

    def decide(regions: list[Region] | None, build: bool = True) -> list[Region] | None:
        if not _ugc_decision(page, main, regions, min_text, min_evidence):
            return None
        return ext.to_regions(page, regs, main, opts) if build else []

    return decide


def ugc_regions(
    page: Page,
    regions: list[Region] | None = None,
    *,
    min_text: int = 60,
    min_evidence: float = 0.6,
    build: bool = True,
    **options: Any,
) -> list[Region] | None:
    """MiBAT's regions when :func:`is_ugc_page` holds, else ``None`` (one MiBAT pass).

    ``build=False`` returns ``[]`` instead of the regions when the page is user content.
    """
    decide = ugc_router(page, min_text=min_text, min_evidence=min_evidence, **options)
    if decide is None:
        return None
    return decide(regions, build)
