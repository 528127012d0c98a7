"""`citeflow eval attribution` and `citeflow bench verification`: support verification on
the corpus answers and its cost."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import orjson

from services.cli import bench, main
from services.cli.judge_option import judge_option, resolve_judge

if TYPE_CHECKING:
    from services.judging.refine import Refiner
    from services.verification.judges import Judge


def _answers_default() -> Path:
    from services.cli.corpus import default_corpus

    return default_corpus() / "answers"


@main.group("eval")
def eval_group() -> None:
    """Evaluations on the corpus, each beside baselines measured in the same run."""


@eval_group.command("attribution")
@click.option("--answers", type=click.Path(file_okay=False, path_type=Path),
              default=_answers_default, show_default="$CITEFLOW_CORPUS/answers or tests/corpus/answers",
              help="Directory holding expertqa_cited_answers.json and alce_demos.json.")
@judge_option
@click.option("--lang", "languages", default=None, is_flag=False, flag_value="all",
              metavar="[CODES]",
              help="Evaluate on the multilingual set instead: every language (--lang alone) or "
                   "those named, comma-separated (--lang zh,ja).")
@click.option("--data", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, show_default="the shipped services/eval/data set",
              help="The multilingual set to read (with --lang).")
def eval_attribution(answers: Path, setting: str | None, languages: str | None,
                     data: Path | None) -> None:
    """Wrong-citation detection and support grading on ExpertQA and ALCE answers: AUC and
    balanced accuracy of the judge beside a citation's mere presence and plain content-word
    recall, and pairs judged per second. With --lang: wrong-citation detection per language
    on the multilingual set (written by the team), and its cross-language pairs."""
    from rich.console import Console
    from rich.table import Table

    from services.eval.attribution import evaluate

    judge, model = resolve_judge(setting)
    if languages is not None:
        _eval_languages(judge, languages, data)
        return
    if not answers.is_dir():  # (checked here: --lang needs no corpus)
        raise click.BadParameter(f"Directory '{answers}' does not exist.",
                                 param_hint="'--answers'")
    figures = evaluate(answers, judge)
    wrong, graded = figures["wrong_citation"], figures["support_grading"]
    table = Table(title=f"citeflow eval attribution (judge: {judge.name}; thresholds chosen "
                        "on these data: in-sample)")
    for column in ("task", "measure", "judge", "mere presence", "content-word recall", "target"):
        table.add_column(column)
    table.add_row(f"(a) wrong citation: {wrong['right']} right, {wrong['wrong']} swapped",
                  "balanced accuracy", f"{wrong['judge_balanced_accuracy']:.3f} (verdicts)",
                  f"{wrong['presence_balanced_accuracy']:.3f}",
                  f"{wrong['recall_best_balanced_accuracy']:.3f} (best threshold)", ">= 0.85")
    table.add_row("", "AUC", f"{wrong['judge_auc_margin']:.3f} (score - best other source); "
                  f"{wrong['judge_auc_score']:.3f} (score)", f"{wrong['presence_auc']:.3f}",
                  f"{wrong['recall_auc']:.3f}", "-")
    table.add_row(f"(b) Complete vs Partial/Incomplete: {graded['complete']} of {graded['claims']}",
                  "balanced accuracy", f"{graded['judge_balanced_accuracy']:.3f} (verdicts)",
                  f"{graded['presence_balanced_accuracy']:.3f}",
                  f"{graded['recall_best_balanced_accuracy']:.3f} (best threshold)",
                  "published 0.55-0.61")
    table.add_row("", "AUC", f"{graded['judge_auc']:.3f}", f"{graded['presence_auc']:.3f}",
                  f"{graded['recall_auc']:.3f}", "-")
    for label, counts in figures["calibration"].items():
        total = sum(counts.values()) or 1
        shares = ", ".join(f"{verdict} {counts.get(verdict, 0) / total:.0%}"
                           for verdict in ("supported", "partial", "unsupported", "unverifiable"))
        target = ("supported >= 50%, unsupported <= 5%" if label == "complete"
                  else "supported below the complete claims'")
        table.add_row(f"(c) calibration: {label.replace('_or_', ' or ')} ({total} claims)", "verdicts",
                      shares, "-", "-", target)
    table.add_row("pace", "pairs/s", f"{wrong['pairs_per_second']:,.0f}", "-", "-", "-")
    Console(stderr=True).print(table)
    if model is not None:
        figures["model_judge"] = _model_judge(answers, judge, model)
    click.echo(orjson.dumps(figures).decode())


def _claims_default() -> Path:
    from services.cli.corpus import default_corpus

    return default_corpus() / "claims"


@eval_group.command("wice")
@click.option("--claims", type=click.Path(file_okay=False, path_type=Path),
              default=_claims_default, show_default="$CITEFLOW_CORPUS/claims or tests/corpus/claims",
              help="Directory holding wice_claim_dev.jsonl and wice_non_supported_tokens_dev.jsonl.")
@click.option("--judge", "setting", default=None,
              help="A model judge, 'openai:<model>' or 'anthropic:<model>' (base URL, key, "
                   "prices from CITEFLOW_JUDGING_*), shown beside the lexical judge on the "
                   "same claims with its cost and time.")
def eval_wice(claims: Path, setting: str | None) -> None:
    """Verdicts on real claims with human labels (WiCE dev): the verdicts by human label, the
    AUC of the score, the evidence against the human supporting sets and the missing words
    against the human-marked ones, beside the naive rule and ALCE-style sentence recall.
    With --judge: a model judge beside the lexical one on the same claims."""
    from rich.console import Console
    from rich.table import Table

    from services.cli.judge_option import MODEL_JUDGES
    from services.eval import wice

    if setting is not None and not setting.startswith(MODEL_JUDGES):
        raise click.BadParameter("expected 'openai:<model>' or 'anthropic:<model>' (the "
                                 "pipeline's own judge is CITEFLOW_JUDGE)",
                                 param_hint="'--judge'")
    _, model = resolve_judge(setting)
    if not claims.is_dir():
        raise click.BadParameter(f"Directory '{claims}' does not exist.", param_hint="'--claims'")
    try:
        figures = wice.evaluate(claims)
    except (OSError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    console = Console(stderr=True, width=max(Console(stderr=True).width, 110))
    verdicts = Table(title=f"citeflow eval wice: verdicts by human label ({figures.claims} "
                           "claims, each `claim [1].` citing its page)")
    for column in ("human label", *wice.VERDICTS):
        verdicts.add_column(column)
    for row in wice.rows(figures):
        verdicts.add_row(*row)
    console.print(verdicts)
    table = Table(title="citeflow eval wice: beside the references, same run")
    for column in ("measure", "citeflow", "naive rule", "ALCE-style sentence recall", "target"):
        table.add_column(column)
    a, e, m = figures.auc, figures.evidence, figures.missing
    for key, name, target in (("supported_vs_not", "AUC supported vs not", ">= 0.93"),
                              ("supported_vs_partial", "AUC supported vs partial", ">= 0.75")):
        table.add_row(name, f"{a['citeflow'][key]:.3f}", f"{a['naive'][key]:.3f}",
                      f"{a['alce'][key]:.3f}", target)
    for key, name, target in (("meets", "evidence meets a human set", ">= 90%"),
                              ("covers", "evidence covers a whole human set", ">= 60%")):
        table.add_row(f"{name} ({e['citeflow']['claims']:.0f} claims)",
                      f"{e['citeflow'][key]:.0%}", "-", f"{e['alce'][key]:.0%}", target)
    table.add_row("evidence sentences (mean)", f"{e['citeflow']['mean_sentences']:.2f}", "-",
                  f"{e['alce']['mean_sentences']:.2f}", "-")
    for key in ("precision", "recall", "f1"):
        table.add_row(f"missing words: token {key} ({figures.subclaims} sub-claims)",
                      f"{m['citeflow'][key]:.3f}", f"{m['naive'][key]:.3f}", "-",
                      ">= 0.65" if key == "f1" else "-")
    table.add_row("missing words not the answer's own", f"{m['citeflow']['foreign_words']:.0f} "
                  f"of {m['citeflow']['reported_words']:.0f}", "-", "-", "0")
    alarms = [f"{m[name]['supported_claims_words']:.0f} words on "
              f"{m[name]['supported_claims_flagged']:.0f} claims" for name in ("citeflow", "naive")]
    table.add_row(f"missing words on human-supported claims "
                  f"({m['citeflow']['supported_claims']:.0f}; false alarms)", *alarms, "-",
                  "fewer is better")
    console.print(table)
    shown = figures.as_dict()
    if model is not None:
        from services.eval.wice_judge import compare_on_wice

        compared = compare_on_wice(claims, model)
        _print_comparison(compared, f"WiCE: supported vs not, {compared['claims']} claims")
        shown["model_judge"] = compared
    click.echo(orjson.dumps(shown).decode())


def _model_judge(answers: Path, lexical: Judge, model: Refiner) -> dict[str, Any]:
    """Task (b) again with the model judge, beside the lexical judge on the same claims."""
    from services.eval.attribution import graded_claims
    from services.judging.comparison import LabelledClaim, compare

    graded = graded_claims(answers, lexical)
    figures = compare(model, [LabelledClaim(c, p, label) for c, p, label, _ in graded],
                      [said for *_, said in graded])
    _print_comparison(figures, f"(b) Complete vs Partial/Incomplete, {figures['claims']} claims")
    return figures


def _print_comparison(figures: dict[str, Any], task: str) -> None:
    """A model judge's figures (services.judging.comparison) beside the lexical judge's."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{task}: {figures['judge']} beside the lexical judge")
    for column in ("judge", "balanced accuracy", "opinions", "requests", "tokens in/out",
                   "cost", "time"):
        table.add_column(column)
    table.add_row("lexical", f"{figures['lexical_balanced_accuracy']:.3f}", "-", "-", "-", "-",
                  "-")
    usd = figures["usd"]
    table.add_row(figures["judge"], f"{figures['balanced_accuracy']:.3f}",
                  ", ".join(f"{k} {v}" for k, v in sorted(figures["statuses"].items())),
                  str(figures["requests"]),
                  f"{figures['input_tokens']}/{figures['output_tokens']}",
                  f"${usd:.4f}" if usd is not None else "unpriced",
                  f"{figures['seconds']:.1f} s")
    Console(stderr=True).print(table)


