"""The :class:`Page` class: one parsed page, flattened into arrays, shared by every
extractor; :func:`as_page` builds one unless it already is one."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import accumulate
from typing import Any
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from scrapy_records.page.flatten import (
    ARRAYS,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_NODES,
    EMPTY_DROPPED_TAGS,
    Flattener,
)
from scrapy_records.page.jsonld import ItemValues, parse
from scrapy_records.page.parse import (
    DEFAULT_MAX_BYTES,
    HtmlElementParser,
    base_url_from,
    base_url_of,
    check_budget,
    is_response,
    parse_html,
)


class Page:
    """One parsed HTML page shared by every extractor.

    Build it from ``str``, ``bytes`` (charset detected as browsers do), a Scrapy
    ``Response`` (its encoding and its already-parsed selector tree are reused: the page
    is not parsed twice), a parsel ``Selector``, or an lxml element / tree.

    The kept elements are numbered in pre-order; node ``i`` has ``tag[i]``, ``tag_id[i]``
    (a small int per tag name, for C-level edit distances), ``parent[i]``,
    ``children[i]``, ``depth[i]``, ``end[i]`` (the last index of its sub-tree: the
    sub-tree is ``i..end[i]``), ``path_id[i]`` (its interned root-to-node tag path) and
    the lxml element ``el[i]``. Text is kept as whitespace-normalised ``leaves`` in
    document order, each owned by the element whose direct content it is
    (``leaf_owner``); ``leaf_lo[i]:leaf_hi[i]`` are the leaves of node ``i``'s sub-tree.
    Scripts, styles and comments are dropped, and mis-nesting is repaired as a browser
    repairs it (see ``docs/algorithms/page-model.md``); :meth:`xpath` still gives each
    element's path in the real document.

    :param url: the page URL, used to make link and image URLs absolute.
    :param max_bytes: refuse larger inputs with :class:`PageTooLargeError` (``None``: no
        limit; default 10 MiB).
    :param max_nodes: refuse pages with more nodes: elements, comments and processing
        instructions, those inside scripts, ``svg``, ``template``... included (default
        150,000); raw input with far more start tags is refused before it is parsed.
    :param max_depth: deeper elements are folded into their ancestor at this depth
        (their text is kept, their structure is not), so 50,000-deep nesting costs
        linear time and no recursion (default 512). (libxml2 itself discards content
        nested deeper than its own limit, a few thousand levels, before the page model
        sees it.)
    """

    __slots__ = (
        "root",
        "url",
        "base_url",
        "encoding",
        *ARRAYS,
        "body",
        "truncated",
        "json_ld_texts",
        "_json_ld",
        "_items",
        "_objects",
        "gapped",
        "_index",
        "_xpaths",
        "_treeroot",
        "_classes",
        "_rparent",
        "_rchildren",
        "_tag_chars",
        "_leaf_chars",
        "__weakref__",
    )

    def __init__(
        self,
        source: Any,
        url: str | None = None,
        *,
        encoding: str | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        max_nodes: int | None = DEFAULT_MAX_NODES,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        check_budget("max_nodes", max_nodes)
        check_budget("max_depth", max_depth, none_ok=False)
        # a Scrapy response: its selector's tree, built once and shared with the spider;
        # raw markup: parsed here, with the C-level element class lookup
        parser_cls = lxml.html.HTMLParser if is_response(source) else HtmlElementParser
        root, url, enc = parse_html(
            source,
            url,
            encoding=encoding,
            max_bytes=max_bytes,
            parser_cls=parser_cls,
            max_nodes=max_nodes,
        )
        self.root: etree._Element = root
        self.url: str | None = url
        self.encoding: str | None = enc
        self._treeroot = root.getroottree()
        base_el = self._build(max_nodes, max_depth)
        # raw markup was parsed here by libxml2's HTML parser: the walk saw the <base> that
        # base_url_of would search the tree for; other trees may be built otherwise
        self.base_url: str | None = (
            base_url_from(base_el, url)
            if isinstance(source, (bytes, bytearray, memoryview, str))
            else base_url_of(root, url)
        )
        self._xpaths: dict[int, str] = {}
        self._index: dict[Any, int] | None = None
        self._classes: dict[int, tuple[str, ...]] = {}
        self._tag_chars: str | None = None
        self._leaf_chars: list[int] | None = None

    def _build(self, max_nodes: int | None, max_depth: int) -> Any:
        """Flatten the tree (:class:`~scrapy_records.page.flatten.Flattener`) and keep
        its arrays; returns the ``<base href>`` element the walk found (or ``None``)."""
        f = Flattener(max_nodes, max_depth)
        f.run(self.root)
        self.el = f.el
        self.tag = f.tag
        self.tag_id = f.tag_id
        self.parent = f.parent
        self.children = f.children
        self.depth = f.depth
        self.end = f.end
        self.path_id = f.path_id
        self.leaves = f.leaves
        self.leaf_owner = f.leaf_owner
        self.leaf_elem = f.leaf_elem
        self.leaf_lo = f.leaf_lo
        self.leaf_hi = f.leaf_hi
        self.tag_names = f.tag_names
        self.path_keys = f.path_keys
        self.truncated = f.truncated
        self.json_ld_texts: list[str] = f.json_ld
        self._json_ld: list[Any] | None = None  # the texts parsed, on first use
        self._items: ItemValues | None = None
        self._objects: ItemValues | None = None
        #: nodes that lost an empty inline child (``<b></b>``) to the arrays: among their
        #: children, positions and sibling counts are the document's, not the arrays'
        #: (:meth:`sibling_position`)
        self.gapped: frozenset[int] = frozenset(f.gapped)
        self.body = f.body()
        # the real (libxml2) tree, for XPaths: differs only where a nesting was repaired
        self._rparent, self._rchildren = f.real_tree()
        return f.base_el

    @property
    def items(self) -> ItemValues:
        """The values of the schema.org items the page lists in JSON-LD (parsed on first
        use, once)."""
        if self._items is None:
            self._items = ItemValues(self._json_ld_docs(), self.absolute)
        return self._items

    @property
    def objects(self) -> ItemValues:
        """Like :attr:`items`, and the one object a detail page is about (a ``Product``, a
        ``JobPosting``) counts too."""
        if self._objects is None:
            self._objects = ItemValues(self._json_ld_docs(), self.absolute, min_count=1)
        return self._objects

    def _json_ld_docs(self) -> list[Any]:
        if self._json_ld is None:
            self._json_ld = parse(self.json_ld_texts)
        return self._json_ld

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return len(self.el)

    def __repr__(self) -> str:
        return f"<Page {self.url or '(no url)'} nodes={len(self.el)} leaves={len(self.leaves)}>"

    def index(self, element: Any) -> int:
        """Pre-order index of an lxml element of this page (``KeyError`` if dropped)."""
        if self._index is None:
            self._index = {e: i for i, e in enumerate(self.el)}
        return self._index[element]

    def xpath(self, i: int) -> str:
        """Absolute XPath of node ``i`` in the *original* document (scripts counted).

        Same string as lxml's ``getpath`` (a positional ``[n]`` only where a parent has
        several children of that tag), computed from the page arrays and cached per
        parent: lxml's ``getpath`` scans every sibling, which is quadratic on a
        10,000-item list. Dropped elements (script, style...) never share a tag with a
        kept one, so positions among kept siblings are positions in the document (the
        exceptions, a kept ``noscript`` or inline element such as ``b`` beside dropped
        ones, take lxml's path).
        """
        x = self._xpaths.get(i)
        if x is not None:
            return x
        chain = []
        j = i
        while j >= 0 and j not in self._xpaths:
            chain.append(j)
            j = self._rparent[j]
        for k in reversed(chain):
            p = self._rparent[k]
            if p < 0:
                self._xpaths[k] = self._treeroot.getpath(self.el[k])
                continue
            self._name_children(p)
        return self._xpaths[i]

    def _name_children(self, p: int) -> None:
        xpaths, el = self._xpaths, self.el
        base = xpaths[p]
        kids = self._rchildren[p]
        tags = [el[c].tag for c in kids]  # (lxml builds a new str per access: read once)
        counts: dict[str, int] = {}
        for t in tags:
            counts[t] = counts.get(t, 0) + 1
        seen: dict[str, int] = {}
        doc: tuple[dict[Any, int], dict[str, int]] | None = None
        for c, t in zip(kids, tags):
            if t == "noscript" or t in EMPTY_DROPPED_TAGS:
                # a kept noscript (it holds the page) or inline element can have dropped
                # siblings of its tag (noscript, an empty <b>), which count in the
                # position: lxml's path, from one count over the parent's children in the
                # document (getpath itself scans all siblings: quadratic on a long run)
                if doc is None:
                    doc = document_positions(el[p])
                at, n_doc = doc
                x = el[c]
                xpaths[c] = f"{base}/{t}[{at[x]}]" if n_doc[t] > 1 else f"{base}/{t}"
            elif counts[t] > 1:
                n = seen.get(t, 0) + 1
                seen[t] = n
                xpaths[c] = f"{base}/{t}[{n}]"
            else:
                xpaths[c] = f"{base}/{t}"

    def sibling_position(self, i: int) -> tuple[int, int]:
        """``(position, count)`` of node ``i`` among its parent's children of its tag, in
        the document (``(1, 1)`` for the root): what an XPath step ``tag[position]``
        counts, dropped empty inline siblings included."""
        p = self.parent[i]
        if p < 0:
            return 1, 1
        return self.child_positions(p)[self.children[p].index(i)]

    def child_positions(self, p: int) -> list[tuple[int, int]]:
        """:meth:`sibling_position` of each of node ``p``'s children, in one pass."""
        kids, tag = self.children[p], self.tag
        if p in self.gapped:  # count on the document, where the dropped ones still are
            at: dict[Any, int] = {}
            counts: dict[Any, int] = {}
            for x in self.el[p]:
                counts[x.tag] = at[x] = counts.get(x.tag, 0) + 1
            return [(at[self.el[c]], counts[self.el[c].tag]) for c in kids]
        pos: list[int] = []
        n: dict[str, int] = {}
        for c in kids:
            k = n[tag[c]] = n.get(tag[c], 0) + 1
            pos.append(k)
        return [(k, n[tag[c]]) for c, k in zip(kids, pos)]

    def leaf_chars(self) -> list[int]:
        """Characters of the text leaves before leaf ``k`` (``[k]``), and in all (``[-1]``):
        node ``i`` holds ``[leaf_hi[i]] - [leaf_lo[i]]``. Computed once and shared by its
        users (the extractors' text sizes): read it, never change it."""
        got = self._leaf_chars
        if got is None:
            got = self._leaf_chars = [0, *accumulate(map(len, self.leaves))]
        return got

    def text(self, i: int, sep: str = " ") -> str:
        """Whitespace-normalised text of node ``i``'s sub-tree."""
        return sep.join(self.leaves[self.leaf_lo[i] : self.leaf_hi[i]])

    def texts(self, nodes: Iterable[int], sep: str = " ") -> str:
        """Text of several sub-trees, joined (text between them is not included)."""
        return sep.join(t for t in (self.text(i) for i in nodes) if t)

    def record_text(self, nodes: Iterable[int], sep: str = " ") -> str:
        """Text of a record made of ``nodes`` (pre-order indices, document order).

        For siblings (a generalized node, a run of elements), everything from the start of
        the first to the end of the last: the text *between* them too, such as a search
        snippet that is the tail of a ``<br>`` (``<a>Title</a><br>snippet<br><small>url``),
        or a ``<b>`` an extractor left out of the run. Roots under different parents (a
        non-contiguous record) give the texts of their sub-trees only.
        """
        if not isinstance(nodes, (tuple, list)):
            nodes = list(nodes)
        if len(nodes) == 1:  # (most records: the text of one sub-tree)
            i = nodes[0]
            return sep.join(self.leaves[self.leaf_lo[i] : self.leaf_hi[i]])
        if len(nodes) > 1:
            parent = self.parent
            p = parent[nodes[0]]
            for i in nodes:
                if parent[i] != p:
                    break
            else:
                return sep.join(self.leaves[self.leaf_lo[nodes[0]] : self.leaf_hi[nodes[-1]]])
        return self.texts(nodes, sep)

    def own_text(self, i: int) -> str:
        """Text directly inside node ``i`` (its ``text`` and its children's tails)."""
        lo, hi = self.leaf_lo[i], self.leaf_hi[i]
        owner = self.leaf_owner
        return " ".join(self.leaves[k] for k in range(lo, hi) if owner[k] == i)

    def attr(self, i: int, name: str, default: str | None = None) -> str | None:
        return self.el[i].get(name, default)

    def classes(self, i: int) -> tuple[str, ...]:
        c = self._classes.get(i)
        if c is None:
            c = self._classes[i] = tuple((self.el[i].get("class") or "").split())
        return c

    def tag_path(self, i: int) -> str:
        """``html/body/div/ul/li`` style root-to-node tag path."""
        parts = []
        while i >= 0:
            parts.append(self.tag[i])
            i = self.parent[i]
        return "/".join(reversed(parts))

    def subtree(self, i: int) -> range:
        """Pre-order indices of node ``i``'s sub-tree (``i`` included)."""
        return range(i, self.end[i] + 1)

    def tag_string(self, i: int) -> list[int]:
        """MDR tag string: pre-order tag ids of the sub-tree (opening tags only)."""
        return self.tag_id[i : self.end[i] + 1]

    @property
    def tag_chars(self) -> str:
        """``tag_id`` as a ``str``, one character (``chr``) per node, built once per page:
        a sub-tree's tag string is the slice ``tag_chars[i : end[i] + 1]``, which C-level
        string routines (rapidfuzz's edit distances, ``find``) compare as the id lists."""
        s = self._tag_chars
        if s is None:
            s = self._tag_chars = "".join(map(chr, self.tag_id))
        return s

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is ``b`` or one of its ancestors (O(1) by pre-order ranges)."""
        return a <= b <= self.end[a]

    def absolute(self, href: str | None) -> str | None:
        """Resolve a link against the page's base URL; ``None`` for empty or script links."""
        if href is None:
            return None
        href = href.strip()
        if not href or href.lower().startswith(("javascript:", "data:", "#")):
            return (
                None if not href or not href.startswith("#") else urljoin(self.base_url or "", href)
            )
        return urljoin(self.base_url or "", href)

    @property
    def n(self) -> int:
        return len(self.el)


#: Options consumed by the page model (``Page``'s keyword arguments) rather than by the
#: extractors, inducers or wrappers they are given to.
PAGE_OPTIONS = ("encoding", "max_bytes", "max_nodes", "max_depth")


def as_page(source: Any, url: str | None = None, **options: Any) -> Page:
    """Return ``source`` if it is a :class:`Page`, else build one (parse once)."""
    if isinstance(source, Page):
        if url and not source.url:
            source.url = source.base_url = url
        return source
    return Page(source, url, **options)


def document_positions(parent: Any) -> tuple[dict[Any, int], dict[str, int]]:
    """For the element children of lxml element ``parent`` in the document (those the page
    model dropped included): each child's position among its siblings of its tag, and how
    many children have each tag. What libxml2's ``getpath`` counts: a child ``t`` is
    ``t[position]`` when the count of ``t`` is above one, else ``t``."""
    at: dict[Any, int] = {}
    counts: dict[str, int] = {}
    for x in parent:
        t = x.tag
        if isinstance(t, str):
            counts[t] = at[x] = counts.get(t, 0) + 1
    return at, counts
