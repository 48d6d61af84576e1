"""wrapper.schema.json describes the documents the library writes and the validator accepts.

jsonschema is not a dependency: a small checker below implements the keywords the schema
file uses (and the test fails if the file starts using another one).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from scrapy_records import Page, WrapperError
from scrapy_records.extractors.base import build_region
from scrapy_records.wrappers.induce import induce
from scrapy_records.wrappers.model import (
    FieldSpec,
    Health,
    KeyList,
    ListSpec,
    Provenance,
    RecordSelector,
)
from scrapy_records.wrappers.templates import template_info
from scrapy_records.wrappers.wrapper import Wrapper

SCHEMA_PATH = (
    Path(__file__).resolve().parent.parent / "scrapy_records" / "wrappers" / "wrapper.schema.json"
)
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))

_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "default"}
_CHECKED = {
    "$ref", "anyOf", "if", "then", "type", "const", "enum", "minLength", "pattern", "minimum",
    "maximum", "items", "minItems", "maxItems", "required", "properties", "additionalProperties",
}  # fmt: skip


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b  # JSON Schema: true is not 1


def errors(schema: dict[str, Any], v: Any, path: str = "$") -> list[str]:
    """Where ``v`` breaks ``schema`` (empty: valid)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return errors(SCHEMA["$defs"][name], v, path)
    out: list[str] = []
    if "anyOf" in schema and all(errors(s, v, path) for s in schema["anyOf"]):
        out.append(f"{path}: matches no anyOf branch")
    if "if" in schema and not errors(schema["if"], v, path):
        out += errors(schema["then"], v, path)
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_TYPES[t](v) for t in types):
            return out + [f"{path}: not {'/'.join(types)}"]
    if "const" in schema and not _same(v, schema["const"]):
        out.append(f"{path}: not {schema['const']!r}")
    if "enum" in schema and not any(_same(v, x) for x in schema["enum"]):
        out.append(f"{path}: not one of {schema['enum']}")
    if isinstance(v, str):
        if len(v) < schema.get("minLength", 0):
            out.append(f"{path}: too short")
        if "pattern" in schema and not re.search(schema["pattern"], v):
            out.append(f"{path}: does not match {schema['pattern']}")
    if _TYPES["number"](v):
        if v < schema.get("minimum", v) or v > schema.get("maximum", v):
            out.append(f"{path}: out of range")
    if isinstance(v, list):
        if not schema.get("minItems", 0) <= len(v) <= schema.get("maxItems", len(v)):
            out.append(f"{path}: wrong length")
        for k, x in enumerate(v):
            out += errors(schema.get("items", {}), x, f"{path}[{k}]")
    if isinstance(v, dict):
        out += [f"{path}: missing {k}" for k in schema.get("required", ()) if k not in v]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for k, x in v.items():
            if k in props:
                out += errors(props[k], x, f"{path}.{k}")
            elif extra is False:
                out.append(f"{path}: unknown key {k}")
            elif isinstance(extra, dict):
                out += errors(extra, x, f"{path}.{k}")
    return out


def test_the_checker_knows_every_keyword_of_the_schema():
    used: set[str] = set()

    def walk(s: Any, in_props: bool = False) -> None:
        if isinstance(s, dict):
            if not in_props:
                used.update(s)
            for k, x in s.items():
                if k in ("properties", "$defs"):
                    for sub in x.values():
                        walk(sub)
                elif k not in ("enum", "const", "required", "type"):
                    walk(x)
        elif isinstance(s, list):
            for x in s:
                walk(x)

    walk(SCHEMA)
    assert used - _ANNOTATIONS - _CHECKED == set()


# ------------------------------------------------------------ documents the library writes
LIST = """<html><body><ul id="results">{}</ul><p>Footer</p></body></html>"""
ITEM = (
    "<li class='item'><h3><a href='/p/{k}'>Product {k} with a long name</a></h3>"
    "<span class='price'>${k}.99</span><ul class='tags'><li>red {k}</li><li>big</li></ul></li>"
)
DETAIL = """<html><body><div id="hd">Book shop</div><h1>{0}</h1>
<p class="info"><b>Author:</b> {1}<br><b>Price:</b> {2}<br><b>Stock:</b> yes</p>
<div id="ft">(c) shop</div></body></html>"""


