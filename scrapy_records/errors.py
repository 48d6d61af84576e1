"""Exceptions raised by scrapy_records.

Every error the library raises on purpose derives from :class:`RecordsError`, so callers
(and the Scrapy middlewares) can catch one class and never see a traceback from deep
inside an algorithm.
"""

from __future__ import annotations


class RecordsError(Exception):
    """Base class of every error raised on purpose by scrapy_records."""


class NotHTMLError(RecordsError, ValueError):
    """The input is not an HTML document (binary data, an image, a PDF, plain XML...)."""


class EmptyDocumentError(RecordsError, ValueError):
    """The input holds no markup at all (empty or whitespace only)."""


class PageTooLargeError(RecordsError):
    """The page exceeds the byte size or node budget given to :class:`~scrapy_records.page.Page`.

    The budget bounds time and memory: raise it rather than spend minutes on a page.
    """


class BudgetExceededError(PageTooLargeError):
    """Applying a wrapper to the page would exceed its work budget (``max_work`` node
    visits) or its deadline (``max_seconds``): see :mod:`scrapy_records.wrappers.budget`."""


class OptionError(RecordsError, TypeError, ValueError):
    """An option the library does not know, or a value of the wrong type or out of range
    (a ``TypeError`` and a ``ValueError`` too, what such mistakes raised before)."""


class UnknownExtractorError(RecordsError, KeyError):
    """An extractor name that is neither built in nor registered through an entry point."""

    def __init__(self, name: str, available: list[str]):
        self.name = name
        self.available = sorted(available)
        super().__init__(f"unknown extractor {name!r}; available: {', '.join(self.available)}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


class WrapperError(RecordsError, ValueError):
    """A wrapper document is corrupt, of an unknown version or fails schema validation."""
