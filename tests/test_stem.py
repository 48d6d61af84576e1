"""STEM extractor: the digest's test cases (``shared/papers/stem.md`` §7) with their expected values.

Paper figures are given as tag paths (``/html/div`` ...) and fed as sequences, so HTPIs match the
paper exactly; the HTML variants go through the page model (lxml inserts ``body``, which shifts ids).
"""

from __future__ import annotations

import random

import pytest

from scrapy_records import extract
from scrapy_records.extractors import get_extractor
from scrapy_records.extractors.stem import (
    DECORATIVE_EXTENDED,
    DECORATIVE_PAPER,
    STEMExtractor,
    TagPathSequence,
    analyze,
    analyze_sequence,
    canonical_rotation,
    roots_of,
)
from scrapy_records.extractors.stem.suffix import (
    SuffixIndex,
    as_string,
    greedy_matches,
    sa_is,
    suffix_array,
)
from scrapy_records.page import Page


def page(body: str, head: str = "") -> Page:
    return Page(f"<html>{head}<body>{body}</body></html>")


def li_records(k: int, bold_odd: bool = False) -> str:
    out = []
    for i in range(k):
        title = f"<b>Record {i}</b>" if bold_odd and i % 2 else f"Record {i}"
        out.append(
            f"<li><a href='/r{i}'>{title}</a><div>Details of record {i}, a longer description</div></li>"
        )
    return "".join(out)


def drp_tags(analysis) -> list[tuple[str, ...]]:
    return [tuple(p.rsplit("/", 1)[-1] for p in d.paths) for d in analysis.drps]


# Fig. 5/6 page as the paper numbers it: 1=/html 2=/html/div 3=/html/div/p 4=/html/div/a 5=/html/div/img
FIG5 = (
    ["/html"]
    + ["/html/div", "/html/div/p", "/html/div/a"]
    + ["/html/div", "/html/div/p", "/html/div/a", "/html/div/img"]
    + ["/html/div", "/html/div/p", "/html/div/a"] * 2
    + ["/html/div"]
)
# Fig. 7: 2=/html/div 3=/html/div/p, WPS (1,2,3,2,3,2,3,2)
FIG7 = ["/html"] + ["/html/div", "/html/div/p"] * 3 + ["/html/div"]


# ---------------------------------------------------------------- representation (cases 1-4)
def test_table1_htpi_and_wps():
    p = Page(
        "<html><body><div>An example<ul><li><a>Record 1</a><div>Details</div></li>"
        "<li><a>Record 2</a><div>Details</div></li></ul></div></body></html>"
    )
    tps = TagPathSequence.from_page(p)
    assert tps.ids == [1, 2, 3, 4, 5, 6, 7, 5, 6, 7]
    assert [tps.path(h) for h in range(1, 8)] == [
        "/html",
        "/html/body",
        "/html/body/div",
        "/html/body/div/ul",
        "/html/body/div/ul/li",
        "/html/body/div/ul/li/a",
        "/html/body/div/ul/li/div",
    ]


def test_htpi_monotone_and_consecutive():
    p = page(
        "<div><p><a>x</a><span>y</span></p><ul><li><a>1</a></li></ul></div><p><a>z</a></p>"
        + li_records(3)
    )
    tps = TagPathSequence.from_page(p)
    seen = []
    for h in tps.ids:
        if h not in seen:
            seen.append(h)
    assert seen == list(range(1, len(seen) + 1))
    for h in range(1, len(tps.htpi_parent)):
        par = tps.htpi_parent[h]
        while par:
            assert par < h
            par = tps.htpi_parent[par]


def test_decorative_tags_unwrapped_and_text_kept():
    plain = page("<ul>" + li_records(5) + "</ul>")
    bold = page("<ul>" + li_records(5, bold_odd=True) + "</ul>")
    assert TagPathSequence.from_page(plain).ids == TagPathSequence.from_page(bold).ids
    a = analyze(bold)
    assert drp_tags(a) == [("li", "a", "div")]
    regions = STEMExtractor().extract(bold)
    assert len(regions) == 1 and len(regions[0].records) == 5
    assert "Record 1" in regions[0].records[1].text  # the <b> text survives


def _reference_wps(
    p: Page, deco: frozenset[str]
) -> tuple[list[int], list[int], list[int], list[int], list[str]]:
    """Steps 1-2 element by element, as the digest describes them: (ids, parent_pos, nodes,
    subtree_end, paths)."""
    paths: dict[str, int] = {}
    eff_path: list[str] = []  # the node's unwrapped path (its retained ancestor's if decorative)
    eff_pos: list[int] = []
    ids: list[int] = []
    ppos: list[int] = []
    nodes: list[int] = []
    for i in range(p.n):
        par = p.parent[i]
        base, par_pos = (eff_path[par], eff_pos[par]) if par >= 0 else ("", -1)
        if p.tag[i] in deco and par >= 0:
            eff_path.append(base)
            eff_pos.append(par_pos)
            continue
        path = f"{base}/{p.tag[i]}"
        eff_path.append(path)
        eff_pos.append(len(ids))
        ids.append(paths.setdefault(path, len(paths) + 1))
        ppos.append(par_pos)
        nodes.append(i)
    ends = [
        max([q] + [r for r in range(q, len(ids)) if p.is_ancestor(nodes[q], nodes[r])])
        for q in range(len(ids))
    ]
    return ids, ppos, nodes, ends, list(paths)


