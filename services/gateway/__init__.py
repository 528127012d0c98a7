"""The HTTP gateway (`citeflow serve`): submit answers, read results, keys, docs."""
