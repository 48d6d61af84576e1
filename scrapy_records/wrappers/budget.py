"""The work budget of applying a wrapper to one page.

Selectors are of allowed forms (:mod:`~scrapy_records.wrappers.safe_xpath`), yet their cost
still grows with the page: a page of 150,000 elements, or a record selector whose
``//`` runs from thousands of context nodes, can keep libxml2 busy for minutes (it merges
node sets with a duplicate check that is quadratic in their sizes). :class:`ApplyBudget`
bounds one page's application:

1. **nodes**: the page's nodes (elements, comments, processing instructions, also
   inside ``svg``, ``template``, scripts...) are counted once, before any selector runs,
   only when an upper bound cannot decide a check (the count costs a sixth of the parse):
   :func:`nodes_bound` of the size of the bytes a page was parsed from, else the nodes
   and texts, counted in one pass (:func:`nodes_and_texts`); over ``max_nodes``
   (default :data:`~scrapy_records.page.DEFAULT_MAX_NODES`, the page
   model's budget) the page is refused with
   :class:`~scrapy_records.errors.PageTooLargeError`;
2. **work**: every selector evaluation is charged *before* it runs, in node visits, from
   its form (:class:`~scrapy_records.wrappers.safe_xpath.XPathInfo`) and the page's size
   ``N``: ``N`` per step, ``N`` per record and descendant step of a per-record
   evaluation, the sizes of the context sets of steps that run from several nodes
   (measured first), ``R**2`` for ``R`` records evaluated at once, :data:`VALUE_COST` a
   value read (a field of a record). Over ``max_work``
   (default :data:`DEFAULT_MAX_WORK`) application stops with
   :class:`~scrapy_records.errors.BudgetExceededError`; nothing costly ran;
3. **time** (optional, ``max_seconds``): a deadline checked between selector evaluations.

The charges are upper bounds of libxml2's work for the allowed forms (the inducers'
wrappers on real pages use a small share of the default budget: ``benchmarks/fuzz.py``).
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

from lxml import etree

from scrapy_records.errors import BudgetExceededError, OptionError, PageTooLargeError
from scrapy_records.page import DEFAULT_MAX_NODES
from scrapy_records.wrappers.idpaths import IdIndex, IdPath, id_path
from scrapy_records.wrappers.safe_xpath import XPathInfo, compile_xpath

#: Default work budget of one page (node visits; see the module docstring).
DEFAULT_MAX_WORK = 100_000_000
#: What reading one field's value of one record costs, in node visits (Python reads it:
#: about a hundred times a node visit of libxml2).
VALUE_COST = 100
#: Above this many records a field is evaluated record by record: lxml hands a node-set
#: variable to libxml2 with a duplicate check per node (quadratic), which outweighs the
#: per-call cost of separate evaluations from about 700 records on.
BATCH_MAX_RECORDS = 512

#: the nodes :func:`count_nodes` counts, in one C-level evaluation (the whole document:
#: comments before the root element and trees libxml2 left after a premature ``</html>``)
_COUNT_XP = compile_xpath("count(//*) + count(//comment()) + count(//processing-instruction())")


@lru_cache(maxsize=1024)
def _prefix_xpaths(prefix: str) -> tuple[Any, IdPath | None]:
    """A context set's compiled XPath and its id-anchored form (the same few prefixes come
    back on every page of a site)."""
    return compile_xpath(prefix), id_path(prefix)


def count_nodes(root: Any) -> int:
    """Elements, comments and processing instructions of ``root``'s document (counted by
    libxml2: a tenth of the parse's time; a walk in Python costs three times that)."""
    tree = root.getroottree() if hasattr(root, "getroottree") else root
    return int(_COUNT_XP(tree))


#: the nodes of :data:`_COUNT_XP` and the text nodes, in one pass over the page instead of
#: three (an upper bound of :func:`count_nodes`: ``node()`` is any of them)
_NODES_AND_TEXTS_XP = compile_xpath("count(//node())")


