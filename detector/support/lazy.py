"""Names a package exports but imports on first use (PEP 562): its heavy modules (numpy's
statistics, the Flight Recorder's decoder) cost a short command nothing until it asks for them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, home: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from its submodule
    ``home[name]`` when first asked for, and keeps it in ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
