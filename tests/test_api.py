"""Public API, extractor registry and command line."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import EntryPoint

import pytest

import scrapy_records
from scrapy_records import (
    NotHTMLError,
    UnknownExtractorError,
    extract,
    get_extractor,
    register_extractor,
)
from scrapy_records.extractors import build_region

LIST_PAGE = """<html><body><h1>Shop</h1>
<ul id="products">
  <li class="product"><a href="/p/1">Red kettle</a> <span class="price">$19.99</span></li>
  <li class="product"><a href="/p/2">Blue kettle</a> <span class="price">$24.50</span></li>
  <li class="product"><a href="/p/3">Green kettle</a> <span class="price">$9.00</span></li>
</ul></body></html>"""


class LiExtractor:
    """A toy extractor: every <ul> with >= 2 <li> children is a region."""

    name = "toy-li"

    def extract(self, page, **options):
        if options:
            raise TypeError(f"unknown options {sorted(options)}")
        regions = []
        for i, tag in enumerate(page.tag):
            kids = [c for c in page.children[i] if page.tag[c] == "li"]
            if tag == "ul" and len(kids) >= 2:
                regions.append(build_region(page, self.name, i, [[c] for c in kids], 0.9))
        return regions


def test_unknown_extractor_lists_available_names():
    with pytest.raises(UnknownExtractorError) as exc:
        extract(LIST_PAGE, extractor="nope")
    msg = str(exc.value)
    for name in ("mdr", "stem", "mibat", "gstm", "auto"):
        assert name in msg


def test_registered_extractor_runs_through_the_public_api():
    register_extractor("toy-li", LiExtractor)
    result = extract(LIST_PAGE, url="https://shop.example/", extractor="toy-li")
    assert result.main is not None
    assert [r.text for r in result.main.records] == [
        "Red kettle $19.99",
        "Blue kettle $24.50",
        "Green kettle $9.00",
    ]
    assert result.main.records[1].xpaths == ["/html/body/ul/li[2]"]
    assert result.main.xpath == "/html/body/ul"
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data  # plain JSON
    assert data["regions"][0]["records"][0]["xpaths"] == ["/html/body/ul/li[1]"]
    with pytest.raises(TypeError):
        extract(LIST_PAGE, extractor="toy-li", bogus=1)


def test_entry_point_extractors_are_found(monkeypatch):
    ep = EntryPoint(
        name="toy-ep", value="tests.test_api:LiExtractor", group="scrapy_records.extractors"
    )
    import scrapy_records.extractors as reg

    monkeypatch.setattr(
        reg, "entry_points", lambda group: [ep] if group == reg.ENTRY_POINT_GROUP else []
    )
    assert "toy-ep" in scrapy_records.available_extractors()
    assert get_extractor("toy-ep").extract.__qualname__ == "LiExtractor.extract"


def test_min_records_and_main_threshold():
    register_extractor("toy-li", LiExtractor)
    assert extract(LIST_PAGE, extractor="toy-li", min_records=4).regions == []
    res = extract(LIST_PAGE, extractor="toy-li", main_threshold=0.95)
    assert res.regions and res.main is None and res.records == []


def test_bad_input_through_the_api():
    with pytest.raises(NotHTMLError):
        extract(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(scrapy_records.EmptyDocumentError):
        extract("")


FOUR_PRODUCTS = LIST_PAGE.replace(
    "</ul>",
    '<li class="product"><a href="/p/4">Steel kettle</a> <span class="price">$31.00</span></li></ul>',
)


def test_auto_main_threshold_trades_tiny_lists_for_fewer_false_main_regions():
    # measured on the development data (see scrapy_records/auto.py): at 0.4 half the pages
    # without a record list stop reporting a main region; a 3-record list falls under it
    three = extract(LIST_PAGE)
    assert three.regions and three.main is None
    assert len(extract(LIST_PAGE, main_threshold=0.0).main.records) == 3
    assert len(extract(FOUR_PRODUCTS).main.records) == 4


def test_cli_extract_csv_and_errors(tmp_path):
    page = tmp_path / "list.html"
    page.write_text(FOUR_PRODUCTS)
    out = subprocess.run(
        [sys.executable, "-m", "scrapy_records", "extract", str(page), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(out.stdout)
    assert len(rows) == 4
    assert "Red kettle" in json.dumps(rows[0])
    bad = tmp_path / "img.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    res = subprocess.run(
        [sys.executable, "-m", "scrapy_records", "extract", str(bad)],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 2
    assert "binary data" in res.stderr and "Traceback" not in res.stderr


def test_cli_piped_into_a_reader_that_stops_early_exits_quietly(tmp_path):
    """``scrapy-records extract page --format csv | head -2``: no error once head is done."""
    items = "".join(
        f"<li class='product'><a href='/p/{k}'>Kettle number {k}</a>"
        f" <span class='price'>${k}.99</span></li>"
        for k in range(3000)
    )
    page = tmp_path / "big.html"
    page.write_text(f"<html><body><ul>{items}</ul></body></html>")
    proc = subprocess.Popen(
        [sys.executable, "-m", "scrapy_records", "extract", str(page), "--format", "csv"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline().startswith(b"page_url,")
    proc.stdout.close()  # the reader is gone; the CSV (> 64 KB) is not written yet
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b""


def test_induce_is_the_function_even_after_the_submodule_is_imported():
    import types

    import scrapy_records.wrappers.induce  # noqa: F401 - the submodule of the same name
    from scrapy_records import induce

    assert isinstance(induce, types.FunctionType)
    assert scrapy_records.induce is induce


def _shop_page(offset: int) -> str:
    items = "".join(
        f"<li class='product'><a href='/p/{k}'>Product number {k} with a long name</a>"
        f" <span class='price'>${k}.99</span></li>"
        for k in range(offset, offset + 6)
    )
    return f"<html><body><h1>Shop</h1><ul id='results'>{items}</ul><p>Footer</p></body></html>"


def test_cli_induce_then_apply(tmp_path):
    pages = []
    for n, off in enumerate((0, 10, 40)):
        p = tmp_path / f"page{n}.html"
        p.write_text(_shop_page(off))
        pages.append(str(p))
    wrapper = tmp_path / "wrapper.json"
    run = [sys.executable, "-m", "scrapy_records"]
    subprocess.run(
        run + ["induce", pages[0], pages[1], "-o", str(wrapper)],
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(wrapper.read_text())
    assert doc["format"] == "scrapy-records-wrapper" and doc["record"]["xpath"]
    out = subprocess.run(
        run + ["apply", str(wrapper), pages[2], "--format", "csv"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 7  # header + 6 records
    assert "Product number 45 with a long name" in out.stdout
    wrapper.write_text(wrapper.read_text()[:-40])  # truncated: a clear one-line error
    bad = subprocess.run(run + ["apply", str(wrapper), pages[2]], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "wrapper" in bad.stderr.lower()


def test_extract_pauses_the_garbage_collector_and_restores_its_state():
    import gc

    from scrapy_records.api import gc_paused

    seen = []
    html = "<html><body><ul><li><a href=/a>one</a> x</li><li><a href=/b>two</a> y</li></ul>"
    assert gc.isenabled()
    with gc_paused():
        seen.append(gc.isenabled())
    assert seen == [False] and gc.isenabled()
    with pytest.raises(scrapy_records.RecordsError):
        scrapy_records.extract(b"")
    assert gc.isenabled()  # (an error inside leaves it on)
    gc.disable()
    try:
        scrapy_records.extract(html)
        assert not gc.isenabled()  # (the caller's choice stays)
    finally:
        gc.enable()
