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
already says so. :func:`slug`, :func:`token_name` and :func:`label_name` turn class tokens
and label texts into names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from scrapy_records.fields.records import RecordTree, page_data
from scrapy_records.fields.slots import Slot
from scrapy_records.fields.template import Layout, NodeMap, TemplateNode
from scrapy_records.page import Page

Parents = dict[TemplateNode, TemplateNode | None]
Depths = dict[TemplateNode, int]

# ================================================================ names from texts
_NOISE_WORDS = frozenset(
    """clearfix cf row col cols column columns container wrapper wrap inner outer item items
    entry entries box block inline left right center centre first last odd even active
    selected current hidden visible show hide fade in clear group media media-body card
    card-body card-content list list-item flex grid small large big bold strong italic
    muted lead ellipsis truncate nowrap js sr-only visually-hidden mobile desktop tablet
    float pull-left pull-right float-left float-right fl fr l r c x y module component
    section main cell td tr th span div p a link-item text-left
    text-right text-center hover focus disabled enabled open closed on off new-line
    separator sep spacer line d-block d-flex d-none d-inline d-inline-block full half
    mt mb ml mr pt pb pl pr w100 h100 x-small xs sm md lg xl xxl grey gray black white red
    blue green yellow orange dark light bright underline uppercase lowercase""".split()
)
_NOISE_PREFIX_RE = re.compile(
    r"^(?:col|offset|order|pull|push|span\d|g[xy]?|gap|[mp][xytblrse]?|w|h|mw|mh|fs|fw|lh|z|d|"
    r"flex|grid|align|justify|float|position|rounded|shadow|bg|border|text|font|opacity|"
    r"overflow|is|has|js|u|icon|fa|glyphicon|bi|ui|btn|mdc|mat|v|el|ant|chakra|tw|"
    r"visible|hidden|show|hide|sm|md|lg|xl|xs|xxl|size|color|theme|ng|vue|svelte|jsx|css|sc|"
    r"emotion|styled|makestyles|mui[a-z]*|gatsby|framer|x)-",
    re.I,
)
#: a class token holding one of these words is preferred as a name
_FIELD_WORDS = tuple(
    """title name price date time author user desc summary snippet image img thumb photo url
    link rating review count comment category tag location address brand sku stock avail
    status score vote view size color colour phone email company salary type source domain
    caption excerpt headline label badge discount sale amount total qty quantity model year
    city country seller shop store vendor reply replies post message subject topic""".split()
)
_STOP_LABELS = frozenset(
    "by in at on from of and or the a an to for with via von de du des par bei und le la les "
    "el los por con da di del per".split()
)
_URLISH = ("url", "link", "href", "permalink")
_IMGISH = ("img", "image", "photo", "thumb", "pic", "logo", "avatar", "icon", "picture")

_NON_WORD_RE = re.compile(r"[^\w]+", re.UNICODE)
_UNDERSCORES_RE = re.compile(r"_+")
_DASHES_RE = re.compile(r"[-_]+")
_TRAILING_NUMBER_RE = re.compile(r"[-_]?\d+$")
_ID_DIGITS_RE = re.compile(r"[-_]?\d+")


def slug(s: str, max_len: int = 40) -> str:
    """``s`` as a lower-case identifier (``f_`` prefixed when it starts with a digit)."""
    s = _NON_WORD_RE.sub("_", s.strip().lower()).strip("_")
    s = _UNDERSCORES_RE.sub("_", s)[:max_len].strip("_")
    if s and s[0].isdigit():
        s = "f_" + s
    return s


def _is_hash(tok: str) -> bool:
    """A generated token (CSS modules, styled components): many digits or camel humps."""
    core = tok.strip("_-")
    if not core:
        return True
    digits = sum(ch.isdigit() for ch in core)
    if digits and digits * 10 >= len(core) * 3:  # >= 30 % digits
        return True
    for seg in _DASHES_RE.split(core):
        if 4 <= len(seg) <= 10:
            switches = sum(1 for a, b in zip(seg, seg[1:]) if a.islower() and b.isupper())
            if switches >= 2 or (switches and any(ch.isdigit() for ch in seg)):
                return True
    return False


_TOKEN_CACHE: dict[str, str | None] = {}


def token_name(tok: str) -> str | None:
    """A usable name from one class/id token, or ``None`` for framework noise and hashes."""
    try:
        return _TOKEN_CACHE[tok]
    except KeyError:
        if len(_TOKEN_CACHE) > 20000:
            _TOKEN_CACHE.clear()
        r = _TOKEN_CACHE[tok] = _token_name_uncached(tok)
        return r


def _token_name_uncached(tok: str) -> str | None:
    t = tok.strip()
    if not t or len(t) > 60 or any(ch in t for ch in ":/[]!.#@%()=+"):
        return None
    low = t.lower()
    if "__" in low:  # BEM block__element--modifier -> element
        low = low.split("__")[-1]
    low = low.split("--")[0]
    if not low or low.isdigit() or low in _NOISE_WORDS or _NOISE_PREFIX_RE.match(low):
        return None
    if _is_hash(t) or _is_hash(low):
        return None
    low = _TRAILING_NUMBER_RE.sub("", low)
    name = slug(low)
    if len(name) < 2 or name in _NOISE_WORDS:
        return None
    return name


