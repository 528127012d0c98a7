"""Citations an answer brings as spans (`answer.citations`, from provider-native
input), merged with the markers found in its text.

A span citation (`visible` False) gets a zero-width marker where its chip goes: after the
supported text, trailing blanks left out. A visible one (`visible` True) is a marker the
text shows: when the text scan recognised it (an OpenAI `【4:0†source】` it could not
resolve alone) the provider's source replaces the unresolved one, else it becomes a marker of
its own. Failure behaviour: a span outside the text, a source the answer lacks or a citation
the adapter could not tie to a source is kept, flagged `valid: false`, and listed in
`problems`; nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemas.answers import CitationIn, Source
from services.text.hits import CitationHit, ClusterHit, ProblemHit


def _problem_of(cited: CitationIn, size: int, known: set[int]) -> tuple[str, str] | None:
    """`(code, message)` of what is wrong with a supplied citation, None when it is sound."""
    if cited.problem is not None:
        return "provider_citation", cited.problem
    if not cited.start <= cited.end <= size:
        span = f"[{cited.start}, {cited.end})"
        return "span_out_of_range", f"citation span {span} is outside the answer ({size} chars)"
    if cited.source_index is None:
        label = f" ({cited.label})" if cited.label else ""
        return "unresolved_citation", f"the provider's citation{label} names no known source"
    if cited.source_index not in known:
        return "unknown_source", f"the citation cites source {cited.source_index}: no such source"
    return None


def add_supplied(
    text: str,
    sources: Sequence[Source],
    supplied: Sequence[CitationIn],
    citations: list[CitationHit],
    clusters: list[ClusterHit],
    problems: list[ProblemHit],
) -> None:
    """Merge `supplied` into the text's citations and clusters (both kept in text order)."""
    size = len(text)
    known = {source.index for source in sources}
    owner = [clusters[c.cluster_index] for c in citations]
    by_span = {(c.start, c.end): position for position, c in enumerate(citations)}
    points: dict[int, ClusterHit] = {}
    for cited in supplied:
        problem = _problem_of(cited, size, known)
        index = cited.source_index if problem is None else None
        cited_id = cited.source_index or 0
        if cited.visible and problem is None and (cited.start, cited.end) in by_span:
            hit = citations[by_span[cited.start, cited.end]]
            if not hit.valid:  # resolved by the provider's annotation
                problems[:] = [p for p in problems if (p.start, p.end) != (hit.start, hit.end)]
            hit.id, hit.source_index, hit.valid, hit.problem = cited_id, index, True, None
            hit.page = cited.page or hit.page
            continue
        if cited.visible and problem is None and not _overlaps(clusters, cited):
            start, end = cited.start, cited.end
            marker = text[start:end]
            cluster = ClusterHit(start, end, marker)
            clusters.append(cluster)
            span: tuple[int | None, int | None] = (None, None)
        else:
            end = min(cited.end, size)
            start = max(min(cited.start, end), 0)
            point = end
            while point > start and text[point - 1].isspace():
                point -= 1
            start = end = point
            marker = ""
            cluster = points.get(point) or ClusterHit(point, point, "")
            if point not in points:
                points[point] = cluster
                clusters.append(cluster)
            span = (cited.start, cited.end) if problem is None else (None, None)
        hit = CitationHit(
            cited_id, marker, start, end, index, problem is None,
            problem[1] if problem else None, page=cited.page,
            span_start=span[0], span_end=span[1],
        )
        citations.append(hit)
        owner.append(cluster)
        if problem is not None:
            problems.append(ProblemHit(problem[0], problem[1], start, end))
    _renumber(citations, clusters, owner)
    problems.sort(key=lambda p: p.start)


def _overlaps(clusters: list[ClusterHit], cited: CitationIn) -> bool:
    """Whether a visible citation's span overlaps a marker already there (it then gets a
    chip after its span instead of a marker of its own)."""
    return any(k.start < cited.end and cited.start < k.end for k in clusters)


def _renumber(
    citations: list[CitationHit], clusters: list[ClusterHit], owner: list[ClusterHit]
) -> None:
    """Put citations and clusters in text order (zero-width markers before a marker at the
    same place) and link them again by position."""
    order = sorted(range(len(citations)), key=lambda i: (citations[i].start, citations[i].end))
    citations[:] = [citations[i] for i in order]
    owners = [owner[i] for i in order]
    clusters.sort(key=lambda k: (k.start, k.end))
    place = {id(cluster): position for position, cluster in enumerate(clusters)}
    for cluster in clusters:
        cluster.citations = []
    for position, (citation, cluster) in enumerate(zip(citations, owners, strict=True)):
        citation.cluster_index = place[id(cluster)]
        cluster.citations.append(position)
