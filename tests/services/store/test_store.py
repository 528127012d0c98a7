"""Every ResultsStore method, on SQLite and on a real PostgreSQL server (`store_url`)."""

from __future__ import annotations

import asyncio
from typing import Any
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from services.store.api import (
    AnswerQuery,
    Claim,
    DocumentRecord,
    Position,
    ResultUpdate,
    StatsQuery,
    StoreUnavailable,
    Submission,
)
from services.store.decode import decode_record
from services.store.engine import current_revision, upgrade
from services.store.sql import InvalidCursor, SqlStore
from services.store.tables import metadata
from tests.services.store import records as r

T0 = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def flow(answer_id: str, *, tenant: str = "acme", model: str = "gpt-x", at: datetime = T0,
         latency_s: float = 1.5, offset: int = 0) -> list:
    """A submission and its formatted result, decoded from real records."""
    data = r.answer(answer_id, tenant=tenant, model=model)
    return [
        decode_record(r.submitted(data, iso(at), offset=offset)),
        decode_record(r.formatted(data, iso(at + timedelta(seconds=latency_s)), offset=offset)),
    ]


async def test_migrate_is_idempotent_and_matches_the_tables(store: SqlStore) -> None:
    await asyncio.gather(store.migrate(), store.migrate())  # concurrent callers
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    def check(conn: sa.Connection) -> tuple[str | None, list]:
        return current_revision(conn), compare_metadata(MigrationContext.configure(conn),
                                                        metadata)

    async with store.engine.connect() as conn:
        revision, diff = await conn.run_sync(check)
    assert revision == "0009"
    assert diff == []


async def test_apply_is_idempotent_and_replay_changes_nothing(store: SqlStore) -> None:
    batch = flow("a-1") + flow("a-2", offset=1)
    assert await store.apply_batch(batch) == 2
    first = await store.get("a-1", None)
    assert await store.apply_batch(batch) == 0  # the same batch again
    assert await store.apply_batch(list(reversed(batch))) == 0  # replayed in another order
    assert await store.get("a-1", None) == first
    assert first is not None
    assert (first.status, first.tenant, first.model, first.latency_ms) == (
        "formatted", "acme", "gpt-x", 1500.0)
    assert first.summary is not None and first.summary.citations > 0
    assert first.position == Position("answers.formatted", 0, 0)


async def test_status_order(store: SqlStore) -> None:
    data = r.answer("a-3")
    submitted = decode_record(r.submitted(data, iso(T0)))
    formatted = decode_record(r.formatted(data, iso(T0 + timedelta(seconds=2)), offset=5))
    dead = decode_record(r.dead_lettered(data, iso(T0), offset=6,
                                         timestamp_ms=int((T0.timestamp() + 9) * 1000)))
    rejected = decode_record(r.rejected(data, iso(T0 + timedelta(seconds=10)), offset=7))
    # Formatted first, then the submission (from another topic), a dead letter and a
    # rejection of a duplicate: the formatted result stays, the submit time fills in.
    await store.apply_batch([formatted])
    record = await store.get("a-3", None)
    assert record is not None and record.latency_ms is None
    await store.apply_batch([submitted, dead, rejected])
    record = await store.get("a-3", None)
    assert record is not None
    assert (record.status, record.latency_ms) == ("formatted", 2000.0)
    assert record.submitted_at == T0
    # A dead letter replaces `submitted`; a later formatted result (after a drain) replaces it.
    data = r.answer("a-4")
    await store.apply_batch([decode_record(r.submitted(data, iso(T0))),
                             decode_record(r.dead_lettered(data, iso(T0)))])
    record = await store.get("a-4", None)
    assert record is not None and record.status == "dead_lettered"
    assert record.reason == "boom_code" and record.detail is not None
    assert record.detail["stage"] == "citations"
    await store.apply_batch([decode_record(r.formatted(data, iso(T0 + timedelta(seconds=30))))])
    record = await store.get("a-4", None)
    assert record is not None and record.status == "formatted" and record.reason is None


async def test_same_rank_later_event_wins_older_replay_does_not(store: SqlStore) -> None:
    data = r.answer("a-5")
    old = decode_record(r.formatted(data, iso(T0), event_id="e-old"))
    new = decode_record(r.formatted(data, iso(T0 + timedelta(seconds=5)), event_id="e-new"))
    await store.apply_batch([new])
    assert await store.apply_batch([old]) == 0
    record = await store.get("a-5", None)
    assert record is not None and record.event_id == "e-new"


