"""Re-driving accepted answers from the store: the gateway's claim keeps the body until an
outcome arrives; `unfinished` pages through the rest oldest first; `redrive` publishes each
again as the gateway first did (same body, same hash, so the same event id)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from schemas.answers import AnswerSubmitted
from services.gateway.producer import body_sha256, canonical_json
from services.gateway.redrive import redrive
from services.store.api import Position, ResultUpdate, Submission
from services.store.sql import SqlStore
from tests.integration.conftest import small_answers


class Recorder:
    """Stands in for the gateway's AnswerProducer: what would be published."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str, bytes]] = []

    async def send(self, answer: AnswerSubmitted, tenant: str, sha: str,
                   canonical: bytes) -> str:
        assert canonical_json(answer) == canonical  # the body round-trips exactly
        self.sent.append((answer.answer_id, tenant, sha, canonical))
        return "event"


def _claimed(count: int, at: datetime) -> list[Submission]:
    found = []
    for i, data in enumerate(small_answers(count, "rd")):
        answer = AnswerSubmitted.model_validate(data)
        body = canonical_json(answer)
        found.append(Submission(answer.answer_id, "acme", at + timedelta(seconds=i),
                                body_sha256(body), event_id=f"e{i}", body=body))
    return found


def _formatted(submission: Submission) -> ResultUpdate:
    return ResultUpdate(submission.answer_id, submission.tenant, "formatted", "f-event",
                        submission.submitted_at + timedelta(seconds=1),
                        Position("answers.formatted", 0, 1), result=orjson.dumps({}))


async def test_unfinished_answers_keep_their_body_until_an_outcome(store: SqlStore) -> None:
    t0 = datetime.now(UTC) - timedelta(hours=1)
    claimed = _claimed(3, t0)
    await store.claim_submissions(claimed)
    await store.apply([_formatted(claimed[1])])
    found = await store.unfinished(datetime.now(UTC), 10)
    assert [(u.answer_id, u.body) for u in found] == [
        (claimed[0].answer_id, claimed[0].body), (claimed[2].answer_id, claimed[2].body)]
    # The outcome cleared the body; pages continue after the last one seen.
    assert await store.unfinished(datetime.now(UTC), 1, after=found[0]) == [found[1]]
    assert await store.unfinished(t0 + timedelta(seconds=1), 10) == [found[0]]


async def test_redrive_publishes_each_unfinished_answer_as_first_sent(store: SqlStore) -> None:
    claimed = _claimed(450, datetime.now(UTC) - timedelta(minutes=10))
    await store.claim_submissions(claimed)
    await store.apply([_formatted(s) for s in claimed[:50]])
    producer: Any = Recorder()
    assert await redrive(store, producer, older_than_s=60) == 400
    assert sorted(producer.sent) == sorted(
        (s.answer_id, "acme", s.body_sha256, s.body) for s in claimed[50:])
    # Newer than the bound: left alone.
    assert await redrive(store, Recorder(), older_than_s=3600) == 0  # type: ignore[arg-type]
