"""Package names that load on first use (PEP 562): a package whose modules need
:mod:`kafka_health.config`, which imports the package's own ``config`` section, cannot import
them eagerly without a cycle."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` giving each name of ``homes`` from its module."""

    def __getattr__(name: str) -> Any:
        if name in homes:
            return getattr(importlib.import_module(homes[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
