"""Tree matching: simple tree matching (STM) and G-STM, its extension to lists.

Modules: :mod:`~scrapy_records.treematch.shapes` (sub-trees interned as shapes, so results
are memoised per shape pair), :mod:`~scrapy_records.treematch.stm` (:class:`STM`, used by
G-STM, field alignment and MiBAT), :mod:`~scrapy_records.treematch.grammar` (list
grammars and record segmentation), :mod:`~scrapy_records.treematch.gstm`
(:class:`Matcher`: G-STM with its list detection), :mod:`~scrapy_records.treematch.pagetree`
(a page as shapes). Evaluation is iterative everywhere: deep pages never recurse.
"""

from scrapy_records.treematch.grammar import Grammar, flatten, grammar_generation, render, segment
from scrapy_records.treematch.gstm import (
    DEFAULT_MAX_CELLS,
    DEFAULT_MAX_NODE_CELLS,
    TAU1,
    TAU2,
    TEXT,
    Detail,
    ListGroup,
    Matcher,
)
from scrapy_records.treematch.pagetree import PageTree
from scrapy_records.treematch.shapes import Shapes
from scrapy_records.treematch.stm import STM, diagonal_first_traceback, stm_rows

__all__ = [
    "Shapes",
    "STM",
    "stm_rows",
    "diagonal_first_traceback",
    "TAU1",
    "TAU2",
    "TEXT",
    "DEFAULT_MAX_CELLS",
    "DEFAULT_MAX_NODE_CELLS",
    "Grammar",
    "grammar_generation",
    "render",
    "segment",
    "flatten",
    "Detail",
    "ListGroup",
    "PageTree",
    "Matcher",
]
