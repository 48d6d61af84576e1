"""Wrappers: what mining learnt about a template, as validated JSON selectors.

``model`` (the document's parts; format in ``docs/wrapper-format.md``), ``schema``
(validation), ``wrapper`` (the ``Wrapper`` class), ``apply`` (compiled application),
``selectors`` (selector building blocks), ``templates`` (page signatures and template
grouping), ``induce`` (``induce()`` and the inducer registry) and ``inducers/`` (one
region, intersection over several pages, G-STM, DCADE).
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
