"""DCADE: the full schema of a template, induced from several pages of it
(Yuliana & Chang 2019, section 3).

Entry points: :func:`induce_schema` (pages -> :class:`Schema`: ``TableA`` and the
recordset tables), :func:`schema_to_wrapper` and :func:`induce_wrapper` (pages ->
:class:`~scrapy_records.wrappers.wrapper.Wrapper`, what
``scrapy_records.induce(pages, extractor="dcade")`` calls). Options and their defaults:
:data:`DEFAULT_OPTIONS`. ``docs/algorithms/dcade.md`` describes the algorithm and which
module holds which phase.
"""

from __future__ import annotations

from scrapy_records.wrappers.inducers.dcade.align import align_codes, nw_align
from scrapy_records.wrappers.inducers.dcade.options import DEFAULT_OPTIONS
from scrapy_records.wrappers.inducers.dcade.patterns import Pattern, filter_repeats
from scrapy_records.wrappers.inducers.dcade.pipeline import induce_schema, induce_wrapper
from scrapy_records.wrappers.inducers.dcade.records import rec_detection
from scrapy_records.wrappers.inducers.dcade.schema import RecordSet, Schema, SchemaColumn
from scrapy_records.wrappers.inducers.dcade.tokens import seq_sim, sim_tec, token_type, type_sets
from scrapy_records.wrappers.inducers.dcade.wrapper import schema_to_wrapper

__all__ = [
    "DEFAULT_OPTIONS",
    "Schema",
    "SchemaColumn",
    "RecordSet",
    "induce_schema",
    "induce_wrapper",
    "schema_to_wrapper",
    "token_type",
    "type_sets",
    "seq_sim",
    "nw_align",
    "align_codes",
    "sim_tec",
    "Pattern",
    "filter_repeats",
    "rec_detection",
]
