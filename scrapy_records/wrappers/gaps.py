"""A value cut out of another field's text, read without an XPath evaluation of its own.

DCADE splits a text node holding several values ("MSRP: $61,550") with a string
expression around the node's path ``P``
(:func:`~scrapy_records.wrappers.inducers.dcade.subleaf.xpath_of_gap`)::

    normalize-space(substring-before(concat(' ', substring-after(
        concat(' ', normalize-space(translate(P, '\u00a0', ' ')), ' '), ' MSRP: ')), ' B '))

and keeps ``P`` itself as the value's ``_raw`` twin. On a detail page the twin's path is
evaluated anyway: :func:`gap_text` computes the expression from the nodes it selected, as
XPath 1.0 defines the functions (``normalize-space`` collapses the four XML white-space
characters only; a string-value is the concatenation of the node's descendant texts), which
saves one evaluation per such field (a few per detail page, a tenth of their reading). An
element's string-value is its serialisation as text (libxml2's, in C: ``itertext`` costs
six times as much).
:func:`parse_gap` recognises the form: ``(P, steps)``, each step ``("after", s)`` (``concat('
', substring-after(S, s))``) or ``("before", s)`` (``substring-before(S, s)``), innermost
first; any other expression is evaluated as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lxml import etree

_XML_SPACE = re.compile(r"[ \t\n\r]+")
_NORMALIZE = "normalize-space("
_BEFORE = "substring-before("
_AFTER = "concat(' ', substring-after("
_BASE_HEAD = "concat(' ', normalize-space(translate("
_BASE_TAIL = ", '\u00a0', ' ')), ' ')"


def nesting(s: str, start: int = 0) -> Iterator[tuple[int, str, int | None]]:
    """The characters of XPath text ``s`` from ``start`` that lie outside its string
    literals, each with the bracket depth after it (``[`` and ``(`` open, ``]`` and ``)``
    close, the depth counted from 0 at ``start``); last ``(len(s), "", depth)``, the depth
    ``None`` when a literal is left open."""
    depth, quote = 0, ""
    for k in range(start, len(s)):
        c = s[k]
        if quote:
            if c == quote:
                quote = ""
            continue
        if c in "'\"":
            quote = c
            continue
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        yield k, c, depth
    yield len(s), "", None if quote else depth


def _args(s: str) -> list[str] | None:
    """The top-level comma-separated arguments of ``s`` (quotes, brackets and parentheses
    respected), or ``None`` when they do not balance."""
    out, start = [], 0
    for k, c, depth in nesting(s):
        if depth is None or depth < 0 or (not c and depth):
            return None
        if c == "," and depth == 0:
            out.append(s[start:k].strip())
            start = k + 1
    out.append(s[start:].strip())
    return out


def _literal(s: str) -> str | None:
    """The string of an XPath literal ``'...'`` or ``"..."``, else ``None``."""
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"" and s[0] not in s[1:-1]:
        return s[1:-1]
    return None


def parse_gap(expr: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """``(P, steps)`` of a gap expression (module docstring), else ``None``."""
    s = expr.strip()
    if not (s.startswith(_NORMALIZE) and s.endswith(")")):
        return None
    s = s[len(_NORMALIZE) : -1].strip()
    steps: list[tuple[str, str]] = []
    while len(steps) < 16:
        if s.startswith(_BASE_HEAD) and s.endswith(_BASE_TAIL):
            path = s[len(_BASE_HEAD) : -len(_BASE_TAIL)].strip()
            args = _args(path)
            if not path or args is None or len(args) != 1:
                return None
            return path, tuple(reversed(steps))
        if s.startswith(_BEFORE) and s.endswith(")"):
            kind, inner = "before", s[len(_BEFORE) : -1]
        elif s.startswith(_AFTER) and s.endswith("))"):
            kind, inner = "after", s[len(_AFTER) : -2]
        else:
            return None
        args = _args(inner)
        lit = _literal(args[1]) if args is not None and len(args) == 2 else None
        if args is None or lit is None:
            return None
        steps.append((kind, lit))
        s = args[0]
    return None


def xpath_normalize(s: str) -> str:
    """XPath's ``normalize-space``: runs of space, tab, CR and LF as one space, none at
    the ends (other white space, a no-break space, stays)."""
    if "  " in s or "\n" in s or "\t" in s or "\r" in s:
        return _XML_SPACE.sub(" ", s).strip(" ")
    return s.strip(" ")  # (single spaces only: nothing to collapse)


def gap_text(steps: tuple[tuple[str, str], ...], nodes: Any) -> str | None:
    """The gap expression's value given the nodes its path ``P`` selects (a list, in
    document order: its first node's string-value is ``string(P)``); ``None`` when they
    are not known (not a list) or the first is neither a text nor an element."""
    if not isinstance(nodes, list):
        return None
    if not nodes:
        text = ""
    else:
        node = nodes[0]
        if isinstance(node, str):
            text = node
        elif isinstance(getattr(node, "tag", None), str):
            text = etree.tostring(node, method="text", encoding=str, with_tail=False)
        else:
            return None  # (a comment, a processing instruction)
    s = " " + xpath_normalize(text.replace("\u00a0", " ") if "\u00a0" in text else text) + " "
    for kind, lit in steps:
        k = s.find(lit)
        if kind == "after":
            s = " " + (s[k + len(lit) :] if k >= 0 else "")
        else:
            s = s[:k] if k >= 0 else ""
    return xpath_normalize(s)
