"""Which region is the page's main content: the ranking rule shared by every extractor.

Each region gets a ``score``; regions are sorted by it, best first (ties keep document
order), and ``regions[0]`` is the main region (``PageResult.main``), unless its confidence
is below the caller's ``main_threshold``.

Rule (documented in the README)::

    score = sqrt(confidence * text_chars) * log2(1 + n_records) * link_penalty

* ``confidence``: the extractor's "this is a real list of data records" in ``[0, 1]``
  (comparable across extractors). It enters under the square root: it separates real
  lists from noise, but a very regular small box (a sidebar of identical teasers) must
  not beat the big, slightly irregular result list next to it (search snippets with
  query highlighting are less similar to each other than sidebar links are).
* ``text_chars``: characters of record text inside the region, also under the square
  root: big lists of content outrank small ones, without one long record deciding.
* ``n_records``: the number of records (a list of 20 beats a pair).
* ``link_penalty = 1 - 0.6 * max(0, link_share - 0.6) / 0.4``: regions whose text is
  almost all anchor text (menus, tag clouds, pagination) are pushed down (to 0.4 of their
  score at 100 % links) but not removed: some real lists are lists of links.

``auto`` (:mod:`scrapy_records.extractors.auto`) ranks the union of MDR's and STEM's
regions with the same rule after scaling each confidence by the cross-extractor agreement,
and with the count term as ``log2(1 + n) ** 0.5`` (``count_exponent``): the two extractors
cut the same rows into different numbers of records (a result and its separator row, or a
result split into title and snippet), and the full ``log2`` term would reward the finer cut.

Nested regions are all kept (a list of products and the list of attribute rows inside one
product are both regions); the outer, larger one wins by the rule above.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from scrapy_records.extractors.evidence import PageText, groups_evidence
from scrapy_records.page import Page
from scrapy_records.results import Region

__all__ = ["rank", "region_score", "score_terms", "link_share", "groups_link_share"]


def link_share(page: Page, region: Region) -> float:
    """Share of the region's record text that sits inside ``<a>`` elements."""
    return groups_link_share(page, [rec.nodes for rec in region.records])


def groups_link_share(page: Page, groups: Iterable[Sequence[int]]) -> float:
    """Share of the text of records given as root node groups that sits inside ``<a>``."""
    total = linked = 0
    tag, parent, leaves, owner = page.tag, page.parent, page.leaves, page.leaf_owner
    for group in groups:
        for root in group:
            for k in range(page.leaf_lo[root], page.leaf_hi[root]):
                n = len(leaves[k])
                total += n
                o = owner[k]
                # walk up to the record root looking for an anchor
                while o >= root:
                    if tag[o] == "a":
                        linked += n
                        break
                    o = parent[o]
    return linked / total if total else 0.0


def score_terms(
    page: Page, region: Region, count_exponent: float = 1.0, text: PageText | None = None
) -> dict[str, float]:
    """The terms of :func:`region_score`: ``confidence``, ``chars`` (record text),
    ``records``, ``link_share``, ``link_factor``, ``count_exponent`` and ``score``."""
    chars = sum(len(r.text) for r in region.records)
    n = len(region.records)
    if text is not None:
        c, linked = groups_evidence(page, [r.nodes for r in region.records], text)
        ls = linked / c if c else 0.0
    else:
        ls = link_share(page, region)
    penalty = 1.0 - 0.6 * max(0.0, ls - 0.6) / 0.4
    conf = min(1.0, max(0.0, region.confidence))
    score = math.sqrt(conf * chars) * math.log2(1 + n) ** count_exponent * penalty
    return {
        "confidence": conf,
        "chars": chars,
        "records": n,
        "link_share": ls,
        "link_factor": penalty,
        "count_exponent": count_exponent,
        "score": score,
    }


def region_score(
    page: Page, region: Region, count_exponent: float = 1.0, text: PageText | None = None
) -> float:
    """The ranking score of one region (see the module docstring); ``count_exponent``
    raises the record-count term ``log2(1 + n)`` to that power (1 by default, 0.5 in
    :mod:`scrapy_records.extractors.auto`). ``text`` (the page's :class:`PageText`, when
    the caller has it) gives the link share from prefix sums."""
    return score_terms(page, region, count_exponent, text)["score"]


def rank(
    page: Page,
    regions: Iterable[Region],
    count_exponent: float = 1.0,
    text: PageText | None = None,
) -> list[Region]:
    """Score and sort regions best first (stable for equal scores: input order). Each
    region's ``meta["score_terms"]`` keeps the terms (:func:`score_terms`) for the
    explanation (:func:`scrapy_records.extractors.explain.explain`)."""
    out = list(regions)
    for r in out:
        terms = score_terms(page, r, count_exponent, text)
        r.score = terms["score"]
        r.meta["score_terms"] = {k: round(v, 4) for k, v in terms.items()}
    out.sort(key=lambda r: -r.score)
    return out
