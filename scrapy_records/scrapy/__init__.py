"""Scrapy integration of scrapy_records: add-on, middlewares, items, pipeline, wrapper stores.

Enable everything with one line in ``settings.py``::

    ADDONS = {"scrapy_records.Addon": 300}

See ``docs/scrapy.md`` and ``docs/settings.md`` for the settings, the manual middleware
recipe, items, feeds and stores.
"""

from typing import TYPE_CHECKING

from scrapy_records.lazy import lazy_names

if TYPE_CHECKING:
    from scrapy_records.scrapy.addon import Addon
    from scrapy_records.scrapy.items import RecordItem, WrapperItem

# imported on first use: a worker process (``worker.py``) mines pages without Scrapy, and
# importing Scrapy would double its start-up (a quarter of a second)
__getattr__, __dir__ = lazy_names(
    __name__,
    globals(),
    {
        "Addon": "scrapy_records.scrapy.addon",
        "RecordItem": "scrapy_records.scrapy.items",
        "WrapperItem": "scrapy_records.scrapy.items",
    },
)

__all__ = ["Addon", "RecordItem", "WrapperItem"]
