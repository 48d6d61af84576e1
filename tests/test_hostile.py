"""Hostile input: each reproduction of issue 18 ends in a clear error or a sane result.

The outcomes asserted: a :class:`~scrapy_records.errors.RecordsError` with a message that
says what is wrong (never a raw ``TypeError``/``LookupError``/``UnicodeEncodeError``), work
bounded by a budget (counted, never timed), no record lost and stores left valid. The
crawl-level reproductions (a raising callback, a resumed crawl, store outages) are at the
end of the module; ``benchmarks/fuzz.py`` runs the bad-input families at scale.
"""

from __future__ import annotations

import copy
import json

import pytest
from lxml import etree

from scrapy_records import (
    BudgetExceededError,
    NotHTMLError,
    OptionError,
    Page,
    PageTooLargeError,
    RecordsError,
    Wrapper,
    WrapperError,
    extract,
    induce,
)
from scrapy_records.wrappers import budget as budget_mod
from scrapy_records.wrappers.budget import ApplyBudget
from scrapy_records.wrappers.model import RecordSelector
from scrapy_records.wrappers.safe_xpath import check_xpath


def shop(n: int, start: int = 0) -> str:
    rows = "".join(
        f'<li class="item"><h3><a href="/p/{i}">Product {i}</a></h3>'
        f'<span class="price">${10 + i}.99</span><p>In stock, ships in {i % 5 + 1} days</p></li>'
        for i in range(start, start + n)
    )
    return (
        "<html><head><title>Shop</title></head><body><div id='nav'><a href='/'>Home</a></div>"
        f"<ul id='results'>{rows}</ul><div id='foot'>Copyright</div></body></html>"
    )


@pytest.fixture(scope="module")
def wrapper() -> Wrapper:
    return induce(
        [("http://shop.example/list/1", shop(12)), ("http://shop.example/list/2", shop(12, 40))]
    )


def with_record_xpath(w: Wrapper, xpath: str) -> dict:
    doc = json.loads(w.to_json())
    doc["record"]["xpath"] = xpath
    return doc


# ---------------------------------------------------------------- item 1: hostile selectors
NESTED_COUNT = "//*[count(//*[count(//*[count(//*[count(//*)>0])>0])>0])>0]"


def test_nested_count_wrapper_is_refused_on_load(wrapper):
    doc = with_record_xpath(wrapper, NESTED_COUNT)
    with pytest.raises(WrapperError, match=r"\$\.record\.xpath.*function count\(\)"):
        Wrapper.from_json(json.dumps(doc))


@pytest.mark.parametrize(
    "xpath, reason",
    [
        ("//*[count(//*)>0]", "count()"),
        ("//li[//a]", "absolute path inside a predicate"),
        ("//li[.//a[.//b]]", "nested in a location path"),
        ("//li/ancestor::*", "axis ancestor::"),
        ("//li/preceding::*", "axis preceding::"),
        ("//li/following-sibling::li", "without a position predicate"),
        ("//li[string-length(.) > 3]", "string-length()"),
        ("//li[$x]", "variables"),
        ("//li[id('a')]", "id()"),
        ("/" + "/a" * 70, "more than 64 steps"),
        ("//li" + "[1]" * 9, "more than 8 predicates"),
        ("//a" + " | //a" * 1000, "union of more than 1000 paths"),
        ("//li[@title='" + "x" * 2000 + "']", "literal longer"),
        ("(" * 500 + "//li" + ")" * 500, "nested more than 32 deep"),  # (a RecursionError)
        ("//li[" + " or ".join(["@a='x'"] * 2000) + "]", "more than 64 operands"),
        ("/html[not(//li[//a])]//li", "absolute path inside a predicate"),
        ("/html[not(/html//li[.//a[.//b]])]//li", "nested in a location path"),
        ("//div[not(/html/body/p)]//li", "absolute path inside a predicate"),
        ("//li[a[b[c]]]", "nested in a location path"),
        ("//li[a[.//b]]", "nested in a location path"),
        ("//li[a[b/c/d]]", "nested in a location path"),
        ("normalize-space(//li[substring-after(., 'a') = 'b'])", "not an allowed string"),
        ("normalize-space(substring-after(//li[//a], 'x'))", "absolute path inside a predicate"),
        ("normalize-space(substring-after(//li, position()))", "not allowed in a string"),
    ],
)
def test_selectors_outside_the_allowed_forms_are_refused(wrapper, xpath, reason):
    doc = with_record_xpath(wrapper, xpath)
    with pytest.raises(WrapperError) as exc:
        Wrapper.from_json(json.dumps(doc))
    assert reason in str(exc.value)


