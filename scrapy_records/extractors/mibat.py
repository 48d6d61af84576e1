"""MiBAT: Mining data records Based on Anchor Trees (Song et al., CIKM 2010).

Implements the digest ``shared/papers/mibat.md`` (paper ``002_f7dda2f3096b270d.txt``).
Section numbers below are the digest's.

Pipeline (§3.1)::

    candidates <- anchor classifier (default: post dates, §3.3; pluggable, §8)
    for every parent p with >= 2 children holding candidates (Alg. 1, pre-order):
        anchor lists <- FindAnchorTrees(children of p)          (Alg. 2, §3.6, PS or PM)
        for each anchor list: region <- DetermineBoundary(...)   (Alg. 3 with the fixed
                                                                  offset loop 17'/18', §3.7)
    drop date-only regions (archive lists, §3.8), main region <- argmax H2 (§3.8)

Tree matching (§3.4): Simple Tree Matching on elements, memoised on structural *shapes*
(identical sub-trees match completely without a DP); a pair of large sub-trees whose DP
would exceed ``exact_cells`` is approximated by the LCS of their pre-order tag strings
(rapidfuzz, C), which is an upper bound of the top-down mapping size (§4 "per-page
budget ... fall back"). The child alignment along the seed's root-to-pivot path is
always exact at the level of children (the DP of each matched pair on the path is run
with backtracking, diagonal > up > left, §3.4), so PM and PS see a real top-down mapping.

Fields per record (§3.9 [R]): ``date`` (ISO 8601), ``date_raw``, ``author``,
``author_url``, ``permalink``, ``text`` (the post body: the part of the record with the
most class-weighted text that holds neither the pivot nor the author, quotes included;
the body container the records agree on wins over a record's own odd pick, see
:func:`_body_consensus`), on top of the aligned columns of
:func:`~scrapy_records.extractors.base.build_region`.

Record text (§1.2, §3.9 [R]): a record is the whole post sub-tree (its ``xpaths`` and
``nodes``, the paper's correctness criterion), but ``Record.text`` is the post without
site chrome (``record_text="content"``, default): profile boxes, signatures, action bars,
footers and edit notices are left out, the header (title, author, date), the body,
quotes and ratings stay (:func:`_content_text`). ``record_text="block"`` gives the text of
the whole sub-tree. Measured on ``forums/`` with ``auto``: perfect pages 12/22 with
"block", 21/22 with "content" (the gold is the post; a signature or a profile box
longer than a short post breaks the datasets README's 20% rule); ``reviews/`` unchanged.

Anchors combine (§8.2) with ``combine="fallback"`` (default): the kinds of the ``anchors``
option in order (default ``date``, then ``author``, then ``permalink``; ``reply`` and
custom classifiers on request); the first kind whose main region has >= 2 records wins.
``combine="union"`` runs every kind in ``anchors`` and keeps, per parent, the region with
the most records; a date region confirmed by an ``author`` region with the same
``(parent, k, offset)`` gets ``meta["agreement"] = True`` and a confidence boost.

:func:`is_ugc_page` is the routing rule for ``auto`` (a page whose best region is
date-anchored user content goes to MiBAT).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from scrapy_records.extractors.anchors import (
    PERMALINK_HREF_RE,
    PROFILE_HREF_RE,
    REPLY_HREF_RE,
    REPLY_TEXT_RE,
    AnchorClassifier,
    AuthorLinkAnchor,
    DateAnchor,
    get_anchor,
    in_sorted,
)
from scrapy_records.extractors.base import build_region
from scrapy_records.fields.dates import (
    date_substring,
    is_pure_date,
    iso_date,
    parse_date,
    parse_timestamp,
)
from scrapy_records.page import Page
from scrapy_records.results import Column, Region
from scrapy_records.treematch import STM, Shapes

logger = logging.getLogger(__name__)

__all__ = [
    "MiBATExtractor",
    "MiBATRegion",
    "is_ugc_page",
    "ugc_regions",
    "ugc_evidence",
    "DEFAULTS",
]

#: Extractor options and their defaults (§3.11).
DEFAULTS: dict[str, Any] = {
    "measure": "ps",  # "ps" (Pivot and Siblings, best in the paper) or "pm" (Pivot Match)
    "tau": 0.5,  # DOMAINSIMILARITY threshold, strict ">" (§3.5, §3.11)
    "ps_require_pivot_match": False,  # §6.2 #5: also require (u, v) in M for PS
    "min_anchors": 2,  # m >= 2 (online mode, §2)
    "anchors": ("date", "author", "permalink"),  # kinds tried (§8)
    "combine": "fallback",  # "fallback" | "union" (§8.2)
    "max_pivot_text": 200,  # §3.3 max_pivot_text_len
    "pure_date_share": 0.8,  # §3.8: drop a region when >= 80% of its records are only a date
    "prefer_nested": True,  # §6.3 spurious high-level pair mitigation
    "first_post_recovery": True,  # §6.2 #17 post-step (measured better: 11 vs 7 perfect forum pages)
    "exact_cells": 2500,  # STM DP size above which a pair is approximated by LCS (§4)
    "max_compares": 20000,  # per-page budget of DOMAINCOMPARE calls (§4)
    "time_budget": 2.0,  # seconds per page before the remaining parents are skipped (§4)
    "relative_base": None,  # reference time for relative dates ("3 hours ago")
    "languages": None,  # dateparser languages for the date field
    "align": True,  # run the shared field alignment (build_region)
    "fields": True,  # add author/date/text/permalink fields
    "record_text": "content",  # Record.text: "content" (post without profile/signature chrome) | "block"
}


@dataclass
class MiBATRegion:
    """One anchor list turned into records (internal, before :class:`Region`)."""

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


class _Ctx:
    """Per-page state: shapes, STM memo, candidate sets (§3.4 memoisation)."""

    def __init__(self, page: Page, opts: dict[str, Any]) -> None:
        self.page = page
        self.opts = opts
        n = len(page.el)
        self.size = [page.end[i] - i + 1 for i in range(n)]
        # structural shapes (elements only), bottom-up in reverse pre-order (no recursion);
        # rep[s]: an element of shape s (its pre-order tag string is a slice of tag_id)
        shapes = Shapes()
        self.shape, rep = shapes.intern_elements(page.tag_id, page.children, page.end)
        tag_id = page.tag_id
        end = page.end

        def seq(s: int) -> list[int]:
            r = rep[s]
            return tag_id[r : end[r] + 1]

        #: the shared STM (:class:`~scrapy_records.treematch.STM`), memo per page run;
        #: a pair with ``size_a * size_b > exact_cells`` scores the LCS of the pre-order
        #: tag strings (§4), tracebacks diagonal > up > left (§3.4 MAPPING)
        self.stm = STM(
            shapes,
            symmetric=True,
            approx="score",
            max_size_product=int(opts["exact_cells"]),
            seq=seq,
            tie="diagonal",
        )
        self.align_memo: dict[tuple[int, int], dict[int, int]] = {}
        self.exact_cells = int(opts["exact_cells"])
        self.compares = 0
        self.cands: dict[str, list[int]] = {}

    def candidates(self, anchor: AnchorClassifier) -> list[int]:
        got = self.cands.get(anchor.kind)
        if got is None:
            got = self.cands[anchor.kind] = sorted(anchor.candidates(self.page))
        return got

    # ---------------------------------------------------------------- STM (§3.4)
    @property
    def approximated(self) -> int:
        """STM pairs answered by the LCS approximation (§4 budget)."""
        return self.stm.approximated

    def w(self, a: int, b: int) -> int:
        """|M| of the maximum top-down mapping of sub-trees ``a`` and ``b`` (Simple Tree
        Matching), memoised on shapes; LCS approximation for very large pairs."""
        return self.stm.score(self.shape[a], self.shape[b])

    def align(self, a: int, b: int) -> dict[int, int]:
        """Child mapping of the matched pair (a, b): child of a -> child of b (§3.4
        MAPPING, one level, tie-break diagonal > up > left). The DP depends on the
        structural shapes only: pairs of sub-trees built alike (the same header in every
        post) reuse the child positions (:meth:`STM.pairs`)."""
        key = (a, b)
        got = self.align_memo.get(key)
        if got is not None:
            return got
        cx, cy = self.page.children[a], self.page.children[b]
        out: dict[int, int] = {}
        if cx and cy:
            out = {cx[i]: cy[j] for i, j in self.stm.pairs(self.shape[a], self.shape[b])}
        self.align_memo[key] = out
        return out

    def tree_sim(self, a: int, b: int) -> float:
        """Eq. 1, TreeSim = |M| / ((|V1| + |V2|) / 2)."""
        return self.w(a, b) / ((self.size[a] + self.size[b]) / 2.0)


# ------------------------------------------------------------------ Alg. 2 (§3.6)
def _path(page: Page, root: int, u: int) -> list[int]:
    out = [u]
    p = page.parent
    while u != root:
        u = p[u]
        out.append(u)
    out.reverse()
    return out


def _domain_compare(
    ctx: _Ctx, ti: int, tj: int, cpset: list[int], cand_set: set[int], cands: list[int]
) -> dict[int, tuple[int, float]]:
    """DOMAINCOMPARE (Alg. 2) with DOMAINSIMILARITY (§3.5): seed pivots ``u`` of ``ti``
    matched in ``tj``, each with its best partner ``v`` and the similarity."""
    page = ctx.page
    ctx.compares += 1
    measure, tau = ctx.opts["measure"], ctx.opts["tau"]
    require = ctx.opts["ps_require_pivot_match"]
    out: dict[int, tuple[int, float]] = {}
    children = page.children
    for u in cpset:
        if u == ti:  # the pivot is the anchor root: PS degrades to PM (§3.5 [R])
            if tj in cand_set:
                out[u] = (tj, 1.0)
            continue
        path = _path(page, ti, u)
        a, b = ti, tj
        ok = True
        for nxt in path[1:-1]:
            partner = ctx.align(a, b).get(nxt)
            if partner is None:
                ok = False
                break
            a, b = nxt, partner
        if not ok:
            continue
        # a = parent(u) and b its partner
        mapping = ctx.align(a, b)
        v = mapping.get(u)
        if measure == "pm":
            if v is not None and v in cand_set:
                out[u] = (v, 1.0)
            continue
        if require and (v is None or v not in cand_set):
            continue
        s1, s2 = children[a], children[b]
        sim = len(mapping) / ((len(s1) + len(s2)) / 2.0)
        if sim <= tau:
            continue
        if v is None or v not in cand_set:
            # any candidate among the siblings in tj (PS does not need (u, v) in M, §6.2 #5)
            vs = [c for c in s2 if c in cand_set]
            if not vs:
                # a candidate deeper under one of b's children also shares parent(v) = b
                # only if it is a child of b: otherwise the formula gives 0
                continue
            pos_u = s1.index(u)
            v = min(vs, key=lambda c: abs(s2.index(c) - pos_u))
        out[u] = (v, sim)
    return out


def _find_anchor_trees(
    ctx: _Ctx,
    kids: list[int],
    has: list[bool],
    cands: list[int],
    cand_set: set[int],
    deadline: float,
) -> list[tuple[list[int], list[int], dict[int, dict[int, tuple[int, float]]]]]:
    """Algorithm 2: anchor lists under one parent, with the seed's real pivots and the
    per-tree partners (``best_v``)."""
    page = ctx.page
    n = len(kids)
    covered = [False] * n
    tag_id = page.tag_id
    end = page.end
    out = []
    max_cmp = ctx.opts["max_compares"]
    for i in range(n):
        if covered[i] or not has[i]:
            continue
        ti = kids[i]
        cpset = in_sorted(cands, ti, end[ti])
        anchors = [i]
        partners: dict[int, dict[int, tuple[int, float]]] = {}
        for j in range(i + 1, n):
            if covered[j] or not has[j] or tag_id[kids[j]] != tag_id[ti]:
                continue
            if ctx.compares >= max_cmp or time.perf_counter() > deadline:
                break
            matched = _domain_compare(ctx, ti, kids[j], cpset, cand_set, cands)
            if matched:
                anchors.append(j)
                cpset = [u for u in cpset if u in matched]
                partners[j] = matched
                covered[j] = True
        if len(anchors) >= ctx.opts["min_anchors"]:
            out.append((anchors, cpset, partners))
    return out


# ------------------------------------------------------------------ Alg. 3 (§3.7)
def _determine_boundary(
    ctx: _Ctx, kids: list[int], anchors: list[int]
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


def _h2(ctx: _Ctx, groups: list[tuple[int, ...]]) -> float:
    """H2 (§3.8): raw sum of |M| between corresponding sub-trees of consecutive records."""
    total = 0
    for g1, g2 in zip(groups, groups[1:]):
        for a, b in zip(g1, g2):
            total += ctx.w(a, b)
    return float(total)


# ------------------------------------------------------------------ one anchor kind
def _run_kind(
    page: Page, ctx: _Ctx, anchor: AnchorClassifier, deadline: float
) -> list[MiBATRegion]:
    """Algorithm 1 for one anchor kind: every region (Ω)."""
    cands = ctx.candidates(anchor)
    if len(cands) < 2:
        return []
    cand_set = set(cands)
    # number of candidates in each sub-tree: prefix counts over pre-order
    n = len(page.el)
    mark = bytearray(n)
    for c in cands:
        mark[c] = 1
    prefix = [0] * (n + 1)
    acc = 0
    for i in range(n):
        acc += mark[i]
        prefix[i + 1] = acc
    end = page.end
    children = page.children
    out: list[MiBATRegion] = []
    for p in range(n):  # Alg. 1, pre-order over parents
        kids = children[p]
        if len(kids) < 2:
            continue
        total = prefix[end[p] + 1] - prefix[p + 1]
        if total < 2:
            continue
        has = [prefix[end[c] + 1] - prefix[c] > 0 for c in kids]
        if sum(has) < 2:
            continue
        if time.perf_counter() > deadline:
            logger.info("mibat: time budget exhausted on %s", page.url)
            break
        for anchors, real, partners in _find_anchor_trees(
            ctx, kids, has, cands, cand_set, deadline
        ):
            k, x, gap, expan, _ = _determine_boundary(ctx, kids, anchors)
            groups = [tuple(kids[a + x : a + x + k]) for a in anchors]
            # the record's pivot (§3.9): u* for the seed, best_v for the others
            ustar = _choose_pivot(page, ctx, real, partners, anchors) if real else -1
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


_JOIN_RE = re.compile(
    r"joined|registered|member since|registriert|mitglied seit|dabei seit|beigetreten|inscrit|inscription|"
    r"membre depuis|registrado|miembro desde|iscritto|registrato|membro dal|membro desde|lid sinds|"
    r"geregistreerd|aangemeld|founded|since|seit|depuis|desde|dal\b|last (?:seen|visit|active)|zuletzt online|"
    r"edited|bearbeitet|geändert|modifié|editado|modificato|bewerkt|last edit|updated",
    re.I,
)


def _choose_pivot(
    page: Page,
    ctx: _Ctx,
    real: list[int],
    partners: dict[int, dict[int, tuple[int, float]]],
    anchors: list[int],
) -> int:
    """Several real pivots survive (§3.9 "post date and edit date", and profile "Joined:"
    dates): drop the ones labelled as membership dates, then prefer the latest dates (a
    post is never older than its author's registration), then the highest summed
    similarity, then the earliest in document order ([R], §6.2 #12)."""
    if len(real) == 1:
        return real[0]
    pool = real
    labelled = []
    for u in real:
        pu = page.parent[u]
        around = page.text(pu) if pu >= 0 else ""
        if len(around) > 120:
            around = page.own_text(pu)
        if _JOIN_RE.search(page.text(u)[:120] + " " + around[:120]):
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


def _pure_date_region(page: Page, reg: MiBATRegion, share: float) -> bool:
    """§3.8: the region's records are (>= share of them) purely a date-time string."""
    n = len(reg.groups)
    pure = sum(1 for g in reg.groups if is_pure_date(page.texts(g)))
    return pure >= share * n


def _select_main(
    page: Page, regions: list[MiBATRegion], opts: dict[str, Any]
) -> MiBATRegion | None:
    """Main region (§3.8): H1 (built in), drop date-only regions, argmax H2, then the
    §6.3 mitigation for a spurious 2-record high-level pair (``prefer_nested``)."""
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


# ------------------------------------------------------------------ fields (§3.9)
_QUOTE_CLASS_RE = re.compile(r"quote|bbcode|citation|cite", re.I)
_AUTHOR_CLASS_RE = re.compile(r"author|user|poster|member|nick|byline|name", re.I)
_CHROME_HINT_RE = re.compile(
    r"(?:^|[\s_-])user(?![-_]?content)(?:$|[\s_-])|signature|\bsig\b|sig[-_]|postfoot|post-?footer|footer|likes|reactions|postprofile|userinfo|user-?info|"
    r"author|profile|avatar|poster|userdetails|user-details|meta|byline|header|buttons|"
    r"actions|toolbar|controls|share|rating|attribution|reputation|badges|edited|lastedit|notice|attach",
    re.I,
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BODY_HINT_RE = re.compile(
    r"content|message|postbody|post-?body|post_?body|post-?text|post_?text|entry|comment-?body|"
    r"commenttext|comment-?text|messagetext|bbwrapper|post_message|postcontent|articlebody|\btext\b|"
    r"\bbody\b|usercontent|user-content|cooked|review-?text|description",
    re.I,
)


def _absolute(page: Page, href: str | None) -> str | None:
    """Absolute URL (fast path for links that already are)."""
    if not href:
        return None
    h = href.strip()
    if h.startswith(("http://", "https://")) and " " not in h:
        return h
    return page.absolute(h)


@lru_cache(maxsize=4096)
def _is_quote_hint(cls: str) -> bool:
    return bool(cls) and bool(re.search(r"quote|citation", cls, re.I))


@lru_cache(maxsize=4096)
def _hint_weight(hint: str) -> float | None:
    """Body weight from class / id / itemprop (None: inherit)."""
    if not hint:
        return None
    if _CHROME_HINT_RE.search(hint):
        return 0.15
    if _BODY_HINT_RE.search(hint):
        return 2.0
    return None


@lru_cache(maxsize=4096)
def _href_kind(href: str) -> tuple[bool, bool, bool]:
    """(profile, permalink, reply) tests of one href, cached."""
    return (
        bool(PROFILE_HREF_RE.search(href)),
        bool(PERMALINK_HREF_RE.search(href)),
        bool(REPLY_HREF_RE.search(href)),
    )


def _in_quote(page: Page, i: int, root: int) -> bool:
    tag, parent = page.tag, page.parent
    while i > root:
        if tag[i] == "blockquote" or (
            tag[i] in ("div", "table", "section")
            and _QUOTE_CLASS_RE.search(page.el[i].get("class") or "")
        ):
            return True
        i = parent[i]
    return False


_NAME_TAGS = frozenset({"strong", "b", "dt", "cite", "h4", "h5", "span"})


@lru_cache(maxsize=4096)
def _name_class(cls: str) -> bool:
    return bool(re.search(r"author|username|poster|byline|user-?name|nick|\bfn\b", cls, re.I))


@lru_cache(maxsize=4096)
def _author_zone(cls: str) -> bool:
    return bool(
        re.search(
            r"postleft|postprofile|userinfo|user-info|author|poster|profile|username|user\b",
            cls,
            re.I,
        )
    )


@lru_cache(maxsize=4096)
def _author_class(cls: str) -> bool:
    return bool(_AUTHOR_CLASS_RE.search(cls))


@lru_cache(maxsize=4096)
def _perma_class(cls: str) -> bool:
    return bool(re.search(r"permalink|postlink|post-link", cls, re.I))


def _ancestor_classes(page: Page, i: int, root: int, levels: int = 3) -> str:
    out = []
    p = page.parent
    while i >= root and levels > 0:
        out.append(page.el[i].get("class") or "")
        out.append(page.el[i].get("itemprop") or "")
        if i == root:
            break
        i = p[i]
        levels -= 1
    return " ".join(out)


def _record_fields(
    page: Page,
    group: tuple[int, ...],
    pivot: int,
    opts: dict[str, Any],
    links: list[int],
    kind: str = "date",
    dates: list[int] | None = None,
) -> dict[str, Any]:
    """Fields of one post (§3.9 [R]): date from the pivot (or, for other anchor kinds,
    the record's first date candidate), author, permalink and body text."""
    fields: dict[str, Any] = {}
    tag = page.tag
    if kind != "date":
        got = [d for r in group for d in in_sorted(dates or [], r, page.end[r])]
        pivot = got[0] if got else -1
    # ---- date
    date_iso = date_raw = None
    if pivot >= 0:
        el = page.el[pivot]
        for name in (
            "datetime",
            "data-time",
            "data-timestamp",
            "data-datetime",
            "data-date",
            "data-utime",
            "title",
        ):
            v = el.get(name)
            if v:
                got = parse_timestamp(v, opts["languages"], relative_base=opts["relative_base"])
                if got:
                    date_iso = got[0]
                    date_raw = got[1]
                    break
        txt = page.text(pivot)
        raw_txt = date_substring(txt) if txt else None
        if raw_txt:
            if date_iso is None:
                d = parse_date(raw_txt, opts["languages"], relative_base=opts["relative_base"])
                if d is not None:
                    date_iso = iso_date(d, raw_txt)
            date_raw = raw_txt
        elif date_raw is None and txt:
            date_raw = txt[:80]
    if date_iso or date_raw:
        fields["date"] = date_iso
        fields["date_raw"] = date_raw
    # ---- author and permalink: links of the record outside quotes
    author = author_url = permalink = None
    author_node = -1
    best_score = 0
    perma_score = 0
    for root in group:
        for i in in_sorted(links, root, page.end[root]):
            href = page.el[i].get("href") or ""
            if not href or href.startswith("javascript:"):
                continue
            if _in_quote(page, i, root):
                continue
            text = page.text(i)
            cls = _ancestor_classes(page, i, root)
            is_profile, is_perma, is_reply = _href_kind(href)
            score = 0
            if is_profile:
                score += 3
            if _author_class(cls) or (page.el[i].get("rel") or "") == "author":
                score += 2
            if 0 < len(text) <= 40:
                score += 1
            if text and not any(ch.isalpha() for ch in text):
                score -= 3  # a post count or a number, not a name
            if "profil" in (page.el[i].get("title") or "").lower():
                score += 1
            if pivot >= 0 and page.is_ancestor(i, pivot):
                score -= 3
            if is_reply or is_perma:
                score -= 3
            if score >= 3 and score > best_score:
                best_score, author_node = score, i
            # permalink
            ps = 0
            if is_perma:
                ps += 3
            if (page.el[i].get("rel") or "").lower() == "bookmark" or _perma_class(cls):
                ps += 2
            if pivot >= 0 and (page.is_ancestor(i, pivot) or page.is_ancestor(pivot, i)):
                ps += 2
            if is_reply or (
                len(text) < 30 and REPLY_TEXT_RE.match(text) and "permalink" not in text.lower()
            ):
                ps -= 4
            if is_profile and not is_perma:
                ps -= 4
            if ps >= 2 and ps > perma_score:
                perma_score, permalink = ps, href
    if author_node >= 0:
        author = page.text(author_node) or page.el[author_node].get("title")
        if not author:
            imgs = [j for j in range(author_node, page.end[author_node] + 1) if tag[j] == "img"]
            author = page.el[imgs[0]].get("alt") if imgs else None
        author_url = _absolute(page, page.el[author_node].get("href"))
    else:  # a name without a link: an element whose class says author / user
        for root in group:
            for i in range(root, page.end[root] + 1):
                cls = (page.el[i].get("class") or "") + " " + (page.el[i].get("itemprop") or "")
                if (tag[i] == "cite" and not _in_quote(page, i, root)) or (
                    cls.strip() and _name_class(cls)
                ):
                    t = page.text(i)
                    if 0 < len(t) <= 60 and not (pivot >= 0 and page.is_ancestor(i, pivot)):
                        author, author_node = t, i
                        break
            if author:
                break
        if not author:  # FluxBB-style "<div class=postleft><dl><dt><strong>name</strong>"
            for root in group:
                for i in range(root, page.end[root] + 1):
                    if tag[i] not in _NAME_TAGS or (pivot >= 0 and page.is_ancestor(i, pivot)):
                        continue
                    t = page.text(i)
                    if not (0 < len(t) <= 40 and any(ch.isalpha() for ch in t)):
                        continue
                    if _author_zone(_ancestor_classes(page, i, root, 4)) and not _in_quote(
                        page, i, root
                    ):
                        author, author_node = t, i
                        break
                if author:
                    break
    fields["author"] = author
    fields["author_url"] = author_url
    fields["permalink"] = _absolute(page, permalink)
    # ---- body text: the part of the record with the most *weighted* text that holds
    # neither pivot nor author; each leaf counts with the weight of its element, from
    # class hints inherited downwards (content-ish x2, signature / profile chrome x0.15,
    # headings x0.3), so a container is not chosen for the chrome it also holds
    body, body_score = -1, 0.0
    scores: dict[int, float] = {}
    lo, hi = page.leaf_lo, page.leaf_hi
    parent = page.parent
    end = page.end
    leaves, owner = page.leaves, page.leaf_owner
    for root in group:
        weight: dict[int, float] = {}
        order: list[int] = []
        i = root
        stop = end[root]
        while i <= stop:
            if lo[i] == hi[i]:
                i = end[i] + 1  # no text below
                continue
            el = page.el[i]
            wgt = weight.get(parent[i], 1.0) if i != root else 1.0
            hw = None
            if el.attrib and i != root:  # the root's class names the whole post
                hw = _hint_weight(
                    " ".join(filter(None, (el.get("class"), el.get("id"), el.get("itemprop"))))
                )
                if hw is not None:
                    if hw < 1:
                        wgt = hw
                    elif wgt >= 1:  # a "quotecontent" inside a signature stays chrome
                        wgt = max(wgt, hw)
            if tag[i] in _HEADINGS:
                wgt = min(wgt, 0.3)
            elif hw is None and (
                tag[i] == "blockquote" or (el.attrib and _is_quote_hint(el.get("class") or ""))
            ):
                wgt = min(wgt, 0.6)  # quoted text belongs to the post, but is not its own words
            weight[i] = wgt
            order.append(i)
            i += 1
        wtext = dict.fromkeys(order, 0.0)
        for k in range(lo[root], hi[root]):
            o = owner[k]
            if o in wtext:
                wtext[o] += len(leaves[k]) * weight[o]
        for node in reversed(order):  # children before parents: accumulate upwards
            if node != root and parent[node] in wtext:
                wtext[parent[node]] += wtext[node]
        for node in order:
            if pivot >= 0 and node <= pivot <= end[node]:
                continue
            if author_node >= 0 and node <= author_node <= end[node]:
                continue
            sc = wtext[node]
            scores[node] = sc
            if sc > body_score:
                body, body_score = node, sc
    # descend while one child carries most of the body (drops a title or a byline row),
    # but never past a quote: quoted text is part of the post (a post of one quote and one
    # reply line keeps both)
    while body >= 0:
        kids = page.children[body]
        best_c = max(kids, key=lambda c: scores.get(c, 0.0), default=-1)
        if best_c < 0 or scores.get(best_c, 0.0) < 0.85 * scores[body]:
            break
        if any(c != best_c and lo[c] < hi[c] and _is_quote_node(page, c) for c in kids):
            break
        body = best_c
    if body >= 0 and body_score > 0:
        fields["text"] = page.text(body)
    else:
        body = -1
        fields["text"] = page.texts(group)
    return fields, body, author_node


# chrome *around* a post that is no data of the record: profile boxes, signatures, action
# bars, edit notices (narrower than _CHROME_HINT_RE: headers, bylines, meta rows and
# ratings hold the record's own data and stay)
_RECORD_CHROME_RE = re.compile(
    r"signature|(?:^|[\s_-])sig(?:$|[\s_-])|user[-_]*(?:info|details|extras|stats|data)|userinfo|postprofile|"
    r"post-?profile|profile|avatar|post-?foot|footer|buttons|actions|toolbar|controls|share|likes|"
    r"reactions|reputation|badges|lastedit|edited|notice|back2top|backtotop|to-?top|"
    r"(?:^|[\s_-])(?:reply|edit|report|quote)[-_]?link",
    re.I,
)


@lru_cache(maxsize=4096)
def _record_chrome(hint: str) -> bool:
    return bool(_RECORD_CHROME_RE.search(hint))


def _action_link(page: Page, i: int) -> bool:
    """A reply / quote / report link (href pattern, or the whole link text is the action
    word in one of the anchor languages, digest §8.2 table)."""
    href = page.el[i].get("href") or ""
    if href and _href_kind(href)[2]:
        return True
    t = page.text(i)
    return 0 < len(t) < 30 and bool(REPLY_TEXT_RE.match(t))


def _content_text(page: Page, group: tuple[int, ...], keep: tuple[int, ...]) -> str:
    """The record's text without site chrome ([R], digest §3.9 and §1.2: the record is the
    whole post sub-tree; its *text* is the post's data): sub-trees whose class / id name a
    profile box, signature, action bar, footer or edit notice are left out, and so are
    reply / quote / report links (:func:`_action_link`). ``keep`` is
    ``(body, pivot, author...)``: a chrome-named element around the body or the pivot is
    a wrapper, not chrome, and is looked into; one around the author only (a profile box)
    keeps the author's text. Headers, bylines, titles, ratings and quotes stay. Returns "" when nothing would be left (the caller keeps the full text)."""
    end, lo, hi = page.end, page.leaf_lo, page.leaf_hi
    tag = page.tag
    core = tuple(k for k in keep[:2] if k >= 0)  # the body and the pivot
    keep = tuple(k for k in keep if k >= 0)
    parts: list[str] = []
    leaves, owner = page.leaves, page.leaf_owner
    for root in group:
        skip: list[tuple[int, int]] = []
        i = root + 1
        stop = end[root]
        while i <= stop:
            if lo[i] == hi[i]:
                i = end[i] + 1
                continue
            el = page.el[i]
            if tag[i] == "a" and not any(i <= k <= end[i] for k in keep) and _action_link(page, i):
                skip.append((i, end[i], ()))  # "Reply", "Quote", "Report" links
                i = end[i] + 1
                continue
            if el.attrib:
                hint = " ".join(filter(None, (el.get("class"), el.get("id"))))
                if hint and _record_chrome(hint):
                    inside = tuple(k for k in keep if i <= k <= end[i])
                    if not any(k in inside for k in core):
                        # chrome; a profile box holding the author keeps the name only
                        skip.append((i, end[i], inside))
                        i = end[i] + 1
                        continue
                    # a wrapper around the pivot or the body is no chrome: look inside
            i += 1
        if not skip:
            parts.extend(leaves[lo[root] : hi[root]])
            continue
        si = 0
        for k in range(lo[root], hi[root]):
            o = owner[k]
            while si < len(skip) and skip[si][1] < o:
                si += 1
            if (
                si < len(skip)
                and skip[si][0] <= o
                and not any(a <= o <= end[a] for a in skip[si][2])
            ):
                continue
            parts.append(leaves[k])
    return " ".join(p for p in parts if p)


def _body_sig(page: Page, root: int, node: int) -> tuple:
    """Path signature root -> node: (tag, class, id without digits) per step."""
    out = []
    parent = page.parent
    while node != root and node >= 0:
        el = page.el[node]
        out.append((page.tag[node], el.get("class") or "", re.sub(r"\d+", "", el.get("id") or "")))
        node = parent[node]
    out.reverse()
    return tuple(out)


def _follow_sig(page: Page, root: int, sig: tuple) -> int:
    """The node reached from ``root`` along ``sig`` (first matching child per step), -1."""
    node = root
    for tag, cls, ident in sig:
        nxt = -1
        for c in page.children[node]:
            if page.tag[c] != tag:
                continue
            el = page.el[c]
            if (el.get("class") or "") == cls and re.sub(r"\d+", "", el.get("id") or "") == ident:
                nxt = c
                break
        if nxt < 0:
            return -1
        node = nxt
    return node


def _body_consensus(page: Page, groups: list[tuple[int, ...]], bodies: list[int]) -> dict[int, int]:
    """Body nodes agree across the records of a region ([R], §3.9): the template puts the
    post body in the same container in every post. The container is the deepest element
    on the records' body paths (tag, class, id without digits from the record root) that
    >= half of the records (>= 2) share and that has a class or an id (the template's
    part; below it the UGC's own markup varies). A record whose own pick lies outside
    that container (an edit notice chosen over a one-character body, a post number in an
    image-only post) or is a small part of it (a "best answer" box inside a first post
    that has no date of its own) gets the container instead. A pick that holds the
    container, or most of its text, stays. Returns ``{record index: new body node}``."""
    end = page.end
    paths: list[tuple[int, tuple] | None] = []
    counts: dict[tuple, int] = {}
    for g, b in zip(groups, bodies):
        root = next((r for r in g if b >= 0 and r <= b <= end[r]), -1)
        if root < 0 or b == root:
            paths.append(None)
            continue
        pos, sig = g.index(root), _body_sig(page, root, b)
        paths.append((pos, sig))
        for L in range(1, len(sig) + 1):
            if sig[L - 1][1] or sig[L - 1][2]:
                key = (pos, sig[:L])
                counts[key] = counts.get(key, 0) + 1
    need = max(2, 0.5 * len(groups))
    good = [key for key, c in counts.items() if c >= need]
    if not good:
        return {}
    pos, sig = max(good, key=lambda key: (len(key[1]), counts[key]))
    out: dict[int, int] = {}
    for ri, (g, b) in enumerate(zip(groups, bodies)):
        if pos >= len(g):
            continue
        node = _follow_sig(page, g[pos], sig)
        if node < 0 or node == b:
            continue
        if b >= 0 and b <= node <= end[b]:
            continue  # the own pick holds the container: keep the larger body
        if b >= 0 and node <= b <= end[node] and len(page.text(b)) >= 0.5 * len(page.text(node)):
            continue  # most of the container (a title or byline row dropped)
        if _in_quote(page, node, g[pos]):
            continue
        out[ri] = node
    return out


def _is_quote_node(page: Page, i: int) -> bool:
    """A quote block: ``blockquote`` or an element whose class names a quote."""
    if page.tag[i] == "blockquote":
        return True
    el = page.el[i]
    return bool(el.attrib) and _is_quote_hint(el.get("class") or "")


# ------------------------------------------------------------------ extractor
def _confidence(reg: MiBATRegion) -> float:
    m = len(reg.groups)
    sim = sum(reg.sims[1:]) / max(1, m - 1)
    base = 0.55 + 0.45 * min(1.0, (m - 1) / 4.0)
    return max(0.05, min(1.0, base * (0.7 + 0.3 * min(1.0, sim))))


class MiBATExtractor:
    """MiBAT (digest ``mibat.md``): records of user-generated content anchored on a field
    that occurs once per record, the post date by default.

    Options (see :data:`DEFAULTS`): ``measure`` (``"ps"``/``"pm"``), ``tau``,
    ``ps_require_pivot_match``, ``min_anchors``, ``anchors`` (kinds or classifier objects),
    ``combine`` (``"fallback"``/``"union"``), ``max_pivot_text``, ``pure_date_share``,
    ``prefer_nested``, ``first_post_recovery``, ``exact_cells``, ``max_compares``,
    ``time_budget``, ``relative_base``, ``languages``, ``align``, ``fields``,
    ``record_text`` (``"content"``/``"block"``).

    ``extract`` returns every region of Ω that survives the date-only filter; the main
    region (max H2) gets the highest confidence, the others a confidence scaled by their
    H2 relative to it, so :mod:`~scrapy_records.extractors.ranking` keeps the main region first.
    """

    name = "mibat"

    def extract(self, page: Page, **options: Any) -> list[Region]:
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown mibat option(s): {', '.join(sorted(unknown))}")
        opts = {**DEFAULTS, **options}
        if opts["measure"] not in ("ps", "pm"):
            raise TypeError("mibat measure must be 'ps' or 'pm'")
        if opts["combine"] not in ("fallback", "union"):
            raise TypeError("mibat combine must be 'fallback' or 'union'")
        if opts["record_text"] not in ("content", "block"):
            raise TypeError("mibat record_text must be 'content' or 'block'")
        regions, main = self.find(page, **opts)
        return self.to_regions(page, regions, main, opts)

    # -- the algorithm, without Region building (used by is_ugc_page and tests)
    def find(self, page: Page, **opts: Any) -> tuple[list[MiBATRegion], MiBATRegion | None]:
        opts = {**DEFAULTS, **opts}
        if len(page.el) < 3:
            return [], None
        ctx = _Ctx(page, opts)
        deadline = time.perf_counter() + float(opts["time_budget"])
        kinds = opts["anchors"]
        if isinstance(kinds, (str, AnchorClassifier)) or hasattr(kinds, "candidates"):
            kinds = (kinds,)
        anchors = []
        for spec in kinds:
            a = get_anchor(spec)
            if isinstance(spec, str) and spec == "date" and hasattr(a, "max_text"):
                a.max_text = opts["max_pivot_text"]
            anchors.append(a)
        all_regions: list[MiBATRegion] = []
        main = None
        for anchor in anchors:
            regs = _run_kind(page, ctx, anchor, deadline)
            for r in regs:
                r.pure_date = _pure_date_region(page, r, opts["pure_date_share"])
            all_regions.extend(regs)
            if opts["combine"] == "fallback":
                main = _select_main(page, regs, opts)
                if main is not None and len(main.groups) >= 2:
                    all_regions = regs
                    break
        if opts["combine"] == "union":
            all_regions = _merge_union(all_regions)
            main = _select_main(page, all_regions, opts)
        if main is not None and opts["first_post_recovery"]:
            kind = next((a for a in anchors if a.kind == main.kind), anchors[0])
            _recover_first_post(ctx, main, ctx.candidates(kind))
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
        if not regions:
            return []
        links = [i for i, t in enumerate(page.tag) if t == "a"]
        date_cands = dates if dates is not None else None
        if date_cands is None and any(r.kind != "date" for r in regions):
            date_cands = sorted(DateAnchor().candidates(page))
        main_conf = _confidence(main) if main is not None else 0.3
        top_h2 = main.h2 if main is not None and main.h2 > 0 else max(r.h2 for r in regions) or 1.0
        out = []
        for reg in regions:
            is_main = reg is main
            conf = main_conf if is_main else main_conf * min(0.5, reg.h2 / top_h2)
            if reg.kind != "date":
                conf *= 0.9
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
            # field alignment only for the main region: aligning free-form post bodies of
            # secondary regions costs more than the whole of MiBAT
            region = build_region(
                page,
                "mibat",
                reg.parent,
                reg.groups,
                conf,
                meta=meta,
                align=bool(opts["align"]) and (is_main or main is None),
            )
            if opts["fields"] and (is_main or len(reg.groups) <= 200):
                bodies: list[int] = []
                keeps: list[tuple[int, ...]] = []
                for rec, g, pv in zip(region.records, reg.groups, reg.pivots):
                    f, body, author_node = _record_fields(
                        page, g, pv, opts, links, reg.kind, date_cands
                    )
                    rec.fields.update(f)
                    bodies.append(body)
                    keeps.append((pv, author_node))
                for ri, node in _body_consensus(page, reg.groups, bodies).items():
                    bodies[ri] = node
                    region.records[ri].fields["text"] = page.text(node)
                if opts["record_text"] == "content":
                    for rec, g, body, keep in zip(region.records, reg.groups, bodies, keeps):
                        rec.text = _content_text(page, g, (body,) + keep) or rec.text
                _add_columns(region)
            elif opts["record_text"] == "content":  # no fields: keep the pivot only
                for rec, g, pv in zip(region.records, reg.groups, reg.pivots):
                    rec.text = _content_text(page, g, (pv,)) or rec.text
            out.append(region)
        return out


def _add_columns(region: Region) -> None:
    have = {c.name for c in region.columns}
    n = len(region.records) or 1
    for name, typ in (
        ("author", "text"),
        ("author_url", "url"),
        ("date", "date"),
        ("date_raw", "text"),
        ("text", "text"),
        ("permalink", "url"),
    ):
        fill = sum(1 for r in region.records if r.fields.get(name)) / n
        if name in have:
            for c in region.columns:
                if c.name == name:
                    c.type, c.fill, c.evidence = typ, fill, "mibat"
        else:
            region.columns.append(Column(name, typ, fill, None, "mibat"))


def _merge_union(regions: list[MiBATRegion]) -> list[MiBATRegion]:
    """§8.2 "union and select": per parent, overlapping regions keep the one with more
    records; a date region confirmed by an author region with the same (parent, k,
    offset) is marked (agreement boost)."""
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


def _recover_first_post(ctx: _Ctx, main: MiBATRegion, cands: list[int], levels: int = 4) -> None:
    """Post-step for ambiguity #17 (digest §6.2): recover a first post that is styled
    differently or sits under a different parent (the paper's two largest error classes,
    50 of 83 pages, §5.4).

    Looks at sub-trees entirely before the region's first record, inside the region
    parent's ancestor ``levels`` up, that hold a date candidate, share a class token or the
    tag with the seed record, and pass DOMAINCOMPARE against the seed with the region's
    real pivots (root tag and sibling constraints ignored, as the digest says). The
    outermost such sub-tree nearest to the region is prepended (a record may then have a
    root under another parent); ``first_post_recovered`` is set. Only for ``k = 1``.
    """
    page = ctx.page
    if main.k != 1 or not main.real_pivots:
        return
    seed = main.groups[0][0]
    first = seed
    top = main.parent
    for _ in range(levels):
        if page.parent[top] < 0:
            break
        top = page.parent[top]
    seed_cls = set(page.classes(seed))
    seed_tag = page.tag[seed]
    cand_set = set(cands)
    end = page.end
    size = ctx.size
    lo = top + 1
    found = -1
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
        if same_style or _domain_compare(ctx, seed, i, main.real_pivots, cand_set, cands):
            found = i
            # prefer an enclosing sub-tree that also qualifies (the whole post)
            p = page.parent[i]
            while (
                p > top
                and end[p] < first
                and (page.tag[p] == seed_tag or set(page.classes(p)) & seed_cls)
            ):
                if _domain_compare(ctx, seed, p, main.real_pivots, cand_set, cands):
                    found = p
                p = page.parent[p]
            break
        i -= 1
    if found < 0:
        return
    # never take something that already holds a record of another region's list
    main.groups.insert(0, (found,))
    main.anchors.insert(0, -1)
    main.pivots.insert(0, _first_pivot(page, found, cands, main.pivots[0]))
    main.sims.insert(0, 1.0)
    main.recovered_first = True


def _first_pivot(page: Page, root: int, cands: list[int], seed_pivot: int) -> int:
    """The date node of a recovered first post: the candidate looking most like the seed's
    pivot (same tag and classes), skipping membership / edit dates."""
    got = in_sorted(cands, root, page.end[root])
    if not got:
        return -1

    def key(c: int) -> tuple:
        same = seed_pivot >= 0 and page.tag[c] == page.tag[seed_pivot]
        same_cls = seed_pivot >= 0 and page.classes(c) == page.classes(seed_pivot)
        labelled = bool(
            _JOIN_RE.search(page.text(page.parent[c])[:120] if page.parent[c] >= 0 else "")
        )
        return (not same_cls, not same, labelled, c)

    return min(got, key=key)


# ------------------------------------------------------------------ auto routing
_UGC_HINT_RE = re.compile(
    r"post|comment|message|reply|review|author|user|poster|forum|thread|topic|discussion|answer|"
    r"bbp-|quote|avatar|signature|member|byline|kommentar|beitrag|commentaire|comentario|commento|reactie",
    re.I,
)


@lru_cache(maxsize=8192)
def _ugc_hint(hint: str) -> bool:
    return bool(_UGC_HINT_RE.search(hint))


def ugc_evidence(
    page: Page, groups: list[tuple[int, ...]], author_links: list[int] | None = None, scan: int = 80
) -> float:
    """Share of records that look like user posts: a profile link with a name-like text
    (1-40 characters, a letter), or a class / id naming
    posts, comments, reviews, authors... among the first ``scan`` elements of the record
    (digest §8.2 author-link classifier, reused as evidence)."""
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
                    if h.strip() and _ugc_hint(h):
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
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown mibat option(s): {', '.join(sorted(unknown))}")
    opts = {**DEFAULTS, **options}
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
