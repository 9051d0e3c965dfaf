"""The tools of ``citelens mcp``: their names, descriptions and input schemas, and
:func:`call_tool`, which runs one of them on JSON arguments (no MCP SDK here).

Each tool wraps one public Python API and returns that API's value-free report dict: counts,
rates, fixed labels and digests, never an identifier, a claim text or a source text. The
arguments are validated as the Python API validates them (its own fixed errors). Collections
are taken inline only: a JSON string where a collection is expected is refused with the
API's collection error, because the API would read a string as a file path, and a server an
agent talks to must not open the files the agent names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from citelens.errors import (
    CitationSupportError,
    CitelensError,
    ProvenanceError,
    SummaryCitationError,
)
from citelens.gold.grounding import check_grounding
from citelens.provenance import check_provenance
from citelens.summary_citations import build_summary_citation_report
from citelens.support import compute_citation_support_metrics

__all__ = ["TOOLS", "TOOL_NAMES", "ToolSpec", "call_tool"]

Arguments = Mapping[str, Any]

_RECORDS = {"type": "array", "items": {"type": "object"}}
_TEXTS = {"type": "array", "items": {"type": "string"}}


def _records(text: str) -> dict[str, Any]:
    return {**_RECORDS, "description": text}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


class ToolSpec:
    """One tool: its ``name``, ``description``, JSON ``input_schema`` and the function that
    runs it on validated arguments."""

    def __init__(
        self,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        run: Callable[[Arguments], dict[str, Any]],
    ) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema
        self.run = run


# -- the collection refusal: the API's own collection error, named per argument --------------

_SUPPORT_NAMES = {
    "claims": "claim collection",
    "evidence": "evidence collection",
    "citations": "citation collection",
    "adjudications": "adjudication collection",
}


def _support_refusal(name: str) -> CitelensError:
    message = f"{_SUPPORT_NAMES[name]} must be an iterable of records"
    return CitationSupportError(message, "collection")


def _summary_refusal(name: str) -> CitelensError:
    # the summary API names source_* arguments by the collection they stand for
    label = "evidence" if name in ("evidence", "source_evidence", "source_records") else "claims"
    return SummaryCitationError(f"{label} must be an iterable of structured records", "collection")


def _provenance_refusal(name: str) -> CitelensError:
    return ProvenanceError(f"{name} must be a table or a collection of records", "collection")


def _inline(
    arguments: Arguments, name: str, refusal: Callable[[str], CitelensError]
) -> object | None:
    """Argument ``name`` as given (absent is None); a string is refused (it would be a path)."""
    value = arguments.get(name)
    if isinstance(value, str):
        raise refusal(name)
    return value


# -- the four tools ----------------------------------------------------------------------------


def _check_citations(arguments: Arguments) -> dict[str, Any]:
    claims, evidence, citations, adjudications = (
        _inline(arguments, name, _support_refusal) for name in _SUPPORT_NAMES
    )
    report = compute_citation_support_metrics(
        claims,
        () if evidence is None else evidence,
        citations,
        adjudications,
        source_lengths=arguments.get("source_lengths"),
    )
    return report.to_dict()


def _check_provenance(arguments: Arguments) -> dict[str, Any]:
    evidence, citations, sources = (
        _inline(arguments, name, _provenance_refusal)
        for name in ("evidence", "citations", "sources")
    )
    extra = (
        {}
        if "fuzzy_threshold" not in arguments
        else {"fuzzy_threshold": arguments["fuzzy_threshold"]}
    )
    # Raw identifiers: the rows never leave this function, and only the totals are returned:
    # the per-document part of the summary is keyed by document (a random pseudonym per call
    # otherwise, so two equal calls would differ).
    result = check_provenance(None, evidence, citations, sources, raw_identifiers=True, **extra)
    summary = result.summary
    return {
        key: summary[key]
        for key in ("check", "fuzzy_threshold", "statuses", "document_count", "totals")
    }


def _check_grounding(arguments: Arguments) -> dict[str, Any]:
    answerable = arguments.get("answerable", True)
    # as JSON gave them: the API refuses what is not text (gold input is invalid)
    answer: Any = arguments.get("answer")
    context: Any = arguments.get("context")
    result = check_grounding(
        answer,
        context,
        question=arguments.get("question"),
        anchors=arguments.get("anchors"),
        allowed_new_numbers=arguments.get("allowed_new_numbers"),
        answerable=answerable,
        abstain_markers=arguments.get("abstain_markers"),
    )
    # counts only: the missed anchors, the new numbers and the issue texts quote the caller's
    # anchors and answer
    return {
        "check": "grounding",
        "answerable": answerable,
        "grounded": result.grounded,
        "abstained": result.abstained,
        "anchor_count": result.anchors,
        "missed_anchor_count": len(result.anchors_missed),
        "ungrounded_number_count": len(result.ungrounded_numbers),
        "issue_count": len(result.issues),
    }


_SUMMARY_NAMES = ("claims", "evidence", "summary_claims", "source_evidence", "source_records")


def _check_summary_citations(arguments: Arguments) -> dict[str, Any]:
    given = {name: _inline(arguments, name, _summary_refusal) for name in _SUMMARY_NAMES}
    report = build_summary_citation_report(
        given["claims"],
        given["evidence"],
        summary_claims=given["summary_claims"],
        source_evidence=given["source_evidence"],
        source_records=given["source_records"],
    )
    return report.to_dict()


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "check_citations",
        "Citation support metrics (citelens.support): span checks, fixed reason codes, "
        "orphan claims, unused evidence and, with adjudications, citation precision and "
        "support recall, for claims, evidence and citations given inline as JSON records. "
        "Returns the report: counts, rates, reason codes and SHA-256 digests only.",
        _schema(
            {
                "claims": {
                    "type": ["array", "object"],
                    "description": "atomic claims: records (claim_id, optional start/end, "
                    "evidence_ids) or a compact mapping claim id -> evidence ids",
                },
                "evidence": _records("evidence spans: evidence_id, start, end, source_id"),
                "citations": _records("explicit claim -> evidence edges"),
                "adjudications": _records("reviewer labels per claim/evidence pair"),
                "source_lengths": {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                    "description": "source id -> source length, filling missing lengths",
                },
            },
            ("claims",),
        ),
        _check_citations,
    ),
    ToolSpec(
        "check_provenance",
        "Verbatim provenance (citelens.provenance): is each cited quote really in the source "
        "text it cites? One status per citation edge (exact, offset_unit, relocated, "
        "misattributed, normalized, fuzzy, absent, not_checkable). Returns the totals "
        "(edges, checkable, counts and rates per status), never a quote or a source text.",
        _schema(
            {
                "evidence": _records(
                    "evidence: evidence_id, source_id, quote, start/end or original_start/end, "
                    "optional document_ref"
                ),
                "citations": _records("citations: claim_id, evidence_id, optional document_ref"),
                "sources": _records("sources: source_id, text, optional document_ref"),
                "fuzzy_threshold": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "similarity for the fuzzy status (default 0.9)",
                },
            },
            ("evidence", "citations", "sources"),
        ),
        _check_provenance,
    ),
    ToolSpec(
        "check_grounding",
        "The gold grounding check (citelens.gold.grounding): does an answer keep to its "
        "context? Anchors it must contain, numbers absent from the context, abstention on an "
        "unanswerable question. Returns a verdict and counts, never a text.",
        _schema(
            {
                "answer": {"type": "string", "description": "the answer to check"},
                "context": {
                    "type": ["string", "array"],
                    "items": {"type": "string"},
                    "description": "the context: one text or passages (joined by newlines)",
                },
                "question": {"type": ["string", "null"], "description": "the question"},
                "anchors": {
                    "type": "array",
                    "items": {
                        "type": ["string", "object"],
                        "properties": {"value": {"type": "string"}, "aliases": _TEXTS},
                    },
                    "description": "facts the answer must contain: texts or {value, aliases}",
                },
                "allowed_new_numbers": {
                    "type": "array",
                    "items": {"type": ["string", "number"]},
                    "description": "numbers the answer may add to the context's",
                },
                "answerable": {
                    "type": "boolean",
                    "description": "false when the answer must abstain (default true)",
                },
                "abstain_markers": {**_TEXTS, "description": "phrases that count as abstaining"},
            },
            ("answer", "context"),
        ),
        _check_grounding,
    ),
    ToolSpec(
        "check_summary_citations",
        "Summary citation consistency (citelens.summary_citations): does every summary claim "
        "cite existing evidence exactly once? Matches identifiers and integer offsets only. "
        "Returns the report: counts, ratios, booleans and fixed reason codes.",
        _schema(
            {
                "claims": _records("summary claims with their citations"),
                "evidence": _records("evidence records: id, start, end"),
                "summary_claims": _records("alias of claims"),
                "source_evidence": _records("alias of evidence"),
                "source_records": _records("alias of evidence"),
            }
        ),
        _check_summary_citations,
    ),
)

TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in TOOLS)
"""The names of the tools, in the order the server lists them."""

_BY_NAME = {tool.name: tool for tool in TOOLS}


def call_tool(name: object, arguments: object) -> dict[str, Any]:
    """Run tool ``name`` on ``arguments`` (a JSON object; ``None`` is no arguments) and
    return its report dict. Raises :class:`CitelensError`: an unknown tool or argument is
    a fixed ``policy`` error (never naming it), a bad value the wrapped API's own error."""
    tool = _BY_NAME.get(name) if type(name) is str else None
    if tool is None:
        raise CitelensError("unknown tool", "policy")
    given: dict[str, Any] = {} if arguments is None else _object(arguments)
    allowed = tool.input_schema["properties"]
    if any(type(key) is not str or key not in allowed for key in given):
        raise CitelensError("unknown tool argument", "policy")
    return tool.run(given)


def _object(arguments: object) -> dict[str, Any]:
    if not isinstance(arguments, dict):
        raise CitelensError("tool arguments must be a JSON object", "policy")
    return arguments
