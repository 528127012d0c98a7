"""Sentences in every language, not told the language: pySBD's per-language golden
rules (all of them), markers around every terminator of other scripts, abbreviations,
ordinals, titles and quotations of other languages, invisible characters next to
terminators, the optional language hint, and a 4 MB Thai text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from schemas.answers import AnswerSubmitted, Source
from services.text.extraction import extract, extract_answer
from services.text.sentences import split_sentences
from tests.conftest import CORPUS_DIR, REPO_ROOT, corpus_path

RULES = "pysbd_golden_rules_lang.json"


def _rules_path() -> Path:
    """The per-language golden rules: tests/corpus/sentences, else ../shared/corpus."""
    if (CORPUS_DIR / "sentences" / RULES).exists():
        return corpus_path("sentences", RULES)
    shared = REPO_ROOT.parent / "shared" / "corpus" / "sentences" / RULES
    return shared if shared.exists() else corpus_path("sentences", RULES)


def _load_rules() -> list[dict[str, Any]]:
    try:
        rules: list[dict[str, Any]] = json.loads(_rules_path().read_text("utf-8"))
    except (OSError, pytest.fail.Exception):
        return []
    return rules


_RULES = _load_rules()


def sources(count: int) -> list[Source]:
    return [Source(index=i, doc_id=f"doc{i}") for i in range(1, count + 1)]


def texts(text: str, language: str | None = None) -> list[str]:
    return [s.text for s in extract(text, sources(3), language=language).sentences]


def test_all_236_golden_rules_are_here() -> None:
    rules = json.loads(_rules_path().read_text("utf-8"))
    assert len(rules) == 236
    assert len({r["lang"] for r in rules}) == 22  # 21 languages beyond English, and Marathi


@pytest.mark.parametrize(
    "number", range(len(_RULES)), ids=[f"{i}-{r['lang']}" for i, r in enumerate(_RULES)]
)
def test_golden_rule_not_told_the_language(number: int) -> None:
    rule = _RULES[number]
    assert texts(rule["text"]) == [e.strip() for e in rule["expected"]]


@pytest.mark.parametrize(
    "number", range(len(_RULES)), ids=[f"{i}-{r['lang']}" for i, r in enumerate(_RULES)]
)
def test_golden_rule_told_the_language(number: int) -> None:
    rule = _RULES[number]
    assert texts(rule["text"], rule["lang"]) == [e.strip() for e in rule["expected"]]


# (terminator, first sentence without it, second sentence, whether no space may follow)
TERMINATORS = [
    ("।", "यह सच है", "हो सकता है।", True),
    ("॥", "पहला श्लोक यहाँ है", "दूसरा श्लोक॥", True),
    ("۔", "میرا نام علی ہے", "میں لاہور میں رہتا ہوں۔", True),
    ("؟", "ماذا حدث بعد الانتخابات", "طرح الكثير من التساؤلات.", True),
    ("։", "Բարև Ձեզ", "Իմ անունն Արմինե է։", True),
    (":", "Բարև Ձեզ", "Իմ անունն Արմինե է:", False),
    (":", "سؤال وجواب", "ماذا حدث بعد الانتخابات؟", False),
    ("،", "زرعها عملاء الموساد كما تقول مصادر إسرائيلية", "وقرر الطبيب أن يعود.", False),
    ("።", "መልካም ቀን ይሁንልህ", "እባክሽ ድገሚልኝ።", True),
    ("፧", "እንደምን አለህ", "መልካም ቀን ይሁንልህ።", True),
    ("။", "ခင်ဗျားနာမည်ဘယ်လိုခေါ်လဲ", "နေကောင်းလား။", True),
    (";", "Με συγχωρείτε, πού είναι οι τουαλέτες", "Τις Κυριακές κλείνουν.", False),
    ("\u037e", "Πού είναι ο σταθμός", "Είναι κοντά.", True),
    ("。", "东京是日本的首都", "人口很多。", True),
]
MARKERS = ["[1]", "[^1]", "【1†source】", "¹", "<sup>1</sup>"]


def _marker_cases() -> list[Any]:
    cases = []
    for stop, first, second, glued in TERMINATORS:
        for marker in MARKERS:
            superscript = marker in ("¹", "<sup>1</sup>")
            layouts = {
                "before": f"{first}{marker}{stop} ",
                "after": f"{first}{stop}{marker} ",
                "blank-after": f"{first}{stop} {marker} ",
            }
            if glued and not superscript:  # (a superscript glued to a word is no marker)
                layouts["glued"] = f"{first}{stop}{marker}"
            for name, layout in layouts.items():
                cases.append(pytest.param(layout, second, id=f"{stop}-{marker}-{name}"))
    return cases


@pytest.mark.parametrize(("layout", "second"), _marker_cases())
def test_markers_around_every_terminator(layout: str, second: str) -> None:
    """A marker before the terminator is inside its sentence; right after it, or after it
    and a blank, it belongs to the sentence it follows; the next sentence cites nothing."""
    found = extract(layout + second, sources(3))
    assert [s.text for s in found.sentences] == [layout.strip(), second]
    assert [found.sentence_citation_ids(s) for s in found.sentences] == [[1], []]


@pytest.mark.parametrize(
    ("stop", "first", "second"), [(t[0], t[1], t[2]) for t in TERMINATORS if t[3]]
)
def test_script_stops_need_no_space_after_them(stop: str, first: str, second: str) -> None:
    assert texts(f"{first}{stop}{second}") == [f"{first}{stop}", second]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # titles and abbreviations of other languages
        ("Hola, Srta. Gómez. ¿Cómo está?", ["Hola, Srta. Gómez.", "¿Cómo está?"]),
        ("Habló el Lic. Pérez ayer. Luego salió.", ["Habló el Lic. Pérez ayer.", "Luego salió."]),
        ("Ha parlato l'Ing. Rossi. Poi è uscito.", ["Ha parlato l'Ing. Rossi.", "Poi è uscito."]),
        ("Arrivò il Dott. Bianchi. Era tardi.", ["Arrivò il Dott. Bianchi.", "Era tardi."]),
        (
            "Мы приехали в пгт. Октябрьский вечером. Там было тихо.",
            ["Мы приехали в пгт. Октябрьский вечером.", "Там было тихо."],
        ),
        (
            "Лекцию читал проф. Иванов. Все слушали.",
            ["Лекцию читал проф. Иванов.", "Все слушали."],
        ),
        (
            "Vi mødtes ved Skt. Peders Kirke. Det regnede.",
            ["Vi mødtes ved Skt. Peders Kirke.", "Det regnede."],
        ),
        (
            "Navštívte napr. Bratislavu a Košice. Potom ideme domov.",
            ["Navštívte napr. Bratislavu a Košice.", "Potom ideme domov."],
        ),
        (
            "Firma XYZ s. r. o. zamestnáva päťdesiat ľudí. Rastie.",
            ["Firma XYZ s. r. o. zamestnáva päťdesiat ľudí.", "Rastie."],
        ),
        (
            "La cita es el Mar. 23 de Nov. de 2014. Gracias.",
            ["La cita es el Mar. 23 de Nov. de 2014.", "Gracias."],
        ),
        # ordinals
        (
            "Am 1. Mai ist Feiertag. Dann arbeiten wir.",
            ["Am 1. Mai ist Feiertag.", "Dann arbeiten wir."],
        ),
        (
            "Was geschah am 12. Juni? Niemand weiß es.",
            ["Was geschah am 12. Juni?", "Niemand weiß es."],
        ),
        (
            "Založená bola 7. Apríla 2020. Odvtedy rastie.",
            ["Založená bola 7. Apríla 2020.", "Odvtedy rastie."],
        ),
        (
            "Slúžil v XII. Pluku špeciálneho určenia. Potom odišiel.",
            ["Slúžil v XII. Pluku špeciálneho určenia.", "Potom odišiel."],
        ),
        # ... but not in English, nor units of other scripts before a capital
        (
            "He fought in World War II. After that he rested.",
            ["He fought in World War II.", "After that he rested."],
        ),
        ("See chapter 12. The rest follows.", ["See chapter 12.", "The rest follows."]),
        ("He switched it on. Then he left.", ["He switched it on.", "Then he left."]),
        ("Это стоит 100 руб. Потом цена выросла.", ["Это стоит 100 руб.", "Потом цена выросла."]),
        # titles and quotations
        ("我们去看《你好，李焕英！》吧。好！", ["我们去看《你好，李焕英！》吧。", "好！"]),
        (
            "彼は「今日は晴れ。明日は雨。」と言った。それから帰った。",
            ["彼は「今日は晴れ。明日は雨。」と言った。", "それから帰った。"],
        ),
        (
            "Er sagte: „Ich komme morgen. Vielleicht.“ Dann ging er.",
            ["Er sagte: „Ich komme morgen. Vielleicht.“", "Dann ging er."],
        ),
        (
            "Powiedział: „Przyjdę jutro. Może.” Potem wyszedł.",
            ["Powiedział: „Przyjdę jutro. Może.”", "Potem wyszedł."],
        ),
        (
            "Он сказал: «Я приду завтра. Может быть». Потом ушёл.",
            ["Он сказал: «Я приду завтра. Может быть».", "Потом ушёл."],
        ),
        (
            "Han sagde: »Jeg kommer i morgen. Måske.« Så gik han.",
            ["Han sagde: »Jeg kommer i morgen. Måske.«", "Så gik han."],
        ),
        # an Arabic comma between list items does not end the sentence; a time's colon neither
        (
            "اشترى التفاح، والموز، والعنب من السوق. ثم عاد.",
            ["اشترى التفاح، والموز،", "والعنب من السوق.", "ثم عاد."],
        ),
        ("وصل في الساعة 05:01 صباحا. ثم نام.", ["وصل في الساعة 05:01 صباحا.", "ثم نام."]),
        # Kazakh and Russian: a question before a lower-case word, a stop without its space
        ("Бұл кім? не істейді?", ["Бұл кім?", "не істейді?"]),
        ("Жағдайы жақсы.Келесі жыл басталды.", ["Жағдайы жақсы.", "Келесі жыл басталды."]),
    ],
)
def test_abbreviations_ordinals_titles_and_quotes(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # zero width space, joiners, marks and bidi controls after a terminator
        ("Paris is big.\u200b Next one.", ["Paris is big.", "Next one."]),
        ("यह सच है।\u200d हो सकता है।", ["यह सच है।", "हो सकता है।"]),
        ("هستید؟\u200f من از تهران هستم.", ["هستید؟", "من از تهران هستم."]),
        # (a stray isolate close goes with the sentence before it)
        ("Բարև Ձեզ:\u2069 Իմ անունն Արմինե է:", ["Բարև Ձեզ:\u2069", "Իմ անունն Արմինե է:"]),
        ("\u2067هذا صحيح.\u2069 وذلك أيضا.", ["\u2067هذا صحيح.\u2069", "وذلك أيضا."]),
        # a period inside a bidi embedding after a single letter stays an abbreviation
        (
            "وقال د\u202a.\u202c ديفيد إنها مريضة. ثم خرج.",
            ["وقال د\u202a.\u202c ديفيد إنها مريضة.", "ثم خرج."],
        ),
        # a zero-width non-joiner inside a Persian word is not a blank
        ("من می\u200cخواهم بروم. تو چطور؟", ["من می\u200cخواهم بروم.", "تو چطور؟"]),
    ],
)
def test_invisible_characters_next_to_terminators(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


@pytest.mark.parametrize(
    ("layout", "marker"),
    [
        ("هذا صحيح؟\u2067{m}\u2069 وذلك أيضا.", "[1]"),
        ("هذا صحيح؟ \u2067{m}\u2069 وذلك أيضا.", "[1]"),
        ("Paris is big.\u200b{m} Next one.", "[1]"),
        ("यह सच है।\u200e{m} हो सकता है।", "[^1]"),
        ("Բարև Ձեզ:\u200f{m} Իմ անունն Արմինե է:", "【1†source】"),
    ],
)
def test_markers_behind_invisible_characters_stay_with_their_sentence(
    layout: str, marker: str
) -> None:
    found = extract(layout.format(m=marker), sources(3))
    assert len(found.sentences) == 2
    assert [found.sentence_citation_ids(s) for s in found.sentences] == [[1], []]
    first = found.sentences[0].text
    assert first.endswith((marker, marker + "\u2069"))


def test_the_hint_tells_arabic_from_persian_and_urdu() -> None:
    text = "زرعها عملاء الموساد كما تقول مصادر إسرائيلية، وقرر الطبيب أن يعود."
    assert len(texts(text)) == 2  # Arabic letters only: an Arabic comma ends the sentence
    assert len(texts(text, "ar")) == 2
    assert texts(text, "fa") == [text]
    assert texts(text, "ur-PK") == [text]
    persian = "خوشبختم، آقای رضا. شما کجایی هستید؟"
    assert texts(persian) == ["خوشبختم، آقای رضا.", "شما کجایی هستید؟"]


def test_the_hint_adds_titles_that_are_ordinary_words_elsewhere() -> None:
    text = "Ha parlato l'on. Rossi alla Camera. Poi è uscito."
    assert texts(text, "it") == ["Ha parlato l'on. Rossi alla Camera.", "Poi è uscito."]
    assert texts(text, "it-IT") == texts(text, "it") == texts(text, "it_IT")
    assert len(texts(text)) == 3  # not told: `on.` ends sentences in English


def test_the_hint_reads_periods_after_numbers_as_ordinals() -> None:
    text = "Das war der 3. Versuch. Er scheiterte."
    assert texts(text, "de") == ["Das war der 3. Versuch.", "Er scheiterte."]
    assert texts(text, "en") == ["Das war der 3.", "Versuch.", "Er scheiterte."]


def _answer(text: str, **fields: Any) -> AnswerSubmitted:
    return AnswerSubmitted(answer_id="a1", text=text, sources=sources(2), **fields)


def test_answer_submitted_carries_an_optional_language_to_the_segmenter() -> None:
    text = "زرعها عملاء الموساد كما تقول مصادر إسرائيلية، وقرر الطبيب أن يعود [1]."
    assert _answer(text).language is None
    assert len(extract_answer(_answer(text)).sentences) == 2
    assert len(extract_answer(_answer(text, language="ar")).sentences) == 2
    persian = extract_answer(_answer(text, language="fa"))
    assert [s.text for s in persian.sentences] == [text]
    assert persian.citations[0].sentence_index == 0
    for tag in ("en", "zh-Hant", "pt-BR", "sr-Latn-RS", "pt_BR", "x-klingon"):
        assert _answer("Hi.", language=tag).language == tag
    for bad in ("", "english language", "zh-", "-en", "a" * 40):
        with pytest.raises(ValidationError):
            _answer("Hi.", language=bad)


def _thai(size_bytes: int, line: int = 0) -> str:
    """Thai text of about `size_bytes` UTF-8 bytes, without spaces or punctuation (a line
    break every `line` characters when `line`)."""
    unit = "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ"
    text = unit * (size_bytes // len(unit.encode()) + 1)
    if line:
        text = "\n".join(text[i : i + line] for i in range(0, len(text), line))
    return text


def test_four_megabytes_of_thai_without_spaces_is_one_sentence() -> None:
    """(Time and memory are measured apart: `citeflow bench sentences --thai`; here the
    structure: one sentence, and each line one sentence once lines are broken.)"""
    text = _thai(4 * 1024 * 1024)
    assert len(text.encode()) >= 4 * 1024 * 1024
    assert split_sentences(text) == [(0, len(text))]
    found = extract(text[:100_000] + "[1]" + text[100_000:], sources(1))
    assert len(found.sentences) == 1
    assert found.citations[0].sentence_index == 0
    lines = _thai(4 * 1024 * 1024, line=10_000)
    spans = split_sentences(lines)
    assert len(spans) == lines.count("\n") + 1
    assert all(end - start <= 10_000 for start, end in spans)