@pytest.mark.parametrize("deco", [DECORATIVE_PAPER, DECORATIVE_EXTENDED, frozenset()])
def test_wps_from_page_equals_element_by_element_reference(deco):
    html = (
        "<b>top</b><div><i><em>x</em><b><i>deep</i><p>in</p></b></i><p><b>y</b></p></div>"
        "<ul><li><b>1 <li>2 <u><a>l</a></u></ul>"  # an unclosed li: repaired nesting
        f"<ol>{li_records(5, bold_odd=True)}</ol><dl><dd>1 <p>t <dd>2</dl>"
    )
    p = page(html)
    tps = TagPathSequence.from_page(p, deco)
    ids, ppos, nodes, ends, paths = _reference_wps(p, deco)
    assert (tps.ids, tps.parent_pos, tps.nodes, tps.subtree_end) == (ids, ppos, nodes, ends)
    assert [tps.path(h) for h in range(1, len(tps.htpi_parent))] == paths
    assert tps.string == "".join(map(chr, ids))
    assert all(
        tps.positions(h) == [q for q, x in enumerate(ids) if x == h] for h in range(len(paths) + 2)
    )


def test_scripts_comments_dropped_and_componentwise_ancestry():
    with_noise = page(
        "<ul>"
        + "".join(
            f"<li><a>R{i}</a><script>var x={i}</script><!-- c --><div>D{i} text here</div><style>p{{}}</style></li>"
            for i in range(4)
        )
        + "</ul>"
    )
    clean = page(
        "<ul>"
        + "".join(f"<li><a>R{i}</a><div>D{i} text here</div></li>" for i in range(4))
        + "</ul>"
    )
    assert TagPathSequence.from_page(with_noise).ids == TagPathSequence.from_page(clean).ids
    tps = TagPathSequence.from_paths(["/html", "/html/p", "/html/p/a", "/html/p/abbr"])
    a, abbr, p = tps.ids[2], tps.ids[3], tps.ids[1]
    assert not tps.is_ancestor_path(a, abbr)
    assert tps.is_ancestor_path(p, abbr) and not tps.is_ancestor_path(abbr, abbr)


# ---------------------------------------------------------------- suffix structure (cases 5-6)
def _right_branching_repeats(w):
    """Brute-force oracle: substrings occurring >= 2 times followed by >= 2 distinct symbols (end counts)."""
    n, res = len(w), {}
    for k in range(1, n + 1):
        occ: dict[tuple, list[int]] = {}
        for p in range(n - k + 1):
            occ.setdefault(tuple(w[p : p + k]), []).append(p)
        for x, ps in occ.items():
            if len(ps) >= 2 and len({w[p + k] if p + k < n else None for p in ps}) >= 2:
                res[x] = len(ps)
    return res


@pytest.mark.parametrize("backend", ["auto", "sais"])
def test_suffix_nodes_equal_bruteforce_right_branching_repeats(backend):
    rng = random.Random(7)
    for _ in range(60):
        w = [rng.randint(1, rng.randint(1, 8)) for _ in range(rng.randint(1, 90))]
        ix = SuffixIndex(w, backend=backend)
        got = {tuple(ix.node_sequence(lb, d)): rb - lb + 1 for lb, rb, d in ix.nodes()}
        assert got == _right_branching_repeats(w)
        assert len(ix.sa) == len(w) + 1  # n suffixes + the bare terminator


def test_sais_matches_sorted_suffixes():
    rng = random.Random(3)
    for _ in range(100):
        s = [rng.randint(1, 5) for _ in range(rng.randint(1, 50))] + [0]
        expected = sorted(range(len(s)), key=lambda i: s[i:])
        assert sa_is(s, max(s)) == expected
        assert suffix_array(s) == expected


def test_suffix_array_backends_agree_with_naive_sort_any_alphabet():
    # "auto" sorts str suffixes for short sequences (identifiers >= 256 included), else
    # libdivsufsort / SA-IS: a suffix array is unique, so every backend gives the naive order
    rng = random.Random(11)
    for _ in range(300):
        top = rng.choice([1, 3, 255, 256, 1000, 70000])
        s = [rng.randint(1, top) for _ in range(rng.randint(1, 120))] + [0]
        expected = sorted(range(len(s)), key=lambda i: s[i:])
        assert suffix_array(s) == expected
        assert suffix_array(s, "sais") == expected
        assert SuffixIndex(s[:-1]).sa == expected


