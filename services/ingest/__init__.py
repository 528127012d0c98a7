"""The ingest stage: admits answers and documents, rejects bad input with its original bytes."""
