"""Supporting passages: for each sentence and each eligible source it
cites, the window of that source's chunks that best supports the sentence.

Support is lexical: the share of the sentence's content terms (citation markers removed) that
the window contains. A window is the best chunk sentence, widened by its neighbours in the
chunk when they add terms (at most three sentences, `MAX_PASSAGE_CHARS` long). Offsets are
in the chunk's section when the chunk's `start_char` is known, otherwise in the chunk (which
is then its own section).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import lshift
from typing import Any

from schemas.answers import Chunk, Source
from services.citations.checks import (
    SentenceCheck,
    check_values,
    reads_as_is,
    sentence_check,
    source_numbers,
    unchecked,
)
from services.text.extraction import Extracted
from services.text.lexical import NO_NAMES, name_terms, span_tokens, terms_of_each, words
from services.text.protected import positions
from services.verification.claims import NEGATING, negates, numbers_of

MAX_PASSAGE_CHARS = 600
# A chunk sentence ends after a run of terminal punctuation (then closing quotes and brackets)
# that whitespace or the end follows, or at a line break. Candidate ends are the positions of
# `_CHUNK_ENDS`; `_RUN` finds where a run goes on to (past `_RUN_GOES_ON` characters).
_CHUNK_ENDS = "\n.!?"
_RUN_GOES_ON = ".!?\"'”’)]"
_RUN = re.compile(r"[.!?]*[\"'”’)\]]*")
_NON_BLANK = re.compile(r"\S")
_MEMO_LIMIT = 1_024
MAX_COLUMN_TERMS = 255  # a sentence with more terms could overflow a column byte
MAX_COLUMN_WINDOWS = (
    256  # larger sources keep only their masks (columns cost 8x the memory)
)


@dataclass(slots=True)
class SourceIndex:
    """A source's chunk sentences as windows, each with its content terms as a bitmask over
    the source's own vocabulary (set overlap becomes integer `&` and `bit_count`)."""

    windows: list[tuple[int, int, int]]  # chunk position, start, end (in the chunk)
    masks: list[int]
    bits: dict[str, int]
    negations: list[bool]  # whether each window holds a negation (for the support check)
    # Term -> one byte per window (1 where the window holds the term), and above those bytes
    # (from bit `8 * len(windows)` up) the term's bit: summing the columns of a sentence's
    # terms counts every window's overlap at once (byte i = window i) and builds the
    # sentence's mask in the same sum, while no count exceeds a byte (`MAX_COLUMN_TERMS`).
    # Built when the index is used again (`source_index`): until then `window_terms` keeps
    # what they are built from, and the overlaps are counted mask by mask.
    columns: dict[str, int] | None = None
    window_terms: list[set[str]] | None = None
    # For the support check (services.citations.checks): whether every chunk reads the
    # same in canonical form (found on first use).
    as_is: bool | None = None
    numbers: frozenset[str] | None = None  # every digit token (asked for by number claims)
    # The bits of the source's name terms (services.text.lexical.name_terms): every passage
    # holds them.
    name_mask: int = 0

    def mask(self, terms: set[str]) -> int:
        """The bitmask of `terms` in this source's vocabulary (unknown terms dropped)."""
        return sum(map(self.bits.get, terms, repeat(0)))

    def build_columns(self) -> None:
        """Fill `columns` from `window_terms` (then dropped)."""
        shift = 8 * len(self.windows)
        columns = {term: bit << shift for term, bit in self.bits.items()}
        byte = 1
        for terms in self.window_terms or ():
            for term in terms:
                columns[term] += byte
            byte <<= 8
        self.columns, self.window_terms = columns, None


_INDEXES: dict[tuple[tuple[str, ...], frozenset[str]], SourceIndex] = {}
# The first vocabulary bits, made once and shared by every index (a source of a few chunks
# has a few dozen terms; shifting each anew cost a sixth of its bitmasks' making).
_POWERS = [1 << bit for bit in range(1_024)]
# Passage scores rounded to 6 digits, by ratio: `round` with digits goes through a decimal
# string (costlier than the whole overlap search), and the few ratios of small counts recur.
_ROUNDED: dict[float, float] = {}


