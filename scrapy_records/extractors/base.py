"""The extractor protocol and the one routine that turns record node groups into a Region.

Every extractor finds *where* the records are (groups of element indices of the
:class:`~scrapy_records.page.Page`); :func:`build_region` does the rest the same way for
all of them: XPaths, text, and field alignment into typed, named columns
(:mod:`scrapy_records.fields.alignment`). :func:`leaf_text_prefix` gives the text size of
any sub-tree in O(1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from scrapy_records.fields.alignment import align_records
from scrapy_records.page import Page
from scrapy_records.results import Column, Record, Region


@runtime_checkable
class Extractor(Protocol):
    """What an extractor is: a name and a function from a page to ranked-later regions.

    ``extract`` returns every region it finds, in any order, each with a confidence in
    ``[0, 1]``; ranking and the choice of the main region happen in
    :mod:`scrapy_records.extractors.ranking`. Unknown options must raise ``TypeError``.
    """

    name: str

    def extract(self, page: Page, **options: Any) -> list[Region]:  # pragma: no cover
        ...


def leaf_text_prefix(page: Page) -> list[int]:
    """Characters of the page's text leaves before leaf ``k`` (``[k]``), and in all
    (``[-1]``): node ``i`` holds ``prefix[page.leaf_hi[i]] - prefix[page.leaf_lo[i]]``.
    The page's own list (:meth:`~scrapy_records.page.Page.leaf_chars`, computed once per
    page for STEM and the evidence of ``auto``): read only."""
    return page.leaf_chars()


def build_region(
    page: Page,
    extractor: str,
    parent: int,
    groups: Sequence[Sequence[int]],
    confidence: float,
    *,
    record_confidences: Sequence[float] | None = None,
    meta: dict[str, Any] | None = None,
    align: bool = True,
) -> Region:
    """Make a :class:`Region` from records given as groups of page node indices.

    :param parent: node index of the region's parent element.
    :param groups: one sequence of root node indices per record (document order is
        enforced here; a non-contiguous record may hold nodes of several parents; empty
        groups are dropped).
    :param confidence: the region's, in ``[0, 1]`` (clamped), also each record's unless
        ``record_confidences`` gives one per group.
    :param meta: the extractor's details, copied into ``Region.meta``.
    :param align: run field alignment (set False for speed when only records are needed).
    """
    roots = [tuple(sorted(set(g))) if len(g) > 1 else tuple(g) for g in groups if g]
    xpath, record_text = page.xpath, page.record_text
    records = []
    same = float(min(1.0, max(0.0, confidence)))
    for k, g in enumerate(roots):
        if record_confidences is None:
            conf = same
        else:
            conf = float(min(1.0, max(0.0, record_confidences[k])))
        # Record(xpaths, text, fields, confidence, nodes); most records have one root
        records.append(
            Record(
                [xpath(g[0])] if len(g) == 1 else [xpath(i) for i in g], record_text(g), {}, conf, g
            )
        )
    columns: list[Column] = []
    if align and records:
        columns, values = align_records(page, roots)
        for rec, vals in zip(records, values):
            rec.fields = vals
    return Region(
        extractor=extractor,
        records=records,
        confidence=same,
        xpath=page.xpath(parent) if parent >= 0 else "/",
        columns=columns,
        meta=dict(meta or {}),
        parent=parent,
    )
