"""scrapy_records: find the data records on any web page, without selectors.

Quick use::

    import scrapy_records
    result = scrapy_records.extract(html_bytes, url="https://example.com/list")
    for record in result.main.records:
        print(record.fields)
"""

from typing import Any

from scrapy_records._version import __version__
from scrapy_records.api import extract
from scrapy_records.errors import (
    BudgetExceededError,
    EmptyDocumentError,
    NotHTMLError,
    OptionError,
    PageTooLargeError,
    RecordsError,
    UnknownExtractorError,
    WrapperError,
)
from scrapy_records.extractors import available_extractors, get_extractor, register_extractor
from scrapy_records.page import Page, as_page
from scrapy_records.results import Column, PageResult, Record, Region
from scrapy_records.wrappers import Wrapper, induce


def __getattr__(name: str) -> Any:
    # The add-on is imported on first use: library users do not import Scrapy's machinery
    # (about 0.3 s), which the add-on's package pulls in.
    if name == "Addon":
        from scrapy_records.scrapy.addon import Addon

        return Addon
    raise AttributeError(f"module 'scrapy_records' has no attribute {name!r}")


__all__ = [
    "__version__",
    "extract",
    "induce",
    "Wrapper",
    "Addon",
    "Page",
    "as_page",
    "PageResult",
    "Region",
    "Record",
    "Column",
    "available_extractors",
    "get_extractor",
    "register_extractor",
    "RecordsError",
    "NotHTMLError",
    "EmptyDocumentError",
    "PageTooLargeError",
    "BudgetExceededError",
    "OptionError",
    "UnknownExtractorError",
    "WrapperError",
]
