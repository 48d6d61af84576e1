"""The selector forms a wrapper may hold: an allow-list, checked when a document loads.

Wrapper documents come from stores other processes write (a shared Redis or directory
store, a spider yielding a ``WrapperItem``), so a selector is untrusted input: one XPath
with nested location paths (``//*[count(//*[count(//*)>0])>0]``) costs the fourth power of
the page's size on every page. :func:`check_xpath` parses an XPath (the XPath 1.0
grammar) and accepts only the forms the inducers write:

* a union of location paths (a node-set: never a number, a string or a boolean), absolute
  (``/html/body/...``, ``//tag[...]``) or relative to the record, optionally one
  parenthesised path with predicates first (``(path)[1]/tag[2]``);
* axes ``child``, ``descendant(-or-self)`` (``//``), ``self``, ``attribute`` (``@``),
  ``parent`` (``..``), and ``following-sibling``, ``preceding-sibling`` and ``following``
  only with a position predicate (``following-sibling::*[2]``: the scan stops there);
* node tests: names, ``*``, ``text()``, ``node()``;
* predicates made of positions (``[3]``, ``position() >= 2 and position() <= 9``,
  ``(position() - 2) mod 3 = 0``, ``last()``), ``@attr``, ``@attr='literal'``,
  ``contains(concat(' ', normalize-space(@class), ' '), ' x ')``,
  ``normalize-space(...)='literal'``, ``starts-with(normalize-space(.), 'literal')``,
  ``name()='tag'``, ``not(...)``, ``and``/``or``, and relative location paths one level
  deep (``[self::h2]``, ``[not(parent::script)]``, ``[.//text()[normalize-space()='x']]``)
  whose own predicates hold at most a short child path (``[self::*[text()[...='x']]]``);
* a value cut out of a node's text: ``normalize-space``, ``string``, ``concat``,
  ``substring-after``/``substring-before`` and ``translate`` of literals and of location
  paths of these forms (DCADE's value between two labels in one text; a text run between
  two elements, ``substring-before(string(div[2]), string(div[2]/div))``);
* a guard on the root element: ``/html[not(P)]//...``, ``P`` an absolute path of these
  forms (evaluated once: the fallback of a value anchored by ``P``);
* bounded sizes: :data:`MAX_LENGTH` characters, :data:`MAX_STEPS` steps a path,
  :data:`MAX_UNION` paths a union, :data:`MAX_PREDICATES` predicates a step,
  :data:`MAX_NESTING` levels of sub-expressions, :data:`MAX_OPERANDS` operands a chain.

Anything else raises :class:`~scrapy_records.errors.WrapperError` naming the problem. The
allowed forms cost at most a few passes over the page each; what remains (a step that is
not a child step over many context nodes) is bounded when the wrapper is applied
(:class:`XPathInfo`, :mod:`scrapy_records.wrappers.apply`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lxml import etree

from scrapy_records.errors import WrapperError

#: Longest XPath accepted (characters).
MAX_LENGTH = 32768
#: Most paths in a union (the last-resort record selector lists every record's path).
MAX_UNION = 1000
#: Most location steps in one path.
MAX_STEPS = 64
#: Most predicates on one step.
MAX_PREDICATES = 8
#: Longest string literal.
MAX_LITERAL = 1024
#: Largest number literal (positions).
MAX_NUMBER = 10**7
#: Deepest nesting of sub-expressions (parentheses, predicates, function arguments).
MAX_NESTING = 32
#: Most operands one chain of operators joins (``a or b or ...``).
MAX_OPERANDS = 64

#: Axes a step may take; the scanning ones need a position predicate (module docstring).
AXES = frozenset(
    {
        "child",
        "descendant",
        "descendant-or-self",
        "self",
        "attribute",
        "parent",
        "following-sibling",
        "preceding-sibling",
        "following",
    }
)
SCANNING_AXES = frozenset({"following-sibling", "preceding-sibling", "following"})
#: Axes a path inside a predicate may take (it is evaluated once per candidate node).
NESTED_AXES = frozenset(
    {"child", "descendant", "descendant-or-self", "self", "attribute", "parent"}
)
NODE_TYPES = frozenset({"text", "node"})
FUNCTIONS = frozenset(
    {"contains", "concat", "normalize-space", "not", "starts-with", "position", "last", "name"}
    | {"substring-after", "substring-before", "translate", "string"}  # (see top())
)
#: Functions of a gap expression (one value of a text that holds several, DCADE).
GAP_FUNCTIONS = frozenset(
    {"normalize-space", "concat", "substring-after", "substring-before", "translate", "string"}
)

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>\d+(?:\.\d*)?|\.\d+)
    | (?P<lit>"[^"]*"|'[^']*')
    | (?P<op>//|::|\.\.|!=|<=|>=|[/()\[\]@,|=<>+\-*.$])
    | (?P<name>[A-Za-z_][\w.\-]*(?::(?:\*|[A-Za-z_][\w.\-]*))?)
    )""",
    re.X,
)
_OPERATOR_NAMES = frozenset({"and", "or", "mod", "div"})


