#!/usr/bin/env python
"""DCADE on the ExAlg template collections (``templates/exalg.zip``, 9 sites).

    python benchmarks/dcade_templates.py [--data ../shared/datasets] [--pages 20] [--sites a,b]
        [--verbose] [--no-wrapper] [--opt NAME=VALUE ...]

For each site: induce a schema (and a wrapper) from the first ``--pages`` pages (sorted by
number), then score against the manual schema ``manschema.txt`` and the per-page values
``values/v<i-1>.xml`` of the attributes flagged ``(c)`` (datasets README).

Gold values (``gold_attributes``):

* attributes are split into *data* (not inside a ``{ }`` set) and *set* attributes, in
  the spirit of the paper's F_D and F_S (digest §5.2);
* an attribute's per-page value is the value of its ExAlg id(s) on that page (the first one
  for a data attribute, all of them for a set attribute); ``(a)+(b)`` composites join the
  parts; ``[FIXED=x](id)`` prefixes the constant (amazoncars "2001 TL");
* attributes listing the same ids are either successive occurrences of the id (split by
  occurrence when every page has one per attribute), or the text leaves in order of one
  HTML fragment value that has one leaf per attribute (ebay SELLER and SELLER-RATING, id
  86: "<a> ahhaim@aol.com </a> <a> (50) </a>"), or one merged ExAlg value (then the group
  is scored as one attribute);
* a condition on the attribute's tuple selects which occurrences of a shared id are its
  values: ``[(40)=="career..won"]`` (the tuple's id 40 reads "Career matches won:", ``..``
  any text) and ``[(48)=(46)]`` (the tuple's id 48 chose the constant 46); tennis lists
  four optional career figures under one id 41 this way;
* *choice* attributes: ExAlg realises some attributes as a choice among template constants
  (``[0=Jazz,1=Blues,..]``) and the values file holds which constant a page chose, not its
  text (the manual schema's list of texts is partial and does not match the pages). Such a
  value is still a data cell of the paper's ground truth (a leaf whose text varies), so it
  is scored: a column holds the attribute when its texts and the choices determine each
  other one-to-one on the pages having both (at least two choices seen), and then each of
  those cells is correct, otherwise none is. Without this the column realising the
  attribute counted as a false positive while the attribute was left out of R;
* ``(c)`` attributes with no value anywhere in the sample (nor two different choices) are
  *unscorable* and left out; ``--verbose`` lists them.

Metric, strict view (the paper's, digest §5.2, eq. 2 and 10-11):

* a cell is correct when its character similarity (LCS / max length) to the gold value of
  the same row (page, or a record of the page for sets, matched one-to-one) exceeds 0.85,
  the paper's threshold for DCADE;
* per gold attribute, the best-matching extracted column gives ``acc`` = correct pages /
  pages with a gold value (data) or correct values / gold values (sets); ``R = mean acc``;
  an attribute is *found* when ``acc >= 0.5``;
* per extracted data column (TableA MD/OD text columns for data, recordset data text
  columns for sets), ``P_c`` = correct cells / its non-null cells against its best gold
  attribute; ``P = mean P_c``, ``F = 2PR/(P+R)``. The paper's ground truth lists every
  data column of the page; the manual schemas list only the attributes their authors
  cared about, so columns for page chrome (menus, ads, dynamic links) count as false
  positives here: P is a lower bound. Link-target columns (``href``) are left out of P.
* ``aP``/``aR``: attribute level, share of extracted data columns matched (``P_c >= 0.5``)
  to some gold attribute / share of gold attributes found.

Lenient view ``F_D~``/``F_S~`` (reported beside the strict one, never instead of it): a cell
is also correct when it is a *single leaf* holding the gold value as whole tokens, in order
for composites. The paper's ground truth is made of whole leaves ("DCADE does not split
inside a leaf", digest TC13), while ExAlg's manual schemas often cut values out of one text
node: "1 - 3 of 3" holds END-INDEX and TOTAL, "$29,030 - $31,030" both prices, the page
title "Alphabetical Listing for: M" the FIRST-LETTER. Multi-leaf (merged) cells never count
by containment, so a merged block cannot match everything it holds.

Timing: induction wall time for the sample (20 pages), and the per-page cost of applying
the induced wrapper (``Wrapper.extract`` on the raw bytes) relative to lxml's parse of the
same bytes, median over the site's pages, measured in the same run.

Wrapper accuracy ``wR_D``: the induced wrapper is applied to the site's pages beyond the
sample (all pages when there are none) and, per gold data attribute, the best field's
per-page accuracy is averaged (a typed number or price counts when the gold text parses to
the same amount: "$22,760" for 22760.0); ``wR_S`` is the same for the set attributes with
the wrapper's nested lists (value recall, as R_S).

Data is read from ``../shared/datasets`` relative to the repo root (or ``--data``); the
script prints a notice and exits 0 when it is absent.
"""

