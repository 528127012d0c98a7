"""UTF-8 byte offsets (Gemini's) to code points: in order, out of order, inside a character,
past the end."""

from __future__ import annotations

from services.providers.offsets import ByteOffsets

TEXT = "Café 東京 😀 end"


def test_every_boundary_in_and_out_of_order() -> None:
    boundaries = {len(TEXT[:k].encode()): k for k in range(len(TEXT) + 1)}
    offsets = ByteOffsets(TEXT)
    for byte in [*sorted(boundaries), *sorted(boundaries, reverse=True)]:
        assert offsets.code_point(byte) == boundaries[byte]


def test_inside_a_character_or_past_the_end_is_none() -> None:
    offsets = ByteOffsets(TEXT)
    inside = [b for b in range(len(TEXT.encode()) + 1)
              if b not in {len(TEXT[:k].encode()) for k in range(len(TEXT) + 1)}]
    assert inside  # é, 東, 京 and 😀 have inner bytes
    assert all(offsets.code_point(b) is None for b in inside)
    assert offsets.code_point(len(TEXT.encode()) + 1) is None
    assert offsets.code_point(6) == 5  # still right after the failures
    assert ByteOffsets("ascii").code_point(9) is None
