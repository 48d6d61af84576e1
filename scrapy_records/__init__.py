"""scrapy_records: find the data records on any web page, without selectors.

Quick use::

    import scrapy_records
    result = scrapy_records.extract(html_bytes, url="https://example.com/list")
    for record in result.main.records:
        print(record.fields)
"""

from typing import TYPE_CHECKING

from scrapy_records._version import __version__
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
from scrapy_records.lazy import lazy_names

if TYPE_CHECKING:
    from scrapy_records.api import extract
    from scrapy_records.extractors import available_extractors, get_extractor, register_extractor
    from scrapy_records.page import Page, as_page
    from scrapy_records.results import Column, PageResult, Record, Region
    from scrapy_records.scrapy.addon import Addon
    from scrapy_records.wrappers.induce import induce
    from scrapy_records.wrappers.wrapper import Wrapper

#: Public name -> the module defining it, imported on first use: applying a stored wrapper
#: does not load the extractors (about a third of a second), and library users do not
#: import Scrapy's machinery (``Addon``).
_LAZY = {
    "extract": "scrapy_records.api",
    "available_extractors": "scrapy_records.extractors",
    "get_extractor": "scrapy_records.extractors",
    "register_extractor": "scrapy_records.extractors",
    "Page": "scrapy_records.page",
    "as_page": "scrapy_records.page",
    "Column": "scrapy_records.results",
    "PageResult": "scrapy_records.results",
    "Record": "scrapy_records.results",
    "Region": "scrapy_records.results",
    "Wrapper": "scrapy_records.wrappers.wrapper",
    "induce": "scrapy_records.wrappers.induce",
    "Addon": "scrapy_records.scrapy.addon",
}


__getattr__, __dir__ = lazy_names(__name__, globals(), _LAZY)

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