def test_a_root_guard_runs_its_path_once_and_is_allowed():
    """DCADE's anchored value with its fallback: ``P | /html[not(P)]//...`` (the guard is
    on the one root element, so ``P`` is read once per page)."""
    anchored = "/html/body/p[b[1][normalize-space()='Author:']]"
    info = check_xpath(f"{anchored}/text()[1] | /html[not({anchored})]/body/p[2]/text()")
    assert info.passes == 3 and not info.contained


def test_a_label_anchor_two_predicates_deep_is_allowed():
    """DCADE anchors a value on its label's own text, checked from a stable path."""
    info = check_xpath(
        "/html/body/div[2]/span[1][self::*[text()[normalize-space()='Admissions E-mail:']]]"
        "/following-sibling::*[1]/text()"
    )
    assert info.nested_max == 2 and not info.contained


def test_a_label_read_without_invisible_characters_is_allowed_and_nothing_more():
    """A label written "\ufeffColour" is matched by translate() of its own text with two
    literals; translate() of another path or of an attribute is refused."""
    check_xpath("//th[normalize-space(translate(., '\ufeff', ''))='Colour']/following::text()[1]")
    for bad in ("//th[translate(//a, 'a', '')='x']", "//th[translate(., @x, '')='x']"):
        with pytest.raises(WrapperError):
            check_xpath(bad)


def test_a_document_holds_a_bounded_number_of_fields(wrapper):
    """10,000 fields read on every record took 9 s on a 200-record page."""
    doc = json.loads(wrapper.to_json())
    doc["fields"] = [dict(doc["fields"][0], name=f"f{i}") for i in range(501)]
    with pytest.raises(WrapperError, match=r"\$\.fields: more than 500 fields"):
        Wrapper.from_dict(doc)
    doc["fields"] = doc["fields"][:3]
    doc["page_fields"] = [dict(doc["fields"][0], name=f"p{i}") for i in range(400)]
    doc["lists"] = [
        {"name": f"l{i}", "record": doc["record"], "fields": doc["fields"], "lists": []}
        for i in range(50)
    ]
    for x in doc["lists"]:
        x["optional"] = True
    inner = [dict(doc["lists"][1], name=f"inner{i}") for i in range(10)]
    for x in doc["lists"]:
        x["lists"] = inner  # 400 + 50 * 4 + 50 * 10 * 4 selectors
    with pytest.raises(WrapperError, match="more than 2000 fields and lists in all"):
        Wrapper.from_dict(doc)


def test_a_hand_built_wrapper_is_checked_when_applied(wrapper):
    """A Wrapper built in code never went through from_json: application checks too."""
    w = copy.deepcopy(wrapper)
    w.record = RecordSelector(NESTED_COUNT)
    with pytest.raises(WrapperError, match="count"):
        w.extract(shop(3))


def test_allowed_but_costly_selector_stops_at_the_work_budget(wrapper, monkeypatch):
    """A selector of an allowed form whose cost grows with the page (a sibling step from
    every record, libxml2 merging the results quadratically) is charged before it runs:
    over the budget it never runs."""
    xp = "//li/following-sibling::*[1][self::li]"
    check_xpath(xp)  # allowed
    w = Wrapper.from_json(json.dumps(with_record_xpath(wrapper, xp)))
    runs = []
    real_xpath = etree.XPath

    def counting(path, **kw):
        compiled = real_xpath(path, **kw)
        if path == xp:

            def run(*a, **k):
                runs.append(path)
                return compiled(*a, **k)

            return run
        return compiled

    w._compiled = None
    monkeypatch.setattr("scrapy_records.wrappers.apply.etree.XPath", counting)
    page = shop(3000)
    with pytest.raises(BudgetExceededError, match="max_work=1000000"):
        w.extract(page, max_work=1_000_000)
    assert runs == []
    # within budget, the same wrapper runs: the budget is a bound, not a ban
    result = w.extract(shop(20))
    assert len(result.records) == 19 and runs == [xp]


def test_work_is_charged_by_the_context_a_step_runs_from(wrapper):
    page = Page(shop(400))
    one = ApplyBudget(page.root, max_work=None)
    one.top(check_xpath("//ul[@id='results']//li"), "one context node")
    many = ApplyBudget(page.root, max_work=None)
    many.top(check_xpath("//li//a"), "400 context nodes")
    assert many.work > 50 * one.work


def test_application_counts_every_node_and_honours_max_nodes(wrapper):
    page = shop(12).replace("<div id='foot'>", "<svg>" + "<g/>" * 5000 + "</svg><div id='foot'>")
    assert len(wrapper.extract(page).records) == 12
    with pytest.raises(PageTooLargeError, match="max_nodes=2000"):
        wrapper.extract(page, max_nodes=2000)


