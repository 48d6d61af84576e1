"""The page model: parse once, drop noise, map back to the original document."""

from __future__ import annotations

import lxml.html
import pytest
from scrapy.http import HtmlResponse, TextResponse

from scrapy_records import EmptyDocumentError, NotHTMLError, Page, PageTooLargeError
from scrapy_records.page import decode_html

HTML = """<html><head><title>T</title><script>var x = "<div>";</script></head>
<body><div id="main" class="list big">intro<script>bad()</script>after script
<!-- a comment -->
<ul><li><a href="/p/1">One</a> <b>1 €</b></li><li><a href="p/2">Two</a></li></ul>
<style>.x{}</style><noscript>no js</noscript><template><p>t</p></template>
<svg><g><path d="M0"/></g></svg>tail</div></body></html>"""


def test_drops_noise_but_keeps_tails():
    page = Page(HTML, url="https://shop.example/cat/")
    assert "script" not in page.tag and "style" not in page.tag
    assert "noscript" not in page.tag and "template" not in page.tag
    assert page.tag.count("svg") == 1 and "path" not in page.tag
    div = page.tag.index("div")
    assert page.own_text(div) == "intro after script tail"
    assert page.text(div) == "intro after script One 1 € Two tail"
    assert "bad()" not in " ".join(page.leaves)


def test_arrays_are_consistent():
    page = Page(HTML)
    for i in range(len(page)):
        for c in page.children[i]:
            assert page.parent[c] == i
            assert page.depth[c] == page.depth[i] + 1
            assert i < c <= page.end[i]
        assert page.end[i] == (page.end[page.children[i][-1]] if page.children[i] else i)
        assert page.tag_string(i)[0] == page.tag_id[i]
    ul = page.tag.index("ul")
    lis = page.children[ul]
    assert [page.tag[i] for i in lis] == ["li", "li"]
    assert page.path_id[lis[0]] == page.path_id[lis[1]]
    assert page.tag_path(lis[0]) == "html/body/div/ul/li"
    assert page.is_ancestor(ul, lis[1]) and not page.is_ancestor(lis[0], lis[1])
    assert page.classes(page.tag.index("div")) == ("list", "big")


def test_xpath_maps_to_original_document():
    page = Page(HTML)
    li2 = page.children[page.tag.index("ul")][1]
    xp = page.xpath(li2)
    assert xp == "/html/body/div/ul/li[2]"
    # the same XPath selects the same node in a tree built the way Scrapy builds it
    resp = HtmlResponse("https://x.test/", body=HTML.encode(), encoding="utf-8")
    assert resp.xpath(xp + "/a/text()").get() == "Two"


def test_absolute_urls_and_base():
    page = Page(HTML, url="https://shop.example/cat/")
    a = [i for i, t in enumerate(page.tag) if t == "a"]
    assert page.absolute(page.attr(a[0], "href")) == "https://shop.example/p/1"
    assert page.absolute(page.attr(a[1], "href")) == "https://shop.example/cat/p/2"
    based = Page(
        '<html><head><base href="https://cdn.example/x/"></head><body><a href="y">y</a></body></html>',
        url="https://other.example/",
    )
    assert based.absolute("y") == "https://cdn.example/x/y"
    assert page.absolute("javascript:void(0)") is None


def test_bytes_charset_detection_like_a_browser():
    latin = "<html><head><meta charset='windows-1252'></head><body><p>café crème</p></body></html>"
    page = Page(latin.encode("cp1252"))
    assert page.text(page.body) == "café crème"
    sjis = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=shift_jis"></head><body><p>日本語</p></body></html>'
    assert Page(sjis.encode("shift_jis")).text(0).endswith("日本語")
    # no declaration, valid UTF-8
    assert Page("<p>Grüße</p>".encode()).text(0) == "Grüße"
    # UTF-16 with BOM
    assert Page("\ufeff<p>naïve</p>".encode("utf-16")).text(0) == "naïve"
    text, enc = decode_html(b"<p>x</p>")
    assert enc == "utf-8" and text == "<p>x</p>"