def test_greedy_find_is_lemma1_on_the_suffix_array():
    rng = random.Random(13)
    for _ in range(300):
        top = rng.choice([2, 4, 300])
        w = [rng.randint(1, top) for _ in range(rng.randint(1, 80))]
        ix = SuffixIndex(w)
        assert ix.string == as_string(w)
        for _ in range(6):
            a = rng.randrange(len(w))
            pat = (
                w[a : a + rng.randint(1, 6)] if rng.random() < 0.8 else [rng.randint(0, top + 300)]
            )
            expected = greedy_matches(ix.find_all(pat), len(pat))
            assert ix.greedy_find(pat) == expected
            assert ix.greedy_find(tuple(pat)) == expected
            assert ix.greedy_find(as_string(pat)) == expected
    assert SuffixIndex([1, 2, 1, 2, 1, 3, 1, 2, 1]).greedy_find((1, 2, 1)) == [0, 6]  # Fig. 3


def test_greedy_find_on_a_long_sequence_searches_the_suffix_array():
    """Past SCAN_FIND_MAX symbols a scan per search would make STEM's node loop quadratic
    (a 50,000-node page took 3x longer): the suffix-array search gives the same matches."""
    from scrapy_records.extractors.stem.suffix import SCAN_FIND_MAX

    rng = random.Random(7)
    w = [rng.randint(1, 6) for _ in range(SCAN_FIND_MAX + 500)] + [1, 2, 1, 2, 1]
    ix = SuffixIndex(w)
    for pat in ([1, 2, 1], [3], [2, 2, 2], w[100:108], [9]):
        want, k, i = [], len(pat), 0  # leftmost non-overlapping matches, by a plain scan
        while i + k <= len(w):
            if w[i : i + k] == pat:
                want.append(i)
                i += k
            else:
                i += 1
        assert ix.greedy_find(pat) == want
        assert ix.greedy_find(as_string(pat)) == want
    assert ix.greedy_find([1, 2, 1])[-1] == len(w) - 5


def test_intervals_count_every_node_and_keep_the_length_bounds():
    rng = random.Random(17)
    for _ in range(100):
        w = [rng.randint(1, 4) for _ in range(rng.randint(2, 90))]
        ix = SuffixIndex(w)
        every = ix.nodes()
        got, total = ix.intervals(2, 5)
        assert total == len(every)
        assert [(lb, rb, d) for lb, d, rb in got] == [x for x in every if 2 <= x[2] <= 5]


@pytest.mark.parametrize("profile", ["paper", "recommended"])
def test_shortcuts_without_trace_keep_the_drps(profile):
    # without trace, nodes the tree filter rejects whatever the gap filter says skip the gap
    # filter (stats count them as "tree"); the DRPs and records are those of the paper's order
    pages = [
        page(f"<ul>{li_records(6, bold_odd=True)}</ul><p>footer</p>"),
        _yahoo(),
        _nested_table(3),
        page("<dl>" + "".join(f"<dt><a>t{i}</a></dt><dd>d{i}</dd>" for i in range(5)) + "</dl>"),
    ]
    for p in pages:
        fast, paper_order = analyze(p, profile=profile), analyze(p, profile=profile, trace=True)
        assert [(d.pattern, d.nf, d.matches, d.records, d.groups) for d in fast.drps] == [
            (d.pattern, d.nf, d.matches, d.records, d.groups) for d in paper_order.drps
        ]
        assert fast.drps  # every page has a list
        assert fast.stats["nodes"] == paper_order.stats["nodes"]
        assert fast.stats["kept"] == paper_order.stats["kept"]


def test_lemma1_greedy_pattern_frequency_fig3():
    ix = SuffixIndex([1, 2, 1, 2, 1, 3, 1, 2, 1])
    occ = ix.find_all([1, 2, 1])
    assert occ == [0, 2, 6]  # nf = 3 (overlapping)
    assert greedy_matches(occ, 3) == [0, 6]  # pf = 2


# ---------------------------------------------------------------- filters on paper examples (7-10)
def test_fig5_node_table_paper_profile():
    a = analyze_sequence(TagPathSequence.from_paths(FIG5), trace=True, profile="paper")
    assert a.wps == [1, 2, 3, 4, 2, 3, 4, 5, 2, 3, 4, 2, 3, 4, 2]
    table = {d.sequence: (d.nf, d.h, round(d.pvr, 2), d.outcome) for d in a.decisions}
    assert table == {
        (2, 3, 4): (4, 3, 0.75, "kept"),
        (2, 3, 4, 2): (3, 1, 0.33, "gap"),
        (2, 3, 4, 2, 3, 4): (2, 1, 0.5, "gap"),
        (3, 4): (4, 0, 0.0, "gap"),
        (3, 4, 2): (3, 2, 0.67, "tree"),
        (3, 4, 2, 3, 4): (2, 1, 0.5, "gap"),
        (4, 2): (3, 0, 0.0, "gap"),
        (4, 2, 3, 4): (2, 1, 0.5, "gap"),
    }
    assert a.decision((3, 4, 2)).canonical == (2, 3, 4)
    assert a.stats["frequency"] == 2  # (2) and (4): length 1
    assert [d.pattern for d in a.drps] == [(2, 3, 4)]
    d = a.drps[0]
    assert d.matches == [1, 4, 8, 11]
    assert [r[:2] for r in d.records] == [(1, 4), (4, 7), (8, 11), (11, 14)]  # no gap accepted


