"""The lexical toolkit: tokenizer, content terms, memoised statistics and BM25."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.text import lexical
from services.text.lexical import (
    Document,
    analyse,
    bm25,
    fold_punctuation,
    span_terms,
    stem,
    terms_of,
    terms_of_each,
    text_terms,
    words,
)

REFERENCE = re.compile(r"[^\W_]+")


def test_words_are_lowercase_runs_of_letters_and_digits() -> None:
    text = "The U.S. study_2 (2019) found 3.5% “more” cases—e.g. naïve café’s"
    assert words(text) == [
        "the", "u", "s", "study", "2", "2019", "found", "3", "5", "more", "cases", "e", "g",
        "naïve", "café", "s",
    ]
    assert words("") == [] and words(" \t\n ") == []
    assert words("東京 is → big") == ["東京", "is", "big"]


@given(st.text(alphabet=st.characters(max_codepoint=0x7F) | st.sampled_from("“”‘’—–…•·\u00a0\u2009")))
def test_fast_paths_tokenize_like_the_reference_regex(text: str) -> None:
    # ASCII words (common typographic separators between them) read as plain regex words.
    assert words(text) == REFERENCE.findall(text.lower())


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))))
def test_any_text_tokenizes_into_lowercase_units(text: str) -> None:
    for unit in words(text):
        assert unit and unit == unit.lower() or not unit.isalpha()
        assert "_" not in unit


@given(st.text(alphabet="ab é.,“”‘’—–…•·\u00a0\u2009x"))
def test_fold_punctuation_keeps_length_and_words(text: str) -> None:
    folded = fold_punctuation(text)
    assert len(folded) == len(text)
    assert REFERENCE.findall(folded.lower()) == REFERENCE.findall(text.lower())


@pytest.mark.parametrize(
    ("first", "second"),
    [("studies", "study"), ("cases", "case"), ("goes", "go"), ("running", "run"),
     ("considered", "considers"), ("glaciers", "glacier"), ("went", "go")],
)
def test_stem_folds_english_inflection(first: str, second: str) -> None:
    assert stem(first) == stem(second)


@pytest.mark.parametrize(("first", "second"), [("glass", "glad"), ("virus", "viral"), ("data", "date")])
def test_stem_keeps_other_words_apart(first: str, second: str) -> None:
    assert stem(first) != stem(second)


def test_content_terms_drop_stopwords_and_single_characters() -> None:
    assert text_terms("The studies of a cohort, and the Cohort's results: x") == {
        stem("study"), "cohort", "result",
    }
    assert text_terms("Moreover, according to the report, it is important") == set()
    assert terms_of([]) == set() and text_terms("the of and") == set()


def test_span_terms_match_each_slice() -> None:
    text = "Magma “rises” [1]. The crusts crack — often. Tides, moons."
    spans = [(0, 18), (19, 44), (45, len(text)), (5, 5)]
    assert span_terms(text, spans) == [text_terms(text[a:b]) for a, b in spans]
    mixed = "naïve 東京 cafés. Other."
    assert span_terms(mixed, [(0, 15)]) == [text_terms(mixed[:15])]
    assert "東京" in text_terms(mixed[:15])


# English, German, French and Spanish function words, content words and non-ASCII words:
# token lists that read as English together, and lists where some read as another language.
MIXED = ["the", "of", "cases", "studies", "der", "die", "und", "nicht", "le", "les", "et",
         "pas", "el", "los", "y", "häuser", "straße", "café", "glaciers", "a", "1999"]


@given(st.lists(st.lists(st.sampled_from(MIXED), max_size=10), max_size=6))
def test_terms_of_each_match_terms_of_each_list(tokens: list[list[str]]) -> None:
    unique = set().union(*tokens)
    expected = [terms_of(surface) for surface in tokens]
    assert terms_of_each(tokens, unique) == expected
    if all(map(str.isascii, unique)):
        assert terms_of_each(tokens, unique, ascii=True) == expected


def test_analyse_counts_terms_and_is_memoised() -> None:
    stats = analyse("Cases and more cases: the case of the studies.")
    assert stats.length == 9
    assert stats.counts == {"case": 3, stem("study"): 1}
    assert stats.terms == {"case", stem("study")}
    assert analyse("Cases and more cases: the case of the studies.") is stats
    lexical.clear_memo()
    again = analyse("Cases and more cases: the case of the studies.")
    assert again is not stats and again == stats


def _reference_counts(text: str) -> Counter[str]:
    """Term counts the plain way: every token's term, one by one."""
    counts = Counter(lexical._term(word) for word in REFERENCE.findall(text.lower()))
    del counts[""]
    return counts


