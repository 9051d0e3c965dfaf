"""``citelens mcp`` (issue 13, item 6) through the official SDK's in-process client: the tool
listing, each tool on literal inputs with hand-checked values, refused inputs as tool errors
with the fixed message and no echoed value, an unexpected exception as an internal error,
the missing extra, and one real stdio session.

The client calls are driven by ``anyio.run`` from plain tests (no async test plugin)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from citelens.cli import main
from citelens.gold.grounding import check_grounding
from citelens.mcp import TOOL_NAMES, TOOLS, build_server, call_tool
from citelens.summary_citations import build_summary_citation_report
from citelens.support import compute_citation_support_metrics

T = TypeVar("T")
CANARY = "CANARY-7f3a"  # planted in ids and texts: it must appear in no response

# -- helpers -----------------------------------------------------------------------------------


def _session(work: Callable[[Client], Awaitable[T]], mode: str = "legacy", server: Any = None) -> T:
    """Run ``work`` with an in-process client of a new server. ``legacy`` goes through the
    initialize handshake and JSON-RPC framing; ``auto`` is the SDK's direct dispatch."""

    async def go() -> T:
        async with Client(server if server is not None else build_server(), mode=mode) as c:
            return await work(c)

    return anyio.run(go)


def _call(name: str, arguments: dict[str, Any], mode: str = "legacy") -> types.CallToolResult:
    async def work(client: Client) -> types.CallToolResult:
        return await client.call_tool(name, arguments)

    return _session(work, mode)


def _report(result: types.CallToolResult) -> dict[str, Any]:
    """The report of a successful call: the structured content, which the text repeats as
    canonical JSON (sorted keys, compact, one trailing newline)."""
    assert result.is_error is not True
    assert result.structured_content is not None
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    assert (
        content.text
        == json.dumps(
            result.structured_content, sort_keys=True, separators=(",", ":"), ensure_ascii=True
        )
        + "\n"
    )
    report: dict[str, Any] = result.structured_content
    return report


def _error(result: types.CallToolResult) -> dict[str, Any]:
    """The ``error`` payload of a tool error (``isError``), checked against its text."""
    assert result.is_error is True
    assert result.structured_content is not None
    error = result.structured_content["error"]
    assert isinstance(error, dict)
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    shown = error.get("detail", error["message"])
    assert content.text == f"citelens: error [{error['category']}]: {shown}"
    return error


def _no_canary(result: types.CallToolResult) -> None:
    assert CANARY not in result.model_dump_json()


# -- the listing -------------------------------------------------------------------------------


def test_lists_the_four_tools_with_their_input_schemas() -> None:
    async def work(client: Client) -> types.ListToolsResult:
        return await client.list_tools()

    listed = _session(work)
    assert [t.name for t in listed.tools] == [
        "check_citations",
        "check_provenance",
        "check_grounding",
        "check_summary_citations",
    ]
    assert list(TOOL_NAMES) == [t.name for t in listed.tools]
    schemas = {t.name: t.input_schema for t in listed.tools}
    expected = {
        "check_citations": (
            ["claims", "evidence", "citations", "adjudications", "source_lengths"],
            ["claims"],
        ),
        "check_provenance": (
            ["evidence", "citations", "sources", "fuzzy_threshold"],
            ["evidence", "citations", "sources"],
        ),
        "check_grounding": (
            [
                "answer",
                "context",
                "question",
                "anchors",
                "allowed_new_numbers",
                "answerable",
                "abstain_markers",
            ],
            ["answer", "context"],
        ),
        "check_summary_citations": (
            ["claims", "evidence", "summary_claims", "source_evidence", "source_records"],
            [],
        ),
    }
    for name, (properties, required) in expected.items():
        schema = schemas[name]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert list(schema["properties"]) == properties
        assert schema["required"] == required
    assert all(t.description for t in listed.tools)


# -- each tool on literal inputs -----------------------------------------------------------------

