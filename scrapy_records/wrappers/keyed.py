"""Fields that read a list of keys and values (``FieldSpec.keys``, wrapper format version 3).

A product's specification list ("Year:" / "2019", "Fuel:" / "Diesel") names its values by
keys that differ from product to product. Mining names one column per key
(:func:`~scrapy_records.fields.repeats.label_value_columns`); a wrapper induced on some pages
cannot list the keys of a later page, so such a field holds no name of its own: it reads the
keys on the page at extraction time and gives each its column, named by the same
:func:`~scrapy_records.fields.repeats.key_name` as mining, so wrapped and mined pages of a
template give the same columns whatever keys they show.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from scrapy_records.fields.repeats import key_name
from scrapy_records.fields.text import is_label_text
from scrapy_records.results import Column, Record
from scrapy_records.wrappers.budget import ApplyBudget
from scrapy_records.wrappers.model import FieldSpec
from scrapy_records.wrappers.reading import value_text
from scrapy_records.wrappers.safe_xpath import check_xpath, compile_xpath

__all__ = ["KeyReader", "key_columns", "read_keys"]


class KeyReader:
    """One compiled list of keys and values: its items' XPath, the keys' and the values'."""

    __slots__ = ("name", "items", "key", "value", "infos", "names", "dropped")

    def __init__(self, f: FieldSpec):
        assert f.keys is not None
        self.name = f.name
        self.names = f.keys.names  # the key columns a person renamed, and dropped
        self.dropped = frozenset(f.keys.dropped)
        self.infos = [check_xpath(x) for x in (f.xpath, f.keys.key, f.keys.value)]
        self.items = compile_xpath(f.xpath)
        self.key = compile_xpath(f.keys.key)
        self.value = compile_xpath(f.keys.value)


def _texts(xp: Any, ctx: Any) -> list[str]:
    try:
        nodes = xp(ctx)
    except etree.XPathEvalError:
        return []
    if not isinstance(nodes, list):
        return []
    return [t for t in (value_text(n) for n in nodes) if t]


def read_keys(
    readers: list[KeyReader],
    firsts: list[Any],
    values: list[dict[str, Any]],
    taken: set[str],
    budget: ApplyBudget,
) -> list[dict[str, str]]:
    """Each record's values of the lists of keys (records' first elements ``firsts``, their
    other fields' ``values``): under every item its keys (label texts, "Year:") and values
    paired in order (an item whose counts differ is skipped), each value under its key's
    name. A name in ``taken`` (the wrapper's other fields) is numbered ``_2``, ``_3`` as
    mining numbers a second column of one name, unless that field reads the same value
    there (a label another field reads by its text); of one key shown twice the first
    value stays, as mining keeps it. A key column a person renamed takes their name, one
    they dropped is left out (``KeyList.names``, ``KeyList.dropped``)."""
    rows: list[dict[str, str]] = [{} for _ in firsts]
    for r in readers:
        for info in r.infos:
            budget.per_record(info, len(firsts), f"field {r.name}")
        for row, first, fixed in zip(rows, firsts, values):
            try:
                items = r.items(first)
            except etree.XPathEvalError:
                continue
            for item in items if isinstance(items, list) else ():
                keys, vals = _texts(r.key, item), _texts(r.value, item)
                if len(keys) != len(vals):
                    continue
                for k, v in zip(keys, vals):
                    base = key_name(k) if is_label_text(k) else None
                    if base in r.dropped:
                        continue
                    base = r.names.get(base, base) if base is not None else None
                    name, n = base, 2
                    while name in taken and fixed.get(name) != v:
                        name, n = f"{base}_{n}", n + 1
                    if name is not None and name not in fixed:
                        row.setdefault(name, v)
    return rows


def key_columns(records: list[Record], taken: set[str]) -> list[Column]:
    """The columns the lists of keys gave on a page: every name of a record outside
    ``taken`` (the wrapper's own fields), in first-seen order, with its fill."""
    count: dict[str, int] = {}
    for rec in records:
        for name in rec.fields:
            if name not in taken:
                count[name] = count.get(name, 0) + 1
    n = len(records) or 1
    return [Column(name, "text", c / n, None, "wrapper") for name, c in count.items()]