def _fail(xpath: str, msg: str) -> WrapperError:
    shown = xpath if len(xpath) <= 120 else xpath[:117] + "..."
    return WrapperError(f"XPath {shown!r} is not an allowed selector: {msg}")


def tokenize(xpath: str) -> list[tuple[str, str, int]]:
    """``(kind, text, offset)`` tokens; ``kind`` is ``num``, ``lit``, ``op``, ``name`` or,
    for ``*``/``and``/``or``/``mod``/``div`` read as operators (XPath 1.0, section 3.7),
    ``binop``."""
    out: list[tuple[str, str, int]] = []
    pos, n = 0, len(xpath)
    blank_from = len(xpath.rstrip())  # only blanks from there ("".isspace() is False)
    while pos < n:
        if pos >= blank_from:
            break
        m = _TOKEN.match(xpath, pos)
        if m is None or m.end() == pos:
            raise _fail(xpath, f"unexpected character {xpath[pos:].lstrip()[:1]!r}")
        kind = m.lastgroup or ""
        text = m.group(kind)
        start, pos = m.start(kind), m.end()
        prev = out[-1] if out else None
        # after a token that ends an operand, '*' and these names are operators
        operand_before = prev is not None and not (
            prev[0] in ("op", "binop") and prev[1] not in (")", "]", ".", "..")
        )
        if operand_before and (text == "*" or (kind == "name" and text in _OPERATOR_NAMES)):
            kind = "binop"
        out.append((kind, text, start))
    return out


@dataclass
class Step:
    axis: str
    test: str  # a name, "*", "text()" or "node()"
    predicates: list[Any]
    at: int = -1  # offset of the "/" or "//" before the step (-1: the path's first step)


@dataclass
class Path:
    absolute: bool
    steps: list[Step]
    #: a parenthesised expression with predicates the steps start from (``(p)[1]/a``)
    head: Any = None
    head_predicates: Any = None
    start: int = 0  # offset of the path's first character


