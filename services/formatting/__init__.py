"""The formatting stage: `answer.resolved` in, `answer.formatted` (with renderings) out."""
