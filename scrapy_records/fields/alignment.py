"""Field alignment: partial tree alignment of a region's records into typed, named columns.

Every extractor finds *where* records are; :func:`align_records` (called by
:func:`~scrapy_records.extractors.base.build_region`) turns the records' sub-trees into a
table. The method is DEPTA's partial tree alignment (Zhai & Liu, WWW 2005; digest
``mdr.md`` §8.1 and ``gstm.md`` §3.10), with Simple Tree Matching (``gstm.md`` §2.2/§3.2; the shared
:class:`scrapy_records.treematch.STM`) as the pairwise matcher:

1. **Record trees.** Each record becomes a tree under a virtual root whose children are the
   record's root elements (a record may have several roots, ``gstm.md`` §3.10 step 1).
   Nodes are elements (label = tag) and text leaves (label ``#text``, matching each other
   regardless of content, R-9), built from the page arrays (``children``, ``leaves``,
   ``leaf_owner``, ``leaf_elem``), never by walking lxml.
2. **Seed** (step 2): among at most ``max_template_records`` records (an even sample of the
   region), the one with the most nodes.
3. **Align** (step 3): each other record is matched to the template with STM (maximum
   top-down matching, no level crossing, no relabelling), with traceback.
4. **Insert** (step 4): a run of unmatched sibling sub-trees goes into the template only when
   its position is unique: flanked by children that match *consecutive* template children,
   or at the left (right) end next to a child matching the template's first (last) child,
   or under a template node that has no children. Otherwise the record is retried later.
5. **Iterate** (step 5): retry deferred records while a pass inserts something. Records still
   holding unplaced data are then, by default (``keep_unaligned=True``), inserted next to
   their left matched neighbour, so their items get their own columns (step 6 allows
   "dropped or put in their own columns"); ``keep_unaligned=False`` drops them (DEPTA).
6. **Slots** (step 6): every record is matched to the final template; template text nodes
   and ``a/@href``/``img/@src`` elements are the data slots, one column each, in document
   order. Template text identical in every record is *static* (not a column) and may name
   the next column as a label ("Price:"); constant links/images are static too.

Project additions, each marked [proj] where implemented (DEPTA leaves them open):

* **Class tie-break.** STM compares tags only; among equally large matchings the one that
  pairs more nodes with equal ``class`` (digits removed) wins, so an optional
  ``span.old-price`` does not steal the ``span.price`` column. Tracebacks prefer leftmost
  pairs (the first items of variable-length lists align).
* **Text units.** Text flowing around inline markup ("Buy <b>shoes</b> online") is one
  text node (a *run*); an inline-only element with mixed content whose structure differs
  between records (highlighted search terms) is one text slot; a sparse sub-tree whose
  structure differs in most records (forum post bodies) is one text slot
  (``collapse_inline``, ``collapse_variable``).
* **Rare variants.** After the sampled records, one insertion pass per record shape not
  seen yet (bounded by ``max_template_records``).
* **Bounds.** ``max_columns`` (fullest kept), STM cell budget, per-page memo (a
  :class:`weakref.WeakKeyDictionary` keyed by the page: shapes, STM results and the
  record trees are shared by every region of the page and by every extractor).

Cost: shapes (``(label, class signature, child shapes)``) are interned so STM results are
memoised per shape pair and identical sub-trees match in O(1); the DP is iterative; a cell
budget (``max_cells``) and a per-node limit switch wide or late comparisons to a C-level
LCS of the child label sequences (rapidfuzz); a record whose shape was already mapped
replays the recorded mapping. Measured on 195 pages of ``lists/`` yamada+zhao1+zhao3,
relative to lxml's parse of the same page: the first-ranked STEM region alone, median
2.1-2.4x lxml (2026-11-26; 3.0x before that day's work on shapes, matching and naming); every MDR
region of the page, median 8.2x lxml (an earlier measurement, MDR alone 8.1x). A synthetic 1,000-record product grid
(15,600 elements, 430 kB): 150 ms = 11x lxml (linear in the records). Aligning only the
kept regions (:func:`align_region`, what :func:`scrapy_records.extract` does) is the
cheap way to use it.

Values are typed by :mod:`scrapy_records.fields.values`; naming rules are in :func:`align_records`.
"""

from __future__ import annotations

import logging
import re
import weakref
from collections.abc import Sequence
from typing import Any

from scrapy_records.fields.values import first_srcset_url, infer_column
from scrapy_records.page import Page
from scrapy_records.results import Column
from scrapy_records.treematch import STM, Shapes

logger = logging.getLogger(__name__)

__all__ = ["align_records", "align_region", "INLINE_TAGS"]

TEXT = -1  #: label of text leaves (R-9)
ROOT = -2  #: label of the virtual record root

DEFAULT_MAX_TEMPLATE_RECORDS = 30
DEFAULT_MAX_CELLS = 200_000
DEFAULT_MAX_NODE_CELLS = 2_500
DEFAULT_MAX_COLUMNS = 100

#: Formatting elements whose variable nesting is read as one text value (see step 6).
INLINE_TAGS = frozenset(
    "b strong i em u font br small sup sub mark wbr nobr s strike big tt abbr span code q "
    "cite dfn kbd samp var del ins bdi bdo".split()
)

_IMG_ATTRS = ("src", "data-src", "data-original", "data-lazy-src", "data-lazy", "data-url")
_PLACEHOLDER_RE = re.compile(
    r"(?:blank|spacer|placeholder|transparent|pixel|1x1|loading|lazy)[^/]*\.(?:gif|png|svg)", re.I
)


# ================================================================== trees and matching
#: weight of one matched node pair; a pair whose class signatures agree adds 1 more, so
#: the matching maximises matched nodes first (STM) and class agreement second [proj]
BIG = 1 << 20


class _T:
    """A template node (mutable: partial tree alignment inserts into ``children``)."""

    __slots__ = ("label", "sig", "children", "shape")

    def __init__(self, label: int, sig: int = 0) -> None:
        self.label = label
        self.sig = sig
        self.children: list[_T] = []
        self.shape = -1


