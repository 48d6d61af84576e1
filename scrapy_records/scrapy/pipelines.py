"""The item pipeline: drop low-confidence records, emit each wrapper once, validate and persist
wrappers, optionally flatten record fields into columns or write one CSV per template."""

from __future__ import annotations

import glob
import logging
import os
import re
from typing import Any

from scrapy import signals
from scrapy.exceptions import DropItem

from scrapy_records.errors import WrapperError
from scrapy_records.scrapy.component import RecordsComponent
from scrapy_records.scrapy.exporters import RowSpool, flat_record, read_csv_rows
from scrapy_records.scrapy.items import RecordItem, WrapperItem
from scrapy_records.scrapy.store import StoreError, VersionConflict
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)


class RecordsPipeline(RecordsComponent):
    """See the module docstring. Priority 300 in the add-on."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self._csv: dict[str, RowSpool] = {}
        # a crawl resumed from its JOBDIR adds to the per-template CSVs of the first run
        self._append = bool(crawler.settings.get("JOBDIR"))
        # per-template rows wait for their item to pass every pipeline (id of the item the
        # pipeline returned -> (CSV path, row)): a record a later pipeline drops, or one a
        # crawl stopped at once never hands to the feeds, is no row either
        self._pending: dict[int, tuple[str, dict[str, Any]]] = {}
        if self.config.csv_per_template:
            crawler.signals.connect(self._scraped, signal=signals.item_scraped)
            crawler.signals.connect(self._not_scraped, signal=signals.item_dropped)
            crawler.signals.connect(self._not_scraped, signal=signals.item_error)

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
        out = flat_record(item, self.config.flatten_prefix) if self.config.flatten_fields else item
        if self.config.csv_per_template:
            self._pending[id(out)] = (self._csv_path(item), flat_record(item))
        return out

    def _scraped(self, item: Any) -> None:
        pending = self._pending.pop(id(item), None)
        if pending is not None:
            self._write_csv(*pending)

    def _not_scraped(self, item: Any) -> None:
        self._pending.pop(id(item), None)

    def _wrapper(self, item: WrapperItem) -> Any:
        """Store a wrapper nobody stored yet, then emit it once.

        The engine already tried to store the wrappers it induced: ``stored`` is ``True``, or
        ``store_error`` says why the store did not take it (an outage: the Redis store queued
        the write and replays it, compare-and-set, when Redis is back), so such an item is
        never written again here. Other wrapper items (yielded by a spider) are validated
        first (an invalid document is dropped and counted, ``records/wrapper/invalid``),
        then stored compare-and-set on ``base_version``, the version they were based on (``None``:
        create), never on the version stored now: a wrapper another worker stored meanwhile
        wins (logged, ``stored`` stays ``False``).
        """
        store = self.runtime.store
        if not item.get("stored") and not item.get("store_error") and store is not None:
            text = self._valid_document(item)
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

    def _valid_document(self, item: WrapperItem) -> str:
        """The item's wrapper document as JSON, once it validates as a whole
        (:meth:`Wrapper.from_dict`: every selector of an allowed form): a spider's wrapper
        goes to a store every worker of the site loads from. An invalid one is dropped."""
        doc = item.get("document")
        site, template = item.get("site"), item.get("template")
        try:
            if not (isinstance(site, str) and site and isinstance(template, str) and template):
                raise WrapperError(f"site and template must be names, not {site!r}/{template!r}")
            if isinstance(doc, (str, bytes)):
                wrapper = Wrapper.from_json(doc)
            else:
                wrapper = Wrapper.from_dict(doc)
            return wrapper.to_json()
        except WrapperError as exc:
            self.stats.inc_value("records/wrapper/invalid")
            logger.warning(
                "scrapy_records: invalid wrapper item %s/%s dropped: %s", site, template, exc
            )
            raise DropItem(f"invalid wrapper document: {exc}") from exc

    def _adopt_spools(self) -> None:
        """The spools an interrupted run left for templates this run saw no record of (a
        resumed crawl whose JOBDIR had them all done): their rows still go to the CSVs."""
        pattern = self.config.csv_per_template % {"site": "*", "template": "*"}
        for rows in glob.glob(glob.escape(pattern).replace("[*]", "*") + ".rows"):
            path = rows[: -len(".rows")]
            if path not in self._csv:
                self._csv[path] = RowSpool(path=rows)

    def _csv_path(self, item: RecordItem) -> str:
        return str(
            self.config.csv_per_template
            % {
                "site": _filename(item.get("site") or "site"),
                "template": _filename(item.get("template_name") or item.get("template") or "page"),
            }
        )

    def _write_csv(self, path: str, row: dict[str, Any]) -> None:
        """Add a scraped record's row to its template's CSV: rows are spooled and the file is
        written at the end with one column per field seen (:class:`RowSpool`), so a field
        that first appears in a late record (an optional one, or one a newer wrapper adds)
        is kept.

        The spool is ``<file>.rows`` (JSON lines, flushed row by row): a crawl stopped
        without closing (Ctrl-C twice, a killed process) leaves its rows there, and a crawl
        resumed from the ``JOBDIR`` writes them to the CSV with its own (a new crawl
        starts the file and the spool afresh)."""
        spool = self._csv.get(path)
        if spool is None:
            rows = f"{path}.rows"
            if not self._append and os.path.exists(rows):
                os.remove(rows)
            spool = self._csv[path] = RowSpool(path=rows)
        spool.add(row)

    def close_spider(self) -> None:
        # the rows of items another pipeline replaced by a new object (their signal named
        # that object): written now, not lost
        pending, self._pending = self._pending, {}
        for path, row in pending.values():
            self._write_csv(path, row)
        if self._append and self.config.csv_per_template:
            self._adopt_spools()
        for path, spool in self._csv.items():
            table = RowSpool()
            if self._append:  # the rows of the runs before this one
                for row in read_csv_rows(path):
                    table.add(row)
            for row in spool.read():
                table.add(row)
            tmp = f"{path}.tmp"
            with open(tmp, "w", newline="", encoding="utf-8") as f:
                table.write(f)
            os.replace(tmp, path)  # a reader never sees half a file
            table.close()
            spool.close(remove=True)
            logger.info("scrapy_records: %d records written to %s", table.rows, path)


def _filename(text: str) -> str:
    """``text`` safe as a file name part."""
    return re.sub(r"[^\w.-]+", "_", str(text)).strip("._") or "x"
