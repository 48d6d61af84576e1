"""Validation of wrapper documents: every key, type and selector checked before anything loads.

``Validator.document(d)`` raises :class:`~scrapy_records.errors.WrapperError` naming the JSON
path of the first problem. ``wrapper.schema.json`` states the same rules as a JSON Schema
(``docs/wrapper-format.md``); keep the two in step.
"""

from __future__ import annotations

from typing import Any, NoReturn

from lxml import etree
from parsel.csstranslator import HTMLTranslator

from scrapy_records.errors import WrapperError
from scrapy_records.wrappers.model import (
    FIELD_TYPES,
    READABLE_VERSIONS,
    WRAPPER_FORMAT,
    library_version,
)
from scrapy_records.wrappers.safe_xpath import MAX_LENGTH, check_xpath

_CSS = HTMLTranslator()
#: keys of a wrapper document, all required
DOCUMENT_KEYS = (
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
)


#: Most fields in one array (record fields, a list's fields, page fields).
MAX_FIELDS = 500
#: Most nested lists in one array.
MAX_LISTS = 50
#: Most fields and lists of a document in all (each is applied to every record).
MAX_SELECTORS = 2000


def count_selectors(d: dict[str, Any]) -> int:
    """Fields and lists of a (validated) document, nested ones included."""
    n = len(d["fields"]) + len(d["page_fields"])
    stack = list(d["lists"])
    while stack:
        x = stack.pop()
        n += 1 + len(x["fields"])
        stack.extend(x["lists"])
    return n


