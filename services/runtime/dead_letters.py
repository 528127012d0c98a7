"""Dead letters: a poison message, unchanged, with why and where it came from in headers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from schemas.topics import dlq_topic
from services.runtime.stage import Message, PermanentError

# Header names of a dead letter (prefix `dlq_` so they never clash with `ce_*`).
H_STAGE = "dlq_stage"
H_ERROR_TYPE = "dlq_error_type"
H_ERROR_CODE = "dlq_error_code"
H_ERROR_MESSAGE = "dlq_error_message"
H_ATTEMPTS = "dlq_attempts"
H_TOPIC = "dlq_original_topic"
H_PARTITION = "dlq_original_partition"
H_OFFSET = "dlq_original_offset"
_MAX_MESSAGE_BYTES = 4_000
# A worked-marker (services.runtime.worked): the offset of the letter it closes, and how.
H_WORKED = "dlq_worked"
H_OUTCOME = "dlq_outcome"


@dataclass(frozen=True)
class Record:
    """One record to produce (topic is the logical name)."""

    topic: str
    value: bytes
    key: bytes | None
    headers: list[tuple[str, bytes]]


def error_code(error: BaseException) -> str:
    """A stable code for an error: PermanentError's own code, else the exception class."""
    if isinstance(error, PermanentError):
        return error.code
    return type(error).__name__


def dead_letter(message: Message, stage: str, error: BaseException, attempts: int) -> Record:
    """The dead-letter record of `message`: its original key and value, and headers saying
    which stage failed how, after how many attempts, and where the message came from.
    The message's own headers are kept after ours."""
    text = str(error) or type(error).__name__
    headers = [
        (H_STAGE, stage.encode()),
        (H_ERROR_TYPE, type(error).__name__.encode()),
        (H_ERROR_CODE, error_code(error).encode()),
        (H_ERROR_MESSAGE, text.encode("utf-8", "replace")[:_MAX_MESSAGE_BYTES]),
        (H_ATTEMPTS, str(attempts).encode()),
        (H_TOPIC, message.topic.encode()),
        (H_PARTITION, str(message.partition).encode()),
        (H_OFFSET, str(message.offset).encode()),
    ]
    headers.extend((k, v) for k, v in message.headers if not k.startswith("dlq_"))
    return Record(dlq_topic(message.topic), message.value, message.key, headers)


@dataclass(frozen=True)
class DeadLetterInfo:
    """The headers of a dead letter, read back (for `citeflow dlq` and `replay`)."""

    stage: str
    error_type: str
    error_code: str
    error_message: str
    attempts: int
    original_topic: str
    original_partition: int
    original_offset: int


def read_dead_letter(headers: list[tuple[str, bytes]] | tuple[tuple[str, bytes], ...]) -> (
    DeadLetterInfo | None
):
    """Parse dead-letter headers; None when the record is not a dead letter."""
    found = {k: v.decode("utf-8", "replace") for k, v in headers if k.startswith("dlq_")}
    if H_TOPIC not in found:
        return None
    return DeadLetterInfo(
        stage=found.get(H_STAGE, ""),
        error_type=found.get(H_ERROR_TYPE, ""),
        error_code=found.get(H_ERROR_CODE, ""),
        error_message=found.get(H_ERROR_MESSAGE, ""),
        attempts=int(found.get(H_ATTEMPTS, "0") or 0),
        original_topic=found[H_TOPIC],
        original_partition=int(found.get(H_PARTITION, "-1") or -1),
        original_offset=int(found.get(H_OFFSET, "-1") or -1),
    )


def is_marker(headers: Iterable[tuple[str, bytes]]) -> bool:
    """Whether a record of a dead-letter topic is a worked-marker, not a letter."""
    return any(k == H_WORKED for k, _ in headers)
