"""Supporting passages (SPEC §4.3, seed 004): for each sentence and each eligible source it
cites, the window of that source's chunks that best supports the sentence.

Support is lexical: the share of the sentence's content terms (citation markers removed) that
the window contains. A window is the best chunk sentence, widened by its neighbours in the
chunk when they add terms (at most three sentences, `MAX_PASSAGE_CHARS` long). Offsets are
in the chunk's section when the chunk's `start_char` is known, otherwise in the chunk (which
is then its own section).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from schemas.answers import Chunk, Source
from services.citations.extract import Extracted
from services.text.lexical import span_terms

MAX_PASSAGE_CHARS = 600
# A chunk sentence ends after terminal punctuation (with closing quotes and brackets) followed
# by whitespace or the end, or at a line break. Written to start with one character set, so
# that `re` scans for that set instead of trying the pattern at every position.
_CHUNK_END = re.compile(r"[\n.!?](?:(?<=\n)|[.!?]*[\"'”’)\]]*(?=\s|\Z))")
_NON_BLANK = re.compile(r"\S")
_MEMO_LIMIT = 4_096
MAX_COLUMN_TERMS = 255  # a sentence with more terms could overflow a column byte
MAX_COLUMN_WINDOWS = (
    256  # larger sources keep only their masks (columns cost 8x the memory)
)


@dataclass(frozen=True, slots=True)
class SourceIndex:
    """A source's chunk sentences as windows, each with its content terms as a bitmask over
    the source's own vocabulary (set overlap becomes integer `&` and `bit_count`)."""

    windows: list[tuple[int, int, int]]  # chunk position, start, end (in the chunk)
    masks: list[int]
    bits: dict[str, int]
    # Term -> one byte per window (1 where the window holds the term), and above those bytes
    # (from bit `8 * len(windows)` up) the term's bit: summing the columns of a sentence's
    # terms counts every window's overlap at once (byte i = window i) and builds the
    # sentence's mask in the same sum, while no count exceeds a byte (`MAX_COLUMN_TERMS`).
    columns: dict[str, int]

    def mask(self, terms: set[str]) -> int:
        """The bitmask of `terms` in this source's vocabulary (unknown terms dropped)."""
        return sum(map(self.bits.get, terms, repeat(0)))


_INDEXES: dict[tuple[str, ...], SourceIndex] = {}
# Passage scores rounded to 6 digits, by ratio: `round` with digits goes through a decimal
# string (costlier than the whole overlap search), and the few ratios of small counts recur.
_ROUNDED: dict[float, float] = {}


