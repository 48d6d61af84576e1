"""Per-site wrappers: a versioned JSON document of selectors learnt from extractor output.

A :class:`Wrapper` is what the unsupervised extractors *teach*: once a template's records
have been found on a page (or on a few pages of the template), the wrapper re-extracts
every later page of that template with plain compiled XPaths, at a fraction of the cost
of running an extractor (issue 5, items 2-5; G-STM digest §8, DCADE digest §8.2, MDR
digest §3.11 "wrapper hook").

JSON document (``version`` 1)
=============================

All keys are always present (``null`` where a value is absent); ``to_json()`` sorts keys,
so ``Wrapper.from_json(w.to_json()).to_json() == w.to_json()``::

    {
      "format": "scrapy-records-wrapper",   # constant
      "version": 1,                         # WRAPPER_VERSION; other versions are refused
      "id": "3f2a9c0d1e4b",                 # non-empty string; Region.extractor = "wrapper:<id>"
      "site": "example.com" | null,         # site key (usually the host)
      "template": {                         # structural signature (scrapy_records.wrappers.templates)
        "id": "t-...", | null,              # template cluster id
        "method": "bottomk-tagpath-v2" | null,  # templates.METHOD of the signature
        "signature": [int, ...]             # sketch values (may be empty)
      },
      "record": {                           # null: a page-level-only wrapper (detail pages)
        "xpath": "//ul[@id='results']/li",  # absolute, selects the FIRST element of each record
        "css": "ul#results > li" | null,    # same selection for humans / response.css (may be null)
        "size": 1                           # elements per record: the first + size-1 following
      },                                    #   element siblings (MDR generalized nodes, g)
      "fields": [Field, ...],               # relative to each record's first element
      "lists": [List, ...],                 # nested lists inside each record
      "page_fields": [Field, ...],          # xpath evaluated on the document (non-list data)
      "provenance": {
        "extractor": "mdr",                 # who found the records ("auto", "gstm", "dcade"...)
        "sample_urls": ["https://...", ...],
        "created": "2026-11-25T21:50:00Z",  # ISO-8601 UTC
        "library_version": "0.1.0",
        "options": {...}                    # JSON-ready induction options (may be {})
      },
      "health": {
        "expected_records": [min, max],     # record count range seen on the sample pages
        "fill_rates": {"name": 0.9, ...},   # share of sample records holding each field
        "min_fit": 0.5                      # fit below this marks a page as not fitting
      }
    }

    Field = {"name": str (unique within its list), "type": "text"|"url"|"image"|"number"|
             "price"|"date", "xpath": str, "css": str|null, "attribute": str|null,
             "optional": bool, "multiple": bool}
    List  = {"name": str, "record": {"xpath", "css", "size"} (xpath relative to the
             enclosing record's first element), "fields": [Field], "lists": [List],
             "optional": bool}

Selector semantics
------------------
* Field ``xpath`` is relative (``h2/a``, ``.//span[...]``) and selects *elements* or
  *text nodes*; with ``attribute`` set, the value is that attribute of each selected
  element (``href``, ``src``, ``content``...), else the whitespace-normalised text of the
  selected node (text of script/style excluded). ``type`` ``url``/``image`` values are made
  absolute against the page URL.
* ``multiple`` false: the first non-empty value; true: the list of non-empty values.
  ``optional`` false: a record without a value lowers the page's fit (health).
* ``type`` ``number``/``price``/``date`` values are converted with
  :mod:`scrapy_records.fields.values`, as the extractors' columns are: int/float, a float amount
  plus a ``<name>_currency`` value, an ISO 8601 string; a value that does not convert is
  dropped and counted in ``health["type_errors"]``.
* Label-anchored page fields have the XPath
  ``//tag[normalize-space(.)='Label:']/following::text()[normalize-space()][not(parent::script
  or parent::style)][1]``; they are evaluated in one pass over the page's text nodes.

Application result
------------------
``wrapper.extract(source, url)`` returns ``PageResult(url, [Region(extractor="wrapper:<id>",
records, confidence=fit, xpath=<parent of the first record>, columns, meta)])`` with
``meta = {"health": {"records", "expected_records", "records_fit", "required_fill",
"missing_required", "type_errors", "fit", "fits"}, "page": {page field values},
"wrapper": {"id", "version"}}``; see :meth:`Wrapper.check` for the fit rule. Records hold
``xpaths`` (every element of the record), ``text`` (script/style/comment text excluded,
text nodes joined by spaces as in the page model) and ``fields`` (plus nested list rows).
* ``css`` strings use parsel's dialect (``::text``, ``::attr(name)``) and are a
  convenience for people pasting them into ``response.css``; application always uses the
  XPath.

How an inducer builds a Wrapper (G-STM, DCADE or your own)
==========================================================
Build the dataclasses and call :meth:`Wrapper.validate` (or round-trip through JSON)::

    from scrapy_records.wrappers.model import (Wrapper, RecordSelector, FieldSpec, ListSpec,
                                        Provenance, Health, TemplateInfo)
    w = Wrapper(
        id=Wrapper.make_id("example.com", "//div[@id='r']/div[@class='item']"),
        site="example.com",
        record=RecordSelector(xpath="//div[@id='r']/div[contains(concat(' ', "
                              "normalize-space(@class), ' '), ' item ')]", css="div#r > div.item"),
        fields=[FieldSpec("title", "text", "h3/a", css="h3 a"),
                FieldSpec("link", "url", "h3/a", css="h3 a::attr(href)", attribute="href"),
                FieldSpec("price", "price", "span[@class='p']", optional=True)],
        lists=[ListSpec("tags", RecordSelector("ul/li"), [FieldSpec("tag", "text", ".")])],
        provenance=Provenance(extractor="gstm", sample_urls=[u1, u2]),
        health=Health(expected_records=(8, 12), fill_rates={"title": 1.0, "price": 0.75}),
    )
    w.validate()          # raises WrapperError on anything malformed
    w.verify(page)        # optional: how exactly the selectors reproduce a page's records

The simplest route from any single-page extractor is :meth:`Wrapper.from_region`, which
generates robust selectors (stable ids/classes first, positions last) and verifies them on
the page. ``scrapy_records.induce(pages, extractor=...)`` runs the multi-page inducers.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from scrapy_records._version import __version__

logger = logging.getLogger(__name__)

__all__ = [
    "WRAPPER_FORMAT",
    "WRAPPER_VERSION",
    "FIELD_TYPES",
    "RecordSelector",
    "FieldSpec",
    "ListSpec",
    "TemplateInfo",
    "Provenance",
    "Health",
]

WRAPPER_FORMAT = "scrapy-records-wrapper"
WRAPPER_VERSION = 1
FIELD_TYPES = ("text", "url", "image", "number", "price", "date")
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def library_version() -> str:
    return __version__


def _utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- model
@dataclass
class RecordSelector:
    """Where the records are: ``xpath`` selects each record's first element.

    :param xpath: absolute for the top-level record selector, relative to the enclosing
        record for nested lists.
    :param css: equivalent CSS (parsel dialect) when expressible, else ``None``.
    :param size: number of sibling elements per record (the selected one and the next
        ``size - 1`` element siblings); MDR's generalized node size ``g``.
    :param span: ``"fixed"``: every record is ``size`` elements; ``"until_next"``: a record
        runs from its selected element up to the next selected element, at most ``size``
        elements (records of varying length, e.g. a result followed by an optional
        separator ``<hr>`` that the last one lacks).
    """

    xpath: str
    css: str | None = None
    size: int = 1
    span: str = "fixed"

    def to_dict(self) -> dict[str, Any]:
        return {"xpath": self.xpath, "css": self.css, "size": int(self.size), "span": self.span}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RecordSelector:
        return cls(xpath=d["xpath"], css=d["css"], size=d["size"], span=d.get("span", "fixed"))


@dataclass
class FieldSpec:
    """One field: a relative selector and how to read its value (see module docstring)."""

    name: str
    type: str = "text"
    xpath: str = "."
    css: str | None = None
    attribute: str | None = None
    optional: bool = False
    multiple: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "xpath": self.xpath,
            "css": self.css,
            "attribute": self.attribute,
            "optional": bool(self.optional),
            "multiple": bool(self.multiple),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FieldSpec:
        return cls(
            name=d["name"],
            type=d["type"],
            xpath=d["xpath"],
            css=d["css"],
            attribute=d["attribute"],
            optional=d["optional"],
            multiple=d["multiple"],
        )


@dataclass
class ListSpec:
    """A nested list inside each record: its own record selector, fields and lists."""

    name: str
    record: RecordSelector
    fields: list[FieldSpec] = field(default_factory=list)
    lists: list[ListSpec] = field(default_factory=list)
    optional: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "record": self.record.to_dict(),
            "fields": [f.to_dict() for f in self.fields],
            "lists": [sub.to_dict() for sub in self.lists],
            "optional": bool(self.optional),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ListSpec:
        return cls(
            name=d["name"],
            record=RecordSelector.from_dict(d["record"]),
            fields=[FieldSpec.from_dict(f) for f in d["fields"]],
            lists=[ListSpec.from_dict(x) for x in d["lists"]],
            optional=d["optional"],
        )


@dataclass
class TemplateInfo:
    """The template this wrapper belongs to (see :mod:`scrapy_records.wrappers.templates`)."""

    id: str | None = None
    method: str | None = None
    signature: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "method": self.method, "signature": [int(x) for x in self.signature]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TemplateInfo:
        return cls(id=d["id"], method=d["method"], signature=list(d["signature"]))


@dataclass
class Provenance:
    """Who made the wrapper from what: extractor, sample URLs, time, library version."""

    extractor: str = "auto"
    sample_urls: list[str] = field(default_factory=list)
    created: str = field(default_factory=_utc_now)
    library_version: str = field(default_factory=library_version)
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "extractor": self.extractor,
            "sample_urls": list(self.sample_urls),
            "created": self.created,
            "library_version": self.library_version,
            "options": dict(self.options),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Provenance:
        return cls(
            extractor=d["extractor"],
            sample_urls=list(d["sample_urls"]),
            created=d["created"],
            library_version=d["library_version"],
            options=dict(d["options"]),
        )


@dataclass
class Health:
    """What a page of this template looks like: record count range and field fill rates.

    :param expected_records: ``(min, max)`` record counts seen on the sample pages.
    :param fill_rates: field name -> share of sample records with a value.
    :param min_fit: a page whose fit (see :meth:`Wrapper.check`) is below this does not fit.
    """

    expected_records: tuple[int, int] = (0, 0)
    fill_rates: dict[str, float] = field(default_factory=dict)
    min_fit: float = 0.5

    def __post_init__(self) -> None:
        # stored rounded, so a wrapper equals its JSON round trip
        self.expected_records = (int(self.expected_records[0]), int(self.expected_records[1]))
        self.fill_rates = {k: round(float(v), 4) for k, v in self.fill_rates.items()}
        self.min_fit = round(float(self.min_fit), 4)

    def to_dict(self) -> dict[str, Any]:
        return {
            "expected_records": [int(self.expected_records[0]), int(self.expected_records[1])],
            "fill_rates": {k: round(float(v), 4) for k, v in self.fill_rates.items()},
            "min_fit": round(float(self.min_fit), 4),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Health:
        lo, hi = d["expected_records"]
        return cls(
            expected_records=(lo, hi), fill_rates=dict(d["fill_rates"]), min_fit=d["min_fit"]
        )
