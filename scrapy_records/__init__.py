"""scrapy_records: find the data records on any web page, without selectors.

Quick use::

    import scrapy_records
    result = scrapy_records.extract(html_bytes, url="https://example.com/list")
    for record in result.main.records:
        print(record.fields)
"""

__version__ = "0.1.0"

from .api import extract  # noqa: E402
from .errors import (  # noqa: E402
    EmptyDocumentError,
    NotHTMLError,
    PageTooLargeError,
    RecordsError,
    UnknownExtractorError,
    WrapperError,
)
from .extractors import available_extractors, get_extractor, register_extractor  # noqa: E402

# Bound eagerly: ``scrapy_records.induce`` is also a submodule, and a lazy attribute would
# be replaced by the module as soon as anything imported ``scrapy_records.induce``.
from .induce import induce  # noqa: E402
from .page import Page, as_page  # noqa: E402
from .results import Column, PageResult, Record, Region  # noqa: E402


def __getattr__(name: str):
    # Heavier or optional parts are imported on first use, so ``import scrapy_records``
    # stays cheap and does not import Scrapy's machinery for library users.
    if name == "Addon":
        from .scrapy.addon import Addon

        return Addon
    if name == "Wrapper":
        from .wrapper import Wrapper

        return Wrapper
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
    "UnknownExtractorError",
    "WrapperError",
]
