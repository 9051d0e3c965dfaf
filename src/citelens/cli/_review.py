"""``citelens review render|export|import|gate``: the blinded review workflow on files.

Exit codes: 0 success (import: complete reviewer evidence; gate: every check passed), 1 the
import is not complete reviewer evidence or the gate did not pass, 2 bad input (a fixed message
on stderr that never echoes input values, paths or identifiers), 3 an internal error (a bug or a
broken environment, never bad input).

Private outputs (the identity mapping and the sealed review) hold raw identifiers: they are
created owner-only (0600); keep them in access-controlled locations. The key file is read,
never written or printed. Review JSON files are read strictly: a key repeated in any object
makes a file unreadable, and in the sealed review file it is a tampering (like a sealed file
longer than any citelens writes, which is rejected without being read to its end).

Importing this module loads no engine (polars, pyarrow, duckdb): ``citelens --help`` stays fast.
The engine modules are imported by the functions that run a command, and only there.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from citelens.cli import _run_review as handlers
from citelens.cli import command_help

__all__ = ["register"]

_FAILED_HELP = (
    "a gate check failed (always, --ci or not): the result JSON says which, and one line on "
    "stderr names them, citelens: review gate failed: <checks>"
)
_GATE_EXAMPLE = (
    "citelens review gate --claims claims.jsonl --evidence evidence.jsonl \\\n"
    "      --summary summary.txt --source source.txt --thresholds thresholds.json \\\n"
    "      --protected-surfaces surfaces.json --ci"
)


def register(subparsers: Any) -> None:
    """Add ``citelens review`` and its subcommands."""
    parser = subparsers.add_parser(
        "review",
        help="blinded summary review: render packets, export, sealed import, gate",
        **command_help(
            "Blinded summary review: render packets, export, sealed import, gate.",
            "STEP is render, export, import or gate (review.md); `citelens review STEP --help` "
            "explains each. Private outputs (mapping, sealed review) hold raw identifiers: "
            "keep them and the key under access control.",
            reads="the JSON documents, record files (.json, .jsonl, .csv, .parquet, Arrow), "
            "exact UTF-8 texts and key files each step names.",
            writes="each step's JSON documents (to stdout or the named files); PRIVATE files "
            "are created owner-only (0600).",
            ok="the step succeeded",
            failed="import: not complete reviewer evidence; gate: a check failed (always, "
            "--ci or not): one line on stderr, citelens: review [import] gate failed: <reasons>",
            example=_GATE_EXAMPLE,
        ),
    )
    sub = parser.add_subparsers(
        dest="review_command", metavar="STEP", help="the review step to run"
    )

    def usage(_args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    parser.set_defaults(func=usage)

    render = sub.add_parser(
        "render",
        help="render blinded packets and the sealed identity mapping",
        **command_help(
            "Render blinded review packets and the sealed identity mapping.",
            reads="SETUP (JSON: packet_set_ref, cases, rubric, conflict_of_interest, "
            "holdout_commitment_digest, submission_manifest_digests) and --key-file.",
            writes="--packets-out (packets JSON, for reviewers), --mapping-out (PRIVATE "
            "identity mapping, 0600) and a JSON line of counts and the mapping commitment on "
            "stdout.",
            ok="packets and mapping written",
            example="citelens review render setup.json --key-file review.key "
            "--packets-out packets.json --mapping-out mapping.json",
        ),
    )
    render.add_argument(
        "setup",
        metavar="SETUP",
        help="JSON: packet_set_ref, cases, rubric, conflict_of_interest, …",
    )
    render.add_argument("--key-file", required=True, help="evaluator key (>= 32 bytes)")
    render.add_argument("--packets-out", required=True, help="packets JSON (send to reviewers)")
    render.add_argument("--mapping-out", required=True, help="PRIVATE identity mapping JSON")
    render.set_defaults(func=handlers.guard(handlers.render))

    export = sub.add_parser(
        "export",
        help="export the review request and the sealed document",
        **command_help(
            "Export the public review request and the PRIVATE sealed review document.",
            reads="--packets and --mapping (the render outputs), --key-file, --bindings, "
            "--claims and --evidence (record files), --summary and --source (exact UTF-8 "
            "texts).",
            writes="the public request JSON on stdout or --request-out, and --sealed-out "
            "(PRIVATE sealed review, 0600).",
            ok="request and sealed review written",
            bad_input="bad input or usage, or the export fails a check "
            "(invalid_review_export): one fixed-category line on stderr",
            example="citelens review export --packets packets.json --mapping mapping.json "
            "\\\n      --key-file review.key --bindings bindings.jsonl --claims claims.jsonl "
            "\\\n      --evidence evidence.jsonl --summary summary.txt --source source.txt "
            "\\\n      --request-out request.json --sealed-out sealed.json",
        ),
    )
    export.add_argument("--packets", required=True, help="packets JSON (render --packets-out)")
    export.add_argument(
        "--mapping", required=True, help="PRIVATE identity mapping JSON (render --mapping-out)"
    )
    export.add_argument("--key-file", required=True, help="evaluator key (>= 32 bytes)")
    export.add_argument("--bindings", required=True, help="rows: case_ref, candidate_identity, …")
    export.add_argument("--claims", required=True, help="claim records file")
    export.add_argument("--evidence", required=True, help="evidence records file")
    export.add_argument("--summary", required=True, help="exact summary text (UTF-8)")
    export.add_argument("--source", required=True, help="exact de-identified source text")
    export.add_argument(
        "--rubric-version", type=int, default=1, help="rubric version number (default 1)"
    )
    export.add_argument(
        "--evidence-kind",
        choices=("synthetic", "reviewer"),
        default="synthetic",
        help="what the returned decisions will be: synthetic (never counts as reviewer "
        "evidence) or reviewer (default: synthetic)",
    )
    export.add_argument("--request-out", help="public request JSON (default: stdout)")
    export.add_argument("--sealed-out", required=True, help="PRIVATE sealed review JSON")
    export.set_defaults(func=handlers.guard(handlers.export))

    def import_arguments(p: argparse.ArgumentParser, required: bool) -> None:
        p.add_argument("--sealed", required=required, help="PRIVATE sealed review JSON")
        p.add_argument("--key-file", required=required, help="the key the export sealed with")
        p.add_argument(
            "--minimum-cell-size",
            type=int,
            default=5,
            help="agreement cells below this size are suppressed (default 5)",
        )

    def artifact_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("--claims", required=True, help="claim records file")
        p.add_argument("--evidence", required=True, help="evidence records file")
        p.add_argument("--summary", required=True, help="exact summary text (UTF-8)")
        p.add_argument("--source", required=True, help="exact de-identified source text")
        p.add_argument("--out", help="output JSON (default: stdout)")
        p.add_argument(
            "--ci",
            action="store_true",
            help="accepted for the one CLI grammar: this step always exits 1 when its check "
            "fails (the reasons go to stderr)",
        )

    imp = sub.add_parser(
        "import",
        help="import a returned decision document",
        **command_help(
            "Import the reviewers' returned decisions against the sealed review.",
            reads="RETURNED (the reviewers' JSON), --sealed, --key-file, --claims and "
            "--evidence (record files), --summary and --source (the exact texts exported).",
            writes="the import result JSON (state counts, agreement, reviewer evidence "
            "availability) on stdout or --out.",
            ok="the import is complete reviewer evidence",
            failed="the import is not complete reviewer evidence (synthetic, disputed, "
            "missing or unadjudicated): one line on stderr, citelens: review import gate "
            "failed: <reasons>",
            bad_input="bad input or usage, or a tampered or mismatched import "
            "(invalid_review_import): one fixed-category line on stderr",
            example="citelens review import returned.json --sealed sealed.json "
            "--key-file review.key \\\n      --claims claims.jsonl --evidence evidence.jsonl "
            "--summary summary.txt --source source.txt",
        ),
    )
    imp.add_argument("returned", metavar="RETURNED", help="the reviewers' return document (JSON)")
    import_arguments(imp, True)
    artifact_arguments(imp)
    imp.set_defaults(func=handlers.guard(handlers.import_))

    gate = sub.add_parser(
        "gate",
        help="evaluate the summary gate",
        **command_help(
            "Evaluate the summary gate: support, minimality, leakage and the review.",
            reads="--claims and --evidence (record files), --summary and --source (exact "
            "texts), --thresholds and --protected-surfaces (JSON), optionally "
            "--required-spans and a review to import (--returned with --sealed and "
            "--key-file).",
            writes="the gate result JSON ({passed, checks}) on stdout or --out.",
            ok="every gate check passed",
            failed=_FAILED_HELP,
            example=_GATE_EXAMPLE,
        ),
    )
    gate.add_argument("--returned", help="return document to import (with --sealed, --key-file)")
    import_arguments(gate, False)
    artifact_arguments(gate)
    gate.add_argument(
        "--thresholds", required=True, metavar="F", help="JSON with the four threshold keys"
    )
    gate.add_argument(
        "--protected-surfaces", required=True, metavar="F", help="JSON list of strings"
    )
    gate.add_argument("--required-spans", metavar="F", help="JSON {claim_id: [start, end]}")
    gate.set_defaults(func=handlers.guard(handlers.gate))
