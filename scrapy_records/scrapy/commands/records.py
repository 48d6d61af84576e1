"""``scrapy records URL_OR_FILE``: show the regions and records of one page, write a preview.

Prints every region (or the main one with ``--main``) as a table of its records' fields and
writes an annotated, script-free HTML preview (regions outlined, records numbered, field
values listed); ``--screenshot`` also renders the preview to PNG with Chromium.
URLs are fetched with Scrapy's downloader (the project's settings apply); files are read
from disk.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from argparse import ArgumentParser, Namespace
from typing import Any

from scrapy.commands import fetch
from scrapy.exceptions import UsageError
from w3lib.url import is_url

import scrapy_records
from scrapy_records.errors import RecordsError
from scrapy_records.page import decode_html
from scrapy_records.scrapy.preview import preview_filename, render_preview, screenshot


def format_table(rows: list[list[str]], header: list[str], width: int = 40) -> str:
    """A plain-text table, cells cut to ``width`` characters."""

    def cut(v: Any) -> str:
        s = "" if v is None else (" | ".join(map(str, v)) if isinstance(v, list) else str(v))
        s = " ".join(s.split())
        return s if len(s) <= width else s[: width - 1] + "…"

    cells = [[cut(c) for c in header]] + [[cut(c) for c in r] for r in rows]
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]
    lines = []
    for n, r in enumerate(cells):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def describe(result: Any, main_only: bool = False, width: int = 40) -> str:
    """The text report of a PageResult: one table per region."""
    regions = [result.main] if main_only and result.main is not None else list(result.regions)
    if not regions:
        return "no data region found"
    out = []
    for r, region in enumerate(regions):
        cols = [c.name for c in region.columns] or sorted(
            {k for rec in region.records for k in rec.fields}
        )
        out.append(
            f"region {r}{' (main)' if region is result.main else ''}: {region.extractor}, "
            f"confidence {region.confidence:.2f}, {len(region.records)} records, {region.xpath}"
        )
        header = ["#"] + (cols or ["text"])
        rows = [
            [str(i + 1)] + ([rec.fields.get(c) for c in cols] if cols else [rec.text])
            for i, rec in enumerate(region.records)
        ]
        out.append(format_table(rows, header, width))
        out.append("")
    return "\n".join(out)


class Command(fetch.Command):
    requires_project = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "[options] <url|file>"

    def short_desc(self) -> str:
        return "Show the data records of a page and write an annotated preview"

    def long_desc(self) -> str:
        return (
            "Find the data regions and records of one page (URL fetched with Scrapy, or a local "
            "HTML file), print them as tables and write an annotated HTML preview with the page's "
            "scripts removed; --screenshot renders the preview to PNG with Chromium."
        )

    def add_options(self, parser: ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument(
            "--extractor", default=None, help="extractor name (default RECORDS_EXTRACTOR or auto)"
        )
        parser.add_argument("--main", action="store_true", help="show the main region only")
        parser.add_argument(
            "--json", action="store_true", help="print the result as JSON instead of tables"
        )
        parser.add_argument(
            "--preview",
            metavar="FILE",
            help="preview path (default: RECORDS_PREVIEW_DIR or the current directory)",
        )
        parser.add_argument("--no-preview", action="store_true", help="do not write a preview")
        parser.add_argument(
            "--screenshot",
            nargs="?",
            const="",
            metavar="PNG",
            help="also render the preview to PNG (default: next to the preview)",
        )
        parser.add_argument("--width", type=int, default=40, help="table cell width")

    def process_options(self, args: list[str], opts: Namespace) -> None:
        super().process_options(args, opts)
        # the command mines the page itself: the project's add-on must not mine or induce
        assert self.settings is not None
        self.settings.set("RECORDS_ENABLED", False, priority="cmdline")
        if not getattr(opts, "loglevel", None) and not getattr(opts, "nolog", False):
            self.settings.set("LOG_LEVEL", "WARNING", priority="cmdline")  # tables on stdout
        self._extract_settings = {
            "RECORDS_EXTRACTOR": self.settings.get("RECORDS_EXTRACTOR"),
            "RECORDS_MIN_RECORDS": self.settings.get("RECORDS_MIN_RECORDS"),
        }

    def run(self, args: list[str], opts: Namespace) -> None:
        if len(args) != 1:
            raise UsageError
        target = args[0]
        if os.path.exists(target):
            with open(target, "rb") as f:
                body = f.read()
            self._report(body, "file://" + os.path.abspath(target), opts, None)
            return
        if not is_url(target):
            raise UsageError(f"{target!r} is neither a file nor a URL")
        super().run(args, opts)

    def _print_response(self, response: Any, opts: Namespace) -> None:
        ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
        if not hasattr(response, "text") or (ctype and "html" not in ctype):
            print(
                f"{response.url}: not an HTML response ({ctype or type(response).__name__})",
                file=sys.stderr,
            )
            self.exitcode = 1
            return
        self._report(response, response.url, opts, response)

    def _report(self, source: Any, url: str, opts: Namespace, response: Any) -> None:

        settings = self.settings
        es = getattr(self, "_extract_settings", {})
        extractor = opts.extractor or es.get("RECORDS_EXTRACTOR") or "auto"
        min_records = int(es.get("RECORDS_MIN_RECORDS") or 2)
        try:
            result = scrapy_records.extract(
                source, url=url, extractor=extractor, min_records=min_records
            )
        except RecordsError as exc:
            print(f"{url}: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        if opts.json:
            print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        else:
            print(f"{url}\n")
            print(describe(result, main_only=opts.main, width=opts.width))
        if opts.no_preview:
            return
        if response is not None:
            html = response.text
        else:
            html = decode_html(source)[0] if isinstance(source, bytes) else str(source)
        path = opts.preview
        if not path:
            d = (settings.get("RECORDS_PREVIEW_DIR") if settings else None) or "."
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, preview_filename(url))
        with open(path, "w", encoding="utf-8") as f:
            f.write(render_preview(html, url, result, title=f"{extractor}"))
        print(f"preview: {path}", file=sys.stderr)
        if opts.screenshot is not None:
            png = opts.screenshot or os.path.splitext(path)[0] + ".png"
            browser = settings.get("RECORDS_BROWSER_PATH") if settings else None
            errors: list[Exception] = []

            def shoot() -> None:
                try:
                    screenshot(path, png, browser_path=browser)
                except Exception as exc:  # no browser installed, etc.
                    errors.append(exc)

            # Playwright's sync API refuses to run inside the reactor's asyncio loop (a URL
            # fetched by Scrapy): render from a plain thread and wait for it
            t = threading.Thread(target=shoot, name="records-screenshot")
            t.start()
            t.join()
            if errors:
                print(f"screenshot failed: {errors[0]}", file=sys.stderr)
                self.exitcode = 1
            else:
                print(f"screenshot: {png}", file=sys.stderr)
