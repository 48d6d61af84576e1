"""MiBAT: Mining data records Based on Anchor Trees, for forum posts, comments and reviews
(Song, Zhang, Cai, Wu & Wen, *Automatic Extraction of Web Data Records Containing
User-Generated Content*, CIKM 2010; Song et al. 2010, section 5.1, Algorithm 1).

User posts are too free-form to be found by their similarity alone; MiBAT anchors them on a
field that occurs once per post, its date: records are sibling sub-trees whose date nodes
match under tree matching (anchor trees), extended to the post's full extent (record
boundaries); the list with the best inter-record similarity is the main region. The
modules follow the phases:

* :mod:`~scrapy_records.extractors.mibat.anchors`: the candidate pivots (dates, author
  links, permalinks, reply links, or a classifier of one's own);
* :mod:`~scrapy_records.extractors.mibat.anchor_trees`: tree matching and Algorithm 2;
* :mod:`~scrapy_records.extractors.mibat.boundaries`: Algorithms 1 and 3, the pivots;
* :mod:`~scrapy_records.extractors.mibat.main_region`: the main region, the union of
  anchor kinds, the first-post recovery;
* :mod:`~scrapy_records.extractors.mibat.record_fields`: date, author, permalink, body and
  the record text without chrome (:mod:`~scrapy_records.extractors.mibat.hints`: the class
  words they look for);
* :mod:`~scrapy_records.extractors.mibat.extractor`: :class:`MiBATExtractor`, options
  (:data:`DEFAULTS`);
* :mod:`~scrapy_records.extractors.mibat.ugc`: the ``auto`` routing rule
  (:func:`is_ugc_page`).
"""

from scrapy_records.extractors.mibat.boundaries import MiBATRegion
from scrapy_records.extractors.mibat.extractor import DEFAULTS, MiBATExtractor
from scrapy_records.extractors.mibat.ugc import is_ugc_page, ugc_evidence, ugc_regions, ugc_router

__all__ = [
    "MiBATExtractor",
    "MiBATRegion",
    "is_ugc_page",
    "ugc_regions",
    "ugc_router",
    "ugc_evidence",
    "DEFAULTS",
]
