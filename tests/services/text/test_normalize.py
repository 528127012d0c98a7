"""Canonical normalisation: one test per class of difference, plus the offset map."""

from __future__ import annotations

import pytest

from services.text.normalize import has_break_hyphen, normalize, normalize_quote


def _found(source: str, quote: str, *, keep_break_hyphens: bool = False) -> str | None:
    """The original text a normalised quote matches in `source`, or None."""
    view = normalize(source, keep_break_hyphens=keep_break_hyphens)
    needle = normalize_quote(quote, keep_break_hyphens=keep_break_hyphens)
    position = view.text.find(needle)
    if position == -1:
        return None
    span = view.original_span(position, position + len(needle))
    return None if span is None else source[span[0] : span[1]]


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("the  quick\t\tbrown\n\nfox", "the quick brown fox"),
        ("line one\r\nline two", "one line two"),
        ("a\u00a0non-breaking\u2009thin space", "a non-breaking thin space"),
        ("\u3000ideographic\u3000space", "ideographic space"),
    ],
)
def test_whitespace_runs_and_line_breaks(source: str, quote: str) -> None:
    assert _found(source, quote) is not None


def test_line_end_hyphenation_is_joined() -> None:
    source = "the infor-\nmation age"
    assert _found(source, "information age") == "infor-\nmation age"
    assert normalize(source).text == "the information age"


def test_line_end_hyphenation_with_indentation_and_crlf() -> None:
    assert _found("infor-\r\n    mation", "information") == "infor-\r\n    mation"


def test_kept_break_hyphen_view_matches_real_hyphens() -> None:
    source = "a well-\nknown fact"
    assert _found(source, "well-known fact") is None
    assert (
        _found(source, "well-known fact", keep_break_hyphens=True)
        == "well-\nknown fact"
    )
    assert has_break_hyphen(source)


def test_hyphen_before_a_paragraph_break_is_not_hyphenation() -> None:
    assert normalize("end-\n\nstart").text == "end- start"


def test_soft_hyphens_are_dropped() -> None:
    assert _found("hy\u00adphen\u00adation", "hyphenation") == "hy\u00adphen\u00adation"


def test_soft_hyphen_at_line_end_is_hyphenation_in_both_views() -> None:
    source = "infor\u00ad\nmation"
    assert _found(source, "information") == source
    assert _found(source, "information", keep_break_hyphens=True) == source
    assert not has_break_hyphen(source)


@pytest.mark.parametrize("char", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_zero_width_characters_are_dropped(char: str) -> None:
    source = f"zero{char}width"
    assert _found(source, "zerowidth") == source


def test_ignorable_between_spaces_leaves_one_space() -> None:
    assert normalize("a \u200b b").text == "a b"


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("\u201cquoted\u201d text", '"quoted" text'),
        ("it\u2019s the \u2018one\u2019", "it's the 'one'"),
        ("\u201elow\u201f marks", '"low" marks'),
        ("pages 10\u201312", "pages 10-12"),
        ("this \u2014 and that", "this - and that"),
        ("x \u2212 y", "x - y"),
        ("non\u2011breaking", "non-breaking"),
    ],
)
def test_typographic_quotes_and_dashes(source: str, quote: str) -> None:
    assert _found(source, quote) == source


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("the \ufb01rst \ufb02ow", "the first flow"),
        ("e\ufb00ect su\ufb03x ba\ufb04e", "effect suffix baffle"),
        ("\ufb05 \ufb06", "st st"),
    ],
)
def test_ligatures(source: str, quote: str) -> None:
    assert _found(source, quote) == source


def test_half_a_ligature_is_not_an_exact_match() -> None:
    view = normalize("\ufb01nd")
    assert view.text == "find"
    assert view.original_span(1, 4) is None
    assert view.original_span(0, 4) == (0, 3)


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("\uff26\uff55\uff4c\uff4c width", "Full width"),
        ("x\u00b2 and \u2460", "x2 and 1"),
        ("caf\u00e9 au lait", "cafe\u0301 au lait"),
        ("cafe\u0301 au lait", "caf\u00e9 au lait"),
        ("\u212bngstr\u00f6m", "\u00c5ngstro\u0308m"),
    ],
)
def test_compatibility_forms_and_accents(source: str, quote: str) -> None:
    assert _found(source, quote) == source


def test_case_is_not_folded() -> None:
    assert _found("The Quick Fox", "the quick fox") is None


def test_an_edit_is_not_a_match() -> None:
    assert _found("the information age", "the informaton age") is None
    assert _found("the information age", "the knowledge age") is None


def test_ascii_prose_maps_identically() -> None:
    text = "Plain ASCII prose with single spaces."
    view = normalize(text)
    assert view.text == text
    assert view.original_span(6, 11) == (6, 11)


def test_map_spans_collapsed_whitespace() -> None:
    source = "alpha   beta\n\tgamma"
    view = normalize(source)
    assert view.text == "alpha beta gamma"
    start = view.text.index("beta gamma")
    assert view.original_span(start, start + len("beta gamma")) == (8, len(source))


def test_out_of_range_spans_are_rejected() -> None:
    view = normalize("abc")
    assert view.original_span(2, 2) is None
    assert view.original_span(0, 4) is None


def test_quote_normalisation_strips_outer_space() -> None:
    assert normalize_quote("  \u201cyes\u201d\n") == '"yes"'