def clear_memo() -> None:
    """Forget every source index (benchmarks measure cold runs)."""
    _INDEXES.clear()


def chunk_sentences(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of each sentence of a chunk: from a non-blank character to the first
    terminal punctuation run after it that whitespace or the end follows (closing quotes and
    brackets included), or to the next line break, or to the end (trailing blanks left out).
    A sentence longer than `MAX_PASSAGE_CHARS` is cut into pieces that are not (`_cut`).

    The common `word. Next` is decided without a regex call (each costs more than the rest of
    the step)."""
    spans: list[tuple[int, int]] = []
    start = 0
    if not text[:1] or text[0].isspace():
        begin = _NON_BLANK.search(text)
        if begin is None:
            return spans
        start = begin.start()
    size = len(text)
    for end in positions(text, _CHUNK_ENDS):
        if end <= start:
            continue  # inside the last run, or the sentence's first character
        if text[end] == "\n":
            close = start + len(text[start:end].rstrip())
            if close - start > MAX_PASSAGE_CHARS:
                _cut(text, start, close, spans)
            else:
                spans.append((start, close))
            stop = end + 1
        else:
            stop = end + 1
            after = text[stop : stop + 1]
            if after and after in _RUN_GOES_ON:
                stop = _RUN.match(text, stop).end()  # type: ignore[union-attr]  # matches ""
                after = text[stop : stop + 1]
            if after and not after.isspace():
                continue  # `e.g.x`, `3.5`: no blank after the run
            if stop - start > MAX_PASSAGE_CHARS:
                _cut(text, start, stop, spans)
            else:
                spans.append((start, stop))
        if stop + 1 < size and text[stop] == " " and not text[stop + 1].isspace():
            start = stop + 1
        else:
            begin = _NON_BLANK.search(text, stop)
            if begin is None:
                return spans
            start = begin.start()
    close = start + len(text[start:].rstrip())
    if close - start > MAX_PASSAGE_CHARS:
        _cut(text, start, close, spans)
    else:
        spans.append((start, close))
    return spans


def _cut(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    """Append the sentence `text[start:end]` as pieces of at most `MAX_PASSAGE_CHARS`, each
    cut after its last space (or at the limit, where it has none). Every window, passage and
    evidence span is a chunk sentence or a few: without the cut, a chunk with no terminal
    punctuation was one window, carried whole in every citation's passage, link and locator
    (a 500 KB chunk cited 100 times made a 150 MB event)."""
    while end - start > MAX_PASSAGE_CHARS:
        limit = start + MAX_PASSAGE_CHARS
        space = text.rfind(" ", start + 1, limit + 1)
        cut = space if space > start else limit
        spans.append((start, start + len(text[start:cut].rstrip())))
        begin = _NON_BLANK.search(text, cut, end)
        if begin is None:
            return
        start = begin.start()
    spans.append((start, end))


def source_index(chunks: Sequence[Chunk], names: frozenset[str] = NO_NAMES) -> SourceIndex:
    """The window index of a source's chunks and name terms (memoised by them, bounded; the
    columns are added when it is used again)."""
    texts = tuple([chunk.text for chunk in chunks])
    key = (texts, names)
    cached = _INDEXES.get(key)
    if cached is not None:
        if cached.window_terms is not None:
            cached.build_columns()
        return cached
    windows: list[tuple[int, int, int]] = []
    window_terms: list[set[str]] = []
    negations: list[bool] = []
    for position, text in enumerate(texts):
        spans = chunk_sentences(text)
        windows += zip(repeat(position), *zip(*spans)) if spans else ()
        tokens = span_tokens(text, spans)
        unique = set().union(*tokens)  # (its words, each once: read by set operations)
        window_terms += terms_of_each(tokens, unique, text.isascii())
        if NEGATING.isdisjoint(unique):  # (no window of the chunk can negate)
            negations += repeat(False, len(tokens))
        else:
            negations += map(negates, tokens)
    # Bit order is free: only overlaps and their sizes are ever read.
    vocabulary = set().union(names, *window_terms)
    powers: Iterable[int] = _POWERS  # (enough for all but the largest sources)
    if len(vocabulary) > len(_POWERS):
        powers = chain(_POWERS, map(lshift, repeat(1), range(len(_POWERS), len(vocabulary))))
    bits = dict(zip(vocabulary, powers))
    masks = list(map(sum, map(map, repeat(bits.__getitem__), window_terms)))
    cached = SourceIndex(windows, masks, bits, negations)
    cached.name_mask = sum(map(bits.__getitem__, names))
    if len(windows) <= MAX_COLUMN_WINDOWS:
        cached.window_terms = window_terms
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


def _on_page(
    index: SourceIndex, chunks: Sequence[Chunk], want: int, page: int, best: int
) -> int:
    """The best window among those on `page` (a pinpoint, `[1, p. 12]`): the first with the
    most overlap with `want`; `best` when no chunk of the source is on that page."""
    on_page = [
        (-(want & index.masks[k]).bit_count(), k)
        for k, (position, _, _) in enumerate(index.windows)
        if chunks[position].page == page
    ]
    return min(on_page)[1] if on_page else best


class PassageFinder:
    """The passage search of one answer.

    A sentence's passage in a source is the chunk sentence sharing most content terms with
    the answer sentence (the first on ties; among the chunks on its page when the sentence
    pinpoints one, e.g. `[1, p. 12]`), widened by the chunk sentence after it and then the
    one before it when each adds terms and the passage stays within `MAX_PASSAGE_CHARS`.
    Offsets are in the chunk's section (see the module docstring). The search is inlined
    per source (a call per pair is a measurable share of the stage); the tests hold it to a
    plain reference implementation."""

    __slots__ = (
        "_by_index", "_checks", "_extracted", "_indexes", "_pages", "citing",
        "passage_sources", "terms",
    )

    def __init__(
        self, extracted: Extracted, sources: Sequence[Source], passage_sources: Sequence[int]
    ) -> None:
        self._extracted = extracted
        self._by_index = {source.index: source for source in sources}
        self._pages = extracted.pages
        self.passage_sources = passage_sources
        self.citing = citing = extracted.sentences_by_source()
        wanted = {i for index in passage_sources for i in citing.get(index, ())}
        self.terms = extracted.sentence_terms(wanted)  # sentence -> its content terms
        # sentence -> what the support check reads of it (None: it reads otherwise canonically)
        self._checks: dict[int, SentenceCheck | None] = {}
        self._indexes: dict[int, SourceIndex | None] = {}  # (see `_index`)

    def passages(self) -> list[dict[str, Any]]:
        """The best passage per (sentence, validly cited source in `passage_sources`),
        ordered by the source's place in `passage_sources` (score order, capped), then by
        sentence, as the field values of `schemas.citations.SupportingPassage`."""
        found: list[dict[str, Any]] = []
        citing = self.citing
        for cited in self.passage_sources:
            sentences = citing.get(cited)
            if sentences:
                self.search(cited, sentences, found)
        return found

    def held(self, cited: int, sentence: int) -> int | None:
        """How many of the content terms of `sentence` (one citing a source in
        `passage_sources`) source `cited` holds anywhere; None when it has no text."""
        index = self._index(cited)
        if index is None:
            return None
        return sum(map(index.bits.__contains__, self.terms[sentence]))

    def _index(self, cited: int) -> SourceIndex | None:
        """The index of source `cited`, looked up once per answer (a second lookup of the
        memo would count as the source's use again: see `source_index`); None when it has
        no text."""
        if cited in self._indexes:
            return self._indexes[cited]
        source = self._by_index.get(cited)
        index = (
            source_index(source.chunks, name_terms(source.title, source.authors))
            if source is not None and source.chunks
            else None
        )
        if index is not None and not index.masks:
            index = None
        self._indexes[cited] = index
        return index

    def search(self, cited: int, sentences: Sequence[int], found: list[dict[str, Any]]) -> None:
        """Append the passage of each of `sentences` (among those citing a source in
        `passage_sources`) in source `cited` to `found` (nothing when the source has no
        text)."""
        index = self._index(cited)
        if index is None:
            return
        source = self._by_index[cited]
        masks, windows, columns = index.masks, index.windows, index.columns
        extracted = self._extracted
        pages, terms, checks = self._pages, self.terms, self._checks
        append = found.append
        bit_count = int.bit_count
        count = len(masks)
        shift = 8 * count
        below = (1 << shift) - 1
        column = columns.get if columns is not None else None
        get = index.bits.get
        last = count - 1
        chunks = source.chunks
        if index.as_is is None:
            index.as_is = all(reads_as_is(chunk.text) for chunk in chunks)
        as_is = index.as_is
        flags = index.negations
        for sentence in sentences:
            sentence_terms = terms[sentence]
            if column is not None and len(sentence_terms) <= MAX_COLUMN_TERMS:
                total = sum(filter(None, map(column, sentence_terms)))
                want = total >> shift
                overlaps = (total & below).to_bytes(count, "little")
                # The first window with the most overlap: none holds more than the sentence's
                # known terms, so count down from there (`in` on bytes is a memchr, `max` a
                # comparison per window).
                most = want.bit_count()
                while most not in overlaps:
                    most -= 1
                best = overlaps.index(most)
            else:
                want = sum(filter(None, map(get, sentence_terms)))
                counts = [(want & mask).bit_count() for mask in masks]
                best = counts.index(max(counts))
            if pages and (page := pages.get((sentence, cited))) is not None:
                best = _on_page(index, chunks, want, page, best)
            position, start, end = windows[best]
            covered = want & (masks[best] | index.name_mask)
            first = final = best
            # Widen by the next chunk sentence, then the previous one (windows of a chunk
            # are in text order: the next one only moves the end, the previous the start).
            if covered != want and best < last:
                k_position, _, k_end = windows[best + 1]
                if k_position == position and k_end - start <= MAX_PASSAGE_CHARS:
                    gained = want & masks[best + 1] & ~covered
                    if gained:
                        covered |= gained
                        end = k_end
                        final = best + 1
            if covered != want and best > 0:
                k_position, k_start, _ = windows[best - 1]
                if k_position == position and end - k_start <= MAX_PASSAGE_CHARS:
                    gained = want & masks[best - 1] & ~covered
                    if gained:
                        covered |= gained
                        start = k_start
                        first = best - 1
            # the chunk's fields, read at once (attribute reads on event models are slow)
            chunk_fields = chunks[position].__dict__
            chunk_id = chunk_fields["chunk_id"]
            offset = chunk_fields["start_char"]
            if offset is None:
                section_id = chunk_id or chunk_fields["section_id"]
                offset = 0
            else:
                section_id = chunk_fields["section_id"] or chunk_id
            if sentence_terms:
                ratio = bit_count(covered) / len(sentence_terms)
                score = _ROUNDED.get(ratio)
                if score is None:
                    score = _rounded(ratio)
            else:
                score = 0.0
            passage = chunk_fields["text"][start:end]
            check = checks.get(sentence) if as_is else None
            if as_is and sentence not in checks:
                check = checks[sentence] = sentence_check(extracted, sentence)
            if check is None:
                fields = unchecked()
            else:
                numbers = None
                if check[1]:  # (the sentence's numbers)
                    if index.numbers is None:
                        index.numbers = source_numbers(chunks)
                    numbers = index.numbers, frozenset(numbers_of(words(passage)))
                fields = check_values(
                    sentence_terms,
                    check,
                    index.bits,
                    want,
                    covered,
                    True in flags[first : final + 1],  # (whether the passage negates)
                    numbers,
                )
            size, absent, lacking, lacking_items, passage_negated, conflicts = fields
            values: dict[str, Any] = {
                "citation_id": cited,
                "sentence_index": sentence,
                "source_index": cited,
                "chunk_id": chunk_id,
                "chunk_position": position,
                "section_id": section_id,
                "start_char": offset + start,
                "end_char": offset + end,
                "passage": passage,
                "score": score,
                "terms": size,
                "absent": absent,
                "lacking": lacking,
                "lacking_items": lacking_items,
                "negated": passage_negated,
                "conflicts": conflicts,
                "rival": None,  # (services.citations.rivals sets it where searched)
            }
            append(values)
