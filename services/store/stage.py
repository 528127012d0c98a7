"""The `store` sink stage (`citeflow run store`, group `citeflow-store`): the pipeline's
outcomes into the results store.

Reads `answers.submitted` (envelope and metadata: a status from the first moment),
`answers.formatted`, `answers.judged` (a model judge's second opinion), `answers.rejected`, the dead-letter topics of the pipeline stages that
carry answers, and `documents.ingested` / `documents.rejected` / `documents.submitted.dlq`. Each fetched batch is one
database transaction; offsets are committed after it (services.runtime.sink).

Its own dead letters (records it cannot read, or that the database refuses) go to
`<input topic>.dlq` like any stage's. It never reads those back: the .dlq topics it reads are
the pipeline stages' (their inputs' .dlq), and a record of them it cannot read goes to
`<topic>.dlq.dlq`. The one overlap, `answers.submitted.dlq`, receives nothing from here in
practice: an unreadable submission is not an error for the sink (ingest rejects it, and the
rejection is recorded).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas import topics
from services.runtime.sink import Sink
from services.runtime.stage import Message, Output, Stage, TransientError
from services.store.api import StoreUnavailable
from services.store.decode import decode_record
from services.store.sql import SqlStore

# The pipeline stages' input topics that carry answers; their .dlq topics are read here.
ANSWER_STAGE_INPUTS = (
    topics.ANSWERS_SUBMITTED, topics.ANSWERS_ACCEPTED, topics.ANSWERS_SCORED,
    topics.ANSWERS_CITED, topics.ANSWERS_RESOLVED,
)
INPUT_TOPICS: tuple[str, ...] = (
    topics.ANSWERS_SUBMITTED, topics.ANSWERS_FORMATTED, topics.ANSWERS_REJECTED,
    topics.ANSWERS_JUDGED,
    *(topics.dlq_topic(t) for t in ANSWER_STAGE_INPUTS),
    topics.DOCUMENTS_INGESTED, topics.DOCUMENTS_REJECTED,
    topics.dlq_topic(topics.DOCUMENTS_SUBMITTED),
)


class StoreWriter:
    """The sink's writer: one `apply_batch` transaction per batch; an outage is transient."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    async def write(self, values: Sequence[Any]) -> None:
        try:
            await self.store.apply_batch(values)
        except StoreUnavailable as exc:
            raise TransientError(str(exc)) from exc

    async def close(self) -> None:
        await self.store.close()


async def open_writer() -> StoreWriter:
    """The store of CITEFLOW_STORE_URL, migrated to the newest schema."""
    store = SqlStore()
    try:
        await store.migrate()
    except StoreUnavailable as exc:
        await store.close()
        raise TransientError(str(exc)) from exc
    return StoreWriter(store)


def handle(message: Message) -> list[Output]:
    """The stage produces no events: it only checks that the record is readable (the sink
    runner calls `decode_record` itself and writes what it returns)."""
    decode_record(message)
    return []


STAGE = Stage(
    name="store",
    input_topics=INPUT_TOPICS,
    output_topics=(),
    handle=handle,
    description="record every answer's status and result in the results store",
    sink=Sink(decode=decode_record, open_writer=open_writer),
)
