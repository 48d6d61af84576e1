"""What the demo spiders share: serve the demo site on 127.0.0.1 and say where the output went."""

from __future__ import annotations

import glob
import os
import time
from urllib.parse import urljoin

import scrapy

from ..site import DemoSite


class DemoSpider(scrapy.Spider):
    """Serves the bundled demo site for the crawl unless ``-a site=URL`` (or the
    ``DEMO_SITE_URL`` setting) points at one already running."""

    site_url: str | None = None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider._demo = None
        spider._started = time.time() - 1.0
        url = kwargs.get("site") or crawler.settings.get("DEMO_SITE_URL")
        if not url:
            spider._demo = DemoSite().start()
            url = spider._demo.url
            spider.logger.info("Demo site serving on %s", url)
        spider.site_url = url if url.endswith("/") else url + "/"
        return spider

    def demo_url(self, path: str) -> str:
        return urljoin(self.site_url, path.lstrip("/"))

    def closed(self, reason: str) -> None:
        if getattr(self, "_demo", None) is not None:
            self._demo.stop()
        outputs = []
        for uri in self.settings.getdict("FEEDS") or {}:
            path = str(uri) % {"name": self.name}
            if os.path.exists(path):
                outputs.append(os.path.relpath(path))
        pattern = self.settings.get("RECORDS_CSV_PER_TEMPLATE")
        if pattern:  # one CSV per page template, one column per record field
            started = getattr(self, "_started", 0.0)
            for path in sorted(glob.glob(str(pattern) % {"site": "*", "template": "*"})):
                if os.path.getmtime(path) >= started:
                    outputs.append(os.path.relpath(path) + "  (one template, one column per field)")
        if outputs:
            print(
                f"\n[{self.name}] records written to:\n  " + "\n  ".join(outputs) + "\n", flush=True
            )
