"""The answer's detected language in the store: kept from its formatted result, filtered by
`GET /v1/answers?language=` and grouped by `GET /v1/stats?group_by=language` (SQLite and
PostgreSQL), and the migration that adds its column to a store holding answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.bench.sentences import chinese_answer
from services.store.api import AnswerQuery, StatsQuery
from services.store.decode import decode_record
from services.store.sql import SqlStore
from tests.services.store import records as r

T0 = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)


def _flow(data: dict, offset: int) -> list:
    at = T0 + timedelta(minutes=offset)
    stamp = at.isoformat().replace("+00:00", "Z")
    later = (at + timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    return [decode_record(r.submitted(data, stamp, offset=offset)),
            decode_record(r.formatted(data, later, offset=offset))]


async def test_language_is_kept_filtered_and_grouped(store: SqlStore) -> None:
    english = r.answer("en-1", tenant="acme")
    chinese = chinese_answer()
    chinese["answer_id"] = "zh-1"
    chinese["metadata"] = {"tenant": "acme", "model": "gpt-x"}
    await store.apply_batch([*_flow(english, 0), *_flow(chinese, 1)])
    page = await store.query(AnswerQuery(tenant="acme", language="zh"))
    assert [item.answer_id for item in page.items] == ["zh-1"]
    assert page.items[0].summary is not None and page.items[0].summary.language == "zh"
    english_page = await store.query(AnswerQuery(tenant="acme", language="en"))
    assert [item.answer_id for item in english_page.items] == ["en-1"]
    window = {"since": T0, "until": T0 + timedelta(hours=1)}
    groups = await store.stats(StatsQuery(tenant="acme", group_by="language", **window))
    assert sorted((g.key, g.answers) for g in groups) == [("en", 1), ("zh", 1)]
    only = await store.stats(StatsQuery(tenant="acme", group_by="none", language="zh", **window))
    assert [(g.key, g.answers) for g in only] == [(None, 1)]


async def test_migration_0004_keeps_answers_and_adds_their_language(store_url: str) -> None:
    """A store of revision 0003 with a formatted answer: upgraded, the answer is kept (its
    language unknown), and answers stored after it carry theirs."""
    import sqlalchemy as sa

    from services.store.engine import upgrade

    store = SqlStore(store_url)
    try:
        async with store.engine.begin() as conn:
            await conn.run_sync(upgrade, "0003")
            await conn.execute(sa.text(
                "INSERT INTO answers (answer_id, tenant, status, answered_at_ms, updated_at_ms,"
                " citations) VALUES ('old', 'acme', 'formatted', 1, 2, 3)"))
        await store.migrate()
        kept = await store.get("old", "acme")
        assert kept is not None and kept.summary is not None
        assert (kept.summary.citations, kept.summary.language) == (3, None)
        await store.apply_batch(_flow(r.answer("new", tenant="acme"), 0))
        new = await store.get("new", "acme")
        assert new is not None and new.summary is not None and new.summary.language == "en"
    finally:
        await store.close()


def test_the_read_routes_take_a_language() -> None:
    from services.gateway.queries import AnswerListParams, StatsParams

    assert AnswerListParams.model_validate({"language": "zh"}).language == "zh"
    assert StatsParams.model_validate({"group_by": "language"}).group_by == "language"
    with pytest.raises(ValueError):
        AnswerListParams.model_validate({"language": "zh'; drop table answers;--"})


async def test_older_answers_get_their_language_from_migration_0006_or_a_replay(
        store_url: str) -> None:
    """Rows stored before the column: 0006 fills it from the stored result; a row whose
    language is still NULL gets it when the same formatted event is read again."""
    import sqlalchemy as sa

    from services.store.engine import downgrade

    store = SqlStore(store_url)
    try:
        await store.migrate()
        data = r.answer("old", tenant="acme")
        flow = _flow(data, 0)
        await store.apply_batch(flow)
        async with store.engine.begin() as conn:  # as rows stored before 0004 were left
            await conn.execute(sa.text("UPDATE answers SET language = NULL"))
            await conn.run_sync(downgrade, "0005")
        await store.migrate()
        old = await store.get("old", "acme")
        assert old is not None and old.summary is not None and old.summary.language == "en"

        async with store.engine.begin() as conn:
            await conn.execute(sa.text("UPDATE answers SET language = NULL"))
        assert await store.apply_batch(flow[1:]) == 1  # the replayed formatted event
        again = await store.get("old", "acme")
        assert again is not None and again.summary is not None
        assert again.summary.language == "en" and again.event_id == old.event_id
    finally:
        await store.close()

