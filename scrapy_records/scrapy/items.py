"""Items yielded by the spider middleware.

Both items declare their fields, so feed exports (CSV in particular) get stable columns.
A record's own fields (``price``, ``title``...) live in the ``fields`` dict; JSON feeds keep
it nested, and with the add-on a CSV feed writes one column per field
(:mod:`scrapy_records.scrapy.exporters`).
"""

from __future__ import annotations

import scrapy


class RecordItem(scrapy.Item):
    """One data record found on a page.

    :ivar url: the page URL.
    :ivar site: host name of the page (the wrapper store's first key).
    :ivar template: template id of the page inside its site (the wrapper store's key).
    :ivar template_name: a readable name of the template: the URL path pattern of its first
        page (``shop-page-N``, ``search``), unique within the site.
    :ivar wrapper_id: ``site/template`` of the wrapper that extracted it (``None`` when it came
        from unsupervised mining).
    :ivar wrapper_version: version of that wrapper in the store.
    :ivar region: rank of the region on the page (0 = main region).
    :ivar region_xpath: absolute XPath of the region's parent element.
    :ivar index: position of the record in its region.
    :ivar fields: ordered mapping column name -> value.
    :ivar text: the record's text.
    :ivar xpaths: absolute XPaths of the record's root elements.
    :ivar confidence: the region's confidence in [0, 1].
    :ivar extractor: the extractor name, or ``wrapper`` for wrapper application.
    """

    url = scrapy.Field()
    site = scrapy.Field()
    template = scrapy.Field()
    template_name = scrapy.Field()
    wrapper_id = scrapy.Field()
    wrapper_version = scrapy.Field()
    region = scrapy.Field()
    region_xpath = scrapy.Field()
    index = scrapy.Field()
    fields = scrapy.Field()
    text = scrapy.Field()
    xpaths = scrapy.Field()
    confidence = scrapy.Field()
    extractor = scrapy.Field()


class WrapperItem(scrapy.Item):
    """A wrapper newly induced (``status = "new"``) or updated (``"updated"``) during the crawl.

    :ivar version: its version in the store (``None`` while it is not stored).
    :ivar base_version: the stored version it replaces (``None``: a new wrapper); a write is
        compare-and-set on it, so it never overwrites a wrapper stored meanwhile.
    :ivar document: the wrapper's JSON document (a ``dict``).
    :ivar stored: ``True`` once it is in the wrapper store.
    :ivar store_error: why the store did not take it (e.g. a Redis outage: the write is
        queued and replayed when Redis is back); the pipeline does not try again.

    The pipeline stores an item that is neither ``stored`` nor has a ``store_error`` (a
    wrapper yielded by a spider), compare-and-set on ``base_version``.
    """

    wrapper_id = scrapy.Field()
    site = scrapy.Field()
    template = scrapy.Field()
    version = scrapy.Field()
    base_version = scrapy.Field()
    status = scrapy.Field()
    sample_urls = scrapy.Field()
    document = scrapy.Field()
    stored = scrapy.Field()
    store_error = scrapy.Field()