def chunk_sentences(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of each sentence of a chunk: from a non-blank character to the first
    terminal punctuation run after it that whitespace or the end follows (closing quotes and
    brackets included), or to the next line break, or to the end (trailing blanks left out)."""
    spans = []
    search_end, search_start = _CHUNK_END.search, _NON_BLANK.search
    begin = search_start(text)
    while begin is not None:
        start = begin.start()
        end = search_end(text, start + 1)  # the sentence's first character never ends it
        if end is None:
            spans.append((start, start + len(text[start:].rstrip())))
            break
        stop = end.end()
        if text[stop - 1] == "\n":
            spans.append((start, start + len(text[start : stop - 1].rstrip())))
        else:
            spans.append((start, stop))
        begin = search_start(text, stop)
    return spans


def source_index(chunks: Sequence[Chunk]) -> SourceIndex:
    """The window index of a source's chunks (memoised by their texts, bounded)."""
    key = tuple([chunk.text for chunk in chunks])
    cached = _INDEXES.get(key)
    if cached is not None:
        return cached
    windows: list[tuple[int, int, int]] = []
    window_terms: list[set[str]] = []
    for position, text in enumerate(key):
        spans = chunk_sentences(text)
        windows.extend((position, start, end) for start, end in spans)
        window_terms.extend(span_terms(text, spans))
    # Bit order is free: only overlaps and their sizes are ever read.
    bits = {term: 1 << i for i, term in enumerate(set().union(*window_terms))}
    masks = [sum(map(bits.__getitem__, terms)) for terms in window_terms]
    columns: dict[str, int] = {}
    if len(windows) <= MAX_COLUMN_WINDOWS:
        shift = 8 * len(windows)
        columns = {term: bit << shift for term, bit in bits.items()}
        byte = 1
        for terms in window_terms:
            for term in terms:
                columns[term] += byte
            byte <<= 8
    cached = SourceIndex(windows, masks, bits, columns)
    if len(_INDEXES) >= _MEMO_LIMIT:
        _INDEXES.clear()
    _INDEXES[key] = cached
    return cached


def _rounded(ratio: float) -> float:
    """`round(ratio, 6)`, remembered (bounded)."""
    if len(_ROUNDED) >= _MEMO_LIMIT:
        _ROUNDED.clear()
    score = _ROUNDED[ratio] = round(ratio, 6)
    return score


def citing_sentence_terms(
    text: str, extracted: Extracted, wanted: set[int]
) -> dict[int, set[str]]:
    """Content terms of the sentences in `wanted`, citation markers left out."""
    pieces = []
    done = 0
    for cluster in extracted.clusters:
        pieces.append(text[done : cluster.start])
        pieces.append(" " * (cluster.end - cluster.start))
        done = cluster.end
    pieces.append(text[done:])
    clean = "".join(pieces)
    chosen = [s for s in extracted.sentences if s.index in wanted]
    terms = span_terms(clean, [(s.start, s.end) for s in chosen])
    return {
        sentence.index: found for sentence, found in zip(chosen, terms, strict=True)
    }


def passage_values(
    text: str,
    extracted: Extracted,
    sources: Sequence[Source],
    passage_sources: Sequence[int],
) -> list[dict[str, Any]]:
    """The best passage per (sentence, validly cited source in `passage_sources`), ordered
    by the source's place in `passage_sources` (score order, capped), then by sentence, as
    the field values of `schemas.citations.SupportingPassage`.

    The passage is the chunk sentence sharing most content terms with the answer sentence
    (the first on ties), widened by the chunk sentence after it and then the one before it
    when each adds terms and the passage stays within `MAX_PASSAGE_CHARS`. Offsets are in
    the chunk's section (see the module docstring). The search is inlined (a call per pair
    is a measurable share of the stage); the tests hold it to a plain reference
    implementation."""
    by_index = {source.index: source for source in sources}
    citing = extracted.sentences_by_source()
    wanted = {i for index in passage_sources for i in citing.get(index, ())}
    terms = citing_sentence_terms(text, extracted, wanted) if wanted else {}
    found: list[dict[str, Any]] = []
    append = found.append
    bit_count = int.bit_count
    for cited in passage_sources:
        source = by_index.get(cited)
        if source is None or not source.chunks or cited not in citing:
            continue
        index = source_index(source.chunks)
        masks, windows, columns = index.masks, index.windows, index.columns
        if not masks:
            continue
        count = len(masks)
        shift = 8 * count
        below = (1 << shift) - 1
        column, get = columns.get, index.bits.get
        last = count - 1
        chunks = source.chunks
        for sentence in citing[cited]:
            sentence_terms = terms[sentence]
            if columns and len(sentence_terms) <= MAX_COLUMN_TERMS:
                total = sum(map(column, sentence_terms, repeat(0)))
                want = total >> shift
                overlaps = (total & below).to_bytes(count, "little")
            else:
                want = sum(map(get, sentence_terms, repeat(0)))
                overlaps = [(want & mask).bit_count() for mask in masks]  # type: ignore[assignment]
            best = overlaps.index(max(overlaps))
            position, start, end = windows[best]
            covered = want & masks[best]
            # Widen by the next chunk sentence, then the previous one (windows of a chunk
            # are in text order: the next one only moves the end, the previous the start).
            if covered != want and best < last:
                k_position, _, k_end = windows[best + 1]
                if k_position == position and k_end - start <= MAX_PASSAGE_CHARS:
                    gained = want & masks[best + 1] & ~covered
                    if gained:
                        covered |= gained
                        end = k_end
            if covered != want and best > 0:
                k_position, k_start, _ = windows[best - 1]
                if k_position == position and end - k_start <= MAX_PASSAGE_CHARS:
                    gained = want & masks[best - 1] & ~covered
                    if gained:
                        covered |= gained
                        start = k_start
            chunk = chunks[position]
            offset = chunk.start_char
            if offset is None:
                section_id = chunk.chunk_id or chunk.section_id
                offset = 0
            else:
                section_id = chunk.section_id or chunk.chunk_id
            if sentence_terms:
                ratio = bit_count(covered) / len(sentence_terms)
                score = _ROUNDED.get(ratio)
                if score is None:
                    score = _rounded(ratio)
            else:
                score = 0.0
            append(
                {
                    "citation_id": cited,
                    "sentence_index": sentence,
                    "source_index": cited,
                    "chunk_id": chunk.chunk_id,
                    "chunk_position": position,
                    "section_id": section_id,
                    "start_char": offset + start,
                    "end_char": offset + end,
                    "passage": chunk.text[start:end],
                    "score": score,
                }
            )
    return found
