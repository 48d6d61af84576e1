"""Wrapper induction: from extractor output on sample pages to a :class:`~scrapy_records.wrappers.model.Wrapper`.

Entry points
------------
* :func:`induce` ``(pages, extractor="auto", **options) -> Wrapper`` -- ``pages`` are
  ``(url, html or Response)`` pairs, :class:`~scrapy_records.page.Page` objects or raw
  sources, all of one template. The inducer is chosen by ``extractor``:

  - ``"gstm"`` -> ``scrapy_records.extractors.gstm:induce_wrapper`` and ``"dcade"`` ->
    ``scrapy_records.wrappers.inducers.dcade:induce_wrapper`` (multi-page pattern inducers, imported lazily,
    signature ``induce_wrapper(pages: list[Page], **options) -> Wrapper``);
  - ``"auto"`` or any single-page extractor name (``mdr``, ``stem``, ``mibat``...) ->
    :func:`intersect_induce`: run the extractor on every page, take each page's main
    region, keep the record selector and the fields that hold on all pages.
  - more inducers: :func:`register_inducer`.

* :func:`region_wrapper` (also ``Wrapper.from_region(region, page)``): one page, one region.

Selector generation (issue 5 item 2; MDR digest §3.11 "generalized path ... no varying
positional indexes"): candidates are tried robust-first and the first one that selects
*exactly* the extractor's records on the sample page(s) wins:

1. a stable ``id`` anchor (nearest ancestor with an id that is unique on the page and does
   not look generated) followed by class- or tag-based steps,
2. a global class selector ``//li[has-class(item)]``,
3. the parent's path plus the record tag,
4. positional steps (``tr[position() >= 3 and ...]``),
5. the union of the records' absolute XPaths (always exact on the sample, brittle).

Class tokens and ids that look machine generated (CSS-in-JS hashes such as ``css-1x2y3z``,
``sc-bdVaJa``, CSS-module suffixes ``__3xYz1``, long digit runs such as ``post-12345``)
and state classes (``active``, ``selected``...) are never used.

Fields are *features* of the record sub-trees keyed by their non-positional relative path
(tag plus first stable class per step): a text-only element (its text), a mixed element
(its own text nodes, multi-valued), a link (``@href``, type ``url``), an image (``@src``,
type ``image``). A feature becomes a field when it occurs in at least ``min_fill`` of the
records; it is ``optional`` when some record lacks it and ``multiple`` when a record holds it
more than once. Every field XPath is verified: on each sample record it must select exactly
the feature's nodes; a class-less step is tightened to ``tag[not(@class)]`` when the plain
step over-selects.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from lxml import etree

from scrapy_records.api import extract
from scrapy_records.errors import WrapperError
from scrapy_records.fields.values import guess_type
from scrapy_records.page import Page, as_page
from scrapy_records.results import Region
from scrapy_records.wrappers.model import (
    FIELD_TYPES,
    FieldSpec,
    Health,
    ListSpec,
    Provenance,
    RecordSelector,
    TemplateInfo,
)
from scrapy_records.wrappers.selectors import class_predicate, css_ident_ok, stable_id, stable_token
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)


# ------------------------------------------------------------------ page helpers
class _Ctx:
    """Per-page caches used while generating selectors (induction only)."""

    def __init__(self, page: Page):
        self.page = page
        self._ids: dict[str, int] | None = None
        self._elkids: dict[int, list[Any]] = {}
        self._step_counts: dict[int, dict[tuple[str, str | None], int]] = {}

    def id_count(self, v: str) -> int:
        if self._ids is None:
            ids: dict[str, int] = {}
            for e in self.page.el:
                x = e.get("id")
                if x:
                    ids[x] = ids.get(x, 0) + 1
            self._ids = ids
        return self._ids.get(v, 0)

    def stable_classes(self, i: int) -> list[str]:
        return [c for c in self.page.classes(i) if stable_token(c)]

    def first_class(self, i: int) -> str | None:
        for c in self.page.classes(i):
            if stable_token(c):
                return c
        return None

    def el_children(self, p: int) -> list[Any]:
        kids = self._elkids.get(p)
        if kids is None:
            kids = self._elkids[p] = [c for c in self.page.el[p] if isinstance(c.tag, str)]
        return kids

    def el_pos(self, i: int) -> int:
        """1-based position of node i among its parent's element children (XPath ``*[k]``)."""
        p = self.page.parent[i]
        if p < 0:
            return 1
        e = self.page.el[i]
        for k, c in enumerate(self.el_children(p)):
            if c is e:
                return k + 1
        return 1  # pragma: no cover

    def step(self, i: int) -> tuple[str, str]:
        """(xpath step, css step) for node i under its parent: tag, tag+class or tag[k]."""
        page = self.page
        tag = page.tag[i]
        p = page.parent[i]
        if p < 0:
            return tag, tag
        sibs = [j for j in page.children[p] if page.tag[j] == tag]
        if len(sibs) == 1:
            return tag, tag
        mine = self.stable_classes(i)
        for c in mine:
            if not any(c in page.classes(j) for j in sibs if j != i):
                css = f"{tag}.{c}" if css_ident_ok(c) else None
                return f"{tag}[{class_predicate(c)}]", css or ""
        # positional among same-tag element siblings (lxml counts dropped elements of the
        # same tag too: count on the lxml tree)
        e = page.el[i]
        k = 1
        for c in self.el_children(p):
            if c is e:
                break
            if isinstance(c.tag, str) and c.tag.lower() == tag:
                k += 1
        return f"{tag}[{k}]", f"{tag}:nth-of-type({k})"

    def path(self, i: int) -> tuple[str, str | None, bool]:
        """Anchored absolute XPath (and CSS) of node i; third value: anchored by a stable id."""
        page = self.page
        steps: list[tuple[str, str]] = []
        j = i
        anchor = None
        while j >= 0:
            v = page.el[j].get("id")
            if v and stable_id(v) and self.id_count(v) == 1:
                anchor = (page.tag[j], v)
                break
            steps.append(self.step(j))
            j = page.parent[j]
        steps.reverse()
        if anchor is not None:
            tag, v = anchor
            xp = f"//{tag}[@id='{v}']"
            css: str | None = f"{tag}#{v}" if css_ident_ok(v) else None
        else:
            xp = ""
            css = ""
        for sx, sc in steps:
            xp += "/" + sx
            if css is not None:
                css = (css + " > " + sc) if css else sc
                if not sc:
                    css = None
        if anchor is None and css:
            css = css  # absolute from html: "html > body > ..."
        return xp, (css or None), anchor is not None

    def suffixes(self, i: int, max_steps: int = 6) -> list[tuple[str, str | None]]:
        """``//`` + the last m steps of node i's path, m = 1..max_steps (shortest first).

        Robust to changes above the region (an extra banner, a shifted layout table):
        verification on the sample pages keeps only the suffixes that stay exact.
        """
        page = self.page
        steps: list[tuple[str, str]] = []
        j = i
        while j >= 0 and page.tag[j] not in ("body", "html") and len(steps) < max_steps:
            steps.append(self.step(j))
            j = page.parent[j]
        steps.reverse()
        out = []
        for m in range(1, len(steps) + 1):
            part = steps[-m:]
            xp = "//" + "/".join(sx for sx, _ in part)
            css = " > ".join(sc for _, sc in part) if all(sc for _, sc in part) else None
            out.append((xp, css))
        return out

    def select(self, xp: str, ctx: Any = None) -> list[int] | None:
        """Evaluate xp on the page (or ctx element); indices, or None if anything is off-page."""
        try:
            found = (ctx if ctx is not None else self.page.root).xpath(xp)
        except etree.XPathError:
            return None
        if not isinstance(found, list):
            return None
        out = []
        for e in found:
            if not isinstance(e, etree._Element):
                return None
            try:
                out.append(self.page.index(e))
            except KeyError:
                return None
        return out


