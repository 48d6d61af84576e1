"""``scrapy crawl forum``: the forum thread's posts, page after page. The spider yields no
items and follows no links itself: ``RECORDS_FOLLOW_PAGINATION`` finds the next pages."""

from __future__ import annotations

import scrapy

from .base import DemoSpider


class ForumSpider(DemoSpider):
    name = "forum"
    custom_settings = {"RECORDS_FOLLOW_PAGINATION": True}

    async def start(self):
        yield scrapy.Request(self.demo_url("/forum/thread/1"), callback=self.parse)

    def parse(self, response):
        return []