class _Parser:
    """Recursive descent over the XPath 1.0 grammar; builds tuples and :class:`Path`\\ s."""

    def __init__(self, xpath: str) -> None:
        self.xpath = xpath
        self.toks = tokenize(xpath)
        self.i = 0
        self.depth = 0

    # -- token helpers
    def peek(self, k: int = 0) -> tuple[str, str]:
        j = self.i + k
        return self.toks[j][:2] if j < len(self.toks) else ("end", "")

    def offset(self) -> int:
        return self.toks[self.i][2] if self.i < len(self.toks) else len(self.xpath)

    def take(self) -> tuple[str, str]:
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text: str) -> None:
        t = self.take()
        if t[1] != text or t[0] in ("lit", "num"):
            raise _fail(self.xpath, f"expected {text!r}, found {t[1] or 'the end'!r}")

    def at(self, *texts: str) -> bool:
        if self.i >= len(self.toks):
            return False
        k, t, _ = self.toks[self.i]
        return t in texts and k in ("op", "binop")

    # -- expressions
    def parse(self) -> Any:
        e = self.expr()
        if self.peek()[0] != "end":
            raise _fail(self.xpath, f"unexpected {self.peek()[1]!r}")
        return e

    def expr(self) -> Any:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _fail(self.xpath, f"sub-expressions nested more than {MAX_NESTING} deep")
        e = self.binary(0)
        self.depth -= 1
        return e

    _LEVELS: tuple[tuple[str, ...], ...] = (
        ("or",),
        ("and",),
        ("=", "!="),
        ("<", "<=", ">", ">="),
        ("+", "-"),
        ("*", "div", "mod"),
    )
    #: each operator's level (binding tighter as it grows)
    _LEVEL = {op: k for k, ops in enumerate(_LEVELS) for op in ops}

    def level(self) -> int:
        """The level of the operator at the cursor; -1 when there is none."""
        if self.i >= len(self.toks):
            return -1
        kind, text, _ = self.toks[self.i]
        return self._LEVEL.get(text, -1) if kind in ("op", "binop") else -1

    def binary(self, level: int, left: Any = None) -> Any:
        """The operators of ``level`` and tighter, left-associative, after the operand
        ``left`` (parsed here when ``None``): precedence climbing, an operand is parsed
        once, not once per level. At most :data:`MAX_OPERANDS` operands in a chain of one
        level."""
        if left is None:
            left = self.unary()
        operands = [1] * len(self._LEVELS)  # the current chain's operands, per level
        lv = self.level()
        while lv >= level:
            op = self.take()[1]
            operands[lv] += 1
            if operands[lv] > MAX_OPERANDS:
                raise _fail(self.xpath, f"more than {MAX_OPERANDS} operands of {op!r}")
            for k in range(lv + 1, len(operands)):
                operands[k] = 1  # (a looser operator ends the tighter chains)
            right = self.unary()
            if self.level() > lv:
                right = self.binary(lv + 1, right)
            left = ("op", op, left, right)
            lv = self.level()
        return left

    def unary(self) -> Any:
        if self.at("-"):
            self.take()
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise _fail(self.xpath, "a chain of minus signs")
            e = ("neg", self.unary())
            self.depth -= 1
            return e
        first = self.path_expr()
        if not self.at("|"):
            return first
        branches = [first]
        while self.at("|"):
            self.take()
            branches.append(self.path_expr())
        return ("union", branches)

    def path_expr(self) -> Any:
        start = self.offset()
        path = self.primary_or_path()
        if isinstance(path, Path):
            path.start = start
        return path

    def primary_or_path(self) -> Any:
        kind, text = self.peek()
        if kind == "num":
            self.take()
            return ("num", float(text))
        if kind == "lit":
            self.take()
            return ("lit", text[1:-1])
        if text == "$":
            raise _fail(self.xpath, "variables are not allowed")
        if text == "(" and kind == "op":
            self.take()
            inner = self.expr()
            self.expect(")")
            preds = self.predicates()
            if self.at("/", "//"):
                return Path(False, self.relative(), inner, preds)
            return ("group", inner, preds) if preds else inner
        if kind == "name" and self.peek(1)[1] == "(" and text not in NODE_TYPES:
            return self.call()
        if text in ("/", "//") and kind == "op":
            if text == "/" and not self.starts_step(1):
                self.take()
                return Path(True, [])
            return Path(True, self.relative())
        return Path(False, self.relative())

    def call(self) -> Any:
        name = self.take()[1]
        if name not in FUNCTIONS:
            raise _fail(self.xpath, f"function {name}() is not allowed")
        self.expect("(")
        args = []
        if not self.at(")"):
            args.append(self.expr())
            while self.at(","):
                self.take()
                args.append(self.expr())
        self.expect(")")
        return ("call", name, args)

    def starts_step(self, k: int = 0) -> bool:
        kind, text = self.peek(k)
        return kind == "name" or (kind in ("op", "binop") and text in ("@", ".", "..", "*"))

    def relative(self) -> list[Step]:
        """Steps, each with the offset of the separator before it (a leading "/" or "//"
        included: a "//" is a descendant-or-self step of its own)."""
        steps: list[Step] = []
        at = -1
        while True:
            if self.at("/", "//"):
                at = self.offset()
                if self.take()[1] == "//":
                    steps.append(Step("descendant-or-self", "node()", [], at))
            st = self.step()
            st.at = at
            steps.append(st)
            if not self.at("/", "//"):
                return steps

    def step(self) -> Step:
        kind, text = self.peek()
        if kind == "op" and text in (".", ".."):
            self.take()
            return Step("self" if text == "." else "parent", "node()", self.predicates())
        axis = "child"
        if kind == "op" and text == "@":
            self.take()
            axis = "attribute"
        elif kind == "name" and self.peek(1)[1] == "::":
            axis = self.take()[1]
            self.take()
            if axis not in AXES:
                raise _fail(self.xpath, f"axis {axis}:: is not allowed")
        kind, text = self.take()
        if not (kind == "name" or (kind in ("op", "binop") and text == "*")):
            raise _fail(self.xpath, f"expected a node test, found {text or 'the end'!r}")
        if kind == "name" and self.at("("):
            if text not in NODE_TYPES:
                raise _fail(self.xpath, f"node test {text}() is not allowed")
            self.take()
            self.expect(")")
            text += "()"
        return Step(axis, text, self.predicates())

    def predicates(self) -> list[Any]:
        preds = []
        while self.at("["):
            self.take()
            preds.append(self.expr())
            self.expect("]")
        return preds


