"""`citeflow process --format`: a readable summary by default on a terminal (a real pty),
one JSON line per answer when piped, and each named format."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from services.cli import main

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "services" / "examples" / "demo_answer.json"


def _on_a_terminal(*args: str) -> str:
    """What `citeflow process` writes to a terminal 200 columns wide."""
    primary, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(ROOT), "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen([sys.executable, "-m", "services.cli", "process", *args],
                               stdout=secondary, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    assert process.wait(120) == 0, process.stderr.read() if process.stderr else ""
    return b"".join(chunks).decode()


def test_a_terminal_gets_the_summary_by_default() -> None:
    shown = _on_a_terminal(str(DEMO))
    assert "answer demo-moby-dick-1" in shown and "partial" in shown
    assert "missing: Manhattan" in shown
    assert '"citations"' not in shown  # no JSON
    assert max(len(line) for line in shown.splitlines()) < 1000


def test_a_pipe_gets_one_json_line_per_answer() -> None:
    twice = orjson.dumps([orjson.loads(DEMO.read_bytes())] * 2)
    result = CliRunner().invoke(main, ["process", "-"], input=twice)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [orjson.loads(line)["answer_id"] for line in lines] == ["demo-moby-dick-1"] * 2


@pytest.mark.parametrize("output_format", ["json", "jsonl", "pretty", "summary"])
def test_each_format(output_format: str) -> None:
    result = CliRunner().invoke(main, ["process", "--format", output_format, str(DEMO)])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    if output_format == "json":
        assert [a["answer_id"] for a in orjson.loads(out)] == ["demo-moby-dick-1"]
    elif output_format == "jsonl":
        assert orjson.loads(out.splitlines()[0])["answer_id"] == "demo-moby-dick-1"
    elif output_format == "pretty":
        assert orjson.loads(out)["answer_id"] == "demo-moby-dick-1"
        assert len(out.splitlines()) > 100  # indented
    else:
        assert "answer demo-moby-dick-1" in out and "verdict" in out


def test_an_event_is_summarised_by_its_answer_and_other_values_stay_json() -> None:
    """What `citeflow tail --format summary` prints for a formatted event and for others."""
    import io

    from services.cli.output import ResultPrinter
    from services.pipeline import process_answer

    data = orjson.loads(process_answer(DEMO.read_bytes(), event_id="t").model_dump_json())
    stream = io.StringIO()
    printer = ResultPrinter("summary", stream)
    printer.print(orjson.dumps({"type": "answer.formatted", "data": data}))
    printer.print(orjson.dumps({"type": "answer.rejected", "data": {"code": "x"}}))
    printer.close()
    shown = stream.getvalue()
    assert "answer demo-moby-dick-1" in shown and '"code": "x"' in shown