from __future__ import annotations

import argparse
import functools
import html
import re
import statistics
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import lxml.html  # noqa: E402
from lxml import etree  # noqa: E402
from rapidfuzz.distance import LCSseq  # noqa: E402

from scrapy_records.fields.values import parse_number, parse_price  # noqa: E402
from scrapy_records.page import Page  # noqa: E402
from scrapy_records.wrappers.inducers.dcade import induce_schema, schema_to_wrapper  # noqa: E402

SITES = [
    "amazoncars",
    "amazonpopartist",
    "baseballplayerlist",
    "ebay",
    "netflix",
    "rpmpackage",
    "tennis",
    "uefanationalteaminfo",
    "uefaplayerslist",
]
THRESHOLD = 0.85


@functools.lru_cache(maxsize=200_000)
def _norm(s: str) -> str:
    return " ".join(html.unescape(s).split())


def norm(s: str | None) -> str:
    """Whitespace collapsed, entities decoded (gold values and cells alike)."""
    return _norm(s or "")


@functools.lru_cache(maxsize=20_000)
def _token_re(p: str) -> re.Pattern:
    return re.compile(r"(?<!\w)" + re.escape(p) + r"(?!\w)")


def sim(a: str, b: str) -> float:
    if not a and not b:
        return 1.0
    return LCSseq.normalized_similarity(a, b)


