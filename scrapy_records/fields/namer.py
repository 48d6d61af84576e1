"""Names of the aligned columns: one rule per kind of evidence, the strongest first.

:func:`name_slots` names each data slot by the first rule that applies (the column's
``evidence`` says which):

1. ``itemprop`` / ``property``: schema.org microdata or RDFa on the value's element, or on
   an ancestor inside the record that holds no other value of the same kind;
2. ``label``, ``header``, ``aria-label``/``title``/``alt``: a label next to the value
   ("Price:", "By" -> ``author``, ``<dt>``), the ``th`` above a table cell, a stable
   attribute text;
3. ``link``: the record's main link (in a heading, or the longest link text) is ``title``
   and ``url``; another link's URL takes its text's name (``author`` -> ``author_url``);
4. ``type``: ``price`` (with ``price_currency``), ``date``, ``rating``, ``image``; a
   button's caption opening with a verb is the ``action`` it offers ("add to cart");
5. ``class`` / ``id``: meaningful tokens (:func:`~scrapy_records.fields.naming.token_name`);
   ``href``: the fragment of the links the text is on (``#customerReviews``);
6. ``tag``: ``h1``-``h6`` -> ``title``, ``time`` -> ``date``, ``cite`` -> ``source``...;
7. ``generic``: ``description`` (a long text), ``text``, ``link``, ``image``.

Names never depend on column positions, so the same slot gets the same name on every page
of a template. A link/image column named by evidence gets ``_url``/``_image`` appended
unless the name already says so.
"""

from __future__ import annotations

import re

from scrapy_records.fields.naming import (
    IMAGE_WORDS,
    fragment_name,
    generic_name,
    glued_label,
    is_action,
    is_written_address,
    label_name,
    mostly,
    path_name,
    property_name,
    says_url,
    shape_name,
    token_name,
)
from scrapy_records.fields.records import RecordTree
from scrapy_records.fields.repeats import key_rows, label_value_columns, merge_repeats
from scrapy_records.fields.slot_names import (
    TAG_NAMES,
    Depths,
    Evidence,
    Label,
    Parents,
    TableHeaders,
    fill_eaten,
    find_labels,
    tag_names,
    tag_of,
)
from scrapy_records.fields.slots import Slot, one_value
from scrapy_records.fields.template import Layout, NodeMap, TemplateNode
from scrapy_records.fields.values import (
    has_trailing_charge,
    parse_date_iso,
    parse_price,
    price_label,
)
from scrapy_records.page import Page

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_RATING_RE = re.compile(
    r"^\s*(?:[0-5](?:[.,]\d{1,2})?\s*(?:/\s*(?:5|10)\b|out of (?:5|10)\b|stars?\b|"
    r"von (?:5|10)\b|sur (?:5|10)\b|de (?:5|10)\b)|[★☆]{3,})",
    re.I,
)
#: words of a class name that say a value type (``prod_price``, ``article_time``, ``thumb``)
_TYPE_WORDS = {
    "price": ("price",),
    "date": ("date", "time"),
    "rating": ("rating", "stars"),
}
#: the order in which duplicate columns keep the better-named one
EVIDENCE_RANK = {
    "itemprop": 0,
    "json-ld": 0,
    "property": 0,
    "link": 1,
    "label": 2,
    "header": 2,
    "aria-label": 2,
    "title": 2,
    "type": 3,
    "class": 4,
    "id": 4,
    "href": 4,
    "tag": 5,
    "generic": 6,
}


