"""The fields and nested lists of a region's records, as selectors relative to each record's
first element, verified on the sample records.

Fields are *features* of the record sub-trees keyed by their non-positional relative path
(tag plus first stable class per step): a text-only element (its text), a mixed element
(its own text nodes, multi-valued), a link (``@href``, type ``url``), an image (``@src``,
type ``image``). A feature becomes a field when it occurs in at least ``min_fill`` of the
records; it is ``optional`` when some record lacks it and ``multiple`` when a record holds
it more than once. Every field XPath is verified: on each sample record it must select
exactly the feature's nodes; a class-less step is tightened to ``tag[not(@class)]`` when
the plain step over-selects. Repeated sub-structures of the records become nested lists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml import etree

from scrapy_records.fields.values import guess_type
from scrapy_records.page import Page
from scrapy_records.selectors import class_predicate, css_ident_ok, tag_step
from scrapy_records.wrappers.inducers.page_selectors import PageSelectors
from scrapy_records.wrappers.model import FieldSpec, ListSpec, RecordSelector
from scrapy_records.wrappers.safe_xpath import compile_xpath

#: a relative path inside a record: (tag, first stable class, position among same-tag
#: siblings or 0) per step
Key = tuple[tuple[str, str | None, int], ...]

_KIND_NAME = {"href": "url", "src": "image"}
_KIND_CSS = {"href": "::attr(href)", "src": "::attr(src)", "own": "::text"}
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
_LIST_NAME = {"li": "items", "tr": "rows", "dd": "items"}
#: lists nest at most this deep inside a record
_MAX_LIST_DEPTH = 3


class Feature:
    """A candidate field: one kind of value at one relative path, with its nodes per record."""

    __slots__ = ("kind", "key", "name_hint", "order", "per_record", "values", "multi")

    def __init__(self, kind: str, key: Key, name_hint: str, order: tuple[int, int, str]):
        self.kind = kind  # "text", "own" (an element's own text nodes), "href" or "src"
        self.key = key
        self.name_hint = name_hint
        self.order = order  # (record root, offset in the record, kind): document order
        self.per_record: dict[int, list[int]] = {}
        self.values: list[str] = []
        self.multi = False


def slug(s: str) -> str:
    """``s`` as a field name: ASCII letters, digits and underscores."""
    s = re.sub(r"[^A-Za-z0-9_]+", "_", s).strip("_").lower()
    return s or "field"


def _same_tag_pos(page: Page, j: int) -> int:
    """1-based position of node j among its same-tag siblings, as XPath counts it."""
    return page.sibling_position(j)[0]


def _fixed_steps(sel: PageSelectors, roots_of: list[list[int]]) -> set[tuple]:
    """Coarse (position-free) paths whose parent holds the same number (>= 2) of such
    siblings in every record: a fixed layout, such as the cells of a table row."""
    page = sel.page
    tag, parent = page.tag, page.parent
    counts: dict[tuple, set[int]] = {}
    for roots in roots_of:
        for k, r in enumerate(roots):
            coarse: dict[int, tuple] = {r: (k,)}
            for j in range(r + 1, page.end[r] + 1):
                pj = parent[j]
                if pj not in coarse:
                    continue
                c = sel.first_class(j)
                coarse[j] = coarse[pj] + ((tag[j], c),)
                counts.setdefault(coarse[j], set()).add(sel.same_step_count(j, c))
    return {key for key, ns in counts.items() if len(ns) == 1 and next(iter(ns)) >= 2}


def _features(
    sel: PageSelectors,
    groups: Sequence[Sequence[int]],
    size: int,
    elems: dict[tuple, dict[int, list[int]]] | None = None,
) -> dict[tuple, Feature]:
    """Features of the records (module docstring); key = (kind, root, relative path).

    A step keeps its position among same-tag siblings (and drops the class) only in a fixed
    layout (:func:`_fixed_steps`), so variable-length repeats stay one multi-valued field.
    ``elems`` collects the elements at each (root, path) per record, for nested lists.
    """
    page = sel.page
    tag, parent, owner = page.tag, page.parent, page.leaf_owner
    roots_of = [list(grp[:size]) if size > 1 else [grp[0]] for grp in groups]
    fixed = _fixed_steps(sel, roots_of)
    feats: dict[tuple, Feature] = {}
    for rno, roots in enumerate(roots_of):
        for k, r in enumerate(roots):
            rel: dict[int, Key] = {r: ()}
            coarse: dict[int, tuple] = {r: (k,)}
            for j in range(r, page.end[r] + 1):
                if j != r:
                    pj = parent[j]
                    if pj not in rel:  # folded / unexpected: skip
                        continue
                    c = sel.first_class(j)
                    coarse[j] = coarse[pj] + ((tag[j], c),)
                    if coarse[j] in fixed:  # fixed layout: tag[k], the class adds nothing
                        rel[j] = rel[pj] + ((tag[j], None, _same_tag_pos(page, j)),)
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
                        f = feats[fk] = Feature(kind, key, hint, (k, j - r, kind))
                    else:
                        o = (k, j - r, kind)
                        if o < f.order:
                            f.order = o
                    lst = f.per_record.setdefault(rno, [])
                    lst.append(j)
                    if len(lst) > 1:
                        f.multi = True
    return feats


def _key_xpath(key: Key, offset: int, tight: bool = False) -> str:
    """Relative XPath of a key from the record's first element (``offset`` siblings on)."""
    steps = []
    for tag, c, pos in key:
        t = tag_step(tag)  # a tag XPath cannot spell ("class=x" in broken markup)
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


