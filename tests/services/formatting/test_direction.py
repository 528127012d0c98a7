"""Right-to-left answers and languages in the formatted answer: `dir` and `lang` on the
rendering, chips isolated left to right, markdown markers isolated, bidi controls of the
answer text never raw in the HTML."""

from __future__ import annotations

import html5lib

from services.formatting.logic import format_answer
from tests.services.formatting.builders import Mark, build_resolved, source
from tests.services.formatting.oracle import bleach_clean, executable_findings

ARABIC = "القاهرة هي عاصمة مصر وأكبر مدنها "
HEBREW = "ירושלים היא בירת ישראל "


def _formatted(parts):
    return format_answer(build_resolved(parts, [source(1), source(2)]))


def test_an_arabic_answer_renders_right_to_left_with_isolated_chips() -> None:
    result = _formatted([ARABIC, Mark("[1]", (1,)), "."])
    assert (result.language, result.script, result.direction) == ("ar", "Arab", "rtl")
    tree = html5lib.parse(result.renderings.html, namespaceHTMLElements=False)
    root = next(e for e in tree.iter("div") if "citeflow-answer" in (e.get("class") or ""))
    assert (root.get("dir"), root.get("lang")) == ("rtl", "ar")
    chips = [e for e in tree.iter("sup") if "citation-chip" in (e.get("class") or "")]
    assert chips and all(chip.get("dir") == "ltr" for chip in chips)
    assert "\u2066[^1]\u2069" in result.renderings.markdown
    assert bleach_clean(result.renderings.html) == result.renderings.html


def test_hebrew_is_right_to_left_and_english_left_to_right() -> None:
    assert _formatted([HEBREW, Mark("[1]", (1,)), "."]).direction == "rtl"
    english = _formatted(["The sky is blue and the sea is wide ", Mark("[1]", (1,)), "."])
    assert (english.language, english.direction) == ("en", "ltr")
    assert "\u2066" not in english.renderings.markdown


def test_bidi_controls_in_the_answer_are_shown_not_obeyed() -> None:
    controls = "\u202e\u2066\u202b"
    result = _formatted([f"Evil {controls}txet{controls}\u200f here ", Mark("[1]", (1,)), "."])
    html = result.renderings.html
    assert not any(ch in html for ch in controls)
    # a browser obeys a character reference as it obeys the character: neither is emitted
    assert "&#x202e;" not in html.lower() and "&#x2066;" not in html.lower()
    assert "\u27e8U+202E\u27e9\u27e8U+2066\u27e9\u27e8U+202B\u27e9txet" in html
    assert "&#x200f;" in html  # a mark reorders no letters: kept, as a reference
    assert "Evil \u27e8U+202E\u27e9" in result.renderings.markdown
    assert not any(ch in result.renderings.markdown.replace("\u2066[^1]\u2069", "")
                   for ch in controls)
    assert not executable_findings(html)


def test_each_source_names_its_language_and_script() -> None:
    resolved = build_resolved(["Text ", Mark("[1]", (1,)), "."], [source(1), source(2)])
    for formatted in format_answer(resolved).sources:
        assert formatted.language is not None and formatted.script is not None


def test_the_plain_rendering_shows_overrides_and_drops_marks() -> None:
    controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    marks = "\u200e\u200f\u061c"
    resolved = build_resolved([f"Evil {controls}gnp.exe{marks} here ", Mark("[1]", (1,)), "."],
                              [source(1, title=f"Apple \u202e{marks}"), source(2)])
    plain = format_answer(resolved).renderings.plain
    assert not any(ch in plain for ch in controls + marks)
    assert "Evil \u27e8U+202A\u27e9" in plain and "\u27e8U+2069\u27e9gnp.exe here." in plain
    reference = plain.split("References\n", 1)[1]
    assert "\u27e8U+202E\u27e9" in reference and not any(ch in reference for ch in marks)
