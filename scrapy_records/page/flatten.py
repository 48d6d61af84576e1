"""Flatten an lxml tree into the page model's pre-order arrays, in one pass.

:class:`Flattener` walks ``root.iter()`` once, drops what the algorithms never read
(:data:`DROPPED_TAGS`, the inside of :data:`LEAF_TAGS`), applies the browser's structure
repairs (:mod:`scrapy_records.page.repairs`) and folds elements deeper than ``max_depth``.
The walk's common path is inline; each rare event (a dropped or new tag, a repair, the
depth limit) is a method called only when it happens.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterator
from itertools import chain, islice
from typing import Any

from lxml import etree

from scrapy_records.errors import PageTooLargeError
from scrapy_records.page.repairs import close_point, close_rule, holds_content

#: Elements removed with their whole sub-tree before any algorithm sees the page.
DROPPED_TAGS = frozenset({"script", "style", "noscript", "template"})
#: Elements kept as leaves: their inside is drawing markup, not page structure.
LEAF_TAGS = frozenset({"svg", "math"})
#: Inline formatting elements that are dropped when empty (no text, no children, no
#: attributes): search engines wrap every word of a snippet in ``<strong></strong>``
#: pairs, which would make two results of one template look unalike. Their tails stay.
EMPTY_DROPPED_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "s", "mark", "font", "small", "big", "sup", "sub"}
)

#: Characters a browser draws with no width and no space (zero-width space, word joiner,
#: zero-width no-break space / BOM): text values never hold them ("\ufeffCAD 263.59" is a
#: price). Joiners that shape letters and emoji (ZWJ, ZWNJ) are kept.
ZERO_WIDTH = "\u200b\u2060\ufeff"
_NO_ZERO_WIDTH = dict.fromkeys(map(ord, ZERO_WIDTH))


def empty_inline(el: Any) -> bool:
    """Whether lxml element ``el`` is an inline formatting element the page model drops
    (:data:`EMPTY_DROPPED_TAGS` with no text, no children and no attributes)."""
    t = el.tag
    if not isinstance(t, str) or t.lower() not in EMPTY_DROPPED_TAGS or len(el) or el.attrib:
        return False
    text = el.text
    return not text or text.isspace()


def normalize_space(s: str) -> str:
    """``s`` with whitespace runs collapsed to one space, no space at either end, and no
    :data:`ZERO_WIDTH` character: a text as a reader sees it."""
    out = " ".join(s.split())
    if not out.isascii() and ("\ufeff" in out or "\u200b" in out or "\u2060" in out):
        out = " ".join(out.translate(_NO_ZERO_WIDTH).split())
    return out


#: The page model's arrays, indexed by pre-order position (leaves: by leaf number), and
#: its two intern tables (see :class:`~scrapy_records.page.model.Page`).
ARRAYS = (
    "el",
    "tag",
    "tag_id",
    "parent",
    "children",
    "depth",
    "end",
    "path_id",
    "leaves",
    "leaf_owner",
    "leaf_elem",
    "leaf_lo",
    "leaf_hi",
    "tag_names",
    "path_keys",
)

#: Default budgets: they bound time and memory on hostile input (``docs/library.md``).
#: ``max_nodes`` counts every element, comment and processing instruction of the tree,
#: those the page model drops or folds included.
DEFAULT_MAX_NODES = 150_000
DEFAULT_MAX_DEPTH = 512

#: Start-tag kinds: what else a start tag does besides being added (ordered: the tags
#: after ``</body>`` that move into the body are those of a kind below ``_K_BODY``).
_K_P, _K_LEAF, _K_BODY, _K_HEAD = 1, 2, 3, 4
#: ``<base>``: noted for the page's base URL (:attr:`Flattener.base_el`); below ``_K_BODY``,
#: so that after ``</body>`` it moves into the body as tags of kind 0 do
_K_BASE = -1
_KINDS = {
    "p": _K_P,
    "body": _K_BODY,
    "head": _K_HEAD,
    "base": _K_BASE,
    **dict.fromkeys(LEAF_TAGS, _K_LEAF),
}
#: (tag, tag id, implied-close scan map or None, scan without an open <p>, kind)
TagInfo = tuple[str, int, "dict[str, bool] | None", bool, int]


def tag_info(t: str, tag_names: dict[str, int]) -> TagInfo:
    """What the walk needs for a start tag ``t``; gives ``t`` its page id."""
    tid = tag_names.get(t)
    if tid is None:
        tid = tag_names[t] = len(tag_names)
    scan, always = close_rule(t)
    return t, tid, scan, always, _KINDS.get(t, 0)


class _EndOfNodes:
    """What the walk meets after the last node: no parent, so every open node closes."""

    __slots__ = ()
    tag = None

    def getparent(self) -> None:
        return None


_END = _EndOfNodes()


def skip_descendants(nodes: Iterator[Any], node: Any) -> int:
    """Advance ``nodes``, a pre-order iterator that just gave ``node``, past its sub-tree;
    return how many nodes were skipped."""
    n = sum(1 for _ in node.iterdescendants())
    deque(islice(nodes, n), maxlen=0)
    return n


def folded_texts(node: Any) -> list[str | None]:
    """The texts and tails inside ``node``'s sub-tree in document order (of a dropped
    element inside, only its tail), as a node folded at the depth limit keeps them."""
    out = []
    walker = etree.iterwalk(node, events=("start", "end", "comment", "pi"))
    next(walker)  # the node's own start
    for event, x in walker:
        if event == "start":
            t = x.tag
            if isinstance(t, str) and t.lower() not in DROPPED_TAGS:
                out.append(x.text)
            else:
                walker.skip_subtree()  # its "end" event still arrives: its tail is kept
        elif x is not node:  # the end of a descendant, or a comment / PI: its tail
            out.append(x.tail)
    return out


class Flattener:
    """The arrays of one page, filled by :meth:`run` (their meaning: :class:`Page`).

    Besides the arrays it keeps the walk's state: ``stack`` the open nodes as a browser
    has them open; ``real_stack`` the open nodes as libxml2 nested them, ``None`` until
    the first repair (until then the two are the same); ``moved`` each node whose real
    parent differs from ``parent``.
    """

    __slots__ = (
        *ARRAYS,
        "truncated",
        "hidden",
        "limit",
        "max_depth",
        "nodes",
        "known",
        "stack",
        "real_stack",
        "moved",
        "body_i",
        "inline",
        "gapped",
        "base_el",
        "json_ld",
    )

    def __init__(self, max_nodes: int | None, max_depth: int) -> None:
        self.el: list[Any] = []
        self.tag: list[str] = []
        self.tag_id: list[int] = []
        self.parent: list[int] = []
        self.children: list[list[int]] = []
        self.depth: list[int] = []
        self.end: list[int] = []
        self.path_id: list[int] = []
        self.leaves: list[str] = []
        self.leaf_owner: list[int] = []
        self.leaf_elem: list[int] = []
        self.leaf_lo: list[int] = []
        self.leaf_hi: list[int] = []
        self.tag_names: dict[str, int] = {}
        self.path_keys: dict[tuple[int, int], int] = {}
        self.truncated = False
        self.hidden = 0  # nodes of the tree not in the arrays (comments, dropped, folded)
        self.limit = sys.maxsize if max_nodes is None else max_nodes
        self.max_depth = max_depth
        self.nodes: Iterator[Any] = iter(())
        #: what a start tag needs, worked out once per tag name (lxml's tag -> TagInfo):
        #: every start tag then costs one dict look-up instead of several set tests
        self.known: dict[Any, TagInfo] = {}
        self.stack: list[int] = []
        self.real_stack: list[int] | None = None
        self.moved: dict[int, int] = {}
        self.body_i = -1
        #: what a start tag of :data:`EMPTY_DROPPED_TAGS` needs, by lxml's tag (never in
        #: ``known``: each one is looked at before it is added)
        self.inline: dict[Any, TagInfo] = {}
        #: the nodes an empty inline child was dropped from (see ``Page.gapped``)
        self.gapped: set[int] = set()
        #: the first ``<base href>`` child of a ``<head>`` below the root, in document
        #: order, as ``root.find(".//head/base[@href]")`` finds it in a tree libxml2's HTML
        #: parser built (a ``<head>`` is never inside a dropped or folded element there)
        self.base_el: Any = None
        #: the texts of the ``<script type="application/ld+json">`` elements, in order
        self.json_ld: list[str] = []

    def run(self, root: Any) -> None:
        """Fill the arrays (:meth:`walk`), then check the node budget once more: the nodes
        left out of the arrays count too."""
        self.walk(root)
        self._hide(0)
        self._drop_zero_width()

    def walk(self, root: Any) -> None:
        """One pre-order pass over ``root.iter()``. A node whose parent is not the innermost
        open node first closes the open nodes inside its parent; ``_END`` closes the rest."""
        el, tag, tag_id, parent = self.el, self.tag, self.tag_id, self.parent
        children, depth, end, path_id = self.children, self.depth, self.end, self.path_id
        leaves, leaf_owner, leaf_elem = self.leaves, self.leaf_owner, self.leaf_elem
        leaf_lo, leaf_hi, known, stack = self.leaf_lo, self.leaf_hi, self.known, self.stack
        path_keys, limit, max_depth = self.path_keys, self.limit, self.max_depth
        inline = self.inline  # (inline formatting tags met before, by lxml's tag)
        nodes = self.nodes = chain(root.iter(), (_END,))
        top: Any = None  # the innermost open element (as libxml2 nests them)
        i, open_p, repaired = -1, 0, False  # i: the last node added
        for node in nodes:
            par = node.getparent()
            if par is not top and repaired:
                top, open_p = self._close_real(par, top, open_p)
            elif par is not top:
                while stack:
                    j = stack.pop()
                    end[j] = i
                    leaf_hi[j] = len(leaves)
                    if open_p and tag[j] == "p":
                        open_p -= 1
                    s = top.tail  # (a tail belongs to the parent)
                    top = el[stack[-1]] if stack else None
                    if s and top is not None and not s.isspace():
                        leaves.append(" ".join(s.split()))
                        leaf_owner.append(stack[-1])
                        leaf_elem.append(i + 1)
                    if top is par:
                        break
            info = known.get(node.tag)
            if info is None:
                info = inline.get(node.tag)  # kept if it holds text (_inline's common case)
                if info is None or not (s := node.text) or s.isspace():
                    info = self._special(node)
                    if info is None:
                        continue
            t, tid, scan, always, kind = info
            n_open = len(stack)
            if n_open > 1:
                # most start tags close nothing: the innermost open element is tested first
                if scan and (always or open_p) and scan.get(tag[stack[-1]]) is not False:
                    k = close_point(scan, stack, tag)
                    if k:
                        n_open, open_p, repaired = k, self._close_from(k, open_p), True
            elif n_open and self.body_i >= 0 and kind < _K_BODY:
                n_open, repaired = self._into_body(), True
            i += 1
            if i >= limit:
                raise PageTooLargeError(f"page has more than max_nodes={limit} elements")
            p = stack[-1] if n_open else -1  # (depth[p] == len(stack) - 1: p's ancestors)
            key = (path_id[p] if n_open else -1, tid)
            if n_open:
                children[p].append(i)
            if repaired:
                self._track_real(i, p)
            top = node
            el.append(node)
            tag.append(t)
            tag_id.append(tid)
            parent.append(p)
            children.append([])
            depth.append(n_open)
            end.append(i)
            pid = path_keys.get(key)
            if pid is None:
                pid = path_keys[key] = len(path_keys)
            path_id.append(pid)
            nl = len(leaves)
            leaf_lo.append(nl)
            leaf_hi.append(nl)
            stack.append(i)
            s = node.text
            if s and not s.isspace():
                leaves.append(" ".join(s.split()))
                leaf_owner.append(i)
                leaf_elem.append(i + 1)
            if kind or n_open >= max_depth:
                open_p = self._after_start(node, kind, n_open, open_p)

    def _drop_zero_width(self) -> None:
        """Remove :data:`ZERO_WIDTH` characters from the text leaves (one scan of the
        page's text finds whether any leaf holds one; a leaf of nothing else stays)."""
        leaves = self.leaves
        text = "\n".join(leaves)
        if "\ufeff" not in text and "\u200b" not in text and "\u2060" not in text:
            return
        for k, s in enumerate(leaves):
            t = normalize_space(s)
            if t and t != s:
                leaves[k] = t

    # ------------------------------------------------------------ rare events
    def _hide(self, n: int) -> None:
        """Count ``n`` nodes the arrays leave out against ``max_nodes``."""
        self.hidden += n
        if len(self.el) + self.hidden > self.limit:
            raise PageTooLargeError(
                f"page has more than max_nodes={self.limit} nodes"
                f" ({self.hidden} of them comments or inside dropped and drawing elements)"
            )

    def _leaf(self, s: str | None, owner: int) -> None:
        """Add text ``s`` as a leaf of ``owner`` unless it is blank."""
        if s and not s.isspace():
            self.leaves.append(" ".join(s.split()))
            self.leaf_owner.append(owner)
            self.leaf_elem.append(len(self.el))

    def _special(self, node: Any) -> TagInfo | None:
        """A node whose tag the walk has not met yet: a new tag name (its info, now
        cached), a dropped element, a comment, a PI or an entity (``None``: skip it)."""
        t = node.tag
        stack = self.stack
        if not isinstance(t, str):
            if t is etree.Comment or t is etree.PI:
                self._hide(1)
                if stack:  # only the tail matters
                    self._leaf(node.tail, stack[-1])
            return None  # (entities, and the end of the nodes: nothing)
        t = t.lower()
        if t in EMPTY_DROPPED_TAGS:
            return self._inline(node, t)
        if t not in DROPPED_TAGS:
            info = self.known[node.tag] = tag_info(t, self.tag_names)
            return info
        if t == "noscript" and holds_content(node):
            return tag_info(t, self.tag_names)  # (not cached: the next may be dropped)
        if t == "script" and (node.get("type") or "").strip().lower() == "application/ld+json":
            self.json_ld.append(node.text or "")
        # dropped with its sub-tree; its tail belongs to the open parent
        self._hide(1 + (skip_descendants(self.nodes, node) if len(node) else 0))
        if stack:
            self._leaf(node.tail, stack[-1])
        return None

    def _inline(self, node: Any, t: str) -> TagInfo | None:
        """An inline formatting element: dropped when it holds nothing (its tail goes to
        the open parent), else added like any element."""
        if not empty_inline(node):
            info = self.inline.get(node.tag)
            if info is None:
                info = self.inline[node.tag] = tag_info(t, self.tag_names)
            return info
        self._hide(1)
        if self.stack:
            self.gapped.add(self.stack[-1])
            self._leaf(node.tail, self.stack[-1])
        return None

    def _start_repair(self) -> None:
        if self.real_stack is None:
            self.real_stack = self.stack[:]

    def _close_from(self, k: int, open_p: int) -> int:
        """Close the open nodes ``stack[k:]`` before a start tag that implies their end,
        as a browser does; returns ``open_p`` updated."""
        self._start_repair()
        stack, end, leaf_hi, tag = self.stack, self.end, self.leaf_hi, self.tag
        last, n_leaves = len(self.el) - 1, len(self.leaves)
        for j in stack[k:]:
            end[j] = last
            leaf_hi[j] = n_leaves
            if tag[j] == "p":
                open_p -= 1
        del stack[k:]
        return open_p

    def _into_body(self) -> int:
        """Content after ``</body>`` (not a head or body): a browser parses it into the
        body. Returns the new number of open nodes."""
        self._start_repair()
        self.stack.append(self.body_i)
        return 2

    def _track_real(self, i: int, p: int) -> None:
        """After a repair: node ``i`` (parent ``p``) opens in the real nesting too."""
        real_stack = self.real_stack
        assert real_stack is not None
        rp = real_stack[-1] if real_stack else -1
        if rp != p:
            self.moved[i] = rp
        real_stack.append(i)

    def _close_real(self, par: Any, top: Any, open_p: int) -> tuple[Any, int]:
        """After a repair, close the open nodes inside ``par`` as libxml2 nested them,
        and each one's browser counterpart; returns the new ``(top, open_p)``."""
        stack, real_stack, el = self.stack, self.real_stack, self.el
        end, leaf_hi, tag = self.end, self.leaf_hi, self.tag
        assert real_stack is not None
        last = len(el) - 1
        while real_stack:
            i = real_stack.pop()
            if stack[-1] == i:
                stack.pop()
                end[i] = last
                leaf_hi[i] = len(self.leaves)
                if tag[i] == "p":
                    open_p -= 1
            elif i in stack:  # a body reopened inside i (else a later item closed i)
                while True:
                    j = stack.pop()
                    end[j] = last
                    leaf_hi[j] = len(self.leaves)
                    if j == i:
                        break
            if stack:
                self._leaf(top.tail, stack[-1])
            if not real_stack:
                return None, open_p
            top = el[real_stack[-1]]
            if top is par:
                break
        return top, open_p

    def _after_start(self, node: Any, kind: int, n_open: int, open_p: int) -> int:
        """What a start tag of a special ``kind`` does besides being added (count an open
        ``<p>``, note the ``<body>``, skip a leaf's inside), and the fold of a node at the
        depth limit. Returns ``open_p`` updated."""
        if kind == _K_P:
            open_p += 1
        elif kind == _K_BODY:
            if self.body_i < 0 and n_open == 1:
                self.body_i = len(self.el) - 1
        elif kind == _K_LEAF:
            if len(node):
                self._hide(skip_descendants(self.nodes, node))
            return open_p
        elif kind == _K_BASE and self.base_el is None and node.get("href") is not None:
            par = node.getparent()
            if node.tag == "base" and par is not None and par.tag == "head":
                if par.getparent() is not None:  # (.//head: a descendant of the root)
                    self.base_el = node
        if n_open >= self.max_depth:
            self._fold(node)
        return open_p

    def _fold(self, node: Any) -> None:
        """A node at the depth limit: its sub-tree's text becomes its own, its structure
        is dropped."""
        self.truncated = True
        if len(node):
            i = len(self.el) - 1
            for s in folded_texts(node):
                self._leaf(s, i)
            self._hide(skip_descendants(self.nodes, node))

    # ------------------------------------------------------------ after the walk
    def real_tree(self) -> tuple[list[int], list[list[int]]]:
        """``(parent, children)`` as libxml2 nested the nodes (for XPaths): the arrays
        themselves unless a nesting was repaired."""
        if not self.moved:
            return self.parent, self.children
        rparent = list(self.parent)
        for j, rp in self.moved.items():
            rparent[j] = rp
        rchildren: list[list[int]] = [[] for _ in rparent]
        for j, rp in enumerate(rparent):
            if rp >= 0:
                rchildren[rp].append(j)
        return rparent, rchildren

    def body(self) -> int:
        """The first ``body`` among the first 256 nodes (0 when none)."""
        tag = self.tag
        for i in range(min(len(tag), 256)):
            if tag[i] == "body":
                return i
        return 0
