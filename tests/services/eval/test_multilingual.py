"""`citeflow eval attribution --lang`: the multilingual set's shape, the eval's arithmetic on a
hand-made set, and the command. The judge's own figures are measured, not asserted here."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result

from services.cli import main
from services.eval import multilingual
from services.eval.multilingual import DATA, baseline_terms, evaluate, load, recall
from services.verification.judges import LEXICAL
from services.verification.quality import CitationQuality
from services.verification.sources import SourceView
from services.verification.verify import CitedClaim, Outcome, Verification

REQUIRED = {"zh", "ja", "ko", "hi", "ar", "ru", "de", "fr", "es", "tr", "th", "en"}


def test_the_set_has_every_required_language_with_enough_claims_and_topics() -> None:
    data = load()
    codes = set(data.languages)
    assert REQUIRED <= codes
    assert codes & {"uk", "pl"} and codes & {"he", "fa"}
    assert len(codes) >= 14
    for code, language in data.languages.items():
        topics: dict[str, int] = {}
        for passage in language.passages:
            topic, _, number = passage.partition(":")
            assert number, (code, passage)
            topics[topic] = topics.get(topic, 0) + 1
        assert len(topics) >= 4, code
        assert all(count >= 2 for count in topics.values()), (code, topics)
        assert len(language.claims) >= 12, code
        for text in language.passages.values():
            assert any(ch.isdigit() for ch in text), (code, text)  # concrete facts


def test_every_claim_cites_a_passage_of_its_language_and_swaps_to_a_different_one() -> None:
    for code, language in load().languages.items():
        texts = [claim.text for claim in language.claims]
        assert len(set(texts)) == len(texts), code
        for claim in language.claims:
            assert claim.passage in language.passages, (code, claim)
            assert claim.swap in language.passages, (code, claim)
            assert claim.swap != claim.passage
            assert language.passages[claim.swap] != language.passages[claim.passage]
            # a paraphrase, never the passage's own sentence
            assert claim.text.rstrip("。.") not in language.passages[claim.passage], claim


def test_every_swap_stays_within_its_topic_family() -> None:
    for code, language in load().languages.items():
        same = sum(c.swap.split(":")[0] == c.passage.split(":")[0] for c in language.claims)
        assert same == len(language.claims), code


def test_cross_language_pairs_go_both_ways_and_say_what_an_honest_judge_says() -> None:
    data = load()
    pairs = data.cross
    assert len(pairs) >= 12
    directions = {(p.claim_language, p.source_language) for p in pairs}
    assert {("en", "de"), ("en", "zh")} <= directions
    assert directions & {("de", "en"), ("zh", "en")}
    raw = json.loads(DATA.read_text("utf-8"))["cross_language"]
    for pair, entry in zip(pairs, raw, strict=True):
        assert pair.claim_language != pair.source_language
        assert pair.expected in {"unverifiable", "unsupported"}
        # numbers or names decide exactly where an honest judge may say more than unverifiable
        assert (pair.decided_by is not None) == (pair.expected == "unsupported")
        assert pair.decided_by in {None, "number", "name"}
        if pair.expected == "unsupported":
            assert not pair.right
        passages = data.languages[pair.source_language].passages
        assert passages[entry["source_passage"]] == pair.source
    assert sum(p.decided_by is not None for p in pairs) >= 4
    assert sum(p.expected == "unverifiable" for p in pairs) >= 8


def test_baseline_terms_read_each_script() -> None:
    assert baseline_terms("长江全长6300公里") == {"长江", "江全", "全长", "6300", "公里"}
    # numbers glued to a counter are split off; separators inside numbers dropped
    assert baseline_terms("494킬로미터를 1,947미터") == {"494", "킬로미터를", "1947", "미터"}
    # combining marks belong to their word (गंगा is one word, not fragments)
    assert baseline_terms("गंगा नदी") == {"गंगा", "नदी"}
    # digits of every script and width fold to ASCII; case folds; short words are dropped
    assert baseline_terms("عام ٧٦٢ في") == {"عام", "762"}
    assert baseline_terms("ＡＢＣＤ of １９８８") == {"abcd", "1988"}
    assert baseline_terms("Енисея Енисей", prefix=5) == {"енисе"}
    assert baseline_terms("한라산의 한라산은", prefix=5) == {"한라", "라산", "산의", "산은"}


def test_recall_is_the_share_of_the_claim_terms_in_the_passage() -> None:
    assert recall({"a", "b", "c", "d"}, {"a", "d", "x"}) == 0.5
    assert recall(set(), {"a"}) == 0.0


def _tiny(tmp_path: Path) -> Path:
    data = {
        "languages": {
            "xx": {
                "name": "Test",
                "passages": {"t:1": "P one.", "t:2": "P two.", "u:1": "P three."},
                "claims": [
                    {"text": "claim a", "passage": "t:1", "swap": "t:2"},
                    {"text": "claim b", "passage": "t:2", "swap": "t:1"},
                    {"text": "claim c", "passage": "u:1", "swap": "t:1"},
                ],
            }
        },
        "cross_language": [
            {"claim": "claim d", "claim_language": "yy", "source": "P four.",
             "source_language": "xx", "right": True, "expected": "unverifiable",
             "decided_by": None},
            {"claim": "claim e", "claim_language": "yy", "source": "P five.",
             "source_language": "xx", "right": False, "expected": "unsupported",
             "decided_by": "number"},
        ],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


# (claim, cited passage text) -> (verdict, better_source)
_OUTCOMES: dict[tuple[str, str], tuple[str, int | None]] = {
    ("claim a", "P one."): ("supported", None),  # right, kept
    ("claim a", "P two."): ("unsupported", None),  # wrong, flagged
    ("claim b", "P two."): ("partial", 0),  # right, but a better source: flagged
    ("claim b", "P one."): ("unverifiable", None),  # wrong, not flagged (honestly)
    ("claim c", "P three."): ("unverifiable", None),  # right, not flagged
    ("claim c", "P one."): ("partial", 2),  # wrong, flagged by its better source
    ("claim d", "P four."): ("unverifiable", None),
    ("claim e", "P five."): ("partial", None),
}


def _fixed_verify(
    claims: Sequence[CitedClaim], sentences: Sequence[Any], sources: Sequence[int],
    views: Callable[[int], SourceView | None], verbatim: Mapping[int, frozenset[int]],
    judge: Any,
) -> Verification:
    outcomes = {}
    for claim in claims:
        view = views(claim.source_index)
        assert view is not None
        verdict, better = _OUTCOMES[(claim.text, view.texts[0])]
        outcomes[claim.position] = Outcome(verdict, {"supported": 1.0, "partial": 0.5}.get(
            verdict, 0.0), None, [], (), better, "fixed")
    return Verification(outcomes, CitationQuality(0, 0, 0, 0, 0), "fixed")


def test_the_eval_counts_flags_verdicts_and_honest_unverifiable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(multilingual, "verify", _fixed_verify)
    figures = evaluate(LEXICAL, None, _tiny(tmp_path))
    xx = figures["languages"]["xx"]
    assert xx["claims"] == 3 and xx["pairs"] == 6 and xx["passages"] == 3
    assert xx["right_verdicts"] == {"supported": 1, "partial": 1, "unsupported": 0,
                                    "unverifiable": 1}
    assert xx["wrong_verdicts"] == {"supported": 0, "partial": 1, "unsupported": 1,
                                    "unverifiable": 1}
    assert xx["right_flagged"] == 1 and xx["right_better_source"] == 1
    assert xx["wrong_flagged"] == 2
    # right kept 2 of 3, wrong flagged 2 of 3
    assert xx["judge_balanced_accuracy"] == pytest.approx(2 / 3)
    assert xx["presence_balanced_accuracy"] == 0.5
    assert figures["languages_at_target"] == 0
    cross = figures["cross_language"]
    assert cross["pairs"] == 2 and cross["agree"] == 1
    assert cross["expected_unverifiable"] == 1 and cross["unverifiable_when_expected"] == 1
    assert cross["expected_decided"] == 1 and cross["decided_as_expected"] == 0


def test_evaluate_refuses_an_unknown_language(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="zz"):
        evaluate(LEXICAL, ["zz"], _tiny(tmp_path))


def test_the_shipped_judge_runs_on_every_language_of_the_set() -> None:
    figures = evaluate(LEXICAL)
    data = load()
    assert list(figures["languages"]) == list(data.languages)
    for code, f in figures["languages"].items():
        claims = len(data.languages[code].claims)
        assert f["pairs"] == 2 * claims
        assert sum(f["right_verdicts"].values()) == claims
        assert sum(f["wrong_verdicts"].values()) == claims
        for name in ("judge", "presence", "recall_shipped_best", "recall_words_best",
                     "recall_prefix5_best"):
            assert 0.0 <= f[f"{name}_balanced_accuracy"] <= 1.0
    assert figures["cross_language"]["pairs"] == len(data.cross)


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, ["eval", "attribution", *args, "--judge", "lexical"])


def test_cli_lang_alone_evaluates_every_language() -> None:
    result = _run("--lang")
    assert result.exit_code == 0, result.output
    figures = orjson.loads(result.stdout.strip().splitlines()[-1])
    assert set(figures["languages"]) == set(load().languages)
    assert figures["cross_language"]["pairs"] == len(load().cross)
    assert figures["judge"] == "lexical"


def test_cli_lang_names_languages() -> None:
    result = _run("--lang", "zh,ja")
    assert result.exit_code == 0, result.output
    figures = orjson.loads(result.stdout.strip().splitlines()[-1])
    assert list(figures["languages"]) == ["zh", "ja"]
    involved = [p for p in load().cross if "zh" in (p.claim_language, p.source_language)
                or "ja" in (p.claim_language, p.source_language)]
    assert figures["cross_language"]["pairs"] == len(involved)
    assert "BA judge" in result.stderr and "cross-language pairs" in result.stderr


def test_cli_lang_reads_another_set_and_refuses_unknown_languages(tmp_path: Path) -> None:
    path = _tiny(tmp_path)
    result = _run("--lang", "--data", str(path))
    assert result.exit_code == 0, result.output
    figures = orjson.loads(result.stdout.strip().splitlines()[-1])
    assert list(figures["languages"]) == ["xx"]
    refused = _run("--lang", "xx,zz", "--data", str(path))
    assert refused.exit_code == 2
    assert "zz" in refused.output
