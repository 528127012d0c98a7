"""Resumable stream positions: the SSE `id:` of every event.

A position is the hub's offset vector as of one event: for every (topic, partition) it
reads, the offset of the last record it has passed (-1: none yet). A client that
reconnects with it as `Last-Event-ID` missed exactly the records after it, partition by
partition, whichever gateway replica it reaches (offsets are the broker's, not ours).

Wire form: `1.` + base64url (no padding) of unsigned LEB128 varints, three per entry:
topic index in `STREAM_TOPICS`, partition, offset + 1. Entries are sorted. About five
bytes an entry: 28 partitions of 7 topics make an id of ~190 characters.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

from schemas import topics

# The topics a stream reads, by index in the id. Append only: an index, once given out in
# an id, must keep naming the same topic.
STREAM_TOPICS: tuple[str, ...] = (
    topics.ANSWERS_FORMATTED,
    topics.ANSWERS_REJECTED,
    *(topics.dlq_topic(t) for t in (
        topics.ANSWERS_SUBMITTED, topics.ANSWERS_ACCEPTED, topics.ANSWERS_SCORED,
        topics.ANSWERS_CITED, topics.ANSWERS_RESOLVED,
    )),
)
_INDEX = {name: i for i, name in enumerate(STREAM_TOPICS)}
_VERSION = "1."
# Bounds on what a client may send: longer ids or more entries are refused unread.
MAX_ID_CHARS = 8192
MAX_PARTITION = 1 << 16

TopicPartition = tuple[str, int]
Vector = dict[TopicPartition, int]


class BadPosition(ValueError):
    """A Last-Event-ID that is not a position this service gave out."""


def encode_position(vector: Mapping[TopicPartition, int]) -> str:
    """The id of `vector` (topics outside STREAM_TOPICS are left out)."""
    out = bytearray()
    for (topic, partition), offset in sorted(
        vector.items(), key=lambda item: (_INDEX.get(item[0][0], -1), item[0][1])
    ):
        index = _INDEX.get(topic)
        if index is None:
            continue
        _varint(out, index)
        _varint(out, partition)
        _varint(out, offset + 1)
    return _VERSION + base64.urlsafe_b64encode(bytes(out)).rstrip(b"=").decode("ascii")


def decode_position(text: str) -> Vector:
    """The vector of an id; BadPosition for anything this module did not write."""
    if len(text) > MAX_ID_CHARS or not text.startswith(_VERSION):
        raise BadPosition("not a stream position")
    body = text[len(_VERSION):]
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise BadPosition("not a stream position (bad encoding)") from None
    numbers = _read_varints(raw)
    if not numbers or len(numbers) % 3:  # every id given out names at least one partition
        raise BadPosition("not a stream position (truncated)")
    vector: Vector = {}
    for i in range(0, len(numbers), 3):
        index, partition, offset = numbers[i : i + 3]
        if index >= len(STREAM_TOPICS) or partition >= MAX_PARTITION:
            raise BadPosition("not a stream position (unknown topic or partition)")
        vector[(STREAM_TOPICS[index], partition)] = offset - 1
    return vector


def _varint(out: bytearray, value: int) -> None:
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _read_varints(raw: bytes) -> list[int]:
    numbers: list[int] = []
    value = shift = 0
    for byte in raw:
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            if shift > 63:
                raise BadPosition("not a stream position (number too long)")
            continue
        numbers.append(value)
        value = shift = 0
    if shift:
        raise BadPosition("not a stream position (truncated)")
    return numbers
