"""The in-process pipeline and `citeflow process`: the same stage logic, no broker."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from schemas.answers import AnswerRejected
from schemas.envelope import decode, encode, make_event
from schemas.formatted import AnswerFormatted
from services.bench.workload import bench_answer
from services.cli import main
from services.pipeline import process_answer

DEMO = Path(__file__).resolve().parents[2] / "services" / "examples" / "demo_answer.json"


def _formatted(raw: bytes) -> AnswerFormatted:
    result = process_answer(raw, event_id="t")
    assert isinstance(result, AnswerFormatted), result
    return result


def test_demo_answer_goes_through_all_five_stages() -> None:
    result = _formatted(DEMO.read_bytes())
    assert result.answer_id == "demo-moby-dick-1"
    assert {c.id for c in result.citations} >= {1, 2, 3}
    assert all(c.valid for c in result.citations)
    verbatim = [u for u in result.answer_units.units if u.kind == "verbatim"]
    assert verbatim, "the demo quotes its sources verbatim"
    for unit in verbatim:
        for span in unit.source_spans:
            assert span.quote and span.end_char > span.start_char
    assert result.renderings.html and result.renderings.plain and result.renderings.markdown
    assert [s.rank for s in sorted(result.sources, key=lambda s: s.rank)] == [1, 2, 3, 4]


def test_formatted_event_round_trips_through_the_envelope() -> None:
    result = _formatted(DEMO.read_bytes())
    event = make_event(result, subject=result.answer_id, source="test")
    assert decode(encode(event)).data == result


def test_bench_answer_keeps_every_citation() -> None:
    answer = bench_answer()
    result = _formatted(orjson.dumps(answer))
    assert len(result.citations) == 50
    assert len({s.index for s in result.sources}) == 10


@pytest.mark.parametrize(
    ("raw", "code"),
    [(b"{nope", "invalid_json"), (b'{"answer_id": "x1", "text": 3, "sources": []}', None)],
)
def test_bad_lines_are_rejections_not_crashes(raw: bytes, code: str | None) -> None:
    result = process_answer(raw, event_id="t")
    assert isinstance(result, AnswerRejected)
    if code:
        assert result.code == code


def test_process_cli_prints_good_lines_and_reports_bad_ones(tmp_path: Path) -> None:
    good = orjson.loads(DEMO.read_bytes())
    lines = [orjson.dumps(good), b'{"answer_id": "broken-7", "text": 12, "sources": []}', b"",
             orjson.dumps({**good, "answer_id": "demo-2"})]
    source = tmp_path / "answers.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    outcome = CliRunner().invoke(main, ["process", str(source)])
    assert outcome.exit_code == 1
    printed = [orjson.loads(line) for line in outcome.stdout.splitlines()]
    assert [p["answer_id"] for p in printed] == ["demo-moby-dick-1", "demo-2"]
    errors = [orjson.loads(line) for line in outcome.stderr.splitlines()]
    assert len(errors) == 1 and errors[0]["answer_id"] == "broken-7" and errors[0]["line"] == 2


def test_process_cli_reads_stdin_and_exits_zero_when_all_good() -> None:
    outcome = CliRunner().invoke(main, ["process", "-"], input=DEMO.read_bytes())
    assert outcome.exit_code == 0, outcome.stderr
    assert orjson.loads(outcome.stdout)["answer_id"] == "demo-moby-dick-1"


def test_every_intermediate_event_round_trips_through_the_envelope() -> None:
    from schemas.answers import AnswerAccepted
    from services.citations.logic import cite_answer
    from services.formatting.logic import format_answer
    from services.ingest.answers import admit_data
    from services.scoring.logic import score_answer
    from services.spans.logic import resolve_answer

    accepted = admit_data(DEMO.read_bytes(), event_id="t")
    assert isinstance(accepted, AnswerAccepted)
    scored = score_answer(accepted)
    cited = cite_answer(scored)
    resolved = resolve_answer(cited)
    rejected = process_answer(b'{"answer_id": "bad-1", "text": []}', event_id="t")
    for data in (accepted, scored, cited, resolved, format_answer(resolved), rejected):
        event = make_event(data, subject="demo-moby-dick-1", source="test")
        decoded = decode(encode(event), expected=type(data))
        assert decoded.data == data, type(data).__name__
        assert decoded.id == event.id and decoded.type == event.type
