"""`citeflow bench sentences`: sentence segmentation in every language.

- pySBD's per-language golden rules: citeflow not told the language (and told it) beside
  pySBD told it, counted in the same run;
- a Chinese answer of the benchmark answer's shape (10 sources of two 1,000-character chunks, 50
  citations, 20 verbatim quotes) through the whole pipeline in process, beside pySBD
  segmenting the same text told `zh`;
- a 4 MB Thai text (no spaces, no punctuation): segmentation time at 1, 4 and 16 MB (linear
  growth, not quadratic: 16 MB takes about 4x the time of 4 MB once the text is larger than
  the caches) and the peak memory of segmenting it.
"""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path
from typing import Any

import orjson

from schemas.formatted import AnswerFormatted
from services.bench.timing import median_ms, samples_ms

_ZH_WORDS = (
    "检索 证据 模型 段落 来源 主张 答案 研究 结果 方法 数据 分析 测量 效应 患者 试验 结局 样本 "
    "队列 协议 发现 综述 系统 信号 延迟 吞吐 代理 分区 消费者 生产者 偏移 提交 记录 事件 文档 "
    "章节 页面 引文 标记 读者 高亮 锚点 定位 范围 城市 河流 人口 经济 历史 文化 教育 医学"
).split()
_ZH_STOPS = "。。。。！？"

_RULES = Path("sentences") / "pysbd_golden_rules_lang.json"


def _zh_sentence(rng: random.Random, words: int) -> str:
    return "".join(rng.choice(_ZH_WORDS) for _ in range(words))


def _zh_chunk(rng: random.Random, length: int) -> str:
    parts: list[str] = []
    size = 0
    while size < length:
        sentence = _zh_sentence(rng, rng.randint(8, 16)) + rng.choice(_ZH_STOPS)
        parts.append(sentence)
        size += len(sentence)
    return "".join(parts)[:length] + "。"


def chinese_answer(*, citations: int = 50, sources: int = 10, verbatim: int = 20,
                   sentences: int = 58, seed: int = 7) -> dict[str, Any]:
    """An `answer.submitted` data object in Chinese shaped like the benchmark answer
    (58 sentences as the English one has, markers before and after the full stop)."""
    rng = random.Random(seed)
    source_list: list[dict[str, Any]] = []
    for index in range(1, sources + 1):
        chunks = []
        offset = 0
        for position in range(2):
            text = _zh_chunk(rng, 1000)
            chunks.append({"chunk_id": f"doc{index}-c{position}", "text": text,
                           "start_char": offset})
            offset += len(text) + 1
        source_list.append({"index": index, "kind": "document", "doc_id": f"doc{index}",
                            "title": f"研究{index}", "format": "text", "chunks": chunks,
                            "score": round(rng.uniform(0.2, 12.0), 3), "year": 2000 + index})
    parts: list[str] = []
    units: list[dict[str, Any]] = []
    for number in range(citations):
        source = source_list[number % sources]
        cite = f"[{source['index']}]"
        if number < verbatim:
            chunk = source["chunks"][number % 2]["text"]
            first = rng.randint(0, len(chunk) - 40)
            quote = chunk[first : first + rng.randint(12, 30)].strip("。！？")
            text = f"该研究指出“{quote}”{cite}。"
            units.append({"id": f"U{number + 1}", "text": text, "kind": "verbatim",
                          "quote": quote, "source_indexes": [source["index"]]})
        else:
            body = _zh_sentence(rng, rng.randint(12, 22))
            text = f"{body}{cite}。" if number % 2 else f"{body}。{cite}"
            units.append({"id": f"U{number + 1}", "text": text, "kind": "derived",
                          "quote": None, "source_indexes": [source["index"]]})
        parts.append(text)
    while len(parts) < sentences:
        parts.insert(rng.randint(0, len(parts)), _zh_sentence(rng, rng.randint(12, 22)) + "。")
    return {"answer_id": "bench-zh", "query": "这些研究关于检索证据和引文延迟说了什么？",
            "text": "".join(parts), "sources": source_list, "answer_units": units,
            "options": {"min_citation_score": 0.0, "max_citations": 10}}


