"""DCADE end to end: encode the leaves, align them, build the schema, then the wrapper
(Yuliana & Chang 2019, section 3.3, Algorithm 1)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from scrapy_records.errors import RecordsError
from scrapy_records.page import as_page
from scrapy_records.wrappers.inducers.dcade.encoding import Encoding
from scrapy_records.wrappers.inducers.dcade.finalize import build_schema
from scrapy_records.wrappers.inducers.dcade.options import resolve_options
from scrapy_records.wrappers.inducers.dcade.schema import Schema
from scrapy_records.wrappers.inducers.dcade.segments import SegmentAligner
from scrapy_records.wrappers.inducers.dcade.wrapper import schema_to_wrapper
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)

#: options of :func:`induce_wrapper` that go to :func:`schema_to_wrapper`
_WRAPPER_OPTIONS = ("site", "verify")


def induce_schema(pages: Sequence[Any], **options: Any) -> Schema:
    """Run DCADE on pages of one template and return the aligned :class:`Schema`.

    ``pages``: :class:`~scrapy_records.page.Page` objects (or anything :func:`as_page`
    accepts). Options: see :data:`DEFAULT_OPTIONS` (unknown options raise ``TypeError``).
    Fewer than 2 pages raise :class:`~scrapy_records.errors.RecordsError`; fewer than 5
    are accepted with a warning (with so few pages nearly every pattern is frequent).
    """
    o = resolve_options(options)
    page_list = [as_page(p) for p in pages]
    if len(page_list) < 2:
        raise RecordsError("DCADE needs at least 2 pages of one template")
    if len(page_list) < 5:
        logger.warning("dcade: inducing from %d pages; 5 or more recommended", len(page_list))
    t0 = time.perf_counter()
    enc = Encoding(page_list, o)
    t1 = time.perf_counter()
    table, mts = SegmentAligner(enc, o).run()
    t2 = time.perf_counter()
    schema = build_schema(enc, o, table, mts)
    schema.pages = page_list
    schema.page_leaves = enc.leaves
    schema.timings = {"encode": t1 - t0, "align": t2 - t1, "finalize": time.perf_counter() - t2}
    return schema


def induce_wrapper(pages: Sequence[Any], **options: Any) -> Wrapper:
    """Induce a :class:`~scrapy_records.wrappers.model.Wrapper` from pages of one template.

    Options ``site`` and ``verify`` go to :func:`schema_to_wrapper`; the rest to
    :func:`induce_schema`.
    """
    wopts = {k: options.pop(k) for k in list(options) if k in _WRAPPER_OPTIONS}
    schema = induce_schema(pages, **options)
    return schema_to_wrapper(schema, **wopts)
