"""MDR: Mining Data Records in Web Pages (Liu, Grossman & Zhai, KDD 2003; Liu et al. 2003,
section 3).

Records of one list are formatted alike and sit under one parent: MDR compares adjacent
combinations of a node's children by the edit distance of their tag strings, takes runs of
similar combinations as data regions, and finds the records in each region, contiguous or
not. The modules follow the phases:

* :mod:`~scrapy_records.extractors.mdr.distance`: tag strings and their normalized edit
  distance;
* :mod:`~scrapy_records.extractors.mdr.regions`: generalized nodes and data regions
  (CombComp, IdentDRs, FindDRs);
* :mod:`~scrapy_records.extractors.mdr.records`: records in the regions (FindRecords-1/-n,
  non-contiguous records, records outside regions);
* :mod:`~scrapy_records.extractors.mdr.extractor`: the driver (:func:`mine`),
  :class:`MDRExtractor` and its options (:data:`DEFAULTS`, ``mode="paper"``).
"""

from scrapy_records.extractors.mdr.distance import normalized_distance
from scrapy_records.extractors.mdr.extractor import DEFAULTS, PAPER_MODE, MDRExtractor, mine
from scrapy_records.extractors.mdr.regions import TABLE_FORM_TAGS, comb_comp_pairs

__all__ = [
    "MDRExtractor",
    "DEFAULTS",
    "PAPER_MODE",
    "TABLE_FORM_TAGS",
    "normalized_distance",
    "comb_comp_pairs",
    "mine",
]
