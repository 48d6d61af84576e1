"""A wrapper from one extractor region on one page (``Wrapper.from_region``): the record
selector and the fields, verified on the page; the fields read the region's aligned columns
(:mod:`~scrapy_records.wrappers.inducers.columns`), or, for a region without columns, the
features and nested lists of its records.

Options of :func:`region_wrapper`: ``min_fill`` (0.3), ``max_fields`` (40), ``site`` (the
page's host), ``extractor`` (the region's), ``template_id`` (the page signature's id).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy_records.errors import WrapperError
from scrapy_records.page import as_page
from scrapy_records.results import Region
from scrapy_records.selectors import site_of
from scrapy_records.wrappers.inducers.columns import column_fields
from scrapy_records.wrappers.inducers.page_selectors import PageSelectors
from scrapy_records.wrappers.inducers.record_fields import build_fields
from scrapy_records.wrappers.inducers.record_selector import (
    choose_record_selector,
    record_groups,
    record_layout,
)
from scrapy_records.wrappers.model import Health, Provenance
from scrapy_records.wrappers.templates import template_info

if TYPE_CHECKING:  # the Wrapper class is passed in: wrapper.py imports this module
    from scrapy_records.wrappers.wrapper import Wrapper


def region_wrapper(
    region: Region,
    page: Any,
    *,
    wrapper_cls: type[Wrapper],
    min_fill: float = 0.3,
    max_fields: int = 40,
    site: str | None = None,
    extractor: str | None = None,
    template_id: str | None = None,
) -> Wrapper:
    """A verified wrapper (of class ``wrapper_cls``) for ``region``'s records on ``page``.

    :param min_fill: a feature becomes a field when at least this share of records has it.
    :param max_fields: keep at most this many fields (the most frequent).
    :param site: site key (default: the page URL's host).
    :param extractor: provenance (default: ``region.extractor``).
    :param template_id: the template cluster id to store (default: the page signature's id).
    :raises WrapperError: the region has no records that resolve on the page.
    """
    page = as_page(page)
    sel = PageSelectors(page)
    groups = record_groups(page, region)
    if not groups:
        raise WrapperError("cannot build a wrapper: the region has no records on this page")
    size, span = record_layout(sel, groups)
    firsts = [g[0] for g in groups]
    rec = choose_record_selector(sel, firsts, size if span == "fixed" else 1)
    if rec is None:  # pragma: no cover - the union candidate is always exact
        raise WrapperError("no record selector reproduces the region's records")
    rec.size, rec.span = size, span
    fields, lists, fill, _verified = build_fields(
        sel, groups, size, min_fill=min_fill, max_fields=max_fields
    )
    if region.columns:  # the region's columns are the schema (same keys as mining)
        fields, fill = column_fields([page], [region], rec, wrapper_cls, fields)
        lists = []
    site = site or site_of(page.url)
    n = len(groups)
    w = wrapper_cls(
        id=wrapper_cls.make_id(
            site, rec.xpath, [f.xpath for f in fields], [x.record.xpath for x in lists]
        ),
        record=rec,
        fields=fields,
        lists=lists,
        site=site,
        template=template_info(page, template_id),
        provenance=Provenance(
            extractor=extractor or region.extractor,
            sample_urls=[page.url] if page.url else [],
            options={"min_fill": min_fill, "max_fields": max_fields},
        ),
        health=Health(expected_records=(n, n), fill_rates=fill),
    )
    w.validate()
    return w
