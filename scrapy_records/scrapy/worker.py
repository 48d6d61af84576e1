"""Mining one page and inducing one template's wrapper, as functions of plain data.

:func:`mine_page` and :func:`induce_template` take everything they need in their job (the
response's bytes, the site's templates and wrappers as JSON) and return plain results, so
they run the same in a worker process (``RECORDS_WORKERS``) or in a thread: the records
are the same either way. Parsing happens here, never in the reactor thread.

The extractors and inducers (:data:`MINERS`) are imported where they are used, so that
importing this module, as the Scrapy glue does, costs no more than applying wrappers; a
crawl that mines in its own process loads them when it starts (:func:`load_miners`), before
its first page.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import pickle
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from scrapy_records.errors import (
    EmptyDocumentError,
    NotHTMLError,
    PageTooLargeError,
    RecordsError,
    WrapperError,
)
from scrapy_records.fields.dates import http_date_base, relative_to
from scrapy_records.page import HtmlElementParser, Page, parse_html
from scrapy_records.results import DEMOTIONS, PageResult, Region
from scrapy_records.wrappers.induce import (
    DetailEvidence,
    detail_evidence,
    detail_evidenced,
    detail_template,
    induce,
)
from scrapy_records.wrappers.pins import adopt_schema, carry_over
from scrapy_records.wrappers.templates import Signature, page_signature, similarity
from scrapy_records.wrappers.wrapper import Wrapper

#: a template whose first page's main region holds less than this share of the page's
#: text (or that has none) may be detail pages: its records wait until the detail check
#: compares three of its pages, as ``induce`` decides it; mining sends the check's evidence
#: back for such pages. The check calls pages detail when less than half of what varies
#: between them lies in their records; the constant text (menus, labels) lies mostly
#: outside the records, so records holding 40% of all the text hold more than half of what
#: varies. A car's spec page, whose "highlights" boxes hold a third of its text, is
#: compared; a shop's list page (0.8) and a product page whose reviews hold nearly half of
#: it (0.46-0.59) are lists without comparing: the reviews are the records.
DETAIL_HINT_COVERAGE = 0.4
#: ... or whose main region's records are mostly label rows, each opening with a label
#: ("Year founded: | 1906", a university's facts table): the rows of one object's
#: attributes, which the check then compares as well
DETAIL_HINT_LABEL_ROWS = 0.5
#: ... in the main region or one ranked right after it (among the first three): a detail
#: page whose description paragraphs rank above its facts table must not make its
#: template a list template when it happens to be mined first (the check compares pages)
DETAIL_HINT_REGIONS = 3
#: the longest text read as a row's label
_ROW_LABEL_CHARS = 40

#: The modules mining and induction need (about a third of a second of imports).
MINERS = ("scrapy_records.api", "scrapy_records.wrappers.inducers.intersect")


def load_miners() -> None:
    """Import :data:`MINERS` now rather than on the first page mined (where a thread of
    the crawl would hold the import lock while the others wait)."""
    for name in MINERS:
        importlib.import_module(name)


@dataclass(frozen=True)
class TemplateRef:
    """A template of the site as the worker needs it: its signature and its wrapper."""

    id: str
    signature: dict[str, Any] | None
    wrapper: str | None = None  # the wrapper's JSON document


@dataclass
class PageJob:
    """One response to mine (see :func:`mine_page`)."""

    url: str
    body: bytes
    encoding: str | None
    date: bytes | None  # the response's Date header: relative dates count from it
    extractor: str
    options: dict[str, Any]
    min_records: int = 2
    max_bytes: int = 5 * 1024 * 1024
    max_nodes: int = 150_000
    threshold: float = 0.6
    use_wrappers: bool = True
    fixed_template: str | None = None  # ``meta["records_template"]``
    templates: tuple[TemplateRef, ...] = ()
    #: the regions of a mined page sent back: ``"all"``, or ``"main"``, the first-ranked
    #: one only (what the items of ``RECORDS_REGIONS = "main"`` read; the others are most of
    #: the result's bytes and of the time the crawl's process takes to read them back)
    regions: str = "all"
    #: a mined page's regions serialised as well (:attr:`MinedPage.packed`), for the
    #: template's induction samples: every region, whatever ``regions`` sends
    pack: bool = False


@dataclass
class MinedPage:
    """What :func:`mine_page` found."""

    signature: dict[str, Any] | None = None
    template: str | None = None  # the known template the page belongs to (None: new)
    result: PageResult | None = None
    source: str = ""  # "wrapper" or the extractor's name
    wrapper_fits: bool | None = None  # None: no wrapper applied
    skipped: str | None = None
    error: str | None = None
    built_page: bool = False  # the page model was built (unsupervised mining)
    coverage: float | None = None  # share of the page's text in its main region's records
    #: on a page of low coverage (a detail page?), what the detail check compares
    detail: DetailEvidence | None = None
    #: with ``PageJob.pack``, every region mining found, serialised (:meth:`Sample.keep`)
    packed: bytes = b""
    seconds: float = 0.0  # CPU seconds
    pid: int = 0  # the process that mined it (a worker's, or the crawl's own)


#: compiled wrappers by their document's digest (a worker applies a site's wrappers again
#: and again: compile once)
_WRAPPERS: OrderedDict[str, Wrapper] = OrderedDict()
_CACHE_SIZE = 128


def _wrapper(document: str) -> Wrapper:
    key = hashlib.blake2b(document.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
    w = _WRAPPERS.get(key)
    if w is None:
        w = _WRAPPERS[key] = Wrapper.from_json(document)
        if len(_WRAPPERS) > _CACHE_SIZE:
            _WRAPPERS.popitem(last=False)
    else:
        _WRAPPERS.move_to_end(key)
    return w


#: signatures by the dict a job carries (``id`` -> the dict, kept alive, and its signature):
#: in the crawl's process the runtime hands every job the same dict of a template
_SIGNATURES: OrderedDict[int, tuple[dict[str, Any], Signature]] = OrderedDict()


def _signature(d: dict[str, Any]) -> Signature:
    hit = _SIGNATURES.get(id(d))
    if hit is not None and hit[0] is d:
        return hit[1]
    sig = Signature.from_dict(d)
    _SIGNATURES[id(d)] = (d, sig)
    if len(_SIGNATURES) > _CACHE_SIZE:
        _SIGNATURES.popitem(last=False)
    return sig


def _template(sig: Signature, job: PageJob) -> str | None:
    """The known template most similar to the page (at least the threshold), as
    :class:`~scrapy_records.wrappers.templates.TemplateGrouper` chooses it."""
    best, best_sim = None, -1.0
    for ref in job.templates:
        if ref.signature is None:
            continue
        s = similarity(sig, _signature(ref.signature))
        if s > best_sim:
            best, best_sim = ref.id, s
    return best if best is not None and best_sim >= job.threshold else None


def _parse(body: bytes, url: str, encoding: str | None, max_bytes: int) -> tuple[Any, str | None]:
    """A response's bytes parsed as the page model parses them (the C-level element class
    lookup): ``(root, encoding)``."""
    root, _, enc = parse_html(
        body, url, encoding=encoding, max_bytes=max_bytes, parser_cls=HtmlElementParser
    )
    return root, enc


@dataclass
class Attempt:
    """A page parsed, its template assigned and the template's wrapper tried (not fitting,
    or none) by :func:`apply_page` in this process: where :func:`mine_page` goes on from,
    without parsing the page or computing its signature again."""

    root: Any
    encoding: str | None
    mined: MinedPage  # its template and signature, ``wrapper_fits`` False or None
    wrapped: Region | None  # the wrapper's region on the page, when one was tried


def mine_page(job: PageJob, attempt: Attempt | None = None) -> MinedPage:
    """Mine one page: its template, then the template's wrapper when it has one and the page
    fits, else the unsupervised extractors. ``attempt``: :func:`apply_page`'s work on the
    page in this process, taken up where it stopped. Never raises."""
    t0 = time.thread_time()  # (mine_page runs in a worker process or a crawl thread)
    out = attempt.mined if attempt is not None else MinedPage()
    out.pid = os.getpid()
    try:
        with relative_to(http_date_base(job.date)):
            _mine(job, out, attempt)
    except (NotHTMLError, EmptyDocumentError) as exc:
        out.skipped, out.error = "non_html", str(exc)
    except PageTooLargeError as exc:
        out.skipped, out.error = "too_large", str(exc)
    except Exception as exc:  # one page never breaks the crawl
        out.error = f"{type(exc).__name__}: {exc}"
    out.seconds += time.thread_time() - t0
    return out


def apply_page(job: PageJob) -> tuple[MinedPage | None, Attempt | None]:
    """The page's records by its template's wrapper, without mining: ``(mined, None)``
    when a wrapper fits the page, else ``(None, attempt)`` for :func:`mine_page`
    (``(None, None)`` when it could not be parsed: mining says why). Raises nothing."""
    t0 = time.thread_time()
    out = MinedPage(pid=os.getpid())
    try:
        with relative_to(http_date_base(job.date)):
            root, encoding = _parse(job.body, job.url, job.encoding, job.max_bytes)
            wrapped = _try_wrapper(job, out, root)
    except Exception:
        return None, None
    out.seconds = time.thread_time() - t0
    if not out.wrapper_fits:
        return None, Attempt(root, encoding, out, wrapped)
    return out, None


def _assign_template(sig: Signature, job: PageJob, out: MinedPage) -> None:
    out.signature = sig.to_dict()
    out.template = _template(sig, job)


def _try_wrapper(job: PageJob, out: MinedPage, root: Any) -> Region | None:
    """The page's template (from the tree, when some template of the site has a wrapper)
    and that template's wrapper applied: ``out.result`` is its result when it fits; else the
    wrapper's region is returned (its schema names the records mined instead)."""
    if job.fixed_template:
        out.template = job.fixed_template
    elif job.use_wrappers and any(t.wrapper is not None for t in job.templates):
        _assign_template(page_signature(root, max_nodes=job.max_nodes), job, out)
    ref = next((t for t in job.templates if t.id == out.template), None)
    if not job.use_wrappers or ref is None or ref.wrapper is None:
        return None
    w = _wrapper(ref.wrapper)
    result = w.extract(root, url=job.url)
    health = result.regions[0].meta.get("health") if result.regions else None
    out.wrapper_fits = bool(health and health.get("fits"))
    w.stale = False  # the runtime, not this shared copy, decides when a wrapper is stale
    if out.wrapper_fits:
        out.result, out.source = result, "wrapper"
        return None
    return result.regions[0] if result.regions else None


