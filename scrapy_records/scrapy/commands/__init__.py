"""Scrapy commands ``records`` and ``wrappers`` (entry points ``scrapy.commands``; or set
``COMMANDS_MODULE = "scrapy_records.scrapy.commands"`` in a project)."""
