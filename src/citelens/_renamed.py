"""Old public names kept importable for a while (PEP 562 ``__getattr__``), with a warning."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

__all__ = ["renamed"]


def renamed(
    module: str, name: str, renames: Mapping[str, str], namespace: Mapping[str, Any]
) -> Any:
    """The object now called ``renames[name]`` in ``namespace``, with a ``DeprecationWarning``
    naming ``module``; ``AttributeError`` for any other name."""
    new = renames.get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} is deprecated; use {module}.{new}", DeprecationWarning, stacklevel=4
    )
    return namespace[new]
