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

from schemas.answers import Chunk, Source
from services.citations.extract import Extracted
from services.text.lexical import span_terms

MAX_PASSAGE_CHARS = 600
# Chunk sentences for passage windows: a cheap split after terminal punctuation.
_CHUNK_SENTENCE = re.compile(r"\S.*?(?:[.!?]+[\"'”’)\]]*(?=\s|$)|\n|$)", re.DOTALL)
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
    # Term -> one byte per window (1 where the window holds the term): summing the columns
    # of a sentence's terms counts every window's overlap at once (byte i = window i), while
    # no count exceeds a byte (`MAX_COLUMN_TERMS`).
    columns: dict[str, int]

    def mask(self, terms: set[str]) -> int:
        """The bitmask of `terms` in this source's vocabulary (unknown terms dropped)."""
        return sum(map(self.bits.get, terms, repeat(0)))


_INDEXES: dict[tuple[str, ...], SourceIndex] = {}


def source_index(chunks: Sequence[Chunk]) -> SourceIndex:
    """The window index of a source's chunks (memoised by their texts, bounded)."""
    key = tuple(chunk.text for chunk in chunks)
    cached = _INDEXES.get(key)
    if cached is not None:
        return cached
    windows: list[tuple[int, int, int]] = []
    masks: list[int] = []
    bits: dict[str, int] = {}
    window_terms: list[set[str]] = []
    for position, text in enumerate(key):
        spans = []
        for match in _CHUNK_SENTENCE.finditer(text):
            start = match.start()
            spans.append((start, start + len(match.group().rstrip())))
        for (start, end), terms in zip(spans, span_terms(text, spans), strict=True):
            mask = 0
            for term in terms:
                bit = bits.get(term)
                if bit is None:
                    bit = bits[term] = 1 << len(bits)
                mask |= bit
            windows.append((position, start, end))
            masks.append(mask)
            window_terms.append(terms)
    columns: dict[str, int] = {}
    if len(windows) <= MAX_COLUMN_WINDOWS:
        columns = dict.fromkeys(bits, 0)
        for window, terms in enumerate(window_terms):
            byte = 1 << (8 * window)
            for term in terms:
                columns[term] += byte
    cached = SourceIndex(windows, masks, bits, columns)
    if len(_INDEXES) >= _MEMO_LIMIT:
        _INDEXES.clear()
    _INDEXES[key] = cached
    return cached


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


def passage_rows(
    text: str,
    extracted: Extracted,
    sources: Sequence[Source],
    passage_sources: Sequence[int],
) -> list[tuple[int, int, Chunk, int, str | None, int, int, int, float]]:
    """The best passage per (sentence, validly cited source in `passage_sources`), ordered
    by the source's place in `passage_sources` (score order, capped), then by sentence, as
    rows `(sentence index, source index, chunk, chunk position, section id, chunk offset in
    the section, start, end (in the chunk), score)`.

    The passage is the chunk sentence sharing most content terms with the answer sentence
    (the first on ties), widened by the chunk sentence after it and then the one before it
    when each adds terms and the passage stays within `MAX_PASSAGE_CHARS`. The search is
    inlined (a call per pair is a measurable share of the stage); the tests hold it to a
    plain reference implementation."""
    by_index = {source.index: source for source in sources}
    citing = extracted.sentences_by_source()
    wanted = {i for index in passage_sources for i in citing.get(index, ())}
    terms = citing_sentence_terms(text, extracted, wanted) if wanted else {}
    found: list[tuple[int, int, Chunk, int, str | None, int, int, int, float]] = []
    append = found.append
    bit_count = int.bit_count
    for cited in passage_sources:
        source = by_index.get(cited)
        if source is None or not source.chunks or cited not in citing:
            continue
        index = source_index(source.chunks)
        masks, windows, get = index.masks, index.windows, index.bits.get
        if not masks:
            continue
        columns, count = index.columns, len(masks)
        column = columns.get
        last = len(masks) - 1
        chunks = source.chunks
        for sentence in citing[cited]:
            sentence_terms = terms[sentence]
            want = sum(map(get, sentence_terms, repeat(0)))
            if columns and len(sentence_terms) <= MAX_COLUMN_TERMS:
                overlaps = sum(map(column, sentence_terms, repeat(0))).to_bytes(
                    count, "little"
                )
            else:
                overlaps = [(want & mask).bit_count() for mask in masks]  # type: ignore[assignment]
            best = overlaps.index(max(overlaps))
            position, start, end = windows[best]
            covered = want & masks[best]
            # Widen by the next chunk sentence, then the previous one.
            if covered != want and best < last:
                k_position, k_start, k_end = windows[best + 1]
                if k_position == position:
                    gained = want & masks[best + 1] & ~covered
                    new_start = min(k_start, start)
                    new_end = max(k_end, end)
                    if gained and new_end - new_start <= MAX_PASSAGE_CHARS:
                        covered |= gained
                        start, end = new_start, new_end
            if covered != want and best > 0:
                k_position, k_start, k_end = windows[best - 1]
                if k_position == position:
                    gained = want & masks[best - 1] & ~covered
                    new_start = min(k_start, start)
                    new_end = max(k_end, end)
                    if gained and new_end - new_start <= MAX_PASSAGE_CHARS:
                        covered |= gained
                        start, end = new_start, new_end
            score = bit_count(covered) / len(sentence_terms) if sentence_terms else 0.0
            chunk = chunks[position]
            offset = chunk.start_char
            if offset is None:
                section_id = chunk.chunk_id or chunk.section_id
                offset = 0
            else:
                section_id = chunk.section_id or chunk.chunk_id
            append(
                (
                    sentence,
                    cited,
                    chunk,
                    position,
                    section_id,
                    offset,
                    start,
                    end,
                    score,
                )
            )
    return found
