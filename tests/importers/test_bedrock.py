"""``bedrock`` importer: Amazon Bedrock RetrieveAndGenerate responses to the import tables.

Bedrock's ``span.end`` is inclusive (the position of the stretch's last character; AWS's own
responses have ``end - start + 1 == len(textResponsePart.text)``), so every claim ends at
``span.end + 1``. Offsets are code points of ``output.text``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from _importer_input import fixture_lines, raw_lines

from citelens.errors import CitationImportError
from citelens.importers import _bedrock

FIXTURES = Path(__file__).parent / "fixtures" / "bedrock"


_raw = raw_lines


def _fixture() -> pl.DataFrame:
    return fixture_lines(FIXTURES / "responses.jsonl")


def _citation(start: int, end: int, references: list[object]) -> dict[str, object]:
    part = {"text": "x", "span": {"start": start, "end": end}}
    return {"generatedResponsePart": {"textResponsePart": part}, "retrievedReferences": references}


def test_fixture_claims_are_half_open_code_points() -> None:
    claims = _bedrock.convert(_fixture()).claims
    # "Aspirin blocks COX-1 in platelets." is 34 code points: span {0, 33} -> [0, 34).
    # "Die Wirkung hält 7–10 Tage an." is 30 code points (ä and the en dash are one each,
    # 2 and 3 UTF-8 bytes): after 34 + 1 (space) it is span {35, 64} -> [35, 65);
    # output.text is 34 + 1 + 30 = 65 code points.
    assert claims.to_dicts() == [
        {
            "document_ref": "line-000000001",
            "claim_id": "c0",
            "start": 0,
            "end": 34,
            "source_id": "answer",
            "source_length": 65,
            "offset_unit": "code_point",
            "original_start": 0,
            "original_end": 33,
        },
        {
            "document_ref": "line-000000001",
            "claim_id": "c1",
            "start": 35,
            "end": 65,
            "source_id": "answer",
            "source_length": 65,
            "offset_unit": "code_point",
            "original_start": 35,
            "original_end": 64,
        },
    ]


def test_fixture_evidence_sources_and_edges() -> None:
    tables = _bedrock.convert(_fixture())
    # references in order of first appearance: aspirin passage (s0), then the German web page
    # (s1); the aspirin passage cited again by c1 is the same source s0.
    none = {"start": None, "end": None, "quote": None, "offset_unit": "none"}
    edges = {"original_start": None, "original_end": None}
    assert tables.evidence.to_dicts() == [
        # "Aspirin irreversibly inhibits COX-1 in platelets." = 49 code points
        {"document_ref": "line-000000001", "evidence_id": "e0.0", "source_id": "s0",
         "source_length": 49, "location_type": "S3", **none, **edges},
        # "Die Wirkung hält 7–10 Tage an, so lange wie ein Thrombozyt lebt." = 64 code points
        {"document_ref": "line-000000001", "evidence_id": "e1.0", "source_id": "s1",
         "source_length": 64, "location_type": "WEB", **none, **edges},
        {"document_ref": "line-000000001", "evidence_id": "e1.1", "source_id": "s0",
         "source_length": 49, "location_type": "S3", **none, **edges},
    ]  # fmt: skip
    assert tables.citations.rows() == [
        ("line-000000001", "c0", "e0.0"),
        ("line-000000001", "c1", "e1.0"),
        ("line-000000001", "c1", "e1.1"),
    ]
    assert tables.sources.rows() == [
        ("line-000000001", "s0", "Aspirin irreversibly inhibits COX-1 in platelets."),
        (
            "line-000000001",
            "s1",
            "Die Wirkung hält 7–10 Tage an, so lange wie ein Thrombozyt lebt.",
        ),
    ]


def test_a_response_without_citations_gives_no_rows() -> None:
    # line 2 of the fixture (citations: []) and a response with no citations field at all
    tables = _bedrock.convert(
        _raw([{"output": {"text": "No."}}, {"output": {"text": "Hm."}, "citations": []}])
    )
    assert [frame.height for frame in tables.tables().values()] == [0, 0, 0, 0]
    assert _bedrock.convert(_fixture()).claims["document_ref"].unique().to_list() == [
        "line-000000001"
    ]


def test_sources_are_numbered_per_response_and_a_reference_without_text_has_none() -> None:
    same = {"content": {"text": "CANARY-passage"}, "location": {"type": "S3"}}
    image = {"content": {"type": "IMAGE"}, "location": {}}
    items = [
        {
            "output": {"text": "ab"},
            "citations": [_citation(0, 0, [same]), _citation(1, 1, [image])],
        },
        {"output": {"text": "cd"}, "citations": [_citation(0, 1, [same])]},
    ]
    tables = _bedrock.convert(_raw(items, first=5))
    assert tables.evidence.select("document_ref", "evidence_id", "source_id", "source_length",
                                  "location_type").rows() == [
        ("line-000000005", "e0.0", "s0", 14, "S3"),  # "CANARY-passage": 14 code points
        ("line-000000005", "e1.0", "s1", None, "retrieved_reference"),  # no text, no type
        ("line-000000006", "e0.0", "s0", 14, "S3"),  # numbering restarts per response
    ]  # fmt: skip
    # the image reference has no text: it is no row of the sources table
    assert tables.sources.select("document_ref", "source_id").rows() == [
        ("line-000000005", "s0"),
        ("line-000000006", "s0"),
    ]
    # "ab": span {0, 0} -> [0, 1), span {1, 1} -> [1, 2); "cd": span {0, 1} -> [0, 2)
    assert tables.claims.select("start", "end").rows() == [(0, 1), (1, 2), (0, 2)]


@pytest.mark.parametrize(
    ("item", "message", "detail"),
    [
        (
            {"output": {}, "citations": []},
            "bedrock input is malformed: output.text is missing",
            "bedrock line 2: output.text is missing",
        ),
        (
            {"output": {"text": "CANARY"}, "citations": [_citation(4, 2, [])]},
            "bedrock input is malformed: "
            "citations[].generatedResponsePart.textResponsePart.span.end must not be before start",
            "bedrock line 2: "
            "citations[].generatedResponsePart.textResponsePart.span.end must not be before start",
        ),
        (
            {
                "output": {"text": "CANARY"},
                "citations": [
                    {"generatedResponsePart": {"textResponsePart": {"span": {"start": "CANARY"}}}}
                ],
            },
            "bedrock input is malformed: "
            "citations[].generatedResponsePart.textResponsePart.span.start must be an integer",
            "bedrock line 2: "
            "citations[].generatedResponsePart.textResponsePart.span.start must be an integer",
        ),
        (
            {"output": {"text": "CANARY"}, "citations": [{"retrievedReferences": "CANARY"}]},
            "bedrock input is malformed: citations[].retrievedReferences must be a list",
            "bedrock line 2: citations[].retrievedReferences must be a list",
        ),
    ],
)
def test_malformed_lines(item: object, message: str, detail: str) -> None:
    good = {"output": {"text": "fine"}, "citations": []}
    with pytest.raises(CitationImportError) as caught:
        _bedrock.convert(_raw([good, item]))
    assert str(caught.value) == message
    assert caught.value.detail == detail
    assert caught.value.category == "input"
    assert "CANARY" not in message + detail
