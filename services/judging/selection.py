"""Which citations of a formatted answer a model judge is asked about, and what it reads.

The default scope, `doubtful`, sends only the citations a lexical check cannot settle:
`partial`, `unverifiable` with a passage to read, and cross-language ones (claim and source
in different languages); `all` sends every valid citation with a passage. The claim is the
citation's sentence; the evidence is its supporting passage (the link the lexical check
used, or its evidence span), cut to the window of at most `context_chars` that shares the
most words with the claim, so a source of any size is never sent whole.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Literal

from schemas.formatted import AnswerFormatted, FormattedCitation

Scope = Literal["all", "doubtful"]
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A citation to judge: its claim, the evidence window and where it starts in the
    passage the reader shows (`offset`)."""

    index: int
    citation: FormattedCitation
    claim: str
    evidence: str
    offset: int


def is_doubtful(answer: AnswerFormatted, citation: FormattedCitation) -> bool:
    """Partial, unverifiable, or cross-language."""
    support = citation.support
    assert support is not None
    if support.verdict in ("partial", "unverifiable") or support.reason == "cross_language":
        return True
    source = next((s for s in answer.sources if s.index == citation.source_index), None)
    return bool(source and source.language and answer.language
                and "und" not in (source.language, answer.language)
                and source.language != answer.language)


def candidates(answer: AnswerFormatted, scope: Scope, context_chars: int) -> list[Candidate]:
    """The citations to judge, in the answer's order."""
    found = []
    for index, citation in enumerate(answer.citations):
        support = citation.support
        if support is None or not citation.valid:
            continue
        if scope == "doubtful" and not is_doubtful(answer, citation):
            continue
        passage = _passage(answer, citation)
        if not passage.strip() or not 0 <= citation.sentence_index < len(answer.sentences):
            continue
        claim = answer.sentences[citation.sentence_index].text
        start, end = best_window(claim, passage, context_chars)
        found.append(Candidate(index, citation, claim, passage[start:end], start))
    return found


def _passage(answer: AnswerFormatted, citation: FormattedCitation) -> str:
    support = citation.support
    assert support is not None
    if support.link is not None and 0 <= support.link < len(answer.links):
        return answer.links[support.link].passage
    return support.evidence.quote if support.evidence is not None else ""


def best_window(claim: str, passage: str, size: int) -> tuple[int, int]:
    """The [start, end) of the window of at most `size` characters of `passage` (windows
    overlap by half) holding the most distinct words of the claim; the whole passage when it
    fits."""
    if len(passage) <= size:
        return 0, len(passage)
    words = {w.lower() for w in _WORD.findall(claim)}
    # The claim's words in the passage, by position (one pass over the passage).
    hits = [(m.start(), m.group(0).lower()) for m in _WORD.finditer(passage)
            if m.group(0).lower() in words]
    positions = [at for at, _ in hits]
    step = max(1, size // 2)
    best, best_count = 0, -1
    for start in range(0, len(passage) - size + step, step):
        first = bisect_left(positions, start)
        last = bisect_left(positions, start + size)
        count = len({word for _, word in hits[first:last]})
        if count > best_count:
            best, best_count = start, count
    start = min(best, len(passage) - size)
    return start, start + size
