"""`GET /v1/stats`'s verdict mix: the judged citations (valid citations of answers that carry
verdicts), how many were supported and unsupported, and the rates as shares of the judged
ones; answers without verdicts count in no rate; partial and unverifiable counted apart
(SQLite and PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace
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


def _mixed(answer_id: str, n: int, supported: int, partial: int | None,
           unsupported: int) -> ResultUpdate:
    update = _answer(answer_id, n, 6, 0, supported, unsupported)
    assert update.summary is not None
    return replace(update, summary=replace(update.summary, partial_citations=partial))


async def test_partial_and_unverifiable_are_counted_apart(store: SqlStore) -> None:
    await store.apply_batch([
        _mixed("a", 0, 2, 3, 0),  # 6 judged: 2 supported, 3 partial, 1 unverifiable
        _mixed("b", 1, 1, 0, 4),  # 1 supported, 4 unsupported, 1 unverifiable
        _mixed("c", 2, 1, None, 1),  # stored before partial was counted: 4 told apart by none
    ])
    (group,) = await store.stats(StatsQuery(tenant="t1", group_by="model", since=T0,
                                            until=T0 + timedelta(hours=1)))
    assert (group.judged_citations, group.supported_citations, group.partial_citations,
            group.unsupported_citations, group.unverifiable_citations) == (18, 4, 3, 5, 2)


def test_the_summary_reads_partial_from_the_quality_block_or_the_verdicts() -> None:
    from services.store.summary import summarize

    verdicts = ["supported", "partial", "partial", "unverifiable", "unsupported"]
    citations = [{"valid": True, "support": {"verdict": v}} for v in verdicts]
    assert summarize({"citations": citations}).partial_citations == 2
    quality = {"supported": 1, "unsupported": 1, "partial": 2, "unverifiable": 1}
    assert summarize({"citations": citations, "quality": quality}).partial_citations == 2
    older = {"supported": 1, "unsupported": 1}  # a block that never counted partial
    assert summarize({"citations": citations, "quality": older}).partial_citations is None
    assert summarize({"citations": [{"valid": True}]}).partial_citations is None


async def test_older_answers_get_their_partial_count_from_migration_0009(
        store_url: str) -> None:
    """Rows stored before the column: 0009 fills it from the stored result."""
    import sqlalchemy as sa

    from services.store.engine import downgrade
    from tests.services.store import records as r
    from tests.services.store.test_store_language import _flow

    store = SqlStore(store_url)
    try:
        await store.migrate()
        data = r.answer("old", tenant="acme")
        await store.apply_batch(_flow(data, 0))
        stored = await store.get("old", "acme")
        assert stored is not None and stored.summary is not None
        expected = stored.summary.partial_citations
        assert expected is not None
        async with store.engine.begin() as conn:  # as rows stored before 0009 were left
            await conn.run_sync(downgrade, "0008")
        await store.migrate()
        old = await store.get("old", "acme")
        assert old is not None and old.summary is not None
        assert old.summary.partial_citations == expected
    finally:
        await store.close()
