"""How a crawl's wrappers meet the wrapper store: loading, storing, adopting.

:class:`StoreSync` is the part of :class:`~scrapy_records.scrapy.runtime.RecordsRuntime`
that talks to the store. Every write is compare-and-set on the version it replaces, so a
process never overwrites a newer wrapper; what another process stored is adopted (a newer
version of our template, or our template under the id another process gave it); when the
store cannot take a wrapper (an outage) the wrapper serves the crawl from memory and the
Redis store replays the write later.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy_records.errors import WrapperError
from scrapy_records.scrapy.store import StoreError, VersionConflict, WrapperStore
from scrapy_records.scrapy.worker import Sample
from scrapy_records.wrappers.templates import Signature, similarity
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)


@dataclass
class TemplateState:
    """What this process knows about one ``(site, template)``."""

    site: str
    template: str
    signature: Any = None
    loaded: bool = False
    wrapper: Wrapper | None = None
    document: str | None = None  # the wrapper's JSON (what worker jobs carry)
    version: int | None = None
    stored_version: int | None = None  # version in the store (also of a corrupt entry)
    unstored: str | None = None  # JSON of a wrapper induced here the store did not take yet
    misfits: int = 0
    samples: list[Sample] = field(default_factory=list)
    inducing: bool = False
    previous: Wrapper | None = None  # the stale wrapper being replaced: its names carry over
    detail: bool | None = None  # its pages look like detail pages (one object each)
    detail_checked: bool = False  # ... confirmed by comparing two of its pages
    held: list[tuple[Sample, Any]] = field(default_factory=list)  # (sample, Released)
    failed_inductions: int = 0
    checked: float = 0.0  # time.monotonic() of the last look at the store

    def use(self, wrapper: Wrapper | None, version: int | None) -> None:
        """Serve ``wrapper`` (``None``: none) from now on."""
        self.wrapper, self.version = wrapper, version
        self.document = wrapper.to_json() if wrapper is not None else None


class StoreSync:
    """Store interplay of a runtime (mixed into it): needs ``store``, ``config``, ``_lock``
    and ``_states``."""

    if TYPE_CHECKING:  # the runtime's read-only property (not an attribute to assign)

        @property
        def store(self) -> WrapperStore | None: ...

    config: Any
    _lock: threading.RLock
    _states: dict[tuple[str, str], TemplateState]
    _alias: dict[tuple[str, str], str]

    def _load_wrapper(self, document: str, site: str, template: str, version: int, out: Any):
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

    def _refresh(self, st: TemplateState, out: Any) -> None:
        """Every ``RECORDS_STORE_REFRESH`` seconds, adopt a newer stored version of a wrapper
        in use (another process re-induced it)."""
        refresh = self.config.store_refresh
        if refresh <= 0 or st.wrapper is None or time.monotonic() - st.checked <= refresh:
            return
        st.checked = time.monotonic()
        store = self.store
        if store is not None:
            self._adopt_newer(st, store, out)

    def _adopt_alias(self, st: TemplateState, store: WrapperStore, out: Any) -> bool:
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
                other.use(wrapper, best.version)
                other.stored_version = best.version
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

    def _adopt_newer(self, st: TemplateState, store: WrapperStore, out: Any) -> bool:
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
        if st.unstored is not None and sw.document == st.unstored:
            # our own wrapper, induced during an outage and written since (the Redis store
            # replays queued writes): it got a version, there is nothing to adopt
            with self._lock:
                st.version = st.stored_version = sw.version
                st.unstored = None
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
            st.use(other, sw.version)
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

    def _put(
        self, st: TemplateState, document: str, base: int | None, store: WrapperStore, out: Any
    ) -> tuple[int | None, str | None] | None:
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
                if other is not None and sw is not None:
                    st.use(other, sw.version)
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
