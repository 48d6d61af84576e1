"""``scrapy crawl records -a url=URL[,URL...] [-a depth=N]``: the generic spider.

Mines every page it reaches, follows pagination (``RECORDS_FOLLOW_PAGINATION``) and same-site
links up to ``depth`` (default ``DEPTH_LIMIT`` or 2). Without ``url`` it crawls the demo site.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import scrapy
from scrapy.linkextractors import LinkExtractor

from .base import DemoSpider


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").removeprefix("www.")


class RecordsSpider(DemoSpider):
    name = "records"
    custom_settings = {"RECORDS_FOLLOW_PAGINATION": True}

    def __init__(self, url: str | None = None, depth: str | int | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.urls = [u.strip() for u in (url or "").split(",") if u.strip()]
        self.max_depth = int(depth) if depth is not None else None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        if kwargs.get("url"):
            kwargs.setdefault("site", kwargs["url"].split(",")[0])
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.max_depth is None:
            spider.max_depth = crawler.settings.getint("DEPTH_LIMIT") or 2
        return spider

    async def start(self):
        urls = self.urls or [self.site_url]
        self.allowed = {_host(u) for u in urls}
        self.links = LinkExtractor()
        for u in urls:
            yield scrapy.Request(u, callback=self.parse, cb_kwargs={"level": 0})

    def parse(self, response, level: int = 0):
        if level >= self.max_depth or not hasattr(response, "text"):
            return
        for link in self.links.extract_links(response):
            if _host(link.url) not in self.allowed:
                continue
            yield scrapy.Request(link.url, callback=self.parse, cb_kwargs={"level": level + 1})