def test_a_utf8_page_that_kept_a_latin1_declaration_reads_as_utf8():
    """SWDE's gayot pages: saved as UTF-8 under ``<meta charset=iso-8859-1>``. A browser
    shows "CafÃ©"; the page model reads "Café", whether the charset is declared in the page
    or given (a crawl passes the response's). A real Latin-1 page is read as Latin-1."""
    doc = "<html><head><meta charset='iso-8859-1'></head><body><h1>Orchard Market & {}</h1></body></html>"
    utf8 = doc.format("Café").encode("utf-8")
    for page in (Page(utf8), Page(utf8, encoding="iso-8859-1"), Page(utf8, encoding="cp1252")):
        assert page.text(page.body) == "Orchard Market & Café" and page.encoding == "utf-8"
    latin = Page(doc.format("Café").encode("latin-1"))
    assert latin.text(latin.body) == "Orchard Market & Café" and latin.encoding == "cp1252"
    # another declared single-byte charset is not second-guessed (its bytes may be UTF-8-like)
    greek = doc.replace("iso-8859-1", "iso-8859-7").format("Καφέ").encode("iso-8859-7")
    page = Page(greek)
    assert page.text(page.body).endswith("Καφέ")


def test_from_scrapy_response_reuses_the_parsed_tree():
    resp = HtmlResponse("https://x.test/a", body=HTML.encode("utf-8"), encoding="utf-8")
    page = Page(resp)
    assert page.root is resp.selector.root  # parsed once, by Scrapy
    assert page.url == "https://x.test/a"
    assert page.text(page.tag.index("ul")) == "One 1 € Two"


def test_from_lxml_element():
    root = lxml.html.fromstring("<html><body><ul><li>a</li><li>b</li></ul></body></html>")
    page = Page(root)
    assert page.tag == ["html", "body", "ul", "li", "li"]
    assert page.body == 1


