"""The citations stage (SPEC §4.3): citation markers, sentences, maps, inline segments,
coverage, AMA references and supporting passages.

Public entry points: `services.citations.extract.extract` (shared with the scoring stage),
`services.citations.logic.cite_answer` (the stage logic), `services.citations.stage.STAGE`,
and `services.citations.sentences.split_sentences`. Its benchmark is
`services.bench.extraction` (benchmarks live in services/bench, which no stage imports).
"""
