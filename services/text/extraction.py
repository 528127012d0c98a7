"""Citation extraction with sentence mapping: the reusable entry point for every stage.

`extract_answer(answer)` (or `extract(text, sources, supplied)`) finds the citations, their
clusters and problems, segments the text into sentences and links each citation to its
sentence. The scoring stage calls it to learn which sources are cited and by which
sentences; the citations stage builds its event from it; in one process it runs once per
answer for both (services/pipeline.py).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from schemas.answers import AnswerSubmitted, CitationIn, Source
from schemas.rows import field_tables
from services.text.footnotes import check_definitions, footnote_definitions
from services.text.hits import CitationHit, ClusterHit, ProblemHit, SentenceHit
from services.text.lexical import span_tokens, terms_of, without_references
from services.text.markdown import code_regions, fenced_blocks, inside
from services.text.markers import find_markers
from services.text.sentences import split_sentences
from services.text.separators import fold_punctuation
from services.text.supplied import add_supplied


@dataclass(slots=True)
class Extracted:
    """Citations, clusters, sentences and problems of one answer text.

    `cluster.citations` and `sentence.citations` hold positions in `citations`.
    """

    text: str
    citations: list[CitationHit]
    clusters: list[ClusterHit]
    sentences: list[SentenceHit]
    problems: list[ProblemHit]
    # (sentence index, source index) -> the page a pinpoint (`[1, p. 12]`) names there.
    pages: dict[tuple[int, int], int] = field(default_factory=dict)
    # Content terms and word tokens by sentence index, filled on demand by
    # `sentence_terms`; the text with citation markers blanked, the text with its
    # separators folded, whether that is ASCII, and it with the markers blanked (each made
    # on first use, or handed over by `extract`).
    _terms: dict[int, set[str]] = field(default_factory=dict, init=False, repr=False)
    _tokens: dict[int, list[str]] = field(default_factory=dict, init=False, repr=False)
    _blanked: str | None = field(default=None, init=False, repr=False)
    _folded: str | None = field(default=None, init=False, repr=False)
    _plain: bool | None = field(default=None, init=False, repr=False)
    _words_in: str | None = field(default=None, init=False, repr=False)

    def sentence_terms(self, wanted: Collection[int]) -> dict[int, set[str]]:
        """The content terms of each sentence in `wanted` (indexes), citation markers left
        out; treat the sets as read-only. The result may hold other sentences too.

        Remembered on this extraction, with the sentences' tokens (`sentence_tokens`): in
        one process scoring and citations share it (see services/pipeline.py) and tokenize
        the citing sentences once."""
        known = self._terms
        missing = [index for index in wanted if index not in known]
        if missing:
            sentences = self.sentences
            spans = [(sentences[i].start, sentences[i].end) for i in missing]
            text = self._words_text()
            tokens = list(map(without_references, span_tokens(text, spans)))
            self._tokens.update(zip(missing, tokens, strict=True))
            # (the words of an ASCII text are ASCII)
            found = map(terms_of, tokens, repeat(None), repeat(text.isascii()))
            known.update(zip(missing, found, strict=True))
        return known

    def remembered(self) -> tuple[dict[int, list[str]], dict[int, set[str]]]:
        """The tokens and terms `sentence_terms` has worked out so far, by sentence index
        (read-only)."""
        return self._tokens, self._terms

    def remember(self, tokens: dict[int, list[str]], terms: dict[int, set[str]]) -> None:
        """Take the tokens and terms of sentences worked out elsewhere (the same sentences
        in both; services/text/carry.py)."""
        self._tokens.update(tokens)
        self._terms.update(terms)

    def sentence_tokens(self, index: int) -> list[str]:
        """The word tokens (services.text.lexical.words) of sentence `index`, citation
        markers left out; treat the list as read-only."""
        found = self._tokens.get(index)
        if found is None:
            self.sentence_terms((index,))
            found = self._tokens[index]
        return found

    def without_markers(self) -> str:
        """The text with every citation marker blanked out (offsets unchanged)."""
        if self._blanked is None:
            self._blanked = self._blank(self.text)
        return self._blanked

    def _words_text(self) -> str:
        """The text the sentences' words are read from: the markers blanked in the text
        with its separators folded (`span_tokens` reads the same words in it, without
        folding it again)."""
        if self._words_in is None:
            folded = self._folded_text()
            self._words_in = (
                self.without_markers() if folded is self.text else self._blank(folded)
            )
        return self._words_in

    def _folded_text(self) -> str:
        """The text with its separators folded (`fold_punctuation`: `extract` hands it
        over; an extraction read back from its carried rows folds it on first use)."""
        if self._folded is None:
            self._folded = fold_punctuation(self.text)
        return self._folded

    def _blank(self, text: str) -> str:
        """`text` (this one's, or of its length) with every citation marker blanked."""
        return blank(text, [(c.start, c.end) for c in self.clusters])

    def folds_to_ascii(self) -> bool:
        """Whether the whole text is ASCII but for common separators
        (services.text.separators.fold_punctuation): then so is each of its sentences (one
        look at the text instead of one per sentence)."""
        if self._plain is None:
            self._plain = self._folded_text().isascii()
        return self._plain

    def sentence_citation_ids(self, sentence: SentenceHit) -> list[int]:
        """Sorted unique ids of every citation (valid or not) inside `sentence`."""
        citations = self.citations
        return sorted({citations[i].id for i in sentence.citations})

    def sentences_by_source(self) -> dict[int, list[int]]:
        """Source index -> indexes of the sentences citing it validly (ascending, unique)."""
        found: dict[int, list[int]] = {}
        citations = self.citations
        for sentence in self.sentences:
            for i in sentence.citations:
                citation = citations[i]
                if citation.valid and citation.source_index is not None:
                    indexes = found.setdefault(citation.source_index, [])
                    if not indexes or indexes[-1] != sentence.index:
                        indexes.append(sentence.index)
        return found


def blank(text: str, ranges: Sequence[tuple[int, int]]) -> str:
    """`text` with every `[start, end)` of `ranges` (in text order; they may overlap)
    replaced by spaces: offsets unchanged. With the clusters' ranges, every citation marker
    is blanked (a cluster holds its citations' markers)."""
    pieces: list[str] = []
    done = 0
    for start, end in ranges:
        start = max(start, done)
        if start < end:
            pieces += (text[done:start], " " * (end - start))
            done = end
    pieces.append(text[done:])
    return "".join(pieces)


def extract_answer(answer: AnswerSubmitted) -> Extracted:
    """`extract` of an answer: its text, its sources and the citations it brings as spans."""
    return extract(answer.text, answer.sources, answer.citations, answer.language)


def extract(
    text: str,
    sources: Sequence[Any],
    supplied: Sequence[CitationIn] | None = None,
    language: str | None = None,
) -> Extracted:
    """Find every citation of `text`, resolve it against `sources`, add the `supplied` span
    citations, and map each to its sentence (`language`, a BCP 47 tag, is a hint).

    `sources`: `Source` models, or (without `supplied`) their field values as a record read
    back holds them (`schemas.rows`)."""
    code = code_regions(text)
    definitions = footnote_definitions(text)
    # Nothing inside a footnote definition is a citation or a sentence of the answer.
    notes = [(start, end) for start, end, _ in definitions]
    # (made here for `Extracted.sentence_terms`: a text that folds to ASCII holds no rarer
    # marker but `<sup>` and no full stop of another script, whose scans are skipped)
    folded = fold_punctuation(text)
    plain = folded.isascii()
    citations, clusters, problems = find_markers(
        text,
        field_tables(Source, list(sources)),
        sorted(code + notes) if notes else code,
        plain=plain,
    )
    if supplied:
        add_supplied(text, sources, supplied, citations, clusters, problems)
    spans = split_sentences(
        text,
        # zero-width markers of span citations are no markers for the segmenter
        [(c.start, c.end) for c in clusters if c.end > c.start],
        code,
        fenced_blocks(text) if code else [],
        language=language,
        plain=plain,
    )
    if definitions:
        spans = [span for span in spans if not inside(notes, span[0])]
        problems += check_definitions(text, definitions, sources)
    sentences = [
        SentenceHit(i, start, end, text[start:end]) for i, (start, end) in enumerate(spans)
    ]
    if supplied:
        split = split_by_sentence(text, supplied, spans)
        if split is not None:  # the sentences stay the same: zero-width points are no markers
            return extract(text, sources, split, language)
    pages: dict[tuple[int, int], int] = {}
    _assign(citations, sentences, pages)
    found = Extracted(text, citations, clusters, sentences, problems, pages)
    found._folded, found._plain = folded, plain
    return found


def split_by_sentence(
    text: str, supplied: Sequence[CitationIn], spans: Sequence[tuple[int, int]]
) -> list[CitationIn] | None:
    """The span citations with each one over several sentences cut into one per sentence
    (each cites its own sentence, with its chip after it); None when none spans two."""
    out: list[CitationIn] = []
    changed = False
    for cited in supplied:
        if cited.visible or cited.start >= cited.end:
            out.append(cited)
            continue
        parts = [(max(cited.start, start), min(cited.end, end)) for start, end in spans
                 if start < cited.end and cited.start < end]
        parts = [(start, end) for start, end in parts if not text[start:end].isspace()]
        if len(parts) < 2:
            out.append(cited)
            continue
        changed = True
        out += [cited.model_copy(update={"start": start, "end": end}) for start, end in parts]
    return out if changed else None


def _assign(
    citations: list[CitationHit],
    sentences: list[SentenceHit],
    pages: dict[tuple[int, int], int],
) -> None:
    """Attach each citation to the last sentence starting at or before it; a span citation
    to every sentence its span reaches (its own is the one holding its last character).
    Record the page of each valid pinpoint in `pages`."""
    if not sentences:
        return
    s = 0
    last = len(sentences) - 1
    starts: list[int] | None = None
    for i, citation in enumerate(citations):
        while s < last and sentences[s + 1].start <= citation.start:
            s += 1
        if citation.page is not None and citation.source_index is not None:
            pages[s, citation.source_index] = citation.page
        if citation.span_start is None:
            citation.sentence_index = s
            sentences[s].citations.append(i)
            continue
        if starts is None:
            starts = [sentence.start for sentence in sentences]
        reached = _reached(starts, sentences, citation.span_start, citation.start)
        citation.sentence_index = reached[-1]
        citation.sentence_indexes = reached
        for k in reached:
            sentences[k].citations.append(i)


def _reached(
    starts: list[int], sentences: list[SentenceHit], start: int, point: int
) -> list[int]:
    """Indexes of the sentences overlapping `[start, point)` (the one holding `point` when
    the span is empty)."""
    last = max(bisect_right(starts, max(point - 1, start)) - 1, 0)
    first = max(bisect_right(starts, start) - 1, 0)
    if first < last and sentences[first].end <= start:
        first += 1  # the span starts in the blank after that sentence
    return list(range(first, last + 1))