async def test_record_submitted_created_same_conflict(store: SqlStore) -> None:
    sub = Submission("a-6", "acme", T0, body_sha256="h1", model="m", event_id="s-1")
    assert (await store.record_submitted(sub)).outcome == "created"
    same = await store.record_submitted(sub)
    assert same.outcome == "same" and same.record.status == "submitted"
    other = Submission("a-6", "acme", T0, body_sha256="h2")
    assert (await store.record_submitted(other)).outcome == "conflict"
    # Another tenant's a-6 is another answer (answer ids are per tenant): created.
    another_tenant = Submission("a-6", "evil", T0, body_sha256="h9")
    created = await store.record_submitted(another_tenant)
    assert (created.outcome, created.record.tenant) == ("created", "evil")
    # The sink then sees the same answer's submission and result: no going back to
    # `submitted`, and the gateway's hash stays.
    await store.apply_batch(flow("a-6"))
    assert (await store.record_submitted(sub)).record.status == "formatted"
    record = await store.get("a-6", "acme")
    assert record is not None and record.body_sha256 == "h1"


async def test_concurrent_submissions_of_one_answer(store: SqlStore) -> None:
    sub = Submission("a-7", "acme", T0, body_sha256="h")
    outcomes = await asyncio.gather(*(store.record_submitted(sub) for _ in range(5)))
    assert sorted(o.outcome for o in outcomes) == ["created", "same", "same", "same", "same"]


async def test_claim_submissions_created_same_conflict_and_stored(store: SqlStore) -> None:
    def sub(answer_id: str, sha: str = "h1", tenant: str = "acme") -> Submission:
        return Submission(answer_id, tenant, T0, body_sha256=sha, model="m",
                          event_id=f"ev-{answer_id}")

    claims = await store.claim_submissions([sub("c-1"), sub("c-2"), sub("c-1", "h9")])
    # A repeated id in one call: the first counts.
    assert claims == {("c-1", "acme"): Claim("created", False),
                      ("c-2", "acme"): Claim("created", False)}
    # Visible at once as `submitted`, with the hash; not yet `stored`.
    record = await store.get("c-1", "acme")
    assert record is not None and record.status == "submitted" and record.body_sha256 == "h1"
    # Another tenant's c-1 in the same batch is its own answer: created, not a conflict.
    again = await store.claim_submissions([sub("c-1"), sub("c-2", "h2"), sub("c-3"),
                                           sub("c-1", "h7", tenant="evil")])
    assert again == {("c-1", "acme"): Claim("same", False),
                     ("c-2", "acme"): Claim("conflict", False),
                     ("c-3", "acme"): Claim("created", False),
                     ("c-1", "evil"): Claim("created", False)}
    evil = await store.claim_submissions([sub("c-1", "h8", tenant="evil")])
    assert evil == {("c-1", "evil"): Claim("conflict", False)}  # its own c-1, other body
    # The sink sees c-1 on answers.submitted: the broker holds it.
    await store.apply_batch([sub("c-1")])
    assert await store.claim_submissions([sub("c-1")]) == {("c-1", "acme"): Claim("same", True)}
    assert await store.claim_submissions([sub("c-1", "h7", tenant="evil")]) == {
        ("c-1", "evil"): Claim("same", False)}  # the sink saw acme's, not evil's
    # A row first seen from the topic (no hash known): the same submission, stored.
    await store.apply_batch(flow("c-4"))
    assert await store.claim_submissions([sub("c-4")]) == {("c-4", "acme"): Claim("same", True)}


async def test_release_drops_only_unstored_claims_of_that_body(store: SqlStore) -> None:
    def sub(answer_id: str) -> Submission:
        return Submission(answer_id, "acme", T0, body_sha256="h1", event_id=f"ev-{answer_id}")

    await store.claim_submissions([sub("r-1"), sub("r-2"), sub("r-3")])
    await store.apply_batch([sub("r-2")])  # stored: the sink saw it
    # Another tenant's r-3 of the same body hash: not released by acme's release.
    await store.claim_submissions([Submission("r-3", "evil", T0, body_sha256="h1")])
    await store.release_submissions([("r-1", "acme", "h1"), ("r-2", "acme", "h1"),
                                     ("r-3", "acme", "other"), ("r-3", "nobody", "h1")])
    assert await store.get("r-1", None) is None
    assert await store.get("r-2", None) is not None
    assert await store.get("r-3", "acme") is not None
    assert await store.get("r-3", "evil") is not None
    # Released: the next claim is new again.
    assert await store.claim_submissions([sub("r-1")]) == {
        ("r-1", "acme"): Claim("created", False)}
    # A formatted answer is never released.
    await store.apply_batch(flow("r-4"))
    await store.release_submissions([("r-4", "acme", "h1")])
    assert await store.get("r-4", None) is not None


