"""Supporting passages (SPEC §4.3, seed 004): for each sentence and each eligible source it
cites, the window of that source's chunks that best supports the sentence.

Support is lexical: the share of the sentence's content terms (citation markers removed) that
the window contains. Windows are one to three consecutive chunk sentences, at most
`MAX_PASSAGE_CHARS` long. Offsets are in the chunk's section when the chunk's `start_char` is
known, otherwise in the chunk (which is then its own section).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from schemas.answers import Chunk, Source
from services.citations.extract import Extracted
from services.text.lexical import span_terms

MAX_PASSAGE_CHARS = 600
MAX_WINDOW_SENTENCES = 3
# Chunk sentences for passage windows: a cheap split after terminal punctuation.
_CHUNK_SENTENCE = re.compile(r"\S.*?(?:[.!?]+[\"'”’)\]]*(?=\s|$)|\n|$)", re.DOTALL)
_MEMO_LIMIT = 4_096


@dataclass(frozen=True, slots=True)
class ChunkIndex:
    """A chunk's sentences as windows, each with its content terms as a bitmask over the
    chunk's own vocabulary (set overlap becomes integer `&` and `bit_count`)."""

    spans: list[tuple[int, int]]
    masks: list[int]
    bits: dict[str, int]

    def mask(self, terms: set[str]) -> int:
        """The bitmask of `terms` in this chunk's vocabulary (unknown terms dropped)."""
        bits = self.bits
        mask = 0
        for term in terms:
            mask |= bits.get(term, 0)
        return mask


_INDEXES: dict[str, ChunkIndex] = {}


@dataclass(slots=True)
class Passage:
    """The best window of one source for one sentence."""

    sentence_index: int
    source_index: int
    chunk: Chunk
    chunk_position: int
    start: int  # in the chunk text
    end: int
    score: float

    @property
    def section_id(self) -> str | None:
        """The section the offsets refer to (the chunk itself when it has no `start_char`)."""
        if self.chunk.start_char is None:
            return self.chunk.chunk_id or self.chunk.section_id
        return self.chunk.section_id or self.chunk.chunk_id

    @property
    def section_start(self) -> int:
        """Start offset in the section."""
        return (self.chunk.start_char or 0) + self.start

    @property
    def section_end(self) -> int:
        """End offset in the section."""
        return (self.chunk.start_char or 0) + self.end

    @property
    def text(self) -> str:
        """The passage text."""
        return self.chunk.text[self.start : self.end]


def chunk_index(text: str) -> ChunkIndex:
    """The window index of one chunk text (memoised by content, bounded)."""
    cached = _INDEXES.get(text)
    if cached is None:
        spans = []
        for match in _CHUNK_SENTENCE.finditer(text):
            start, end = match.span()
            spans.append((start, start + len(match.group().rstrip())))
        bits: dict[str, int] = {}
        masks = []
        for terms in span_terms(text, spans):
            mask = 0
            for term in terms:
                bit = bits.get(term)
                if bit is None:
                    bit = bits[term] = 1 << len(bits)
                mask |= bit
            masks.append(mask)
        cached = ChunkIndex(spans, masks, bits)
        if len(_INDEXES) >= _MEMO_LIMIT:
            _INDEXES.clear()
        _INDEXES[text] = cached
    return cached


def best_sentence(want: int, index: ChunkIndex) -> tuple[int, int]:
    """`(window, overlap)`: the chunk sentence sharing most bits of `want` (first on ties);
    `(-1, -1)` for a chunk without text."""
    masks = index.masks
    if not masks:
        return -1, -1
    overlaps = [(want & mask).bit_count() for mask in masks]
    best = max(range(len(masks)), key=overlaps.__getitem__)
    return best, overlaps[best]


def widen(want: int, index: ChunkIndex, window: int) -> tuple[int, int, int]:
    """`(start, end, bits covered)` of `window` widened by its neighbours (next first) while
    each adds terms and the passage stays within `MAX_PASSAGE_CHARS` and
    `MAX_WINDOW_SENTENCES`."""
    masks, spans = index.masks, index.spans
    covered = want & masks[window]
    start, end = spans[window]
    first = last = window
    for k in (window + 1, window + 2, window - 1, window - 2):
        if covered == want or last - first + 1 >= MAX_WINDOW_SENTENCES:
            break
        if not 0 <= k < len(masks) or not (k == last + 1 or k == first - 1):
            continue
        gained = want & masks[k] & ~covered
        new_start, new_end = min(start, spans[k][0]), max(end, spans[k][1])
        if gained and new_end - new_start <= MAX_PASSAGE_CHARS:
            covered |= gained
            start, end = new_start, new_end
            first, last = min(first, k), max(last, k)
    return start, end, covered.bit_count()


def citing_sentence_terms(text: str, extracted: Extracted, wanted: set[int]) -> dict[int, set[str]]:
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
    return {sentence.index: found for sentence, found in zip(chosen, terms, strict=True)}


def supporting_passages(
    text: str,
    extracted: Extracted,
    sources: Sequence[Source],
    passage_sources: Sequence[int],
) -> list[Passage]:
    """The best passage per (sentence, validly cited source in `passage_sources`), ordered
    by the source's place in `passage_sources` (score order, capped), then by sentence."""
    by_index = {source.index: source for source in sources}
    citing = extracted.sentences_by_source()
    wanted = {i for index in passage_sources for i in citing.get(index, ())}
    terms = citing_sentence_terms(text, extracted, wanted) if wanted else {}
    found: list[Passage] = []
    for source_index in passage_sources:
        source = by_index.get(source_index)
        if source is None or not source.chunks or source_index not in citing:
            continue
        indexes = [chunk_index(chunk.text) for chunk in source.chunks]
        for sentence_index in citing[source_index]:
            sentence_terms = terms[sentence_index]
            best = (0, -1, -1, 0)  # chunk position, window, overlap, want
            for position, index in enumerate(indexes):
                want = index.mask(sentence_terms)
                window, overlap = best_sentence(want, index)
                if overlap > best[2]:
                    best = (position, window, overlap, want)
            position, window, _, want = best
            start, end, covered = (
                widen(want, indexes[position], window) if window >= 0 else (0, 0, 0)
            )
            score = covered / len(sentence_terms) if sentence_terms else 0.0
            chunk = source.chunks[position]
            found.append(Passage(sentence_index, source_index, chunk, position, start, end, score))
    return found