CLAIMS = [{"claim_id": "c1", "evidence_ids": ["e1"]}, {"claim_id": "c2"}]
EVIDENCE = [
    {"evidence_id": "e1", "start": 0, "end": 5, "source_id": "s"},
    {"evidence_id": "e2", "start": 5, "end": 9, "source_id": "s"},
]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_check_citations(mode: str) -> None:
    report = _report(_call("check_citations", {"claims": CLAIMS, "evidence": EVIDENCE}, mode))
    # 2 claims, 2 evidence spans, 1 citation (c1 -> e1); c2 cites nothing: 1 orphan of 2 = 0.5;
    # e2 is cited by nobody: 1 unused of 2 = 0.5; no adjudications: precision and recall null
    assert report["claim_count"] == 2
    assert report["evidence_count"] == 2
    assert report["citation_count"] == 1
    assert (report["orphan_claim_count"], report["orphan_claim_rate"]) == (1, 0.5)
    assert (report["unused_evidence_count"], report["unused_evidence_rate"]) == (1, 0.5)
    assert (report["citation_precision"], report["support_recall"]) == (None, None)
    checks = report["deterministic_span_checks"]
    # both evidence spans [0, 5) and [5, 9) are valid: 2 / 2 = 1.0; the claims have no span
    assert (checks["valid_evidence_span_count"], checks["evidence_span_validity"]) == (2, 1.0)
    assert (checks["missing_claim_span_count"], checks["passed"]) == (2, False)
    # exactly the Python API's report dict
    assert report == compute_citation_support_metrics(CLAIMS, EVIDENCE).to_dict()


S0 = "The cat sat on the mat. The cat ran."
PROVENANCE = {
    "sources": [{"source_id": "s0", "text": S0}],
    "evidence": [
        {"evidence_id": "e0", "source_id": "s0", "quote": "cat", "start": 4, "end": 7},
        {"evidence_id": "e1", "source_id": "s0", "quote": "ran", "start": 0, "end": 3},
        {"evidence_id": "e2", "source_id": "s0", "quote": "zebra quagga"},
        {"evidence_id": "e3", "source_id": "s0", "quote": None},
    ],
    "citations": [{"claim_id": "c", "evidence_id": f"e{i}"} for i in range(4)],
}


def test_check_provenance() -> None:
    report = _report(_call("check_provenance", PROVENANCE))
    # e0: S0[4:7] == "cat": exact; e1: S0[0:3] is "The", "ran" is at 32: relocated;
    # e2: nowhere, not even approximately: absent; e3: no quote: not_checkable
    counts = {"exact": 1, "offset_unit": 0, "relocated": 1, "misattributed": 0}
    counts |= {"normalized": 0, "fuzzy": 0, "absent": 1, "not_checkable": 1}
    third = 1 / 3  # each of the 3 checkable edges is 1 of 3; not_checkable 1 of all 4
    rates = {status: 0.0 for status in counts} | {"exact": third, "relocated": third}
    rates |= {"absent": third, "not_checkable": 0.25}
    assert report == {
        "check": "provenance",
        "fuzzy_threshold": 0.9,
        "statuses": list(counts),
        "document_count": 1,
        "totals": {"edges": 4, "checkable": 3, "counts": counts, "rates": rates},
    }


def test_check_provenance_threshold() -> None:
    arguments = {
        "sources": [{"source_id": "s1", "text": "Dogs bark loudly at night."}],
        "evidence": [
            {"evidence_id": "e4", "source_id": "s1", "quote": "Dogs bark loudly at nite."}
        ],
        "citations": [{"claim_id": "c", "evidence_id": "e4"}],
    }
    # one misspelt letter: fuzzy at the default 0.9 (tests/provenance), absent at 1.0
    fuzzy = _report(_call("check_provenance", arguments))["totals"]["counts"]
    absent = _report(_call("check_provenance", {**arguments, "fuzzy_threshold": 1.0}))
    assert (fuzzy["fuzzy"], fuzzy["absent"]) == (1, 0)
    assert (absent["totals"]["counts"]["fuzzy"], absent["totals"]["counts"]["absent"]) == (0, 1)
    assert absent["fuzzy_threshold"] == 1.0


def test_check_grounding() -> None:
    arguments = {
        "answer": "The dose is 5 mg twice daily, for 10 days.",
        "context": ["Take 5 mg", "twice daily."],
        "anchors": ["5 mg", {"value": "two times a day", "aliases": ["twice daily"]}, "food"],
    }
    report = _report(_call("check_grounding", arguments))
    # anchors: "5 mg" is in the answer, the second by its alias, "food" is not: 1 missed of 3;
    # numbers of the answer 5 and 10: 5 is in the context, 10 is new: 1 ungrounded; 2 issues
    assert report == {
        "check": "grounding",
        "answerable": True,
        "grounded": False,
        "abstained": None,
        "anchor_count": 3,
        "missed_anchor_count": 1,
        "ungrounded_number_count": 1,
        "issue_count": 2,
    }
    # the same verdict as the Python API
    result = check_grounding(
        str(arguments["answer"]), ["Take 5 mg", "twice daily."], anchors=arguments["anchors"]
    )
    assert (result.grounded, len(result.anchors_missed), len(result.issues)) == (False, 1, 2)
    allowed = _report(_call("check_grounding", {**arguments, "allowed_new_numbers": [10]}))
    # 10 allowed: only the missed anchor is left
    assert (allowed["ungrounded_number_count"], allowed["issue_count"]) == (0, 1)


