"""`citeflow eval wice`: the verdicts on real claims with human support labels.

Data (`corpus/claims`): the dev split of WiCE (Kamoi et al., EMNLP 2023): Wikipedia sentences,
the web page each one cites split into sentences, a human label (`supported`,
`partially_supported`, `not_supported`) and the sets of page sentences that support it; and
sub-claims whose words the page does not back are marked token by token. Each claim is sent
through the whole in-process pipeline as a one-sentence answer `claim [1].` citing one web
source whose chunks are the page's sentences, `SENTENCES_PER_CHUNK` per chunk, one a line
(as a page's text reads: its title and metadata lines are lines of their own).

Figures: the verdicts by human label; the AUC of the score (supported against not
supported, supported against partially supported); the evidence against the human sets
(meets one: shares a sentence with it; covers one: holds all its sentences), over the
supported and partially supported claims; the missing words against the human tokens
(token precision, recall, F1, pooled over the sub-claims), how many reported words are
not the answer's own words at their offsets, and the false alarms: the missing words
reported on the claims people judged supported (words nobody should be shown as unbacked).

References measured in the same run:
- the naive rule: the score is the share of the claim's content terms found anywhere in the
  page; the missing words are the claim's words found nowhere in the page;
- ALCE-style sentence recall: the evidence is the one page sentence holding most of the
  claim's content terms, and the score is the share it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from schemas.formatted import AnswerFormatted
from schemas.spans import Support
from services.eval.metrics import auc
from services.pipeline import process_answer
from services.text.lexical import text_terms, words
from services.verification.claims import canonical_text

CLAIMS_FILE = "wice_claim_dev.jsonl"
TOKENS_FILE = "wice_non_supported_tokens_dev.jsonl"
SENTENCES_PER_CHUNK = 5
LABELS = ("supported", "partially_supported", "not_supported")
VERDICTS = ("supported", "partial", "unsupported", "unverifiable")
_SPACES = re.compile(r"\s+")


@dataclass(slots=True)
class Judged:
    """One claim through the pipeline: its verdict, score, the page sentences its evidence
    holds, and its missing words as answer spans."""

    verdict: str
    score: float
    evidence: frozenset[int]
    missing: list[tuple[int, int]]
    foreign: int  # reported words that are not the answer's text at their offsets


@dataclass(slots=True)
class Figures:
    """Everything the eval prints (see the module docstring)."""

    verdicts: dict[str, dict[str, int]] = field(default_factory=dict)
    auc: dict[str, dict[str, float]] = field(default_factory=dict)
    evidence: dict[str, dict[str, float]] = field(default_factory=dict)
    missing: dict[str, dict[str, float]] = field(default_factory=dict)
    claims: int = 0
    subclaims: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain data (what the command prints as JSON)."""
        return {
            "claims": self.claims,
            "subclaims": self.subclaims,
            "verdicts": self.verdicts,
            "auc": self.auc,
            "evidence": self.evidence,
            "missing": self.missing,
        }


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file; a line that is no JSON object is a ValueError naming it."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise ValueError(f"{path.name} line {number}: not JSON ({error})") from error
        if not isinstance(record, dict) or "claim" not in record or "evidence" not in record:
            raise ValueError(f"{path.name} line {number}: not a WiCE record")
        records.append(record)
    return records


def answer_of(claim: str, sentences: Sequence[str], number: int) -> bytes:
    """The one-sentence answer citing the page (see the module docstring)."""
    chunks = [
        {"text": "\n".join(sentences[start : start + SENTENCES_PER_CHUNK])}
        for start in range(0, len(sentences), SENTENCES_PER_CHUNK)
    ]
    text = claim.rstrip().rstrip(".") + " [1]."
    return orjson.dumps(
        {
            "answer_id": f"wice-{number}",
            "text": text,
            "sources": [{"index": 1, "kind": "web", "url": f"https://wice.invalid/{number}",
                         "chunks": chunks}],
        }
    )


def _flat(text: str) -> str:
    return _SPACES.sub(" ", canonical_text(text)).strip()


