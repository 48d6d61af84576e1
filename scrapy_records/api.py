"""The public one-call API: :func:`extract`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from scrapy_records.errors import OptionError
from scrapy_records.extractors.auto import main_threshold_for, run_extractor
from scrapy_records.fields.alignment import align_beneath, align_region, titled_records
from scrapy_records.page import PAGE_OPTIONS, Page, as_page
from scrapy_records.results import PageResult

#: Options consumed by :func:`extract` itself.
RESULT_OPTIONS = ("min_records", "min_confidence", "main_threshold")


def extract(
    source: Any,
    url: str | None = None,
    extractor: str = "auto",
    *,
    min_records: int = 2,
    min_confidence: float = 0.0,
    main_threshold: float | None = None,
    fields: str = "main",
    **options: Any,
) -> PageResult:
    """Find the data records of one page.

    :param source: ``str``, ``bytes``, a Scrapy ``Response``, an lxml element or a :class:`Page`.
    :param url: the page URL (makes link and image URLs absolute).
    :param extractor: ``"auto"`` (see :mod:`scrapy_records.extractors.auto`) or a registered name
        (:func:`~scrapy_records.available_extractors`).
    :param min_records: drop regions with fewer records.
    :param min_confidence: drop regions with a lower confidence.
    :param main_threshold: ``result.main`` is ``None`` when the best region's confidence
        is below this; default (``None``): 0.4 for ``auto``, whose confidences carry the
        evidence of two extractors agreeing, 0.0 for a single extractor
        (:func:`scrapy_records.extractors.auto.main_threshold_for`).
    :param fields: which regions get aligned, typed fields: ``"main"`` (default: the first
        region only; the others keep ``fields == {}``), ``"all"`` or ``"none"``. Field
        alignment is the costliest step on pages with many candidate regions, and ranking
        does not need it, so it runs after ranking on the regions that are kept.
    :param options: page budgets (``max_bytes``, ``max_nodes``, ``max_depth``,
        ``encoding``) and extractor options (e.g. ``K=10, T=0.3`` for MDR).
    :raises RecordsError: subclasses for non-HTML, empty or too large input, unknown extractor;
        :class:`~scrapy_records.errors.OptionError` for an option of the wrong type or one
        the extractor refuses (checked first on a page of one element: an extractor
        checks its options before it reads the page).
    """
    page_opts = {k: options.pop(k) for k in PAGE_OPTIONS if k in options}
    _check_result_options(min_records, min_confidence, main_threshold, fields)
    if options:
        check_extractor_options(extractor, options)
    if main_threshold is None:
        main_threshold = main_threshold_for(extractor)
    with gc_paused():  # (the page, built and dropped inside: see gc_paused)
        return _run(
            source,
            url,
            extractor,
            page_opts,
            min_records,
            min_confidence,
            fields,
            main_threshold,
            options,
        )


def _run(
    source: Any,
    url: str | None,
    extractor: str,
    page_opts: dict[str, Any],
    min_records: int,
    min_confidence: float,
    fields: str,
    main_threshold: float,
    options: dict[str, Any],
) -> PageResult:
    """:func:`extract` after its option checks."""
    page = as_page(source, url, **page_opts) if not isinstance(source, Page) else source
    regions = run_extractor(page, extractor, defer_alignment=True, **options)
    regions = [
        r for r in regions if len(r.records) >= min_records and r.confidence >= min_confidence
    ]
    if fields != "none" and regions:
        for region in regions if fields == "all" else regions[:1]:
            if not region.columns and not any(rec.fields for rec in region.records):
                align_region(page, region)
            elif all(c.evidence == "mibat" for c in region.columns) and titled_records(
                page, region
            ):
                align_beneath(page, region)  # dated results: their titles, scores...
    return PageResult(url=page.url, regions=regions, main_threshold=main_threshold)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (and back on after it, unless
    it was off before). One page's extraction allocates hundreds of thousands of
    containers (the page arrays, per-element lists, tuples of shapes) that all live until
    it ends: the collector's passes over them during the call find almost nothing to free,
    and a full pass also walks the whole process's heap (a crawler's too): 3-7 % of
    ``extract()``'s time on the benchmark pages. Their memory goes by reference counting
    when the page is dropped, before the collector is back on (the block must hold no
    reference to the page: a collection just after it would otherwise walk it all); the
    few cycles (template nodes and their parents) wait for the next collection."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _check_result_options(
    min_records: Any, min_confidence: Any, main_threshold: Any, fields: Any
) -> None:
    if isinstance(min_records, bool) or not isinstance(min_records, int) or min_records < 0:
        raise OptionError(f"min_records must be a non-negative integer, not {min_records!r}")
    for name, v in (("min_confidence", min_confidence), ("main_threshold", main_threshold)):
        if v is None and name == "main_threshold":
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v == v:
            raise OptionError(f"{name} must be a number, not {v!r}")
    if fields not in ("main", "all", "none"):
        raise OptionError(f"fields must be 'main', 'all' or 'none', not {fields!r}")


_PROBE: list[Page] = []


def check_extractor_options(extractor: str, options: dict[str, Any]) -> None:
    """Raise :class:`OptionError` when ``extractor`` refuses ``options``: the extractor runs
    once on a page of one element, where the ``TypeError``/``ValueError`` its options
    check raises (the extractor protocol) cannot come from the page."""
    if not _PROBE:
        _PROBE.append(Page("<html><body><p>probe</p></body></html>"))
    try:
        run_extractor(_PROBE[0], extractor, defer_alignment=True, **options)
    except (TypeError, ValueError) as exc:
        msg = str(exc)
        raise OptionError(msg if msg.startswith(extractor) else f"{extractor}: {msg}") from exc
