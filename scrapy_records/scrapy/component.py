"""What every Scrapy component of the integration starts from."""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import NotConfigured

from scrapy_records.scrapy.runtime import RecordsRuntime


class RecordsComponent:
    """The crawler's shared :class:`RecordsRuntime` and configuration, its stats, and
    ``NotConfigured`` (silently: the user's choice) when ``RECORDS_ENABLED`` is ``False``."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.runtime = RecordsRuntime.for_crawler(crawler)
        self.config = self.runtime.config
        if not self.config.enabled:
            raise NotConfigured
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> Any:
        return cls(crawler)
