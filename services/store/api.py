"""The results store's one small interface: what the store sink writes and what the
gateway reads. One implementation over SQLAlchemy Core serves SQLite and PostgreSQL.

Positions: every row remembers the Kafka record (topic, partition, offset) that last changed
it, so a Server-Sent Events client that reconnects can be served what it missed from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

Status = Literal["submitted", "formatted", "rejected", "dead_lettered"]
# (logical topic, partition) -> offset
Positions = Mapping[tuple[str, int], int]


class StoreUnavailable(Exception):
    """The database cannot be reached or refused the operation for a transient reason."""


@dataclass(frozen=True)
class Position:
    """The Kafka record an update came from (logical topic name)."""

    topic: str
    partition: int
    offset: int


@dataclass(frozen=True)
class Summary:
    """The numbers of one formatted result that the filters and stats read (its columns)."""

    citations: int = 0
    invalid_citations: int = 0
    sentences: int = 0
    uncited_sentences: int = 0
    coverage: float | None = None  # share of sentences backed by a valid citation, 0..1
    downgraded_quotes: int = 0  # verbatim claims downgraded to derived
    sources_supplied: int = 0
    sources_cited: int = 0
    problems: int = 0
    # ALCE-style quality when the formatted result carries it, else None.
    citation_recall: float | None = None
    citation_precision: float | None = None
    supported_citations: int | None = None
    unsupported_citations: int | None = None
    partial_citations: int | None = None
    language: str | None = None  # detected (BCP 47 primary subtag; `und` undetermined)


@dataclass(frozen=True)
class Submission:
    """An answer the gateway has produced (and the broker acknowledged), or one the sink saw
    on `answers.submitted`."""

    answer_id: str
    tenant: str
    submitted_at: datetime
    body_sha256: str | None = None  # of the canonical data object; None when unknown
    model: str | None = None
    event_id: str | None = None
    position: Position | None = None
    # The canonical data JSON (the gateway's submissions): kept until the answer's outcome,
    # for re-driving an answer the broker lost.
    body: bytes | None = None


@dataclass(frozen=True)
class Unfinished:
    """An accepted answer without an outcome: what re-driving it needs."""

    answer_id: str
    tenant: str
    submitted_at: datetime
    body_sha256: str
    body: bytes


@dataclass(frozen=True)
class ResultUpdate:
    """One outcome event for an answer (formatted, rejected or dead-lettered), as the sink
    decoded it. `result` is the JSON bytes of the `answer.formatted` data (formatted only);
    `detail` the rejection or dead letter (code, message, path, stage, error ...)."""

    answer_id: str
    tenant: str
    status: Status
    event_id: str
    event_time: datetime
    position: Position
    model: str | None = None
    submitted_at: datetime | None = None
    result: bytes | None = None
    summary: Summary | None = None
    reason: str | None = None  # rejection code, or dead letter's error code
    detail: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Judgement:
    """A model judge's second opinion on an answer (`answer.judged`): `judged` is the JSON
    bytes of its data; the formatted result (the lexical opinion) is kept beside it."""

    answer_id: str
    tenant: str
    judge: str
    disagreements: int
    event_id: str
    event_time: datetime
    position: Position
    judged: bytes
    usd: float | None = None
    latency_ms: float | None = None


@dataclass(frozen=True)
class SubmitOutcome:
    """What `record_submitted` found: a new answer, the same body again, or another body
    under the same answer id (a conflict)."""

    outcome: Literal["created", "same", "conflict"]
    record: AnswerRecord


@dataclass(frozen=True)
class Claim:
    """What `claim_submissions` found for one (answer id, tenant): `created` (this call
    recorded it as `submitted`), `same` (it exists with the same body, or one not known) or
    `conflict` (another body under the tenant's answer id). `stored` says the broker is known
    to hold the answer: the store sink saw it on `answers.submitted`, or a later status
    exists; a claim not yet stored may belong to a request whose produce is still in
    flight, or died."""

    outcome: Literal["created", "same", "conflict"]
    stored: bool


@dataclass(frozen=True)
class AnswerRecord:
    """One answer's latest status and result."""

    answer_id: str
    tenant: str
    status: Status
    model: str | None
    submitted_at: datetime | None
    updated_at: datetime
    event_id: str | None  # of the event that set the current status
    result: bytes | None  # answer.formatted data (JSON) when formatted
    reason: str | None
    detail: Mapping[str, Any] | None
    summary: Summary | None
    latency_ms: float | None  # submitted -> formatted, from the events' own times
    position: Position | None
    body_sha256: str | None = None
    # The latest model judge's opinion (`answer.judged` data, JSON) and that judge's name.
    judged: bytes | None = None
    judge: str | None = None
    disagreements: int | None = None


@dataclass(frozen=True)
class ResultVersion:
    """An earlier result of an answer, replaced by a recomputed one (kept when the store
    keeps versions: services.store.versions)."""

    event_id: str  # of the event that set it
    event_time: datetime
    result: bytes  # answer.formatted data (JSON)
    replaced_at: datetime
    replaced_by: str  # the event id of the result that replaced it


@dataclass(frozen=True)
class AnswerQuery:
    """Filters of `GET /v1/answers`; `tenant` None means every tenant (admin keys only)."""

    tenant: str | None
    model: str | None = None
    language: str | None = None
    status: Status | None = None
    since: datetime | None = None
    until: datetime | None = None
    has_problems: bool | None = None
    min_coverage: float | None = None
    max_coverage: float | None = None
    has_invalid_citations: bool | None = None
    has_downgraded_quotes: bool | None = None
    # True: answers a model judge disagrees with on some citation; False: judged, no
    # disagreement.
    disagreement: bool | None = None
    limit: int = 50
    cursor: str | None = None  # opaque, from a previous page


@dataclass(frozen=True)
class Page:
    items: list[AnswerRecord]
    next_cursor: str | None


@dataclass(frozen=True)
class StatsQuery:
    """`GET /v1/stats`: one group per model, tenant or language (or one overall), over a window,
    optionally also split into time buckets (for charts)."""

    tenant: str | None
    since: datetime
    until: datetime
    group_by: Literal["model", "tenant", "language", "judge", "none"] = "model"
    bucket_seconds: int | None = None
    model: str | None = None
    language: str | None = None


@dataclass
class GroupStats:
    key: str | None  # the model or tenant; None for the overall group
    bucket_start: datetime | None  # None: the whole window
    answers: int = 0
    formatted: int = 0
    citations: int = 0
    invalid_citations: int = 0
    invalid_citation_rate: float | None = None
    sentences: int = 0
    uncited_sentences: int = 0
    mean_coverage: float | None = None
    downgraded_quotes: int = 0
    sources_supplied: int = 0
    sources_cited: int = 0
    citation_recall: float | None = None
    citation_precision: float | None = None
    # The verdict mix of the citations whose support was judged (the valid citations of
    # answers that carry verdicts): supported, partial, unsupported, and unverifiable (the
    # rest, of the answers whose partial count is known); the rates are shares of judged.
    # Answers stored before partial was counted apart (and never backfilled) leave
    # judged - supported - partial - unsupported - unverifiable told apart by no one.
    judged_citations: int = 0
    supported_citations: int = 0
    partial_citations: int = 0
    unsupported_citations: int = 0
    unverifiable_citations: int = 0
    support_rate: float | None = None
    unsupported_rate: float | None = None
    rejections: dict[str, int] = field(default_factory=dict)  # by reason
    dead_letters: dict[str, int] = field(default_factory=dict)  # by reason
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    # Answers a model judge gave a second opinion on, and the citations where it differs
    # from the lexical verdict.
    judged: int = 0
    disagreements: int = 0
    judge_usd: float | None = None  # summed over the priced opinions
    judge_latency_ms: float | None = None  # mean per judged answer


@dataclass(frozen=True)
class ApiKey:
    key_id: str  # public part, shown in listings
    tenant: str
    scopes: frozenset[str]
    name: str | None
    created_at: datetime
    revoked_at: datetime | None
    rate_per_s: float | None  # None: the gateway's default


@dataclass(frozen=True)
class StoredResponse:
    """A response remembered under an `Idempotency-Key` (IETF httpapi draft): replayed for
    the same key and payload; the same key with another payload is refused."""

    fingerprint: str  # sha256 of the request payload
    status: int  # 0 while the first request is still in flight
    headers: Mapping[str, str]
    body: bytes
    created_at: datetime


@dataclass(frozen=True)
class DocumentRecord:
    """A document uploaded through the gateway and what ingest made of it."""

    doc_id: str
    tenant: str
    # dead_lettered: ingest failed on it (its .dlq); the reader serves only `ingested`.
    status: Literal["submitted", "ingested", "rejected", "dead_lettered"]
    format: str | None
    path: str  # in the document store
    sha256: str
    submitted_at: datetime
    updated_at: datetime
    sections: int | None = None
    chunks: int | None = None
    reason: str | None = None
    detail: Mapping[str, Any] | None = None


# What the store sink decodes from one record (services.store.decode).
StoreItem = Submission | ResultUpdate | Judgement | DocumentRecord


class ResultsStore(Protocol):
    """The store the sink writes and the gateway reads."""

    async def migrate(self) -> None:
        """Bring the schema to the newest version (Alembic); safe to run concurrently."""

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the database answers."""

    async def close(self) -> None: ...

    async def record_submitted(self, submission: Submission) -> SubmitOutcome:
        """Record a submission as `submitted` unless the answer exists: the same body again
        is `same`, another body under the tenant's answer id `conflict`; a later status is never
        moved back to `submitted`."""

    async def claim_submissions(
        self, submissions: Sequence[Submission]
    ) -> dict[tuple[str, str], Claim]:
        """The gateway's one write per submit, BEFORE producing, for many answers in one
        transaction: each (answer id, tenant) not yet known is recorded as `submitted` (with
        its body hash, not yet `stored`); for every (answer id, tenant), whether it was new,
        the same body again, or a conflict (another body of that tenant's answer: another
        tenant's answer of the same id is another answer). A repeated key: the first counts."""

    async def release_submissions(self, claims: Sequence[tuple[str, str, str]]) -> None:
        """Undo `created` claims (answer id, tenant, body hash) whose produce failed, so a retry is
        processed anew: a row is deleted only while it is still `submitted` with that hash and
        not `stored` (the broker turned out to hold it: kept)."""

    async def unfinished(self, submitted_before: datetime, limit: int,
                         after: Unfinished | None = None) -> list[Unfinished]:
        """Answers the gateway accepted that have no outcome yet and were submitted before
        `submitted_before`, oldest first (after `after`), with their bodies (at most
        `limit`)."""

    async def apply(self, updates: Sequence[ResultUpdate]) -> int:
        """Apply a batch of outcome events in one transaction; return how many changed a row.
        Idempotent by answer id and event id: applying an event again changes nothing, and a
        replayed topic leaves rows as they are. A formatted result is never replaced by a
        later dead letter or rejection of a duplicate."""

    async def get(self, answer_id: str, tenant: str | None) -> AnswerRecord | None:
        """The tenant's answer of this id when it exists (None: any tenant's, the smallest
        tenant's when several use the id)."""

    async def get_many(self, answer_ids: Sequence[str],
                       tenant: str | None = None) -> dict[str, AnswerRecord]:
        """The tenant's answers of these ids that exist, in one query (tenant None: any
        tenant's, the smallest tenant's of an id several use)."""

    async def versions(self, answer_id: str, tenant: str) -> list[ResultVersion]:
        """The tenant's answer's earlier results the store kept, the newest replaced first
        (none unless the store keeps versions)."""

    async def query(self, query: AnswerQuery) -> Page: ...

    async def stats(self, query: StatsQuery) -> list[GroupStats]: ...

    async def since(
        self, positions: Positions, tenant: str | None, statuses: frozenset[Status],
        limit: int,
    ) -> list[AnswerRecord]:
        """Rows whose position is after `positions` for their (topic, partition) (a partition
        not in `positions`: every row), oldest change first, at most `limit`."""

    async def claim_idempotency_key(
        self, tenant: str, key: str, fingerprint: str
    ) -> StoredResponse | None:
        """Claim `key` for a request (recorded as in flight, status 0); None when it was new,
        else what is stored under it (in flight, or the finished response to replay)."""

    async def finish_idempotency_key(
        self, tenant: str, key: str, status: int, headers: Mapping[str, str], body: bytes
    ) -> None:
        """Store the response of a claimed key (a 5xx releases the claim instead)."""

    async def upsert_document(self, document: DocumentRecord) -> None:
        """Create or update a document's row (idempotent; `ingested`/`rejected` are final
        unless the document is submitted again with other content)."""

    async def claim_document(self, document: DocumentRecord) -> DocumentRecord:
        """Atomically take `doc_id` for the document's tenant: the row as it is after the
        claim. Another tenant's row is returned untouched (the caller refuses); the same
        tenant's row with other content starts over as `document`."""

    async def get_document(self, doc_id: str, tenant: str | None) -> DocumentRecord | None: ...

    async def create_key(
        self, tenant: str, scopes: frozenset[str], name: str | None = None,
        rate_per_s: float | None = None,
    ) -> tuple[ApiKey, str]:
        """A new key and its secret (shown once; only its hash is stored)."""

    async def list_keys(self, tenant: str | None = None) -> list[ApiKey]: ...

    async def revoke_key(self, key_id: str) -> bool: ...

    async def verify_key(self, secret: str) -> ApiKey | None:
        """The live (not revoked) key of a presented secret, else None (constant-time)."""
