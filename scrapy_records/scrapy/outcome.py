"""What mining one response gives the Scrapy components (:class:`Outcome`, :class:`Released`)
and the names the runtime gives sites and templates (:func:`site_of`, :func:`url_pattern`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from scrapy_records.results import PageResult

__all__ = ["Outcome", "Released", "site_of", "url_pattern"]


def site_of(url: str | None) -> str:
    """The site key of a URL: its lower-cased host name without a leading ``www.``."""
    host = (urlsplit(url or "").hostname or "").lower()
    return host[4:] if host.startswith("www.") else host or "local"


_DIGITS = re.compile(r"\d+")


def url_pattern(url: str) -> str:
    """The path of ``url`` as a name pattern: percent-escapes decoded, digit runs become
    ``N``, other characters than letters and digits ``_``, the file extension goes
    (``/shop/product/12.html`` -> ``shop-product-N``; the site root is ``home``); a long
    path keeps its last segments (``.../N_Target_com-N_materials_business``)."""
    path = unquote(urlsplit(url).path)
    parts = [p for p in path.split("/") if p]
    if parts and "." in parts[-1]:  # (a file's extension; a folder's dot is a word break)
        parts[-1] = parts[-1].rsplit(".", 1)[0]
    words = [re.sub(r"\W+", "_", _DIGITS.sub("N", p)).strip("_") for p in parts]
    name = "-".join(w for w in words if w)
    if len(name) > 60:
        tail = name[-60:]
        name = tail.split("-", 1)[1] if "-" in tail else tail
    return name or "home"


@dataclass
class Released:
    """The records of a page emitted later than the page itself (a detail template's first
    pages wait for its wrapper, so that all its pages give the same columns)."""

    url: str
    template: str | None
    template_name: str | None
    result: PageResult | None
    source: str
    wrapper_id: str | None = None
    wrapper_version: int | None = None


@dataclass
class Outcome:
    """The result of mining one response (produced in a pool thread, consumed in the reactor)."""

    url: str
    site: str = ""
    template: str | None = None
    template_name: str | None = None  # readable: the URL path pattern of its first page
    result: PageResult | None = None
    source: str = ""  # "wrapper" or the extractor name
    wrapper_id: str | None = None
    wrapper_version: int | None = None
    skipped: str | None = None  # reason when the page was not mined
    error: str | None = None
    built_page: bool = False  # the page model was built (unsupervised mining)
    stats: dict[str, int] = field(default_factory=dict)
    new_wrappers: list[dict[str, Any]] = field(default_factory=list)
    released: list[Released] = field(default_factory=list)  # held pages emitted now
    seconds: float = 0.0  # CPU seconds spent mining (in the worker, or this thread)

    def inc(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n
