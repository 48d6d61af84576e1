"""Every ``RECORDS_*`` setting: its name, default, type and documentation, in one place.

:class:`RecordsConfig` is the table: each field is one setting. Components read it once per
crawler with :meth:`RecordsConfig.from_settings` (in ``from_crawler``); the add-on writes the
defaults at ``addon`` priority from :data:`SETTINGS`, which is derived from the same fields,
and ``docs/settings.md`` is generated from it
(``python -m scrapy_records.scrapy.settings --write docs/settings.md``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import MISSING, Field, dataclass, field, fields
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

#: ``RECORDS_WRAPPER_STORE`` URI scheme -> store class (import path); extend it with the
#: ``RECORDS_WRAPPER_STORES`` setting, as Scrapy's ``FEED_STORAGES`` extends its base.
STORE_BACKENDS = {
    "sqlite": "scrapy_records.scrapy.store.sqlite.SQLiteStore",
    "memory": "scrapy_records.scrapy.store.memory.MemoryStore",
    "dir": "scrapy_records.scrapy.store.directory.DirectoryStore",
    "file": "scrapy_records.scrapy.store.directory.DirectoryStore",
    "redis": "scrapy_records.scrapy.store.redis.RedisStore",
    "rediss": "scrapy_records.scrapy.store.redis.RedisStore",
    "unix": "scrapy_records.scrapy.store.redis.RedisStore",
}


def setting(name: str, default: Any, doc: str, kind: str | None = None) -> Any:
    """One setting: a dataclass field that knows its setting name, parser and documentation.

    ``kind`` picks the ``Settings`` getter (``bool``, ``int``, ``float``, ``list``, ``dict``,
    or ``str``/``None`` for the raw value); by default the default's type decides.
    """
    kind = kind or type(default).__name__
    meta = {"setting": name, "doc": doc, "kind": kind}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class RecordsConfig:
    """The ``RECORDS_*`` settings of one crawler, typed and validated."""

    enabled: bool = setting(
        "RECORDS_ENABLED",
        True,
        "Master switch. `False` makes every component raise `NotConfigured`.",
    )
    extractor: str = setting(
        "RECORDS_EXTRACTOR",
        "auto",
        "Extractor for unsupervised mining: `auto` or a registered name (`mdr`, `stem`, `mibat`,"
        " `gstm`).",
    )
    extractor_options: dict[str, Any] = setting(
        "RECORDS_EXTRACTOR_OPTIONS",
        {},
        'Extra options passed to the extractor, either flat (`{"K": 10}`) or per extractor name'
        ' (`{"mdr": {"K": 10}}`).',
    )
    min_records: int = setting(
        "RECORDS_MIN_RECORDS", 2, "Regions with fewer records are not emitted."
    )
    min_confidence: float = setting(
        "RECORDS_MIN_CONFIDENCE",
        0.3,
        "Records whose region confidence is lower are dropped by the pipeline (stat"
        " `records/dropped/low_confidence`).",
    )
    regions: str = setting(
        "RECORDS_REGIONS",
        "main",
        "`main`: emit the page's main region only; `all`: every region found.",
    )
    wrappers: bool = setting(
        "RECORDS_WRAPPERS",
        True,
        "Induce, store and reuse per-template wrappers. `False`: mine every page unsupervised.",
    )
    wrapper_store: str = setting(
        "RECORDS_WRAPPER_STORE",
        "sqlite",
        "Where wrappers live: `sqlite` (`<project>/.scrapy/records/wrappers.sqlite`),"
        " `sqlite:///path.db`, `dir:///path` (one JSON file per wrapper), `memory:` (this crawl"
        " only), `redis://host:port/db`.",
    )
    wrapper_stores: dict[str, str] = setting(
        "RECORDS_WRAPPER_STORES",
        {},
        "More store backends: URI scheme -> import path of a class with `from_uri(uri)` (see"
        " `scrapy_records.scrapy.store.base.WrapperStore`), merged over the built-in ones.",
    )
    inducer: str | None = setting(
        "RECORDS_INDUCER",
        None,
        "Inducer given to `scrapy_records.induce`: `None` (the value of `RECORDS_EXTRACTOR`:"
        " intersection induction over that extractor's regions), `gstm` or `dcade`.",
        "str",
    )
    max_samples: int = setting(
        "RECORDS_MAX_SAMPLES",
        100,
        "Most pages held in memory while waiting for induction, over all templates (pages beyond"
        " it are mined but not sampled).",
    )
    template_threshold: float = setting(
        "RECORDS_TEMPLATE_THRESHOLD",
        0.6,
        "Structural similarity (bottom-k Jaccard of tag paths, ids and classes, see"
        " `scrapy_records.wrappers.templates`) a page needs to join a template cluster of its"
        " site.",
    )
    induction_samples: int = setting(
        "RECORDS_INDUCTION_SAMPLES",
        3,
        "Pages of one template mined unsupervised before a wrapper is induced from them.",
    )
    induce_when_idle: bool = setting(
        "RECORDS_INDUCE_WHEN_IDLE",
        False,
        "When the crawl is idle, induce and store the wrappers of the templates that have their"
        " `RECORDS_INDUCTION_SAMPLES` pages but met no page after them (a small site's three"
        " result pages): the next crawl of the site extracts those pages by wrapper. Costs one"
        " induction per such template at the end of this crawl, which is why it is off: a"
        " template otherwise pays for its induction only once a further page comes.",
    )
    lease_seconds: float = setting(
        "RECORDS_LEASE_SECONDS",
        60.0,
        "Expiry of the induction lease a worker takes in the wrapper store (one per site, so only"
        " one process induces at a time); renewed every third of it while an induction runs, so a"
        " slow induction keeps it and a killed worker's lease expires after at most this long.",
    )
    store_refresh: float = setting(
        "RECORDS_STORE_REFRESH",
        10.0,
        "Seconds between checks of the store for a newer version of a wrapper in use (another"
        " process re-induced it); 0 disables.",
    )
    reinduce: str = setting(
        "RECORDS_REINDUCE",
        "stale",
        "Re-induction policy: `stale` (re-induce once a wrapper stopped fitting"
        " `RECORDS_STALE_AFTER` pages in a row), `never` (keep stored wrappers; fall back to"
        " unsupervised mining on misfit pages).",
    )
    stale_after: int = setting(
        "RECORDS_STALE_AFTER",
        2,
        "Consecutive misfit pages after which a wrapper is declared stale (stat"
        " `records/wrapper/stale`).",
    )
    max_page_bytes: int = setting(
        "RECORDS_MAX_PAGE_BYTES",
        5 * 1024 * 1024,
        "Responses with a larger body are not mined (stat `records/skipped/too_large`).",
    )
    max_nodes: int = setting(
        "RECORDS_MAX_NODES",
        150_000,
        "Node budget of the page model; larger pages count as `records/skipped/too_large`.",
    )
    content_types: list[str] = setting(
        "RECORDS_CONTENT_TYPES",
        ["text/html", "application/xhtml+xml"],
        "Content types that are mined (stat `records/skipped/non_html` for the rest).",
    )
    workers: int | None = setting(
        "RECORDS_WORKERS",
        None,
        "Worker processes that parse, mine and induce (fed the response's bytes, URL and"
        " encoding; results come back as plain data): throughput grows with the cores and the"
        " reactor never waits on the GIL. `None`: the machine's cores; `0`: in the calling"
        " thread (no processes to start: small crawls, tests, debugging).",
        "int",
    )
    worker_min_bytes: int = setting(
        "RECORDS_WORKER_MIN_BYTES",
        8 * 1024,
        "Pages smaller than this are mined in the calling thread even with workers, and a"
        " crawl of such pages never starts them. A round trip to a worker costs the crawl's"
        " process 0.2-0.7 ms; mining costs 1-5 ms on pages of 1.5-4 KB, 5-11 ms on real pages"
        " of 19-30 KB, which in the crawl's process hold the GIL against the reactor.",
    )
    worker_timeout: float = setting(
        "RECORDS_WORKER_TIMEOUT",
        60.0,
        "Seconds of work a page may take in a worker process; a page past it (or whose worker"
        " dies) is counted in `records/errors`, the crawl goes on.",
    )
    gc_freeze: bool = setting(
        "RECORDS_GC_FREEZE",
        True,
        "When the engine starts, take what the crawl's process holds by then (modules,"
        " settings, components) out of the cyclic garbage collector's walks (`gc.freeze()`):"
        " a full collection then walks only what the crawl allocates, and the reactor's worst"
        " pause falls with it (on 180 KB pages from about 130 ms, two to three times plain"
        " Scrapy's, to about 50 ms). `False` leaves the collector as it is.",
    )
    threaded: bool = setting(
        "RECORDS_THREADED",
        True,
        "Wait for mining in Twisted's thread pool instead of the reactor thread (with"
        " `RECORDS_WORKERS = 0`, mining itself runs there).",
    )
    inline_max_bytes: int = setting(
        "RECORDS_INLINE_MAX_BYTES",
        32 * 1024,
        "With `RECORDS_THREADED`, pages up to this size of a site whose wrappers are in memory"
        " are extracted by their wrapper in the reactor thread (a parse and the selectors,"
        " about a millisecond: less than the hand-off to the thread pool); pages the wrapper"
        " does not fit are mined in the pool without being parsed or signed again (stat"
        " `records/wrapper/inline`). 0: every page goes to the pool.",
    )
    preview_dir: str | None = setting(
        "RECORDS_PREVIEW_DIR",
        None,
        "When set, write an annotated HTML preview of every mined page to this directory.",
        "str",
    )
    follow_pagination: bool = setting(
        "RECORDS_FOLLOW_PAGINATION",
        False,
        'Follow the pagination links of mined pages (rel=next, "next" links, page-number lists)'
        " with the same callback.",
    )
    pagination_max_pages: int = setting(
        "RECORDS_PAGINATION_MAX_PAGES", 50, "Maximum pagination hops followed from one start page."
    )
    feed_flat: bool = setting(
        "RECORDS_FEED_FLAT",
        True,
        "CSV feeds (`-O out.csv`, with the add-on): one row per record, one column per field"
        " (`page_url`, `template`, then the fields; lists joined with ` | `; no wrapper rows)."
        " `False`: the nested form, `fields` as one JSON cell.",
    )
    flatten_fields: bool = setting(
        "RECORDS_FLATTEN_FIELDS",
        False,
        "The pipeline turns each `RecordItem` into a flat dict whose record fields are top-level"
        " keys (prefix `RECORDS_FLATTEN_PREFIX`).",
    )
    flatten_prefix: str = setting(
        "RECORDS_FLATTEN_PREFIX", "", "Prefix of the flattened field columns (e.g. `f_`)."
    )
    csv_per_template: str | None = setting(
        "RECORDS_CSV_PER_TEMPLATE",
        None,
        "A path pattern with `%(site)s` and `%(template)s` (a readable template name, the URL"
        " path pattern such as `shop-page-N`): the pipeline writes one CSV per template, one row"
        " per record the feeds get (a record a later pipeline drops is no row) and one column"
        " per field, at the end of the crawl (rows wait in"
        " `<file>.rows`, flushed row by row). A crawl resumed from a `JOBDIR` appends to it,"
        " the rows of a crawl stopped without closing (Ctrl-C twice) included.",
        "str",
    )
    emit_wrappers: bool = setting(
        "RECORDS_EMIT_WRAPPERS",
        True,
        "Yield a `WrapperItem` for each newly induced or updated wrapper (once).",
    )
    playwright: bool = setting(
        "RECORDS_PLAYWRIGHT",
        False,
        "Render every mined request with scrapy-playwright (`meta['playwright'] = True`).",
    )
    playwright_auto: bool = setting(
        "RECORDS_PLAYWRIGHT_AUTO",
        False,
        "Re-request through scrapy-playwright the pages that look like empty JavaScript shells.",
    )
    browser_path: str | None = setting(
        "RECORDS_BROWSER_PATH",
        DEFAULT_BROWSER_PATH,
        "Chromium executable for scrapy-playwright (default `/usr/bin/chromium` when it exists).",
        "str",
    )
    js_shell_max_text: int = setting(
        "RECORDS_JS_SHELL_MAX_TEXT",
        200,
        "A page with less visible text than this and at least one script counts as an empty"
        " JavaScript shell.",
    )

    def __post_init__(self) -> None:
        self.regions = str(self.regions).lower()
        if self.regions not in ("main", "all"):
            raise ValueError(f"RECORDS_REGIONS must be 'main' or 'all', not {self.regions!r}")
        self.reinduce = str(self.reinduce).lower()
        if self.reinduce not in ("stale", "never"):
            raise ValueError(f"RECORDS_REINDUCE must be 'stale' or 'never', not {self.reinduce!r}")
        self.content_types = [c.strip().lower() for c in self.content_types if c.strip()]
        self.induction_samples = max(1, self.induction_samples)
        self.stale_after = max(1, self.stale_after)
        self.lease_seconds = max(0.05, self.lease_seconds)
        # empty strings mean "unset" for the optional paths and names
        self.inducer = self.inducer or None
        self.preview_dir = self.preview_dir or None
        self.csv_per_template = self.csv_per_template or None

    @classmethod
    def from_settings(cls, settings: Any) -> RecordsConfig:
        """Read every ``RECORDS_*`` setting (the field's default where a setting is unset)."""
        return cls(**{f.name: _read(settings, f) for f in fields(cls)})

    def options_for(self, extractor: str) -> dict[str, Any]:
        """Extractor options for ``extractor`` from ``RECORDS_EXTRACTOR_OPTIONS``."""
        opts = self.extractor_options
        if extractor in opts and isinstance(opts[extractor], dict):
            return dict(opts[extractor])
        return {k: v for k, v in opts.items() if not isinstance(v, dict)}

    def store_backends(self) -> dict[str, str]:
        """URI scheme -> store class path: the built-in backends and ``RECORDS_WRAPPER_STORES``."""
        return {**STORE_BACKENDS, **self.wrapper_stores}


def _default(f: Field[Any]) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is MISSING:  # the TypeError calling MISSING would raise, made plain
        raise TypeError(f"field {f.name!r} has neither a default nor a default_factory")
    return f.default_factory()


def _read(settings: Any, f: Field) -> Any:
    name, kind = f.metadata["setting"], f.metadata["kind"]
    if settings.get(name) is None:
        return _default(f)
    getter = {
        "bool": settings.getbool,
        "int": settings.getint,
        "float": settings.getfloat,
        "list": settings.getlist,
        "dict": settings.getdict,
    }.get(kind, settings.get)
    return getter(name)


#: name -> (default, documentation) of every setting, derived from :class:`RecordsConfig`.
SETTINGS: dict[str, tuple[Any, str]] = {
    f.metadata["setting"]: (_default(f), f.metadata["doc"]) for f in fields(RecordsConfig)
}


def default(name: str) -> Any:
    """The default value of setting ``name`` (a fresh copy of a list or dict)."""
    return next(_default(f) for f in fields(RecordsConfig) if f.metadata["setting"] == name)


def settings_table() -> str:
    """The Markdown table of every setting (``docs/settings.md`` is generated from it)."""
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for f in fields(RecordsConfig):
        value = _default(f)
        shown = (
            '`"/usr/bin/chromium"` when it exists, else `None`'
            if f.metadata["setting"] == "RECORDS_BROWSER_PATH"
            else f"`{value!r}`"
        )
        rows.append(f"| `{f.metadata['setting']}` | {shown} | {f.metadata['doc']} |")
    return "\n".join(rows) + "\n"


def write_settings_doc(path: str) -> None:
    """Replace the settings table in the Markdown file ``path`` (between its markers)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index("\n", text.index("<!-- settings table:")) + 1
    end = text.index("<!-- end of settings table -->")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + settings_table() + text[end:])


if __name__ == "__main__":  # pragma: no cover - documentation generator
    if len(sys.argv) > 2 and sys.argv[1] == "--write":
        write_settings_doc(sys.argv[2])
    else:
        sys.stdout.write(settings_table())
