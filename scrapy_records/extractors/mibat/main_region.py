"""Choosing among MiBAT's regions: date-only lists out, the main region, the union of
anchor kinds, and the recovery of a first post styled apart (Song et al. 2010, section 5.4).

Entry points: :func:`is_pure_date_region`, :func:`select_main`, :func:`merge_union`,
:func:`recover_first_post`.
"""

from __future__ import annotations

from typing import Any

from scrapy_records.extractors.mibat.anchor_trees import PageContext, domain_compare
from scrapy_records.extractors.mibat.anchors import in_sorted
from scrapy_records.extractors.mibat.boundaries import MiBATRegion, first_pivot
from scrapy_records.fields.dates import is_pure_date
from scrapy_records.page import Page

__all__ = ["is_pure_date_region", "select_main", "merge_union", "recover_first_post"]


def is_pure_date_region(page: Page, reg: MiBATRegion, share: float) -> bool:
    """At least ``share`` of the region's records are only a date-time string (an archive
    list, not posts)."""
    n = len(reg.groups)
    pure = sum(1 for g in reg.groups if is_pure_date(page.texts(g)))
    return pure >= share * n


def select_main(page: Page, regions: list[MiBATRegion], opts: dict[str, Any]) -> MiBATRegion | None:
    """The main region: H1 (built in), date-only regions dropped, argmax H2; then, with
    ``prefer_nested``, a spurious high-level pair of 2 records gives way to a list of at
    least 3 records nested in one of them."""
    live = [r for r in regions if not r.pure_date and r.h2 > 0]
    if not live:
        return None
    best = max(live, key=lambda r: (r.h2, -r.parent))
    if opts["prefer_nested"] and len(best.groups) == 2:
        end = page.end
        inner = [
            r
            for r in live
            if r is not best
            and len(r.groups) >= 3
            and any(g[0] <= r.parent <= end[g[-1]] for g in best.groups)
        ]
        # only when the pair's records are not themselves posts: one record holds the
        # nested list, the other holds no region of its kind
        if inner:
            cand = max(inner, key=lambda r: r.h2)
            holders = {
                gi
                for gi, g in enumerate(best.groups)
                for r in inner
                if g[0] <= r.parent <= end[g[-1]]
            }
            if len(holders) == 1:
                best = cand
    return best


def merge_union(regions: list[MiBATRegion]) -> list[MiBATRegion]:
    """``combine="union"``: per parent, overlapping regions keep the one with more records;
    a date region confirmed by an author region with the same (parent, k, offset) is marked
    (agreement boost)."""
    out: list[MiBATRegion] = []
    for r in sorted(regions, key=lambda r: (-len(r.groups), r.kind != "date")):
        dup = None
        for o in out:
            if o.parent == r.parent and set(x for g in o.groups for x in g) & set(
                x for g in r.groups for x in g
            ):
                dup = o
                break
        if dup is None:
            out.append(r)
        elif dup.k == r.k and dup.offset == r.offset and {dup.kind, r.kind} == {"date", "author"}:
            dup.sims = [min(1.0, s + 0.1) for s in dup.sims]
            dup.agreement = True
    return out


def recover_first_post(
    ctx: PageContext, main: MiBATRegion, cands: list[int], levels: int = 4
) -> None:
    """Prepend a first post that is styled differently or sits under another parent (the
    paper's two largest error classes); sets ``recovered_first``. Only for ``k = 1``.

    Looks at sub-trees entirely before the region's first record, inside the region
    parent's ancestor ``levels`` up, that hold a candidate (``cands``), share a class token
    or the tag with the seed record, and pass DOMAINCOMPARE against the seed with the
    region's real pivots (root tag and sibling constraints ignored). The outermost such
    sub-tree nearest to the region is taken (a record may then have a root under another
    parent)."""
    page = ctx.page
    if main.k != 1 or not main.real_pivots:
        return
    top = main.parent
    for _ in range(levels):
        if page.parent[top] < 0:
            break
        top = page.parent[top]
    found = _first_post_root(ctx, main, cands, top)
    if found < 0:
        return
    main.groups.insert(0, (found,))
    main.anchors.insert(0, -1)
    main.pivots.insert(0, first_pivot(page, found, cands, main.pivots[0]))
    main.sims.insert(0, 1.0)
    main.recovered_first = True


def _first_post_root(ctx: PageContext, main: MiBATRegion, cands: list[int], top: int) -> int:
    """The root of the first post before the seed record, below ``top``, or -1 (the search
    of :func:`recover_first_post`; at most 200 sub-trees are compared)."""
    page = ctx.page
    seed = first = main.groups[0][0]
    seed_cls = set(page.classes(seed))
    seed_tag = page.tag[seed]
    cand_set = set(cands)
    end = page.end
    size = ctx.size
    lo = top + 1
    i = first - 1
    checked = 0
    while i >= lo and checked < 200:
        if end[i] >= first:  # an ancestor of the region: skip
            i -= 1
            continue
        if not (0.2 * size[seed] <= size[i] <= 5 * size[seed]):
            i -= 1
            continue
        cls = set(page.classes(i))
        if page.tag[i] != seed_tag and not (cls & seed_cls):
            i -= 1
            continue
        same_style = (
            page.tag[i] == seed_tag
            and len(cls & seed_cls) >= 0.6 * max(1, len(cls | seed_cls))
            and len(seed_cls) >= 2
        )
        if not same_style and not in_sorted(cands, i, end[i]):
            i -= 1
            continue
        checked += 1
        if same_style or domain_compare(ctx, seed, i, main.real_pivots, cand_set):
            found = i
            # prefer an enclosing sub-tree that also qualifies (the whole post)
            p = page.parent[i]
            while (
                p > top
                and end[p] < first
                and (page.tag[p] == seed_tag or set(page.classes(p)) & seed_cls)
            ):
                if domain_compare(ctx, seed, p, main.real_pivots, cand_set):
                    found = p
                p = page.parent[p]
            return found
        i -= 1
    return -1