def test_fig5_html_records_include_img_and_skip_empty_div():
    p = page(
        "<div><p>t1</p><a>l1</a></div><div><p>t2</p><a>l2</a><img src='x.png'></div>"
        "<div><p>t3</p><a>l3</a></div><div><p>t4</p><a>l4</a></div><div></div>"
    )
    for profile in ("paper", "recommended"):
        regions = STEMExtractor().extract(p, profile=profile)
        assert len(regions) == 1
        recs = regions[0].records
        assert [r.text for r in recs] == ["t1 l1", "t2 l2", "t3 l3", "t4 l4"]
        img = p.index(p.root.xpath("//img")[0])
        assert p.is_ancestor(recs[1].nodes[0], img)
        assert recs[0].xpaths == ["/html/body/div[1]"]


def test_fig7_rotation_prefix_terminated():
    a = analyze_sequence(TagPathSequence.from_paths(FIG7), trace=True, profile="paper")
    assert a.wps == [1, 2, 3, 2, 3, 2, 3, 2]
    d32, d232 = a.decision((3, 2)), a.decision((2, 3, 2))
    assert (d32.nf, d32.h, round(d32.pvr, 2), d32.outcome) == (3, 2, 0.67, "kept")
    assert (d232.nf, d232.h, round(d232.pvr, 2), d232.outcome) == (3, 1, 0.33, "gap")
    assert [d.pattern for d in a.drps] == [(2, 3)]


def test_fig7_html_variant_more_link_not_a_record():
    p = page("<ul>" + li_records(4) + "<li><span>more</span></li></ul>")
    for profile in ("paper", "recommended"):
        a = analyze(p, profile=profile)
        assert drp_tags(a) == [("li", "a", "div")]
        assert len(a.drps[0].groups) == 4


def test_tree_filter_roots_with_equal_paths():
    tps = TagPathSequence.from_paths(FIG7)
    seq = (2, 3, 2)
    assert [seq[i] for i in roots_of(seq, tps)] == [2, 2]  # the second /html/div is a sibling
    assert canonical_rotation(seq, tps) == (2, 3)
    assert canonical_rotation((3, 2), tps) == (2, 3)
    assert canonical_rotation((2, 3, 4, 2, 3, 4), TagPathSequence.from_paths(FIG5)) == (2, 3, 4)
    assert canonical_rotation(
        (2, 3, 4, 2, 3, 4), TagPathSequence.from_paths(FIG5), "delete_all_other"
    ) == (2, 3, 4, 3, 4)


def test_rotation_junk_guard_recommended():
    p = page("<ul>" + li_records(5) + "</ul><p>footer</p>")
    a = analyze(p)
    assert drp_tags(a) == [("li", "a", "div")]
    assert all(len(d.matches) >= 2 for d in a.drps)


# ---------------------------------------------------------------- contiguity and counts (11-19)
@pytest.mark.parametrize(
    "html",
    [
        "<html><body><ul><li><a>only</a><div>one</div></li></ul></body></html>",
        "<html><body></body></html>",
        "<p>x</p>",
    ],
)
def test_degenerate_pages_give_nothing(html):
    p = Page(html)
    assert STEMExtractor().extract(p) == []
    assert STEMExtractor().extract(p, profile="paper") == []


def test_two_records_paper_vs_nf_minus_1():
    p = Page(
        "<html><body><div>An example<ul><li><a>Record 1</a><div>Details</div></li>"
        "<li><a>Record 2</a><div>Details</div></li></ul></div></body></html>"
    )
    a = analyze(p, trace=True, profile="paper")
    assert a.drps == []
    assert round(a.decision((5, 6, 7)).pvr, 2) == 0.5
    b = analyze(p, profile="paper", gap_denominator="nf_minus_1")
    assert [d.pattern for d in b.drps] == [(5, 6, 7)] and len(b.drps[0].groups) == 2
    assert analyze(p).drps == []  # the recommended profile keeps Eq. (5) too (measured better)
    regions = STEMExtractor().extract(p, gap_denominator="nf_minus_1")
    assert len(regions) == 1 and [r.text for r in regions[0].records] == [
        "Record 1 Details",
        "Record 2 Details",
    ]


@pytest.mark.parametrize("profile", ["paper", "recommended"])
def test_three_records_both_profiles(profile):
    a = analyze(page("<ul>" + li_records(3) + "</ul>"), profile=profile)
    assert drp_tags(a) == [("li", "a", "div")] and len(a.drps[0].groups) == 3


def _yahoo() -> Page:
    rec = (
        "<div><h3><a href='/r{0}'>Result {0}</a></h3><p>Snippet for result {0} with words</p></div>"
    )
    body = (
        "".join(rec.format(i) for i in range(2))
        + "<hr><span>Ads related to: einstein</span>"
        + "".join(rec.format(i) for i in range(2, 5))
    )
    return page(f"<div id='results'>{body}</div>")


