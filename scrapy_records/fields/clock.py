"""The reference time of relative dates ("3 hours ago"): context-local, and taken from a
response's ``Date`` header in a crawl."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

__all__ = ["relative_to", "current_relative_base", "http_date_base"]

#: The reference time of relative dates in the current context (:func:`relative_to`).
_BASE: ContextVar[datetime | None] = ContextVar("scrapy_records_relative_base", default=None)


@contextmanager
def relative_to(base: datetime | None) -> Iterator[None]:
    """Resolve relative dates ("3 hours ago") against ``base`` inside the block.

    The crawl engine sets it to the time the server sent the page (:func:`http_date_base`
    of the response's ``Date`` header), so a page replayed from Scrapy's HTTP cache, or
    parsed again a week later, dates its posts as when it was fetched, not as now. An
    explicit ``relative_base`` argument still wins; ``None`` means now. Context-local, so
    pages mined in parallel threads do not see each other's base.
    """
    token = _BASE.set(base)
    try:
        yield
    finally:
        _BASE.reset(token)


def current_relative_base() -> datetime | None:
    """The base :func:`relative_to` set in this context (``None``: now)."""
    return _BASE.get()


def http_date_base(value: str | bytes | None, *, now: datetime | None = None) -> datetime | None:
    """The time an HTTP ``Date`` header gives, to the minute, as a naive local time like
    ``datetime.now()`` (``None`` when absent, malformed, before 1990 or more than a day in
    the future: a server clock that wrong is no better reference than ours)."""
    if not value:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    try:
        d = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if d is None:
        return None
    if d.tzinfo is None:  # "-0000": UTC by RFC 5322
        d = d.replace(tzinfo=timezone.utc)
    try:
        # to the minute, like "now" in parse_date: responses sent within a minute share
        # parse_date's cache entries (the base is part of the key)
        d = d.astimezone().replace(tzinfo=None, second=0, microsecond=0)
    except (OverflowError, OSError, ValueError):
        return None
    current = now or datetime.now()
    if d.year < 1990 or d > current + timedelta(days=1):
        return None
    return d
