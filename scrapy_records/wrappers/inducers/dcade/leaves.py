"""The leaf sequence of a page, DCADE's unit of alignment (Yuliana & Chang 2019, section 3.1).

A leaf is a text leaf of :class:`~scrapy_records.page.Page`, or the target of a link
(``a/@href``, right after the anchor's text) or of an image (``img/@src``, before it).
Each leaf has its content, its path of tags, its sequence of ids and of classes; the
paths and (path, ids, classes) structures are interned across all pages.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from scrapy_records.page import Page

logger = logging.getLogger(__name__)

_DIGITS = re.compile(r"\d+")
_HREF = "@href"
_SRC = "@src"


class Interner(dict[Any, int]):
    """Dense ids for hashable keys, in order of first sight."""

    def id(self, key: Any) -> int:
        v = self.get(key)
        if v is None:
            v = self[key] = len(self)
        return v

    def keys_by_id(self) -> list[Any]:
        """The keys, key ``i`` at index ``i`` (ids are given in insertion order)."""
        return list(self)


@dataclass
class PageLeaves:
    """The leaves of one page, one list entry per leaf (leaf index ``k``)."""

    content: list[str]
    kind: list[str]  # text / href / src
    node: list[int]  # owner element (the anchor / img for attribute leaves)
    path: list[int]  # global path id (interned tag tuple)
    struct: list[int]  # global (path, ids, classes) id
    pos: list[int] = field(default_factory=list)  # index in Page.leaves (-1: a target)


class _StructureSeqs:
    """Per element of one page: its tag path (global tag ids), id sequence and class
    sequence, memoised along the ancestors (digit runs in ids and classes read ``#``)."""

    def __init__(self, page: Page, tags: Interner, toks: Interner) -> None:
        self.page = page
        self.tags = tags
        self.toks = toks
        self.ptag: dict[int, tuple[int, ...]] = {}  # page path_id -> global tag tuple
        self.idseq: dict[int, tuple[int, ...]] = {}
        self.clseq: dict[int, tuple[int, ...]] = {}

    def of(self, i: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        page, toks, idseq, clseq, ptag = self.page, self.toks, self.idseq, self.clseq, self.ptag
        # iterative: climb to the nearest memoised ancestor, fill back down
        chain = []
        j = i
        while j >= 0 and j not in idseq:
            chain.append(j)
            j = page.parent[j]
        for j in reversed(chain):
            p = page.parent[j]
            pi = idseq[p] if p >= 0 else ()
            pc = clseq[p] if p >= 0 else ()
            el = page.el[j]
            a = el.get("id")
            idseq[j] = pi + (toks.id("#" + _DIGITS.sub("#", a.strip())),) if a and a.strip() else pi
            c = el.get("class")
            if c and c.split():
                clseq[j] = pc + (toks.id("." + _DIGITS.sub("#", " ".join(c.split()))),)
            else:
                clseq[j] = pc
            pid = page.path_id[j]
            if pid not in ptag:
                pt = ptag.get(page.path_id[p]) if p >= 0 else ()
                if pt is None:  # pragma: no cover - parents precede children
                    pt = ()
                ptag[pid] = pt + (self.tags.id(page.tag[j]),)
        return ptag[page.path_id[i]], idseq[i], clseq[i]


def _leaf_entries(page: Page, opts: dict[str, Any]) -> list[tuple[int, int, int, str, str]]:
    """``(position, sub-order, node, kind, content)`` of every leaf in document order: the
    text leaves, then link/image targets sorted in, at most ``max_leaves`` of them."""
    entries: list[tuple[int, int, int, str, str]] = []
    owner = page.leaf_owner
    for k, s in enumerate(page.leaves):
        entries.append((k, 1, owner[k], "text", s))
    if opts["link_leaves"] or opts["image_leaves"]:
        tag = page.tag
        for i in range(len(page.tag)):
            t = tag[i]
            if t == "a" and opts["link_leaves"]:
                h = page.el[i].get("href")
                if h and h.strip() and not h.strip().lower().startswith("javascript:"):
                    entries.append((page.leaf_hi[i], 0, i, "href", page.absolute(h) or h.strip()))
            elif t == "img" and opts["image_leaves"]:
                s = page.el[i].get("src")
                if s and s.strip():
                    entries.append((page.leaf_lo[i], 0, i, "src", page.absolute(s) or s.strip()))
        entries.sort(key=lambda e: (e[0], e[1], e[2]))
    if len(entries) > opts["max_leaves"]:
        logger.warning(
            "dcade: page %s has %d leaves, keeping the first %d",
            page.url,
            len(entries),
            opts["max_leaves"],
        )
        entries = entries[: opts["max_leaves"]]
    return entries


def page_leaves(
    page: Page,
    opts: dict[str, Any],
    tags: Interner,
    paths: Interner,
    toks: Interner,
    structs: Interner,
) -> PageLeaves:
    """The leaf sequence of one page; ``tags``, ``paths``, ``toks`` and ``structs`` intern
    across the pages of one induction."""
    seqs = _StructureSeqs(page, tags, toks)
    out = PageLeaves([], [], [], [], [], [])
    href_t = tags.id(_HREF)
    src_t = tags.id(_SRC)
    for pos, _sub, node, kind, content in _leaf_entries(page, opts):
        pt, ids, cls = seqs.of(node)
        if kind == "href":
            pt = pt + (href_t,)
        elif kind == "src":
            pt = pt + (src_t,)
        out.content.append(content)
        out.pos.append(pos if kind == "text" else -1)
        out.kind.append(kind)
        out.node.append(node)
        out.path.append(paths.id(pt))
        out.struct.append(structs.id((pt, ids, cls)))
    return out
