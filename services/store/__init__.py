"""The results store (SPEC §9): a sink of the pipeline's outcomes into SQL (SQLite or PostgreSQL)
behind one small interface (`services.store.api.ResultsStore`) that the gateway reads."""
