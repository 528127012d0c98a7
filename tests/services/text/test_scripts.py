"""Matching units of every script and terms in every language (services.text.scripts,
services.text.languages), read through the one tokenizer (services.text.lexical)."""

from __future__ import annotations

import pytest

from services.text.languages import language_of, same_language
from services.text.lexical import text_terms, words


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("长江全长约6300公里，是中国最长的河流。", "中国最长的河流是长江，全长6300公里。"),
        ("富士山の高さは3776メートルです。", "日本で最も高い山は富士山で、高さは3776メートルである。"),
        ("한라산의 높이는 1947미터이다.", "한라산은 높이 1947 미터로 남한에서 가장 높은 산이다."),
        ("Длина Енисея составляет 3487 километров.", "Енисей — река длиной 3487 километров."),
        ("नई दिल्ली भारत की राजधानी है।", "भारत की राजधानी नई दिल्ली है।"),
        ("Der Rhein ist 1233 Kilometer lang.", "Mit 1233 Kilometern Länge ist der Rhein ein großer Fluss."),
    ],
)
def test_paraphrases_share_most_terms(claim: str, source: str) -> None:
    mine, theirs = text_terms(claim), text_terms(source)
    assert mine and len(mine & theirs) / len(mine) >= 0.6, (mine, theirs)


def test_unspaced_scripts_are_units_not_one_word() -> None:
    assert words("长江是中国最长的河流") == ["长江", "中国", "国最", "最长", "河流"]
    assert len(words("ประเทศไทยมีทะเล")) > 3  # Thai trigrams, not one word


def test_numbers_of_every_script_and_glued_counters() -> None:
    assert "494" in words("494킬로미터를")
    assert "6300" in words("6300公里")
    assert "123" in words("١٢٣ كيلومتر")
    assert "2024" in words("२०२४ में")


def test_a_unit_written_after_digits_makes_no_bigram_with_the_next_word() -> None:
    """`3月开通` is the month and `opened`: `月开` is no word of it."""
    assert words("桥梁于2015年3月开通") == ["桥梁", "2015", "年", "3", "月", "开通"]
    assert words("50人参加") == ["50", "人", "参加"]
    assert words("３个城市") == ["3", "城市"]  # (a break character is no unit at all)
    assert words("月开通") == ["月开", "开通"]  # (no digits before it: an ordinary run)


def test_marks_stay_inside_their_word_and_optional_marks_go() -> None:
    assert words("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert words("الْعَرَبِيَّة") == words("العربية") == ["العربية"]
    assert words("שָׁלוֹם") == words("שלום")
    assert words("ك‍ـتاب") == words("كتاب")  # tatweel and joiner


def test_case_and_diacritics_fold_with_turkish_i() -> None:
    assert text_terms("İstanbul şehri büyüktür ve kalabalıktır") & text_terms(
        "istanbul sehri buyuktur ve kalabaliktir"
    )


@pytest.mark.parametrize(
    ("text", "negated"),
    [("他不是医生", True), ("他是医生", False), ("不同的人", False), ("彼は医者ではない", True),
     ("Er ist nicht hier", True), ("Он не врач", True), ("वह डॉक्टर नहीं है", True),
     ("ليس طبيبا", True), ("그는 의사가 아니다", True)],
)
def test_negation_in_every_language(text: str, negated: bool) -> None:
    from services.verification.claims import read_claim

    assert read_claim(text).negated is negated


@pytest.mark.parametrize(
    ("text", "language"),
    [("The Rhine is long and wide.", "en"), ("Der Rhein ist 1233 Kilometer lang", "de"),
     ("长江是中国最长的河流", "zh"), ("富士山は日本で最も高い山です", "ja"),
     ("한라산은 제주도에 있다", "ko"), ("Дніпро — найбільша річка", "uk"),
     ("Енисей — одна из крупнейших рек", "ru"), ("القاهرة عاصمة مصر", "ar"),
     ("कराची پاکستان کا سب سے بڑا شہر ہے", "ur"), ("ประเทศไทย", "th"), ("2024 12 5", "und")],
)
def test_languages_are_told_apart(text: str, language: str) -> None:
    assert language_of(text) == language


def test_english_wins_ties_of_function_words_with_other_languages() -> None:
    # `a`, `in` and `for` are Portuguese function words too; none of English's marks is here
    text = ("Professional accountancy organizations play a crucial role in providing support "
            "for accountants facing ethical dilemmas.")
    assert language_of(text) == "en"
    assert language_of("Organizações profissionais em apoio a contadores") == "pt"


def test_undetermined_and_neighbours_match_anything_close() -> None:
    assert same_language("und", "zh") and same_language("da", "no")
    assert not same_language("en", "de")


def test_emoji_zwj_variation_selectors_and_bidi_controls_do_not_break_words() -> None:
    assert words("café\u200d☕️ naïve\ufe0f 👩‍👩‍👧") == ["café", "naïve"]
    assert words("\u202bمرحبا\u202c \u2066abc\u2069") == ["مرحبا", "abc"]


def test_a_source_of_digits_and_punctuation_reads() -> None:
    assert text_terms("1234 — 5678, 90!") == {"1234", "5678", "90"}
    assert language_of("1234 — 5678, 90!") == "und"




@pytest.mark.parametrize(
    ("text", "english", "detected"),
    [("broker model outcome record commit throughput protocol offset", True, "und"),
     ("Study 2 of passage record producer model", True, "en"), ("", True, "und"),
     # two function words of other languages: detection decides (here undetermined)
     ("a b", False, "und"),
     ("Der Rhein ist 1233 Kilometer lang", False, "de"),
     ("la casa de la abuela es grande y bonita", False, "fr"),
     ("Дніпро — найбільша річка", False, "uk")],
)
def test_words_read_as_english_without_detection_only_where_detection_agrees(
    text: str, english: bool, detected: str
) -> None:
    from services.text.languages import reads_english
    from services.text.lexical import tokens_language

    tokens = words(text)
    assert reads_english(tokens) is english
    if text.isascii():  # a caller that knows the words are ASCII is told the same
        assert reads_english(tokens, ascii=True) is english
    assert tokens_language(tokens) == detected