class _PageData:
    """Per-page memo shared by every region aligned on that page (kept in a weak cache).

    ``items[i]``: element ``i``'s children *and* its own text leaves in document order
    (leaf ``k`` as ``-k-1``; a leaf precedes child ``c`` iff ``leaf_elem[k] <= c``);
    ``shape[i]``: interned shape of the sub-tree (``-1`` until computed); ``data[i]``: the
    sub-tree holds a text leaf, a link or an image. Computed lazily per record root,
    bottom-up over the root's pre-order range, never recursively. The STM memo lives here
    too, so regions of one page (and several extractors on it) share matching results.
    """

    __slots__ = (
        "page",
        "shapes",
        "items",
        "shape",
        "data",
        "sig",
        "sigs",
        "text_shape",
        "data_tags",
        "matcher",
        "attrs",
        "inline",
        "runs",
        "nleaves",
        "run_tags",
        "merge_runs",
        "raw_sigs",
        "leaves",
        "leaf_owner",
        "leaf_lo",
        "leaf_hi",
        "tag_id",
        "end",
        "urls",
        "__weakref__",
    )

    def __init__(self, page: Page) -> None:
        # a proxy: the cache value must not keep its weak key (the page) alive
        self.page = weakref.proxy(page)
        # the page arrays used per node, without the proxy's indirection (plain lists:
        # they do not keep the page alive either)
        self.leaves, self.leaf_owner = page.leaves, page.leaf_owner
        self.leaf_lo, self.leaf_hi = page.leaf_lo, page.leaf_hi
        self.tag_id, self.end = page.tag_id, page.end
        self.shapes = Shapes()
        n = len(page.tag)
        self.items: list[Any] = [None] * n
        self.shape = [-1] * n
        self.data = [False] * n
        self.sig = [0] * n
        self.sigs: dict[str, int] = {"": 0}
        self.raw_sigs: dict[str, int] = {}  # class attribute as written -> sig
        self.text_shape = self.shapes.intern(TEXT, ())
        tid = page.tag_names
        self.data_tags = frozenset(tid[t] for t in ("a", "img") if t in tid)
        self.matcher = STM(
            self.shapes,
            unit=BIG,
            sig_bonus=1,
            tie="skip",
            approx="pairs",
            max_cells=DEFAULT_MAX_CELLS,
            max_node_cells=DEFAULT_MAX_NODE_CELLS,
            eager=True,
        )
        self.attrs: dict[str, bool] = {}
        # text runs: "Buy <b>shoes</b> online" inside a mixed element is one text node
        self.inline = [False] * n
        self.runs: list[tuple[int, tuple[int, ...], str]] = []  # (owner, items, text)
        self.nleaves = len(page.leaves)
        self.run_tags = frozenset(tid[t] for t in INLINE_TAGS if t in tid and t != "br")
        self.merge_runs = True
        self.urls: dict[str | None, str | None] = {}  # href -> absolute URL (_absolute)

    def owner(self, x: int) -> int:
        """The element directly holding text node ``x`` (a leaf or a run)."""
        k = -x - 1
        if k < self.nleaves:
            return self.leaf_owner[k]
        return self.runs[k - self.nleaves][0]

    def text_of(self, x: int) -> str:
        """The text of node ``x``: a leaf, a run, or an element's whole text."""
        if x >= 0:
            return " ".join(self.leaves[self.leaf_lo[x] : self.leaf_hi[x]])  # Page.text
        k = -x - 1
        if k < self.nleaves:
            return self.leaves[k]
        return self.runs[k - self.nleaves][2]

    def ensure(self, root: int) -> None:
        """Compute ``items``/``shape``/``data`` for the sub-tree of ``root``."""
        if self.shape[root] >= 0:
            return
        owned: dict[int, list[int]] = {}
        leaf_owner = self.leaf_owner
        for k in range(self.leaf_lo[root], self.leaf_hi[root]):
            o = leaf_owner[k]
            lst = owned.get(o)
            if lst is None:
                owned[o] = [k]
            else:
                lst.append(k)
        page = self.page
        children, tag_id, leaf_elem = page.children, self.tag_id, page.leaf_elem
        items, shape, data = self.items, self.shape, self.data
        shape_at = shape.__getitem__
        intern = self.shapes.intern
        ids_get = self.shapes.ids.get
        ts = self.text_shape
        data_tags = self.data_tags
        sigs, sig, el = self.sigs, self.sig, page.el
        raw_sigs = self.raw_sigs
        owned_get = owned.get
        inline, run_tags = self.inline, self.run_tags
        merge_runs = self.merge_runs
        ts1 = (ts,)
        for i in range(self.end[root], root - 1, -1):
            if shape[i] >= 0:
                continue
            e = el[i]
            raw = e.get("class")
            if raw:
                sg = raw_sigs.get(raw)
                if sg is None:
                    cls = " ".join(raw.translate(_NO_DIGITS).split())
                    sg = sigs.get(cls)
                    if sg is None:
                        sg = sigs[cls] = len(sigs)
                    raw_sigs[raw] = sg
                sig[i] = sg
            else:
                sg = 0
            t = tag_id[i]
            ch = children[i]
            lv = owned_get(i)
            if lv:
                data[i] = True
                if ch:
                    its = []
                    a = b = 0
                    na, nb = len(ch), len(lv)
                    while a < na or b < nb:
                        if b < nb and (a >= na or leaf_elem[lv[b]] <= ch[a]):
                            its.append(-lv[b] - 1)
                            b += 1
                        else:
                            its.append(ch[a])
                            a += 1
                    if merge_runs:
                        its = self._runs(i, its)
                    kt = tuple([shape[c] if c >= 0 else ts for c in its])
                elif len(lv) == 1:  # the usual text holder: one leaf, no child
                    its = [-lv[0] - 1]
                    kt = ts1
                else:
                    its = [-k - 1 for k in lv]
                    kt = ts1 * len(lv)
            else:
                its = ch
                if ch:
                    kt = (shape[ch[0]],) if len(ch) == 1 else tuple(map(shape_at, ch))
                    if t in data_tags:
                        data[i] = True
                    else:
                        for c in ch:
                            if data[c]:
                                data[i] = True
                                break
                else:
                    kt = ()
                    if t in data_tags:
                        data[i] = True
            items[i] = its
            h = ids_get((t, sg, kt))
            shape[i] = h if h is not None else intern(t, kt, sg)
            if t in run_tags:
                for c in its:
                    if c >= 0 and not inline[c]:
                        break
                else:
                    if e.get("itemprop") is None:
                        inline[i] = True

    def _runs(self, i: int, its: list[int]) -> list[int]:
        """Replace runs of text and inline-only elements that read as one flowing text
        (two own text pieces around inline markup, or one piece and >= 40 characters) by
        a run node (id ``-(nleaves + r) - 1``), labelled ``#text``. [proj]"""
        inline = self.inline
        for c in its:
            if c >= 0 and inline[c]:
                break
        else:
            return its  # no inline element: no run
        out: list[int] = []
        cur: list[int] = []
        for c in its:
            if c < 0 or inline[c]:
                cur.append(c)
            else:
                if cur:
                    if len(cur) >= 2:
                        self._flush_run(i, cur, out)
                    else:
                        out.append(cur[0])
                    cur = []
                out.append(c)
        if len(cur) >= 2:
            self._flush_run(i, cur, out)
        else:
            out.extend(cur)
        return out

    def _flush_run(self, i: int, cur: list[int], out: list[int]) -> None:
        """Append ``cur`` (>= 2 consecutive text/inline items of element ``i``) to ``out``:
        as one run node when it reads as one flowing text, else item by item."""
        own = 0
        for c in cur:
            if c < 0:
                own += 1
        if own and own < len(cur):
            leaves, lo, hi = self.leaves, self.leaf_lo, self.leaf_hi
            parts = [leaves[-c - 1] if c < 0 else " ".join(leaves[lo[c] : hi[c]]) for c in cur]
            text = " ".join(p for p in parts if p)
            if own >= 2 or len(text) >= 40:
                out.append(-(self.nleaves + len(self.runs)) - 1)
                self.runs.append((i, tuple(cur), text))
                return
        out.extend(cur)


_NO_DIGITS = str.maketrans("", "", "0123456789")

_CACHE: weakref.WeakKeyDictionary[Page, _PageData] = weakref.WeakKeyDictionary()

#: node id of a record's virtual root (elements are ids >= 0, text leaf ``k`` is ``-k-1``)
VROOT = -(1 << 62)


def _page_data(page: Page) -> _PageData:
    pd = _CACHE.get(page)
    if pd is None:
        pd = _CACHE[page] = _PageData(page)
    return pd