def nodes_and_texts(root: Any) -> int:
    """An upper bound of :func:`count_nodes` at half its cost: the nodes it counts and the
    text nodes of the document."""
    tree = root.getroottree() if hasattr(root, "getroottree") else root
    return int(_NODES_AND_TEXTS_XP(tree))


#: Most nodes libxml2 builds per character of its input: an element, comment or
#: instruction starts with two characters at least (``<a``), and the elements it implies
#: (``html``, ``head``, ``body``, and a ``p`` around text outside the body) come once per
#: document or after an end tag. Real pages hold a fiftieth of a node per byte, random
#: markup (tests) a fifth at most.
NODES_PER_BYTE = 2


def nodes_bound(size: int) -> int:
    """An upper bound of the nodes of a page parsed from ``size`` bytes, in an encoding
    that reads a character from each byte at most (one of
    :data:`~scrapy_records.page.decode.ASCII_SAFE`)."""
    return NODES_PER_BYTE * size + 16


def check_budget_options(max_nodes: Any, max_work: Any, max_seconds: Any) -> None:
    """Raise :class:`OptionError` for a budget of the wrong type or out of range."""
    for name, v in (("max_nodes", max_nodes), ("max_work", max_work)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise OptionError(f"{name} must be a positive integer or None, not {v!r}")
    if max_seconds is not None and (
        isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float))
    ):
        raise OptionError(f"max_seconds must be a number or None, not {max_seconds!r}")
    if max_seconds is not None and not max_seconds > 0:
        raise OptionError(f"max_seconds must be positive, not {max_seconds!r}")


class FieldTotals:
    """The sums over several fields' :class:`XPathInfo` that :meth:`ApplyBudget.fields`
    charges (each field's :meth:`ApplyBudget.values` and :meth:`ApplyBudget.per_record`):
    built once per wrapper, where a detail page's dozens of fields were summed per page."""

    __slots__ = ("n", "visits", "nested_deep", "deep", "steps", "wide")

    def __init__(self, infos: list[XPathInfo]) -> None:
        self.n = len(infos)
        #: passes over the page (:meth:`ApplyBudget._visits` of one pass, the shape aside)
        self.visits = sum(1 + i.nested_max for i in infos)
        self.nested_deep = sum(i.nested_deep for i in infos)
        #: per record: the descendant steps and the context sets of steps from several nodes
        self.deep = sum(i.deep + len(i.spread) for i in infos)
        self.steps = sum(i.steps for i in infos)
        #: per record, times the page's largest number of children: upward and sibling steps
        self.wide = sum(i.ups + i.sibling_scans for i in infos)


