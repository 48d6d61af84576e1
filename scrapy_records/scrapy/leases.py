"""The store's induction lease of a site, held (and renewed) while an induction runs."""

from __future__ import annotations

import logging
import threading

from scrapy_records.scrapy.store import StoreError, WrapperStore

logger = logging.getLogger(__name__)

#: The store lease taken around an induction: one per site (see ``RecordsRuntime``).
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
