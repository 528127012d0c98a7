"""The store's tables (SQLAlchemy Core), as the newest migration leaves them.

Times are integers, milliseconds since the epoch (UTC): the same arithmetic, comparisons and
time buckets on SQLite and PostgreSQL, with no time-zone handling that differs between them.
A test holds these definitions equal to what the migrations create.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

ID = sa.String(200)

# Keyed by (answer_id, tenant): each tenant has its own answer ids (migration 0003).
answers = sa.Table(
    "answers",
    metadata,
    sa.Column("answer_id", ID, primary_key=True),
    sa.Column("tenant", ID, primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("model", ID),
    # When it was submitted, or first seen when its submission was not (sort and window key).
    sa.Column("answered_at_ms", sa.BigInteger, nullable=False),
    sa.Column("submitted_at_ms", sa.BigInteger),
    sa.Column("submitted_event_id", ID),
    sa.Column("body_sha256", sa.String(64)),
    # The canonical data JSON of an answer the gateway accepted, kept until its outcome
    # (formatted, rejected, dead-lettered) arrives: what `citeflow answers redrive`
    # publishes again when the broker lost it.
    sa.Column("submitted_body", sa.LargeBinary),
    # The event that set the current status, and its own time.
    sa.Column("event_id", ID),
    sa.Column("event_time_ms", sa.BigInteger),
    # When the store last changed the row's status or result (orders `since`: a submission
    # that only fills in the submit time later does not move an answer in that order).
    sa.Column("updated_at_ms", sa.BigInteger, nullable=False),
    sa.Column("result", sa.LargeBinary),
    sa.Column("reason", ID),
    sa.Column("detail", sa.JSON),
    sa.Column("latency_ms", sa.Float),
    # The Kafka record that last changed the row (logical topic name).
    sa.Column("pos_topic", ID),
    sa.Column("pos_partition", sa.Integer),
    sa.Column("pos_offset", sa.BigInteger),
    # The summary of a formatted result (NULL otherwise).
    sa.Column("citations", sa.Integer),
    sa.Column("invalid_citations", sa.Integer),
    sa.Column("sentences", sa.Integer),
    sa.Column("uncited_sentences", sa.Integer),
    sa.Column("coverage", sa.Float),
    sa.Column("downgraded_quotes", sa.Integer),
    sa.Column("sources_supplied", sa.Integer),
    sa.Column("sources_cited", sa.Integer),
    sa.Column("problems", sa.Integer),
    sa.Column("citation_recall", sa.Float),
    sa.Column("citation_precision", sa.Float),
    sa.Column("supported_citations", sa.Integer),
    sa.Column("unsupported_citations", sa.Integer),
    sa.Column("partial_citations", sa.Integer),
    sa.Column("language", sa.String(16)),  # the answer's detected language (BCP 47 subtag)
    # The latest model judge's second opinion (`answer.judged` data, JSON), its judge, the
    # citations where it disagrees with the lexical verdict, the event that set it.
    sa.Column("judged", sa.LargeBinary),
    sa.Column("judge", ID),
    sa.Column("disagreements", sa.Integer),
    sa.Column("judged_event_id", ID),
    sa.Column("judged_time_ms", sa.BigInteger),
    sa.Column("judge_usd", sa.Float),  # what the opinion cost (NULL: not priced)
    sa.Column("judge_latency_ms", sa.Float),  # the judge's wall time for the answer
    sa.Index("ix_answers_tenant_answered", "tenant", "answered_at_ms", "answer_id"),
    sa.Index("ix_answers_answered", "answered_at_ms", "answer_id"),
    sa.Index("ix_answers_updated", "updated_at_ms"),
)

# Earlier results of an answer, kept when a recomputed one (a `--recompute` replay) replaced
# them and the store keeps versions (CITEFLOW_STORE_VERSIONS; migration 0008).
answer_versions = sa.Table(
    "answer_versions",
    metadata,
    sa.Column("answer_id", ID, primary_key=True),
    sa.Column("tenant", ID, primary_key=True),
    # The event that set the replaced result, and its own time.
    sa.Column("event_id", ID, primary_key=True),
    sa.Column("event_time_ms", sa.BigInteger, nullable=False),
    sa.Column("result", sa.LargeBinary, nullable=False),
    # When the store replaced it, and the event whose result did.
    sa.Column("replaced_at_ms", sa.BigInteger, nullable=False),
    sa.Column("replaced_by", ID, nullable=False),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("key_id", sa.String(32), primary_key=True),
    sa.Column("secret_sha256", sa.String(64), nullable=False),
    sa.Column("tenant", ID, nullable=False),
    sa.Column("scopes", sa.String(200), nullable=False),  # comma-separated
    sa.Column("name", ID),
    sa.Column("rate_per_s", sa.Float),
    sa.Column("created_at_ms", sa.BigInteger, nullable=False),
    sa.Column("revoked_at_ms", sa.BigInteger),
)

idempotency_keys = sa.Table(
    "idempotency_keys",
    metadata,
    sa.Column("tenant", ID, primary_key=True),
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("status", sa.Integer, nullable=False),  # 0 while in flight
    sa.Column("headers", sa.JSON, nullable=False),
    sa.Column("body", sa.LargeBinary, nullable=False),
    sa.Column("created_at_ms", sa.BigInteger, nullable=False),
)

# Keyed by (tenant, doc_id): each tenant has its own doc_ids (migration 0002).
documents = sa.Table(
    "documents",
    metadata,
    sa.Column("doc_id", ID, primary_key=True),
    sa.Column("tenant", ID, primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("format", sa.String(16)),
    sa.Column("path", sa.String(2000), nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("submitted_at_ms", sa.BigInteger, nullable=False),
    sa.Column("updated_at_ms", sa.BigInteger, nullable=False),
    sa.Column("sections", sa.Integer),
    sa.Column("chunks", sa.Integer),
    sa.Column("reason", ID),
    sa.Column("detail", sa.JSON),
)

JUDGED_COLUMNS: tuple[str, ...] = (
    "judged", "judge", "disagreements", "judged_event_id", "judged_time_ms", "judge_usd",
    "judge_latency_ms")

SUMMARY_COLUMNS: tuple[str, ...] = (
    "citations", "invalid_citations", "sentences", "uncited_sentences", "coverage",
    "downgraded_quotes", "sources_supplied", "sources_cited", "problems", "citation_recall",
    "citation_precision", "supported_citations", "unsupported_citations", "partial_citations",
    "language",
)
