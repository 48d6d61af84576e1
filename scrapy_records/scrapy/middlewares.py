"""Downloader and spider middlewares of the Scrapy integration.

* :class:`RecordsDownloaderMiddleware` decides which responses are pages to mine (HTML only,
  size limit, ``meta["records"]``) and routes requests through scrapy-playwright when asked
  (``RECORDS_PLAYWRIGHT``, ``meta["records_playwright"]``) or when a response looks like an
  empty JavaScript shell (``RECORDS_PLAYWRIGHT_AUTO``, opt-in).
* :class:`RecordsSpiderMiddleware` mines every selected response and yields
  :class:`~scrapy_records.scrapy.items.RecordItem` (and new
  :class:`~scrapy_records.scrapy.items.WrapperItem`) next to the callback's own output, which
  passes through untouched. Mining runs in worker processes (``RECORDS_WORKERS``), waited for
  in Twisted's thread pool (``RECORDS_THREADED``), so the reactor keeps downloading while a
  page is analysed.
"""

from __future__ import annotations

import gc
import inspect
import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from scrapy import Request, signals
from scrapy.core.spidermw import SpiderMiddlewareManager
from scrapy.exceptions import DontCloseSpider
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from scrapy_records.scrapy.component import RecordsComponent
from scrapy_records.scrapy.items import RecordItem, WrapperItem
from scrapy_records.scrapy.outcome import Outcome, Released, site_of
from scrapy_records.scrapy.pagination import next_page_urls
from scrapy_records.scrapy.preview import preview_filename, render_preview
from scrapy_records.scrapy.runtime import RecordsRuntime

logger = logging.getLogger(__name__)

#: ``response.meta`` key set by the downloader middleware: ``True`` mine, else a skip reason.
MINE_KEY = "_records_mine"
#: Recent Scrapy's spider middleware chain is asynchronous throughout: a
#: ``process_spider_exception`` may return an async iterable even when the callback is a
#: plain generator. Older versions (2.14) recover into a synchronous chain (see
#: :meth:`RecordsSpiderMiddleware.process_spider_exception`).
_ASYNC_EXCEPTION_OUTPUT = inspect.iscoroutinefunction(
    getattr(SpiderMiddlewareManager, "_evaluate_iterable", None)
)
#: ``response.meta`` keys of the spider middleware: the response's :class:`Mining`, and
#: ``True`` once the response went on to the callback.
MINING_KEY = "_records_mining"
CALLBACK_KEY = "_records_to_callback"


class Mining:
    """One response's mining: started once, its records emitted once (after the callback's
    output, or when the callback raises)."""

    __slots__ = ("pending", "emitted")

    def __init__(self, pending: Any) -> None:
        self.pending = pending
        self.emitted = False


_SCRIPT_RE = re.compile(rb"<script\b", re.I)
_STRIP_RE = re.compile(rb"<(script|style|noscript|template)\b.*?</\1\s*>|<!--.*?-->", re.I | re.S)
_TAG_RE = re.compile(rb"<[^>]*>")
_WS_RE = re.compile(rb"\s+")


def is_js_shell(body: bytes, max_text: int = 200) -> bool:
    """A page whose visible text is shorter than ``max_text`` characters and that loads
    scripts: an application shell that renders its content with JavaScript."""
    if not _SCRIPT_RE.search(body):
        return False
    text = _TAG_RE.sub(b" ", _STRIP_RE.sub(b" ", body))
    text = _WS_RE.sub(b" ", text).strip()
    return len(text) < max_text


def mining_decision(
    response: Response, runtime: RecordsRuntime, meta: dict | None = None
) -> tuple[bool, str]:
    """``(mine?, reason)`` for a response: ``meta["records"]``, content type, size."""
    cfg = runtime.config
    flag = (meta if meta is not None else response.meta).get("records", True)
    if flag is False:
        return False, "disabled"
    if not isinstance(response, TextResponse):
        return False, "non_html"
    raw_ctype = response.headers.get(b"Content-Type", b"") or b""  # None: an empty header list
    ctype = raw_ctype.decode("latin-1").split(";")[0].strip().lower()
    if (
        ctype
        and ctype not in cfg.content_types
        and not (isinstance(response, HtmlResponse) and ctype in ("", "application/octet-stream"))
    ):
        return False, "non_html"
    if not ctype and not isinstance(response, HtmlResponse):
        return False, "non_html"
    if len(response.body) > cfg.max_page_bytes:
        return False, "too_large"
    if not response.body.strip():
        return False, "empty"
    return True, ""


