"""Supporting passages: the inlined search (window overlaps counted per column byte, or mask by
mask while an index is new) picks the same windows as the plain reference `best_window` below,
including the fallbacks for sentences with more than `MAX_COLUMN_TERMS` terms and sources with
more than `MAX_COLUMN_WINDOWS` windows."""

from __future__ import annotations

import random
import re

import pytest

from schemas.answers import Chunk, Source
from services.citations import passages
from services.citations.passages import (
    chunk_sentences,
    PassageFinder,
    source_index,
)
from services.text.extraction import extract
from services.text.lexical import text_terms


def best_window(want: int, index: passages.SourceIndex) -> tuple[int, int, int, int]:
    """`(chunk position, start, end, bits covered)`: the chunk sentence sharing most bits of
    `want` (the first on ties), widened by the sentence after it and then the one before it
    (same chunk) when each adds terms and the passage stays within `passages.MAX_PASSAGE_CHARS`."""
    masks, windows = index.masks, index.windows
    overlaps = list(map(int.bit_count, map(want.__and__, masks)))
    best = overlaps.index(max(overlaps))
    position, start, end = windows[best]
    covered = want & masks[best]
    for k in (best + 1, best - 1):
        if covered == want:
            break
        if 0 <= k < len(masks) and windows[k][0] == position:
            gained = want & masks[k] & ~covered
            new_start, new_end = min(start, windows[k][1]), max(end, windows[k][2])
            if gained and new_end - new_start <= passages.MAX_PASSAGE_CHARS:
                covered |= gained
                start, end = new_start, new_end
    return position, start, end, covered.bit_count()


def _reference(
    text: str, source_list: list[Source]
) -> list[tuple[int, int, int, int, int]]:
    extracted = extract(text, source_list)
    citing = extracted.sentences_by_source()
    order = [s.index for s in source_list]
    wanted = {i for index in order for i in citing.get(index, ())}
    terms = extracted.sentence_terms(wanted)
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
    passages._INDEXES.clear()
    first = _rows(PassageFinder(extract(text, source_list), source_list, [1, 2, 3]).passages())
    expected = _reference(text, source_list)  # reuses the indexes: their columns are built
    second = _rows(PassageFinder(extract(text, source_list), source_list, [1, 2, 3]).passages())
    assert first == expected  # the new indexes: overlaps counted mask by mask
    assert second == expected  # the columns, unless the source has too many windows
    small = chunk_sentences * 2 <= passages.MAX_COLUMN_WINDOWS
    assert all(
        (source_index(source.chunks).columns is not None) == small for source in source_list
    )


def _rows(found: list[dict]) -> list[tuple[int, int, int, int, int]]:
    return [
        (
            row["sentence_index"],
            row["source_index"],
            row["chunk_position"],
            row["start_char"],  # the chunks have no start_char: offsets are in the chunk
            row["end_char"],
        )
        for row in found
    ]


def test_column_limits_are_exercised() -> None:
    assert (
        passages.MAX_COLUMN_WINDOWS < 300
    )  # the 2x150-sentence sources take the mask path
    assert passages.MAX_COLUMN_TERMS < 300  # the 300-word sentences take it too


# The chunk sentence split as one regex (the original definition; `chunk_sentences` scans
# for the ends instead of trying them at every character).
_REFERENCE_CHUNK_SENTENCE = re.compile(r"\S.*?(?:[.!?]+[\"'”’)\]]*(?=\s|$)|\n|$)", re.DOTALL)


def _reference_chunk_sentences(text: str) -> list[tuple[int, int]]:
    return [
        (match.start(), match.start() + len(match.group().rstrip()))
        for match in _REFERENCE_CHUNK_SENTENCE.finditer(text)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "One. Two! Three? Four",
        "... starts with dots. Then ?! more.",
        ". A lone dot. .. Two dots.",
        'He said "stop." Then left.) Next (see [1].) Done.\n',
        "Line one\nLine two  \n\n  Line three.\u00a0Next\u2003x",
        "Ends with a quote.\u201d And \u2019curly\u2019.\u201d\n",
        "a.b.c e.g. this. x",
        "!",
        "x\n",
        "Trailing blanks.   ",
    ],
)
def test_chunk_sentences_match_the_reference_regex(text: str) -> None:
    assert chunk_sentences(text) == _reference_chunk_sentences(text)


def test_chunk_sentences_match_the_reference_regex_on_random_text() -> None:
    rng = random.Random(7)
    alphabet = ["a", "B", " ", "  ", ".", "!", "?", "\n", '"', "'", ")", "]", "\u201d", "\u2019",
                "\t", "\u00a0", "word", "...", "\r", "\x1c", "\u2028", "\u3000", "?!", ".)"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert chunk_sentences(text) == _reference_chunk_sentences(text), text


def test_sentence_terms_leave_markers_out_and_are_remembered() -> None:
    text = "Cats purr loudly [1]. Dogs bark at 2 cats [2][3]. Birds sing."
    source_list = [Source(index=i, doc_id=f"d{i}", title="t") for i in (1, 2, 3)]
    extracted = extract(text, source_list)
    first = extracted.sentence_terms({0})
    assert first[0] == {"cat", "purr", "loud"}
    both = extracted.sentence_terms([0, 1])
    assert both[1] == {"dog", "bark", "cat"}
    assert both[0] is first[0]  # remembered, not tokenized again
    # The same terms as the sentence text with its markers removed.
    for sentence in extracted.sentences[:2]:
        plain = re.sub(r"\[\d+\]", " ", sentence.text)
        assert both[sentence.index] == text_terms(plain)


@pytest.mark.parametrize(("text", "whole"), [
    ("word " * 1000, []),
    ("x" * 1500, []),
    (("lead " * 200).strip() + ". Short one. " + "tail " * 300 + "\nNext line",
     ["Short one.", "Next line"]),
])
def test_a_chunk_sentence_longer_than_a_passage_is_cut_at_its_spaces(
    text: str, whole: list[str]
) -> None:
    """A chunk without sentence ends is windows of at most MAX_PASSAGE_CHARS (cut after a
    space where it has one), covering every character but blanks: no passage, link or
    evidence carries more. Shorter sentences stay whole."""
    spans = chunk_sentences(text)
    pieces = [text[start:end] for start, end in spans]
    assert all(0 < len(piece) <= passages.MAX_PASSAGE_CHARS for piece in pieces)
    assert all(piece == piece.strip() for piece in pieces)
    assert "".join("".join(pieces).split()) == "".join(text.split())
    assert all(sentence in pieces for sentence in whole)
