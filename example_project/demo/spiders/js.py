"""``scrapy crawl js``: a page whose list is rendered by JavaScript, fetched through
scrapy-playwright with Chromium (``RECORDS_PLAYWRIGHT`` makes the add-on install the
handlers and the browser path; ``RECORDS_PLAYWRIGHT_AUTO`` would instead re-request only
pages that look like empty JavaScript shells)."""

from __future__ import annotations

import scrapy

from .base import DemoSpider


class JsSpider(DemoSpider):
    name = "js"
    custom_settings = {"RECORDS_PLAYWRIGHT_AUTO": True, "RECORDS_WRAPPERS": False}

    async def start(self):
        yield scrapy.Request(self.demo_url("/js/"), callback=self.parse)

    def parse(self, response):
        yield {
            "kind": "page",
            "url": response.url,
            "rendered": bool(response.meta.get("playwright")),
        }
