"""Every XSS payload of corpus/xss, pushed through every untrusted field, comes out inert:
bleach with the renderer's allow-list leaves the HTML unchanged, a browser-style parse
finds nothing executable, the markdown, rendered, links nowhere unsafe, and headless Chromium
runs nothing."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from schemas.formatted import AnswerFormatted
from services.formatting.allowlist import TAGS
from services.formatting.logic import format_answer
from tests.browser import describe, inert_findings
from schemas.answers import ALL_RENDERINGS
from tests.services.formatting.builders import (
    Mark,
    Part,
    Unit,
    build_resolved,
    source,
    with_missing,
)
from tests.services.formatting.oracle import (
    bleach_clean,
    executable_findings,
    markdown_findings,
)
from tests.xss_corpus import xss_payloads

pytestmark = pytest.mark.corpus


def _answer(payload: str = "", unit_id: str = "U1") -> list[Part]:
    return [
        "Intro ",
        payload,
        " claim ",
        Mark("[1]", (1,)),
        ". ",
        Unit(
            unit_id,
            ("The sky is ", payload, " blue ", Mark("[2]", (2,)), "."),
            "verbatim",
            (2, 9, 24),
        ),
        " ",
        Unit(
            "U2",
            ("Derived ", payload, " text ", Mark("[1, 2]", (1, 2)), "."),
            "derived",
        ),
        " Missing ",
        Mark("[9]", (9,)),
        " end ",
        payload,
    ]


def _sources(**changes: Any) -> list[dict[str, Any]]:
    return [source(1, **changes), source(2, kind="web", url="https://example.org/a")]


def _with_web_marker(payload: str) -> Any:
    parts = _answer()
    parts += [
        " See ",
        Mark(f"[Web Source 1]({payload})", (2,)),
        " and ",
        Mark(f"[Web Source 1]({payload})", (2,), valid=False, problem=payload),
        ".",
    ]
    return build_resolved(parts, _sources())


def _payload_missing(payload: str) -> Any:
    """The answer with every occurrence of the payload an unsupported word (marked)."""
    resolved = build_resolved(_answer(payload), _sources())
    text = resolved.answer.text
    words, at = [], text.find(payload) if payload else -1
    while at >= 0:
        words.append((at, at + len(payload)))
        at = text.find(payload, at + len(payload))
    return with_missing(resolved, words)


# Every rendering marks the unsupported words (the markup they add is checked too).
MARKED = frozenset(ALL_RENDERINGS)

FIELDS: dict[str, Callable[[str], Any]] = {
    # around markers, inside a verbatim and a derived unit, at the very end
    "answer_text": lambda p: build_resolved(_answer(p), _sources()),
    "query": lambda p: build_resolved(_answer(), _sources(), query=p),
    # the title with no reference given, so chips and reference list fall back to it
    "title": lambda p: build_resolved(_answer(), _sources(title=p), references={}),
    "url": lambda p: build_resolved(
        _answer(),
        [source(1, kind="web", url=p), source(2, url="https://example.org/?q=" + p)],
    ),
    "authors_and_journal": lambda p: build_resolved(
        _answer(), _sources(authors=[p, "Doe J"], journal=p)
    ),
    "reference": lambda p: build_resolved(
        _answer(), _sources(), references={"1": p, "2": p}
    ),
    "unit_and_source_ids": lambda p: build_resolved(
        _answer(unit_id=p or "x"),
        [
            source(1, doc_id=p),
            source(
                2,
                doc_id=p,
                chunks=[
                    {"chunk_id": p, "text": "x" * 40, "section_id": p, "start_char": 0}
                ],
            ),
        ],
    ),
    "web_marker_and_problem": _with_web_marker,
    "missing_words": _payload_missing,
}


def _problems(formatted: AnswerFormatted) -> list[str]:
    safe = frozenset(s.safe_url for s in formatted.sources if s.safe_url)
    return _rendering_problems(
        formatted.renderings.html, formatted.renderings.markdown, safe
    )


@cache
def _rendering_problems(html: str, markdown: str, safe: frozenset[str]) -> list[str]:
    """The findings for one pair of renderings (identical renderings are checked once)."""
    found: list[str] = []
    if bleach_clean(html) != html:
        found.append("bleach changed the HTML")
    found += executable_findings(html, allowed_tags=TAGS)
    found += markdown_findings(markdown, set(safe))
    return found


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_every_payload_is_inert_in_every_rendering(field: str) -> None:
    payloads = xss_payloads()
    failures: list[str] = []
    for payload in payloads:
        formatted = format_answer(FIELDS[field](payload), MARKED)
        problems = _problems(formatted)
        if problems:
            failures.append(f"{payload!r}: {problems}")
    assert not failures, f"{len(failures)} of {len(payloads)} payloads: " + "\n".join(
        failures[:5]
    )


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_every_payload_is_inert_in_a_real_browser(field: str, browser: Any, tmp_path: Path) -> None:
    # Every payload's HTML rendering on one page of headless Chromium (tests/browser.py).
    payloads = xss_payloads()
    renderings = [format_answer(FIELDS[field](payload), MARKED).renderings.html
                  for payload in payloads]
    findings = inert_findings(browser, renderings, TAGS, tmp_path / "page.html")
    assert not findings, describe(findings, payloads)
