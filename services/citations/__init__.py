"""The citations stage: maps, inline segments, coverage, AMA references and
supporting passages, built on the recognition of `services.text.extraction` (markers of every
style, span citations, sentences), which the scoring stage uses too.

Public entry points: `services.citations.logic.cite_answer` (the stage logic) and
`services.citations.stage.STAGE`. Its benchmark is `services.bench.extraction` (benchmarks
live in services/bench, which no stage imports).
"""
