"""Property-based invariants of span resolution.

- Resolving any canonical rendering of a slice of a source (whitespace collapsed, line-end
  hyphenation joined or kept, soft hyphens and zero-width characters dropped, quotes and
  dashes straightened, NFC/NFD/NFKC) gives a span whose quote is the original slice.
- A derived unit never has spans; a verbatim one always has.
- Every span: 0 <= start < end, and the section text (chunks placed at start_char) at
  [start, end) equals the quote; UTF-16 offsets, when given, match the section prefix.

Slices start and end on visible characters and never split a base from its combining marks
or a line-end hyphen from its line break (a quote cannot sensibly end there).
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from schemas.citations import AnswerCited
from schemas.spans import AnswerUnit
from services.spans.logic import resolve_answer
from services.text.normalize import IGNORABLE, normalize, normalize_quote
from tests.services.spans.builders import chunk, cited, section_text, source

_WORD_CHARS = list("abcdefghijklmnopqrstuvwxyzABCDEFG") + [
    "\u00e9",
    "e\u0301",
    "\u00f1",
    "n\u0303",
    "\ufb01",
    "\ufb02",
    "\ufb00",
    "\uff21",
    "\u00c5",
]
_INNER = ["\u00ad", "\u200b", "\u200d"]
_SEPARATORS = [" ", " ", " ", "  ", "\n", "\t", "\u00a0", " \n ", "-\n", "\u00ad\n"]
_PUNCTUATION = ["\u201c", "\u201d", "\u2019", "\u2014", "\u2013", ",", ".", "'", '"']
_HYPHENS = "-\u00ad\u2010\u2011"
_BREAK_HYPHEN = re.compile(
    r"(?<=[^\W\d_]|[\u0300-\u036f])([-\u00ad\u2010\u2011])[ \t]*(?:\r\n|[\n\r])[ \t]*(?=[^\W\d_])"
)
_TYPOGRAPHY = str.maketrans(
    {"\u201c": '"', "\u201d": '"', "\u2019": "'", "\u2014": "-", "\u2013": "-"}
)


@st.composite
def _words(draw: st.DrawFn) -> str:
    letters = draw(st.lists(st.sampled_from(_WORD_CHARS), min_size=1, max_size=7))
    if len(letters) > 1 and draw(st.booleans()):
        letters.insert(
            draw(st.integers(1, len(letters) - 1)), draw(st.sampled_from(_INNER))
        )
    word = "".join(letters)
    if draw(st.integers(0, 5)) == 0:
        word = draw(st.sampled_from(_PUNCTUATION)) + word
    return word


@st.composite
def _source_texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(_words(), min_size=4, max_size=40))
    parts = [words[0]]
    for word in words[1:]:
        parts.append(draw(st.sampled_from(_SEPARATORS)))
        parts.append(word)
    return "".join(parts)


def _visible(char: str) -> bool:
    return (
        not char.isspace() and char not in IGNORABLE and not unicodedata.combining(char)
    )


def _clean_slice(text: str, start: int, end: int) -> bool:
    if not (0 <= start < end <= len(text)):
        return False
    if not (_visible(text[start]) and _visible(text[end - 1])):
        return False
    if end < len(text) and unicodedata.combining(text[end]):
        return False
    # Never split a line-end hyphen from its line break.
    cut_after = text[end - 1] in _HYPHENS and end < len(text) and text[end] in "\r\n \t"
    cut_before = (
        text[start] in _HYPHENS
        and start + 1 < len(text)
        and text[start + 1] in "\r\n \t"
    )
    return not (cut_after or cut_before)


@st.composite
def _renderings(draw: st.DrawFn, quote: str) -> str:
    """A canonical rendering of `quote`: any combination of the normalisations."""
    if draw(st.booleans()):
        keep = draw(st.booleans())
        quote = _BREAK_HYPHEN.sub(
            lambda m: "-" if keep and m.group(1) != "\u00ad" else "", quote
        )
        quote = re.sub(r"\s+", " ", quote)
    if draw(st.booleans()):
        # A soft hyphen at a line end marks a broken word: dropping it joins the lines.
        quote = _BREAK_HYPHEN.sub(
            lambda m: m.group() if m.group(1) != "\u00ad" else "", quote
        )
        quote = quote.translate(dict.fromkeys(map(ord, IGNORABLE)))
    if draw(st.booleans()):
        quote = quote.translate(_TYPOGRAPHY)
    form = draw(st.sampled_from([None, "NFC", "NFD", "NFKC", "NFKD"]))
    return unicodedata.normalize(form, quote) if form else quote


def _chunks(draw: st.DrawFn, text: str) -> list[dict]:
    """The text as 1-3 chunks of one section, touching or overlapping."""
    cuts = sorted(
        draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=2, unique=True))
    )
    bounds = [0, *cuts, len(text)]
    chunks = []
    for number, (start, end) in enumerate(itertools.pairwise(bounds)):
        overlap = draw(st.integers(0, min(3, start)))
        chunks.append(
            chunk(
                text[start - overlap : end],
                chunk_id=f"c{number}",
                section_id="sec",
                start_char=start - overlap,
            )
        )
    return chunks


def _assert_span_invariants(answer: AnswerCited, units: list[AnswerUnit]) -> None:
    for unit in units:
        if unit.kind == "derived":
            assert unit.source_spans == []
            continue
        assert unit.source_spans
        for span in unit.source_spans:
            assert 0 <= span.start_char < span.end_char
            section = section_text(answer, span.source_index, span.section_id)
            assert section[span.start_char : span.end_char] == span.quote
            if span.start_utf16 is not None:
                prefix = section[: span.start_char]
                assert span.start_utf16 == len(prefix.encode("utf-16-le")) // 2
                assert (
                    span.end_utf16 - span.start_utf16
                    == len(span.quote.encode("utf-16-le")) // 2
                )


def _occurrences(text: str, needle: str) -> int:
    return (
        sum(1 for i in range(len(text)) if text.startswith(needle, i)) if needle else 0
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_rendered_slice_resolves_to_the_original_slice(data: st.DataObject) -> None:
    text = data.draw(_source_texts())
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    assume(_clean_slice(text, start, end))
    original = text[start:end]
    assume(any(map(str.isalnum, original)))  # punctuation alone is no claim (quote_too_short)
    rendering = data.draw(_renderings(original))
    answer = cited(
        "x",
        [source(1, *_chunks(data.draw, text))],
        units=[
            {
                "id": "U1",
                "text": "x",
                "kind": "verbatim",
                "quote": rendering,
                "source_indexes": [1],
            }
        ],
    )
    [unit] = resolve_answer(answer).resolution.units
    _assert_span_invariants(answer, [unit])
    assert unit.kind == "verbatim", (text, original, rendering)
    [span] = unit.source_spans
    joined, kept = normalize(text), normalize(text, keep_break_hyphens=True)
    count = _occurrences(joined.text, normalize_quote(rendering)) or _occurrences(
        kept.text, normalize_quote(rendering, keep_break_hyphens=True)
    )
    # The raw text is searched first: a verbatim occurrence elsewhere is a fair match too.
    raw = rendering.strip()
    raw_elsewhere = any(text.startswith(raw, i) for i in range(len(text)) if i != start)
    if count == 1 and not raw_elsewhere:
        assert span.quote == original
        assert (span.start_char, span.end_char) == (start, end)
    else:
        assert normalize_quote(span.quote) == normalize_quote(original)


@settings(max_examples=150, deadline=None)
@given(
    st.data(),
    st.lists(
        st.tuples(st.sampled_from(["verbatim", "derived"]), st.text(max_size=12)),
        max_size=6,
    ),
)
def test_derived_units_never_have_spans(
    data: st.DataObject, specs: list[tuple[str, str]]
) -> None:
    text = data.draw(_source_texts())
    units = []
    for number, (kind, quote) in enumerate(specs):
        if data.draw(st.booleans()) and len(text) > 1:
            start = data.draw(st.integers(0, len(text) - 2))
            quote = text[start : data.draw(st.integers(start + 1, len(text)))]
        units.append(
            {
                "id": f"U{number}",
                "text": f"unit {number}",
                "kind": kind,
                "quote": quote,
                "source_indexes": [1, 2],
            }
        )
    sources = [
        source(1, *_chunks(data.draw, text)),
        source(2, chunk(text[::-1], chunk_id="r")),
    ]
    answer = cited(
        " ".join(f"unit {n}" for n in range(len(units))), sources, units=units or None
    )
    resolved = resolve_answer(answer).resolution
    _assert_span_invariants(answer, resolved.units)
    for unit, spec in zip(resolved.units, units):
        if spec["kind"] == "derived":
            assert unit.kind == "derived" and not unit.downgraded
        assert unit.downgraded == (
            spec["kind"] == "verbatim" and unit.kind == "derived"
        )
