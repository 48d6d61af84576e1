"""The trees G-STM compares, as shapes of a :class:`~scrapy_records.treematch.gstm.Matcher`.

:func:`build_page_tree` turns a :class:`~scrapy_records.page.Page` into a
:class:`PageTree` (elements and text leaves, bottom-up over the page arrays, no DOM walk);
:func:`parse_spec` / :func:`format_spec` read and write a tree in the ``a(b(d,d,c),b(c))``
notation of tests and examples. ``Matcher.page_tree``, ``Matcher.from_spec`` and
``Matcher.to_spec`` call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from scrapy_records.treematch.gstm import Matcher


@dataclass
class PageTree:
    """A page's elements and text leaves as shapes (built by :func:`build_page_tree`).

    ``shape[i]`` is the shape id of element ``i``; ``kids[i]`` its children in document
    order as ints: ``>= 0`` an element index, ``< 0`` the text leaf ``~k`` (``-k-1``).
    """

    page: Any
    shape: list[int]
    kids: list[list[int]]
    root: int

    def kid_nodes(self, i: int, positions: Sequence[int]) -> list[int]:
        """The element indices among the given child positions of element ``i``."""
        ks = self.kids[i]
        return [ks[p] for p in positions if ks[p] >= 0]


def _children_with_leaves(page: Any) -> list[list[int]]:
    """Each element's children in document order, text leaves (``-k-1``) included: a
    leaf ``k`` precedes element ``c`` iff ``leaf_elem[k] <= c``."""
    n = len(page.tag)
    kids: list[list[int]] = [[] for _ in range(n)]
    owned: list[list[int]] = [[] for _ in range(n)]
    for k, o in enumerate(page.leaf_owner):
        owned[o].append(k)
    children = page.children
    leaf_elem = page.leaf_elem
    for i in range(n):
        ch = children[i]
        lv = owned[i]
        if not lv:
            kids[i] = list(ch)
            continue
        if not ch:
            kids[i] = [-k - 1 for k in lv]
            continue
        out: list[int] = []
        a = b = 0
        while a < len(ch) or b < len(lv):
            if b < len(lv) and (a >= len(ch) or leaf_elem[lv[b]] <= ch[a]):
                out.append(-lv[b] - 1)
                b += 1
            else:
                out.append(ch[a])
                a += 1
        kids[i] = out
    return kids


def build_page_tree(m: Matcher, page: Any, root: int | None = None) -> PageTree:
    """Shape ids of every element of ``page`` in ``m`` (reverse pre-order over the page
    arrays); text leaves are children labelled ``#text``. ``root`` defaults to the body."""
    kids = _children_with_leaves(page)
    n = len(kids)
    shape = [0] * n
    tid = page.tag_id
    lab = [m.label(name) for name in sorted(page.tag_names, key=page.tag_names.get)]
    ts = m.text_shape
    intern = m.intern
    for i in range(n - 1, -1, -1):
        shape[i] = intern(lab[tid[i]], tuple(shape[c] if c >= 0 else ts for c in kids[i]))
    r = page.body if root is None else root
    return PageTree(page, shape, kids, r)


def parse_spec(m: Matcher, spec: str) -> int:
    """The shape of a tree written ``a(b(d,d,c),b(c,f,g))``."""
    stack: list[tuple[int, list[int]]] = []
    tok = ""
    result: int | None = None
    pending: int | None = None

    def close_leaf() -> None:
        nonlocal tok, pending
        if tok:
            pending = m.intern(m.label(tok), ())
            tok = ""

    for ch in spec.replace(" ", "") + "\0":
        if ch.isalnum() or ch in "#_-":
            tok += ch
        elif ch == "(":
            stack.append((m.label(tok), []))
            tok = ""
        elif ch in ",)\0":
            close_leaf()
            if pending is not None:
                if stack:
                    stack[-1][1].append(pending)
                else:
                    result = pending
                pending = None
            if ch == ")":
                lab, ch_ = stack.pop()
                pending = m.intern(lab, tuple(ch_))
            if ch == "\0" and pending is not None:
                result = pending
        else:
            raise ValueError(f"bad character {ch!r} in tree spec")
    if result is None or stack:
        raise ValueError(f"malformed tree spec {spec!r}")
    return result


def format_spec(m: Matcher, h: int) -> str:
    """Inverse of :func:`parse_spec` (iterative)."""
    out: list[str] = []
    stack: list[Any] = [h]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
            continue
        out.append(m.label_names[m.s_label[x]])
        ch = m.s_children[x]
        if ch:
            stack.append(")")
            for k, c in enumerate(reversed(ch)):
                stack.append(c)
                if k < len(ch) - 1:
                    stack.append(",")
            stack.append("(")
    return "".join(out)