@bench.command("verification")
@click.option("--answers", type=click.Path(file_okay=False, path_type=Path),
              default=_answers_default, show_default="$CITEFLOW_CORPUS/answers or tests/corpus/answers")
@click.option("--runs", default=50, show_default=True, help="Timed rounds per answer.")
def bench_verification_cmd(answers: Path, runs: int) -> None:
    """CPU the support verification adds per answer (ExpertQA answers and the benchmark answer),
    beside the spans stage and the whole in-process pipeline on the same answers."""
    from rich.console import Console
    from rich.table import Table

    from services import native
    from services.bench.verification import bench_verification

    figures = bench_verification(answers if answers.exists() else None, runs)
    logic = "compiled" if native.is_active() else "plain Python"
    table = Table(title=f"citeflow bench verification (per answer; {logic}; cold source views)")
    for column in ("answers", "verification (CPU)", "of it: citations-stage search",
                   "verification (wall, median)", "spans stage incl. it", "whole pipeline",
                   "target"):
        table.add_column(column)
    for name in ("expertqa", "section7"):
        if name in figures:
            f = figures[name]
            table.add_row(f"{name} ({f['answers']})", f"{f['verification_cpu_ms']:.3f} ms",
                          f"{f['rivals_cpu_ms']:.3f} ms",
                          f"{f['verification_ms']:.3f} ms", f"{f['spans_stage_ms']:.3f} ms",
                          f"{f['pipeline_ms']:.3f} ms",
                          f"<= {figures['target_ms']} ms" if name == "expertqa" else "-")
    Console(stderr=True).print(table)
    click.echo(orjson.dumps(figures).decode())


