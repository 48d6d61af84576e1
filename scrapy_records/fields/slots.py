"""Data slots of the template: which template nodes become columns, and their values.

Template text nodes, links (``a/@href``) and images are the data slots, in document order
(:func:`find_slots`). Text flowing around inline markup, or inline-only mixed content whose
structure differs between records, is one text slot; so is a sparse sub-tree whose
structure differs in most records (:func:`collapse_variable_subtrees`, post bodies). Each slot is
filled from every record's mapping (:func:`fill_slots`), then typed (:func:`type_slots`).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy_records.fields.records import INLINE_TAGS, ROOT, TEXT, RecordTree, page_data
from scrapy_records.fields.template import Layout, NodeMap, TemplateNode
from scrapy_records.fields.text import inline_text, is_label_text, strip_separators
from scrapy_records.fields.urls import image_url, url_resolver
from scrapy_records.fields.values import infer_column, price_maxes, price_units
from scrapy_records.page import Page

logger = logging.getLogger(__name__)


class Slot:
    """One data slot: a template node read as ``kind`` (``text``, ``url`` or ``image``),
    its value, node and source attribute in every record, and the column it becomes."""

    __slots__ = (
        "t",
        "kind",
        "collapsed",
        "order",
        "values",
        "refs",
        "attr",
        "static",
        "name",
        "evidence",
        "type",
        "xpath",
        "multiple",
        "raw",
        "keys",
    )

    def __init__(
        self, t: TemplateNode, kind: str, order: tuple[int, int], n: int, collapsed: bool = False
    ) -> None:
        self.t = t
        self.kind = kind  # text | url | image
        self.collapsed = collapsed
        self.order = order
        self.values: list[Any] = [None] * n
        self.refs: list[int | None] = [None] * n  # node id per record (None: absent)
        self.attr: list[str | None] = [None] * n
        self.static = False
        self.name = ""
        self.evidence = ""
        self.type = kind
        self.xpath: str | None = None
        self.multiple = False  # a list of values per record (fields.repeats)
        self.raw: list[Any] | None = None  # the values as written, once typed
        #: a column of a list of keys: (items, key, value) XPaths (fields.repeats.key_paths)
        self.keys: tuple[str, str, str] | None = None


def find_slots(
    page: Page,
    layout: Layout,
    trees: list[RecordTree],
    maps: list[NodeMap],
    collapse_inline: bool,
) -> list[Slot]:
    """The slots of the template, in document order (values not filled yet)."""
    tid = page.tag_names
    n = len(trees)
    pos, last = layout.pos, layout.last
    a_id, img_id = tid.get("a", -99), tid.get("img", -99)
    heads: set[TemplateNode] = set()  # collapsed inline sub-trees (one text slot each)
    inside: set[TemplateNode] = set()  # their descendants
    if collapse_inline:
        cells = _value_cells(page, layout, trees, maps)
        heads, inside = _inline_heads(page, layout, trees, maps, cells)
    slots: list[Slot] = []
    for t in layout.order:
        if t in inside:
            continue
        if t in heads:
            slots.append(Slot(t, "text", (pos[t], 0), n, collapsed=True))
            if t.label == a_id:
                slots.append(Slot(t, "url", (last[t], 1), n))
        elif t.label == TEXT:
            slots.append(Slot(t, "text", (pos[t], 0), n))
        elif t.label == a_id:
            slots.append(Slot(t, "url", (last[t], 1), n))
        elif t.label == img_id:
            slots.append(Slot(t, "image", (pos[t], 0), n))
    slots.sort(key=lambda s: s.order)
    return slots


def _inline_heads(
    page: Page,
    layout: Layout,
    trees: list[RecordTree],
    maps: list[NodeMap],
    cells: set[TemplateNode],
) -> tuple[set[TemplateNode], set[TemplateNode]]:
    """The template nodes read as one text (and their descendants): text flowing around
    inline children ("Lorem <i>ipsum</i> dolor"), or mixed content whose inline structure
    differs between records (highlighted search terms), and the value ``cells`` of key/value
    rows (:func:`_value_cells`). Not when the inline elements carry several distinct
    classes: those are sub-fields (span.price, span.old), aligned one by one.
    """
    order, tparent, pos, last = layout.order, layout.parent, layout.pos, layout.last
    tid = page.tag_names
    sub_text, sub_block = _subtree_content(
        order, frozenset(tid[t] for t in INLINE_TAGS if t in tid)
    )
    heads: set[TemplateNode] = set()
    inside: set[TemplateNode] = set()
    for t in order:
        par = tparent.get(t)
        if par is not None and (par in heads or par in inside):
            inside.add(t)
            continue
        if t in cells:
            heads.add(t)
            continue
        if t.label in (ROOT, TEXT) or not t.children:
            continue
        if not sub_text[t] or sub_block[t]:
            continue
        sub = order[pos[t] + 1 : last[t] + 1]
        own = sum(1 for c in t.children if c.label == TEXT)
        if not own or len({x.sig for x in sub if x.label != TEXT and x.sig}) > 1:
            continue
        if own >= 2 or (_varies(t, trees, maps) and not _badge_beside(t, trees, maps)):
            heads.add(t)
    return heads, inside


#: a cell that holds a label ("Residence:"), and the cell beside it that holds its value
_KEY_CELLS, _VALUE_CELLS = frozenset({"td", "th", "dt"}), frozenset({"td", "dd"})


def _value_cells(
    page: Page, layout: Layout, trees: list[RecordTree], maps: list[NodeMap]
) -> set[TemplateNode]:
    """The value cells of key/value rows read as one text: a ``td`` (``dd``) right after a
    cell whose text is a label in every record ("Residence:" | "<a>1935</a> - <a>Essex</a>,
    Ontario"), holding text of its own beside links and inline markup. The value is the
    cell as a person reads it, one column, as a wrapper's list of keys reads the cell
    beside its key. (Its links' URLs are no columns: they would be read by the row's
    position, another key's in a record whose rows differ.)"""
    tid = page.tag_names
    names = {v: k for k, v in tid.items()}
    allowed = frozenset(tid[t] for t in (*INLINE_TAGS, "a") if t in tid)
    a_id = tid.get("a", -99)
    out: set[TemplateNode] = set()
    for t in layout.order:
        if names.get(t.label) not in _VALUE_CELLS or not t.children:
            continue
        par = layout.parent.get(t)
        if par is None:
            continue
        sibs = [c for c in par.children[: par.children.index(t)] if c.label >= 0]
        if not sibs or names.get(sibs[-1].label) not in _KEY_CELLS:
            continue
        sub = layout.order[layout.pos[t] + 1 : layout.last[t] + 1]
        if not any(c.label == TEXT for c in t.children) or not any(x.label == a_id for x in sub):
            continue
        if any(x.label not in allowed for x in sub if x.label != TEXT):
            continue
        if _label_cell(page, sibs[-1], t, maps):
            out.add(t)
    return out


def _label_cell(page: Page, key: TemplateNode, value: TemplateNode, maps: list[NodeMap]) -> bool:
    """In every record holding ``value``, the cell ``key`` before it holds a label."""
    seen = False
    for m in maps:
        if value not in m:
            continue
        x = m.get(key)
        if x is None or x < 0:
            return False
        text = inline_text(page.el[x])
        if len(text) > 40 or not is_label_text(text):
            return False
        seen = True
    return seen


def _badge_beside(t: TemplateNode, trees: list[RecordTree], maps: list[NodeMap]) -> bool:
    """``t`` holds a text and, before or after it, a badge only some records show
    (:meth:`~scrapy_records.fields.records.PageData.is_badge`), always beside that text:
    two columns, the badge's text does not open the title."""
    kids = t.children
    if len(kids) != 2 or (kids[0].label == TEXT) == (kids[1].label == TEXT):
        return False
    badge, text = (kids[1], kids[0]) if kids[0].label == TEXT else (kids[0], kids[1])
    seen = False
    for rec, m in zip(trees, maps):
        x = m.get(badge)
        if x is not None:
            if x < 0 or text not in m or not rec.pd.is_badge(x):
                return False  # (a text in some records, a badge alone in others: one field)
            seen = True
    return seen


def _subtree_content(
    order: list[TemplateNode], inline_ids: frozenset[int]
) -> tuple[dict[TemplateNode, bool], dict[TemplateNode, bool]]:
    """Per template node: its sub-tree (below it) holds text / holds a non-inline element."""
    sub_text: dict[TemplateNode, bool] = {}
    sub_block: dict[TemplateNode, bool] = {}
    for t in reversed(order):
        st = sb = False
        for c in t.children:
            lc = c.label
            if lc == TEXT:
                st = True
            elif lc not in inline_ids:
                sb = True
            if sub_text[c]:
                st = True
            if sub_block[c]:
                sb = True
        sub_text[t] = st
        sub_block[t] = sb
    return sub_text, sub_block


def _varies(t: TemplateNode, trees: list[RecordTree], maps: list[NodeMap]) -> bool:
    """The records' sub-trees mapped to template node ``t`` have more than one shape."""
    first = -1
    for r, m in enumerate(maps):
        x = m.get(t)
        if x is not None:
            sh = trees[r].shape(x)
            if first < 0:
                first = sh
            elif sh != first:
                return True
    return False


def fill_slots(page: Page, slots: list[Slot], maps: list[NodeMap]) -> None:
    """Read every slot's value in every record: the text (a ``time`` element's ``datetime``
    attribute when it has one), the absolute link, or the image URL."""
    pd = page_data(page)
    time_id = page.tag_names.get("time", -1)
    tag_id = page.tag_id
    pel = page.el
    leaves, leaf_owner, nleaves = pd.leaves, pd.leaf_owner, pd.nleaves
    absolute = url_resolver(page)
    v: str | None
    for s in slots:
        t = s.t
        kind = s.kind
        values, refs, attr = s.values, s.refs, s.attr
        for r, m in enumerate(maps):
            loc = m.get(t)
            if loc is None:
                continue
            if kind == "text":
                k = -loc - 1
                if 0 <= k < nleaves:  # a text leaf (pd.text_of / pd.owner inlined)
                    v = leaves[k]
                    owner = leaf_owner[k]
                elif loc >= 0:  # a collapsed element: read as wrappers read it
                    v = inline_text(pel[loc])
                    owner = loc
                else:
                    v = pd.text_of(loc)
                    owner = pd.owner(loc)
                v = strip_separators(v)
                if time_id >= 0 and tag_id[owner] == time_id:
                    # <time datetime="2020-01-05">5 Jan</time>: the machine-readable value
                    dtv = (pel[owner].get("datetime") or "").strip()
                    if dtv:
                        v = dtv
                        attr[r] = "datetime"
            elif kind == "url":
                v = absolute(pel[loc].get("href"))
                attr[r] = "href"
            else:
                v, attr[r] = image_url(page, loc, absolute)
            if v:
                values[r] = v
                refs[r] = loc


def collapse_variable_subtrees(
    page: Page, slots: list[Slot], layout: Layout, trees: list[RecordTree], maps: list[NodeMap]
) -> list[Slot]:
    """Read as one text each sub-tree whose structure differs in most records and whose
    slots are sparse (at least 4 slots, at most one filled in >= 90 % of the records, mean
    fill < 50 %): user-generated content (post bodies with quotes, lists, code) that would
    otherwise align into many sparse columns. Sparse over the records that show the
    sub-tree too: an optional block ("Read more: <a>..</a>, <a>..</a>" in a few records)
    is sparse over all records only because few show it. Returns the new slot list."""
    n = len(trees)
    tparent, pos, last = layout.parent, layout.pos, layout.last
    under: dict[TemplateNode, list[int]] = {}
    for k, s in enumerate(slots):
        p: TemplateNode | None = s.t
        while p is not None:
            under.setdefault(p, []).append(k)
            p = tparent.get(p)
    fills = [sum(1 for v in s.values if v is not None) / n for s in slots]
    vheads: list[TemplateNode] = []
    for t in layout.order:
        ks = under.get(t)
        if t.label < 0 or layout.depth[t] < 2 or not ks or len(ks) < 4:
            continue
        if any(pos[h] <= pos[t] <= last[h] for h in vheads):
            continue
        fl = [fills[k] for k in ks]
        if _filled(fl):
            continue
        holders = [r for r, m in enumerate(maps) if t in m]
        if len(holders) < n and _filled([_fill(slots[k], holders) for k in ks]):
            continue  # an optional block whose parts fill the records showing it
        seen = [trees[r].shape(m[t]) for r, m in enumerate(maps) if t in m]
        if len(seen) >= 3 and len(set(seen)) >= max(3, 0.5 * len(seen)):
            if not _classed_parts(t):  # a post body, not a block of distinct parts
                vheads.append(t)
    if not vheads:
        return slots
    drop = {k for h in vheads for k in under[h]}
    slots = [s for k, s in enumerate(slots) if k not in drop]
    added = [Slot(h, "text", (pos[h], 0), n, collapsed=True) for h in vheads]
    fill_slots(page, added, maps)
    slots.extend(added)
    slots.sort(key=lambda s: s.order)
    return slots


def _filled(fills: list[float]) -> bool:
    """Slots of these fills are no sparse content: two or more filled in >= 90 % of the
    records, or a mean fill of 50 % or more."""
    return sum(1 for f in fills if f >= 0.9) > 1 or sum(fills) >= 0.5 * len(fills)


def _fill(s: Slot, records: list[int]) -> float:
    """The share of ``records`` in which slot ``s`` holds a value."""
    return sum(1 for r in records if s.values[r] is not None) / len(records)


def _classed_parts(t: TemplateNode) -> bool:
    """The element children of ``t`` are parts the site's template names: at least two
    distinct classes, on most of them (a price block's ``lvprice``, ``lvshipping``,
    ``lvextras``; a post body's paragraphs and quotes carry few)."""
    kids = [c for c in t.children if c.label >= 0]
    classed = [c.sig for c in kids if c.sig]
    return len(set(classed)) >= 2 and 2 * len(classed) >= len(kids)


def data_slots(slots: list[Slot], max_columns: int) -> list[Slot]:
    """The slots that become columns: not static, filled in some record; the fullest
    ``max_columns`` of them (a heterogeneous "region" would give thousands)."""
    data = [s for s in slots if not s.static and any(v is not None for v in s.values)]
    if len(data) > max_columns:
        fill_of = {id(s): sum(1 for v in s.values if v is not None) for s in data}
        keep = {id(s) for s in sorted(data, key=lambda s: -fill_of[id(s)])[:max_columns]}
        logger.debug("alignment: %d data columns, keeping the %d fullest", len(data), max_columns)
        data = [s for s in data if id(s) in keep]
    return data


def type_slots(data: list[Slot], n: int) -> dict[int, dict[str, list[Any]]]:
    """Type the text slots (:func:`~scrapy_records.fields.values.infer_column`) and convert
    their values; returns each price slot's companions per record (``id(slot) ->``
    ``{"currency": [...], "unit": [...], "max": [...]}``, a key only when some record has
    one; ``max``: a range's high end)."""
    companions: dict[int, dict[str, list[Any]]] = {}
    for s in data:
        if s.kind != "text":
            continue
        idx = [r for r in range(n) if s.values[r] is not None]
        raw = [s.values[r] for r in idx]
        typ, conv, curs = infer_column(raw)
        s.type = typ
        if typ != "text":
            s.raw = list(s.values)
            for r, v in zip(idx, conv):
                s.values[r] = v
        units = price_units(raw) if typ == "price" else None
        maxes = price_maxes(raw) if typ == "price" else None  # a range's high end
        per_key: tuple[tuple[str, Any], ...] = (("currency", curs), ("unit", units), ("max", maxes))
        for key, per in per_key:
            if per is not None and any(per):
                cl: list[Any] = [None] * n
                for r, c in zip(idx, per):
                    cl[r] = c
                companions.setdefault(id(s), {})[key] = cl
    return companions


def drop_duplicates(data: list[Slot], rank: dict[str, int]) -> list[Slot]:
    """One column per value sequence: a slot whose values equal another's in every record
    (the product link on the image and on the title) is dropped; the better-named one
    (``rank`` of its evidence, then document order) stays. So is a slot that says nothing
    another one does not say: its value is the other's value in every record holding it
    (an optional image link to the product the title links to), unless only it has an
    XPath (a wrapper can read it; the other is pieced together); the one that stays takes
    the dropped one's name when that is better named (the title link missing from a record
    leaves its address to the image link, under the name ``url`` it has where every record
    has both: a slot's name does not depend on one record lacking a part). A text equal
    to a link's URL in every record (the address a search result writes out) is that link."""
    best: dict[tuple, Slot] = {}
    for s in data:
        key = (s.type, repr(s.values))
        other = best.get(key)
        if other is None or rank.get(s.evidence, 9) < rank.get(other.evidence, 9):
            best[key] = s
    kept = [s for s in data if best.get((s.type, repr(s.values))) is s]
    # a link's address written out as its text ("https://shop.example/p/1" under the title)
    addresses = {repr(s.values) for s in kept if s.kind == "url"}
    kept = [s for s in kept if not (s.type == "text" and repr(s.values) in addresses)]
    fill = {id(s): sum(1 for v in s.values if v is not None) for s in kept}
    fuller = sorted(kept, key=lambda s: -fill[id(s)])
    drop: set[int] = set()
    for s in kept:
        f = fill[id(s)]
        if f < (1 if s.kind != "text" else 2) or _completes(s, kept):
            continue
        vals = [(r, v) for r, v in enumerate(s.values) if v is not None]
        for o in fuller:
            if fill[id(o)] <= f:
                break
            if s.xpath and not o.xpath:  # a column a wrapper can read stays
                continue
            if (
                o.type == s.type
                and id(o) not in drop
                and all(_same(o.values[r], v) for r, v in vals)
            ):
                drop.add(id(s))
                if rank.get(s.evidence, 9) < rank.get(o.evidence, 9):
                    o.name, o.evidence = s.name, s.evidence  # (the name a fuller page gives)
                break
    return [s for s in kept if id(s) not in drop]


def _same(a: Any, b: Any) -> bool:
    """One value: equal, or texts that differ only in case and spacing ("Acme C-S" and a
    menu's "Acme C-s")."""
    if a == b:
        return True
    return (
        isinstance(a, str)
        and isinstance(b, str)
        and " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
    )


def _completes(s: Slot, slots: list[Slot]) -> bool:
    """Whether ``s`` completes a column of its name: another slot of that name holds a
    value in every record ``s`` lacks one, and in none where ``s`` has one (the company a
    link in some records, text in the others: :func:`merge_complementary` makes them one
    column, which a repeat of its linked companies elsewhere does not stand for)."""
    for o in slots:
        if o is not s and o.name == s.name and o.type == s.type:
            if all((a is None) != (b is None) for a, b in zip(s.values, o.values)):
                return True
    return False


#: names that say nothing about the value: two such slots are not one field for sharing one
_WEAK_NAMES = frozenset({"text", "link", "link_text", "field", "cell", "items", "rows"})


def merge_complementary(
    data: list[Slot], companions: dict[int, dict[str, list[Any]]]
) -> list[Slot]:
    """One column for slots that got one name and never share a record: the same field in
    two variants of the record's markup (Ikea's ``<span class="prodName">`` and, on a sale
    item, ``<span class="prodName prodNameTro">``). Not a one-text badge beside data that
    varies (both constant, or both not). The fuller slot takes the other's values (and
    companions); the column's XPath reads both places. Slots named only by position or by a
    name that says nothing (``text``, ``link``) stay apart."""
    by_name: dict[tuple, list[Slot]] = {}
    for s in data:
        if s.evidence in ("", "position", "generic") or s.name in _WEAK_NAMES:
            continue
        by_name.setdefault((s.name, s.kind, s.type, s.multiple), []).append(s)
    gone: set[int] = set()
    for group in by_name.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda s: -sum(1 for v in s.values if v is not None))
        keep = group[0]
        for other in group[1:]:
            if any(a is not None and b is not None for a, b in zip(keep.values, other.values)):
                continue
            if one_value(keep) != one_value(other):  # a badge's one text beside names
                continue
            _take(keep, other, companions)
            gone.add(id(other))
    return [s for s in data if id(s) not in gone]


def _either(a: Slot, b: Slot) -> str | None:
    """An XPath reading ``a``'s place or ``b``'s: for text, the outer element where one lies
    inside the other (a company name that is a link in some records), else their union."""
    x, y = a.xpath, b.xpath
    if not x or not y or x == y:
        return x if x == y else None
    if a.kind == "text":
        if y.startswith(x + "/"):
            return x
        if x.startswith(y + "/"):
            return y
    return f"{x} | {y}"


def one_value(s: Slot) -> bool:
    """One value in at least three records: template text where it is present."""
    vals = [v for v in s.values if v is not None]
    return len(vals) >= 3 and all(v == vals[0] for v in vals)


def _take(keep: Slot, other: Slot, companions: dict[int, dict[str, list[Any]]]) -> None:
    """Fill ``keep``'s empty records from ``other`` (values, nodes, raw text, companions)."""
    rows = [r for r, v in enumerate(other.values) if v is not None]
    if keep.raw is None and other.raw is not None:
        keep.raw = list(keep.values)
    for r in rows:
        keep.values[r] = other.values[r]
        keep.refs[r] = other.refs[r]
        keep.attr[r] = other.attr[r]
        if keep.raw is not None:
            keep.raw[r] = other.raw[r] if other.raw is not None else other.values[r]
    keep.xpath = _either(keep, other)
    theirs = companions.pop(id(other), {})
    mine = companions.setdefault(id(keep), {}) if theirs else companions.get(id(keep), {})
    for key, cl in theirs.items():
        col = mine.setdefault(key, [None] * len(keep.values))
        for r in rows:
            col[r] = cl[r]
