"""The mining engine shared by the Scrapy components of one crawler.

:class:`RecordsRuntime` holds the crawler's configuration, its wrapper store and the
per-template state. :meth:`RecordsRuntime.mine` handles one response and returns an
:class:`Outcome`: the page's work (parse, template signature, the template's wrapper or the
unsupervised extractors) runs as a plain-data job (:mod:`scrapy_records.scrapy.worker`) in a
worker process or in the calling thread (``RECORDS_WORKERS``), and the runtime keeps the
template state. ``mine`` is safe to run in Twisted's pool threads: shared state changes under
one lock, and Scrapy's stats and the reactor are never touched (the spider middleware applies
an outcome's counters in the reactor thread).

Wrapper life cycle per ``(site, template)``:

1. the first page of a site loads its stored wrappers and validates them; a corrupt
   document is logged, counted (``records/wrapper/corrupt``) and replaced by the next
   induction (compare-and-set on its version);
2. with a healthy wrapper: pages that fit count as ``records/wrapper/reused``;
   ``RECORDS_STALE_AFTER`` misfit pages in a row mark it stale (``records/wrapper/stale``)
   and, with ``RECORDS_REINDUCE = "stale"``, sampling starts again;
3. without one: pages are mined unsupervised; the first ``RECORDS_INDUCTION_SAMPLES`` with a
   main region are kept, and the next page of the template (a template that goes on
   beyond its samples pays for an induction) triggers the induction, under the store's
   lease of the site (:class:`~scrapy_records.scrapy.leases.LeaseKeeper`); the wrapper is
   stored compare-and-set and reported once (``records/wrapper/induced``).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from scrapy_records.errors import RecordsError, WrapperError
from scrapy_records.extractors import registered_here
from scrapy_records.scrapy.executor import Executor, WorkerError, default_workers
from scrapy_records.scrapy.leases import LEASE_TEMPLATE, LeaseKeeper
from scrapy_records.scrapy.outcome import Outcome, Released, site_of, url_pattern
from scrapy_records.scrapy.settings import RecordsConfig
from scrapy_records.scrapy.store import WrapperStore, open_store, redact_uri
from scrapy_records.scrapy.store.memory import MemoryStore
from scrapy_records.scrapy.store_sync import StoreSync, TemplateState
from scrapy_records.scrapy.worker import (
    ApplyJob,
    Attempt,
    InductionJob,
    MinedPage,
    PageJob,
    Sample,
    TemplateRef,
    apply_page,
    apply_wrapper,
    detail_pages,
    induce_template,
    load_miners,
    mine_page,
)
from scrapy_records.wrappers.registry import DCADE_MIN_PAGES, inducer_registered_here
from scrapy_records.wrappers.templates import Signature, TemplateGrouper
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)

__all__ = ["RecordsRuntime", "Outcome", "TemplateState", "site_of", "url_pattern", "LEASE_TEMPLATE"]

RUNTIME_ATTR = "_scrapy_records_runtime"
#: inductions of one template that produced nothing before it is mined for good
MAX_FAILED_INDUCTIONS = 3
#: ... and this many of its pages compared decide it (a list template's page where ranking
#: found no list looks like a detail page on its own; the median of three does not)
DETAIL_CHECK_PAGES = 3


class RecordsRuntime(StoreSync):
    """Per-crawler state: configuration, store, template clusters, wrappers, samples."""

    def __init__(self, config: RecordsConfig, store: WrapperStore | None = None) -> None:
        self.config = config
        self._store = store
        self._store_failed = False
        self.owner = f"{uuid.uuid4().hex[:12]}"
        self._lock = threading.RLock()
        self._groupers: dict[str, TemplateGrouper] = {}
        self._names: dict[tuple[str, str], str] = {}  # (site, template) -> readable name
        self._idle_tried: set[tuple[str, str]] = set()  # templates induce_pending tried
        self._sig_dicts: dict[tuple[str, str], tuple[Signature, dict[str, Any]]] = {}
        self._states: dict[tuple[str, str], TemplateState] = {}
        self._emitted: set[tuple[str, str, int]] = set()
        self._emitted_pipeline: set[tuple[str, str, int]] = set()
        #: (site, local template id) -> the id another process stored the template under
        self._alias: dict[tuple[str, str], str] = {}
        workers = default_workers() if config.workers is None else config.workers
        local = [
            n
            for n, here in (
                (config.extractor, registered_here(config.extractor)),
                (config.inducer, bool(config.inducer and inducer_registered_here(config.inducer))),
            )
            if here
        ]
        if workers and local:
            logger.warning(
                "scrapy_records: %s registered in this process, which worker processes do not"
                " see: mining in this process (RECORDS_WORKERS = 0). Register it in an"
                " importable module's entry point to use workers.",
                " and ".join(repr(n) for n in local),
            )
            workers = 0
        self.executor = Executor(workers, config.worker_timeout)
        if not workers:
            # this process mines every page: import the miners before the crawl starts, not
            # in a crawl thread on its first page. With workers they are the workers'
            # (preloaded by the forkserver); this process imports them only if it mines a
            # page itself while the workers start, and a crawl whose pages all fit stored
            # wrappers never does (a quarter of a second of CPU saved at start-up).
            load_miners()

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
                    self._store = self._open_store()
        return self._store

    def _open_store(self) -> WrapperStore:
        try:
            store = open_store(self.config.wrapper_store, self.config.store_backends())
            logger.info("scrapy_records: wrapper store %s", store.uri)
            return store
        except Exception as exc:  # StoreError, ImportError, OSError
            self._store_failed = True
            # the URI may carry a password (redis://:secret@host): log it redacted
            logger.error(
                "scrapy_records: cannot open wrapper store %r (%s): wrappers are induced and"
                " used for this crawl only",
                redact_uri(self.config.wrapper_store),
                exc,
            )
            return MemoryStore()

    def close(self) -> None:
        self.executor.close()
        if self._store is not None:
            self._store.close()

    # ------------------------------------------------------------- templates
    def _grouper(self, site: str, out: Outcome) -> TemplateGrouper:
        """The template clusters of ``site``; on first use, seeded with the store's
        wrappers of the site (so a later crawl recognises their templates and uses them).
        Call under the lock."""
        grouper = self._groupers.get(site)
        if grouper is not None:
            return grouper
        grouper = self._groupers[site] = TemplateGrouper(self.config.template_threshold)
        store = self.store
        try:
            stored = store.list(site) if store is not None else []
        except Exception as exc:
            logger.warning("scrapy_records: cannot list wrappers of %s: %s", site, exc)
            stored = []
        for sw in stored:
            try:
                sig = Signature.from_dict(sw.signature) if sw.signature else None
            except WrapperError as exc:
                logger.warning(
                    "scrapy_records: bad template signature of %s/%s: %s", site, sw.template, exc
                )
                sig = None
            if sig is not None:
                grouper.add(sw.template, sig)
            st = self._states[(site, sw.template)] = TemplateState(
                site, sw.template, sig, loaded=True, checked=time.monotonic()
            )
            st.stored_version = sw.version
            wrapper = self._load_wrapper(sw.document, site, sw.template, sw.version, out)
            if wrapper is not None:
                st.use(wrapper, sw.version)
        return grouper

    def _templates(self, site: str, fixed: str | None, out: Outcome) -> tuple[TemplateRef, ...]:
        """The site's templates and wrappers, as a worker job carries them."""
        with self._lock:
            grouper = self._grouper(site, out)
            ids = [fixed] if fixed else grouper.templates
            refs = []
            for tid in ids:
                st = self._states.get((site, tid))
                if st is not None:
                    self._refresh(st, out)
                sig = grouper.signature(tid) if tid in grouper.templates else None
                refs.append(
                    TemplateRef(
                        tid,
                        self._signature_dict(site, tid, sig),
                        st.document if st is not None else None,
                    )
                )
            return tuple(refs)

    def _signature_dict(self, site: str, tid: str, sig: Signature | None) -> dict[str, Any] | None:
        """``sig.to_dict()``, the same dict for every job while the template's signature
        stays the same one (a worker in this process reads it back once). Under the lock."""
        if sig is None:
            return None
        kept = self._sig_dicts.get((site, tid))
        if kept is None or kept[0] is not sig:
            kept = self._sig_dicts[(site, tid)] = (sig, sig.to_dict())
        return kept[1]

    def _assign(self, site: str, mined: MinedPage, fixed: str | None, out: Outcome) -> str:
        """The page's template: the one the worker recognised, or a cluster for its
        signature (a new one when none is similar enough)."""
        if fixed:
            return fixed
        with self._lock:
            grouper = self._grouper(site, out)
            if mined.template is not None and mined.template in grouper.templates:
                tid = grouper.count(mined.template)
            else:
                tid = grouper.assign(Signature.from_dict(mined.signature))
            return self._alias.get((site, tid), tid)

    def _state(self, site: str, template: str, signature: Any) -> TemplateState:
        with self._lock:
            st = self._states.get((site, template))
            if st is None:
                st = self._states[(site, template)] = TemplateState(
                    site, template, signature, loaded=True, checked=time.monotonic()
                )
            return st

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

    # ----------------------------------------------------------------- mining
    def mine_inline(
        self, response: Any, meta: dict[str, Any] | None = None
    ) -> tuple[Outcome | None, Any]:
        """A small page of a site with wrappers, extracted here (the reactor thread: a parse
        and the wrapper's selectors, about a millisecond under ``RECORDS_INLINE_MAX_BYTES``,
        less than a hand-off to the thread pool). ``(outcome, None)`` when a wrapper fits;
        else ``(None, attempt)`` for :meth:`mine`, which mines the page in a pool thread
        without parsing it or computing its signature again. Never touches the store;
        never raises."""
        cfg = self.config
        site = site_of(response.url)
        if not cfg.wrappers or len(response.body) > cfg.inline_max_bytes:
            return None, None
        if not self._inline_ready(site):
            return None, None
        t0 = time.thread_time()
        out = Outcome(url=response.url, site=site)
        try:
            job = self._page_job(response, meta or {}, out)
            mined, attempt = apply_page(job) if job.use_wrappers else (None, None)
            if mined is None:
                return None, attempt
            self._absorb(job, mined, response, out)
        except Exception:
            logger.exception("scrapy_records: applying a wrapper to %s failed", response.url)
            return None, None
        out.inc("records/wrapper/inline")
        out.seconds = time.thread_time() - t0
        return out, None

    def _inline_ready(self, site: str) -> bool:
        """The site's templates are in memory, one has a wrapper, and none is due for a
        look at the store (that is left to a pool thread)."""
        refresh = self.config.store_refresh
        now = time.monotonic()
        with self._lock:
            grouper = self._groupers.get(site)
            if grouper is None:
                return False
            found = (self._states.get((site, tid)) for tid in grouper.templates)
            states = [st for st in found if st is not None]
        if not any(st.wrapper is not None for st in states):
            return False
        return refresh <= 0 or all(
            st.wrapper is None or now - st.checked <= refresh for st in states
        )

    def mine(
        self, response: Any, meta: dict[str, Any] | None = None, attempt: Attempt | None = None
    ) -> Outcome:
        """Mine one response (safe in a pool thread; ``attempt``: what :meth:`mine_inline`
        did with it). Never raises."""
        t0 = time.thread_time()
        meta = meta or {}
        out = Outcome(url=response.url, site=site_of(response.url))
        worker_seconds = 0.0
        try:
            job = self._page_job(response, meta, out)
            here = len(job.body) < self.config.worker_min_bytes
            if attempt is not None and (here or not self.executor.workers):
                mined = mine_page(job, attempt)
            else:
                mined = self.executor.run(mine_page, job, here=here)
            if mined.pid != os.getpid():
                worker_seconds = mined.seconds
                out.inc("records/pages_in_workers")
            self._absorb(job, mined, response, out)
        except WorkerError as exc:
            logger.warning("scrapy_records: mining %s failed: %s", response.url, exc)
            out.error = str(exc)
            out.inc("records/errors")
        except Exception as exc:  # never let one page break the crawl
            logger.exception("scrapy_records: mining %s failed", response.url)
            out.error = f"{type(exc).__name__}: {exc}"
            out.inc("records/errors")
        out.seconds = worker_seconds + time.thread_time() - t0  # CPU: worker's, this thread's
        return out

    def _extract_options(self, meta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        cfg = self.config
        extractor = meta.get("records_extractor") or cfg.extractor
        opts = cfg.options_for(extractor)
        per_page = meta.get("records")
        if isinstance(per_page, dict):
            opts.update(per_page)
        return extractor, opts

    def _page_job(self, response: Any, meta: dict[str, Any], out: Outcome) -> PageJob:
        cfg = self.config
        extractor, opts = self._extract_options(meta)
        min_records = int(opts.pop("min_records", cfg.min_records))
        use_wrappers = cfg.wrappers and meta.get("records_wrappers", True) is not False
        fixed = str(meta["records_template"]) if meta.get("records_template") else None
        headers = getattr(response, "headers", None)
        return PageJob(
            url=response.url,
            body=response.body,
            encoding=getattr(response, "encoding", None),
            date=headers.get("Date") if headers else None,
            extractor=extractor,
            options=opts,
            min_records=min_records,
            max_bytes=cfg.max_page_bytes,
            max_nodes=cfg.max_nodes,
            threshold=cfg.template_threshold,
            use_wrappers=use_wrappers,
            fixed_template=fixed,
            templates=self._templates(out.site, fixed, out) if use_wrappers else (),
            regions="all" if cfg.regions == "all" or cfg.preview_dir else "main",
            pack=use_wrappers,
        )

    def _absorb(self, job: PageJob, mined: MinedPage, response: Any, out: Outcome) -> None:
        """Take a worker's result into the template state and the outcome."""
        out.built_page = mined.built_page
        if mined.skipped:
            out.skipped, out.error = mined.skipped, mined.error
            return
        if mined.error:
            logger.warning("scrapy_records: mining %s failed: %s", response.url, mined.error)
            out.error = mined.error
            out.inc("records/errors")
            return
        out.inc("records/pages_mined")
        st = None
        if job.use_wrappers and (job.fixed_template or mined.signature):
            tid = self._assign(out.site, mined, job.fixed_template, out)
            out.template = tid
            out.template_name = self.template_name(out.site, tid, response.url)
            sig = Signature.from_dict(mined.signature) if mined.signature else None
            st = self._state(out.site, tid, sig)
            if mined.wrapper_fits is not None and self._wrapper_outcome(st, mined, out):
                return
        out.result, out.source = mined.result, mined.source
        out.inc(f"records/extractor/{mined.source}/pages")
        if st is None:
            return
        if st.wrapper is not None:
            if st.detail and mined.wrapper_fits is None:
                # a detail page mined while its template's wrapper was being induced: the
                # wrapper's one record, not a list mined from a page that has none
                late = Released(job.url, st.template, out.template_name, out.result, out.source)
                late = self._through_wrapper(st, late, (job.url, job.body, job.encoding, job.date))
                out.result, out.source = late.result, late.source
                out.wrapper_id, out.wrapper_version = late.wrapper_id, late.wrapper_version
                out.inc("records/wrapper/late_detail")
            return
        result = mined.result
        assert result is not None  # mine_page sets one unless it skipped or failed (above)
        if st.detail is None:  # decided on the template's first mined page
            st.detail = mined.detail is not None  # (low coverage, or label rows)
        if not st.detail and result.main is None:
            return  # no records to learn a wrapper from (nor their serialisation to pay)
        sample = Sample.keep(job, mined.packed or result.regions, mined.detail)
        if st.detail:
            # a detail template: its pages' records wait for its wrapper (DCADE's one
            # record per page), so that all its pages give the same columns
            held = Released(job.url, st.template, out.template_name, result, mined.source)
            with self._lock:
                st.held.append((sample, held))
            out.result = None
            out.inc("records/held")
            self._confirm_detail(st, job, out)
        if st.detail or result.main is not None:  # (the check may have found a list)
            self._sample_and_induce(st, sample, job, out)

    def _confirm_detail(self, st: TemplateState, job: PageJob, out: Outcome) -> None:
        """With :data:`DETAIL_CHECK_PAGES` held pages, compare them: list pages (most of
        what varies lies in their main region's records) go out as mined now and the
        template is a list template."""
        with self._lock:
            if st.detail_checked or len(st.held) < DETAIL_CHECK_PAGES:
                return
            st.detail_checked = True
            samples = [s for s, _h in st.held]
        if not self._detail_pages(st, samples):
            with self._lock:
                st.detail = False
                held, st.held = st.held, []
            out.released.extend(h for _s, h in held)
            out.inc("records/held_released_as_list")

    def _detail_pages(self, st: TemplateState, samples: list[Sample]) -> bool:
        """Whether the sample pages describe one object each (compared in a worker)."""
        cfg = self.config
        check = InductionJob(samples, cfg.extractor, "auto", cfg.max_page_bytes, cfg.max_nodes)
        try:
            if all(s.detail is not None for s in samples):  # what mining sent: no parse
                return detail_pages(check)
            return bool(self.executor.run(detail_pages, check))
        except (RecordsError, WorkerError, ValueError) as exc:
            logger.info("scrapy_records: %s/%s detail check failed: %s", st.site, st.template, exc)
            return False

    def _wrapper_outcome(self, st: TemplateState, mined: MinedPage, out: Outcome) -> bool:
        """The template's wrapper was applied: ``True`` when the page fit (its records are
        the outcome); else count the misfit (the page was mined instead)."""
        if mined.wrapper_fits:
            with self._lock:
                st.misfits = 0
            out.result, out.source = mined.result, "wrapper"
            out.wrapper_id = f"{st.site}/{st.template}"
            out.wrapper_version = st.version
            out.inc("records/wrapper/reused")
            return True
        with self._lock:
            st.misfits += 1
            if st.misfits >= self.config.stale_after and st.wrapper is not None:
                out.inc("records/wrapper/stale")
                logger.warning(
                    "scrapy_records: wrapper %s/%s (version %s) no longer fits the pages (%d"
                    " misfits in a row, last %s)%s",
                    st.site,
                    st.template,
                    st.version,
                    st.misfits,
                    out.url,
                    ": re-inducing" if self.config.reinduce == "stale" else "",
                )
                if self.config.reinduce == "stale":
                    st.previous = st.wrapper
                    st.use(None, None)
                    st.samples.clear()
                    st.misfits = 0
        out.inc("records/wrapper/misfit")
        return False

    # -------------------------------------------------------------- induction
    def _sample_and_induce(
        self, st: TemplateState, sample: Sample, job: PageJob, out: Outcome
    ) -> None:
        samples = self._take_sample(st, sample, out)
        if samples is None:
            return
        try:
            self._induce_and_store(st, samples, job, out)
        finally:
            out.released.extend(self._release(st))

    def _induce_and_store(
        self, st: TemplateState, samples: list[Sample], job: PageJob | None, out: Outcome
    ) -> None:
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
            wrapper = self._induce(st, samples, job)
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

    def _take_sample(self, st: TemplateState, sample: Sample, out: Outcome) -> list[Sample] | None:
        """Keep the page as an induction sample; once the template has all its samples, the
        next page of it starts the induction: returns the samples then (the template is
        marked as inducing), else ``None``. (A template seen on no more pages than its
        samples, such as a small site's, is never induced: it would not pay off.)"""
        cfg = self.config
        with self._lock:
            if not _inducible(st):
                return None
            needed = (
                max(cfg.induction_samples, DCADE_MIN_PAGES)
                if st.detail
                else (cfg.induction_samples)
            )
            if len(st.samples) < needed:
                if self._n_samples() >= cfg.max_samples:
                    out.inc("records/wrapper/samples_full")
                else:
                    st.samples.append(sample)
                return None
            st.inducing = True
            return list(st.samples)

    def _induce(
        self, st: TemplateState, samples: list[Sample], job: PageJob | None
    ) -> Wrapper | None:
        """The wrapper induced from the samples (in a worker), or ``None``; ``job``: the page
        that started it (``None``: the crawl's settings, as for a page)."""
        cfg = self.config
        extractor = job.extractor if job is not None else cfg.extractor
        max_bytes = job.max_bytes if job is not None else cfg.max_page_bytes
        max_nodes = job.max_nodes if job is not None else cfg.max_nodes
        inducer = cfg.inducer or extractor
        previous = st.previous.to_json() if st.previous is not None else None
        ijob = InductionJob(samples, extractor, inducer, max_bytes, max_nodes, previous)
        try:
            return Wrapper.from_json(self.executor.run(induce_template, ijob))
        except (RecordsError, WorkerError, ValueError) as exc:
            logger.info("scrapy_records: induction of %s/%s failed: %s", st.site, st.template, exc)
            return None

    def _set_template(self, wrapper: Wrapper, st: TemplateState, samples: list[Sample]) -> None:
        wrapper.site = st.site
        wrapper.template.id = st.template
        if isinstance(st.signature, Signature):
            wrapper.template.signature = [int(x) for x in st.signature.sketch]
            wrapper.template.method = st.signature.method
        if not wrapper.provenance.sample_urls:
            wrapper.provenance.sample_urls = [s.url for s in samples]

    def _store_and_report(
        self,
        st: TemplateState,
        wrapper: Wrapper,
        samples: list[Sample],
        store: WrapperStore | None,
        out: Outcome,
    ) -> None:
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
            st.use(wrapper, version)
            st.stored_version = version
            st.unstored = document if version is None else None
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
                "sample_urls": [s.url for s in samples],
                "document": wrapper.to_dict(),
                "stored": version is not None,
                "store_error": store_error,
            }
        )
        logger.info(
            "scrapy_records: induced wrapper %s [%s] version %s (%s) from %d pages: record %s,"
            " fields %s",
            f"{st.site}/{self._names.get((st.site, st.template), st.template)}",
            st.template,
            version,
            status,
            len(samples),
            wrapper.record.xpath if wrapper.record is not None else None,
            ", ".join(f.name for f in wrapper.fields) or "-",
        )

    def _release(self, st: TemplateState) -> list[Released]:
        """The held pages of a template, now that its induction is over: extracted by its
        wrapper when it has one (the columns of its later pages), else as mined."""
        with self._lock:
            held, st.held = st.held, []
        return [
            self._through_wrapper(st, mined, (s.url, s.body, s.encoding, s.date))
            for s, mined in held
        ]

    def _through_wrapper(
        self, st: TemplateState, mined: Released, page: tuple[str, bytes, str | None, Any]
    ) -> Released:
        """A page's records by its template's wrapper (in a worker), or ``mined`` when the
        template has none or the wrapper fails on it. ``page``: url, body, encoding and the
        ``Date`` header."""
        with self._lock:
            document, version = st.document, st.version
        if st.wrapper is None or document is None:
            return mined
        url, body, encoding, date = page
        job = ApplyJob(url, body, encoding, date, document, self.config.max_page_bytes)
        try:
            result = self.executor.run(apply_wrapper, job)
        except Exception as exc:  # the mined records are still there
            logger.warning("scrapy_records: wrapper on held page %s: %s", url, exc)
            return mined
        wid = f"{st.site}/{st.template}"
        return Released(url, st.template, mined.template_name, result, "wrapper", wid, version)

    def _pending(self) -> list[TemplateState]:
        """List templates with all their samples and no wrapper, none inducing (call under
        the lock)."""
        need = self.config.induction_samples
        return [
            st
            for st in self._states.values()
            if (st.site, st.template) not in self._idle_tried
            and not st.detail
            and _inducible(st)
            and len(st.samples) >= need
        ]

    def has_pending(self) -> bool:
        """``RECORDS_INDUCE_WHEN_IDLE`` is on and some template waits for its induction."""
        if not (self.config.induce_when_idle and self.config.wrappers):
            return False
        with self._lock:
            return bool(self._pending())

    def induce_pending(self) -> Outcome:
        """Induce and store the wrappers of the templates :meth:`has_pending` found, now
        that the crawl is idle, side by side in the worker processes; the outcome carries
        their stats and new wrappers. Blocking: call it off the reactor thread."""
        out = Outcome(url="")
        with self._lock:
            todo = [(st, list(st.samples)) for st in self._pending()]
            for st, _samples in todo:  # (once: a site whose lease another process holds
                st.inducing = True  # would keep the idle crawl open)
                self._idle_tried.add((st.site, st.template))

        def one(item: tuple[TemplateState, list[Sample]]) -> Outcome:
            part = Outcome(url="")
            self._induce_and_store(item[0], item[1], None, part)
            return part

        workers = max(1, self.executor.workers)
        with ThreadPoolExecutor(workers) as pool:
            for part in pool.map(one, todo):
                for key, n in part.stats.items():
                    out.inc(key, n)
                out.new_wrappers.extend(part.new_wrappers)
        return out

    def has_held(self) -> bool:
        """Some pages' records wait for their template's wrapper."""
        with self._lock:
            return any(st.held for st in self._states.values())

    def flush_held(self) -> list[Released]:
        """Every held page's records, now that the crawl is idle (no more pages of their
        templates are coming). A template with two or more held pages gets a DCADE
        wrapper induced from them (fewer pages than DCADE likes, but one record per page
        with the same columns beats none: detail pages have no list to mine); it is used for
        these pages only and not stored. Otherwise, or when induction fails, the pages'
        records as mined. Blocking: call it off the reactor thread."""
        with self._lock:
            states = [st for st in self._states.values() if st.held]
            flushed = []
            for st in states:
                flushed.append((st, st.held))
                st.held, st.detail = [], False
        if len(flushed) < 2 or not self.executor.workers:
            return [r for st, held in flushed for r in self._flush_template(st, held)]
        # the templates' inductions side by side, one per worker process
        with ThreadPoolExecutor(self.executor.workers) as pool:
            done = pool.map(lambda sh: self._flush_template(*sh), flushed)
            return [r for released in done for r in released]

    def _flush_template(
        self, st: TemplateState, held: list[tuple[Sample, Released]]
    ) -> list[Released]:
        mined = [h for _s, h in held]
        samples = [s for s, _h in held]
        if len(held) < 2 or not (st.detail_checked or self._detail_pages(st, samples)):
            return mined
        cfg = self.config
        ijob = InductionJob(samples, cfg.extractor, "dcade", cfg.max_page_bytes, cfg.max_nodes)
        try:
            document = self.executor.run(induce_template, ijob)
            results = [
                self.executor.run(
                    apply_wrapper,
                    ApplyJob(s.url, s.body, s.encoding, s.date, document, cfg.max_page_bytes),
                )
                for s in samples
            ]
        except (RecordsError, WorkerError, ValueError) as exc:
            logger.info(
                "scrapy_records: %d held pages of %s/%s: no wrapper (%s); their records as mined",
                len(held),
                st.site,
                st.template,
                exc,
            )
            return mined
        return [
            Released(h.url, h.template, h.template_name, r, "dcade") for h, r in zip(mined, results)
        ]

    def _n_samples(self) -> int:
        """Pages held for induction, over all templates (bounded by ``RECORDS_MAX_SAMPLES``)."""
        return sum(len(st.samples) for st in self._states.values())

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


def _inducible(st: TemplateState) -> bool:
    """Whether ``st`` may start an induction: no wrapper, none under way, not given up."""
    return not st.inducing and st.wrapper is None and st.failed_inductions < MAX_FAILED_INDUCTIONS