class RecordsDownloaderMiddleware(RecordsComponent):
    """Select pages to mine; route through scrapy-playwright when asked or for JS shells."""

    def process_request(self, request: Request) -> None:
        if request.meta.get("records", True) is False or "playwright" in request.meta:
            return None
        if request.meta.get("records_playwright", self.config.playwright):
            request.meta["playwright"] = True
        return None

    def process_response(self, request: Request, response: Response) -> Request | Response:
        mine, reason = mining_decision(response, self.runtime, request.meta)
        if (
            mine
            and self.config.playwright_auto
            and not request.meta.get("playwright")
            and not request.meta.get("_records_rendered")
            and is_js_shell(response.body, self.config.js_shell_max_text)
        ):
            self.stats.inc_value("records/playwright/rerequested")
            logger.debug(
                "scrapy_records: %s looks like a JavaScript shell: rendering it", response.url
            )
            meta = dict(request.meta)
            meta.update({"playwright": True, "_records_rendered": True})
            return request.replace(meta=meta, dont_filter=True)
        request.meta[MINE_KEY] = True if mine else reason
        if not mine and reason not in ("disabled", "empty"):
            self.stats.inc_value(f"records/skipped/{reason}")
        return response


class RecordsSpiderMiddleware(RecordsComponent):
    """Mine each selected response; yield records next to the callback's output."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self._mining_seconds = 0.0
        self._flushing: Any = None
        self._emitting: set[Any] = set()  # records of failed callbacks on their way (old Scrapy)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)

    # ------------------------------------------------------------------ output
    def process_spider_input(self, response: Response) -> None:
        # the response reached the callback (no middleware before this one refused it):
        # an exception from now on is the callback's (see process_spider_exception)
        response.meta[CALLBACK_KEY] = True

    async def process_spider_output(
        self, response: Response, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        mining = self._mining(response) if self._decide(response) else None
        async for item in result:
            yield item
        if mining is None or mining.emitted:
            return
        mining.emitted = True
        for item in self._finish(response, await mining.pending):
            yield item

    def process_spider_exception(
        self, response: Response, exception: Exception
    ) -> AsyncIterator[Any] | None:
        """The callback raised (before or after yielding): the page's records still reach
        the pipeline, then the exception goes on as it came, to the other middlewares and
        Scrapy's error log. (Returning an iterable hands Scrapy the records; the iterable
        raises the exception again once they are out.)"""
        mining = response.meta.get(MINING_KEY)
        if mining is None:  # the callback raised before returning anything
            if not response.meta.get(CALLBACK_KEY) or not self._decide(response):
                return None
            mining = self._mining(response)
        if mining.emitted:
            return None
        mining.emitted = True
        if not _ASYNC_EXCEPTION_OUTPUT:
            # (this Scrapy recovers a synchronous callback's exception into a synchronous
            # chain: the records go to the item pipelines directly, the spider waits)
            self._emitting.add(deferred_from_coro(self._emit(response, mining)))
            return None
        return self._records_then_raise(response, mining, exception)

    async def _emit(self, response: Response, mining: Mining) -> None:
        try:
            scraper = self.crawler.engine.scraper
            for item in self._finish(response, await mining.pending):
                await scraper.start_itemproc_async(item, response=response)
        except Exception:
            logger.exception("scrapy_records: emitting the records of %s failed", response.url)
        finally:
            self._wake_engine()

    async def _records_then_raise(
        self, response: Response, mining: Mining, exception: Exception
    ) -> AsyncIterator[Any]:
        for item in self._finish(response, await mining.pending):
            yield item
        raise exception

    def _decide(self, response: Response) -> bool:
        """Mine this response? (The downloader middleware decided, else decide here.)"""
        decision = response.meta.get(MINE_KEY)
        if decision is not None:
            return decision is True
        mine, reason = mining_decision(response, self.runtime)
        if not mine and reason not in ("disabled", "empty"):
            self.stats.inc_value(f"records/skipped/{reason}")
        return mine

    def _mining(self, response: Response) -> Mining:
        """The response's mining, started now; its records are emitted once."""
        mining = Mining(self._start(response))
        response.meta[MINING_KEY] = mining
        return mining

    def _start(self, response: Response) -> Any:
        """Start mining (waited for in Twisted's thread pool when ``RECORDS_THREADED``);
        return an awaitable. Only a small page of a site with wrappers is parsed here
        (``RECORDS_INLINE_MAX_BYTES``: a wrapper extracts it in about the time of the
        hand-off to the pool); mining belongs off the reactor thread."""
        meta: dict[str, Any] = {
            k: response.meta.get(k)
            for k in ("records", "records_extractor", "records_template", "records_wrappers")
            if k in response.meta
        }
        if self.config.threaded:
            done, attempt = self.runtime.mine_inline(response, meta)
            if done is not None:
                return _done(done)
            return maybe_deferred_to_future(
                deferToThread(self.runtime.mine, response, meta, attempt)
            )
        fut: Any = _done(self.runtime.mine(response, meta))
        return fut

    def _finish(self, response: Response, outcome: Outcome) -> list[Any]:
        stats = self.stats
        self._mining_seconds += outcome.seconds
        for key, n in outcome.stats.items():
            stats.inc_value(key, n)
        if outcome.skipped:
            stats.inc_value(f"records/skipped/{outcome.skipped}")
            logger.debug("scrapy_records: skipped %s: %s", response.url, outcome.error)
            return []
        out: list[Any] = []
        for w in outcome.new_wrappers:
            if self.config.emit_wrappers and self.runtime.first_emission(
                w["site"], w["template"], w["version"]
            ):
                out.append(WrapperItem(**w))
        result = outcome.result
        n = 0
        if result is not None:
            page = Released(
                response.url,
                outcome.template,
                outcome.template_name,
                result,
                outcome.source,
                outcome.wrapper_id,
                outcome.wrapper_version,
            )
            items = self.record_items(page, outcome.site)
            n = len(items)
            out.extend(items)
        for held in outcome.released:  # a detail template's first pages, now its wrapper is known
            out.extend(self.record_items(held, outcome.site))
        if result is not None and not n:
            stats.inc_value("records/pages_without_records")
        if result is not None and self.config.preview_dir:
            self._write_preview(response, result)
        if result is not None and self.config.follow_pagination:
            out.extend(self._pagination(response, outcome))
        return out

    def record_items(self, page: Released, site: str) -> list[RecordItem]:
        """The record items of one page's result (counted in the stats)."""
        result = page.result
        if result is None:
            return []
        regions = (
            result.regions
            if self.config.regions == "all"
            else ([result.main] if result.main is not None else [])
        )
        items = []
        for rank, region in enumerate(regions):
            # "wrapper", what "auto" chose ("mdr", "stem"...), or "dcade" for held detail
            # pages extracted by a wrapper of their own when the crawl went idle
            wrapped = page.source == "wrapper" or region.extractor.startswith("wrapper")
            extractor = page.source if wrapped else region.extractor
            order = [c.name for c in region.columns]
            for i, rec in enumerate(region.records):
                items.append(
                    RecordItem(
                        url=page.url,
                        site=site,
                        template=page.template,
                        template_name=page.template_name,
                        wrapper_id=page.wrapper_id,
                        wrapper_version=page.wrapper_version,
                        region=rank,
                        region_xpath=region.xpath,
                        index=i,
                        fields=_ordered_fields(rec.fields, order),
                        text=rec.text,
                        xpaths=list(rec.xpaths),
                        confidence=round(float(region.confidence), 4),
                        extractor=extractor,
                    )
                )
            self.stats.inc_value(f"records/extractor/{extractor}/records", len(region.records))
        self.stats.inc_value("records/records", len(items))
        return items

    def spider_idle(self, spider: Any) -> None:
        """Nothing left to crawl: the records still waiting for their template's wrapper
        are emitted (:meth:`RecordsRuntime.flush_held`, off the reactor thread); the
        spider stays open until they are through the item pipelines."""
        self._emitting = {d for d in self._emitting if not d.called}
        if self._flushing is None and self.runtime.has_held():
            self._flushing = deferred_from_coro(
                self._idle(self._held_records, "emitting held records")
            )
        elif self._flushing is None and self.runtime.has_pending():
            self._flushing = deferred_from_coro(
                self._idle(self._pending_wrappers, "inducing the waiting templates")
            )
        if self._flushing is not None or self._emitting:
            raise DontCloseSpider

    async def _idle(self, produce: Callable[[], Awaitable[list[Any]]], what: str) -> None:
        """Work done while the crawl is idle (``produce``, off the reactor thread): its
        items go through the item pipelines, then the engine looks at the spider again."""
        try:
            scraper = self.crawler.engine.scraper
            for item in await produce():
                await scraper.start_itemproc_async(item, response=None)
        except Exception:  # never let the idle crawl hang on failed work
            logger.exception("scrapy_records: %s failed", what)
        finally:
            self._flushing = None
            self._wake_engine()

    async def _held_records(self) -> list[Any]:
        """The records of the pages that waited for their template's wrapper."""
        released = await maybe_deferred_to_future(deferToThread(self.runtime.flush_held))
        items = [i for held in released for i in self.record_items(held, site_of(held.url))]
        logger.info(
            "scrapy_records: %d records of %d pages that waited for a wrapper of their"
            " template (the crawl is idle)",
            len(items),
            len(released),
        )
        return items

    async def _pending_wrappers(self) -> list[Any]:
        """``RECORDS_INDUCE_WHEN_IDLE``: the wrappers of the templates that got their samples
        and no further page, induced and stored for the next crawl."""
        outcome = await maybe_deferred_to_future(deferToThread(self.runtime.induce_pending))
        for key, n in outcome.stats.items():
            self.stats.inc_value(key, n)
        logger.info(
            "scrapy_records: %d wrappers induced for the next crawl (the crawl is idle)",
            len(outcome.new_wrappers),
        )
        return [
            WrapperItem(**w)
            for w in outcome.new_wrappers
            if self.config.emit_wrappers
            and self.runtime.first_emission(w["site"], w["template"], w["version"])
        ]

    def _wake_engine(self) -> None:
        """Have the engine look at the spider again now rather than at its next heartbeat
        (up to 5 s later): the spider is idle and the held records are through. Uses the
        engine slot's ``nextcall``, which Scrapy does not document; without it the
        heartbeat does the same, later."""
        slot = getattr(self.crawler.engine, "_slot", None)
        nextcall = getattr(slot, "nextcall", None)
        if nextcall is not None and hasattr(nextcall, "schedule"):
            nextcall.schedule()

    def _write_preview(self, response: Response, result: Any) -> None:

        try:
            os.makedirs(self.config.preview_dir, exist_ok=True)
            path = os.path.join(self.config.preview_dir, preview_filename(response.url))
            with open(path, "w", encoding="utf-8") as f:
                f.write(render_preview(response.text, response.url, result))
        except Exception as exc:  # a preview must never break a crawl
            logger.warning("scrapy_records: cannot write preview of %s: %s", response.url, exc)

    def _pagination(self, response: Response, outcome: Outcome) -> list[Request]:
        hops = int(response.meta.get("records_pagination_hops", 0))
        if hops >= self.config.pagination_max_pages or response.request is None:
            return []
        reqs = []
        for url in next_page_urls(response):
            meta = dict(response.meta)
            for k in list(meta):
                if k.startswith("_records") or k in (
                    "download_slot",
                    "download_latency",
                    "depth",
                    "download_timeout",
                    "playwright_page",
                ):
                    meta.pop(k, None)
            meta["records_pagination_hops"] = hops + 1
            reqs.append(response.request.replace(url=url, meta=meta, dont_filter=False))
            self.stats.inc_value("records/pagination/followed")
        return reqs

    # ----------------------------------------------------------------- closing
    def engine_started(self) -> None:
        if self.config.gc_freeze:
            # what lives by now lives for the crawl: full collections skip it (see
            # RECORDS_GC_FREEZE); pages mined in this process pause the collector themselves
            gc.freeze()

    def spider_closed(self, spider: Any, reason: str) -> None:
        s = self.stats
        g = lambda k: s.get_value(k, 0)  # noqa: E731
        s.set_value("records/mining_seconds", round(self._mining_seconds, 3))
        logger.info(
            "scrapy_records summary: %d pages mined, %d records (%d dropped as low-confidence);"
            " wrappers: %d induced, %d pages extracted by a stored wrapper, %d stale, %d corrupt;"
            " %d skipped (non-HTML %d, too large %d); %d errors; %.2fs mining",
            g("records/pages_mined"),
            g("records/records"),
            g("records/dropped/low_confidence"),
            g("records/wrapper/induced"),
            g("records/wrapper/reused"),
            g("records/wrapper/stale"),
            g("records/wrapper/corrupt"),
            g("records/skipped/non_html") + g("records/skipped/too_large"),
            g("records/skipped/non_html"),
            g("records/skipped/too_large"),
            g("records/errors"),
            self._mining_seconds,
        )
        self.runtime.close()


def _ordered_fields(fields: dict[str, Any], order: list[str]) -> dict[str, Any]:
    """A record's fields in its region's column order (mined and wrapped pages of a template
    then list them alike), without empty values (an absent value is an absent key)."""
    out = {k: fields[k] for k in order if fields.get(k) is not None}
    for k, v in fields.items():
        if v is not None and k not in out:
            out[k] = v
    return out


async def _done(value: Any) -> Any:
    return value
