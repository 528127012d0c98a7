"""The HTTP gateway (`citeflow serve`, SPEC §9): submit answers, read results, keys, docs."""
