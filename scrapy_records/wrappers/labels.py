"""Label-anchored page fields: the texts that read as a label, and the text after each.

A label field (``//tag[normalize-space(.)='L']/following::text()[normalize-space()]
[not(parent::script or parent::style)][1]``, see ``inducers.intersect``) is read by
:meth:`~scrapy_records.wrappers.apply.CompiledWrapper._label_values` from the page's
listed texts (:data:`~scrapy_records.wrappers.reading.ALL_TEXT_XP`: not blank, not inside
a script or style element). :func:`label_hits` gives it the same hits without listing
them: only the texts whose parent element has one of the labels' tags are read (an
iteration that libxml2 filters by tag), and from each text that reads as a label the
walk to the next listed text is short. Listing every text of the page costs about half
its parse.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lxml import etree

from scrapy_records.page import ZERO_WIDTH, normalize_space
from scrapy_records.wrappers.reading import ALL_TEXT_XP

#: XPath's whitespace (``normalize-space()`` strips these only)
_XML_SPACE = " \t\n\r"
_UNLISTED = ("script", "style")
_WALK_EVENTS = ("start", "end", "comment", "pi")


def _listed(text: str, parent: Any) -> bool:
    """Whether ``ALL_TEXT_XP`` lists a text node of ``parent`` (``None``: the document)."""
    return bool(text.strip(_XML_SPACE)) and (parent is None or parent.tag not in _UNLISTED)


def _subtree_texts(el: Any) -> Iterator[tuple[str, Any]]:
    """``(text, parent)`` of the text nodes inside ``el`` and of its tail, in document
    order (the text of a comment or processing instruction is no text node)."""
    if not isinstance(el.tag, str):
        if el.tail:
            yield el.tail, el.getparent()
        return
    for event, x in etree.iterwalk(el, events=_WALK_EVENTS):
        if event == "start":
            if x.text:
                yield x.text, x
        elif x.tail:  # the end of an element, or a comment or processing instruction
            yield x.tail, x.getparent()


def _texts_after(node: Any, is_tail: bool) -> Iterator[tuple[str, Any]]:
    """``(text, parent)`` of the text nodes after ``node``'s text (``node.tail`` when
    ``is_tail``), in document order, to the end of the document."""
    if not is_tail:
        for c in node:
            yield from _subtree_texts(c)
        if node.tail:
            yield node.tail, node.getparent()
    while True:
        for s in node.itersiblings():
            yield from _subtree_texts(s)
        node = node.getparent()
        if node is None:
            return
        if node.tail:
            yield node.tail, node.getparent()


def _doc_key(node: Any, is_tail: bool) -> tuple[float, ...]:
    """A sort key in document order of ``node``'s text (its tail when ``is_tail``)."""
    path: list[float] = [float("inf") if is_tail else -1.0]
    x = node
    while True:
        p = x.getparent()
        if p is None:
            path.append(sum(1 for _ in x.itersiblings(preceding=True)))
            break
        path.append(p.index(x))
        x = p
    return tuple(reversed(path))


def _fast(root: Any, tags: set[str]) -> bool:
    """Whether :func:`label_hits` may find the texts by their parents' tags: named ASCII
    tags, in a tree of libxml2's HTML parser (whose tag names are lower case)."""
    return (
        bool(tags)
        and all(t != "*" and t.isascii() for t in tags)
        and isinstance(root.getroottree().parser, etree.HTMLParser)
    )


#: the zero-width characters normalize_space drops, one by one (three ``in`` tests are
#: cheaper than a call per text)
_ZW1, _ZW2, _ZW3 = tuple(ZERO_WIDTH)  # (fails loudly if the set changes size)


def _label_of(s: str, labels: dict[str, Any]) -> str | None:
    """``normalize_space(s)`` when it is one of ``labels`` and ``s`` is a listed text (not
    XPath whitespace only), else ``None``."""
    n = normalize_space(s)
    return n if n in labels and s.strip(_XML_SPACE) else None


def _hits_by_tag(root: Any, labels: dict[str, Any], tags: set[str]) -> list[tuple[Any, bool, str]]:
    """``(carrier, is_tail, label)`` of the listed texts whose parent has one of ``tags``
    and that read as one of ``labels``, in document order (the whole document: also the
    trees libxml2 left beside the root element)."""
    top = root.getroottree().getroot()
    tops = [*reversed(list(top.itersiblings(preceding=True))), top, *top.itersiblings()]
    hits = []
    for t in tops:
        if not isinstance(t.tag, str):
            continue
        for e in t.iter(*tags):
            if e.tag in _UNLISTED:
                continue
            # (a text that is no label, most of them, is told by one split, inline; a
            # zero-width character, which normalize_space drops, makes it a candidate)
            s = e.text
            if s is not None and (
                " ".join(s.split()) in labels or _ZW1 in s or _ZW2 in s or _ZW3 in s
            ):
                n = _label_of(s, labels)
                if n is not None:
                    hits.append((e, False, n))
            if len(e):  # (no child proxies for the many leaf elements)
                for c in e:
                    s = c.tail
                    if s is not None and (
                        " ".join(s.split()) in labels or _ZW1 in s or _ZW2 in s or _ZW3 in s
                    ):
                        n = _label_of(s, labels)
                        if n is not None:
                            hits.append((c, True, n))
    if len(hits) > 1:
        hits.sort(key=lambda h: _doc_key(h[0], h[1]))
    return hits


def label_hits(root: Any, labels: dict[str, Any], tags: set[str]) -> list[tuple[str, str, Any]]:
    """``(label, parent tag, next text)`` for each text of ``ALL_TEXT_XP``'s list that
    reads as one of ``labels`` (:func:`~scrapy_records.page.normalize_space`) and has a
    text after it in that list, in document order; ``tags``: the lower-cased tags of the
    labels' elements (``"*"``: any). The parent tag is lower-cased (``""``: none)."""
    out = []
    if not _fast(root, tags):
        texts = ALL_TEXT_XP(root)
        for i, t in enumerate(texts[:-1]):
            n = normalize_space(t)
            if n not in labels:
                continue
            p = t.getparent()
            if p is not None and t.is_tail:
                p = p.getparent()
            ptag = p.tag.lower() if p is not None and isinstance(p.tag, str) else ""
            out.append((n, ptag, texts[i + 1]))
        return out
    for carrier, is_tail, n in _hits_by_tag(root, labels, tags):
        nxt = next((s for s, p in _texts_after(carrier, is_tail) if _listed(s, p)), None)
        if nxt is not None:
            parent = carrier.getparent() if is_tail else carrier
            out.append((n, parent.tag.lower(), nxt))
    return out
