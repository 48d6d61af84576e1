"""The mining engine shared by the Scrapy components of one crawler.

:class:`RecordsRuntime` holds the crawler's configuration, its wrapper store and the
per-template state; :meth:`RecordsRuntime.mine` does the heavy work for one response
(build the page model, group it into a template, apply the template's wrapper or run the
unsupervised extractors, induce and store a wrapper once ``RECORDS_INDUCTION_SAMPLES``
pages of a template were seen) and returns an :class:`Outcome`. ``mine`` is safe to run in
a worker thread: it touches shared state only under one lock and never touches Scrapy's
stats or the reactor (the spider middleware applies an outcome's counters in the reactor
thread).

Wrapper life cycle per ``(site, template)`` (issue 7 item 4, issue 5 item 5):

1. first page of the template in this process: the store entry (if any) is loaded and
   validated; a corrupt document is logged, counted (``records/wrapper/corrupt``) and
   replaced by the next induction (compare-and-set on its version);
2. with a healthy wrapper: apply it; pages that fit count as ``records/wrapper/reused``;
   ``RECORDS_STALE_AFTER`` misfit pages in a row mark it stale (``records/wrapper/stale``)
   and, with ``RECORDS_REINDUCE = "stale"``, sampling starts again;
3. without one: mine unsupervised; pages with a main region become samples; with enough
   samples (and the store's induction lease of the site, ``RECORDS_LEASE_SECONDS``, renewed
   by :class:`LeaseKeeper` while the induction runs) induce, verify that the wrapper
   reproduces records on the samples, store it (compare-and-set on the version it replaces)
   and report it once (``records/wrapper/induced``). When the store cannot take it (an
   outage) the wrapper serves the crawl from memory; the Redis store replays the queued
   write later, and the next refresh recognises the stored document as this process's own.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from scrapy_records.api import extract
from scrapy_records.errors import (
    EmptyDocumentError,
    NotHTMLError,
    PageTooLargeError,
    RecordsError,
    WrapperError,
)
from scrapy_records.fields.dates import http_date_base, relative_to
from scrapy_records.page import Page, parse_html
from scrapy_records.results import PageResult
from scrapy_records.scrapy.settings import RecordsConfig
from scrapy_records.scrapy.store import (
    StoreError,
    VersionConflict,
    WrapperStore,
    open_store,
    redact_uri,
)
from scrapy_records.wrappers.induce import induce
from scrapy_records.wrappers.pins import carry_over
from scrapy_records.wrappers.templates import (
    Signature,
    TemplateGrouper,
    page_signature,
    similarity,
)
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)

RUNTIME_ATTR = "_scrapy_records_runtime"

#: The store lease taken around an induction: one per site (see ``_sample_and_induce``).
LEASE_TEMPLATE = "*induction*"


class LeaseKeeper:
    """The store's induction lease of one site, held while an induction runs.

    :meth:`acquire` takes it for ``ttl`` seconds (``RECORDS_LEASE_SECONDS``) and starts a
    daemon thread that renews it every ``ttl / 3`` seconds, so an induction slower than
    ``ttl`` keeps its lease (a killed worker stops renewing and its lease expires after at
    most ``ttl``); :meth:`release` stops the renewals and gives the lease back. Losing the
    lease (another worker took it after a renewal failed) is logged: the write that follows
    is still compare-and-set, so no wrapper is overwritten.
    """

    def __init__(self, store: WrapperStore, site: str, owner: str, ttl: float) -> None:
        self.store, self.site, self.owner, self.ttl = store, site, owner, max(0.05, float(ttl))
        self.held = False
        self.renewals = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> bool:
        """Take the lease; True too when the store is out (the induction is this worker's,
        and its write is compare-and-set all the same)."""
        try:
            lease = self.store.acquire_lease(self.site, LEASE_TEMPLATE, self.owner, ttl=self.ttl)
        except StoreError as exc:
            logger.warning("scrapy_records: no induction lease for %s: %s", self.site, exc)
            return True
        self.held = bool(lease)
        if self.held:
            self._thread = threading.Thread(
                target=self._renew, daemon=True, name=f"records-lease-{self.site}"
            )
            self._thread.start()
        return self.held

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            try:
                ok = self.store.acquire_lease(self.site, LEASE_TEMPLATE, self.owner, ttl=self.ttl)
            except Exception as exc:  # a store error: keep trying while the induction runs
                logger.debug(
                    "scrapy_records: renewing the induction lease of %s: %s", self.site, exc
                )
                continue
            if not ok:
                logger.warning(
                    "scrapy_records: induction lease of %s lost to another worker"
                    " during a slow induction (RECORDS_LEASE_SECONDS = %s)",
                    self.site,
                    self.ttl,
                )
                return
            self.renewals += 1

    def release(self) -> None:
        if not self.held:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.held = False
        try:
            self.store.release_lease(self.site, LEASE_TEMPLATE, self.owner)
        except Exception as exc:  # it expires by itself
            logger.debug("scrapy_records: releasing the induction lease of %s: %s", self.site, exc)


def site_of(url: str | None) -> str:
    """The site key of a URL: its lower-cased host name without a leading ``www.``."""
    host = (urlsplit(url or "").hostname or "").lower()
    return host[4:] if host.startswith("www.") else host or "local"


_DIGITS = re.compile(r"\d+")


def url_pattern(url: str) -> str:
    """The path of ``url`` as a name pattern: digit runs become ``N``, the file extension
    goes (``/shop/product/12.html`` -> ``shop-product-N``; the site root is ``home``)."""
    path = urlsplit(url).path
    parts = [p.rsplit(".", 1)[0] if "." in p else p for p in path.split("/") if p]
    name = "-".join(_DIGITS.sub("N", p) for p in parts)
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_-")[:60] or "home"


@dataclass
class TemplateState:
    """What this process knows about one ``(site, template)``."""

    site: str
    template: str
    signature: Any = None
    loaded: bool = False
    wrapper: Any = None
    version: int | None = None
    stored_version: int | None = None  # version in the store (also of a corrupt entry)
    document: str | None = None  # JSON of the wrapper this process induced (not stored yet)
    misfits: int = 0
    samples: list[tuple[str, Any]] = field(default_factory=list)
    inducing: bool = False
    previous: Any = None  # the stale wrapper being replaced: its names carry over
    failed_inductions: int = 0
    checked: float = 0.0  # time.monotonic() of the last look at the store


@dataclass
class Outcome:
    """The result of mining one response (produced in a worker thread, consumed in the reactor)."""

    url: str
    site: str = ""
    template: str | None = None
    template_name: str | None = None  # readable: the URL path pattern of its first page
    result: PageResult | None = None
    source: str = ""  # "wrapper" or the extractor name
    wrapper_id: str | None = None
    wrapper_version: int | None = None
    skipped: str | None = None  # reason when the page was not mined
    error: str | None = None
    page: Page | None = None  # the page model; None when a stored wrapper extracted the page
    stats: dict[str, int] = field(default_factory=dict)
    new_wrappers: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0  # CPU seconds spent mining (thread time)

    def inc(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n


class RecordsRuntime:
    """Per-crawler state: configuration, store, template clusters, wrappers, samples."""

    def __init__(self, config: RecordsConfig, store: WrapperStore | None = None) -> None:
        self.config = config
        self._store = store
        self._store_failed = False
        self.owner = f"{uuid.uuid4().hex[:12]}"
        self._lock = threading.RLock()
        self._groupers: dict[str, TemplateGrouper] = {}
        self._names: dict[tuple[str, str], str] = {}  # (site, template) -> readable name
        self._states: dict[tuple[str, str], TemplateState] = {}
        self._emitted: set[tuple[str, str, int]] = set()
        self._emitted_pipeline: set[tuple[str, str, int]] = set()
        #: (site, local template id) -> the id another process stored the template under
        self._alias: dict[tuple[str, str], str] = {}

    # ----------------------------------------------------------------- set-up
    @classmethod
    def for_crawler(cls, crawler: Any) -> RecordsRuntime:
        """The runtime of ``crawler`` (created by whichever component asks first)."""
        rt = getattr(crawler, RUNTIME_ATTR, None)
        if rt is None:
            rt = cls(RecordsConfig.from_settings(crawler.settings))
            setattr(crawler, RUNTIME_ATTR, rt)
        return rt

    @property
    def store(self) -> WrapperStore | None:
        if self._store is None and not self._store_failed and self.config.wrappers:
            with self._lock:
                if self._store is None and not self._store_failed:
                    try:
                        self._store = open_store(
                            self.config.wrapper_store, self.config.store_backends()
                        )
                        logger.info("scrapy_records: wrapper store %s", self._store.uri)
                    except Exception as exc:  # StoreError, ImportError, OSError
                        self._store_failed = True
                        # the URI may carry a password (redis://:secret@host): log it redacted
                        logger.error(
                            "scrapy_records: cannot open wrapper store %r (%s): wrappers are"
                            " induced and used for this crawl only",
                            redact_uri(self.config.wrapper_store),
                            exc,
                        )
                        from scrapy_records.scrapy.store.memory import MemoryStore

                        self._store = MemoryStore()
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    # ------------------------------------------------------------- templates
    def _signature(self, source: Any) -> Any:
        """The page's template signature, from a :class:`Page` or straight from the
        response's parsed tree (no page model needed: see :meth:`_mine`)."""
        return page_signature(source, max_nodes=self.config.max_nodes)

    def _grouper(self, site: str) -> TemplateGrouper:
        """The template clusters of ``site``, seeded from the store's signatures on first use
        (so a later crawl recognises the templates of the stored wrappers)."""
        grouper = self._groupers.get(site)
        if grouper is None:
            grouper = self._groupers[site] = TemplateGrouper(self.config.template_threshold)
            store = self.store
            try:
                stored = store.list(site) if store is not None else []
            except Exception as exc:
                logger.warning("scrapy_records: cannot list wrappers of %s: %s", site, exc)
                stored = []
            for sw in stored:
                if not sw.signature:
                    continue
                try:
                    grouper.add(sw.template, Signature.from_dict(sw.signature))
                except WrapperError as exc:
                    logger.warning(
                        "scrapy_records: bad template signature of %s/%s: %s",
                        site,
                        sw.template,
                        exc,
                    )
        return grouper

    def template_of(self, site: str, page: Any) -> tuple[str, Signature]:
        """Assign ``page`` (a :class:`Page` or a parsed tree) to a template cluster of
        ``site``, opening one when none is similar enough."""
        sig = self._signature(page)
        with self._lock:
            tid = self._grouper(site).assign(sig)
            return self._alias.get((site, tid), tid), sig

    def template_name(self, site: str, template: str, url: str) -> str:
        """A readable name of a template, from the URL of its first page here (unique
        within the site): ``/shop/page/2`` -> ``shop-page-N``."""
        key = (site, template)
        name = self._names.get(key)
        if name is None:
            with self._lock:
                name = self._names.get(key)
                if name is None:
                    taken = {n for (s, _t), n in self._names.items() if s == site}
                    base = url_pattern(url)
                    name, k = base, 2
                    while name in taken:
                        name, k = f"{base}-{k}", k + 1
                    self._names[key] = name
        return name

    def _state(self, site: str, template: str, signature: Any, out: Outcome) -> TemplateState:
        # The first page of a template loads the stored wrapper while holding the lock, so
        # concurrent pages of the same template wait for it instead of mining unsupervised.
        with self._lock:
            st = self._states.get((site, template))
            if st is None:
                st = self._states[(site, template)] = TemplateState(site, template, signature)
            if st.loaded:
                refresh = self.config.store_refresh
                if (
                    refresh > 0
                    and st.wrapper is not None
                    and time.monotonic() - st.checked > refresh
                ):
                    st.checked = time.monotonic()
                    store = self.store
                    if store is not None:
                        self._adopt_newer(st, store, out)
                return st
            st.loaded = True
            st.checked = time.monotonic()
            store = self.store
            if store is None:
                return st
            try:
                sw = store.get(site, template)
            except Exception as exc:
                logger.warning("scrapy_records: cannot read wrapper %s/%s: %s", site, template, exc)
                out.inc("records/errors")
                return st
            if sw is None:
                return st
            wrapper = self._load_wrapper(sw.document, site, template, sw.version, out)
            st.stored_version = sw.version
            if wrapper is not None:
                st.wrapper, st.version = wrapper, sw.version
            return st

    def _load_wrapper(self, document: str, site: str, template: str, version: int, out: Outcome):
        try:
            return Wrapper.from_json(document)
        except (WrapperError, ValueError, TypeError) as exc:
            logger.warning(
                "scrapy_records: stored wrapper %s/%s (version %s) is corrupt, ignoring it and"
                " re-inducing: %s",
                site,
                template,
                version,
                exc,
            )
            out.inc("records/wrapper/corrupt")
            return None

    # ----------------------------------------------------------------- mining
    def mine(self, response: Any, meta: dict[str, Any] | None = None) -> Outcome:
        """Mine one response (safe in a worker thread). Never raises."""
        # CPU time of this thread: wall time would count the waits for the GIL (and for
        # lxml's per-XPath locks) while other threads run, which grow with the pool size
        t0 = time.thread_time()
        meta = meta or {}
        out = Outcome(url=response.url, site=site_of(response.url))
        try:
            # relative dates ("3 hours ago") count from when the server sent the page, so a
            # response replayed from the HTTP cache dates its records as when it was fetched
            headers = getattr(response, "headers", None)
            with relative_to(http_date_base(headers.get("Date")) if headers else None):
                self._mine(response, meta, out)
        except (NotHTMLError, EmptyDocumentError) as exc:
            out.skipped = "non_html"
            out.error = str(exc)
        except PageTooLargeError as exc:
            out.skipped = "too_large"
            out.error = str(exc)
        except Exception as exc:  # never let one page break the crawl
            logger.exception("scrapy_records: mining %s failed", response.url)
            out.error = f"{type(exc).__name__}: {exc}"
            out.inc("records/errors")
        out.seconds = time.thread_time() - t0
        return out

    def _extract_options(self, meta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        cfg = self.config
        extractor = meta.get("records_extractor") or cfg.extractor
        opts = cfg.options_for(extractor)
        per_page = meta.get("records")
        if isinstance(per_page, dict):
            opts.update(per_page)
        return extractor, opts

    def _mine(self, response: Any, meta: dict[str, Any], out: Outcome) -> None:
        cfg = self.config
        extractor, opts = self._extract_options(meta)
        min_records = int(opts.pop("min_records", cfg.min_records))
        # validate the response and get its tree (the selector's: parsed once, shared with
        # the spider); the page model is built only when the page is mined unsupervised,
        # so a page a stored wrapper extracts costs the signature walk and the selectors
        root, _, encoding = parse_html(response, max_bytes=cfg.max_page_bytes)
        out.inc("records/pages_mined")
        use_wrappers = cfg.wrappers and meta.get("records_wrappers", True) is not False
        if meta.get("records_template"):
            template, sig = str(meta["records_template"]), None
        elif use_wrappers:
            template, sig = self.template_of(out.site, root)
        else:
            template, sig = None, None
        out.template = template
        if template:
            out.template_name = self.template_name(out.site, template, response.url)

        st = self._state(out.site, template, sig, out) if use_wrappers and template else None
        if st is not None and st.wrapper is not None:
            if self._apply_wrapper(st, root, response.url, out, min_records):
                return
        page = Page(root, response.url, encoding=encoding, max_nodes=cfg.max_nodes)
        out.page = page
        result = self._extract(page, extractor, min_records, opts)
        out.result = result
        out.source = extractor
        out.inc(f"records/extractor/{extractor}/pages")
        if st is not None and st.wrapper is None and result.main is not None:
            self._sample_and_induce(st, response, page, result, extractor, opts, out)

    def _extract(
        self, page: Page, extractor: str, min_records: int, opts: dict[str, Any]
    ) -> PageResult:
        return extract(page, url=page.url, extractor=extractor, min_records=min_records, **opts)

    # -------------------------------------------------------------- wrappers
    def _fits(self, wrapper: Any, result: PageResult) -> bool:
        """Does the page fit the wrapper (``Wrapper.check``: record count range and required
        fields, issue 5 item 5)?"""
        region = result.regions[0] if result.regions else None
        health = region.meta.get("health") if region is not None else None
        if health is None:
            health = wrapper.check(result)
        return bool(health.get("fits"))

    def _apply_wrapper(
        self, st: TemplateState, root: Any, url: str, out: Outcome, min_records: int
    ) -> bool:
        wrapper = st.wrapper
        try:
            result = wrapper.extract(root, url=url)
        except Exception as exc:
            logger.warning(
                "scrapy_records: wrapper %s/%s failed on %s: %s", st.site, st.template, url, exc
            )
            out.inc("records/errors")
            result, fits = None, False
        else:
            fits = self._fits(wrapper, result)
        if fits:
            with self._lock:
                st.misfits = 0
                wrapper.stale = False
            out.result = result
            out.source = "wrapper"
            out.wrapper_id = f"{st.site}/{st.template}"
            out.wrapper_version = st.version
            out.inc("records/wrapper/reused")
            return True
        with self._lock:
            st.misfits += 1
            stale = st.misfits >= self.config.stale_after and st.wrapper is wrapper
            if stale:
                out.inc("records/wrapper/stale")
                logger.warning(
                    "scrapy_records: wrapper %s/%s (version %s) no longer fits the pages (%d"
                    " misfits in a row, last %s)%s",
                    st.site,
                    st.template,
                    st.version,
                    st.misfits,
                    url,
                    ": re-inducing" if self.config.reinduce == "stale" else "",
                )
                if self.config.reinduce == "stale":
                    st.previous, st.wrapper = wrapper, None
                    st.samples.clear()
                    st.misfits = 0
        out.inc("records/wrapper/misfit")
        return False

    def _sample_and_induce(self, st, response, page, result, extractor, opts, out) -> None:
        samples = self._take_sample(st, response, page, result, out)
        if samples is None:
            return
        store = self.store
        # one induction per site at a time across processes: two workers that met the same
        # template first through different pages gave it different local ids
        lease = (
            LeaseKeeper(store, st.site, self.owner, self.config.lease_seconds) if store else None
        )
        try:
            if lease is not None and not lease.acquire():
                out.inc("records/wrapper/lease_busy")
                return
            if store is not None and (
                self._adopt_alias(st, store, out) or self._adopt_newer(st, store, out)
            ):
                return
            wrapper = self._induce(samples, extractor, opts)
            if wrapper is not None and st.previous is not None:
                # the template's schema stays: the old names (pinned ones too) carry over
                carry_over(wrapper, st.previous, [p for _u, _r, p, _res in samples])
            if wrapper is None:
                with self._lock:
                    st.failed_inductions += 1
                    st.samples.clear()
                out.inc("records/wrapper/induction_failed")
                return
            self._set_template(wrapper, st, samples)
            self._store_and_report(st, wrapper, samples, store, out)
        finally:
            if lease is not None:
                lease.release()
            with self._lock:
                st.inducing = False

    def _take_sample(self, st, response, page, result, out) -> list | None:
        """Keep the page as an induction sample; the samples once there are enough of them
        (the template is then marked as inducing), else ``None``."""
        cfg = self.config
        with self._lock:
            if st.inducing or st.wrapper is not None or st.failed_inductions >= 3:
                return None
            if len(st.samples) < cfg.induction_samples:
                if self._n_samples() >= cfg.max_samples:
                    out.inc("records/wrapper/samples_full")
                    return None
                st.samples.append((response.url, response, page, result))
            if len(st.samples) < cfg.induction_samples:
                return None
            st.inducing = True
            return list(st.samples)

    def _store_and_report(self, st, wrapper, samples, store, out) -> None:
        """Store the induced wrapper (compare-and-set on the version it replaces), use it,
        and report it once as a new wrapper of the crawl."""
        document = wrapper.to_json()
        base = st.stored_version  # the version this induction replaces (None: new)
        version, store_error = None, None
        if store is not None:
            stored = self._put(st, document, base, store, out)
            if stored is None:  # another process stored one first: adopted
                return
            version, store_error = stored
        status = "updated" if base is not None else "new"
        with self._lock:
            st.wrapper, st.version = wrapper, version
            st.stored_version = version
            st.document = document if version is None else None
            st.samples.clear()
            st.misfits = 0
            st.previous = None
        out.inc("records/wrapper/induced")
        out.new_wrappers.append(
            {
                "wrapper_id": f"{st.site}/{st.template}",
                "site": st.site,
                "template": st.template,
                "version": version,
                "base_version": base,
                "status": status,
                "sample_urls": [s[0] for s in samples],
                "document": wrapper.to_dict(),
                "stored": version is not None,
                "store_error": store_error,
            }
        )
        logger.info(
            "scrapy_records: induced wrapper %s/%s version %s (%s) from %d pages: record %s,"
            " fields %s",
            st.site,
            st.template,
            version,
            status,
            len(samples),
            wrapper.record.xpath if wrapper.record is not None else None,
            ", ".join(f.name for f in wrapper.fields) or "-",
        )

    def _put(self, st, document, base, store, out) -> tuple[int | None, str | None] | None:
        """``(version, store error)`` of the write; ``None`` when another process won the
        compare-and-set and its wrapper was adopted instead."""
        try:
            signature = st.signature.to_dict() if isinstance(st.signature, Signature) else None
            version = store.put(
                st.site, st.template, document, expected_version=base, signature=signature
            )
            return version, None
        except VersionConflict:
            try:
                sw = store.get(st.site, st.template)
            except StoreError as exc:  # lost a race, then the store went out: ours serves
                return None, str(exc)
            other = (
                self._load_wrapper(sw.document, st.site, st.template, sw.version, out)
                if sw
                else None
            )
            with self._lock:
                st.stored_version = sw.version if sw else None
                if other is not None:
                    st.wrapper, st.version = other, sw.version
                    st.samples.clear()
            out.inc("records/wrapper/adopted")
            return None
        except (StoreError, OSError) as exc:
            # An outage: the wrapper serves this crawl from memory. The Redis store queued
            # the write and replays it (compare-and-set on ``base``) when Redis is back;
            # ``_adopt_newer`` then recognises it as our own.
            error = str(exc) or type(exc).__name__
            logger.warning(
                "scrapy_records: wrapper %s/%s is used from memory, the store did not take it: %s",
                st.site,
                st.template,
                error,
            )
            out.inc("records/wrapper/not_stored")
            return None, error

    def _n_samples(self) -> int:
        """Pages held for induction, over all templates (bounded by ``RECORDS_MAX_SAMPLES``)."""
        return sum(len(st.samples) for st in self._states.values())

    def _adopt_alias(self, st: TemplateState, store: WrapperStore, out: Outcome) -> bool:
        """Another process stored this template under another id (its clusters started from
        another page): map our id to it and use its wrapper."""
        if not isinstance(st.signature, Signature):
            return False
        try:
            entries = store.list(st.site)
        except Exception:
            return False
        best, best_sim = None, -1.0
        for sw in entries:
            if sw.template == st.template or not sw.signature:
                continue
            try:
                sim = similarity(st.signature, Signature.from_dict(sw.signature))
            except WrapperError:
                continue
            if sim > best_sim:
                best, best_sim = sw, sim
        if best is None or best_sim < self.config.template_threshold:
            return False
        wrapper = self._load_wrapper(best.document, st.site, best.template, best.version, out)
        if wrapper is None:
            return False
        with self._lock:
            self._alias[(st.site, st.template)] = best.template
            other = self._states.get((st.site, best.template))
            if other is None:
                other = self._states[(st.site, best.template)] = TemplateState(
                    st.site, best.template, Signature.from_dict(best.signature), loaded=True
                )
            if other.wrapper is None or (other.version or 0) < best.version:
                other.wrapper, other.version, other.stored_version = (
                    wrapper,
                    best.version,
                    best.version,
                )
            other.checked = time.monotonic()
            st.samples.clear()
        out.inc("records/wrapper/adopted")
        logger.info(
            "scrapy_records: template %s/%s is %s/%s (version %s) stored by another"
            " process: using its wrapper",
            st.site,
            st.template,
            st.site,
            best.template,
            best.version,
        )
        return True

    def _adopt_newer(self, st: TemplateState, store: WrapperStore, out: Outcome) -> bool:
        """Use the stored wrapper when another process stored a newer one than ours."""
        try:
            sw = store.get(st.site, st.template)
        except Exception:
            return False
        if (
            sw is None
            or sw.version == st.stored_version
            or (st.version is not None and sw.version <= st.version)
        ):
            return False
        if st.document is not None and sw.document == st.document:
            # our own wrapper, induced during an outage and written since (the Redis store
            # replays queued writes): it got a version, there is nothing to adopt
            with self._lock:
                st.version = st.stored_version = sw.version
                st.document = None
            logger.info(
                "scrapy_records: wrapper %s/%s induced during the store outage is"
                " stored as version %s",
                st.site,
                st.template,
                sw.version,
            )
            return False
        other = self._load_wrapper(sw.document, st.site, st.template, sw.version, out)
        with self._lock:
            st.stored_version = sw.version
            if other is None:
                return False
            st.wrapper, st.version = other, sw.version
            st.samples.clear()
            st.misfits = 0
        out.inc("records/wrapper/adopted")
        logger.info(
            "scrapy_records: using wrapper %s/%s version %s stored by another process",
            st.site,
            st.template,
            sw.version,
        )
        return True

    def _induce(self, samples, extractor: str, opts: dict[str, Any]) -> Any:
        """A wrapper from the sample pages (``scrapy_records.induce``), else
        ``Wrapper.from_region`` on the main region of each sample until one reproduces
        records on all samples."""
        try:
            inducer = self.config.inducer or extractor
            # the results already mined (what was emitted): not mined again, and the
            # wrapper takes the field names those records carry
            mined = [res.regions for _u, _r, _p, res in samples] if inducer == extractor else None
            return induce([p for _u, _r, p, _res in samples], extractor=inducer, regions=mined)
        except (RecordsError, ValueError) as exc:
            logger.info("scrapy_records: induction failed (%s), trying single-page wrappers", exc)
        for url, _resp, page, result in samples:
            region = result.main
            if region is None:
                continue
            try:
                w = Wrapper.from_region(region, page)
            except (RecordsError, ValueError) as exc:
                logger.debug("from_region failed on %s: %s", url, exc)
                continue
            if self._verify(w, samples):
                return w
        return None

    def _verify(self, wrapper: Any, samples) -> bool:
        """The wrapper finds records on every sample page."""
        for url, _resp, page, _res in samples:
            try:
                res = wrapper.extract(page, url=url)
            except Exception:
                return False
            if not res.records:
                return False
        return True

    def _set_template(self, wrapper: Any, st: TemplateState, samples) -> None:
        wrapper.site = st.site
        tinfo = getattr(wrapper, "template", None)
        if tinfo is not None:
            tinfo.id = st.template
            if isinstance(st.signature, Signature):
                tinfo.signature = [int(x) for x in st.signature.sketch]
                tinfo.method = st.signature.method
        prov = getattr(wrapper, "provenance", None)
        if prov is not None and not prov.sample_urls:
            prov.sample_urls = [s[0] for s in samples]

    # ---------------------------------------------------------------- emitting
    def first_emission(
        self, site: str, template: str, version: int | None, by: str = "middleware"
    ) -> bool:
        """True once per ``(site, template, version)`` and emitter (``by``: the spider
        middleware or the pipeline, which de-duplicates on its own): a wrapper is emitted once."""
        key = (site, template, version or 0)
        seen = self._emitted if by == "middleware" else self._emitted_pipeline
        with self._lock:
            if key in seen:
                return False
            seen.add(key)
            return True
