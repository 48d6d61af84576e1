"""Extractor protocol and registry.

An extractor is any object with a ``name`` and ``extract(page, **options) -> list[Region]``
(see :class:`~scrapy_records.extractors.base.Extractor`). Built-ins are registered by
name and imported lazily; third-party extractors register through the entry point group
``scrapy_records.extractors`` (the entry point's value is a class or a factory returning
an extractor), or at run time with :func:`register_extractor`.
"""

from __future__ import annotations

import importlib
import logging
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from scrapy_records.errors import UnknownExtractorError
from scrapy_records.lazy import lazy_names

if TYPE_CHECKING:
    from scrapy_records.extractors.base import Extractor, build_region

# (the registry is read without importing the extractors and the alignment behind them)
__getattr__, __dir__ = lazy_names(
    __name__,
    globals(),
    {
        "Extractor": "scrapy_records.extractors.base",
        "build_region": "scrapy_records.extractors.base",
    },
)

logger = logging.getLogger(__name__)

__all__ = [
    "Extractor",
    "build_region",
    "available_extractors",
    "get_extractor",
    "register_extractor",
    "registered_here",
    "BUILTIN_EXTRACTORS",
    "ENTRY_POINT_GROUP",
]

ENTRY_POINT_GROUP = "scrapy_records.extractors"

#: name -> "module:attribute" of the built-in single-page extractors.
BUILTIN_EXTRACTORS: dict[str, str] = {
    "mdr": "scrapy_records.extractors.mdr:MDRExtractor",
    "stem": "scrapy_records.extractors.stem:STEMExtractor",
    "mibat": "scrapy_records.extractors.mibat:MiBATExtractor",
    "gstm": "scrapy_records.extractors.gstm:GSTMExtractor",
}

_registered: dict[str, Any] = {}
_instances: dict[str, Extractor] = {}


def _entry_points() -> dict[str, Any]:
    try:
        return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    except Exception:  # pragma: no cover - broken metadata must not break extraction
        logger.exception("could not read entry points of group %s", ENTRY_POINT_GROUP)
        return {}


def available_extractors() -> list[str]:
    """Names accepted by :func:`get_extractor` (plus ``"auto"`` in
    :func:`~scrapy_records.extract`)."""
    return sorted(set(BUILTIN_EXTRACTORS) | set(_registered) | set(_entry_points()))


def register_extractor(name: str, extractor: Any) -> None:
    """Register an extractor instance, class or factory under ``name`` (overrides built-ins)."""
    _registered[name] = extractor
    _instances.pop(name, None)


def registered_here(name: str) -> bool:
    """Whether ``name`` was registered with :func:`register_extractor` in this process
    (worker processes started later do not know it)."""
    return name in _registered


def _instantiate(obj: Any) -> Extractor:
    inst = (
        obj() if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "extract")) else obj
    )
    if not hasattr(inst, "extract"):
        raise TypeError(f"{obj!r} is not an extractor: it has no extract(page, **options)")
    return inst


def get_extractor(name: str) -> Extractor:
    """Return the extractor registered as ``name``.

    :raises UnknownExtractorError: listing the available names.
    """
    inst = _instances.get(name)
    if inst is not None:
        return inst
    if name in _registered:
        inst = _instantiate(_registered[name])
    elif name in BUILTIN_EXTRACTORS:
        module, _, attr = BUILTIN_EXTRACTORS[name].partition(":")
        inst = _instantiate(getattr(importlib.import_module(module), attr))
    else:
        eps = _entry_points()
        if name not in eps:
            raise UnknownExtractorError(name, available_extractors() + ["auto"])
        inst = _instantiate(eps[name].load())
    if not getattr(inst, "name", None):
        inst.name = name
    _instances[name] = inst
    return inst