def _css_matches(ctx: _Ctx, css: str | None, expect: list[int]) -> str | None:
    if not css:
        return None
    try:
        from parsel.csstranslator import HTMLTranslator

        xp = HTMLTranslator().css_to_xpath(css)
    except Exception:
        return None
    got = ctx.select(xp)
    return css if got is not None and sorted(got) == sorted(expect) else None


# --------------------------------------------------------------- record selector
def _record_groups(page: Page, region: Region) -> list[tuple[int, ...]]:
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


def record_layout(ctx: _Ctx, groups: Sequence[Sequence[int]]) -> tuple[int, str]:
    """``(size, span)`` of the records (see :class:`~scrapy_records.wrappers.model.RecordSelector`).

    ``(g, "fixed")`` when every record is g adjacent element siblings (MDR's generalized
    node); ``(longest, "until_next")`` when every record is a run of adjacent siblings
    but the runs differ in length (a trailing separator the last record lacks, an optional
    line); ``(1, "fixed")`` otherwise (records under several parents keep their first
    element only).
    """
    if not groups:
        return 1, "fixed"
    page = ctx.page
    contiguous = True
    for grp in groups:
        p = page.parent[grp[0]]
        if any(page.parent[x] != p for x in grp):
            return 1, "fixed"
        pos = [ctx.el_pos(x) for x in grp]
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


def _span_group(page: Page, i: int, size: int, span: str, starts: set[int]) -> tuple[int, ...]:
    """The record starting at node ``i`` under a record selector of ``size``/``span``."""
    if size <= 1 or page.parent[i] < 0:
        return (i,)
    kids = page.children[page.parent[i]]
    if i not in kids:
        return (i,)
    at = kids.index(i)
    grp = [i]
    for j in kids[at + 1 : at + size]:
        if span == "until_next" and j in starts:
            break
        grp.append(j)
    return tuple(grp)


