"""`citeflow eval wice` on a corpus of a few claims written here: the false alarms (missing
words reported on claims people judged supported) are counted claim by claim."""

from __future__ import annotations

from pathlib import Path

import orjson

from services.eval import wice

PAGE = ["(meta data) TITLE: The Eiffel Tower", "The Eiffel Tower is in Paris.",
        "It was completed in 1889 for the World's Fair."]


def _claim(claim: str, label: str = "supported") -> dict[str, object]:
    return {"label": label, "supporting_sentences": [[1, 2]], "claim": claim, "evidence": PAGE}


def test_missing_words_on_supported_claims_are_counted_as_false_alarms(tmp_path: Path) -> None:
    claims = [
        _claim("The Eiffel Tower in Paris was completed in 1889."),  # every word held
        _claim("The Eiffel Tower in Paris was completed in 1889 by Gustave Eiffel's company."),
        _claim("The Eiffel Tower is in Rome.", "not_supported"),  # not counted: not supported
    ]
    tokens = {"non_supported_spans": [False, False, False, False, True, False],
              "claim_tokens": ["The", "tower", "is", "in", "Rome", "."],
              "label": "partially_supported", "supporting_sentences": [[1]],
              "claim": "The tower is in Rome.", "evidence": PAGE}
    (tmp_path / wice.CLAIMS_FILE).write_bytes(b"\n".join(map(orjson.dumps, claims)))
    (tmp_path / wice.TOKENS_FILE).write_bytes(orjson.dumps(tokens))
    missing = wice.evaluate(tmp_path).missing
    ours = missing["citeflow"]
    assert ours["supported_claims"] == 2
    assert ours["supported_claims_flagged"] == 1  # the claim with the company
    assert ours["supported_claims_words"] >= 1
    assert missing["naive"]["supported_claims_flagged"] == 1
    assert missing["naive"]["supported_claims_words"] >= 3  # by, Gustave, company
