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
#: an identifier in a path: letters and digits, two digit runs or three digits at least
#: ("161091435X", "B00GJ7Y7MU", "4fhse2"; not "section10" or "mp3")
_ID_RE = re.compile(r"^(?=.*[A-Za-z])(?=(?:\D*\d){3}|.*\d\D+\d)[A-Za-z0-9]{5,}$")
_WORD_SEP = re.compile(r"[-_+\s]+")


def _segment_name(part: str) -> str | None:
    """One path segment as a part of a template's name; ``None`` for a slug, three words
    or more ("blue-kettle-2000", "new_york_primaries"): it names one page, not the
    template."""
    if _ID_RE.match(part):
        return "N"
    if len([w for w in _WORD_SEP.split(part) if w]) >= 3:
        return None
    return re.sub(r"\W+", "_", _DIGITS.sub("N", part)).strip("_")


def url_pattern(url: str) -> str:
    """The path of ``url`` as a name pattern: percent-escapes decoded, digit runs and
    identifiers become ``N``, slugs go, other characters than letters and digits ``_``, the
    file extension goes (``/shop/product/12.html`` -> ``shop-product-N``,
    ``/Blue-Kettle-2000/dp/B00GJ7Y7MU`` -> ``dp-N``; the site root is ``home``); a path of
    slugs only keeps them; a long path keeps its last segments. The pages of one template
    mostly give one name, whichever of them is crawled first."""
    path = unquote(urlsplit(url).path)
    parts = [p for p in path.split("/") if p]
    if parts and "." in parts[-1]:  # (a file's extension; a folder's dot is a word break)
        parts[-1] = parts[-1].rsplit(".", 1)[0]
    words = [_segment_name(p) for p in parts]
    if parts and not any(words):  # slugs only: the page's own words (a shop's root items)
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
