"""The answer's own unsupported words, as the renderings mark them.

A word is unsupported when every judged citation of its sentence names it among the words
its source does not back (`support.missing_words`, offsets in the answer): a word another
cited source backs is not marked, and a sentence a citation supports (its verdict
`supported`: the words it lacks did not change that) has none. Unverifiable verdicts say
nothing about words and are left out. A word that a marker or a unit boundary would cut is not marked (the markup could not
nest). In markdown and plain text a word is marked as a CriticMarkup highlight,
`{==word==}`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import chain, repeat
from operator import attrgetter, eq, gt, itemgetter, le, lt
from typing import Any

from schemas.rows import Row
from services.formatting.layout import cut

MARK_OPEN = "{=="
MARK_CLOSE = "==}"

Word = tuple[int, int]
_SPAN = itemgetter("start", "end")
_SPAN_OF = attrgetter("start", "end")


def unsupported_words(citations: Sequence[Row], support: Sequence[Any]) -> list[Word]:
    """`[start, end)` of every unsupported word of the answer, in text order (`citations`:
    the extraction's `rows`; `support`: the resolution's `members`)."""
    by_sentence: dict[int, set[Word]] = {}
    for citation, entry in zip(citations, support):
        if entry is None:
            continue
        # (a JSON object's words are JSON objects too, a model's models: read as such,
        # without a call per entry and word)
        json = type(entry) is dict
        fields = entry if json else entry.__dict__
        verdict = fields["verdict"]
        if verdict == "unverifiable":
            continue
        words: set[Word] = (
            set()
            if verdict == "supported"
            else set(map(_SPAN if json else _SPAN_OF, fields["missing_words"]))
        )
        sentence = citation["sentence_index"]
        found = by_sentence.get(sentence)
        by_sentence[sentence] = words if found is None else found & words
    return sorted(chain.from_iterable(by_sentence.values()))


def markable(
    words: list[Word], length: int, starts: list[int], ends: list[int], bounds: list[int]
) -> list[Word]:
    """The words (in order) that lie inside the text, overlap no earlier word, and are cut
    by no marker (`starts`/`ends`, in order) nor unit boundary (`bounds`, in order)."""
    # The usual case, every word clear, is checked in C loops (`map` over bisections).
    word_starts = [start for start, _ in words]
    word_ends = [end for _, end in words]
    before = [-1, *ends]  # the end of the last marker starting before a word ends
    if (
        word_starts[0] >= 0
        and word_ends[-1] <= length
        and all(map(lt, word_starts, word_ends))
        and all(map(le, word_ends, word_starts[1:]))
        and not any(map(gt, map(before.__getitem__, map(bisect_left, repeat(starts),
                                                          word_ends)), word_starts))
        and all(map(eq, map(bisect_right, repeat(bounds), word_starts),
                    map(bisect_left, repeat(bounds), word_ends)))
    ):
        return words
    kept: list[Word] = []
    last = 0
    for start, end in words:
        if not 0 <= start < end <= length or start < last:
            continue
        # the last marker starting before the word ends must end by its start (a marker
        # of no width, a span citation's chip, only strictly inside the word cuts it)
        k = bisect_left(starts, end)
        if k and ends[k - 1] > start:
            continue
        if bisect_right(bounds, start) != bisect_left(bounds, end):
            continue  # a unit starts or ends strictly inside the word
        kept.append((start, end))
        last = end
    return kept


def marked_cut(
    text: str, starts: list[int], ends: list[int], words: list[Word]
) -> list[str]:
    """The text before, between and after the ranges `[starts[k], ends[k])` (as
    `layout.cut` gives them), each word wrapped in `MARK_OPEN` and `MARK_CLOSE`; the words
    (from `markable`) cross no range's edge. The text is marked in one pass, then cut where
    the ranges moved to (each by the marks of the words ending before it)."""
    word_starts = [start for start, _ in words]
    word_ends = [end for _, end in words]
    marked = [""] * (2 * len(words) + 1)
    marked[0::2] = cut(text, word_starts, word_ends)
    marked[1::2] = [MARK_OPEN + text[start:end] + MARK_CLOSE for start, end in words]
    width = len(MARK_OPEN) + len(MARK_CLOSE)
    return cut("".join(marked), _moved(starts, word_ends, width), _moved(ends, word_ends, width))


def _moved(positions: list[int], word_ends: list[int], width: int) -> list[int]:
    """`positions` in the marked text: each after the marks of the words ending by it."""
    before = map(bisect_right, repeat(word_ends), positions)
    return [position + width * count for position, count in zip(positions, before)]