def _key_css(key: Key, offset: int) -> str | None:
    """CSS of a key (``""`` for the record element itself); None when not expressible."""
    if offset:
        return None
    parts = []
    for t, c, pos in key:
        if (c and not css_ident_ok(c)) or not css_ident_ok(t):
            return None
        parts.append(f"{t}.{c}" if c else (f"{t}:nth-of-type({pos})" if pos else t))
    return " > ".join(parts)


def _field_xpaths(f: Feature, offset: int) -> list[str]:
    """Candidate relative XPaths of a feature: plain steps, then class-less steps tightened."""
    suffix = "/text()" if f.kind == "own" else ""
    plain = _key_xpath(f.key, offset, False) + suffix
    tight = _key_xpath(f.key, offset, True) + suffix
    return [plain] if plain == tight else [plain, tight]


def _field_css(f: Feature, offset: int) -> str | None:
    sel = _key_css(f.key, offset)
    if sel is None:
        return None
    return sel + _KIND_CSS.get(f.kind, "") or None


def _verify_field(
    sel: PageSelectors, xp: str, f: Feature, groups: Sequence[Sequence[int]]
) -> float:
    """Share of records where xp selects exactly the feature's nodes (text() kinds: parents)."""
    page = sel.page
    ok = 0
    try:
        compiled = compile_xpath(xp.removesuffix("/text()") if f.kind == "own" else xp)
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


# ------------------------------------------------------------------ nested lists
def _list_containers(
    feats: dict[tuple, Feature], elems: dict[tuple, dict[int, list[int]]], n: int, min_fill: float
) -> list[tuple[int, Key, dict[int, list[int]], list[tuple]]]:
    """Outermost element keys that repeat inside records and hold two features or more:
    ``(root, key, elements per record, feature keys under it)``, in document order."""
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
    return cands


def _list_xpath(
    sel: PageSelectors,
    key: Key,
    offset: int,
    per: dict[int, list[int]],
    groups: Sequence[Sequence[int]],
) -> tuple[str, int] | None:
    """The container's XPath (plain, else tightened) and on how many records it is exact."""
    want = {rno: sorted(v) for rno, v in per.items()}
    best = None
    for tight in (False, True):
        xp = _key_xpath(key, offset, tight)
        ok = 0
        for rno, grp in enumerate(groups):
            got = sel.select(xp, sel.page.el[grp[0]])
            if got is not None and sorted(got) == want.get(rno, []):
                ok += 1
        if best is None or ok > best[1]:
            best = (xp, ok)
        if ok == len(groups):
            break
    return best


def _nested_lists(
    sel: PageSelectors,
    groups: Sequence[Sequence[int]],
    feats: dict[tuple, Feature],
    elems: dict[tuple, dict[int, list[int]]],
    *,
    min_fill: float,
    max_fields: int,
    depth: int,
) -> tuple[list[ListSpec], set[tuple]]:
    """Nested lists: repeated sub-structures of the records.

    A *container* is an element key (relative path) that occurs at least twice inside
    some record, in at least ``min_fill`` of the records, and whose instances hold at least
    two distinct features (otherwise a multi-valued field says it all). Only outermost
    containers are kept; their instances become the records of a :class:`ListSpec`
    (fields built recursively), and the features under them leave the top level.
    Returns the lists and the feature keys they absorbed.
    """
    n = len(groups)
    if depth >= _MAX_LIST_DEPTH or not n:
        return [], set()
    lists: list[ListSpec] = []
    absorbed: set[tuple] = set()
    used: dict[str, int] = {}
    for k, key, per, under in _list_containers(feats, elems, n, min_fill)[:8]:
        offset = 0
        if k:
            grp = groups[0]
            offset = sel.el_pos(grp[k]) - sel.el_pos(grp[0])
        best = _list_xpath(sel, key, offset, per, groups)
        if best is None or best[1] < 0.8 * n:
            continue
        instances = [(j,) for rno in sorted(per) for j in sorted(per[rno])]
        fields, sub_lists, _fill, _ver = build_fields(
            sel, instances, 1, min_fill=min_fill, max_fields=max_fields, depth=depth + 1
        )
        if not fields and not sub_lists:
            continue
        last = key[-1]
        base = slug(last[1]) if last[1] else _LIST_NAME.get(last[0], last[0] + "s")
        used[base] = used.get(base, 0) + 1
        name = base if used[base] == 1 else f"{base}_{used[base]}"
        css = (_key_css(key, offset) or None) if best[0] == _key_xpath(key, offset) else None
        record = RecordSelector(best[0], css, 1)
        lists.append(ListSpec(name, record, fields, sub_lists, optional=len(per) < n))
        absorbed.update(under)
    return lists, absorbed