def test_wrapper_extract_refuses_unknown_options(wrapper):
    with pytest.raises(OptionError, match="max_byts"):
        wrapper.extract(shop(3), max_byts=1)
    with pytest.raises(OptionError, match="max_work"):
        wrapper.extract(shop(3), max_work="lots")
    # still a TypeError, as unknown options always were
    with pytest.raises(TypeError):
        wrapper.extract(shop(3), colour="red")


def test_many_records_are_read_one_by_one_not_batched(wrapper, monkeypatch):
    """Batched evaluation hands lxml a node set it checks for duplicates node by node
    (quadratic): above BATCH_MAX_RECORDS records the fields are read record by record."""
    monkeypatch.setattr(budget_mod, "BATCH_MAX_RECORDS", 512)
    n = 600
    result = wrapper.extract(shop(n))
    assert len(result.records) == n
    assert all(r.fields.get("price") for r in result.records)


# -------------------------------------------------------------- item 11: validator gaps
@pytest.mark.parametrize("xpath", ["count(//*)", "true()", "'text'", "1 + 1", "//li = 'x'"])
def test_expressions_that_are_not_node_sets_are_refused(wrapper, xpath):
    with pytest.raises(WrapperError, match="does not select nodes|function .* is not allowed"):
        Wrapper.from_json(json.dumps(with_record_xpath(wrapper, xpath)))


def test_nul_in_an_xpath_is_a_wrapper_error(wrapper):
    doc = with_record_xpath(wrapper, "//li\x00[1]")
    with pytest.raises(WrapperError, match="control character"):
        Wrapper.from_json(json.dumps(doc))
    doc = json.loads(wrapper.to_json())
    doc["fields"][0]["xpath"] = "h3\x00"
    with pytest.raises(WrapperError):
        Wrapper.from_dict(doc)


# ------------------------------------------------------------ item 4: encodings
def _table(n: int = 12) -> str:
    rows = "".join(
        f"<tr><td><a href='/p/{i}'>Product {i}</a></td><td>${i}.99</td>"
        f"<td>In stock, ships in {i} days</td></tr>"
        for i in range(n)
    )
    return (
        "<html><head><meta charset='{cs}'><title>t</title></head><body>"
        f"<table>{rows}</table></body></html>"
    )


@pytest.mark.parametrize("codec", ["utf-16le", "utf-16be", "UTF-16LE"])
def test_utf16_without_bom_is_read_when_declared(codec):
    data = _table().replace("{cs}", "utf-8").encode(codec)
    with pytest.raises(NotHTMLError):  # undeclared: NUL bytes, binary (as browsers do)
        extract(data)
    result = extract(data, encoding=codec)
    assert len(result.main.records) == 12


def test_utf16_response_declared_by_its_header():
    from scrapy.http import HtmlResponse

    body = _table().replace("{cs}", "utf-8").encode("utf-16-le")
    response = HtmlResponse(
        "http://shop.example/t",
        body=body,
        headers={"Content-Type": "text/html; charset=utf-16le"},
    )
    assert len(extract(response).main.records) == 12


@pytest.mark.parametrize("charset", ["utf-16", "utf-16le", "utf-32", "ebcdic-cp-us", "utf-7"])
def test_meta_charset_no_ascii_page_can_be_in_is_not_read(charset):
    """<meta charset=utf-16> on an ASCII page raised NotHTMLError: browsers read UTF-8
    there (UTF-16/32), or ignore a label that cannot be the page's (EBCDIC, UTF-7)."""
    data = _table().replace("{cs}", charset).encode("ascii")
    page = Page(data)
    assert page.encoding == "utf-8"
    assert len(extract(data).main.records) == 12


# -------------------------------------------------------------- item 9: budgets hold
@pytest.mark.parametrize(
    "inside",
    [
        "<svg>" + "<g/>" * 3000 + "</svg>",
        "<math>" + "<mi>x</mi>" * 3000 + "</math>",
        "<template>" + "<b></b>" * 3000 + "</template>",
        "<script>x</script>" * 3000,
        "<!--c-->" * 3000,
        "<div>" * 3000,
    ],
    ids=["svg", "math", "template", "script", "comments", "deep"],
)
def test_every_node_counts_against_max_nodes(inside):
    html = f"<html><body><p>a</p>{inside}<p>b</p></body></html>"
    with pytest.raises(PageTooLargeError, match="max_nodes=2000"):
        Page(html, max_nodes=2000, max_depth=100)
    assert Page(html, max_nodes=20000, max_depth=100)


