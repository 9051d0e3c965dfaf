"""Gold datasets on disk (gold-harness.md §2.1, §2.7–§2.9): the bundled sample, loading a
dataset directory with every problem collected, and the dataset digest."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from citelens._fixed import attempt
from citelens.errors import GoldError
from citelens.gold._case_files import (
    Problems,
    nonempty_str,
    parse_fixture,
    parse_grounding,
    parse_json,
    parse_qa,
)
from citelens.gold._cases import DatasetCheck, GoldDataset, GroundingCase, QACase, StyleItem

__all__ = ["bundled_dataset_dir", "check_dataset", "dataset_digest", "load_dataset"]


def bundled_dataset_dir() -> Path:
    """Directory of the sample dataset shipped inside the package (§2.8)."""
    return Path(__file__).resolve().parent / "data"


def dataset_digest(files: list[tuple[str, bytes]]) -> str:
    """``sha256:`` digest over ``(relative path, raw bytes)`` pairs (§2.9)."""
    lines = sorted(f"{rel}\t{hashlib.sha256(raw).hexdigest()}\n" for rel, raw in files)
    # surrogateescape: a file name that is not UTF-8 on disk reaches here with its raw bytes
    # escaped (os.scandir), and is hashed as those bytes
    return "sha256:" + hashlib.sha256("".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def check_dataset(root: str | os.PathLike[str] | None = None) -> DatasetCheck:
    """Load and validate a dataset directory, collecting every problem (§2.7); never raises.

    ``root`` defaults to the bundled sample dataset. An unexpected exception inside citelens
    raises :class:`~citelens.errors.InternalError`.
    """
    return attempt(lambda: _check_dataset(root))


def _check_dataset(root: str | os.PathLike[str] | None) -> DatasetCheck:
    shown = str(bundled_dataset_dir()) if root is None else os.fspath(root)
    base = Path(shown)
    cases_dir = base / "cases"
    names: list[str] = []
    # os.path: False for any OSError (an over-long name raises ENAMETOOLONG from Path.is_dir)
    if os.path.isdir(cases_dir):
        try:
            names = sorted(
                entry.name
                for entry in os.scandir(cases_dir)
                if entry.name.endswith(".json")
                and not entry.name.startswith("_")
                and entry.is_file()
            )
        except OSError:
            names = []
    if not names:
        return DatasetCheck(shown, (), None, no_cases=True)
    problems: list[str] = []
    files: list[tuple[str, bytes]] = []
    qa: list[QACase] = []
    grounding: list[GroundingCase] = []
    ignored: dict[str, int] = {}
    order: list[str] = []
    id_files: dict[str, str] = {}
    for name in names:
        rel = f"cases/{name}"
        pr = Problems(rel)
        raw: bytes | None = None
        try:
            raw = (cases_dir / name).read_bytes()
        except OSError:
            raw = None
        if raw is None:
            pr.add("file could not be read")
            problems.extend(pr.items)
            continue
        files.append((rel, raw))
        data, failed = parse_json(raw)
        if failed is not None:
            pr.add(failed)
            problems.extend(pr.items)
            continue
        if not isinstance(data, dict):
            pr.add("must be a JSON object")
            problems.extend(pr.items)
            continue
        case_id = data.get("id")
        if case_id is None:
            pr.add("id: is required")
        elif not nonempty_str(case_id):
            pr.add("id: must be a non-empty string")
        elif case_id in id_files:
            pr.add(
                f"id: duplicate id {json.dumps(case_id, ensure_ascii=False)} "
                f"(also in {id_files[case_id]})"
            )
        else:
            id_files[case_id] = rel
        cid = case_id if isinstance(case_id, str) else ""
        kind = data.get("kind")
        if kind is not None and not isinstance(kind, str):
            pr.add("kind: must be a string")
            problems.extend(pr.items)
            continue
        if kind is None or kind == "qa":
            qa.append(parse_qa(data, cid, name, pr))
            order.append(cid)
        elif kind == "grounding":
            grounding.append(parse_grounding(data, cid, name, pr))
            order.append(cid)
        else:
            ignored[kind] = ignored.get(kind, 0) + 1
        problems.extend(pr.items)
    fixture: tuple[StyleItem, ...] | None = None
    fixture_path = base / "fixtures" / "citation-styles.json"
    if os.path.isfile(fixture_path):
        fraw: bytes | None
        try:
            fraw = fixture_path.read_bytes()
        except OSError:
            fraw = None
        if fraw is None:
            problems.append("fixtures/citation-styles.json: file could not be read")
        else:
            files.append(("fixtures/citation-styles.json", fraw))
            fixture = parse_fixture(fraw, problems)
    if problems:
        return DatasetCheck(shown, tuple(problems), None)
    dataset = GoldDataset(
        root=shown,
        qa=tuple(qa),
        grounding=tuple(grounding),
        ignored=dict(sorted(ignored.items())),
        fixture=fixture,
        digest=dataset_digest(files),
        order=tuple(order),
    )
    return DatasetCheck(shown, (), dataset)


def load_dataset(root: str | os.PathLike[str] | None = None) -> GoldDataset:
    """Load a dataset directory; raises :class:`GoldError` when it has no cases or is invalid
    (:class:`~citelens.errors.InternalError` for an unexpected exception inside citelens)."""
    check = check_dataset(root)
    if check.no_cases:
        raise GoldError("gold dataset has no cases", "input")
    if check.dataset is None:
        raise GoldError("gold dataset is invalid", "input")
    return check.dataset