class _Rec:
    """One record: its root elements under a virtual root (``gstm.md`` §3.10 step 1).

    Nodes are page ids: element ``i >= 0``, text leaf ``-k-1``, the virtual root ``VROOT``.
    """

    __slots__ = ("pd", "roots", "vshape", "size")

    def __init__(self, pd: _PageData, roots: tuple[int, ...]) -> None:
        self.pd = pd
        self.roots = roots
        for r in roots:
            pd.ensure(r)
        self.vshape = pd.shapes.intern(ROOT, tuple(pd.shape[r] for r in roots))
        self.size = pd.shapes.size[self.vshape]

    def kids(self, x: int) -> Sequence[int]:
        if x >= 0:
            return self.pd.items[x]
        return self.roots if x == VROOT else ()

    def shape(self, x: int) -> int:
        if x >= 0:
            return self.pd.shape[x]
        return self.vshape if x == VROOT else self.pd.text_shape

    def label(self, x: int) -> int:
        if x >= 0:
            return self.pd.tag_id[x]
        return ROOT if x == VROOT else TEXT

    def sig(self, x: int) -> int:
        return self.pd.sig[x] if x >= 0 else 0

    def has_data(self, x: int) -> bool:
        return self.pd.data[x] if x >= 0 else x != VROOT

    def root_of(self, x: int) -> int:
        """Position in ``roots`` of the root whose sub-tree holds node ``x`` (-1: none)."""
        if x == VROOT:
            return -1
        e = x if x >= 0 else self.pd.owner(x)
        end = self.pd.end
        for j, r in enumerate(self.roots):
            if r <= e <= end[r]:
                return j
        return -1


def _template_from(rec: _Rec, x: int) -> _T:
    """Copy the record sub-tree at node ``x`` into template nodes (iterative)."""
    top = _T(rec.label(x), rec.sig(x))
    if x < 0 and x != VROOT:
        return top  # a text node
    items, tag_id, sig = rec.pd.items, rec.pd.tag_id, rec.pd.sig
    stack = [(x, top)]
    while stack:
        y, t = stack.pop()
        kids = t.children
        for c in items[y] if y >= 0 else rec.roots:
            if c >= 0:
                tc = _T(tag_id[c], sig[c])
                kids.append(tc)
                if items[c]:
                    stack.append((c, tc))
            else:
                kids.append(_T(TEXT))
    return top


def _reshape(root: _T, shapes: Shapes) -> None:
    """Recompute the template's shape ids bottom-up (after insertions)."""
    order = []
    stack = [root]
    while stack:
        t = stack.pop()
        order.append(t)
        stack.extend(t.children)
    intern, ids_get = shapes.intern, shapes.ids.get
    for t in reversed(order):
        kt = tuple([c.shape for c in t.children]) if t.children else ()
        h = ids_get((t.label, t.sig, kt))  # Shapes.intern's key; known shapes without the call
        t.shape = h if h is not None else intern(t.label, kt, t.sig)


def _map(
    root: _T, rec: _Rec, matcher: STM, progs: dict[tuple[int, int], Any] | None = None
) -> dict[_T, int]:
    """Matched pairs template node -> record node (STM traceback, top-down, iterative).

    The mapping depends only on the template and the record's shape; with ``progs`` (a
    cache owned by one :func:`align_records` call, keyed ``(template shape, record
    shape)``) it is recorded once as a program (for each matched template node: the
    index of its parent's pair and the child position) and replayed for every further
    record of the same shape, without the traceback lookups."""
    key = (root.shape, rec.vshape)
    if progs is not None:
        prog = progs.get(key)
        if prog is not None:
            tlist, pidx, cpos = prog
            items, roots = rec.pd.items, rec.roots
            xs: list[int] = []
            push_x = xs.append
            for p, j in zip(pidx, cpos):
                push_x(roots[j] if p < 0 else items[xs[p]][j])
            out = {root: VROOT}
            out.update(zip(tlist, xs))
            return out
    out = {}
    pairs = matcher.pairs
    items, shape = rec.pd.items, rec.pd.shape
    tl: list[_T] = []
    pl: list[int] = []
    jl: list[int] = []
    # the virtual root first, then elements only (text nodes have no children)
    stack: list[tuple[_T, int, int, int]] = []
    out[root] = VROOT
    tc = root.children
    roots = rec.roots
    if tc and roots:
        if root.shape == rec.vshape:
            stack.extend([(t, x, -1, j) for j, (t, x) in enumerate(zip(tc, roots))])
        else:
            for i, j in pairs(root.shape, rec.vshape):
                stack.append((tc[i], roots[j], -1, j))
    pop, push = stack.pop, stack.append
    while stack:
        t, x, p, j = pop()
        out[t] = x
        me = len(tl)
        tl.append(t)
        pl.append(p)
        jl.append(j)
        tc = t.children
        if not tc or x < 0:
            continue
        xc = items[x]
        if not xc:
            continue
        sx = shape[x]
        if t.shape == sx:
            for i in range(len(xc) if len(xc) < len(tc) else len(tc)):
                push((tc[i], xc[i], me, i))
        else:
            for i, j in pairs(t.shape, sx):
                push((tc[i], xc[j], me, j))
    if progs is not None:
        progs[key] = (tl, pl, jl)
    return out


def _insert(rec: _Rec, m: dict[_T, int], force: bool) -> tuple[bool, bool]:
    """PTA step 4 (``gstm.md`` §3.10): insert unmatched sibling runs where their place is unique.

    Returns ``(inserted, deferred)``; ``deferred`` is True when a run holding data had no
    unique position (with ``force``, such runs go right after their left matched neighbour).
    """
    inv = {x: t for t, x in m.items()}
    inserted = deferred = False
    items, roots = rec.pd.items, rec.roots
    for t, x in m.items():  # (insertions change the template, never m)
        if x >= 0:  # rec.kids(x), inlined
            xk = items[x]
        elif x == VROOT:
            xk = roots
        else:
            continue  # a text node
        if not xk:
            continue
        for c in xk:
            if c not in inv:
                break
        else:
            continue
        pos = {id(c): i for i, c in enumerate(t.children)}
        runs: list[tuple[int | None, int | None, list[int]]] = []
        left: int | None = None
        cur: list[int] = []
        for c in xk:
            tc = inv.get(c)
            if tc is None:
                cur.append(c)
            else:
                p = pos[id(tc)]
                if cur:
                    runs.append((left, p, cur))
                    cur = []
                left = p
        if cur:
            runs.append((left, None, cur))
        nt = len(t.children)
        ins: list[tuple[int, int, list[int]]] = []
        for order, (lo, hi, run) in enumerate(runs):
            if lo is None and hi is None:
                ok, at = nt == 0, 0
            elif lo is None:
                ok, at = hi == 0, 0
            elif hi is None:
                ok, at = lo == nt - 1, nt
            else:
                ok, at = hi == lo + 1, hi
            if not ok:
                if not any(rec.has_data(c) for c in run):
                    continue
                if not force:
                    deferred = True
                    continue
                at = lo + 1 if lo is not None else (hi if hi is not None else nt)
            ins.append((at, order, run))
        for at, _, run in sorted(ins, key=lambda e: (e[0], e[1]), reverse=True):
            t.children[at:at] = [_template_from(rec, c) for c in run]
            inserted = True
    return inserted, deferred


