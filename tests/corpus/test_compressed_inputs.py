"""Corpus inputs compressed (gzip, zstd) and TSV (issue 11, item 2): every form stages block by
block to the same tables as the plain file, so summaries and documents are byte-identical;
directories may mix plain and compressed files of one format; corrupt, truncated and
over-large streams are refused with the details of the single-document readers."""

from __future__ import annotations

import gc
import gzip
import importlib
import pathlib
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import pytest
import zstandard

from citelens import corpus
from citelens.corpus import _scan, _staging
from citelens.errors import CorpusError
from citelens.io import _bounds, _compressed, _csv

KEY = b"citelens-test-pseudonym-key-0001"  # one key: pseudonyms (and summaries) compare

# A hand-checked corpus of two documents. d1: claims c1 (0-5) and c2 (6-9), evidence e1 (0-3)
# and e2 (4-8), one edge c1 -> e1 (valid). d2: claim c1, evidence e1, one edge c1 -> e9
# (no such evidence: missing_evidence). So 3 claims, 3 evidence, 2 edges (1 valid, 1 invalid),
# orphan claims 1 (d1 c2, no edge), unused evidence 2 (d1 e2, d2 e1), d1 passes, d2 does not.
CLAIMS = (
    b'{"document_ref":"d1","claim_id":"c1","start":0,"end":5}\n'
    b'{"document_ref":"d1","claim_id":"c2","start":6,"end":9}\n'
    b'{"document_ref":"d2","claim_id":"c1","start":0,"end":4}\n'
)
EVIDENCE = (
    b"document_ref,evidence_id,start,end,source_length\nd1,e1,0,3,10\nd1,e2,4,8,10\nd2,e1,2,6,10\n"
)
CITATIONS = b"document_ref,claim_id,evidence_id\nd1,c1,e1\nd2,c1,e9\n"
# The same files with a tab between fields.
TEXT: dict[str, bytes] = {
    "claims.jsonl": CLAIMS,
    "evidence.csv": EVIDENCE,
    "citations.csv": CITATIONS,
    "evidence.tsv": EVIDENCE.replace(b",", b"\t"),
    "citations.tsv": CITATIONS.replace(b",", b"\t"),
}
PLAIN = {"claims": "claims.jsonl", "evidence": "evidence.csv", "citations": "citations.csv"}


def _zstd(data: bytes) -> bytes:
    return bytes(zstandard.ZstdCompressor().compress(data))


PACK: dict[str, Callable[[bytes], bytes]] = {".gz": gzip.compress, ".zst": _zstd}


def _write(folder: pathlib.Path, name: str, data: bytes) -> pathlib.Path:
    """``data`` written as ``name``, compressed as its last suffix says."""
    folder.mkdir(parents=True, exist_ok=True)
    pack = PACK.get(pathlib.Path(name).suffix.lower())
    path = folder / name
    path.write_bytes(pack(data) if pack else data)
    return path


def _content(name: str) -> bytes:
    """The plain content of a file named ``name`` (``claims.ndjson.gz`` holds CLAIMS)."""
    role, fmt = name.split(".")[:2]
    return TEXT[f"{role}.{'jsonl' if fmt == 'ndjson' else fmt}"]


def _run(paths: dict[str, pathlib.Path]) -> Any:
    return corpus.run_support_corpus(
        paths["claims"], paths["evidence"], paths["citations"], pseudonym_key=KEY
    )


def _plain(folder: pathlib.Path) -> Any:
    return _run({role: _write(folder, name, TEXT[name]) for role, name in PLAIN.items()})


def test_plain_corpus_counts(tmp_path: pathlib.Path) -> None:
    summary = _plain(tmp_path).summary
    # the counts of the comment at CLAIMS
    assert summary["document_count"] == 2
    assert (summary["claim_count"], summary["evidence_count"], summary["citation_count"]) == (
        3,
        3,
        2,
    )
    assert (summary["valid_citation_count"], summary["invalid_citation_count"]) == (1, 1)
    assert summary["invalid_citation_reasons"]["missing_evidence"] == 1
    assert (summary["orphan_claim_count"], summary["unused_evidence_count"]) == (1, 2)
    assert summary["passed_document_count"] == 1


FORMS = [
    "claims.jsonl.gz",
    "claims.jsonl.zst",
    "claims.ndjson.gz",
    "claims.ndjson.zst",
    "evidence.csv.gz",
    "evidence.csv.zst",
    "evidence.tsv",
    "evidence.tsv.gz",
    "evidence.tsv.zst",
    "citations.csv.gz",
    "citations.tsv.zst",
    "citations.TSV.GZ",  # suffixes in any case
]


