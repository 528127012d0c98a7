"""How one event changes an answer's row: the status rules, pure (a row is a dict of columns).

Rules (they make applying events idempotent and independent of arrival order, which differs
between topics):
- an event whose id already set the row changes nothing (replays, duplicates), but for a
  column the row predates (its language);
- a status never moves down: submitted < rejected = dead_lettered < formatted, so a formatted
  result is never replaced by a later dead letter or rejection of a duplicate, while a dead
  letter that was drained and re-processed does become formatted;
- between events of the same rank, the later event time wins (a replay of an older one does not);
- a submission only fills in what the row lacks (submit time, model, body hash);
- a model judge's opinion (`answer.judged`) sits beside the status and result, never
  changing them: the later one by event time replaces an earlier one.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from services.store.api import Judgement, ResultUpdate, Submission, Summary
from services.store.tables import JUDGED_COLUMNS, SUMMARY_COLUMNS

Row = dict[str, Any]
RANK = {"submitted": 0, "rejected": 1, "dead_lettered": 1, "formatted": 2}


def to_ms(moment: datetime) -> int:
    """Milliseconds since the epoch of an aware datetime."""
    return round(moment.timestamp() * 1000)


def submission_row(submission: Submission, now_ms: int) -> Row:
    """The row of an answer first seen as a submission."""
    at = to_ms(submission.submitted_at)
    position = submission.position
    return {
        "answer_id": submission.answer_id,
        "tenant": submission.tenant,
        "status": "submitted",
        "model": submission.model,
        "answered_at_ms": at,
        "submitted_at_ms": at,
        "submitted_event_id": submission.event_id,
        "body_sha256": submission.body_sha256,
        "submitted_body": submission.body,
        "event_id": submission.event_id,
        "event_time_ms": at,
        "updated_at_ms": now_ms,
        "result": None,
        "reason": None,
        "detail": None,
        "latency_ms": None,
        "pos_topic": position.topic if position else None,
        "pos_partition": position.partition if position else None,
        "pos_offset": position.offset if position else None,
        **summary_columns(None),
        **dict.fromkeys(JUDGED_COLUMNS),
    }


def update_row(update: ResultUpdate, now_ms: int) -> Row:
    """The row of an answer first seen through an outcome event."""
    submitted = to_ms(update.submitted_at) if update.submitted_at else None
    event_ms = to_ms(update.event_time)
    row: Row = {
        "answer_id": update.answer_id,
        "tenant": update.tenant,
        "model": update.model,
        "answered_at_ms": submitted if submitted is not None else event_ms,
        "submitted_at_ms": submitted,
        "submitted_event_id": None,
        "body_sha256": None,
        "submitted_body": None,
        **dict.fromkeys(JUDGED_COLUMNS),
    }
    row.update(_outcome(update, submitted, now_ms))
    return row


def judgement_row(judgement: Judgement, now_ms: int) -> Row:
    """The row of an answer first seen through its judgement (its result comes later)."""
    at = to_ms(judgement.event_time)
    row: Row = {
        "answer_id": judgement.answer_id, "tenant": judgement.tenant, "status": "submitted",
        "model": None, "answered_at_ms": at, "submitted_at_ms": None,
        "submitted_event_id": None, "body_sha256": None, "event_id": None,
        "event_time_ms": None, "updated_at_ms": now_ms, "result": None, "reason": None,
        "detail": None, "latency_ms": None, "pos_topic": None, "pos_partition": None,
        "pos_offset": None, **summary_columns(None),
    }
    return {**row, **_judged(judgement, now_ms)}


def apply_judgement(row: Row, judgement: Judgement, now_ms: int) -> Row | None:
    """`row` with the judgement, or None when it has it or a later one already."""
    if row["judged_event_id"] == judgement.event_id or (
            row["judged_time_ms"] is not None
            and to_ms(judgement.event_time) <= row["judged_time_ms"]):
        return None
    return {**row, **_judged(judgement, now_ms)}


def _judged(judgement: Judgement, now_ms: int) -> Row:
    # The row's position moves to the judgement's record: a stream client resuming from
    # before it is sent the answer again, with the judgement.
    moves = {"pos_topic": judgement.position.topic,
             "pos_partition": judgement.position.partition,
             "pos_offset": judgement.position.offset, "updated_at_ms": now_ms}
    return {"judged": judgement.judged, "judge": judgement.judge,
            "disagreements": judgement.disagreements, "judged_event_id": judgement.event_id,
            "judged_time_ms": to_ms(judgement.event_time), "judge_usd": judgement.usd,
            "judge_latency_ms": judgement.latency_ms, **moves}


def apply_submission(row: Row, submission: Submission) -> Row | None:
    """`row` with what the submission adds, or None when it adds nothing."""
    changes: Row = {}
    if row["submitted_at_ms"] is None:
        at = to_ms(submission.submitted_at)
        changes["submitted_at_ms"] = changes["answered_at_ms"] = at
        if row["status"] == "formatted" and row["event_time_ms"] is not None:
            changes["latency_ms"] = float(row["event_time_ms"] - at)
    for column, value in (("model", submission.model), ("body_sha256", submission.body_sha256),
                          ("submitted_event_id", submission.event_id)):
        if row[column] is None and value is not None:
            changes[column] = value
    if not changes:
        return None
    # `updated_at_ms` stays: it marks changes of status or result (the order of `since`).
    return {**row, **changes}


def apply_update(row: Row, update: ResultUpdate, now_ms: int) -> Row | None:
    """`row` after an outcome event, or None when the event changes nothing."""
    if row["event_id"] == update.event_id:
        # The same event read again (a replay) only fills in a column the row predates.
        language = update.summary.language if update.summary is not None else None
        if row.get("language") is None and language is not None:
            return {**row, "language": language}
        return None
    new_rank, old_rank = RANK[update.status], RANK[row["status"]]
    event_ms = to_ms(update.event_time)
    if new_rank < old_rank or (
        new_rank == old_rank and event_ms <= (row["event_time_ms"] or 0)
    ):
        return None
    submitted = row["submitted_at_ms"]
    changes: Row = {}
    if submitted is None and update.submitted_at is not None:
        submitted = changes["submitted_at_ms"] = changes["answered_at_ms"] = to_ms(
            update.submitted_at)
    if row["model"] is None and update.model is not None:
        changes["model"] = update.model
    # The tenant stays as first recorded (the gateway's key decides it).
    return {**row, **changes, **_outcome(update, submitted, now_ms)}


def _outcome(update: ResultUpdate, submitted_ms: int | None, now_ms: int) -> Row:
    event_ms = to_ms(update.event_time)
    formatted = update.status == "formatted"
    return {
        "status": update.status,
        "event_id": update.event_id,
        # Finished: nothing left to re-drive.
        "submitted_body": None,
        "event_time_ms": event_ms,
        "updated_at_ms": now_ms,
        "result": update.result if formatted else None,
        "reason": update.reason,
        "detail": dict(update.detail) if update.detail is not None else None,
        # Submit-to-formatted latency from the events' own times.
        "latency_ms": float(event_ms - submitted_ms)
        if formatted and submitted_ms is not None else None,
        "pos_topic": update.position.topic,
        "pos_partition": update.position.partition,
        "pos_offset": update.position.offset,
        **summary_columns(update.summary if formatted else None),
    }


def summary_columns(summary: Summary | None) -> Row:
    """The summary's columns (all NULL without a summary)."""
    if summary is None:
        return dict.fromkeys(SUMMARY_COLUMNS)
    values = asdict(summary)
    return {column: values[column] for column in SUMMARY_COLUMNS}
