"""Intersection induction: one wrapper from a single-page extractor's output on several
pages of one template, keeping what holds on all of them.

Entry point: :func:`intersect_induce` (``scrapy_records.induce(pages, extractor="auto")``
or any single-page extractor's name). Options: ``min_fill`` (0.3), ``max_fields`` (40),
``site`` (the first URL's host), ``page_fields`` (True), ``template_id`` (the first page
signature's id), ``regions`` (the extractor's ranked regions per page, when the caller has
them); any other option goes to the extractor.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from lxml import etree

from scrapy_records.api import extract
from scrapy_records.errors import WrapperError
from scrapy_records.extractors.auto import main_threshold_for
from scrapy_records.fields.alignment import align_records
from scrapy_records.fields.naming import best_token
from scrapy_records.fields.text import LABEL_TAGS, xpath_literal
from scrapy_records.fields.values import guess_type
from scrapy_records.page import ZERO_WIDTH, Page, normalize_space
from scrapy_records.results import Region
from scrapy_records.selectors import site_of
from scrapy_records.wrappers.inducers.columns import column_fields, sample
from scrapy_records.wrappers.inducers.page_selectors import PageSelectors, css_matches
from scrapy_records.wrappers.inducers.record_fields import build_fields, slug
from scrapy_records.wrappers.inducers.record_selector import (
    record_candidates,
    record_groups,
    record_layout,
    span_group,
)
from scrapy_records.wrappers.model import FieldSpec, Health, ListSpec, Provenance, RecordSelector
from scrapy_records.wrappers.safe_xpath import compile_xpath
from scrapy_records.wrappers.templates import template_info
from scrapy_records.wrappers.wrapper import Wrapper

#: the records of one page: the node indices of each record
Groups = list[tuple[int, ...]]


_TEXT_NODES = compile_xpath("text()")
_LABEL_TEXT_XP = "following::text()[normalize-space()][not(parent::script or parent::style)][1]"
#: feature selectors every mined column is tried against (as many as alignment's columns)
_FEATURE_CANDIDATES = 100
_HEADING_NAME = {"h1": "title", "h2": "heading", "h3": "heading", "title": "page_title"}


def mined_regions(page: Page, extractor: str, options: dict[str, Any]) -> list[Region]:
    """The regions :func:`scrapy_records.extract` gives (and a crawl emits): the same
    fields, so the wrapper adopts the names the mined records carry (an extractor's own
    fields, e.g. MiBAT's ``date``/``author``/``text``, are not re-aligned). Of a main
    region of many records only :func:`sample` is aligned (what induction reads)."""
    regions = extract(page, extractor=extractor, min_records=2, fields="none", **options).regions
    main = regions[0] if regions else None
    if main is not None and not main.columns and not any(r.fields for r in main.records):
        records = sample(main.records)
        groups = [tuple(r.nodes) for r in records]
        if groups and all(groups):
            main.columns, values = align_records(page, groups)
            for rec, vals in zip(records, values):
                rec.fields = vals
    return regions


# ------------------------------------------------------------------ record selector
def _main_regions(
    pages: Sequence[Page],
    extractor: str,
    regions: Sequence[Sequence[Region]] | None,
    extractor_options: dict[str, Any],
) -> list[Region | None]:
    """Each page's main region: its first region of two records or more. When some pages
    have a main region (confidence at the extractor's main threshold), a page whose best
    region falls below it lists no records of the template (a results page with none, an
    error page): its stray region must not pick the record selector. Likewise a page whose
    main region is ``auto``'s fallback to posts with headlines (``meta["teaser_posts"]``:
    no list was trusted there) when other pages have a list region: the wrapper reads the
    list the other pages show."""
    out: list[Region | None] = []
    for k, p in enumerate(pages):
        ranked = (
            list(regions[k])
            if regions is not None
            else mined_regions(p, extractor, extractor_options)
        )
        ranked = [r for r in ranked if len(r.records) >= 2]
        out.append(ranked[0] if ranked else None)
    threshold = main_threshold_for(extractor)
    if any(r is not None and r.confidence >= threshold for r in out):
        out = [r if r is not None and r.confidence >= threshold else None for r in out]
    if any(r is not None and not r.meta.get("teaser_posts") for r in out):
        out = [None if r is not None and r.meta.get("teaser_posts") else r for r in out]
    return out


def _cross_page_score(
    sels: Sequence[PageSelectors],
    mains: Sequence[Groups],
    xp: str,
    known: dict[int, list[int]] | None = None,
) -> tuple[float, float]:
    """(pages where ``xp`` selects exactly the main records' first nodes, summed Jaccard
    overlap of what it selects with them); a union of absolute paths never generalises.
    ``known``: what ``xp`` selects on some pages (by index), already evaluated."""
    exact: float = 0
    overlap = 0.0
    for pi, (sel, groups) in enumerate(zip(sels, mains)):
        found = known[pi] if known is not None and pi in known else sel.select(xp)
        got = set(found or [])
        want = {g[0] for g in groups}
        if want and got == want:
            exact += 1
        if want or got:
            overlap += len(want & got) / max(1, len(want | got))
    if " | " in xp and len(sels) > 1:
        exact, overlap = exact - 0.5, overlap - 0.5
    return exact, overlap


def _best_record_selector(
    sels: Sequence[PageSelectors], mains: Sequence[Groups]
) -> RecordSelector | None:
    """Over every page's candidates that are exact on that page (robust first), the one
    exact on the most pages, then overlapping most; ties: earlier page, robustness order.
    The first candidate exact on every page with records is that one: the rest are not
    evaluated (none scores higher, none comes earlier)."""
    best: tuple | None = None
    perfect = sum(1 for g in mains if g)
    layouts = [record_layout(s, g) if g else (1, "fixed") for s, g in zip(sels, mains)]
    seen: set[str] = set()
    for pi, (sel, groups) in enumerate(zip(sels, mains)):
        if not groups:
            continue
        firsts = sorted(g[0] for g in groups)
        size, span = layouts[pi]
        for rank, (xp, css) in enumerate(
            record_candidates(sel, firsts, size if span == "fixed" else 1)
        ):
            if xp in seen:
                continue
            seen.add(xp)
            got = sel.select(xp)
            if got is None or sorted(got) != firsts:
                continue
            score = (*_cross_page_score(sels, mains, xp, {pi: got}), -pi, -rank)
            if best is None or score > best[0]:
                best = (score, xp, css, layouts[pi], pi)
            if score[:2] == (perfect, perfect):
                break
        if best is not None and best[0][:2] == (perfect, perfect):
            break
    if best is None:
        return None
    _score, xp, css, (size, span), pi = best
    firsts = sorted(g[0] for g in mains[pi])
    return RecordSelector(xp, css_matches(sels[pi], css, firsts), size, span)


def _selected_records(sels: Sequence[PageSelectors], record: RecordSelector | None) -> list[Groups]:
    """The records the chosen selector selects on each page."""
    if record is None:
        return [[] for _ in sels]
    out = []
    for sel in sels:
        firsts = sorted(sel.select(record.xpath) or [])
        starts = set(firsts)
        out.append([span_group(sel.page, i, record.size, record.span, starts) for i in firsts])
    return out


# ------------------------------------------------------------------ record fields
def _common_fields(
    sels: Sequence[PageSelectors],
    selected: Sequence[Groups],
    size: int,
    min_fill: float,
    max_fields: int,
) -> tuple[list[FieldSpec], dict[str, float], list[ListSpec]]:
    """The fields (same XPath and attribute) and nested lists (same record XPath) found on
    every page with records; fill rates over all sample records."""
    per_page = [
        build_fields(sel, groups, size, min_fill=min_fill, max_fields=max_fields * 2)
        for sel, groups in zip(sels, selected)
        if groups
    ]
    if not per_page:
        return [], {}, []
    keyed = [{(f.xpath, f.attribute): (f, fl[f.name]) for f in fs} for fs, _ls, fl, _v in per_page]
    common = set(keyed[0]).intersection(*keyed[1:])
    list_xpaths = [{x.record.xpath for x in ls} for _fs, ls, _fl, _v in per_page]
    lcommon = list_xpaths[0].intersection(*list_xpaths[1:])
    lists = [x for x in per_page[0][1] if x.record.xpath in lcommon]
    total_records = sum(len(g) for g in selected)
    sizes = [len(g) for g in selected if g]
    fields: list[FieldSpec] = []
    fill: dict[str, float] = {}
    for f in per_page[0][0]:
        key = (f.xpath, f.attribute)
        if key not in common:
            continue
        filled = sum(kd[key][1] * n for kd, n in zip(keyed, sizes))
        rate = filled / total_records if total_records else 0.0
        multiple = any(kd[key][0].multiple for kd in keyed)
        name, k2 = f.name, 0
        while name in fill:
            k2 += 1
            name = f"{f.name}_{k2}"
        fields.append(FieldSpec(name, f.type, f.xpath, f.css, f.attribute, rate < 1.0, multiple))
        fill[name] = rate
    fields = fields[:max_fields]
    return fields, {f.name: fill[f.name] for f in fields}, lists


def _record_fields(
    pages: Sequence[Page],
    sels: Sequence[PageSelectors],
    main_regions: Sequence[Region | None],
    selected: Sequence[Groups],
    record: RecordSelector | None,
    min_fill: float,
    max_fields: int,
) -> tuple[list[FieldSpec], dict[str, float], list[ListSpec]]:
    """The record fields: the mined columns when the main regions have any (the same
    names and values as mining), else the features common to every page."""
    if record is None:
        return [], {}, []
    selected = [sample(groups) for groups in selected]
    if not any(r is not None and r.columns for r in main_regions):
        return _common_fields(sels, selected, record.size, min_fill, max_fields)
    extra = [
        f
        for sel, groups in zip(sels, selected)
        if groups
        # every feature, however rare: a rare column (one sale's end date) whose own path
        # also reads another slot on some page is read by its class selector
        for f in build_fields(
            sel, groups, record.size, min_fill=0.0, max_fields=_FEATURE_CANDIDATES, nested=False
        )[0]
    ]
    fields, fill = column_fields(pages, main_regions, record, Wrapper, extra)
    return fields, fill, []


# ------------------------------------------------------------------ page-level fields
class Intervals:
    """``j in Intervals(ranges)``: is ``j`` inside one of the closed ``(a, b)`` ranges?
    (Merged once, then a binary search: a table of 20,000 records gives 20,000 ranges.)"""

    def __init__(self, ranges: Sequence[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for a, b in sorted(ranges):
            if merged and a <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self.starts = [a for a, _b in merged]
        self.ends = [b for _a, b in merged]

    def __contains__(self, j: int) -> bool:
        k = bisect_right(self.starts, j) - 1
        return k >= 0 and j <= self.ends[k]


def _page_field_features(
    sel: PageSelectors, exclude: Sequence[tuple[int, int]]
) -> dict[tuple[str, str], str]:
    """Page-level leaves outside the records: (kind, anchored positional xpath) -> value."""
    page = sel.page
    out: dict[tuple[str, str], str] = {}
    seen_owner: set[int] = set()
    dup: set[tuple[str, str]] = set()
    inside = Intervals(exclude)
    start = page.body
    end = page.end[start] if page.n else -1
    for q in range(page.leaf_lo[start], page.leaf_hi[start]):
        j = page.leaf_owner[q]
        if j in seen_owner:
            continue
        seen_owner.add(j)
        if j in inside:
            continue
        if j > end:
            continue
        lo, hi = page.leaf_lo[j], page.leaf_hi[j]
        own = sum(1 for k in range(lo, hi) if page.leaf_owner[k] == j)
        xp, _css, _ = sel.path(j)
        items: list[tuple[tuple[str, str], str]] = []
        if own == hi - lo:
            items.append((("text", xp), page.text(j)))
        else:
            # mixed content ("<b>Author:</b> Jane<br><b>Year:</b> 1999"): one field per
            # non-blank text node, by position among the element's text nodes
            for pos, t in enumerate(_TEXT_NODES(page.el[j]), 1):
                t = " ".join(t.split())
                if t:
                    items.append((("own", f"{xp}/text()[{pos}]"), t))
        for key, val in items:
            if key in out:
                dup.add(key)
            out[key] = val
        if len(out) > 3000:
            break
    for k in dup:
        out.pop(k, None)
    return out


def _label_candidates(page: Page) -> dict[str, tuple[int, int]]:
    """Short texts that are the whole text of exactly one element: text -> (leaf, owner)."""
    seen: dict[str, tuple[int, int]] = {}
    dup: set[str] = set()
    leaves, owner = page.leaves, page.leaf_owner
    lo_, hi_ = page.leaf_lo, page.leaf_hi
    for q in range(page.leaf_lo[page.body], page.leaf_hi[page.body]):
        t = leaves[q]
        if len(t) > 40 or not any(ch.isalpha() for ch in t):
            continue
        o = owner[q]
        if hi_[o] - lo_[o] != 1:
            continue
        if t in seen:
            dup.add(t)
        else:
            seen[t] = (q, o)
    for t in dup:
        seen.pop(t, None)
    return seen


#: an unmarked label and its value share an element holding at most this many texts
_LABEL_SPAN = 4


def _reads_as_label(page: Page, leaf: int) -> bool:
    """Whether the short text at ``leaf`` labels the text after it: it ends with a colon, is
    held by a label element (``th``, ``dt``, ``b``...), or shares a small element with it
    (a row of label and value). "In stock" in its own paragraph, followed by the next
    paragraph, is a value that two sample pages happen to share, not that paragraph's label."""
    text = page.leaves[leaf]
    if text.rstrip().endswith((":", "：")) or page.tag[page.leaf_owner[leaf]] in LABEL_TAGS:
        return True
    if leaf + 1 >= len(page.leaves):
        return False  # the page's last text labels nothing
    a, j = page.leaf_owner[leaf], page.leaf_owner[leaf + 1]
    while a >= 0 and not page.is_ancestor(a, j):
        a = page.parent[a]
    return a >= 0 and page.leaf_hi[a] - page.leaf_lo[a] <= _LABEL_SPAN


def _next_leaf(page: Page, leaf: int) -> str | None:
    return page.leaves[leaf + 1] if leaf + 1 < len(page.leaves) else None


def _label_value(
    sel: PageSelectors,
    leaf: int,
    xp: str,
    labels: set[str],
    inside: Intervals,
) -> str | None:
    """The text after the label at ``leaf`` when it is data (not another label, not inside
    a record) and ``xp`` finds exactly it; else None."""
    page = sel.page
    nq = leaf + 1
    if nq >= len(page.leaves):
        return None
    v = page.leaves[nq]
    j = page.leaf_owner[nq]
    if v in labels or j in inside:
        return None
    try:
        found = compile_xpath(xp)(page.root)
    except etree.XPathError:
        return None
    if len(found) != 1 or normalize_space(str(found[0])) != v:
        return None
    return v


def _label_fields(
    sels: Sequence[PageSelectors], ranges: Sequence[Sequence[tuple[int, int]]], limit: int
) -> list[tuple[str, str, list[str]]]:
    """Page fields anchored on template labels: ``(label, xpath, values per page)``.

    A *label* is a short text that is the whole text of exactly one element on every
    sample page (template text, e.g. ``Started:``). The field is the first non-blank text
    after it; it is kept when its value differs between the pages (data) and the XPath
    ``//tag[normalize-space(.)='Started:']/following::text()[...][1]`` reproduces the value
    on every sample page. Robust to layout shifts that break positional paths.
    """
    cands = [_label_candidates(s.page) for s in sels]
    inside = [Intervals(r) for r in ranges]
    common = set(cands[0]).intersection(*cands[1:])
    out = []
    for label in sorted(common, key=lambda t: cands[0][t][0]):
        lit = xpath_literal(label)
        if lit is None:
            continue
        tags = {s.page.tag[cands[k][label][1]] for k, s in enumerate(sels)}
        tag = tags.pop() if len(tags) == 1 else "*"
        # the text after the label must differ between pages (data) before the XPath that
        # must reproduce it is evaluated: most labels are followed by template text
        nexts = {_next_leaf(s.page, cands[k][label][0]) for k, s in enumerate(sels)}
        if len(nexts) < 2 or not all(
            _reads_as_label(s.page, cands[k][label][0]) for k, s in enumerate(sels)
        ):
            continue
        # a label written with an invisible character ("\ufeffColour": the page model reads
        # "Colour") is matched the same way: without it
        raw = [s.page.el[cands[k][label][1]].text or "" for k, s in enumerate(sels)]
        text = "normalize-space(.)"
        if any(z in r for r in raw for z in ZERO_WIDTH):
            text = f"normalize-space(translate(., '{ZERO_WIDTH}', ''))"
        xp = f"//{tag}[{text}={lit}]/{_LABEL_TEXT_XP}"
        vals = []
        for k, sel in enumerate(sels):
            v = _label_value(sel, cands[k][label][0], xp, common, inside[k])
            if v is None:
                break
            vals.append(v)
        if len(vals) == len(sels) and len(set(vals)) > 1:
            out.append((label, xp, vals))
            if len(out) >= limit:
                break
    return out


def _unique(base: str, used: dict[str, int]) -> str:
    used[base] = used.get(base, 0) + 1
    return base if used[base] == 1 else f"{base}_{used[base]}"


def _page_field_name(page: Page, xp: str) -> str:
    """A page field's name: a heading's role (``title``), else the element's class or id
    words (``p.price`` -> ``price``), else its tag."""
    tail = re.findall(r"([a-z0-9]+)(?:\[[^\]]*\])?(?:/text\(\)(?:\[\d+\])?)?$", xp)
    base = tail[0] if tail else "value"
    if base in _HEADING_NAME:
        return _HEADING_NAME[base]
    try:
        found = compile_xpath(xp, smart_strings=True)(page.root)  # (a text's parent)
    except etree.XPathError:
        found = []
    el = found[0] if found else None
    if el is not None and not hasattr(el, "tag"):  # a text node: its element
        el = el.getparent()
    if el is not None and hasattr(el, "get"):
        name = best_token((el.get("class") or "").split() + [el.get("id") or ""])
        if name:
            return name
    return base


def _in_pager(page: Page, xp: str) -> bool:
    """Is the element at ``xp`` one of a pagination's numbers: among siblings of which at
    least two are links whose text is a number ("1 2 3 Next")?"""
    try:
        found = compile_xpath(xp, smart_strings=True)(page.root)  # (a text's parent)
    except etree.XPathError:
        return False
    el = found[0] if len(found) == 1 else None
    if el is not None and not hasattr(el, "tag"):  # a text node: its element
        el = el.getparent()
    parent = el.getparent() if el is not None else None
    if parent is None:
        return False
    numbers = sum(1 for c in parent if c.tag == "a" and (c.text or "").strip().isdigit())
    return numbers >= 2


def _page_level_fields(
    sels: Sequence[PageSelectors], selected: Sequence[Groups], max_fields: int
) -> list[FieldSpec]:
    """Data outside the records that every page holds once, with values that differ between
    pages (the non-list slots of a detail page): label-anchored fields first, then leaves
    by their anchored positional path."""
    ranges = [[(g[0], sel.page.end[g[-1]]) for g in groups] for sel, groups in zip(sels, selected)]
    per = [_page_field_features(sel, r) for sel, r in zip(sels, ranges)]
    common_keys = set(per[0]).intersection(*per[1:])
    used: dict[str, int] = {}
    taken_vals: set[tuple[str, ...]] = set()
    out: list[FieldSpec] = []
    for label, xp, vals in _label_fields(sels, ranges, max_fields):
        name = _unique(slug(label)[:30] or "value", used)
        out.append(FieldSpec(name, guess_type(vals), xp, None, None, False, False))
        taken_vals.add(tuple(vals))
    for kind, xp in (k for k in per[0] if k in common_keys):
        vals = [d[(kind, xp)] for d in per]
        if len(set(vals)) == 1 or tuple(vals) in taken_vals:
            continue  # template text, or already anchored on a label
        if all(v.isdigit() for v in vals) and _in_pager(sels[0].page, xp):
            continue  # a page number of the pagination: navigation, not data
        name = _unique(_page_field_name(sels[0].page, xp), used)
        out.append(FieldSpec(name, guess_type(vals), xp, None, None, False, False))
        if len(out) >= max_fields * 2:
            break
    return out


# ------------------------------------------------------------------ the wrapper
def _json_ready(d: dict[str, Any]) -> dict[str, Any]:
    """Options as JSON values (anything else as its repr)."""
    out = {}
    for k, v in d.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = v
        else:
            out[k] = repr(v)
    return out


def intersect_induce(
    pages: Sequence[Page],
    extractor: str = "auto",
    *,
    min_fill: float = 0.3,
    max_fields: int = 40,
    site: str | None = None,
    page_fields: bool = True,
    template_id: str | None = None,
    regions: Sequence[Sequence[Region]] | None = None,
    **extractor_options: Any,
) -> Wrapper:
    """Induction from single-page extractor output on pages of one template.

    1. Run ``extractor`` on each page; its main region gives that page's records.
    2. Record selector: over every page's verified candidates (robust first), pick the one
       that reproduces exactly the main records on the most pages (ties: robustness order).
    3. Fields: the main regions' aligned columns, each read by the selector that
       reproduces the mined values on every page
       (:func:`~scrapy_records.wrappers.inducers.columns.column_fields`), so wrapped pages
       carry the keys and values mined pages carry; without columns, the features of the
       records kept when they hold on every page with records; fill rates are over all
       sample records.
    4. Page fields (``page_fields=True``, >= 2 pages): data outside the records found once
       on every page with values that differ between pages, first those anchored on a
       template label, then positional ones.

    :raises WrapperError: no records and no page-level data hold on the pages.
    """
    if not pages:
        raise WrapperError("induce() needs at least one page")
    sels = [PageSelectors(p) for p in pages]
    main_regions = _main_regions(pages, extractor, regions, extractor_options)
    mains = [record_groups(p, r) if r is not None else [] for p, r in zip(pages, main_regions)]
    record = _best_record_selector(sels, mains)
    selected = _selected_records(sels, record)
    fields, fill, lists = _record_fields(
        pages, sels, main_regions, selected, record, min_fill, max_fields
    )
    pfields: list[FieldSpec] = []
    if page_fields and len(pages) >= 2:
        pfields = _page_level_fields(sels, selected, max_fields)
    urls = [p.url for p in pages if p.url]
    site = site or site_of(urls[0] if urls else None)
    if record is None and not pfields:
        raise WrapperError(
            f"could not induce a wrapper: extractor {extractor!r} found no records on the "
            f"{len(pages)} page(s) and no page-level data holds on all of them"
        )
    counts = [len(g) for g in selected if g] or [0]
    options = {"min_fill": min_fill, "max_fields": max_fields, "page_fields": page_fields}
    w = Wrapper(
        id=Wrapper.make_id(
            site,
            record.xpath if record else None,
            [f.xpath for f in fields],
            [x.record.xpath for x in lists],
            [f.xpath for f in pfields],
        ),
        record=record,
        fields=fields,
        lists=lists,
        page_fields=pfields,
        site=site,
        template=template_info(pages[0], template_id),
        provenance=Provenance(
            extractor=extractor,
            sample_urls=urls,
            options=_json_ready({**options, **extractor_options}),
        ),
        health=Health(expected_records=(min(counts), max(counts)), fill_rates=fill),
    )
    w.validate()
    return w
