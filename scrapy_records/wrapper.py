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
      "template": {                         # structural signature (scrapy_records.templates)
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
  :mod:`scrapy_records.values`, as the extractors' columns are: int/float, a float amount
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

    from scrapy_records.wrapper import (Wrapper, RecordSelector, FieldSpec, ListSpec,
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

import hashlib
import json
import logging
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from . import page as page_mod
from .errors import WrapperError
from .results import Column, PageResult, Record, Region

logger = logging.getLogger(__name__)

__all__ = [
    "WRAPPER_FORMAT",
    "WRAPPER_VERSION",
    "FIELD_TYPES",
    "Wrapper",
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


def _library_version() -> str:
    try:
        from . import __version__

        return __version__
    except Exception:  # pragma: no cover - partial import during packaging
        return "unknown"


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
    """The template this wrapper belongs to (see :mod:`scrapy_records.templates`)."""

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
    library_version: str = field(default_factory=_library_version)
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


# ---------------------------------------------------------------- validation
class _V:
    """Hand-written validator: exact key sets, types, ranges; messages name the JSON path."""

    @staticmethod
    def fail(path: str, msg: str) -> None:
        raise WrapperError(f"invalid wrapper document at {path}: {msg}")

    @classmethod
    def obj(cls, d: Any, path: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
        if not isinstance(d, dict):
            cls.fail(path, f"expected an object, got {type(d).__name__}")
        missing = [k for k in keys if k not in d]
        if missing:
            cls.fail(path, f"missing key(s) {', '.join(missing)}")
        extra = sorted(set(d) - set(keys) - set(optional))
        if extra:
            cls.fail(path, f"unknown key(s) {', '.join(extra)}")

    @classmethod
    def typ(cls, v: Any, path: str, types: tuple[type, ...], nullable: bool = False) -> None:
        if v is None and nullable:
            return
        # bool is an int subclass: never accept it where a number is expected
        if isinstance(v, bool) and bool not in types:
            cls.fail(path, f"expected {'/'.join(t.__name__ for t in types)}, got bool")
        if not isinstance(v, types):
            want = "/".join(t.__name__ for t in types) + (" or null" if nullable else "")
            cls.fail(path, f"expected {want}, got {type(v).__name__}")

    @classmethod
    def xpath(cls, v: Any, path: str) -> None:
        cls.typ(v, path, (str,))
        if not v.strip():
            cls.fail(path, "empty XPath")
        try:
            etree.XPath(v)
        except etree.XPathSyntaxError as exc:
            cls.fail(path, f"XPath {v!r} does not compile: {exc}")

    @classmethod
    def css(cls, v: Any, path: str) -> None:
        cls.typ(v, path, (str,), nullable=True)
        if v is None:
            return
        try:
            from parsel.csstranslator import HTMLTranslator

            HTMLTranslator().css_to_xpath(v)
        except Exception as exc:  # cssselect raises several classes
            cls.fail(path, f"CSS {v!r} does not parse: {exc}")

    @classmethod
    def record(cls, d: Any, path: str) -> None:
        cls.obj(d, path, ("xpath", "css", "size"), optional=("span",))
        cls.xpath(d["xpath"], path + ".xpath")
        cls.css(d["css"], path + ".css")
        cls.typ(d["size"], path + ".size", (int,))
        if d["size"] < 1:
            cls.fail(path + ".size", "must be >= 1")
        if d.get("span", "fixed") not in ("fixed", "until_next"):
            cls.fail(path + ".span", "must be 'fixed' or 'until_next'")

    @classmethod
    def field_(cls, d: Any, path: str) -> None:
        cls.obj(d, path, ("name", "type", "xpath", "css", "attribute", "optional", "multiple"))
        cls.typ(d["name"], path + ".name", (str,))
        if not d["name"]:
            cls.fail(path + ".name", "empty name")
        if d["type"] not in FIELD_TYPES:
            cls.fail(path + ".type", f"{d['type']!r} is not one of {', '.join(FIELD_TYPES)}")
        cls.xpath(d["xpath"], path + ".xpath")
        cls.css(d["css"], path + ".css")
        cls.typ(d["attribute"], path + ".attribute", (str,), nullable=True)
        cls.typ(d["optional"], path + ".optional", (bool,))
        cls.typ(d["multiple"], path + ".multiple", (bool,))

    @classmethod
    def fields(cls, v: Any, path: str) -> None:
        cls.typ(v, path, (list,))
        seen: set[str] = set()
        for k, f in enumerate(v):
            cls.field_(f, f"{path}[{k}]")
            if f["name"] in seen:
                cls.fail(f"{path}[{k}].name", f"duplicate field name {f['name']!r}")
            seen.add(f["name"])

    @classmethod
    def list_(cls, d: Any, path: str, depth: int) -> None:
        if depth > 32:
            cls.fail(path, "lists nested deeper than 32 levels")
        cls.obj(d, path, ("name", "record", "fields", "lists", "optional"))
        cls.typ(d["name"], path + ".name", (str,))
        if not d["name"]:
            cls.fail(path + ".name", "empty name")
        cls.record(d["record"], path + ".record")
        cls.fields(d["fields"], path + ".fields")
        cls.lists(d["lists"], path + ".lists", depth + 1)
        cls.typ(d["optional"], path + ".optional", (bool,))

    @classmethod
    def lists(cls, v: Any, path: str, depth: int = 0) -> None:
        cls.typ(v, path, (list,))
        for k, x in enumerate(v):
            cls.list_(x, f"{path}[{k}]", depth)

    @classmethod
    def document(cls, d: Any) -> None:
        if not isinstance(d, dict):
            cls.fail("$", f"expected an object, got {type(d).__name__}")
        if d.get("format") != WRAPPER_FORMAT:
            cls.fail("$.format", f"expected {WRAPPER_FORMAT!r}, got {d.get('format')!r}")
        version = d.get("version")
        if version != WRAPPER_VERSION or isinstance(version, bool):
            raise WrapperError(
                f"unsupported wrapper version {version!r}: this library (scrapy_records "
                f"{_library_version()}) reads version {WRAPPER_VERSION}; re-induce the wrapper"
            )
        cls.obj(
            d,
            "$",
            (
                "format",
                "version",
                "id",
                "site",
                "template",
                "record",
                "fields",
                "lists",
                "page_fields",
                "provenance",
                "health",
            ),
        )
        cls.typ(d["id"], "$.id", (str,))
        if not d["id"]:
            cls.fail("$.id", "empty id")
        cls.typ(d["site"], "$.site", (str,), nullable=True)
        t = d["template"]
        cls.obj(t, "$.template", ("id", "method", "signature"))
        cls.typ(t["id"], "$.template.id", (str,), nullable=True)
        cls.typ(t["method"], "$.template.method", (str,), nullable=True)
        cls.typ(t["signature"], "$.template.signature", (list,))
        for k, x in enumerate(t["signature"]):
            cls.typ(x, f"$.template.signature[{k}]", (int,))
        if d["record"] is not None:
            cls.record(d["record"], "$.record")
        cls.fields(d["fields"], "$.fields")
        cls.lists(d["lists"], "$.lists")
        cls.fields(d["page_fields"], "$.page_fields")
        if d["record"] is None and (d["fields"] or d["lists"]):
            cls.fail("$.record", "null record selector but record fields/lists are given")
        p = d["provenance"]
        cls.obj(
            p, "$.provenance", ("extractor", "sample_urls", "created", "library_version", "options")
        )
        cls.typ(p["extractor"], "$.provenance.extractor", (str,))
        cls.typ(p["sample_urls"], "$.provenance.sample_urls", (list,))
        for k, u in enumerate(p["sample_urls"]):
            cls.typ(u, f"$.provenance.sample_urls[{k}]", (str,))
        cls.typ(p["created"], "$.provenance.created", (str,))
        cls.typ(p["library_version"], "$.provenance.library_version", (str,))
        cls.typ(p["options"], "$.provenance.options", (dict,))
        h = d["health"]
        cls.obj(h, "$.health", ("expected_records", "fill_rates", "min_fit"))
        er = h["expected_records"]
        cls.typ(er, "$.health.expected_records", (list,))
        if len(er) != 2:
            cls.fail("$.health.expected_records", "expected [min, max]")
        for k, x in enumerate(er):
            cls.typ(x, f"$.health.expected_records[{k}]", (int,))
        if not 0 <= er[0] <= er[1]:
            cls.fail("$.health.expected_records", f"need 0 <= min <= max, got {er}")
        cls.typ(h["fill_rates"], "$.health.fill_rates", (dict,))
        for k, x in h["fill_rates"].items():
            cls.typ(x, f"$.health.fill_rates.{k}", (int, float))
            if not 0.0 <= x <= 1.0:
                cls.fail(f"$.health.fill_rates.{k}", f"{x} is outside [0, 1]")
        cls.typ(h["min_fit"], "$.health.min_fit", (int, float))
        if not 0.0 <= h["min_fit"] <= 1.0:
            cls.fail("$.health.min_fit", f"{h['min_fit']} is outside [0, 1]")


# ------------------------------------------------------------------ wrapper
@dataclass
class Wrapper:
    """A per-site, per-template wrapper (see the module docstring for the JSON format).

    Build one with :meth:`from_region` (any extractor's region on one page),
    :func:`scrapy_records.induce` (several pages of one template) or by hand; apply it with
    :meth:`extract`; store it with :meth:`to_json` / :meth:`from_json`.
    """

    id: str
    record: RecordSelector | None
    fields: list[FieldSpec] = field(default_factory=list)
    lists: list[ListSpec] = field(default_factory=list)
    page_fields: list[FieldSpec] = field(default_factory=list)
    site: str | None = None
    template: TemplateInfo = field(default_factory=TemplateInfo)
    provenance: Provenance = field(default_factory=Provenance)
    health: Health = field(default_factory=Health)
    #: set by :meth:`check` when a page no longer fits: re-induce from fresh pages.
    stale: bool = field(default=False, compare=False)
    _compiled: Any = field(default=None, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        # compiled XPath objects cannot be copied: copies (copy.deepcopy, multiprocessing)
        # recompile on first use
        state = self.__dict__.copy()
        state["_compiled"] = None
        return state

    # ---------------------------------------------------------------- identity
    @staticmethod
    def make_id(*parts: Any) -> str:
        """A short deterministic id (12 hex digits) from the given parts (site, selectors...)."""
        h = hashlib.blake2b(digest_size=6)
        for p in parts:
            h.update(repr(p).encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        return h.hexdigest()

    # ----------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": WRAPPER_FORMAT,
            "version": WRAPPER_VERSION,
            "id": self.id,
            "site": self.site,
            "template": self.template.to_dict(),
            "record": self.record.to_dict() if self.record is not None else None,
            "fields": [f.to_dict() for f in self.fields],
            "lists": [x.to_dict() for x in self.lists],
            "page_fields": [f.to_dict() for f in self.page_fields],
            "provenance": self.provenance.to_dict(),
            "health": self.health.to_dict(),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """Deterministic JSON (sorted keys): ``from_json(w.to_json()).to_json() == w.to_json()``."""
        d = self.to_dict()
        _V.document(d)
        return json.dumps(d, sort_keys=True, indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: Any) -> Wrapper:
        """Validate a decoded document fully, then build the wrapper (never half-loads)."""
        _V.document(d)
        try:
            return cls(
                id=d["id"],
                site=d["site"],
                template=TemplateInfo.from_dict(d["template"]),
                record=RecordSelector.from_dict(d["record"]) if d["record"] is not None else None,
                fields=[FieldSpec.from_dict(f) for f in d["fields"]],
                lists=[ListSpec.from_dict(x) for x in d["lists"]],
                page_fields=[FieldSpec.from_dict(f) for f in d["page_fields"]],
                provenance=Provenance.from_dict(d["provenance"]),
                health=Health.from_dict(d["health"]),
            )
        except (KeyError, TypeError, ValueError) as exc:  # pragma: no cover - validator gap
            raise WrapperError(f"invalid wrapper document: {exc}") from exc

    @classmethod
    def from_json(cls, text: str | bytes) -> Wrapper:
        """Parse and validate a wrapper document.

        :raises WrapperError: truncated/invalid JSON, another format or version, missing or
            unknown keys, wrong types, XPaths that do not compile.
        """
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise WrapperError(f"wrapper document is not UTF-8: {exc}") from exc
        if not isinstance(text, str):
            raise WrapperError(f"wrapper document must be str or bytes, not {type(text).__name__}")
        try:
            d = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise WrapperError(f"wrapper document is not valid JSON: {exc}") from exc
        return cls.from_dict(d)

    def validate(self) -> Wrapper:
        """Raise :class:`WrapperError` if this wrapper would not serialise to a valid document."""
        _V.document(self.to_dict())
        return self

    # ----------------------------------------------------------- application
    def _compile(self) -> _Compiled:
        if self._compiled is None:
            self._compiled = _Compiled(self)
        return self._compiled

    def extract(self, source: Any, url: str | None = None, **page_options: Any) -> PageResult:
        """Apply the wrapper to one page and return the shared result model.

        ``source`` is ``str``/``bytes``/a Scrapy ``Response``/an lxml tree or a
        :class:`~scrapy_records.page.Page`. Raw input is parsed once with the same parser
        as parsel (no page model is built: application is compiled XPaths only). The
        result has one region, ``extractor="wrapper:<id>"``, whose ``meta`` holds
        ``health`` (see :meth:`check`), ``page`` (the page-level fields) and ``wrapper``
        (id and version). A page that does not fit marks the wrapper :attr:`stale`.
        """
        root, url, page = _root_of(source, url, page_options)
        result = self._compile().apply(root, url, page)
        self.check(result)
        return result

    def check(self, result: PageResult) -> dict[str, Any]:
        """How well a page fits this wrapper (G-STM digest §8 step 5, DCADE digest §8.2 step 7).

        ``records_fit`` is 1 inside ``health.expected_records``, ``n/min`` below it and
        ``max/n`` above it (0 when nothing is found); ``required_fill`` is the share of
        (record, required field) and required page-field slots that hold a value;
        ``fit = 0.5 * records_fit + 0.5 * required_fill`` (0 when the record selector
        finds nothing). ``fits = fit >= health.min_fit``; a page that does not fit sets
        :attr:`stale` (stays set until the caller re-induces or resets it). The health
        dict is also stored in ``result.regions[0].meta["health"]``.
        """
        region = result.regions[0] if result.regions else None
        h = region.meta.get("health") if region is not None else None
        if h is None:
            h = {
                "records": 0,
                "expected_records": list(self.health.expected_records),
                "records_fit": 0.0,
                "required_fill": 0.0,
                "missing_required": [],
                "fit": 0.0,
                "fits": False,
            }
        if not h["fits"]:
            if not self.stale:
                logger.info(
                    "wrapper %s: page %s does not fit (fit=%.2f): marked stale",
                    self.id,
                    result.url,
                    h["fit"],
                )
            self.stale = True
        return h

    def verify(self, page: Any, region: Region | None = None) -> dict[str, Any]:
        """Compare this wrapper's output on ``page`` with ``region`` (default: nothing).

        Returns ``{"records": n, "expected": m, "records_exact": bool, "same_text": share of
        expected records whose text the wrapper reproduces}``.
        """
        from .page import as_page

        page = as_page(page)
        res = self._compile().apply(page.root, page.url, page)
        got = res.regions[0].records if res.regions else []
        out: dict[str, Any] = {"records": len(got)}
        if region is not None:
            want = [tuple(r.xpaths) for r in region.records]
            have = [tuple(r.xpaths) for r in got]
            out["expected"] = len(want)
            out["records_exact"] = want == have
            wt = {r.text for r in got}
            out["same_text"] = (
                (sum(1 for r in region.records if r.text in wt) / len(want)) if want else 1.0
            )
        return out

    # ---------------------------------------------------------------- induction
    @classmethod
    def from_region(cls, region: Region, page: Any, **options: Any) -> Wrapper:
        """A wrapper from any extractor's region on one page (see :mod:`scrapy_records.induce`).

        Selectors are generated robust-first and verified on ``page``: the record
        selector must select exactly the region's records, each field selector exactly
        the elements its feature was built from; see :func:`scrapy_records.induce.region_wrapper`
        for the options (``min_fill``, ``site``, ``extractor``).
        """
        from .induce import region_wrapper

        return region_wrapper(region, page, **options)


# ------------------------------------------------------------ application core
#: text of these elements is not page text (the page model drops them too)
_TEXT_XP = etree.XPath(
    "descendant-or-self::text()[not(parent::script or parent::style or parent::noscript"
    " or parent::template)]",
    smart_strings=False,
)
_DROPPED = frozenset({"script", "style", "noscript", "template"})


_SCRIPTS_XP = etree.XPath("//script|//style|//noscript|//template")
_ALL_TEXT_XP = etree.XPath("//text()[normalize-space()][not(parent::script or parent::style)]")
_LABEL_FIELD_RX = re.compile(
    r"^//([A-Za-z][\w-]*|\*)\[normalize-space\(\.\)=('([^']*)'|\"([^\"]*)\")\]"
    r"/following::text\(\)\[normalize-space\(\)\]\[not\(parent::script or parent::style\)\]\[1\]$"
)


def dirty_set(root: Any) -> set[Any]:
    """Elements with a script/style/noscript/template inside (their text needs filtering)."""
    dirty: set[Any] = set()
    for s in root.iter("script", "style", "noscript", "template"):
        for a in s.iterancestors():
            if a in dirty:
                break
            dirty.add(a)
        dirty.add(s)
    return dirty


def _group_text(els: list[Any], dirty: set[Any] | None) -> str:
    """Text of a record's elements, with the text between siblings (their tails) as
    :meth:`scrapy_records.page.Page.record_text` has it."""
    if len(els) == 1:
        return node_text(els[0], dirty)
    parts = []
    for k, x in enumerate(els):
        parts.append(node_text(x, dirty))
        if k < len(els) - 1 and x.tail:
            parts.append(" ".join(x.tail.split()))
    return " ".join(t for t in parts if t)


def _text_until(node: Any, stop: Any) -> str:
    """Text of ``node`` up to where the element ``stop`` (a descendant) starts.

    libxml2 nests an unclosed list item in the one before it (``<dd>1 <p>.. <dd>2``), so a
    record element of such a list holds every later record; the page model reads them as
    siblings (:data:`scrapy_records.page.IMPLIED_CLOSE`) and a record is its own text only.
    """
    parts: list[str] = []
    walker = etree.iterwalk(node, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if el is stop:
            break
        if event == "start":
            if isinstance(el.tag, str) and el.tag in _DROPPED:
                walker.skip_subtree()
                continue
            if el.text:
                parts.append(el.text)
        elif el is not node and el.tail:
            parts.append(el.tail)
    return " ".join(" ".join(parts).split())


def node_text(node: Any, dirty: set[Any] | None = None) -> str:
    """Whitespace-normalised text of an element (script/style excluded) or a text node.

    ``dirty`` (from :func:`dirty_set`) enables the fast path: an element with no script
    inside is read with ``itertext`` (comment text skipped, as in the page model).
    """
    if isinstance(node, str):
        return " ".join(node.split())
    if dirty is not None and node not in dirty:
        if not len(node):
            t = node.text
            return " ".join(t.split()) if t else ""
        return " ".join(" ".join(node.itertext(etree.Element)).split())
    return " ".join(" ".join(_TEXT_XP(node)).split())


def _root_of(source: Any, url: str | None, page_options: dict[str, Any]):
    from .page import Page, parse_html

    if isinstance(source, Page):
        return source.root, url or source.url, source
    # Parsed as the page model parses (same validation, decoding and libxml2 parser, so the
    # same tree and XPaths), without flattening and with plain lxml elements: lxml.html's
    # per-element Python class lookup costs more than the selectors themselves. A Scrapy
    # response's existing selector tree is reused.
    root, url, _enc = parse_html(
        source,
        url,
        encoding=page_options.get("encoding"),
        max_bytes=page_options.get("max_bytes", page_mod.DEFAULT_MAX_BYTES),
        parser_cls=etree.HTMLParser,
    )
    return root, url, None


_ABS_RX = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_ORIGIN_RX = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*)")


_BASE_PARTS: dict[str, tuple[str, str] | None] = {}


def _fast_join(base: str, raw: str) -> str | None:
    """``urljoin`` for the common shapes (root-relative and plain relative paths), else None."""
    parts = _BASE_PARTS.get(base, False)
    if parts is False:
        parts = None
        m = _ORIGIN_RX.match(base)
        if m:
            rest = base[m.end() :].split("#", 1)[0].split("?", 1)[0]
            if "/." not in rest:
                directory = rest[: rest.rfind("/") + 1] if "/" in rest else "/"
                parts = (m.group(1), m.group(1) + (directory or "/"))
        if len(_BASE_PARTS) > 256:
            _BASE_PARTS.clear()
        _BASE_PARTS[base] = parts
    if parts is None or "/." in raw or raw.startswith(".") or " " in raw or "\\" in raw:
        return None
    c = raw[0]
    if c == "/":
        return None if raw.startswith("//") else parts[0] + raw
    if c in "?#":
        return None
    head = raw.split("/", 1)[0].split("?", 1)[0]
    if ":" in head:
        return None  # a scheme (mailto:, http:...): let urljoin decide
    return parts[1] + raw


def _to_value(ftype: str, raw: str, base: str | None) -> Any:
    if ftype in ("url", "image"):
        raw = raw.strip()
        if not raw or raw.lower().startswith(("javascript:", "data:")):
            return None
        if (
            _ABS_RX.match(raw)
            and " " not in raw
            and ".." not in raw
            and raw[-1] not in "#?"
            and raw[: raw.index(":")].islower()
        ):
            return raw  # already absolute (urljoin would return it unchanged)
        if base:
            j = _fast_join(base, raw)
            if j is not None:
                return j
        return urljoin(base or "", raw)
    return raw


_NOT_BATCHABLE = re.compile(
    r"^\s*[/(]|\.\.|ancestor|preceding|parent::|\||\$|last\(\)|position\(\)"
)


class _Field:
    __slots__ = ("name", "type", "xp", "attr", "multiple", "optional", "batch", "textual", "path")

    def __init__(self, f: FieldSpec, record_xpath: str | None = None):
        self.name = f.name
        self.path = f.xpath.strip()
        self.type = f.type
        self.textual = "text()" in f.xpath or "node()" in f.xpath
        self.xp = etree.XPath(f.xpath, smart_strings=False)
        self.attr = f.attribute
        self.multiple = f.multiple
        self.optional = f.optional
        self.batch = None
        # one evaluation over all records instead of one per record (application speed):
        # "$recs/F" selects the same nodes as F from every record, in document order;
        if record_xpath is not None and not _NOT_BATCHABLE.search(f.xpath):
            try:
                # $recs: the record elements, passed as a node-set (R is not re-evaluated)
                # "| $recs": the record elements come back as markers, in document order
                # just before their own field nodes, so assigning a node to its record
                # is one dictionary lookup (records are disjoint sub-trees)
                self.batch = etree.XPath(f"$recs/{f.xpath} | $recs", smart_strings=self.textual)
            except etree.XPathSyntaxError:
                self.batch = None

    def read(self, ctx: Any, base: str | None, dirty: set[Any] | None = None) -> Any:
        try:
            nodes = self.xp(ctx)
        except etree.XPathEvalError:
            return None
        if not isinstance(nodes, list):  # a string()/count() style expression
            nodes = [str(nodes)] if nodes not in (None, "") else []
        return self.value(nodes, base, dirty)

    def value(self, nodes: list[Any], base: str | None, dirty: set[Any] | None = None) -> Any:
        vals = []
        for n in nodes:
            if self.attr is not None:
                raw = n.get(self.attr) if isinstance(n, etree._Element) else None
                if raw is None:
                    continue
                v = (
                    _to_value(self.type, raw, base)
                    if self.type in ("url", "image")
                    else " ".join(raw.split())
                )
            else:
                v = node_text(n, dirty)
                if self.type in ("url", "image"):
                    v = _to_value(self.type, v, base)
            if v:
                if not self.multiple:
                    return v
                vals.append(v)
        return vals if (self.multiple and vals) else None


def _owner_of(node: Any, owner: dict[Any, int], memo: dict[Any, int]) -> int:
    """Index of the record whose elements contain ``node`` (-1: none); memoised per element."""
    k = owner.get(node, -2)
    if k != -2:
        return k
    x = node.getparent() if isinstance(node, str) else node
    chain = []
    k = -1
    while x is not None:
        k = owner.get(x, -2)
        if k != -2:
            break
        k = memo.get(x, -2)
        if k != -2:
            break
        chain.append(x)
        x = x.getparent()
    if k == -2:
        k = -1
    for c in chain:
        memo[c] = k
    if isinstance(node, str):
        pass  # text nodes are new objects on every evaluation: not worth memoising
    return k


def _record_paths(tree: Any, groups: list[list[Any]]) -> list[list[str]]:
    """``tree.getpath`` of every record element, computed once per parent (same strings)."""
    by_parent: dict[Any, dict[Any, str]] = {}
    out = []
    for els in groups:
        paths = []
        for x in els:
            p = x.getparent()
            if p is None:
                paths.append(tree.getpath(x))
                continue
            table = by_parent.get(p)
            if table is None:
                ppath = tree.getpath(p)
                table = by_parent[p] = {}
                for t, cnt in Counter(c.tag for c in p).items():
                    if not isinstance(t, str):
                        continue
                    if cnt == 1:
                        for c in p.iterchildren(t):
                            table[c] = f"{ppath}/{t}"
                    else:
                        for k, c in enumerate(p.iterchildren(t), 1):
                            table[c] = f"{ppath}/{t}[{k}]"
            path = table.get(x)
            paths.append(path if path is not None else tree.getpath(x))
        out.append(paths)
    return out


_TYPED = frozenset({"number", "price", "date"})


_CONVERTERS: tuple[Any, Any, Any] | None = None


def _type_values(fields: list[_Field], rows: list[dict[str, Any]]) -> int:
    """Convert number/price/date values in place with :mod:`scrapy_records.values` (the
    extractors' typing): numbers become int/float, prices a float plus a
    ``<name>_currency`` value when a currency is named, dates ISO 8601 strings. A value
    that does not convert is dropped (a column never mixes strings and numbers) and
    counted; returns that count."""
    if not fields:
        return 0
    try:
        from . import values as V
    except ImportError:  # pragma: no cover - values module absent: raw strings
        return 0
    errors = 0
    global _CONVERTERS
    if _CONVERTERS is None:
        # dates repeat a lot across records and pages and their parser is the costly one
        _CONVERTERS = (
            lru_cache(maxsize=8192)(V.parse_number),
            lru_cache(maxsize=8192)(V.parse_price),
            # keyed by the reference time too: relative dates ("3 hours ago") move with
            # the clock (the minute, as dates.parse_date reads it) or with the page's own
            # base (dates.relative_to)
            lru_cache(maxsize=8192)(lambda text, _base: V.parse_date_iso(text)),
        )
    parse_number, parse_price, parse_date_h = _CONVERTERS
    from .dates import current_relative_base

    when = current_relative_base() or int(time.time() // 60)
    for f in fields:
        name = f.name
        raw = [r[name] for r in rows if name in r]
        if not raw:
            continue
        flat = [x for v in raw for x in (v if isinstance(v, list) else [v])]
        style = V.decimal_style(flat) if f.type != "date" else None
        for r in rows:
            v = r.get(name)
            if v is None:
                continue
            items = v if isinstance(v, list) else [v]
            out = []
            cur = None
            for x in items:
                if f.type == "number":
                    y = parse_number(x, style)
                elif f.type == "price":
                    pr = parse_price(x, style)
                    y = pr[0] if pr else None
                    if pr and pr[1] and cur is None:
                        cur = pr[1]
                else:
                    y = parse_date_h(x, when)
                if y is None:
                    errors += 1
                else:
                    out.append(y)
            if not out:
                del r[name]
                continue
            r[name] = out if isinstance(v, list) else out[0]
            if cur is not None:
                r[name + "_currency"] = cur
    return errors


def _eval_fields(
    fields: list[_Field],
    firsts: list[Any],
    root: Any,
    base: str | None,
    dirty: set[Any] | None,
    values: list[dict[str, Any]],
) -> None:
    """Fill ``values[k]`` with the fields of record ``k`` (first elements ``firsts``).

    Batched: one XPath evaluation per distinct field path over all records (``$recs/F |
    $recs``, the record elements acting as document-order markers), shared by fields with
    the same path (a link's URL and its text).
    """
    n_rec = len(firsts)
    first_index = {x: k for k, x in enumerate(firsts)}
    found_cache: dict[str, list[tuple[int, Any]]] = {}
    for f in fields:
        if f.batch is None or n_rec < 2:
            for k, e in enumerate(firsts):
                v = f.read(e, base, dirty)
                if v is not None:
                    values[k][f.name] = v
            continue
        pairs = found_cache.get(f.path)
        if pairs is None:
            if f.path == ".":
                pairs = list(enumerate(firsts))
            else:
                try:
                    found = f.batch(root, recs=firsts)
                except etree.XPathEvalError:
                    found = []
                pairs = []
                k = -1
                for node in found:
                    kk = first_index.get(node) if not isinstance(node, str) else None
                    if kk is not None:
                        k = kk  # a record marker
                    elif k >= 0:
                        pairs.append((k, node))
            found_cache[f.path] = pairs
        name = f.name
        if f.multiple:
            per: dict[int, list[Any]] = {}
            for k, node in pairs:
                per.setdefault(k, []).append(node)
            for k, nodes in per.items():
                v = f.value(nodes, base, dirty)
                if v is not None:
                    values[k][name] = v
        else:
            # single-valued: the first non-empty value of each record
            attr, ftype = f.attr, f.type
            for k, node in pairs:
                if name in values[k]:
                    continue
                if attr is not None:
                    raw = node.get(attr) if not isinstance(node, str) else None
                    if raw is None:
                        continue
                    v = (
                        _to_value(ftype, raw, base)
                        if ftype in ("url", "image")
                        else " ".join(raw.split())
                    )
                else:
                    v = node_text(node, dirty)
                    if ftype in ("url", "image"):
                        v = _to_value(ftype, v, base)
                if v:
                    values[k][name] = v


class _List:
    __slots__ = ("name", "xp", "batch", "size", "fields", "lists", "optional", "typed")

    def __init__(self, spec: ListSpec):
        self.name = spec.name
        self.xp = etree.XPath(spec.record.xpath, smart_strings=False)
        self.batch = None
        if not _NOT_BATCHABLE.search(spec.record.xpath):
            try:
                self.batch = etree.XPath(f"$recs/{spec.record.xpath} | $recs", smart_strings=False)
            except etree.XPathSyntaxError:
                self.batch = None
        self.size = spec.record.size
        self.fields = [_Field(f, spec.record.xpath) for f in spec.fields]
        self.lists = [_List(x) for x in spec.lists]
        self.optional = spec.optional
        self.typed = [f for f in self.fields if f.type in _TYPED]

    def read(self, ctx: Any, base: str | None) -> list[dict[str, Any]]:
        """Rows of this list inside one record (``ctx``: the record's first element)."""
        return self.read_many([ctx], ctx, base, None)[0]

    def read_many(
        self, parents: list[Any], root: Any, base: str | None, dirty: set[Any] | None
    ) -> list[list[dict[str, Any]]]:
        """Rows of this list inside each of ``parents`` (batched like record fields)."""
        per_parent: list[list[Any]] = [[] for _ in parents]
        if self.batch is not None and len(parents) > 1:
            index = {x: k for k, x in enumerate(parents)}
            try:
                found = self.batch(root, recs=parents)
            except etree.XPathEvalError:
                found = []
            k = -1
            for node in found:
                if not isinstance(node, etree._Element):
                    continue
                kk = index.get(node)
                if kk is not None:
                    k = kk
                elif k >= 0:
                    per_parent[k].append(node)
        else:
            for k, e in enumerate(parents):
                try:
                    per_parent[k] = [x for x in self.xp(e) if isinstance(x, etree._Element)]
                except etree.XPathEvalError:
                    per_parent[k] = []
        insts = [x for lst in per_parent for x in lst]
        if not insts:
            return [[] for _ in parents]
        rows: list[dict[str, Any]] = [{} for _ in insts]
        _eval_fields(self.fields, insts, root, base, dirty, rows)
        for sub in self.lists:
            nested = sub.read_many(insts, root, base, dirty)
            for row, vals in zip(rows, nested):
                if vals:
                    row[sub.name] = vals
        if self.typed:
            _type_values(self.typed, rows)
        out: list[list[dict[str, Any]]] = []
        at = 0
        for lst in per_parent:
            out.append([r for r in rows[at : at + len(lst)] if r])
            at += len(lst)
        return out


def _siblings(first: Any, size: int, stop: set[Any] | None = None) -> list[Any]:
    """The record's elements: ``first`` and following element siblings, ``size`` at most,
    ending before the next record's first element when ``stop`` (those firsts) is given."""
    if size == 1:
        return [first]
    out = [first]
    s = first.getnext()
    while s is not None:
        t = s.tag
        if isinstance(t, str) and t.lower() not in _DROPPED:
            if stop is not None and s in stop:
                break
            out.append(s)
            if len(out) == size:
                break
        s = s.getnext()
    return out


class _Compiled:
    """Compiled XPath objects of one wrapper (built once, cached on the wrapper)."""

    def __init__(self, w: Wrapper):
        self.w = w
        self.record = etree.XPath(w.record.xpath, smart_strings=False) if w.record else None
        self.size = w.record.size if w.record else 1
        self.until_next = bool(w.record) and w.record.span == "until_next"
        self.fields = [_Field(f, w.record.xpath if w.record else None) for f in w.fields]
        self.typed = [f for f in self.fields if f.type in _TYPED]
        self.order = [
            x
            for f in self.fields
            for x in ((f.name, f.name + "_currency") if f.type == "price" else (f.name,))
        ]
        self.lists = [_List(x) for x in w.lists]
        self.page_fields = [_Field(f) for f in w.page_fields]
        # label-anchored page fields (see scrapy_records.induce._label_fields) share one
        # pass over the page's text nodes instead of one document scan each
        self.labels: dict[str, list[tuple[str, _Field]]] = {}
        for f, spec in zip(self.page_fields, w.page_fields):
            m = _LABEL_FIELD_RX.match(spec.xpath)
            if m and spec.attribute is None and not spec.multiple:
                label = m.group(3) if m.group(3) is not None else m.group(4)
                self.labels.setdefault(label, []).append((m.group(1).lower(), f))
        self.label_names = {f.name for lst in self.labels.values() for _t, f in lst}
        self.columns = []
        for f in w.fields:
            fill = float(w.health.fill_rates.get(f.name, 1.0))
            self.columns.append(Column(f.name, f.type, fill, f.xpath, "wrapper"))
            if f.type == "price":
                self.columns.append(Column(f.name + "_currency", "text", fill, f.xpath, "wrapper"))

    def _label_values(self, root: Any, base: str | None) -> dict[str, Any]:
        """Values of the label-anchored page fields, from one list of the page's texts.

        Same result as each field's XPath ``//tag[normalize-space(.)='L']/following::
        text()[normalize-space()][not(parent::script or parent::style)][1]`` for labels
        that are the only text of their element (how the inducer builds them).
        """
        texts = _ALL_TEXT_XP(root)
        out: dict[str, Any] = {}
        labels = self.labels
        for i, t in enumerate(texts):
            n = " ".join(t.split())
            hit = labels.get(n)
            if hit is None or i + 1 >= len(texts):
                continue
            p = t.getparent()
            if p is not None and t.is_tail:
                p = p.getparent()
            ptag = p.tag.lower() if p is not None and isinstance(p.tag, str) else ""
            for tag, f in hit:
                if f.name not in out and (tag == "*" or tag == ptag):
                    v = f.value([texts[i + 1]], base)
                    if v is not None:
                        out[f.name] = v
        return out

    def apply(self, root: Any, url: str | None, page: Any = None) -> PageResult:
        w = self.w
        base = page.base_url if page is not None else page_mod.base_url_of(root, url)
        tree = root.getroottree()
        records: list[Record] = []
        type_errors = 0
        req = [f for f in self.fields if not f.optional]
        filled = 0
        missing: dict[str, int] = {}
        parent_el = None
        if self.record is not None:
            try:
                firsts = [e for e in self.record(root) if isinstance(e, etree._Element)]
            except etree.XPathEvalError:
                firsts = []
            stop = set(firsts) if self.until_next else None
            groups = [_siblings(e, self.size, stop) for e in firsts]
            n_rec = len(groups)
            dirty = dirty_set(root)
            values: list[dict[str, Any]] = [{} for _ in range(n_rec)]
            if n_rec:
                _eval_fields(self.fields, firsts, root, base, dirty, values)
            type_errors += _type_values(self.typed, values)
            list_rows = (
                [(sub.name, sub.read_many(firsts, root, base, dirty)) for sub in self.lists]
                if n_rec
                else []
            )
            paths = _record_paths(tree, groups)
            for k, (e, els) in enumerate(zip(firsts, groups)):
                fields = values[k]
                if self.fields:  # keep the wrapper's field order (currency after its price)
                    ordered = {}
                    for name in self.order:
                        if name in fields:
                            ordered[name] = fields[name]
                    fields = ordered
                for sub_name, per_rec in list_rows:
                    if per_rec[k]:
                        fields[sub_name] = per_rec[k]
                for f in req:
                    if f.name in fields:
                        filled += 1
                    else:
                        missing[f.name] = missing.get(f.name, 0) + 1
                nodes: tuple[int, ...] = ()
                if page is not None:
                    try:
                        nodes = tuple(page.index(x) for x in els)
                    except KeyError:
                        nodes = ()
                nxt = firsts[k + 1] if k + 1 < n_rec else None
                if (
                    nxt is not None
                    and nxt.getparent() is not e.getparent()
                    and any(a is els[-1] for a in nxt.iterancestors())
                ):
                    text = _text_until(els[0], nxt) if len(els) == 1 else _group_text(els, dirty)
                else:
                    text = _group_text(els, dirty)
                records.append(Record(paths[k], text, fields, 1.0, nodes))
            if firsts:
                parent_el = firsts[0].getparent()
        page_vals: dict[str, Any] = {}
        page_missing = []
        labelled = self._label_values(root, base) if self.labels else {}
        for f in self.page_fields:
            v = labelled.get(f.name) if f.name in self.label_names else f.read(root, base)
            if v is not None:
                page_vals[f.name] = v
        type_errors += _type_values([f for f in self.page_fields if f.type in _TYPED], [page_vals])
        for f in self.page_fields:
            if f.name not in page_vals and not f.optional:
                page_missing.append(f.name)
        # ---- health (see Wrapper.check)
        n = len(records)
        lo, hi = w.health.expected_records
        if self.record is None:
            rfit = 1.0
        elif n == 0:
            rfit = 0.0
        elif n < lo:
            rfit = n / lo
        elif n > hi > 0:
            rfit = hi / n
        else:
            rfit = 1.0
        slots = n * len(req) + sum(1 for f in self.page_fields if not f.optional)
        got = filled + (sum(1 for f in self.page_fields if not f.optional) - len(page_missing))
        rfill = got / slots if slots else (1.0 if (n or self.record is None) else 0.0)
        fit = 0.0 if (self.record is not None and n == 0) else 0.5 * rfit + 0.5 * rfill
        if self.record is None and not page_vals and self.page_fields:
            fit = 0.0
        health = {
            "records": n,
            "expected_records": [lo, hi],
            "records_fit": round(rfit, 4),
            "required_fill": round(rfill, 4),
            "missing_required": sorted(set(missing) | set(page_missing)),
            "type_errors": type_errors,
            "fit": round(fit, 4),
            "fits": fit >= w.health.min_fit,
        }
        for rec in records:
            rec.confidence = fit
        region = Region(
            extractor=f"wrapper:{w.id}",
            records=records,
            confidence=fit,
            xpath=tree.getpath(parent_el) if parent_el is not None else "/",
            columns=list(self.columns),
            meta={
                "health": health,
                "page": page_vals,
                "wrapper": {"id": w.id, "version": WRAPPER_VERSION},
            },
            parent=(
                page.index(parent_el)
                if (page is not None and parent_el is not None and _safe_index(page, parent_el))
                else -1
            ),
        )
        return PageResult(url=url, regions=[region])


def _safe_index(page: Any, el: Any) -> bool:
    try:
        page.index(el)
        return True
    except KeyError:
        return False
