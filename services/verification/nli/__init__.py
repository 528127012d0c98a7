"""The model judge: an NLI / fact-checking model run with onnxruntime (`citeflow[nli]`).

A subpackage so the compiled build of the verification logic leaves it out: it is I/O (it
reads a model directory) and depends on an optional extra.
"""
