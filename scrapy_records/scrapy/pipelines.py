"""The item pipeline: drop low-confidence records, emit each wrapper once, persist wrappers,
optionally flatten record fields into columns or write one CSV per template."""

from __future__ import annotations

import csv
import json
import logging
import os
from typing import Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from scrapy_records.scrapy.component import RecordsComponent
from scrapy_records.scrapy.exporters import JsonCellCsvItemExporter
from scrapy_records.scrapy.items import RecordItem, WrapperItem
from scrapy_records.scrapy.store import StoreError, VersionConflict

logger = logging.getLogger(__name__)

#: RecordItem columns kept in a flattened record, before the record's own fields.
FLAT_BASE = (
    "url",
    "site",
    "template",
    "wrapper_id",
    "wrapper_version",
    "region",
    "index",
    "confidence",
    "extractor",
)


def flatten_record(item: Any, prefix: str = "") -> dict[str, Any]:
    """A flat dict: the RecordItem's metadata columns then one key per record field
    (lists are joined with `` | ``; a field named like a metadata column, e.g. ``url``,
    becomes ``record_url``)."""
    a = ItemAdapter(item)
    out = {k: a.get(k) for k in FLAT_BASE}
    for name, value in (a.get("fields") or {}).items():
        if isinstance(value, list):
            value = " | ".join(str(v) for v in value)
        key = f"{prefix}{name}"
        if key in FLAT_BASE:  # a record field named like a metadata column ("url")
            key = f"record_{name}"
        out[key] = value
    return out


def _widen_csv_header(path: str, first: int, header: list[str]) -> None:
    """Rewrite ``path`` with ``header`` (its first ``first`` columns are the file's header,
    the rest were added while writing) and pad the rows written before a column existed.
    Streams through a temporary file next to it, then replaces it atomically."""
    tmp = f"{path}.tmp"
    with (
        open(path, newline="", encoding="utf-8") as src,
        open(tmp, "w", newline="", encoding="utf-8") as dst,
    ):
        reader = csv.reader(src)
        writer = csv.writer(dst)
        next(reader, None)
        writer.writerow(header)
        width = len(header)
        for r in reader:
            writer.writerow(r + [""] * (width - len(r)) if len(r) < width else r)
    os.replace(tmp, path)
    logger.info(
        "scrapy_records: %s: %d columns appeared after the first records (%s); header rewritten",
        path,
        width - first,
        ", ".join(header[first:]),
    )


class RecordsPipeline(RecordsComponent):
    """See the module docstring. Priority 300 in the add-on."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self._csv: dict[str, tuple[Any, Any, list[str]]] = {}

    def process_item(self, item: Any) -> Any:
        if isinstance(item, RecordItem):
            return self._record(item)
        if isinstance(item, WrapperItem):
            return self._wrapper(item)
        return item

    def _record(self, item: RecordItem) -> Any:
        conf = item.get("confidence")
        if conf is not None and conf < self.config.min_confidence:
            self.stats.inc_value("records/dropped/low_confidence")
            raise DropItem(
                f"record confidence {conf} < RECORDS_MIN_CONFIDENCE {self.config.min_confidence}",
                log_level="DEBUG",
            )
        self.stats.inc_value("records/records_emitted")
        if self.config.csv_per_template:
            self._write_csv(item)
        if self.config.flatten_fields:
            return flatten_record(item, self.config.flatten_prefix)
        return item

    def _wrapper(self, item: WrapperItem) -> Any:
        """Store a wrapper nobody stored yet, then emit it once.

        The engine already tried to store the wrappers it induced: ``stored`` is ``True``, or
        ``store_error`` says why the store did not take it (an outage: the Redis store queued
        the write and replays it, compare-and-set, when Redis is back), so such an item is
        never written again here. Other wrapper items (yielded by a spider) are stored
        compare-and-set on ``base_version``, the version they were based on (``None``:
        create), never on the version stored now: a wrapper another worker stored meanwhile
        wins (logged, ``stored`` stays ``False``).
        """
        store = self.runtime.store
        if not item.get("stored") and not item.get("store_error") and store is not None:
            doc = item.get("document")
            text = (
                doc if isinstance(doc, str) else json.dumps(doc, sort_keys=True, ensure_ascii=False)
            )
            try:
                item["version"] = store.put(
                    item["site"],
                    item["template"],
                    text,
                    expected_version=item.get("base_version"),
                )
                item["stored"] = True
            except VersionConflict as exc:
                logger.warning(
                    "scrapy_records: wrapper not stored, the store has a newer one: %s", exc
                )
                item["store_error"] = str(exc)
            except StoreError as exc:
                logger.warning("scrapy_records: wrapper not stored: %s", exc)
                item["store_error"] = str(exc)
        if not self.runtime.first_emission(
            item["site"], item["template"], item.get("version"), by="pipeline"
        ):
            raise DropItem("wrapper already emitted", log_level="DEBUG")
        self.stats.inc_value("records/wrapper/emitted")
        return item

    def _write_csv(self, item: RecordItem) -> None:
        """Append the record to its template's CSV. A field the file has no column for yet
        (an optional field the first records lacked, a field a newer wrapper version adds)
        gets a new column at the end: later rows carry it, and :meth:`close_spider`
        rewrites the header (and pads the earlier rows) once, so no value is dropped."""
        path = self.config.csv_per_template % {
            "site": item.get("site") or "site",
            "template": item.get("template") or "none",
        }
        row = flatten_record(item, self.config.flatten_prefix)
        entry = self._csv.get(path)
        if entry is None:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            f = open(path, "wb")
            exporter = JsonCellCsvItemExporter(
                f, fields_to_export=list(row), include_headers_line=True
            )
            exporter.start_exporting()
            entry = self._csv[path] = (f, exporter, list(row))
        exporter = entry[1]
        if any(k not in exporter.fields_to_export for k in row):
            exporter.fields_to_export = list(exporter.fields_to_export) + [
                k for k in row if k not in exporter.fields_to_export
            ]
        exporter.export_item(row)

    def close_spider(self) -> None:
        for path, (f, exporter, cols) in self._csv.items():
            exporter.finish_exporting()
            f.close()
            final = list(exporter.fields_to_export)
            if len(final) > len(cols):
                _widen_csv_header(path, len(cols), final)
            logger.info("scrapy_records: records written to %s", path)
