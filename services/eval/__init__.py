"""Evaluations on the corpus (`citeflow eval ...`). No stage imports this package."""