@pytest.mark.parametrize(
    "data, error",
    [
        (b"", EmptyDocumentError),
        (b"   \n\t ", EmptyDocumentError),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", NotHTMLError),
        (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3", NotHTMLError),
        (bytes(range(256)) * 4, NotHTMLError),
        ("just some plain text, no markup at all", NotHTMLError),
        ('<?xml version="1.0"?><rss><channel><item>x</item></channel></rss>', NotHTMLError),
    ],
)
def test_bad_input_raises_clear_errors(data, error):
    with pytest.raises(error):
        Page(data)


def test_non_text_response_is_not_html():
    from scrapy.http import Response

    with pytest.raises(NotHTMLError):
        Page(Response("https://x.test/img.png", body=b"\x89PNG\r\n\x1a\n"))
    # a text response holding binary garbage is refused too
    with pytest.raises(NotHTMLError):
        Page(TextResponse("https://x.test/a", body=b"\x00\x01\x02" * 100, encoding="utf-8"))


def test_budgets():
    big = "<html><body>" + "<div><p>x</p></div>" * 2000 + "</body></html>"
    with pytest.raises(PageTooLargeError):
        Page(big, max_nodes=1000)
    with pytest.raises(PageTooLargeError):
        Page(big.encode(), max_bytes=1000)
    assert len(Page(big, max_nodes=None)) == 4002


def test_deep_nesting_is_folded_not_recursed():
    deep = "<html><body>" + "<div>" * 50000 + "deep" + "</div>" * 50000 + "</body></html>"
    page = Page(deep)
    assert max(page.depth) <= 512
    assert page.truncated
    page = Page(
        "<html><body>" + "<span>" * 600 + "x" + "</span>" * 600 + "</body></html>", max_depth=100
    )
    assert max(page.depth) == 100
    assert page.text(page.body) == "x"  # text below the fold is kept


def test_broken_markup_is_balanced():
    page = Page("<html><body><table><tr><td>a<td>b<tr><td>c</table><p>unclosed<p>second")
    assert page.tag.count("tr") == 2 and page.tag.count("td") == 3
    assert page.tag.count("p") == 2


def test_json_text_response_is_not_html():
    resp = TextResponse(
        "https://x.test/a.json",
        body=b'[{"a": 1}]',
        headers={"Content-Type": "application/json"},
        encoding="utf-8",
    )
    with pytest.raises(NotHTMLError, match="json"):
        Page(resp)


def test_content_after_a_premature_html_end_tag_is_kept_as_browsers_do():
    probe = (
        "<noscript><!-- js probe --><html><head><title>x</title></head><body></body></html>"
        "</noscript>\n<HTML><BODY>"
        + "".join(f"<p>item {k}</p>" for k in range(30))
        + "</BODY></HTML>"
    )
    page = Page(probe)
    assert page.tag.count("p") == 30
    assert page.text(page.body).startswith("item 0 item 1")
    # an ordinary page with a few trailing tags after </html> is parsed as Scrapy parses it
    ordinary = "<html><body><p>a</p></body></html><p>late</p>"
    assert Page(ordinary).tag.count("noscript") == 0


def test_noscript_notice_dropped_but_noscript_content_kept():
    notice = Page(
        "<html><body><noscript><p>Enable JavaScript</p><img src='/px.gif'></noscript>"
        "<p>real</p></body></html>"
    )
    assert "noscript" not in notice.tag and notice.text(notice.body) == "real"
    posts = "".join(
        f"<div class='post'><a href='/u/{k}'>user{k}</a><p>post {k}</p></div>" for k in range(8)
    )
    app = Page(f"<html><body><div id='app'></div><noscript>{posts}</noscript></body></html>")
    assert app.tag.count("div") == 9
    assert "post 7" in app.text(app.body)


def test_record_text_keeps_the_text_between_sibling_roots():
    page = Page("<div><a>Title</a><br>snippet here<br><small>url</small> after</div>")
    kids = page.children[page.tag.index("div")]
    assert page.record_text(kids) == "Title snippet here url"  # not the tail of the last root
    assert page.texts(kids) == "Title url"
    rows = Page("<table><tr><td>a</td></tr><tr><td>b</td></tr></table><p>x</p>")
    tds = [i for i, t in enumerate(rows.tag) if t == "td"]
    assert rows.record_text(tds) == "a b"  # different parents: sub-tree texts only


# An old results page (yamada/17 of TBDW has this shape): ``<dd>`` items never closed, each
# ending in an open ``<p>``. libxml2 nests every item inside the previous one.
UNCLOSED_DD = (
    "<html><body><p>Your search returned 4 items<hr><dl><dt>"
    + "".join(
        f'<dd>{k} -- <b>Title {k}</b> -- {k}0 Bytes<br><a href="/doc/{k}">/doc/{k}</a><br><p>\n'
        for k in range(1, 5)
    )
    + "</dl></body></html>"
)


def test_unclosed_list_items_become_siblings_as_in_a_browser():
    page = Page(UNCLOSED_DD)
    real = [e.getroottree().getpath(e) for e in page.root.iter("dd")]
    assert real[1].endswith("/dl/dd/dd")  # libxml2's chain, still what Scrapy sees
    dl = page.tag.index("dl")
    dds = [c for c in page.children[dl] if page.tag[c] == "dd"]
    assert len(dds) == 4
    assert {page.depth[i] for i in dds} == {page.depth[dl] + 1}
    assert len({page.path_id[i] for i in dds}) == 1
    assert page.text(dds[0]) == "1 -- Title 1 -- 10 Bytes /doc/1"
    assert page.text(dds[3]) == "4 -- Title 4 -- 40 Bytes /doc/4"
    # every node keeps its path in the real tree, so response.xpath finds it
    assert [page.xpath(i) for i in dds] == real
    for i in range(len(page)):
        assert page.xpath(i) == page._treeroot.getpath(page.el[i])
    resp = HtmlResponse("https://x.test/", body=UNCLOSED_DD.encode(), encoding="utf-8")
    assert resp.xpath(page.xpath(dds[2]) + "/b/text()").get() == "Title 3"


def test_repaired_arrays_stay_consistent():
    page = Page(
        "<table><tr><td><b>a<tr><td>b<td><font>c<td>d</table>"
        "<ul><li><span>x<li><b>y<li>z</ul><p>p1<font>f<p>p2</font>"
    )
    for i in range(len(page)):
        for c in page.children[i]:
            assert page.parent[c] == i and page.depth[c] == page.depth[i] + 1
            assert i < c <= page.end[i]
        assert page.end[i] == (page.end[page.children[i][-1]] if page.children[i] else i)
    table = page.tag.index("table")
    assert [page.tag[c] for c in page.children[table]] == ["tr", "tr"]
    tr2 = page.children[table][1]
    assert [page.text(c) for c in page.children[tr2]] == ["b", "c", "d"]
    ul = page.tag.index("ul")
    assert [page.text(c) for c in page.children[ul]] == ["x", "y", "z"]
    ps = [i for i, t in enumerate(page.tag) if t == "p"]
    assert page.parent[ps[0]] == page.parent[ps[1]] == page.body
    assert page.text(ps[0]) == "p1 f" and page.text(ps[1]) == "p2"
    # a nested list is not flattened: its items stay inside the outer item
    nested = Page("<ul><li>a<ul><li>b<li>c</ul><li>d</ul>")
    outer = nested.tag.index("ul")
    assert [nested.text(c) for c in nested.children[outer]] == ["a b c", "d"]


def test_content_after_the_body_end_tag_belongs_to_the_body_as_in_a_browser():
    rows = "".join(f"<tr><td><a href='/b{i}'>Book {i}</a> $1{i}.99</td></tr>" for i in range(5))
    html = (
        f"<html><body><h1>Shop</h1></body><form action='/buy'><table>{rows}</table></form></html>"
    )
    page = Page(html)
    form = page.tag.index("form")
    assert page.xpath(form) == "/html/form"  # libxml2's tree, what response.xpath sees
    assert page.parent[form] == page.body and page.tag_path(form) == "html/body/form"
    assert page.end[page.body] == len(page) - 1
    assert page.text(page.body) == "Shop " + " ".join(f"Book {i} $1{i}.99" for i in range(5))
    for i in range(len(page)):
        assert page.xpath(i) == page._treeroot.getpath(page.el[i])
        assert page.end[i] == (page.end[page.children[i][-1]] if page.children[i] else i)


def test_implied_closes_stay_linear_on_hostile_nesting():
    # an open <p> below a table cell, 400 inline levels, then 20,000 blocks: every block
    # start looks for a <p> to close; the look is bounded, not the depth of the stack
    html = (
        "<html><body><p>x<table><tr><td>"
        + "<span>" * 400
        + "<div>a</div>" * 20000
        + "</td></tr></table></body></html>"
    )
    page = Page(html)
    assert page.tag.count("div") == 20000
    div = page.tag.index("div")
    assert page.tag[page.parent[div]] == "span"  # the cell's <p> stays open: its scope ends at td


def test_page_from_markup_has_lxml_html_elements_and_shares_a_responses_tree():
    page = Page(HTML)
    li = page.el[page.tag.index("li")]
    assert li.text_content() == "One 1 €"  # lxml.html API on every element
    assert isinstance(li, lxml.html.HtmlElement)
    resp = HtmlResponse("https://x.test/", body=HTML.encode(), encoding="utf-8")
    assert Page(resp).root is resp.selector.root  # a response's tree is not parsed again


def test_xpath_of_a_kept_noscript_counts_its_dropped_noscript_siblings():
    posts = "".join(
        f"<div class='post'><a href='/u/{k}'>user{k}</a><p>post {k}</p></div>" for k in range(8)
    )
    html = (
        f"<html><body><div id='app'><noscript><img src='/px.gif'></noscript>"
        f"<noscript>{posts}</noscript></div></body></html>"
    )
    page = Page(html)
    kept = page.tag.index("noscript")
    assert page.xpath(kept) == "/html/body/div/noscript[2]"
    for i in range(len(page)):
        assert page.xpath(i) == page._treeroot.getpath(page.el[i])


def test_xpath_of_inline_siblings_counts_the_dropped_ones_as_getpath_does():
    # a long run of <b> and <font> siblings, empty ones (dropped by the page model) among
    # them, and a comment: positions are the document's, as lxml's getpath has them
    cells = "".join(
        f"<b>{k}</b><b></b><font>f{k}</font><!-- c --><span>s{k}</span>" for k in range(300)
    )
    page = Page(f"<html><body><div>{cells}<i>one</i></div></body></html>")
    assert page.tag.count("b") == 300  # the empty ones are dropped
    for i in range(len(page)):
        assert page.xpath(i) == page._treeroot.getpath(page.el[i])
    assert page.xpath(len(page) - 1) == "/html/body/div/i"


def test_windows_1252_and_ascii_bytes_read_as_declared():
    # windows-1252 goes to libxml2 as UTF-8 (decoded by Python), pure ASCII as is: the
    # text must be what the declared encoding says, 0x80-0x9F included
    body = "\n <p>“Smart” quotes, 10 €, café™ – Œuvre</p>\n"
    declared = f"<html><head><meta charset='windows-1252'></head><body>{body}</body></html>\n\n"
    page = Page(declared.encode("cp1252"))
    assert page.encoding == "cp1252"
    assert page.text(page.body) == "“Smart” quotes, 10 €, café™ – Œuvre"
    given = Page(f"<html><body>{body}</body></html>".encode("cp1252"), encoding="windows-1252")
    assert given.encoding == "windows-1252" and given.leaves == page.leaves
    ascii_gb = Page(
        b"<html><head><meta charset=gb18030></head><body><p>plain a\\b~c</p></body></html>"
    )
    assert ascii_gb.encoding == "gb18030" and ascii_gb.leaves == ["plain a\\b~c"]
    # a byte windows-1252 leaves undefined (0x81): Python decides (a replacement character)
    odd = Page(b"<html><head><meta charset=windows-1252></head><body><p>a\x81b</p></body></html>")
    assert odd.encoding == "cp1252" and odd.leaves == ["a\ufffdb"]


def test_folded_subtree_keeps_its_text_in_document_order():
    deep = (
        "<html><body><div><div><span>a<script>s()</script>b<!--c-->c<i>d<b>e</b>f</i>g</span>h"
        "</div>i</div>j</body></html>"
    )
    page = Page(deep, max_depth=3)
    assert page.truncated
    assert page.tag == ["html", "body", "div", "div"]
    # the span (depth 4) and everything in it fold into the inner div; the script's own
    # text is dropped, its tail and the comment's tail are kept
    assert page.leaves == list("abcdefghij")
    assert page.leaf_owner == [3] * 8 + [2, 1]
    assert page.end == [3, 3, 3, 3]


def test_skipped_subtrees_and_a_sub_element_root():
    page = Page(
        "<html><body><div><svg><g><path/><text>s</text></g></svg>t<span>a</span></div>"
        "<p>b<math><mi>x</mi></math></p>c</body></html>"
    )
    assert page.tag == ["html", "body", "div", "svg", "span", "p", "math"]
    assert page.parent == [-1, 0, 1, 2, 2, 1, 5]
    assert page.end == [6, 6, 4, 3, 4, 6, 6]
    assert page.leaves == ["t", "a", "b", "c"] and page.leaf_owner == [2, 4, 5, 1]
    doc = lxml.html.fromstring(
        "<html><body><div><p>x<b>y</b>z</p>t<ul><li>1<li>2</ul></div>tail<p>after</p></body></html>"
    )
    sub = Page(doc.body[0])  # an element inside a tree: its sub-tree only, not its tail
    assert sub.tag == ["div", "p", "b", "ul", "li", "li"]
    assert sub.parent == [-1, 0, 1, 0, 3, 3]
    assert sub.leaves == ["x", "y", "z", "t", "1", "2"]
    assert sub.xpath(3) == "/html/body/div/ul"


def test_empty_inline_formatting_is_dropped_with_its_tail_kept():
    # a search engine's snippet: every word wrapped between empty <strong></strong> pairs
    page = Page(
        "<html><body><p id='s'><strong></strong>Chemicals<strong></strong> <strong></strong>"
        "are<strong></strong> <strong>public</strong> health <b class='hl'></b>"
        "<strong>threats</strong></p></body></html>"
    )
    p = page.tag.index("p")
    assert page.text(p) == "Chemicals are public health threats"
    # the empty pairs are gone; the one with a class and those with text stay
    assert [page.tag[c] for c in page.children[p]] == ["strong", "b", "strong"]
    # positions still count the dropped siblings, as the document has them
    kept = page.children[p]
    assert page.xpath(kept[0]) == "/html/body/p/strong[5]"
    assert page.xpath(kept[2]) == "/html/body/p/strong[6]"
    assert page.root.xpath(page.xpath(kept[2]))[0].text == "threats"


def test_zero_width_characters_are_not_text():
    # a BOM before a currency (Target's "\ufeffCAD 263.59"), a zero-width space in a word;
    # the joiners that shape emoji stay
    page = Page(
        "<html><body><p>\ufeffCAD 263.59</p><p>List \ufeffCAD 277.48</p>"
        "<p>data\u200bbase</p><p>\ufeff</p><p>family \U0001f468\u200d\U0001f469</p></body></html>"
    )
    ps = [i for i, t in enumerate(page.tag) if t == "p"]
    assert [page.text(i) for i in ps[:3]] == ["CAD 263.59", "List CAD 277.48", "database"]
    assert page.text(ps[3]) == "\ufeff"  # (a leaf of nothing else stays a leaf)
    assert page.text(ps[4]) == "family \U0001f468\u200d\U0001f469"


def test_positions_count_the_dropped_empty_inline_siblings():
    from scrapy_records import extract, induce

    # "<b></b>" before the label: the arrays drop it, an XPath step counts it
    def page(k0: int) -> str:
        items = "".join(
            f"<li><a href='/p/{k}'>Product {k} with a name</a><br><b></b>"
            f"<b>Price:</b> <span>{k}.50</span> <b>{k % 3 + 1} left</b></li>"
            for k in range(k0, k0 + 5)
        )
        return f"<html><body><ul>{items}</ul></body></html>"

    p = Page(page(1))
    li = p.tag.index("li")
    bs = [c for c in p.children[li] if p.tag[c] == "b"]
    assert [p.sibling_position(b) for b in bs] == [(2, 3), (3, 3)]
    assert p.xpath(bs[1]).endswith("/li[1]/b[3]")
    mined = extract(page(1)).main
    assert mined is not None and len(mined.records) == 5
    assert mined.records[0].fields["text"] == "2 left"
    assert ("text", "b[3]") in [(c.name, c.xpath) for c in mined.columns]
    got = induce([page(1), page(10)]).extract(page(20)).records
    assert [r.fields["text"] for r in got] == ["3 left", "1 left", "2 left", "3 left", "1 left"]
    assert got[0].fields["price"] == 20.5


def test_records_of_several_siblings_beside_a_dropped_empty_element():
    from scrapy_records import extract, induce

    # each record is six siblings (p, hr, font, br, br, p) with an empty <b> among them
    def page(k0: int) -> str:
        items = "".join(
            f"<p></p><hr><font size='2'><a href='/a/{k}'>Title {k} of the story here</a>"
            f"</font><br><b></b><br><p>Summary {k} of the article, with a few more words.</p>"
            for k in range(k0, k0 + 8)
        )
        return f"<html><body><table><tr><td><font>{items}</font></td></tr></table></body></html>"

    main = extract(page(0)).main
    assert main is not None and len(main.records) == 8
    assert main.records[2].fields["title"] == "Title 2 of the story here"
    assert main.records[2].fields["description"].startswith("Summary 2 of the article")
    got = induce([page(0), page(10)]).extract(page(20)).records
    assert [r.fields["title"] for r in got][:2] == [
        "Title 20 of the story here",
        "Title 21 of the story here",
    ]
    assert all(r.fields["description"].startswith(f"Summary {20 + k} ") for k, r in enumerate(got))


# ---------------------------------------------------------------- base URL from the walk
@pytest.mark.parametrize(
    "html",
    [
        "<html><head><base href='/b/'></head><body><a href='x'>x</a></body></html>",
        "<html><head><base target=_top><base href=' sub/ '></head><body>t</body></html>",
        "<html><head><title>t</title></head><body><base href='/in-body/'>t</body></html>",
        "<HTML><HEAD><BASE HREF='/upper/'></HEAD><BODY>t</BODY></HTML>",
        "<html><head><noscript><base href='/ns/'></noscript></head><body>t</body></html>",
        "<html><head></head><body>t</body></html><base href='/after/'>",
        "<base href='/first/'><p>no head written</p>",
        "<html><head><template><base href='/tpl/'></template></head><body>t</body></html>",
        "<html><body><svg><base href='/svg/'/></svg><head><base href='/late/'></head></body>"
        "</html>",
    ],
)
def test_base_url_from_the_walk_is_base_url_of(html):
    from scrapy_records.page import base_url_of

    for source in (html, html.encode()):
        page = Page(source, "http://example.com/dir/page.html")
        assert page.base_url == base_url_of(page.root, "http://example.com/dir/page.html")
