"""The package's shape: no import cycles, layers that only import downwards, no private
name used outside its module, every module importable on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "scrapy_records"

#: lower layers never import higher ones (a module may import its own layer)
LAYERS = [
    (
        "scrapy_records._version",
        "scrapy_records.errors",
        "scrapy_records.results",
        "scrapy_records.lazy",
    ),
    ("scrapy_records.page", "scrapy_records.treematch", "scrapy_records.selectors"),
    ("scrapy_records.fields",),
    ("scrapy_records.extractors",),
    ("scrapy_records.api",),
    ("scrapy_records.wrappers",),
    ("scrapy_records.scrapy", "scrapy_records.cli", "scrapy_records.__main__"),
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _module_level_imports(path: Path) -> set[str]:
    """Modules of the package imported when ``path`` is imported (not those imported inside
    functions or under ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(body):
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    found.add(sub if sub in MODULES else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for h in getattr(node, "handlers", []):
                    visit(h.body)

    visit(tree.body)
    return {m for m in found if m in MODULES}


GRAPH = {name: _module_level_imports(path) for name, path in MODULES.items()}


def _layer(module: str) -> int:
    best = (-1, -1)
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if module == p or module.startswith(p + "."):
                best = max(best, (len(p), i))
    return best[1]


def test_every_module_is_in_a_layer():
    assert [m for m in MODULES if m != "scrapy_records" and _layer(m) < 0] == []


def test_no_import_cycles():
    cycles = []
    state: dict[str, int] = {}

    def dfs(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(GRAPH.get(nxt_ := node, ())):
            if nxt == "scrapy_records":
                continue
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                dfs(nxt, stack + [nxt])
        state[nxt_] = 2

    for m in MODULES:
        if m not in state:
            dfs(m, [m])
    assert cycles == []


def test_layers_only_import_downwards():
    upward = [
        (m, dep)
        for m, deps in GRAPH.items()
        if m != "scrapy_records"
        for dep in deps
        if dep != "scrapy_records" and _layer(dep) > _layer(m)
    ]
    assert upward == []


def test_no_private_name_crosses_a_module():
    crossings = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "scrapy_records"
            ):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        crossings.append((name, node.module, alias.name))
    assert crossings == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.endswith("__main__")))
def test_module_imports_in_isolation(module):
    """Each module imports in a fresh interpreter, whatever was imported before."""
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def test_modules_and_functions_stay_small():
    """No module over 800 lines, no function over 80: a unit a reader can hold at once."""
    too_long = []
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_MODULE_LINES:
            too_long.append((name, text.count("\n")))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    too_long.append((f"{name}.{node.name}", n))
    assert sorted(too_long) == []


def test_applying_a_stored_wrapper_does_not_load_the_miners(tmp_path):
    """A crawl whose pages fit stored wrappers imports the Scrapy glue and the wrappers, not
    the extractors, inducers and alignment (a third of a small crawl's start-up)."""
    from scrapy_records import induce

    items = "".join(
        f"<li><a href='/p/{k}'>Product {k} with a name</a> <b>${k}.99</b></li>" for k in range(6)
    )
    html = f"<html><body><h1>Shop</h1><ul>{items}</ul></body></html>"
    (tmp_path / "w.json").write_text(induce([html, html.replace("Product", "Item")]).to_json())
    (tmp_path / "page.html").write_text(html)
    script = (
        "import sys, pathlib\n"
        "import scrapy_records.scrapy.middlewares, scrapy_records.scrapy.pipelines\n"
        "from scrapy_records import Wrapper\n"
        f"d = pathlib.Path({str(tmp_path)!r})\n"
        "w = Wrapper.from_json((d / 'w.json').read_text())\n"
        "print(len(w.extract((d / 'page.html').read_bytes()).records))\n"
        "heavy = ('scrapy_records.extractors.', 'scrapy_records.wrappers.inducers',\n"
        "         'scrapy_records.fields.alignment', 'scrapy_records.api', 'numpy')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    assert _first_lines(script) == ["6", "[]"]


def test_a_worker_process_mines_without_importing_scrapy():
    """What the forkserver preloads for the worker processes (the worker's functions and the
    miners) leaves Scrapy and Twisted out: a worker mines bytes, it crawls nothing, and
    importing Scrapy would add a quarter of a second to every start of the workers."""
    script = (
        "import sys\n"
        "from scrapy_records.scrapy.executor import PRELOAD\n"
        "import importlib\n"
        "for name in PRELOAD:\n"
        "    importlib.import_module(name)\n"
        "from scrapy_records.scrapy.worker import PageJob, mine_page\n"
        "items = ''.join(f'<li><a href=/p/{k}>Product {k} with a name</a> <b>${k}.99</b></li>'"
        " for k in range(6))\n"
        "body = f'<html><body><h1>Shop</h1><ul>{items}</ul></body></html>'.encode()\n"
        "out = mine_page(PageJob('http://a.com/', body, 'utf-8', None, 'auto', {}))\n"
        "print(len(out.result.main.records))\n"
        "print(sorted(m.split('.')[0] for m in sys.modules if m.split('.')[0] in"
        " ('scrapy', 'twisted')))\n"
    )
    assert _first_lines(script) == ["6", "[]"]


def _first_lines(script: str) -> list[str]:
    """The first two lines a fresh interpreter prints running ``script``."""
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.split("\n")[:2]
