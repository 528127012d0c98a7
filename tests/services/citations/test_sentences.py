"""Sentence segmentation: the Golden Rules, pySBD's extra cases, citation-aware boundaries,
markdown structure, offsets."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.text.extraction import extract
from services.text.sentences import split_sentences
from tests.conftest import corpus_path
from tests.services.citations.helpers import sources


def texts(text: str) -> list[str]:
    return [s.text for s in extract(text, sources(5)).sentences]


def _golden() -> list[dict]:
    return json.loads(corpus_path("sentences", "pysbd_golden_rules_en.json").read_text("utf-8"))


def _extra(group: str) -> list[dict]:
    data = json.loads(corpus_path("sentences", "pysbd_en_extra.json").read_text("utf-8"))
    return data["groups"][group]["cases"]


def test_golden_rules_all_48() -> None:
    rules = _golden()
    assert len(rules) == 48
    passed = [
        rule["text"]
        for rule in rules
        if texts(rule["text"]) == [e.strip() for e in rule["expected"]]
    ]
    assert len(passed) == 48, sorted({r["text"] for r in rules} - set(passed))


@pytest.mark.parametrize("number", range(48))
def test_golden_rule(number: int) -> None:
    rule = _golden()[number]
    assert texts(rule["text"]) == [e.strip() for e in rule["expected"]]


@pytest.mark.parametrize("group", ["en_no_clean", "en_regression_issues"])
def test_pysbd_extra_cases(group: str) -> None:
    for case in _extra(group):
        assert texts(case["text"]) == [e.strip() for e in case["expected"]], case["text"][:80]


def test_pysbd_char_spans() -> None:
    """Starts and texts of pySBD's char-span cases (its spans keep trailing whitespace)."""
    for case in _extra("en_char_spans"):
        found = extract(case["text"], [])
        expected = [
            (sent.strip(), start + len(sent) - len(sent.lstrip()))
            for sent, start, _ in case["expected_spans"]
        ]
        assert [(s.text, s.start) for s in found.sentences] == expected, case["text"][:80]


