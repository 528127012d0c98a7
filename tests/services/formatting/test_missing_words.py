"""The answer's unsupported words marked inside its sentences: `<span class="cf-missing">`
in HTML, `{==word==}` in markdown and plain text (when configured), escaped and isolated as
the rest of the text, never cutting a marker or a unit; a word another cited source backs
is not marked."""

from __future__ import annotations

import orjson
import pytest

from schemas.answers import ALL_RENDERINGS
from schemas.spans import AnswerWord
from services.formatting.config import MarkMissingConfigError, marked_from_setting
from services.formatting.logic import format_answer
from services.formatting.missing import markable, marked_cut, unsupported_words
from tests.services.formatting.builders import Mark, Unit, build_resolved, source, with_missing
from tests.services.formatting.oracle import bleach_clean, executable_findings

ALL = frozenset(ALL_RENDERINGS)
TEXT = "The tower by Gustave & <Eiffel> is tall "


def _resolved(words: list[str], parts: list | None = None):
    resolved = build_resolved(parts or [TEXT, Mark("[1]", (1,)), "."], [source(1), source(2)])
    text = resolved.answer.text
    return with_missing(resolved, [(text.index(w), text.index(w) + len(w)) for w in words])


def test_every_rendering_marks_the_words_inside_the_sentence() -> None:
    formatted = format_answer(_resolved(["Gustave", "<Eiffel>"]), ALL)
    html = formatted.renderings.html
    assert ('by <span class="cf-missing" title="Not in the cited source">Gustave</span> &amp; '
            '<span class="cf-missing" title="Not in the cited source">&lt;Eiffel&gt;</span> is'
            ) in html
    assert bleach_clean(html) == html and not executable_findings(html)
    assert "by {==Gustave==} &amp; {==&lt;Eiffel>==} is tall [^1]." in formatted.renderings.markdown
    assert formatted.renderings.plain.startswith(
        "The tower by {==Gustave==} & {==<Eiffel>==} is tall.")


def test_by_default_only_html_is_marked() -> None:
    assert marked_from_setting("") == frozenset({"html"})
    formatted = format_answer(_resolved(["Gustave"]), marked_from_setting(""))
    assert 'class="cf-missing"' in formatted.renderings.html
    assert "{==" not in formatted.renderings.markdown + formatted.renderings.plain
    none = format_answer(_resolved(["Gustave"]), frozenset())
    assert "cf-missing" not in none.renderings.html


def test_settings_name_renderings() -> None:
    assert marked_from_setting("all") == ALL
    assert marked_from_setting("none") == frozenset()
    assert marked_from_setting(" markdown , plain") == frozenset({"markdown", "plain"})
    with pytest.raises(MarkMissingConfigError, match="CITEFLOW_MARK_MISSING"):
        marked_from_setting("html,pdf")


def test_a_word_another_cited_source_backs_is_not_marked() -> None:
    resolved = build_resolved([TEXT, Mark("[1]", (1,)), Mark("[2]", (2,)), "."],
                              [source(1), source(2)])
    text = resolved.answer.text
    gustave = (text.index("Gustave"), text.index("Gustave") + 7)
    tall = (text.index("tall"), text.index("tall") + 4)
    with_missing(resolved, [gustave, tall])
    support = resolved.resolution.support
    assert support[1] is not None
    support[1].missing_words = [AnswerWord(text="tall", start=tall[0], end=tall[1])]
    plain = format_answer(resolved, ALL).renderings.plain
    assert "by Gustave &" in plain and "is {==tall==}." in plain


def test_a_sentence_a_citation_supports_has_no_unsupported_words() -> None:
    resolved = _resolved(["Gustave"])
    support = resolved.resolution.support[0]
    assert support is not None
    support.verdict = "supported"  # the judge found it backed, a word short or not
    assert "cf-missing" not in format_answer(resolved, ALL).renderings.html


def test_bidi_controls_inside_a_marked_word_stay_visible_tokens() -> None:
    word = "gnp\u202e.exe"
    formatted = format_answer(_resolved([word], [f"Open {word} now ", Mark("[1]", (1,)), "."]),
                              ALL)
    for rendering in (formatted.renderings.html, formatted.renderings.markdown,
                      formatted.renderings.plain):
        assert "\u202e" not in rendering and "gnp\u27e8U+202E\u27e9.exe" in rendering


def test_words_a_marker_or_a_unit_boundary_would_cut_are_not_marked() -> None:
    parts = ["Alpha ", Unit("U1", ("beta gamma ", Mark("[1]", (1,)), ".")), " delta."]
    resolved = build_resolved(parts, [source(1)])
    text = resolved.answer.text
    cut_by_unit = (text.index("Alpha"), text.index("beta") + 4)
    cut_by_marker = (text.index("gamma"), text.index("[1]") + 2)
    inside = (text.index("beta"), text.index("beta") + 4)
    with_missing(resolved, [cut_by_unit, inside, cut_by_marker])
    formatted = format_answer(resolved, ALL)
    assert formatted.renderings.html.count('class="cf-missing"') == 1
    assert ">beta</span> gamma" in formatted.renderings.html
    assert formatted.renderings.plain.startswith("Alpha {==beta==} gamma.")


def test_markable_and_marked_cut() -> None:
    text = "ab cd [1] ef gh"
    # markers [6, 9); a zero-width marker at 12; units [0, 9) and [10, 15)
    starts, ends, bounds = [6, 12], [9, 12], [0, 9, 10, 15]
    words = [(0, 2), (1, 4), (3, 5), (5, 7), (10, 15), (13, 15), (15, 16)]
    assert markable(words, len(text), starts, ends, bounds) == [(0, 2), (3, 5), (13, 15)]
    assert marked_cut(text, [6], [9], [(0, 2), (3, 5), (13, 15)]) == [
        "{==ab==} {==cd==} ", " ef {==gh==}"]
    assert marked_cut(text, [0], [9], [(3, 5)]) == ["", " ef gh"]  # cut out: left out


def test_the_words_of_a_record_read_back_are_those_of_its_models() -> None:
    # (a record written here is read as JSON objects, a validated one as models)
    resolved = _resolved(["Gustave", "<Eiffel>"])
    citations = [vars(citation) for citation in resolved.extraction.citations]
    support = resolved.resolution.support
    json = orjson.loads(orjson.dumps([entry and entry.model_dump() for entry in support]))
    words = unsupported_words(citations, support)
    assert words == [(13, 20), (23, 31)]
    assert unsupported_words(citations, json) == words
