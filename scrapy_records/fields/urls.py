"""Absolute link and image URLs of the aligned slots.

:func:`absolute_url` joins a link against the page's base URL like :meth:`Page.absolute`,
with fast paths for the common forms; :func:`url_resolver` memoises it per page (a link
recurs in several slots and regions). :func:`image_url` picks an ``img`` element's URL,
lazy-loading attributes and ``srcset`` included.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from scrapy_records.fields.records import page_data
from scrapy_records.fields.text import image_source
from scrapy_records.fields.values import first_srcset_url
from scrapy_records.page import Page

_ABS_RE = re.compile(r"^https?://[^\s/?#]+(?:[/?#][^\s]*)?$")
_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BASE_RE = re.compile(r"^(https?):(//[^/?#\s]+)([^?#\s]*)", re.I)

Resolver = Callable[[str | None], str | None]


def _base_parts(page: Page) -> tuple[str, str, str] | None:
    """``(scheme, origin, directory)`` of the page's base URL, for the fast join below
    (``None`` when the fast join does not apply; memoised per page)."""
    attrs = page_data(page).attrs
    if "#base" not in attrs:
        parts = None
        m = _BASE_RE.match(page.base_url or "")
        if m and "/." not in m.group(3):
            path = m.group(3) or "/"
            parts = (
                m.group(1).lower(),
                m.group(1).lower() + ":" + m.group(2),
                path[: path.rfind("/") + 1],
            )
        attrs["#base"] = parts
    return attrs["#base"]


def absolute_url(page: Page, href: str | None) -> str | None:
    """:meth:`Page.absolute` (RFC 3986 join against ``<base href>``/the page URL) with fast
    paths for the common cases: no base URL at all, absolute http(s) links, ``//host/..``,
    ``/path`` and ``name.html`` without dot segments, queries or fragments at the start."""
    if href is None:
        return None
    h = href.strip()
    if not page.base_url:
        # no base URL: Page.absolute joins against "", and urljoin("", h) is h
        if not h or h.lower().startswith(("javascript:", "data:")):
            return None
        return h
    if not h or "/." in h or h[0] in "?#." or any(c in h for c in " \t\n\\"):
        return page.absolute(h)
    if _ABS_RE.match(h):
        return h
    if _SCHEME_RE.match(h):
        return page.absolute(h)
    parts = _base_parts(page)
    if parts is None:
        return page.absolute(h)
    scheme, origin, directory = parts
    if h.startswith("//"):
        return scheme + ":" + h
    if h[0] == "/":
        return origin + h
    return origin + directory + h


def url_resolver(page: Page) -> Resolver:
    """:func:`absolute_url` on ``page``, memoised in the page's :class:`PageData`."""
    urls = page_data(page).urls

    def absolute(href: str | None) -> str | None:
        try:
            return urls[href]
        except KeyError:
            v = urls[href] = absolute_url(page, href)
            return v

    return absolute


def image_url(
    page: Page, i: int, absolute: Resolver | None = None
) -> tuple[str | None, str | None]:
    """The image URL of ``img`` element ``i`` and the attribute it came from (``absolute``:
    the URL resolver, default :func:`absolute_url` on ``page``)."""
    el = page.el[i]
    src, used = image_source(el)
    if src is None:
        for a in ("srcset", "data-srcset"):
            v = first_srcset_url(el.get(a))
            if v and not v.lower().startswith("data:"):
                src, used = v, a
                break
    if not src:
        return None, used
    return (absolute(src) if absolute is not None else absolute_url(page, src)), used
