"""The example project distributed with scrapy-redis, sharing wrappers through Redis.

Select it with ``SCRAPY_PROJECT=redis`` (see ``scrapy.cfg``). Run the demo site once and
start as many workers as you like; they share the request queue and the dupefilter
(scrapy-redis) and the wrappers (``RECORDS_WRAPPER_STORE``), and only one of them induces
each template::

    redis-server --port 6379 &
    python -m demo.site 8000 &
    SCRAPY_PROJECT=redis scrapy crawl shop -s DEMO_SITE_URL=http://127.0.0.1:8000/ &
    SCRAPY_PROJECT=redis scrapy crawl shop -s DEMO_SITE_URL=http://127.0.0.1:8000/
"""

import os

from .settings import *  # noqa: F401,F403

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

# scrapy-redis: shared scheduler queue and dupefilter
SCHEDULER = "scrapy_redis.scheduler.Scheduler"
DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
SCHEDULER_PERSIST = False  # clear the queue when the crawl ends

# scrapy_records: one wrapper store for every worker (`?prefix=` namespaces the keys)
RECORDS_WRAPPER_STORE = REDIS_URL + "?prefix=records-demo"

# one set of output files per worker
FEEDS = {
    os.path.join(OUTPUT_DIR, "%(name)s-%(time)s.jsonl"): {"format": "jsonlines", "encoding": "utf8"},  # noqa: F405
}
RECORDS_CSV_PER_TEMPLATE = None
