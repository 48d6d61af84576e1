"""Which region is the page's main content: the ranking rule shared by every extractor.

Each region gets a ``score``; regions are sorted by it, best first, and ``regions[0]`` is
the main region (``PageResult.main``), unless its confidence is below the caller's
``main_threshold``.

Rule (documented in the README):

    score = confidence * sqrt(text_chars) * log2(1 + n_records) * link_penalty

* ``text_chars``: characters of record text inside the region (big lists of
  content outrank small ones);
* ``n_records``: the number of records (a list of 20 beats a pair);
* ``link_penalty`` = ``1 - 0.6 * max(0, link_share - 0.6) / 0.4``: regions whose text is
  almost all anchor text (menus, tag clouds, pagination) are pushed down but not removed.

Nested regions are both kept (a list of products and the list of attribute rows inside one
product are both regions); the outer, larger one wins by the rule above.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .page import Page
from .results import Region


def link_share(page: Page, region: Region) -> float:
    """Share of the region's record text that sits inside ``<a>`` elements."""
    total = 0
    linked = 0
    tag = page.tag
    for rec in region.records:
        for root in rec.nodes:
            lo, hi = page.leaf_lo[root], page.leaf_hi[root]
            for k in range(lo, hi):
                n = len(page.leaves[k])
                total += n
                o = page.leaf_owner[k]
                # walk up to the record root looking for an anchor
                while o >= root:
                    if tag[o] == "a":
                        linked += n
                        break
                    if o == root:
                        break
                    o = page.parent[o]
    return linked / total if total else 0.0


def region_score(page: Page, region: Region) -> float:
    chars = sum(len(r.text) for r in region.records)
    n = len(region.records)
    ls = link_share(page, region)
    penalty = 1.0 - 0.6 * max(0.0, ls - 0.6) / 0.4
    return region.confidence * math.sqrt(chars) * math.log2(1 + n) * penalty


def rank(page: Page, regions: Iterable[Region]) -> list[Region]:
    """Score and sort regions best first (stable for equal scores: document order)."""
    out = list(regions)
    for r in out:
        r.score = region_score(page, r)
    out.sort(key=lambda r: -r.score)
    return out
