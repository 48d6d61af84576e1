"""Record boundaries and pivots: from anchor lists to records (Song et al. 2010, sections
5.1 and 5.3, Algorithms 1 and 3).

An anchor list says which children of a parent hold one record's anchor each; a record may
span ``k`` adjacent children starting ``offset`` children before its anchor. Algorithm 3
picks ``k`` (at most the smallest gap between anchors) and the offset with the best summed
tree similarity between corresponding children of consecutive records; the offset loop is
the repaired one (lines 17'/18': every offset in ``[left, right - k + 1]``, ties keep the
leftmost). Entry point: :func:`run_kind` (Algorithm 1 for one anchor kind).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from itertools import accumulate, compress

from scrapy_records.extractors.mibat.anchor_trees import PageContext, Partners, find_anchor_trees
from scrapy_records.extractors.mibat.anchors import AnchorClassifier, in_sorted
from scrapy_records.extractors.mibat.hints import JOIN_RE
from scrapy_records.fields.dates import parse_date
from scrapy_records.page import Page

logger = logging.getLogger(__name__)

__all__ = ["MiBATRegion", "run_kind", "first_pivot"]


@dataclass
class MiBATRegion:
    """One anchor list turned into records (before it becomes a :class:`Region`)."""

    parent: int
    kind: str
    anchors: list[int]  # positions in the parent's child list
    k: int
    offset: int
    groups: list[tuple[int, ...]]
    pivots: list[int]  # pivot node per record (best_v), -1 if unknown
    real_pivots: list[int]  # seed's surviving CPSet
    h2: float = 0.0
    anchor_gap: int = 0
    expan_len: int = 0
    sims: list[float] = field(default_factory=list)
    pure_date: bool = False
    recovered_first: bool = False
    agreement: bool = False


def run_kind(
    page: Page, ctx: PageContext, anchor: AnchorClassifier, deadline: float
) -> list[MiBATRegion]:
    """Algorithm 1 for one anchor kind: every region (the paper's Omega), parents in
    pre-order; the parents left when the ``deadline`` passes are skipped."""
    cands = ctx.candidates(anchor)
    if len(cands) < 2:
        return []
    cand_set = set(cands)
    # number of candidates in each sub-tree: prefix counts over pre-order (in C)
    n = len(page.el)
    mark = bytearray(n)
    for c in cands:
        mark[c] = 1
    prefix = list(accumulate(mark, initial=0))
    end = page.end
    children = page.children
    out: list[MiBATRegion] = []
    # Algorithm 1: parents in pre-order, those of two children or more (chosen in C)
    for p in compress(range(n), map((1).__lt__, map(len, children))):
        kids = children[p]
        total = prefix[end[p] + 1] - prefix[p + 1]
        if total < 2:
            continue
        has = [prefix[end[c] + 1] - prefix[c] > 0 for c in kids]
        if sum(has) < 2:
            continue
        if time.perf_counter() > deadline:
            logger.info("mibat: time budget exhausted on %s", page.url)
            break
        for anchors, real, partners in find_anchor_trees(ctx, kids, has, cands, cand_set, deadline):
            k, x, gap, expan, _ = _determine_boundary(ctx, kids, anchors)
            groups = [tuple(kids[a + x : a + x + k]) for a in anchors]
            # the record's pivot: u* for the seed, best_v for the others
            ustar = _choose_pivot(page, ctx, real, partners) if real else -1
            pivots = [ustar]
            sims = [1.0]
            for a in anchors[1:]:
                got = partners.get(a, {}).get(ustar)
                pivots.append(got[0] if got else -1)
                sims.append(got[1] if got else 0.0)
            reg = MiBATRegion(
                p,
                anchor.kind,
                anchors,
                k,
                x,
                groups,
                pivots,
                real,
                anchor_gap=gap,
                expan_len=expan,
                sims=sims,
            )
            reg.h2 = _h2(ctx, groups)
            out.append(reg)
    return out


def _determine_boundary(
    ctx: PageContext, kids: list[int], anchors: list[int]
) -> tuple[int, int, int, int, float]:
    """Algorithm 3 with the corrected offset loop (17'/18'): returns
    ``(k, offset, anchorGap, expanLen, score)``; ties keep the leftmost offset."""
    tag_id = ctx.page.tag_id
    n = len(kids)
    gap = min(b - a for a, b in zip(anchors, anchors[1:]))
    if gap == 1:  # Case 1
        return 1, 0, 1, 1, 0.0
    left = 0
    for k in range(1, min(gap, anchors[0] + 1)):  # positions are 0-based: a_1 - k >= 0
        t0 = tag_id[kids[anchors[0] - k]]
        if any(tag_id[kids[a - k]] != t0 for a in anchors):
            break
        left -= 1
    right = 0
    for k in range(1, min(gap - 1, n - 1 - anchors[-1]) + 1):
        t0 = tag_id[kids[anchors[0] + k]]
        if any(tag_id[kids[a + k]] != t0 for a in anchors):
            break
        right += 1
    expan = right - left + 1
    k = min(gap, expan)
    best_x, best = left, float("-inf")
    if expan - k + 1 > 1:
        for x in range(left, right - k + 2):  # 17': x in [left, right - k + 1]
            score = 0.0
            for p, q in zip(anchors, anchors[1:]):
                for j in range(k):
                    score += ctx.tree_sim(kids[q + x + j], kids[p + x + j])
            if score > best:
                best, best_x = score, x
    else:
        best = 0.0
    return k, best_x, gap, expan, best


def _h2(ctx: PageContext, groups: list[tuple[int, ...]]) -> float:
    """H2 (section 5.4): raw sum of |M| between corresponding sub-trees of consecutive
    records."""
    total = 0
    for g1, g2 in zip(groups, groups[1:]):
        for a, b in zip(g1, g2):
            total += ctx.w(a, b)
    return float(total)


def _choose_pivot(
    page: Page,
    ctx: PageContext,
    real: list[int],
    partners: dict[int, Partners],
) -> int:
    """The record's pivot when several real pivots survive (post date and edit date, a
    profile's "Joined:" date): drop the ones labelled as membership dates, then prefer the
    latest dates (a post is never older than its author's registration), then the highest
    summed similarity, then the earliest in document order."""
    if len(real) == 1:
        return real[0]
    pool = real
    labelled = []
    for u in real:
        pu = page.parent[u]
        around = page.text(pu) if pu >= 0 else ""
        if len(around) > 120:
            around = page.own_text(pu)
        if JOIN_RE.search(page.text(u)[:120] + " " + around[:120]):
            labelled.append(u)
    if labelled and len(labelled) < len(real):
        pool = [u for u in real if u not in labelled]
    if len(pool) == 1:
        return pool[0]
    base = ctx.opts["relative_base"]  # None: now (and the parse cache keeps working)
    langs = ctx.opts["languages"]

    def latest(u: int) -> float:
        vals = []
        nodes = [u] + [partners[j][u][0] for j in partners if u in partners[j]]
        for v in nodes:
            d = parse_date(page.text(v)[:120], langs, relative_base=base) if page.text(v) else None
            if d is not None:
                vals.append(d.replace(tzinfo=None).timestamp())
        if len(vals) < max(1, len(nodes) // 2):
            return float("-inf")
        vals.sort()
        return vals[len(vals) // 2]

    sums = {u: sum(partners[j][u][1] for j in partners if u in partners[j]) for u in pool}
    return max(pool, key=lambda u: (latest(u), sums[u], -u))


def first_pivot(page: Page, root: int, cands: list[int], seed_pivot: int) -> int:
    """The date node of a recovered first post: the candidate looking most like the seed's
    pivot (same tag and classes), skipping membership / edit dates."""
    got = in_sorted(cands, root, page.end[root])
    if not got:
        return -1

    def key(c: int) -> tuple[bool, bool, bool, int]:
        same = seed_pivot >= 0 and page.tag[c] == page.tag[seed_pivot]
        same_cls = seed_pivot >= 0 and page.classes(c) == page.classes(seed_pivot)
        labelled = bool(
            JOIN_RE.search(page.text(page.parent[c])[:120] if page.parent[c] >= 0 else "")
        )
        return (not same_cls, not same, labelled, c)

    return min(got, key=key)