def name_slots(
    page: Page,
    slots: list[Slot],
    data: list[Slot],
    trees: list[RecordTree],
    maps: list[NodeMap],
    layout: Layout,
) -> list[Slot]:
    """Name the data slots ``data`` (``slots``: every slot, static ones included, for the
    labels); returns them with repeated parts merged into list slots
    (:func:`~scrapy_records.fields.repeats.merge_repeats`)."""
    anchor, _count = _anchors(data, layout.parent)
    classed = {id(s) for s in slots if s.static and s.kind == "text" and _label_class(page, s)}
    labels = find_labels(slots, anchor, layout.parent, layout.depth, tag_names(page), classed)
    fill_eaten(data, labels)
    static = [s for s in slots if s.static]
    after = {k: lab.name for k, lab in labels.items() if lab.after}
    data = merge_repeats(data, layout, len(trees), set(labels) - set(after), static, after)
    anchor, count = _anchors(data, layout.parent)
    rows = all(page.tag[r] == "tr" for rec in trees[:5] for r in rec.roots)
    namer = _Namer(page, maps, layout, anchor, count, labels, rows)
    namer.typed = _first_typed(data, layout.parent)
    namer.position = {id(s): k for k, s in enumerate(data)}
    namer.find_main_link(data, len(trees))
    # texts and images first: a link's URL takes the name of its text
    for s in sorted(data, key=lambda x: x.kind == "url"):
        if not (s.name and s.evidence == "label"):  # (a list named by its leading label)
            s.name, s.evidence = namer.name(s)
        if s.kind == "text" and s.name in _ADDRESS_NAMES:
            s.name = "display_url"  # the address a result writes out; `url` is the link's
    _qualify_repeats(data, namer)
    data = label_value_columns(data, len(trees))
    key_rows(page, data)
    return data


#: class words of an element that holds a label ("lab", "field-label", "spec_caption")
_LABEL_CLASS_WORDS = frozenset({"label", "lab", "lbl", "caption", "legend"})
_CLASS_WORD_RE = re.compile(r"[-_]+")


def _label_class(page: Page, s: Slot) -> bool:
    """The element holding static text ``s`` says by its class that it is a label (looked
    at in the first records that have it)."""
    seen = 0
    for ref in s.refs:
        if ref is None:
            continue
        k = -ref - 1
        el = page.leaf_owner[k] if 0 <= k < len(page.leaf_owner) else ref
        if el < 0:
            continue
        words = {w for c in page.classes(el) for w in _CLASS_WORD_RE.split(c.lower())}
        if not words & _LABEL_CLASS_WORDS:
            return False
        seen += 1
        if seen >= 3:
            break
    return seen > 0


#: names of a link's address: a text column so named is the address as the page writes it
_ADDRESS_NAMES = frozenset({"url", "link", "href", "permalink"})


def _writes_addresses(s: Slot) -> bool:
    """Text slot ``s``'s values are web addresses written out."""
    vals = [
        x
        for v in s.values
        for x in (v if isinstance(v, list) else [v])
        if isinstance(x, str) and x.strip()
    ]
    return bool(vals) and is_written_address(vals, paths=True)


def _qualify_repeats(data: list[Slot], namer: _Namer) -> None:
    """Columns named by their type or by nothing that share a name ("price", "price") are
    told apart by their class tokens ("price", "old_price") where they have any. The
    fullest one keeps the plain name, so a page where a rarer one is missing names the
    columns alike."""
    groups: dict[str, list[Slot]] = {}
    for s in data:
        if s.evidence in ("type", "generic"):
            groups.setdefault(s.name, []).append(s)
    taken: dict[str, int] = {}
    for s in data:
        taken[s.name] = taken.get(s.name, 0) + 1
    for name, group in groups.items():
        if taken[name] < 2:
            continue
        # the first of the fullest keeps the name, unless a better-named column has it
        keep = max(group, key=_fill) if len(group) == taken[name] else None
        for s in group:
            if s is keep:
                continue
            found = namer.class_name(s)
            if found:
                s.name = found if name in found else f"{found}_{name}"


def _anchors(
    data: list[Slot], tparent: Parents
) -> tuple[dict[int, TemplateNode], dict[tuple[TemplateNode, str], int]]:
    """The node each data slot is read on (a text slot's element holds it), by ``id(slot)``,
    and how many data slots of each kind lie under each template node."""
    anchor: dict[int, TemplateNode] = {}
    count: dict[tuple[TemplateNode, str], int] = {}
    for s in data:
        a = s.t if (s.kind != "text" or s.collapsed) else tparent[s.t]
        assert a is not None  # a text node always has a parent element
        anchor[id(s)] = a
        p: TemplateNode | None = s.t
        while p is not None:
            count[(p, s.kind)] = count.get((p, s.kind), 0) + 1
            p = tparent.get(p)
    return anchor, count


