"""Pagination link detection: ``rel=next``, "next" links, page-number lists.

Used by the spider middleware when ``RECORDS_FOLLOW_PAGINATION`` is on. Works on the
response's selector (already parsed for mining), returns absolute URLs of the same site.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

#: Anchor texts / labels that mean "next page" (lower-cased, stripped).
NEXT_WORDS = {
    "next",
    "next page",
    "next »",
    "next ›",
    "next >",
    "next>",
    "»",
    "›",
    ">",
    ">>",
    "→",
    "older",
    "older posts",
    "more",
    "suivant",
    "weiter",
    "siguiente",
    "avanti",
    "volgende",
    "próxima",
    "次へ",
    "下一页",
    "следующая",
}
_NEXT_CLASS = re.compile(r"(^|[\s_-])next([\s_-]|$)", re.I)
_INT = re.compile(r"^\d{1,5}$")


def _same_site(a: str, b: str) -> bool:
    ha, hb = urlsplit(a).hostname or "", urlsplit(b).hostname or ""
    return ha.removeprefix("www.") == hb.removeprefix("www.")


def next_page_urls(response: Any, limit: int = 1) -> list[str]:
    """The URL(s) of the next page of ``response`` (at most ``limit``), best evidence first:

    1. ``<link rel="next">`` / ``<a rel="next">``;
    2. an anchor whose text, ``aria-label`` or ``title`` says "next", or whose class is ``next``;
    3. in a list of page-number links, the one numbered current + 1 (current: the number
       that is not a link, or marked ``aria-current``/``active``/``current``).
    """
    found: list[str] = []

    def add(href: str | None) -> None:
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            return
        url = response.urljoin(href.strip())
        if url != response.url and _same_site(url, response.url) and url not in found:
            found.append(url)

    for href in response.xpath("//link[@rel='next']/@href | //a[@rel='next']/@href").getall():
        add(href)
    if len(found) >= limit:
        return found[:limit]
    for a in response.xpath("//a[@href]"):
        label = " ".join((a.xpath("normalize-space(string(.))").get() or "",)).strip().lower()
        aria = (a.attrib.get("aria-label") or a.attrib.get("title") or "").strip().lower()
        cls = a.attrib.get("class") or ""
        if label in NEXT_WORDS or aria in ("next", "next page") or _NEXT_CLASS.search(cls):
            add(a.attrib.get("href"))
    if len(found) >= limit:
        return found[:limit]
    # page-number lists: containers holding >= 2 numeric links
    for box in response.xpath(
        "//*[count(.//a[re:test(normalize-space(.), '^[0-9]{1,5}$')]) >= 2]"
        "[not(.//*[count(.//a[re:test(normalize-space(.), '^[0-9]{1,5}$')]) >= 2])]"
    ):
        current = None
        marked = box.xpath(
            ".//*[@aria-current or contains(@class,'active') or contains(@class,'current')]"
            "[re:test(normalize-space(.), '^[0-9]{1,5}$')]/text()"
        ).get()
        if marked and _INT.match(marked.strip()):
            current = int(marked.strip())
        if current is None:
            for t in box.xpath(".//text()[not(ancestor::a)]").getall():
                if _INT.match(t.strip()):
                    current = int(t.strip())
                    break
        if current is None:
            continue
        for a in box.xpath(".//a[@href]"):
            t = (a.xpath("normalize-space(.)").get() or "").strip()
            if _INT.match(t) and int(t) == current + 1:
                add(a.attrib.get("href"))
    return found[:limit]
