"""`ResultsStore` over SQLAlchemy Core: SQLite (aiosqlite) or PostgreSQL (asyncpg).

Every method is one transaction. Writers lock what they read (BEGIN IMMEDIATE on SQLite,
SELECT ... FOR UPDATE on PostgreSQL), so the sink and any number of gateways may write the
same answer at once. A database outage raises StoreUnavailable.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from services.store import key_secrets
from services.store.answer_state import (
    Row,
    apply_judgement,
    apply_submission,
    apply_update,
    submission_row,
    to_ms,
    judgement_row,
    update_row,
)
from services.store.api import (
    AnswerQuery,
    AnswerRecord,
    ApiKey,
    Claim,
    DocumentRecord,
    GroupStats,
    Judgement,
    Page,
    Position,
    Positions,
    ResultUpdate,
    ResultVersion,
    StatsQuery,
    Status,
    StoredResponse,
    StoreItem,
    StoreUnavailable,
    Submission,
    SubmitOutcome,
    Summary,
    Unfinished,
)
from services.store.hot_path import hot_path
from services.store.engine import is_outage, make_engine, migrate, store_url, transaction
from services.store import versions as kept_versions
from services.store.stats import group_stats
from services.store.tables import (
    SUMMARY_COLUMNS,
    answers,
    api_keys,
    documents,
    idempotency_keys,
)

AnswerEvent = Submission | ResultUpdate | Judgement
# An Idempotency-Key is remembered this long (the draft leaves expiry to the server).
IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000
# A claim still in flight after this long belongs to a request that died with its process.
IN_FLIGHT_TTL_MS = 5 * 60 * 1000
_ANSWER_COLUMNS = [c.name for c in answers.columns]
# An answer's key: each tenant has its own answer ids (migration 0003).
_ANSWER_KEY = ("answer_id", "tenant")


@asynccontextmanager
async def _outages() -> AsyncIterator[None]:
    """An outage of the hot path's own connections as StoreUnavailable (as `transaction`)."""
    try:
        yield
    except StoreUnavailable:
        raise
    except Exception as error:
        if is_outage(error):
            raise StoreUnavailable(f"store unavailable: {type(error).__name__}: {error}") \
                from error
        raise


