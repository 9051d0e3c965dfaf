"""Usage errors (issue 10 item 2): exit 2, the fixed ``citelens: error [category]: message``
form, and never the value that was given (argparse quotes it: ``invalid int value: 'X'``)."""

from __future__ import annotations

import pytest

from citelens.cli import main, usage_message

CANARY = "CANARY-usage-5d1e"


@pytest.mark.parametrize(
    "argv",
    [
        ["corpus", "support", "in", "--out", "o", "--batch-documents", CANARY],
        ["support", "--claims", "c.jsonl", "--max-claims", CANARY],
        ["support", "--claims", "c.jsonl", f"--{CANARY}"],
        ["support", "--claims", "c.jsonl", CANARY, "extra"],
        ["corpus", CANARY],
        [CANARY],
        ["minimality", "--max-excess-tokens", CANARY],
        ["summary-citations", "--claims", "c", "--evidence", "e", "--fixture-count", CANARY],
        ["gold", CANARY],
        ["review", CANARY],
        ["sql", "out", "SELECT 1", "--format", CANARY],
    ],
)
def test_usage_errors_never_echo_the_value(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert CANARY not in out and CANARY not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("citelens: error [") and "]: " in last


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # argparse's own texts (Python 3.11), values quoted with %r or appended unquoted
        (
            "argument --max-claims: invalid int value: 'x1'",
            "argument --max-claims: invalid int value",
        ),
        (
            "argument MODE: invalid choice: 'x' (choose from 'support', 'minimality')",
            "argument MODE: invalid choice",
        ),
        ("unrecognized arguments: --token=abc def", "unrecognized arguments"),
        ("ambiguous option: --ma could match --max-claims, --max-evidence", "ambiguous option"),
        (
            "the following arguments are required: --claims",
            "the following arguments are required: --claims",
        ),
        ("argument --out: expected one argument", "argument --out: expected one argument"),
    ],
)
def test_usage_message_keeps_only_citelens_words(message: str, expected: str) -> None:
    assert usage_message(message) == expected