def test_noise_separator_yahoo_like():
    rec = analyze(_yahoo(), dedupe_regions=True)
    assert drp_tags(rec) == [("div", "h3", "a", "p")]
    assert len(rec.drps[0].groups) == 5
    paper = analyze(_yahoo(), profile="paper")
    tags = drp_tags(paper)
    assert ("div", "h3", "a", "p") in tags and ("h3", "a", "p") in tags  # redundant sub-pattern
    regions = STEMExtractor().extract(_yahoo(), dedupe_regions=True)
    assert len(regions) == 1 and len(regions[0].records) == 5
    assert all("Ads related" not in r.text for r in regions[0].records)
    main = extract(
        _yahoo(), extractor="stem"
    ).main  # default: sub-pattern kept, ranking picks the full one
    assert main.meta["drp_ids"] == list(rec.drps[0].pattern) and len(main.records) == 5


def test_rich_record_becomes_gap_record_google_like():
    recs = []
    for i in range(5):
        extra = "<img src='t.png'><video></video>" if i == 1 else ""
        recs.append(
            f"<li><h3><a href='/{i}'>Title {i}</a></h3>{extra}<cite>site{i}.com</cite><p>Abstract {i}</p></li>"
        )
    a = analyze(page("<ol>" + "".join(recs) + "</ol>"))
    assert drp_tags(a) == [("li", "h3", "a", "cite", "p")]
    d = a.drps[0]
    assert len(d.matches) == 4 and len(d.groups) == 5
    assert [round(r, 2) for _, _, r in d.records] == [1.0, 1.0, 1.0, 1.0, 1.0]
    assert d.records[1][1] - d.records[1][0] == 7  # (li,h3,a,img,video,cite,p)


def test_variant_first_record_rvr_exactly_alpha():
    first = "<li><h3><a href='/v'>Variant</a></h3><table><tr><td><img src='a'></td><td><img src='b'></td></tr></table></li>"
    normal = "".join(
        f"<li><h3><a href='/{i}'>T{i}</a></h3><cite>c{i}</cite><p>p{i}</p></li>" for i in range(5)
    )
    p = page("<ol>" + first + normal + "</ol>")
    a = analyze(p)
    d = a.drps[0]
    assert len(d.pattern) == 5 and len(d.groups) == 6
    assert round(d.records[0][2], 2) == 0.6
    lit = analyze(p, profile="paper")
    head = [r for r in lit.drps[0].records if r[0] == 0]
    assert head, "paper profile swallows the page head as one record (known literal defect)"


def _product_cell(k: int) -> str:
    return (
        f"<td><a href='/p/{k}'><img src='/i/{k}.jpg'></a><br><a href='/p/{k}'>Product {k}</a>"
        f"<br><font>${k}.99</font></td>"
    )


def test_table_grid_is_one_region_with_every_cell():
    """A 4 x 3 product table (the last row short): one region of 11 cells, not a region per row."""
    rows = [
        "<tr>" + "".join(_product_cell(3 * r + c) for c in range(3)) + "</tr>" for r in range(3)
    ]
    rows.append("<tr>" + _product_cell(9) + _product_cell(10) + "</tr>")
    p = page("<h1>Shop</h1><table id='grid'>" + "".join(rows) + "</table><p>Contact us</p>")
    main = extract(p, extractor="stem").main
    assert main.xpath == "/html/body/table" and len(main.records) == 11
    assert main.records[4].text == "Product 4 $4.99"
    assert main.records[4].xpaths == ["/html/body/table/tr[2]/td[2]"]
    rows_only = extract(p, extractor="stem", merge_grids=False).main
    assert len(rows_only.records) == 3 and rows_only.xpath.startswith("/html/body/table/tr[")


def test_rank_and_result_cells_stay_row_records():
    """Rows of (rank cell, result cell) are records of one table, not a grid of cells: the
    short DRP (td, font) matches both cells of every row, but they are not alike."""
    rows = "".join(
        f"<tr><td valign=top><font size=-1>{k}.</font></td><td valign=top><font size=-1><table><tr>"
        f"<td><font><img src='/rank.gif'></font></td><td><font><a href='/r{k}'>Result {k} title words</a>"
        f" <font size=-2>[ Database: Departments ]</font><br>Snippet {k} says something longer here<br>"
        f"<a href='/c{k}'>Directory page</a></font></td></tr></table></font></td></tr>"
        for k in range(1, 16)
    )
    p = page("<font><table>" + rows + "</table></font>")
    regions = extract(p, extractor="stem").regions
    assert len(regions[0].records) == 15
    assert regions[0].records[1].text.startswith("2. Result 2 title words")
    assert all(len(r.records) <= 15 for r in regions)  # no 30-cell "grid"


