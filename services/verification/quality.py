"""Answer-level citation quality as ALCE defines it (Gao et al., 2023, §2.2 / its eval code).

- Citation recall: a sentence scores 1 when its cited sources together support it (a
  sentence with no valid citation scores 0); the answer's recall is the mean over sentences.
- Citation precision: of every sentence's citations (at most the first three distinct
  sources, as ALCE), a citation counts when its sentence is supported and it is not
  irrelevant; it is irrelevant when it does not support the sentence alone and the sentence's
  other citations still support it without it.
- Sentences verbatim in a cited source are supported by it by construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.verification.memo import Judgements

MAX_CITATIONS_PER_SENTENCE = 3


@dataclass(slots=True)
class SentenceClaim:
    """A sentence of the answer (markers removed) and the sources it validly cites."""

    index: int
    text: str
    cited: tuple[int, ...]  # distinct, in order of appearance


@dataclass(slots=True)
class CitationQuality:
    """ALCE recall and precision of one answer, with their counts."""

    sentences: int
    sentences_uncited: int
    sentences_supported: int
    citations: int
    citations_precise: int

    @property
    def citation_recall(self) -> float:
        """Share of sentences their citations support."""
        return self.sentences_supported / self.sentences if self.sentences else 0.0

    @property
    def citation_precision(self) -> float:
        """Share of (at most three per sentence) citations that are relevant and supporting."""
        return self.citations_precise / self.citations if self.citations else 0.0

    @property
    def uncited_sentence_share(self) -> float:
        """Share of sentences without a valid citation."""
        return self.sentences_uncited / self.sentences if self.sentences else 0.0


def citation_quality(
    sentences: Sequence[SentenceClaim],
    judgements: Judgements,
    verbatim: Mapping[int, frozenset[int]],
    uncited: int = 0,
) -> CitationQuality:
    """ALCE citation recall and precision of an answer's `sentences`; `verbatim` maps a
    sentence index to the sources that hold the sentence verbatim; `uncited` more
    sentences have no valid citation (and are not listed)."""
    refs = {s.index: s.cited[:MAX_CITATIONS_PER_SENTENCE] for s in sentences}
    texts = {s.index: s.text for s in sentences}

    def supported(index: int, sources: tuple[int, ...]) -> bool:
        if not verbatim.get(index, frozenset()).isdisjoint(sources):
            return True
        return judgements.supports((texts[index], sources))

    # Three rounds, each one batch for the judge: together, each alone, the others.
    judgements.prefetch(
        (texts[i], cited)
        for i, cited in refs.items()
        if cited and verbatim.get(i, frozenset()).isdisjoint(cited)
    )
    joint = {i: bool(cited) and supported(i, cited) for i, cited in refs.items()}
    several = [i for i, cited in refs.items() if joint[i] and len(cited) > 1]
    judgements.prefetch((texts[i], (source,)) for i in several for source in refs[i])
    judgements.prefetch(
        (texts[i], _without(refs[i], source))
        for i in several
        for source in refs[i]
        if not supported(i, (source,))
    )
    precise = 0
    for i, cited in refs.items():
        if not joint[i]:
            continue
        if len(cited) == 1:
            precise += 1
            continue
        precise += sum(
            supported(i, (source,)) or not supported(i, _without(cited, source))
            for source in cited
        )
    return CitationQuality(
        sentences=len(sentences) + uncited,
        sentences_uncited=sum(not cited for cited in refs.values()) + uncited,
        sentences_supported=sum(joint.values()),
        citations=sum(map(len, refs.values())),
        citations_precise=precise,
    )


def with_single_citations(
    quality: CitationQuality, sentences: int, supported: int
) -> CitationQuality:
    """`quality` with `sentences` more that each cite one source, `supported` of them
    supported (or verbatim in it): ALCE counts each as one citation, precise when its
    sentence is supported."""
    return CitationQuality(
        sentences=quality.sentences + sentences,
        sentences_uncited=quality.sentences_uncited,
        sentences_supported=quality.sentences_supported + supported,
        citations=quality.citations + sentences,
        citations_precise=quality.citations_precise + supported,
    )


def _without(cited: tuple[int, ...], source: int) -> tuple[int, ...]:
    return tuple(other for other in cited if other != source)