def _first_typed(data: list[Slot], tparent: Parents) -> dict[tuple[TemplateNode, str], int]:
    """The document position (in ``data``) of the first price and date column under each
    template node."""
    out: dict[tuple[TemplateNode, str], int] = {}
    for k, s in enumerate(data):
        if s.type in ("price", "date"):
            p: TemplateNode | None = s.t
            while p is not None:
                out.setdefault((p, s.type), k)
                p = tparent.get(p)
    return out


#: words saying a name is a price's (no ``_price`` appended to a label naming a price then)
_PRICE_NAME_WORDS = (
    *("price", "cost", "msrp", "rrp", "save", "saving", "fee", "total", "amount", "charge"),
    *("shipping", "postage", "delivery", "tax", "deposit", "rent", "salary", "pay", "bid"),
)


def _glued_price_label(s: Slot) -> str | None:
    """The name a label written in the price's own text gives a price column ("List CAD
    277.48" -> ``list_price``, "You Save $3" -> ``you_save``), or a text column of charges
    named after their amount ("+ £3.99 postage" -> ``postage``, whatever the class says:
    ``fee``): the same label in at least 80% of its values."""
    if s.type == "price" and s.raw:
        vals = [v for v in s.raw if isinstance(v, str)]
    elif s.kind == "text" and s.type == "text":  # "+ £3.99 postage", one "Postage not specified"
        vals = [v for v in s.values if isinstance(v, str)]
        if not mostly(vals, has_trailing_charge):
            return None
    else:
        return None
    names = [label_name(lab) if (lab := price_label(v)) else None for v in vals]
    name = max(set(names), key=names.count) if names else None
    if name is None or names.count(name) < 0.8 * len(names):
        return None
    return _price_name(name)


def _price_name(label: str) -> str:
    """A price column's name from its label's: "Was:" -> ``was_price``, "Price:" -> ``price``,
    "Shipping" -> ``shipping``."""
    return label if any(w in label for w in _PRICE_NAME_WORDS) else f"{label}_price"


def _is_price(v: str) -> bool:
    p = parse_price(v)
    return p is not None and p[1] is not None


#: a currency symbol or an ISO code's form
_CURRENCY_MARK_RE = re.compile(r"[$€£¥₹₩₽¢]|\b[A-Z]{3}\b")


def _no_currency(v: str) -> bool:
    return not _CURRENCY_MARK_RE.search(v)


def _is_date(v: str) -> bool:
    return parse_date_iso(v) is not None


def _by_shape(s: Slot) -> tuple[str, str] | None:
    """Rule 5b: a text column no class names, named by what its values are (``reviews``
    for "71 reviews", ``rank``, ``size``, ``percent``, ``time``); a class, meaningful or
    not, is the slot's own name and stays the same on pages whose few values differ."""
    vals = [v for v in s.values if isinstance(v, str)]
    name = shape_name(vals) if s.kind == "text" and len(vals) >= 2 else None
    return (name, "type") if name else None


def _fill(s: Slot) -> float:
    return sum(1 for v in s.values if v is not None) / max(1, len(s.values))


def _mean_length(s: Slot | None) -> float:
    vals = [v for v in s.values if isinstance(v, str)] if s is not None else []
    return sum(len(v) for v in vals) / len(vals) if vals else 0.0


