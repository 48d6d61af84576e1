"""``python -m scrapy_records``: see :mod:`scrapy_records.cli`."""

import sys

from scrapy_records.cli import main

sys.exit(main())
