"""Resumable stream positions: the SSE `id:` of every event.

A position is the hub's offset vector as of one event: for every (topic, partition) it
reads, the offset of the last record it has passed (-1: none yet). A client that
reconnects with it as `Last-Event-ID` missed exactly the records after it, partition by
partition, whichever gateway replica it reaches (offsets are the broker's, not ours).

The vector is the hub's, over every tenant's records, so ids are sealed (in the clear, a
tenant could count everyone's results from them): wire form `2.` + base64url (no padding)
of a 16-byte synthetic IV and the encrypted varints (unsigned LEB128, three per entry:
topic index in `STREAM_TOPICS`, partition, offset + 1; entries sorted). The cipher is
deterministic SIV from HMAC-SHA256 (IV = HMAC(k1, plaintext), keystream = HMAC(k2, IV,
counter)): the same vector gives the same id, and an id not sealed with this key fails
its IV check. The key comes from the gateway's secret (`services/gateway/secret.py`),
which replicas on several hosts share. Only sealed ids are read: an unsealed `1.` id (as
written before ids were sealed), an id sealed with another key, or anything else is
refused, and the stream says so (a `bad_last_event_id` event) and starts from now. A made-up position would let a
tenant resume anywhere and, from which of its own results come back, map which offsets
are another tenant's (their volume and timing).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping

from schemas import topics
from services.gateway.secret import gateway_secret

# The topics a stream reads, by index in the id. Append only: an index, once given out in
# an id, must keep naming the same topic.
STREAM_TOPICS: tuple[str, ...] = (
    topics.ANSWERS_FORMATTED,
    topics.ANSWERS_REJECTED,
    *(topics.dlq_topic(t) for t in (
        topics.ANSWERS_SUBMITTED, topics.ANSWERS_ACCEPTED, topics.ANSWERS_SCORED,
        topics.ANSWERS_CITED, topics.ANSWERS_RESOLVED,
    )),
    topics.ANSWERS_JUDGED,
)
_INDEX = {name: i for i, name in enumerate(STREAM_TOPICS)}
_VERSION = "2."
_IV_BYTES = 16


def _keys(secret: bytes) -> tuple[bytes, bytes]:
    return (hmac.digest(secret, b"citeflow stream id: iv", "sha256"),
            hmac.digest(secret, b"citeflow stream id: stream", "sha256"))


_IV_KEY, _STREAM_KEY = _keys(gateway_secret())


def _keystream(iv: bytes, length: int) -> bytes:
    blocks = [hmac.digest(_STREAM_KEY, iv + i.to_bytes(4, "big"), "sha256")
              for i in range(-(-length // 32))]
    return b"".join(blocks)[:length]


def _xor(data: bytes, pad: bytes) -> bytes:
    return (int.from_bytes(data, "big") ^ int.from_bytes(pad, "big")).to_bytes(len(data), "big")


def _seal(plain: bytes) -> bytes:
    iv = hmac.digest(_IV_KEY, plain, "sha256")[:_IV_BYTES]
    return iv + _xor(plain, _keystream(iv, len(plain)))


def _open(sealed: bytes) -> bytes:
    iv, body = sealed[:_IV_BYTES], sealed[_IV_BYTES:]
    plain = _xor(body, _keystream(iv, len(body)))
    if len(iv) != _IV_BYTES or not hmac.compare_digest(
            hmac.digest(_IV_KEY, plain, "sha256")[:_IV_BYTES], iv):
        raise BadPosition("not a stream position of this service")
    return plain


# Bounds on what a client may send: longer ids or more entries are refused unread.
MAX_ID_CHARS = 8192
MAX_PARTITION = 1 << 16


class BadPosition(ValueError):
    """A Last-Event-ID that is not a position this service gave out."""


TopicPartition = tuple[str, int]
Vector = dict[TopicPartition, int]


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
    sealed = _seal(bytes(out))
    return _VERSION + base64.urlsafe_b64encode(sealed).rstrip(b"=").decode("ascii")


def decode_position(text: str) -> Vector:
    """The vector of an id; BadPosition for anything this module did not write."""
    if len(text) > MAX_ID_CHARS or not text.startswith(_VERSION):
        raise BadPosition("not a stream position this service gave out")
    body = text[len(_VERSION):]
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise BadPosition("not a stream position (bad encoding)") from None
    numbers = _read_varints(_open(raw))
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
