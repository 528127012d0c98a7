"""The closest approximate match of a quote that was not found: a diagnostic, never a span.

rapidfuzz's `partial_ratio` (C, fast) picks the piece most similar to the quote (ties go to the
unit's own sources, then source order) and `partial_ratio_alignment` the region of it; the
Hypothesis-compatible `match_quote` then finds the best occurrence in that region, widened by
the quote's length on each side, and scores it (1 - errors / len(quote), weighted as
Hypothesis does). Working on a region keeps the cost proportional to the quote, not to the
section. A quote more than half wrong has no closest match.
"""

from __future__ import annotations

from collections.abc import Collection

from rapidfuzz import fuzz

from schemas.spans import ApproximateMatch
from services.spans.sections import Piece
from services.text.approx import match_quote

# Pieces scoring below this partial-ratio (0-100) cannot hold a match within len/2 errors
# in practice; skipping them keeps the diagnostic cheap.
_MIN_PARTIAL_RATIO = 50.0


def closest_match(
    quote: str, pieces: list[Piece], preferred: Collection[int] = ()
) -> ApproximateMatch | None:
    """The closest approximate occurrence of `quote` in `pieces`, or None."""
    quote = quote.strip()
    if not quote:
        return None
    best: Piece | None = None
    best_key: tuple[float, bool] = (_MIN_PARTIAL_RATIO, False)
    for piece in pieces:
        ratio = fuzz.partial_ratio(quote, piece.text, score_cutoff=best_key[0])
        key = (ratio, piece.source_index in preferred)
        if ratio and key > best_key:
            best, best_key = piece, key
    if best is None:
        return None
    region = fuzz.partial_ratio_alignment(quote, best.text)
    if region is None:
        return None
    low = max(0, region.dest_start - len(quote))
    window = best.text[low : region.dest_end + len(quote)]
    match = match_quote(window, quote)
    if match is None:
        return None
    start, end = low + match.start, low + match.end
    return ApproximateMatch(
        source_index=best.source_index,
        section_id=best.section_id,
        chunk_id=best.place_at(start).chunk_id,
        start_char=best.section_start + start,
        end_char=best.section_start + end,
        text=best.text[start:end],
        score=round(match.score, 4),
    )
