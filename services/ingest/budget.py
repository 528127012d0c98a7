"""What an answer costs the events built for it, and the door's limit derived from the broker's.

Every event the pipeline builds for an answer (accepted, scored, cited, resolved, formatted,
judged) is at most EVENT_MULTIPLE times the answer's weight: its JSON as produced (every
field written); its text once more as JSON and once as the HTML rendering escapes it (the
text is carried as its sentences, segments, units and three renderings, and a character can
take several bytes in each: `&` is `&amp;`, a control `\u0001`); each citing sentence once
for each source it cites (the citation map lists it under each); SENTENCE_BYTES per sentence
and CITATION_BYTES per citation (the per-item JSON of the extraction, links and verdicts,
which a text dense with short sentences or markers has many more of than it has bytes). The
door (ingest, the gateway, `citeflow process`) refuses an answer heavier than the limit,
MAX_RECORD_BYTES / EVENT_MULTIPLE, so every accepted answer fits through every hop.

Sentences and citations are counted as the citations stage counts them (`extract_answer`),
and the JSON written, only when a bound that costs a few scans of the text (and the bytes
the answer was read from) says they could matter: an ordinary answer is weighed without
being segmented or written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from schemas.answers import AnswerSubmitted
from schemas.envelope import payload_json
from services.formatting.escaping import escape_html
from services.runtime.topic_specs import MAX_RECORD_BYTES
from services.text.extraction import extract_answer
from services.text.marker_styles import has_rare_start
from services.text.markers import MAX_RANGE

EVENT_MULTIPLE = 4
SENTENCE_BYTES = 256
CITATION_BYTES = 2048
# An answer's JSON as produced is at most this many times the bytes it was read from: the
# defaults are written (an empty source, `{"index":1}`, grows 16-fold), escapes only shrink.
JSON_GROWTH = 20
# The heaviest answer the stages can carry: the default (and the ceiling) of
# CITEFLOW_MAX_ANSWER_BYTES.
MAX_WEIGHT = MAX_RECORD_BYTES // EVENT_MULTIPLE

_DIGIT = re.compile(r"\d")
# From each `[` to the next `]`: where every number of a `[…]` marker is.
_BRACKETED = re.compile(r"\[[^\]]*")


@dataclass(frozen=True, slots=True)
class Weight:
    """An answer's weight and its parts (`counted`: measured and counted, not bounded)."""

    json_bytes: int
    text_bytes: int
    # the citing sentences' bytes, once for each source a sentence cites
    cited_text_bytes: int
    sentences: int
    citations: int
    counted: bool

    @property
    def total(self) -> int:
        return (self.json_bytes + self.text_bytes + self.cited_text_bytes
                + SENTENCE_BYTES * self.sentences + CITATION_BYTES * self.citations)

    def describe(self) -> str:
        """The weight as a sentence part, for a rejection's message."""
        return (f"weighs {self.total} bytes ({self.json_bytes} of JSON with every field "
                f"written, {self.text_bytes} of text escaped, {self.cited_text_bytes} of citing "
                f"sentences once per source they cite, {self.sentences} sentences at "
                f"{SENTENCE_BYTES} and {self.citations} citations at {CITATION_BYTES})")


def _bounds(answer: AnswerSubmitted) -> tuple[int, int] | None:
    """Upper bounds of the sentences and citations of `answer` from scans of its text, or
    None where a marker style or span citations leave no cheap bound.

    A sentence holds at least two characters (a letter and its terminator). A citation of a
    `[…]` marker is one of its numbers (at least a digit between its `[` and the next `]`)
    or a member of one of its ranges (at most MAX_RANGE + 1 per dash there); the rarer
    styles (superscripts, `<sup>`, `【…】`) and span citations (cut at sentence bounds) are
    counted instead."""
    text = answer.text
    if answer.citations or has_rare_start(text):
        return None
    citations = 0
    if "[" in text:
        inside = "".join(_BRACKETED.findall(text))
        dashes = inside.count("-") + inside.count("–")
        digits = (sum(map(inside.count, "0123456789")) if inside.isascii()
                  else len(_DIGIT.findall(inside)))
        citations = digits + (MAX_RANGE + 1) * dashes
    return len(text) // 2 + 1, citations


def answer_weight(
    answer: AnswerSubmitted, limit: int, *, json_bytes: int | None = None, read_bytes: int = 0
) -> Weight:
    """The weight of `answer` (its JSON `json_bytes` long when the caller wrote it, else read
    from `read_bytes` bytes): bounded when the bound is within `limit`, else measured and
    counted. A weight over `limit` is always the measured one."""
    text = answer.text
    text_json = _json_length(text)
    text_bytes = text_json + _json_length(escape_html(text))
    bounds = _bounds(answer)
    if bounds is not None:
        json_bound = json_bytes if json_bytes is not None else JSON_GROWTH * read_bytes
        sentences, citations = bounds
        bounded = Weight(json_bound, text_bytes, text_json * citations, sentences, citations,
                         counted=False)
        if bounded.total <= limit:
            return bounded
    if json_bytes is None:
        json_bytes = len(payload_json(answer))
    extracted = extract_answer(answer)
    sentence_list = extracted.sentences
    # The citation map lists each sentence under each source id it cites, with its text
    # (a citation outside the text, e.g. a provider's span past its end, reaches none).
    cited = {(c.id, reached) for c in extracted.citations
             for reached in c.sentence_indexes or (c.sentence_index,)
             if reached < len(sentence_list)}
    cited_text = sum(_json_length(sentence_list[reached].text) for _, reached in cited)
    return Weight(json_bytes, text_bytes, cited_text, len(sentence_list),
                  len(extracted.citations), counted=True)


def _json_length(text: str) -> int:
    """The bytes of `text` as a JSON string (escapes and quotes included)."""
    try:
        return len(orjson.dumps(text))
    except orjson.JSONEncodeError:  # a lone surrogate: written as \uXXXX by the fallback
        return 6 * len(text) + 2