def _eval_languages(judge: Judge, languages: str, data: Path | None) -> None:
    """`--lang`: the multilingual set's per-language table and cross-language pairs."""
    from rich.console import Console
    from rich.table import Table

    from services.eval import multilingual

    chosen = None if languages == "all" else [c.strip() for c in languages.split(",") if c.strip()]
    try:
        figures = multilingual.evaluate(judge, chosen, data or multilingual.DATA)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--lang'") from error
    table = Table(title=f"citeflow eval attribution --lang (judge: {judge.name}): each claim "
                        "cited to its passage (right) and to another of its language (wrong); "
                        "recall thresholds chosen on these data: in-sample")
    for column in ("lang", "claims", "right: sup/part/unsup/unver", "wrong flagged",
                   "BA judge", "BA presence", "BA recall shipped", "BA recall words",
                   "BA recall prefix5", "target"):
        table.add_column(column)
    for code, f in figures["languages"].items():
        right = f["right_verdicts"]
        table.add_row(
            code, str(f["claims"]),
            " / ".join(str(right[v]) for v in multilingual.VERDICTS),
            f"{f['wrong_flagged']} of {f['claims']}", f"{f['judge_balanced_accuracy']:.3f}",
            f"{f['presence_balanced_accuracy']:.3f}",
            f"{f['recall_shipped_best_balanced_accuracy']:.3f}",
            f"{f['recall_words_best_balanced_accuracy']:.3f}",
            f"{f['recall_prefix5_best_balanced_accuracy']:.3f}",
            f">={figures['target_balanced_accuracy']}")
    console = Console(stderr=True, width=max(Console(stderr=True).width, 120))
    console.print(table)
    cross = figures["cross_language"]
    if cross["rows"]:
        pairs = Table(title=f"cross-language pairs: {cross['agree']} of {cross['pairs']} as an "
                            f"honest judge says; unverifiable {cross['unverifiable_when_expected']}"
                            f" of {cross['expected_unverifiable']} expected; decided by numbers "
                            f"or names {cross['decided_as_expected']} of "
                            f"{cross['expected_decided']}")
        for column in ("claim → source", "claim", "right", "expected", "verdict"):
            pairs.add_column(column)
        for row in cross["rows"]:
            expected = row["expected"] + (f" ({row['decided_by']})" if row["decided_by"] else "")
            claim = row["claim"] if len(row["claim"]) <= 60 else row["claim"][:59] + "…"
            pairs.add_row(f"{row['claim_language']} → {row['source_language']}", claim,
                          "yes" if row["right"] else "no", expected, row["verdict"])
        console.print(pairs)
    click.echo(orjson.dumps(figures).decode())
