"""citeflow's Python client: submit LLM answers to a citeflow gateway and read their
verified, clickable citations (`citeflow.client`), with optional LangChain and LlamaIndex
hooks (`citeflow.integrations`)."""

from citeflow.client import AsyncClient, CiteflowError, Client

__all__ = ["AsyncClient", "CiteflowError", "Client"]
