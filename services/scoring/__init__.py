"""The scoring stage: retriever score, query relevance and citation support of every
source, combined into an explainable score with rank, eligibility and the passage sources."""
