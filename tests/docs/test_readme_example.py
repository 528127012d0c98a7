"""The README's answer is accepted as it is printed, and the trimmed `answer.formatted` it
shows is what citeflow gives back for it (every value shown, as shown)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer

README = Path(__file__).resolve().parents[2] / "README.md"


def _json_blocks() -> list[Any]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Check an answer"):text.index("## Use it from your app")]
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.S)]


def _shown_in(shown: Any, real: Any, path: str = "$") -> None:
    """Every value of `shown` is in `real` at the same place ("…" stands for anything)."""
    if shown == "…":
        return
    if isinstance(shown, dict):
        for key, value in shown.items():
            assert isinstance(real, dict) and key in real, f"{path}.{key} missing"
            _shown_in(value, real[key], f"{path}.{key}")
    elif isinstance(shown, list):
        assert isinstance(real, list) and len(real) >= len(shown), path
        for n, value in enumerate(shown):
            _shown_in(value, real[n], f"{path}[{n}]")
    else:
        assert shown == real, f"{path}: README shows {shown!r}, citeflow gives {real!r}"


def test_the_readme_answer_gives_what_the_readme_shows() -> None:
    answer, formatted = _json_blocks()
    result = process_answer(orjson.dumps(answer), event_id="readme")
    assert isinstance(result, AnswerFormatted), result
    _shown_in(formatted, orjson.loads(result.model_dump_json()))
