"""The anchored scans of guarded field paths, several in one pass over the page.

A guarded XPath ``P | /html[not(P)]//T[L]R`` (DCADE's absolute path checked by a label,
:func:`~scrapy_records.wrappers.reading.guarded_parts`) scans the whole page for the label
``//T[L]`` where ``P`` selects nothing: a page whose layout moved (a block added above the
fields) pays one scan per field, a third of the page's parse each. The fields whose ``P``
failed on a page and whose scans look for the same tag ``T`` share one scan
``/html//T[(L1) or (L2) ...]``; each field's nodes are then ``$s[Li]R`` over its result,
the same nodes as ``/html//T[Li]R`` when ``Li`` is a test (a comparison: true or false)
that reads no position (:func:`scan_parts`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from lxml import etree

from scrapy_records.wrappers.gaps import gap_text, nesting
from scrapy_records.wrappers.safe_xpath import compile_xpath

_SCAN_RX = re.compile(r"//([A-Za-z][\w-]*)\[")
#: a predicate that is a comparison with a literal, its last operand (a test: its top-level
#: operator is the comparison or a lower one, ``and``/``or``)
_TEST_RX = re.compile(r"""(?:=|!=|<=|>=)\s*(?:'[^']*'|"[^"]*")\s*$""")


def _closing(s: str, start: int) -> int:
    """The position of the ``]`` that closes the ``[`` at ``start - 1``, or -1."""
    for k, c, depth in nesting(s, start):
        if depth == -1:
            return k if c == "]" else -1
    return -1


def scan_parts(tail: str) -> tuple[str, str, str] | None:
    """``(T, L, R)`` of a guarded path's scan ``//T[L]R`` (``R`` empty or a path from
    ``/``), ``L`` a test reading no position; else ``None``."""
    m = _SCAN_RX.match(tail)
    if m is None:
        return None
    end = _closing(tail, m.end())
    if end < 0:
        return None
    test, rest = tail[m.end() : end], tail[end + 1 :]
    if rest and not rest.startswith("/"):
        return None  # (a second predicate, or an operator)
    if "position()" in test or "last()" in test or not _is_test(test):
        return None
    return m.group(1), test, rest


#: a step with a predicate, ``text()[...]`` or ``span[...]``: a node-set (true when
#: not empty)
_STEP_RX = re.compile(r"(?:text\(\)|[A-Za-z][\w-]*)\[")


def _is_test(test: str) -> bool:
    """A comparison with a literal, or one step with one predicate (``text()[...]``):
    true or false, never a number (a position)."""
    if _TEST_RX.search(test):
        return True
    m = _STEP_RX.match(test)
    return m is not None and _closing(test, m.end()) == len(test) - 1


@lru_cache(maxsize=256)
def _shared_scan(tag: str, tests: tuple[str, ...]) -> Any:
    """The one scan of several fields' labels (the same few sets come back page after
    page)."""
    return compile_xpath(f"/html//{tag}[{' or '.join(f'({t})' for t in tests)}]")


def scan_nodes(readers: list[Any], ctx: Any) -> dict[int, Any]:
    """The nodes of the scans of ``readers`` (fields whose guarded path's first branch
    selected nothing on this page: ``first``, ``rest``, ``scan`` = :func:`scan_parts` and
    ``of_scan``, the compiled ``$s[L]R``), by ``id(reader)``: each scan alone, or shared by
    the readers looking for the same tag. A reader whose evaluation fails gets ``None``."""
    out: dict[int, Any] = {}
    by_tag: dict[str, list[Any]] = {}
    for f in readers:
        by_tag.setdefault(f.scan[0], []).append(f)
    for tag, group in by_tag.items():
        found = None
        if len(group) > 1:
            try:
                found = _shared_scan(tag, tuple(f.scan[1] for f in group))(ctx)
            except (etree.XPathEvalError, etree.XPathSyntaxError):
                found = None  # (each alone: the one that fails fails alone)
        for f in group:
            try:
                out[id(f)] = f.rest(ctx) if found is None else f.of_scan(ctx, s=found)
            except etree.XPathEvalError:
                out[id(f)] = None
    return out


def read_single(fields: list[Any], ctx: Any, base: str | None, dirty: Any) -> dict[Any, Any]:
    """The value of each distinct field key (``FieldReader.key``: a typed field and its
    ``_raw`` twin share it) of a single record ``ctx``, ``None`` where none: each read as
    ``FieldReader.read`` reads it, the scans of guarded paths whose first branch selects
    nothing here together (:func:`scan_nodes`); a plain path several fields read (a link's
    text and URL) is evaluated once, and a value cut out of the text of a path another
    field read is computed from its nodes (:mod:`~scrapy_records.wrappers.gaps`). From
    the document's root element, a path from ``/html`` is read relative to it
    (``FieldReader.rel``)."""
    seen: dict[Any, Any] = {}
    nodes_of: dict[str, Any] = {}  # the nodes of each path read here
    # the record is the document's root element html: paths from /html read from it
    at_root = ctx.tag == "html" and ctx.getparent() is None
    deferred = []
    gaps = []
    for f in fields:
        if f.key in seen:
            continue
        if f.gap is not None:
            gaps.append(f)  # (once the paths are read)
            seen[f.key] = None
            continue
        if f.scan is None:
            if f.first is not None or f.idpath is not None:
                seen[f.key] = f.read(ctx, base, dirty)
                continue
            nodes = nodes_of.get(f.path)
            if nodes is None:
                try:  # (FieldReader.read of a plain path, inline)
                    nodes = (f.rel if at_root and f.rel is not None else f.xp)(ctx)
                except etree.XPathEvalError:
                    nodes = nodes_of[f.path] = ()
                if not isinstance(nodes, (list, tuple)):  # a string()/count() expression
                    nodes = [str(nodes)] if nodes not in (None, "") else ()
                else:
                    nodes_of[f.path] = nodes
            seen[f.key] = f.value(nodes, base, dirty) if nodes != () else None
            continue
        try:
            nodes = (f.rel if at_root and f.rel is not None else f.first)(ctx)
        except etree.XPathEvalError:
            seen[f.key] = None
            continue
        if isinstance(nodes, list) and nodes:
            seen[f.key] = f.value(nodes, base, dirty)
            nodes_of[f.path] = nodes
        else:
            seen[f.key] = None
            deferred.append(f)
    if deferred:
        found = scan_nodes(deferred, ctx)
        for f in deferred:
            nodes = found[id(f)]
            if nodes is not None:
                seen[f.key] = f.value(nodes, base, dirty)
                nodes_of[f.path] = nodes
    for f in gaps:
        text = gap_text(f.gap[1], nodes_of.get(f.gap[0]))
        if text is None:  # its path was not read here: the expression as written
            seen[f.key] = f.read(ctx, base, dirty)
        else:
            seen[f.key] = f.value([text] if text else [], base, dirty)
    return seen