def _mine(job: PageJob, out: MinedPage, attempt: Attempt | None = None) -> None:
    if attempt is not None:
        root, encoding, wrapped = attempt.root, attempt.encoding, attempt.wrapped
    else:
        root, encoding = _parse(job.body, job.url, job.encoding, job.max_bytes)
        # the template decides whether a wrapper applies: from the tree when some template
        # of the site has one, else later from the page model's path table (half the cost)
        wrapped = _try_wrapper(job, out, root)
        if out.wrapper_fits:
            return
    assign = job.use_wrappers and not job.fixed_template and out.signature is None
    from scrapy_records.api import extract

    page = Page(root, job.url, encoding=encoding, max_nodes=job.max_nodes)
    out.built_page = True
    if assign:
        _assign_template(page_signature(page), job, out)
    out.result = extract(
        page, url=job.url, extractor=job.extractor, min_records=job.min_records, **job.options
    )
    out.source = job.extractor
    main = out.result.main
    if main is not None and wrapped is not None:
        adopt_schema(main, wrapped)  # the template's schema names what the wrapper still reads
    total = sum(map(len, page.leaves))
    covered = sum(len(r.text) for r in main.records) if main is not None else 0
    out.coverage = covered / total if total else 0.0
    top = out.result.regions[:DETAIL_HINT_REGIONS] if main is not None else []
    rows = (r for r in top if not any(k in r.meta for k in DEMOTIONS))  # (not a sort form)
    if out.coverage < DETAIL_HINT_COVERAGE or any(_label_rows(page, r) for r in rows):
        out.detail = detail_evidence(page, out.result.regions)
    if job.pack:
        out.packed = pack_regions(out.result.regions)
    if job.regions == "main" and len(out.result.regions) > 1:
        out.result = replace(out.result, regions=out.result.regions[:1])


