"""Settings of the scrapy_records example project.

``ADDONS`` is the one line a project needs; everything else here is the demo's own taste:
feeds to CSV (one row per record, one column per field) and JSON Lines under ``output/``,
the wrapper store under ``.scrapy/``, and one CSV per page template.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# Run from a clean clone without installing: make the repository's package importable.
_REPO = os.path.dirname(os.path.dirname(_HERE))
try:  # pragma: no cover - depends on the environment
    import scrapy_records  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, _REPO)

BOT_NAME = "demo"
SPIDER_MODULES = ["demo.spiders"]
NEWSPIDER_MODULE = "demo.spiders"
# `scrapy records URL_OR_FILE` and `scrapy wrappers ...` without installing the package
COMMANDS_MODULE = "scrapy_records.scrapy.commands"

ADDONS = {"scrapy_records.Addon": 300}

ROBOTSTXT_OBEY = False
LOG_LEVEL = "INFO"
CONCURRENT_REQUESTS = 8
TELNETCONSOLE_ENABLED = False

# where the feeds go: example_project/output, or $DEMO_OUTPUT_DIR (the tests use a temporary one)
OUTPUT_DIR = os.environ.get("DEMO_OUTPUT_DIR") or os.path.join(os.path.dirname(_HERE), "output")
FEEDS = {
    os.path.join(OUTPUT_DIR, "%(name)s.jsonl"): {
        "format": "jsonlines",
        "overwrite": True,
        "encoding": "utf8",
    },
    # with the add-on a CSV feed is a table: one row per record, one column per field
    os.path.join(OUTPUT_DIR, "%(name)s.csv"): {"format": "csv", "overwrite": True},
}

# scrapy_records (every RECORDS_* setting is documented in docs/settings.md)
RECORDS_INDUCTION_SAMPLES = 2
RECORDS_CSV_PER_TEMPLATE = os.path.join(OUTPUT_DIR, "%(site)s-%(template)s.csv")
