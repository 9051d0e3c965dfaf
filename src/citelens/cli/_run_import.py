"""``citelens import``: run an import (imported only when the command runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from citelens.cli._common import EXIT_OK, cli_io, fail
from citelens.cli._progress import input_bytes, open_progress
from citelens.errors import CitelensError
from citelens.importers import import_corpus

__all__ = ["run"]


@cli_io(("input",), outputs=("out",))
def run(args: argparse.Namespace) -> int:
    """Run ``citelens import``."""
    try:
        size = input_bytes([Path(args.input)])
        with open_progress(getattr(args, "progress", None), size=size) as display:
            display.phase("importing")  # read, converted and written batch by batch
            summary = import_corpus(args.format, args.input, args.out, mkdir=args.mkdir)
            display.finish()
    except CitelensError as error:
        return fail(error)
    rows = summary.rows
    sys.stderr.write(
        f"citelens: imported {summary.exchanges} exchanges: {rows['claims']} claims, "
        f"{rows['citations']} citations, {rows['sources']} sources with text\n"
    )
    return EXIT_OK
