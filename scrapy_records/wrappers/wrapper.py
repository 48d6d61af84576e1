"""The Wrapper: a validated, versioned document of selectors, applied with compiled XPaths.

Build one with ``Wrapper.from_region`` or :func:`scrapy_records.induce`, apply it with
``extract``, store it with ``to_json``/``from_json`` (format: ``docs/wrapper-format.md``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from scrapy_records.errors import OptionError, WrapperError
from scrapy_records.page import DEFAULT_MAX_NODES, PAGE_OPTIONS, as_page
from scrapy_records.results import PageResult, Region
from scrapy_records.wrappers.apply import CompiledWrapper
from scrapy_records.wrappers.budget import DEFAULT_MAX_WORK, ApplyBudget
from scrapy_records.wrappers.model import (
    WRAPPER_FORMAT,
    WRAPPER_VERSION,
    FieldSpec,
    Health,
    ListSpec,
    Provenance,
    RecordSelector,
    TemplateInfo,
)
from scrapy_records.wrappers.reading import parse_source
from scrapy_records.wrappers.schema import Validator

logger = logging.getLogger(__name__)

#: What :meth:`Wrapper.extract` accepts: the page budgets and the work budget.
APPLY_OPTIONS = (*PAGE_OPTIONS, "max_work", "max_seconds")


@dataclass
class Wrapper:
    """A per-site, per-template wrapper (its JSON format: ``docs/wrapper-format.md``).

    Build one with :meth:`from_region` (any extractor's region on one page),
    :func:`scrapy_records.induce` (several pages of one template) or by hand; apply it with
    :meth:`extract`; store it with :meth:`to_json` / :meth:`from_json`.
    """

    id: str
    record: RecordSelector | None
    fields: list[FieldSpec] = field(default_factory=list)
    lists: list[ListSpec] = field(default_factory=list)
    page_fields: list[FieldSpec] = field(default_factory=list)
    site: str | None = None
    template: TemplateInfo = field(default_factory=TemplateInfo)
    provenance: Provenance = field(default_factory=Provenance)
    health: Health = field(default_factory=Health)
    #: fields a person dropped (``{"name", "xpath", "attribute"}``): re-induction leaves them out
    dropped: list[dict[str, Any]] = field(default_factory=list)
    #: set by :meth:`check` when a page no longer fits: re-induce from fresh pages.
    stale: bool = field(default=False, compare=False)
    _compiled: Any = field(default=None, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        # compiled XPath objects cannot be copied: copies (copy.deepcopy, multiprocessing)
        # recompile on first use
        state = self.__dict__.copy()
        state["_compiled"] = None
        return state

    # ---------------------------------------------------------------- identity
    @staticmethod
    def make_id(*parts: Any) -> str:
        """A short deterministic id (12 hex digits) from the given parts (site, selectors...)."""
        h = hashlib.blake2b(digest_size=6)
        for p in parts:
            h.update(repr(p).encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        return h.hexdigest()

    # ----------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": WRAPPER_FORMAT,
            "version": WRAPPER_VERSION,
            "id": self.id,
            "site": self.site,
            "template": self.template.to_dict(),
            "record": self.record.to_dict() if self.record is not None else None,
            "fields": [f.to_dict() for f in self.fields],
            "lists": [x.to_dict() for x in self.lists],
            "page_fields": [f.to_dict() for f in self.page_fields],
            "provenance": self.provenance.to_dict(),
            "health": self.health.to_dict(),
            "dropped": [dict(x) for x in self.dropped],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """Deterministic JSON (sorted keys): ``from_json(w.to_json()).to_json() == w.to_json()``."""
        d = self.to_dict()
        Validator.document(d)
        return json.dumps(d, sort_keys=True, indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: Any) -> Wrapper:
        """Validate a decoded document fully, then build the wrapper (never half-loads)."""
        Validator.document(d)
        try:
            return cls(
                id=d["id"],
                site=d["site"],
                template=TemplateInfo.from_dict(d["template"]),
                record=RecordSelector.from_dict(d["record"]) if d["record"] is not None else None,
                fields=[FieldSpec.from_dict(f) for f in d["fields"]],
                lists=[ListSpec.from_dict(x) for x in d["lists"]],
                page_fields=[FieldSpec.from_dict(f) for f in d["page_fields"]],
                provenance=Provenance.from_dict(d["provenance"]),
                health=Health.from_dict(d["health"]),
                dropped=[dict(x) for x in d.get("dropped", [])],
            )
        except (KeyError, TypeError, ValueError) as exc:  # pragma: no cover - validator gap
            raise WrapperError(f"invalid wrapper document: {exc}") from exc

    @classmethod
    def from_json(cls, text: str | bytes) -> Wrapper:
        """Parse and validate a wrapper document.

        :raises WrapperError: truncated/invalid JSON, another format or version, missing or
            unknown keys, wrong types, XPaths that do not compile.
        """
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise WrapperError(f"wrapper document is not UTF-8: {exc}") from exc
        if not isinstance(text, str):
            raise WrapperError(f"wrapper document must be str or bytes, not {type(text).__name__}")
        try:
            d = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise WrapperError(f"wrapper document is not valid JSON: {exc}") from exc
        return cls.from_dict(d)

    def validate(self) -> Wrapper:
        """Raise :class:`WrapperError` if this wrapper would not serialise to a valid document."""
        Validator.document(self.to_dict())
        return self

    # ----------------------------------------------------------- application
    def _compile(self) -> CompiledWrapper:
        if self._compiled is None:
            self._compiled = CompiledWrapper(self)
        return self._compiled

    def extract(self, source: Any, url: str | None = None, **options: Any) -> PageResult:
        """Apply the wrapper to one page and return the shared result model.

        ``source`` is ``str``/``bytes``/a Scrapy ``Response``/an lxml tree or a
        :class:`~scrapy_records.page.Page`. Raw input is parsed once with the same parser
        as parsel (no page model is built: application is compiled XPaths only). The
        result has one region, ``extractor="wrapper:<id>"``, whose ``meta`` holds
        ``health`` (see :meth:`check`), ``page`` (the page-level fields) and ``wrapper``
        (id and version). A page that does not fit marks the wrapper :attr:`stale`.

        Options: the page budgets of :func:`scrapy_records.extract` (``max_bytes``,
        ``max_nodes``, ``encoding``; ``max_depth`` is accepted and has no effect here) and
        the work budget of application, ``max_work`` and ``max_seconds``
        (:mod:`scrapy_records.wrappers.budget`).

        :raises OptionError: an unknown option or a budget of the wrong type.
        :raises PageTooLargeError, BudgetExceededError: the page is over a budget.
        """
        unknown = sorted(set(options) - set(APPLY_OPTIONS))
        if unknown:
            raise OptionError(
                f"Wrapper.extract() got unknown option(s) {', '.join(unknown)};"
                f" accepted: {', '.join(APPLY_OPTIONS)}"
            )
        root, url, page, nodes_at_most = parse_source(source, url, options)
        budget = ApplyBudget(
            root,
            max_nodes=options.get("max_nodes", DEFAULT_MAX_NODES),
            max_work=options.get("max_work", DEFAULT_MAX_WORK),
            max_seconds=options.get("max_seconds"),
            nodes_at_most=nodes_at_most,
        )
        result = self._compile().apply(root, url, page, budget)
        self.check(result)
        return result

    def check(self, result: PageResult) -> dict[str, Any]:
        """How well a page fits this wrapper.

        ``records_fit`` is 1 inside ``health.expected_records``, ``n/min`` below it and
        ``max/n`` above it (0 when nothing is found); ``required_fill`` is the share of
        (record, required field) and required page-field slots that hold a value;
        ``fit = 0.5 * records_fit + 0.5 * required_fill`` (0 when the record selector
        finds nothing). ``fits`` when ``fit >= health.min_fit`` and at least half the
        required values are there (a page whose records lack them is another layout, however
        many records it has); a page that does not fit sets
        :attr:`stale` (stays set until the caller re-induces or resets it). The health
        dict is also stored in ``result.regions[0].meta["health"]``.
        """
        region = result.regions[0] if result.regions else None
        h = region.meta.get("health") if region is not None else None
        if h is None:
            h = {
                "records": 0,
                "expected_records": list(self.health.expected_records),
                "records_fit": 0.0,
                "required_fill": 0.0,
                "missing_required": [],
                "fit": 0.0,
                "fits": False,
            }
        if not h["fits"]:
            if not self.stale:
                logger.info(
                    "wrapper %s: page %s does not fit (fit=%.2f): marked stale",
                    self.id,
                    result.url,
                    h["fit"],
                )
            self.stale = True
        return h

    def verify(self, page: Any, region: Region | None = None) -> dict[str, Any]:
        """Compare this wrapper's output on ``page`` with ``region`` (default: nothing).

        Returns ``{"records": n, "expected": m, "records_exact": bool, "same_text": share of
        expected records whose text the wrapper reproduces}``.
        """
        page = as_page(page)
        res = self._compile().apply(page.root, page.url, page)
        got = res.regions[0].records if res.regions else []
        out: dict[str, Any] = {"records": len(got)}
        if region is not None:
            want = [tuple(r.xpaths) for r in region.records]
            have = [tuple(r.xpaths) for r in got]
            out["expected"] = len(want)
            out["records_exact"] = want == have
            wt = {r.text for r in got}
            out["same_text"] = (
                (sum(1 for r in region.records if r.text in wt) / len(want)) if want else 1.0
            )
        return out

    # ---------------------------------------------------------------- induction
    @classmethod
    def from_region(cls, region: Region, page: Any, **options: Any) -> Wrapper:
        """A wrapper from any extractor's region on one page.

        Selectors are generated robust-first and verified on ``page``: the record
        selector must select exactly the region's records, each field selector exactly
        the elements its feature was built from. Options: ``min_fill`` (0.3),
        ``max_fields`` (40), ``site``, ``extractor``, ``template_id``
        (:func:`scrapy_records.wrappers.inducers.region.region_wrapper`).
        """
        # imported here: applying a stored wrapper does not load the inducers
        from scrapy_records.wrappers.inducers.region import region_wrapper

        return region_wrapper(region, page, wrapper_cls=cls, **options)
