"""The parts of a wrapper document: record selector, fields, nested lists, template, provenance
and health, as dataclasses with ``to_dict``/``from_dict``.

The JSON format is described in ``docs/wrapper-format.md`` and, as a JSON Schema, in
``wrapper.schema.json`` next to this module; :mod:`scrapy_records.wrappers.schema` validates
it and :class:`~scrapy_records.wrappers.wrapper.Wrapper` holds a whole document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from scrapy_records._version import __version__

__all__ = [
    "WRAPPER_FORMAT",
    "WRAPPER_VERSION",
    "READABLE_VERSIONS",
    "FIELD_TYPES",
    "RecordSelector",
    "FieldSpec",
    "KeyList",
    "ListSpec",
    "TemplateInfo",
    "Provenance",
    "Health",
]

WRAPPER_FORMAT = "scrapy-records-wrapper"
WRAPPER_VERSION = 3
#: document versions this library reads (version 1 has no pinned names or dropped fields,
#: versions 1 and 2 no lists of keys)
READABLE_VERSIONS = (1, 2, 3)
FIELD_TYPES = ("text", "url", "image", "number", "price", "date")


def library_version() -> str:
    """The running library's version (stored in provenance, named in version errors)."""
    return __version__


def _utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


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
class KeyList:
    """How a field reads a list of keys and values ("Year:" / "2019", "Fuel:" / "Diesel"):
    under each node its ``xpath`` selects, ``key`` selects the keys and ``value`` the values
    (relative XPaths, paired in order). Each key is a column of its own, named as mining
    names it (:func:`~scrapy_records.fields.repeats.key_name`), so a page whose records
    show keys the sample pages did not gets their columns alike."""

    key: str
    value: str
    #: a key column's name -> the name a person gave it (``scrapy wrappers rename``)
    names: dict[str, str] = field(default_factory=dict)
    #: key columns a person dropped (``scrapy wrappers drop``): never emitted
    dropped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"key": self.key, "value": self.value}
        if self.names:
            d["names"] = dict(self.names)
        if self.dropped:
            d["dropped"] = list(self.dropped)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> KeyList:
        return cls(
            key=d["key"],
            value=d["value"],
            names=dict(d.get("names") or {}),
            dropped=list(d.get("dropped") or []),
        )


@dataclass
class FieldSpec:
    """One field: a relative selector and how to read its value (``docs/wrapper-format.md``)."""

    name: str
    type: str = "text"
    xpath: str = "."
    css: str | None = None
    attribute: str | None = None
    optional: bool = False
    multiple: bool = False
    #: the name was given by a person (``scrapy wrappers rename``): re-induction keeps it
    pinned: bool = False
    #: a list of keys and values: one column per key, named by the key (version 3)
    keys: KeyList | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "xpath": self.xpath,
            "css": self.css,
            "attribute": self.attribute,
            "optional": bool(self.optional),
            "multiple": bool(self.multiple),
            "pinned": bool(self.pinned),
            "keys": self.keys.to_dict() if self.keys is not None else None,
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
            pinned=d.get("pinned", False),
            keys=KeyList.from_dict(d["keys"]) if d.get("keys") is not None else None,
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
