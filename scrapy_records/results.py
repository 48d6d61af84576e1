"""The result model every extractor and every wrapper returns.

``PageResult(url, regions)`` -> ``Region(extractor, records, confidence, xpath, columns)``
-> ``Record(xpaths, text, fields, confidence)``. Everything has ``to_dict()`` giving plain
JSON-ready data (str, int, float, bool, None, lists and dicts only).

Ranking rule (which region is the page's *main content*) is implemented in
:mod:`scrapy_records.extractors.ranking` and documented there and in the README.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The ``meta`` keys of a region's demotion, which ranks it after the others (page chrome,
#: links only, form controls, no text: :func:`scrapy_records.extractors.evidence.demotion`).
DEMOTIONS = ("chrome", "links_only", "controls", "no_text")


@dataclass
class Column:
    """One aligned field of a region.

    :param name: the column name, the key of this value in every record's ``fields``.
    :param type: ``text``, ``url`` (link), ``image``, ``number``, ``price`` or ``date``.
    :param fill: share of the region's records that have a value in this column.
    :param xpath: the column's XPath relative to the record root, when one path selects it.
    :param evidence: where the name came from (``itemprop``, ``class``, ``label``, ``type``...).
    :param multiple: each record holds a list of values (a repeated part: comments, tags).
    :param keys: a column of a list of keys and values ("Year:" / "2019"): the XPaths of the
        list's items (relative to the record root), and of each item's key and value
        (relative to the item); ``None`` for other columns.
    """

    name: str
    type: str = "text"
    fill: float = 1.0
    xpath: str | None = None
    evidence: str | None = None
    multiple: bool = False
    keys: tuple[str, str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "fill": round(float(self.fill), 4),
            "xpath": self.xpath,
            "evidence": self.evidence,
            "multiple": self.multiple,
        }


@dataclass
class Record:
    """One data record.

    :param xpaths: absolute XPaths of the record's root elements, in document order: one
        element, several adjacent siblings (a generalized node), or elements under different
        parents (a non-contiguous record).
    :param text: the record's whitespace-normalised text.
    :param fields: ordered mapping column name -> value (a column absent from a record is
        absent from its mapping).
    :param confidence: in ``[0, 1]``.
    :param nodes: pre-order indices of the root elements in the :class:`~scrapy_records.page.Page`
        the record came from (not serialised; ``()`` for records rebuilt from JSON).
    """

    xpaths: list[str]
    text: str
    fields: dict[str, Any] = field(default_factory=dict)
    confidence: float = 1.0
    nodes: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "xpaths": list(self.xpaths),
            "text": self.text,
            "fields": dict(self.fields),
            "confidence": round(float(self.confidence), 4),
        }


@dataclass
class Region:
    """A data region: a list of similar records under one parent.

    :param extractor: the name of the extractor (or ``wrapper:<id>``) that found it.
    :param xpath: absolute XPath of the region's parent element.
    :param confidence: in ``[0, 1]``; comparable across extractors (see
        :mod:`~scrapy_records.extractors.ranking`).
    :param meta: extractor-specific details (JSON-ready), e.g. MDR's ``g``/``start``/``covered``.
    :param parent: pre-order index of the parent in the page (not serialised).
    """

    extractor: str
    records: list[Record]
    confidence: float
    xpath: str
    columns: list[Column] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    parent: int = field(default=-1, repr=False, compare=False)
    score: float = field(default=0.0, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.records)

    def to_dict(self) -> dict[str, Any]:
        return {
            "extractor": self.extractor,
            "xpath": self.xpath,
            "confidence": round(float(self.confidence), 4),
            "columns": [c.to_dict() for c in self.columns],
            "records": [r.to_dict() for r in self.records],
            "meta": dict(self.meta),
        }


@dataclass
class PageResult:
    """All regions of one page, ranked best first (``regions[0]`` is the main content).

    :param main_threshold: ``main`` is ``None`` when the best region's confidence is below
        it, which is how a page without a record list (an article, a home page) reports
        "no main region".
    """

    url: str | None
    regions: list[Region] = field(default_factory=list)
    main_threshold: float = 0.0

    @property
    def main(self) -> Region | None:
        if self.regions and self.regions[0].confidence >= self.main_threshold:
            return self.regions[0]
        return None

    @property
    def records(self) -> list[Record]:
        """The main region's records (empty when there is no main region)."""
        m = self.main
        return m.records if m is not None else []

    def __len__(self) -> int:
        return len(self.regions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "main": 0 if self.main is not None else None,
            "regions": [r.to_dict() for r in self.regions],
        }
