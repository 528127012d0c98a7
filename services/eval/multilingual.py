"""`citeflow eval attribution --lang`: the support judge on the team's multilingual set.

Data (`data/multilingual_attribution.json`, see the README beside it): for each language,
source passages written natively and answer sentences that paraphrase one passage each, with
the passage they are rightly cited to and a `swap`, another passage of the same language (of
the same topic family wherever there is one). Plus cross-language pairs: a claim in one
language cited to a source in another.

(a) Wrong-citation detection, per language. Every claim is judged twice, cited to its passage
    (a right citation) and to its swap (a wrong one), with every passage of the language
    supplied as a source, through the same API as `attribution.py` (`verify` over source
    views). As there, a citation is flagged wrong when its verdict is `unsupported` or it has a
    `better_source`; `unverifiable` is not a flag (the judge did not say the citation is
    wrong), so it counts as a miss on a wrong citation and as kept on a right one. Reported:
    balanced accuracy of the flags, the verdicts given to right and to wrong citations, and
    AUC of the judge's score.
(b) Cross-language pairs: each pair's verdict against the verdict an honest lexical judge
    should give (`unverifiable` unless the numbers or names decide, then `unsupported`).

Baselines in the same run, per language: a citation's mere presence (every citation right)
and content-word recall (the share of the claim's terms found in the cited passage; balanced
accuracy at its best threshold, chosen on the same data: an oracle), with three tokenisations:
the shipped `text_terms` (as `attribution.py` does), and this module's own per-script terms —
words for spaced scripts and character bigrams for unspaced ones (Han, kana, Thai, Lao, Khmer,
Burmese), either whole or truncated to five characters (with Hangul words cut into syllable
bigrams), a crude stemmer that lets inflected forms meet.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.eval.metrics import auc, balanced_accuracy, best_balanced_accuracy
from services.text.lexical import clear_memo, text_terms
from services.verification.judges import Judge
from services.verification.sources import SourceView, source_view
from services.verification.sources import clear_memo as clear_views
from services.verification.verify import CitedClaim, verify

DATA = Path(__file__).resolve().parent / "data" / "multilingual_attribution.json"
VERDICTS = ("supported", "partial", "unsupported", "unverifiable")
TARGET = 0.85

# Scripts written without spaces between words: (first, last) code points.
_UNSPACED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Burmese
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3FFFF),  # CJK extensions B and beyond
)


@dataclass(frozen=True, slots=True)
class Claim:
    """An answer sentence, the passage it paraphrases and the passage it is swapped to."""

    text: str
    passage: str
    swap: str


@dataclass(frozen=True, slots=True)
class Language:
    """One language's passages (by id, `topic:n`) and claims."""

    code: str
    name: str
    passages: dict[str, str]
    claims: tuple[Claim, ...]


@dataclass(frozen=True, slots=True)
class CrossPair:
    """A claim cited to a source in another language, and what an honest judge says."""

    claim: str
    claim_language: str
    source: str
    source_language: str
    right: bool
    expected: str
    decided_by: str | None


@dataclass(frozen=True, slots=True)
class DataSet:
    """The languages (by code) and the cross-language pairs."""

    languages: dict[str, Language]
    cross: tuple[CrossPair, ...]


def load(path: Path = DATA) -> DataSet:
    """The data set in `path` (the shipped one by default)."""
    raw = json.loads(path.read_text("utf-8"))
    languages = {
        code: Language(
            code,
            entry["name"],
            dict(entry["passages"]),
            tuple(Claim(c["text"], c["passage"], c["swap"]) for c in entry["claims"]),
        )
        for code, entry in raw["languages"].items()
    }
    cross = tuple(
        CrossPair(
            p["claim"], p["claim_language"], p["source"], p["source_language"],
            bool(p["right"]), p["expected"], p.get("decided_by"),
        )
        for p in raw.get("cross_language", [])
    )
    return DataSet(languages, cross)


def _unspaced(char: str) -> bool:
    point = ord(char)
    return any(first <= point <= last for first, last in _UNSPACED)


