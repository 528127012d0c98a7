"""Which TextQuoteSelector a reader request asks for: given in the query (`exact`, `prefix`,
`suffix`), or named by an answer's stored formatted result (`answer_id` with `citation_id`
[+ `sentence_index`] for a citation's supporting passage, with `atom` for the evidence of
one of its atoms, or `unit_id` [+ `span`] for a verbatim unit's span). The stored result is used as it is: the same click opens the same
passage days later, nothing is recomputed from a changed index."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import orjson

from services.gateway.problems import ProblemError

MAX_QUOTE_CHARS = 5000


@dataclass(frozen=True)
class Quote:
    """A selector and, when it came from a result, the container it names (a hint)."""

    exact: str
    prefix: str = ""
    suffix: str = ""
    href: str | None = None
    page: int | None = None


def _integer(params: Mapping[str, str], name: str) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    if not raw.lstrip("-").isdigit():
        raise ProblemError(400, "invalid_parameter", f"{name} must be an integer", path=name)
    return int(raw)


def from_query(params: Mapping[str, str]) -> Quote | None:
    """The selector given in the query string, if any."""
    exact = params.get("exact")
    if exact is None:
        return None
    for name in ("exact", "prefix", "suffix"):
        if len(params.get(name, "")) > MAX_QUOTE_CHARS:
            raise ProblemError(400, "invalid_parameter",
                               f"{name} is longer than {MAX_QUOTE_CHARS} characters", path=name)
    if not exact.strip():
        raise ProblemError(400, "invalid_parameter", "exact is empty", path="exact")
    return Quote(exact, params.get("prefix", ""), params.get("suffix", ""))


def _quote(locator: Mapping[str, Any]) -> Quote:
    selector = locator.get("selector") or {}
    return Quote(selector.get("exact") or "", selector.get("prefix") or "",
                 selector.get("suffix") or "", locator.get("href"), locator.get("page"))


def from_result(result: bytes, doc_id: str, params: Mapping[str, str]) -> Quote:
    """The selector an answer's formatted result names for this document (404 when it
    names none)."""
    data = orjson.loads(result)
    citation_id = _integer(params, "citation_id")
    unit_id = params.get("unit_id")
    if unit_id is not None:
        span_index = _integer(params, "span") or 0
        for unit in (data.get("answer_units") or {}).get("units", []):
            if unit.get("id") != unit_id:
                continue
            spans = [s for s in unit.get("source_spans", []) if s.get("doc_id") == doc_id]
            if 0 <= span_index < len(spans) and spans[span_index].get("locator"):
                return _quote(spans[span_index]["locator"])
    elif citation_id is not None:
        sentence = _integer(params, "sentence_index")
        atom = _integer(params, "atom")
        if atom is not None:
            found = _atom_locator(data, doc_id, citation_id, sentence, atom)
            if found is not None:
                return _quote(found)
            raise ProblemError(404, "no_such_passage",
                               "the answer names no evidence in this document for that atom")
        for link in data.get("links", []):
            if (link.get("citation_id") == citation_id and link.get("doc_id") == doc_id
                    and (sentence is None or link.get("sentence_index") == sentence)
                    and link.get("locator")):
                return _quote(link["locator"])
    else:
        raise ProblemError(400, "invalid_parameter",
                           "with answer_id, give citation_id or unit_id", path="answer_id")
    raise ProblemError(404, "no_such_passage",
                       "the answer names no passage of this document for that citation or unit")


def _atom_locator(data: Mapping[str, Any], doc_id: str, citation_id: int,
                  sentence: int | None, atom: int) -> Mapping[str, Any] | None:
    """The locator of the evidence of atom `atom` of the citation (its own span, or the
    passage `link` it names), when that evidence is in this document."""
    links = data.get("links") or []
    for citation in data.get("citations") or []:
        if citation.get("id") != citation_id or (
                sentence is not None and citation.get("sentence_index") != sentence):
            continue
        atoms = (citation.get("support") or {}).get("atoms") or []
        if not 0 <= atom < len(atoms):
            return None
        evidence, link = atoms[atom].get("evidence"), atoms[atom].get("link")
        if link is not None and 0 <= link < len(links):
            evidence = links[link]
        if evidence and evidence.get("doc_id") == doc_id and evidence.get("locator"):
            return cast(Mapping[str, Any], evidence["locator"])
        return None
    return None
