"""Past forms of verbs, by language (services.text.verbs)."""

from __future__ import annotations

from services.text.lexical import term_list
from services.text.verbs import may_hold, past_forms


def _past(word: str, language: str = "en") -> bool:
    return past_forms([word], term_list([word], language), [0], language) == [0]


def test_english_regular_and_irregular_past_forms() -> None:
    for word in ("died", "vied", "appointed", "implicated", "became", "wrote", "held"):
        assert _past(word), word


def test_undetermined_text_reads_as_english() -> None:
    """Its terms are English's (services.text.lexical): so are its past forms."""
    assert _past("died", "und")


def test_english_words_that_only_end_as_past_forms_do() -> None:
    for word in ("need", "speed", "red", "bed", "left", "born", "editor", "deputy"):
        assert not _past(word), word


def test_only_the_numbers_asked_about() -> None:
    words = ["he", "appointed", "and", "died", "named"]
    assert past_forms(words, term_list(words, "en"), [0, 1, 2, 4], "en") == [1, 4]
    assert past_forms(words, term_list(words, "en"), [0, 2], "en") == []


def test_an_atom_may_hold_one_only_with_an_ed_word_or_an_irregular_term() -> None:
    """The quick test reads the folded atom (`-ed` before a space or at its end) and the
    lacking terms (an irregular form's), in C."""
    assert may_hold("he was appointed deputy", frozenset({"deputi"}), "en")
    assert may_hold("he was named", frozenset({"name"}), "und")
    assert may_hold("he became deputy", frozenset(term_list(["became"], "en")), "en")
    assert not may_hold("he became deputy", frozenset({"deputi"}), "en")
    assert not may_hold("the editor of the review", frozenset({"editor"}), "en")
    assert not may_hold("il a été nommé", frozenset({"nomm"}), "fr")


def test_no_rule_in_a_language_whose_endings_do_not_tell_past_forms() -> None:
    assert not _past("dirigé", "fr")
    assert not _past("gegründet", "de")
    assert not _past("appointed", "fr")