def _list_page(first: int) -> Page:
    html = LIST.format("".join(ITEM.format(k=k) for k in range(first, first + 5)))
    return Page(html, f"http://shop.example/list/{first}")


def _from_region() -> Wrapper:
    page = _list_page(1)
    firsts = [i for i in range(page.n) if page.tag[i] == "li" and "item" in page.classes(i)]
    region = build_region(page, "test", page.parent[firsts[0]], [(i,) for i in firsts], 0.9)
    return Wrapper.from_region(region, page)


def _by_hand() -> Wrapper:
    return Wrapper(
        id="hand",
        record=RecordSelector("//li", "li", 2, "until_next"),
        fields=[FieldSpec("a", "url", "a", attribute="href", optional=True, multiple=True)],
        lists=[
            ListSpec(
                "tags",
                RecordSelector("ul/li"),
                [FieldSpec("tag")],
                [ListSpec("inner", RecordSelector("b"), [FieldSpec("b")])],
            )
        ],
        page_fields=[FieldSpec("title", "text", "//h1")],
        template=template_info(_list_page(1), "t-1"),
        provenance=Provenance(extractor="hand", options={"x": [1, None]}),
        health=Health(expected_records=(1, 4), fill_rates={"a": 0.5}, min_fit=0.25),
    )


def _documents() -> dict[str, dict[str, Any]]:
    lists = [_list_page(1), _list_page(20)]
    details = [
        ("http://books.example/1", DETAIL.format("Dune", "Frank Herbert", "$9.99")),
        ("http://books.example/2", DETAIL.format("Emma", "Jane Austen", "$4.50")),
    ]
    made = {
        "from_region": _from_region(),
        "by hand": _by_hand(),
        "page fields only": Wrapper("p", None, page_fields=[FieldSpec("t", xpath="//h1")]),
        "list of keys": Wrapper(
            "k",
            RecordSelector("//li"),
            fields=[FieldSpec("keys", "text", "div/p", optional=True, keys=KeyList("b", "i"))],
        ),
        "list of keys, renamed and dropped": Wrapper(
            "k",
            RecordSelector("//li"),
            fields=[
                FieldSpec(
                    "keys",
                    "text",
                    "div/p",
                    keys=KeyList("b", "i", names={"fuel": "fuel_type"}, dropped=["made_in"]),
                )
            ],
        ),
        "induce auto": induce(lists),
        "induce gstm": induce(lists, extractor="gstm"),
        "induce gstm detail pages": induce(details, extractor="gstm"),
        "induce dcade detail pages": induce(details, extractor="dcade"),
    }
    return {name: json.loads(w.to_json()) for name, w in made.items()}


DOCUMENTS = _documents()


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_schema_accepts_the_documents_the_library_writes(name):
    assert errors(SCHEMA, DOCUMENTS[name]) == []


def test_schema_keys_are_the_keys_to_dict_writes():
    doc = DOCUMENTS["by hand"]
    defs, props = SCHEMA["$defs"], SCHEMA["properties"]
    pairs = [
        (SCHEMA, doc),
        (props["template"], doc["template"]),
        (props["provenance"], doc["provenance"]),
        (props["health"], doc["health"]),
        (defs["record"], doc["record"]),
        (defs["field"], doc["fields"][0]),
        (defs["list"], doc["lists"][0]),
    ]
    for schema, d in pairs:
        assert set(schema["properties"]) == set(d)
        assert set(schema["required"]) <= set(d)
    # the one optional key: a record's span
    assert set(defs["record"]["properties"]) - set(defs["record"]["required"]) == {"span"}


# ------------------------------------------------------------ documents both refuse
def _set(path: list[Any], value: Any):
    def change(d: dict[str, Any]) -> None:
        for p in path[:-1]:
            d = d[p]
        d[path[-1]] = value

    return change


