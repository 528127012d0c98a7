"""Text utilities shared by several stages: offsets, normalisation, lexical similarity, and
the one home of citation recognition: `extraction.extract_answer` finds the
markers of every style (`markers`, `marker_styles`, `footnotes`), merges the span citations
an answer brings (`supplied`) and segments sentences (`sentences`). Scoring and citations
both use it; in one process it runs once per answer (services/pipeline.py)."""
