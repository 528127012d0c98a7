"""citeflow services: the five stages, their shared runtime, the broker launcher and the CLI."""