def _preorder(root: _T) -> tuple[list[_T], dict[_T, _T | None], dict[_T, int]]:
    order: list[_T] = []
    parent: dict[_T, _T | None] = {root: None}
    depth: dict[_T, int] = {root: 0}
    stack = [root]
    while stack:
        t = stack.pop()
        order.append(t)
        for c in reversed(t.children):
            parent[c] = t
            depth[c] = depth[t] + 1
            stack.append(c)
    return order, parent, depth


# ============================================================================ naming
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
_FIELD_WORDS = (
    "title",
    "name",
    "price",
    "date",
    "time",
    "author",
    "user",
    "desc",
    "summary",
    "snippet",
    "image",
    "img",
    "thumb",
    "photo",
    "url",
    "link",
    "rating",
    "review",
    "count",
    "comment",
    "category",
    "tag",
    "location",
    "address",
    "brand",
    "sku",
    "stock",
    "avail",
    "status",
    "score",
    "vote",
    "view",
    "size",
    "color",
    "colour",
    "phone",
    "email",
    "company",
    "salary",
    "type",
    "source",
    "domain",
    "caption",
    "excerpt",
    "headline",
    "label",
    "badge",
    "discount",
    "sale",
    "amount",
    "total",
    "qty",
    "quantity",
    "model",
    "year",
    "city",
    "country",
    "seller",
    "shop",
    "store",
    "vendor",
    "reply",
    "replies",
    "post",
    "message",
    "subject",
    "topic",
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


def _slug(s: str, max_len: int = 40) -> str:
    s = _NON_WORD_RE.sub("_", s.strip().lower()).strip("_")
    s = _UNDERSCORES_RE.sub("_", s)[:max_len].strip("_")
    if s and s[0].isdigit():
        s = "f_" + s
    return s


def _is_hash(tok: str) -> bool:
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


def _token_name(tok: str) -> str | None:
    """A usable name from one class/id token, or ``None`` for framework noise and hashes."""
    r = _TOKEN_CACHE.get(tok, _TOKEN_CACHE)
    if r is _TOKEN_CACHE:
        if len(_TOKEN_CACHE) > 20000:
            _TOKEN_CACHE.clear()
        r = _TOKEN_CACHE[tok] = _token_name_uncached(tok)
    return r  # type: ignore[return-value]


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
    name = _slug(low)
    if len(name) < 2 or name in _NOISE_WORDS:
        return None
    return name


def _best_token(tokens: Sequence[str]) -> str | None:
    names = [n for n in (_token_name(t) for t in tokens) if n]
    if not names:
        return None
    for n in names:
        if any(w in n for w in _FIELD_WORDS):
            return n
    return names[0]


def _label_name(text: str) -> str | None:
    t = text.strip().rstrip(":：-–|").strip()
    if not t or len(t) > 30 or len(t.split()) > 4:
        return None
    if sum(ch.isalpha() for ch in t) < 3 or t.lower() in _STOP_LABELS:
        return None
    n = _slug(t)
    return n if len(n) >= 2 else None


# ============================================================================== values
_ABS_RE = re.compile(r"^https?://[^\s/?#]+(?:[/?#][^\s]*)?$")


_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _base_parts(page: Page) -> tuple[str, str, str] | None:
    """``(scheme, origin, directory)`` of the page's base URL, for the fast join below."""
    pd = _page_data(page)
    parts = pd.attrs.get("#base")
    if parts is None:
        parts = False
        b = page.base_url or ""
        m = re.match(r"^(https?):(//[^/?#\s]+)([^?#\s]*)", b, re.I)
        if m and "/." not in m.group(3):
            path = m.group(3) or "/"
            parts = (
                m.group(1).lower(),
                m.group(1).lower() + ":" + m.group(2),
                path[: path.rfind("/") + 1],
            )
        pd.attrs["#base"] = parts  # type: ignore[assignment]
    return parts or None  # type: ignore[return-value]


def _absolute(page: Page, href: str | None) -> str | None:
    """:meth:`Page.absolute` (RFC 3986 join against ``<base href>``/the page URL) with fast
    paths for the common cases: no base URL at all, absolute http(s) links, ``//host/..``, ``/path`` and
    ``name.html`` without dot segments, queries or fragments at the start."""
    if href is None:
        return None
    h = href.strip()
    if not page.base_url:
        # no base URL: Page.absolute joins against "", and urljoin("", h) is h
        if not h or h.lower().startswith(("javascript:", "data:")):
            return None
        return h
    if not h or "/." in h or h[0] in "?#." or any(c in h for c in " \t\n\\"):
        return page.absolute(h)
    if _ABS_RE.match(h):
        return h
    if _SCHEME_RE.match(h):
        return page.absolute(h)
    parts = _base_parts(page)
    if parts is None:
        return page.absolute(h)
    scheme, origin, directory = parts
    if h.startswith("//"):
        return scheme + ":" + h
    if h[0] == "/":
        return origin + h
    return origin + directory + h


def _image_url(page: Page, i: int, absolute: Any = None) -> tuple[str | None, str | None]:
    """The image URL of ``img`` element ``i`` and the attribute it came from (``absolute``:
    the URL resolver, default :func:`_absolute` on ``page``)."""
    el = page.el[i]
    src = None
    used = None
    for a in _IMG_ATTRS:
        v = el.get(a)
        if v and v.strip() and not v.strip().lower().startswith("data:"):
            if a == "src" and _PLACEHOLDER_RE.search(v) and any(el.get(b) for b in _IMG_ATTRS[1:]):
                continue
            src, used = v, a
            break
    if src is None:
        for a in ("srcset", "data-srcset"):
            v = first_srcset_url(el.get(a))
            if v and not v.lower().startswith("data:"):
                src, used = v, a
                break
    if not src:
        return None, used
    return (absolute(src) if absolute is not None else _absolute(page, src)), used


class _Slot:
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
    )

    def __init__(
        self, t: _T, kind: str, order: tuple[int, int], n: int, collapsed: bool = False
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


# ========================================================================= main entry
def align_records(
    page: Page,
    groups: Sequence[Sequence[int]],
    *,
    max_template_records: int = DEFAULT_MAX_TEMPLATE_RECORDS,
    max_cells: int = DEFAULT_MAX_CELLS,
    max_node_cells: int = DEFAULT_MAX_NODE_CELLS,
    keep_unaligned: bool = True,
    collapse_inline: bool = True,
    collapse_variable: bool = True,
    max_columns: int = DEFAULT_MAX_COLUMNS,
) -> tuple[list[Column], list[dict[str, Any]]]:
    """Align the records of a region into columns (partial tree alignment; module docstring).

    :param groups: one tuple of root node indices per record (several roots allowed).
    :param max_template_records: at most this many records (an even sample) build the
        template with DEPTA's retry loop; then at most as many further records with a
        record shape not seen yet get one insertion pass; all others are only matched
        against the template (items without a place are dropped).
    :param max_cells: STM dynamic-programming budget per call; past it, child sequences are
        aligned by a C-level LCS of their labels.
    :param keep_unaligned: give items without a unique template position their own columns
        instead of dropping them (DEPTA drops).
    :param collapse_inline: read inline-only sub-trees with varying structure as one text.
    :param collapse_variable: read a sub-tree as one text when its structure differs in
        most records and its slots are sparse (at least 4 slots, at most one filled in
        >= 90 % of the records, mean fill < 50 %): user-generated post bodies.
    :param max_columns: keep at most this many data columns (the fullest ones; a
        heterogeneous group of records would otherwise give thousands).
    :returns: ``(columns, values)``, ``values`` holding one ``{column name: value}`` dict per
        record (absent columns are absent keys).

    Column naming, first applicable rule (``evidence`` tells which): ``itemprop`` of the
    slot's element or of an ancestor inside the record that holds no other slot of the
    same kind; a stable ``aria-label``/``title`` there; a ``label`` (static template text
    next to the value: "Price:", ``<dt>``, "<b>9</b> <i>Decor</i>"); a table ``header``
    (the ``th`` above the cell when records are rows); stable ``class``/``id`` tokens
    (framework noise such as ``col-md-6``, hashes and digits skipped, BEM
    ``block__elem`` -> ``elem``; an ancestor's class when nothing nearer names it); the
    element (``tag``: ``h1``-``h6`` -> ``title``, ``time`` -> ``date``); the value ``type``
    (``url``, ``image``, ``price``, ``date``); ``field_N`` (``position``, N = column
    position). A link/image column named from evidence gets ``_url``/``_image`` appended
    unless the name already says so; duplicates get ``_2``, ``_3``... A price column with
    currencies gets a ``<name>_currency`` companion column (:mod:`scrapy_records.fields.values`).
    """
    groups = [_clean_group(page, g) for g in groups]
    n = len(groups)
    if n == 0:
        return [], []
    if not any(groups):
        return [], [{} for _ in groups]

    pd = _page_data(page)
    tid = page.tag_names
    shapes = pd.shapes
    matcher = pd.matcher
    matcher.max_cells = matcher.cells + max_cells  # budget per call
    matcher.max_node_cells = max_node_cells
    trees = [_Rec(pd, g) for g in groups]

    # --- template: seed + partial tree alignment over a sample ---------------------
    if n <= max_template_records:
        sample = list(range(n))
    else:
        step = n / max_template_records
        sample = sorted({int(k * step) for k in range(max_template_records)})
    seed = max(sample, key=lambda r: (trees[r].size, -r))
    progs: dict[tuple[int, int], Any] = {}  # _map programs per (template, record) shape
    template = _template_from(trees[seed], VROOT)
    _reshape(template, shapes)
    # an insertion pass depends only on the template's and the record's shapes (the
    # mapping, the runs, which runs hold data): a pass that inserted nothing is recorded,
    # and a record of the same shape meeting the same template gets its answer (its
    # mapping would replay from ``progs``: no matcher work is skipped)
    idle: dict[tuple[int, int, bool], bool] = {}  # (template, record shape, force) -> deferred

    def insert_pass(rt: _Rec, force: bool) -> tuple[bool, bool]:
        key = (template.shape, rt.vshape, force)
        deferred = idle.get(key)
        if deferred is not None:
            return False, deferred
        m = _map(template, rt, matcher, progs)
        ins, deferred = _insert(rt, m, force=force)
        if ins:
            _reshape(template, shapes)
        else:
            idle[key] = deferred
        return ins, deferred

    todo = [r for r in sample if r != seed]
    while todo:
        changed = False
        retry = []
        for r in todo:
            rt = trees[r]
            if rt.vshape != template.shape:
                ins, deferred = insert_pass(rt, False)
                if ins:
                    changed = True
                if deferred:
                    retry.append(r)
        if not retry:
            break
        if not changed:
            if keep_unaligned:
                for r in retry:
                    insert_pass(trees[r], True)
            break
        todo = retry
    # records outside the sample: one insertion pass per distinct record shape (bounded),
    # so rare variants the sample missed still get their columns
    seen = {trees[r].vshape for r in sample}
    in_sample = set(sample)
    extra = 0
    for r in range(n):
        if r in in_sample or extra >= max_template_records:
            continue
        rt = trees[r]
        if rt.vshape in seen:
            continue
        seen.add(rt.vshape)
        extra += 1
        if rt.vshape != template.shape:
            insert_pass(rt, keep_unaligned)

    # --- map every record on the final template --------------------------------------
    maps = [_map(template, rt, matcher, progs) for rt in trees]
    order, tparent, tdepth = _preorder(template)
    if matcher.approximated:
        logger.debug(
            "alignment: %d node pairs approximated by LCS (budget %d cells)",
            matcher.approximated,
            max_cells,
        )

    # --- slots ---------------------------------------------------------------------------
    pos = {t: i for i, t in enumerate(order)}
    last = {}  # last pre-order position of each template sub-tree
    for t in reversed(order):
        # pre-order: a sub-tree ends where its last child's sub-tree ends
        last[t] = last[t.children[-1]] if t.children else pos[t]
    a_id, img_id = tid.get("a", -99), tid.get("img", -99)
    inline_ids = frozenset(tid[t] for t in INLINE_TAGS if t in tid)
    heads: set[_T] = set()  # collapsed inline sub-trees (one text slot each)
    inside: set[_T] = set()  # their descendants
    # per template node: its sub-tree (below it) holds text / holds a non-inline element
    sub_text: dict[_T, bool] = {}
    sub_block: dict[_T, bool] = {}
    if collapse_inline:
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
    for t in order:
        par = tparent.get(t)
        if par is not None and (par in heads or par in inside):
            inside.add(t)
            continue
        if not collapse_inline or t.label in (ROOT, TEXT) or not t.children:
            continue
        if not sub_text[t] or sub_block[t]:
            continue
        sub = order[pos[t] + 1 : last[t] + 1]
        # text flowing around inline children ("Lorem <i>ipsum</i> dolor"), or mixed
        # content whose inline structure differs between records (highlighted search
        # terms). Not when the inline elements carry several distinct classes: those are
        # sub-fields (span.price, span.old), aligned one by one.
        own = sum(1 for c in t.children if c.label == TEXT)
        if not own or len({x.sig for x in sub if x.label != TEXT and x.sig}) > 1:
            continue
        if own >= 2 or _varies(t, trees, maps):
            heads.add(t)
    slots: list[_Slot] = []
    for t in order:
        if t in inside:
            continue
        if t in heads:
            slots.append(_Slot(t, "text", (pos[t], 0), n, collapsed=True))
            if t.label == a_id:
                slots.append(_Slot(t, "url", (last[t], 1), n))
        elif t.label == TEXT:
            slots.append(_Slot(t, "text", (pos[t], 0), n))
        elif t.label == a_id:
            slots.append(_Slot(t, "url", (last[t], 1), n))
        elif t.label == img_id:
            slots.append(_Slot(t, "image", (pos[t], 0), n))
    slots.sort(key=lambda s: s.order)

    time_id = tid.get("time", -1)
    tag_id = page.tag_id
    pel = page.el
    leaves, leaf_owner, nleaves = pd.leaves, pd.leaf_owner, pd.nleaves
    urls = pd.urls

    def absolute(href: str | None) -> str | None:
        """:func:`_absolute`, memoised per page (the same link recurs in several slots)."""
        v = urls.get(href, _MISS)
        if v is _MISS:
            v = urls[href] = _absolute(page, href)
        return v  # type: ignore[return-value]

    def fill(s: _Slot) -> None:
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
                else:
                    v = pd.text_of(loc)
                    owner = pd.owner(loc) if loc < 0 else loc
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
                v, attr[r] = _image_url(page, loc, absolute)
            if v:
                values[r] = v
                refs[r] = loc

    for s in slots:
        fill(s)

    # --- variable sub-trees: user-generated content (post bodies with quotes, lists, code)
    # aligns into many sparse columns; such a sub-tree is read as one text [proj]
    if collapse_variable and n >= 3:
        under: dict[_T, list[int]] = {}
        for k, s in enumerate(slots):
            p: _T | None = s.t
            while p is not None:
                under.setdefault(p, []).append(k)
                p = tparent.get(p)
        fills = [sum(1 for v in s.values if v is not None) / n for s in slots]
        vheads: list[_T] = []
        for t in order:
            ks = under.get(t)
            if t.label < 0 or tdepth[t] < 2 or not ks or len(ks) < 4:
                continue
            if any(pos[h] <= pos[t] <= last[h] for h in vheads):
                continue
            fl = [fills[k] for k in ks]
            if sum(1 for f in fl if f >= 0.9) > 1 or sum(fl) >= 0.5 * len(fl):
                continue
            seen = [trees[r].shape(m[t]) for r, m in enumerate(maps) if t in m]
            if len(seen) >= 3 and len(set(seen)) >= max(3, 0.5 * len(seen)):
                vheads.append(t)
        if vheads:
            drop = {k for h in vheads for k in under[h]}
            slots = [s for k, s in enumerate(slots) if k not in drop]
            for h in vheads:
                s = _Slot(h, "text", (pos[h], 0), n, collapsed=True)
                fill(s)
                slots.append(s)
            slots.sort(key=lambda s: s.order)

    # --- static template text / constant links -------------------------------------
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
                if v.rstrip().endswith((":", "：")) or (same_presence and _label_name(v)):
                    s.static = True

    data = [s for s in slots if not s.static and any(v is not None for v in s.values)]
    if len(data) > max_columns:
        # a heterogeneous "region" would give thousands of sparse columns: keep the fullest
        fill_of = {id(s): sum(1 for v in s.values if v is not None) for s in data}
        keep = {id(s) for s in sorted(data, key=lambda s: -fill_of[id(s)])[:max_columns]}
        logger.debug("alignment: %d data columns, keeping the %d fullest", len(data), max_columns)
        data = [s for s in data if id(s) in keep]

    # --- types ----------------------------------------------------------------------------
    currencies: dict[int, list[str | None]] = {}
    for s in data:
        if s.kind != "text":
            continue
        idx = [r for r in range(n) if s.values[r] is not None]
        typ, conv, curs = infer_column([s.values[r] for r in idx])
        s.type = typ
        if typ != "text":
            for r, v in zip(idx, conv):
                s.values[r] = v
        if curs is not None and any(curs):
            cl: list[str | None] = [None] * n
            for r, c in zip(idx, curs):
                cl[r] = c
            currencies[id(s)] = cl

    # --- names -----------------------------------------------------------------------------
    _name_slots(page, slots, data, trees, maps, tparent, tdepth, template)

    # --- relative xpaths -----------------------------------------------------------------
    sibpos: dict[int, tuple[int, int]] = {}
    steps_memo: dict[int, dict[int, Any]] = {}
    for s in data:
        s.xpath = _column_xpath(page, s, trees, groups, sibpos, steps_memo=steps_memo)

    # --- assemble ----------------------------------------------------------------------------
    columns: list[Column] = []
    used_names: set[str] = set()
    out_slots: list[tuple[str, _Slot | None, list[Any]]] = []

    def unique(base: str) -> str:
        name, k = base, 2
        while name in used_names:
            name = f"{base}_{k}"
            k += 1
        used_names.add(name)
        return name

    for s in data:
        name = unique(s.name)
        fill = sum(1 for v in s.values if v is not None) / n
        columns.append(Column(name, s.type, fill, s.xpath, s.evidence))
        out_slots.append((name, s, s.values))
        cl = currencies.get(id(s))
        if cl is not None:
            cname = unique(f"{name}_currency")
            cfill = sum(1 for c in cl if c) / n
            columns.append(Column(cname, "text", cfill, s.xpath, "currency"))
            out_slots.append((cname, None, cl))
    values: list[dict[str, Any]] = [{} for _ in range(n)]
    for name, _, vals in out_slots:
        for r, v in enumerate(vals):
            if v is not None:
                values[r][name] = v
    return columns, values


def _varies(t: _T, trees: list[_Rec], maps: list[dict[_T, int]]) -> bool:
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


def _clean_group(page: Page, g: Sequence[int]) -> tuple[int, ...]:
    """Sorted, de-duplicated roots with nested roots removed (a node inside another root)."""
    out: list[int] = []
    end = page.end
    for i in sorted(set(g)):
        if 0 <= i < len(end) and (not out or i > end[out[-1]]):
            out.append(i)
    return tuple(out)


_ID_DIGITS_RE = re.compile(r"[-_]?\d+")


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


def _name_slots(
    page: Page,
    slots: list[_Slot],
    data: list[_Slot],
    trees: list[_Rec],
    maps: list[dict[_T, int]],
    tparent: dict[_T, _T | None],
    tdepth: dict[_T, int],
    template: _T,
    sample: int = 12,
) -> None:
    """Name the data slots (rules in :func:`align_records`)."""
    n = len(trees)
    # how many data slots of each kind lie under each template node
    count: dict[tuple[_T, str], int] = {}
    anchor: dict[int, _T] = {}
    for s in data:
        kind = "text" if s.kind == "text" else s.kind
        a = s.t if (s.kind != "text" or s.collapsed) else tparent[s.t]
        anchor[id(s)] = a  # type: ignore[assignment]
        p: _T | None = s.t
        while p is not None:
            count[(p, kind)] = count.get((p, kind), 0) + 1
            p = tparent.get(p)
    elems_cache: dict[_T, list[int]] = {}
    step = max(1, n // sample)

    def elems(t: _T) -> list[int]:
        """Up to ``sample`` elements mapped to ``t``, spread over the records (cached)."""
        out = elems_cache.get(t)
        if out is not None:
            return out
        out = elems_cache[t] = []
        for start in range(step):
            for r in range(start, n, step):
                loc = maps[r].get(t)
                if loc is not None:
                    out.append(loc)
                    if len(out) >= sample:
                        return out
        return out

    attr_cache: dict[tuple[_T, str], Any] = {}
    names_cache: dict[_T, set[str]] = {}
    pel = page.el

    def attr_names(t: _T) -> set[str]:
        """The attribute names present on ``elems(t)`` (one lxml call per element: most
        elements carry no attribute, or only ``class``, so the lookups below are skipped)."""
        out = names_cache.get(t)
        if out is None:
            out = names_cache[t] = set()
            for i in elems(t):
                out.update(pel[i].keys())
        return out

    def stable_attr(t: _T, name: str) -> Any:
        key = (t, name)
        v = attr_cache.get(key, _MISS)
        if v is _MISS:
            if name in attr_names(t):
                v = _stable([(pel[i].get(name) or "").strip() or None for i in elems(t)])
            else:
                v = None  # absent everywhere: _stable of all None
            attr_cache[key] = v
        return v

    def stable_tokens(t: _T) -> list[str]:
        key = (t, "#class")
        v = attr_cache.get(key)
        if v is None:
            els = elems(t)
            names = attr_names(t)
            toks: list[str] = []
            if "class" in names:
                cnt: dict[str, int] = {}
                order: list[str] = []
                for i in els:
                    for tok in dict.fromkeys(page.classes(i)):
                        if tok not in cnt:
                            order.append(tok)
                        cnt[tok] = cnt.get(tok, 0) + 1
                toks = [tok for tok in order if els and cnt[tok] >= 0.6 * len(els)]
            sid = None
            if "id" in names:
                ids = [
                    _ID_DIGITS_RE.sub("", v) or None if (v := pel[i].get("id")) else None
                    for i in els
                ]
                sid = _stable(ids)
            v = attr_cache[key] = (toks, sid)
        return v

    best_cache: dict[_T, str | None] = {}

    def best_class(t: _T) -> str | None:
        """:func:`_best_token` of ``t``'s stable class tokens (cached: ancestors are shared)."""
        v = best_cache.get(t, _MISS)
        if v is _MISS:
            v = best_cache[t] = _best_token(stable_tokens(t)[0])
        return v  # type: ignore[return-value]

    tagnames = _tag_names(page)
    headers: dict[Any, Any] = {}  # table -> its first header row, cell -> name (_table_header)
    spans: dict[int, int] = {}  # cell -> colspan (_table_header)
    labels = _labels(page, slots, anchor, tparent, tdepth, tagnames)
    rows = all(page.tag[r] == "tr" for rec in trees[:5] for r in rec.roots)
    for col, s in enumerate(data, 1):
        kind = s.kind
        a = anchor[id(s)]
        chain: list[_T] = []
        p: _T | None = a
        while p is not None and tdepth.get(p, 0) >= 2:  # stop at record roots
            if count.get((p, kind), 0) <= 1:
                chain.append(p)
            else:
                break
            p = tparent.get(p)
        name = evidence = None
        for t in chain:
            v = stable_attr(t, "itemprop")
            if v:
                name, evidence = _slug(v.split()[0]), "itemprop"
                break
        if not name:
            for t in chain:
                for at in ("aria-label", "title"):
                    v = stable_attr(t, at)
                    if v and _label_name(v):
                        name, evidence = _label_name(v), at
                        break
                if name:
                    break
        if not name and id(s) in labels:
            name, evidence = labels[id(s)], "label"
        if not name and rows:
            hdr = _table_header(page, s, trees, maps, tparent, tdepth, headers, spans)
            if hdr:
                name, evidence = hdr, "header"
        if not name:
            for t in chain:
                sid = stable_tokens(t)[1]
                v = best_class(t)
                if v:
                    name, evidence = v, "class"
                    break
                if sid:
                    v = _token_name(sid)
                    if v:
                        name, evidence = v, "id"
                        break
        if not name:
            # an ancestor's class even when it holds other slots too ("specs", "specs_2")
            p = tparent.get(chain[-1]) if chain else a
            while p is not None and tdepth.get(p, 0) >= 2:
                v = best_class(p)
                if v:
                    name, evidence = v, "class"
                    break
                p = tparent.get(p)
        if not name and kind != "image":
            for t in chain[:2]:
                tn = _TAG_NAMES.get(_tag_of(page, t, tagnames))
                if tn is not None and (kind == "text" or tn == "title"):
                    name, evidence = tn, "tag"
                    break
        if name and kind in ("url", "image"):
            words = _URLISH if kind == "url" else _IMGISH
            if not any(w in name for w in words):
                name = f"{name}_{'url' if kind == 'url' else 'image'}"
        if not name and s.type in ("url", "image", "price", "date"):
            name, evidence = s.type, "type"
        if not name:
            name, evidence = f"field_{col}", "position"
        s.name, s.evidence = name, evidence


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


def _tag_of(page: Page, t: _T, names: list[str] | None = None) -> str:
    """The tag name of template node ``t`` (``names``: :func:`_tag_names` of the page)."""
    if t.label < 0:
        return ""
    if names is None:
        names = _tag_names(page)
    return names[t.label] if t.label < len(names) else ""


def _tag_names(page: Page) -> list[str]:
    pd = _page_data(page)
    lst = pd.attrs.get("#tagnames")
    if lst is None:
        lst = [""] * len(page.tag_names)
        for name, i in page.tag_names.items():
            lst[i] = name
        pd.attrs["#tagnames"] = lst  # type: ignore[assignment]
    return lst  # type: ignore[return-value]


def _labels(
    page: Page,
    slots: list[_Slot],
    anchor: dict[int, _T],
    tparent: dict[_T, _T | None],
    tdepth: dict[_T, int],
    tagnames: list[str] | None = None,
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
        ln = _label_name(lv) if lv else None
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
        if _tag_of(page, lab_el, tagnames) in _ACTION_TAGS and a is not lab_el:
            continue  # "Add to cart" names nothing; a link's constant text names its link
        if (
            colon
            or a is lab_el
            or _tag_of(page, lab_el, tagnames) in _LABEL_TAGS
            or (
                _tag_of(page, lab_el, tagnames) != _tag_of(page, a, tagnames)
                and len(lv.split()) <= 3
            )
        ):
            out[id(target)] = ln
    return out


def _dist(x: _T, y: _T, tparent: dict[_T, _T | None], tdepth: dict[_T, int]) -> int | None:
    """Tree distance (edges through the lowest common ancestor) of two template nodes."""
    anc = {}
    p: _T | None = x
    while p is not None:
        anc[p] = tdepth[x] - tdepth[p]
        p = tparent.get(p)
    p, up = y, 0
    while p is not None and p not in anc:
        p = tparent.get(p)
        up += 1
    return None if p is None else up + anc[p]


def _near(
    label_owner: _T | None, anchor: _T | None, tparent: dict[_T, _T | None], tdepth: dict[_T, int]
) -> bool:
    """A label's element and a value's element are within two levels of their common ancestor."""
    if label_owner is None or anchor is None:
        return False
    anc = set()
    p: _T | None = label_owner
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


def _table_header(
    page: Page,
    s: _Slot,
    trees: list[_Rec],
    maps: list[dict[_T, int]],
    tparent: dict[_T, _T | None],
    tdepth: dict[_T, int],
    headers: dict[Any, Any] | None = None,
    spans: dict[int, int] | None = None,
) -> str | None:
    """Name from the ``th`` above the slot's cell when the records are table rows.

    ``headers`` keeps each table's first header row (``-1``: none) and each cell's name,
    ``spans`` each cell's ``colspan``, between the slots."""
    # the slot's cell: the ancestor at depth 2 (record root tr = depth 1)
    t: _T | None = s.t
    while t is not None and tdepth.get(t, 0) > 2:
        t = tparent.get(t)
    if t is None or tdepth.get(t) != 2:
        return None
    if headers is None:
        return _cell_header(page, t, maps, {}, spans)
    # the name depends on the cell only: slots of one cell share it
    name = headers.get(t, _MISS)  # (a template node key; tables are keyed by index)
    if name is _MISS:
        name = headers[t] = _cell_header(page, t, maps, headers, spans)
    return name  # type: ignore[return-value]


def _cell_header(
    page: Page,
    t: _T,
    maps: list[dict[_T, int]],
    headers: dict[Any, Any],
    spans: dict[int, int] | None,
) -> str | None:
    """:func:`_table_header` for the cell template node ``t``."""
    tag, el = page.tag, page.el
    for r, m in enumerate(maps):
        loc = m.get(t)
        if loc is None:
            continue
        cell = loc
        row = page.parent[cell]
        if cell < 0 or tag[cell] not in ("td", "th") or row < 0 or tag[row] != "tr":
            return None

        def span(c: int) -> int:
            v = spans.get(c) if spans is not None else None
            if v is None:
                try:
                    v = max(1, int(el[c].get("colspan") or 1))
                except ValueError:
                    v = 1
                if spans is not None:
                    spans[c] = v
            return v

        if span(cell) != 1:
            return None
        col = width = 0
        for c in page.children[row]:
            if c == cell:
                col = width
            if tag[c] in ("td", "th"):
                width += span(c)
        table = row
        while table >= 0 and tag[table] != "table":
            table = page.parent[table]
        if table < 0:
            return None
        # first row of the table that has th cells and is not a record row: the first
        # all-th row, unless a non-header row (the record's own row) comes before it
        head = headers.get(table)
        if head is None:
            head = -1
            for i in range(table + 1, page.end[table] + 1):
                if tag[i] != "tr":
                    continue
                cells = [c for c in page.children[i] if tag[c] in ("td", "th")]
                if cells and all(tag[c] == "th" for c in cells):
                    head = i
                    break
            headers[table] = head
        if head < 0 or row < head:
            return None
        cells = [c for c in page.children[head] if tag[c] in ("td", "th")]
        if sum(span(c) for c in cells) != width:
            return None  # the header row does not describe rows of this shape
        k = 0
        for c in cells:
            w = span(c)
            if k <= col < k + w:
                return _label_name(page.text(c))
            k += w
        return None
    return None


_MISS = object()


def _steps(
    page: Page,
    root: int,
    node: int,
    sibpos: dict[int, tuple[int, int]],
    memo: dict[int, dict[int, Any]] | None = None,
) -> tuple[tuple[str, int, int], ...] | None:
    """Relative path steps ``(tag, position among same-tag siblings, same-tag count)``
    from ``root`` down to ``node`` (``None`` when ``node`` is not below ``root``).

    ``memo`` keeps the steps of every node on the way, as ``memo[root][node]``: the
    slots of one record share their ancestors' steps."""
    if memo is None:
        memo = {}
    mr = memo.get(root)
    if mr is None:
        mr = memo[root] = {}
    parent, tag, children = page.parent, page.tag, page.children
    chain: list[int] = []
    base: Any = ()
    i = node
    while i != root:
        if i < 0:
            base = None
            break
        got = mr.get(i, _MISS)
        if got is not _MISS:
            base = got
            break
        p = parent[i]
        if p < 0:
            base = None
            break
        if i not in sibpos:
            ch = children[p]
            if len(ch) == 1:
                sibpos[i] = (1, 1)
            else:
                cnt: dict[str, int] = {}
                at: list[int] = []
                for c in ch:
                    k = cnt.get(tag[c], 0) + 1
                    cnt[tag[c]] = k
                    at.append(k)
                for c, k in zip(ch, at):
                    sibpos[c] = (k, cnt[tag[c]])
        chain.append(i)
        i = p
    if base is None:
        for x in chain:
            mr[x] = None
        return None
    cur: tuple[tuple[str, int, int], ...] = base
    for x in reversed(chain):
        sp = sibpos[x]
        cur = cur + ((tag[x], sp[0], sp[1]),)
        mr[x] = cur
    return cur


def _column_xpath(
    page: Page,
    s: _Slot,
    trees: list[_Rec],
    groups: list[tuple[int, ...]],
    sibpos: dict[int, tuple[int, int]],
    max_check: int = 8,
    steps_memo: dict[int, dict[int, Any]] | None = None,
) -> str | None:
    """The XPath relative to the record's first root that selects the slot in every record.

    Checked on the first ``max_check`` records holding a value (bounded cost).
    """
    head0: Any = None  # the first checked record's head and steps
    steps0: Any = None
    key0: Any = None
    need_pos: list[bool] = []
    suffix0: str | None = None
    checked = 0
    kind = s.kind
    end, parent, tag = page.end, page.parent, page.tag
    for r, loc in enumerate(s.refs):
        if loc is None:
            continue
        checked += 1
        if checked > max_check:
            break
        rec = trees[r]
        if kind == "text" and s.attr[r] == "datetime":
            node, suffix = rec.pd.owner(loc) if loc < 0 else loc, "@datetime"
        elif kind == "text" and not s.collapsed:
            pd = rec.pd
            owner = pd.owner(loc)
            if len(pd.items[owner]) == 1:  # the text is all the element holds: its string
                node, suffix = owner, ""
            elif -loc - 1 < pd.nleaves and sum(1 for c in rec.kids(owner) if c < 0) == 1:
                node, suffix = owner, "text()"  # the element's one text node
            else:
                return None
        elif kind == "text":
            node, suffix = loc, ""
        else:
            node, suffix = loc, "@" + (s.attr[r] or "href")
        if suffix0 is None:
            suffix0 = suffix
        elif suffix != suffix0:
            return None
        g = groups[r]
        if len(g) == 1:  # rec.root_of for the usual single root (g is rec.roots)
            r0 = g[0]
            j = 0 if 0 <= node and r0 <= node <= end[r0] else rec.root_of(node)
        else:
            j = rec.root_of(node)
        if j < 0 or j >= len(g):
            return None
        mr = steps_memo.get(g[j]) if steps_memo is not None else None
        st = mr.get(node, _MISS) if mr is not None else _MISS  # the record's memo first
        if st is _MISS:
            st = _steps(page, g[j], node, sibpos, steps_memo)
        if st is None:
            return None
        head: tuple[Any, ...] = ()
        if j > 0:
            r0, rj = g[0], g[j]
            if parent[r0] != parent[rj] or tag[r0] != tag[rj]:
                return None
            _steps(page, parent[r0], r0, sibpos, steps_memo)
            off = sibpos[rj][0] - sibpos[r0][0]
            if off <= 0:
                return None
            head = (tag[rj], off)
        if key0 is None:
            head0, steps0 = head, st
            key0 = (head, tuple([(t, p) for t, p, _ in st]))
            need_pos = [c > 1 for _, _, c in st]
        elif st == steps0 and head == head0:
            continue  # the same steps and counts as the first record: nothing new
        else:
            if (head, tuple([(t, p) for t, p, _ in st])) != key0:
                return None
            for k, (_, _, c) in enumerate(st):
                if c > 1:
                    need_pos[k] = True
    if key0 is None:
        return None
    head, steps = key0
    parts = []
    if head:
        parts.append(f"following-sibling::{head[0]}[{head[1]}]")
    for k, (t, p) in enumerate(steps):
        parts.append(f"{t}[{p}]" if need_pos[k] else t)
    if suffix0:
        parts.append(suffix0)
    return "/".join(parts) if parts else "."


def align_region(page: Page, region: Any) -> Any:
    """Align a :class:`~scrapy_records.results.Region` built with ``align=False``, in place.

    For lazy alignment: extractors may build every candidate region without fields
    (``build_region(..., align=False)``) and the caller aligns only the regions it keeps
    (the main region, or the top few after ranking), which is where most of the cost of
    a page goes otherwise. Uses each record's ``nodes``; records rebuilt from JSON (no
    nodes) leave the region unchanged. Returns the region.
    """
    groups = [tuple(r.nodes) for r in region.records]
    if not groups or not all(groups):
        return region
    columns, values = align_records(page, groups)
    region.columns = columns
    for rec, vals in zip(region.records, values):
        rec.fields = vals
    return region
