"""Annotated HTML preview of a page's regions and records, safe to open in a browser.

:func:`render_preview` re-parses the page with the same parser as Scrapy (so the absolute
XPaths of the result select the same elements), outlines each region and numbers its
records, adds a panel listing every record's field values, and neutralises the page:
``<script>``, ``<noscript>``, ``<iframe>``/``<object>``/``<embed>``, ``<base>``, meta
refreshes, ``on*`` event attributes and ``javascript:`` URLs are removed, and a
Content-Security-Policy meta forbids any script. :func:`screenshot` renders a preview file
to PNG with Chromium (Playwright).
"""

from __future__ import annotations

import hashlib
import html as htmlmod
import os
import re
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from lxml import etree
from parsel.selector import create_root_node

from scrapy_records.scrapy.settings import DEFAULT_BROWSER_ARGS, DEFAULT_BROWSER_PATH

#: Outline colours, one per region (cycled).
_CELL_STYLE = "padding:1px 6px;border-top:1px solid #ddd"
COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"]
CSP = "default-src 'none'; img-src * data:; style-src * 'unsafe-inline'; font-src * data:"
_DANGEROUS = (
    "script",
    "noscript",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "base",
)
_URL_ATTRS = ("href", "src", "action", "formaction", "xlink:href", "data", "poster", "srcdoc")


def preview_filename(url: str) -> str:
    """A stable file name for the preview of ``url``."""
    parts = urlsplit(url)
    stem = re.sub(r"[^A-Za-z0-9]+", "-", (parts.hostname or "page") + parts.path).strip("-")[:60]
    return f"{stem or 'page'}-{hashlib.sha1(url.encode()).hexdigest()[:8]}.html"


def _neutralise(root: Any) -> None:
    for el in root.xpath("|".join(f"//{t}" for t in _DANGEROUS)):
        if el.getparent() is not None:
            if hasattr(el, "drop_tree"):
                el.drop_tree()  # keeps the tail text
            else:  # pragma: no cover
                el.getparent().remove(el)
    for el in root.xpath("//meta[@http-equiv]"):
        if el.get("http-equiv", "").lower() in ("refresh", "content-security-policy", "set-cookie"):
            el.getparent().remove(el)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for name in list(el.attrib):
            low = name.lower()
            if low.startswith("on"):
                del el.attrib[name]
            elif low in _URL_ATTRS:
                v = el.attrib[name].strip().lower().replace("\t", "").replace("\n", "")
                if v.startswith(("javascript:", "vbscript:", "data:text/html")) or low == "srcdoc":
                    del el.attrib[name]
        if el.tag == "a":
            el.set("target", "_blank")
            el.set("rel", "noopener noreferrer")


def render_preview(html: str, url: str | None, result: Any, title: str | None = None) -> str:
    """The annotated, neutralised preview document of ``html`` and its ``PageResult``."""
    root = create_root_node(html, lxml.html.HTMLParser, base_url=url)
    # locate everything before modifying the tree (positional XPaths)
    located: list[tuple[int, Any, list[list[Any]]]] = []
    for r, region in enumerate(result.regions):
        parent = root.xpath(region.xpath) if region.xpath and region.xpath != "/" else []
        recs = []
        for rec in region.records:
            els: list[Any] = []
            for xp in rec.xpaths:
                try:
                    els.extend(e for e in root.xpath(xp) if isinstance(e, etree._Element))
                except etree.XPathError:
                    pass
            recs.append(els)
        located.append((r, parent[0] if parent else None, recs))
    _neutralise(root)
    for r, parent, recs in located:
        colour = COLOURS[r % len(COLOURS)]
        if parent is not None:
            parent.set(
                "style",
                (parent.get("style") or "") + f";outline:3px dashed {colour};outline-offset:2px",
            )
            parent.set("data-records-region", str(r))
        for i, els in enumerate(recs):
            for k, el in enumerate(els):
                el.set(
                    "style",
                    (el.get("style") or "") + f";outline:2px solid {colour};outline-offset:-1px",
                )
                if k == 0:
                    badge = etree.Element("span")
                    badge.set(
                        "style",
                        f"background:{colour};color:#fff;font:bold 11px sans-serif;"
                        "padding:1px 4px;margin-right:4px;border-radius:3px",
                    )
                    badge.text = f"R{r}.{i + 1}"
                    host = el
                    if el.tag in (
                        "tr",
                        "table",
                        "tbody",
                        "thead",
                        "ul",
                        "ol",
                        "dl",
                        "select",
                    ) and len(el):
                        host = el[
                            0
                        ]  # keep the markup valid: the badge goes into the first cell/item
                    host.insert(0, badge)
                    badge.tail, host.text = host.text, None
    head = root.find("head")
    if head is None:
        head = etree.Element("head")
        root.insert(0, head)
    meta = etree.Element("meta")
    meta.set("http-equiv", "Content-Security-Policy")
    meta.set("content", CSP)
    head.insert(0, meta)
    charset = etree.Element("meta")
    charset.set("charset", "utf-8")
    head.insert(0, charset)
    body = root.find("body")
    if body is None:
        body = etree.SubElement(root, "body")
    panel = lxml.html.fragment_fromstring(_panel(url, result, title), create_parent=False)
    body.insert(0, panel)
    return "<!DOCTYPE html>\n" + lxml.html.tostring(root, encoding="unicode", method="html")


