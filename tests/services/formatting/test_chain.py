"""Formatting over the real upstream chain (admission, scoring, citations, spans): the
benchmark answer and the XSS corpus pushed through every upstream-supplied field at once."""

from __future__ import annotations

import re
from typing import Any

import html5lib
import orjson
import pytest

from schemas.answers import AnswerAccepted
from schemas.formatted import AnswerFormatted
from services.bench.formatting import bench_formatting, resolved_bench_answer
from services.bench.workload import bench_answer
from services.citations.logic import cite_answer
from services.formatting.allowlist import TAGS
from services.formatting.logic import format_answer
from services.ingest.answers import admit_data
from services.scoring.logic import score_answer
from services.spans.logic import resolve_answer
from tests.services.formatting.oracle import (
    bleach_clean,
    executable_findings,
    markdown_findings,
)
from tests.xss_corpus import xss_payloads


def _through_chain(data: dict[str, Any]) -> AnswerFormatted:
    admitted = admit_data(orjson.dumps(data), event_id="chain-test")
    assert isinstance(admitted, AnswerAccepted), admitted
    return format_answer(resolve_answer(cite_answer(score_answer(admitted))))


@pytest.fixture(scope="module")
def bench() -> AnswerFormatted:
    return format_answer(resolved_bench_answer())


def test_bench_answer_renders_every_citation_and_unit(bench: AnswerFormatted) -> None:
    tree = html5lib.parse(bench.renderings.html, namespaceHTMLElements=False)
    chips = [a for a in tree.iter("a") if a.get("class") == "citation"]
    valid = [c for c in bench.citations if c.valid]
    assert len(chips) == len(valid) == 50
    assert [(a.get("data-citation-id"), a.get("data-source-index")) for a in chips] == [
        (str(c.id), str(c.source_index)) for c in valid
    ]
    spans = [s for s in tree.iter("span") if "unit" in (s.get("class") or "").split()]
    verbatim = [s for s in spans if s.get("role") == "button"]
    assert len(spans) == len(bench.answer_units.units)
    assert (
        len(verbatim)
        == sum(
            u.kind == "verbatim" and bool(u.source_spans)
            for u in bench.answer_units.units
        )
        == 20
    )
    assert bleach_clean(bench.renderings.html) == bench.renderings.html
    assert not executable_findings(bench.renderings.html, allowed_tags=TAGS)


def test_bench_answer_markdown_and_plain(bench: AnswerFormatted) -> None:
    body = bench.renderings.markdown.split("\n\n[^", 1)[0]
    assert len(re.findall(r"\[\^\d+\]", body)) == 50
    assert not re.search(
        r"\[\d+\]", bench.renderings.plain.split("\n\nReferences\n")[0]
    )
    assert "  " not in bench.renderings.plain and " ." not in bench.renderings.plain
    assert bench.renderings.plain.count("\n[") == len(
        {c.source_index for c in bench.citations}
    )


def test_bench_answer_sources_and_problems(bench: AnswerFormatted) -> None:
    answer = bench_answer()
    assert [s.index for s in bench.sources] == [s["index"] for s in answer["sources"]]
    assert sum(s.citation_count for s in bench.sources) == 50
    assert all(s.reference and s.excerpt for s in bench.sources)
    assert sorted(s.rank for s in bench.sources) == list(range(1, 11))


def _hostile(payload: str) -> dict[str, Any]:
    return {
        "answer_id": "xss-1",
        "query": payload,
        "text": f"Paris {payload} is the capital [1]. It uses [Web Source 1]({payload}) and "
        f"[Web Source 1](https://example.org/{payload}) [2]. {payload}[1][2]\n{payload}",
        "sources": [
            {
                "index": 1,
                "title": payload,
                "authors": [payload, "Doe J"],
                "journal": payload,
                "doi": payload,
                "url": payload,
                "chunks": [{"text": f"Paris {payload} is the capital of France."}],
            },
            {
                "index": 2,
                "kind": "web",
                "title": payload,
                "url": f"https://example.org/{payload}",
                "authors": [payload],
                "chunks": [{"text": "Algorithms are used. " + payload}],
            },
        ],
    }


@pytest.mark.corpus
def test_every_payload_through_the_real_chain_is_inert() -> None:
    payloads = xss_payloads()
    failures = []
    for payload in payloads:
        formatted = _through_chain(_hostile(payload))
        html = formatted.renderings.html
        problems = executable_findings(html, allowed_tags=TAGS)
        if bleach_clean(html) != html:
            problems.append("bleach changed the HTML")
        safe = {s.safe_url for s in formatted.sources if s.safe_url}
        problems += markdown_findings(formatted.renderings.markdown, safe)
        if problems:
            failures.append(f"{payload!r}: {problems}")
    assert not failures, f"{len(failures)} of {len(payloads)}: " + "\n".join(
        failures[:5]
    )


def test_a_url_with_userinfo_is_linked_to_its_real_host_in_every_rendering() -> None:
    """`https://apple.com@evil.example/login` was linked as is: its text reads apple.com,
    the link goes to evil.example."""
    deceptive = "https://apple.com@evil.example/login"
    formatted = _through_chain({
        "answer_id": "userinfo", "text": "Log in at the store [1].",
        "sources": [{"index": 1, "kind": "web", "title": "Sign in", "url": deceptive,
                     "chunks": [{"text": "Log in at the store."}]}]})
    [source] = formatted.sources
    assert source.safe_url == "https://evil.example/login"  # what the pages link to
    renderings = formatted.renderings
    for name, text in (("html", renderings.html), ("markdown", renderings.markdown),
                       ("plain", renderings.plain)):
        assert "apple.com@" not in text and "https://evil.example/login" in text, (name, text)


def test_benchmark_runs_and_reports_its_figures() -> None:
    figures = bench_formatting(3)
    assert (figures["words"], figures["citations"], figures["sources"]) == (
        1010,
        50,
        10,
    )
    for name in (
        "format_answer",
        "escape_9kb",
        "sources",
        "layout",
        "markdown",
        "html",
        "plain",
    ):
        assert figures[f"{name}_ms"] > 0
    assert figures["format_over_escape"] > 0
