"""Wrappers: what mining learnt about a template, as validated JSON selectors.

``model`` (the document's parts), ``schema`` (validation), ``wrapper`` (the ``Wrapper``
class), ``apply`` (compiled application), ``selectors`` (selector building blocks),
``templates`` (page signatures and template grouping), ``induce`` (``induce()`` and the
inducer registry) and ``inducers/`` (intersection, G-STM, DCADE).
"""

from scrapy_records.wrappers.induce import induce, register_inducer
from scrapy_records.wrappers.model import (
    FIELD_TYPES,
    WRAPPER_FORMAT,
    WRAPPER_VERSION,
    FieldSpec,
    Health,
    ListSpec,
    Provenance,
    RecordSelector,
    TemplateInfo,
)
from scrapy_records.wrappers.wrapper import Wrapper

__all__ = [
    "FIELD_TYPES",
    "WRAPPER_FORMAT",
    "WRAPPER_VERSION",
    "FieldSpec",
    "Health",
    "ListSpec",
    "Provenance",
    "RecordSelector",
    "TemplateInfo",
    "Wrapper",
    "induce",
    "register_inducer",
]