@dataclass(frozen=True)
class XPathInfo:
    """What the work budget of application (:mod:`scrapy_records.wrappers.budget`) needs
    to know about an allowed XPath. Each path of it runs from one context node (the page
    root or one record); libxml2's work from there:

    * child, attribute and self steps go down one level each: a path of them visits each
      node of the page at most once (``passes`` is 1), each ``..`` (parent step) or
      descendant/``following`` step from the one context node may start another pass
      over the page (``passes``; ``ups`` and ``deep`` count them apart);
    * a sibling step that does not stop early (its only predicate a number: libxml2 stops
      the axis there) visits all siblings (``sibling_scans``);
    * a step that is not a child step, run from a context set that may hold several nodes
      (``//a//b``, ``//a/..``): libxml2 merges the results of every context node with a
      duplicate check, quadratic in the worst case; ``spread`` holds the path before each
      such step, whose node count application measures first;
    * predicates run once per candidate node: ``nested_max`` is the most steps of paths
      inside one step's predicates, ``nested_deep`` counts their descendant steps (which
      visit the candidate's sub-tree).

    ``contained``: one relative path of child, attribute and self steps only (it selects
    inside the record: it can run over all records at once).
    """

    contained: bool
    steps: int
    passes: int = 1
    ups: int = 0
    deep: int = 0
    sibling_scans: int = 0
    nested_max: int = 0
    nested_deep: int = 0
    spread: tuple[str, ...] = ()


def _is_number(e: Any) -> bool:
    return isinstance(e, tuple) and e[0] == "num"


def _stops_early(st: Step) -> bool:
    """libxml2 stops an axis at the position when the step's only predicate is a number."""
    return len(st.predicates) == 1 and _is_number(st.predicates[0])


_DEEP_AXES = frozenset({"descendant", "descendant-or-self", "following"})
#: Axes of a path nested two predicates deep: a node's own children and attributes.
_NEAR = frozenset({"child", "self", "attribute"})


