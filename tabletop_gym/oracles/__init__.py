"""Exact solvers, one module (or package) per game.

A solver package loads its solvers (numba kernels, CP-SAT models) when one of them is first used, not
when the package is imported: the command line reads a package's limits and answers a cached deal
without paying seconds for OR-Tools and numba (see :func:`lazy_exports`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` (PEP 562) for names that its submodules define:
    ``exports`` maps a submodule to the names the package offers from it. A name is imported from its
    submodule on first use, then kept in the package like an eagerly imported one."""
    if any(isinstance(names, str) for names in exports.values()):
        raise TypeError("lazy_exports: give each submodule's names as a sequence, not one string")
    owner = {name: module for module, names in exports.items() for name in names}
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:  # noqa: N807  (the module hook's own name)
        module = owner.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted({*namespace, *owner})

    return __getattr__, __dir__
