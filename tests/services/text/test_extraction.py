"""The extraction's sentence words: read from the text with its separators folded and its
markers blanked, the same as reading each sentence alone."""

from __future__ import annotations

import re

import pytest

from schemas.answers import Source
from services.text.extraction import extract
from services.text.lexical import text_terms, words

SOURCES = [Source(index=i, doc_id=f"d{i}", title="t") for i in (1, 2, 3)]


@pytest.mark.parametrize("text", [
    "Cats purr loudly [1]. Dogs bark at 2 cats [2][3]. Birds sing.",
    "The study states that \u201cspan. Broker record\u201d [1]. Latency \u2014 stream [2].",
    "Die Katze ist sehr gro\u00df und die Hunde sind klein [1]. Cats purr \u201cloudly\u201d [2].",
    # few function words, not ASCII: detected (German), not read as English
    "Gr\u00f6\u00dfere H\u00e4user \u00fcberall gebaut [1]. Cats \u201cpurr\u201d [2].",
    "Le chat \u00abdort\u00bb sur le canap\u00e9 et la maison est calme [3]. Plain words here [1].",
])
def test_sentence_words_are_those_of_each_sentence_alone(text: str) -> None:
    extracted = extract(text, SOURCES)
    for sentence in extracted.sentences:  # asked one by one: each reads the same text
        alone = re.sub(r"\[\d+\]", " ", sentence.text)
        assert extracted.sentence_tokens(sentence.index) == words(alone)
        assert extracted.sentence_terms([sentence.index])[sentence.index] == text_terms(alone)


def test_a_text_folding_to_ascii_holds_no_stop_of_another_script() -> None:
    """What `plain` lets the segmenter and the marker finder skip cannot be in such a text."""
    from services.text.marker_styles import _RARE_STARTS
    from services.text.separators import fold_punctuation
    from services.text.sentences import _CONTEXT_STOPS, _STOPS

    skipped = _STOPS + _CONTEXT_STOPS.replace(":", "").replace(";", "") + _RARE_STARTS
    assert [c for c in skipped.replace("<", "") if fold_punctuation(c).isascii()] == []


@pytest.mark.parametrize("text", [
    "Cats \u201cpurr.\u201d Dogs: bark; loudly [1]. Birds\u2026 sing <sup>2</sup>. End \u2014 here.",
    "\u00abQuoi ?\u00bb dit-il ; \u2018Non.\u2019 Fin : oui. Note\u00a0: [2][3].",
    "Steps \u2014 \u2022 mix (slowly. then) \u2022 bake [1] \u201eGut.\u201c Done.",
    "Intro \u201cnote\u201d:\n1. First step. Then rest [2].\n2. Second \u00bbja.\u00ab step.",
])
def test_the_plain_scans_find_what_the_full_ones_do(text: str) -> None:
    from services.text.lists import list_breaks
    from services.text.markers import find_markers
    from services.text.protected import protected_intervals
    from services.text.separators import fold_punctuation
    from services.text.sentences import split_sentences

    assert fold_punctuation(text).isascii()
    assert split_sentences(text, plain=True) == split_sentences(text)
    assert protected_intervals(text, plain=True) == protected_intervals(text)
    assert list_breaks(text, plain=True) == list_breaks(text)
    sources = [vars(source) for source in SOURCES]
    assert find_markers(text, sources, [], plain=True) == find_markers(text, sources, [])