def test_two_lists_same_template_split_by_parent():
    p = page("<ul>" + li_records(3) + "</ul><p>between</p><ul>" + li_records(3) + "</ul>")
    a = analyze(p)
    assert len(a.drps) == 1 and len(a.drps[0].groups) == 6
    regions = STEMExtractor().extract(p)
    assert sorted(len(r.records) for r in regions) == [3, 3]
    assert {r.xpath for r in regions} == {"/html/body/ul[1]", "/html/body/ul[2]"}
    assert len(STEMExtractor().extract(p, profile="paper")) == 1


# ---------------------------------------------------------------- structure variants (20-26)
def test_case2_definition_list():
    p = page(
        "<dl>"
        + "".join(f"<dt><a href='/{i}'>Term {i}</a></dt><dd>Definition {i}</dd>" for i in range(5))
        + "</dl>"
    )
    a = analyze(p)
    assert drp_tags(a) == [("dt", "a", "dd")]
    regions = STEMExtractor().extract(p)
    assert len(regions[0].records) == 5
    assert regions[0].records[2].xpaths == ["/html/body/dl/dt[3]", "/html/body/dl/dd[3]"]
    assert regions[0].records[2].text == "Term 2 Definition 2"


def _nested_table(groups: int) -> Page:
    body = "".join(
        "<tbody>"
        + "".join(f"<tr><td><a href='/{g}{k}'>Row {g}.{k}</a></td></tr>" for k in range(2))
        + "</tbody>"
        for g in range(groups)
    )
    return page(f"<table>{body}</table>")


def test_nested_records_three_subregions():
    for profile in ("paper", "recommended"):
        a = analyze(_nested_table(3), trace=True, profile=profile)
        drp1 = [d for d in a.decisions if d.canonical and len(d.canonical) == 7]
        assert drp1 and all(d.outcome == "repetition" for d in drp1)
        assert drp_tags(a) == [("tr", "td", "a")]
        assert sum(len(d.groups) for d in a.drps) == 6


def test_nested_records_two_subregions_gap_pruned():
    a = analyze(_nested_table(2), trace=True, profile="paper")
    drp1 = [d for d in a.decisions if len(d.sequence) == 7 and d.sequence[0] < d.sequence[1]]
    assert drp1 and drp1[0].outcome == "gap" and round(drp1[0].pvr, 2) == 0.5
    assert drp_tags(a) == [("tr", "td", "a")] and len(a.drps[0].groups) == 4


def test_table_rows_nested_repetition_false_positive():
    rows = "".join(
        f"<tr><td>{i}</td><td>name {i}</td><td>{i * 10} units</td></tr>" for i in range(5)
    )
    p = page(f"<table>{rows}</table>")
    assert analyze(p, profile="paper").drps == []
    a = analyze(p)
    assert drp_tags(a) == [("tr", "td", "td", "td")] and len(a.drps[0].groups) == 5


def test_flat_same_path_case2_limitation():
    p = page(
        "<div>"
        + "".join(f"<p><a href='/{i}'>t{i}</a></p><p>desc {i}</p>" for i in range(5))
        + "</div>"
    )
    a = analyze(p)
    assert drp_tags(a) == [("p", "a")] and len(a.drps[0].groups) == 5


def test_length_bound_L():
    tags = [f"x{i}" for i in range(119)]
    rec = "<div>" + "".join(f"<{t}>v</{t}>" for t in tags) + "</div>"
    p = page(rec * 4)
    a = analyze(p)
    assert a.drps and all(len(d.pattern) <= 100 for d in a.drps)
    b = analyze(p, L=200)
    assert any(len(d.pattern) == 120 for d in b.drps)


# ---------------------------------------------------------------- extractor contract
def test_extractor_contract_and_registry():
    assert isinstance(get_extractor("stem"), STEMExtractor)
    p = page("<ul>" + li_records(6) + "</ul>")
    with pytest.raises(TypeError):
        STEMExtractor().extract(p, K=3)
    with pytest.raises(ValueError):
        STEMExtractor().extract(p, profile="literal")
    res = extract(p, extractor="stem")
    main = res.main
    assert main is not None and main.extractor == "stem" and len(main.records) == 6
    assert main.records[0].xpaths == ["/html/body/ul/li[1]"]
    assert main.records[0].fields and 0.7 < main.confidence <= 1.0
    assert main.meta["drp"] == ["/html/body/ul/li", "/html/body/ul/li/a", "/html/body/ul/li/div"]


def test_confidence_low_for_menu_pair_high_for_list():
    menu = page("<ul><li><a href='/a'>Home</a></li><li><a href='/b'>About</a></li></ul>")
    regions = STEMExtractor().extract(menu)
    assert all(r.confidence < 0.4 for r in regions)
    lst = STEMExtractor().extract(page("<ul>" + li_records(10) + "</ul>"))
    assert lst and lst[0].confidence > 0.8


