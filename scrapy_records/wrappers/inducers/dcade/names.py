"""Field names for the columns of a DCADE schema (our addition: the paper's columns are
unnamed; Yuliana & Chang 2019 name none of them).

A data column is named by the first rule that applies (the column's ``evidence``):

1. ``label``: the label it stands next to ("Publisher:" -> ``publisher``), found per page
   by :func:`~scrapy_records.wrappers.inducers.dcade.roles.label_before`, or the label
   glued before it in its own leaf ("MSRP: $61,550" -> ``msrp``);
2. ``itemprop``: schema.org microdata (``itemprop``) on the value's element or an ancestor
   close to it, or a microformat class (``tel``, ``fn``, ``adr``...); ``json-ld``: the
   property of the JSON-LD object the page is about whose values the column's are on most
   pages (``offers.price`` -> ``price``, ``hiringOrganization.name`` ->
   ``hiring_organization``);
3. ``type``: what every value is (``email``, ``website``, ``phone``, ``price``, ``address``
   for a street address, ``date``);
4. ``class``: a meaningful class or id word of the element
   (:func:`scrapy_records.fields.naming.best_token`, camel humps read as word breaks);
5. ``tag``: ``h1`` -> ``title``, the page ``title`` -> ``page_title``, ``h2``-``h6`` ->
   ``heading``; then a class or id word of the parent;
6. ``heading``: the heading of the section holding the value (an ``h2``-``h6`` before it or
   before one of its two nearest ancestors: "More Options" -> ``more_options``);
7. ``position``: ``field``.

A link target is named after its text (``<text name>_url``); a list after the label or
heading before it. Repeated names get ``_2``, ``_3``... in page order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from scrapy_records.fields.naming import (
    best_token,
    generic_name,
    label_name,
    path_name,
    phrase_name,
    property_name,
    slug,
    token_name,
)
from scrapy_records.page import Page
from scrapy_records.page.jsonld import best_path
from scrapy_records.wrappers.inducers.dcade.leaves import PageLeaves
from scrapy_records.wrappers.inducers.dcade.roles import LeafColumns, column_label
from scrapy_records.wrappers.inducers.dcade.schema import SchemaColumn
from scrapy_records.wrappers.inducers.dcade.tokens import token_type

_T = TypeVar("_T")

#: microformat classes (hCard, hProduct...) and the field they name
MICROFORMATS = {
    "tel": "phone",
    "fn": "name",
    "org": "organization",
    "adr": "address",
    "street-address": "street_address",
    "locality": "locality",
    "region": "region",
    "postal-code": "postal_code",
    "country-name": "country",
    "email": "email",
    "bday": "birthday",
    "nickname": "nickname",
    "category": "category",
    "price": "price",
    "brand": "brand",
}
#: class/id words that say nothing about the value (kept here until fields.naming has
#: them: ``value``, ``text``... are not framework noise, just empty)
_EMPTY_WORDS = frozenset(
    "value values val text txt data content contents info information detail details field "
    "fields body main inner wrapper attribute attr attributes links link none".split()
)
#: a street address: a house number, words, a street word (English-speaking sites)
_STREET_RE = re.compile(
    r"^\d+[\w/-]*\s+(?:[\w.'-]+\s+){0,4}(?:st|street|rd|road|ave|avenue|blvd|boulevard|dr|"
    r"drive|hwy|highway|ln|lane|way|pl|place|ct|court|pkwy|parkway|sq|square|ter|terrace)\b",
    re.I,
)
_PHONE_RE = re.compile(r"^\+?\(?\d[\d\s().\-/]{5,}\d$")
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.\w+$")
_WEB_RE = re.compile(r"^(?:https?://|www\.)\S+$", re.I)
#: separators at the edges of a value that say nothing about its type ("410-821-6358 |")
_EDGE = " |,;:·•–-"
#: how far up microdata and class names are looked for
_ATTR_UP = 2


def _values(c: SchemaColumn) -> list[str]:
    return [v for v in c.values if isinstance(v, str) and v]


def type_name(values: Sequence[str]) -> str | None:
    """The name every value's form gives (``email``, ``website``, ``phone``, ``price``,
    ``address``, ``date``), else None."""
    vals = [" ".join(v.split()).strip(_EDGE) for v in values if v and v.strip(_EDGE)]
    if not vals:
        return None
    checks = (  # a date before a phone: "2026-01-19" has the digits and dashes of both
        ("email", lambda v: bool(_EMAIL_RE.match(v))),
        ("website", lambda v: bool(_WEB_RE.match(v))),
        ("date", lambda v: token_type(v.split()[0]) == "DATE" and len(v.split()) <= 4),
        ("phone", lambda v: bool(_PHONE_RE.match(v)) and sum(ch.isdigit() for ch in v) >= 7),
        ("price", lambda v: all(token_type(w) == "CURRENCY" for w in v.split())),
        ("address", lambda v: bool(_STREET_RE.match(v))),
    )
    for name, ok in checks:
        if all(ok(v) for v in vals):
            return name
    return None


#: the root classes of the microformats above: inside one, their classes are markup
MICROFORMAT_ROOTS = frozenset(
    "vcard hproduct hreview hrecipe vevent h-card h-product h-review h-recipe h-event".split()
)


def _attr_name(page: Page, node: int) -> tuple[str, str] | None:
    """``(name, evidence)`` from an ``itemprop`` or a microformat class on the element or
    an ancestor close to it (evidence ``itemprop``; a microformat class outside its root
    class, ``class="price"`` alone, is as likely plain styling: ``microformat``)."""
    i, up = node, 0
    while i >= 0 and up <= _ATTR_UP:
        prop = page.attr(i, "itemprop")
        if prop and prop.split():
            n = property_name(prop)
            return (n, "itemprop") if n else None
        for c in page.classes(i):
            if c.lower() in MICROFORMATS:
                return MICROFORMATS[c.lower()], _microformat(page, i)
        if up and page.attr(i, "itemscope") is not None:
            break
        i = page.parent[i]
        up += 1
    return None


def _microformat(page: Page, i: int) -> str:
    """``itemprop`` when element ``i`` is inside a microformat root, else ``microformat``."""
    while i >= 0:
        if any(c.lower() in MICROFORMAT_ROOTS for c in page.classes(i)):
            return "itemprop"
        i = page.parent[i]
    return "microformat"


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _words(tok: str) -> str:
    """``titleHeader`` -> ``title-Header``: camel humps become word breaks."""
    return _CAMEL.sub("-", tok) if len(tok) <= 40 else tok


def _own_class_name(page: Page, i: int) -> str | None:
    """A meaningful class or id word of element ``i``."""
    if page.tag[i] in ("body", "html"):
        return None
    toks = [_words(t) for t in page.classes(i)]
    ident = page.attr(i, "id")
    if ident:
        toks.append(_words(ident))
    name = best_token([t for t in toks if (token_name(t) or "") not in _EMPTY_WORDS])
    return name if name and name not in _EMPTY_WORDS else None


def _class_name(page: Page, node: int) -> str | None:
    """A meaningful class or id word of the parent (the element's own come first, see
    :meth:`ColumnNamer.data_name`)."""
    p = page.parent[node]
    return _own_class_name(page, p) if p >= 0 else None


def container_name(pages: Sequence[Page], nodes: Sequence[tuple[int, int]]) -> str | None:
    """A class or id word of the element holding a list's items (``(page, item element)``
    pairs): its parent, else its grandparent."""
    names = []
    for r, x in nodes:
        page = pages[r]
        p = page.parent[x]
        n = _own_class_name(page, p) if p >= 0 else None
        if n is None and p >= 0 and page.parent[p] >= 0:
            n = _own_class_name(page, page.parent[p])
        names.append(n)
    return _majority(names)


def _tag_name(page: Page, node: int) -> str | None:
    i, up = node, 0
    while i >= 0 and up <= 1:
        t = page.tag[i]
        if t == "title":
            return "page_title"
        if t == "h1":
            return "title"
        if t in ("h2", "h3", "h4", "h5", "h6"):
            return "heading"
        i = page.parent[i]
        up += 1
    return None


_SECTION_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
#: how many ancestors up, and how many element siblings back, a section heading is looked for
_SECTION_UP, _SECTION_BACK = 2, 4


def _section_name(page: Page, node: int) -> str | None:
    """The heading of the section that holds the element: an ``h2``-``h6`` among the few
    element siblings before it or before one of its nearest ancestors."""
    el = page.el[node]
    for _ in range(_SECTION_UP + 1):
        for k, sib in enumerate(el.itersiblings(preceding=True)):
            if k >= _SECTION_BACK:
                break
            if sib.tag in _SECTION_HEADINGS:
                return label_name(" ".join(sib.text_content().split()))
        el = el.getparent()
        if el is None:
            return None
    return None


def _majority(names: Sequence[_T | None]) -> _T | None:
    got = [n for n in names if n]
    if not got:
        return None
    name, n = Counter(got).most_common(1)[0]
    return name if n * 2 >= len(names) else None


class ColumnNamer:
    """Names the columns of one table (TableA, or one recordset's table)."""

    def __init__(
        self,
        pages: Sequence[Page],
        leaves: Sequence[PageLeaves],
        cols: list[SchemaColumn],
        rows: Sequence[int] | None = None,
    ) -> None:
        self.pages, self.leaves, self.cols = pages, leaves, cols
        # row -> page (TableA: row r is page r; a recordset: its rows' pages)
        self.rows = list(rows) if rows is not None else list(range(len(pages)))
        self.where = LeafColumns(cols, len(pages), rows)

    def _nodes(self, c: SchemaColumn) -> list[tuple[Page, int]]:
        out = []
        for i, ks in enumerate(c.leaves):
            if ks:
                r = self.rows[i]
                out.append((self.pages[r], self.leaves[r].node[ks[0]]))
        return out

    def data_name(self, ci: int) -> tuple[str, str]:
        """``(name, evidence)`` of data column ``ci``."""
        c = self.cols[ci]
        if c.split is not None and c.label_text:
            n = label_name(c.label_text)
            if n:
                return n, "label"
        if c.split is None or not c.split[1] or not label_name(c.split[0][c.split[1] - 1]):
            # (a value cut after a glued label is named by it, else by the label before
            # its leaf: "<b>Pages</b>: 320")
            lab = column_label(self.pages, self.leaves, self.cols, ci, self.where)
            if lab is not None:
                c.label_text = c.label_text or lab[0]
                n = label_name(lab[0])
                if n:
                    return n, "label"
        nodes = self._nodes(c)
        got = _majority([_attr_name(p, x) for p, x in nodes])
        if got:
            return got
        path = best_path(
            [(v, self.pages[self.rows[i]].objects) for i, v in enumerate(c.values) if v]
        )
        if path:  # the JSON-LD of the object the page is about ("offers.price" -> price)
            return path_name(path), "json-ld"
        n = type_name(_values(c)) if c.kind == "text" else None
        if n:
            return n, "type"
        for rule, evidence in (
            (_own_class_name, "class"),
            (_tag_name, "tag"),
            (_class_name, "class"),
            (_section_name, "heading"),
        ):
            n = _majority([rule(p, x) for p, x in nodes])
            if n:
                return n, evidence
        # (a text of several sentences no evidence names is a description, as on list pages)
        generic = generic_name("text", _values(c))
        if generic == "description":
            return "description", "position"
        lead = self._lead_text(ci)
        n = phrase_name(lead) if lead else None  # "Please refer to job code <b>X</b>"
        return (n, "label") if n else ("field", "position")

    def _lead_text(self, ci: int) -> str | None:
        """The template text right before column ``ci``'s value in the same block (the
        value's element's parent holds it) on most of its rows."""
        c = self.cols[ci]
        texts: list[str | None] = []
        for i, ks in enumerate(c.leaves):
            if not ks:
                continue
            r, k = self.rows[i], ks[0]
            pl, page = self.leaves[r], self.pages[r]
            cj = self.where.column(r, k - 1) if k and pl.kind[k - 1] == "text" else None
            if cj is None or not self.cols[cj].template:
                texts.append(None)
            elif pl.node[k - 1] in (page.parent[pl.node[k]], pl.node[k]):
                texts.append(pl.content[k - 1])  # (the same block)
            else:
                texts.append(None)
        return _majority(texts)

    def link_name(self, ci: int, names: list[str]) -> str:
        """A link target column: the name of the text before it, plus ``_url`` (a text on
        fewer of the link's pages, "Gran Turismo" after one model's name, names no link)."""
        c = self.cols[ci]
        for j in range(ci - 1, max(-1, ci - 3), -1):
            p = self.cols[j]
            if (
                p.kind == "text"
                and (p.data or p.template)
                and p.leaves
                and any(pk and ck and pk[-1] < ck[0] for pk, ck in zip(p.leaves, c.leaves))
                and all(pk for pk, ck in zip(p.leaves, c.leaves) if ck)
            ):
                base = names[j]
                if p.template:
                    base = label_name(_values(p)[0]) or "link" if _values(p) else "link"
                return base if base.endswith("_url") else base + "_url"
        return "url"


def name_columns(
    pages: Sequence[Page],
    leaves: Sequence[PageLeaves],
    cols: list[SchemaColumn],
    rows: Sequence[int] | None = None,
    list_label: str | None = None,
) -> None:
    """Name every column of ``cols`` (module docstring); ``rows``: the page of each row
    when the columns are a recordset's, whose single data field takes ``list_label``."""
    namer = ColumnNamer(pages, leaves, cols, rows)
    names: list[str] = [""] * len(cols)
    for ci, c in enumerate(cols):
        if c.kind == "list":
            names[ci], c.evidence = c.name or "list", "list"
        elif c.template:
            v = _values(c)
            names[ci], c.evidence = "t_" + (slug(v[0]) if v and slug(v[0]) else "const"), ""
        elif c.kind == "text":
            names[ci], c.evidence = namer.data_name(ci)
    for ci, c in enumerate(cols):
        if c.kind in ("href", "src") and not c.template:
            names[ci], c.evidence = namer.link_name(ci, names), "link"
    if list_label:
        data = [ci for ci, c in enumerate(cols) if c.data and c.kind == "text"]
        if len(data) == 1 and cols[data[0]].evidence in ("position", "class", "tag", "type"):
            names[data[0]], cols[data[0]].evidence = list_label, "list"
    used: Counter[str] = Counter()
    for ci, c in enumerate(cols):
        used[names[ci]] += 1
        c.name = names[ci] if used[names[ci]] == 1 else f"{names[ci]}_{used[names[ci]]}"
