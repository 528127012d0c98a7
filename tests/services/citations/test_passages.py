"""Supporting passages: the inlined search (window overlaps counted per column byte) picks the
same windows as the reference `best_window`, including the fallbacks for sentences with more
than `MAX_COLUMN_TERMS` terms and sources with more than `MAX_COLUMN_WINDOWS` windows."""

from __future__ import annotations

import random

import pytest

from schemas.answers import Chunk, Source
from services.citations import passages
from services.citations.extract import extract
from services.citations.passages import (
    best_window,
    citing_sentence_terms,
    source_index,
    supporting_passages,
)


def _reference(
    text: str, source_list: list[Source]
) -> list[tuple[int, int, int, int, int]]:
    extracted = extract(text, source_list)
    citing = extracted.sentences_by_source()
    order = [s.index for s in source_list]
    wanted = {i for index in order for i in citing.get(index, ())}
    terms = citing_sentence_terms(text, extracted, wanted)
    rows = []
    for source in source_list:
        index = source_index(source.chunks)
        for sentence in citing.get(source.index, ()):
            position, start, end, _ = best_window(index.mask(terms[sentence]), index)
            rows.append((sentence, source.index, position, start, end))
    return rows


def _corpus(
    rng: random.Random, words: list[str], sentences: int, length: tuple[int, int]
) -> str:
    return " ".join(
        " ".join(rng.choice(words) for _ in range(rng.randint(*length))).capitalize()
        + "."
        for _ in range(sentences)
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    ("vocabulary", "chunk_sentences", "answer_words"),
    [(40, 8, (6, 14)), (2000, 150, (6, 14)), (3000, 10, (300, 400))],
)
def test_passages_match_reference_search(
    seed: int, vocabulary: int, chunk_sentences: int, answer_words: tuple[int, int]
) -> None:
    rng = random.Random(seed)
    words = [f"term{k}x" for k in range(vocabulary)]
    source_list = [
        Source(
            index=i,
            chunks=[
                Chunk(
                    text=_corpus(rng, words, chunk_sentences, (5, 15)),
                    chunk_id=f"c{i}{j}",
                )
                for j in range(2)
            ],
        )
        for i in range(1, 4)
    ]
    text = " ".join(
        _corpus(rng, words, 1, answer_words)[:-1] + f" [{rng.randint(1, 3)}]."
        for _ in range(6)
    )
    found = supporting_passages(
        text, extract(text, source_list), source_list, [1, 2, 3]
    )
    got = [
        (p.sentence_index, p.source_index, p.chunk_position, p.start, p.end)
        for p in found
    ]
    assert got == _reference(text, source_list)


def test_column_limits_are_exercised() -> None:
    assert (
        passages.MAX_COLUMN_WINDOWS < 300
    )  # the 2x150-sentence sources take the mask path
    assert passages.MAX_COLUMN_TERMS < 300  # the 300-word sentences take it too