# ---------------------------------------------------------------- edge trimming (ours)
def test_trim_edges_drops_header_and_footer_built_like_records():
    from scrapy_records.extractors.stem import PROFILES
    from scrapy_records.extractors.stem.extractor import _trim_edges

    def rec(i: int) -> str:
        return (
            f"<table><tr><td><font><a href='/r{i}'>Title {i}</a></font><br><font>Snippet {i} of the "
            f"result.</font><br><font color='green'>www.site{i}.com</font> <a href='/c{i}'>Cached</a>"
            "</td></tr></table>"
        )

    header = "<table><tr><td><font><a href='/p1'>1</a> results 1-6 of 60</font></td></tr></table>"
    footer = "<table><tr><td><font><a href='/terms'>Terms</a></font></td></tr></table>"
    p = page("<div id='res'>" + header + "".join(rec(i) for i in range(6)) + footer + "</div>")
    div = p.index(p.root.xpath("//div[@id='res']")[0])
    groups = [(k,) for k in p.children[div]]
    assert len(groups) == 8
    assert _trim_edges(p, groups, 0.5) == (1, 7)
    # records are kept when they resemble their neighbour or the middle record
    assert _trim_edges(p, groups[1:7], 0.5) == (0, 6)
    # a pair is never trimmed
    assert _trim_edges(p, groups[:2], 0.5) == (0, 2)
    assert "trim_edges" in PROFILES["recommended"] and PROFILES["paper"]["trim_edges"] is None


def test_demote_fillers_halves_a_region_padded_with_spacer_rows():
    from scrapy_records.extractors.stem.extractor import _demote_fillers

    rows = "".join(
        f"<tr><td><a href='/w{i}'>Wine number {i}</a> Red wine from region {i}, 75cl</td></tr>"
        "<tr><td><img src='s.gif'></td></tr>"
        for i in range(6)
    )
    p = page(f"<table id='t'>{rows}</table>")
    table = p.index(p.root.xpath("//table")[0])
    kids = p.children[table]
    content, spacers = kids[0::2], kids[1::2]
    coarse = (10.0, table, [(k,) for k in content], [1.0] * 6, 0.9, {"drp_index": 0})
    fine = (12.0, table, [(k,) for k in kids], [1.0] * 12, 0.8, {"drp_index": 1})
    other = (11.0, table, [(k,) for k in spacers], [1.0] * 6, 0.7, {"drp_index": 2})
    cands = [coarse, fine, other]
    _demote_fillers(p, cands, 0.25)
    assert cands[0] == coarse and cands[2] == other
    assert cands[1][0] == 6.0 and cands[1][4] == 0.4 and cands[1][5]["fillers_of"] == 0
    # extra rows with as much text as the others are records, not fillers
    rows2 = "".join(
        f"<tr><td><a href='/w{i}'>Wine number {i}</a> Red wine from region {i}</td></tr>"
        for i in range(12)
    )
    q = page(f"<table>{rows2}</table>")
    t2 = q.index(q.root.xpath("//table")[0])
    k2 = q.children[t2]
    cands = [
        (10.0, t2, [(k,) for k in k2[0::2]], [1.0] * 6, 0.9, {"drp_index": 0}),
        (12.0, t2, [(k,) for k in k2], [1.0] * 12, 0.8, {"drp_index": 1}),
    ]
    _demote_fillers(q, cands, 0.25)
    assert cands[1][4] == 0.8 and "fillers_of" not in cands[1][5]


def test_trim_edges_keeps_a_last_record_that_swallowed_trailing_content():
    from scrapy_records.extractors.stem.extractor import _trim_edges

    def rec(i: int, extra: str = "") -> str:
        return (
            f"<div class='r'><h3><a href='/r{i}'>Review {i}</a></h3><p>8 Food 7 Service</p>"
            f"<p>Text of review {i}.</p>{extra}</div>"
        )

    box = (
        "<div class='more'><ul>"
        + "".join(f"<li><a href='/o{j}'>Other {j}</a></li>" for j in range(8))
        + "</ul></div>"
    )
    p = page("<div id='res'>" + "".join(rec(i) for i in range(5)) + rec(5, box) + "</div>")
    div = p.index(p.root.xpath("//div[@id='res']")[0])
    groups = [(k,) for k in p.children[div]]
    assert _trim_edges(p, groups, 0.5) == (0, 6)
    # the same box as the first record is not a record that holds a record: trimmed
    q = page(
        "<div id='res'>"
        + rec(9, box).replace("<h3>", "<h4>", 1).replace("</h3>", "</h4>", 1)
        + "".join(rec(i) for i in range(5))
        + "</div>"
    )
    div = q.index(q.root.xpath("//div[@id='res']")[0])
    groups = [(k,) for k in q.children[div]]
    assert _trim_edges(q, groups, 0.5) == (1, 6)


# ------------------------------------------------------ systematic gaps (attach_gaps, ours)
def _two_row_results(n: int, header: bool = True) -> str:
    """An old shop listing: each result is a title row and a price row (Amazon, 2003)."""
    head = f"<tr><td colspan=2><b>Results 1 - {n:d}</b></td></tr>" if header else ""
    rows = "".join(
        f"<tr><td><font><b><a href='/dp/{i}'>{i}. Book title number {i}</a></b></font></td>"
        f"<td><font>by Author {i}</font></td></tr>"
        f"<tr><td><font>Our Price: ${i}.95</font><br><font>Usually ships in 24 hours</font></td></tr>"
        for i in range(1, n + 1)
    )
    return f"<table id='results'>{head}{rows}</table>"