@pytest.mark.parametrize("block_bytes", [64, _staging.BLOCK_BYTES])
@pytest.mark.parametrize("name", FORMS)
def test_each_form_equals_the_plain_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, name: str, block_bytes: int
) -> None:
    # 64-byte blocks: about one JSON Lines line per block, one or two CSV rows per block
    monkeypatch.setattr(_staging, "BLOCK_BYTES", block_bytes)
    plain = _plain(tmp_path / "plain")
    role = name.split(".")[0]
    paths = {r: tmp_path / "plain" / n for r, n in PLAIN.items()}
    paths[role] = _write(tmp_path / "form", name, _content(name.lower()))
    result = _run(paths)
    assert result.summary_json() == plain.summary_json()
    assert result.documents.equals(plain.documents)
    assert result.summary["citation_count"] == 2  # as counted at CLAIMS


def test_directories_mix_plain_and_compressed_files(tmp_path: pathlib.Path) -> None:
    plain = _plain(tmp_path / "plain")
    lines = CLAIMS.splitlines(keepends=True)
    header, *rows = EVIDENCE.splitlines(keepends=True)
    _write(tmp_path / "claims", "a.jsonl", lines[0])
    _write(tmp_path / "claims", "b.jsonl.gz", lines[1])
    _write(tmp_path / "claims", "c.ndjson.zst", lines[2])
    tsv = [line.replace(b",", b"\t") for line in (header, *rows)]
    _write(tmp_path / "evidence", "a.tsv", tsv[0] + tsv[1])
    _write(tmp_path / "evidence", "b.tsv.zst", tsv[0] + tsv[2] + tsv[3])
    _write(tmp_path / "evidence", "notes.txt", b"not a data file")  # not listed as an input
    _write(tmp_path / "citations", "a.csv.gz", CITATIONS)
    paths = {role: tmp_path / role for role in PLAIN}
    result = _run(paths)
    assert result.summary_json() == plain.summary_json()
    assert result.documents.equals(plain.documents)


@pytest.mark.parametrize(
    "names",
    [
        ("a.jsonl", "b.csv.gz"),  # JSON Lines and CSV
        ("a.csv", "b.tsv.gz"),  # CSV and TSV are two formats too
        ("a.parquet", "b.jsonl.zst"),
    ],
)
def test_a_directory_of_two_formats_is_refused(
    tmp_path: pathlib.Path, names: tuple[str, str]
) -> None:
    for name in names:
        (tmp_path / "claims").mkdir(exist_ok=True)
        (tmp_path / "claims" / name).write_bytes(b"")
    paths = {role: tmp_path / "plain" / name for role, name in PLAIN.items()}
    for name in PLAIN.values():
        _write(tmp_path / "plain", name, TEXT[name])
    paths["claims"] = tmp_path / "claims"
    with pytest.raises(CorpusError) as caught:
        _run(paths)
    assert str(caught.value) == "claims input could not be read"


def test_tsv_keeps_a_tab_inside_a_quoted_cell(tmp_path: pathlib.Path) -> None:
    # The note "a<TAB>b" is quoted in the TSV file: one cell (split at its tab, the row would
    # have six cells for a header of five and the file would be malformed CSV).
    tsv = b'document_ref\tevidence_id\tstart\tend\tnote\nd1\te1\t0\t3\t"a\tb"\nd1\te2\t4\t8\t\n'
    csv = b"document_ref,evidence_id,start,end,note\nd1,e1,0,3,a\tb\nd1,e2,4,8,\n"
    staged = _scan._path_frame(_write(tmp_path, "evidence.tsv.gz", tsv), "evidence").collect()
    # every cell text, the empty cell null
    assert staged.rows() == [("d1", "e1", "0", "3", "a\tb"), ("d1", "e2", "4", "8", None)]
    claims = _write(tmp_path, "claims.jsonl", CLAIMS)
    citations = _write(tmp_path, "citations.csv", CITATIONS)
    from_tsv = _run(
        {"claims": claims, "evidence": tmp_path / "evidence.tsv.gz", "citations": citations}
    )
    from_csv = _run(
        {
            "claims": claims,
            "evidence": _write(tmp_path, "evidence.csv", csv),
            "citations": citations,
        }
    )
    # d1's two evidence records read (d2 has none here, so its edge c1 -> e9 is still invalid)
    assert from_tsv.summary["evidence_count"] == 2
    assert from_tsv.summary["valid_citation_count"] == 1
    assert from_tsv.summary_json() == from_csv.summary_json()
    assert from_tsv.documents.equals(from_csv.documents)


