"""The record selector of a region: how its records lie under their parent (size, span) and
the XPath that selects each record's first element, chosen robust-first and verified.

A record of several adjacent siblings is MDR's generalized node (Liu et al. 2003, section
3.3). The first candidate that selects exactly the extractor's records on the page wins.
For records under one parent:

1. with an ancestor whose id is stable and unique on the page: that id anchor plus the
   record's class step at any depth below it, then as its child, then plus the record tag,
   then global class selectors (``//li[has-class(item)]``);
2. without one: global class selectors, the parent's path plus a class step, the last
   steps of the parent's path plus the record step (robust to changes above the region),
   the parent's path plus the record tag;
3. positional steps (``*[position() >= 3 and ...]``) when the records are evenly spaced.

Records under several parents get their lowest common ancestor's path plus a class step,
their shared relative path or the tag at any depth, then global class selectors. Last
comes the union of the records' absolute XPaths (always exact on the sample, brittle).

Class tokens and ids that look machine generated, and state classes, are never used
(:mod:`scrapy_records.selectors`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from lxml import etree

from scrapy_records.page import Page
from scrapy_records.results import Region
from scrapy_records.selectors import class_predicate, css_ident_ok
from scrapy_records.wrappers.inducers.page_selectors import PageSelectors, css_matches
from scrapy_records.wrappers.model import RecordSelector
from scrapy_records.wrappers.safe_xpath import allowed_xpath

#: an XPath candidate and its CSS twin (None: not expressible in CSS)
Candidate = tuple[str, str | None]


def record_groups(page: Page, region: Region) -> list[tuple[int, ...]]:
    """The node indices of each record of ``region`` on ``page``."""
    groups = [tuple(r.nodes) for r in region.records if r.nodes]
    if len(groups) != len(region.records):  # records rebuilt from JSON: resolve XPaths
        groups = []
        for r in region.records:
            g = []
            for x in r.xpaths:
                try:
                    found = page.root.xpath(x)
                except etree.XPathError:
                    found = []
                if found and isinstance(found[0], etree._Element):
                    try:
                        g.append(page.index(found[0]))
                    except KeyError:
                        pass
            if g:
                groups.append(tuple(sorted(g)))
    return groups


def record_layout(sel: PageSelectors, groups: Sequence[Sequence[int]]) -> tuple[int, str]:
    """``(size, span)`` of the records (see :class:`~scrapy_records.wrappers.model.RecordSelector`).

    ``(g, "fixed")`` when every record is g adjacent element siblings (MDR's generalized
    node); ``(longest, "until_next")`` when every record is a run of adjacent siblings
    but the runs differ in length (a trailing separator the last record lacks, an optional
    line); ``(1, "fixed")`` otherwise (records under several parents keep their first
    element only).
    """
    if not groups:
        return 1, "fixed"
    page = sel.page
    contiguous = True
    for grp in groups:
        p = page.parent[grp[0]]
        if any(page.parent[x] != p for x in grp):
            return 1, "fixed"
        pos = [sel.el_pos(x) for x in grp]
        if pos != list(range(pos[0], pos[0] + len(grp))):
            contiguous = False
    lengths = {len(g) for g in groups}
    if contiguous and len(lengths) == 1:
        return lengths.pop(), "fixed"
    # runs of siblings, possibly with gaps (an extractor may leave inline <b>/<i> siblings
    # out of a record): each record spans from its first element to its last one, and
    # the records follow each other under one parent
    p = page.parent[groups[0][0]]
    if p < 0 or any(page.parent[g[0]] != p for g in groups):
        return (max(lengths), "until_next") if contiguous else (1, "fixed")
    index = {c: k for k, c in enumerate(page.children[p])}
    spans = sorted((index[g[0]], index[g[-1]]) for g in groups)
    if any(b >= spans[k + 1][0] for k, (_a, b) in enumerate(spans[:-1])):
        return 1, "fixed"  # interleaved records: keep their first elements only
    return max(b - a + 1 for a, b in spans), "until_next"


def span_group(page: Page, i: int, size: int, span: str, starts: set[int]) -> tuple[int, ...]:
    """The record starting at node ``i`` under a record selector of ``size``/``span``."""
    if size <= 1 or page.parent[i] < 0:
        return (i,)
    kids = page.children[page.parent[i]]
    at = bisect_left(kids, i)  # (children are in pre-order: sorted)
    if at == len(kids) or kids[at] != i:
        return (i,)
    grp = [i]
    for j in kids[at + 1 : at + size]:
        if span == "until_next" and j in starts:
            break
        grp.append(j)
    return tuple(grp)


def record_candidates(sel: PageSelectors, firsts: Sequence[int], size: int = 1) -> list[Candidate]:
    """Record XPath candidates, robust first (module docstring), for the records whose first
    nodes are ``firsts`` and which are ``size`` siblings long."""
    page = sel.page
    if not firsts:
        return []
    tags = {page.tag[i] for i in firsts}
    tag = page.tag[firsts[0]] if len(tags) == 1 else "*"
    common: list[str] = []
    if tag != "*":  # the stable classes every record has, in the first record's order
        inter = set.intersection(*[set(sel.stable_classes(i)) for i in firsts])
        common = [c for c in sel.stable_classes(firsts[0]) if c in inter]
    glob = [
        (f"//{tag}[{class_predicate(c)}]", f"{tag}.{c}" if css_ident_ok(c) else None)
        for c in common
    ]
    parents = {page.parent[i] for i in firsts}
    if len(parents) == 1:
        out = _one_parent(sel, firsts, next(iter(parents)), tag, common, glob, size)
    else:
        out = _common_ancestor(sel, firsts, tag, common) + glob
    union = " | ".join(page.xpath(i) for i in firsts)
    if allowed_xpath(union):  # (not hundreds of deep paths: a wrapper may not hold it)
        out.append((union, None))
    seen = set()
    uniq = []
    for xp, css in out:
        if xp not in seen:
            seen.add(xp)
            uniq.append((xp, css))
    return uniq


def _one_parent(
    sel: PageSelectors,
    firsts: Sequence[int],
    p: int,
    tag: str,
    common: list[str],
    glob: list[Candidate],
    size: int,
) -> list[Candidate]:
    """Candidates for records under one parent ``p``: its path plus a class, tag or
    position step; without an id anchor, class selectors and path suffixes come first."""
    pxp, pcss, by_id = sel.path(p)
    local = [
        (
            f"{pxp}/{tag}[{class_predicate(c)}]",
            f"{pcss} > {tag}.{c}" if pcss and css_ident_ok(c) else None,
        )
        for c in common
    ]
    plain = [(f"{pxp}/{tag}", f"{pcss} > {tag}" if pcss and tag != "*" else None)]
    # the records' positions among the element children, when evenly spaced
    pos = sorted(sel.el_pos(i) for i in firsts)
    a, b = pos[0], pos[-1]
    cond = None
    if all(pos[k + 1] - pos[k] == size for k in range(len(pos) - 1)):
        cond = f"position() >= {a} and position() <= {b}"
        if size > 1:
            cond += f" and (position() - {a}) mod {size} = 0"
    out: list[Candidate]
    if by_id:
        # under the id anchor at any depth first: a page of the template may wrap the
        # records in one more element (a lazy-loading block) and they are still its
        anchored = [
            (
                f"{pxp}//{tag}[{class_predicate(c)}]",
                f"{pcss} {tag}.{c}" if pcss and css_ident_ok(c) else None,
            )
            for c in common
        ]
        out = anchored + local + plain + glob
    else:
        out = glob + local + _suffixes(sel, p, tag, common, cond) + plain
    if cond:
        out.append((f"{pxp}/*[{cond}]", None))
    return out


def _suffixes(
    sel: PageSelectors, p: int, tag: str, common: list[str], cond: str | None
) -> list[Candidate]:
    """The last steps of the parent's path (shortest first) times each record step."""
    rsteps: list[Candidate] = [
        (f"{tag}[{class_predicate(c)}]", f"{tag}.{c}" if css_ident_ok(c) else None) for c in common
    ]
    rsteps.append((tag, tag if tag != "*" else None))
    if cond:
        rsteps.append((f"*[{cond}]", None))
    out: list[Candidate] = []
    for sxp, scss in sel.suffixes(p):
        for rxp, rcss in rsteps:
            out.append((f"{sxp}/{rxp}", f"{scss} > {rcss}" if scss and rcss else None))
    return out


