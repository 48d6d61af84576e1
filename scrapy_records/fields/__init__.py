"""The fields of the records: alignment into typed, named columns, value types, dates.

Entry points: :func:`align_records` (the records of a region into columns) and
:func:`align_region` (fill a region built without alignment).
"""

from scrapy_records.fields.alignment import align_records, align_region

__all__ = ["align_records", "align_region"]
