"""``python -m scrapy_records``: see :mod:`scrapy_records.cli`."""

import sys

from .cli import main

sys.exit(main())
