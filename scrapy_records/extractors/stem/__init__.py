"""STEM: data records from repeated tag-path patterns found with a suffix structure
(Fang, Xie, Zhang, Cheng & Zhang, *STEM: a suffix tree-based method for web data records
extraction*, KAIS 2017; Fang et al. 2017, section 4.1, Algorithm 1).

The page becomes a sequence of tag-path identifiers; the repeated patterns of that sequence
(the internal nodes of its suffix tree) that pass four filters are data record patterns
(DRPs), and each DRP cuts its records out of the sequence. The modules follow the phases:

* :mod:`~scrapy_records.extractors.stem.sequence`: preprocessing and the tag-path sequence;
* :mod:`~scrapy_records.extractors.stem.suffix`: the suffix array, LCP array and the
  suffix-tree nodes they encode;
* :mod:`~scrapy_records.extractors.stem.filters`: the frequency, gap, tree and repetition
  filters;
* :mod:`~scrapy_records.extractors.stem.analysis`: the driver (:func:`analyze`);
* :mod:`~scrapy_records.extractors.stem.records`: record cutting and gap attachment;
* :mod:`~scrapy_records.extractors.stem.extractor`: :class:`STEMExtractor`, regions;
* :mod:`~scrapy_records.extractors.stem.options`: the options and the ``paper`` and
  ``recommended`` profiles (:data:`PROFILES`).
"""

from scrapy_records.extractors.stem.analysis import (
    NodeDecision,
    STEMAnalysis,
    analyze,
    analyze_sequence,
)
from scrapy_records.extractors.stem.extractor import STEMExtractor
from scrapy_records.extractors.stem.filters import canonical_rotation, roots_of
from scrapy_records.extractors.stem.options import OPTION_NAMES, PROFILES
from scrapy_records.extractors.stem.records import DRP
from scrapy_records.extractors.stem.sequence import (
    DECORATIVE_EXTENDED,
    DECORATIVE_PAPER,
    TagPathSequence,
)

__all__ = [
    "STEMExtractor",
    "TagPathSequence",
    "STEMAnalysis",
    "DRP",
    "NodeDecision",
    "analyze",
    "analyze_sequence",
    "canonical_rotation",
    "roots_of",
    "DECORATIVE_PAPER",
    "DECORATIVE_EXTENDED",
    "PROFILES",
    "OPTION_NAMES",
]
