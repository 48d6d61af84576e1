"""induce(): one wrapper from pages of one template (the inducer registry it reads is
:mod:`scrapy_records.wrappers.registry`).

An inducer is a function ``fn(pages: list[Page], **options) -> Wrapper``. ``induce(pages,
extractor=name)`` looks ``name`` up in this order:

1. inducers registered at run time with :func:`register_inducer`;
2. the built-ins, :data:`INDUCERS` (``"gstm"``, ``"dcade"``: import paths, imported on
   first use);
3. the entry point group ``scrapy_records.inducers`` of installed packages (the entry
   point's value is the inducer function), e.g. in ``setup.cfg``::

       [options.entry_points]
       scrapy_records.inducers =
           mine = my_package.inducer:induce_wrapper

Any other name is a single-page extractor's (``"auto"``, ``"mdr"``...): intersection
induction over its regions (:mod:`scrapy_records.wrappers.inducers.intersect`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from scrapy_records.errors import OptionError, WrapperError
from scrapy_records.fields.naming import label_name
from scrapy_records.page import PAGE_OPTIONS, Page, as_page
from scrapy_records.results import DEMOTIONS, Region
from scrapy_records.wrappers.registry import (
    DCADE_MIN_PAGES,
    ENTRY_POINT_GROUP,
    INDUCERS,
    get_inducer,
    inducer_registered_here,
    register_inducer,
)
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)


__all__ = [
    "induce",
    "register_inducer",
    "inducer_registered_here",
    "INDUCERS",
    "ENTRY_POINT_GROUP",
    "DCADE_MIN_PAGES",
]


def _looks_url(x: Any) -> bool:
    return (
        isinstance(x, str) and len(x) < 4096 and "<" not in x and ("://" in x or x.startswith("/"))
    )


def as_pages(pages: Iterable[Any], page_options: dict[str, Any]) -> list[Page]:
    """``induce()``'s pages as :class:`Page` objects (``(url, source)`` pairs in either order)."""
    out = []
    for p in pages:
        if isinstance(p, Page):
            out.append(p)
        elif isinstance(p, tuple) and len(p) == 2:
            url, src = p
            if url is not None and _looks_url(src) and not _looks_url(url):
                url, src = src, url  # (html, url) given: accept both orders
            out.append(as_page(src, url, **page_options))
        else:
            out.append(as_page(p, None, **page_options))
    return out


#: ``induce(extractor="auto")`` treats a template as detail pages when, on the median page,
#: less than this share of the text that varies across the sample pages lies in the main
#: region's records (on a list page nearly all of it does: the records are the data) ...
DETAIL_VARYING_SHARE = 0.5
#: ... or when at least this share of the main region's records are label rows: each holds
#: a label of its own (a text found once on every sample page) and a value that varies, as
#: the rows of a product's specification table do (a list repeats one layout in every row)
DETAIL_LABEL_ROWS = 0.5
#: the lists of a page whose records count as its records in the check (the best two)
DETAIL_LISTS = 2
#: the options intersection induction consumes; the others go to the extractor
_INTERSECT_OPTIONS = ("min_fill", "max_fields", "site", "page_fields", "template_id")


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else 0.0


#: What :func:`detail_template` compares of one page: its text leaves, and the leaves of
#: each record of its main region (``None``: the page has no region of two records or more).
DetailEvidence = tuple[list[str], "list[list[str]] | None"]


def detail_evidence(page: Page, regions: Sequence[Region]) -> DetailEvidence:
    """What :func:`detail_template` needs of ``page`` mined into ``regions``, as plain data
    (a crawl's worker sends it back with the page's records: the check then parses nothing
    again): the leaves of the records of the page's :data:`DETAIL_LISTS` best lists of two
    records or more that are not demoted as chrome (a search page often has two: products
    and news, web results and images)."""
    kept = (r for r in regions if len(r.records) >= 2 and not any(k in r.meta for k in DEMOTIONS))
    lists = list(kept)[:DETAIL_LISTS]
    if not lists:
        return list(page.leaves), None
    leaves, lo, hi = page.leaves, page.leaf_lo, page.leaf_hi
    seen: set[int] = set()
    records = []
    for region in lists:
        for rec in region.records:
            ks = [k for x in rec.nodes for k in range(lo[x], hi[x]) if k not in seen]
            seen.update(ks)
            records.append([leaves[k] for k in ks])
    return list(leaves), records


