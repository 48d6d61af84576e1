"""Column names for the aligned slots, and the text helpers that make names.

:func:`name_slots` names each data slot by the first rule that applies (the column's
``evidence`` tells which):

1. ``itemprop`` of the slot's element, or of an ancestor inside the record that holds no
   other slot of the same kind; else a stable ``aria-label``/``title`` there;
2. ``label``: static template text next to the value ("Price:", ``<dt>``,
   "<b>9</b> <i>Decor</i>"), see :func:`mark_static`;
3. ``header``: the ``th`` above the cell when the records are table rows;
4. ``class``/``id``: stable tokens (framework noise such as ``col-md-6``, hashes and digits
   skipped, BEM ``block__elem`` -> ``elem``); an ancestor's class when nothing nearer
   names it;
5. ``tag``: the element (``h1``-``h6`` -> ``title``, ``time`` -> ``date``...);
6. ``type``: the value type (``url``, ``image``, ``price``, ``date``);
7. ``position``: ``field_N``, N the column's position.

A link/image column named by evidence gets ``_url``/``_image`` appended unless the name
already says so. The text-to-name rules are in :mod:`~scrapy_records.fields.naming`.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from scrapy_records.fields.naming import (
    best_token,
    glued_prefixes,
    is_action,
    label_name,
    unglue,
)
from scrapy_records.fields.records import page_data
from scrapy_records.fields.slots import Slot
from scrapy_records.fields.template import NodeMap, TemplateNode
from scrapy_records.fields.text import LABEL_TAGS, is_byline_label, is_label_text
from scrapy_records.page import Page

Parents = dict[TemplateNode, TemplateNode | None]
Depths = dict[TemplateNode, int]

_ID_DIGITS_RE = re.compile(r"[-_]?\d+")
_WORD_RE = re.compile(r"\w")


# ============================================================ static text and labels
class Label(NamedTuple):
    """The label that names a data slot."""

    name: str
    own_link: bool  # the label is the constant text of the slot's own link ("Read more")
    loose: bool  # only a short text beside the value: a badge ("web", "New") reads alike
    eaten: list[Any] | None = None  # per record, the value the label's own text holds
    after: bool = False  # names the value after nearer ones its records lack ("by" ... name)


def fill_eaten(data: list[Slot], labels: dict[int, Label]) -> None:
    """Where a label slot holds its value in its own text ("Blog Entry By Jane Roe", no
    link), that value fills the labelled text column for the record: nothing is lost."""
    for s in data:
        lab = labels.get(id(s))
        if lab is None or lab.eaten is None or s.kind != "text" or s.type != "text":
            continue
        for r, v in enumerate(lab.eaten):
            if v is not None and s.values[r] is None:
                s.values[r] = v


#: elements whose static text is an action ("Add to cart"), never a label
_ACTION_TAGS = frozenset({"a", "button", "option", "select", "input"})

#: element names that say what their text is (used after itemprop/label/class evidence)
TAG_NAMES = {
    "h1": "title",
    "h2": "title",
    "h3": "title",
    "h4": "title",
    "h5": "title",
    "h6": "title",
    "time": "date",
    "address": "address",
    "figcaption": "caption",
    "caption": "caption",
    "blockquote": "quote",
    "cite": "source",
}


def mark_static(slots: list[Slot], n: int, page: Page | None = None) -> None:
    """Mark the static slots: not columns, and the labels :func:`name_slots` may use.

    A slot with one value in every record (template text, a constant link or image) is
    static; so is, wherever it is present, an image or link with one value in at least
    three records (an icon, a link every record shares), text with no word in it ("-",
    "|"), text that ends with ":" (even in one record), and text with one value in at
    least two records that reads as a label and is present exactly where the next text
    slot is. So is one label written in up to three ways ("Written by" / "By:",
    :func:`_label_variants`); where its text also holds the value, ``raw`` keeps that
    value per record for :func:`fill_eaten`. With ``page``, one text in at least two
    records on a control (a button, a link to ``#`` or a script, an element whose class
    says button: "Buy online", "Save to list", "more") is static too, and so is one text in
    :data:`CAPTION_SHARE` of the records (three at least) that is the whole text of links
    to different places ("View image", not an item of a list: :func:`_link_caption`), and
    so is one short text in some records that always comes with the value after it in its
    block (its element, or up to two levels up), a value other records lack ("Learn more
    about working at <a>Acme</a>", "More Buying Choices" above the offers: a heading that
    names the value, :func:`_heads`); a text the page annotates as a property
    (``itemprop`` on its element) never is. Links that share the page
    (``mailto:?subject=...``, a network's share endpoint) are static whatever their
    values."""
    present = [sum(1 for v in s.values if v is not None) for s in slots]
    for k, s in enumerate(slots):
        vals = {v for v in s.values if v is not None}
        if s.kind == "url" and vals and all(_SHARE_RE.search(str(v)) for v in vals):
            s.static = True  # "share by e-mail / on Facebook": the page's widget, no data
            continue
        if len(vals) > 1 and s.kind == "text":
            eaten = _label_variants(s.values)
            if eaten is not None:  # "Written by" / "By:": one label written two ways
                s.static, s.raw = True, eaten
                continue
        if len(vals) == 1 and present[k] == 1 and s.kind == "text" and n >= 2:
            # in one record only: a label by its form ("Sale ends:"), nothing else tells
            s.static = next(iter(vals)).rstrip().endswith((":", "："))
        elif n >= 2 and len(vals) == 1 and present[k] >= 2:
            if s.kind == "text" and page is not None and _annotated(page, s):
                continue  # microdata says it is a property: one town for all results
            if present[k] == n or (s.kind != "text" and present[k] >= 3):
                s.static = True
            elif s.kind == "text":
                v = next(iter(vals))
                # the caption of links to different places: in most records, or in three
                # at least when it says what the link does ("See more like this")
                often = _most(present[k], n) or (present[k] >= 3 and is_action(v))
                caption = often and page is not None and _link_caption(page, s, v)
                if not _WORD_RE.search(v) or caption or (page is not None and _on_control(page, s)):
                    s.static = True
                    continue
                nxt = next((o for o in slots[k + 1 :] if o.kind == "text"), None)
                same_presence = nxt is not None and all(
                    (a is None) == (b is None) for a, b in zip(s.values, nxt.values)
                )
                if is_label_text(v) or (same_presence and label_name(v)):
                    s.static = True  # ("by" names whichever value follows it)
                elif page is not None and nxt is not None and _heads(page, s, nxt, v):
                    # "More Buying Choices" above the offers it shows: it names them all
                    s.static, s.evidence = True, "heading"


#: the most words a heading of an optional value has ("Learn more about working at")
HEADING_WORDS = 6


def _heads(page: Page, s: Slot, value: Slot, text: str, levels: int = 2) -> bool:
    """Constant text ``s`` (``text``, in some records only) heads the next text slot
    ``value``: the value is in every record that shows the text and missing from some
    others, and follows the text inside the text's element or an ancestor at most
    ``levels`` up ("Learn more about working at <a>Acme</a>"; "<div><span>More Buying
    Choices</span></div><div><a>$8.73 used & new</a></div>"). The text comes with the
    value and names it. A badge ("New listing", "Sponsored") comes and goes on its own
    beside a value every record has, and a link's text is an action: both stay data."""
    if len(text.split()) > HEADING_WORDS:
        return False
    both = []
    for r, (a, b) in enumerate(zip(s.refs, value.refs)):
        if a is None:
            continue
        if b is None:
            return False  # the text without the value: it says something on its own
        both.append(r)
    if all(b is not None for b in value.refs):
        return False  # a value every record has: the text beside it tells records apart
    pd = page_data(page)
    for r in both[:3]:
        t, x = s.refs[r], value.refs[r]
        if t is None or x is None:
            return False
        el = pd.element(t)
        if page.tag[el] in _ACTION_TAGS or _first_leaf(pd, x) <= _first_leaf(pd, t):
            return False
        ve = pd.element(x)
        for _ in range(levels + 1):
            if el < 0 or el <= ve <= page.end[el]:
                break
            el = page.parent[el]
        if el < 0 or not el <= ve <= page.end[el]:
            return False
    return True


def _first_leaf(pd: Any, x: int) -> int:
    """Document position of node ``x``'s first text leaf."""
    if x >= 0:
        return int(pd.leaf_lo[x])
    k = -x - 1
    if k < pd.nleaves:
        return k
    items = pd.runs[k - pd.nleaves][1]
    return _first_leaf(pd, items[0]) if items else -1


#: links that share the page rather than point at data: an e-mail with no recipient and the
#: share endpoints of the common networks
_SHARE_RE = re.compile(
    r"^mailto:\?|//(?:www\.)?(?:facebook\.com/(?:sharer|share\.php|dialog/share)"
    r"|(?:twitter|x)\.com/(?:intent/|share)|linkedin\.com/(?:sharing/|shareArticle|cws/share)"
    r"|pinterest\.\w+/pin/create|reddit\.com/submit|api\.whatsapp\.com/send"
    r"|wa\.me/\?|t\.me/share|(?:www\.)?tumblr\.com/(?:share|widgets/share))",
    re.I,
)


_BUTTON_CLASS_RE = re.compile(r"(?:^|[-_\s])(?:btn|button)(?:$|[-_\s])|Button", re.I)


def _annotated(page: Page, s: Slot) -> bool:
    """The slot's first node's element carries ``itemprop`` (schema.org microdata)."""
    x = next((x for x in s.refs if x is not None), None)
    if x is None:
        return False
    return bool(page.el[page_data(page).element(x)].get("itemprop"))


def _on_control(page: Page, s: Slot, levels: int = 3) -> bool:
    """Each of the slot's first nodes lies on a control (at most ``levels`` up): a
    ``button``, a link to nothing, ``#`` or a script, or an element whose class says
    button."""
    refs = [x for x in s.refs if x is not None][:3]
    if not refs:
        return False
    pd = page_data(page)
    for x in refs:
        x = pd.element(x)
        hit = False
        for _ in range(levels + 1):
            if x < 0:
                break
            el, tag = page.el[x], page.tag[x]
            href = (el.get("href") or "").strip() if tag == "a" else None
            if (
                tag == "button"
                or (href is not None and (href in ("", "#") or href.startswith("javascript:")))
                or _BUTTON_CLASS_RE.search(el.get("class") or "")
            ):
                hit = True
                break
            x = page.parent[x]
        if not hit:
            return False
    return True


#: the share of the records that show one text on links to different places for the text
#: to be their caption ("View image"); shown by fewer, one text tells those records apart
#: ("Home from Zillow" beside users' names)
CAPTION_SHARE = 0.8


def _most(present: int, n: int) -> bool:
    return present >= 3 and present >= CAPTION_SHARE * n


def _link_caption(page: Page, s: Slot, value: str, levels: int = 2) -> bool:
    """Each of the slot's first nodes is the whole text of a link (at most ``levels`` up)
    and the links go to different places: the caption of an action on each record ("View
    image", "Similar products"), template text whichever records show it; a text that
    stays with its target (one author's page) is not."""
    refs = [x for x in s.refs if x is not None][:3]
    if len(refs) < 2:
        return False
    pd = page_data(page)
    want = " ".join(value.split())
    hrefs = set()
    for x in refs:
        x = pd.element(x)
        for _ in range(levels + 1):
            if x < 0 or page.tag[x] == "a":
                break
            x = page.parent[x]
        if x < 0 or page.tag[x] != "a":
            return False
        el = page.el[x]
        href = (el.get("href") or "").strip()
        if not href or " ".join(el.text_content().split()) != want or _listed(el):
            return False
        hrefs.add(href)
    return len(hrefs) > 1


def _listed(el: Any, levels: int = 2) -> bool:
    """``el``, or the element it alone fills (at most ``levels`` up), has a sibling of its
    tag: an item of a list (``<li><a>``), whose texts :mod:`~scrapy_records.fields.repeats`
    reads as a list."""
    for _ in range(levels + 1):
        parent = el.getparent()
        if parent is None:
            return False
        if sum(1 for c in parent if c.tag == el.tag) > 1:
            return True
        if len(parent) > 1:
            return False
        el = parent
    return False


def _label_variants(values: list[Any]) -> list[Any] | None:
    """A text slot whose values read as labels of one name, in one to three spellings
    ("Written by", "By:"), each in two or more records, save values that are one of these
    labels followed by its value ("Blog Entry By Jane Roe - May 2"): the label slot, with
    those values per record (``None`` elsewhere). ``None`` when the slot is no label."""
    spellings: dict[str, int] = {}
    for v in values:
        if v is not None and is_byline_label(v):
            spellings[v] = spellings.get(v, 0) + 1
    if not 1 <= len(spellings) <= 3 or min(spellings.values()) < 2:
        return None
    names = {label_name(v) for v in spellings}
    if len(names) != 1 or None in names:
        return None  # (texts that end with ":" but name nothing are no label)
    eaten: list[Any] = [None] * len(values)
    prefixes = sorted((x.strip() for x in spellings), key=len, reverse=True)
    for r, v in enumerate(values):
        if v is None or v in spellings:
            continue
        p = next((p for p in prefixes if v.startswith(p + " ")), None)
        if p is None:
            return None
        eaten[r] = v[len(p) :].strip()
    return eaten


def tag_names(page: Page) -> list[str]:
    """Tag name by tag id for the page (memoised in its :class:`PageData`)."""
    pd = page_data(page)
    lst = pd.attrs.get("#tagnames")
    if lst is None:
        lst = [""] * len(page.tag_names)
        for name, i in page.tag_names.items():
            lst[i] = name
        pd.attrs["#tagnames"] = lst
    return lst


def tag_of(t: TemplateNode, names: list[str]) -> str:
    """The tag name of template node ``t`` (``names``: :func:`tag_names` of the page)."""
    if t.label < 0:
        return ""
    return names[t.label] if t.label < len(names) else ""


#: values a label known only by its class does not name: a link's text, a heading
_NOT_CLASS_LABELLED = frozenset({"a", "h1", "h2", "h3", "h4", "h5", "h6"})


def find_labels(
    slots: list[Slot],
    anchor: dict[int, TemplateNode],
    tparent: Parents,
    tdepth: Depths,
    tagnames: list[str],
    classed: set[int] | None = None,
) -> dict[int, Label]:
    """Static label texts -> the data slot each one names: ``id(slot) ->`` :class:`Label`.

    A label sits next to its value in slot order, within two levels of their common
    ancestor, and reads like a label (ends with ":", is held by ``label``/``dt``/``th``/
    ``b``..., or by an element whose class says label (``classed``: ``id()`` of those
    slots, ``<div class="lab">Response Rate</div>``), names a role such as "by", or is a
    short text in an element of another tag than the value's: a *loose* label, which may
    be a badge as well). It names the
    following value, unless it does not end with ":" and the preceding value is closer
    in the tree, or is a sibling and no value follows ("<b>9</b> <i>Decor</i>").
    """
    out: dict[int, Label] = {}
    for k, lab in enumerate(slots):
        if not lab.static or lab.kind != "text" or lab.collapsed:
            continue
        present = [v for v in lab.values if v is not None]
        lv = next((v for v in present if is_byline_label(v)), present[0] if present else None)
        ln = label_name(lv) if lv else None
        lab_el = tparent.get(lab.t)
        if not ln or not lv or lab_el is None:
            continue
        colon = lv.rstrip().endswith((":", "："))
        cands = []
        for j in (k + 1, k - 1):
            if 0 <= j < len(slots) and not slots[j].static and id(slots[j]) in anchor:
                d = _dist(lab_el, anchor[id(slots[j])], tparent, tdepth)
                if d is not None:
                    cands.append((d, j))
        if not cands:
            continue
        back = [c for c in cands if c[1] == k - 1]
        fwd = [c for c in cands if c[1] == k + 1]
        if (
            back
            and not colon
            and ((fwd and back[0][0] < fwd[0][0]) or (not fwd and back[0][0] <= 2))
        ):
            cands = back  # value first, label after, and closer to it ("9 Decor")
        else:
            cands = fwd
        if not cands:
            continue
        target = slots[cands[0][1]]
        a = anchor[id(target)]
        if id(target) in out or not _near(lab_el, a, tparent, tdepth):
            continue
        lab_tag = tag_of(lab_el, tagnames)
        if lab_tag in _ACTION_TAGS and a is not lab_el:
            continue  # "Add to cart" names nothing; a link's constant text names its link
        if lab_tag == "label" and not colon and a is not lab_el:
            continue  # a form control's caption ("Compare" by its checkbox), not a value's
        strong = colon or a is lab_el or lab_tag in LABEL_TAGS or is_byline_label(lv)
        if classed is not None and id(lab) in classed and a is not lab_el:
            # (not before a link or a heading: Bootstrap's ``label`` is a badge, "web")
            strong = strong or tag_of(a, tagnames) not in _NOT_CLASS_LABELLED
        loose = lab_tag != tag_of(a, tagnames) and len(lv.split()) <= 3 and _beside(lab, target)
        if strong or loose:
            eaten = lab.raw if lab.static else None
            heading = lab.evidence == "heading"  # names the list of values it heads
            out[id(target)] = Label(ln, a is lab_el, not strong, eaten, heading)
            if cands[0][1] == k + 1 and is_byline_label(lv):
                for j in byline_targets(slots, k):
                    b = anchor.get(id(slots[j]))
                    if (
                        b is not None
                        and id(slots[j]) not in out
                        and _near(lab_el, b, tparent, tdepth)
                    ):
                        out[id(slots[j])] = Label(ln, False, False, after=True)
    return out


def byline_targets(slots: list[Slot], k: int, reach: int = 6) -> list[int]:
    """The text slots after label slot ``k`` other than the next one that the label
    precedes in every record holding them, the nearer data slots being absent there: "by"
    before a linked author in some records and a plain name in others names both."""
    lab, out = slots[k], []
    between: list[Slot] = []
    for j in range(k + 1, min(len(slots), k + 1 + reach)):
        s = slots[j]
        if s.static:
            if s.kind == "text":
                break  # another label or template text: the values after it are its
            continue
        rows = [r for r, v in enumerate(s.values) if v is not None]
        if (
            between
            and s.kind == "text"
            and rows
            and all(
                lab.values[r] is not None and all(o.values[r] is None for o in between)
                for r in rows
            )
        ):
            out.append(j)
        between.append(s)
    return out


#: the share of the records holding a loose label that must hold its value too
LOOSE_LABEL_COVER = 0.9


def _beside(lab: Slot, value: Slot) -> bool:
    """A loose label (a short text beside the value, no other sign of a label) is the
    value's when the records that show it show the value too: a text standing alone in
    a third of them ("China (Mainland)" where a supplier has no "Trade Assurance") is a
    value of its own that a page holds once in every record, not the value's name."""
    shown = sum(1 for v in lab.values if v is not None)
    held = sum(1 for a, b in zip(lab.values, value.values) if a is not None and b is not None)
    return held >= LOOSE_LABEL_COVER * shown


def _dist(x: TemplateNode, y: TemplateNode, tparent: Parents, tdepth: Depths) -> int | None:
    """Tree distance (edges through the lowest common ancestor) of two template nodes."""
    anc = {}
    p: TemplateNode | None = x
    while p is not None:
        anc[p] = tdepth[x] - tdepth[p]
        p = tparent.get(p)
    p, up = y, 0
    while p is not None and p not in anc:
        p = tparent.get(p)
        up += 1
    return None if p is None else up + anc[p]


def _near(
    label_owner: TemplateNode, anchor: TemplateNode, tparent: Parents, tdepth: Depths
) -> bool:
    """A label's element and a value's element are within two levels of their common ancestor."""
    anc = set()
    p: TemplateNode | None = label_owner
    while p is not None:
        anc.add(p)
        p = tparent.get(p)
    p, up = anchor, 0
    while p is not None and p not in anc:
        p = tparent.get(p)
        up += 1
    if p is None:
        return False
    return up <= 2 and tdepth[label_owner] - tdepth[p] <= 2


# =================================================================== table headers
_CELL_TAGS = ("td", "th")


class TableHeaders:
    """Names from the ``th`` cell above a slot's cell when the records are table rows.

    The name depends on the cell only, so it is kept per cell template node; each table's
    first header row and each cell's ``colspan`` are kept too."""

    def __init__(self, page: Page, maps: list[NodeMap], tparent: Parents, tdepth: Depths) -> None:
        self.page, self.maps = page, maps
        self.tparent, self.tdepth = tparent, tdepth
        self.names: dict[TemplateNode, str | None] = {}
        self.head_rows: dict[int, int] = {}  # table -> its first header row (-1: none)
        self.spans: dict[int, int] = {}  # cell -> colspan

    def name(self, s: Slot) -> str | None:
        # the slot's cell: the ancestor at depth 2 (record root tr = depth 1)
        tparent, tdepth = self.tparent, self.tdepth
        t: TemplateNode | None = s.t
        while t is not None and tdepth.get(t, 0) > 2:
            t = tparent.get(t)
        if t is None or tdepth.get(t) != 2:
            return None
        if t not in self.names:
            self.names[t] = self._cell_header(t)
        return self.names[t]

    def _cell_header(self, t: TemplateNode) -> str | None:
        """The header name of cell template node ``t``, read in the first record holding it."""
        loc = next((m[t] for m in self.maps if t in m), None)
        if loc is None:
            return None
        page = self.page
        tag, children = page.tag, page.children
        cell = loc
        row = page.parent[cell]
        if cell < 0 or tag[cell] not in _CELL_TAGS or row < 0 or tag[row] != "tr":
            return None
        if self._span(cell) != 1:
            return None
        col = width = 0
        for c in children[row]:
            if c == cell:
                col = width
            if tag[c] in _CELL_TAGS:
                width += self._span(c)
        table = row
        while table >= 0 and tag[table] != "table":
            table = page.parent[table]
        if table < 0:
            return None
        head = self._header_row(table)
        if head < 0 or row < head:
            return None
        cells = [c for c in children[head] if tag[c] in _CELL_TAGS]
        if sum(self._span(c) for c in cells) != width:
            return None  # the header row does not describe rows of this shape
        k = 0
        for c in cells:
            w = self._span(c)
            if k <= col < k + w:
                return label_name(page.text(c) or _drawn_caption(page, c))
            k += w
        return None

    def _span(self, c: int) -> int:
        v = self.spans.get(c)
        if v is None:
            try:
                v = max(1, int(self.page.el[c].get("colspan") or 1))
            except ValueError:
                v = 1
            self.spans[c] = v
        return v

    def _header_row(self, table: int) -> int:
        """The first row of the table that has ``th`` cells only (-1: none); a record row
        before it (checked by the caller) means it heads another part of the table."""
        head = self.head_rows.get(table)
        if head is None:
            head = -1
            tag, children = self.page.tag, self.page.children
            for i in range(table + 1, self.page.end[table] + 1):
                if tag[i] != "tr":
                    continue
                cells = [c for c in children[i] if tag[c] in _CELL_TAGS]
                if cells and all(tag[c] == "th" for c in cells):
                    head = i
                    break
            self.head_rows[table] = head
        return head


def _drawn_caption(page: Page, cell: int) -> str:
    """The caption of a header cell that shows an icon instead of a word: the ``alt``,
    ``aria-label`` or ``title`` of its first element that has one (a "Comments" bubble)."""
    el, end = page.el, page.end
    for i in range(cell, end[cell] + 1):
        for attr in ("alt", "aria-label", "title"):
            v = el[i].get(attr)
            if v and v.strip():
                return v
    return ""


# ======================================================== evidence in the attributes
_MISS = object()


def _stable(vals: list[Any], need: float = 0.6, at_least: int = 1) -> Any:
    """The value shared by at least ``need`` of the sample (ignoring ``None``) and by at
    least ``at_least`` elements, else ``None``."""
    if not vals:
        return None
    counts: dict[Any, int] = {}
    for v in vals:
        if v is not None:
            counts[v] = counts.get(v, 0) + 1
    if not counts:
        return None
    v, c = max(counts.items(), key=lambda kv: kv[1])
    return v if c >= need * len(vals) and c >= at_least else None


class Evidence:
    """Attribute values of template nodes that are stable over the records, read on up to
    ``sample`` elements mapped to each node, spread over the records (cached per node:
    the slots of one record share their ancestors)."""

    def __init__(self, page: Page, maps: list[NodeMap], sample: int = 12) -> None:
        self.page, self.pel, self.maps = page, page.el, maps
        self.sample = sample
        self.step = max(1, len(maps) // sample)
        self._elems: dict[TemplateNode, list[int]] = {}
        self._names: dict[TemplateNode, set[str]] = {}
        self._attrs: dict[tuple[TemplateNode, str, int], Any] = {}
        self._tokens: dict[TemplateNode, tuple[list[str], str | None]] = {}
        self._best: dict[TemplateNode, str | None] = {}
        self.glued: frozenset[str] | None = None

    def _glued_prefixes(self, records: int = 3) -> frozenset[str]:
        """:func:`glued_prefixes` of the class tokens of the first records."""
        classes = self.page.classes
        return glued_prefixes(
            tok for m in self.maps[:records] for i in m.values() if i >= 0 for tok in classes(i)
        )

    def elems(self, t: TemplateNode) -> list[int]:
        """Up to ``sample`` elements mapped to ``t``, spread over the records."""
        out = self._elems.get(t)
        if out is not None:
            return out
        out = self._elems[t] = []
        maps, n, step = self.maps, len(self.maps), self.step
        for start in range(step):
            for r in range(start, n, step):
                loc = maps[r].get(t)
                if loc is not None:
                    out.append(loc)
                    if len(out) >= self.sample:
                        return out
        return out

    def attr_names(self, t: TemplateNode) -> set[str]:
        """The attribute names present on ``elems(t)`` (one lxml call per element: most
        elements carry no attribute, or only ``class``, so the lookups below are skipped)."""
        out = self._names.get(t)
        if out is None:
            out = self._names[t] = set()
            for i in self.elems(t):
                out.update(self.pel[i].keys())
        return out

    def stable_attr(self, t: TemplateNode, name: str, at_least: int = 1) -> Any:
        """The value of attribute ``name`` that most elements of ``t`` share (and at least
        ``at_least`` of them), or ``None``."""
        key = (t, name, at_least)
        v = self._attrs.get(key, _MISS)
        if v is _MISS:
            if name in self.attr_names(t):
                pel = self.pel
                vals = [(pel[i].get(name) or "").strip() or None for i in self.elems(t)]
                v = _stable(vals, at_least=at_least)
            else:
                v = None  # absent everywhere: _stable of all None
            self._attrs[key] = v
        return v

    def stable_tokens(self, t: TemplateNode) -> tuple[list[str], str | None]:
        """The class tokens on >= 60 % of ``elems(t)`` and their stable ``id`` (digits out)."""
        v = self._tokens.get(t)
        if v is None:
            els = self.elems(t)
            names = self.attr_names(t)
            toks: list[str] = []
            if "class" in names:
                cnt: dict[str, int] = {}
                order: list[str] = []
                for i in els:
                    for tok in dict.fromkeys(self.page.classes(i)):
                        if tok not in cnt:
                            order.append(tok)
                        cnt[tok] = cnt.get(tok, 0) + 1
                toks = [tok for tok in order if els and cnt[tok] >= 0.6 * len(els)]
                if self.glued is None:
                    self.glued = self._glued_prefixes()
                toks = [unglue(tok, self.glued) for tok in toks]
            sid = None
            if "id" in names:
                pel = self.pel
                ids = [
                    _ID_DIGITS_RE.sub("", x) or None if (x := pel[i].get("id")) else None
                    for i in els
                ]
                sid = _stable(ids)
            v = self._tokens[t] = (toks, sid)
        return v

    def best_class(self, t: TemplateNode) -> str | None:
        """:func:`best_token` of ``t``'s stable class tokens."""
        if t not in self._best:
            self._best[t] = best_token(self.stable_tokens(t)[0])
        return self._best[t]
