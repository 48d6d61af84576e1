"""The scrapy_records example project: a demo site served on 127.0.0.1 and four spiders."""
