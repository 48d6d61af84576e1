"""The fields of the records: alignment into typed, named columns, value types, dates.

Entry points: :func:`align_records` (the records of a region into columns) and
:func:`align_region` (fill a region built without alignment).
"""

from typing import TYPE_CHECKING

from scrapy_records.lazy import lazy_names

if TYPE_CHECKING:
    from scrapy_records.fields.alignment import align_records, align_region

# (the value, text and date helpers of this package are imported without the alignment)
__getattr__, __dir__ = lazy_names(
    __name__,
    globals(),
    {
        "align_records": "scrapy_records.fields.alignment",
        "align_region": "scrapy_records.fields.alignment",
    },
)

__all__ = ["align_records", "align_region"]
