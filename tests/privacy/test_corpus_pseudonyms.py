"""Keyed pseudonyms of the corpus modes: ``edges.parquet`` identifiers and the document refs
that ``summary.json``/``summary.md`` name (issue 10 item 5).

One key per run: the caller's (``pseudonym_key=`` or ``--pseudonym-key-file``) or a random
one. ``documents.parquet`` keeps the refs as given (it is the per-document result the caller
joins back to the inputs).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import pathlib
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from citelens import corpus
from citelens._pseudonym import KEY_FILE_ENV
from citelens.cli import main
from citelens.errors import CorpusError

KEY = b"CANARY-7f3a-corpus-key-0000001"
DOCS = ("CANARY-7f3a-doc-a", "CANARY-7f3a-doc-b", "CANARY-7f3a-doc-c")


def _hmac(key: bytes, value: str) -> str:
    return "hmac-sha256:" + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


def _support_inputs() -> tuple[pl.DataFrame, pl.DataFrame]:
    # doc-a cites a missing evidence id once, doc-b twice (two claims), doc-c never: the
    # worst documents are doc-b (2 invalid edges), then doc-a (1); doc-c has none.
    claims = pl.DataFrame(
        {
            "document_ref": [DOCS[0], DOCS[1], DOCS[1], DOCS[2]],
            "claim_id": ["CANARY-7f3a-c1", "c2", "c3", "c4"],
            "start": [0, 0, 1, 0],
            "end": [1, 1, 2, 1],
        }
    ).with_columns(pl.Series("citations", [["CANARY-7f3a-gone"], ["gone"], ["gone"], ["e1"]]))
    evidence = pl.DataFrame(
        {"document_ref": [DOCS[2]], "evidence_id": ["e1"], "start": [0], "end": [1]}
    )
    return claims, evidence


def test_support_corpus_keyed_edges_and_summary() -> None:
    claims, evidence = _support_inputs()
    result = corpus.run_support_corpus(claims, evidence, edges=True, pseudonym_key=KEY)
    worst = result.summary["worst_documents"]
    assert worst == [
        {"document_ref": _hmac(KEY, DOCS[1]), "invalid_citation_count": 2},
        {"document_ref": _hmac(KEY, DOCS[0]), "invalid_citation_count": 1},
    ]
    assert result.edges is not None
    edges = result.edges.to_pylist()
    assert {e["claim_id"] for e in edges} == {
        _hmac(KEY, c) for c in ("CANARY-7f3a-c1", "c2", "c3", "c4")
    }
    assert {e["evidence_id"] for e in edges} == {
        _hmac(KEY, e) for e in ("CANARY-7f3a-gone", "gone", "e1")
    }
    shown = result.summary_json() + result.summary_markdown()
    assert "CANARY-7f3a" not in shown
    plain = hashlib.sha256(DOCS[1].encode()).hexdigest()
    assert plain not in shown  # not the plain SHA-256 either
    # documents.parquet keeps the refs as given
    assert result.documents.column("document_ref").to_pylist() == list(DOCS)
    raw = corpus.run_support_corpus(claims, evidence, raw_identifiers=True)
    assert [w["document_ref"] for w in raw.summary["worst_documents"]] == [DOCS[1], DOCS[0]]


def test_support_corpus_same_key_same_outputs(tmp_path: pathlib.Path) -> None:
    claims, evidence = _support_inputs()
    for name in ("one", "two"):
        corpus.write_support_corpus(
            claims, evidence, out_dir=tmp_path / name, edges=True, pseudonym_key=KEY
        )
    for file in ("summary.json", "summary.md", "edges.parquet", "documents.parquet"):
        assert (tmp_path / "one" / file).read_bytes() == (tmp_path / "two" / file).read_bytes()
    assert b"CANARY-7f3a" not in (tmp_path / "one" / "summary.md").read_bytes()


def test_support_corpus_without_key_differs_across_runs() -> None:
    claims, evidence = _support_inputs()
    one = corpus.run_support_corpus(claims, evidence, edges=True)
    two = corpus.run_support_corpus(claims, evidence, edges=True)
    refs_one = {w["document_ref"] for w in one.summary["worst_documents"]}
    refs_two = {w["document_ref"] for w in two.summary["worst_documents"]}
    assert len(refs_one) == 2 and not refs_one & refs_two
    assert one.edges is not None and two.edges is not None
    ids_one = set(one.edges.column("claim_id").to_pylist())
    assert len(ids_one) == 4 and not ids_one & set(two.edges.column("claim_id").to_pylist())


def test_one_key_for_every_batch() -> None:
    # one document per batch: the shared claim id "c" must get one pseudonym in all batches
    claims = pl.DataFrame(
        {"document_ref": list(DOCS), "claim_id": ["c"] * 3, "start": [0] * 3, "end": [1] * 3}
    ).with_columns(pl.Series("citations", [["x"]] * 3))
    result = corpus.run_support_corpus(claims, edges=True, batch_documents=1)
    assert result.edges is not None
    assert len(set(result.edges.column("claim_id").to_pylist())) == 1
    # ties (one invalid edge each) are listed in the byte order of the pseudonyms shown
    shown = [w["document_ref"] for w in result.summary["worst_documents"]]
    assert len(shown) == 3 and shown == sorted(shown)


def test_worst_documents_tie_order_uses_pseudonyms() -> None:
    # twelve documents with one invalid edge each: the ten listed are the ten smallest
    # pseudonyms, not the ten smallest raw refs
    refs = [f"CANARY-7f3a-{i:02d}" for i in range(12)]
    claims = pl.DataFrame(
        {"document_ref": refs, "claim_id": ["c"] * 12, "start": [0] * 12, "end": [1] * 12}
    ).with_columns(pl.Series("citations", [["x"]] * 12))
    result = corpus.run_support_corpus(claims, pseudonym_key=KEY)
    expected = sorted(_hmac(KEY, r) for r in refs)[:10]
    assert [w["document_ref"] for w in result.summary["worst_documents"]] == expected


@pytest.mark.parametrize("bad", [b"short", "CANARY-7f3a-text-key"])
def test_bad_corpus_key(bad: Any) -> None:
    claims, evidence = _support_inputs()
    for call in (
        lambda: corpus.run_support_corpus(claims, evidence, pseudonym_key=bad),
        lambda: corpus.run_support_corpus(claims, raw_identifiers=True, pseudonym_key=bad),
        lambda: corpus.run_summary_citations_corpus(_summary_claims(), pseudonym_key=bad),
    ):
        with pytest.raises(CorpusError) as caught:
            call()
        assert str(caught.value) == "pseudonym key must be bytes of at least 16 bytes"
        assert caught.value.category == "policy"


def _summary_claims() -> pa.Table:
    # doc-a: two claims citing nothing (2 uncovered); doc-b: one (1 uncovered)
    return pa.Table.from_pylist(
        [
            {"document_ref": DOCS[0], "claim": "CANARY-7f3a text", "citations": []},
            {"document_ref": DOCS[0], "claim": "CANARY-7f3a text", "citations": []},
            {"document_ref": DOCS[1], "claim": "CANARY-7f3a text", "citations": []},
        ]
    )


def test_summary_citations_corpus_keyed_summary() -> None:
    result = corpus.run_summary_citations_corpus(_summary_claims(), pseudonym_key=KEY)
    worst = [
        (w["document_ref"], w["uncovered_claim_count"]) for w in result.summary["worst_documents"]
    ]
    assert worst == [(_hmac(KEY, DOCS[0]), 2), (_hmac(KEY, DOCS[1]), 1)]
    assert "CANARY-7f3a" not in result.summary_json() + result.summary_markdown()
    raw = corpus.run_summary_citations_corpus(_summary_claims(), raw_identifiers=True)
    assert [w["document_ref"] for w in raw.summary["worst_documents"]] == [DOCS[0], DOCS[1]]
    one = corpus.run_summary_citations_corpus(_summary_claims())
    two = corpus.run_summary_citations_corpus(_summary_claims())
    assert one.summary_json() != two.summary_json()  # random key per run


# -- CLI -------------------------------------------------------------------------------------


def test_cli_corpus_support_and_summary_with_key_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    claims, evidence = _support_inputs()
    claims.write_parquet(tmp_path / "claims.parquet")
    evidence.write_parquet(tmp_path / "evidence.parquet")
    key = tmp_path / "k.key"
    key.write_bytes(KEY)
    base = ["corpus", "support", str(tmp_path), "--edges"]
    for out in ("one", "two"):
        args = [*base, "--out", str(tmp_path / out), "--pseudonym-key-file", str(key)]
        assert main(args) == 0
    monkeypatch.setenv(KEY_FILE_ENV, str(key))
    assert main([*base, "--out", str(tmp_path / "env")]) == 0
    for file in ("summary.json", "summary.md", "edges.parquet"):
        one = (tmp_path / "one" / file).read_bytes()
        assert (
            one == (tmp_path / "two" / file).read_bytes() == (tmp_path / "env" / file).read_bytes()
        )
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert summary["worst_documents"][0]["document_ref"] == _hmac(KEY, DOCS[1])
    edges = pq.read_table(tmp_path / "one" / "edges.parquet")
    assert _hmac(KEY, "c2") in edges.column("claim_id").to_pylist()

    pq.write_table(_summary_claims(), tmp_path / "s_claims.parquet")
    args = ["corpus", "summary-citations", "--claims", str(tmp_path / "s_claims.parquet")]
    assert main([*args, "--out", str(tmp_path / "s1")]) == 0  # key from the environment
    monkeypatch.delenv(KEY_FILE_ENV)
    assert main([*args, "--out", str(tmp_path / "s2"), "--pseudonym-key-file", str(key)]) == 0
    assert main([*args, "--out", str(tmp_path / "s3"), "--raw-identifiers"]) == 0
    s1 = (tmp_path / "s1" / "summary.md").read_text()
    assert s1 == (tmp_path / "s2" / "summary.md").read_text()
    assert _hmac(KEY, DOCS[0]) in s1 and "CANARY-7f3a" not in s1
    assert DOCS[0] in (tmp_path / "s3" / "summary.md").read_text()  # raw refs were asked for


def test_cli_corpus_bad_key_file(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    claims, _ = _support_inputs()
    claims.write_parquet(tmp_path / "claims.parquet")
    missing = str(tmp_path / "CANARY-7f3a-missing.key")
    for mode in ("support", "summary-citations"):
        args = [
            "corpus",
            mode,
            "--claims",
            str(tmp_path / "claims.parquet"),
            "--out",
            str(tmp_path / "out"),
            "--pseudonym-key-file",
            missing,
        ]
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert err == "citelens: error [input]: pseudonym key file could not be read\n"
        assert "CANARY" not in out + err
        assert not (tmp_path / "out").exists()


def _minimality_tables() -> tuple[pa.Table, pa.Table, pa.Table]:
    # opaque refs (the minimality identifier rule) that are plain SHA-256 of guessable names:
    # exactly what a keyed pseudonym must not let through. "The patient" is tokens 0-1 of both
    # sources; a citation of [0, 19] ("The patient was giv") is broader than the claim's
    # required span [0, 11], so it is flagged: doc-a cites it twice, doc-b once.
    def sha(label: str) -> str:
        return "sha256:" + hashlib.sha256(label.encode()).hexdigest()

    docs = [sha(DOCS[0]), sha(DOCS[1])]
    documents = pa.Table.from_pylist(
        [{"document_ref": d, "source_text": "The patient was given aspirin."} for d in docs]
    )
    claims = pa.Table.from_pylist(
        [
            {"document_ref": docs[0], "claim_id": sha("c1"), "required_span": [0, 11]},
            {"document_ref": docs[1], "claim_id": sha("c2"), "required_span": [0, 11]},
        ]
    )
    cites = [(docs[0], "c1", "x1"), (docs[0], "c1", "x2"), (docs[1], "c2", "x3")]
    citations = pa.Table.from_pylist(
        [
            {
                "document_ref": d,
                "claim_id": sha(c),
                "citation_id": sha(x),
                "source_span": [0, 19],
            }
            for d, c, x in cites
        ]
    )
    return documents, claims, citations


def test_minimality_corpus_keyed_summary() -> None:
    documents, claims, citations = _minimality_tables()
    raw_refs = documents.column("document_ref").to_pylist()
    result = corpus.run_minimality_corpus(documents, claims, citations, pseudonym_key=KEY)
    worst = [(w["document_ref"], w["flagged_count"]) for w in result.summary["worst_documents"]]
    assert worst == [(_hmac(KEY, raw_refs[0]), 2), (_hmac(KEY, raw_refs[1]), 1)]
    shown = result.summary_json() + result.summary_markdown()
    for ref in raw_refs:
        assert ref not in shown and ref.removeprefix("sha256:") not in shown
    raw = corpus.run_minimality_corpus(documents, claims, citations, raw_identifiers=True)
    assert [w["document_ref"] for w in raw.summary["worst_documents"]] == raw_refs
    one = corpus.run_minimality_corpus(documents, claims, citations)
    two = corpus.run_minimality_corpus(documents, claims, citations)
    assert one.summary_json() != two.summary_json()  # random key per run
    # documents.parquet keeps the refs as given (the caller joins it back to the inputs)
    assert sorted(result.documents.column("document_ref").to_pylist()) == sorted(raw_refs)


def test_cli_corpus_minimality_key_file(tmp_path: pathlib.Path) -> None:
    documents, claims, citations = _minimality_tables()
    for name, table in (("documents", documents), ("claims", claims), ("citations", citations)):
        pq.write_table(table, tmp_path / f"{name}.parquet")
    key = tmp_path / "k.key"
    key.write_bytes(KEY)
    args = ["corpus", "minimality", str(tmp_path), "--pseudonym-key-file", str(key)]
    assert main([*args, "--out", str(tmp_path / "one")]) == 0
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    raw_ref = documents.column("document_ref")[0].as_py()
    assert summary["worst_documents"][0]["document_ref"] == _hmac(KEY, raw_ref)
    assert (
        main(
            [
                "corpus",
                "minimality",
                str(tmp_path),
                "--raw-identifiers",
                "--out",
                str(tmp_path / "raw"),
            ]
        )
        == 0
    )
    raw = json.loads((tmp_path / "raw" / "summary.json").read_text())
    assert raw["worst_documents"][0]["document_ref"] == raw_ref
