"""Helpers shared by the crawl tests: a Scrapy crawl of the demo site in a subprocess.

Twisted's reactor starts once per process, so each crawl runs :data:`RUNNER` in its own
Python process; the runner writes the scraped items, the final stats and the log to files
in the test's ``tmp_path``, which :func:`finish_crawl` reads back. The demo site
(``example_project/demo/site.py``) is importable once this module is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "example_project"
if str(EXAMPLE) not in sys.path:
    sys.path.insert(0, str(EXAMPLE))

RUNNER = textwrap.dedent(
    '''
    import json, logging, sys
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    cfg = json.load(open(sys.argv[1]))
    BASE = cfg["base"]

    class ShopSpider(scrapy.Spider):
        """Walks the shop like a user's spider: own items + own requests."""
        name = "shop"

        async def start(self):
            callback = self.parse_plain if cfg.get("raise") == "plain" else self.parse_list
            for path in cfg.get("start", ["shop/page/1"]):
                yield scrapy.Request(BASE + path, callback=callback)

        def parse_plain(self, response):
            raise ValueError("the callback failed before returning")

        def parse_list(self, response):
            if cfg.get("raise") == "before":
                raise ValueError("the callback failed before yielding")
            yield {"kind": "list", "url": response.url}
            if cfg.get("raise") == "after":
                raise ValueError("the callback failed after yielding")
            if not hasattr(response, "css"):
                return
            if cfg.get("details"):
                for href in response.css("div.product h3 a::attr(href)").getall()[:2]:
                    yield response.follow(href, callback=self.parse_detail)
            nxt = response.css("div.pagination a.next::attr(href)").get()
            if nxt and cfg.get("follow", True):
                yield response.follow(nxt, callback=self.parse_list)

        def parse_detail(self, response):
            yield {"kind": "detail", "url": response.url}

    items, stats = [], {}

    def on_item(item, response, spider):
        d = dict(item)
        d["__class__"] = type(item).__name__
        items.append(d)

    settings = {"ADDONS": {"scrapy_records.Addon": 300}, "LOG_FILE": cfg["log"],
                "LOG_LEVEL": "INFO", "TELNETCONSOLE_ENABLED": False, "ROBOTSTXT_OBEY": False,
                "CONCURRENT_REQUESTS": 4}
    settings.update(cfg.get("settings", {}))
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(ShopSpider)
    crawler.signals.connect(on_item, signal=signals.item_scraped)
    process.crawl(crawler)
    process.start()
    stats = {k: v for k, v in crawler.stats.get_stats().items() if isinstance(v, (int, float, str))}
    json.dump({"items": items, "stats": stats}, open(cfg["out"], "w"), default=str)
    '''
)


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of a child Python process: the repository importable, plus ``extra``."""
    return dict(
        os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), **extra
    )


def start_crawl(tmp_path: Path, site: Any, name: str, **cfg: Any) -> subprocess.Popen:
    """Start a crawl of ``site`` (anything with a ``url``) through :data:`RUNNER`.

    ``cfg``: ``settings`` (Scrapy settings over the runner's), ``start`` (paths to request),
    ``details`` (follow two product links per list page), ``follow`` (follow "next" links),
    ``raise`` (the list callback raises ``"before"`` or ``"after"`` yielding its item, or is
    a ``"plain"`` function that raises).
    The log goes to ``<tmp_path>/<name>.log``.
    """
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    cfg.update(base=site.url, log=str(tmp_path / f"{name}.log"), out=str(tmp_path / f"{name}.json"))
    cfg_path = tmp_path / f"{name}.cfg.json"
    cfg_path.write_text(json.dumps(cfg))
    return subprocess.Popen(
        [sys.executable, str(runner), str(cfg_path)],
        cwd=tmp_path,
        env=subprocess_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish_crawl(
    tmp_path: Path, name: str, proc: subprocess.Popen, timeout: float = 300
) -> tuple[list, dict, str]:
    """Wait for a crawl started by :func:`start_crawl`; return ``(items, stats, log text)``
    (each item a dict with its class name under ``__class__``)."""
    _out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    data = json.loads((tmp_path / f"{name}.json").read_text())
    return data["items"], data["stats"], (tmp_path / f"{name}.log").read_text()


def wait_for_log(path: Path, text: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    """Wait until the crawl's log file contains ``text`` (fails if the crawl ends first)."""
    deadline = time.monotonic() + timeout
    while text not in (path.read_text() if path.exists() else ""):
        if proc.poll() is not None:
            raise AssertionError(
                f"the crawl ended before logging {text!r}: " + proc.stderr.read()[-3000:]
            )
        assert time.monotonic() < deadline, f"{text!r} not logged within {timeout} s"
        time.sleep(0.05)


def crawl(tmp_path: Path, site: Any, name: str, **cfg: Any) -> tuple[list, dict, str]:
    """Run one crawl (:func:`start_crawl` then :func:`finish_crawl`)."""
    return finish_crawl(tmp_path, name, start_crawl(tmp_path, site, name, **cfg))


def records(items: list, url_part: str = "") -> list:
    """The ``RecordItem``s of a crawl's items (of the pages whose URL contains ``url_part``,
    e.g. ``"/page/"`` for the shop's list pages)."""
    return [i for i in items if i["__class__"] == "RecordItem" and url_part in i["url"]]
