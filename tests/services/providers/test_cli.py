"""`citeflow process --from PROVIDER FILE`: one provider line per line, results on stdout,
rejections as JSON on stderr with exit code 1."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from services.cli import main
from tests.services.providers import fixtures as fx


def test_process_from_provider(tmp_path) -> None:
    source = tmp_path / "gemini.jsonl"
    lines = [fx.gemini(), fx.line({"candidates": "none"}, answer_id="bad-1")]
    source.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    result = CliRunner().invoke(main, ["process", "--from", "gemini", str(source)])
    assert result.exit_code == 1
    [formatted] = [orjson.loads(out) for out in result.stdout.splitlines()]
    assert formatted["answer_id"] == "gemini-1"
    assert [c["span"]["start"] for c in formatted["citations"] if c["valid"]][:2] == [0, 0]
    [error] = [orjson.loads(err) for err in result.stderr.splitlines() if err.startswith("{")]
    assert (error["line"], error["answer_id"], error["code"], error["path"]) == (
        2, "bad-1", "invalid_provider_response", "$.response.candidates")


def test_unknown_provider_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["process", "--from", "acme", "-"], input="")
    assert result.exit_code == 2 and "acme" in result.output


def test_every_fixture_is_listed_by_its_provider() -> None:
    import inspect

    from services.providers import PROVIDERS

    helpers = {"pdf_base64", "line", "gemini_bytes"}
    made = {name for name, f in inspect.getmembers(fx, inspect.isfunction)
            if f.__module__ == fx.__name__ and name not in helpers}
    assert tuple(fx.BY_PROVIDER) == PROVIDERS
    assert {f.__name__ for fs in fx.BY_PROVIDER.values() for f in fs} == made


@pytest.mark.parametrize("provider", list(fx.BY_PROVIDER))
def test_every_adapter_fixture_passes_through_process(provider: str, tmp_path) -> None:
    lines = [make() for make in fx.BY_PROVIDER[provider]]
    source = tmp_path / f"{provider}.jsonl"
    source.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    result = CliRunner().invoke(main, ["process", "--from", provider, str(source)])
    assert result.exit_code == 0, result.stderr
    formatted = [orjson.loads(out) for out in result.stdout.splitlines()]
    assert [f["answer_id"] for f in formatted] == [line["answer_id"] for line in lines]
    assert all(f["citations"] for f in formatted)
