"""Framework hooks of the client: `citeflow.integrations.langchain` (a callback handler)
and `citeflow.integrations.llamaindex` (a query-engine wrapper). Each needs its extra:
`pip install 'citeflow[langchain]'` or `'citeflow[llamaindex]'`."""
