"""Typing a wrapper's values as mining types them: numbers, prices (with their currency,
unit and range), dates (:mod:`scrapy_records.fields.values`), with the parsers memoised (the
costly part of typing, and values repeat across records and pages)."""

from __future__ import annotations

import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from scrapy_records.fields.dates import current_relative_base
from scrapy_records.fields.values import (
    decimal_style,
    is_no_value,
    parse_date_iso,
    parse_number,
    parse_price,
    price_range,
    price_unit,
)

if TYPE_CHECKING:
    from scrapy_records.wrappers.reading import FieldReader

_parse_number = lru_cache(maxsize=8192)(parse_number)
_parse_price = lru_cache(maxsize=8192)(parse_price)


#: the decimal style one value proves (a detail page's column): a regex search per typed
#: field and page, and the texts repeat across pages as the parses do
_one_style = lru_cache(maxsize=8192)(lambda text: decimal_style([text]))


@lru_cache(maxsize=8192)
def _price_notes(text: str, style: str | None) -> tuple[str | None, float | None]:
    """A price text's unit note ("/2 pack") and a range's high end ("£2.99 to £8.99")."""
    return (price_unit(text) or (None, None))[1], (price_range(text, style) or (None, None))[1]


@lru_cache(maxsize=8192)
def _parse_date(text: str, _when: Any) -> str | None:
    """Keyed by the reference time too: relative dates ("3 hours ago") move with the clock
    (the minute, as dates.parse_date reads it) or with the page's own base."""
    return parse_date_iso(text)


@lru_cache(maxsize=8192)
def _typed_one(ftype: str, text: str, when: Any) -> tuple[Any, Any, Any, Any]:
    """``(value, currency, unit, high end)`` of a column's one text, typed as
    :func:`type_values` types it (its own decimal style; ``when``: a date's reference
    time, ``None`` for the other types): a detail page's typed field in one look-up."""
    if ftype == "date":
        return _parse_date(text, when), None, None, None
    style = _one_style(text)
    if ftype == "number":
        return _parse_number(text, style), None, None, None
    pr = _parse_price(text, style)
    if not pr:
        return None, None, None, None
    unit, high = _price_notes(text, style)
    return pr[0], pr[1] or None, unit, high


def _type_one(row: dict[str, Any], name: str, ftype: str, when: Any) -> int:
    """:func:`type_values` of a column's one text, ``row[name]`` (a detail page's field):
    its value typed in place (dropped when it does not type: returns 1, else 0)."""
    y, cur, unit, high = _typed_one(ftype, row[name], when if ftype == "date" else None)
    if y is None:
        missing = is_no_value(row[name])
        del row[name]
        return 0 if missing else 1
    row[name] = y
    _companions(row, name, cur, unit, high)
    return 0


def _companions(row: dict[str, Any], name: str, cur: Any, unit: Any, high: Any) -> None:
    """A price's currency, unit note and range end beside it (those it has)."""
    if cur is not None:
        row[name + "_currency"] = cur
    if unit is not None:
        row[name + "_unit"] = unit
    if high is not None:
        row[name + "_max"] = high


def type_values(fields: list[FieldReader], rows: list[dict[str, Any]]) -> int:
    """Convert number/price/date values in place with :mod:`scrapy_records.fields.values` (the
    extractors' typing): numbers become int/float, prices a float plus a
    ``<name>_currency`` value when a currency is named (``<name>_unit`` when a unit
    note follows, "/2 pack", ``<name>_max`` the high end of a range, "£2.99 to £8.99"),
    dates ISO 8601 strings. A value
    that does not convert is dropped (a column never mixes strings and numbers) and
    counted, unless it says it is missing ("N/A"); returns that count."""
    if not fields:
        return 0
    errors = 0
    when = current_relative_base() or int(time.time() // 60)
    for f in fields:
        name = f.name
        if len(rows) == 1 and isinstance(rows[0].get(name), str):  # (one text)
            errors += _type_one(rows[0], name, f.type, when)
            continue
        raw = [r[name] for r in rows if name in r]
        if not raw:
            continue
        if f.type == "date":
            style = None
        elif len(raw) == 1 and not isinstance(raw[0], list):
            style = _one_style(raw[0])
        else:
            style = decimal_style([x for v in raw for x in (v if isinstance(v, list) else [v])])
        for r in rows:
            v = r.get(name)
            if v is None:
                continue
            items = v if isinstance(v, list) else [v]
            out = []
            cur = unit = high = None
            for x in items:
                y: float | str | None
                if f.type == "number":
                    y = _parse_number(x, style)
                elif f.type == "price":
                    pr = _parse_price(x, style)
                    y = pr[0] if pr else None
                    if pr and pr[1] and cur is None:
                        cur = pr[1]
                    if pr and (unit is None or high is None):
                        u, h = _price_notes(x, style)
                        unit, high = unit or u, high if high is not None else h
                else:
                    y = _parse_date(x, when)
                if y is None:
                    errors += not is_no_value(x)  # ("N/A": no value, no misfit)
                else:
                    out.append(y)
            if not out:
                del r[name]
                continue
            r[name] = out if isinstance(v, list) else out[0]
            _companions(r, name, cur, unit, high)
    return errors
