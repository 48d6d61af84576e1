"""Tree shapes: every sub-tree interned as ``(label, sig, child shapes)``.

Two sub-trees with the same shape id are structurally identical, so tree matching
(:mod:`~scrapy_records.treematch.stm`, :mod:`~scrapy_records.treematch.gstm`) memoises its
results per pair of shape ids instead of per pair of nodes: records repeat, and so do
their shapes. Entry point: :class:`Shapes`.
"""

from __future__ import annotations

from collections.abc import Sequence


class Shapes:
    """Intern table of tree *shapes* ``(label, sig, child shapes)``.

    ``label`` is what tree matching compares (an interned tag, ``#text``, ...); ``sig`` is
    an optional second key that only the tie-break of
    :class:`~scrapy_records.treematch.stm.STM` reads (field alignment puts the element's
    class signature there, everyone else ``0``). ``size`` is the node count. Each caller
    builds its shapes bottom-up over the page arrays (reverse pre-order), never by walking
    the DOM recursively.
    """

    __slots__ = ("ids", "label", "sig", "kids", "size", "_pre")

    def __init__(self) -> None:
        self.ids: dict[tuple[int, int, tuple[int, ...]], int] = {}
        self.label: list[int] = []
        self.sig: list[int] = []
        self.kids: list[tuple[int, ...]] = []
        self.size: list[int] = []
        self._pre: dict[int, list[int]] = {}

    def __len__(self) -> int:
        return len(self.label)

    def intern(self, label: int, kids: tuple[int, ...], sig: int = 0) -> int:
        """The id of shape ``(label, sig, kids)`` (``kids`` are shape ids), created if new."""
        key = (label, sig, kids)
        s = self.ids.get(key)
        if s is None:
            s = self.ids[key] = len(self.label)
            self.label.append(label)
            self.sig.append(sig)
            self.kids.append(kids)
            sz = self.size
            n = 1
            for k in kids:
                n += sz[k]
            sz.append(n)
        return s

    def intern_elements(
        self, labels: Sequence[int], children: Sequence[Sequence[int]], end: Sequence[int]
    ) -> tuple[list[int], dict[int, int]]:
        """Shapes of every element of a page given its pre-order arrays (elements only, no
        text; ``end[i]`` the last pre-order index of ``i``'s sub-tree), bottom-up in
        reverse pre-order. Returns ``(shape of each element, {new shape: an element of
        that shape})``; an element's sub-tree size is ``end[i] - i + 1``."""
        n = len(labels)
        shape = [0] * n
        rep: dict[int, int] = {}
        ids = self.ids
        ids_get = ids.get
        lab, sig, kids, size = self.label, self.sig, self.kids, self.size
        get = shape.__getitem__
        leaf: dict[int, int] = {}  # label -> shape of a childless element
        for i in range(n - 1, -1, -1):
            ch = children[i]
            t = labels[i]
            if not ch:
                s = leaf.get(t)
                if s is None:
                    k0 = len(lab)
                    s = leaf[t] = self.intern(t, ())
                    if s >= k0:
                        rep[s] = i
                shape[i] = s
                continue
            kt = tuple(map(get, ch))
            key = (t, 0, kt)
            s = ids_get(key)
            if s is None:
                s = ids[key] = len(lab)
                lab.append(t)
                sig.append(0)
                kids.append(kt)
                size.append(end[i] - i + 1)
                rep[s] = i
            shape[i] = s
        return shape, rep

    def preorder(self, s: int) -> list[int]:
        """The labels of shape ``s`` in pre-order (iterative; cached up to 50,000 shapes)."""
        out = self._pre.get(s)
        if out is None:
            out = []
            stack = [s]
            lab, kids = self.label, self.kids
            while stack:
                x = stack.pop()
                out.append(lab[x])
                stack.extend(reversed(kids[x]))
            if len(self._pre) < 50_000:
                self._pre[s] = out
        return out
