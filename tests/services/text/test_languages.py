"""The language of a text and the language of its words (services.text.languages)."""

from __future__ import annotations

import string
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from services.text.languages import (
    ENGLISH_MARKS,
    _HEAD,
    UNDETERMINED,
    _detect,
    _tokens,
    language_of,
    read_as_tokens,
)
from services.text.lexical import tokens_language, words

# Words of several languages (function words among them), numbers and punctuation.
_PIECES = """the of and is was der die und nicht mit ist le la les et est une el los
    que y por con para een het van sie wir film river 2014 12 3 x , . ; - ( ) " ' :
    Berlin Madrid review data""".split()


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map(" ".join))
def test_ascii_words_read_as_the_text(text: str) -> None:
    assert read_as_tokens(text)
    assert language_of(text) == tokens_language(words(text))


@given(st.text(alphabet=string.printable, max_size=200))
def test_any_ascii_text_reads_as_its_words(text: str) -> None:
    assert read_as_tokens(text)
    assert language_of(text) == tokens_language(words(text))


def test_the_languages_its_words_tell() -> None:
    cases = {
        "The film was released in 2014.": "en",
        "Der Film ist nicht mit der Kritik und die Zuschauer gut": "de",
        "2014, 12 - 3": UNDETERMINED,
        "Berlin Madrid": UNDETERMINED,
    }
    for text, language in cases.items():
        assert read_as_tokens(text)
        assert language_of(text) == tokens_language(words(text)) == language


def test_other_texts_are_not_said_to_read_alike() -> None:
    # Non-ASCII text is detected from its script and letters, its words from units; a
    # script read from a part of a long text may miss letters its words have.
    assert not read_as_tokens("Der Fluss führt Hochwasser")
    assert not read_as_tokens("北京")
    assert not read_as_tokens("0 " * 2_000 + "der die und ist nicht mit")


# Words whose case, script or glued punctuation a tokenizer may read otherwise, and a word
# that starts with a mark.
_TRICKY = """THE The İS THİS ΣΑΣ Σ “the” the—of (the theory é ſ \u212a ha\u00a0the x_the""".split()


@settings(deadline=None)  # (the first non-ASCII text loads the language model)
@given(st.lists(st.sampled_from(_PIECES + _TRICKY), max_size=60).map(" ".join))
def test_a_text_reads_as_all_its_tokens_read(text: str) -> None:
    # (a text tokenized here is told English by the words of its head when they show a
    # mark, its other words not read; its tokens given, all of them are read)
    assert _detect(text, None, None) == _detect(text, _tokens(text), None)


def test_a_word_cut_at_the_end_of_the_head_is_not_read_as_a_mark() -> None:
    text = "Zeta " * 22 + "Omega! theory review data"
    assert text[:_HEAD].endswith(" the")
    assert _detect(text, None, None) == UNDETERMINED


def test_no_other_character_lowercases_to_a_letter_of_a_mark() -> None:
    letters = set("".join(ENGLISH_MARKS))
    others = (chr(code).lower() for code in range(128, sys.maxunicode + 1))
    assert not any(lower.isascii() and lower in letters for lower in others)
