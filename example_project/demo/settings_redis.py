"""The example project distributed with scrapy-redis, sharing wrappers through Redis.

Select it with ``SCRAPY_PROJECT=redis`` (see ``scrapy.cfg``). Serve the demo site once and
start as many workers as you like, on one machine or several: they share the request queue
and the dupefilter (scrapy-redis) and the wrappers (``RECORDS_WRAPPER_STORE``), and only one
of them induces each template while the others keep mining unsupervised::

    redis-server --port 6379 &
    python -m demo.site 8000 &
    export DEMO_RUN=run-$(date +%s)      # one id per crawl, shared by its workers
    SCRAPY_PROJECT=redis scrapy crawl shop -s DEMO_SITE_URL=http://127.0.0.1:8000/ &
    SCRAPY_PROJECT=redis scrapy crawl shop -s DEMO_SITE_URL=http://127.0.0.1:8000/

Environment: ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``; ``redis://:password@host``
and ``rediss://`` for TLS work too), ``DEMO_RUN`` (the crawl's id, see below).
"""

import os
import time

from scrapy import signals
from scrapy.exceptions import DontCloseSpider

from .settings import *  # noqa: F401,F403
from .settings import OUTPUT_DIR

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

# --- scrapy-redis: one request queue and one dupefilter for every worker of a crawl ---------
SCHEDULER = "scrapy_redis.scheduler.Scheduler"
DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
# The keys carry the crawl's id: a new DEMO_RUN starts a new crawl, the same one resumes it.
_RUN = os.environ.get("DEMO_RUN", "demo")
SCHEDULER_QUEUE_KEY = f"{_RUN}:%(spider)s:requests"
SCHEDULER_DUPEFILTER_KEY = f"{_RUN}:%(spider)s:dupefilter"
# The first worker to finish must not delete the queue and the dupefilter the others still
# use (SCHEDULER_PERSIST = False would); a new crawl uses a new DEMO_RUN instead.
SCHEDULER_PERSIST = True

# --- scrapy_records: one wrapper store for every worker -----------------------------------
# `?prefix=` namespaces the keys (several projects on one Redis); the wrappers outlive the
# crawl, so the next crawl of the site reuses them.
RECORDS_WRAPPER_STORE = REDIS_URL.split("?", 1)[0] + "?prefix=records-demo"


class WaitForPeers:
    """Keep an idle worker open while the other workers may still push requests into the
    shared queue: it closes after ``WAIT_FOR_PEERS_SECONDS`` without receiving a response.

    A plain Scrapy spider closes as soon as its own scheduler looks empty, which with a
    shared queue happens whenever another worker popped the last request (or when a worker
    starts and its start request is a duplicate of another worker's).
    """

    def __init__(self, crawler):
        self.wait = crawler.settings.getfloat("WAIT_FOR_PEERS_SECONDS", 10.0)
        self.last = time.monotonic()
        crawler.signals.connect(self._active, signal=signals.response_received)
        crawler.signals.connect(self._idle, signal=signals.spider_idle)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _active(self, *args, **kwargs):
        self.last = time.monotonic()

    def _idle(self, spider):
        if time.monotonic() - self.last < self.wait:
            raise DontCloseSpider


EXTENSIONS = {"demo.settings_redis.WaitForPeers": 500}
WAIT_FOR_PEERS_SECONDS = 10.0

# One set of output files per worker (several workers may share a machine and a directory).
FEEDS = {
    os.path.join(OUTPUT_DIR, f"%(name)s-worker{os.getpid()}.jsonl"): {
        "format": "jsonlines",
        "overwrite": True,
        "encoding": "utf8",
    },
}
RECORDS_CSV_PER_TEMPLATE = None
