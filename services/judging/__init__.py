"""The judging stage: a model judge's second opinion on the lexical support verdicts."""