def _drop(path: list[Any]):
    def change(d: dict[str, Any]) -> None:
        for p in path[:-1]:
            d = d[p]
        del d[path[-1]]

    return change


REFUSED = {
    "other version": _set(["version"], 4),
    "bool version": _set(["version"], True),
    "other format": _set(["format"], "x"),
    "empty id": _set(["id"], ""),
    "site number": _set(["site"], 3),
    "unknown key": _set(["extra"], 1),
    "missing health": _drop(["health"]),
    "template extra key": _set(["template", "x"], 1),
    "signature of strings": _set(["template", "signature"], ["a"]),
    "size zero": _set(["record", "size"], 0),
    "size bool": _set(["record", "size"], True),
    "bad span": _set(["record", "span"], "all"),
    "blank xpath": _set(["record", "xpath"], "  "),
    "field type": _set(["fields", 0, "type"], "colour"),
    "field name empty": _set(["fields", 0, "name"], ""),
    "field missing key": _drop(["fields", 0, "attribute"]),
    "optional not bool": _set(["fields", 0, "optional"], "yes"),
    "list extra key": _set(["lists", 0, "x"], 1),
    "inner list not bool": _set(["lists", 0, "lists", 0, "optional"], 1),
    "page field css number": _set(["page_fields", 0, "css"], 1),
    "sample url number": _set(["provenance", "sample_urls"], [1]),
    "options list": _set(["provenance", "options"], []),
    "range of three": _set(["health", "expected_records"], [1, 2, 3]),
    "negative count": _set(["health", "expected_records"], [-1, 2]),
    "fill rate above 1": _set(["health", "fill_rates", "a"], 1.5),
    "min_fit string": _set(["health", "min_fit"], "0.5"),
    "null record with fields": _set(["record"], None),
    "keys of a link": _set(["fields", 0, "keys"], {"key": "b", "value": "i"}),
    "keys without a value": _set(["fields", 0, "keys"], {"key": "b"}),
    "keys' blank xpath": _set(["fields", 0, "keys"], {"key": "b", "value": " "}),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_schema_and_validator_refuse_the_same_documents(name):
    doc = copy.deepcopy(DOCUMENTS["by hand"])
    REFUSED[name](doc)
    assert errors(SCHEMA, doc) != []
    with pytest.raises(WrapperError):
        Wrapper.from_dict(doc)


KEYS_REFUSED = {
    "a key's name not text": ("names", {"fuel": 1}),
    "a key's empty name": ("names", {"fuel": ""}),
    "key names a list": ("names", ["fuel"]),
    "dropped keys a string": ("dropped", "made_in"),
    "a dropped key not text": ("dropped", [3]),
}


@pytest.mark.parametrize("name", sorted(KEYS_REFUSED))
def test_schema_and_validator_refuse_bad_names_of_key_columns(name):
    doc = copy.deepcopy(DOCUMENTS["list of keys, renamed and dropped"])
    key, value = KEYS_REFUSED[name]
    doc["fields"][0]["keys"][key] = value
    assert errors(SCHEMA, doc) != []
    with pytest.raises(WrapperError):
        Wrapper.from_dict(doc)


def test_a_version_2_document_loads_without_lists_of_keys_and_is_written_as_version_3():
    doc = copy.deepcopy(DOCUMENTS["by hand"])
    doc["version"] = 2
    for f in doc["fields"] + doc["page_fields"]:
        del f["keys"]
    w = Wrapper.from_dict(doc)
    assert [f.keys for f in w.fields] == [None]
    assert json.loads(w.to_json())["version"] == 3


def test_a_list_of_keys_round_trips():
    doc = DOCUMENTS["list of keys"]
    assert doc["fields"][0]["keys"] == {"key": "b", "value": "i"}
    w = Wrapper.from_dict(doc)
    assert w.fields[0].keys == KeyList("b", "i")
    assert json.loads(w.to_json()) == doc