class _Checker:
    def __init__(self, xpath: str) -> None:
        self.xpath = xpath
        self.counts = {
            "steps": 0,
            "passes": 0,
            "ups": 0,
            "deep": 0,
            "sibling_scans": 0,
            "nested_deep": 0,
        }
        self.nested_max = 0
        self.nested_here = 0  # steps inside the predicates of the current main step
        self.spread: list[str] = []
        self.inner = False  # checking a path inside a nested path's predicate

    def fail(self, msg: str) -> WrapperError:
        return _fail(self.xpath, msg)

    # -- the top level: a node-set
    def top(self, e: Any) -> XPathInfo:
        if isinstance(e, tuple) and e[0] == "call" and e[1] in GAP_FUNCTIONS:
            contained = self.gap(e, 0)
            return XPathInfo(
                contained, spread=tuple(self.spread), nested_max=self.nested_max, **self.counts
            )
        branches = e[1] if isinstance(e, tuple) and e[0] == "union" else [e]
        if len(branches) > MAX_UNION:
            raise self.fail(f"a union of more than {MAX_UNION} paths")
        contained = len(branches) == 1
        for b in branches:
            self.counts["passes"] += 1
            contained = self.node_set(b) and contained
        return XPathInfo(
            contained, spread=tuple(self.spread), nested_max=self.nested_max, **self.counts
        )

    def gap(self, e: Any, depth: int) -> bool:
        """A string expression cutting one value out of a node's text: ``normalize-space``,
        ``concat``, ``substring-after``/``-before`` and ``translate`` of literals and of
        location paths (each checked as a path of the top level, read once)."""
        if depth > MAX_NESTING:
            raise self.fail(f"nested more than {MAX_NESTING} deep")
        if isinstance(e, tuple) and e[0] == "lit":
            self.literal(e)
            return True
        if isinstance(e, tuple) and e[0] == "call" and e[1] in GAP_FUNCTIONS:
            if not 1 <= len(e[2]) <= 8:
                raise self.fail(f"{e[1]}() with {len(e[2])} arguments")
            contained = True
            for a in e[2]:
                contained = self.gap(a, depth + 1) and contained
            return contained
        if isinstance(e, Path) or (isinstance(e, tuple) and e[0] == "union"):
            contained = True
            for b in e[1] if isinstance(e, tuple) else [e]:
                self.counts["passes"] += 1
                contained = self.node_set(b) and contained
            return contained
        raise self.fail(f"{_show(e)} is not allowed in a string expression")

    def node_set(self, e: Any) -> bool:
        """Check one path of the top level; True when it is contained (see XPathInfo)."""
        if isinstance(e, tuple) and e[0] == "group":
            self.node_set(e[1])
            self.main_predicates(e[2])
            return False
        if not isinstance(e, Path):
            raise self.fail("it does not select nodes (a number, string or boolean)")
        if e.head is not None:
            if not isinstance(e.head, Path):
                raise self.fail("a parenthesised expression that is not one path")
            self.node_set(e.head)
            self.main_predicates(e.head_predicates)
        if len(e.steps) > MAX_STEPS:
            raise self.fail(f"more than {MAX_STEPS} steps")
        contained = not e.absolute and e.head is None
        many = e.head is not None  # may the context set hold several nodes here?
        for k, st in enumerate(e.steps):
            if k == 0 and self.root_guard(e, st):
                continue
            self.step(st, nested=False)
            if st.axis not in ("child", "attribute", "self"):
                contained = False
                self.cost(st, many, e.start)
            many = many or st.axis not in ("self", "parent")
        return contained

    def root_guard(self, e: Path, st: Step) -> bool:
        """``/html[not(P)]...``: a fallback taken when the absolute path ``P`` selects
        nothing (DCADE's anchored values). The root element is one node, so ``P`` runs
        once per page: it is checked as a path of the top level (one more pass)."""
        if not (e.absolute and st.axis == "child" and st.test == "html" and st.predicates):
            return False
        guards = []
        for p in st.predicates:
            if not (isinstance(p, tuple) and p[0] == "call" and p[1] == "not" and len(p[2]) == 1):
                return False
            inner = p[2][0]
            if not (isinstance(inner, Path) and inner.absolute and inner.head is None):
                return False
            guards.append(inner)
        self.counts["steps"] += 1
        for inner in guards:
            self.counts["passes"] += 1
            self.node_set(inner)
        return True

    def cost(self, st: Step, many: bool, start: int) -> None:
        """Count a main-path step that is not a child step (see XPathInfo)."""
        if many:
            self.spread.append(self.xpath[start : st.at])
        elif st.axis in _DEEP_AXES:
            self.counts["deep"] += 1
            self.counts["passes"] += 1
        elif st.axis == "parent":
            self.counts["ups"] += 1
            self.counts["passes"] += 1
        elif st.axis in SCANNING_AXES and not _stops_early(st):
            self.counts["sibling_scans"] += 1

    def main_predicates(self, preds: list[Any]) -> None:
        self.nested_here = 0
        for p in preds:
            self.predicate(p, nested=False)
        self.nested_max = max(self.nested_max, self.nested_here)

    def step(self, st: Step, nested: bool) -> None:
        if nested:
            self.nested_here += 1
            if st.axis in _DEEP_AXES:
                self.counts["nested_deep"] += 1
        else:
            self.counts["steps"] += 1
        axes = NESTED_AXES if nested else AXES
        if st.axis not in axes:
            raise self.fail(f"axis {st.axis}:: is not allowed {'in a predicate' if nested else ''}")
        if len(st.predicates) > MAX_PREDICATES:
            raise self.fail(f"more than {MAX_PREDICATES} predicates on a step")
        if st.axis in SCANNING_AXES and not any(
            _is_number(p) for p in (st.predicates[:1] + st.predicates[-1:])
        ):
            raise self.fail(f"a {st.axis}:: step without a position predicate ([1])")
        if nested:
            for p in st.predicates:
                self.predicate(p, nested)
        else:
            self.main_predicates(st.predicates)

    # -- predicates
    def predicate(self, e: Any, nested: bool) -> None:
        if _is_number(e) or self.positional(e):
            self.arith(e)
            return
        self.boolean(e, nested)

    def number(self, e: Any) -> None:
        v = e[1]
        if v != int(v) or not 0 <= v <= MAX_NUMBER:
            raise self.fail(f"number {v} is not a position")

    def boolean(self, e: Any, nested: bool) -> None:
        """and/or/not, comparisons, contains/starts-with, or a path (exists)."""
        if isinstance(e, Path):
            self.nested_path(e, nested)
            return
        if not isinstance(e, tuple):  # pragma: no cover - the parser builds no other
            raise self.fail("unexpected expression")
        kind = e[0]
        if kind == "op" and e[1] in ("and", "or"):
            self.boolean(e[2], nested)
            self.boolean(e[3], nested)
        elif kind == "op" and e[1] in ("=", "!=", "<", "<=", ">", ">="):
            self.comparison(e, nested)
        elif kind == "call" and e[1] == "not" and len(e[2]) == 1:
            self.boolean(e[2][0], nested)
        elif kind == "call" and e[1] in ("contains", "starts-with") and len(e[2]) == 2:
            self.string(e[2][0], nested)
            self.literal(e[2][1])
        elif kind == "call" and e[1] == "normalize-space":
            self.string(e, nested)
        else:
            raise self.fail(f"predicate {_show(e)} is not an allowed test")

    def comparison(self, e: Any, nested: bool) -> None:
        a, b = e[2], e[3]
        if self.positional(a) or self.positional(b):
            self.arith(a)
            self.arith(b)
            return
        if e[1] not in ("=", "!="):
            raise self.fail("only positions are compared with < or >")
        if isinstance(b, tuple) and b[0] == "lit":
            self.string(a, nested)
        elif isinstance(a, tuple) and a[0] == "lit":
            self.string(b, nested)
        else:
            raise self.fail("a comparison needs a literal on one side")
        for x in (a, b):
            if isinstance(x, tuple) and x[0] == "lit":
                self.literal(x)

    def positional(self, e: Any) -> bool:
        if isinstance(e, tuple):
            if e[0] == "call" and e[1] in ("position", "last"):
                return True
            if e[0] == "op" and e[1] in ("+", "-", "*", "mod", "div"):
                return self.positional(e[2]) or self.positional(e[3])
            if e[0] == "group":
                return False
        return False

    def arith(self, e: Any) -> None:
        """position(), last(), numbers and + - * div mod over them."""
        if _is_number(e):
            self.number(e)
        elif isinstance(e, tuple) and e[0] == "call" and e[1] in ("position", "last"):
            if e[2]:
                raise self.fail(f"{e[1]}() takes no argument")
        elif isinstance(e, tuple) and e[0] == "op" and e[1] in ("+", "-", "*", "mod", "div"):
            self.arith(e[2])
            self.arith(e[3])
        elif isinstance(e, tuple) and e[0] == "neg":
            self.arith(e[1])
        else:
            raise self.fail(f"{_show(e)} in a position test")

    def string(self, e: Any, nested: bool) -> None:
        """What a string test reads: ``.``, ``@a``, ``text()``, a short path, name(),
        normalize-space(...) and concat(...) of those and literals, and translate(...) of
        one of them with two literals (a label written with invisible characters)."""
        if isinstance(e, Path):
            self.nested_path(e, nested)
        elif isinstance(e, tuple) and e[0] == "lit":
            self.literal(e)
        elif isinstance(e, tuple) and e[0] == "call" and e[1] == "name" and not e[2]:
            return
        elif isinstance(e, tuple) and e[0] == "call" and e[1] == "normalize-space":
            if len(e[2]) > 1:
                raise self.fail("normalize-space() takes one argument")
            for a in e[2]:
                self.string(a, nested)
        elif isinstance(e, tuple) and e[0] == "call" and e[1] == "concat" and len(e[2]) <= 8:
            for a in e[2]:
                self.string(a, nested)
        elif isinstance(e, tuple) and e[0] == "call" and e[1] == "translate" and len(e[2]) == 3:
            self.string(e[2][0], nested)
            self.literal(e[2][1])
            self.literal(e[2][2])
        else:
            raise self.fail(f"{_show(e)} is not an allowed string")

    def literal(self, e: Any) -> None:
        if not (isinstance(e, tuple) and e[0] == "lit"):
            raise self.fail(f"{_show(e)}: a literal string is expected")
        if len(e[1]) > MAX_LITERAL:
            raise self.fail(f"a literal longer than {MAX_LITERAL} characters")

    def nested_path(self, e: Path, nested: bool) -> None:
        """A relative path inside a predicate: one level, short, no path in its predicates."""
        if e.absolute or e.head is not None:
            raise self.fail("an absolute path inside a predicate (it scans the whole page)")
        if nested:
            # one level more only for a short child path (a label's own text:
            # ``[self::*[text()[normalize-space()='ISBN:']]]``, DCADE's label anchor)
            if self.inner or len(e.steps) > 2 or any(st.axis not in _NEAR for st in e.steps):
                raise self.fail("a location path nested in a location path inside a predicate")
            self.inner = True
            try:
                for st in e.steps:
                    self.step(st, nested=True)
            finally:
                self.inner = False
            return
        if len(e.steps) > 8:
            raise self.fail("a path of more than 8 steps inside a predicate")
        for st in e.steps:
            self.step(st, nested=True)


