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
        loaded = importlib.import_module(f"{package}.{module}")
        # every name that submodule exports, at once: importing it binds the package's attribute
        # of the submodule's own name to the module ("detector.stats.analyze"), which would then
        # hide the function of that name ("analyze") from a later ``from package import analyze``
        for other, home_of in home.items():
            if home_of == module:
                namespace[other] = getattr(loaded, other)
        return namespace[name]

    return __getattr__