def thai_text(size_bytes: int) -> str:
    """About `size_bytes` UTF-8 bytes of Thai without spaces or punctuation."""
    unit = "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ"
    return unit * (size_bytes // len(unit.encode()) + 1)


def golden_rules(path: Path) -> dict[str, Any]:
    """Per-language golden rules passed: citeflow not told and told, pySBD told."""
    from services.text.extraction import extract

    rules = json.loads(path.read_text("utf-8"))
    found: dict[str, Any] = {"cases": len(rules), "not_told": 0, "told": 0}
    for rule in rules:
        expected = [e.strip() for e in rule["expected"]]
        found["not_told"] += [s.text for s in extract(rule["text"], []).sentences] == expected
        told = extract(rule["text"], [], language=rule["lang"]).sentences
        found["told"] += [s.text for s in told] == expected
    try:
        import pysbd
    except ImportError:
        return found
    passed = 0
    for rule in rules:
        segmenter = pysbd.Segmenter(language=rule["lang"], clean=False)
        got = [s.strip() for s in segmenter.segment(rule["text"]) if s.strip()]
        passed += got == [e.strip() for e in rule["expected"]]
    found["pysbd_told"] = passed
    return found


def bench_chinese(runs: int) -> dict[str, Any]:
    """The whole pipeline on the Chinese answer, and pySBD (told `zh`) on its text."""
    from services.pipeline import process_answer
    from services.runtime.gc_tuning import tune_gc
    from services.text.extraction import extract
    from schemas.answers import AnswerSubmitted

    tune_gc()
    answer = chinese_answer()
    raw = orjson.dumps(answer)
    result = process_answer(raw, event_id="bench-zh")
    if not isinstance(result, AnswerFormatted):
        raise RuntimeError(f"Chinese benchmark answer did not format: {result}")
    parsed = AnswerSubmitted.model_validate(answer)
    found = extract(parsed.text, parsed.sources)
    figures: dict[str, Any] = {
        "chars": len(answer["text"]),
        "sentences": len(found.sentences),
        "citations": len(result.citations),
        "pipeline_ms": median_ms(lambda: process_answer(raw, event_id="bench-zh"), runs,
                                 warmup=5),
        "extraction_ms": median_ms(lambda: extract(parsed.text, parsed.sources), runs,
                                   warmup=5),
    }
    try:
        import pysbd
    except ImportError:
        return figures
    segmenter = pysbd.Segmenter(language="zh", clean=False)
    figures["pysbd_sentences"] = len([s for s in segmenter.segment(answer["text"]) if s.strip()])
    figures["pysbd_ms"] = median_ms(lambda: segmenter.segment(answer["text"]),
                                    max(5, runs // 20), warmup=2)
    figures["speedup"] = figures["pysbd_ms"] / figures["pipeline_ms"]
    return figures


def bench_thai() -> dict[str, Any]:
    """Segmenting 1, 4 and 16 MB of Thai (no spaces, no punctuation): times, the ratios of
    4 to 1 MB and 16 to 4 MB (4 for linear growth, 16 for quadratic) and the peak memory at
    4 MB."""
    from services.text.extraction import extract
    from services.text.sentences import split_sentences

    figures: dict[str, Any] = {}
    for megabytes in (1, 4, 16):
        text = thai_text(megabytes * 1024 * 1024)
        figures[f"split_{megabytes}mb_ms"] = min(samples_ms(lambda: split_sentences(text), 5))
        figures[f"extract_{megabytes}mb_ms"] = min(samples_ms(lambda: extract(text, []), 5))
        figures[f"sentences_{megabytes}mb"] = len(split_sentences(text))
    for big, small in ((4, 1), (16, 4)):
        for step in ("split", "extract"):
            figures[f"{step}_ratio_{big}_to_{small}"] = (
                figures[f"{step}_{big}mb_ms"] / figures[f"{step}_{small}mb_ms"]
            )
    text = thai_text(4 * 1024 * 1024)
    tracemalloc.start()
    extract(text, [])
    figures["extract_4mb_peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    figures["text_4mb_str_mb"] = (len(text) * 2) / 1e6  # (Thai: 2 bytes a character in a str)
    return figures


def bench_sentences(runs: int, corpus: Path) -> dict[str, Any]:
    """All three measurements (`corpus`: the directory holding sentences/)."""
    path = corpus / _RULES
    return {
        "golden_rules_lang": golden_rules(path) if path.exists() else None,
        "chinese": bench_chinese(runs),
        "thai": bench_thai(),
    }


def report(runs: int, corpus: Path) -> str:
    """Run `bench_sentences`, print its table (stderr) and return its JSON."""
    from rich.console import Console
    from rich.table import Table

    from services import native

    result = bench_sentences(runs, corpus)
    logic = "compiled stage logic (mypyc)" if native.is_active() else "plain Python stage logic"
    table = Table(title=f"citeflow bench sentences (median of {runs} runs; {logic})")
    for column in ("measurement", "ours", "reference (same run)", "ratio"):
        table.add_column(column)
    golden = result["golden_rules_lang"]
    if golden:
        table.add_row("pySBD per-language golden rules", f"{golden['not_told']}/"
                      f"{golden['cases']} not told ({golden['told']} told)",
                      f"pySBD told {golden.get('pysbd_told', '-')}/{golden['cases']}", "-")
    zh = result["chinese"]
    table.add_row(f"Chinese answer, whole pipeline ({zh['sentences']} sentences, "
                  f"{zh['citations']} citations)", f"{zh['pipeline_ms']:.3f} ms",
                  f"pySBD zh {zh.get('pysbd_ms', float('nan')):.2f} ms",
                  f"{zh.get('speedup', float('nan')):.1f}x faster")
    table.add_row("Chinese answer, extraction + sentences", f"{zh['extraction_ms']:.3f} ms",
                  f"pySBD zh {zh.get('pysbd_sentences', '-')} sentences", "-")
    thai = result["thai"]
    for step, name in (("split", "split_sentences"), ("extract", "whole extraction")):
        table.add_row(f"Thai 1 / 4 / 16 MB, {name}",
                      " / ".join(f"{thai[f'{step}_{mb}mb_ms']:.1f}" for mb in (1, 4, 16)) + " ms",
                      "linear: 4x per step",
                      f"{thai[f'{step}_ratio_4_to_1']:.1f}x, {thai[f'{step}_ratio_16_to_4']:.1f}x")
    table.add_row("Thai 4 MB, peak memory of extraction",
                  f"{thai['extract_4mb_peak_mb']:.2f} MB",
                  f"the text itself {thai['text_4mb_str_mb']:.1f} MB", "-")
    Console(stderr=True).print(table)
    return orjson.dumps({"native": native.is_active(), **result}).decode()