def record_candidates(
    ctx: _Ctx, firsts: Sequence[int], size: int = 1
) -> list[tuple[str, str | None]]:
    """Record XPath candidates (robust first) for record first-nodes ``firsts`` (see module doc)."""
    page = ctx.page
    if not firsts:
        return []
    tags = {page.tag[i] for i in firsts}
    tag = page.tag[firsts[0]] if len(tags) == 1 else "*"
    common: list[str] = []
    if tag != "*":
        sets = [set(ctx.stable_classes(i)) for i in firsts]
        inter = set.intersection(*sets) if sets else set()
        common = [c for c in ctx.stable_classes(firsts[0]) if c in inter]
    parents = {page.parent[i] for i in firsts}
    out: list[tuple[str, str | None]] = []
    glob = [
        (f"//{tag}[{class_predicate(c)}]", f"{tag}.{c}" if css_ident_ok(c) else None)
        for c in common
    ]
    if len(parents) == 1:
        p = next(iter(parents))
        pxp, pcss, by_id = ctx.path(p)
        local = [
            (
                f"{pxp}/{tag}[{class_predicate(c)}]",
                f"{pcss} > {tag}.{c}" if pcss and css_ident_ok(c) else None,
            )
            for c in common
        ]
        plain = [(f"{pxp}/{tag}", f"{pcss} > {tag}" if pcss and tag != "*" else None)]
        pos = sorted(ctx.el_pos(i) for i in firsts)
        a, b = pos[0], pos[-1]
        step = size
        cond = None
        if all(pos[k + 1] - pos[k] == step for k in range(len(pos) - 1)):
            cond = f"position() >= {a} and position() <= {b}"
            if step > 1:
                cond += f" and (position() - {a}) mod {step} = 0"
        rsteps = [
            (f"{tag}[{class_predicate(c)}]", f"{tag}.{c}" if css_ident_ok(c) else None)
            for c in common
        ]
        rsteps.append((tag, tag if tag != "*" else None))
        if cond:
            rsteps.append((f"*[{cond}]", None))
        suffix = []
        if not by_id:
            for sxp, scss in ctx.suffixes(p):
                for rxp, rcss in rsteps:
                    suffix.append((f"{sxp}/{rxp}", f"{scss} > {rcss}" if scss and rcss else None))
        if by_id:
            out += local + plain + glob
        else:
            out += glob + local + suffix + plain
        if cond:
            out.append((f"{pxp}/*[{cond}]", None))
    else:
        # records under several parents: the lowest common ancestor + a relative path
        anc = firsts[0]
        while anc >= 0 and not all(page.is_ancestor(anc, i) for i in firsts):
            anc = page.parent[anc]
        if anc >= 0:
            axp, acss, by_id = ctx.path(anc)
            out += [
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
                    c = ctx.first_class(j)
                    steps.append(f"{page.tag[j]}[{class_predicate(c)}]" if c else page.tag[j])
                    j = page.parent[j]
                rels.add("/".join(reversed(steps)))
            if len(rels) == 1:
                out.append((f"{axp}/{rels.pop()}", None))
            out.append((f"{axp}//{tag}", f"{acss} {tag}" if acss and tag != "*" else None))
        out += glob
    out.append((" | ".join(page.xpath(i) for i in firsts), None))
    seen = set()
    uniq = []
    for xp, css in out:
        if xp not in seen:
            seen.add(xp)
            uniq.append((xp, css))
    return uniq


def choose_record_selector(
    ctx: _Ctx, firsts: Sequence[int], size: int = 1
) -> RecordSelector | None:
    """The first candidate selecting exactly ``firsts`` on the page (verified)."""
    want = sorted(firsts)
    for xp, css in record_candidates(ctx, firsts, size):
        got = ctx.select(xp)
        if got is not None and sorted(got) == want:
            return RecordSelector(xp, _css_matches(ctx, css, want), size)
    return None


# ------------------------------------------------------------------------ fields
class _Feature:
    __slots__ = ("kind", "key", "name_hint", "order", "per_record", "values", "multi")

    def __init__(self, kind: str, key: tuple, name_hint: str, order: tuple):
        self.kind = kind
        self.key = key
        self.name_hint = name_hint
        self.order = order
        self.per_record: dict[int, list[int]] = {}
        self.values: list[str] = []
        self.multi = False


def _same_tag_pos(page: Page, j: int) -> tuple[int, int]:
    """(1-based position among same-tag siblings, number of same-tag siblings)."""
    p = page.parent[j]
    if p < 0:
        return 1, 1
    t = page.tag[j]
    k = n = 0
    for c in page.children[p]:
        if page.tag[c] == t:
            n += 1
            if c == j:
                k = n
    return k, n


def _same_step_count(ctx: _Ctx, j: int, c: str | None) -> int:
    """Number of siblings of j (itself included) with the same tag and first stable class."""
    page = ctx.page
    p = page.parent[j]
    if p < 0:
        return 1
    cnt = ctx._step_counts.get(p)
    if cnt is None:
        cnt = ctx._step_counts[p] = {}
        for x in page.children[p]:
            key = (page.tag[x], ctx.first_class(x))
            cnt[key] = cnt.get(key, 0) + 1
    return cnt.get((page.tag[j], c), 0)


def _features(
    ctx: _Ctx,
    groups: Sequence[Sequence[int]],
    size: int,
    elems: dict[tuple, dict[int, list[int]]] | None = None,
) -> dict[tuple, _Feature]:
    """Features of the records (module docstring); key = (kind, offset, relative path).

    A relative path step is ``(tag, first stable class, position)``. The position (among
    same-tag siblings, the class then dropped) is used only when the parent holds the same
    number (>= 2) of siblings with that tag and class in every record -- a fixed layout
    such as the cells of a table row -- so variable-length repeats stay one multi-valued
    field.
    """
    page = ctx.page
    tag, parent, owner = page.tag, page.parent, page.leaf_owner
    roots_of = [list(grp[:size]) if size > 1 else [grp[0]] for grp in groups]
    # pass 1: same-tag sibling counts of class-less steps, by coarse (position-free) key
    counts: dict[tuple, set[int]] = {}
    for roots in roots_of:
        for k, r in enumerate(roots):
            coarse: dict[int, tuple] = {r: (k,)}
            for j in range(r + 1, page.end[r] + 1):
                pj = parent[j]
                if pj not in coarse:
                    continue
                c = ctx.first_class(j)
                coarse[j] = coarse[pj] + ((tag[j], c),)
                counts.setdefault(coarse[j], set()).add(_same_step_count(ctx, j, c))
    fixed = {key for key, ns in counts.items() if len(ns) == 1 and next(iter(ns)) >= 2}
    feats: dict[tuple, _Feature] = {}
    for rno, roots in enumerate(roots_of):
        for k, r in enumerate(roots):
            rel: dict[int, tuple] = {r: ()}
            coarse = {r: (k,)}
            for j in range(r, page.end[r] + 1):
                if j != r:
                    pj = parent[j]
                    if pj not in rel:  # folded / unexpected: skip
                        continue
                    c = ctx.first_class(j)
                    coarse[j] = coarse[pj] + ((tag[j], c),)
                    if coarse[j] in fixed:  # fixed layout: tag[k], the class adds nothing
                        rel[j] = rel[pj] + ((tag[j], None, _same_tag_pos(page, j)[0]),)
                    else:
                        rel[j] = rel[pj] + ((tag[j], c, 0),)
                key = rel[j]
                if elems is not None and j != r:
                    elems.setdefault((k, key), {}).setdefault(rno, []).append(j)
                lo, hi = page.leaf_lo[j], page.leaf_hi[j]
                found = []
                if lo < hi:
                    own = [q for q in range(lo, hi) if owner[q] == j]
                    if own:
                        found.append("text" if len(own) == hi - lo else "own")
                t = tag[j]
                el = page.el[j]
                if t == "a" and (el.get("href") or "").strip():
                    found.append("href")
                elif t == "img" and (el.get("src") or "").strip():
                    found.append("src")
                for kind in found:
                    fk = (kind, k, key)
                    f = feats.get(fk)
                    if f is None:
                        hint = el.get("itemprop") or (key[-1][1] if key and key[-1][1] else "")
                        f = feats[fk] = _Feature(kind, key, hint, (k, j - r, kind))
                    else:
                        o = (k, j - r, kind)
                        if o < f.order:
                            f.order = o
                    lst = f.per_record.setdefault(rno, [])
                    lst.append(j)
                    if len(lst) > 1:
                        f.multi = True
    return feats


def _field_xpaths(ctx: _Ctx, f: _Feature, offset: int) -> list[str]:
    """Candidate relative XPaths of a feature: plain steps, then class-less steps tightened."""

    def build(tight: bool) -> str:
        base = _key_xpath(f.key, offset, tight)
        if f.kind == "own":
            base += "/text()"
        return base

    plain = build(False)
    tight = build(True)
    return [plain] if plain == tight else [plain, tight]


def _field_css(f: _Feature, offset: int) -> str | None:
    if offset:
        return None
    parts = []
    for t, c, pos in f.key:
        if c and not css_ident_ok(c):
            return None
        parts.append(f"{t}.{c}" if c else (f"{t}:nth-of-type({pos})" if pos else t))
    sel = " > ".join(parts)
    if f.kind == "href":
        return (sel + "::attr(href)") if sel else "::attr(href)"
    if f.kind == "src":
        return (sel + "::attr(src)") if sel else "::attr(src)"
    if f.kind == "own":
        return (sel + "::text") if sel else "::text"
    return sel or None


def _verify_field(ctx: _Ctx, xp: str, f: _Feature, groups: Sequence[Sequence[int]]) -> float:
    """Share of records where xp selects exactly the feature's nodes (text() kinds: parents)."""
    page = ctx.page
    ok = 0
    try:
        compiled = etree.XPath(xp.removesuffix("/text()") if f.kind == "own" else xp)
    except etree.XPathSyntaxError:
        return 0.0
    for rno, grp in enumerate(groups):
        want = sorted(f.per_record.get(rno, []))
        try:
            got_el = compiled(page.el[grp[0]])
        except etree.XPathError:
            continue
        got = []
        bad = False
        for e in got_el:
            if not isinstance(e, etree._Element):
                bad = True
                break
            try:
                got.append(page.index(e))
            except KeyError:
                bad = True
                break
        if f.kind in ("href", "src"):
            attr = "href" if f.kind == "href" else "src"
            got = [g for g in got if (page.el[g].get(attr) or "").strip()]
        elif f.kind == "own":
            got = [g for g in got if page.own_text(g)]
        else:
            got = [g for g in got if page.text(g)]
        if not bad and sorted(got) == want:
            ok += 1
    return ok / len(groups) if groups else 0.0


_KIND_NAME = {"href": "url", "src": "image"}
_TAG_NAME = {
    "h1": "title",
    "h2": "title",
    "h3": "title",
    "h4": "title",
    "a": "link_text",
    "img": "image",
    "time": "date",
    "p": "text",
    "span": "text",
    "td": "cell",
}


def _slug(s: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]+", "_", s).strip("_").lower()
    return s or "field"


def _key_xpath(key: tuple, offset: int, tight: bool = False) -> str:
    steps = []
    for t, c, pos in key:
        if c:
            steps.append(f"{t}[{class_predicate(c)}]")
        elif pos:
            steps.append(f"{t}[{pos}]")
        else:
            steps.append(f"{t}[not(@class)]" if tight else t)
    base = "/".join(steps)
    if offset:
        base = f"following-sibling::*[{offset}]" + ("/" + base if base else "")
    return base or "."


def _key_css(key: tuple, offset: int) -> str | None:
    if offset:
        return None
    parts = []
    for t, c, pos in key:
        if c and not css_ident_ok(c):
            return None
        parts.append(f"{t}.{c}" if c else (f"{t}:nth-of-type({pos})" if pos else t))
    return " > ".join(parts) or None


def _nested_lists(
    ctx: _Ctx,
    groups: Sequence[Sequence[int]],
    feats: dict[tuple, _Feature],
    elems: dict[tuple, dict[int, list[int]]],
    *,
    min_fill: float,
    max_fields: int,
    depth: int,
) -> tuple[list[ListSpec], set[tuple]]:
    """Nested lists: repeated sub-structures of the records (issue 5 item 2).

    A *container* is an element key (relative path) that occurs at least twice inside
    some record, in at least ``min_fill`` of the records, and whose instances hold at least
    two distinct features (otherwise a multi-valued field says it all). Only outermost
    containers are kept; their instances become the records of a :class:`ListSpec`
    (fields built recursively), and the features under them leave the top level.
    Returns the lists and the feature keys they absorbed.
    """
    n = len(groups)
    if depth >= 3 or not n:
        return [], set()
    cands = []
    for (k, key), per in elems.items():
        if not key or len(per) / n < min_fill or max(len(v) for v in per.values()) < 2:
            continue
        under = [fk for fk, f in feats.items() if fk[1] == k and f.key[: len(key)] == key]
        if len(under) < 2:
            continue
        cands.append((k, key, per, under))
    cands = [
        c
        for c in cands
        if not any(
            o is not c and o[0] == c[0] and len(o[1]) < len(c[1]) and c[1][: len(o[1])] == o[1]
            for o in cands
        )
    ]
    cands.sort(key=lambda c: (c[0], min(min(v) for v in c[2].values())))
    lists: list[ListSpec] = []
    absorbed: set[tuple] = set()
    used: dict[str, int] = {}
    for k, key, per, under in cands[:8]:
        offset = 0
        if k:
            grp = groups[0]
            offset = ctx.el_pos(grp[k]) - ctx.el_pos(grp[0])
        want = {rno: sorted(v) for rno, v in per.items()}
        best = None
        for tight in (False, True):
            xp = _key_xpath(key, offset, tight)
            ok = 0
            for rno, grp in enumerate(groups):
                got = ctx.select(xp, ctx.page.el[grp[0]])
                if got is not None and sorted(got) == want.get(rno, []):
                    ok += 1
            if best is None or ok > best[1]:
                best = (xp, ok)
            if ok == n:
                break
        if best is None or best[1] < 0.8 * n:
            continue
        instances = [(j,) for rno in sorted(per) for j in sorted(per[rno])]
        fields, sub_lists, _fill, _ver = build_fields(
            ctx, instances, 1, min_fill=min_fill, max_fields=max_fields, _depth=depth + 1
        )
        if not fields and not sub_lists:
            continue
        last = key[-1]
        base = (
            _slug(last[1])
            if last[1]
            else {"li": "items", "tr": "rows", "dd": "items"}.get(last[0], last[0] + "s")
        )
        used[base] = used.get(base, 0) + 1
        name = base if used[base] == 1 else f"{base}_{used[base]}"
        lists.append(
            ListSpec(
                name,
                RecordSelector(
                    best[0],
                    _key_css(key, offset) if best[0] == _key_xpath(key, offset) else None,
                    1,
                ),
                fields,
                sub_lists,
                optional=len(per) < n,
            )
        )
        absorbed.update(under)
    return lists, absorbed


def build_fields(
    ctx: _Ctx,
    groups: Sequence[Sequence[int]],
    size: int,
    *,
    min_fill: float = 0.3,
    max_fields: int = 40,
    nested: bool = True,
    _depth: int = 0,
) -> tuple[list[FieldSpec], list[ListSpec], dict[str, float], dict[str, float]]:
    """Fields and nested lists of the records: ``(fields, lists, fill_rates, verified share)``."""
    n = len(groups)
    elems: dict[tuple, dict[int, list[int]]] | None = {} if nested else None
    feats = _features(ctx, groups, size, elems)
    lists: list[ListSpec] = []
    if nested and elems:
        lists, absorbed = _nested_lists(
            ctx, groups, feats, elems, min_fill=min_fill, max_fields=max_fields, depth=_depth
        )
        feats = {fk: f for fk, f in feats.items() if fk not in absorbed}
    kept = [f for f in feats.values() if n and len(f.per_record) / n >= min_fill]
    kept.sort(key=lambda f: (-len(f.per_record), f.order))
    kept = kept[:max_fields]
    kept.sort(key=lambda f: f.order)
    out: list[FieldSpec] = []
    fill: dict[str, float] = {}
    verified: dict[str, float] = {}
    used: dict[str, int] = {}
    page = ctx.page
    for f in kept:
        offset = f.order[0]
        if offset:
            # lxml element offset of the k-th root from the first (dropped tags count there)
            # (a record long enough to hold it: with span "until_next" lengths differ)
            grp = next(g for g in groups if len(g) > offset)
            offset = ctx.el_pos(grp[offset]) - ctx.el_pos(grp[0])
        best_xp, best_v = None, -1.0
        for xp in _field_xpaths(ctx, f, offset):
            v = _verify_field(ctx, xp, f, groups)
            if v > best_v:
                best_xp, best_v = xp, v
            if v >= 1.0:
                break
        if best_xp is None or best_v <= 0.0:
            continue
        last_tag = f.key[-1][0] if f.key else page.tag[groups[0][offset and 0]]
        base = _slug(f.name_hint) if f.name_hint else _TAG_NAME.get(last_tag, last_tag)
        if f.kind in _KIND_NAME:
            base = base + "_" + _KIND_NAME[f.kind] if f.name_hint else _KIND_NAME[f.kind]
        elif f.kind == "own":
            base += "_text" if not base.endswith("text") else ""
        used[base] = used.get(base, 0) + 1
        name = base if used[base] == 1 else f"{base}_{used[base]}"
        while name in fill:
            used[base] += 1
            name = f"{base}_{used[base]}"
        if f.kind == "href":
            ftype, attr = "url", "href"
        elif f.kind == "src":
            ftype, attr = "image", "src"
        else:
            attr = None
            sample = []
            for rno, nodes in list(f.per_record.items())[:50]:
                for j in nodes[:1]:
                    sample.append(page.own_text(j) if f.kind == "own" else page.text(j))
            ftype = guess_type(sample)
        fr = len(f.per_record) / n
        out.append(
            FieldSpec(
                name=name,
                type=ftype,
                xpath=best_xp,
                css=_field_css(f, offset) if best_xp == _field_xpaths(ctx, f, offset)[0] else None,
                attribute=attr,
                optional=fr < 1.0,
                multiple=f.multi or f.kind == "own",
            )
        )
        fill[name] = fr
        verified[name] = best_v
    taken = {f.name for f in out}
    for x in lists:
        while x.name in taken:
            x.name += "_list"
        taken.add(x.name)
    return out, lists, fill, verified


# --------------------------------------------------------------- one region
def _site_of(url: str | None) -> str | None:
    if not url:
        return None
    host = urlsplit(url).hostname
    return host or None


def region_wrapper(
    region: Region,
    page: Any,
    *,
    min_fill: float = 0.3,
    max_fields: int = 40,
    site: str | None = None,
    extractor: str | None = None,
    template_id: str | None = None,
) -> Wrapper:
    """``Wrapper.from_region``: a verified wrapper for ``region``'s records on ``page``.

    :param min_fill: a feature becomes a field when at least this share of records has it.
    :param max_fields: keep at most this many fields (the most frequent).
    :param site: site key (default: the page URL's host).
    :param extractor: provenance (default: ``region.extractor``).
    :param template_id: the template cluster id to store (default: the page signature's id).
    :raises WrapperError: the region has no records that resolve on the page.
    """
    page = as_page(page)
    ctx = _Ctx(page)
    groups = _record_groups(page, region)
    if not groups:
        raise WrapperError("cannot build a wrapper: the region has no records on this page")
    size, span = record_layout(ctx, groups)
    firsts = [g[0] for g in groups]
    rec = choose_record_selector(ctx, firsts, size if span == "fixed" else 1)
    if rec is None:  # pragma: no cover - the union candidate is always exact
        raise WrapperError("no record selector reproduces the region's records")
    rec.size, rec.span = size, span
    fields, lists, fill, verified = build_fields(
        ctx, groups, size, min_fill=min_fill, max_fields=max_fields
    )
    site = site or _site_of(page.url)
    n = len(groups)
    w = Wrapper(
        id=Wrapper.make_id(
            site, rec.xpath, [f.xpath for f in fields], [x.record.xpath for x in lists]
        ),
        record=rec,
        fields=fields,
        lists=lists,
        site=site,
        template=_template_info(page, template_id),
        provenance=Provenance(
            extractor=extractor or region.extractor,
            sample_urls=[page.url] if page.url else [],
            options={"min_fill": min_fill, "max_fields": max_fields},
        ),
        health=Health(expected_records=(n, n), fill_rates=fill),
    )
    if region.columns:
        _adopt_column_names(w, region, page)
    w.validate()
    return w


def _adopt_column_names(w: Wrapper, region: Region, page: Page, min_agree: float = 0.8) -> None:
    """Name the wrapper's fields as the extractor named its columns (same values).

    The wrapper is applied to its own sample page; a field whose values equal a column's
    values on at least ``min_agree`` of the records holding either takes that column's
    name (and type, when it is a wrapper type), so ``wrapper.extract`` and
    ``scrapy_records.extract`` emit the same keys. Greedy, best agreement first.
    """
    res = w._compile().apply(page.root, page.url, page)
    got = res.regions[0].records if res.regions else []
    if len(got) != len(region.records):
        return
    pairs = []
    for f in w.fields:
        fv = [r.fields.get(f.name) for r in got]
        for c in region.columns:
            cv = [r.fields.get(c.name) for r in region.records]
            either = sum(1 for a, b in zip(fv, cv) if a is not None or b is not None)
            if not either:
                continue
            same = sum(1 for a, b in zip(fv, cv) if a is not None and str(a) == str(b))
            if same / either >= min_agree:
                pairs.append((same / either, f.name, c))
    # best agreement first; on a tie a field keeps a column of its own name ("text" and the
    # aligner's "field_3" can hold the same values: the extractor's own name wins)
    pairs.sort(key=lambda x: (-x[0], x[2].name != x[1]))
    renamed: dict[str, tuple[str, str]] = {}
    taken_cols: set[str] = set()
    for _score, fname, col in pairs:
        if fname in renamed or col.name in taken_cols:
            continue
        renamed[fname] = (col.name, col.type)
        taken_cols.add(col.name)
    if not renamed:
        return
    final = {f.name for f in w.fields if f.name not in renamed} | {n for n, _t in renamed.values()}
    if len(final) != len(w.fields):
        return  # a clash with a field keeping its own name: keep the wrapper's names
    fill = {}
    for f in w.fields:
        old = f.name
        if old in renamed:
            f.name, ctype = renamed[old]
            if (
                ctype in FIELD_TYPES
                and ctype != f.type
                and not (f.attribute and ctype not in ("url", "image"))
            ):
                f.type = ctype
        fill[f.name] = w.health.fill_rates.get(old, 1.0)
    w.health.fill_rates = fill
    w._compiled = None
    _add_raw_companions(w, region, page, taken_cols | final, min_agree)


def _add_raw_companions(
    w: Wrapper, region: Region, page: Page, taken: set[str], min_agree: float
) -> None:
    """MiBAT's records carry ``date`` (ISO) *and* ``date_raw`` (the text as written): give
    a typed field ``<name>`` a text twin ``<name>_raw`` when the region has that column and
    the twin's values agree with it, so wrapper pages emit the same keys as mined ones."""
    by_name = {c.name: c for c in region.columns}
    twins = []
    for f in w.fields:
        raw = f"{f.name}_raw"
        if f.type in ("date", "number", "price") and raw in by_name and raw not in taken:
            twins.append(
                FieldSpec(
                    name=raw,
                    type="text",
                    xpath=f.xpath,
                    css=f.css,
                    attribute=f.attribute,
                    optional=f.optional,
                    multiple=f.multiple,
                )
            )
    if not twins:
        return
    w.fields.extend(twins)
    w._compiled = None
    res = w._compile().apply(page.root, page.url, page)
    got = res.regions[0].records if res.regions else []
    keep = []
    for t in twins:
        fv = [r.fields.get(t.name) for r in got]
        cv = [r.fields.get(t.name) for r in region.records]
        either = sum(1 for a, b in zip(fv, cv) if a is not None or b is not None)
        same = sum(1 for a, b in zip(fv, cv) if a is not None and str(a) == str(b))
        if len(got) == len(region.records) and either and same / either >= min_agree:
            keep.append(t)
            base = t.name[: -len("_raw")]
            w.health.fill_rates[t.name] = w.health.fill_rates.get(base, 1.0)
    w.fields = [f for f in w.fields if f not in twins or f in keep]
    w._compiled = None


def _template_info(page: Page, template_id: str | None = None) -> TemplateInfo:
    """The sample page's signature; ``id`` is ``template_id`` (e.g. from a
    :class:`~scrapy_records.wrappers.templates.TemplateGrouper`) or the signature's own id."""
    try:
        from scrapy_records.wrappers.templates import page_signature

        sig = page_signature(page)
        return TemplateInfo(
            id=template_id or sig.template_id, method=sig.method, signature=list(sig.sketch)
        )
    except ImportError:
        return TemplateInfo()


# ------------------------------------------------------------- several pages
def _looks_url(x: Any) -> bool:
    return (
        isinstance(x, str) and len(x) < 4096 and "<" not in x and ("://" in x or x.startswith("/"))
    )


def as_pages(pages: Iterable[Any], page_options: dict[str, Any]) -> list[Page]:
    out = []
    for p in pages:
        if isinstance(p, Page):
            out.append(p)
        elif isinstance(p, tuple) and len(p) == 2:
            url, src = p
            if url is not None and _looks_url(src) and not _looks_url(url):
                url, src = src, url  # (html, url) given: accept both orders
            out.append(as_page(src, url, **page_options))
        else:
            out.append(as_page(p, None, **page_options))
    return out


def _page_field_features(
    ctx: _Ctx, exclude: Sequence[tuple[int, int]]
) -> dict[tuple[str, str], str]:
    """Page-level leaves outside the records: (kind, anchored positional xpath) -> value."""
    page = ctx.page
    out: dict[tuple[str, str], str] = {}
    seen_owner: set[int] = set()
    dup: set[tuple[str, str]] = set()
    ranges = sorted(exclude)
    start = page.body
    end = page.end[start] if page.n else -1
    for q in range(page.leaf_lo[start], page.leaf_hi[start]):
        j = page.leaf_owner[q]
        if j in seen_owner:
            continue
        seen_owner.add(j)
        if any(a <= j <= b for a, b in ranges):
            continue
        if j > end:
            continue
        lo, hi = page.leaf_lo[j], page.leaf_hi[j]
        own = sum(1 for k in range(lo, hi) if page.leaf_owner[k] == j)
        xp, _css, _ = ctx.path(j)
        items: list[tuple[tuple[str, str], str]] = []
        if own == hi - lo:
            items.append((("text", xp), page.text(j)))
        else:
            # mixed content ("<b>Author:</b> Jane<br><b>Year:</b> 1999"): one field per
            # non-blank text node, by position among the element's text nodes
            for pos, t in enumerate(page.el[j].xpath("text()"), 1):
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


_LABEL_TEXT_XP = "following::text()[normalize-space()][not(parent::script or parent::style)][1]"


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


def _xp_literal(s: str) -> str | None:
    if "'" not in s:
        return f"'{s}'"
    if '"' not in s:
        return f'"{s}"'
    return None


def _label_fields(
    ctxs: Sequence[_Ctx], ranges: Sequence[Sequence[tuple[int, int]]], limit: int
) -> list[tuple[str, str, list[str]]]:
    """Page fields anchored on template labels (DCADE digest §8.2 "landmarks").

    A *label* is a short text that is the whole text of exactly one element on every
    sample page (template text, e.g. ``Started:``). The field is the first non-blank text
    after it; it is kept when its value differs between the pages (data) and the XPath
    ``//tag[normalize-space(.)='Started:']/following::text()[...][1]`` reproduces the value
    on every sample page. Robust to layout shifts that break positional paths.
    Returns ``(label, xpath, values per page)``.
    """
    cands = [_label_candidates(c.page) for c in ctxs]
    common = set(cands[0])
    for c in cands[1:]:
        common &= set(c)
    out = []
    labels = sorted(common, key=lambda t: cands[0][t][0])
    for label in labels:
        lit = _xp_literal(label)
        if lit is None:
            continue
        vals = []
        ok = True
        tags = {c.page.tag[cands[k][label][1]] for k, c in enumerate(ctxs)}
        tag = tags.pop() if len(tags) == 1 else "*"
        xp = f"//{tag}[normalize-space(.)={lit}]/{_LABEL_TEXT_XP}"
        for k, ctx in enumerate(ctxs):
            page = ctx.page
            q, _o = cands[k][label]
            nq = q + 1
            if nq >= len(page.leaves):
                ok = False
                break
            v = page.leaves[nq]
            j = page.leaf_owner[nq]
            if v in common or any(a <= j <= b for a, b in ranges[k]):
                ok = False
                break
            try:
                found = page.root.xpath(xp)
            except etree.XPathError:
                ok = False
                break
            if len(found) != 1 or " ".join(str(found[0]).split()) != v:
                ok = False
                break
            vals.append(v)
        if ok and len(set(vals)) > 1:
            out.append((label, xp, vals))
            if len(out) >= limit:
                break
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
    """Induction from single-page extractor output on pages of one template (issue 5 item 3).

    1. Run ``extractor`` on each page; its main region gives that page's records.
    2. Record selector: over every page's verified candidates (robust first), pick the one
       that reproduces exactly the main records on the most pages (ties: robustness order).
    3. Fields: the features of the records the chosen selector selects, per page; a field
       is kept when it holds on every page that has records (``optional`` if some record
       lacks it); fill rates are over all sample records.
    4. Page fields (``page_fields=True``, >= 2 pages): leaves outside the records whose
       anchored path occurs once on every page with a value that differs between pages
       (data, not template text) -- the non-list slots of a detail page; first those
       anchored on a template label (:func:`_label_fields`), then positional ones.

    ``template_id`` is stored in ``wrapper.template.id`` (default: the first page's
    signature id, see :mod:`scrapy_records.wrappers.templates`). ``regions``: the extractor's ranked
    regions per page when the caller already has them (they are not computed again).
    """
    if not pages:
        raise WrapperError("induce() needs at least one page")
    ctxs = [_Ctx(p) for p in pages]
    mains: list[list[tuple[int, ...]]] = []
    main_regions: list[Region | None] = []
    for k, p in enumerate(pages):
        page_regions = (
            list(regions[k])
            if regions is not None
            else mined_regions(p, extractor, extractor_options)
        )
        page_regions = [r for r in page_regions if len(r.records) >= 2]
        mains.append(_record_groups(p, page_regions[0]) if page_regions else [])
        main_regions.append(page_regions[0] if page_regions else None)
    # ---- record selector
    best: tuple | None = None
    layouts = [record_layout(c, g) if g else (1, "fixed") for c, g in zip(ctxs, mains)]
    sizes = [sz if sp == "fixed" else 1 for sz, sp in layouts]
    cand_seen: set[str] = set()
    for pi, (ctx, groups) in enumerate(zip(ctxs, mains)):
        if not groups:
            continue
        firsts = sorted(g[0] for g in groups)
        for rank_, (xp, css) in enumerate(record_candidates(ctx, firsts, sizes[pi])):
            if xp in cand_seen:
                continue
            cand_seen.add(xp)
            got = ctx.select(xp)
            if got is None or sorted(got) != firsts:
                continue
            exact = 0
            overlap = 0.0
            for c2, g2 in zip(ctxs, mains):
                sel = c2.select(xp) or []
                want = {g[0] for g in g2}
                if want and set(sel) == want:
                    exact += 1
                if want or sel:
                    overlap += len(want & set(sel)) / max(1, len(want | set(sel)))
            if " | " in xp and len(pages) > 1:
                exact, overlap = (
                    exact - 0.5,
                    overlap - 0.5,
                )  # a union of absolute paths never generalises
            score = (exact, overlap, -pi, -rank_)
            if best is None or score > best[0]:
                best = (score, xp, css, layouts[pi], pi)
    record = None
    fields: list[FieldSpec] = []
    fill: dict[str, float] = {}
    lists: list[ListSpec] = []
    counts: list[int] = []
    selected: list[list[tuple[int, ...]]] = [[] for _ in pages]
    if best is not None:
        _score, xp, css, (size, span), pi = best
        record = RecordSelector(
            xp, _css_matches(ctxs[pi], css, sorted(g[0] for g in mains[pi])), size, span
        )
        per_page = []
        for k, ctx in enumerate(ctxs):
            sel = sorted(ctx.select(xp) or [])
            starts = set(sel)
            groups = [_span_group(ctx.page, i, size, span, starts) for i in sel]
            selected[k] = groups
            counts.append(len(groups))
            if groups:
                per_page.append(
                    build_fields(ctx, groups, size, min_fill=min_fill, max_fields=max_fields * 2)
                )
        # intersection by (xpath, attribute)
        if per_page:
            keyed = [
                {(f.xpath, f.attribute): (f, fl[f.name]) for f in fs}
                for fs, _ls, fl, _v in per_page
            ]
            # nested lists: those whose record selector holds on every page
            lkeyed = [{x.record.xpath: x for x in ls} for _fs, ls, _fl, _v in per_page]
            lcommon = set(lkeyed[0])
            for kd in lkeyed[1:]:
                lcommon &= set(kd)
            lists = [x for x in per_page[0][1] if x.record.xpath in lcommon]
            common = set(keyed[0])
            for kd in keyed[1:]:
                common &= set(kd)
            total_records = sum(len(g) for g in selected)
            names: set[str] = set()
            for fs, _ls, fl, _v in per_page[:1]:
                for f in fs:
                    key = (f.xpath, f.attribute)
                    if key not in common:
                        continue
                    filled = 0.0
                    k2 = 0
                    for kd, groups in zip(keyed, [g for g in selected if g]):
                        filled += kd[key][1] * len(groups)
                    rate = filled / total_records if total_records else 0.0
                    multiple = any(kd[key][0].multiple for kd in keyed)
                    name = f.name
                    while name in names:
                        k2 += 1
                        name = f"{f.name}_{k2}"
                    names.add(name)
                    fields.append(
                        FieldSpec(name, f.type, f.xpath, f.css, f.attribute, rate < 1.0, multiple)
                    )
                    fill[name] = rate
            fields = fields[:max_fields]
            fill = {f.name: fill[f.name] for f in fields}
    # ---- page-level fields (detail pages)
    pfields: list[FieldSpec] = []
    if page_fields and len(pages) >= 2:
        per = []
        for ctx, groups in zip(ctxs, selected):
            ranges = [(g[0], ctx.page.end[g[-1]]) for g in groups]
            per.append(_page_field_features(ctx, ranges))
        common_keys = set(per[0])
        for d in per[1:]:
            common_keys &= set(d)
        order = [k for k in per[0] if k in common_keys]
        used: dict[str, int] = {}
        taken_vals: set[tuple[str, ...]] = set()
        all_ranges = [
            [(g[0], ctx.page.end[g[-1]]) for g in groups] for ctx, groups in zip(ctxs, selected)
        ]
        for label, xp, vals in _label_fields(ctxs, all_ranges, max_fields):
            base = _slug(label)[:30] or "value"
            used[base] = used.get(base, 0) + 1
            name = base if used[base] == 1 else f"{base}_{used[base]}"
            pfields.append(FieldSpec(name, guess_type(vals), xp, None, None, False, False))
            taken_vals.add(tuple(vals))
        for kind, xp in order:
            vals = [d[(kind, xp)] for d in per]
            if len(set(vals)) == 1 or tuple(vals) in taken_vals:
                continue  # template text, or already anchored on a label
            ftype = guess_type(vals)
            tail = re.findall(r"([a-z0-9]+)(?:\[[^\]]*\])?(?:/text\(\)(?:\[\d+\])?)?$", xp)
            base = tail[0] if tail else "value"
            base = {"h1": "title", "h2": "heading", "h3": "heading", "title": "page_title"}.get(
                base, base
            )
            used[base] = used.get(base, 0) + 1
            name = base if used[base] == 1 else f"{base}_{used[base]}"
            pfields.append(FieldSpec(name, ftype, xp, None, None, False, False))
            if len(pfields) >= max_fields * 2:
                break
    urls = [p.url for p in pages if p.url]
    site = site or _site_of(urls[0] if urls else None)
    if record is None and not pfields:
        raise WrapperError(
            f"could not induce a wrapper: extractor {extractor!r} found no records on the "
            f"{len(pages)} page(s) and no page-level data holds on all of them"
        )
    nonzero = [c for c in counts if c] or [0]
    w = Wrapper(
        id=Wrapper.make_id(
            site,
            record.xpath if record else None,
            [f.xpath for f in fields],
            [x.record.xpath for x in lists],
            [f.xpath for f in pfields],
        ),
        record=record,
        fields=fields if record else [],
        lists=lists if record else [],
        page_fields=pfields,
        site=site,
        template=_template_info(pages[0], template_id),
        provenance=Provenance(
            extractor=extractor,
            sample_urls=urls,
            options=_json_ready(
                {
                    "min_fill": min_fill,
                    "max_fields": max_fields,
                    "page_fields": page_fields,
                    **extractor_options,
                }
            ),
        ),
        health=Health(expected_records=(min(nonzero), max(nonzero)), fill_rates=fill),
    )
    if record is not None:
        for page, region in zip(pages, main_regions):
            if region is not None and region.columns:
                _adopt_column_names(w, region, page)  # the extractor's names, when values agree
                break
    w.validate()
    return w


def mined_regions(page: Page, extractor: str, options: dict[str, Any]) -> list[Region]:
    """The regions :func:`scrapy_records.extract` gives (and a crawl emits): the same
    fields, so the wrapper adopts the names the mined records carry (an extractor's own
    fields, e.g. MiBAT's ``date``/``author``/``text``, are not re-aligned)."""
    return extract(page, extractor=extractor, min_records=2, **options).regions


def _json_ready(d: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = v
        else:
            out[k] = repr(v)
    return out