def test_pysbd_pdf_cases_with_wrapped_lines() -> None:
    """Hard-wrapped PDF text: single line breaks wrap, blank lines and bullets separate."""
    for case in _extra("en_pdf_doc_type"):
        text = case["text"]
        got = [" ".join(text[a:b].split()) for a, b in split_sentences(text, wrapped=True)]
        assert got == case["expected"], text[:80]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Paris is the capital.[1] Next sentence.", ["Paris is the capital.[1]", "Next sentence."]),
        (
            "Paris is the capital. [1] Next sentence.",
            ["Paris is the capital. [1]", "Next sentence."],
        ),
        ("Paris is the capital. [1][2] Next.", ["Paris is the capital. [1][2]", "Next."]),
        ("Paris is the capital [1]. Next [2].", ["Paris is the capital [1].", "Next [2]."]),
        ("It began in 632 A.D. [1][2]. The rest.", ["It began in 632 A.D. [1][2].", "The rest."]),
        ("It is in the U.S. [3] Later it moved.", ["It is in the U.S. [3]", "Later it moved."]),
        ("Ask Dr. Smith [1]. Then leave.", ["Ask Dr. Smith [1].", "Then leave."]),
        ("Pi is 3.14 [2]. Version 2.0.1 shipped.", ["Pi is 3.14 [2].", "Version 2.0.1 shipped."]),
        ("Use tools, e.g. Python. It works.", ["Use tools, e.g. Python.", "It works."]),
        (
            "It opens at 9 a.m. It closes at 5 p.m. Queues form.",
            ["It opens at 9 a.m.", "It closes at 5 p.m.", "Queues form."],
        ),
        ("Wait... What happened?", ["Wait...", "What happened?"]),
        (
            'He said "Stop. Now." and left [1]. Next.',
            ['He said "Stop. Now." and left [1].', "Next."],
        ),
        (
            "The drug (approved in 2004. See label.) works [3]. Next.",
            ["The drug (approved in 2004. See label.) works [3].", "Next."],
        ),
        ("Is it true? Yes [1]! Good.", ["Is it true?", "Yes [1]!", "Good."]),
    ],
)
def test_citation_aware_and_abbreviations(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_markers_stay_with_the_sentence_they_follow() -> None:
    found = extract("Paris is the capital.[1] It is big. [2] Next [3].", sources(3))
    assert [found.sentence_citation_ids(s) for s in found.sentences] == [[1], [2], [3]]
    assert [c.sentence_index for c in found.citations] == [0, 1, 2]


def test_markdown_structure() -> None:
    text = (
        "## Results\n"
        "The study found an effect [1].\n\n"
        "- First point [2]\n"
        "- Second point\n"
        "1. Numbered item\n"
        "2. Another item\n\n"
        "Summary without a full stop"
    )
    assert texts(text) == [
        "## Results",
        "The study found an effect [1].",
        "- First point [2]",
        "- Second point",
        "1. Numbered item",
        "2. Another item",
        "Summary without a full stop",
    ]


def test_fenced_code_is_one_unit() -> None:
    text = "Run this:\n```\nx = 1. Y = 2.\nprint(x[1])\n```\nDone."
    assert texts(text) == ["Run this:", "```\nx = 1. Y = 2.\nprint(x[1])\n```", "Done."]


def test_inline_code_does_not_end_a_sentence() -> None:
    assert texts("Call `a. B` now. Next.") == ["Call `a. B` now.", "Next."]


def test_offsets_and_utf16() -> None:
    from services.citations.logic import _utf16

    text = "Emoji 😀 first [1]. Second [2]."
    found = extract(text, sources(2))
    assert [s.text for s in found.sentences] == ["Emoji 😀 first [1].", "Second [2]."]
    for sentence in found.sentences:
        assert text[sentence.start : sentence.end] == sentence.text
    u16 = _utf16(text)
    second = found.sentences[1]
    assert (
        u16(second.start) == len(text[: second.start].encode("utf-16-le")) // 2 == second.start + 1
    )
    assert _utf16("plain ascii")(5) == 5


def test_empty_and_blank_texts() -> None:
    assert texts("") == []
    assert texts("  \n\n ") == []
    assert texts("Text without citations.") == ["Text without citations."]


_PIECES = st.sampled_from(
    [
        "word",
        "Word",
        " ",
        " ",
        "\n",
        "\n\n",
        ".",
        ". ",
        "?",
        "!",
        "...",
        " . . . ",
        "[1]",
        "[2, 3]",
        " [9]",
        "[^1]",
        "Dr.",
        "U.S.",
        "e.g.",
        "3.14",
        "(",
        ")",
        '"',
        "“",
        "”",
        "'",
        "`",
        "```\n",
        "- ",
        "1. ",
        "a) ",
        "•",
        "😀",
        "[Document 1]",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_segmentation_invariants(text: str) -> None:
    found = extract(text, sources(3))
    previous_end = 0
    for number, sentence in enumerate(found.sentences):
        assert sentence.index == number
        assert previous_end <= sentence.start < sentence.end <= len(text)
        assert sentence.text == text[sentence.start : sentence.end]
        assert sentence.text == sentence.text.strip()
        previous_end = sentence.end
    for citation in found.citations:
        sentence = found.sentences[citation.sentence_index]
        assert sentence.start <= citation.start and citation.end <= sentence.end
        assert text[citation.start : citation.end] == citation.marker


def test_fast_path_agrees_with_the_general_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `word. Next` fast path decides exactly as the general rules do."""
    from services.bench.workload import bench_answer
    from services.text import sentences

    data = json.loads(corpus_path("answers", "expertqa_cited_answers.json").read_text("utf-8"))
    samples = [bench_answer()["text"], *(r["answer"] for r in data["records"])]
    samples += [rule["text"] for rule in _golden()]
    fast = [extract(text, sources(5)).sentences for text in samples]
    monkeypatch.setattr(sentences, "_plain_full_stop", lambda scan, rs: False)
    slow = [extract(text, sources(5)).sentences for text in samples]
    assert [[s.text for s in found] for found in fast] == [
        [s.text for s in found] for found in slow
    ]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("a. " * 20000, 1),
        ("x.\tx" * 20000, 1),
        ("[1]:" * 20000, 1),
        (" 'a. B" * 15000 + " '", 1),
        ("(a. B" * 20000, 20000),
        ('"a. B' * 20000, 10001),
        (" 1) a 2) b" * 10000, 20000),
        ("a\n" * 30000, 30000),
    ],
)
def test_adversarial_inputs_segment(text: str, sentences: int) -> None:
    """Long texts built to defeat backward searches or unclosed quotes still segment (these
    took minutes when a search ran back to the start of the text for every candidate)."""
    assert len(extract(text, sources(2)).sentences) == sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "**Key finding:** The effect is large [1]. It persists [2].",
            ["**Key finding:** The effect is large [1].", "It persists [2]."],
        ),
        (
            "According to Smith et al. [3], the effect holds. Next.",
            ["According to Smith et al. [3], the effect holds.", "Next."],
        ),
        ("The U.S. [2] has many states. Next.", ["The U.S. [2] has many states.", "Next."]),
        ("It costs approx. 5 km. The end.", ["It costs approx. 5 km.", "The end."]),
        ('He said, "It works." [1] Then he left.', ['He said, "It works." [1]', "Then he left."]),
        ('"It works [1]." Then he left.', ['"It works [1]."', "Then he left."]),
        (
            "| Drug | Dose |\n|---|---|\n| A | 5 mg |",
            ["| Drug | Dose |", "|---|---|", "| A | 5 mg |"],
        ),
        (
            "In summary:\n\n1. Point one [1].\n2. Point two [2].",
            ["In summary:", "1. Point one [1].", "2. Point two [2]."],
        ),
        (
            "Dr. Jones, Ph.D., said it [1]. She agreed.",
            ["Dr. Jones, Ph.D., said it [1].", "She agreed."],
        ),
        (
            "Prices rose 3.5% in Q1. [2] Analysts expect more.",
            ["Prices rose 3.5% in Q1. [2]", "Analysts expect more."],
        ),
        ("This is it... [1] Next one.", ["This is it... [1]", "Next one."]),
        ("What? [1] Really.", ["What? [1]", "Really."]),
    ],
)
def test_llm_answer_shapes(text: str, expected: list[str]) -> None:
    assert texts(text) == expected