@pytest.fixture
def parsed(monkeypatch):
    """The calls to lxml's parser (``etree.fromstring``) made during the test."""
    calls = []
    real = etree.fromstring

    def spy(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(etree, "fromstring", spy)
    return calls


def test_far_too_many_tags_are_refused_before_parsing(parsed):
    data = b"<html><body><svg>" + b"<g/>" * 50_000 + b"</svg></body></html>"
    with pytest.raises(PageTooLargeError, match="start tags"):
        Page(data, max_nodes=10_000)
    assert parsed == []


def test_an_element_with_too_many_attributes_is_refused_before_parsing(parsed):
    """libxml2 checks each attribute against the element's others: 100,000 attributes took
    40 s to parse."""
    attrs = " ".join(f"a{i}=x" for i in range(5000))
    with pytest.raises(PageTooLargeError, match="about 5000 attributes"):
        extract(f"<html><body><p {attrs}>x</p></body></html>".encode())
    assert parsed == []
    assert extract(f"<html><body><p {attrs[:20000]}>x</p></body></html>").regions == []  # (fine)


def test_too_many_attributes_are_found_among_long_stretches_of_text(parsed):
    """The long-tag search reads only the stretches between two ``>`` long enough to hold
    such a tag: here a long text (no tag in it) and, after it, the element itself."""
    attrs = " ".join(f"a{i}=x" for i in range(5000))
    text = "words and = signs " * 2500
    with pytest.raises(PageTooLargeError, match="about 5000 attributes"):
        extract(f"<html><body><p>{text}</p><div><p {attrs}>x</p></div></body></html>".encode())
    assert parsed == []
    page = f"<html><body><p>{text}</p><p {attrs[:20000]}>x</p></body></html>".encode()
    assert extract(page).regions == []  # (long stretches, no long tag)
    assert parsed == [1]


def test_max_bytes_counts_bytes_of_a_str():
    text = "<html><body><p>" + "é" * 600 + "</p></body></html>"  # 1,2xx bytes in UTF-8
    assert len(text) < 1000
    with pytest.raises(PageTooLargeError, match="bytes, over max_bytes=1000"):
        Page(text, max_bytes=1000)


def test_a_lone_surrogate_is_replaced_not_an_encode_error():
    page = Page("<html><body><p>a\ud800b</p><p>\udc00</p></body></html>")
    assert page.text(page.body) == "a\ufffdb \ufffd"


@pytest.mark.parametrize(
    "options, match",
    [
        ({"encoding": "bogus"}, "unknown encoding 'bogus'"),
        ({"encoding": 5}, "encoding must be a string"),
        ({"max_nodes": "x"}, "max_nodes must be"),
        ({"max_bytes": -1}, "max_bytes must be"),
        ({"max_depth": 0}, "max_depth must be"),
        ({"nope": 1}, "auto: no extractor accepts option"),
        ({"extractor": "mdr", "K": -5}, "mdr: K must be a positive int"),
        ({"extractor": "stem", "alpha": 7}, "stem: alpha and beta"),
        ({"extractor": "mibat", "measure": "x"}, "mibat measure must be"),
        ({"extractor": "gstm", "r2": 1}, "gstm: r2 must be"),
        ({"fields": "bogus"}, "fields must be"),
        ({"min_records": "x"}, "min_records must be"),
        ({"min_confidence": None}, "min_confidence must be"),
    ],
)
def test_bad_page_options_are_option_errors(options, match):
    with pytest.raises(OptionError, match=match):
        extract(shop(3).encode(), **options)
    assert issubclass(OptionError, RecordsError)


def test_induce_with_region_lists_not_one_per_page_is_an_option_error():
    """benchmarks/fuzz.py found it raising a bare ValueError."""
    import scrapy_records

    pages = [Page(shop(3), url=f"https://shop.example/p/{k}") for k in range(2)]
    with pytest.raises(OptionError, match="1 region lists for 2 pages"):
        scrapy_records.induce(pages, regions=[[]])


# --------------------------------------------------------- the crawl: stores and pipeline
def shop_response(k: int, n: int = 12):
    from scrapy.http import HtmlResponse

    return HtmlResponse(
        f"http://shop.example/list/{k}", body=shop(n, 100 * k).encode(), encoding="utf-8"
    )


def mine_pages(rt, pages: int) -> tuple[dict, int]:
    """Mine ``pages`` shop pages; return the summed stats and the records found."""
    stats: dict = {}
    found = 0
    for k in range(pages):
        out = rt.mine(shop_response(k), {"records_template": "list"})
        for key, v in out.stats.items():
            stats[key] = stats.get(key, 0) + v
        found += len(out.result.records) if out.result is not None else 0
    return stats, found


def _damage(path, how: str):
    """A store file that opens but fails later: read-only, or with its pages overwritten."""
    import os

    from scrapy_records.scrapy.store.sqlite import SQLiteStore

    store = SQLiteStore(str(path))
    for i in range(40):  # pages enough to damage past the header
        store.put("other.example", f"t{i}", "x" * 4000)
    if how == "read-only":
        store._conn.execute("PRAGMA query_only = 1")  # (root ignores file modes)
        return store
    store.close()
    data = bytearray(path.read_bytes())
    for off in range(4096, len(data), 4096):
        data[off + 8 : off + 600] = os.urandom(592)
    path.write_bytes(bytes(data))
    return SQLiteStore(str(path))


@pytest.mark.parametrize("how", ["read-only", "corrupt"])
def test_a_failing_sqlite_store_is_an_outage_not_a_reinduction(tmp_path, caplog, how):
    """Every SQLite error is a StoreError: the induced wrapper serves the crawl from memory;
    one induction, no traceback (it was 18 inductions for 19 pages)."""
    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    store = _damage(tmp_path / "w.sqlite", how)
    rt = RecordsRuntime(RecordsConfig(induction_samples=2), store=store)
    with caplog.at_level("INFO"):
        stats, found = mine_pages(rt, 19)
    assert stats.get("records/wrapper/induced") == 1
    assert stats.get("records/wrapper/reused") == 16  # (the third page starts the induction)
    assert found == 19 * 12
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    assert "is used from memory, the store did not take it" in caplog.text


def test_sqlite_full_reports_the_full_disk_not_the_failed_rollback(tmp_path):
    from scrapy_records.scrapy.store import StoreError
    from scrapy_records.scrapy.store.sqlite import SQLiteStore

    store = SQLiteStore(str(tmp_path / "w.sqlite"))
    store.put("a.com", "t", "x")
    (pages,) = store._conn.execute("PRAGMA page_count").fetchone()
    store._conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError, match="database or disk is full"):
        store.put("a.com", "t2", "y" * 200_000)
    store._conn.execute("PRAGMA max_page_count = 1000000")
    assert store.get("a.com", "t2") is None and store.put("a.com", "t2", "y") == 1  # valid