class InvalidCursor(ValueError):
    """A pagination cursor that this store did not issue."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def _dt(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


class SqlStore:
    """The results store (see services.store.api.ResultsStore)."""

    def __init__(self, database: str | AsyncEngine | None = None,
                 versions: int | None = None) -> None:
        """A store on an engine, or on a URL (default: CITEFLOW_STORE_URL, else the
        embedded SQLite file in the data directory), keeping `versions` earlier results per
        answer (default: CITEFLOW_STORE_VERSIONS)."""
        self.versions_kept = (kept_versions.versions_kept() if versions is None
                              else versions)
        if isinstance(database, AsyncEngine):
            self.engine = database
        else:
            self.engine = make_engine(database or store_url())
        self._hot = hot_path(self.engine.url)  # the gateway's claims and reads by id

    async def migrate(self) -> None:
        await migrate(self.engine)

    async def ping(self) -> None:
        async with transaction(self.engine, write=False) as conn:
            await conn.execute(sa.text("SELECT 1"))

    async def close(self) -> None:
        await self._hot.close()
        await self.engine.dispose()

    # -- answers: writes ---------------------------------------------------------------------

    async def record_submitted(self, submission: Submission) -> SubmitOutcome:
        async with transaction(self.engine) as conn:
            now = _now_ms()
            row = submission_row(submission, now)
            if await _insert_new(conn, answers, _ANSWER_KEY, [row]):
                return SubmitOutcome("created", _record(row))
            key = (submission.answer_id, submission.tenant)
            existing = (await _locked_rows(conn, [key]))[key]
            # Only the tenant's own answer under this id can conflict: another tenant's
            # is another row (answer ids are per tenant).
            if (existing["body_sha256"] is not None and submission.body_sha256 is not None
                    and existing["body_sha256"] != submission.body_sha256):
                return SubmitOutcome("conflict", _record(existing))
            changed = apply_submission(existing, submission)
            if changed is not None:
                await _update_rows(conn, [changed])
            return SubmitOutcome("same", _record(changed or existing))

    async def claim_submissions(
        self, submissions: Sequence[Submission]
    ) -> dict[tuple[str, str], Claim]:
        """See services.store.hot_path (the submit path's write, one transaction a batch)."""
        if not submissions:
            return {}
        async with _outages():
            return await self._hot.claim(submissions, _now_ms())

    async def release_submissions(self, claims: Sequence[tuple[str, str, str]]) -> None:
        if not claims:
            return
        async with transaction(self.engine) as conn:
            await conn.execute(_RELEASE, [
                {"b_answer_id": answer_id, "b_tenant": tenant, "b_sha": sha}
                for answer_id, tenant, sha in claims])

    async def unfinished(self, submitted_before: datetime, limit: int,
                         after: Unfinished | None = None) -> list[Unfinished]:
        c = answers.c
        where = [c.status == "submitted", c.submitted_body.is_not(None),
                 c.body_sha256.is_not(None), c.submitted_at_ms < to_ms(submitted_before)]
        if after is not None:
            where.append(sa.tuple_(c.submitted_at_ms, c.answer_id, c.tenant)
                         > sa.tuple_(sa.literal(to_ms(after.submitted_at)),
                                     sa.literal(after.answer_id), sa.literal(after.tenant)))
        stmt = (sa.select(c.answer_id, c.tenant, c.submitted_at_ms, c.body_sha256,
                          c.submitted_body)
                .where(*where).order_by(c.submitted_at_ms, c.answer_id, c.tenant).limit(limit))
        async with transaction(self.engine, write=False) as conn:
            rows = (await conn.execute(stmt)).all()
        return [Unfinished(row.answer_id, row.tenant, _dt(row.submitted_at_ms) or submitted_before,
                           row.body_sha256, row.submitted_body) for row in rows]

    async def apply(self, updates: Sequence[ResultUpdate]) -> int:
        return await self.apply_batch(updates)

    async def apply_batch(self, items: Sequence[StoreItem]) -> int:
        """Apply submissions, outcome events and document outcomes (what the sink decodes
        from one batch of records) in ONE transaction; returns how many rows changed.
        Idempotent, and the result does not depend on the order of different answers'
        events (see services.store.answer_state)."""
        if not items:
            return 0
        async with transaction(self.engine) as conn:
            changed = 0
            events: list[AnswerEvent] = []
            for item in items:
                if isinstance(item, DocumentRecord):
                    changed += await _upsert_document(conn, item)
                else:
                    events.append(item)
            if events:
                changed += await _apply_answer_events(conn, events, self.versions_kept)
            return changed

    # -- answers: reads ----------------------------------------------------------------------

    async def get(self, answer_id: str, tenant: str | None) -> AnswerRecord | None:
        async with _outages():  # the gateway's hot read (services.store.hot_path)
            found = await self._hot.get_row(answer_id, tenant)
        return None if found is None else _record(found)

    async def versions(self, answer_id: str, tenant: str) -> list[ResultVersion]:
        async with transaction(self.engine, write=False) as conn:
            rows = await kept_versions.read(conn, answer_id, tenant)
        return [ResultVersion(row["event_id"], _dt(row["event_time_ms"]) or datetime.now(UTC),
                              row["result"], _dt(row["replaced_at_ms"]) or datetime.now(UTC),
                              row["replaced_by"]) for row in rows]

    async def get_many(self, answer_ids: Sequence[str],
                       tenant: str | None = None) -> dict[str, AnswerRecord]:
        where: list[Any] = [answers.c.answer_id.in_(list(answer_ids))]
        if tenant is not None:
            where.append(answers.c.tenant == tenant)
        # Of an id several tenants use (tenant None), the smallest tenant's answer.
        stmt = sa.select(answers).where(*where).order_by(answers.c.tenant.desc())
        async with transaction(self.engine, write=False) as conn:
            rows = (await conn.execute(stmt)).mappings().all()
        return {row["answer_id"]: _record(dict(row)) for row in rows}

    async def query(self, query: AnswerQuery) -> Page:
        c = answers.c
        where = _filters(query)
        if query.cursor:
            at, answer_id, tenant = _decode_cursor(query.cursor)
            # (answered_at, answer_id, tenant) orders every row: two tenants' answers of one
            # id at one time are both listed (tenant None: a cursor of before 0003, whose
            # position is (at, answer_id) alone).
            where.append(sa.or_(
                c.answered_at_ms < at,
                sa.and_(c.answered_at_ms == at, c.answer_id < answer_id),
                sa.and_(c.answered_at_ms == at, c.answer_id == answer_id,
                        c.tenant < tenant) if tenant is not None else sa.false()))
        limit = max(1, min(int(query.limit), 1000))
        stmt = (sa.select(answers).where(*where)
                .order_by(c.answered_at_ms.desc(), c.answer_id.desc(), c.tenant.desc())
                .limit(limit + 1))
        async with transaction(self.engine, write=False) as conn:
            rows = [dict(r) for r in (await conn.execute(stmt)).mappings()]
        more = len(rows) > limit
        rows = rows[:limit]
        cursor = _encode_cursor(rows[-1]["answered_at_ms"], rows[-1]["answer_id"],
                                rows[-1]["tenant"]) if more else None
        return Page([_record(r) for r in rows], cursor)

    async def stats(self, query: StatsQuery) -> list[GroupStats]:
        async with transaction(self.engine, write=False) as conn:
            return await group_stats(conn, query)

    async def since(
        self, positions: Positions, tenant: str | None, statuses: frozenset[Status],
        limit: int,
    ) -> list[AnswerRecord]:
        c = answers.c
        where: list[Any] = [c.status.in_(sorted(statuses)), c.pos_topic.is_not(None)]
        if tenant is not None:
            where.append(c.tenant == tenant)
        for (topic, partition), offset in positions.items():
            # Already seen: at or before the client's offset in that partition.
            where.append(sa.not_(sa.and_(c.pos_topic == topic, c.pos_partition == partition,
                                         c.pos_offset <= offset)))
        stmt = (sa.select(answers).where(*where)
                .order_by(c.updated_at_ms, c.pos_topic, c.pos_partition, c.pos_offset)
                .limit(max(0, int(limit))))
        async with transaction(self.engine, write=False) as conn:
            return [_record(dict(r)) for r in (await conn.execute(stmt)).mappings()]

    # -- idempotency keys --------------------------------------------------------------------

    async def claim_idempotency_key(
        self, tenant: str, key: str, fingerprint: str
    ) -> StoredResponse | None:
        now = _now_ms()
        claim = {"tenant": tenant, "key": key, "fingerprint": fingerprint, "status": 0,
                 "headers": {}, "body": b"", "created_at_ms": now}
        t = idempotency_keys
        async with transaction(self.engine) as conn:
            if await _insert_new(conn, t, ("tenant", "key"), [claim]):
                return None
            where = (t.c.tenant == tenant, t.c.key == key)
            row = (await conn.execute(sa.select(t).where(*where).with_for_update())).one()
            age = now - row.created_at_ms
            if age > IDEMPOTENCY_TTL_MS or (row.status == 0 and age > IN_FLIGHT_TTL_MS):
                # Expired, or claimed by a request that never finished (its gateway died):
                # this request claims it anew.
                await conn.execute(sa.update(t).where(*where).values(claim))
                return None
            return StoredResponse(row.fingerprint, row.status, dict(row.headers), row.body,
                                  _dt(row.created_at_ms) or datetime.now(UTC))

    async def finish_idempotency_key(
        self, tenant: str, key: str, status: int, headers: Mapping[str, str], body: bytes
    ) -> None:
        t = idempotency_keys
        where = (t.c.tenant == tenant, t.c.key == key)
        async with transaction(self.engine) as conn:
            if status >= 500:
                # A server error is not a result: release the key so a retry runs again.
                await conn.execute(sa.delete(t).where(*where))
            else:
                await conn.execute(sa.update(t).where(*where).values(
                    status=status, headers=dict(headers), body=body))

    # -- documents ---------------------------------------------------------------------------

    async def upsert_document(self, document: DocumentRecord) -> None:
        async with transaction(self.engine) as conn:
            await _upsert_document(conn, document)

    async def claim_document(self, document: DocumentRecord) -> DocumentRecord:
        async with transaction(self.engine) as conn:
            # One insert-if-absent decides a race of two uploads of a new doc_id by one
            # tenant: the loser reads the winner's row (locked on PostgreSQL until this
            # transaction ends). Other tenants' doc_ids are other rows.
            if await _insert_new(conn, documents, "doc_id", [_document_values(document)]):
                return document
            where = (documents.c.doc_id == document.doc_id,
                     documents.c.tenant == document.tenant)
            stmt = sa.select(documents).where(*where)
            if conn.dialect.name == "postgresql":
                stmt = stmt.with_for_update()
            row = (await conn.execute(stmt)).mappings().one()
            # The same bytes again: the recorded document, unless ingest failed on it (it
            # may have been the environment, e.g. a missing document store): a re-upload
            # then starts it over and the gateway produces it again.
            if row["sha256"] == document.sha256 and row["status"] not in _RETRIED:
                return _document_record(row)
            await conn.execute(sa.update(documents).where(*where).values(
                _document_values(document)))
            return document

    async def get_document(self, doc_id: str, tenant: str | None) -> DocumentRecord | None:
        where = [documents.c.doc_id == doc_id]
        if tenant is not None:
            where.append(documents.c.tenant == tenant)
        stmt = sa.select(documents).where(*where).order_by(documents.c.submitted_at_ms,
                                                           documents.c.tenant)
        async with transaction(self.engine, write=False) as conn:
            row = (await conn.execute(stmt)).mappings().first()
        return None if row is None else _document_record(row)

    # -- API keys ----------------------------------------------------------------------------

    async def create_key(
        self, tenant: str, scopes: frozenset[str], name: str | None = None,
        rate_per_s: float | None = None,
    ) -> tuple[ApiKey, str]:
        unknown = scopes - key_secrets.SCOPES
        if unknown or not scopes:
            raise ValueError(f"scopes must be among {sorted(key_secrets.SCOPES)}")
        key_id, secret = key_secrets.new_secret()
        row = {"key_id": key_id, "secret_sha256": key_secrets.secret_hash(secret),
               "tenant": tenant, "scopes": ",".join(sorted(scopes)), "name": name,
               "rate_per_s": rate_per_s, "created_at_ms": _now_ms(), "revoked_at_ms": None}
        async with transaction(self.engine) as conn:
            await conn.execute(sa.insert(api_keys).values(row))
        return _api_key(row), secret

    async def list_keys(self, tenant: str | None = None) -> list[ApiKey]:
        stmt = sa.select(api_keys).order_by(api_keys.c.created_at_ms, api_keys.c.key_id)
        if tenant is not None:
            stmt = stmt.where(api_keys.c.tenant == tenant)
        async with transaction(self.engine, write=False) as conn:
            return [_api_key(dict(r)) for r in (await conn.execute(stmt)).mappings()]

    async def revoke_key(self, key_id: str) -> bool:
        async with transaction(self.engine) as conn:
            result = await conn.execute(
                sa.update(api_keys)
                .where(api_keys.c.key_id == key_id, api_keys.c.revoked_at_ms.is_(None))
                .values(revoked_at_ms=_now_ms())
            )
        return bool(result.rowcount)

    async def verify_key(self, secret: str) -> ApiKey | None:
        key_id = key_secrets.key_id_of(secret)
        row = None
        if key_id is not None:
            async with transaction(self.engine, write=False) as conn:
                row = (await conn.execute(
                    sa.select(api_keys).where(api_keys.c.key_id == key_id)
                )).mappings().first()
        # Compared even when there is no row, so an unknown id costs what a wrong token does.
        if not key_secrets.matches(secret, row["secret_sha256"] if row else None):
            return None
        assert row is not None
        return None if row["revoked_at_ms"] is not None else _api_key(dict(row))


# -- helpers: answers ------------------------------------------------------------------------


async def _apply_answer_events(conn: AsyncConnection, events: Sequence[AnswerEvent],
                               versions: int = 0) -> int:
    """New answers inserted in one statement; the rest locked, folded and updated. An answer
    is its (answer_id, tenant): the tenant each event carries (decode.tenant_of) picks the
    row, so two tenants' answers of one id never touch each other's. With `versions`, the
    formatted results replaced by recomputed ones are kept (services.store.versions), in the
    same transaction."""
    now = _now_ms()
    by_answer: dict[tuple[str, str], list[AnswerEvent]] = {}
    for item in events:
        by_answer.setdefault((item.answer_id, item.tenant), []).append(item)
    # Per answer, the results replaced within this batch (kept only with `versions`).
    replaced: dict[tuple[str, str], list[Row]] | None = {} if versions > 0 else None
    fresh = {key: _fold(None, items, now, _versions_of(replaced, key))
             for key, items in by_answer.items()}
    inserted = await _insert_new(conn, answers, _ANSWER_KEY,
                                 [row for row in fresh.values() if row is not None])
    rest = [key for key in by_answer if key not in inserted]
    if replaced is not None:
        for key in rest:  # folded again below, from the row the database holds
            replaced.pop(key, None)
    updated = []
    if rest:
        existing = await _locked_rows(conn, rest)
        for key in rest:
            row = _fold(existing[key], by_answer[key], now, _versions_of(replaced, key))
            if row is not None:
                updated.append(row)
        await _update_rows(conn, updated)
    if replaced:
        await kept_versions.keep(conn, [v for rows in replaced.values() for v in rows],
                                 versions)
    return len(inserted) + len(updated)


def _versions_of(replaced: dict[tuple[str, str], list[Row]] | None,
                 key: tuple[str, str]) -> list[Row] | None:
    return None if replaced is None else replaced.setdefault(key, [])


def _fold(row: Row | None, items: Sequence[AnswerEvent], now: int,
          replaced: list[Row] | None = None) -> Row | None:
    """The row after `items` in order (None when nothing changed it); each formatted result
    a later one replaces is added to `replaced` when it is given."""
    changed = False
    for item in items:
        if row is None:
            row = (submission_row(item, now) if isinstance(item, Submission)
                   else judgement_row(item, now) if isinstance(item, Judgement)
                   else update_row(item, now))
            changed = True
            continue
        if isinstance(item, Submission):
            after = apply_submission(row, item)
        elif isinstance(item, Judgement):
            after = apply_judgement(row, item, now)
        else:
            after = apply_update(row, item, now)
            if after is not None and replaced is not None:
                version = kept_versions.replaced_version(row, after, now)
                if version is not None:
                    replaced.append(version)
        if after is not None:
            row, changed = after, True
    return row if changed else None


async def _insert_new(
    conn: AsyncConnection, table: sa.Table, key: str | tuple[str, ...], rows: list[Row]
) -> set[Any]:
    """Insert the rows that do not exist yet (one statement); the keys of those inserted
    (a tuple of the values per row when `key` names several columns). Rows go in key
    order: on PostgreSQL an insert meeting another transaction's uncommitted row of the
    same key waits for it, and two writers (sink, gateway claims: hot_path.py) taking
    shared keys in different orders could each wait for the other. Answers go in
    (answer_id, tenant) order, the order hot_path.py's claims use too."""
    if not rows:
        return set()
    names = (key,) if isinstance(key, str) else key
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(table).on_conflict_do_nothing().returning(*(table.c[n] for n in names))
    result = await conn.execute(stmt, sorted(rows, key=lambda row: [row[n] for n in names]))
    return {r[0] if isinstance(key, str) else tuple(r) for r in result}


async def _locked_rows(conn: AsyncConnection,
                       keys: list[tuple[str, str]]) -> dict[tuple[str, str], Row]:
    """The rows of these (answer_id, tenant) keys, locked on PostgreSQL."""
    c = answers.c
    stmt = sa.select(answers).where(sa.tuple_(c.answer_id, c.tenant).in_(keys))
    if conn.dialect.name == "postgresql":
        # Locked in one order for every writer, as the inserts are (_insert_new).
        stmt = stmt.order_by(c.answer_id, c.tenant).with_for_update()
    return {(r["answer_id"], r["tenant"]): dict(r)
            for r in (await conn.execute(stmt)).mappings()}


_UPDATE = (
    sa.update(answers)
    .where(answers.c.answer_id == sa.bindparam("b_answer_id"),
           answers.c.tenant == sa.bindparam("b_tenant"))
    .values({name: sa.bindparam(name) for name in _ANSWER_COLUMNS
             if name not in _ANSWER_KEY})
)


_RELEASE = sa.delete(answers).where(
    answers.c.answer_id == sa.bindparam("b_answer_id"),
    answers.c.tenant == sa.bindparam("b_tenant"),
    answers.c.body_sha256 == sa.bindparam("b_sha"),
    answers.c.status == "submitted",
    answers.c.submitted_event_id.is_(None),
)


async def _update_rows(conn: AsyncConnection, rows: list[Row]) -> None:
    if rows:
        params = [{**{k: v for k, v in r.items() if k not in _ANSWER_KEY},
                   "b_answer_id": r["answer_id"], "b_tenant": r["tenant"]} for r in rows]
        await conn.execute(_UPDATE, params)


def _filters(query: AnswerQuery) -> list[Any]:
    c = answers.c
    where: list[Any] = []
    if query.tenant is not None:
        where.append(c.tenant == query.tenant)
    if query.model is not None:
        where.append(c.model == query.model)
    if query.language is not None:
        where.append(c.language == query.language)
    if query.status is not None:
        where.append(c.status == query.status)
    if query.since is not None:
        where.append(c.answered_at_ms >= to_ms(query.since))
    if query.until is not None:
        where.append(c.answered_at_ms < to_ms(query.until))
    if query.min_coverage is not None:
        where.append(c.coverage >= query.min_coverage)
    if query.max_coverage is not None:
        where.append(c.coverage <= query.max_coverage)
    for flag, column in ((query.has_problems, c.problems),
                         (query.has_invalid_citations, c.invalid_citations),
                         (query.has_downgraded_quotes, c.downgraded_quotes),
                         (query.disagreement, c.disagreements)):
        if flag is not None:
            # Only formatted (or judged) answers have these numbers; `false` means "has
            # them, none".
            where.append(column > 0 if flag else column == 0)
    return where


def _encode_cursor(answered_at_ms: int, answer_id: str, tenant: str) -> str:
    raw = orjson.dumps([answered_at_ms, answer_id, tenant])
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[int, str, str | None]:
    """(answered_at, answer_id, tenant) of a cursor; tenant None for one issued before
    answers were keyed by tenant ([at, answer_id])."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        at, answer_id, *rest = orjson.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        raise InvalidCursor("invalid cursor") from None
    tenant = rest[0] if len(rest) == 1 else None
    if not isinstance(at, int) or not isinstance(answer_id, str) or len(rest) > 1 \
            or (rest and not isinstance(tenant, str)):
        raise InvalidCursor("invalid cursor")
    return at, answer_id, tenant


def _record(row: Row) -> AnswerRecord:
    position = (Position(row["pos_topic"], row["pos_partition"], row["pos_offset"])
                if row["pos_topic"] is not None else None)
    summary = (Summary(**{name: row[name] for name in SUMMARY_COLUMNS})
               if row["status"] == "formatted" and row["citations"] is not None else None)
    return AnswerRecord(
        answer_id=row["answer_id"], tenant=row["tenant"], status=row["status"],
        model=row["model"], submitted_at=_dt(row["submitted_at_ms"]),
        updated_at=_dt(row["updated_at_ms"]) or datetime.now(UTC), event_id=row["event_id"],
        result=row["result"], reason=row["reason"], detail=row["detail"], summary=summary,
        latency_ms=row["latency_ms"], position=position, body_sha256=row["body_sha256"],
        judged=row.get("judged"), judge=row.get("judge"),
        disagreements=row.get("disagreements"),
    )


# -- helpers: documents and keys -------------------------------------------------------------

# Document statuses a re-upload or a replay's ingest outcome may replace.
_RETRIED = ("rejected", "dead_lettered")


def _document_values(doc: DocumentRecord) -> dict[str, Any]:
    return {
        "doc_id": doc.doc_id, "tenant": doc.tenant, "status": doc.status,
        "format": doc.format, "path": doc.path, "sha256": doc.sha256,
        "submitted_at_ms": to_ms(doc.submitted_at), "updated_at_ms": to_ms(doc.updated_at),
        "sections": doc.sections, "chunks": doc.chunks, "reason": doc.reason,
        "detail": dict(doc.detail) if doc.detail is not None else None,
    }


async def _upsert_document(conn: AsyncConnection, doc: DocumentRecord) -> int:
    """Create or update a document's row; the rows changed. A submission (`submitted`) is
    the tenant's row: created, or started over when its content changed. An outcome
    (ingest's, the sink's) lands on the rows of that doc_id still `submitted` with the
    content it was made from (its path, when it says one: content-addressed, so the same
    bytes of two tenants get the same outcome), and fills in only what it knows."""
    t = documents
    if doc.status == "submitted":
        values = _document_values(doc)
        if await _insert_new(conn, t, "doc_id", [values]):
            return 1
        result = await conn.execute(sa.update(t).where(
            t.c.doc_id == doc.doc_id, t.c.tenant == doc.tenant,
            t.c.sha256 != doc.sha256).values(values))
        return int(result.rowcount or 0)
    # An outcome lands on a row still waiting for one; an ingested outcome (of a re-upload
    # or a replay) also on a failed one, so nothing stays rejected for good. A failure
    # never replaces an ingested document.
    waiting = ("submitted", *_RETRIED) if doc.status == "ingested" else ("submitted",)
    where = [t.c.doc_id == doc.doc_id, t.c.status.in_(waiting)]
    if doc.path:
        where.append(t.c.path == doc.path)
    result = await conn.execute(sa.update(t).where(*where).values(
        status=doc.status, updated_at_ms=to_ms(doc.updated_at), sections=doc.sections,
        chunks=doc.chunks, reason=doc.reason,
        detail=dict(doc.detail) if doc.detail is not None else None,
        format=sa.func.coalesce(t.c.format, doc.format)))
    if result.rowcount:
        return int(result.rowcount)
    # A document produced without the gateway (no row of it): recorded as its outcome says
    # (a tenant's row of that doc_id already there is left as it is).
    exists = await conn.execute(sa.select(t.c.doc_id).where(t.c.doc_id == doc.doc_id).limit(1))
    if exists.first() is not None:
        return 0
    return len(await _insert_new(conn, t, "doc_id", [_document_values(doc)]))


def _document_record(row: Any) -> DocumentRecord:
    return DocumentRecord(
        doc_id=row["doc_id"], tenant=row["tenant"], status=row["status"],
        format=row["format"], path=row["path"], sha256=row["sha256"],
        submitted_at=_dt(row["submitted_at_ms"]) or datetime.now(UTC),
        updated_at=_dt(row["updated_at_ms"]) or datetime.now(UTC),
        sections=row["sections"], chunks=row["chunks"], reason=row["reason"],
        detail=row["detail"],
    )


def _api_key(row: Row) -> ApiKey:
    return ApiKey(
        key_id=row["key_id"], tenant=row["tenant"],
        scopes=frozenset(s for s in row["scopes"].split(",") if s), name=row["name"],
        created_at=_dt(row["created_at_ms"]) or datetime.now(UTC),
        revoked_at=_dt(row["revoked_at_ms"]), rate_per_s=row["rate_per_s"],
    )