def _show(e: Any) -> str:
    if isinstance(e, tuple):
        if e[0] == "call":
            return f"{e[1]}()"
        if e[0] in ("lit", "num"):
            return repr(e[1])
        return e[1] if isinstance(e[1], str) else e[0]
    return "a path"


_NAME = r"[A-Za-z_][A-Za-z0-9_\-]*"
_CLASS = r"contains\(concat\(' ', normalize-space\(@class\), ' '\), ' [^'\s\\\"/]+ '\)"
#: the steps the inducers write most (see _fast_info): nested (one path in the predicate)
_FAST_STEP = re.compile(
    rf"{_NAME}(?:\[\d{{1,7}}\]|(?P<nested>\[{_CLASS}\]|\[not\(@class\)\]))?"
    rf"|@{_NAME}|text\(\)(?:\[\d{{1,7}}\]|\[normalize-space\(\)\])?"
)
_FAST_ANCHOR = re.compile(rf"{_NAME}\[@id='[^'\s\\\"/]{{1,64}}'\]")


def _fast_info(xpath: str) -> XPathInfo | None:
    """The :class:`XPathInfo` of the forms the inducers write most, without the parser: a
    union of paths of child steps (``tag``, ``tag[3]``, ``tag[class test]``,
    ``tag[not(@class)]``, ``@attr``, ``text()``, ``text()[2]``,
    ``text()[normalize-space()]``), absolute, relative or below an id anchor
    (``//tag[@id='x']/...``), written exactly so. A strictly narrower accept path
    (the parser accepts all of them, with the same info: tests); ``None``: parse."""
    steps = passes = deep = nested = 0
    branches = xpath.split(" | ")
    absolute = False
    for b in branches if len(branches) <= MAX_UNION else ():
        passes += 1
        n, absolute, parts = 0, b.startswith("/"), b.split("/")
        if b.startswith("//"):  # (a descendant-or-self step, the anchor: one more pass)
            if not _FAST_ANCHOR.fullmatch(parts[2]):
                return None
            n, deep, passes, nested, parts = 2, deep + 1, passes + 1, 1, parts[3:]
        elif absolute:
            parts = parts[1:]
        for part in parts:
            m = _FAST_STEP.fullmatch(part)
            if m is None:
                return None
            n += 1
            if m["nested"] is not None:
                nested = 1
        if n > MAX_STEPS:
            return None
        steps += n
    if not passes:
        return None
    contained = len(branches) == 1 and not absolute
    return XPathInfo(contained, steps, passes, deep=deep, nested_max=nested)


