"""The handlers of ``citelens review render|export|import|gate`` (the parsers are in
:mod:`citelens.cli._review`). Engines are imported inside each handler, so building the parser
loads none of them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citelens._fixed import attempt
from citelens._jsonout import canonical_json
from citelens.errors import CitelensError, SummaryReviewError

__all__ = [
    "export",
    "gate",
    "gate_failures",
    "guard",
    "import_",
    "import_failures",
    "render",
    "sealed_file_limit",
]


_READ_FAILED = "review input file could not be read"
_WRITE_FAILED = "review output could not be written"
_EXIT_OK = 0
_EXIT_FAILED = 1
# The sealed file is canonical JSON of {"commitment", "private_json"}; private_json is ASCII
# canonical JSON of at most MAX_PRIVATE_JSON characters, and as a JSON string each of its
# characters takes at most 2 bytes (only '"' and '\\' are escaped). The slack allows the
# commitment and a reformatted (indented) outer object.
_SEALED_SLACK = 65_536


def sealed_file_limit() -> int:
    """The most bytes a sealed review file may hold (``2 * MAX_PRIVATE_JSON`` + slack)."""
    from citelens.review import MAX_PRIVATE_JSON

    return 2 * MAX_PRIVATE_JSON + _SEALED_SLACK


class _Input(Exception):
    """Internal: an input file could not be read (no value carried)."""


def _read_error() -> SummaryReviewError:
    return SummaryReviewError(_READ_FAILED, "input")


def _write_error() -> SummaryReviewError:
    return SummaryReviewError(_WRITE_FAILED, "io")


def _loads(data: bytes) -> Any:
    """One review JSON document (UTF-8, BOM ignored, NaN/Infinity rejected, nulls kept).

    A key repeated in any object raises ``DuplicateKey`` (a ``ValueError``): review documents
    are read as written, and ``json.loads`` would silently keep the last occurrence."""
    import json

    from citelens.io import check_json, decode_utf8, reject_constant
    from citelens.review._common import unique_object

    check_json(data, lines=False)  # depth and size before json.loads (a ValueError if not)
    return json.loads(
        decode_utf8(data), parse_constant=reject_constant, object_pairs_hook=unique_object
    )


def _json_file(path: str) -> Any:
    """One JSON document of a review file; unreadable or malformed (a repeated key
    included) is an unreadable input."""
    failed = False
    value: Any = None
    from citelens.io import ReadFailure, read_bounded

    try:
        value = _loads(read_bounded(Path(path)))  # never more than the readers' file bound
    except (OSError, ValueError, RecursionError, ReadFailure):  # unreadable, too large, bad JSON
        failed = True
    if failed:
        raise _Input
    return value


def _tampered() -> SummaryReviewError:
    return SummaryReviewError("invalid_review_import", "review")


def _sealed_file(path: str) -> Any:
    """The sealed review file, read at most :func:`sealed_file_limit` + 1 bytes: a longer
    file cannot hold a sealed document citelens wrote, so it is rejected as tampered without
    being read to its end; so is a repeated key at any depth. Unreadable or malformed JSON
    is an unreadable input, as for every other file."""
    from citelens.review._common import DuplicateKey

    limit = sealed_file_limit()
    failed = False
    data = b""
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    except (OSError, ValueError):  # unreadable file, or a path the OS cannot name (NUL byte)
        failed = True
    if failed:
        raise _Input
    if len(data) > limit:
        raise _tampered()
    duplicate = False
    value: Any = None
    try:
        value = _loads(data)
    except DuplicateKey:
        duplicate = True
    except (ValueError, RecursionError):  # bad UTF-8 or bad JSON
        failed = True
    if failed:
        raise _Input
    if duplicate:
        raise _tampered()
    return value


def _text_file(path: str) -> str:
    """The exact UTF-8 text of a file (no newline is added or removed)."""
    failed = False
    text = ""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except (OSError, ValueError):  # unreadable file or invalid UTF-8
        failed = True
    if failed:
        raise _Input
    return text


def _records(path: str) -> list[Any]:
    """A record collection file (.json list, .jsonl, .csv, .parquet, Arrow IPC) as a list."""
    from citelens.io import ReadFailure, is_table_object, read_data_file, table_rows
    from citelens.review import MAX_ROWS

    failed = False
    value: Any = None
    try:
        value = read_data_file(path, MAX_ROWS)
    except ReadFailure:
        failed = True
    if failed:
        raise _Input
    rows = table_rows(value) if is_table_object(value) else value
    if not isinstance(rows, list):
        raise _Input
    return rows


def _key(path: str) -> bytes:
    failed = False
    data = b""
    try:
        data = Path(path).read_bytes()
    except (OSError, ValueError):  # unreadable file, or a path the OS cannot name (NUL byte)
        failed = True
    if failed:
        raise _Input
    return data


def _write(path: str, text: str, *, private: bool = False) -> None:
    """Write ``text`` atomically; ``private`` files (PRIVATE: raw identifiers) are 0600."""
    from citelens._atomic import WriteFailure, write_text_atomic

    failed = False
    try:
        write_text_atomic(path, text, private=private)
    except WriteFailure:
        failed = True
    if failed:
        raise _write_error()


def _emit(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        _write(out, text)


def _has(value: object, *keys: str) -> bool:
    """A JSON object holding at least ``keys`` (the shape a setup or binding row needs)."""
    return isinstance(value, dict) and all(key in value for key in keys)


def _rows_with(value: object, *keys: str) -> bool:
    """A JSON value the command iterates as rows (a list, or an object or string, which
    iterate as their keys or characters) whose every item is an object holding ``keys``.

    An empty object or string is zero rows, as iterating it gives, so the capability's own
    check reports the empty collection.
    """
    return isinstance(value, list | dict | str) and all(_has(item, *keys) for item in value)


# --------------------------------------------------------------------------------------------


def _setup_shape(setup: object) -> bool:
    """The render setup document holds every key and nested object the command reads."""
    return (
        _has(
            setup,
            "packet_set_ref",
            "cases",
            "rubric",
            "conflict_of_interest",
            "holdout_commitment_digest",
            "submission_manifest_digests",
        )
        and isinstance(setup, dict)
        and _rows_with(setup["cases"], "case_ref", "source_evidence", "candidate_outputs")
        and all(
            _rows_with(case["source_evidence"], "evidence_ref", "content")
            for case in setup["cases"]
        )
        and _rows_with(
            setup["rubric"], "criterion_ref", "question", "minimum_score", "maximum_score"
        )
        and _has(setup["conflict_of_interest"], "reviewer_ref", "declaration_digest")
    )


def render(args: argparse.Namespace) -> int:
    from citelens.review import (
        ComparisonCase,
        ConflictOfInterest,
        RubricCriterion,
        SourceEvidence,
        render_blinded_packets,
    )

    setup = _json_file(args.setup)
    key = _key(args.key_file)
    if not _setup_shape(setup):
        raise _Input
    cases = [
        ComparisonCase(
            case_ref=case["case_ref"],
            source_evidence=tuple(
                SourceEvidence(evidence_ref=e["evidence_ref"], content=e["content"])
                for e in case["source_evidence"]
            ),
            candidate_outputs=case["candidate_outputs"],
        )
        for case in setup["cases"]
    ]
    rubric = [
        RubricCriterion(
            criterion_ref=r["criterion_ref"],
            question=r["question"],
            minimum_score=r["minimum_score"],
            maximum_score=r["maximum_score"],
        )
        for r in setup["rubric"]
    ]
    coi = setup["conflict_of_interest"]
    conflict = ConflictOfInterest(
        reviewer_ref=coi["reviewer_ref"],
        declaration_digest=coi["declaration_digest"],
        status=coi.get("status", "cleared"),
    )
    packets, mapping = render_blinded_packets(
        packet_set_ref=setup["packet_set_ref"],
        cases=cases,
        rubric=rubric,
        conflict_of_interest=conflict,
        holdout_commitment_digest=setup["holdout_commitment_digest"],
        submission_manifest_digests=setup["submission_manifest_digests"],
        randomization_key=key,
    )
    _write(args.packets_out, canonical_json([p.to_dict() for p in packets]))
    _write(args.mapping_out, mapping.to_private_json() + "\n", private=True)
    sys.stdout.write(
        canonical_json(
            {
                "packet_count": len(packets),
                "candidate_count": len(packets[0].candidates),
                "mapping_commitment": mapping.mapping_commitment,
            }
        )
    )
    return _EXIT_OK


def export(args: argparse.Namespace) -> int:
    from citelens.review import (
        BlindedPacket,
        ReviewBinding,
        SealedIdentityMapping,
        export_summary_review,
    )

    packet_docs = _json_file(args.packets)
    mapping_doc = _json_file(args.mapping)
    binding_rows = _records(args.bindings)
    claims = _records(args.claims)
    evidence = _records(args.evidence)
    summary = _text_file(args.summary)
    source = _text_file(args.source)
    key = _key(args.key_file)
    binding_keys = ("case_ref", "candidate_identity", "claim_id", "evidence_id")
    # A malformed packet or mapping document, or a binding row without its four fields, fails
    # the export like any other check (review.md §3.5: export raises only its one message).
    built = None
    if isinstance(packet_docs, list) and _rows_with(binding_rows, *binding_keys):
        built = _refused_export(
            lambda: (
                [BlindedPacket.from_dict(doc) for doc in packet_docs],
                SealedIdentityMapping.from_private_dict(mapping_doc),
            )
        )
    if built is None:
        raise SummaryReviewError("invalid_review_export", "review")
    packets, mapping = built
    bindings = [ReviewBinding(*(row[key] for key in binding_keys)) for row in binding_rows]
    request, sealed = export_summary_review(
        packets=packets,
        mapping=mapping,
        sealing_key=key,
        bindings=bindings,
        claims=claims,
        evidence=evidence,
        summary=summary,
        source=source,
        rubric_version=args.rubric_version,
        evidence_kind=args.evidence_kind,
    )
    _write(
        args.sealed_out,
        canonical_json({"commitment": sealed.commitment, "private_json": sealed.private_json}),
        private=True,
    )
    _emit(canonical_json(request), args.request_out)
    return _EXIT_OK


def _refused_export(build: Callable[[], Any]) -> Any:
    """``build()``, or ``None`` when a review record constructor rejected a document."""
    failed = False
    result: Any = None
    try:
        result = build()
    except SummaryReviewError:
        failed = True
    return None if failed else result


def _load_import(args: argparse.Namespace, claims: list[Any], evidence: list[Any]) -> Any:
    from citelens.review import SealedSummaryReview, import_summary_review

    document = _json_file(args.returned)
    sealed_doc = _sealed_file(args.sealed)
    summary = _text_file(args.summary)
    source = _text_file(args.source)
    key = _key(args.key_file)
    if not (
        isinstance(sealed_doc, dict)
        and set(sealed_doc) == {"commitment", "private_json"}
        and type(sealed_doc["private_json"]) is str
        and type(sealed_doc["commitment"]) is str
    ):
        raise _tampered()
    sealed = SealedSummaryReview(
        private_json=sealed_doc["private_json"], commitment=sealed_doc["commitment"]
    )
    return import_summary_review(
        document,
        sealed=sealed,
        sealing_key=key,
        claims=claims,
        evidence=evidence,
        summary=summary,
        source=source,
        minimum_cell_size=args.minimum_cell_size,
    )


def import_(args: argparse.Namespace) -> int:
    claims = _records(args.claims)
    evidence = _records(args.evidence)
    result = _load_import(args, claims, evidence)
    _emit(canonical_json(result.to_dict()), args.out)
    if result.reviewer_evidence_available:
        return _EXIT_OK
    return _failed("review import", import_failures(result))


def _failed(check: str, reasons: list[str]) -> int:
    """Exit 1 with the one stderr line every failing check prints (fixed reason words)."""
    sys.stderr.write(f"citelens: {check} gate failed: {', '.join(reasons)}\n")
    return _EXIT_FAILED


def import_failures(result: Any) -> list[str]:
    """Why an imported review is not complete reviewer evidence, as fixed reason words
    (review states and adjudication gaps, never a count or identifier)."""
    from citelens.review._import import STATES

    reasons = [] if result.evidence_kind == "reviewer" else ["synthetic_review"]
    counts = result.state_counts
    reasons.extend(f"{state} edges" for state in STATES if state != "accepted" and counts[state])
    if not counts["accepted"]:
        reasons.append("no accepted edges")
    adjudication = result.citation_support.adjudication
    if adjudication.unadjudicated_claim_count:
        reasons.append("unadjudicated claims")
    if adjudication.unadjudicated_citation_count:
        reasons.append("unadjudicated citations")
    return reasons or ["review incomplete"]


def gate_failures(checks: Any) -> list[str]:
    """The failing gate checks by name, each with its reason code when that says more than
    that it was measured (``summary_citation_support (missing_adjudication)``)."""
    return [
        check.gate if check.reason in ("measured", "ok") else f"{check.gate} ({check.reason})"
        for check in checks
        if not check.passed
    ]


def gate(args: argparse.Namespace) -> int:
    from citelens.review import evaluate_summary_gate, gate_passed

    claims = _records(args.claims)
    evidence = _records(args.evidence)
    thresholds = _json_file(args.thresholds)
    surfaces = _json_file(args.protected_surfaces)
    summary = _text_file(args.summary)
    source = _text_file(args.source)
    spans: Any = None
    if args.required_spans is not None:
        spans = _json_file(args.required_spans)
    review_import = None
    if args.returned is not None:
        if args.sealed is None or args.key_file is None:
            raise _Input
        review_import = _load_import(args, claims, evidence)
    checks = evaluate_summary_gate(
        summary=summary,
        source=source,
        claims=claims,
        evidence=evidence,
        thresholds=thresholds,
        protected_surfaces=surfaces,
        review_import=review_import,
        required_spans=spans,
    )
    passed = gate_passed(checks)
    _emit(canonical_json({"passed": passed, "checks": [c.to_dict() for c in checks]}), args.out)
    if passed:
        return _EXIT_OK
    return _failed("review", gate_failures(checks) or ["no checks evaluated"])


def guard(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """The command ``handler`` with its exit code: 2 for an unreadable input file or a review
    error, 3 for an internal error (``attempt``: any unexpected exception), never chained."""

    def command(args: argparse.Namespace) -> int:
        unreadable = False
        code = _EXIT_OK
        try:
            code = handler(args)
        except _Input:
            unreadable = True
        if unreadable:
            raise _read_error()
        return code

    def run(args: argparse.Namespace) -> int:
        from citelens.cli._common import fail

        error: CitelensError | None = None
        code = _EXIT_OK
        try:
            code = attempt(lambda: command(args))
        except CitelensError as exc:
            # a fresh error of the same class and message: no traceback of the input survives
            error = type(exc)(exc.args[0], exc.category)
        if error is not None:
            return fail(error)
        return int(code)

    return run