def _common_ancestor(
    sel: PageSelectors, firsts: Sequence[int], tag: str, common: list[str]
) -> list[Candidate]:
    """Candidates for records under several parents: their lowest common ancestor's path
    plus a class step, the records' shared relative path, or the tag at any depth."""
    page = sel.page
    anc = firsts[0]
    while anc >= 0 and not all(page.is_ancestor(anc, i) for i in firsts):
        anc = page.parent[anc]
    if anc < 0:
        return []
    axp, acss, _by_id = sel.path(anc)
    out: list[Candidate] = [
        (
            f"{axp}//{tag}[{class_predicate(c)}]",
            f"{acss} {tag}.{c}" if acss and css_ident_ok(c) else None,
        )
        for c in common
    ]
    rels = set()
    for i in firsts:
        steps = []
        j = i
        while j != anc:
            c = sel.first_class(j)
            steps.append(f"{page.tag[j]}[{class_predicate(c)}]" if c else page.tag[j])
            j = page.parent[j]
        rels.add("/".join(reversed(steps)))
    if len(rels) == 1:
        out.append((f"{axp}/{rels.pop()}", None))
    out.append((f"{axp}//{tag}", f"{acss} {tag}" if acss and tag != "*" else None))
    return out


def choose_record_selector(
    sel: PageSelectors, firsts: Sequence[int], size: int = 1
) -> RecordSelector | None:
    """The first candidate selecting exactly ``firsts`` on the page (verified)."""
    want = sorted(firsts)
    for xp, css in record_candidates(sel, firsts, size):
        got = sel.select(xp)
        if got is not None and sorted(got) == want:
            return RecordSelector(xp, css_matches(sel, css, want), size)
    return None
