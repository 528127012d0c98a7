"""A model judge's second opinion in the store (SQLite and PostgreSQL): kept beside the
lexical result in either arrival order, replays and older opinions changing nothing,
`GET /v1/answers?disagreement=` and `GET /v1/stats?group_by=judge`, and the merged view
`GET /v1/answers/{id}` serves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson

from schemas.judged import AnswerJudged, CitationJudgement
from services.gateway.representation import answer_body
from services.runtime.stage import Message
from services.store.api import AnswerQuery, StatsQuery
from services.store.decode import decode_record
from services.store.sql import SqlStore
from tests.services.store import records as r

T0 = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


def _stamp(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def _judged(data: dict, verdict: str, at: datetime, offset: int,
            event_id: str | None = None) -> Message:
    formatted = r.formatted_model(data)
    index, citation = next((i, c) for i, c in enumerate(formatted.citations) if c.support)
    assert citation.support is not None
    lexical = citation.support.verdict
    judged = AnswerJudged(
        answer_id=data["answer_id"], tenant=data["metadata"]["tenant"], judge="openai:m",
        scope="all", disagreements=int(verdict != lexical),
        judgements=[CitationJudgement(
            citation_index=index, citation_id=citation.id,
            sentence_index=citation.sentence_index, source_index=citation.source_index,
            status="judged", verdict=verdict, judge="openai:m",  # type: ignore[arg-type]
            lexical_verdict=lexical, lexical_judge="lexical", model_verdict=verdict,  # type: ignore[arg-type]
            rationale="Because.", disagrees=verdict != lexical)])
    value = r.event_bytes(judged, data["answer_id"], _stamp(at),
                          event_id or f"jdg-{data['answer_id']}-{offset}")
    return Message("answers.judged", value, data["answer_id"].encode(), 0, offset)


def _other(verdict: str) -> str:
    return "unsupported" if verdict != "unsupported" else "supported"


async def test_both_opinions_are_kept_in_either_order(store: SqlStore) -> None:
    # Two answers of the same text: the same first lexical verdict.
    first, second = r.answer("j-1"), r.answer("j-2")
    lexical = next(c.support.verdict for c in r.formatted_model(first).citations if c.support)
    at = T0 + timedelta(seconds=5)
    await store.apply_batch([decode_record(r.formatted(first, _stamp(T0), offset=0)),
                             decode_record(_judged(first, _other(lexical), at, 0))])
    # The opinion before the result (another topic, read first).
    await store.apply_batch([decode_record(_judged(second, _other(lexical), at, 1))])
    waiting = await store.get("j-2", "acme")
    assert waiting is not None and waiting.status == "submitted" and waiting.judge == "openai:m"
    await store.apply_batch([decode_record(r.formatted(second, _stamp(T0), offset=1))])
    for answer_id in ("j-1", "j-2"):
        record = await store.get(answer_id, "acme")
        assert record is not None and record.status == "formatted"
        assert record.judge == "openai:m" and record.disagreements == 1
        body = orjson.loads(answer_body(record))
        judged = [c for c in body["citations"] if c.get("support")]
        assert judged[0]["support"]["verdict"] == lexical  # the lexical opinion stays
        assert judged[0]["current"] == {"verdict": _other(lexical), "judge": "openai:m",
                                        "rationale": "Because.", "evidence": []}
        assert all(c["current"] == {"verdict": c["support"]["verdict"],
                                    "judge": c["support"]["judge"]} for c in judged[1:])
        assert body["judgement"]["judge"] == "openai:m"


async def test_a_replay_or_an_older_opinion_changes_nothing(store: SqlStore) -> None:
    data = r.answer("j-3")
    lexical = next(c.support.verdict for c in r.formatted_model(data).citations if c.support)
    newer = _judged(data, lexical, T0 + timedelta(minutes=2), 0, event_id="new")
    older = _judged(data, _other(lexical), T0 + timedelta(minutes=1), 1, event_id="old")
    await store.apply_batch([decode_record(r.formatted(data, _stamp(T0))),
                             decode_record(newer)])
    assert await store.apply_batch([decode_record(newer)]) == 0
    assert await store.apply_batch([decode_record(older)]) == 0
    record = await store.get("j-3", "acme")
    assert record is not None and record.disagreements == 0


async def test_disagreement_filter_and_stats_by_judge(store: SqlStore) -> None:
    agree, differ, plain = r.answer("d-1"), r.answer("d-2", seed=2), r.answer("d-3", seed=3)
    items = []
    for n, data in enumerate((agree, differ, plain)):
        items.append(decode_record(r.formatted(data, _stamp(T0 + timedelta(seconds=n)),
                                               offset=n)))
    for n, (data, differs) in enumerate(((agree, False), (differ, True))):
        lexical = next(c.support.verdict for c in r.formatted_model(data).citations
                       if c.support)
        verdict = _other(lexical) if differs else lexical
        items.append(decode_record(_judged(data, verdict, T0 + timedelta(minutes=1), n)))
    await store.apply_batch(items)
    yes = await store.query(AnswerQuery(tenant="acme", disagreement=True))
    assert [i.answer_id for i in yes.items] == ["d-2"]
    no = await store.query(AnswerQuery(tenant="acme", disagreement=False))
    assert [i.answer_id for i in no.items] == ["d-1"]
    groups = await store.stats(StatsQuery(tenant="acme", since=T0 - timedelta(hours=1),
                                          until=T0 + timedelta(hours=1), group_by="judge"))
    by_key = {g.key: (g.answers, g.judged, g.disagreements) for g in groups}
    assert by_key == {None: (1, 0, 0), "openai:m": (2, 2, 1)}


async def test_stats_sum_the_judges_cost_and_average_its_time(store: SqlStore) -> None:
    data = r.answer("c-1")
    formatted = r.formatted_model(data)
    judged = AnswerJudged(answer_id="c-1", tenant="acme", judge="anthropic:h", scope="all",
                          cost={"requests": 2, "input_tokens": 900, "output_tokens": 120,
                                "usd": 0.0042, "latency_ms": 812.5})
    value = r.event_bytes(judged, "c-1", _stamp(T0 + timedelta(seconds=3)), "jdg-cost")
    await store.apply_batch([
        decode_record(r.formatted(data, _stamp(T0))),
        decode_record(Message("answers.judged", value, b"c-1", 0, 7))])
    assert formatted.answer_id == "c-1"
    [group] = await store.stats(StatsQuery(tenant="acme", since=T0 - timedelta(hours=1),
                                           until=T0 + timedelta(hours=1), group_by="judge"))
    assert group.key == "anthropic:h" and group.judged == 1
    assert group.judge_usd == 0.0042 and group.judge_latency_ms == 812.5
