"""Names of a package imported on first use (PEP 562), for the package ``__init__`` files.

A crawl that only applies stored wrappers needs the page model and the wrappers, not the
extractors and inducers behind them (about a third of a second of imports on a 2 KB-page
crawl that lasts a second). Each package lists its public names and the module of each;
type checkers read the same names from an ``if TYPE_CHECKING:`` import block.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(
    package: str, namespace: dict[str, Any], names: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose globals are ``namespace``:
    ``names`` maps each public name to the module defining it; a name is imported on its
    first use and then kept in the namespace."""

    def getattr_(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(names))

    return getattr_, dir_
