"""Feed exporters of the Scrapy integration.

:class:`JsonCellCsvItemExporter` is Scrapy's CSV exporter with one difference: a ``dict``,
``list`` or ``tuple`` value (``RecordItem.fields``, ``RecordItem.xpaths``,
``WrapperItem.document``...) is written as JSON (``{"date": "2026-01-10", "author":
"frank"}``) instead of Python's ``repr`` (``{'date': ...}``) or a comma-joined list, so the
cell can be read back with any JSON parser. It changes only CSV: JSON and JSON Lines feeds
keep nested objects. Enable it for every CSV feed of a project::

    FEED_EXPORTERS = {"csv": "scrapy_records.scrapy.exporters.JsonCellCsvItemExporter"}

(the example project does), or register it under another format name (``FEED_EXPORTERS =
{"csvjson": ...}``) and use ``"format": "csvjson"`` in the feeds that should have it.
"""

from __future__ import annotations

import json
from typing import Any

from scrapy.exporters import CsvItemExporter


def json_cell(value: Any) -> Any:
    """``value`` as a CSV cell: containers as compact JSON, anything else unchanged."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


class JsonCellCsvItemExporter(CsvItemExporter):
    """CSV exporter writing ``dict``/``list`` values as JSON cells (see the module docstring)."""

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        serializer = field.get("serializer") if hasattr(field, "get") else None
        if serializer is None:
            value = json_cell(value)
        return super().serialize_field(field, name, value)
