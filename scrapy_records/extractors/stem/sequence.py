"""The page as a tag-path sequence: preprocessing and the WPS (Fang et al. 2017, section 4.1).

Decorative tags are unwrapped (their children's paths skip them); every other element's
root-to-node tag path gets an identifier (HTPI) numbered from 1 by first appearance in
pre-order, and the page becomes the sequence of its elements' HTPIs (the WPS).
Entry point: :meth:`TagPathSequence.from_page` (or :meth:`~TagPathSequence.from_paths` for
the paper's figures, given as tag paths).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import accumulate, compress

from scrapy_records.extractors.base import leaf_text_prefix
from scrapy_records.extractors.stem.suffix import as_string
from scrapy_records.page import Page

__all__ = ["TagPathSequence", "DECORATIVE_PAPER", "DECORATIVE_EXTENDED"]

#: Decorative tags the paper removes ("such as em, b, u and i").
DECORATIVE_PAPER = frozenset({"b", "i", "u", "em"})
#: Extended preset: also inline formatting and line breaks that vary per record.
DECORATIVE_EXTENDED = DECORATIVE_PAPER | frozenset(
    {"strong", "font", "small", "big", "s", "strike", "tt", "mark", "sup", "sub", "br", "wbr"}
)


class TagPathSequence:
    """The WPS of a page with its HTPI table.

    ``ids[p]``: HTPI at WPS position ``p`` (from 1); ``parent_pos[p]``: WPS position of the nearest
    retained ancestor (-1 for the root); ``nodes[p]``: the :class:`Page` index of the element (or
    ``p`` itself when built from paths); ``subtree_end[p]``: last WPS position in that element's
    subtree. ``htpi_parent[h]`` / ``htpi_tag[h]`` / ``htpi_depth[h]`` describe tag path ``h``
    (index 0 is the empty path above ``/html``).
    """

    __slots__ = (
        "ids",
        "parent_pos",
        "nodes",
        "subtree_end",
        "htpi_parent",
        "htpi_tag",
        "htpi_depth",
        "chars",
        "_tin",
        "_tout",
        "_paths",
        "_positions",
        "_string",
    )

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.parent_pos: list[int] = []
        self.nodes: list[int] = []
        self.subtree_end: list[int] = []
        self.htpi_parent: list[int] = [0]
        self.htpi_tag: list[str] = [""]
        self.htpi_depth: list[int] = [0]
        self.chars: list[int] = []  # text characters in the element's subtree (0 without a page)
        self._tin: list[int] | None = None
        self._tout: list[int] = []
        self._paths: dict[int, str] = {}
        self._positions: dict[int, list[int]] | None = None
        self._string: str | None = None

    @property
    def string(self) -> str | None:
        """The WPS as a ``str``, one character per HTPI (:func:`.suffix.as_string`): LCS on
        its slices gives the same values as on ``ids`` slices, at C level (rapidfuzz's string
        path is ~4x quicker than on lists of ints). ``None`` if an HTPI is out of ``chr``'s
        range."""
        st = self._string
        if st is None:
            st = self._string = as_string(self.ids)
        return st

    def share_string(self, string: str | None) -> None:
        """Adopt the caller's ``str`` form of the same sequence (the suffix index builds
        one) unless :attr:`string` was already worked out."""
        if self._string is None:
            self._string = string

    def positions(self, h: int) -> list[int]:
        """Sorted WPS positions holding HTPI ``h`` (found once per ``h``: C-level ``str.find``
        on :attr:`string`, one call per position; only the DRPs' first identifiers are asked)."""
        pos = self._positions
        if pos is None:
            pos = self._positions = {}
        lst = pos.get(h)
        if lst is None:
            st = self.string
            if st is None or not 0 < h < 0x110000:
                lst = [q for q, x in enumerate(self.ids) if x == h]
            else:
                lst = []
                ch = chr(h)
                q = st.find(ch)
                while q >= 0:
                    lst.append(q)
                    q = st.find(ch, q + 1)
            pos[h] = lst
        return lst

    def path_numbers(self) -> tuple[list[int], list[int]]:
        """``(tin, tout)``: pre/post numbers of the path trie, for O(1) ancestry tests (path
        ``a`` is a proper prefix of path ``b`` iff ``tin[a] < tin[b] < tout[a]``)."""
        tin = self._tin
        if tin is None or len(tin) != len(self.htpi_parent):
            return self._number_paths()
        return tin, self._tout

    def _number_paths(self) -> tuple[list[int], list[int]]:
        """Numbers the path trie by an iterative DFS (see :meth:`path_numbers`)."""
        m = len(self.htpi_parent)
        kids: list[list[int]] = [[] for _ in range(m)]
        for h in range(1, m):
            kids[self.htpi_parent[h]].append(h)
        tin = [0] * m
        tout = [0] * m
        clock = 0
        stack = [(0, 0)]
        while stack:
            h, k = stack.pop()
            if k == 0:
                tin[h] = clock
                clock += 1
            if k < len(kids[h]):
                stack.append((h, k + 1))
                stack.append((kids[h][k], 0))
            else:
                tout[h] = clock
        self._tin, self._tout = tin, tout
        return tin, tout

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def from_page(cls, page: Page, decorative: Iterable[str] = DECORATIVE_PAPER) -> TagPathSequence:
        """Preprocessing and the WPS from the page's pre-order arrays.

        A node's HTPI (or, for a decorative node, its retained ancestor's) depends only on its
        page path (``page.path_id``: interned by parent path and tag), so it is worked out once
        per path, in one pass over ``page.path_keys``, and the nodes' arrays follow by list
        comprehensions (no per-node Python loop)."""
        deco = frozenset(t.lower() for t in decorative)
        self = cls()
        n = page.n
        parents, end, pids = page.parent, page.end, page.path_id
        names = [""] * len(page.tag_names)
        for t, tid in page.tag_names.items():
            names[tid] = t
        # per page path, in page-path order (``page.path_keys``: ``(parent path, tag id)``
        # numbered at each path's first node, so the order of first appearance in
        # pre-order, the HTPI order, and a parent path before its children)
        path_h: list[int] = []  # its HTPI, or -1 for a decorative (unwrapped) path
        eff_h: list[int] = []  # its HTPI, or its retained ancestor's for a decorative one
        keymap: dict[tuple[int, str], int] = {}
        hpar, htag, hdep = self.htpi_parent, self.htpi_tag, self.htpi_depth
        for ppid, tid in page.path_keys:
            par_h = eff_h[ppid] if ppid >= 0 else 0
            t = names[tid]
            if t in deco and ppid >= 0:
                eff_h.append(par_h)
                path_h.append(-1)
                continue
            key = (par_h, t)
            h = keymap.get(key)
            if h is None:
                h = keymap[key] = len(hpar)
                hpar.append(par_h)
                htag.append(t)
                hdep.append(hdep[par_h] + 1)
            eff_h.append(h)
            path_h.append(h)
        # per node, by list comprehensions: the WPS is the retained nodes' HTPIs in pre-order
        hs = [path_h[pid] for pid in pids]
        keep = [h >= 0 for h in hs]
        count = list(accumulate(keep, initial=0))  # count[i]: WPS positions among nodes 0..i-1
        if count[-1] == n:  # nothing unwrapped: WPS positions are page indices
            self.ids = hs
            self.nodes = nodes = list(range(n))
            self.parent_pos = list(parents)
            self.subtree_end = list(end)
        else:
            self.nodes = nodes = list(compress(range(n), keep))
            self.ids = list(compress(hs, keep))
            eff_pos = count[:n]  # WPS position of a retained node, or of its retained ancestor
            for i in compress(range(n), [not k for k in keep]):  # (pre-order: parent first)
                eff_pos[i] = eff_pos[parents[i]]
            eff_pos.append(-1)  # (eff_pos[-1]: above the root)
            self.parent_pos = [eff_pos[parents[i]] for i in nodes]
            self.subtree_end = [count[end[i] + 1] - 1 for i in nodes]
        prefix = leaf_text_prefix(page)
        lo, hi = page.leaf_lo, page.leaf_hi
        self.chars = [prefix[hi[x]] - prefix[lo[x]] for x in nodes]
        return self

    @classmethod
    def from_paths(cls, paths: Sequence[str]) -> TagPathSequence:
        """Build from a pre-order list of tag paths (``"/html/body/div"``), one per element, as
        the paper's figures give them. Parents are inferred as the nearest preceding element
        whose path is the path's parent path."""
        self = cls()
        keymap: dict[tuple[int, str], int] = {}
        last_pos_of_path: dict[str, int] = {}
        for pos, path in enumerate(paths):
            parts = [x for x in path.strip().lower().split("/") if x]
            par_h = 0
            for k, t in enumerate(parts):
                key = (par_h, t)
                h = keymap.get(key)
                if h is None:
                    h = keymap[key] = len(self.htpi_parent)
                    self.htpi_parent.append(par_h)
                    self.htpi_tag.append(t)
                    self.htpi_depth.append(k + 1)
                par_h = h
            parent_path = "/" + "/".join(parts[:-1]) if len(parts) > 1 else None
            self.ids.append(par_h)
            self.parent_pos.append(last_pos_of_path.get(parent_path, -1) if parent_path else -1)
            self.nodes.append(pos)
            last_pos_of_path["/" + "/".join(parts)] = pos
        n = len(self.ids)
        end = list(range(n))
        for q in range(n - 1, -1, -1):  # children after parents: propagate ends upwards
            pp = self.parent_pos[q]
            if pp >= 0 and end[q] > end[pp]:
                end[pp] = end[q]
        self.subtree_end = end
        self.chars = [0] * n
        return self

    def path(self, h: int) -> str:
        """Tag path ``h`` written out (``/html/body/div``)."""
        memo = self._paths
        v = memo.get(h)
        if v is None:
            v = memo[h] = self._path(h)
        return v

    def _path(self, h: int) -> str:
        parts = []
        while h > 0:
            parts.append(self.htpi_tag[h])
            h = self.htpi_parent[h]
        return "/" + "/".join(reversed(parts))

    def is_ancestor_path(self, a: int, b: int) -> bool:
        """Strict, component-wise: path ``a`` is a proper prefix of path ``b``."""
        tin, tout = self.path_numbers()
        return tin[a] < tin[b] < tout[a]

    def roots_in(self, a: int, b: int) -> list[int]:
        """WPS positions in ``[a, b)`` whose parent lies outside the range (record roots)."""
        # A position whose parent lies inside the range lies inside the sub-tree of an
        # earlier root, so the roots are a chain of sub-tree jumps: O(roots), not O(b - a).
        send = self.subtree_end
        out = []
        q = a
        while q < b:
            out.append(q)
            q = send[q] + 1
        return out