def _label_rows(page: Page, main: Any) -> bool:
    """At least :data:`DETAIL_HINT_LABEL_ROWS` of the region's records open with a label
    ("Setting:") followed by more text."""
    lo, hi, leaves = page.leaf_lo, page.leaf_hi, page.leaves
    rows = 0
    for rec in main.records:
        texts: list[str] = []  # (its first two texts are all it takes: long records unread)
        for x in rec.nodes:
            texts += [t for k in range(lo[x], min(hi[x], lo[x] + 8)) if (t := leaves[k].strip())]
            if len(texts) >= 2:
                break
        rows += (
            len(texts) >= 2 and len(texts[0]) <= _ROW_LABEL_CHARS and texts[0].endswith((":", "："))
        )
    return rows >= DETAIL_HINT_LABEL_ROWS * len(main.records)


@dataclass
class ApplyJob:
    """One page to extract with a given wrapper (a held page, once its template's wrapper
    is known)."""

    url: str
    body: bytes
    encoding: str | None
    date: bytes | None
    wrapper: str  # the wrapper's JSON document
    max_bytes: int = 5 * 1024 * 1024


def apply_wrapper(job: ApplyJob) -> PageResult:
    """The wrapper's result on the page."""
    with relative_to(http_date_base(job.date)):
        root, _enc = _parse(job.body, job.url, job.encoding, job.max_bytes)
        return _wrapper(job.wrapper).extract(root, url=job.url)