async def test_concurrent_claims_of_one_answer(store: SqlStore) -> None:
    sub = Submission("c-9", "acme", T0, body_sha256="h")
    claims = await asyncio.gather(*(store.claim_submissions([sub]) for _ in range(5)))
    assert sorted(c[("c-9", "acme")].outcome for c in claims) == ["created", "same", "same", "same",
                                                         "same"]


async def test_claims_of_two_gateway_processes_on_one_database(store_url: str) -> None:
    """Two stores on one database (two gateway workers) claiming the same new ids in
    overlapping batches: each id is created exactly once, and the full row reads back."""
    first, second = SqlStore(store_url), SqlStore(store_url)
    await first.migrate()
    try:
        ids = [f"p-{n}" for n in range(60)]

        async def claim_all(store: SqlStore, order: list[str]) -> list[Claim]:
            found: list[Claim] = []
            for n in range(0, len(order), 7):
                batch = [Submission(i, "acme", T0, body_sha256="h", model="m", event_id="e")
                         for i in order[n:n + 7]]
                found.extend((await store.claim_submissions(batch)).values())
            return found

        a, b = await asyncio.gather(claim_all(first, ids), claim_all(second, ids[::-1]))
        assert sorted(c.outcome for c in a + b) == ["created"] * 60 + ["same"] * 60
        record = await second.get("p-7", "acme")
        assert record is not None and (record.status, record.model, record.body_sha256,
                                       record.submitted_at) == ("submitted", "m", "h", T0)
    finally:
        await first.close()
        await second.close()


async def test_claims_in_opposite_orders_on_one_database(store_url: str) -> None:
    """Two gateway processes claiming the same new ids at once, in opposite orders, round
    after round: no deadlock (PostgreSQL aborts one of two inserts waiting on each other's
    rows), and each id is created once."""
    first, second = SqlStore(store_url), SqlStore(store_url)
    await first.migrate()
    try:
        for round_ in range(25):
            ids = [f"o-{round_}-{n}" for n in range(40)]

            def batch(order: list[str]) -> list[Submission]:
                return [Submission(i, "acme", T0, body_sha256="h") for i in order]

            a, b = await asyncio.gather(first.claim_submissions(batch(ids)),
                                        second.claim_submissions(batch(ids[::-1])))
            assert sorted(c.outcome for c in [*a.values(), *b.values()]) == \
                ["created"] * 40 + ["same"] * 40
    finally:
        await first.close()
        await second.close()


async def test_a_claim_larger_than_one_statement(store: SqlStore) -> None:
    """More ids than one SQLite statement holds (500 a statement): one transaction still."""
    def sub(answer_id: str) -> Submission:
        return Submission(answer_id, "acme", T0, body_sha256="h")

    await store.claim_submissions([sub("big-7"), sub("big-900"), sub("big-1202")])
    claims = await store.claim_submissions([sub(f"big-{n}") for n in range(1203)])
    assert [n for n in range(1203)
            if claims[(f"big-{n}", "acme")].outcome == "same"] == [7, 900, 1202]
    assert sum(c.outcome == "created" for c in claims.values()) == 1200
    assert await store.get("big-1100", "acme") is not None


async def test_claims_and_reads_through_a_postgresql_restart(pg_server: Any,
                                                             pg_url: str) -> None:
    """The hot path's own connections (services.store.hot_path): StoreUnavailable while the
    server is down, working again once it is back (no dead pooled connection kept)."""
    if not pg_server.can_restart:
        pytest.skip("the PostgreSQL server of this run cannot be stopped by the tests")
    store = SqlStore(pg_url)
    await store.migrate()
    try:
        claim = [Submission("pg-1", "acme", T0, body_sha256="h")]
        assert await store.claim_submissions(claim) == {("pg-1", "acme"): Claim("created", False)}
        pg_server.stop()
        try:
            with pytest.raises(StoreUnavailable):
                await store.get("pg-1", "acme")
            with pytest.raises(StoreUnavailable):
                await store.claim_submissions([Submission("pg-2", "acme", T0)])
        finally:
            pg_server.start()
        record = await store.get("pg-1", "acme")
        assert record is not None and record.status == "submitted"
        assert await store.claim_submissions([Submission("pg-2", "acme", T0)]) == {
            ("pg-2", "acme"): Claim("created", False)}
    finally:
        await store.close()


