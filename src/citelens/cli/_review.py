"""``citelens review render|export|import|gate``: the blinded review workflow on files.

Exit codes: 0 success (import: complete reviewer evidence; gate: every check passed), 1 the
import is not complete reviewer evidence or the gate did not pass, 2 bad input (a fixed message
on stderr that never echoes input values, paths or identifiers).

Private outputs (the identity mapping and the sealed review) hold raw identifiers: write them
only to access-controlled locations. The key file is read, never written or printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from citelens._atomic import WriteFailure, write_text_atomic
from citelens._jsonout import canonical_json
from citelens.cli._common import EXIT_FAILED, EXIT_OK, fail
from citelens.errors import CitelensError, SummaryReviewError
from citelens.io._files import ReadFailure, is_table_object, read_data_file, table_rows

__all__ = ["register"]

_READ_FAILED = "review input file could not be read"
_WRITE_FAILED = "review output could not be written"


class _Input(Exception):
    """Internal: an input file could not be read (no value carried)."""


def _read_error() -> SummaryReviewError:
    return SummaryReviewError(_READ_FAILED, "input")


def _write_error() -> SummaryReviewError:
    return SummaryReviewError(_WRITE_FAILED, "io")


def _reject_constant(_: str) -> float:
    raise ValueError


def _json_file(path: str) -> Any:
    """One JSON document (UTF-8, BOM ignored, NaN/Infinity rejected); nulls are kept."""
    failed = False
    value: Any = None
    try:
        text = Path(path).read_bytes().decode("utf-8")
        text = text.removeprefix("\ufeff")
        value = json.loads(text, parse_constant=_reject_constant)
    except Exception:
        failed = True
    if failed:
        raise _Input
    return value


def _text_file(path: str) -> str:
    """The exact UTF-8 text of a file (no newline is added or removed)."""
    failed = False
    text = ""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except Exception:
        failed = True
    if failed:
        raise _Input
    return text


def _records(path: str) -> list[Any]:
    """A record collection file (.json list, .jsonl, .csv, .parquet, Arrow IPC) as a list."""
    from citelens.review._api import MAX_ROWS

    failed = False
    rows: Any = None
    try:
        value = read_data_file(path, MAX_ROWS)
        rows = table_rows(value) if is_table_object(value) else value
    except ReadFailure:
        failed = True
    except Exception:
        failed = True
    if failed or not isinstance(rows, list):
        raise _Input
    return rows


def _key(path: str) -> bytes:
    failed = False
    data = b""
    try:
        data = Path(path).read_bytes()
    except Exception:
        failed = True
    if failed:
        raise _Input
    return data


def _write(path: str, text: str) -> None:
    failed = False
    try:
        write_text_atomic(path, text)
    except WriteFailure:
        failed = True
    except Exception:
        failed = True
    if failed:
        raise _write_error()


def _emit(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        _write(out, text)


# --------------------------------------------------------------------------------------------


def _render(args: argparse.Namespace) -> int:
    from citelens.review._api import (
        ComparisonCase,
        ConflictOfInterest,
        RubricCriterion,
        SourceEvidence,
        render_blinded_packets,
    )

    setup = _json_file(args.setup)
    key = _key(args.key_file)
    shape_ok = isinstance(setup, dict) and {
        "packet_set_ref",
        "cases",
        "rubric",
        "conflict_of_interest",
        "holdout_commitment_digest",
        "submission_manifest_digests",
    } <= set(setup)
    if not shape_ok:
        raise _Input
    built = False
    try:
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
        built = True
    except CitelensError:
        raise
    except Exception:
        built = False
    if not built:
        raise _Input
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
    _write(args.mapping_out, mapping.to_private_json() + "\n")
    sys.stdout.write(
        canonical_json(
            {
                "packet_count": len(packets),
                "candidate_count": len(packets[0].candidates),
                "mapping_commitment": mapping.mapping_commitment,
            }
        )
    )
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    from citelens.review._api import (
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
    built = False
    try:
        packets = [BlindedPacket.from_dict(doc) for doc in packet_docs]
        mapping = SealedIdentityMapping.from_private_dict(mapping_doc)
        bindings = [
            ReviewBinding(
                case_ref=row["case_ref"],
                candidate_identity=row["candidate_identity"],
                claim_id=row["claim_id"],
                evidence_id=row["evidence_id"],
            )
            for row in binding_rows
        ]
        built = True
    except Exception:
        built = False
    if not built:
        raise SummaryReviewError("invalid_review_export", "review")
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
    )
    _emit(canonical_json(request), args.request_out)
    return EXIT_OK


def _load_import(args: argparse.Namespace, claims: list[Any], evidence: list[Any]) -> Any:
    from citelens.review._api import SealedSummaryReview, import_summary_review

    document = _json_file(args.returned)
    sealed_doc = _json_file(args.sealed)
    summary = _text_file(args.summary)
    source = _text_file(args.source)
    key = _key(args.key_file)
    if not (
        isinstance(sealed_doc, dict)
        and set(sealed_doc) == {"commitment", "private_json"}
        and type(sealed_doc["private_json"]) is str
        and type(sealed_doc["commitment"]) is str
    ):
        raise SummaryReviewError("invalid_review_import", "review")
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


def _import(args: argparse.Namespace) -> int:
    claims = _records(args.claims)
    evidence = _records(args.evidence)
    result = _load_import(args, claims, evidence)
    _emit(canonical_json(result.to_dict()), args.out)
    return EXIT_OK if result.reviewer_evidence_available else EXIT_FAILED


def _gate(args: argparse.Namespace) -> int:
    from citelens.review._api import evaluate_summary_gate, gate_passed

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
    return EXIT_OK if passed else EXIT_FAILED


def _guard(handler: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        error: CitelensError | None = None
        code = EXIT_OK
        try:
            code = handler(args)
        except _Input:
            error = _read_error()
        except CitelensError as exc:
            error = type(exc)(exc.args[0], exc.category)
        except Exception:
            error = _read_error()
        if error is not None:
            return fail(error)
        return int(code)

    return run


def register(subparsers: Any) -> None:
    """Add ``citelens review`` and its subcommands."""
    parser = subparsers.add_parser(
        "review",
        help="blinded summary review: render packets, export, sealed import, gate",
        description=(
            "Blinded summary review (review.md). Private outputs (mapping, sealed review) hold "
            "raw identifiers: keep them and the key under access control."
        ),
        epilog="Exit codes: 0 success, 1 incomplete reviewer evidence or gate failed, 2 bad input.",
    )
    sub = parser.add_subparsers(dest="review_command", metavar="STEP")

    def usage(_args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    parser.set_defaults(func=usage)

    render = sub.add_parser("render", help="render blinded packets and the sealed identity mapping")
    render.add_argument(
        "setup", help="JSON: packet_set_ref, cases, rubric, conflict_of_interest, …"
    )
    render.add_argument("--key-file", required=True, help="evaluator key (>= 32 bytes)")
    render.add_argument("--packets-out", required=True, help="packets JSON (send to reviewers)")
    render.add_argument("--mapping-out", required=True, help="PRIVATE identity mapping JSON")
    render.set_defaults(func=_guard(_render))

    export = sub.add_parser("export", help="export the review request and the sealed document")
    export.add_argument("--packets", required=True)
    export.add_argument("--mapping", required=True)
    export.add_argument("--key-file", required=True)
    export.add_argument("--bindings", required=True, help="rows: case_ref, candidate_identity, …")
    export.add_argument("--claims", required=True)
    export.add_argument("--evidence", required=True)
    export.add_argument("--summary", required=True, help="exact summary text (UTF-8)")
    export.add_argument("--source", required=True, help="exact de-identified source text")
    export.add_argument("--rubric-version", type=int, default=1)
    export.add_argument("--evidence-kind", choices=("synthetic", "reviewer"), default="synthetic")
    export.add_argument("--request-out", help="public request JSON (default: stdout)")
    export.add_argument("--sealed-out", required=True, help="PRIVATE sealed review JSON")
    export.set_defaults(func=_guard(_export))

    def import_arguments(p: argparse.ArgumentParser, required: bool) -> None:
        p.add_argument("--sealed", required=required, help="PRIVATE sealed review JSON")
        p.add_argument("--key-file", required=required)
        p.add_argument("--minimum-cell-size", type=int, default=5)

    def artifact_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("--claims", required=True)
        p.add_argument("--evidence", required=True)
        p.add_argument("--summary", required=True)
        p.add_argument("--source", required=True)
        p.add_argument("--out", help="output JSON (default: stdout)")

    imp = sub.add_parser("import", help="import a returned decision document")
    imp.add_argument("returned", help="the reviewers' return document (JSON)")
    import_arguments(imp, True)
    artifact_arguments(imp)
    imp.set_defaults(func=_guard(_import))

    gate = sub.add_parser("gate", help="evaluate the summary gate")
    gate.add_argument("--returned", help="return document to import (with --sealed, --key-file)")
    import_arguments(gate, False)
    artifact_arguments(gate)
    gate.add_argument("--thresholds", required=True, help="JSON with the four threshold keys")
    gate.add_argument("--protected-surfaces", required=True, help="JSON list of strings")
    gate.add_argument("--required-spans", help="JSON {claim_id: [start, end]}")
    gate.set_defaults(func=_guard(_gate))
