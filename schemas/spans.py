"""`answer.resolved`: answer units with exact source spans and locators."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemas.answers import AnswerSubmitted
from schemas.base import Model, Problem
from schemas.citations import CitationExtraction
from schemas.scoring import SourceScore


class TextQuoteSelector(Model):
    """W3C Web Annotation TextQuoteSelector."""

    type: Literal["TextQuoteSelector"] = "TextQuoteSelector"
    exact: str
    prefix: str = ""
    suffix: str = ""


class Locator(Model):
    """Where a reader lands: a container plus a TextQuoteSelector."""

    type: Literal["epub_text", "pdf_text", "text", "web"]
    href: str | None = None
    page: int | None = None
    section_id: str | None = None
    url: str | None = None
    selector: TextQuoteSelector


class SourceSpan(Model):
    """An exact, checkable location in a source section."""

    doc_id: str | None = None
    section_id: str
    source_index: int
    chunk_id: str | None = None
    start_char: int = Field(ge=0)
    end_char: int = Field(gt=0)
    start_utf16: int | None = None
    end_utf16: int | None = None
    quote: str
    locator: Locator | None = None


class ApproximateMatch(Model):
    """Diagnostic only: the closest text found for a quote that was not found. Never a span."""

    source_index: int
    section_id: str
    chunk_id: str | None = None
    start_char: int
    end_char: int
    text: str
    score: float


class AnswerUnit(Model):
    """A unit of the answer. Only `verbatim` units have spans and are clickable."""

    id: str
    text: str
    kind: Literal["verbatim", "derived"]
    start: int | None = None
    end: int | None = None
    start_utf16: int | None = None
    end_utf16: int | None = None
    source_spans: list[SourceSpan] = Field(default_factory=list)
    supporting_sources: list[str] = Field(default_factory=list)
    origin: Literal["upstream", "sentence", "quotation"] = "upstream"
    downgraded: bool = False
    closest_match: ApproximateMatch | None = None


class Link(Model):
    """A clickable citation link (seed 001): a citation to its passage and locator."""

    citation_id: int
    sentence_index: int
    source_index: int
    doc_id: str | None = None
    doc_title: str | None = None
    chunk_id: str | None = None
    score: float = 0.0
    excerpt: str = ""
    passage: str = ""
    locator: Locator | None = None


Verdict = Literal["supported", "partial", "unsupported", "unverifiable"]


class AnswerWord(Model):
    """Words of the answer as they are written there: `text` is `answer.text[start:end]`
    (code points; `start_utf16`/`end_utf16` in UTF-16 code units, for JavaScript)."""

    text: str
    start: int = Field(ge=0)
    end: int = Field(gt=0)
    start_utf16: int | None = None
    end_utf16: int | None = None


class Atom(Model):
    """One atomic claim of a cited sentence (a clause, a coordinated part, an apposition, a
    parenthetical, a quote, a number or date) and its own verdict: `text` is
    `answer.text[start:end]`; its evidence is the passage `link` (an index in `links`) or
    the window `evidence` of the cited source; `judge` is `verbatim` for a quote found
    word for word."""

    text: str
    start: int = Field(ge=0)
    end: int = Field(gt=0)
    verdict: Literal["supported", "partial", "unsupported"]
    link: int | None = None
    evidence: SourceSpan | None = None
    judge: str = "lexical"


class Support(Model):
    """Whether the cited source backs a citation's claim.

    `score` is in [0, 1]; `link` is the index in `links` of the supporting passage that is
    the evidence (its locator is there); `evidence` is the best-supporting window of the
    cited source as a span, only where no passage is the evidence (a source without
    passages; a verbatim sentence: its span);
    `missing` the claim's words and numbers the source lacks (as terms, the older form),
    `missing_words` the same words as the answer writes them, with their offsets in the
    answer text; `atoms` the sentence's atomic claims, each with its own verdict and
    evidence (together, the citation's evidence set; words of an atom that another
    sentence of the source backs follow it as an atom of their own, `supported`, with that
    sentence as evidence); `conflicts` what disagrees
    (`number`, `negation`, `name`); `better_source` another supplied source that supports the
    claim clearly better; `judge` what gave the verdict (`lexical`, `verbatim`, `nli:<model>`);
    `reason` why a verdict is `unverifiable` (`cross_language`: claim and source are in
    different languages; `no_source_text`; `nothing_to_check`), or why a cross-language
    claim is `unsupported` (`cross_language`: its numbers or names are not in the source).
    """

    verdict: Verdict
    score: float = Field(ge=0.0, le=1.0)
    link: int | None = None
    evidence: SourceSpan | None = None
    missing: list[str] = Field(default_factory=list)
    missing_words: list[AnswerWord] = Field(default_factory=list)
    atoms: list[Atom] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    better_source: int | None = None
    judge: str
    reason: str | None = None


class AnswerQuality(Model):
    """Citation quality of one answer: ALCE recall and precision, and verdict counts."""

    judge: str
    sentences: int = 0
    sentences_uncited: int = 0
    uncited_sentence_share: float = 0.0
    citation_recall: float = 0.0
    citation_precision: float = 0.0
    citations_judged: int = 0
    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    unverifiable: int = 0
    better_source_found: int = 0


class SpanResolution(Model):
    """Everything the spans stage finds. `support` has one entry per citation of the
    extraction, in order (null for an invalid citation)."""

    units: list[AnswerUnit] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    problems: list[Problem] = Field(default_factory=list)
    support: list[Support | None] = Field(default_factory=list)
    quality: AnswerQuality | None = None


class AnswerResolved(Model):
    """`citeflow.answer.resolved.v1`."""

    answer: AnswerSubmitted
    scores: list[SourceScore]
    passage_sources: list[int] = Field(default_factory=list)
    extraction: CitationExtraction
    resolution: SpanResolution
