"""Validation of wrapper documents: every key, type and selector checked before anything loads."""

from __future__ import annotations

import logging
from typing import Any

from lxml import etree

from scrapy_records.errors import WrapperError
from scrapy_records.wrappers.model import (
    FIELD_TYPES,
    WRAPPER_FORMAT,
    WRAPPER_VERSION,
    library_version,
)

logger = logging.getLogger(__name__)


class Validator:
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
                f"{library_version()}) reads version {WRAPPER_VERSION}; re-induce the wrapper"
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
