"""The plain rendering: markers removed, whitespace tidy, optional reference list."""

from __future__ import annotations

import pytest

from services.formatting.layout import AnswerLayout
from services.formatting.logic import build_layout, format_answer
from services.formatting.render_plain import render_plain
from services.formatting.sources import format_sources
from tests.services.formatting.builders import Mark, build_resolved, source

SOURCES = [source(1), source(2, kind="web", url="https://example.org/a")]


def _layout(parts) -> AnswerLayout:
    resolved = build_resolved(parts, SOURCES)
    sources = format_sources(
        resolved.answer.sources, resolved.scores, resolved.extraction
    )
    return build_layout(resolved, sources)


def _plain(parts) -> str:
    return render_plain(_layout(parts), references=False)


M1, M2, M12 = Mark("[1]", (1,)), Mark("[2]", (2,)), Mark("[1, 2]", (1, 2))


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (["Paris is the capital ", M1, "."], "Paris is the capital."),
        (
            ["Paris is the capital ", M1, ", and big ", M2, "."],
            "Paris is the capital, and big.",
        ),
        (["Paris ", M1, " is big."], "Paris is big."),
        (["Paris", M1, " is big."], "Paris is big."),
        (["Paris is the capital.", M1, " Next ", M2], "Paris is the capital. Next"),
        (["Paris is the capital. ", M1, " Next."], "Paris is the capital. Next."),
        ([M1, " Paris leads."], "Paris leads."),
        (["Paris ", M1, " ", M2, " is big."], "Paris is big."),
        (["Paris ", M1, " ", M2, "."], "Paris."),
        (["Paris (", M12, ") is big."], "Paris is big."),
        (["Paris (see ", M1, ") is big."], "Paris (see) is big."),
        (
            ["Paris ", M1, "\nNext line ", M2, "\n\nParagraph."],
            "Paris\nNext line\n\nParagraph.",
        ),
        (["- item one ", M1, "\n- item two"], "- item one\n- item two"),
        (["Quote \u201cParis\u201d ", M1, "."], "Quote \u201cParis\u201d."),
        (["Keeps  its own  spacing ", M1, "."], "Keeps  its own  spacing."),
        (["No citations here."], "No citations here."),
        (["Invalid ", Mark("[9]", (9,)), " removed too."], "Invalid removed too."),
    ],
)
def test_markers_are_removed_and_the_seam_tidied(parts, expected: str) -> None:
    assert _plain(parts) == expected


def test_reference_list_is_numbered_by_source_and_optional() -> None:
    layout = _layout(["A ", M2, " and B ", M1, "."])
    assert render_plain(layout) == (
        "A and B.\n\nReferences\n"
        "[1] Author1 A, Writer1 B. Study 1. Journal of Tests. 2021.\n"
        "[2] Author2 A, Writer2 B. Study 2. Journal of Tests. 2022. https://example.org/a\n"
    )
    assert render_plain(layout, references=False) == "A and B."


def test_plain_keeps_the_text_verbatim_apart_from_markers() -> None:
    text = "<b>bold</b> & [x](javascript:alert(1)) \\ `code`"
    resolved = build_resolved([text, " ", M1], SOURCES)
    plain = format_answer(resolved).renderings.plain
    assert plain.startswith(text + "\n\nReferences\n[1] ")


def test_a_url_spelled_out_in_the_reference_is_not_repeated() -> None:
    resolved = build_resolved(
        ["A ", M2, "."],
        SOURCES,
        references={"2": "Web page. https://example.org/a. Accessed 2024."},
    )
    plain = format_answer(resolved).renderings.plain
    assert plain.endswith("[2] Web page. https://example.org/a. Accessed 2024.\n")