def _pipeline():
    from scrapy.utils.test import get_crawler

    from scrapy_records.scrapy.pipelines import RecordsPipeline

    crawler = get_crawler(settings_dict={"RECORDS_WRAPPER_STORE": "memory:"})
    crawler.stats.open_spider()
    return RecordsPipeline.from_crawler(crawler), crawler


@pytest.mark.parametrize(
    "document",
    [
        "hostile",
        {"format": "scrapy-records-wrapper"},
        "not json at all",
        b"\xff\xfe",
        None,
    ],
)
def test_pipeline_drops_an_invalid_spider_wrapper_item(wrapper, document):
    from scrapy.exceptions import DropItem

    from scrapy_records.scrapy.items import WrapperItem

    if document == "hostile":
        document = with_record_xpath(wrapper, NESTED_COUNT)
    pipe, crawler = _pipeline()
    item = WrapperItem(
        wrapper_id="shop.example/t",
        site="shop.example",
        template="t",
        version=None,
        status="new",
        sample_urls=[],
        document=document,
    )
    with pytest.raises(DropItem, match="invalid wrapper document"):
        pipe.process_item(item)
    assert pipe.runtime.store.get("shop.example", "t") is None
    assert crawler.stats.get_value("records/wrapper/invalid") == 1
    # a valid document is stored (as its canonical JSON)
    item["document"] = json.loads(wrapper.to_json())
    assert pipe.process_item(item)["stored"] is True
    stored = Wrapper.from_json(pipe.runtime.store.get("shop.example", "t").document)
    assert stored == wrapper


# --------------------------------------------------------- item 5: Redis restarts, keys
@pytest.mark.redis
def test_redis_restart_without_persistence_keeps_the_queued_update(caplog):
    """put v1, Redis stops (no persistence), put on v1 is queued, Redis starts empty: the
    update is stored (it was dropped as 'version from another worker', with no other)."""
    from redis_server import RedisServer

    from scrapy_records.scrapy.store import StoreError, open_store

    server = RedisServer().start()
    try:
        store = open_store(server.url + "?cache_seconds=0")
        assert store.put("shop.example", "list", '{"v": 1}') == 1
        server.stop()
        with pytest.raises(StoreError, match="queued"):
            store.put("shop.example", "list", '{"v": 2}', expected_version=1)
        server.start()  # empty
        with caplog.at_level("INFO"):
            store.get("shop.example", "other")  # first command: Redis is back, replay
        assert store.pending == []
        got = open_store(server.url).get("shop.example", "list")
        assert (got.version, json.loads(got.document)) == (2, {"v": 2})
        assert "stored as version 2" in caplog.text and "dropped" not in caplog.text
    finally:
        server.cleanup()