class ApplyBudget:
    """The budget of one page (module docstring). ``work`` is what was charged so far.

    ``nodes_at_most``: an upper bound of the page's nodes (:func:`nodes_bound` of the
    bytes it was parsed from); without one, or when it is over ``max_nodes``, the bound is
    :func:`nodes_and_texts`. The nodes are then counted only when a check cannot be
    decided with the bound: work is kept as ``per_node * nodes + fixed``, each term
    non-negative, so what passes with the bound passes with the count.
    """

    def __init__(
        self,
        root: Any,
        *,
        max_nodes: int | None = DEFAULT_MAX_NODES,
        max_work: int | None = DEFAULT_MAX_WORK,
        max_seconds: float | None = None,
        nodes_at_most: int | None = None,
    ) -> None:
        check_budget_options(max_nodes, max_work, max_seconds)
        self.root = root
        self._nodes: int | None = None
        if nodes_at_most is None or (max_nodes is not None and nodes_at_most > max_nodes):
            nodes_at_most = nodes_and_texts(root)
            if max_nodes is not None and nodes_at_most > max_nodes:
                nodes_at_most = self.nodes
                if nodes_at_most > max_nodes:
                    raise PageTooLargeError(f"page has more than max_nodes={max_nodes} nodes")
        #: what the checks use: the node count, or an upper bound until it is counted
        self._bound = nodes_at_most
        self.max_work = max_work
        self.deadline = None if max_seconds is None else time.monotonic() + max_seconds
        self.max_seconds = max_seconds
        self._per_node = 0
        self._fixed = 0
        self._shape: tuple[int, int] | None = None

    @property
    def nodes(self) -> int:
        """The page's nodes (:func:`count_nodes`), counted on first use."""
        if self._nodes is None:
            self._nodes = self._bound = count_nodes(self.root)
        return self._nodes

    @property
    def work(self) -> int:
        """The work charged so far, in node visits."""
        return self._per_node * self.nodes + self._fixed

    # ------------------------------------------------------------------ charging
    def _fits(self, per_node: int, fixed: int) -> bool:
        """Whether ``per_node`` passes over the page and ``fixed`` visits more stay within
        ``max_work`` (decided with the bound when it can be)."""
        if self.max_work is None:
            return True
        a, b = self._per_node + per_node, self._fixed + fixed
        return a * self._bound + b <= self.max_work or a * self.nodes + b <= self.max_work

    def charge(self, units: int, what: str, per_node: int = 0) -> None:
        """Add ``units`` of work, and ``per_node`` passes over the page's nodes; raise when
        the budget or the deadline is passed."""
        self._per_node += per_node
        self._fixed += int(units)
        if (
            self.max_work is not None
            and self._per_node * self._bound + self._fixed > self.max_work
            and self.work > self.max_work
        ):
            raise BudgetExceededError(
                f"wrapper application needs more than max_work={self.max_work} node visits"
                f" on this page ({self.nodes} nodes; at {what})"
            )
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise BudgetExceededError(
                f"wrapper application took more than max_seconds={self.max_seconds} (at {what})"
            )

    def shape(self) -> tuple[int, int]:
        """``(largest number of children, depth)`` of the page, measured on first use."""
        if self._shape is None:
            fan = depth = d = 0
            for event, el in etree.iterwalk(self.root, events=("start", "end")):
                if event == "start":
                    d += 1
                    depth = max(depth, d)
                    fan = max(fan, len(el))
                else:
                    d -= 1
            self._shape = (fan, depth)
        return self._shape

    def _visits(self, info: XPathInfo, passes: int) -> int:
        """``passes`` passes over the page, predicates included (visits per node)."""
        per_node = passes * (1 + info.nested_max)
        if info.nested_deep:
            per_node += self.shape()[1] * info.nested_deep
        return per_node

    def _scans(self, info: XPathInfo) -> int:
        """Siblings visited by sibling steps that do not stop early, from one context."""
        return self.shape()[0] * info.sibling_scans if info.sibling_scans else 0

    def top(self, info: XPathInfo, what: str, ids: IdIndex | None = None) -> None:
        """Charge one evaluation from the page root; steps that run from several nodes are
        charged by their context set, measured first (each measure charged before it).

        ``ids``: the page's id index; an id-anchored context set (``//div[@id='r']`` of
        ``//div[@id='r']//li``) is measured through it when it lists that id, instead of
        a scan of the page: the same nodes (:class:`~scrapy_records.wrappers.idpaths.IdPath`).
        """
        self.charge(self._scans(info), what, self._visits(info, info.passes))
        for prefix in info.spread:
            self.charge(0, what, self._measure(prefix, ids))

    def _measure(self, prefix: str, ids: IdIndex | None) -> int:
        """The size of the node-set ``prefix`` selects from the page root."""
        xp, idp = _prefix_xpaths(prefix)
        try:
            if ids is not None and idp is not None and ids.lists(idp.id):
                nodes = idp.nodes(ids)
                if nodes is not None:
                    return len(nodes)
            return len(xp(self.root))
        except (etree.XPathEvalError, TypeError):
            return self.nodes

    def top_all(self, infos: list[XPathInfo]) -> bool:
        """:meth:`top` of each of ``infos`` as one charge, when none measures a context set
        first, no deadline is set and the budget holds them all (``True``); else nothing
        is charged (``False``) and the caller charges each before its evaluation."""
        if self.deadline is not None or any(i.spread for i in infos):
            return False
        per_node = fixed = 0
        for info in infos:
            per_node += self._visits(info, info.passes)
            fixed += self._scans(info)
        if not self._fits(per_node, fixed):
            return False
        self._per_node += per_node
        self._fixed += fixed
        return True

    def values(self, records: int, what: str) -> None:
        """Charge reading one field's values of ``records`` records."""
        self.charge(VALUE_COST * records, what)

    def per_record(self, info: XPathInfo, records: int, what: str) -> None:
        """Charge one evaluation from each of ``records`` context nodes: the records'
        sub-trees once, and from each record what may leave its sub-tree (descendant and
        following steps, and steps from several nodes: the page; parent and sibling
        steps: the siblings)."""
        per_node, fixed = self._per_record_units(info, records)
        self.charge(fixed, what, per_node)

    def _per_record_units(self, info: XPathInfo, records: int) -> tuple[int, int]:
        """:meth:`per_record`'s ``(passes over the page, other visits)``."""
        fixed = info.steps
        if info.ups or info.sibling_scans:
            fixed += self.shape()[0] * (info.ups + info.sibling_scans)
        return self._visits(info, 1) + records * (info.deep + len(info.spread)), records * fixed

    def fields(self, fields: list[Any], records: int, totals: FieldTotals | None = None) -> None:
        """:meth:`values` and :meth:`per_record` of each field in turn (``fields``: readers
        with ``info`` and ``name``), as one charge when the budget holds them all and no
        deadline is set: the same work, without a call per charge (a detail page has dozens
        of fields); one by one otherwise, to stop at the field that passes it.
        ``totals``: the :class:`FieldTotals` of ``fields``' infos (summed here without)."""
        if totals is None:
            totals = FieldTotals([f.info for f in fields])
        per_node = totals.visits + records * totals.deep
        fixed = records * (VALUE_COST * totals.n + totals.steps)
        if totals.nested_deep:
            per_node += self.shape()[1] * totals.nested_deep
        if totals.wide:
            fixed += records * self.shape()[0] * totals.wide
        if self.deadline is None and self._fits(per_node, fixed):
            self._per_node += per_node
            self._fixed += fixed
            return
        for f in fields:
            self.values(records, f"field {f.name}")
            self.per_record(f.info, records, f"field {f.name}")

    def all_fields(self, charges: list[tuple[XPathInfo | None, bool]], records: int) -> bool:
        """The charges of reading fields over ``records`` records, as one charge when the
        budget holds them all and no deadline is set (``True``); else nothing is charged
        (``False``) and the caller charges each field before reading it. ``charges``: per
        field, the path it evaluates (``None``: none, the values only) and whether it is
        evaluated over all records at once (:meth:`batched`) or from each
        (:meth:`per_record`); each with :meth:`values`. The same work as those calls."""
        if self.deadline is not None:
            return False
        per_node = 0
        fixed = VALUE_COST * records * len(charges)
        for info, at_once in charges:
            if info is None:
                continue
            if at_once:
                per_node += self._visits(info, 1)
                fixed += records * records
            else:
                a, b = self._per_record_units(info, records)
                per_node += a
                fixed += b
        if not self._fits(per_node, fixed):
            return False
        self._per_node += per_node
        self._fixed += fixed
        return True

    def batched(self, info: XPathInfo, records: int, what: str) -> None:
        """Charge one evaluation of a contained path over ``records`` context nodes at once
        (lxml's hand-over of the node set is quadratic in ``records``)."""
        self.charge(records * records, what, self._visits(info, 1))
