"""Verbatim provenance: is the text a citation quotes really in the source it cites?

For every citation edge (a citation joined to its evidence, the evidence to its source text)
one status, in this precedence: ``exact``, ``offset_unit``, ``relocated``, ``misattributed``,
``normalized``, ``fuzzy``, ``absent``; ``not_checkable`` (no quote, or no source text) is
counted apart. The verbatim statuses are whole-column Polars work
(:mod:`citelens.provenance._verbatim`); the others work on the remainder only
(:mod:`citelens.provenance._approx`: one vectorised normalisation of its quotes and sources,
then a loop over its edges for the nearest occurrence and rapidfuzz's alignment). See
``docs/provenance.md``.
"""

from __future__ import annotations

from citelens.errors import ProvenanceError
from citelens.provenance._api import (
    DEFAULT_BATCH_DOCUMENTS,
    DEFAULT_FUZZY_THRESHOLD,
    OUTPUT_SCHEMA,
    STATUSES,
    ProvenanceResult,
    check_provenance,
    run_provenance,
    write_provenance,
    write_provenance_corpus,
)
from citelens.provenance._approx import normalize

__all__ = [
    "DEFAULT_BATCH_DOCUMENTS",
    "DEFAULT_FUZZY_THRESHOLD",
    "OUTPUT_SCHEMA",
    "STATUSES",
    "ProvenanceError",
    "ProvenanceResult",
    "check_provenance",
    "normalize",
    "run_provenance",
    "write_provenance",
    "write_provenance_corpus",
]
