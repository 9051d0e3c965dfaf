"""Reviewer agreement with minimum-cell and complementary suppression (review.md §9)."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from citelens.review._common import AGREEMENT_SCHEMA, entry_point, error, record, still_valid

__all__ = [
    "DisagreementReason",
    "PublishedRate",
    "ReasonRate",
    "ReviewerAgreementReport",
    "ReviewerDecision",
    "publish",
    "reviewer_agreement_report",
    "summarise_cases",
]


class DisagreementReason(enum.StrEnum):
    """Why reviewers disagreed on one claim/evidence pair (values are output data)."""

    CLINICAL_INTERPRETATION = "clinical_interpretation"
    EVIDENCE_QUALITY = "evidence_quality"
    GUIDELINE_AMBIGUITY = "guideline_ambiguity"
    LABEL_DEFINITION = "label_definition"
    REVIEWER_ERROR = "reviewer_error"
    OTHER = "other"


def _nonblank(value: object) -> bool:
    return type(value) is str and bool(value.strip())


@record
@dataclass(frozen=True)
class ReviewerDecision:
    """One reviewer's label for one case (identifiers are pseudonymous, used for grouping)."""

    case_id: str
    reviewer_id: str
    decision: str
    reason: DisagreementReason | None = None
    adjudicated: bool = False

    def __post_init__(self) -> None:
        if not (
            _nonblank(self.case_id)
            and _nonblank(self.reviewer_id)
            and _nonblank(self.decision)
            and (self.reason is None or type(self.reason) is DisagreementReason)
            and type(self.adjudicated) is bool
        ):
            raise error("invalid_decision_record")

    def __repr__(self) -> str:
        return "ReviewerDecision(<redacted>)"


@dataclass(frozen=True)
class PublishedRate:
    """A rate published only when no cell (or its complement) is below the minimum cell size."""

    rate: float | None
    numerator: int | None
    denominator: int | None
    suppressed: bool

    def to_dict(self) -> dict[str, Any]:
        """``{denominator, numerator, rate, suppressed}``."""
        return {
            "denominator": self.denominator,
            "numerator": self.numerator,
            "rate": self.rate,
            "suppressed": self.suppressed,
        }


@dataclass(frozen=True)
class ReasonRate:
    """The adjudication rate of the disagreement cases with one reason."""

    reason: DisagreementReason
    rate: float | None
    numerator: int | None
    denominator: int | None
    suppressed: bool

    def to_dict(self) -> dict[str, Any]:
        """``{reason, denominator, numerator, rate, suppressed}``."""
        return {
            "reason": self.reason.value,
            "denominator": self.denominator,
            "numerator": self.numerator,
            "rate": self.rate,
            "suppressed": self.suppressed,
        }


@dataclass(frozen=True)
class ReviewerAgreementReport:
    """Agreement and adjudication rates with small cells suppressed."""

    minimum_cell_size: int
    agreement: PublishedRate
    adjudication: PublishedRate
    reason_adjudication: tuple[ReasonRate, ...]
    suppressed_reason_cells: int
    schema_version: str = AGREEMENT_SCHEMA

    @property
    def has_suppressed_cells(self) -> bool:
        """Whether any rate was withheld."""
        return (
            self.agreement.suppressed
            or self.adjudication.suppressed
            or self.suppressed_reason_cells > 0
        )

    def to_dict(self) -> dict[str, Any]:
        """The published report (review.md §9.3)."""
        return {
            "adjudication": self.adjudication.to_dict(),
            "agreement": self.agreement.to_dict(),
            "has_suppressed_cells": self.has_suppressed_cells,
            "minimum_cell_size": self.minimum_cell_size,
            "reason_adjudication": [r.to_dict() for r in self.reason_adjudication],
            "schema_version": self.schema_version,
            "suppressed_reason_cells": self.suppressed_reason_cells,
        }


