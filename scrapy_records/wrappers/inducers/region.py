"""A wrapper from one extractor region on one page (``Wrapper.from_region``): the record
selector, the fields and nested lists, verified on the page, named as the extractor named
its columns when the values agree.

Options of :func:`region_wrapper`: ``min_fill`` (0.3), ``max_fields`` (40), ``site`` (the
page's host), ``extractor`` (the region's), ``template_id`` (the page signature's id).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy_records.errors import WrapperError
from scrapy_records.page import Page, as_page
from scrapy_records.results import Region
from scrapy_records.wrappers.apply import CompiledWrapper
from scrapy_records.wrappers.inducers.page_selectors import PageSelectors
from scrapy_records.wrappers.inducers.record_fields import build_fields
from scrapy_records.wrappers.inducers.record_selector import (
    choose_record_selector,
    record_groups,
    record_layout,
)
from scrapy_records.wrappers.model import FIELD_TYPES, FieldSpec, Health, Provenance
from scrapy_records.wrappers.selectors import site_of
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
    if region.columns:
        adopt_column_names(w, region, page)
    w.validate()
    return w


def _agreement(mine: list[Any], theirs: list[Any]) -> tuple[int, int]:
    """(records where both values are equal, records where either has a value)."""
    either = sum(1 for a, b in zip(mine, theirs) if a is not None or b is not None)
    same = sum(1 for a, b in zip(mine, theirs) if a is not None and str(a) == str(b))
    return same, either


def _apply(w: Wrapper, page: Page) -> list[Any]:
    """The records ``w`` extracts from its own sample page."""
    res = CompiledWrapper(w).apply(page.root, page.url, page)
    return res.regions[0].records if res.regions else []


def adopt_column_names(w: Wrapper, region: Region, page: Page, min_agree: float = 0.8) -> None:
    """Name the wrapper's fields as the extractor named its columns (same values).

    The wrapper is applied to its own sample page; a field whose values equal a column's
    values on at least ``min_agree`` of the records holding either takes that column's
    name (and type, when it is a wrapper type), so ``wrapper.extract`` and
    ``scrapy_records.extract`` emit the same keys. Greedy, best agreement first.
    """
    got = _apply(w, page)
    if len(got) != len(region.records):
        return
    pairs = []
    for f in w.fields:
        fv = [r.fields.get(f.name) for r in got]
        for c in region.columns:
            same, either = _agreement(fv, [r.fields.get(c.name) for r in region.records])
            if either and same / either >= min_agree:
                pairs.append((same / either, f.name, c))
    # best agreement first; on a tie a field keeps a column of its own name ("text" and the
    # aligner's "field_3" can hold the same values: the extractor's own name wins)
    pairs.sort(key=lambda x: (-x[0], x[2].name != x[1]))
    renamed: dict[str, tuple[str, str]] = {}
    taken_cols: set[str] = set()
    for _score, fname, col in pairs:
        if fname in renamed or col.name in taken_cols:
            continue
        renamed[fname] = (col.name, col.type)
        taken_cols.add(col.name)
    if not renamed:
        return
    final = {f.name for f in w.fields if f.name not in renamed} | {n for n, _t in renamed.values()}
    if len(final) != len(w.fields):
        return  # a clash with a field keeping its own name: keep the wrapper's names
    fill = {}
    for f in w.fields:
        old = f.name
        if old in renamed:
            f.name, ctype = renamed[old]
            if (
                ctype in FIELD_TYPES
                and ctype != f.type
                and not (f.attribute and ctype not in ("url", "image"))
            ):
                f.type = ctype
        fill[f.name] = w.health.fill_rates.get(old, 1.0)
    w.health.fill_rates = fill
    _add_raw_companions(w, region, page, taken_cols | final, min_agree)


def _add_raw_companions(
    w: Wrapper, region: Region, page: Page, taken: set[str], min_agree: float
) -> None:
    """MiBAT's records carry ``date`` (ISO) *and* ``date_raw`` (the text as written): give
    a typed field ``<name>`` a text twin ``<name>_raw`` when the region has that column and
    the twin's values agree with it, so wrapper pages emit the same keys as mined ones."""
    by_name = {c.name: c for c in region.columns}
    twins = []
    for f in w.fields:
        raw = f"{f.name}_raw"
        if f.type in ("date", "number", "price") and raw in by_name and raw not in taken:
            twins.append(
                FieldSpec(raw, "text", f.xpath, f.css, f.attribute, f.optional, f.multiple)
            )
    if not twins:
        return
    w.fields.extend(twins)
    got = _apply(w, page)
    keep = []
    for t in twins:
        fv = [r.fields.get(t.name) for r in got]
        same, either = _agreement(fv, [r.fields.get(t.name) for r in region.records])
        if len(got) == len(region.records) and either and same / either >= min_agree:
            keep.append(t)
            base = t.name[: -len("_raw")]
            w.health.fill_rates[t.name] = w.health.fill_rates.get(base, 1.0)
    w.fields = [f for f in w.fields if f not in twins or f in keep]
