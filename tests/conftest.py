"""Shared pytest fixtures: ``redis_server`` (a real redis-server on 127.0.0.1, see
``tests/redis_server.py``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redis_server import redis_server  # noqa: E402,F401 - registers the fixture

# Scrapy's test crawlers (scrapy.utils.test.get_crawler) need an installed reactor on the
# oldest Scrapy this package supports (2.14); the one Scrapy itself installs by default.
from scrapy.utils.reactor import install_reactor  # noqa: E402

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
