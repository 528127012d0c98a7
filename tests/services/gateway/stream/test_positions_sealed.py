"""SSE ids carried the hub's offsets over every tenant in the clear."""

from __future__ import annotations

import base64

import pytest

from schemas import topics
from services.gateway.settings import GatewaySettings
from services.gateway.stream.positions import BadPosition, decode_position, encode_position


def _raw(position: str) -> bytes:
    body = position.split(".", 1)[1]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def test_ids_are_sealed_deterministic_and_round_trip() -> None:
    vector = {(topics.ANSWERS_FORMATTED, 0): 41, (topics.ANSWERS_FORMATTED, 1): 7,
              (topics.ANSWERS_REJECTED, 0): -1}
    position = encode_position(vector)
    assert decode_position(position) == vector
    assert encode_position(vector) == position
    # The plain varints (topic 0, partition 0, offset 42 ...) are not in the id.
    assert bytes([0, 0, 42]) not in _raw(position)
    following = encode_position({**vector, (topics.ANSWERS_FORMATTED, 0): 42})
    assert _raw(following)[:16] != _raw(position)[:16]


def test_forged_or_altered_ids_are_refused() -> None:
    position = encode_position({(topics.ANSWERS_FORMATTED, 0): 5})
    raw = bytearray(_raw(position))
    raw[-1] ^= 1
    forged = "2." + base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    with pytest.raises(BadPosition):
        decode_position(forged)


def plain_id(*numbers: int) -> str:
    """An unsealed `1.` id, as a client can build one by hand (one byte per varint)."""
    return "1." + base64.urlsafe_b64encode(bytes(numbers)).rstrip(b"=").decode()


def test_unsealed_ids_are_refused() -> None:
    """A hand-built id let a tenant resume at any offset and map, from which of its own
    results came back, which offsets were another tenant's."""
    with pytest.raises(BadPosition):
        decode_position(plain_id(0, 0, 6))


def test_a_stream_id_key_too_short_to_be_secret_stops_the_gateway_start() -> None:
    with pytest.raises(ValueError, match="at least 32 characters"):
        GatewaySettings.from_env({"CITEFLOW_STREAM_ID_KEY": "changeme"})
    long_enough = GatewaySettings.from_env({"CITEFLOW_STREAM_ID_KEY": "k" * 32})
    assert long_enough.port == 8000