def test_check_grounding_unanswerable() -> None:
    arguments = {"answer": "I don't know.", "context": "Nothing here.", "answerable": False}
    # "don't know" is a default abstain marker: abstained, so grounded
    assert _report(_call("check_grounding", arguments)) == {
        "check": "grounding",
        "answerable": False,
        "grounded": True,
        "abstained": True,
        "anchor_count": 0,
        "missed_anchor_count": 0,
        "ungrounded_number_count": 0,
        "issue_count": 0,
    }
    said = _report(_call("check_grounding", {**arguments, "answer": "It is 4."}))
    assert (said["grounded"], said["abstained"], said["issue_count"]) == (False, False, 1)


SUMMARY = {
    "claims": [
        {"claim": "synthetic claim", "citations": [{"evidence_id": "evidence-1"}]},
        {"claim": "other claim"},
    ],
    "evidence": [{"id": "evidence-1", "start": 0, "end": 12}],
}


def test_check_summary_citations() -> None:
    report = _report(_call("check_summary_citations", SUMMARY))
    metrics = report["metrics"]
    # claim 1 cites the one valid record, claim 2 cites nothing: 1 of 2 supported = 0.5
    assert (metrics["claim_count"], metrics["supported_claim_count"]) == (2, 1)
    assert (metrics["coverage"], metrics["abstention_rate"]) == (0.5, 0.5)
    assert (metrics["missing_citation_count"], metrics["referenced_evidence_count"]) == (1, 1)
    assert metrics["failure_reasons"] == ["missing_citation", "unsupported_claim"]
    assert (report["passed"], metrics["evidence_coverage"]) == (False, 1.0)
    assert report == build_summary_citation_report(SUMMARY["claims"], SUMMARY["evidence"]).to_dict()
    # the same claims through the summary_claims alias give the same report
    alias = {"summary_claims": SUMMARY["claims"], "evidence": SUMMARY["evidence"]}
    assert _report(_call("check_summary_citations", alias)) == report


def test_same_call_same_bytes() -> None:
    async def work(client: Client) -> list[str]:
        texts = []
        for _ in range(2):
            for name, arguments in (
                ("check_citations", {"claims": CLAIMS, "evidence": EVIDENCE}),
                ("check_provenance", PROVENANCE),
                ("check_summary_citations", SUMMARY),
            ):
                result = await client.call_tool(name, arguments)
                content = result.content[0]
                assert isinstance(content, types.TextContent)
                texts.append(content.text)
        return texts

    first = _session(work)
    second = _session(work)
    assert first[:3] == first[3:] == second[:3] == second[3:]


def test_identifiers_and_texts_never_in_a_report() -> None:
    claims = [{"claim_id": CANARY, "evidence_ids": [CANARY + "-e"], "text": CANARY}]
    evidence = [{"evidence_id": CANARY + "-e", "start": 0, "end": 3, "source_id": CANARY}]
    result = _call("check_citations", {"claims": claims, "evidence": evidence})
    assert _report(result)["claim_count"] == 1
    _no_canary(result)
    provenance = {
        "sources": [{"document_ref": CANARY, "source_id": CANARY, "text": CANARY + " text"}],
        "evidence": [
            {"document_ref": CANARY, "evidence_id": CANARY, "source_id": CANARY, "quote": CANARY}
        ],
        "citations": [{"document_ref": CANARY, "claim_id": CANARY, "evidence_id": CANARY}],
    }
    result = _call("check_provenance", provenance)
    # the quote is at 0 in the text but no offsets are given: relocated
    assert _report(result)["totals"]["counts"]["relocated"] == 1
    _no_canary(result)
    grounding = {"answer": CANARY, "context": CANARY, "anchors": [CANARY + " missed"]}
    result = _call("check_grounding", grounding)
    assert _report(result)["missed_anchor_count"] == 1
    _no_canary(result)


# -- refused inputs: tool errors with the fixed message, no echoed value ------------------------

