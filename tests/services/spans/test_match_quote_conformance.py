"""Conformance: the approximate matcher reproduces the `match_quote` facts of Hypothesis'
own test suite (corpus/anchoring/hypothesis_cases.json)."""

from __future__ import annotations

import itertools
import json
from functools import cache
from typing import Any

import pytest

from services.text.approx import match_quote
from tests.conftest import corpus_path

pytestmark = pytest.mark.corpus


@cache
def _cases() -> dict[str, Any]:
    path = corpus_path("anchoring", "hypothesis_cases.json")
    return json.loads(path.read_text(encoding="utf-8"))["match_quote"]


def _case_ids() -> list[str]:
    try:
        return [case["id"] for case in _cases()["cases"]]
    except pytest.skip.Exception:
        return ["corpus-absent"]


def _text(case: dict[str, Any], key: str) -> str:
    fixtures = _cases()["fixtures"]
    return fixtures[case[f"{key}_ref"]] if f"{key}_ref" in case else case[key]


@pytest.mark.parametrize("case_id", _case_ids())
def test_match_quote_case(case_id: str) -> None:
    case = next(c for c in _cases()["cases"] if c["id"] == case_id)
    text, expect = _text(case, "text"), case["expect"]
    if "quotes" in case:
        scores = [match_quote(text, quote).score for quote in case["quotes"]]
    elif "prefixes" in case:
        scores = [
            match_quote(text, case["quote"], prefix=p).score for p in case["prefixes"]
        ]
    elif "suffixes" in case:
        scores = [
            match_quote(text, case["quote"], suffix=s).score for s in case["suffixes"]
        ]
    else:
        match = match_quote(
            text,
            _text(case, "quote"),
            prefix=case.get("prefix"),
            suffix=case.get("suffix"),
            hint=case.get("hint"),
        )
        if not expect["found"]:
            assert match is None
            return
        assert match is not None
        assert match.start == expect["start"]
        if "end" in expect:
            assert match.end == expect["end"]
        if "matched_text" in expect:
            assert text[match.start : match.end] == expect["matched_text"]
        if "score" in expect:
            assert match.score == pytest.approx(expect["score"])
        if "score_gt" in expect:
            assert expect["score_gt"] < match.score < expect["score_lt"]
        return
    assert expect["scores_strictly_decreasing"]
    assert all(a > b for a, b in itertools.pairwise(scores)), scores
