"""Past forms of verbs, by language (services.text.verbs)."""

from __future__ import annotations

from services.text.lexical import term_list
from services.text.verbs import past_form


def _past(word: str, language: str = "en") -> bool:
    return past_form(word, term_list([word], language)[0], language)


def test_english_regular_and_irregular_past_forms() -> None:
    for word in ("died", "vied", "appointed", "implicated", "became", "wrote", "held"):
        assert _past(word), word


def test_undetermined_text_reads_as_english() -> None:
    """Its terms are English's (services.text.lexical): so are its past forms."""
    assert _past("died", "und")


def test_english_words_that_only_end_as_past_forms_do() -> None:
    for word in ("need", "speed", "red", "bed", "left", "born", "editor", "deputy"):
        assert not _past(word), word


def test_no_rule_in_a_language_whose_endings_do_not_tell_past_forms() -> None:
    assert not _past("dirigé", "fr")
    assert not _past("gegründet", "de")
    assert not _past("appointed", "fr")
