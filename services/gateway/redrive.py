"""Re-driving accepted answers from the results store: an answer the gateway acknowledged
(202) keeps its body in the store until its outcome arrives; one that has none is published
again, exactly as it was first (same key, same event id, derived from the body), so that an
answer a broker lost — the embedded broker keeps its log in memory — still gets its result.

Idempotent: an answer re-driven while its first copy is still in the pipeline is a duplicate
on the topics, recognised by its event id; the store keeps one outcome per answer.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime, timedelta

import structlog

from schemas.answers import AnswerSubmitted
from services.gateway.producer import AnswerProducer
from services.store.api import ResultsStore

# On gateway start: answers without an outcome this long after their submit are re-driven.
REDRIVE_AFTER_ENV = "CITEFLOW_REDRIVE_AFTER_S"
DEFAULT_REDRIVE_AFTER_S = 300.0
_PAGE = 200
log = structlog.get_logger("citeflow", stage="gateway")


def redrive_after_s() -> float:
    """CITEFLOW_REDRIVE_AFTER_S, or 300."""
    raw = os.environ.get(REDRIVE_AFTER_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_REDRIVE_AFTER_S
    except ValueError:
        raise ValueError(f"{REDRIVE_AFTER_ENV}={raw!r} is not a number") from None
    if value < 0:
        raise ValueError(f"{REDRIVE_AFTER_ENV}={raw!r} is negative")
    return value


async def redrive(store: ResultsStore, producer: AnswerProducer, older_than_s: float) -> int:
    """Publish again every accepted answer without an outcome submitted more than
    `older_than_s` ago; returns how many. A failed publish raises (the rest are left for
    the next run)."""
    cutoff = datetime.now(UTC) - timedelta(seconds=older_than_s)
    sent = 0
    after = None
    while page := await store.unfinished(cutoff, _PAGE, after):
        await asyncio.gather(*(
            producer.send(AnswerSubmitted.model_validate_json(item.body), item.tenant,
                          item.body_sha256, item.body)
            for item in page))
        sent += len(page)
        after = page[-1]
    return sent


async def redrive_on_start(store: ResultsStore, producer: AnswerProducer,
                           older_than_s: float) -> None:
    """The gateway's start-up re-drive, once the producer is connected (errors are logged:
    `citeflow answers redrive` does it again)."""
    await producer.connected()
    try:
        sent = await redrive(store, producer, older_than_s)
    except Exception as exc:  # noqa: BLE001 - a background task: log, never crash the app
        log.warning("re-driving unfinished answers failed", error=str(exc))
        return
    if sent:
        log.info("re-drove unfinished answers", answers=sent, older_than_s=older_than_s)