TRICKY = ["in", "ins", "we", "wes", "case", "cases", "studies", "study", "the", "a", "glass", "é"]


@given(st.lists(st.sampled_from(TRICKY), max_size=12), st.booleans())
def test_analyse_and_span_terms_match_the_plain_reference(picked: list[str], forget: bool) -> None:
    # Terms spelt like other surface words ("ins" -> "in", a stopword) must not mix counts.
    if forget:
        lexical.clear_memo()
    text = " ".join(["the", *picked])  # English: its terms are `_term`'s
    lexical._TEXTS.pop(text, None)
    stats = analyse(text)
    assert stats.counts == _reference_counts(text)
    assert stats.terms == set(_reference_counts(text))
    assert stats.length == len(picked) + 1
    assert span_terms(text, [(0, len(text))]) == [set(_reference_counts(text))]


def test_terms_stay_right_when_the_word_memo_fills(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical, "_MAX_WORDS", 3)
    lexical.clear_memo()
    text = "Cases of studies and more cases: the case of the glaciers, glass, ins and in."
    assert analyse(text).counts == _reference_counts(text)
    assert text_terms(text) == set(_reference_counts(text))
    assert len(lexical._TERM_OF) <= len(set(words(text)))


def _doc(*texts: str) -> Document:
    return Document(tuple(analyse(t) for t in texts))


def test_bm25_prefers_more_matches_rarer_terms_and_shorter_documents() -> None:
    docs = [
        _doc("magma magma magma crust"),
        _doc("magma crust"),
        _doc("bread yeast"),
        _doc("magma crust", "plus a much longer second part about many other unrelated things"),
    ]
    scores = bm25({"magma"}, docs)
    assert scores[0] > scores[1] > scores[3] > 0.0 == scores[2]
    rare = bm25({"yeast"}, docs)[2]
    common = bm25({"magma"}, [_doc("magma yeast"), *docs[1:]])[0]
    assert rare > common  # "yeast" is in one document, "magma" in three


def test_bm25_edge_cases() -> None:
    assert bm25({"magma"}, []) == []
    assert bm25(set(), [_doc("magma")]) == [0.0]
    assert bm25({"magma"}, [_doc(""), _doc("")]) == [0.0, 0.0]
    docs = [_doc("magma crust"), _doc("crust tide")]
    assert bm25(["crust", "magma", "crust"], docs) == bm25(["magma", "crust"], docs)


def test_clear_memo_can_keep_the_vocabulary() -> None:
    analyse("glaciers carve valleys")
    lexical.clear_memo(vocabulary=False)
    assert "glaciers" in lexical._TERM_OF and not lexical._TEXTS
    lexical.clear_memo()
    assert not lexical._TERM_OF


def test_numbered_references_to_sources_are_no_claim_content() -> None:
    from services.text.lexical import without_references

    assert without_references("as per passage 1 the tower".split()) == ["as", "per", "the", "tower"]
    assert without_references("passage id 2 mentions".split()) == ["mentions"]
    assert without_references("sources 1 and 3 agree".split()) == ["agree"]
    assert without_references("laut quelle 2 ist".split()) == ["laut", "ist"]
    kept = "the northwest passage opened in 2016".split()
    assert without_references(kept) is kept
