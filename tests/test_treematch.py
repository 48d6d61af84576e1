"""The shared simple tree matching (:class:`scrapy_records.treematch.STM`, digest gstm.md
§2.2/§3.2): scores, traceback tie-breaks, class tie-break and the two LCS budgets."""

from __future__ import annotations

import pytest

from scrapy_records.treematch import STM, Matcher, Shapes

BIG = 1 << 20


def build(
    shapes: Shapes, spec: str, labels: dict[str, int], sigs: dict[str, int] | None = None
) -> int:
    """Shape of ``a(b(c),d)`` where a label may carry a sig: ``span.price``."""
    m = Matcher()
    tree = m.from_spec(spec.replace(".", "_"))
    # re-intern the matcher's tree into ``shapes`` (iteratively, children first)
    order, stack = [], [tree]
    while stack:
        x = stack.pop()
        order.append(x)
        stack.extend(m.s_children[x])
    out: dict[int, int] = {}
    for x in reversed(order):
        name = m.label_names[m.s_label[x]]
        tag, _, cls = name.partition("_")
        lab = labels.setdefault(tag, len(labels))
        sig = (sigs or {}).get(cls, 0) if cls else 0
        out[x] = shapes.intern(lab, tuple(out[c] for c in m.s_children[x]), sig)
    return out[tree]


def test_score_counts_the_maximum_top_down_matching():
    S, L = Shapes(), {}
    a = build(S, "a(b(c,d),e)", L)
    b = build(S, "a(b(d),f,e)", L)
    stm = STM(S)
    assert stm.score(a, b) == 4  # a, b, d, e
    assert stm.score(a, a) == S.size[a] == 5
    assert stm.score(a, build(S, "x(b(c,d),e)", L)) == 0  # roots differ: nothing matches
    assert stm.pairs(a, b) == ((0, 0), (1, 2))


def test_traceback_tie_break_diagonal_versus_skip():
    S, L = Shapes(), {}
    two = build(S, "a(x,x)", L)
    one = build(S, "a(x)", L)
    # equal matchings: the paper's order (match first) pairs the last x, "skip" the first
    assert STM(S, tie="diagonal").pairs(two, one) == ((1, 0),)
    assert STM(S, tie="skip").pairs(two, one) == ((0, 0),)
    with pytest.raises(ValueError):
        STM(S, tie="left")


def test_eager_single_row_and_column_pairs_equal_the_dp_traceback():
    # one child against several (and back): solved without the DP, same pairs and scores
    S, L = Shapes(), {}
    one = build(S, "a(x(y))", L)
    many = build(S, "a(z,x,x(y),w,x(y))", L)
    for tie, first in (("skip", 2), ("diagonal", 4)):
        # "pairs" mode without budgets: pairs() solves the pair (exactly) and keeps its traceback
        lazy, eager = STM(S, tie=tie), STM(S, tie=tie, eager=True, approx="pairs")
        assert eager.pairs(one, many) == lazy.pairs(one, many) == ((0, first),)
        assert eager.pairs(many, one) == lazy.pairs(many, one) == ((first, 0),)
        assert eager.score(one, many) == lazy.score(one, many) == 3
    none = build(S, "a(z,w)", L)
    assert STM(S, tie="skip", eager=True, approx="pairs").pairs(one, none) == ()


def test_class_tie_break_prefers_the_equal_signature():
    S, L = Shapes(), {}
    sigs = {"old": 1, "price": 2}
    rec = build(S, "div(span.old,span.price)", L, sigs)
    other = build(S, "div(span.price)", L, sigs)
    plain = STM(S, tie="skip")
    tied = STM(S, unit=BIG, sig_bonus=1, tie="skip")
    assert plain.pairs(rec, other) == ((0, 0),)  # tags only: the leftmost span
    assert tied.pairs(rec, other) == ((1, 0),)  # span.price goes with span.price
    assert tied.score(rec, other) == 2 * BIG + 2  # two nodes matched, both signatures agree
    assert tied.self_score(rec) == 3 * (BIG + 1)