def ok(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and sim(norm(a), norm(b)) > THRESHOLD


# ------------------------------------------------------------------ ground truth
_ATTR = re.compile(r"^\s*(\d+)(\.[a-z])?\.?\s*(.*)$")
# an attribute line: "7. HEIGHT", "12.a(CURRENT..)", "1.MAKE", and names that start with a
# digit ("11. 52-WEEK-RANK-SINGLES", tennis) when a dot and a space follow the number
_ATTR_START = re.compile(r"^\s*\d+[.a-z]*\.?\s*[A-Za-z(]|^\s*\d+\.\s+\d")
_FIXED_PREFIX = re.compile(r"\[FIXED=([^\]]+)\]\s*\((\d+)\)")


def parse_manschema(text: str) -> list[dict]:
    """Attributes: number, name, ExAlg ids, flag, in_set, fixed (datasets README).

    ``ids`` are the ExAlg attribute ids realising the attribute; ``composite`` is true for
    ``(17)+(20)+(21)`` (the value is the concatenation of those ids' values, tennis HEIGHT);
    ``prefix`` maps an id to a template constant written before it (``[FIXED=2001](4)``,
    amazoncars MODEL-ID of the first record reads "2001 TL").
    """
    attrs: list[dict] = []
    depth = 0
    cur = None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("---") and attrs:
            break  # the summary below the schema ("35  33(c)") is not an attribute
        if not s or s.startswith("---") or s.startswith("//") or s.startswith("Manual"):
            continue
        if s.startswith("{"):
            depth += 1
            continue
        if s.startswith("}"):
            depth = max(0, depth - 1)
            continue
        if s in ("<", ">", "(", ")?", ")", "<>"):
            continue
        m = _ATTR.match(line)
        if m and _ATTR_START.match(line):
            cur = {
                "num": m.group(1) + (m.group(2) or ""),
                "name": m.group(3).split("\t")[0].strip(),
                "text": m.group(3),
                "in_set": depth > 0,
            }
            attrs.append(cur)
        elif cur is not None:
            cur["text"] += " " + s
    out = []
    for a in attrs:
        t = a["text"]
        a["prefix"] = {int(i): f for f, i in _FIXED_PREFIX.findall(t)}
        body = re.sub(r"\[[^\]]*\]", " ", t)  # drop [FIXED=..], [disj ..], [(40)==".."] notes
        ids = [int(x) for x in re.findall(r"\((\d+)\)", body)]
        flags = re.findall(r"\(([crst]\d?)\)", t)
        a["ids"] = ids
        a["composite"] = bool(re.search(r"\(\d+\)\s*\+\s*\(\d+\)", body))
        # the flag on the attribute's own line: netflix 26-29 read "(11) (r)" and a note
        # "[14,8] (c)" below; the schema's summary counts them among the 6 (r)
        a["flag"] = flags[0] if flags else ""
        a["fixed"] = "FIXED" in t and not ids
        a["conds"] = _conditions(t)
        out.append(a)
    return out


def _value_id(v) -> int | None:
    try:
        return int(v.get("instanceof"))
    except (TypeError, ValueError):
        return None


#: a gold value: ExAlg id, text (None for a choice), its tuple's context, the text leaves
#: of an HTML fragment value (ebay SELLER "<a> ahhaim@aol.com </a> <a> (50) </a>")
Value = tuple[int, str | None, frozenset[str], tuple[str, ...]]


def _value_leaves(v) -> tuple[str, ...]:
    return tuple(
        t for t in (norm(x) for x in re.split(r"<[^>]*>", html.unescape(v.text or ""))) if t
    )


def _value_text(v) -> str:
    # some gold values are HTML fragments (ebay "<b> $3.20 </b>"): keep their text
    return norm(re.sub(r"<[^>]*>", " ", html.unescape(v.text or "")))


def parse_values(xml: bytes) -> list[Value]:
    """``(instanceof, text, context)`` of the valued elements, in document order.

    A value with text has ``text``; a value without text whose first child is a value is
    a *choice* among template constants (``text`` None, the chosen id in its context as
    ``"choice:<id>"``). ``context`` also holds, for every sibling value in the same tuple,
    ``"<id>=<text>"`` and ``"<id>=(<child id>)"``: the manual schema's conditions
    (``[(40)=="career..singles"]``, ``[(48)=(46)]``) are read against it.
    """
    try:
        root = etree.fromstring(b"<root>" + re.sub(rb"<\?xml[^>]*\?>", b"", xml) + b"</root>")
    except etree.XMLSyntaxError:
        root = etree.fromstring(b"<root>" + xml + b"</root>", etree.XMLParser(recover=True))
    out: list[Value] = []
    for v in root.iter("value"):
        vid = _value_id(v)
        if vid is None:
            continue
        ctx = set()
        parent = v.getparent()
        for sib in parent if parent is not None else ():
            sid = _value_id(sib) if sib is not v and sib.tag == "value" else None
            if sid is None:
                continue
            st = _value_text(sib)
            if st:
                ctx.add(f"{sid}={st}")
            ctx.update(f"{sid}=({_value_id(ch)})" for ch in sib if ch.tag == "value")
        t = _value_text(v)
        kids = [ch for ch in v if ch.tag == "value" and _value_id(ch) is not None]
        if t:
            out.append((vid, t, frozenset(ctx), _value_leaves(v)))
        elif kids and not _value_text(kids[0]) and not len(kids[0]):
            ctx.add(f"choice:{_value_id(kids[0])}")
            out.append((vid, None, frozenset(ctx), ()))
    return out


_COND_TEXT = re.compile(r'\[\((\d+)\)\s*==\s*"([^"]*)"\]')
_COND_CHOICE = re.compile(r"\[\((\d+)\)\s*=\s*\((\d+)\)\]")


def _conditions(text: str) -> list:
    """The manual schema's conditions on an attribute's tuple: ``[(40)=="career..won"]``
    (the value of id 40 in the same tuple matches, ``..`` = any text, case ignored) and
    ``[(48)=(46)]`` (id 48 of the tuple chose the constant 46)."""
    conds: list = []
    for i, pat in _COND_TEXT.findall(text):
        rx = ".*".join(re.escape(x) for x in pat.split(".."))
        conds.append(re.compile(rf"^{i}=.*{rx}", re.I))
    for i, k in _COND_CHOICE.findall(text):
        conds.append(re.compile(rf"^{i}=\({k}\)$"))
    return conds


def _holds(conds: list, ctx: frozenset[str]) -> bool:
    return all(any(c.search(x) for x in ctx) for c in conds)


def gold_attributes(
    attrs: list[dict], gold_vals: list[list[Value]]
) -> tuple[list[dict], list[str]]:
    """Per-page gold values of the ``(c)`` attributes (the scoring convention of the docstring).

    Returns ``(gold, unscorable)``: ``gold[i]`` has ``num``, ``name``, ``in_set``, ``choice``
    and ``pages`` (per page, a list of values, each a list of parts: one part, or several for
    ``+`` composites; for a choice attribute the part is ``"choice:<id>"``); ``unscorable``
    names the ``(c)`` attributes without any value in the sample, or a choice attribute that
    chose the same constant on every page.
    """
    cand = [a for a in attrs if a["flag"] == "c" and a["ids"]]
    # attributes sharing the same ids (and conditions): ExAlg realises them by successive
    # occurrences of one id (4 values of id 41 per page) or merged them into one value (ebay
    # SELLER + SELLER-RATING = "ahhaim@aol.com (50)"); split by occurrence when every page
    # has exactly one occurrence per attribute, else score the group as one
    groups: dict[tuple, list[dict]] = {}
    for a in cand:
        key = (a["in_set"], tuple(sorted(a["ids"])), tuple(c.pattern for c in a["conds"]))
        groups.setdefault(key, []).append(a)
    gold, unscorable = [], []
    for (in_set, ids_t, _conds), grp in groups.items():
        ids = set(ids_t)

        def page_values(pv: list, a: dict, ids: set[int] = ids) -> list[list[str]]:
            pref, conds = a["prefix"], a["conds"]
            sel = [
                (i, t) for i, t, ctx, _lv in pv if i in ids and t is not None and _holds(conds, ctx)
            ]
            if a["composite"]:
                parts = [pref.get(i, "") + (" " if i in pref else "") + t for i, t in sel]
                return [parts] if parts else []
            return [[(pref[i] + " " + t) if i in pref else t] for i, t in sel]

        def page_choice(pv: list, a: dict, ids: set[int] = ids) -> list[list[str]]:
            for i, t, ctx, _lv in pv:
                if i in ids and t is None and _holds(a["conds"], ctx):
                    return [[x for x in ctx if x.startswith("choice:")]]
            return []

        per_page_all = [page_values(pv, grp[0]) for pv in gold_vals]
        split = (
            len(grp) > 1
            and not in_set
            and all(len(v) == len(grp) for v in per_page_all if v)
            and any(per_page_all)
        )
        # one value per page made of as many text leaves as the group has attributes: the
        # attributes are its leaves in order (ebay SELLER and SELLER-RATING, both id 86:
        # "<a> ahhaim@aol.com </a> <a> (50) </a>"; the paper's ground truth is made of
        # leaves, and the manual schema lists two attributes)
        leaves_all = [
            [
                lv
                for i, t, ctx, lv in pv
                if i in ids and t is not None and _holds(grp[0]["conds"], ctx)
            ]
            for pv in gold_vals
        ]
        leaf_split = (
            len(grp) > 1
            and not split
            and not in_set
            and not grp[0]["composite"]
            and any(leaves_all)
            and all(len(v) == 1 and len(v[0]) == len(grp) for v in leaves_all if v)
        )
        members = (
            grp
            if (split or leaf_split or len(grp) == 1)
            else [
                dict(
                    grp[0],
                    num="+".join(a["num"] for a in grp),
                    name="+".join(a["name"] for a in grp),
                )
            ]
        )
        for k, a in enumerate(members):
            pages = []
            for pv in gold_vals:
                vals = page_values(pv, a)
                if leaf_split:
                    lv = leaves_all[len(pages)]
                    vals = [[lv[0][k]]] if lv else []
                elif split:
                    vals = [vals[k]] if len(vals) > k else []
                elif not in_set:
                    vals = vals[:1]
                pages.append(vals)
            choice = False
            if not any(pages) and len(members) == 1 and not in_set and not a["composite"]:
                # a choice among template constants: the values file holds the choice
                cp = [page_choice(pv, a) for pv in gold_vals]
                if len({v[0][0] for v in cp if v and v[0]}) >= 2:
                    pages, choice = cp, True
            if not any(pages):
                unscorable.append(f"{a['num']} {a['name']}")
                continue
            gold.append(
                {
                    "num": a["num"],
                    "name": a["name"],
                    "in_set": in_set,
                    "pages": pages,
                    "choice": choice,
                }
            )
    gold.sort(key=lambda g: [int(x) if x.isdigit() else 0 for x in re.findall(r"\d+", g["num"])])
    return gold, unscorable


def choice_correct(gv: list, cv: list) -> int:
    """Correct cells of a column for a choice attribute (``gv``: per page the chosen
    constant or None; ``cv``: per page the cell text or None). The values file holds which
    constant the page chose, not its text; the column holds the attribute when its texts
    and the choices determine each other (a one-to-one map) on the pages having both, and
    then each such cell is correct; otherwise none is."""
    fwd: dict[str, set[str]] = {}
    back: dict[str, set[str]] = {}
    n = 0
    for g, c in zip(gv, cv):
        if g is None or c is None:
            continue
        fwd.setdefault(g, set()).add(norm(c))
        back.setdefault(norm(c), set()).add(g)
        n += 1
    if (
        len(fwd) < 2
        or any(len(x) > 1 for x in fwd.values())
        or any(len(x) > 1 for x in back.values())
    ):
        return 0
    return n


# --------------------------------------------------------------------- scoring
def _contains(parts: list[str], cell: str) -> bool:
    """Every part occurs in ``cell`` as whole tokens, in order (the lenient view)."""
    pos = 0
    for p in parts:
        m = _token_re(norm(p)).search(cell, pos)
        if m is None:
            return False
        pos = m.end()
    return True


def cell_ok(parts: list[str], cell: str | None, nleaves: int, lenient: bool) -> bool:
    """Strict (paper, eq. 2): LCS similarity of the texts > 0.85. Lenient: or the cell is a
    single leaf holding the value as whole tokens (sub-leaf gold values, see docstring)."""
    if cell is None:
        return False
    c = norm(cell)
    g = norm(" ".join(parts))
    if g == c or (abs(len(g) - len(c)) < 0.15 * max(len(g), len(c)) + 1 and sim(g, c) > THRESHOLD):
        return True  # (LCS <= the shorter length: a length ratio <= 0.85 cannot pass)
    return lenient and nleaves == 1 and _contains(parts, c)


def _multiset_match(
    gold: list[list[str]], got: list[tuple[str, int]], lenient: bool = False
) -> int:
    """Gold values of one page matched one-to-one to the extracted cells (exact text first)."""
    if not gold or not got:
        return 0
    used = [False] * len(got)
    exact: dict[str, list[int]] = {}
    for i, (v, _nl) in enumerate(got):
        exact.setdefault(norm(v), []).append(i)
    n = 0
    rest = []
    for g in gold:
        idx = exact.get(norm(" ".join(g)))
        while idx and used[idx[-1]]:
            idx.pop()
        if idx:
            used[idx.pop()] = True
            n += 1
        else:
            rest.append(g)
    for g in rest:
        for i, (v, nl) in enumerate(got):
            if not used[i] and cell_ok(g, v, nl, lenient):
                used[i] = True
                n += 1
                break
    return n


def data_correct(g: dict, gv: list, cv: list[tuple[str | None, int]], lenient: bool) -> int:
    """Correct cells of one column (``cv``: per page ``(text, leaves)``) for the data
    attribute ``g`` (``gv``: its value per page, None where the page has none)."""
    if g.get("choice"):
        return choice_correct([x[0] if x else None for x in gv], [v for v, _nl in cv])
    return sum(1 for x, (v, nl) in zip(gv, cv) if x is not None and cell_ok(x, v, nl, lenient))


def score_site(schema, attrs, gold_vals, m, lenient: bool = False):
    """Per kind (``data``/``set``): P, R, F (eq. 10-11), attribute-level P/R, per attribute
    accuracy."""
    res = {}
    gold_all, unscorable = gold_attributes(attrs, gold_vals)
    res["unscorable"] = unscorable

    def cells(c, rows=None):
        return [
            (v, len(lv) if lv else 0) for v, lv in zip(c.values, c.leaves or [()] * len(c.values))
        ]

    # extracted columns; link targets are never attributes of the ExAlg manual schemas
    data_cols = [cells(c) for c in schema.columns if c.data and c.kind == "text"]
    set_cols = []
    for rs in schema.recordsets:
        for c in rs.columns:
            if c.data and c.kind == "text":
                per = [[] for _ in range(m)]
                for (r, _k), cell in zip(rs.rows, cells(c)):
                    if cell[0] is not None:
                        per[r].append(cell)
                set_cols.append(per)
    for kind in ("data", "set"):
        gold = [g for g in gold_all if g["in_set"] == (kind == "set")]
        acc = []
        matched_cols = set()
        if kind == "data":
            cols = data_cols
            pcs = [0.0] * len(cols)
            for g in gold:
                gv = [vals[0] if vals else None for vals in g["pages"]]
                n = sum(1 for x in gv if x is not None)
                best = 0.0
                for ci, cv in enumerate(cols):
                    corr = data_correct(g, gv, cv, lenient)
                    best = max(best, corr / n)
                    nv = sum(1 for v, _ in cv if v is not None)
                    if nv:
                        pc = corr / nv
                        pcs[ci] = max(pcs[ci], pc)
                        if pc >= 0.5:
                            matched_cols.add(ci)
                acc.append(best)
        else:
            # set attributes: gold multiset per page; extracted: recordset columns, and
            # also TableA data columns (one value per page) for recall when no set was found
            cols = set_cols + [
                [[cell] if cell[0] is not None else [] for cell in c] for c in data_cols
            ]
            n_set_cols = len(set_cols)
            pcs = [0.0] * n_set_cols
            for g in gold:
                gv = g["pages"]
                total = sum(len(x) for x in gv)
                best = 0.0
                for ci, cv in enumerate(cols):
                    corr = sum(_multiset_match(x, v, lenient) for x, v in zip(gv, cv))
                    best = max(best, corr / total)
                    if ci < n_set_cols:
                        nv = sum(len(x) for x in cv)
                        if nv:
                            pc = corr / nv
                            pcs[ci] = max(pcs[ci], pc)
                            if pc >= 0.5:
                                matched_cols.add(ci)
                acc.append(best)
            cols = set_cols
        P = statistics.mean(pcs) if pcs else (1.0 if not gold else 0.0)
        R = statistics.mean(acc) if acc else None
        F = (2 * P * R / (P + R) if (P + R) else 0.0) if R is not None else None
        res[kind] = {
            "n_gold": len(gold),
            "n_cols": len(cols),
            "P": P,
            "R": R,
            "F": F,
            "attrP": (len(matched_cols) / len(cols)) if cols else (1.0 if not gold else 0.0),
            "attrR": (sum(1 for x in acc if x >= 0.5) / len(acc)) if acc else None,
            "acc": R,
            "per_attr": [(g["num"], g["name"], round(x, 3)) for g, x in zip(gold, acc)],
        }
    return res


# --------------------------------------------------------------------------- main
def _as_text(value, gold: str | None) -> str | None:
    """A wrapper's value as text to compare with the gold text: a typed number or price is
    the gold text when that parses to the same amount."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(gold, str):
        parsed = parse_price(gold) or (parse_number(gold), None)
        if parsed[0] is not None and abs(float(parsed[0]) - float(value)) < 1e-9:
            return gold
    return None if value is None else str(value)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "datasets"))
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--sites", default=",".join(SITES))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument(
        "--no-wrapper", action="store_true", help="skip the wrapper timing and held-out scoring"
    )
    ap.add_argument(
        "--opt",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a DCADE option (Python literal value), e.g. --opt theta_den=0.5",
    )
    args = ap.parse_args(argv)
    zpath = Path(args.data) / "templates" / "exalg.zip"
    if not zpath.exists():
        print(f"dataset not found: {zpath} (skipping)")
        return 0
    import ast

    opts = {}
    for kv in args.opt:
        k, _, v = kv.partition("=")
        try:
            opts[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            opts[k] = v
    zf = zipfile.ZipFile(zpath)
    names = zf.namelist()
    rows = []

    def gold_of(prefix: str, n: str) -> list[Value]:
        i = int(re.findall(r"(\d+)\.html$", n)[0])
        vname = f"{prefix}values/v{i - 1}.xml"
        return parse_values(zf.read(vname)) if vname in names else []

    print(
        f"{'site':22} {'pg':>3} {'ind_s':>6} {'x_lxml':>6} {'cols':>5} {'dtxt':>5} {'sets':>4} | "
        f"{'F_D':>5} {'P_D':>5} {'R_D':>5} {'aP_D':>5} {'aR_D':>5} | "
        f"{'F_S':>5} {'P_S':>5} {'R_S':>5} {'aP_S':>5} {'aR_S':>5} | {'F_D~':>5} {'F_S~':>5} | "
        f"{'wR_D':>5} {'wR_S':>5} {'held':>4}"
    )
    for site in args.sites.split(","):
        prefix = f"exalg/{site}/"
        srcs = [n for n in names if n.startswith(prefix + "sources/") and n.endswith(".html")]
        srcs.sort(key=lambda n: int(re.findall(r"(\d+)\.html$", n)[0]))
        if not srcs:
            print(f"{site}: no pages")
            continue
        attrs = parse_manschema(zf.read(prefix + "manschema.txt").decode("latin-1"))
        sample = srcs[: args.pages]
        bodies = [zf.read(n) for n in sample]
        gold_vals = [gold_of(prefix, n) for n in sample]
        urls = [f"http://{site}.example/{Path(n).name}" for n in sample]
        t0 = time.perf_counter()
        pages = [Page(b, url=u) for b, u in zip(bodies, urls)]
        schema = induce_schema(pages, **opts)
        t_ind = time.perf_counter() - t0
        wrapper = None
        if not args.no_wrapper:
            try:
                wrapper = schema_to_wrapper(schema)
            except Exception as exc:  # report, keep scoring the schema
                print(f"{site}: wrapper failed: {exc!r}")
        ratios = []
        if wrapper is not None:
            for b in bodies:
                best_l = best_w = float("inf")
                for _ in range(3):
                    t = time.perf_counter()
                    lxml.html.document_fromstring(b)
                    best_l = min(best_l, time.perf_counter() - t)
                    t = time.perf_counter()
                    wrapper.extract(b)
                    best_w = min(best_w, time.perf_counter() - t)
                ratios.append(best_w / best_l if best_l > 0 else 0.0)
        s = score_site(schema, attrs, gold_vals, len(pages))
        s_len = score_site(schema, attrs, gold_vals, len(pages), lenient=True)
        s["lenient"] = s_len
        d, st = s["data"], s["set"]
        # the wrapper on pages it was not induced from (all pages when there are none)
        held = srcs[args.pages :] or srcs
        wacc = None
        if wrapper is not None:
            golds, _ = gold_attributes(attrs, [gold_of(prefix, n) for n in held])
            vals_by_field: dict[str, list] = {}
            set_vals: dict[tuple[str, str], list] = {}
            for k, n in enumerate(held):
                res = wrapper.extract(Page(zf.read(n), url=f"http://{site}.example/{Path(n).name}"))
                rec = (
                    res.regions[0].records[0].fields
                    if res.regions and res.regions[0].records
                    else {}
                )
                for fname in [x.name for x in wrapper.fields]:
                    v = rec.get(fname)
                    vals_by_field.setdefault(fname, [None] * len(held))[k] = v
                for lst in wrapper.lists:
                    for row in rec.get(lst.name) or []:
                        for fname, v in row.items():
                            if isinstance(v, (str, int, float)):
                                set_vals.setdefault((lst.name, fname), [[] for _ in held])[
                                    k
                                ].append((str(v), 0))
            accs, saccs = [], []
            for g in golds:
                if not g["in_set"]:
                    gv = [vals[0] if vals else None for vals in g["pages"]]
                    n = sum(1 for x in gv if x is not None)
                    accs.append(
                        max(
                            (
                                data_correct(
                                    g, gv, [(_as_text(v, x), 0) for v, x in zip(cv, gv)], False
                                )
                                / n
                                for cv in vals_by_field.values()
                            ),
                            default=0.0,
                        )
                    )
                else:
                    total = sum(len(x) for x in g["pages"])
                    saccs.append(
                        max(
                            (
                                sum(_multiset_match(x, v) for x, v in zip(g["pages"], cv)) / total
                                for cv in set_vals.values()
                            ),
                            default=0.0,
                        )
                    )
            wacc = (statistics.mean(accs), len(held)) if accs else None
            s["wrapper_set"] = statistics.mean(saccs) if saccs else None
        s["wrapper"] = wacc
        rows.append((site, s))

        def f(x):
            return f"{x:5.3f}" if x is not None else "  -  "

        print(
            f"{site:22} {len(pages):3d} {t_ind:6.2f} "
            f"{statistics.median(ratios) if ratios else float('nan'):6.1f} "
            f"{len(schema.columns):5d} "
            f"{sum(1 for c in schema.data_columns() if c.kind == 'text'):5d} "
            f"{len(schema.recordsets):4d} | "
            f"{f(d['F'])} {f(d['P'])} {f(d['R'])} {f(d['attrP'])} {f(d['attrR'])} | "
            f"{f(st['F'])} {f(st['P'])} {f(st['R'])} {f(st['attrP'])} {f(st['attrR'])} | "
            f"{f(s_len['data']['F'])} {f(s_len['set']['F'])} | "
            f"{f(wacc[0]) if wacc else '  -  '} {f(s.get('wrapper_set'))} "
            f"{wacc[1] if wacc else 0:4d}"
        )
        if args.verbose:
            print("   data:", d["per_attr"])
            print("   set: ", st["per_attr"])
            print("   data~:", s_len["data"]["per_attr"])
            print("   set~: ", s_len["set"]["per_attr"])
            if s["unscorable"]:
                print("   unscorable (no value in the sample):", s["unscorable"])
    if rows:

        def avg(kind, key, view=None):
            xs = []
            for _, s in rows:
                ss = s[view] if view else s
                if ss[kind][key] is not None and ss[kind]["n_gold"]:
                    xs.append(ss[kind][key])
            return statistics.mean(xs) if xs else float("nan")

        wrapper_accs = [s["wrapper"][0] for _, s in rows if s.get("wrapper")]
        wrapper_set_accs = [s["wrapper_set"] for _, s in rows if s.get("wrapper_set") is not None]
        print(
            f"{'AVERAGE':22} {'':3} {'':6} {'':6} {'':5} {'':5} {'':4} | "
            f"{avg('data', 'F'):5.3f} {avg('data', 'P'):5.3f} {avg('data', 'R'):5.3f} "
            f"{avg('data', 'attrP'):5.3f} {avg('data', 'attrR'):5.3f} | "
            f"{avg('set', 'F'):5.3f} {avg('set', 'P'):5.3f} {avg('set', 'R'):5.3f} "
            f"{avg('set', 'attrP'):5.3f} {avg('set', 'attrR'):5.3f} | "
            f"{avg('data', 'F', 'lenient'):5.3f} {avg('set', 'F', 'lenient'):5.3f} | "
            f"{statistics.mean(wrapper_accs or [float('nan')]):5.3f} "
            f"{statistics.mean(wrapper_set_accs or [float('nan')]):5.3f}"
        )
        print(
            "(averages over sites having gold attributes of that kind; ind_s = induction seconds; "
            "x_lxml = wrapper application / lxml parse, median; F_D~/F_S~ = the lenient view "
            "(a single-leaf cell holding the gold value as whole tokens also counts); wR_D = "
            "per-page accuracy of the wrapper's fields for the data attributes (wR_S: value "
            "recall of its nested lists for the set attributes) on the 'held' pages not used "
            "for induction, all pages when the site has no more)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