def publish(numerator: int, denominator: int, minimum_cell_size: int) -> PublishedRate:
    """Publish ``numerator / denominator`` unless a cell or its complement is small (§9.3)."""
    if denominator == 0:
        return PublishedRate(rate=None, numerator=0, denominator=0, suppressed=False)
    complement = denominator - numerator
    if (
        denominator < minimum_cell_size
        or 0 < numerator < minimum_cell_size
        or 0 < complement < minimum_cell_size
    ):
        return PublishedRate(rate=None, numerator=None, denominator=None, suppressed=True)
    return PublishedRate(
        rate=numerator / denominator,
        numerator=numerator,
        denominator=denominator,
        suppressed=False,
    )


@entry_point
def reviewer_agreement_report(
    decisions: Iterable[ReviewerDecision], *, minimum_cell_size: int = 5
) -> ReviewerAgreementReport:
    """Agreement, adjudication and per-reason adjudication rates over multi-reviewer cases.

    Raises :class:`~citelens.errors.SummaryReviewError` with a fixed message (review.md §9.4).
    """
    if type(minimum_cell_size) is not int or minimum_cell_size < 2:
        raise error("invalid_minimum_cell_size")
    cases: dict[str, list[ReviewerDecision]] = {}
    seen: set[tuple[str, str]] = set()
    failed = False
    iterator: Any = None
    try:
        iterator = iter(decisions)
    except Exception:  # the caller's iterable raised
        failed = True
    if failed:
        raise error("invalid_decision_record")
    while True:
        failed = False
        item: Any = None
        done = False
        try:
            item = next(iterator)
        except StopIteration:
            done = True
        except Exception:  # the caller's iterator raised
            failed = True
        if failed:
            raise error("invalid_decision_record")
        if done:
            break
        if type(item) is not ReviewerDecision or not still_valid(item):
            raise error("invalid_decision_record")
        pair = (item.case_id, item.reviewer_id)
        if pair in seen:
            raise error("duplicate_decision")
        seen.add(pair)
        cases.setdefault(item.case_id, []).append(item)
    if not cases:
        raise error("missing_decisions")
    summaries: list[tuple[bool, DisagreementReason | None, bool]] = []
    for rows in cases.values():
        if len(rows) < 2:
            raise error("insufficient_reviewers")
        flags = {row.adjudicated for row in rows}
        if len(flags) != 1:
            raise error("inconsistent_adjudication_flag")
        flag = rows[0].adjudicated
        reasons = {row.reason for row in rows}
        if len({row.decision for row in rows}) == 1:
            if reasons != {None} or flag:
                raise error("unexpected_disagreement_reason")
            summaries.append((True, None, False))
            continue
        if len(reasons) != 1 or None in reasons:
            raise error("missing_disagreement_reason")
        (reason,) = reasons
        summaries.append((False, reason, flag))
    return summarise_cases(summaries, minimum_cell_size)


def summarise_cases(
    summaries: list[tuple[bool, DisagreementReason | None, bool]], minimum_cell_size: int
) -> ReviewerAgreementReport:
    """The report from validated per-case summaries ``(all agree, reason, adjudicated)``."""
    agree = 0
    disagreements = 0
    adjudicated = 0
    by_reason: dict[DisagreementReason, list[int]] = {}
    for agreed, reason, flag in summaries:
        if agreed:
            agree += 1
            continue
        assert reason is not None
        disagreements += 1
        cell = by_reason.setdefault(reason, [0, 0])
        cell[1] += 1
        if flag:
            adjudicated += 1
            cell[0] += 1
    m = minimum_cell_size
    published: list[ReasonRate] = []
    suppressed_cells = 0
    for reason in sorted(by_reason, key=lambda r: r.value):
        numerator, denominator = by_reason[reason]
        rate = publish(numerator, denominator, m)
        if rate.suppressed:
            suppressed_cells += 1
            continue
        published.append(
            ReasonRate(
                reason=reason,
                rate=rate.rate,
                numerator=rate.numerator,
                denominator=rate.denominator,
                suppressed=False,
            )
        )
    return ReviewerAgreementReport(
        minimum_cell_size=m,
        agreement=publish(agree, len(summaries), m),
        adjudication=publish(adjudicated, disagreements, m),
        reason_adjudication=tuple(published),
        suppressed_reason_cells=suppressed_cells,
    )
