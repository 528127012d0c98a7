"""Checking a model's quote against the evidence it was shown, before anyone sees it.

A quote counts only where it is in the evidence: exactly, or with runs of white space
differing (models re-flow line breaks). Its offsets are the evidence's own.
"""

from __future__ import annotations

import re

from schemas.judged import EvidenceQuote

_SPACE = re.compile(r"\s+")


def locate(quote: str, evidence: str) -> EvidenceQuote | None:
    """Where `quote` is in `evidence` (the evidence's own text there), or None."""
    needle = quote.strip()
    if not needle:
        return None
    at = evidence.find(needle)
    if at >= 0:
        return EvidenceQuote(text=needle, start=at, end=at + len(needle))
    pattern = r"\s+".join(re.escape(word) for word in _SPACE.split(needle))
    match = re.search(pattern, evidence)
    if match is None:
        return None
    return EvidenceQuote(text=match.group(0), start=match.start(), end=match.end())