class Validator:
    """Hand-written validator: exact key sets, types, ranges; messages name the JSON path."""

    @staticmethod
    def fail(path: str, msg: str) -> NoReturn:
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
        """A selector of an allowed form (:mod:`~scrapy_records.wrappers.safe_xpath`) that
        lxml compiles."""
        cls.typ(v, path, (str,))
        if not v.strip():
            cls.fail(path, "empty XPath")
        try:
            check_xpath(v)
        except WrapperError as exc:
            cls.fail(path, str(exc))
        try:
            etree.XPath(v)
        except (etree.XPathSyntaxError, ValueError) as exc:
            cls.fail(path, f"XPath {v!r} does not compile: {exc}")

    @classmethod
    def css(cls, v: Any, path: str) -> None:
        cls.typ(v, path, (str,), nullable=True)
        if v is None:
            return
        if len(v) > MAX_LENGTH:
            cls.fail(path, f"CSS selector longer than {MAX_LENGTH} characters")
        try:
            _CSS.css_to_xpath(v)
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
        cls.obj(
            d,
            path,
            ("name", "type", "xpath", "css", "attribute", "optional", "multiple"),
            optional=("pinned", "keys"),
        )
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
        cls.typ(d.get("pinned", False), path + ".pinned", (bool,))
        keys = d.get("keys")
        if keys is not None:
            cls.obj(keys, path + ".keys", ("key", "value"), optional=("names", "dropped"))
            cls.xpath(keys["key"], path + ".keys.key")
            cls.xpath(keys["value"], path + ".keys.value")
            names = keys.get("names", {})
            cls.typ(names, path + ".keys.names", (dict,))
            for k, v in names.items():
                cls.typ(v, f"{path}.keys.names.{k}", (str,))
                if not v:
                    cls.fail(f"{path}.keys.names.{k}", "empty name")
            dropped = keys.get("dropped", [])
            cls.typ(dropped, path + ".keys.dropped", (list,))
            for i, v in enumerate(dropped):
                cls.typ(v, f"{path}.keys.dropped[{i}]", (str,))
            if d["type"] != "text" or d["attribute"] is not None:
                cls.fail(path + ".keys", "a list of keys is a text field without an attribute")

    @classmethod
    def fields(cls, v: Any, path: str) -> None:
        cls.typ(v, path, (list,))
        if len(v) > MAX_FIELDS:
            cls.fail(path, f"more than {MAX_FIELDS} fields")
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
        if len(v) > MAX_LISTS:
            cls.fail(path, f"more than {MAX_LISTS} lists")
        for k, x in enumerate(v):
            cls.list_(x, f"{path}[{k}]", depth)

    @classmethod
    def document(cls, d: Any) -> None:
        """Check a whole decoded document (format and version first, for a clear error)."""
        if not isinstance(d, dict):
            cls.fail("$", f"expected an object, got {type(d).__name__}")
        if d.get("format") != WRAPPER_FORMAT:
            cls.fail("$.format", f"expected {WRAPPER_FORMAT!r}, got {d.get('format')!r}")
        version = d.get("version")
        if version not in READABLE_VERSIONS or isinstance(version, bool):
            raise WrapperError(
                f"unsupported wrapper version {version!r}: this library (scrapy_records "
                f"{library_version()}) reads versions {', '.join(map(str, READABLE_VERSIONS))};"
                " re-induce the wrapper"
            )
        cls.obj(d, "$", DOCUMENT_KEYS, optional=("dropped",))
        cls.dropped(d.get("dropped", []), "$.dropped")
        cls.typ(d["id"], "$.id", (str,))
        if not d["id"]:
            cls.fail("$.id", "empty id")
        cls.typ(d["site"], "$.site", (str,), nullable=True)
        cls.template(d["template"], "$.template")
        if d["record"] is not None:
            cls.record(d["record"], "$.record")
        cls.fields(d["fields"], "$.fields")
        cls.lists(d["lists"], "$.lists")
        cls.fields(d["page_fields"], "$.page_fields")
        if d["record"] is None and (d["fields"] or d["lists"]):
            cls.fail("$.record", "null record selector but record fields/lists are given")
        if count_selectors(d) > MAX_SELECTORS:
            cls.fail("$", f"more than {MAX_SELECTORS} fields and lists in all")
        cls.provenance(d["provenance"], "$.provenance")
        cls.health(d["health"], "$.health")

    @classmethod
    def dropped(cls, v: Any, path: str) -> None:
        """Fields a person dropped: re-induction leaves them out."""
        cls.typ(v, path, (list,))
        for k, x in enumerate(v):
            cls.obj(x, f"{path}[{k}]", ("name", "xpath", "attribute"))
            cls.typ(x["name"], f"{path}[{k}].name", (str,))
            cls.typ(x["xpath"], f"{path}[{k}].xpath", (str,))
            cls.typ(x["attribute"], f"{path}[{k}].attribute", (str,), nullable=True)

    @classmethod
    def template(cls, t: Any, path: str) -> None:
        cls.obj(t, path, ("id", "method", "signature"))
        cls.typ(t["id"], path + ".id", (str,), nullable=True)
        cls.typ(t["method"], path + ".method", (str,), nullable=True)
        cls.typ(t["signature"], path + ".signature", (list,))
        for k, x in enumerate(t["signature"]):
            cls.typ(x, f"{path}.signature[{k}]", (int,))

    @classmethod
    def provenance(cls, p: Any, path: str) -> None:
        cls.obj(p, path, ("extractor", "sample_urls", "created", "library_version", "options"))
        cls.typ(p["extractor"], path + ".extractor", (str,))
        cls.typ(p["sample_urls"], path + ".sample_urls", (list,))
        for k, u in enumerate(p["sample_urls"]):
            cls.typ(u, f"{path}.sample_urls[{k}]", (str,))
        cls.typ(p["created"], path + ".created", (str,))
        cls.typ(p["library_version"], path + ".library_version", (str,))
        cls.typ(p["options"], path + ".options", (dict,))

    @classmethod
    def health(cls, h: Any, path: str) -> None:
        cls.obj(h, path, ("expected_records", "fill_rates", "min_fit"))
        er = h["expected_records"]
        cls.typ(er, path + ".expected_records", (list,))
        if len(er) != 2:
            cls.fail(path + ".expected_records", "expected [min, max]")
        for k, x in enumerate(er):
            cls.typ(x, f"{path}.expected_records[{k}]", (int,))
        if not 0 <= er[0] <= er[1]:
            cls.fail(path + ".expected_records", f"need 0 <= min <= max, got {er}")
        cls.typ(h["fill_rates"], path + ".fill_rates", (dict,))
        for k, x in h["fill_rates"].items():
            cls.typ(x, f"{path}.fill_rates.{k}", (int, float))
            if not 0.0 <= x <= 1.0:
                cls.fail(f"{path}.fill_rates.{k}", f"{x} is outside [0, 1]")
        cls.typ(h["min_fit"], path + ".min_fit", (int, float))
        if not 0.0 <= h["min_fit"] <= 1.0:
            cls.fail(path + ".min_fit", f"{h['min_fit']} is outside [0, 1]")