def _panel(url: str | None, result: Any, title: str | None) -> str:
    e = htmlmod.escape
    out = [
        '<div id="scrapy-records-preview" style="all:initial;display:block;font:13px sans-serif;'
        "background:#fffbe6;color:#222;border-bottom:3px solid #333;padding:8px;"
        'max-height:45vh;overflow:auto;position:relative;z-index:2147483647">',
        f"<b>scrapy_records preview</b> {e(title or '')} — {e(url or '')}<br>",
        f"{len(result.regions)} region(s); main: {0 if result.main is not None else 'none'}",
    ]
    if result.regions and result.main is None:
        out.append(
            f" (the best confidence {result.regions[0].confidence:.2f} is below the threshold "
            f"{result.main_threshold:.2f})"
        )
    for r, region in enumerate(result.regions):
        colour = COLOURS[r % len(COLOURS)]
        cols = [c.name for c in region.columns] or sorted(
            {k for rec in region.records for k in rec.fields}
        )
        out.append(
            f'<div style="margin-top:6px"><span style="background:{colour};'
            f'color:#fff;padding:1px 5px">'
            f"region {r}</span> {e(region.extractor)} · confidence {region.confidence:.2f} · "
            f"{len(region.records)} records · <code>{e(region.xpath)}</code></div>"
        )
        reasons = region.meta.get("rank_reasons") or []
        if reasons:  # why it ranks where it does (scrapy_records.extractors.explain)
            out.append(
                '<ul style="margin:2px 0 0 8px;padding-left:16px;font-size:12px;color:#444">'
                + "".join(f"<li>{e(str(why))}</li>" for why in reasons)
                + "</ul>"
            )
        out.append('<table style="border-collapse:collapse;font-size:12px;margin:2px 0 0 8px">')
        out.append(
            "<tr><th style='text-align:left;padding:1px 6px'>#</th>"
            + "".join(f"<th style='text-align:left;padding:1px 6px'>{e(c)}</th>" for c in cols)
            + "</tr>"
        )
        for i, rec in enumerate(region.records[:200]):
            cells = (
                "".join(
                    f"<td style='{_CELL_STYLE}'>{e(_short(rec.fields.get(c)))}</td>" for c in cols
                )
                if cols
                else f"<td style='padding:1px 6px'>{e(_short(rec.text))}</td>"
            )
            out.append(f"<tr><td style='padding:1px 6px'>R{r}.{i + 1}</td>{cells}</tr>")
        out.append("</table>")
    out.append("</div>")
    return "".join(out)


def _short(v: Any, n: int = 80) -> str:
    if v is None:
        return ""
    if isinstance(v, list):
        v = " | ".join(str(x) for x in v)
    s = str(v)
    return s if len(s) <= n else s[: n - 1] + "…"


def screenshot(
    html_path: str,
    png_path: str,
    browser_path: str | None = None,
    width: int = 1280,
    full_page: bool = True,
) -> str:
    """Render the preview file ``html_path`` to ``png_path`` with Chromium (Playwright)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        kw: dict[str, Any] = {"args": list(DEFAULT_BROWSER_ARGS)}
        exe = browser_path or DEFAULT_BROWSER_PATH
        if exe:
            kw["executable_path"] = exe
        browser = p.chromium.launch(**kw)
        try:
            page = browser.new_page(
                viewport={"width": width, "height": 900}, java_script_enabled=False
            )
            page.goto("file://" + os.path.abspath(html_path), wait_until="load", timeout=30000)
            page.screenshot(path=png_path, full_page=full_page)
        finally:
            browser.close()
    return png_path
