"""The inducer registry: which function induces a wrapper under a given name.

1. inducers registered at run time with :func:`register_inducer`;
2. the built-ins, :data:`INDUCERS` (import paths, imported on first use);
3. inducers that installed packages declare in the entry point group
   :data:`ENTRY_POINT_GROUP` (read once per process).

Kept apart from :mod:`scrapy_records.wrappers.induce` so that a crawl can check its
configured inducer without importing the inducers and extractors.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from scrapy_records.errors import WrapperError
from scrapy_records.extractors import BUILTIN_EXTRACTORS

if TYPE_CHECKING:
    from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)

__all__ = [
    "register_inducer",
    "inducer_registered_here",
    "get_inducer",
    "INDUCERS",
    "ENTRY_POINT_GROUP",
    "DCADE_MIN_PAGES",
]

ENTRY_POINT_GROUP = "scrapy_records.inducers"

#: name -> "module:function" of multi-page inducers (imported lazily).
INDUCERS: dict[str, str] = {
    "gstm": "scrapy_records.wrappers.inducers.gstm:induce_wrapper",
    "dcade": "scrapy_records.wrappers.inducers.dcade:induce_wrapper",
}
_registered: dict[str, Callable[..., Wrapper]] = {}

#: ``induce(extractor="auto")`` hands detail pages to DCADE from this many sample pages on
#: (DCADE tells template from data by what varies across pages: with 2 pages it does worse
#: than intersection).
DCADE_MIN_PAGES = 5


def register_inducer(name: str, fn: Callable[..., Wrapper]) -> None:
    """Register ``fn(pages: list[Page], **options) -> Wrapper`` under ``name`` (it takes
    precedence over built-in and entry point inducers of that name)."""
    _registered[name] = fn


def inducer_registered_here(name: str) -> bool:
    """Whether ``name`` was registered with :func:`register_inducer` in this process."""
    return name in _registered


#: ``(entry_points, the group's entry points)`` as last read
_group_cache: list[tuple[Callable[..., Any], list[Any]]] = []


def _group_entry_points() -> list[Any]:
    """The entry points of :data:`ENTRY_POINT_GROUP`, read once per process: reading them
    scans every installed distribution's metadata (~2 ms), and ``induce(extractor="auto")``
    asks for one named ``auto`` on every call (read again if ``entry_points`` is replaced)."""
    if not _group_cache or _group_cache[0][0] is not entry_points:
        _group_cache[:] = [(entry_points, list(entry_points(group=ENTRY_POINT_GROUP)))]
    return _group_cache[0][1]


def _entry_point_inducer(name: str) -> Callable[..., Wrapper] | None:
    """The inducer an installed package registers as ``name`` (None: none does)."""
    try:
        found = [ep for ep in _group_entry_points() if ep.name == name]
    except Exception:  # pragma: no cover - broken metadata must not break induction
        logger.exception("could not read entry points of group %s", ENTRY_POINT_GROUP)
        return None
    if not found:
        return None
    try:
        return found[0].load()
    except Exception as exc:
        raise WrapperError(f"inducer {name!r} ({found[0].value}) is not available: {exc}") from exc


def get_inducer(name: str) -> Callable[..., Wrapper] | None:
    """The inducer registered as ``name`` (module docstring), None for an extractor name."""
    if name in _registered:
        return _registered[name]
    spec = INDUCERS.get(name)
    if spec is None:
        return _entry_point_inducer(name)
    module, _, attr = spec.partition(":")
    try:
        mod = importlib.import_module(module)
        fn = getattr(mod, attr)
    except (ImportError, AttributeError) as exc:
        if name in BUILTIN_EXTRACTORS:  # a single-page extractor without its pattern inducer
            logger.warning(
                "inducer %s unavailable (%s): intersection induction over %r regions",
                spec,
                exc,
                name,
            )
            return None
        raise WrapperError(f"inducer {name!r} ({spec}) is not available: {exc}") from exc
    return fn