@lru_cache(maxsize=4096)
def check_xpath(xpath: str) -> XPathInfo:
    """Parse ``xpath`` and accept it only in an allowed form (module docstring).

    :raises WrapperError: naming why the selector is refused.
    """
    if not isinstance(xpath, str):
        raise WrapperError(f"an XPath must be a string, not {type(xpath).__name__}")
    if len(xpath) > MAX_LENGTH:
        raise _fail(xpath, f"longer than {MAX_LENGTH} characters")
    bad = next((c for c in xpath if ord(c) < 32 and c not in "\t\n\r"), None)
    if bad is not None:
        raise _fail(xpath, f"control character {bad!r}")
    if not xpath.strip():
        raise WrapperError("empty XPath")
    fast = _fast_info(xpath)
    if fast is not None:
        return fast
    tree = _Parser(xpath).parse()
    return _Checker(xpath).top(tree)


def allowed_xpath(xpath: str) -> bool:
    """True when :func:`check_xpath` accepts ``xpath`` (inducers skip what a wrapper may
    not hold)."""
    try:
        check_xpath(xpath)
    except WrapperError:
        return False
    return True


def compile_xpath(xpath: str, smart_strings: bool = False) -> Any:
    """``etree.XPath(xpath)`` as application evaluates it: plain strings (unless
    ``smart_strings``), and without the EXSLT regular-expression functions (``re:``) that
    lxml registers for every evaluation by default, a sixth of a short path's cost: no
    allowed XPath calls them (:data:`FUNCTIONS`)."""
    return etree.XPath(xpath, smart_strings=smart_strings, regexp=False)
