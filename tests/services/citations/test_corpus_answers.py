"""Real cited LLM answers (ALCE demos, ExpertQA GPT-4 answers): every `[n]` maps to its source
and to the sentence it sits in, through the whole citations stage."""

from __future__ import annotations

import json
import re

import pytest

from schemas.answers import Chunk, Source
from services.citations.logic import cite_answer
from tests.conftest import corpus_path
from tests.services.citations.helpers import scored

_BRACKET_NUMBER = re.compile(r"\[(\d+)\]")


def _records(name: str) -> list[dict]:
    return json.loads(corpus_path("answers", name).read_text("utf-8"))["records"]


def _alce_sources(record: dict) -> list[Source]:
    return [
        Source(index=k, title=doc["title"], chunks=[Chunk(text=doc["text"], chunk_id=f"d{k}")])
        for k, doc in enumerate(record["docs"], start=1)
    ]


def _expertqa_sources(record: dict) -> list[Source]:
    return [
        Source(index=doc["n"], kind="web", url=doc["url"], chunks=[Chunk(text=doc["text"])])
        for doc in record["docs"]
    ]


def _check(answer: str, source_list: list[Source]) -> None:
    cited = cite_answer(scored(answer, source_list))
    extraction = cited.extraction
    expected = [(int(m.group(1)), m.start()) for m in _BRACKET_NUMBER.finditer(answer)]
    assert expected, "every corpus answer cites something"
    assert [(c.id, c.start) for c in extraction.citations] == expected
    assert all(c.valid and c.source_index == c.id for c in extraction.citations)
    assert extraction.problems == []
    for citation in extraction.citations:
        sentence = extraction.sentences[citation.sentence_index]
        assert sentence.start <= citation.start and citation.end <= sentence.end
        assert citation.id in sentence.citation_ids
        refs = extraction.citation_map[str(citation.id)]
        assert citation.sentence_index in [r.sentence_index for r in refs]
    for sentence in extraction.sentences:
        assert answer[sentence.start : sentence.end] == sentence.text
        assert not _BRACKET_NUMBER.match(sentence.text), "a marker opened a sentence"
    assert "".join(s.text for s in extraction.segments) == answer
    cited_pairs = {(c.sentence_index, c.source_index) for c in extraction.citations}
    eligible = set(cited.passage_sources)
    assert {(p.sentence_index, p.source_index) for p in extraction.passages} == {
        pair for pair in cited_pairs if pair[1] in eligible
    }


@pytest.mark.parametrize("number", range(12))
def test_alce_demo(number: int) -> None:
    records = _records("alce_demos.json")
    assert len(records) == 12
    record = records[number]
    _check(record["answer"], _alce_sources(record))


@pytest.mark.parametrize("number", range(28))
def test_expertqa_answer(number: int) -> None:
    records = _records("expertqa_cited_answers.json")
    assert len(records) == 28
    record = records[number]
    _check(record["answer"], _expertqa_sources(record))


def test_expertqa_sentences_match_claim_boundaries() -> None:
    """ExpertQA split each answer into claims; a claim that is one sentence of ours must be
    found as one of our sentences (markers included)."""
    matched = total = 0
    for record in _records("expertqa_cited_answers.json"):
        cited = cite_answer(scored(record["answer"], _expertqa_sources(record)))
        ours = {s.text for s in cited.extraction.sentences}
        for claim in record["claims"]:
            text = claim.get("claim_string") or claim.get("claim") or ""
            if text and text in record["answer"]:
                total += 1
                matched += text.strip() in ours
    assert total and matched / total >= 0.95, (matched, total)


def test_sentences_agree_with_pysbd_on_real_and_benchmark_answers() -> None:
    """pySBD is the accuracy reference: on every corpus answer and the benchmark answer our
    sentences are exactly pySBD's (markers stay where pySBD leaves them)."""
    pysbd = pytest.importorskip("pysbd")
    from services.bench.workload import bench_answer
    from services.text.extraction import extract

    segmenter = pysbd.Segmenter(language="en", clean=False)
    answers = [bench_answer()["text"]]
    answers += [r["answer"] for r in _records("alce_demos.json")]
    answers += [r["answer"] for r in _records("expertqa_cited_answers.json")]
    for answer in answers:
        ours = [s.text for s in extract(answer, []).sentences]
        assert ours == [s.strip() for s in segmenter.segment(answer) if s.strip()], answer[:80]
