"""The routing rule of ``auto``: is the page's best region date-anchored user content?

Entry points: :func:`is_ugc_page`, :func:`ugc_router` (the rule in two halves, so ``auto``
runs the list extractors only as far as the decision needs them), :func:`ugc_regions`,
:func:`ugc_evidence`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scrapy_records.extractors.mibat.anchors import (
    REPLY_HREF_RE,
    REPLY_TEXT_RE,
    AuthorLinkAnchor,
    in_sorted,
)
from scrapy_records.extractors.mibat.boundaries import MiBATRegion
from scrapy_records.extractors.mibat.extractor import MiBATExtractor, with_defaults
from scrapy_records.extractors.mibat.hints import is_quote_hint
from scrapy_records.extractors.mibat.record_fields import unlinked_author
from scrapy_records.page import Page
from scrapy_records.results import Region

__all__ = [
    "is_ugc_page",
    "ugc_router",
    "UgcDecision",
    "ugc_regions",
    "ugc_evidence",
    "teaser_share",
    "MIN_BODY",
    "TEASER_SHARE",
]

_BLOCKS = frozenset({"div", "table", "section", "aside", "figure", "q"})


#: A record's body: at least this many characters of text outside links (the date aside).
MIN_BODY = 40
#: Teasers: at least this share of the records lead to a page of their own by a headline
#: link, with distinct headlines.
TEASER_SHARE = 0.8


def ugc_evidence(
    page: Page,
    groups: list[tuple[int, ...]],
    author_links: list[int] | None = None,
    pivots: list[int] | None = None,
) -> float:
    """Share of records that look like user posts (Song et al. 2010, section 1: posts carry
    an author, a date and a free-text body): a body of at least :data:`MIN_BODY`
    characters outside links, with an author (a profile link with a name-like text, 1-40
    characters with a letter, or the unlinked name MiBAT's author field finds) or with
    reply / quote structure (a reply or quote link, a ``blockquote`` or quote block beside
    the post's own text). The date is the anchor the records were cut on (``pivots``)."""
    if not groups:
        return 0.0
    if author_links is None:
        author_links = _author_links(page)
    hits = 0
    for k, g in enumerate(groups):
        body = sum(_free_text(page, r) for r in g)
        if body < MIN_BODY:
            continue
        if any(in_sorted(author_links, r, page.end[r]) for r in g) or any(
            _has_reply_or_quote(page, r) for r in g
        ):
            hits += 1
        elif unlinked_author(page, g, pivots[k] if pivots else -1)[1] >= 0:
            hits += 1
    return hits / len(groups)


def teaser_share(page: Page, groups: list[tuple[int, ...]], author_links: list[int]) -> float:
    """Share of records that are teasers of other pages: a headline link (3 words or more,
    to a page, not a profile or a reply link) whose text and target differ from record to
    record. News, shop and video lists are made of such records; posts of a thread are not
    (their titles, if any, repeat the thread's: "Re: ...", and link within the page)."""
    return _teaser_share(page, groups, lambda i: bool(in_sorted(author_links, i, i)))


def _teaser_share(
    page: Page, groups: list[tuple[int, ...]], is_author: Callable[[int], bool]
) -> float:
    """:func:`teaser_share` with the author-link test as a predicate on a link."""
    if not groups:
        return 0.0
    heads: list[tuple[str, str]] = []
    for g in groups:
        head = _headline(page, g, is_author)
        if head is not None:
            heads.append(head)
    if not heads:
        return 0.0
    distinct = min(len({t for t, _ in heads}), len({h for _, h in heads}))
    return distinct / len(groups)


def _author_links(page: Page) -> list[int]:
    out = []
    for i in AuthorLinkAnchor().candidates(page):
        t = page.text(i)
        if 0 < len(t) <= 40 and any(ch.isalpha() for ch in t):
            out.append(i)
    return out


def _author_link_test(page: Page) -> Callable[[int], bool]:
    """``i in _author_links(page)`` for a link ``i``, decided for that link alone: a
    name-like text, accepted by :class:`AuthorLinkAnchor`, and no accepted link inside it
    (the lowest candidates are kept). Where few links are asked about, this spares the
    scan of every link of the page."""
    anchor = AuthorLinkAnchor()
    tag, end = page.tag, page.end
    memo: dict[int, bool] = {}

    def is_author(i: int) -> bool:
        v = memo.get(i)
        if v is None:
            t = page.text(i)
            v = memo[i] = (
                0 < len(t) <= 40
                and any(ch.isalpha() for ch in t)
                and anchor.accepts(page, i)
                and not any(
                    tag[j] == "a" and anchor.accepts(page, j) for j in range(i + 1, end[i] + 1)
                )
            )
        return v

    return is_author


def _free_text(page: Page, root: int) -> int:
    """Characters of text under ``root`` outside links."""
    tag, parent, owner, leaves = page.tag, page.parent, page.leaf_owner, page.leaves
    n = 0
    for k in range(page.leaf_lo[root], page.leaf_hi[root]):
        o = owner[k]
        while o > root and tag[o] != "a":
            o = parent[o]
        if tag[o] != "a":
            n += len(leaves[k])
    return n


def _has_reply_or_quote(page: Page, root: int) -> bool:
    """A reply or quote link, or a quote block that leaves some of the record's text out
    (an embedded tweet that is the whole record quotes nobody)."""
    size = page.leaf_hi[root] - page.leaf_lo[root]
    for i in range(root, page.end[root] + 1):
        t = page.tag[i]
        el = page.el[i]
        if t == "a":
            if REPLY_HREF_RE.search(el.get("href") or "") or REPLY_TEXT_RE.match(page.text(i)):
                return True
        elif t == "blockquote" or (t in _BLOCKS and is_quote_hint(el.get("class") or "")):
            if page.leaf_hi[i] - page.leaf_lo[i] < size:
                return True
    return False


def _headline(
    page: Page, group: tuple[int, ...], is_author: Callable[[int], bool]
) -> tuple[str, str] | None:
    """``(text, href)`` of the record's first headline link, or ``None``."""
    for r in group:
        for i in range(r, page.end[r] + 1):
            if page.tag[i] != "a":
                continue
            href = (page.el[i].get("href") or "").strip()
            if not href or href.startswith(("#", "javascript:", "mailto:")):
                continue
            text = page.text(i)
            if len(text.split()) < 3 or is_author(i):
                continue
            if REPLY_HREF_RE.search(href):
                continue
            return text, href
    return None


def _post_evidence(
    page: Page, main: MiBATRegion | None, min_text: int, min_evidence: float
) -> tuple[float | None, bool] | None:
    """Tests 1, 2 and 2b of :func:`is_ugc_page` on MiBAT's main region: the share of
    records that look like user posts (:func:`ugc_evidence`) and whether they are
    teasers (test 2), or ``None`` when test 1 or 2b fails. For teasers the share is left
    to :class:`UgcDecision` (``None``): it matters only when ``auto`` falls back to them."""
    if main is None or len(main.groups) < 2:
        return None
    chars = sum(len(page.texts(g)) for g in main.groups)
    if chars / len(main.groups) < min_text:
        return None
    # the evidence counts records with a body only: too few of them decide at once
    bodies = sum(1 for g in main.groups if sum(_free_text(page, r) for r in g) >= MIN_BODY)
    if bodies / len(main.groups) < min_evidence:
        return None
    # a list of headlines: the list extractors keep titles and links
    if _teaser_share(page, main.groups, _author_link_test(page)) >= TEASER_SHARE:
        return None, True
    ev = ugc_evidence(page, main.groups, _author_links(page), main.pivots)
    return (ev, False) if ev >= min_evidence else None


def _not_dwarfed(page: Page, main: MiBATRegion, regions: list[Region] | None) -> bool:
    """Test 3 of :func:`is_ugc_page`: the best list region (``regions``, ranked) holds no
    more records of the same list, and MiBAT's text is at least half of its text or one
    region contains the other."""
    if not regions:
        return True
    best = regions[0]
    if best.parent == main.parent and len(best.records) > len(main.groups):
        return False  # the list extractor sees more records of the same list
    chars = sum(len(page.texts(g)) for g in main.groups)
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
    2. they are no teasers of other pages: fewer than :data:`TEASER_SHARE` of them lead
       to a page of their own by a distinct headline link (:func:`teaser_share`): news,
       shop and video lists carry dates too, and the list extractors keep their titles
       and links;
    2b. they look like user posts: >= ``min_evidence`` of them hold an author and a
       free-text body, or reply / quote structure (:func:`ugc_evidence`);
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


class UgcDecision:
    """What :func:`ugc_router` found: MiBAT's date-anchored records that look like user
    posts (tests 1 and 2b of :func:`is_ugc_page`). ``teasers``: they also lead to pages of
    their own by headlines (test 2 fails), as search results of a forum do; ``auto`` then
    takes them only when the list extractors find no list it trusts.

    Calling it applies test 3 to the best list regions (``regions``, ranked) and returns
    MiBAT's regions (``[]`` with ``build=False``), or ``None``."""

    def __init__(
        self, page: Page, ext: MiBATExtractor, found: Any, opts: Any, min_evidence: float
    ) -> None:
        self.page, self.ext, self.opts, self.min_evidence = page, ext, opts, min_evidence
        self.regs, self.main, self.evidence, self.teasers = found

    def __call__(self, regions: list[Region] | None, build: bool = True) -> list[Region] | None:
        if self.evidence is None:  # (teasers: test 2b on first use)
            main = self.main
            self.evidence = ugc_evidence(
                self.page, main.groups, _author_links(self.page), main.pivots
            )
        if self.evidence < self.min_evidence or not _not_dwarfed(self.page, self.main, regions):
            return None
        if not build:
            return []
        out = self.ext.to_regions(self.page, self.regs, self.main, self.opts)
        for r in out:
            r.meta["ugc_evidence"] = round(self.evidence, 3)
            if self.teasers:
                r.meta["teaser_posts"] = True
        return out


def ugc_router(
    page: Page,
    *,
    min_text: int = 60,
    min_evidence: float = 0.6,
    **options: Any,
) -> UgcDecision | None:
    """The routing rule in two halves, so ``auto`` runs the list extractors only as far as
    the decision needs them.

    Runs MiBAT once (date anchors) and checks tests 1 and 2b of :func:`is_ugc_page`
    (content, user-post evidence). ``None``: the records are no user posts, whatever the
    lists are. Otherwise a :class:`UgcDecision`: called with the list regions, it applies
    test 3 (not dwarfed by the best list region); its ``teasers`` says whether test 2
    failed (the page is user content only when it did not).
    """
    opts = with_defaults(options)
    ext = MiBATExtractor()
    regs, main = ext.find(page, **{**opts, "anchors": ("date",)})
    found = _post_evidence(page, main, min_text, min_evidence)
    if found is None or main is None:
        return None
    return UgcDecision(page, ext, (regs, main, *found), opts, min_evidence)


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
    if decide is None or decide.teasers:
        return None
    return decide(regions, build)
