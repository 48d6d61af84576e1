"""A detail page's typed field (one text) is typed as a column of several records types
each of its texts: value, currency, unit, range end, or dropped and counted."""

from __future__ import annotations

import copy

import pytest

from scrapy_records.fields.values import is_no_value
from scrapy_records.wrappers.model import FieldSpec
from scrapy_records.wrappers.reading import FieldReader
from scrapy_records.wrappers.typed import type_values


@pytest.mark.parametrize(
    "ftype,text",
    [
        ("number", "1,234"),
        ("number", "1.234"),
        ("number", "12 items"),
        ("number", "N/A"),
        ("price", "$61,550"),
        ("price", "MSRP: $61,550"),
        ("price", "€1.234,50"),
        ("price", "£2.99 to £8.99"),
        ("price", "$3.49 /2 pack"),
        ("price", "free"),
        ("date", "May 3, 2010"),
        ("date", "2010-05-03"),
        ("date", "3 hours ago"),
        ("date", "someday"),
    ],
)
def test_one_text_types_as_each_text_of_a_column(ftype, text):
    f = FieldReader(FieldSpec(name="v", xpath="/html/body/p", type=ftype), "/html")
    one = [{"v": text, "other": "x"}]
    many = [copy.deepcopy(one[0]), copy.deepcopy(one[0])]  # (the same text twice: same style)
    errors = type_values([f], one)
    assert errors == type_values([f], many) / 2
    assert one[0] == many[0] == many[1]
    # a value that does not type is dropped, an error unless it says it is missing ("N/A")
    assert ("v" in one[0]) == (errors == 0 and not is_no_value(text))
