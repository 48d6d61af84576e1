"""The ``auto`` policy: which extractor(s) run on a page, and how their regions are ranked.

Current rule: run MDR and rank its regions with :mod:`scrapy_records.ranking`.
(Updated as STEM, MiBAT and the other extractors land; see the README.)
"""

from __future__ import annotations

from typing import Any

from .extractors import BUILTIN_EXTRACTORS, get_extractor
from .page import Page
from .ranking import rank
from .results import Region


def run_extractor(page: Page, name: str, *, defer_alignment: bool = False, **options: Any) -> list[Region]:
    """Run extractor ``name`` (or the ``auto`` policy) and return ranked regions.

    :param defer_alignment: built-in extractors skip field alignment (``align=False``);
        the caller aligns the regions it keeps (:func:`scrapy_records.extract` does).
        Third-party extractors are called unchanged.
    """
    if defer_alignment and "align" not in options and (name == "auto" or name in BUILTIN_EXTRACTORS):
        options["align"] = False
    if name == "auto":
        return auto_extract(page, **options)
    return rank(page, get_extractor(name).extract(page, **options))


def auto_extract(page: Page, **options: Any) -> list[Region]:
    return rank(page, get_extractor("mdr").extract(page, **options))
