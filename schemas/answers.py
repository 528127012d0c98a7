"""The upstream contract (`answer.submitted` v1), acceptance and rejection."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from schemas.base import Model

ANSWER_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,200}$"
MAX_TEXT_CHARS = 200_000
MAX_SOURCES = 1_000

RenderingName = Literal["markdown", "html", "plain"]
ALL_RENDERINGS: tuple[RenderingName, ...] = ("markdown", "html", "plain")


def unidentified_answer_id(position: str) -> str:
    """What an input with no readable answer id is reported and stored under: `@` + where it
    was read (`topic:partition:offset`). `@` is outside ANSWER_ID_PATTERN, so this never
    names a submitted answer, and the same input read again gets the same id."""
    return "@" + position


class Chunk(Model):
    """A retrieved passage of a source, with where it sits in its section."""

    chunk_id: str | None = None
    text: str
    section_id: str | None = None
    href: str | None = None
    page: int | None = Field(default=None, ge=1)
    start_char: int | None = Field(default=None, ge=0)


SOURCE_KINDS = ("web", "document")


def infer_kind(source: dict[str, Any]) -> str:
    """The kind of a source given without one, where only one fits: a `url` and no `doc_id`
    (and not a PDF or EPUB) is a web page; a `doc_id` and no `url`, or neither (plain
    passages), a document. Anything else is a `source_kind` error naming the choices."""
    url, doc_id = source.get("url"), source.get("doc_id")
    if url and not doc_id and source.get("format") not in ("pdf", "epub"):
        return "web"
    if not url:
        return "document"
    raise PydanticCustomError(
        "source_kind",
        "the source has both a url and a doc_id (or a url to a PDF or EPUB), so its kind "
        "cannot be told: give \"kind\": \"web\" (links and highlights go to the page at url) "
        "or \"kind\": \"document\" (an uploaded EPUB or PDF named by doc_id)",
    )


class Source(Model):
    """One source the model saw; the answer cites it as `[index]`. `kind`, when left out, is
    inferred where only one fits (`infer_kind`), never guessed."""

    index: int = Field(ge=1)
    kind: Literal["document", "web"] = "document"
    source_id: str | None = None
    doc_id: str | None = None
    title: str | None = None
    url: str | None = None
    format: Literal["pdf", "epub", "html", "text"] | None = None
    score: float | None = None
    authors: list[str] = Field(default_factory=list)
    journal: str | None = None
    year: int | None = None
    doi: str | None = None
    pmid: str | None = None
    chunks: list[Chunk] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _kind_when_left_out(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("kind") is None:
            return {**data, "kind": infer_kind(data)}
        return data


class AnswerUnitIn(Model):
    """An upstream classification of part of the answer."""

    id: str
    text: str
    kind: Literal["verbatim", "derived"]
    quote: str | None = None
    source_indexes: list[int] = Field(default_factory=list)


class CitationIn(Model):
    """A citation the provider gave over the answer text, offsets in code points.

    `visible` False: `[start, end)` is the answer text the citation supports, with no marker
    in the text (Anthropic, Gemini, Cohere, Bedrock); an empty span is a point after the
    supported text. `visible` True: `[start, end)` is a marker the answer shows (an OpenAI
    `【4:0†source】`, a link the model wrote), shown as a chip in renderings. `source_index`
    None, or a `problem`, is the adapter's finding that it cannot be tied to a source or to
    the text; such a citation is kept and flagged, never dropped.
    """

    source_index: int | None = None
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    visible: bool = False
    page: int | None = Field(default=None, ge=1)
    label: str | None = None  # what the provider named (a file id, a URL), for messages
    problem: str | None = None


class AnswerOptions(Model):
    """Per-answer processing options."""

    min_citation_score: float = 0.0
    max_citations: int = Field(default=10, ge=0)
    renderings: list[RenderingName] = Field(default_factory=lambda: list(ALL_RENDERINGS))


class AnswerSubmitted(Model):
    """`citeflow.answer.submitted.v1`: what an upstream RAG service publishes."""

    answer_id: str = Field(pattern=ANSWER_ID_PATTERN)
    query: str | None = None
    text: str = Field(max_length=MAX_TEXT_CHARS)
    sources: list[Source] = Field(max_length=MAX_SOURCES)
    answer_units: list[AnswerUnitIn] | None = None
    options: AnswerOptions | None = None
    metadata: dict[str, Any] | None = None
    # Additive: citations given as spans (provider-native input), beside markers.
    citations: list[CitationIn] | None = None
    # Additive: the answer's language as a BCP 47 tag (`de`, `zh-Hant`, `pt-BR`;
    # `_` is read as `-`), a hint only: sentence segmentation reads every language without it.
    language: str | None = Field(
        default=None, max_length=35, pattern=r"^[A-Za-z]{1,8}([-_][A-Za-z0-9]{1,8})*$"
    )

    @field_validator("sources")
    @classmethod
    def _unique_indexes(cls, sources: list[Source]) -> list[Source]:
        seen: set[int] = set()
        for source in sources:
            if source.index in seen:
                raise ValueError(f"duplicate source index {source.index}")
            seen.add(source.index)
        return sources

    def effective_options(self) -> AnswerOptions:
        """The options with defaults filled in."""
        return self.options or AnswerOptions()


ProviderName = Literal[
    "anthropic", "openai", "gemini", "cohere", "perplexity", "bedrock", "langchain",
]
PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)


class ProviderAnswer(Model):
    """`citeflow.answer.provider.v1`: an LLM provider's own response (and the request, where
    the sources live only there), published to `answers.submitted` like an answer; ingest
    normalises it into `answer.submitted` (`services.providers`)."""

    provider: ProviderName
    answer_id: str = Field(pattern=ANSWER_ID_PATTERN)
    response: Any
    request: Any = None
    query: str | None = None
    options: AnswerOptions | None = None
    metadata: dict[str, Any] | None = None


class AnswerAccepted(Model):
    """`citeflow.answer.accepted.v1`: a submission that passed validation."""

    answer: AnswerSubmitted
    submitted_event_id: str
    size_bytes: int
    # Additive: the version the submission was written in when it was upcast (e.g. 0).
    upcast_from: int | None = None


class RejectionError(Model):
    """One validation error of a rejected input."""

    code: str
    message: str
    path: str


class AnswerRejected(Model):
    """`citeflow.answer.rejected.v1`: bad input, with the reason and the original bytes."""

    answer_id: str | None = None
    code: str
    message: str
    path: str
    errors: list[RejectionError] = Field(default_factory=list)
    original_base64: str
    original_topic: str | None = None
    original_partition: int | None = None
    original_offset: int | None = None
    size_bytes: int
    # Additive: the submitted event's id when it could be read, and where the input came from
    # (`topic:partition:offset`, or e.g. `stdin:3` for a line of `citeflow process`).
    original_event_id: str | None = None
    position: str | None = None
