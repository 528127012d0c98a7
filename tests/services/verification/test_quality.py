"""ALCE citation recall and precision (services.verification.quality)."""

from __future__ import annotations

from services.verification.judges import LEXICAL
from services.verification.memo import Judgements
from services.verification.quality import SentenceClaim, citation_quality
from services.verification.sources import source_view
from services.verification.verify import verify
from tests.services.verification.test_verdicts import OTHER, SOURCE

SOURCES = {
    1: SOURCE,
    2: OTHER,
    3: "Gustave Eiffel was a French civil engineer born in Dijon.",
    4: "Paris is the capital of France.",
}


def _quality(sentences: list[SentenceClaim], verbatim: dict[int, frozenset[int]] | None = None):
    views = {n: source_view([text]) for n, text in SOURCES.items()}
    return citation_quality(sentences, Judgements(LEXICAL, views.get), verbatim or {})


def test_recall_precision_and_uncited_share() -> None:
    quality = _quality(
        [
            # supported by its one citation: recalled, 1 of 1 precise
            SentenceClaim(0, "The Eiffel Tower was completed in 1889 for the World's Fair.", (1,)),
            # supported by [2] alone; [1] does not support it and [2] still does: irrelevant
            SentenceClaim(1, "Mount Everest rises 8,849 metres above sea level.", (2, 1)),
            # no citation: recall 0
            SentenceClaim(2, "Climbers usually attempt the summit in May.", ()),
            # cited but not supported: recall 0, precision 0 of 1
            SentenceClaim(3, "Pigs can fly over the moon at night.", (1,)),
        ]
    )
    assert (quality.sentences, quality.sentences_uncited, quality.sentences_supported) == (4, 1, 2)
    assert (quality.citations, quality.citations_precise) == (4, 2)
    assert quality.citation_recall == 0.5
    assert quality.citation_precision == 0.5
    assert quality.uncited_sentence_share == 0.25


def test_citations_needed_together_are_all_precise() -> None:
    """Neither source supports the sentence alone, together they do: both count."""
    quality = _quality(
        [SentenceClaim(0, "Gustave Eiffel, a French civil engineer born in Dijon, designed the "
                          "330 metres tower.", (1, 3))]
    )
    assert quality.sentences_supported == 1
    assert (quality.citations, quality.citations_precise) == (2, 2)


def test_at_most_three_citations_per_sentence_count() -> None:
    quality = _quality(
        [SentenceClaim(0, "The Eiffel Tower was completed in 1889 for the World's Fair.",
                       (1, 2, 3, 4))]
    )
    assert quality.citations == 3
    # [1] supports alone; [2] and [3] do not and [1] still does without them: irrelevant
    assert quality.citations_precise == 1


def test_a_verbatim_sentence_is_supported_by_its_source() -> None:
    quality = _quality(
        [SentenceClaim(0, "Words the lexical check would never accept here.", (4,))],
        verbatim={0: frozenset({4})},
    )
    assert (quality.sentences_supported, quality.citations_precise) == (1, 1)


def test_no_sentences() -> None:
    quality = _quality([])
    assert (quality.citation_recall, quality.citation_precision) == (0.0, 0.0)
    assert quality.uncited_sentence_share == 0.0


def test_an_answer_with_nothing_to_judge_counts_its_uncited_sentences() -> None:
    """`verify` without claims or sentences (the spans stage decided every citation) gives
    the quality `citation_quality` gives for no sentences."""
    views = {n: source_view([text]) for n, text in SOURCES.items()}
    for uncited in (0, 4):
        expected = citation_quality([], Judgements(LEXICAL, views.get), {}, uncited)
        found = verify([], [], list(SOURCES), views.get, {}, LEXICAL, None, uncited).quality
        assert found == expected
        assert (found.sentences, found.sentences_uncited) == (uncited, uncited)