def _runs(text: str) -> list[tuple[str, str]]:
    """The text's runs as (kind, run): kind `digits`, `unspaced` or `word`; combining marks
    stay with the run they follow; digits of every script read as ASCII, and the separators
    inside a number (`1,947`, `2,58`) are dropped."""
    text = unicodedata.normalize("NFKC", text).casefold()
    runs: list[tuple[str, list[str]]] = []
    previous = ""
    for position, char in enumerate(text):
        category = unicodedata.category(char)
        if category == "Nd":
            kind, char = "digits", str(unicodedata.digit(char))
        elif category[0] == "M" and runs and previous:
            kind = runs[-1][0]
        elif category[0] in "LN":
            kind = "unspaced" if _unspaced(char) else "word"
        elif (char in ",." and previous == "digits" and position + 1 < len(text)
              and unicodedata.category(text[position + 1]) == "Nd"):
            continue
        else:
            previous = ""
            continue
        if kind == previous:
            runs[-1][1].append(char)
        else:
            runs.append((kind, [char]))
        previous = kind
    return [(kind, "".join(chars)) for kind, chars in runs]


def _bigrams(run: str) -> set[str]:
    return {run[k:k + 2] for k in range(len(run) - 1)} if len(run) > 1 else {run}


def _hangul(word: str) -> bool:
    return all(0xAC00 <= ord(c) <= 0xD7A3 for c in word)


def baseline_terms(text: str, prefix: int | None = None) -> set[str]:
    """The baseline's terms: numbers; character bigrams of unspaced runs; words of spaced
    scripts of at least three characters (two Hangul syllables), a crude content-word filter.
    With `prefix`, words are cut to their first `prefix` characters and Hangul words into
    syllable bigrams."""
    terms: set[str] = set()
    for kind, run in _runs(text):
        if kind == "digits":
            terms.add(run)
        elif kind == "unspaced":
            terms |= _bigrams(run)
        elif len(run) >= (2 if _hangul(run) else 3):
            if prefix is None:
                terms.add(run)
            elif _hangul(run):
                terms |= _bigrams(run)
            else:
                terms.add(run[:prefix])
    return terms


def recall(claim: set[str], passage: set[str]) -> float:
    """The share of the claim's terms that the passage holds (0 for a claim without any)."""
    return len(claim & passage) / len(claim) if claim else 0.0


def _shipped_recall(claim: str, passage: str) -> float:
    return recall(text_terms(claim), text_terms(passage))


def _counts(verdicts: Iterable[str]) -> dict[str, int]:
    counted = Counter(verdicts)
    return {verdict: counted.get(verdict, 0) for verdict in VERDICTS}


def _passage(ids: list[str], index: int | None) -> str | None:
    return None if index is None else ids[index]