def test_score_budget_uses_lcs_of_preorder_labels():
    S, L = Shapes(), {}
    a = build(S, "a(b(c))", L)
    b = build(S, "a(c)", L)
    exact = STM(S)
    approx = STM(S, approx="score", max_size_product=5)
    assert exact.score(a, b) == 1  # b and c differ: only the roots match
    assert approx.score(a, b) == 2  # LCS("abc", "ac"), an upper bound
    assert approx.approximated == 1 and exact.approximated == 0
    # a custom pre-order string source (MiBAT slices the page arrays)
    seen = []
    custom = STM(
        S, approx="score", max_size_product=5, seq=lambda s: seen.append(s) or S.preorder(s)
    )
    assert custom.score(a, b) == 2 and sorted(seen) == sorted([a, b])
    # tracebacks stay exact at the level of children
    assert approx.pairs(a, b) == ()


def test_pairs_budget_aligns_children_by_lcs():
    S, L = Shapes(), {}
    a = build(S, "r(b(x,x,x),c,c)", L)
    b = build(S, "r(c,c,b(x,x,x))", L)
    exact = STM(S, tie="skip", approx="pairs", max_node_cells=100)
    assert exact.score(a, b) == 5 and exact.pairs(a, b) == ((0, 2),)
    cheap = STM(S, tie="skip", approx="pairs", max_node_cells=4)
    assert cheap.score(a, b) == 3 and cheap.pairs(a, b) == ((1, 0), (2, 1))
    assert cheap.approximated == 1 and cheap.cells == 0
    # a spent cell budget switches later pairs to the LCS alignment too
    spent = STM(S, tie="skip", approx="pairs", max_node_cells=100, max_cells=0)
    spent.cells = 1
    assert spent.score(a, b) == 3


def test_symmetric_memo_keeps_one_entry_per_pair():
    S, L = Shapes(), {}
    a = build(S, "a(b(c,d),e)", L)
    b = build(S, "a(b(d),f,e)", L)
    stm = STM(S, symmetric=True)
    assert stm.score(a, b) == stm.score(b, a) == 4
    assert sum(1 for k in stm.memo if set(k) == {a, b}) == 1


def test_deep_trees_do_not_recurse():
    S = Shapes()
    depth = 30_000
    leaf_a, leaf_b = S.intern(1, ()), S.intern(2, ())
    a, b = leaf_a, leaf_b
    for _ in range(depth):
        a, b = S.intern(0, (a,)), S.intern(0, (b,))
    stm = STM(S)
    assert stm.score(a, b) == depth
    assert len(S.preorder(a)) == depth + 1
    assert STM(S, approx="score", max_size_product=10).score(a, b) == depth  # LCS of the chains


def test_gstm_baseline_is_the_shared_stm():
    M = Matcher()
    a = M.from_spec("a(b(c,d),e)")
    b = M.from_spec("a(b(d),f,e)")
    assert M.stm(a, b) == STM(M.shapes).score(a, b) == 4


def test_intern_elements_gives_equal_shapes_to_equal_subtrees():
    from scrapy_records.page import Page

    page = Page(
        "<html><body><ul><li><a>x</a><b>1</b></li><li><a>y</a><b>2</b></li>"
        "<li><a>z</a></li></ul></body></html>"
    )
    S = Shapes()
    shape, rep = S.intern_elements(page.tag_id, page.children, page.end)
    lis = [i for i, t in enumerate(page.tag) if t == "li"]
    assert shape[lis[0]] == shape[lis[1]] != shape[lis[2]]  # text does not count
    assert S.size[shape[lis[0]]] == 3 and S.size[shape[lis[2]]] == 2
    assert all(shape[i] == s for s, i in rep.items()) and len(rep) == len(S)
    ul = page.tag.index("ul")
    assert STM(S).score(shape[lis[0]], shape[lis[2]]) == 2
    assert S.preorder(shape[ul]) == page.tag_id[ul : page.end[ul] + 1]
