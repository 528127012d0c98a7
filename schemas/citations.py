"""`answer.cited`: citations, sentences, maps, segments, coverage, references, passages."""

from __future__ import annotations

from pydantic import Field

from schemas.answers import AnswerSubmitted
from schemas.base import Model, Problem, Span
from schemas.scoring import SourceScore


class Citation(Span):
    """One citation marker. `id` is the index of the source it cites.

    A citation a provider gave as a span over the answer has no marker in the text:
    `marker` is "", `start == end` is where its chip goes (after the supported text), and
    `span` is the supported text; `None` for markers written in the text.
    """

    id: int
    marker: str
    source_index: int | None = None
    valid: bool = True
    problem: str | None = None
    cluster_index: int = 0
    sentence_index: int = 0
    # Additive: a pinpoint's page (`[1, p. 12]`), and a span citation's text (one
    # nested value: two null keys per citation on every hop, not five).
    page: int | None = None
    span: Span | None = None


class Cluster(Span):
    """Adjacent markers cited together, e.g. `[1][2]` or `[1, 2]`."""

    marker: str
    citation_ids: list[int]


class Sentence(Span):
    """A sentence of the answer with every citation inside it (valid or not)."""

    index: int
    text: str
    citation_ids: list[int] = Field(default_factory=list)


class SentenceRef(Model):
    """An entry of the citation map."""

    sentence_index: int
    sentence_text: str


class SegmentCitation(Model):
    """A citation as it appears inside an inline segment (seed 003)."""

    id: int
    marker: str
    start: int
    end: int
    source_index: int | None = None
    source_kind: str | None = None
    source_id: str | None = None
    valid: bool = True


class Segment(Span):
    """A piece of answer text ending with the citations that back it."""

    text: str
    citations: list[SegmentCitation] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)


class SourceCoverage(Model):
    """How often one source is cited."""

    citations: int = 0
    sentences: int = 0


class Coverage(Model):
    """Share of the answer backed by a valid citation."""

    sentences_total: int = 0
    sentences_cited: int = 0
    sentence_ratio: float = 0.0
    chars_total: int = 0
    chars_cited: int = 0
    char_ratio: float = 0.0
    per_source: dict[str, SourceCoverage] = Field(default_factory=dict)


class Rival(Model):
    """The other supplied source that best supports a sentence whose own passage's check
    falls short of support (the support check's better-source search, made where the passages
    are chosen; services.citations.rivals): its index (null when no source not cited in the
    sentence might score clearly better) and its best passage's check figures, as a
    passage's own (`terms` is the passage's)."""

    source_index: int | None = None
    absent: int = 0
    lacking: int = 0
    conflicts: list[str] = Field(default_factory=list)


class SupportingPassage(Model):
    """The passage of a cited, eligible source that best supports a sentence."""

    citation_id: int
    sentence_index: int
    source_index: int
    chunk_id: str | None = None
    chunk_position: int = 0
    section_id: str | None = None
    start_char: int = 0
    end_char: int = 0
    passage: str
    score: float = 0.0
    # The lexical support check (services.verification) of this sentence against
    # this source, found while the passage is chosen (services.citations.checks): the
    # sentence's item count (content terms and numbers), its items the whole source lacks,
    # how many more the passage lacks (listed in `lacking_items`: the check of several
    # sources together and the atoms' missing words read them), whether the passage holds a negation,
    # and the check's conflicts (`number`, `negation`). `terms` is null when the sentence
    # or the source reads otherwise in canonical form (the check then reads the texts).
    terms: int | None = None
    absent: list[str] = Field(default_factory=list)
    lacking: int = 0
    lacking_items: list[str] = Field(default_factory=list)
    negated: bool = False
    conflicts: list[str] = Field(default_factory=list)
    # Set when this is the only source the sentence cites and the check falls short of
    # support: the search for a better source, done (null: not done here; the spans stage
    # then searches the sources itself).
    rival: Rival | None = None


class CitationExtraction(Model):
    """Everything the citations stage finds."""

    citations: list[Citation] = Field(default_factory=list)
    clusters: list[Cluster] = Field(default_factory=list)
    sentences: list[Sentence] = Field(default_factory=list)
    citation_map: dict[str, list[SentenceRef]] = Field(default_factory=dict)
    sentence_map: dict[str, list[int]] = Field(default_factory=dict)
    segments: list[Segment] = Field(default_factory=list)
    coverage: Coverage = Field(default_factory=Coverage)
    references: dict[str, str] = Field(default_factory=dict)
    passages: list[SupportingPassage] = Field(default_factory=list)
    problems: list[Problem] = Field(default_factory=list)


class AnswerCited(Model):
    """`citeflow.answer.cited.v1`."""

    answer: AnswerSubmitted
    scores: list[SourceScore]
    passage_sources: list[int] = Field(default_factory=list)
    extraction: CitationExtraction