def sentences_in(texts: Sequence[str], sentences: Sequence[str]) -> frozenset[int]:
    """The page sentences an evidence text holds (or lies inside of)."""
    found: set[int] = set()
    flats = [_flat(text) for text in texts]
    for index, sentence in enumerate(sentences):
        flat = _flat(sentence)
        if not flat:
            continue
        for text in flats:
            if flat in text or (len(text) >= 20 and text in flat):
                found.add(index)
                break
    return frozenset(found)


def _evidence_texts(result: AnswerFormatted, support: Support) -> list[str]:
    """The texts of a citation's evidence set: every atom's window, and the sentence's
    passage (`link`) or span."""
    texts = [atom.evidence.quote for atom in support.atoms if atom.evidence is not None]
    texts += [result.links[atom.link].passage for atom in support.atoms if atom.link is not None]
    if support.link is not None:
        texts.append(result.links[support.link].passage)
    if support.evidence is not None:
        texts.append(support.evidence.quote)
    return texts


def judge_claim(claim: str, sentences: Sequence[str], number: int) -> Judged:
    """The claim through the pipeline (see the module docstring)."""
    result = process_answer(answer_of(claim, sentences, number), event_id=f"wice-{number}")
    if not isinstance(result, AnswerFormatted):
        raise RuntimeError(f"claim {number} did not go through the pipeline: {result}")
    support = result.citations[0].support if result.citations else None
    if support is None:
        return Judged("unverifiable", 0.0, frozenset(), [], 0)
    spans: list[tuple[int, int]] = []
    foreign = 0
    for word in support.missing_words:
        if result.text[word.start : word.end] == word.text:
            spans.append((word.start, word.end))
        else:
            foreign += 1
    evidence = sentences_in(_evidence_texts(result, support), sentences)
    return Judged(support.verdict, support.score, evidence, spans, foreign)


def naive_score(claim: str, sentences: Sequence[str]) -> tuple[float, float, int]:
    """The naive rule's score (claim terms anywhere in the page), and ALCE-style sentence
    recall: the best sentence's share of the claim terms, and that sentence."""
    terms = text_terms(claim)
    if not terms:
        return 0.0, 0.0, -1
    held = [len(terms & text_terms(sentence)) for sentence in sentences]
    page = set().union(*map(text_terms, sentences)) if sentences else set()
    best = max(range(len(held)), key=held.__getitem__) if held else -1
    return len(terms & page) / len(terms), (held[best] / len(terms) if held else 0.0), best


def token_spans(claim: str, tokens: Sequence[str]) -> list[tuple[int, int]]:
    """Where each WiCE token lies in the claim (searched in order; an unfound token is
    an empty span where the search stands)."""
    spans: list[tuple[int, int]] = []
    position = 0
    for token in tokens:
        found = claim.find(token, position)
        if found < 0:
            spans.append((position, position))
            continue
        spans.append((found, found + len(token)))
        position = found + len(token)
    return spans


@dataclass(slots=True)
class Counts:
    """Pooled token counts of one missing-word predictor."""

    hit: int = 0
    predicted: int = 0
    marked: int = 0

    def add(self, predicted: Sequence[bool], marked: Sequence[bool]) -> None:
        """Count one sub-claim's tokens."""
        self.hit += sum(p and m for p, m in zip(predicted, marked, strict=True))
        self.predicted += sum(predicted)
        self.marked += sum(marked)

    def figures(self) -> dict[str, float]:
        """Precision, recall and F1."""
        precision = self.hit / self.predicted if self.predicted else 0.0
        recall = self.hit / self.marked if self.marked else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"precision": precision, "recall": recall, "f1": f1}


def _page_words(sentences: Sequence[str]) -> set[str]:
    """Every word of the page (the naive rule's missing words are the others)."""
    return set(words(" ".join(sentences)))


def _unfound(claim_words: Sequence[str], page: set[str]) -> list[str]:
    """The naive rule's missing words: the claim's words found nowhere in the page."""
    return [word for word in claim_words if word not in page]