@dataclass
class Sample:
    """One page kept for induction: its bytes and what mining found on it.

    The mined regions are kept serialised (:meth:`keep`): a template's samples live in the
    crawl's process until its induction, thousands of small records and dicts that every
    full collection of the cyclic garbage collector walked, a reactor pause of 60-85 ms
    on 180 KB pages (30-45 ms without them). A bytes object is never walked; the regions
    are read back where induction runs, in a worker process as a rule, which receives
    them serialised anyway. (The bytes never leave the crawl: no store, no file.)"""

    url: str
    body: bytes
    encoding: str | None
    date: bytes | None
    packed: bytes = b""  # the regions mining found (:meth:`keep`, :attr:`regions`)
    detail: DetailEvidence | None = None  # (from mining; None: parse the page again)

    @classmethod
    def keep(
        cls, job: PageJob, regions: list[Region] | bytes, detail: DetailEvidence | None
    ) -> Sample:
        """The sample of a mined page (its job), its regions serialised (``regions``: as
        :func:`pack_regions` serialised them already, or the regions)."""
        packed = regions if isinstance(regions, bytes) else pack_regions(regions)
        return cls(job.url, job.body, job.encoding, job.date, packed, detail)

    @property
    def regions(self) -> list[Region]:
        """The regions mining found on the page (read back from :attr:`packed`)."""
        return pickle.loads(self.packed) if self.packed else []


def pack_regions(regions: list[Region]) -> bytes:
    """Regions serialised as :attr:`Sample.packed` keeps them."""
    return pickle.dumps(regions, pickle.HIGHEST_PROTOCOL)


@dataclass
class InductionJob:
    """The samples of one template and how to induce its wrapper."""

    samples: list[Sample]
    extractor: str
    inducer: str
    max_bytes: int = 5 * 1024 * 1024
    max_nodes: int = 150_000
    previous: str | None = None  # the wrapper being replaced: its names carry over


def _sample_pages(job: InductionJob) -> list[Page]:
    pages = []
    for s in job.samples:
        with relative_to(http_date_base(s.date)):
            root, enc = _parse(s.body, s.url, s.encoding, job.max_bytes)
        pages.append(Page(root, s.url, encoding=enc, max_nodes=job.max_nodes))
    return pages


def detail_pages(job: InductionJob) -> bool:
    """Whether the samples describe one object each (detail pages) rather than list
    records, compared across them as induction decides it
    (:func:`~scrapy_records.wrappers.induce.detail_template`): from what mining sent back
    when every sample has it, else the samples are parsed again."""
    if all(s.detail is not None for s in job.samples):
        return detail_evidenced([s.detail for s in job.samples if s.detail is not None])
    return detail_template(_sample_pages(job), [s.regions for s in job.samples])


def induce_template(job: InductionJob) -> str:
    """The induced wrapper's JSON document.

    The samples are parsed again (a parse is the cheap part of mining); their mined regions
    are reused when the inducer is the extractor, so induction does not mine again and the
    wrapper's fields carry the names the mined records carry.

    :raises RecordsError: no wrapper holds on the samples.
    """
    pages = _sample_pages(job)
    mined = [s.regions for s in job.samples] if job.inducer == job.extractor else None
    with relative_to(http_date_base(job.samples[0].date)):
        try:
            wrapper = induce(pages, extractor=job.inducer, regions=mined)
        except (RecordsError, ValueError):
            wrapper = _single_page_wrapper(pages, job.samples)
        if job.previous is not None:
            carry_over(wrapper, Wrapper.from_json(job.previous), pages)
    return wrapper.to_json()


def _single_page_wrapper(pages: list[Page], samples: list[Sample]) -> Wrapper:
    """When no wrapper holds on all samples together: one sample's main region as a
    wrapper, the first that finds records on every sample."""
    for page, s in zip(pages, samples):
        regions = s.regions
        region = regions[0] if regions else None
        if region is None:
            continue
        try:
            w = Wrapper.from_region(region, page)
        except (RecordsError, ValueError):
            continue
        if all(w.extract(p, url=p.url).records for p in pages):
            return w
    raise WrapperError("no wrapper finds records on every sample page")
