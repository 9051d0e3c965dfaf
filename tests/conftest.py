"""Shared test helpers: where ../shared lives, and the vector input markers."""

from __future__ import annotations

import copy
import json
import os
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# No per-example deadline (two shared cores make timings noisy); in CI the examples are
# derandomised so a run is reproducible from the commit alone.
settings.register_profile(
    "citelens",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") == "true",
)
settings.load_profile("citelens")

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def shared_dir(*parts: str) -> pathlib.Path:
    """A path below ../shared, skipping the test cleanly when ../shared is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip("../shared is not present beside the project")
    return path


def vector_files(folder: str, pattern: str = "*.json") -> list[pathlib.Path]:
    """The vector files of one folder (empty when ../shared is absent)."""
    path = SHARED / "vectors" / folder
    if not path.exists():
        return []
    return sorted(path.glob(pattern))


def vector_params(folder: str, pattern: str = "*.json") -> list[Any]:
    """pytest parameters for a vector folder; one skipped placeholder when it is absent."""
    files = vector_files(folder, pattern)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/vectors absent"))]
    return [pytest.param(path, id=path.stem) for path in files]


def load_vector(path: pathlib.Path) -> dict[str, Any]:
    """Load a vector with the standard json module (key order is significant)."""
    with path.open(encoding="utf-8") as handle:
        value: dict[str, Any] = json.load(handle)
    return value


class UpstreamSecretError(RuntimeError):
    """What a ``$generator_then_raise`` marker raises."""


def _generator(items: list[Any]) -> Iterator[Any]:
    yield from items


def _generator_then_raise(items: list[Any]) -> Iterator[Any]:
    yield from items
    raise RuntimeError("upstream secret value")


def expand_markers(value: Any, tmp_path: pathlib.Path) -> Any:
    """Expand the vector input markers of shared/vectors/README.md."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if key == "$repeat":
            return [copy.deepcopy(inner["item"]) for _ in range(inner["count"])]
        if key == "$concat":
            out: list[Any] = []
            for part in inner:
                out.extend(expand_markers(part, tmp_path))
            return out
        if key == "$generator":
            return _generator(list(inner))
        if key == "$generator_then_raise":
            return _generator_then_raise(list(inner))
        if key == "$file":
            index = len(list(tmp_path.glob("input-*")))
            path = tmp_path / f"input-{index}{inner['suffix']}"
            path.write_bytes(inner["text"].encode("utf-8"))
            return str(path) if inner.get("as_str") else path
        if key == "$missing_file":
            return tmp_path / f"missing-input{inner}"
    return value


def expand_kwargs(kwargs: dict[str, Any], tmp_path: pathlib.Path) -> dict[str, Any]:
    """Expand markers in a kwargs mapping and build ``citelens.Limits`` from ``limits``."""
    import citelens

    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key == "limits" and isinstance(value, dict):
            out[key] = citelens.Limits(**value)
        else:
            out[key] = expand_markers(value, tmp_path)
    return out


def assert_fixed_error(exc: BaseException, case: dict[str, Any]) -> None:
    """Compare an error with a vector's expected_error / _class / _category."""
    import citelens.errors

    expected_class = getattr(citelens.errors, case["expected_error_class"])
    assert type(exc) is expected_class, (type(exc).__name__, case["expected_error_class"])
    assert str(exc) == case["expected_error"]
    assert exc.args == (case["expected_error"],)
    assert getattr(exc, "category", None) == case["expected_error_category"]
    assert exc.__cause__ is None
    assert exc.__context__ is None