def detail_template(pages: Sequence[Page], ranked: Sequence[Sequence[Region]]) -> bool:
    """Whether pages of one template describe one object each rather than list records
    (:data:`DETAIL_VARYING_SHARE`, :data:`DETAIL_LABEL_ROWS`)."""
    return detail_evidenced([detail_evidence(p, r) for p, r in zip(pages, ranked)])


def detail_evidenced(evidence: Sequence[DetailEvidence]) -> bool:
    """:func:`detail_template` on the pages' :func:`detail_evidence`."""
    m = len(evidence)
    present: Counter[str] = Counter()
    once: Counter[str] = Counter()
    for leaves, _records in evidence:
        counts = Counter(leaves)
        present.update(counts)
        once.update(t for t, n in counts.items() if n == 1)
    shares, label_rows = [], []
    for leaves, records in evidence:
        varying = sum(len(t) for t in leaves if present[t] < m) or 1
        if not records:
            shares.append(0.0)
            label_rows.append(0.0)
            continue
        inside, rows = 0, 0
        for texts in records:
            inside += sum(len(t) for t in texts if present[t] < m)
            labels = {t for t in texts if once[t] == m and label_name(t)}
            rows += bool(labels) and any(present[t] < m for t in texts)
        shares.append(inside / varying)
        label_rows.append(rows / len(records))
    return _median(shares) < DETAIL_VARYING_SHARE or _median(label_rows) >= DETAIL_LABEL_ROWS


def induce(pages: Iterable[Any], extractor: str = "auto", **options: Any) -> Wrapper:
    """Induce one wrapper from pages of one template.

    :param pages: ``(url, html or Response)`` pairs, :class:`~scrapy_records.page.Page`
        objects or raw sources (``str``/``bytes``/``Response``).
    :param extractor: ``"auto"``/a single-page extractor name (intersection induction,
        :func:`intersect_induce`), ``"gstm"``/``"dcade"`` (their pattern inducers) or a
        registered inducer's name (module docstring). ``"auto"`` prefers DCADE for *detail-page*
        templates: with ``DCADE_MIN_PAGES`` (5) or more pages of which :func:`detail_template`
        says they describe one object each (the text that varies across them lies mostly
        outside the main region's records, or those records are label/value rows), DCADE's
        schema gives one record per page with its named fields; otherwise intersection
        induction over the ``auto`` extractor's main regions.
    :param options: page budgets (``max_bytes``, ``max_nodes``, ``max_depth``,
        ``encoding``), inducer options and extractor options; ``regions``: the ranked
        regions :func:`scrapy_records.extract` already gave for each page (a crawl passes
        what it mined: the pages are not mined again, and the wrapper's field names are
        those of the records already emitted).
    :raises WrapperError: no records and no page data hold on the pages.
    """
    # imported here: ``scrapy_records.wrappers`` (and a crawl applying stored wrappers)
    # does not load the inducers, nor the extractors behind them
    from scrapy_records.wrappers.inducers.intersect import intersect_induce, mined_regions

    page_opts = {k: options.pop(k) for k in PAGE_OPTIONS if k in options}
    regions = options.pop("regions", None)
    plist = as_pages(pages, page_opts)
    if regions is not None and len(regions) != len(plist):
        raise OptionError(f"induce(): {len(regions)} region lists for {len(plist)} pages")
    if not plist:
        raise WrapperError("induce() needs at least one page")
    if extractor == "auto" and len(plist) >= DCADE_MIN_PAGES:
        extractor_opts = {k: v for k, v in options.items() if k not in _INTERSECT_OPTIONS}
        ranked = regions or [mined_regions(p, "auto", extractor_opts) for p in plist]
        if detail_template(plist, ranked):
            fn = get_inducer("dcade")
            if fn is not None:
                logger.debug("auto induction: detail-page template, using dcade")
                w = fn(plist, **{k: v for k, v in options.items() if k == "site"})
                if options.get("template_id"):
                    w.template.id = options["template_id"]
                return w.validate()
        return intersect_induce(plist, extractor, regions=ranked, **options)
    fn = get_inducer(extractor)
    if fn is not None:
        w = fn(plist, **options)
        if not isinstance(w, Wrapper):
            raise WrapperError(f"inducer {extractor!r} returned {type(w).__name__}, not a Wrapper")
        return w.validate()
    return intersect_induce(plist, extractor, regions=regions, **options)
