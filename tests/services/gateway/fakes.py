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
    ResultVersion,
    StatsQuery,
    Status,
    StoredResponse,
    StoreUnavailable,
    Submission,
    SubmitOutcome,
)


class Answers(dict[tuple[str, str], AnswerRecord]):
    """Answers by (answer_id, tenant), as the store keys them. For tests of one tenant, a
    plain answer_id stands for the (first) answer of that id, and setting one keys it by
    the record's tenant."""

    def _key(self, key: str | tuple[str, str]) -> tuple[str, str]:
        if isinstance(key, tuple):
            return key
        return next((k for k in self if k[0] == key), (key, ""))

    def __getitem__(self, key: str | tuple[str, str]) -> AnswerRecord:
        return super().__getitem__(self._key(key))

    def __contains__(self, key: object) -> bool:
        return isinstance(key, (str, tuple)) and super().__contains__(self._key(key))

    def __delitem__(self, key: str | tuple[str, str]) -> None:
        super().__delitem__(self._key(key))

    def __setitem__(self, key: str | tuple[str, str],
                    value: AnswerRecord) -> None:
        super().__setitem__(key if isinstance(key, tuple) else (key, value.tenant), value)


class FakeStore:
    """Enough of the ResultsStore Protocol for the gateway's routes; `down` makes every
    call raise StoreUnavailable. Answers are keyed by (answer_id, tenant), as in the store."""

    def __init__(self) -> None:
        self.answers = Answers()
        self.keys: dict[str, tuple[ApiKey, str]] = {}
        self.idempotency: dict[tuple[str, str], StoredResponse] = {}
        self.down = False
        self.verify_calls = 0
        self.stats_queries: list[StatsQuery] = []
        self.answer_queries: list[AnswerQuery] = []
        # claimed, not yet seen on the topic by the sink
        self.unstored: set[tuple[str, str]] = set()
        # (answer_id, tenant) -> earlier results, the newest replaced first
        self.kept_versions: dict[tuple[str, str], list[ResultVersion]] = {}

    def _check(self) -> None:
        if self.down:
            raise StoreUnavailable("the database is down (test)")

    async def migrate(self) -> None: ...

    async def ping(self) -> None:
        self._check()

    async def close(self) -> None: ...

    async def record_submitted(self, submission: Submission) -> SubmitOutcome:
        self._check()
        key = (submission.answer_id, submission.tenant)
        found = self.answers.get(key)
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
        self.answers[key] = record
        return SubmitOutcome("created", record)

    async def claim_submissions(
        self, submissions: Sequence[Submission]
    ) -> dict[tuple[str, str], Claim]:
        self._check()
        claims: dict[tuple[str, str], Claim] = {}
        for submission in submissions:
            key = (submission.answer_id, submission.tenant)
            if key in claims:
                continue
            outcome = await self.record_submitted(submission)
            if outcome.outcome == "created":
                self.unstored.add(key)
            stored = outcome.record.status != "submitted" or key not in self.unstored
            claims[key] = Claim(outcome.outcome, stored)
        return claims

    async def release_submissions(self, claims: Sequence[tuple[str, str, str]]) -> None:
        self._check()
        for answer_id, tenant, sha in claims:
            key = (answer_id, tenant)
            found = self.answers.get(key)
            if (found is not None and found.status == "submitted"
                    and found.body_sha256 == sha and key in self.unstored):
                del self.answers[key]
                self.unstored.discard(key)

    def mark_stored(self, answer_id: str, tenant: str = "acme") -> None:
        """Test helper: the sink saw the answer on `answers.submitted`."""
        self.unstored.discard((answer_id, tenant))

    def finish(self, answer_id: str | tuple[str, str], status: Status, result: bytes | None = None,
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
        if tenant is None:
            return self.answers[answer_id] if answer_id in self.answers else None
        return self.answers.get((answer_id, tenant))

    async def versions(self, answer_id: str, tenant: str) -> list[ResultVersion]:
        self._check()
        return list(self.kept_versions.get((answer_id, tenant), ()))

    async def get_many(self, answer_ids: Sequence[str],
                       tenant: str | None = None) -> dict[str, AnswerRecord]:
        self._check()
        found = {a: await self.get(a, tenant) for a in answer_ids}
        return {a: r for a, r in found.items() if r is not None}

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
        self.waiting: dict[tuple[str, str], asyncio.Future[AnswerRecord]] = {}

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def ready(self) -> bool:
        return True

    async def wait_for(self, answer_id: str, tenant: str,
                       timeout: float) -> AnswerRecord | None:
        future = self.waiting.setdefault((answer_id, tenant),
                                         asyncio.get_running_loop().create_future())
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            return None

    def deliver(self, record: AnswerRecord) -> None:
        future = self.waiting.get((record.answer_id, record.tenant))
        if future is not None and not future.done():
            future.set_result(record)
