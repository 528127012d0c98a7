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
from services.text.lexical import span_terms, text_terms

MAX_PASSAGE_CHARS = 600
MAX_WINDOW_SENTENCES = 3
# Chunk sentences for passage windows: a cheap split after terminal punctuation.
_CHUNK_SENTENCE = re.compile(r"\S.*?(?:[.!?]+[\"'”’)\]]*(?=\s|$)|\n|$)", re.DOTALL)
_MEMO_LIMIT = 4_096
_WINDOWS: dict[str, list[tuple[int, int, set[str]]]] = {}


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


def chunk_windows(text: str) -> list[tuple[int, int, set[str]]]:
    """`(start, end, content terms)` of each sentence of a chunk (memoised by content)."""
    cached = _WINDOWS.get(text)
    if cached is None:
        spans = [m.span() for m in _CHUNK_SENTENCE.finditer(text)]
        spans = [(start, len(text[:end].rstrip())) for start, end in spans]
        cached = [(s, e, terms) for (s, e), terms in zip(spans, span_terms(text, spans))]
        if len(_WINDOWS) >= _MEMO_LIMIT:
            _WINDOWS.clear()
        _WINDOWS[text] = cached
    return cached


def source_windows(source: Source) -> list[tuple[int, int, int, set[str]]]:
    """`(chunk position, start, end, terms)` of every chunk sentence of a source."""
    return [
        (position, start, end, terms)
        for position, chunk in enumerate(source.chunks)
        for start, end, terms in chunk_windows(chunk.text)
    ]


def best_window(
    wanted: set[str], windows: list[tuple[int, int, int, set[str]]]
) -> tuple[int, int, int, float]:
    """`(chunk position, start, end, score)`: the chunk sentence sharing most of `wanted`
    (the first on ties), widened by its neighbours in the same chunk while they add terms and
    the passage stays within `MAX_PASSAGE_CHARS`."""
    overlaps = [len(wanted & window[3]) for window in windows]
    first = last = max(range(len(windows)), key=overlaps.__getitem__)
    position, start, end, terms = windows[first]
    covered = wanted & terms
    for step in (1, -1):
        while last - first + 1 < MAX_WINDOW_SENTENCES:
            k = (last if step > 0 else first) + step
            if not 0 <= k < len(windows) or windows[k][0] != position:
                break
            gained = (wanted & windows[k][3]) - covered
            new_start, new_end = min(start, windows[k][1]), max(end, windows[k][2])
            if not gained or new_end - new_start > MAX_PASSAGE_CHARS:
                break
            covered |= gained
            start, end = new_start, new_end
            first, last = min(first, k), max(last, k)
    return position, start, end, len(covered) / len(wanted) if wanted else 0.0


def sentence_terms(text: str, extracted: Extracted, sentence_index: int) -> set[str]:
    """Content terms of a sentence with its citation markers left out."""
    sentence = extracted.sentences[sentence_index]
    pieces = []
    done = sentence.start
    for k in sorted({extracted.citations[i].cluster_index for i in sentence.citations}):
        cluster = extracted.clusters[k]
        pieces.append(text[done : cluster.start])
        done = cluster.end
    pieces.append(text[done : sentence.end])
    return text_terms(" ".join(pieces))


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
    terms: dict[int, set[str]] = {}
    found: list[Passage] = []
    for source_index in passage_sources:
        source = by_index.get(source_index)
        windows = source_windows(source) if source is not None else []
        if not windows:
            continue
        for sentence_index in citing.get(source_index, ()):
            wanted = terms.get(sentence_index)
            if wanted is None:
                wanted = terms[sentence_index] = sentence_terms(text, extracted, sentence_index)
            position, start, end, score = best_window(wanted, windows)
            chunk = source.chunks[position]
            found.append(Passage(sentence_index, source_index, chunk, position, start, end, score))
    return found