def _overlaps(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    start, end = span
    return end > start and any(s < end and start < e for s, e in spans)


def evaluate(corpus: Path) -> Figures:
    """Every figure on the dev split in `corpus` (see the module docstring)."""
    figures = Figures()
    records = read_lines(corpus / CLAIMS_FILE)
    figures.claims = len(records)
    figures.verdicts = {label: dict.fromkeys(VERDICTS, 0) for label in LABELS}
    scores: dict[str, list[float]] = {"citeflow": [], "naive": [], "alce": []}
    labels: list[str] = []
    evidence = {"citeflow": [0, 0, 0.0], "alce": [0, 0, 0.0]}  # meets, covers, mean size
    judged_sets = 0
    alarms = {"citeflow": [0, 0], "naive": [0, 0]}  # human-supported claims flagged, words
    for number, record in enumerate(records):
        label, sentences = record["label"], record["evidence"]
        judged = judge_claim(record["claim"], sentences, number)
        figures.verdicts[label][judged.verdict] += 1
        if label == "supported":
            unfound = _unfound(words(record["claim"]), _page_words(sentences))
            for name, count in (("citeflow", len(judged.missing)), ("naive", len(unfound))):
                alarms[name][0] += count > 0
                alarms[name][1] += count
        naive, alce, best = naive_score(record["claim"], sentences)
        for name, score in (("citeflow", judged.score), ("naive", naive), ("alce", alce)):
            scores[name].append(score)
        labels.append(label)
        sets = [frozenset(group) for group in record["supporting_sentences"]]
        if label == "not_supported" or not sets:
            continue
        judged_sets += 1
        for name, found in (("citeflow", judged.evidence),
                            ("alce", frozenset([best] if best >= 0 else []))):
            tally = evidence[name]
            tally[0] += any(found & group for group in sets)
            tally[1] += any(group <= found for group in sets)
            tally[2] += len(found)
    for name, values in scores.items():
        figures.auc[name] = {
            "supported_vs_not": _auc(values, labels, "not_supported"),
            "supported_vs_partial": _auc(values, labels, "partially_supported"),
        }
    for name, (meets, covers, size) in evidence.items():
        total = judged_sets or 1
        figures.evidence[name] = {"meets": meets / total, "covers": covers / total,
                                  "mean_sentences": size / total, "claims": judged_sets}
    figures.missing, figures.subclaims = missing_figures(read_lines(corpus / TOKENS_FILE))
    for name, (flagged, reported) in alarms.items():
        figures.missing[name]["supported_claims_flagged"] = float(flagged)
        figures.missing[name]["supported_claims_words"] = float(reported)
    figures.missing["citeflow"]["supported_claims"] = float(
        sum(figures.verdicts["supported"].values()))
    return figures


def _auc(scores: Sequence[float], labels: Sequence[str], negative: str) -> float:
    chosen = [(s, y == "supported") for s, y in zip(scores, labels, strict=True)
              if y in ("supported", negative)]
    return auc([s for s, _ in chosen], [y for _, y in chosen])


def missing_figures(records: Sequence[dict[str, Any]]) -> tuple[dict[str, dict[str, float]], int]:
    """Missing words against the human tokens, citeflow's and the naive rule's; only tokens
    with a letter or digit count."""
    ours, naive = Counts(), Counts()
    foreign = reported = 0
    for number, record in enumerate(records):
        claim, tokens = record["claim"], record["claim_tokens"]
        marked_all = record["non_supported_spans"]
        judged = judge_claim(claim, record["evidence"], 10_000 + number)
        foreign += judged.foreign
        reported += judged.foreign + len(judged.missing)
        page = _page_words(record["evidence"])
        spans = token_spans(claim, tokens)
        kept = [i for i, token in enumerate(tokens) if any(map(str.isalnum, token))]
        marked = [bool(marked_all[i]) for i in kept]
        ours.add([_overlaps(spans[i], judged.missing) for i in kept], marked)
        naive.add([bool(_unfound(words(tokens[i]), page)) for i in kept], marked)
    found = {"citeflow": ours.figures(), "naive": naive.figures()}
    found["citeflow"]["foreign_words"] = float(foreign)
    found["citeflow"]["reported_words"] = float(reported)
    return found, len(records)


def rows(figures: Figures) -> Iterator[tuple[str, ...]]:
    """The verdict table by human label: label (count), then each verdict's share."""
    for label in LABELS:
        counts = figures.verdicts[label]
        total = sum(counts.values()) or 1
        yield (f"{label} ({sum(counts.values())})",
               *(f"{counts[verdict] / total:.0%}" for verdict in VERDICTS))
