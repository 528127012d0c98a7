"""The numbers of one `answer.formatted` result that the store's filters and stats read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.store.api import Summary


def summarize(formatted_data: Mapping[str, Any]) -> Summary:
    """A Summary of the `data` object of an `answer.formatted` event (tolerant: a missing
    block counts as empty, so an older or partial result still summarises)."""
    citations = _list(formatted_data.get("citations"))
    coverage = _dict(formatted_data.get("coverage"))
    sentences_total = _int(coverage.get("sentences_total"))
    sentences_cited = _int(coverage.get("sentences_cited"))
    units = _list(_dict(formatted_data.get("answer_units")).get("units"))
    sources = _list(formatted_data.get("sources"))
    ratio = _number(coverage.get("sentence_ratio"))
    recall, precision, supported, unsupported, partial = _quality(formatted_data, citations)
    return Summary(
        citations=len(citations),
        invalid_citations=sum(1 for c in citations if _dict(c).get("valid") is False),
        # Sentences as coverage counts them (those with words); a sentence is cited when
        # one of its citations is valid.
        sentences=sentences_total,
        uncited_sentences=max(0, sentences_total - sentences_cited),
        coverage=ratio if sentences_total else None,
        downgraded_quotes=sum(1 for u in units if _dict(u).get("downgraded") is True),
        sources_supplied=len(sources),
        sources_cited=sum(1 for s in sources if _dict(s).get("cited") is True),
        problems=len(_list(formatted_data.get("problems"))),
        citation_recall=recall,
        citation_precision=precision,
        supported_citations=supported,
        unsupported_citations=unsupported,
        partial_citations=partial,
        language=detected_language(formatted_data),
    )


def detected_language(formatted_data: Any) -> str | None:
    """The detected language a formatted result names (a short subtag), else None."""
    value = formatted_data.get("language") if isinstance(formatted_data, Mapping) else None
    return value if isinstance(value, str) and 0 < len(value) <= 16 else None


def _quality(
    data: Mapping[str, Any], citations: list[Any]
) -> tuple[float | None, float | None, int | None, int | None, int | None]:
    """ALCE recall/precision and the verdict counts (supported, unsupported, partial) from
    the `quality` block; counts from each citation's `support.verdict` when the block has
    none; None where the result carries no support verification (partial: None too where
    a block counts the others but not it)."""
    quality = _dict(data.get("quality"))
    verdicts = {name: int(quality[name]) for name in ("supported", "unsupported", "partial")
                if _is_number(quality.get(name))}
    partial_known = "partial" in verdicts
    if not verdicts:
        for citation in citations:
            verdict = _dict(_dict(citation).get("support")).get("verdict")
            if isinstance(verdict, str):
                verdicts[verdict] = verdicts.get(verdict, 0) + 1
        partial_known = True
    recall = _number(quality.get("citation_recall"))
    precision = _number(quality.get("citation_precision"))
    if not verdicts:
        return recall, precision, None, None, None
    return (recall, precision, verdicts.get("supported", 0), verdicts.get("unsupported", 0),
            verdicts.get("partial", 0) if partial_known else None)


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any) -> float | None:
    return float(value) if _is_number(value) else None


def _int(value: Any) -> int:
    return int(value) if _is_number(value) else 0
