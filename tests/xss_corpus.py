"""The XSS corpus (corpus/xss) as a list of payload strings, for every test that pushes
attacks through an HTML output."""

from __future__ import annotations

import json

from tests.conftest import corpus_path


def xss_payloads() -> list[str]:
    """Every payload of corpus/xss: payloads.json and the DOMPurify cases' inputs (skips the
    calling test when the corpus is absent)."""
    payloads = json.loads(corpus_path("xss", "payloads.json").read_text("utf-8"))
    dompurify = json.loads(corpus_path("xss", "dompurify_expect.json").read_text("utf-8"))
    found = [entry["payload"] for entry in payloads["payloads"]]
    found += [case["payload"] for case in dompurify["cases"]]
    return list(dict.fromkeys(found))
