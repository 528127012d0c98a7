"""The demo: its answer (demo_answer.json) and the history `citeflow up --demo` seeds."""
