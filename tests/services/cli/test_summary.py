"""The readable summary (`citeflow process` on a terminal, `citeflow up --demo`): each
sentence with its chips, each chip's verdict and source, the missing words, the quoted
spans; read defensively."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from rich.console import Console

from schemas.formatted import AnswerFormatted
from services.cli.summary import summary
from services.pipeline import process_answer

DEMO = Path(__file__).resolve().parents[3] / "services" / "examples" / "demo_answer.json"


def _demo() -> dict[str, Any]:
    result = process_answer(DEMO.read_bytes(), event_id="t")
    assert isinstance(result, AnswerFormatted)
    return orjson.loads(result.model_dump_json())


def _shown(data: dict[str, Any]) -> list[str]:
    console = Console(width=240, record=True)
    console.print(summary(data))
    return console.export_text().splitlines()


def _row(lines: list[str], *words: str) -> str:
    [found] = [line for line in lines if all(w in line for w in words)]
    return found


def test_each_chip_has_its_verdict_its_source_and_the_missing_words() -> None:
    data = _demo()
    lines = _shown(data)
    verdicts = [c["support"]["verdict"] for c in data["citations"] if c.get("support")]
    assert lines[0].startswith("answer demo-moby-dick-1")
    assert f"{verdicts.count('partial')} partial" in lines[0]
    assert f"{verdicts.count('supported')} supported" in lines[0]
    assert "verdict" in _row(lines, "sentence", "chip", "source", "why")
    partial = _row(lines, "The water-gazers of Manhattan")
    assert "[3]" in partial and "partial" in partial and "supported" not in partial
    assert "missing: Manhattan" in partial  # (`of` ties it to the held water-gazers)
    assert "Moby-Dick; or, The Whale (epub document)" in partial
    web = _row(lines, "A later critic")
    assert "[Web Source 1]" in web and "[4] The sea as mirror (web page)" in web
    assert "https://example.org/essays/sea-mirror)" not in web.split("│")[3]  # the chip
    assert "“substitute for pistol and ball” ([1], characters 807-837)" in _row(
        lines, "quoted word for word", "substitute for pistol and ball")
    assert any("“growing grim about the mouth” ([2] p. 12" in line for line in lines)
    assert not any("supported by" in line for line in lines)


def test_an_invalid_chip_and_an_unsupported_one_say_why() -> None:
    answer = {"answer_id": "t-2", "text": "Whales are fish [1]. They sing [2].", "sources": [
        {"index": 1, "kind": "web", "url": "https://example.org/w",
         "chunks": [{"text": "Whales are mammals that breathe air."}]}]}
    result = process_answer(orjson.dumps(answer), event_id="t")
    assert isinstance(result, AnswerFormatted)
    lines = _shown(orjson.loads(result.model_dump_json()))
    second = _row(lines, "They sing")
    assert "invalid" in second and "(no source)" in second and "does not exist" in second
    assert "problem " in "\n".join(lines)


def test_it_reads_what_it_does_not_know_defensively() -> None:
    """`missing` as objects with answer offsets, unknown fields, a missing support."""
    data = _demo()
    for citation in data["citations"]:
        support = citation.get("support") or {}
        support["missing"] = [{"text": w, "start": 0, "end": 1}
                              for w in support.get("missing") or []]
        support["atoms"] = [{"anything": 1}]
    data["citations"][0]["support"] = None
    data["new_section"] = {"x": 1}
    lines = _shown(data)
    assert "missing: Manhattan" in _row(lines, "The water-gazers")
    assert "not judged" in _row(lines, "Ishmael opens the novel")