def judge_language(language: Language, judge: Judge) -> dict[str, Any]:
    """Task (a) on one language: the judge's flags, verdicts and scores beside the baselines."""
    ids = list(language.passages)
    index = {passage: n for n, passage in enumerate(ids)}
    views: dict[int, SourceView | None] = {
        n: source_view([language.passages[passage]]) for n, passage in enumerate(ids)
    }
    cited: list[tuple[str, int, bool]] = []  # claim text, source index, right
    for claim in language.claims:
        cited.append((claim.text, index[claim.passage], True))
        cited.append((claim.text, index[claim.swap], False))
    claims = [CitedClaim(k, source, k, text, (source,)) for k, (text, source, _) in
              enumerate(cited)]
    outcomes = verify(claims, [], list(range(len(ids))), views.get, {}, judge).outcomes
    labels = [right for _, _, right in cited]
    verdicts = [outcomes[k].verdict for k in range(len(cited))]
    flags = [outcomes[k].verdict == "unsupported" or outcomes[k].better_source is not None
             for k in range(len(cited))]
    scores = [outcomes[k].score for k in range(len(cited))]
    figures: dict[str, Any] = {
        "name": language.name,
        "claims": len(language.claims),
        "passages": len(ids),
        "pairs": len(cited),
        "right_verdicts": _counts(v for v, y in zip(verdicts, labels, strict=True) if y),
        "wrong_verdicts": _counts(v for v, y in zip(verdicts, labels, strict=True) if not y),
        "right_flagged": sum(f for f, y in zip(flags, labels, strict=True) if y),
        "right_better_source": sum(
            outcomes[k].better_source is not None for k in range(len(cited)) if labels[k]),
        "wrong_flagged": sum(f for f, y in zip(flags, labels, strict=True) if not y),
        "judge_balanced_accuracy": balanced_accuracy([not f for f in flags], labels),
        "judge_auc_score": auc(scores, labels),
        "presence_balanced_accuracy": balanced_accuracy([True] * len(labels), labels),
        # the judge's mistakes: right citations flagged, wrong ones kept
        "mistakes": [
            {"claim": text, "cited": ids[source], "right": right, "verdict": verdicts[k],
             "better_source": _passage(ids, outcomes[k].better_source)}
            for k, (text, source, right) in enumerate(cited) if flags[k] == right
        ],
    }
    texts = [(text, language.passages[ids[source]]) for text, source, _ in cited]
    baselines = {
        "shipped": [_shipped_recall(c, p) for c, p in texts],
        "words": [recall(baseline_terms(c), baseline_terms(p)) for c, p in texts],
        "prefix5": [recall(baseline_terms(c, 5), baseline_terms(p, 5)) for c, p in texts],
    }
    for name, values in baselines.items():
        figures[f"recall_{name}_best_balanced_accuracy"] = best_balanced_accuracy(values, labels)
        figures[f"recall_{name}_auc"] = auc(values, labels)
    return figures


def judge_cross(pairs: Iterable[CrossPair], judge: Judge) -> dict[str, Any]:
    """Task (b): each cross-language pair's verdict (its source the only one supplied) beside
    the verdict expected of an honest judge."""
    rows: list[dict[str, Any]] = []
    for pair in pairs:
        view = source_view([pair.source])
        claim = CitedClaim(0, 0, 0, pair.claim, (0,))
        outcome = verify([claim], [], [0], {0: view}.get, {}, judge).outcomes[0]
        rows.append({
            "claim_language": pair.claim_language, "source_language": pair.source_language,
            "right": pair.right, "expected": pair.expected, "decided_by": pair.decided_by,
            "verdict": outcome.verdict, "score": outcome.score, "claim": pair.claim,
        })
    undecided = [r for r in rows if r["expected"] == "unverifiable"]
    decided = [r for r in rows if r["expected"] != "unverifiable"]
    return {
        "pairs": len(rows),
        "agree": sum(r["verdict"] == r["expected"] for r in rows),
        "expected_unverifiable": len(undecided),
        "called_unverifiable": sum(r["verdict"] == "unverifiable" for r in rows),
        "unverifiable_when_expected": sum(r["verdict"] == "unverifiable" for r in undecided),
        "expected_decided": len(decided),
        "decided_as_expected": sum(r["verdict"] == r["expected"] for r in decided),
        "verdicts": _counts(r["verdict"] for r in rows),
        "rows": rows,
    }


def evaluate(judge: Judge, languages: Iterable[str] | None = None,
             path: Path = DATA) -> dict[str, Any]:
    """Both tasks on the languages named (all by default) of the data set in `path`; the
    cross-language pairs are those with a language among them on either side."""
    data = load(path)
    chosen = list(data.languages) if languages is None else list(languages)
    unknown = [code for code in chosen if code not in data.languages]
    if unknown:
        raise ValueError(f"no such language in the set: {', '.join(unknown)} "
                         f"(it has {', '.join(data.languages)})")
    clear_memo(vocabulary=False)
    clear_views()
    per_language = {code: judge_language(data.languages[code], judge) for code in chosen}
    pairs = [p for p in data.cross if p.claim_language in chosen or p.source_language in chosen]
    return {
        "judge": judge.name,
        "target_balanced_accuracy": TARGET,
        "languages": per_language,
        "languages_at_target": sum(
            f["judge_balanced_accuracy"] >= TARGET for f in per_language.values()),
        "cross_language": judge_cross(pairs, judge),
    }