def test_summary_citations_mode_reads_compressed_tsv(tmp_path: pathlib.Path) -> None:
    # TSV cells are text typed by the contract as CSV cells are (start/end become integers)
    claims = b'{"document_ref":"d1","claim":"x","citations":[{"evidence_id":"n1"}]}\n'
    evidence = b"document_ref,id,start,end,value\nd1,n1,0,5,v\n"
    plain = corpus.run_summary_citations_corpus(
        _write(tmp_path, "claims.jsonl", claims),
        _write(tmp_path, "evidence.csv", evidence),
        pseudonym_key=KEY,
    )
    packed = corpus.run_summary_citations_corpus(
        _write(tmp_path, "claims.jsonl.zst", claims),
        _write(tmp_path, "evidence.tsv.gz", evidence.replace(b",", b"\t")),
        pseudonym_key=KEY,
    )
    assert packed.summary_json() == plain.summary_json()
    assert packed.documents.equals(plain.documents)
    # one claim citing n1, which exists with a valid span (0-5): 1 valid citation, passing
    totals = plain.summary["totals"]
    assert (totals["documents_passing"], totals["valid_citations"]) == (1, 1)


def _refusal(tmp_path: pathlib.Path, name: str, data: bytes) -> tuple[str, str | None]:
    """The message and detail of the error of a corpus whose ``name`` file holds ``data``
    (already compressed: written as given), the other roles plain and valid."""
    paths = {role: _write(tmp_path / "plain", n, TEXT[n]) for role, n in PLAIN.items()}
    path = tmp_path / name
    path.write_bytes(data)
    paths[name.split(".")[0]] = path
    with pytest.raises(CorpusError) as caught:
        _run(paths)
    return str(caught.value), caught.value.detail


GZIP_CLAIMS = gzip.compress(CLAIMS)
ZSTD_EVIDENCE = _zstd(EVIDENCE.replace(b",", b"\t"))


