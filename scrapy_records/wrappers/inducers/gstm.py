"""The G-STM inducer: a wrapper from pages of one template through a G-STM tree pattern.

The pattern (:mod:`.gstm_pattern`, Jindal & Liu 2010, sections 3 and 4.6) is induced from
the sample pages; the paper then reuses it on the site's other pages (section 5.2.1). Here it
becomes a :class:`~scrapy_records.wrappers.wrapper.Wrapper` of verified selectors: the main
list gives the record selector and fields, the data slots outside it the page fields.

Entry points: :func:`induce_wrapper` (``scrapy_records.induce(pages, extractor="gstm")``) and
:func:`pattern_wrapper` (a pattern already induced).
"""

from __future__ import annotations

from typing import Any

from scrapy_records.errors import WrapperError
from scrapy_records.page import Page, as_page
from scrapy_records.selectors import site_of
from scrapy_records.wrappers.apply import CompiledWrapper
from scrapy_records.wrappers.inducers.gstm_page_fields import PatternPageFields
from scrapy_records.wrappers.inducers.gstm_pattern import Pattern, induce_pattern
from scrapy_records.wrappers.inducers.gstm_selectors import PatternSelectors
from scrapy_records.wrappers.model import FieldSpec, Health, ListSpec, Provenance, RecordSelector
from scrapy_records.wrappers.templates import template_info
from scrapy_records.wrappers.wrapper import Wrapper

__all__ = ["induce_wrapper", "pattern_wrapper"]


def _record_part(
    sel: PatternSelectors,
) -> tuple[RecordSelector | None, list[FieldSpec], list[ListSpec], Any]:
    """The record selector, fields and nested lists of the pattern's main list (and the
    list, which the page fields leave out)."""
    L = sel.main_list()
    if L is None:
        return None, [], [], None
    record, r0, R0 = sel.record_selector(L)
    fields, lists = sel.list_fields(L, r0, R0)
    return record, fields, lists, L


def _provenance_options(pattern: Pattern) -> dict[str, Any]:
    opts = dict(pattern.options)
    if pattern.norm is not None:
        opts["pattern_norm"] = round(pattern.norm, 4)
    opts["pattern_regexes"] = pattern.regexes()[:40]
    return opts


def _sample_health(w: Wrapper, pages: list[Page], min_fit: float) -> Health:
    """Health from the wrapper's own output on the sample pages: record counts and fill
    rates."""
    compiled = CompiledWrapper(w)
    counts = []
    have: dict[str, int] = {}
    total = 0
    for p in pages:
        res = compiled.apply(p.root, p.url, p)
        recs = res.regions[0].records if res.regions else []
        counts.append(len(recs))
        for r in recs:
            total += 1
            for f in w.fields:
                if f.name in r.fields:
                    have[f.name] = have.get(f.name, 0) + 1
    return Health(
        expected_records=(min(counts), max(counts)) if counts else (0, 0),
        fill_rates={f.name: (have.get(f.name, 0) / total if total else 0.0) for f in w.fields},
        min_fit=min_fit,
    )


def pattern_wrapper(
    pattern: Pattern,
    pages: list[Any],
    *,
    site: str | None = None,
    min_fit: float = 0.5,
    page_fields: bool = True,
) -> Wrapper:
    """Build a wrapper from a pattern and its sample pages.

    The record selector comes from the pattern's main list (the one holding most data
    slots, weighted by records per page); fields from the data slots of its record template
    (constant slots are template text, skipped); nested lists become ``ListSpec``; data
    slots outside the lists become page fields. Every step is chosen robust-first (id,
    stable class, tag, position) and verified on the sample pages to select exactly the
    template instances.

    :param site: site key (default: the first sample URL's host).
    :param min_fit: the wrapper's ``health.min_fit``.
    :param page_fields: also learn page fields.
    :raises WrapperError: the pattern holds no list and no varying page data.
    """
    plist = [as_page(p) for p in pages]
    sel = PatternSelectors(pattern, plist)
    record, fields, lists, main = _record_part(sel)
    pfields = PatternPageFields(sel).build(main) if page_fields else []
    if record is None and not pfields:
        raise WrapperError("the G-STM pattern holds no list and no varying page data")
    if record is not None and not fields and not lists:  # named after the page fields
        fields = [FieldSpec(sel.name("text"), "text", ".", None, None, False, False)]
    if site is None:
        site = site_of(next((p.url for p in plist if p.url), None))
    w = Wrapper(
        id=Wrapper.make_id(
            site,
            record.xpath if record else None,
            [f.xpath for f in fields],
            [f.xpath for f in pfields],
        ),
        record=record,
        fields=fields,
        lists=lists,
        page_fields=pfields,
        site=site,
        template=template_info(plist[0]),
        provenance=Provenance(
            extractor="gstm",
            sample_urls=[p.url for p in plist if p.url],
            options=_provenance_options(pattern),
        ),
        health=Health(min_fit=min_fit),
    )
    w.health = _sample_health(w, plist, min_fit)
    return w.validate()


def induce_wrapper(pages: list[Any], **options: Any) -> Wrapper:
    """G-STM inducer for :func:`scrapy_records.induce` (``extractor="gstm"``).

    ``pages``: :class:`~scrapy_records.page.Page` objects (or raw sources) of one template;
    two or more give a Problem 1 pattern, one gives a Problem 2 pattern (lists only).
    Options: the matcher options of :class:`~scrapy_records.extractors.gstm.GSTMExtractor`,
    ``site``, ``min_fit`` (0.5), ``page_fields`` (True).
    """
    opts = dict(options)
    site = opts.pop("site", None)
    min_fit = float(opts.pop("min_fit", 0.5))
    pf = bool(opts.pop("page_fields", True))
    plist = [as_page(p) for p in pages]
    pattern = induce_pattern(plist, **opts)
    return pattern_wrapper(pattern, plist, site=site, min_fit=min_fit, page_fields=pf)
