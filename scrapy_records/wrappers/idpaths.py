"""Id-anchored XPaths read through one index of the page's ``id`` attributes.

Inducers anchor selectors at the nearest element with an id: ``//div[@id='results']/ul/
li[2]/a``. libxml2 evaluates such a path by testing every element of the document, so a
wrapper with ten page fields scans the page ten times, more than its parse costs.
:class:`IdIndex` lists the page's ids in one C-level pass (on first use), and
:class:`IdPath` evaluates the rest of the path from the one element with that id: the same
nodes, by the definition of a location path (``E1/E2`` is ``E2`` from every node of
``E1``). When several elements of that tag carry the id, the path is evaluated as written.

Entry points: :func:`id_path` (``None`` for any other XPath) and :class:`IdIndex`.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from scrapy_records.fields.text import xpath_literal
from scrapy_records.wrappers.safe_xpath import compile_xpath

__all__ = ["IdIndex", "IdPath", "id_path", "ids_xpath"]

#: ``//T[@id='S']`` (or ``"S"``) as the first step, then the rest of the path.
_ID_STEP_RE = re.compile(r"""//([A-Za-z_][\w.-]*|\*)\[@id=(?:'([^']*)'|"([^"]*)")\](.*)""", re.S)
#: What the rest may hold outside predicates and string literals: steps of a relative
#: location path (names, axes, ``@``, node tests such as ``text()``), nothing that makes
#: the whole XPath an expression of several paths (``|``, ``=``, ``or``, arithmetic...).
_STEP_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:*@/()")
#: every ``id`` attribute of the document: those of its elements (``//@id`` is the same
#: set, yet libxml2 reads the attribute axis of every text and comment node too: a quarter
#: slower)
_ALL_IDS = compile_xpath("/descendant::*/@id", True)


def _is_relative_steps(rest: str) -> bool:
    """``rest`` (after the first step) continues one location path: it starts with ``/``
    and holds only step characters outside ``[...]`` and quotes, ``(`` only as ``()``."""
    if not rest.startswith("/"):
        return False
    depth = 0
    quote = ""
    prev = ""
    for ch in rest:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            if depth == 0:
                return False
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                return False
        elif depth == 0:
            if ch not in _STEP_CHARS or (ch == ")" and prev != "("):
                return False
            if prev == "(" and ch != ")":
                return False
        prev = ch
    return depth == 0 and not quote and prev != "("


def ids_xpath(values: set[str]) -> Any:
    """An XPath of the ``id`` attributes whose value is one of ``values`` (``None`` when a
    value holds both kinds of quote): an :class:`IdIndex` of the ids a wrapper anchors at
    lists only those, in the same one pass over the page."""
    lits = [xpath_literal(v) for v in sorted(values)]
    if None in lits:
        return None
    if not lits:
        return None
    return compile_xpath("/descendant::*/@id[" + " or ".join(f".={x}" for x in lits) + "]", True)


class IdIndex:
    """The page's elements by ``id`` value, listed on first use (one XPath over the page):
    those of ``values`` only when given (with their :func:`ids_xpath` ``xp``), all of them
    once another is asked for."""

    __slots__ = ("root", "_ids", "_values", "_xp")

    def __init__(self, root: Any, values: frozenset[str] | None = None, xp: Any = None) -> None:
        self.root = root
        self._ids: dict[str, list[Any]] | None = None
        self._values = values if xp is not None else None
        self._xp = xp

    def lists(self, value: str) -> bool:
        """Whether :meth:`get` of ``value`` is read from the index as it is listed (or as it
        will be): no second pass over the page for an id the index is not for."""
        return self._values is None or value in self._values

    def get(self, value: str) -> list[Any]:
        """The elements whose ``id`` attribute is ``value``, in document order."""
        ids = self._ids
        if self._values is not None and value not in self._values:
            ids = self._ids = None  # a value the index is not for: list every id
            self._values = None
        if ids is None:
            ids = self._ids = {}
            xp = _ALL_IDS if self._values is None else self._xp
            for attr in xp(self.root):
                el = attr.getparent()
                lst = ids.get(attr)
                if lst is None:
                    ids[str(attr)] = [el]
                else:
                    lst.append(el)
        return ids.get(value, [])


class IdPath:
    """An XPath ``//T[@id='S']/REST``: ``REST`` compiled relative to the element."""

    __slots__ = ("tag", "id", "rest")

    def __init__(self, tag: str, id_value: str, rest: str, smart_strings: bool) -> None:
        self.tag = tag
        self.id = id_value
        self.rest = compile_xpath("." + rest, smart_strings) if rest else None

    def nodes(self, ids: IdIndex) -> list[Any] | None:
        """The path's result on the indexed page, or ``None`` when several elements of the
        tag carry the id (then the caller evaluates the XPath as written)."""
        tag = self.tag
        found = [e for e in ids.get(self.id) if tag == "*" or e.tag == tag]
        if not found:
            return []
        if len(found) > 1:
            return None
        if self.rest is None:
            return found
        out = self.rest(found[0])
        return out if isinstance(out, list) else None


def id_path(xpath: str, smart_strings: bool = False) -> IdPath | None:
    """An :class:`IdPath` for ``xpath`` when it is an id-anchored location path, else
    ``None`` (the XPath is evaluated as written)."""
    m = _ID_STEP_RE.fullmatch(xpath)
    if m is None:
        return None
    rest = m.group(4)
    if rest and not _is_relative_steps(rest):
        return None
    try:
        return IdPath(
            m.group(1), m.group(2) if m.group(2) is not None else m.group(3), rest, smart_strings
        )
    except etree.XPathSyntaxError:
        return None
