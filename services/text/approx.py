"""Approximate quote matching with the semantics of Hypothesis' `matchQuote`.

`approx_search` finds every lowest-error occurrence of a pattern in a text (Levenshtein
errors, any start and end): Myers' bit-parallel algorithm over Python integers, so the pattern
length is unbounded and the loop runs once per text character. When a text end admits several
starts with the same error count, the longest match is taken, as approx-string-match does;
unlike it, the start is anchored (the reported text really is `errors` edits from the
pattern), where approx-string-match's unanchored reverse search can over-extend a match.

`match_quote` ranks those occurrences the way Hypothesis does: quote similarity (weight 50),
prefix and suffix similarity (20 each) and closeness to a position hint (2); ties keep the
earliest occurrence. It is a diagnostic helper: citeflow never turns its result into a span.
"""

from __future__ import annotations

from dataclasses import dataclass

_QUOTE_WEIGHT = 50.0
_CONTEXT_WEIGHT = 20.0
_POSITION_WEIGHT = 2.0
_MAX_ERRORS_CAP = 256


@dataclass(frozen=True, slots=True)
class StringMatch:
    """An occurrence of a pattern: `text[start:end]`, `errors` edits away from it."""

    start: int
    end: int
    errors: int


@dataclass(frozen=True, slots=True)
class QuoteMatch:
    """The best occurrence of a quote; `score` in (0, 1], 1.0 for an exact match in context."""

    start: int
    end: int
    score: float
    errors: int


def _match_ends(text: str, pattern: str, max_errors: float) -> list[tuple[int, int]]:
    """(end, errors) of every occurrence with the lowest error count <= max_errors."""
    m = len(pattern)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, ch in enumerate(pattern):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    pv, mv, score = mask, 0, m
    best: list[tuple[int, int]] = []
    for j, ch in enumerate(text):
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = (ph << 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
        if score <= max_errors:
            if score < max_errors:
                best.clear()
            best.append((j + 1, score))
            max_errors = float(score)  # the bound only tightens
    return best


def _prefix_distances(text: str, pattern: str) -> list[int]:
    """Edit distance of `pattern` to `text[:j]` for every j >= 1 (Myers, global mode)."""
    m = len(pattern)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, ch in enumerate(pattern):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    pv, mv, score = mask, 0, m
    distances: list[int] = []
    for ch in text:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
        distances.append(score)
    return distances


def approx_search(text: str, pattern: str, max_errors: float) -> list[StringMatch]:
    """Every lowest-error occurrence of `pattern` in `text` with at most `max_errors` errors."""
    if not pattern or not text:
        return []
    reversed_pattern = pattern[::-1]
    matches: list[StringMatch] = []
    for end, errors in _match_ends(text, pattern, max_errors):
        window_start = max(0, end - len(pattern) - errors)
        window = text[window_start:end][::-1]
        # The longest match: the longest text ending at `end` with the same error count.
        distances = _prefix_distances(window, reversed_pattern)
        longest = max(length for length, d in enumerate(distances, 1) if d == errors)
        matches.append(StringMatch(end - longest, end, errors))
    return matches


def search(text: str, pattern: str, max_errors: float) -> list[StringMatch]:
    """Exact occurrences when there are any (cheap), else the best approximate ones."""
    exact: list[StringMatch] = []
    position = text.find(pattern) if pattern else -1
    while position != -1:
        exact.append(StringMatch(position, position + len(pattern), 0))
        position = text.find(pattern, position + 1)
    return exact or approx_search(text, pattern, max_errors)


def _context_score(actual: str, expected: str) -> float:
    """Similarity of the text found next to a match to the expected context, in [0, 1]."""
    if not expected or not actual:
        return 0.0
    return 1.0 - search(actual, expected, len(expected))[0].errors / len(expected)


def match_quote(
    text: str,
    quote: str,
    *,
    prefix: str | None = None,
    suffix: str | None = None,
    hint: int | None = None,
) -> QuoteMatch | None:
    """The best occurrence of `quote` in `text` given its context, or None when no occurrence
    is within min(256, len(quote) / 2) errors."""
    if not quote:
        return None
    candidates = search(text, quote, min(_MAX_ERRORS_CAP, len(quote) / 2))
    if not candidates:
        return None
    total = _QUOTE_WEIGHT + 2 * _CONTEXT_WEIGHT + _POSITION_WEIGHT

    def score(match: StringMatch) -> float:
        quote_score = 1.0 - match.errors / len(quote)
        prefix_score = (
            _context_score(
                text[max(0, match.start - len(prefix)) : match.start], prefix
            )
            if prefix
            else 1.0
        )
        suffix_score = (
            _context_score(text[match.end : match.end + len(suffix)], suffix)
            if suffix
            else 1.0
        )
        position_score = (
            1.0 - abs(match.start - hint) / len(text) if hint is not None else 1.0
        )
        raw = (
            _QUOTE_WEIGHT * quote_score
            + _CONTEXT_WEIGHT * (prefix_score + suffix_score)
            + _POSITION_WEIGHT * position_score
        )
        return raw / total

    best, best_score = candidates[0], score(candidates[0])
    for candidate in candidates[1:]:
        candidate_score = score(candidate)
        if candidate_score > best_score:
            best, best_score = candidate, candidate_score
    return QuoteMatch(best.start, best.end, best_score, best.errors)