def best_token(tokens: Sequence[str]) -> str | None:
    """The best name among class tokens: the first holding a field word, else the first."""
    names = [n for n in (token_name(t) for t in tokens) if n]
    if not names:
        return None
    for n in names:
        if any(w in n for w in _FIELD_WORDS):
            return n
    return names[0]


def label_name(text: str) -> str | None:
    """A name from a label text ("Price:" -> ``price``), or ``None`` when it is no label."""
    t = text.strip().rstrip(":：-–|").strip()
    if not t or len(t) > 30 or len(t.split()) > 4:
        return None
    if sum(ch.isalpha() for ch in t) < 3 or t.lower() in _STOP_LABELS:
        return None
    n = slug(t)
    return n if len(n) >= 2 else None


# ============================================================ static text and labels
#: elements whose static text reads as the label of the value after it
_LABEL_TAGS = frozenset({"label", "dt", "th", "b", "strong", "legend", "caption", "em"})

#: elements whose static text is an action ("Add to cart"), never a label
_ACTION_TAGS = frozenset({"a", "button", "option", "select", "input"})

#: element names that say what their text is (used after itemprop/label/class evidence)
_TAG_NAMES = {
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


def mark_static(slots: list[Slot], n: int) -> None:
    """Mark the static slots: not columns, and the labels :func:`name_slots` may use.

    A slot with one value in every record (template text, a constant link or image) is
    static; so is text with one value in at least two records that ends with ":", or
    reads as a label and is present exactly where the next text slot is."""
    present = [sum(1 for v in s.values if v is not None) for s in slots]
    for k, s in enumerate(slots):
        vals = {v for v in s.values if v is not None}
        if n >= 2 and len(vals) == 1 and present[k] >= 2:
            if present[k] == n:
                s.static = True
            elif s.kind == "text":
                v = next(iter(vals))
                nxt = next((o for o in slots[k + 1 :] if o.kind == "text"), None)
                same_presence = nxt is not None and all(
                    (a is None) == (b is None) for a, b in zip(s.values, nxt.values)
                )
                if v.rstrip().endswith((":", "：")) or (same_presence and label_name(v)):
                    s.static = True


def _tag_names(page: Page) -> list[str]:
    """Tag name by tag id for the page (memoised in its :class:`PageData`)."""
    pd = page_data(page)
    lst = pd.attrs.get("#tagnames")
    if lst is None:
        lst = [""] * len(page.tag_names)
        for name, i in page.tag_names.items():
            lst[i] = name
        pd.attrs["#tagnames"] = lst
    return lst


def _tag_of(t: TemplateNode, names: list[str]) -> str:
    """The tag name of template node ``t`` (``names``: :func:`_tag_names` of the page)."""
    if t.label < 0:
        return ""
    return names[t.label] if t.label < len(names) else ""


def _labels(
    slots: list[Slot],
    anchor: dict[int, TemplateNode],
    tparent: Parents,
    tdepth: Depths,
    tagnames: list[str],
) -> dict[int, str]:
    """Static label texts -> the data slot each one names (``id(slot) -> name``).

    A label sits next to its value in slot order, within two levels of their common
    ancestor, and reads like a label (ends with ":", is held by ``label``/``dt``/``th``/
    ``b``..., or is a short text in an element of another tag than the value's). It names
    the following value, unless it does not end with ":" and the preceding value is closer
    in the tree, or is a sibling and no value follows ("<b>9</b> <i>Decor</i>").
    """
    out: dict[int, str] = {}
    for k, lab in enumerate(slots):
        if not lab.static or lab.kind != "text" or lab.collapsed:
            continue
        lv = next((v for v in lab.values if v is not None), None)
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
        lab_tag = _tag_of(lab_el, tagnames)
        if lab_tag in _ACTION_TAGS and a is not lab_el:
            continue  # "Add to cart" names nothing; a link's constant text names its link
        if (
            colon
            or a is lab_el
            or lab_tag in _LABEL_TAGS
            or (lab_tag != _tag_of(a, tagnames) and len(lv.split()) <= 3)
        ):
            out[id(target)] = ln
    return out


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


class _TableHeaders:
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
                return label_name(page.text(c))
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


# ======================================================== evidence in the attributes
_MISS = object()


def _stable(vals: list[Any], need: float = 0.6) -> Any:
    """The value shared by at least ``need`` of the sample (ignoring ``None``), else ``None``."""
    if not vals:
        return None
    counts: dict[Any, int] = {}
    for v in vals:
        if v is not None:
            counts[v] = counts.get(v, 0) + 1
    if not counts:
        return None
    v, c = max(counts.items(), key=lambda kv: kv[1])
    return v if c >= need * len(vals) else None


class _Evidence:
    """Attribute values of template nodes that are stable over the records, read on up to
    ``sample`` elements mapped to each node, spread over the records (cached per node:
    the slots of one record share their ancestors)."""

    def __init__(self, page: Page, maps: list[NodeMap], sample: int = 12) -> None:
        self.page, self.pel, self.maps = page, page.el, maps
        self.sample = sample
        self.step = max(1, len(maps) // sample)
        self._elems: dict[TemplateNode, list[int]] = {}
        self._names: dict[TemplateNode, set[str]] = {}
        self._attrs: dict[tuple[TemplateNode, str], Any] = {}
        self._tokens: dict[TemplateNode, tuple[list[str], str | None]] = {}
        self._best: dict[TemplateNode, str | None] = {}

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

    def stable_attr(self, t: TemplateNode, name: str) -> Any:
        """The value of attribute ``name`` that most elements of ``t`` share, or ``None``."""
        key = (t, name)
        v = self._attrs.get(key, _MISS)
        if v is _MISS:
            if name in self.attr_names(t):
                pel = self.pel
                v = _stable([(pel[i].get(name) or "").strip() or None for i in self.elems(t)])
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


# ===================================================================== slot naming
def name_slots(
    page: Page,
    slots: list[Slot],
    data: list[Slot],
    trees: list[RecordTree],
    maps: list[NodeMap],
    layout: Layout,
) -> None:
    """Set ``name`` and ``evidence`` of the data slots ``data`` (rules in the module
    docstring; ``slots``: every slot, static ones included, for the labels)."""
    anchor, count = _anchors(data, layout.parent)
    tagnames = _tag_names(page)
    labels = _labels(slots, anchor, layout.parent, layout.depth, tagnames)
    rows = all(page.tag[r] == "tr" for rec in trees[:5] for r in rec.roots)
    namer = _Namer(page, maps, layout, anchor, count, labels, rows)
    for col, s in enumerate(data, 1):
        s.name, s.evidence = namer.name(s, col)


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


class _Namer:
    """The naming rules for the data slots of one alignment."""

    def __init__(
        self,
        page: Page,
        maps: list[NodeMap],
        layout: Layout,
        anchor: dict[int, TemplateNode],
        count: dict[tuple[TemplateNode, str], int],
        labels: dict[int, str],
        rows: bool,
    ) -> None:
        self.tparent, self.tdepth = layout.parent, layout.depth
        self.anchor, self.count, self.labels = anchor, count, labels
        self.evidence = _Evidence(page, maps)
        self.tagnames = _tag_names(page)
        self.headers = _TableHeaders(page, maps, layout.parent, layout.depth)
        self.rows = rows  # the records are table rows: table headers may name columns

    def name(self, s: Slot, col: int) -> tuple[str, str]:
        """``(name, evidence)`` of data slot ``s``, the ``col``-th column."""
        kind = s.kind
        a = self.anchor[id(s)]
        chain = self._chain(a, kind)
        found = self._by_attribute(chain) or self._by_context(s) or self._by_class(chain, a)
        if not found and kind != "image":
            found = self._by_tag(chain, kind)
        if found:
            name, evidence = found
            if kind in ("url", "image"):
                words = _URLISH if kind == "url" else _IMGISH
                if not any(w in name for w in words):
                    name = f"{name}_{'url' if kind == 'url' else 'image'}"
            return name, evidence
        if s.type in ("url", "image", "price", "date"):
            return s.type, "type"
        return f"field_{col}", "position"

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

    def _by_attribute(self, chain: list[TemplateNode]) -> tuple[str, str] | None:
        """Rule 1: ``itemprop``, else ``aria-label``/``title``."""
        ev = self.evidence
        for t in chain:
            v = ev.stable_attr(t, "itemprop")
            if v:
                name = slug(v.split()[0])
                if name:
                    return name, "itemprop"
                break
        for t in chain:
            for at in ("aria-label", "title"):
                v = ev.stable_attr(t, at)
                ln = label_name(v) if v else None
                if ln:
                    return ln, at
        return None

    def _by_context(self, s: Slot) -> tuple[str, str] | None:
        """Rules 2 and 3: a label next to the value, a table header above it."""
        label = self.labels.get(id(s))
        if label:
            return label, "label"
        if self.rows:
            hdr = self.headers.name(s)
            if hdr:
                return hdr, "header"
        return None

    def _by_class(self, chain: list[TemplateNode], a: TemplateNode) -> tuple[str, str] | None:
        """Rule 4: class or id tokens on the chain, then an ancestor's class."""
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
        # an ancestor's class even when it holds other slots too ("specs", "specs_2")
        tparent, tdepth = self.tparent, self.tdepth
        p = tparent.get(chain[-1]) if chain else a
        while p is not None and tdepth.get(p, 0) >= 2:
            v = ev.best_class(p)
            if v:
                return v, "class"
            p = tparent.get(p)
        return None

    def _by_tag(self, chain: list[TemplateNode], kind: str) -> tuple[str, str] | None:
        """Rule 5: the element's tag (a link's only when it is a heading)."""
        for t in chain[:2]:
            tn = _TAG_NAMES.get(_tag_of(t, self.tagnames))
            if tn is not None and (kind == "text" or tn == "title"):
                return tn, "tag"
        return None