@pytest.mark.redis
def test_redis_entry_written_after_the_restart_wins_over_a_queued_update():
    from redis_server import RedisServer

    from scrapy_records.scrapy.store import StoreError, open_store

    server = RedisServer().start()
    try:
        store = open_store(server.url + "?cache_seconds=0")
        store.put("shop.example", "list", '{"v": "mine 1"}')
        server.stop()
        with pytest.raises(StoreError):
            store.put("shop.example", "list", '{"v": "mine 2"}', expected_version=1)
        server.start()
        other = open_store(server.url)
        assert other.put("shop.example", "list", '{"v": "other 1"}') == 1  # new generation
        store.get("shop.example", "x")  # replay: version 1 of another generation
        got = open_store(server.url).get("shop.example", "list")
        assert (got.version, json.loads(got.document)) == (1, {"v": "other 1"})
    finally:
        server.cleanup()


@pytest.mark.parametrize(
    "kind", ["sqlite", "dir", "memory", pytest.param("redis", marks=pytest.mark.redis)]
)
def test_store_keys_never_run_together(tmp_path, kind, request):
    from scrapy_records.scrapy.store import open_store

    if kind == "redis":
        uri = request.getfixturevalue("redis_server").url
    else:
        uri = {
            "sqlite": f"sqlite:///{tmp_path}/w.db",
            "dir": f"dir://{tmp_path}/w",
            "memory": "memory:",
        }[kind]
    store = open_store(uri)
    pairs = [("a:b", "c"), ("a", "b:c"), ("a_b", "c"), ("a", "b_c"), ("a%3Ab", "c"), ("a/b", "c")]
    for k, (site, template) in enumerate(pairs):
        assert store.put(site, template, json.dumps({"k": k})) == 1, (site, template)
    for k, (site, template) in enumerate(pairs):
        got = store.get(site, template)
        assert (got.site, got.template, json.loads(got.document)) == (site, template, {"k": k})
    assert sorted((e.site, e.template) for e in store.list()) == sorted(pairs)
    assert [e.template for e in store.list("a")] == ["b:c", "b_c"]


# ------------------------------------------------------ item 3: a callback that raises
@pytest.fixture(scope="module")
def demo_site():
    from crawl_helpers import EXAMPLE  # noqa: F401 (makes the demo site importable)
    from demo.site import DemoSite

    with DemoSite() as s:
        yield s


