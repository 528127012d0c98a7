"""`GET /v1/stats`'s verdict mix: the judged citations (valid citations of answers that carry
verdicts), how many were supported and unsupported, and the rates as shares of the judged
ones; answers without verdicts count in no rate (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.store.api import Position, ResultUpdate, StatsQuery, Summary
from services.store.sql import SqlStore

T0 = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)


def _answer(answer_id: str, n: int, citations: int, invalid: int, supported: int | None,
            unsupported: int | None) -> ResultUpdate:
    return ResultUpdate(answer_id, "t1", "formatted", f"f-{answer_id}", T0 + timedelta(minutes=n),
                        Position("answers.formatted", 0, n), model="m1", result=b"{}",
                        submitted_at=T0 + timedelta(minutes=n), summary=Summary(
                            citations=citations, invalid_citations=invalid, sentences=2,
                            coverage=1.0, supported_citations=supported,
                            unsupported_citations=unsupported))


async def test_the_verdict_mix_counts_judged_citations_only(store: SqlStore) -> None:
    await store.apply_batch([
        _answer("a", 0, 4, 1, 2, 0),  # 3 judged: 2 supported, 1 partial or unverifiable
        _answer("b", 1, 2, 0, 0, 2),  # 2 judged, both unsupported
        _answer("c", 2, 5, 0, None, None),  # no verdicts: judged by no one
    ])
    (group,) = await store.stats(StatsQuery(tenant="t1", group_by="model", since=T0,
                                            until=T0 + timedelta(hours=1)))
    assert (group.judged_citations, group.supported_citations,
            group.unsupported_citations) == (5, 2, 2)
    assert group.support_rate == pytest.approx(2 / 5)
    assert group.unsupported_rate == pytest.approx(2 / 5)
    assert group.invalid_citation_rate == pytest.approx(1 / 11)
