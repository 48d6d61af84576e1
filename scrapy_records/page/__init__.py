"""The page model: parse once, flatten once, share with every extractor.

:class:`Page` (built by :func:`as_page`) holds one lxml tree, parsed exactly as parsel and
Scrapy parse it, flattened into arrays indexed by pre-order position, with the structure a
browser would build. Modules: :mod:`~scrapy_records.page.decode` (charset detection),
:mod:`~scrapy_records.page.parse` (validation and parsing),
:mod:`~scrapy_records.page.repairs` (where a browser builds another tree than libxml2),
:mod:`~scrapy_records.page.flatten` (the arrays, in one pass),
:mod:`~scrapy_records.page.model` (the ``Page`` class).
"""

from scrapy_records.page.decode import decode_html, sniff_encoding
from scrapy_records.page.flatten import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_NODES,
    DROPPED_TAGS,
    EMPTY_DROPPED_TAGS,
    LEAF_TAGS,
    ZERO_WIDTH,
    empty_inline,
    normalize_space,
)
from scrapy_records.page.model import PAGE_OPTIONS, Page, as_page, document_positions
from scrapy_records.page.parse import (
    DEFAULT_MAX_BYTES,
    HtmlElementParser,
    PlainHtmlParser,
    base_url_of,
    parse_html,
)
from scrapy_records.page.repairs import IMPLIED_CLOSE, holds_content

__all__ = [
    "Page",
    "PAGE_OPTIONS",
    "as_page",
    "document_positions",
    "parse_html",
    "decode_html",
    "sniff_encoding",
    "base_url_of",
    "holds_content",
    "HtmlElementParser",
    "PlainHtmlParser",
    "DROPPED_TAGS",
    "LEAF_TAGS",
    "EMPTY_DROPPED_TAGS",
    "ZERO_WIDTH",
    "normalize_space",
    "empty_inline",
    "IMPLIED_CLOSE",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_NODES",
    "DEFAULT_MAX_DEPTH",
]
