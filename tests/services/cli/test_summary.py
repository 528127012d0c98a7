"""The readable summary `citeflow up --demo` prints beside the JSON result."""

from __future__ import annotations

from pathlib import Path

import orjson
from rich.console import Console

from schemas.formatted import AnswerFormatted
from services.cli.summary import summary
from services.pipeline import process_answer

DEMO = Path(__file__).resolve().parents[3] / "services" / "examples" / "demo_answer.json"


def test_summary_shows_the_answer_citations_and_where_quotes_were_found() -> None:
    result = process_answer(DEMO.read_bytes(), event_id="t")
    assert isinstance(result, AnswerFormatted)
    console = Console(width=200, record=True)
    console.print(summary(orjson.loads(result.model_dump_json())))
    shown = console.export_text()
    assert "answer demo-moby-dick-1" in shown
    assert "[Web Source" in shown and "Moby-Dick; or, The Whale" in shown
    assert "verbatim" in shown and "moby-dick [807:837]" in shown
    assert "derived" in shown and "supported by moby-dick" in shown
