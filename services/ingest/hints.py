"""What each field of `answer.submitted` expects, with an example: added to a rejection's
message so that it says what was wrong, what was expected and how to write it."""

from __future__ import annotations

# (parent field or "", field) -> (what is expected, an example). The parent tells apart the
# answer's `text` from a chunk's.
HINTS: dict[tuple[str, str], tuple[str, str]] = {
    ("", "answer_id"): ("1 to 200 characters of A-Z a-z 0-9 . _ : -", '"answer_id": "answer-42"'),
    ("", "text"): ("the answer as a string, with its citation markers",
                   '"text": "The sky is blue [1]."'),
    ("", "query"): ("the question, a string", '"query": "Why is the sky blue?"'),
    ("", "sources"): ("a list of the sources the model saw",
                      '"sources": [{"index": 1, "kind": "web", "url": "https://example.org", '
                      '"chunks": [{"text": "On a clear day the sky is blue."}]}]'),
    ("sources", "index"): ("the number the text cites this source by, an integer from 1",
                           '"index": 1'),
    ("sources", "kind"): ("one of \"web\", \"document\"", '"kind": "web"'),
    ("sources", "url"): ("the page's address, a string", '"url": "https://example.org/sky"'),
    ("sources", "doc_id"): ("the id of an uploaded document, a string", '"doc_id": "moby-dick"'),
    ("sources", "title"): ("a string", '"title": "Why the sky is blue"'),
    ("sources", "format"): ("one of \"pdf\", \"epub\", \"html\", \"text\"", '"format": "pdf"'),
    ("sources", "score"): ("the retriever's score, a number", '"score": 0.82'),
    ("sources", "authors"): ("a list of names", '"authors": ["A. Writer"]'),
    ("sources", "year"): ("an integer", '"year": 2024'),
    ("sources", "chunks"): ("a list of the passages the model saw",
                            '"chunks": [{"text": "On a clear day the sky is blue."}]'),
    ("chunks", "text"): ("the passage, a string", '"text": "On a clear day the sky is blue."'),
    ("chunks", "page"): ("the page it is on, an integer from 1", '"page": 12'),
    ("chunks", "start_char"): ("where it starts in its section, an integer from 0",
                               '"start_char": 0'),
    ("", "options"): ("an object", '"options": {"max_citations": 5}'),
    ("options", "max_citations"): ("an integer from 0", '"max_citations": 5'),
    ("options", "min_citation_score"): ("a number", '"min_citation_score": 0.1'),
    ("options", "renderings"): ("a list of \"markdown\", \"html\", \"plain\"",
                                '"renderings": ["html"]'),
    ("", "metadata"): ("a JSON object", '"metadata": {"model": "my-llm"}'),
    ("", "citations"): ("a list of spans over the text",
                        '"citations": [{"source_index": 1, "start": 0, "end": 17}]'),
    ("citations", "start"): ("an offset into the text (code points), from 0", '"start": 0'),
    ("citations", "end"): ("an offset into the text (code points), from 0", '"end": 17'),
    ("citations", "source_index"): ("the index of a source", '"source_index": 1'),
    ("", "answer_units"): ("a list of units", '"answer_units": [{"id": "u1", "text": "…", '
                           '"kind": "verbatim"}]'),
}


def hint(loc: tuple[int | str, ...]) -> str:
    """`; expected …, e.g. …` for the field at `loc`, or "" when there is none."""
    names = [part for part in loc if isinstance(part, str)]
    if not names:
        return ""
    found = HINTS.get((names[-2] if len(names) > 1 else "", names[-1]))
    return f"; expected {found[0]}, e.g. {found[1]}" if found else ""