class _Namer:
    """The naming rules for the data slots of one alignment."""

    def __init__(
        self,
        page: Page,
        maps: list[NodeMap],
        layout: Layout,
        anchor: dict[int, TemplateNode],
        count: dict[tuple[TemplateNode, str], int],
        labels: dict[int, Label],
        rows: bool,
    ) -> None:
        self.tparent: Parents = layout.parent
        self.tdepth: Depths = layout.depth
        self.anchor, self.count, self.labels = anchor, count, labels
        self.evidence = Evidence(page, maps)
        self.items = page.items  # the schema.org items the page lists in JSON-LD
        self.tagnames = tag_names(page)
        self.headers = TableHeaders(page, maps, layout.parent, layout.depth)
        self.rows = rows  # the records are table rows: table headers may name columns
        self.main_url = self.main_text = -1  # id() of the main link's slots
        self.link_names: dict[TemplateNode, tuple[str, str]] = {}  # text's element -> its name
        self.link_text: dict[TemplateNode, Slot] = {}  # link element -> its one text slot
        # (node, type) -> position of the first column of that type under it; id(slot) -> its
        self.typed: dict[tuple[TemplateNode, str], int] = {}
        self.position: dict[int, int] = {}

    # ------------------------------------------------------------------ the main link
    def find_main_link(self, data: list[Slot], n: int) -> None:
        """The record's main link: in a heading first (``<h3><a>`` or ``<a><h3>``), then
        the longest link text (a link's text is the one text slot inside the link). A link
        whose text is one value in the records holding it is an action ("View image" in
        most records), never the record's title; a text most records lack does not make
        its link the longest (a board's name on a few cards of homes)."""
        texts = self.link_text = self._link_texts(data)
        best, best_key = None, None
        for s in data:
            if s.kind != "url" or s.multiple or _fill(s) < 0.5:
                continue
            a = self.anchor[id(s)]
            text = texts.get(a)
            label = self.labels.get(id(text)) if text is not None else None
            if label is not None and not label.loose:
                continue  # a labelled link ("By <a>Jane</a>") is that label's
            if text is not None and one_value(text):
                continue  # "View image" wherever it is there: an action, not the title
            heading = self._in_heading(a) or (
                text is not None and self._in_heading(self.anchor[id(text)])
            )
            length = _mean_length(text) if text is not None and _fill(text) >= 0.5 else 0.0
            key = (heading, length, _fill(s))
            if best_key is None or key > best_key:
                best, best_key = s, key
        if best is not None:
            self.main_url = id(best)
            text = texts.get(self.anchor[id(best)])
            if text is None:  # an image link in the heading: the text link to the same page
                text = self._same_target_text(data, best, texts)
            if text is not None:
                self.main_text = id(text)

    def _same_target_text(
        self, data: list[Slot], main: Slot, texts: dict[TemplateNode, Slot]
    ) -> Slot | None:
        """The text of another link to the main link's page in (nearly) every record that
        has both: the title beside a product image the heading links."""
        for s in data:
            if s is main or s.kind != "url" or s.multiple:
                continue
            text = texts.get(self.anchor[id(s)])
            if text is None or _fill(text) < 0.5 or one_value(text):
                continue
            both = [
                (a, b) for a, b in zip(main.values, s.values) if a is not None and b is not None
            ]
            if len(both) >= 2 and sum(a == b for a, b in both) >= 0.8 * len(both):
                return text
        return None

    def _link_texts(self, data: list[Slot]) -> dict[TemplateNode, Slot]:
        """Link element -> the text slot that is its text: the one inside it, or of those
        the one in a heading, else the one most records have (a rare part inside the link
        does not change which text it is)."""
        links = {self.anchor[id(s)] for s in data if s.kind == "url"}
        inside: dict[TemplateNode, list[Slot]] = {}
        for s in data:
            if s.kind != "text":
                continue
            p: TemplateNode | None = self.anchor[id(s)]
            while p is not None and self.tdepth.get(p, 0) >= 1:
                if p in links:
                    inside.setdefault(p, []).append(s)
                    break
                p = self.tparent.get(p)
        out: dict[TemplateNode, Slot] = {}
        for link, texts in inside.items():
            if len(texts) > 1:
                texts = [t for t in texts if self._in_heading(self.anchor[id(t)])] or texts
            if len(texts) > 1:  # a badge a few records show beside the text ("New listing")
                texts = [t for t in texts if _fill(t) >= 0.5]
            if len(texts) == 1:
                out[link] = texts[0]
        return out

    def _in_heading(self, t: TemplateNode) -> bool:
        p: TemplateNode | None = t
        while p is not None and self.tdepth.get(p, 0) >= 1:
            if tag_of(p, self.tagnames) in _HEADINGS:
                return True
            p = self.tparent.get(p)
        return False

    # ------------------------------------------------------------------------ naming
    def name(self, s: Slot) -> tuple[str, str]:
        """``(name, evidence)`` of data slot ``s``."""
        kind = s.kind
        a = self.anchor[id(s)]
        chain = self._chain(a, kind)
        rules = (
            lambda: self._by_main_link(s) if id(s) == self.main_url else None,
            lambda: self._by_schema(chain),
            lambda: self._by_json_ld(s),
            lambda: self._by_context(s, chain),
            lambda: self._by_main_link(s),
            lambda: self._by_link(s, a),
            lambda: self._by_type(s, chain),
            lambda: self._by_control(s, chain),
            lambda: self._unless_mistyped(s, self._by_class(chain, a)),
            lambda: self._by_fragment(s, chain),
            lambda: _by_shape(s),
            lambda: self._by_tag(chain, kind),
        )
        found = None
        for rule in rules:
            found = rule()
            # an address word over a link's caption ("Find a Unit" under property="url" or
            # class "link") names the link's href: the caption is named by what comes next
            # and `url` is the record's main link's: another link's address is named by its text
            if (
                found is None
                or (kind == "text" and found[0] in _ADDRESS_NAMES and not _writes_addresses(s))
                or (kind == "url" and found[0] == "url" and id(s) != self.main_url)
            ):
                found = None
                continue
            break
        if found is None:
            found = generic_name(kind, s.values), "generic"
        name, evidence = found
        if kind in ("url", "image") and evidence != "link":
            named = says_url(name) if kind == "url" else any(w in name for w in IMAGE_WORDS)
            if not named:
                name = f"{name}_{'url' if kind == 'url' else 'image'}"
        if kind == "text" and evidence != "generic":
            self.link_names.setdefault(a, (name, evidence))
        return name, evidence

    def class_name(self, s: Slot) -> str | None:
        """The name ``s``'s class or id tokens give, if any."""
        a = self.anchor[id(s)]
        found = self._unless_mistyped(s, self._by_class(self._chain(a, s.kind), a))
        return found[0] if found else None

    def _chain(self, a: TemplateNode, kind: str) -> list[TemplateNode]:
        """``a`` and its ancestors inside the record that hold no other slot of ``kind``."""
        tparent, tdepth, count = self.tparent, self.tdepth, self.count
        chain: list[TemplateNode] = []
        p: TemplateNode | None = a
        while p is not None and tdepth.get(p, 0) >= 2:  # stop at record roots
            if count.get((p, kind), 0) <= 1:
                chain.append(p)
            else:
                break
            p = tparent.get(p)
        return chain

    def _by_schema(self, chain: list[TemplateNode]) -> tuple[str, str] | None:
        """Rule 1: schema.org microdata (``itemprop``) or RDFa (``property``)."""
        ev = self.evidence
        for attr in ("itemprop", "property"):
            for k, t in enumerate(chain):
                if k and "itemscope" in ev.attr_names(t):
                    break  # an item around the value (itemListElement): its name, not this
                v = ev.stable_attr(t, attr)
                if v:
                    # "schema:name", "og:title", "http://schema.org/price" -> the last part
                    name = property_name(v)
                    if name:
                        return name, attr
                    break
        return None

    def _by_json_ld(self, s: Slot) -> tuple[str, str] | None:
        """Rule 1: the property of the page's JSON-LD items whose values the column's are
        (``offers.price`` -> ``price``, ``brand.name`` -> ``brand``)."""
        path = self.items.path_of(s.values) if self.items else None
        return (path_name(path), "json-ld") if path else None

    def _by_context(self, s: Slot, chain: list[TemplateNode]) -> tuple[str, str] | None:
        """Rule 2: a label next to the value, a table header above it, a stable
        ``aria-label``/``title``/``alt``."""
        label = self.labels.get(id(s))
        if label is not None and not (
            (label.own_link and id(s) == self.main_url)  # its text ("Read more") names no field
            or (label.loose and id(s) in (self.main_url, self.main_text))  # a badge beside it
        ):
            return (_price_name(label.name) if s.type == "price" else label.name), "label"
        glued = _glued_price_label(s)
        if glued is not None:
            return glued, "label"
        if s.kind == "text" and s.type == "text" and not s.multiple and id(s) != self.main_text:
            name = glued_label([v for v in s.values if isinstance(v, str) and v])
            if name:  # "Depth: 2", "By: Ann" in the value's own text
                return name, "label"
        if self.rows:
            hdr = self.headers.name(s)
            if hdr:
                return hdr, "header"
        # an attribute text names the column when records share it (one record's own
        # "Ending time: 0:39" is its data) and it is not one of the column's values (a
        # colour swatch titled with its colour); an image's ``alt`` describes that image
        ev = self.evidence
        own = {
            x.strip().casefold()
            for v in s.values
            for x in (v if isinstance(v, (list, tuple)) else (v,))
            if isinstance(x, str)
        }
        for t in chain:
            for at in ("aria-label", "title"):
                v = ev.stable_attr(t, at, at_least=2)
                ln = label_name(v) if v and v.strip().casefold() not in own else None
                if ln:
                    return ln, at
        return None

    def _by_main_link(self, s: Slot) -> tuple[str, str] | None:
        """Rule 3: the main link's ``title`` and ``url``."""
        if id(s) == self.main_url:
            return "url", "link"
        if id(s) == self.main_text:
            return "title", "link"
        return None

    def _by_link(self, s: Slot, a: TemplateNode) -> tuple[str, str] | None:
        """Rule 3: another link's URL is named after its text (``author_url``)."""
        if s.kind != "url":
            return None
        text = self.link_text.get(a)
        if text is not None and text.evidence != "generic":
            name, evidence = text.name, text.evidence
        elif a in self.link_names:
            name, evidence = self.link_names[a]
        else:
            return None
        if evidence == "link":
            return None
        return (name if says_url(name) else f"{name}_url"), evidence

    def _by_type(self, s: Slot, chain: list[TemplateNode]) -> tuple[str, str] | None:
        """Rule 4: the value's type; a class of the value's own that says the type
        (``prod_price``, ``article_time``) names it better, whatever the values say and
        whichever other columns a page has."""
        typ = None
        if s.type in ("price", "date"):
            typ = s.type
        elif s.kind == "image":
            typ = "image"
        elif s.kind == "text":
            vals = [v for v in s.values if isinstance(v, str)]
            if vals and sum(1 for v in vals if _RATING_RE.match(v)) >= 0.8 * len(vals):
                typ = "rating"
            elif vals and mostly(vals, _is_price):
                typ = "price"  # a range ("£3 to £9") keeps the column text, not its name
            elif vals and mostly(vals, _is_date):
                typ = "date"
            elif vals and is_written_address(vals) and not self._is_link_text(s):
                return "display_url", "type"  # (a link's address text: the link's column)
        if typ is None:
            return None
        words = _TYPE_WORDS.get(typ)
        own = self._chain_class(chain) if words else None
        if own is None and words:
            t = chain[-1] if chain else self.anchor[id(s)]
            own = self._typed_ancestor_class(t, typ, self.position.get(id(s), 0))
        if own is not None and any(w in own[0] for w in words or ()):
            return own
        return typ, "type"

    def _is_link_text(self, s: Slot) -> bool:
        return any(t is s for t in self.link_text.values())

    def _by_control(self, s: Slot, chain: list[TemplateNode]) -> tuple[str, str] | None:
        """Rule 4b: a button's caption that opens with a verb ("add to cart", "preorder
        now") is the action it offers, whatever the button's styling classes say
        (``flip-active``); a swatch's caption ("black") is not."""
        if s.kind != "text" or not any(tag_of(t, self.tagnames) == "button" for t in chain[:2]):
            return None
        vals = [v for v in s.values if isinstance(v, str)]
        if vals and mostly(vals, is_action):
            return "action", "tag"
        return None

    def _typed_ancestor_class(self, t: TemplateNode, typ: str, at: int) -> tuple[str, str] | None:
        """The nearest class above ``t`` when it wraps no value of type ``typ`` before the
        column at document position ``at``: a ``lvprice`` block holding the price and a unit
        note, or the price and a later "Was: £4.99", names the price whether or not the note
        or the old price is there (and whether a range left the price column text)."""
        ev, tparent, tdepth = self.evidence, self.tparent, self.tdepth
        p = tparent.get(t)
        while p is not None and tdepth.get(p, 0) >= 2:
            v = ev.best_class(p)
            if v:
                return (v, "class") if self.typed.get((p, typ), at) >= at else None
            p = tparent.get(p)
        return None

    def _chain_class(self, chain: list[TemplateNode]) -> tuple[str, str] | None:
        """The name class or id tokens on the chain give."""
        ev = self.evidence
        for t in chain:
            sid = ev.stable_tokens(t)[1]
            v = ev.best_class(t)
            if v:
                return v, "class"
            if sid:
                v = token_name(sid)
                if v:
                    return v, "id"
        return None

    def _by_class(self, chain: list[TemplateNode], a: TemplateNode) -> tuple[str, str] | None:
        """Rule 5: class or id tokens on the chain, then an ancestor's class."""
        found = self._chain_class(chain)
        if found is not None:
            return found
        # an ancestor's class even when it holds other slots too ("specs", "specs_2")
        ev = self.evidence
        tparent, tdepth = self.tparent, self.tdepth
        p = tparent.get(chain[-1]) if chain else a
        while p is not None and tdepth.get(p, 0) >= 2:
            v = ev.best_class(p)
            if v:
                return v, "class"
            p = tparent.get(p)
        return None

    @staticmethod
    def _unless_mistyped(s: Slot, found: tuple[str, str] | None) -> tuple[str, str] | None:
        """A class that names a price (``a-color-price``: the colour prices are drawn in)
        does not name a text column whose texts mostly show no currency ("Only 1 left in
        stock", "See more like this"); "US $36-40 / Piece" keeps it."""
        if found is None or s.kind != "text" or s.type == "price" or "price" not in found[0]:
            return found
        vals = [v for v in s.values if isinstance(v, str)]
        return None if vals and mostly(vals, _no_currency) else found

    def _by_fragment(self, s: Slot, chain: list[TemplateNode]) -> tuple[str, str] | None:
        """Rule 5b: a text on links to one fragment of different pages ("155" on
        ``.../dp/B003VX56MK#customerReviews``) is named by that fragment."""
        if s.kind != "text":
            return None
        ev = self.evidence
        for t in chain[:2]:
            if tag_of(t, self.tagnames) != "a":
                continue
            hrefs = [ev.pel[i].get("href") or "" for i in ev.elems(t)]
            frags = {h.rpartition("#")[2] for h in hrefs}
            if len(hrefs) >= 2 and len(frags) == 1 and all("#" in h for h in hrefs):
                name = fragment_name(frags.pop())
                return (name, "href") if name else None
        return None

    def _by_tag(self, chain: list[TemplateNode], kind: str) -> tuple[str, str] | None:
        """Rule 6: the element's tag (a link's only when it is a heading)."""
        for t in chain[:2]:
            tn = TAG_NAMES.get(tag_of(t, self.tagnames))
            if tn is not None and (kind == "text" or tn == "title"):
                return tn, "tag"
        return None
