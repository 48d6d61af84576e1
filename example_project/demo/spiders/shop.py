"""``scrapy crawl shop``: the spider's own code only walks the shop (list pages and product
pages); every record (products on list pages, reviews on product pages) comes from the
scrapy_records add-on, with wrappers induced after a few pages of each template and reused
on the rest."""

from __future__ import annotations

from .base import DemoSpider


class ShopSpider(DemoSpider):
    name = "shop"

    async def start(self):
        yield self.request_list(self.demo_url("/shop/page/1"))

    def request_list(self, url):
        import scrapy

        return scrapy.Request(url, callback=self.parse_list)

    def parse_list(self, response):
        for href in response.css("div.product h3 a::attr(href)").getall():
            yield response.follow(href, callback=self.parse_product)
        next_page = response.css("div.pagination a.next::attr(href)").get()
        if next_page:
            yield response.follow(next_page, callback=self.parse_list)

    def parse_product(self, response):
        # nothing to write by hand: the add-on yields the page's records after this callback
        return []
