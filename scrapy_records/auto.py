"""The ``auto`` policy: which extractor(s) run on a page, and how their regions are ranked.

Current rule: run MDR and rank its regions with :mod:`scrapy_records.ranking`.
(Updated as STEM, MiBAT and the other extractors land; see the README.)
"""

from __future__ import annotations

from typing import Any

from .extractors import get_extractor
from .page import Page
from .ranking import rank
from .results import Region


def run_extractor(page: Page, name: str, **options: Any) -> list[Region]:
    """Run extractor ``name`` (or the ``auto`` policy) and return ranked regions."""
    if name == "auto":
        return auto_extract(page, **options)
    return rank(page, get_extractor(name).extract(page, **options))


def auto_extract(page: Page, **options: Any) -> list[Region]:
    return rank(page, get_extractor("mdr").extract(page, **options))