@pytest.mark.parametrize(
    ("name", "data", "detail"),
    [
        ("claims.jsonl.gz", b"not gzip at all", "claims file is not valid gzip"),
        ("claims.jsonl.gz", GZIP_CLAIMS[: len(GZIP_CLAIMS) // 2], "claims file is not valid gzip"),
        ("evidence.csv.gz", b"not gzip at all", "evidence file is not valid gzip"),
        ("claims.jsonl.zst", _zstd(CLAIMS)[:-4], "claims file is not valid zstd"),
        ("evidence.tsv.zst", ZSTD_EVIDENCE[:-4], "evidence file is not valid zstd"),
        ("evidence.csv.zst", b"", "evidence file is not valid zstd"),
        # valid streams of malformed content: the content's details
        (
            "claims.jsonl.gz",
            gzip.compress(CLAIMS + b"{bad\n"),
            "claims JSONL line 4 is not valid JSON",
        ),
        (
            "evidence.csv.gz",
            gzip.compress(EVIDENCE + b"d3,\xe9,0,1,10\n"),
            "evidence file is not valid UTF-8",
        ),
        ("evidence.tsv.gz", gzip.compress(b"document_ref\tend\nd1\t1\t2\n"), None),
        # Parquet and Arrow IPC compress internally; .json is no corpus format
        ("claims.parquet.gz", b"", "claims file type is not supported"),
        ("claims.json.gz", gzip.compress(b"[]"), "claims file type is not supported"),
    ],
)
def test_unreadable_streams_name_their_cause(
    tmp_path: pathlib.Path, name: str, data: bytes, detail: str | None
) -> None:
    message, got = _refusal(tmp_path, name, data)
    role = name.split(".")[0]
    assert message == f"{role} input could not be read"
    # a ragged TSV row is malformed CSV (the detail names the format, not TSV)
    assert got == (detail or f"{role} file is not valid CSV")


@pytest.mark.parametrize(
    ("name", "role"), [("claims.jsonl.gz", "claims"), ("evidence.csv.zst", "evidence")]
)
def test_a_bomb_is_refused_by_its_decompressed_size(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, name: str, role: str
) -> None:
    # A valid first line, then 4 MiB of empty lines: a few kB compressed. With the bound at
    # 1 MiB, what the file decompresses to is refused, with the single-document detail.
    monkeypatch.setattr(_bounds, "MAX_FILE_BYTES", 1024 * 1024)
    monkeypatch.setattr(_compressed, "_CHUNK", 64 * 1024)
    first = _content(name).splitlines(keepends=True)[0]
    data = first + b"\n" * (4 * 1024 * 1024)
    packed = PACK[pathlib.Path(name).suffix](data)
    assert len(packed) < 64 * 1024
    message, detail = _refusal(tmp_path, name, packed)
    assert message == f"{role} input could not be read"
    assert detail == f"{role} file decompresses to more than 1 GiB"


def test_zstd_without_a_decoder(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_zstd(name: str, *args: Any) -> Any:
        if name in ("zstandard", "compression.zstd"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_zstd)
    for name in ("claims.jsonl.zst", "evidence.csv.zst"):
        role = name.split(".")[0]
        _, detail = _refusal(tmp_path, name, _zstd(_content(name)))
        assert detail == f"{role} file is zstd-compressed: install the zstandard package"


def test_staging_leaves_no_decompressed_copy(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A compressed CSV file is decompressed into its staging directory and staged from there:
    # the copy is removed once staged, and with the directory when the stream fails midway.
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    path = _write(tmp_path, "evidence.tsv.gz", TEXT["evidence.tsv"])
    frame = _scan._path_frame(path, "evidence")
    (stage,) = temp.iterdir()
    assert [p.name for p in stage.iterdir()] == ["data.parquet"]
    assert frame.collect().height == 3  # the three evidence rows
    del frame
    gc.collect()  # the plan that held the staging directory is released
    assert list(temp.iterdir()) == []
    # 20,000 distinct rows: the header decompresses from the first piece, the truncation is
    # met while the copy is written
    rows = b"".join(b"d%d,e%d,0,3,10\n" % (i, i) for i in range(20_000))
    cut = _write(tmp_path, "cut.csv.zst", EVIDENCE + rows)
    cut.write_bytes(cut.read_bytes()[:-4])
    copies: list[pathlib.Path] = []
    original = _csv._decompress

    def spy(source: pathlib.Path, compression: str, target: pathlib.Path) -> None:
        copies.append(target)
        original(source, compression, target)

    monkeypatch.setattr(_csv, "_decompress", spy)
    with pytest.raises(CorpusError) as caught:
        _scan._path_frame(cut, "evidence")
    assert caught.value.detail == "evidence file is not valid zstd"
    assert len(copies) == 1 and copies[0].name == "data.parquet.source"
    assert list(temp.iterdir()) == []  # the copy and its directory are gone


def test_cli_corpus_support_reads_a_gzip_claims_file(tmp_path: pathlib.Path) -> None:
    key = tmp_path / "key"
    key.write_bytes(KEY)
    plain = {role: _write(tmp_path / "plain", n, TEXT[n]) for role, n in PLAIN.items()}
    packed = {
        "claims": _write(tmp_path / "packed", "claims.jsonl.gz", CLAIMS),
        "evidence": _write(tmp_path / "packed", "evidence.tsv.zst", TEXT["evidence.tsv"]),
        "citations": plain["citations"],
    }
    outputs = []
    for name, paths in (("plain", plain), ("packed", packed)):
        out = tmp_path / f"out-{name}"
        argv = [sys.executable, "-m", "citelens", "corpus", "support", "--out", str(out)]
        argv += [f"--{role}={path}" for role, path in paths.items()]
        done = subprocess.run(
            [*argv, "--pseudonym-key-file", str(key), "--no-progress"],
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        # 2 documents, both evaluated, d1 alone passes its span checks (see CLAIMS)
        assert done.stdout == b"documents: 2 (evaluated 2, failed 0, passing span checks 1)\n"
        outputs.append((out / "summary.json").read_bytes())
    assert outputs[0] == outputs[1]


def test_cli_input_directory_finds_compressed_and_tsv_roles(tmp_path: pathlib.Path) -> None:
    # INPUT alone: the roles are found by name whatever their (compressed) text suffix, and
    # the summary equals the one of the plain files named one by one (see CLAIMS)
    key = tmp_path / "key"
    key.write_bytes(KEY)
    _write(tmp_path / "in", "claims.jsonl.zst", CLAIMS)  # compressed by _write, by its name
    _write(tmp_path / "in", "evidence.tsv", TEXT["evidence.tsv"])
    _write(tmp_path / "in", "citations.csv.gz", CITATIONS)
    plain = {role: _write(tmp_path / "plain", n, TEXT[n]) for role, n in PLAIN.items()}
    outputs = []
    for out, named in (("by-input", [str(tmp_path / "in")]), ("by-role", None)):
        argv = [sys.executable, "-m", "citelens", "corpus", "support", "--out"]
        argv += [str(tmp_path / out), "--pseudonym-key-file", str(key), "--no-progress"]
        argv += named or [f"--{role}={path}" for role, path in plain.items()]
        done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout == b"documents: 2 (evaluated 2, failed 0, passing span checks 1)\n"
        outputs.append((tmp_path / out / "summary.json").read_bytes())
    assert outputs[0] == outputs[1]
