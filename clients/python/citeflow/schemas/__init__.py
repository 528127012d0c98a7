"""The typed models of the events the client sends and reads, generated from schemas/json
(clients/python/generate.py)."""
