"""Chunk bounds: exact slices, size, overlap, word starts, stable ids."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from pydantic import ValidationError

from schemas.documents import ChunkingOptions
from services.ingest.documents.chunking import chunk_bounds, section_chunks

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]


def _text(seed: int, paragraphs: int = 12) -> str:
    rng = random.Random(seed)
    return "\n\n".join(
        ". ".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
                  for _ in range(rng.randint(1, 6))) + "."
        for _ in range(paragraphs)
    )


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(("size", "overlap"), [(50, 0), (120, 20), (400, 100), (1000, 500)])
def test_bounds_cover_the_text_in_order_within_size(seed: int, size: int, overlap: int) -> None:
    text = _text(seed)
    bounds = chunk_bounds(text, size, overlap)
    assert bounds[0][0] == 0
    assert bounds[-1][1] == len(text)
    for (start, end), (next_start, next_end) in pairwise(bounds):
        assert next_start > start and next_end > end
        assert next_start <= end + 2  # only the whitespace of a break is skipped
        if overlap == 0:
            assert text[end:next_start].strip() == ""
    for start, end in bounds:
        assert 0 <= start < end <= len(text)
        assert end - start <= size
        assert not text[start].isspace()


def test_overlap_starts_on_a_word() -> None:
    text = _text(3, paragraphs=30)
    for start, _ in chunk_bounds(text, 200, 60)[1:]:
        assert start == 0 or text[start - 1] in " \n"


def test_breaks_prefer_paragraphs_then_sentences() -> None:
    text = "a" * 60 + ". " + "b" * 20 + "\n\n" + "c" * 100
    (start, end), *_ = chunk_bounds(text, 100, 0)
    assert text[start:end] == "a" * 60 + ". " + "b" * 20


def test_a_word_longer_than_the_size_is_cut_hard() -> None:
    text = "x" * 250
    assert chunk_bounds(text, 100, 10) == [(0, 100), (90, 190), (180, 250)]


def test_empty_text_has_no_chunks() -> None:
    assert chunk_bounds("", 100, 10) == []


def test_section_chunks_ids_offsets_and_optional_text() -> None:
    text = _text(7)
    section = {"section_id": "d:2", "index": 2, "href": "x.xhtml", "page": None, "text": text}
    plain = section_chunks("d", section, ChunkingOptions(chunk_size=200, chunk_overlap=20))
    assert [c["chunk_id"] for c in plain] == [f"d:2:{n}" for n in range(len(plain))]
    assert all(c["text"] is None and c["href"] == "x.xhtml" for c in plain)
    with_text = section_chunks(
        "d", section, ChunkingOptions(chunk_size=200, chunk_overlap=20, include_chunk_text=True))
    assert [c["text"] for c in with_text] == [text[c["start_char"]:c["end_char"]] for c in plain]
    assert section_chunks("d", section, ChunkingOptions(chunk_size=200, chunk_overlap=20)) == plain


def test_overlap_above_half_the_size_is_refused() -> None:
    with pytest.raises(ValidationError):
        ChunkingOptions(chunk_size=100, chunk_overlap=51)
