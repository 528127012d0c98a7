"""The `sources` list of the formatted answer: metadata, scores, citation counts,
the AMA reference and a short excerpt per source."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from schemas.answers import Source
from schemas.citations import CitationExtraction
from schemas.construct import maker
from schemas.formatted import FormattedSource
from schemas.rows import Row, row, rows
from schemas.scoring import SourceScore
from services.formatting.escaping import safe_url
from services.text.languages import describe, source_sample
from services.text.spacing import excerpt

# Every value comes from an upstream model already validated (or is computed here with
# the field's type), so the rows become models without a second validation.
_formatted_source = maker(FormattedSource)
_SOURCE_INDEX = itemgetter("source_index")
_VALID = itemgetter("valid")


def format_sources(
    sources: Sequence[Source],
    scores: Sequence[SourceScore | Row],
    extraction: CitationExtraction,
    citations: list[Row] | None = None,
) -> list[FormattedSource]:
    """One FormattedSource per source, in the order upstream sent them (`scores`: the
    models or their field tables; `citations`: the extraction's citation `rows`, when the
    caller has read them already)."""
    by_index = {fields["index"]: fields for fields in map(row, scores)}
    if citations is None:
        citations = rows(extraction, "citations")
    # (counted in C loops: see `layout`)
    cited = list(map(_SOURCE_INDEX, filter(_VALID, citations)))
    references = extraction.references
    formatted: list[FormattedSource] = []
    for source in sources:
        fields = source.__dict__
        index = fields["index"]
        url = fields["url"]
        chunks = fields["chunks"]
        score = by_index.get(index)
        count = cited.count(index)
        language, script, _ = describe(source_sample([chunk.text for chunk in chunks]))
        formatted.append(
            _formatted_source(
                {
                    "index": index,
                    "kind": fields["kind"],
                    "title": fields["title"],
                    "url": url,
                    "safe_url": safe_url(url),
                    "doc_id": fields["doc_id"],
                    "source_id": fields["source_id"],
                    "format": fields["format"],
                    "retriever_score": fields["score"],
                    # (a score as its model holds it: a JSON integer read as a float)
                    "score": float(score["score"]) if score else 0.0,
                    "rank": score["rank"] if score else len(sources),
                    "eligible": score["eligible"] if score else False,
                    "cited": count > 0,
                    "citation_count": count,
                    "reference": references.get(str(index))
                    or _fallback_reference(source),
                    "excerpt": excerpt(chunks[0].text) if chunks else "",
                    "language": language,
                    "script": script,
                }
            )
        )
    return formatted


def _fallback_reference(source: Source) -> str:
    """What to list for a source the citations stage gave no reference."""
    return source.title or source.url or source.doc_id or f"Source {source.index}"


def reference_link(source: FormattedSource) -> tuple[str, str | None, str]:
    """The reference split around its link: (text before, safe URL or None, text after).
    When the reference already spells out the source's URL, the link takes its place;
    otherwise the link (if any) follows the whole reference."""
    link = source.safe_url
    if link is None:
        return source.reference, None, ""
    for written in (link, (source.url or "").strip()):
        position = source.reference.find(written) if written else -1
        if position >= 0:
            end = position + len(written)
            return source.reference[:position], link, source.reference[end:]
    return source.reference + " ", link, ""
