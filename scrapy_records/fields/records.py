"""Record trees for the alignment, read from the page arrays (never by walking lxml).

:class:`PageData` is the per-page memo every region of a page shares (and every extractor
run on it): each element's items (children and own text in document order), its interned
shape, its class signature and whether it holds data, plus the STM matcher and its memo.
:func:`page_data` returns it from a weak cache keyed by the page. :class:`RecordTree` is one
record: its root elements under a virtual root. A label text ("Salary Search:") has a
shape of its own whose ``sig`` is its text (:meth:`PageData.text_shape_of`): the matching
prefers pairing items labelled alike, as it prefers alike classes.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from typing import Any

from scrapy_records.fields.text import inline_part_text, inline_text, is_cents, is_label_text
from scrapy_records.page import Page
from scrapy_records.treematch import STM, Shapes

#: label of text nodes; they match each other whatever their content (a label's sig only
#: breaks ties)
TEXT = -1
ROOT = -2  #: label of the virtual record root

#: node id of a record's virtual root (elements are ids >= 0, text leaf ``k`` is ``-k-1``)
VROOT = -(1 << 62)

DEFAULT_MAX_CELLS = 200_000
DEFAULT_MAX_NODE_CELLS = 2_500

#: weight of one matched node pair; a pair whose class signatures agree adds 1 more, so
#: the matching maximises matched nodes first (STM) and class agreement second
BIG = 1 << 20

#: Formatting elements whose variable nesting is read as one text value.
INLINE_TAGS = frozenset(
    "b strong i em u font br small sup sub mark wbr nobr s strike big tt abbr span code q "
    "cite dfn kbd samp var del ins bdi bdo".split()
)

_NO_DIGITS = str.maketrans("", "", "0123456789")
#: colour modifiers: ``hotness-signal red`` and ``hotness-signal black`` are one element kind
_COLOURS = frozenset("red blue green black white gray grey yellow orange purple pink".split())


#: the characters a label ends with
_COLONS = frozenset(":\uff1a")


def _is_label(text: str) -> bool:
    """A short text ending with a colon ("Salary Search:")."""
    return len(text) <= 40 and text[-1:] in _COLONS


class PageData:
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
        "label_shapes",
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
        #: leaf -> the shape of a label text ("Salary Search:"), ``sig`` naming the label
        self.label_shapes: dict[int, int] = {}
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
        #: other per-page memos of the alignment, by key ("#tagnames", "#base")
        self.attrs: dict[str, Any] = {}
        # text runs: "Buy <b>shoes</b> online" inside a mixed element is one text node
        self.inline = [False] * n
        self.runs: list[tuple[int, tuple[int, ...], str]] = []  # (owner, items, text)
        self.nleaves = len(page.leaves)
        self.run_tags = frozenset(tid[t] for t in INLINE_TAGS if t in tid and t != "br")
        self.merge_runs = True
        self.urls: dict[str | None, str | None] = {}  # href -> absolute URL

    def element(self, x: int) -> int:
        """Node ``x`` if it is an element, else the element holding text node ``x``."""
        return x if x >= 0 else self.owner(x)

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
        """Compute ``items``/``shape``/``data``/``sig``/``inline`` for the sub-tree of ``root``.

        One pass over the root's pre-order range, backwards, so children come first."""
        if self.shape[root] >= 0:
            return
        owned_get = self._own_leaves(root).get
        page = self.page
        children, tag_id, leaf_elem, el = page.children, self.tag_id, page.leaf_elem, page.el
        ptag = page.tag
        items, shape, data, sig = self.items, self.shape, self.data, self.sig
        shape_at = shape.__getitem__
        intern, ids_get = self.shapes.intern, self.shapes.ids.get
        text_shape = self.text_shape_of
        ts1 = (self.text_shape,)
        leaves = self.leaves
        data_tags, raw_sigs = self.data_tags, self.raw_sigs
        inline, run_tags, merge_runs = self.inline, self.run_tags, self.merge_runs
        for i in range(self.end[root], root - 1, -1):
            if shape[i] >= 0:
                continue
            e = el[i]
            raw = e.get("class")
            sg = (raw_sigs[raw] if raw in raw_sigs else self._class_sig(raw)) if raw else 0
            sig[i] = sg
            t = tag_id[i]
            ch = children[i]
            lv = owned_get(i)
            if lv:
                data[i] = True
                if ch:  # mixed content: merge children and own leaves in document order
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
                    kt = tuple([shape[c] if c >= 0 else text_shape(c) for c in its])
                elif len(lv) == 1:  # the usual text holder: one leaf, no child
                    its = [-lv[0] - 1]
                    kt = (text_shape(its[0]),) if leaves[lv[0]][-1:] in _COLONS else ts1
                else:
                    its = [-k - 1 for k in lv]
                    kt = tuple([text_shape(c) for c in its])
            elif merge_runs and 1 < len(ch) < 5 and ptag[ch[-1]] == "sup" and self._prices(ch):
                data[i] = True
                its = self._runs(i, ch)
                kt = tuple([shape[c] if c >= 0 else text_shape(c) for c in its])
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

    def text_shape_of(self, x: int) -> int:
        """The shape of text node ``x``: a label ("Salary Search:", a short text ending
        with a colon) carries its text as ``sig``, so that among equally good matchings
        tree matching pairs the items two records label alike (an optional item before it
        shifts positions); any other text, and a key of a list of keys and values (the
        alignment pairs those by position: :mod:`~scrapy_records.fields.repeats` reads
        them), has the one text shape."""
        k = -x - 1
        if k >= self.nleaves:
            return self.text_shape
        got = self.label_shapes.get(k)
        if got is not None:
            return got
        t = self.leaves[k]
        if not _is_label(t) or t in self._keys():
            return self.text_shape
        sg = self.sigs.get("\0" + t)
        if sg is None:
            sg = self.sigs["\0" + t] = len(self.sigs)
        got = self.label_shapes[k] = self.shapes.intern(TEXT, (), sg)
        return got

    def _keys(self) -> frozenset[str]:
        """The labels the page writes as keys of a list somewhere: a sibling of the same
        tag as the label's element, or as its parent, holds another label (once per
        page)."""
        got = self.attrs.get("#keys")
        if got is None:
            page, tag_id = self.page, self.tag_id
            leaves, lo, hi = self.leaves, self.leaf_lo, self.leaf_hi
            keys: set[str] = set()
            seen: set[tuple[int, int, str]] = set()  # (parent, tag, label) checked already
            for k, t in enumerate(leaves):
                if not _is_label(t) or t in keys:
                    continue
                a = self.leaf_owner[k]
                for _ in range(2):
                    p = page.parent[a]
                    if p < 0:
                        break
                    if (p, tag_id[a], t) in seen:
                        break  # (another item of that list, checked: the same siblings)
                    sibs = [c for c in page.children[p] if c != a and tag_id[c] == tag_id[a]]
                    if sibs:
                        seen.add((p, tag_id[a], t))
                        if any(
                            _is_label(u) and u != t for c in sibs for u in leaves[lo[c] : hi[c]]
                        ):
                            keys.add(t)
                        break
                    a = p
            got = self.attrs["#keys"] = frozenset(keys)
        return got

    def _own_leaves(self, root: int) -> dict[int, list[int]]:
        """The text leaves below ``root``, grouped by the element directly holding them."""
        owned: dict[int, list[int]] = {}
        leaf_owner = self.leaf_owner
        for k in range(self.leaf_lo[root], self.leaf_hi[root]):
            o = leaf_owner[k]
            lst = owned.get(o)
            if lst is None:
                owned[o] = [k]
            else:
                lst.append(k)
        return owned

    def _class_sig(self, raw: str) -> int:
        """The signature of a class attribute not seen yet on the page: its tokens without
        digits and colour modifiers, so ``item-1`` and ``item-2`` compare equal, and so do
        ``signal red`` and ``signal black``."""
        cls = " ".join(t for t in raw.translate(_NO_DIGITS).split() if t.lower() not in _COLOURS)
        sg = self.sigs.get(cls)
        if sg is None:
            sg = self.sigs[cls] = len(self.sigs)
        self.raw_sigs[raw] = sg
        return sg

    def _runs(self, i: int, its: list[int]) -> list[int]:
        """Replace runs of text and inline-only elements that read as one flowing text
        (two own text pieces around inline markup, or one piece and >= 40 characters) by
        a run node (id ``-(nleaves + r) - 1``), labelled ``#text``."""
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
                        self._flush_run(i, cur, out, len(cur) == len(its))
                    else:
                        out.append(cur[0])
                    cur = []
                out.append(c)
        if len(cur) >= 2:
            self._flush_run(i, cur, out, len(cur) == len(its))
        else:
            out.extend(cur)
        return out

    def _flush_run(self, i: int, cur: list[int], out: list[int], whole: bool) -> None:
        """Append ``cur`` (>= 2 consecutive text/inline items of element ``i``) to ``out``:
        as one run node when it reads as one flowing text, else item by item.

        Inline formatting inside a value never splits it ("$19<sup>97</sup>", "<b>Python</b>
        tutorial"); only a label before inline markup stays apart ("Price: <b>$5</b>")."""
        edge = self._badge_edge(cur)
        if edge is not None:  # "<span class=newly>New listing</span> Red lamp": apart
            rest = cur[1:] if edge == 0 else cur[:-1]
            if edge == 0:
                out.append(cur[0])
            if len(rest) >= 2:
                self._flush_run(i, rest, out, False)
            else:
                out.extend(rest)
            if edge == -1:
                out.append(cur[-1])
            return
        own = [c for c in cur if c < 0]
        if not own and whole and self._cents_price(cur):
            # "<sup>$</sup><span>19</span><sup>97</sup>": the pieces of one price
            out.append(-(self.nleaves + len(self.runs)) - 1)
            self.runs.append((i, tuple(cur), inline_text(self.page.el[i])))
            return
        if not own or len(own) == len(cur):
            out.extend(cur)
            return
        leaves, lo, hi = self.leaves, self.leaf_lo, self.leaf_hi
        if len(own) == 1 and is_label_text(leaves[-own[0] - 1]):
            out.extend(cur)
            return
        if whole:  # the run is all the element holds: read it as a browser does
            text = inline_text(self.page.el[i])
        else:  # that part of the element, as a browser reads it ("Micro<b>soft</b>")
            span = self._run_span(i, out, cur)
            if span is not None:
                text = inline_part_text(self.page.el[i], *span)
            else:
                parts = [leaves[-c - 1] if c < 0 else " ".join(leaves[lo[c] : hi[c]]) for c in cur]
                text = " ".join(p for p in parts if p)
        out.append(-(self.nleaves + len(self.runs)) - 1)
        self.runs.append((i, tuple(cur), text))

    def _badge_edge(self, cur: list[int]) -> int | None:
        """``0`` or ``-1`` when the first or last item of run ``cur`` is a badge before or
        after a text with words of its own ("<a><span class="newly">New listing</span> Red
        lamp</a>", "Jane Roe Smith <span class="badge">Verified</span>"), else ``None``: a
        classed inline element holding one word-bearing text shorter than the text beside
        it, whose tag and class hold that same text wherever the page has them, always at
        the start or end of their parent's text. A highlighted search term is within the
        text somewhere, or differs in case; a currency or a unit goes with a number
        ("<span class=cur>USD</span> 5"); the end of a sentence stays ("Get it by <b
        class=day>Friday, Feb 10</b>")."""
        leaves = self.leaves
        for edge in (0, -1):
            c = cur[edge]
            if c < 0 or not self.inline[c]:
                continue
            rest = [leaves[-x - 1] for x in (cur[1:] if edge == 0 else cur[:-1]) if x < 0]
            if not any(_WORDY.search(t) for t in rest):
                continue
            if self.is_badge(c) and sum(map(len, rest)) > len(leaves[self.leaf_lo[c]]):
                return edge
        return None

    def is_badge(self, c: int) -> bool:
        """Element ``c`` is a badge's element (:meth:`_badge_edge`), per tag and class on
        the page (memoised)."""
        e = self.page.el[c]
        raw = e.get("class")
        if not raw or len(e) or self.leaf_hi[c] - self.leaf_lo[c] != 1:
            return False
        if not _WORDY.search(self.leaves[self.leaf_lo[c]]):
            return False
        memo = self.attrs.setdefault("#badges", {})
        key = (e.tag, raw)
        got = memo.get(key)
        if got is None:
            got = memo[key] = _edge_constant(self.page.root, e.tag, raw)
        return bool(got)

    def _prices(self, ch: list[int]) -> bool:
        """Children (no text of their own around them, the last a ``sup``) that are one
        price in pieces."""
        inline = self.inline
        return all(inline[c] for c in ch) and self._cents_price(ch)

    def _cents_price(self, cur: list[int]) -> bool:
        """Inline elements that are one number written in pieces: short texts (a currency
        sign, digits), the last a ``sup`` of cents right after a digit."""
        page, leaves, lo, hi = self.page, self.leaves, self.leaf_lo, self.leaf_hi
        texts = [" ".join(leaves[lo[c] : hi[c]]) for c in cur]
        if sum(map(len, texts)) > 24 or page.tag[cur[-1]] != "sup":
            return False
        return is_cents(texts[-1], " ".join(texts[:-1]))

    def _run_span(self, i: int, before: list[int], cur: list[int]) -> tuple[int, int] | None:
        """The pieces of element ``i``'s lxml content that run ``cur`` spans (numbered as
        :func:`~scrapy_records.fields.text.inline_part_text` numbers them); ``before``:
        the items of ``i`` before the run. ``None`` when a leaf is not found."""
        el = self.page.el
        kids = list(el[i])
        at = {k: j for j, k in enumerate(kids)}
        pos: list[int] = []
        prev = next((c for c in reversed(before) if c >= 0), None)
        for c in cur:
            if c >= 0:
                j = at.get(el[c])
                if j is None:
                    return None
                pos.append(2 * j + 1)
                prev = c
                continue
            # a leaf: the element's text or a tail after the previous element child
            start = 0 if prev is None else at.get(el[prev], -2) * 2 + 2
            p = self._leaf_piece(kids, el[i].text, start, self.leaves[-c - 1])
            if p is None:
                return None
            pos.append(p)
        return pos[0], pos[-1]

    @staticmethod
    def _leaf_piece(kids: list[Any], text: str | None, start: int, leaf: str) -> int | None:
        """The piece (from ``start`` on, before the next element) whose text is ``leaf``."""
        if start < 0:
            return None
        p = start
        while True:
            raw = text if p == 0 else kids[(p - 2) // 2].tail
            if raw and " ".join(raw.split()) == leaf:
                return p
            j = p // 2  # the next child: a comment's tail may hold the leaf, not an element
            if j >= len(kids) or isinstance(kids[j].tag, str):
                return None
            p = 2 * j + 2


#: two letters in a row: a text with a word (not a currency sign, a number or a unit)
_WORDY = re.compile(r"[^\W\d_]{2}")


def _edge_constant(root: Any, tag: str, cls: str) -> bool:
    """The page's elements of tag ``tag`` and class attribute ``cls`` (at least two) hold
    one text, the same in each, and stand at the start or the end of their parent's text."""
    found = root.xpath(f"//{tag}[@class=$c]", c=cls) if tag.isalnum() else []
    if len(found) < 2:
        return False
    texts = set()
    for e in found:
        if len(e):
            return False
        texts.add(" ".join((e.text or "").split()))
        if len(texts) > 1:
            return False
        parent = e.getparent()
        if parent is None:
            return False
        first = e.getprevious() is None and not (parent.text or "").strip()
        last = e.getnext() is None and not (e.tail or "").strip()
        if not (first or last):
            return False
    return True


_CACHE: weakref.WeakKeyDictionary[Page, PageData] = weakref.WeakKeyDictionary()


def page_data(page: Page) -> PageData:
    """The page's :class:`PageData`, created on first use and dropped with the page."""
    pd = _CACHE.get(page)
    if pd is None:
        pd = _CACHE[page] = PageData(page)
    return pd


class RecordTree:
    """One record: its root elements under a virtual root.

    Nodes are page ids: element ``i >= 0``, text leaf ``-k-1``, the virtual root ``VROOT``.
    """

    __slots__ = ("pd", "roots", "vshape", "size")

    def __init__(self, pd: PageData, roots: tuple[int, ...]) -> None:
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
        return self.vshape if x == VROOT else self.pd.text_shape_of(x)

    def label(self, x: int) -> int:
        if x >= 0:
            return self.pd.tag_id[x]
        return ROOT if x == VROOT else TEXT

    def sig(self, x: int) -> int:
        if x >= 0:
            return self.pd.sig[x]
        return 0 if x == VROOT else self.pd.shapes.sig[self.pd.text_shape_of(x)]

    def has_data(self, x: int) -> bool:
        return self.pd.data[x] if x >= 0 else x != VROOT

    def root_of(self, x: int) -> int:
        """Position in ``roots`` of the root whose sub-tree holds node ``x`` (-1: none)."""
        if x == VROOT:
            return -1
        e = self.pd.element(x)
        end = self.pd.end
        for j, r in enumerate(self.roots):
            if r <= e <= end[r]:
                return j
        return -1
