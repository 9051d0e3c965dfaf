"""Shared helpers for the minimality tests."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from citelens.errors import CitationMinimalityError, CitelensError

CANARY = "CANARY-7f3a-secret"


def ref(value: str) -> str:
    """An opaque ``sha256:`` reference of ``value``."""
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


C1 = ref("claim-1")
C2 = ref("claim-2")
X1 = ref("citation-1")
X2 = ref("citation-2")
D1 = ref("doc-1")
D2 = ref("doc-2")
TEXT = "alpha beta gamma delta"


def expect_error(
    call: Callable[[], Any],
    message: str,
    category: str,
    cls: type[CitelensError] = CitationMinimalityError,
    canaries: tuple[str, ...] = (CANARY,),
) -> CitelensError:
    """Run ``call`` and assert the fixed error: class, message, args, category, no chaining."""
    with pytest.raises(CitelensError) as info:
        call()
    exc = info.value
    assert type(exc) is cls
    assert str(exc) == message
    assert exc.args == (message,)
    assert exc.category == category
    assert exc.__cause__ is None
    assert exc.__context__ is None
    for canary in canaries:
        assert canary not in str(exc)
        assert canary not in repr(exc)
    return exc


def claim(claim_id: str = C1, span: Any = (6, 10), **extra: Any) -> dict[str, Any]:
    """A claim record."""
    return {"claim_id": claim_id, "required_span": list(span), **extra}


def citation(
    claim_id: str = C1, span: Any = (6, 16), citation_id: str | None = X1, **extra: Any
) -> dict[str, Any]:
    """A citation record."""
    record: dict[str, Any] = {"claim_id": claim_id, "source_span": list(span), **extra}
    if citation_id is not None:
        record["citation_id"] = citation_id
    return record
