"""In-memory stand-ins for unit tests only (integration tests use the real store, broker
and hub): a ResultsStore, a producer and a stream hub."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from schemas.answers import AnswerSubmitted
from schemas.envelope import derived_event_id
from services.gateway.problems import unavailable
from services.store.api import (
    AnswerQuery,
    AnswerRecord,
    ApiKey,
    Claim,
    DocumentRecord,
    GroupStats,
    Page,
    Positions,
    ResultUpdate,
    StatsQuery,
    Status,
    StoredResponse,
    StoreUnavailable,
    Submission,
    SubmitOutcome,
)


class FakeStore:
    """Enough of the ResultsStore Protocol for the gateway's routes; `down` makes every
    call raise StoreUnavailable."""

    def __init__(self) -> None:
        self.answers: dict[str, AnswerRecord] = {}
        self.keys: dict[str, tuple[ApiKey, str]] = {}
        self.idempotency: dict[tuple[str, str], StoredResponse] = {}
        self.down = False
        self.verify_calls = 0
        self.stats_queries: list[StatsQuery] = []
        self.answer_queries: list[AnswerQuery] = []
        self.unstored: set[str] = set()  # claimed, not yet seen on the topic by the sink

    def _check(self) -> None:
        if self.down:
            raise StoreUnavailable("the database is down (test)")

    async def migrate(self) -> None: ...

    async def ping(self) -> None:
        self._check()

    async def close(self) -> None: ...

    async def record_submitted(self, submission: Submission) -> SubmitOutcome:
        self._check()
        found = self.answers.get(submission.answer_id)
        if found is not None:
            same = found.body_sha256 in (None, submission.body_sha256)
            return SubmitOutcome("same" if same else "conflict", found)
        record = AnswerRecord(
            answer_id=submission.answer_id, tenant=submission.tenant, status="submitted",
            model=submission.model, submitted_at=submission.submitted_at,
            updated_at=submission.submitted_at, event_id=submission.event_id, result=None,
            reason=None, detail=None, summary=None, latency_ms=None, position=None,
            body_sha256=submission.body_sha256,
        )
        self.answers[submission.answer_id] = record
        return SubmitOutcome("created", record)

    async def claim_submissions(self, submissions: Sequence[Submission]) -> dict[str, Claim]:
        self._check()
        claims: dict[str, Claim] = {}
        for submission in submissions:
            if submission.answer_id in claims:
                continue
            outcome = await self.record_submitted(submission)
            if outcome.outcome == "created":
                self.unstored.add(submission.answer_id)
            stored = (outcome.record.status != "submitted"
                      or submission.answer_id not in self.unstored)
            claims[submission.answer_id] = Claim(
                "conflict" if outcome.outcome == "conflict"
                or outcome.record.tenant != submission.tenant else outcome.outcome, stored)
        return claims

    async def release_submissions(self, claims: Sequence[tuple[str, str]]) -> None:
        self._check()
        for answer_id, sha in claims:
            found = self.answers.get(answer_id)
            if (found is not None and found.status == "submitted"
                    and found.body_sha256 == sha and answer_id in self.unstored):
                del self.answers[answer_id]
                self.unstored.discard(answer_id)

    def mark_stored(self, answer_id: str) -> None:
        """Test helper: the sink saw the answer on `answers.submitted`."""
        self.unstored.discard(answer_id)

    def finish(self, answer_id: str, status: Status, result: bytes | None = None,
               reason: str | None = None) -> AnswerRecord:
        """Test helper: move an answer to a final status."""
        record = replace(self.answers[answer_id], status=status, result=result, reason=reason,
                         updated_at=datetime.now(UTC))
        self.answers[answer_id] = record
        return record

    async def apply(self, updates: Sequence[ResultUpdate]) -> int:
        raise NotImplementedError

    async def get(self, answer_id: str, tenant: str | None) -> AnswerRecord | None:
        self._check()
        record = self.answers.get(answer_id)
        if record is None or (tenant is not None and record.tenant != tenant):
            return None
        return record

    async def get_many(self, answer_ids: Sequence[str]) -> dict[str, AnswerRecord]:
        self._check()
        return {a: self.answers[a] for a in answer_ids if a in self.answers}

    async def query(self, query: AnswerQuery) -> Page:
        self._check()
        self.answer_queries.append(query)
        if query.cursor == "garbage":
            raise ValueError("cursor is not one of ours")
        items = [r for r in self.answers.values()
                 if query.tenant is None or r.tenant == query.tenant]
        return Page(items[: query.limit], "next-page" if len(items) > query.limit else None)

    async def stats(self, query: StatsQuery) -> list[GroupStats]:
        self._check()
        self.stats_queries.append(query)
        answers = [r for r in self.answers.values()
                   if query.tenant is None or r.tenant == query.tenant]
        return [GroupStats(key=None, bucket_start=None, answers=len(answers))]

    async def since(self, positions: Positions, tenant: str | None,
                    statuses: frozenset[Status], limit: int) -> list[AnswerRecord]:
        raise NotImplementedError

    async def claim_idempotency_key(self, tenant: str, key: str,
                                    fingerprint: str) -> StoredResponse | None:
        self._check()
        found = self.idempotency.get((tenant, key))
        if found is None:
            self.idempotency[(tenant, key)] = StoredResponse(fingerprint, 0, {}, b"",
                                                             datetime.now(UTC))
        return found

    async def finish_idempotency_key(self, tenant: str, key: str, status: int,
                                     headers: Mapping[str, str], body: bytes) -> None:
        self._check()
        claimed = self.idempotency[(tenant, key)]
        if status >= 500:
            del self.idempotency[(tenant, key)]
        else:
            self.idempotency[(tenant, key)] = replace(claimed, status=status,
                                                      headers=dict(headers), body=body)

    async def upsert_document(self, document: DocumentRecord) -> None:
        raise NotImplementedError

    async def claim_document(self, document: DocumentRecord) -> DocumentRecord:
        raise NotImplementedError

    async def get_document(self, doc_id: str, tenant: str | None) -> DocumentRecord | None:
        raise NotImplementedError

    async def create_key(self, tenant: str, scopes: frozenset[str], name: str | None = None,
                         rate_per_s: float | None = None) -> tuple[ApiKey, str]:
        key_id = secrets.token_hex(4)
        secret = f"cf_{key_id}_{secrets.token_urlsafe(16)}"
        key = ApiKey(key_id, tenant, scopes, name, datetime.now(UTC), None, rate_per_s)
        self.keys[secret] = (key, secret)
        return key, secret

    async def list_keys(self, tenant: str | None = None) -> list[ApiKey]:
        return [k for k, _ in self.keys.values() if tenant in (None, k.tenant)]

    async def revoke_key(self, key_id: str) -> bool:
        for secret, (key, _) in list(self.keys.items()):
            if key.key_id == key_id:
                self.keys[secret] = (replace(key, revoked_at=datetime.now(UTC)), secret)
                return True
        return False

    async def verify_key(self, secret: str) -> ApiKey | None:
        self._check()
        self.verify_calls += 1
        found = self.keys.get(secret)
        if found is None or found[0].revoked_at is not None:
            return None
        return found[0]


class FakeProducer:
    """Records what the gateway produced; `down` answers like an unreachable broker."""

    def __init__(self) -> None:
        self.sent: list[tuple[AnswerSubmitted, str, str]] = []
        self.down = False

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def ready(self) -> bool:
        return not self.down

    async def send(self, answer: AnswerSubmitted, tenant: str, body_sha256: str,
                   canonical: bytes) -> str:
        if self.down:
            raise unavailable("broker", 2)
        await asyncio.sleep(0)
        self.sent.append((answer, tenant, body_sha256))
        return derived_event_id(body_sha256, "gateway")


class FakeHub:
    """Resolves waits when a test calls `deliver`."""

    def __init__(self) -> None:
        self.waiting: dict[str, asyncio.Future[AnswerRecord]] = {}

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def ready(self) -> bool:
        return True

    async def wait_for(self, answer_id: str, timeout: float) -> AnswerRecord | None:
        future = self.waiting.setdefault(answer_id, asyncio.get_running_loop().create_future())
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            return None

    def deliver(self, record: AnswerRecord) -> None:
        future = self.waiting.get(record.answer_id)
        if future is not None and not future.done():
            future.set_result(record)
