"""Scrapy integration of scrapy_records: add-on, middlewares, items, pipeline, wrapper stores.

Enable everything with one line in ``settings.py``::

    ADDONS = {"scrapy_records.Addon": 300}

See ``docs/scrapy.md`` and ``docs/settings.md`` for the settings, the manual middleware
recipe, items, feeds and stores.
"""

from scrapy_records.scrapy.addon import Addon
from scrapy_records.scrapy.items import RecordItem, WrapperItem

__all__ = ["Addon", "RecordItem", "WrapperItem"]
