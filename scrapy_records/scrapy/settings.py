"""Every ``RECORDS_*`` setting with its default and its documentation.

Settings are read once per crawler, in ``from_crawler`` of each component, through
:meth:`RecordsConfig.from_settings`. The add-on (:class:`scrapy_records.scrapy.addon.Addon`)
writes these defaults at ``addon`` priority, so anything set in a project's ``settings.py``,
a spider's ``custom_settings`` or ``-s`` on the command line wins.

Per-request control goes through ``Request.meta``:

* ``records``: ``False`` skips the page; ``True`` forces mining; a ``dict`` gives extract
  options for this page only (e.g. ``{"min_records": 3, "K": 6}``);
* ``records_extractor``: extractor name for this page (``"auto"``, ``"mdr"``, ``"stem"``...);
* ``records_template``: a template id chosen by the spider (skips automatic template
  grouping: all pages with the same value share one wrapper).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

#: Chromium shipped by Debian (``apt-get install chromium``); used by scrapy-playwright.
DEFAULT_BROWSER_PATH = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
#: Launch flags that keep a headless Chromium quiet in containers and CI.
DEFAULT_BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

#: name -> (default, documentation). The documentation is rendered into README.md ("Use it with Scrapy").
SETTINGS: dict[str, tuple[Any, str]] = {
    "RECORDS_ENABLED": (
        True,
        "Master switch. ``False`` makes every component raise ``NotConfigured``.",
    ),
    "RECORDS_EXTRACTOR": (
        "auto",
        "Extractor for unsupervised mining: ``auto`` or a registered name (``mdr``, ``stem``, ``mibat``, ``gstm``).",
    ),
    "RECORDS_EXTRACTOR_OPTIONS": (
        {},
        'Extra options passed to the extractor, either flat (``{"K": 10}``) or per extractor name (``{"mdr": {"K": 10}}``).',
    ),
    "RECORDS_MIN_RECORDS": (2, "Regions with fewer records are not emitted."),
    "RECORDS_MIN_CONFIDENCE": (
        0.3,
        "Records whose region confidence is lower are dropped by the pipeline (stat ``records/dropped/low_confidence``).",
    ),
    "RECORDS_REGIONS": (
        "main",
        "``main``: emit the page's main region only; ``all``: every region found.",
    ),
    "RECORDS_WRAPPERS": (
        True,
        "Induce, store and reuse per-template wrappers. ``False``: mine every page unsupervised.",
    ),
    "RECORDS_WRAPPER_STORE": (
        "sqlite",
        "Where wrappers live: ``sqlite`` (``<project>/.scrapy/records/wrappers.sqlite``), ``sqlite:///path.db``, ``dir:///path`` (one JSON file per wrapper), ``memory:`` (this crawl only), ``redis://host:port/db``.",
    ),
    "RECORDS_INDUCER": (
        None,
        "Inducer given to ``scrapy_records.induce``: ``None`` (the value of ``RECORDS_EXTRACTOR``: intersection induction over that extractor's regions), ``gstm`` or ``dcade``.",
    ),
    "RECORDS_MAX_SAMPLES": (
        100,
        "Most pages held in memory while waiting for induction, over all templates (pages beyond it are mined but not sampled).",
    ),
    "RECORDS_TEMPLATE_THRESHOLD": (
        0.6,
        "Structural similarity (bottom-k Jaccard of tag paths, ids and classes, see ``scrapy_records.wrappers.templates``) a page needs to join a template cluster of its site.",
    ),
    "RECORDS_INDUCTION_SAMPLES": (
        3,
        "Pages of one template mined unsupervised before a wrapper is induced from them.",
    ),
    "RECORDS_LEASE_SECONDS": (
        60.0,
        "Expiry of the induction lease a worker takes in the wrapper store (one per site, so only one process induces at a time); renewed every third of it while an induction runs, so a slow induction keeps it and a killed worker's lease expires after at most this long.",
    ),
    "RECORDS_STORE_REFRESH": (
        10.0,
        "Seconds between checks of the store for a newer version of a wrapper in use (another process re-induced it); 0 disables.",
    ),
    "RECORDS_REINDUCE": (
        "stale",
        "Re-induction policy: ``stale`` (re-induce once a wrapper stopped fitting ``RECORDS_STALE_AFTER`` pages in a row), ``never`` (keep stored wrappers; fall back to unsupervised mining on misfit pages).",
    ),
    "RECORDS_STALE_AFTER": (
        2,
        "Consecutive misfit pages after which a wrapper is declared stale (stat ``records/wrapper/stale``).",
    ),
    "RECORDS_MAX_PAGE_BYTES": (
        5 * 1024 * 1024,
        "Responses with a larger body are not mined (stat ``records/skipped/too_large``).",
    ),
    "RECORDS_MAX_NODES": (
        150_000,
        "Node budget of the page model; larger pages count as ``records/skipped/too_large``.",
    ),
    "RECORDS_CONTENT_TYPES": (
        ["text/html", "application/xhtml+xml"],
        "Content types that are mined (stat ``records/skipped/non_html`` for the rest).",
    ),
    "RECORDS_THREADED": (
        True,
        "Run parsing, extraction and induction in Twisted's thread pool instead of the reactor thread.",
    ),
    "RECORDS_PREVIEW_DIR": (
        None,
        "When set, write an annotated HTML preview of every mined page to this directory.",
    ),
    "RECORDS_FOLLOW_PAGINATION": (
        False,
        'Follow the pagination links of mined pages (rel=next, "next" links, page-number lists) with the same callback.',
    ),
    "RECORDS_PAGINATION_MAX_PAGES": (50, "Maximum pagination hops followed from one start page."),
    "RECORDS_FLATTEN_FIELDS": (
        False,
        "The pipeline turns each ``RecordItem`` into a flat dict whose record fields are top-level keys (prefix ``RECORDS_FLATTEN_PREFIX``).",
    ),
    "RECORDS_FLATTEN_PREFIX": ("", "Prefix of the flattened field columns (e.g. ``f_``)."),
    "RECORDS_CSV_PER_TEMPLATE": (
        None,
        "A path pattern with ``%(site)s`` and ``%(template)s``: the pipeline writes one CSV per template with one column per record field.",
    ),
    "RECORDS_EMIT_WRAPPERS": (
        True,
        "Yield a ``WrapperItem`` for each newly induced or updated wrapper (once).",
    ),
    "RECORDS_PLAYWRIGHT": (
        False,
        "Render every mined request with scrapy-playwright (``meta['playwright'] = True``).",
    ),
    "RECORDS_PLAYWRIGHT_AUTO": (
        False,
        "Re-request through scrapy-playwright the pages that look like empty JavaScript shells.",
    ),
    "RECORDS_BROWSER_PATH": (
        DEFAULT_BROWSER_PATH,
        "Chromium executable for scrapy-playwright (default ``/usr/bin/chromium`` when it exists).",
    ),
    "RECORDS_JS_SHELL_MAX_TEXT": (
        200,
        "A page with less visible text than this and at least one script counts as an empty JavaScript shell.",
    ),
}


def default(name: str) -> Any:
    """The default value of setting ``name``."""
    value = SETTINGS[name][0]
    if isinstance(value, (dict, list)):
        return type(value)(value)
    return value


@dataclass
class RecordsConfig:
    """The ``RECORDS_*`` settings of one crawler, typed."""

    enabled: bool = True
    extractor: str = "auto"
    extractor_options: dict[str, Any] = field(default_factory=dict)
    min_records: int = 2
    min_confidence: float = 0.3
    regions: str = "main"
    wrappers: bool = True
    wrapper_store: str = "sqlite"
    induction_samples: int = 3
    inducer: str | None = None
    max_samples: int = 100
    template_threshold: float = 0.6
    reinduce: str = "stale"
    store_refresh: float = 10.0
    lease_seconds: float = 60.0
    stale_after: int = 2
    max_page_bytes: int = 5 * 1024 * 1024
    max_nodes: int = 150_000
    content_types: list[str] = field(default_factory=lambda: ["text/html", "application/xhtml+xml"])
    threaded: bool = True
    preview_dir: str | None = None
    follow_pagination: bool = False
    pagination_max_pages: int = 50
    flatten_fields: bool = False
    flatten_prefix: str = ""
    csv_per_template: str | None = None
    emit_wrappers: bool = True
    playwright: bool = False
    playwright_auto: bool = False
    browser_path: str | None = DEFAULT_BROWSER_PATH
    js_shell_max_text: int = 200

    @classmethod
    def from_settings(cls, settings: Any) -> RecordsConfig:
        def get(name: str) -> Any:
            v = settings.get(name)
            return (
                default(name)
                if v is None and name not in ("RECORDS_PREVIEW_DIR", "RECORDS_INDUCER")
                else v
            )

        opts = get("RECORDS_EXTRACTOR_OPTIONS")
        if hasattr(opts, "copy_to_dict"):
            opts = opts.copy_to_dict()
        ctypes = get("RECORDS_CONTENT_TYPES")
        if isinstance(ctypes, str):
            ctypes = [c.strip() for c in ctypes.split(",") if c.strip()]
        regions = str(get("RECORDS_REGIONS")).lower()
        if regions not in ("main", "all"):
            raise ValueError(f"RECORDS_REGIONS must be 'main' or 'all', not {regions!r}")
        reinduce = str(get("RECORDS_REINDUCE")).lower()
        if reinduce not in ("stale", "never"):
            raise ValueError(f"RECORDS_REINDUCE must be 'stale' or 'never', not {reinduce!r}")
        return cls(
            enabled=settings.getbool("RECORDS_ENABLED", True),
            extractor=str(get("RECORDS_EXTRACTOR")),
            extractor_options=dict(opts or {}),
            min_records=settings.getint("RECORDS_MIN_RECORDS", default("RECORDS_MIN_RECORDS")),
            min_confidence=settings.getfloat(
                "RECORDS_MIN_CONFIDENCE", default("RECORDS_MIN_CONFIDENCE")
            ),
            regions=regions,
            wrappers=settings.getbool("RECORDS_WRAPPERS", True),
            wrapper_store=str(get("RECORDS_WRAPPER_STORE")),
            template_threshold=settings.getfloat("RECORDS_TEMPLATE_THRESHOLD", 0.6),
            inducer=settings.get("RECORDS_INDUCER") or None,
            max_samples=settings.getint("RECORDS_MAX_SAMPLES", 100),
            induction_samples=max(1, settings.getint("RECORDS_INDUCTION_SAMPLES", 3)),
            reinduce=reinduce,
            store_refresh=settings.getfloat("RECORDS_STORE_REFRESH", 10.0),
            lease_seconds=max(0.05, settings.getfloat("RECORDS_LEASE_SECONDS", 60.0)),
            stale_after=max(1, settings.getint("RECORDS_STALE_AFTER", 2)),
            max_page_bytes=settings.getint(
                "RECORDS_MAX_PAGE_BYTES", default("RECORDS_MAX_PAGE_BYTES")
            ),
            max_nodes=settings.getint("RECORDS_MAX_NODES", default("RECORDS_MAX_NODES")),
            content_types=[c.lower() for c in ctypes],
            threaded=settings.getbool("RECORDS_THREADED", True),
            preview_dir=settings.get("RECORDS_PREVIEW_DIR") or None,
            follow_pagination=settings.getbool("RECORDS_FOLLOW_PAGINATION", False),
            pagination_max_pages=settings.getint("RECORDS_PAGINATION_MAX_PAGES", 50),
            flatten_fields=settings.getbool("RECORDS_FLATTEN_FIELDS", False),
            flatten_prefix=str(get("RECORDS_FLATTEN_PREFIX") or ""),
            csv_per_template=settings.get("RECORDS_CSV_PER_TEMPLATE") or None,
            emit_wrappers=settings.getbool("RECORDS_EMIT_WRAPPERS", True),
            playwright=settings.getbool("RECORDS_PLAYWRIGHT", False),
            playwright_auto=settings.getbool("RECORDS_PLAYWRIGHT_AUTO", False),
            browser_path=get("RECORDS_BROWSER_PATH"),
            js_shell_max_text=settings.getint("RECORDS_JS_SHELL_MAX_TEXT", 200),
        )

    def options_for(self, extractor: str) -> dict[str, Any]:
        """Extractor options for ``extractor`` from ``RECORDS_EXTRACTOR_OPTIONS``."""
        opts = self.extractor_options
        if extractor in opts and isinstance(opts[extractor], dict):
            return dict(opts[extractor])
        return {k: v for k, v in opts.items() if not isinstance(v, dict)}
