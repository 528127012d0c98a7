"""The answer's own unsupported words, as the renderings mark them.

A word is unsupported when every judged citation of its sentence names it among the words
its source does not back (`support.missing_words`, offsets in the answer): a word another
cited source backs is not marked. Unverifiable verdicts say nothing about words and are left
out. A word that a marker or a unit boundary would cut is not marked (the markup could not
nest). In markdown and plain text a word is marked as a CriticMarkup highlight,
`{==word==}`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from schemas.citations import Citation
from schemas.spans import Support

MARK_OPEN = "{=="
MARK_CLOSE = "==}"

Word = tuple[int, int]


def unsupported_words(
    citations: Sequence[Citation], support: Sequence[Support | None]
) -> list[Word]:
    """`[start, end)` of every unsupported word of the answer, in text order."""
    by_sentence: dict[int, set[Word]] = {}
    for citation, entry in zip(citations, support):
        if entry is None or entry.verdict == "unverifiable":
            continue
        words = {(word.start, word.end) for word in entry.missing_words}
        sentence = citation.sentence_index
        found = by_sentence.get(sentence)
        by_sentence[sentence] = words if found is None else found & words
    return sorted(word for words in by_sentence.values() for word in words)


def markable(
    words: list[Word], length: int, starts: list[int], ends: list[int], bounds: list[int]
) -> list[Word]:
    """The words (in order) that lie inside the text, overlap no earlier word, and are cut
    by no marker (`starts`/`ends`, in order) nor unit boundary (`bounds`, in order)."""
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
    `layout.cut` gives them), each word inside a piece wrapped in `{==` `==}`; a word in a
    cut-out range is left out."""
    piece_starts = [0, *ends]
    piece_ends = [*starts, len(text)]
    pieces = [text[start:end] for start, end in zip(piece_starts, piece_ends)]
    by_piece: dict[int, list[Word]] = {}
    for start, end in words:
        k = bisect_right(piece_starts, start) - 1
        if k >= 0 and end <= piece_ends[k]:
            by_piece.setdefault(k, []).append((start, end))
    for k, inside in by_piece.items():
        base = piece_starts[k]
        piece = pieces[k]
        out: list[str] = []
        last = 0
        for start, end in inside:
            out += [piece[last : start - base], MARK_OPEN, piece[start - base : end - base],
                    MARK_CLOSE]
            last = end - base
        out.append(piece[last:])
        pieces[k] = "".join(out)
    return pieces