def test_an_in_memory_sqlite_store_is_refused() -> None:
    with pytest.raises(ValueError, match="must be a file"):
        SqlStore("sqlite+aiosqlite:///:memory:")


async def test_get_is_tenant_scoped(store: SqlStore) -> None:
    await store.apply_batch(flow("a-8", tenant="t1"))
    assert await store.get("a-8", "t1") is not None
    assert await store.get("a-8", "t2") is None
    assert await store.get("nope", None) is None


async def test_query_filters_and_cursor_pagination(store: SqlStore) -> None:
    items = []
    for i in range(7):
        items += flow(f"q-{i}", tenant="t1" if i < 5 else "t2", model="m1" if i % 2 else "m2",
                      at=T0 + timedelta(seconds=i), offset=i)
    bad = r.answer("q-bad", tenant="t1")
    items.append(decode_record(r.rejected(bad, iso(T0 + timedelta(seconds=20)), offset=9)))
    await store.apply_batch(items)
    seen, cursor = [], None
    while True:
        page = await store.query(AnswerQuery(tenant="t1", limit=2, cursor=cursor))
        seen += [i.answer_id for i in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == ["q-bad", "q-4", "q-3", "q-2", "q-1", "q-0"]  # newest first, no repeats
    m1 = await store.query(AnswerQuery(tenant="t1", model="m1"))
    assert [i.answer_id for i in m1.items] == ["q-3", "q-1"]
    rejected = await store.query(AnswerQuery(tenant=None, status="rejected"))
    assert [i.answer_id for i in rejected.items] == ["q-bad"]
    window = await store.query(AnswerQuery(tenant=None, since=T0 + timedelta(seconds=2),
                                           until=T0 + timedelta(seconds=4)))
    assert [i.answer_id for i in window.items] == ["q-3", "q-2"]
    cov = await store.query(AnswerQuery(tenant=None, min_coverage=0.0, max_coverage=1.0))
    assert len(cov.items) == 7
    none_invalid = await store.query(AnswerQuery(tenant=None, has_invalid_citations=False))
    assert len(none_invalid.items) == 7
    assert (await store.query(AnswerQuery(tenant=None, has_invalid_citations=True))).items == []
    assert (await store.query(AnswerQuery(tenant=None, has_downgraded_quotes=True))).items == []
    with pytest.raises(InvalidCursor):
        await store.query(AnswerQuery(tenant=None, cursor="garbage!"))


async def test_stats_on_a_hand_built_set(store: SqlStore) -> None:
    def update(answer_id: str, model: str, latency_ms: float, citations: int, invalid: int,
               coverage: float, tenant: str = "t1") -> list:
        from services.store.api import Summary

        at = T0 + timedelta(minutes=len(answer_id))
        return [
            Submission(answer_id, tenant, at, model=model, event_id=f"s-{answer_id}"),
            ResultUpdate(answer_id, tenant, "formatted", f"f-{answer_id}",
                         at + timedelta(milliseconds=latency_ms),
                         Position("answers.formatted", 0, len(answer_id)), model=model,
                         result=b"{}", summary=Summary(
                             citations=citations, invalid_citations=invalid, sentences=4,
                             uncited_sentences=1, coverage=coverage, downgraded_quotes=1,
                             sources_supplied=3, sources_cited=2, problems=invalid)),
        ]

    items = (update("a", "m1", 100, 10, 1, 0.5) + update("bb", "m1", 200, 10, 3, 0.7)
             + update("ccc", "m1", 300, 0, 0, 0.9) + update("dddd", "m1", 1000, 5, 0, 1.0)
             + update("eeeee", "m2", 50, 2, 2, 0.0, tenant="t2"))
    fail = ResultUpdate("ffffff", "t1", "rejected", "r-f", T0 + timedelta(minutes=6),
                        Position("answers.rejected", 0, 1), model="m1", reason="invalid_data")
    dead = ResultUpdate("ggggggg", "t1", "dead_lettered", "d-g", T0 + timedelta(minutes=7),
                        Position("answers.scored.dlq", 0, 1), model="m1", reason="boom")
    await store.apply_batch([*items, fail, dead])
    window = {"since": T0, "until": T0 + timedelta(hours=1)}
    by_model = await store.stats(StatsQuery(tenant=None, group_by="model", **window))
    m1 = next(g for g in by_model if g.key == "m1")
    assert (m1.answers, m1.formatted, m1.citations, m1.invalid_citations) == (6, 4, 25, 4)
    assert m1.invalid_citation_rate == pytest.approx(4 / 25)
    assert m1.mean_coverage == pytest.approx((0.5 + 0.7 + 0.9 + 1.0) / 4)
    assert (m1.sentences, m1.uncited_sentences, m1.downgraded_quotes) == (16, 4, 4)
    assert (m1.sources_supplied, m1.sources_cited) == (12, 8)
    assert m1.rejections == {"invalid_data": 1} and m1.dead_letters == {"boom": 1}
    # percentile_cont over [100, 200, 300, 1000]: p50 = 250, p95 = 300 + 0.85 * 700 = 895
    assert m1.latency_p50_ms == pytest.approx(250.0)
    assert m1.latency_p95_ms == pytest.approx(895.0)
    t2 = await store.stats(StatsQuery(tenant="t2", group_by="tenant", **window))
    assert [(g.key, g.answers, g.latency_p50_ms) for g in t2] == [("t2", 1, 50.0)]
    overall = await store.stats(StatsQuery(tenant=None, group_by="none", **window))
    assert [(g.key, g.answers) for g in overall] == [(None, 7)]
    buckets = await store.stats(StatsQuery(tenant="t1", group_by="none", bucket_seconds=180,
                                           **window))
    assert [(g.bucket_start, g.answers) for g in buckets] == [
        (T0, 2), (T0 + timedelta(minutes=3), 2), (T0 + timedelta(minutes=6), 2)]
    empty = await store.stats(StatsQuery(tenant="nobody", **window))
    assert empty == []


async def test_since_serves_what_a_client_missed(store: SqlStore) -> None:
    await store.apply_batch(flow("s-1", offset=0) + flow("s-2", offset=1) + flow("s-3", offset=2))
    formatted = frozenset({"formatted"})
    everything = await store.since({}, None, formatted, 100)
    assert [r.answer_id for r in everything] == ["s-1", "s-2", "s-3"]
    after_first = await store.since({("answers.formatted", 0): 0}, None, formatted, 100)
    assert [r.answer_id for r in after_first] == ["s-2", "s-3"]
    assert [r.answer_id for r in await store.since({}, None, formatted, 1)] == ["s-1"]
    assert await store.since({}, "other", formatted, 100) == []
    assert await store.since({}, None, frozenset({"rejected"}), 100) == []


async def test_idempotency_keys(store: SqlStore) -> None:
    assert await store.claim_idempotency_key("t", "k1", "fp") is None
    in_flight = await store.claim_idempotency_key("t", "k1", "fp")
    assert in_flight is not None and in_flight.status == 0
    await store.finish_idempotency_key("t", "k1", 202, {"location": "/v1/answers/x"}, b"{}")
    done = await store.claim_idempotency_key("t", "k1", "other")
    assert done is not None
    assert (done.status, done.fingerprint, dict(done.headers), done.body) == (
        202, "fp", {"location": "/v1/answers/x"}, b"{}")
    assert await store.claim_idempotency_key("t2", "k1", "fp") is None  # per tenant
    # A server error releases the key: the retry runs again.
    assert await store.claim_idempotency_key("t", "k2", "fp") is None
    await store.finish_idempotency_key("t", "k2", 503, {}, b"")
    assert await store.claim_idempotency_key("t", "k2", "fp") is None


async def test_documents(store: SqlStore) -> None:
    doc = DocumentRecord("d-1", "acme", "submitted", "epub", "store/d-1.epub", "abc", T0, T0)
    await store.upsert_document(doc)
    await store.upsert_document(doc)
    outcome = decode_record(r.document_ingested("d-1", iso(T0 + timedelta(seconds=3))))
    assert isinstance(outcome, DocumentRecord)
    assert await store.apply_batch([outcome]) == 1
    assert await store.apply_batch([outcome]) == 0
    got = await store.get_document("d-1", "acme")
    assert got is not None
    assert (got.status, got.sections, got.chunks, got.path, got.sha256, got.tenant) == (
        "ingested", 1, 0, "store/d-1.epub", "abc", "acme")
    assert await store.get_document("d-1", "other") is None
    # Submitted again with other content: starts over.
    await store.upsert_document(DocumentRecord("d-1", "acme", "submitted", "epub", "p2", "def",
                                               T0, T0))
    again = await store.get_document("d-1", None)
    assert again is not None and (again.status, again.sha256, again.sections) == (
        "submitted", "def", None)
    rejected = decode_record(r.document_rejected("d-2", iso(T0)))
    await store.apply_batch([rejected])
    got2 = await store.get_document("d-2", None)
    assert got2 is not None and (got2.status, got2.reason) == ("rejected", "not_a_zip")


async def test_keys(store: SqlStore) -> None:
    key, secret = await store.create_key("acme", frozenset({"submit", "read"}), name="ci",
                                         rate_per_s=5.0)
    assert secret.startswith(f"cf_{key.key_id}_")
    verified = await store.verify_key(secret)
    assert verified is not None
    assert (verified.tenant, verified.scopes, verified.rate_per_s) == (
        "acme", frozenset({"submit", "read"}), 5.0)
    assert await store.verify_key(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
    assert await store.verify_key("garbage") is None
    assert await store.verify_key(f"cf_{'0' * 16}_{'x' * 43}") is None
    await store.create_key("other", frozenset({"admin"}))
    assert [k.key_id for k in await store.list_keys("acme")] == [key.key_id]
    assert len(await store.list_keys()) == 2
    assert await store.revoke_key(key.key_id) is True
    assert await store.revoke_key(key.key_id) is False
    assert await store.verify_key(secret) is None
    listed = await store.list_keys("acme")
    assert listed[0].revoked_at is not None
    with pytest.raises(ValueError):
        await store.create_key("acme", frozenset({"root"}))


async def test_ping_and_store_down(tmp_path) -> None:
    store = SqlStore(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    await store.ping()
    await store.close()
    # Nothing listens on port 1: every operation is StoreUnavailable, never a crash.
    down = SqlStore("postgresql+asyncpg://u@127.0.0.1:1/db")
    with pytest.raises(StoreUnavailable):
        await down.ping()
    with pytest.raises(StoreUnavailable):
        await down.apply_batch(flow("x"))
    with pytest.raises(StoreUnavailable):
        await down.get("x", None)
    claim = [Submission("x", "acme", T0, body_sha256="h")]
    with pytest.raises(StoreUnavailable):
        await down.claim_submissions(claim)
    await down.close()
    # An SQLite file that is not (or no longer) a database: the claim path says so too.
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"not a database" * 100)
    garbled = SqlStore(f"sqlite+aiosqlite:///{broken}")
    with pytest.raises(StoreUnavailable):
        await garbled.claim_submissions(claim)
    await garbled.close()


async def test_stale_claims_are_claimed_anew(store: SqlStore) -> None:
    from services.store.sql import IN_FLIGHT_TTL_MS
    from services.store.tables import idempotency_keys

    assert await store.claim_idempotency_key("t", "k", "fp") is None
    async with store.engine.begin() as conn:  # the claiming request died long ago
        await conn.execute(sa.update(idempotency_keys).values(
            created_at_ms=idempotency_keys.c.created_at_ms - IN_FLIGHT_TTL_MS - 1))
    assert await store.claim_idempotency_key("t", "k", "fp") is None


async def test_a_late_submission_does_not_reorder_since(store: SqlStore) -> None:
    data = [r.answer(f"o-{i}") for i in range(2)]
    for i, d in enumerate(data):
        await store.apply_batch([decode_record(r.formatted(d, iso(T0), offset=i))])
    await store.apply_batch([decode_record(r.submitted(data[0], iso(T0)))])
    rows = await store.since({}, None, frozenset({"formatted"}), 10)
    assert [row.answer_id for row in rows] == ["o-0", "o-1"]
    assert rows[0].latency_ms is not None


async def test_doc_ids_are_per_tenant_and_claims_atomic(store: SqlStore) -> None:
    """A doc_id was global, so a tenant uploading another's doc_id got 409 (it
    learnt the id existed, or took it first), and two racing uploads both got 202 with one
    row replacing the other's tenant, path and hash."""
    mine = [DocumentRecord("shared", tenant, "submitted", "pdf", f"p-{tenant}", tenant * 8,
                           T0, T0) for tenant in ("ta", "tb")]
    rows = await asyncio.gather(*(store.claim_document(doc) for doc in mine))
    assert rows == mine  # each tenant has its own "shared"
    for doc in mine:
        assert await store.get_document("shared", doc.tenant) == doc
    # One tenant racing itself with two contents: one claim wins, the other reads it back
    # or starts it over (last writer wins), never a third state.
    race = [DocumentRecord("own", "ta", "submitted", "pdf", f"p-{n}", f"{n}" * 8, T0, T0)
            for n in range(2)]
    claimed = await asyncio.gather(*(store.claim_document(doc) for doc in race))
    stored = await store.get_document("own", "ta")
    assert stored in race and all(row in race for row in claimed)
    # The same bytes again: the row as it is.
    assert await store.claim_document(stored) == stored
    # An outcome lands on the rows made from its content only.
    ingested = DocumentRecord("shared", "ta", "ingested", "pdf", "p-ta", "", T0, T0, 2, 3)
    assert await store.apply_batch([ingested]) == 1
    a, b = [await store.get_document("shared", t) for t in ("ta", "tb")]
    assert a is not None and b is not None
    assert (a.status, a.sections, b.status) == ("ingested", 2, "submitted")


async def test_a_dead_lettered_document_says_so(store: SqlStore) -> None:
    path = "store://sha256/d-dl"  # the uri of the dead-lettered submission
    await store.claim_document(DocumentRecord("d-dl", "acme", "submitted", "epub", path, "abc",
                                              T0, T0))
    item = decode_record(r.document_dead_lettered("d-dl", iso(T0)))
    assert isinstance(item, DocumentRecord)
    assert await store.apply_batch([item]) == 1
    got = await store.get_document("d-dl", "acme")
    assert got is not None and (got.status, got.reason, got.path, got.sha256) == (
        "dead_lettered", "MessageSizeTooLargeError", path, "abc")


async def test_migration_0002_keeps_documents_and_scopes_their_ids(store_url: str) -> None:
    """A store of revision 0001 with a document: upgraded, the row is kept, and another
    tenant may then use its doc_id."""
    store = SqlStore(store_url)
    try:
        async with store.engine.begin() as conn:
            await conn.run_sync(upgrade, "0001")
            await conn.execute(sa.text(
                "INSERT INTO documents (doc_id, tenant, status, format, path, sha256, "
                "submitted_at_ms, updated_at_ms) VALUES ('old', 'ta', 'ingested', 'pdf', "
                "'p-old', 'abc', 1, 2)"))
        await store.migrate()
        kept = await store.get_document("old", "ta")
        assert kept is not None and (kept.status, kept.path) == ("ingested", "p-old")
        theirs = DocumentRecord("old", "tb", "submitted", "pdf", "p-b", "def", T0, T0)
        assert await store.claim_document(theirs) == theirs
        assert await store.get_document("old", "ta") == kept
    finally:
        await store.close()


async def test_one_answer_id_under_two_tenants_is_two_answers(store: SqlStore) -> None:
    """Answer ids are per tenant (migration 0003): two tenants' claims of one id in one
    batch are both `created`, the sink's records land on each tenant's own row, and every
    read sees only the reader's tenant's answer."""
    data = {t: r.answer("shared", tenant=t, model=f"m-{t}", seed=n)
            for n, t in enumerate(("ta", "tb"))}
    claims = await store.claim_submissions([
        Submission("shared", t, T0, body_sha256=f"h-{t}", model=f"m-{t}") for t in data])
    assert claims == {("shared", "ta"): Claim("created", False),
                      ("shared", "tb"): Claim("created", False)}
    # tb's result arrives; ta's is still in flight: ta's answer stays `submitted`.
    await store.apply_batch([decode_record(r.submitted(data["ta"], iso(T0), offset=0)),
                             decode_record(r.submitted(data["tb"], iso(T0), offset=1)),
                             decode_record(r.formatted(data["tb"], iso(T0), offset=1))])
    ta, tb = await store.get("shared", "ta"), await store.get("shared", "tb")
    assert ta is not None and (ta.tenant, ta.status, ta.model, ta.body_sha256) == (
        "ta", "submitted", "m-ta", "h-ta")
    assert tb is not None and (tb.tenant, tb.status, tb.model, tb.body_sha256) == (
        "tb", "formatted", "m-tb", "h-tb")
    await store.apply_batch([decode_record(r.formatted(data["ta"], iso(T0), offset=0))])
    ta = await store.get("shared", "ta")
    assert ta is not None and ta.status == "formatted" and ta.result != tb.result
    assert (await store.get("shared", "tb")) == tb  # untouched by ta's result
    assert await store.get("shared", "tc") is None
    # Lists, `since` and get_many see only the tenant's own.
    for tenant in ("ta", "tb"):
        page = await store.query(AnswerQuery(tenant=tenant))
        assert [(a.answer_id, a.tenant) for a in page.items] == [("shared", tenant)]
        since = await store.since({}, tenant, frozenset({"formatted"}), 10)
        assert [(a.answer_id, a.tenant) for a in since] == [("shared", tenant)]
        assert (await store.get_many(["shared"], tenant))["shared"].tenant == tenant
    # An admin list pages through both (the cursor orders them by tenant too).
    first = await store.query(AnswerQuery(tenant=None, limit=1))
    second = await store.query(AnswerQuery(tenant=None, limit=1, cursor=first.next_cursor))
    assert sorted(a.tenant for a in first.items + second.items) == ["ta", "tb"]
    assert second.next_cursor is None
    # A conflict is only another body under the tenant's own id; a release only its own.
    assert (await store.record_submitted(Submission("shared", "tb", T0, body_sha256="x"))
            ).outcome == "conflict"
    await store.claim_submissions([Submission("fresh", t, T0, body_sha256="h") for t in data])
    await store.release_submissions([("fresh", "ta", "h")])
    assert await store.get("fresh", "ta") is None
    assert await store.get("fresh", "tb") is not None


async def test_migration_0003_keeps_answers_and_scopes_their_ids(store_url: str) -> None:
    """A store of revision 0002 with answers: upgraded, every row and column is kept, and
    another tenant may then use their answer_ids (created, its own row)."""
    store = SqlStore(store_url)
    try:
        async with store.engine.begin() as conn:
            await conn.run_sync(upgrade, "0002")
            await conn.execute(sa.text(
                "INSERT INTO answers (answer_id, tenant, status, model, answered_at_ms, "
                "submitted_at_ms, body_sha256, event_id, updated_at_ms, result, reason, "
                "pos_topic, pos_partition, pos_offset, citations, coverage) VALUES "
                "('old', 'ta', 'formatted', 'm', 1, 1, 'h', 'e-1', 2, :result, NULL, "
                "'answers.formatted', 0, 7, 3, 0.5), "
                "('old-2', 'tb', 'submitted', NULL, 3, 3, 'h2', 'e-2', 4, NULL, NULL, "
                "NULL, NULL, NULL, NULL, NULL)"), {"result": b'{"x": 1}'})
        await store.migrate()
        kept = await store.get("old", "ta")
        assert kept is not None and (
            kept.status, kept.model, kept.body_sha256, kept.result, kept.position,
            kept.summary is not None and kept.summary.citations) == (
            "formatted", "m", "h", b'{"x": 1}', Position("answers.formatted", 0, 7), 3)
        assert (await store.get("old-2", "tb")) is not None
        claims = await store.claim_submissions([Submission("old", "tb", T0, body_sha256="z")])
        assert claims == {("old", "tb"): Claim("created", False)}
        assert await store.get("old", "ta") == kept
        page = await store.query(AnswerQuery(tenant=None))
        assert sorted((a.answer_id, a.tenant) for a in page.items) == [
            ("old", "ta"), ("old", "tb"), ("old-2", "tb")]
    finally:
        await store.close()


async def test_a_document_rejected_for_its_environment_recovers(store: SqlStore) -> None:
    """Rejected because the document store was missing (`document_not_found`): a re-upload
    of the same bytes starts it over (the gateway produces it again), and an ingest outcome
    from a re-upload or a replay replaces the failure; a late rejection never replaces
    an ingested document."""
    path = "store/d-env.epub"
    mine = DocumentRecord("d-env", "acme", "submitted", "epub", path, "abc", T0, T0)
    await store.claim_document(mine)
    await store.apply_batch([DocumentRecord("d-env", "acme", "rejected", None, path, "abc",
                                            T0, T0, reason="document_not_found")])
    again = DocumentRecord("d-env", "acme", "submitted", "epub", path, "abc", T0,
                           T0 + timedelta(seconds=5))
    assert await store.claim_document(again) == again
    got = await store.get_document("d-env", "acme")
    assert got is not None and (got.status, got.reason) == ("submitted", None)
    # Rejected again, then a replay's ingest outcome: ingested.
    await store.apply_batch([DocumentRecord("d-env", "acme", "dead_lettered", None, path,
                                            "abc", T0, T0, reason="OSError")])
    ingested = decode_record(r.document_ingested("d-env", iso(T0 + timedelta(seconds=9))))
    assert await store.apply_batch([ingested]) == 1
    got = await store.get_document("d-env", "acme")
    assert got is not None and (got.status, got.reason, got.sections) == ("ingested", None, 1)
    late = DocumentRecord("d-env", "acme", "rejected", None, path, "abc", T0, T0,
                          reason="document_not_found")
    assert await store.apply_batch([late]) == 0
    assert await store.claim_document(again) != again  # ingested: the upload is a 200
