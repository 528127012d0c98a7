"""The scoring stage (SPEC §4.2): retriever score, query relevance and citation support of every
source, combined into an explainable score with rank, eligibility and the passage sources."""