# ------------------------------------------------------------------ fields
def _kept_features(
    feats: dict[tuple, Feature], n: int, min_fill: float, max_fields: int
) -> list[Feature]:
    """The ``max_fields`` most frequent features filled in ``min_fill`` of the records,
    in document order."""
    kept = [f for f in feats.values() if n and len(f.per_record) / n >= min_fill]
    kept.sort(key=lambda f: (-len(f.per_record), f.order))
    kept = kept[:max_fields]
    kept.sort(key=lambda f: f.order)
    return kept


def _best_xpath(
    sel: PageSelectors, f: Feature, offset: int, groups: Sequence[Sequence[int]]
) -> tuple[str | None, float]:
    """The candidate XPath exact on the most records, and that share."""
    best_xp, best_v = None, -1.0
    for xp in _field_xpaths(f, offset):
        v = _verify_field(sel, xp, f, groups)
        if v > best_v:
            best_xp, best_v = xp, v
        if v >= 1.0:
            break
    return best_xp, best_v


def _field_name(f: Feature, root_tag: str, used: dict[str, int], taken: dict[str, float]) -> str:
    """A name from the feature's itemprop or class, else its tag and kind; unique."""
    last_tag = f.key[-1][0] if f.key else root_tag
    base = slug(f.name_hint) if f.name_hint else _TAG_NAME.get(last_tag, last_tag)
    if f.kind in _KIND_NAME:
        base = base + "_" + _KIND_NAME[f.kind] if f.name_hint else _KIND_NAME[f.kind]
    elif f.kind == "own":
        base += "_text" if not base.endswith("text") else ""
    used[base] = used.get(base, 0) + 1
    name = base if used[base] == 1 else f"{base}_{used[base]}"
    while name in taken:
        used[base] += 1
        name = f"{base}_{used[base]}"
    return name


def _field_type(page: Page, f: Feature) -> tuple[str, str | None]:
    """``(type, attribute)``: links and images read an attribute, texts guess their type."""
    if f.kind == "href":
        return "url", "href"
    if f.kind == "src":
        return "image", "src"
    sample = []
    for nodes in list(f.per_record.values())[:50]:
        for j in nodes[:1]:
            sample.append(page.own_text(j) if f.kind == "own" else page.text(j))
    return guess_type(sample), None


def build_fields(
    sel: PageSelectors,
    groups: Sequence[Sequence[int]],
    size: int,
    *,
    min_fill: float = 0.3,
    max_fields: int = 40,
    nested: bool = True,
    depth: int = 0,
) -> tuple[list[FieldSpec], list[ListSpec], dict[str, float], dict[str, float]]:
    """Fields and nested lists of the records: ``(fields, lists, fill_rates, verified share)``.

    ``groups`` are the records' node indices, ``size`` the elements per record; ``depth``
    is the nesting level of these records (lists nest at most three deep).
    """
    n = len(groups)
    elems: dict[tuple, dict[int, list[int]]] | None = {} if nested else None
    feats = _features(sel, groups, size, elems)
    lists: list[ListSpec] = []
    if nested and elems:
        lists, absorbed = _nested_lists(
            sel, groups, feats, elems, min_fill=min_fill, max_fields=max_fields, depth=depth
        )
        feats = {fk: f for fk, f in feats.items() if fk not in absorbed}
    out: list[FieldSpec] = []
    fill: dict[str, float] = {}
    verified: dict[str, float] = {}
    used: dict[str, int] = {}
    page = sel.page
    for f in _kept_features(feats, n, min_fill, max_fields):
        offset = f.order[0]
        if offset:
            # lxml element offset of the k-th root from the first (dropped tags count there)
            # (a record long enough to hold it: with span "until_next" lengths differ)
            grp = next(g for g in groups if len(g) > offset)
            offset = sel.el_pos(grp[offset]) - sel.el_pos(grp[0])
        best_xp, best_v = _best_xpath(sel, f, offset, groups)
        if best_xp is None or best_v <= 0.0:
            continue
        name = _field_name(f, page.tag[groups[0][0]], used, fill)
        ftype, attr = _field_type(page, f)
        fr = len(f.per_record) / n
        css = _field_css(f, offset) if best_xp == _field_xpaths(f, offset)[0] else None
        multiple = f.multi or f.kind == "own"
        out.append(FieldSpec(name, ftype, best_xp, css, attr, fr < 1.0, multiple))
        fill[name] = fr
        verified[name] = best_v
    taken = {f.name for f in out}
    for x in lists:
        while x.name in taken:
            x.name += "_list"
        taken.add(x.name)
    return out, lists, fill, verified