def test_systematic_gaps_join_the_record_before_them():
    p = page(_two_row_results(8))
    main = extract(p, extractor="stem").main
    assert len(main.records) == 8
    assert all(len(r.xpaths) == 2 for r in main.records)
    assert (
        main.records[0].text
        == "1. Book title number 1 by Author 1 Our Price: $1.95 Usually ships in 24 hours"
    )
    assert main.records[-1].text.endswith("Our Price: $8.95 Usually ships in 24 hours")
    assert all("Results 1 - 8" not in r.text for r in main.records)  # the header is no record
    # without the option (the paper's Eq. 2) every price row is a gap record of its own
    lit = extract(p, extractor="stem", attach_gaps=False).main
    assert len(lit.records) == 16 and all(len(r.xpaths) == 1 for r in lit.records)
    assert lit.records[1].text == "Our Price: $1.95 Usually ships in 24 hours"


def test_gaps_that_are_records_of_their_own_stay_records():
    # every other result carries an extra image: the exact matches alternate with near copies
    recs = []
    for i in range(10):
        extra = "<img src='t.png'>" if i % 2 else ""
        recs.append(
            f"<div class='r'><h3><a href='/r{i}'>Result {i}</a></h3>{extra}"
            f"<p>Snippet {i} with some words</p><span>site{i}.com</span></div>"
        )
    main = extract(page("<div id='res'>" + "".join(recs) + "</div>"), extractor="stem").main
    assert len(main.records) == 10 and all(len(r.xpaths) == 1 for r in main.records)


def test_separator_rows_do_not_swallow_the_records_between_them():
    rows = "".join(
        f"<tr><td><a href='/b{i}'>Book {i}</a> by Author {i}, $1{i}.99</td></tr>"
        "<tr><td><img src='line.gif'></td></tr>"
        for i in range(10)
    )
    main = extract(page(f"<table>{rows}</table>"), extractor="stem").main
    texts = [r.text for r in main.records]
    assert len(texts) == 10 and texts[0].startswith("Book 0 by Author 0")


def test_prefer_core_halves_a_region_that_is_another_plus_chrome_at_its_edges():
    from scrapy_records.extractors.stem.extractor import _prefer_core

    # a metasearch page (mamma.com, 2004): header boxes built with the same one-cell tables
    # as the results; a short DRP cuts them with the results, the full pattern the results only
    boxes = "".join(f"<table><tr><td>box {i}</td></tr></table>" for i in range(3))
    res = "".join(
        f"<table><tr><td><a href='/r{k}'>Result {k}</a> snippet</td></tr></table>" for k in range(8)
    )
    p = page(boxes + res)
    kids = p.children[p.body]
    loose = (20.0, p.body, [(k,) for k in kids], [1.0] * 11, 0.8, {"drp_index": 0})
    core = (18.0, p.body, [(k,) for k in kids[3:]], [1.0] * 8, 0.95, {"drp_index": 1})
    cands = [loose, core]
    _prefer_core(cands)
    assert cands[1] == core
    assert cands[0][0] == 10.0 and cands[0][4] == 0.4 and cands[0][5]["chrome_of"] == 1
    # extra records between the core's records are records with a missing field: kept
    mixed = (20.0, p.body, [(k,) for k in kids], [1.0] * 11, 0.8, {"drp_index": 0})
    core2 = (18.0, p.body, [(k,) for k in kids[0:3] + kids[5:]], [1.0] * 9, 0.95, {"drp_index": 1})
    cands = [mixed, core2]
    _prefer_core(cands)
    assert cands[0] == mixed


def test_runs_of_variant_records_between_exact_matches_stay_records():
    # a modern product grid: every 3rd card has an old price, every 4th a badge, so exact
    # matches of the DRP alternate with runs of one to three variant cards; each card is a
    # record (a gap holding several near copies of the DRP is records, not a tail)
    def card(i: int) -> str:
        old = f"<span class='old'>${50 + i}.99</span>" if i % 3 == 0 else ""
        badge = "<span class='badge'>New</span>" if i % 4 == 0 else ""
        return (
            f"<li class='card'><a href='/p/{i}'><div class='img'><img src='/i/{i}.jpg'></div>"
            f"<h2>Headphones model {i}</h2></a>{badge}<div class='rating'><span>({10 + i})</span></div>"
            f"<div class='price'>{old}<span class='now'>${20 + i}.99</span></div><button>Add to cart</button></li>"
        )

    p = page("<main><ul class='products'>" + "".join(card(i) for i in range(24)) + "</ul></main>")
    main = extract(p, extractor="stem").main
    assert len(main.records) == 24 and all(len(r.xpaths) == 1 for r in main.records)
    assert main.records[5].text.startswith("Headphones model 5")