REFUSED = [
    # a string where a collection goes would be a file path for the API: refused
    (
        "check_citations",
        {"claims": CANARY},
        "collection",
        "claim collection must be an iterable of records",
    ),
    (
        "check_citations",
        {
            "claims": CLAIMS,
            "evidence": [{"evidence_id": CANARY, "start": 5, "end": 2}],
            "citations": CANARY,
        },
        "collection",
        "citation collection must be an iterable of records",
    ),
    # an evidence record without an identifier: the API's own record error
    (
        "check_citations",
        {"claims": CLAIMS, "evidence": [{"x": CANARY}]},
        "record",
        "evidence identifier is required",
    ),
    (
        "check_provenance",
        {**PROVENANCE, "sources": CANARY},
        "collection",
        "sources must be a table or a collection of records",
    ),
    (
        "check_provenance",
        {**PROVENANCE, "fuzzy_threshold": 2},
        "policy",
        "fuzzy threshold must be a number from 0 to 1",
    ),
    ("check_grounding", {"answer": 5, "context": CANARY}, "input", "gold input is invalid"),
    (
        "check_grounding",
        {"answer": CANARY, "context": CANARY, "answerable": CANARY},
        "input",
        "gold input is invalid",
    ),
    (
        "check_summary_citations",
        {"claims": CANARY},
        "collection",
        "claims must be an iterable of structured records",
    ),
    (
        "check_summary_citations",
        {"source_records": CANARY},
        "collection",
        "evidence must be an iterable of structured records",
    ),
    # arguments and tools the server does not know: never named back
    ("check_citations", {"claims": CLAIMS, CANARY: 1}, "policy", "unknown tool argument"),
    (CANARY, {"claims": CLAIMS}, "policy", "unknown tool"),
]


@pytest.mark.parametrize(("name", "arguments", "category", "message"), REFUSED)
def test_refused_input_is_a_tool_error(
    name: str, arguments: dict[str, Any], category: str, message: str
) -> None:
    result = _call(name, arguments)
    error = _error(result)
    assert (error["category"], error["message"]) == (category, message)
    _no_canary(result)


def test_the_errors_are_the_python_apis() -> None:
    # the same record refusal from the API itself
    from citelens.errors import CitationSupportError

    with pytest.raises(CitationSupportError) as raised:
        compute_citation_support_metrics(CLAIMS, [{"x": CANARY}])
    error = _error(_call("check_citations", {"claims": CLAIMS, "evidence": [{"x": CANARY}]}))
    assert (error["category"], error["message"]) == (raised.value.category, raised.value.args[0])


def test_an_unexpected_exception_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(arguments: object) -> dict[str, Any]:
        raise ValueError(CANARY)

    monkeypatch.setattr(TOOLS[0], "run", broken)
    result = _call("check_citations", {"claims": CLAIMS})
    assert _error(result) == {"category": "internal", "message": "internal error (ValueError)"}
    _no_canary(result)
    # the server keeps serving after it
    monkeypatch.undo()
    assert _report(_call("check_citations", {"claims": CLAIMS}))["claim_count"] == 2


def test_call_tool_without_the_sdk_raises_the_fixed_errors() -> None:
    from citelens.errors import CitelensError

    with pytest.raises(CitelensError, match=r"^tool arguments must be a JSON object$"):
        call_tool("check_citations", [CANARY])
    assert call_tool("check_grounding", {"answer": "a", "context": "a"})["grounded"] is True


# -- the command ---------------------------------------------------------------------------------


def test_missing_extra_exits_2_with_the_fixed_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # None in sys.modules makes an import raise ModuleNotFoundError, as without the extra: the
    # SDK's packages and every submodule already imported by this session
    for name in [n for n in sys.modules if n.split(".")[0] in ("mcp", "mcp_types")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "citelens.mcp._server", raising=False)
    assert main(["mcp"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "citelens: error [input]: citelens mcp needs the mcp extra: pip install 'citelens[mcp]'\n"
    )


def test_importing_citelens_mcp_does_not_import_the_sdk() -> None:
    code = (
        "import sys, citelens, citelens.mcp, citelens.cli._mcp\n"
        "print(sorted(m for m in ('mcp', 'mcp_types') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout) == (0, "[]\n")


def test_stdio_session_of_the_real_command() -> None:
    # `python -m citelens mcp` as a client starts it: the initialize handshake, the listing
    # and one call over real pipes
    params = StdioServerParameters(command=sys.executable, args=["-m", "citelens", "mcp"])

    async def work(client: Client) -> tuple[list[str], dict[str, Any]]:
        listed = await client.list_tools()
        result = await client.call_tool("check_summary_citations", SUMMARY)
        return [t.name for t in listed.tools], _report(result)

    names, report = _session(work, mode="legacy", server=params)
    assert names == list(TOOL_NAMES)
    assert report["metrics"]["coverage"] == 0.5
