"""The results store: a sink of the pipeline's outcomes into SQL (SQLite or PostgreSQL)
behind one small interface (`services.store.api.ResultsStore`) that the gateway reads."""
