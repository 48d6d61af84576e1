"""The Scrapy add-on: ``ADDONS = {"scrapy_records.Addon": 300}``.

It installs the components at these priorities (the manual recipe, documented in
``README.md ("Use it with Scrapy")``, is the same three lines)::

    DOWNLOADER_MIDDLEWARES = {"scrapy_records.scrapy.middlewares.RecordsDownloaderMiddleware": 950}
    SPIDER_MIDDLEWARES = {"scrapy_records.scrapy.middlewares.RecordsSpiderMiddleware": 950}
    ITEM_PIPELINES = {"scrapy_records.scrapy.pipelines.RecordsPipeline": 300}

and writes every ``RECORDS_*`` default at ``addon`` priority (project, spider and command line
settings win), and the ``csv`` feed exporter that writes one row per record and one column
per field (unless ``FEED_EXPORTERS`` names one for ``csv``). When ``RECORDS_PLAYWRIGHT`` or ``RECORDS_PLAYWRIGHT_AUTO`` is on and
scrapy-playwright is installed, it also installs scrapy-playwright's download handlers and
launches Chromium from ``RECORDS_BROWSER_PATH`` (unless ``PLAYWRIGHT_LAUNCH_OPTIONS`` is set).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy_records.scrapy.settings import DEFAULT_BROWSER_ARGS, SETTINGS, default

logger = logging.getLogger(__name__)

DOWNLOADER_MW = "scrapy_records.scrapy.middlewares.RecordsDownloaderMiddleware"
SPIDER_MW = "scrapy_records.scrapy.middlewares.RecordsSpiderMiddleware"
PIPELINE = "scrapy_records.scrapy.pipelines.RecordsPipeline"
CSV_EXPORTER = "scrapy_records.scrapy.exporters.RecordsCsvItemExporter"
PLAYWRIGHT_HANDLER = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"

#: Downloader middleware priority: after HttpCompression (590) and close to the engine,
#: so it sees decompressed bodies. Spider middleware: 950, closest to the spider callback
#: (its output is seen before the built-in depth/offsite/url-length filters further out).
PRIORITIES = {"downloader": 950, "spider": 950, "pipeline": 300}


def playwright_settings(settings: Any, browser_path: str | None) -> None:
    """Install scrapy-playwright's handlers and the Chromium launch options (addon priority)."""
    try:
        import scrapy_playwright  # noqa: F401
    except ImportError:
        logger.warning("RECORDS_PLAYWRIGHT is on but scrapy-playwright is not installed")
        return
    handlers = settings.getdict("DOWNLOAD_HANDLERS")
    for scheme in ("http", "https"):
        handlers.setdefault(scheme, PLAYWRIGHT_HANDLER)
    settings.set("DOWNLOAD_HANDLERS", handlers, priority="addon")
    if not settings.get("PLAYWRIGHT_LAUNCH_OPTIONS"):
        opts: dict[str, Any] = {"args": list(DEFAULT_BROWSER_ARGS)}
        if browser_path:
            opts["executable_path"] = browser_path
        settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", opts, priority="addon")
    settings.set(
        "PLAYWRIGHT_BROWSER_TYPE",
        settings.get("PLAYWRIGHT_BROWSER_TYPE") or "chromium",
        priority="addon",
    )


class Addon:
    """Enables scrapy_records in a Scrapy project (see the module docstring)."""

    def update_settings(self, settings: Any) -> None:
        for name in SETTINGS:
            settings.setdefault(name, default(name), priority="addon")
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", _load(DOWNLOADER_MW), PRIORITIES["downloader"]
        )
        settings.setdefault_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", _load(SPIDER_MW), PRIORITIES["spider"]
        )
        settings.setdefault_in_component_priority_dict(
            "ITEM_PIPELINES", _load(PIPELINE), PRIORITIES["pipeline"]
        )
        exporters = settings.getdict("FEED_EXPORTERS")
        if "csv" not in exporters:  # a table: one row per record, one column per field
            settings.set("FEED_EXPORTERS", {**exporters, "csv": CSV_EXPORTER}, priority="addon")
        if settings.getbool("RECORDS_PLAYWRIGHT") or settings.getbool("RECORDS_PLAYWRIGHT_AUTO"):
            playwright_settings(settings, settings.get("RECORDS_BROWSER_PATH"))


def _load(path: str) -> Any:
    from scrapy.utils.misc import load_object

    return load_object(path)