@pytest.mark.parametrize("when", ["before", "after", "plain"])
def test_a_raising_callback_keeps_the_pages_records(tmp_path, demo_site, when):
    """Each list page's callback raises; every record of every page reaches the pipeline
    once, and the callback's error is still Scrapy's spider error (logged, counted)."""
    from crawl_helpers import crawl, records
    from demo.site import N_PRODUCTS, PER_PAGE

    pages = -(-N_PRODUCTS // PER_PAGE)
    settings = {"RECORDS_WRAPPER_STORE": "memory:", "RECORDS_INDUCTION_SAMPLES": 2}
    items, stats, log = crawl(
        tmp_path,
        demo_site,
        when,
        start=[f"shop/page/{k}" for k in range(1, pages + 1)],
        follow=False,
        settings=settings,
        **{"raise": when},
    )
    recs = records(items)
    assert len(recs) == N_PRODUCTS
    assert len({(r["url"], r["index"]) for r in recs}) == N_PRODUCTS  # each once
    assert stats["spider_exceptions/ValueError"] == pages
    assert log.count("Spider error processing") == pages
    assert f"the callback failed {when if when != 'plain' else 'before'}" in log


# --------------------------------------------------------- item 10: the command line
def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    from scrapy_records.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def pages(tmp_path):
    for k in (1, 2):
        (tmp_path / f"p{k}.html").write_text(shop(12, 50 * k))
    return tmp_path


@pytest.mark.parametrize(
    "argv, message",
    [
        (["extract", "{p1}", "--options", "{bad"], "--options is not valid JSON"),
        (["extract", "{p1}", "--options", '{"nope": 1}'], "no extractor accepts option(s) nope"),
        (["extract", "{p1}", "--options", "[1, 2]"], "--options must be a JSON object"),
        (["extract", "{p1}", "--options", '{"max_nodes": "x"}'], "max_nodes must be"),
        (["extract", "{p1}", "--extractor", "mdr", "--options", '{"K": -5}'], "K must be"),
        (["induce", "{p1}", "{p2}", "--options", '{"zzz": 1}'], "option(s) zzz"),
        (["induce", "{p1}", "{p2}", "--extractor", "gstm", "--options", '{"r2": 1}'], "r2"),
        (["extract", "/dev/zero"], "/dev/zero holds more than max_bytes=10485760 bytes"),
        (["extract", "{p1}", "--options", '{"encoding": "bogus"}'], "unknown encoding"),
        (["apply", "{bad}", "{p1}"], "wrapper document is not UTF-8"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(capsys, pages, argv, message):
    (pages / "bad.json").write_bytes(b"\xff\xfe{}")
    paths = {"p1": pages / "p1.html", "p2": pages / "p2.html", "bad": pages / "bad.json"}
    for name, path in paths.items():
        argv = [a.replace("{" + name + "}", str(path)) for a in argv]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("scrapy-records: error: ")
    assert message in err


def test_cli_reads_at_most_max_bytes_of_a_url(capsys):
    """A URL serving gigabytes is refused after max_bytes + 1 bytes."""
    import http.server
    import threading

    sent = []

    class Endless(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            chunk = b"<p>" + b"x" * 65533
            try:
                for _ in range(50_000):  # 3 GB if nobody stops reading
                    self.wfile.write(chunk)
                    sent.append(len(chunk))
            except OSError:
                pass

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/big"
        code, _out, err = run_cli(capsys, "extract", url, "--options", '{"max_bytes": 1000000}')
    finally:
        server.shutdown()
    assert code == 2 and "holds more than max_bytes=1000000 bytes" in err
    assert sum(sent) < 50_000_000


def test_cli_apply_warns_when_pages_do_not_fit(capsys, pages):
    wrapper_path = str(pages / "w.json")
    code, _out, _err = run_cli(
        capsys, "induce", str(pages / "p1.html"), str(pages / "p2.html"), "-o", wrapper_path
    )
    assert code == 0
    (pages / "other.html").write_text("<html><body><h1>Another site</h1><p>text</p></body></html>")
    code, out, err = run_cli(capsys, "apply", wrapper_path, str(pages / "other.html"))
    assert code == 1 and json.loads(out) == []
    assert "other.html does not fit wrapper" in err
    code, out, err = run_cli(
        capsys, "apply", wrapper_path, str(pages / "p1.html"), str(pages / "other.html")
    )
    assert code == 0 and len(json.loads(out)) == 12 and err.count("does not fit") == 1


def test_cli_apply_writes_lists_and_nested_rows_as_csv_cells(capsys, pages, wrapper):
    """Typed lists (numbers) and nested rows (a detail page's lists) are CSV cells: joined
    with " | ", or JSON; they raised TypeError."""
    doc = json.loads(wrapper.to_json())
    field = dict(doc["fields"][0], name="prices", type="price", xpath="span", multiple=True)
    field.update(attribute=None, css=None, optional=True)
    doc["fields"].append(field)
    link = {"name": "text", "type": "text", "xpath": ".", "css": None, "attribute": None}
    link.update(optional=True, multiple=False)
    doc["lists"].append(
        {
            "name": "links",
            "record": {"xpath": "h3/a", "css": None, "size": 1},
            "fields": [link],
            "lists": [],
            "optional": True,
        }
    )
    (pages / "w.json").write_text(json.dumps(doc))
    code, out, err = run_cli(
        capsys, "apply", str(pages / "w.json"), str(pages / "p1.html"), "--format", "csv"
    )
    assert code == 0, err
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 12
    assert rows[0]["prices"] == "60.99" and rows[0]["links"] == '[{"text": "Product 50"}]'
    assert rows[0]["xpaths"] == "/html/body/ul/li[1]"


# ------------------------------------------------ item 2: a resumed crawl keeps its rows
def _csv_rows(folder) -> dict[str, list[dict]]:
    import csv

    return {
        p.name: list(csv.DictReader(p.open(newline="", encoding="utf-8")))
        for p in sorted(folder.glob("*.csv"))
    }


@pytest.mark.parametrize("stop", ["ctrl-c", "ctrl-c twice"])
def test_a_resumed_crawl_keeps_the_first_runs_csv_rows(tmp_path, demo_site, stop):
    """scrapy crawl -s JOBDIR=..., Ctrl-C, crawl again: the per-template CSVs hold the rows
    of both runs, as many as Scrapy's own feed (in append mode) holds records. Ctrl-C
    twice (Scrapy stops at once, without closing the spider) included."""
    import signal
    import time
    from collections import Counter

    from crawl_helpers import crawl, finish_crawl, records, start_crawl, wait_for_log
    from demo.site import N_PRODUCTS

    out = tmp_path / "tables"
    settings = {
        "JOBDIR": str(tmp_path / "job"),
        "RECORDS_WRAPPER_STORE": f"sqlite:///{tmp_path / 'w.sqlite'}",
        "RECORDS_INDUCTION_SAMPLES": 2,
        "RECORDS_CSV_PER_TEMPLATE": str(out / "%(site)s-%(template)s.csv"),
        "FEEDS": {str(tmp_path / "feed.jsonl"): {"format": "jsonlines"}},
        "CONCURRENT_REQUESTS": 1,
        "DOWNLOAD_DELAY": 0.4,
        "LOG_LEVEL": "DEBUG",  # (the "Crawled" lines)
    }
    proc = start_crawl(tmp_path, demo_site, "first", details=True, settings=settings)
    wait_for_log(tmp_path / "first.log", "shop/page/3>", proc)
    proc.send_signal(signal.SIGINT)  # Ctrl-C: Scrapy stops gracefully, JOBDIR keeps the rest
    if stop == "ctrl-c twice":
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
    items1, stats1, _ = finish_crawl(tmp_path, "first", proc)
    first = records(items1)
    if stop == "ctrl-c":
        assert stats1["finish_reason"] == "shutdown"
        assert sum(map(len, _csv_rows(out).values())) == len(first) > 0
    else:  # stopped at once, the spider never closed: the rows wait in the spools
        assert "finish_reason" not in stats1 and not _csv_rows(out)
        assert sum(len(p.read_text().splitlines()) for p in out.glob("*.rows")) == len(first) > 0
    items2, stats2, _ = crawl(tmp_path, demo_site, "second", details=True, settings=settings)
    assert stats2["finish_reason"] == "finished"
    tables = _csv_rows(out)
    assert not list(out.glob("*.rows"))
    # every record of both runs is a row; the first run's rows are all still there
    assert sum(map(len, tables.values())) == len(first) + len(records(items2))
    rows_of = Counter(r["page_url"] for rows in tables.values() for r in rows)
    assert all(rows_of[url] >= n for url, n in Counter(r["url"] for r in first).items())
    if stop != "ctrl-c":
        return  # (Scrapy lost its JOBDIR state and crawled everything again: duplicates)
    feed = [json.loads(line) for line in (tmp_path / "feed.jsonl").read_text().splitlines()]
    feed_records = [r for r in feed if "xpaths" in r and "extractor" in r]
    assert sum(map(len, tables.values())) == len(feed_records)
    lists = [rows for name, rows in tables.items() if "shop-page-N" in name]
    assert len(lists) == 1 and len(lists[0]) == N_PRODUCTS
    keys = [(r["page_url"], tuple(r.values())) for rows in tables.values() for r in rows]
    assert len(keys) == len(set(keys))


# ------------------------------------------------- item 6: induction work that scales
def _work(fn) -> int:
    """Python calls made by ``fn()``: a work counter that does not depend on the clock."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    return pstats.Stats(prof).total_calls


def _long_table(n: int, start: int) -> str:
    rows = "".join(
        f"<tr><td><a href='/p/{i}'>Item {i}</a></td><td>{i * 3 % 97}.{i % 100:02d} EUR</td>"
        f"<td>cat {i % 7}</td></tr>"
        for i in range(start, start + n)
    )
    return f"<html><body><h1>Table</h1><table id='t'>{rows}</table></body></html>"


def test_intersection_induction_work_grows_at_most_linearly():
    """Two pages of one table, 8 times the rows: at most 8 times the work (the range tests
    and sibling scans made it 64 times; a table of 20,000 rows took 93 s)."""

    def work(n: int) -> int:
        pages = [
            Page(_long_table(n, 0), "http://t.example/1"),
            Page(_long_table(n, n), "http://t.example/2"),
        ]
        regions = [extract(p).regions for p in pages]
        return _work(lambda: induce(pages, regions=regions))

    small, large = work(300), work(2400)
    assert large < 8 * small, (small, large)


def _blocks(n: int, k: int) -> str:
    tags = ["div", "span", "p", "section", "article", "ul", "li", "em", "b", "i"]

    def block(i: int) -> str:  # a nested chain spelling i: every block has its own shape
        s = str(i)
        opening = "".join(f"<{tags[int(d)]}>" for d in s)
        return opening + f"text {i}" + "".join(f"</{tags[int(d)]}>" for d in reversed(s))

    blocks = "".join(f"<div class='blk'>{block(i * 7 + k)}</div>" for i in range(n))
    return f"<html><body>{blocks}</body></html>"


def test_gstm_induction_work_is_bounded_by_its_budget():
    """G-STM on 5 pages of distinct nested blocks: once the matcher's budget is spent,
    pairs are approximated and long sequences align in a band (5 pages of 5,000 blocks
    ran for more than 200 s): 8 times the blocks, far less than 64 times the work."""

    def work(n: int) -> int:
        pages = [Page(_blocks(n, k), f"http://g.example/{k}") for k in range(5)]
        return _work(lambda: induce(pages, extractor="gstm", max_cells=50_000))

    small, large = work(40), work(320)
    assert large < 12 * small, (small, large)
