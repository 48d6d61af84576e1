"""Example spiders: ``shop``, ``forum``, ``js`` (scrapy-playwright) and the generic ``records``."""
