"""Field alignment (placeholder until partial tree alignment lands).

Contract: ``align_records(page, groups) -> (columns, values)`` where ``groups`` is one tuple
of root node indices per record, ``columns`` a list of :class:`~scrapy_records.results.Column`
and ``values`` one ordered ``{column name: value}`` dict per record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .page import Page
from .results import Column


def align_records(page: Page, groups: Sequence[Sequence[int]]) -> tuple[list[Column], list[dict[str, Any]]]:
    values = [{"text": page.texts(g)} for g in groups]
    return [Column("text", "text", 1.0)], values
