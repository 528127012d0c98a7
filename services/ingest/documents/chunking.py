"""Cutting section text into overlapping chunks with stable ids and exact offsets."""

from __future__ import annotations

from typing import Any

from schemas.documents import ChunkingOptions

# Preferred places to end a chunk, best first, with how many of their characters stay in it.
_BREAKS: tuple[tuple[str, int], ...] = (("\n\n", 0), (". ", 1), ("\n", 0), (" ", 0))
_SPACE = " \n\t\r\f\v"


def chunk_bounds(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """`[start, end)` pairs covering `text`: at most `size` characters each, ending at a
    paragraph, sentence or word boundary in the chunk's second half when there is one, and
    each starting about `overlap` characters before the previous end, on a word start."""
    length = len(text)
    bounds: list[tuple[int, int]] = []
    start = 0
    while start < length:
        limit = start + size
        end = length
        if limit < length:
            end = limit
            for separator, kept in _BREAKS:
                found = text.rfind(separator, start + size // 2, limit)
                if found != -1:
                    end = found + kept
                    break
        bounds.append((start, end))
        if end >= length:
            break
        start = max(end - overlap, start + 1)
        if overlap and text[start - 1] not in _SPACE:
            word_start = text.find(" ", start, end)
            start = word_start + 1 if word_start != -1 else start
        while start < length and text[start] in _SPACE:
            start += 1
    return bounds


def section_chunks(
    doc_id: str, section: dict[str, Any], options: ChunkingOptions
) -> list[dict[str, Any]]:
    """The chunk records of one section record; ids are `{doc_id}:{section index}:{n}`.

    Records are plain dicts: the whole `documents.ingested` payload is validated in one
    pydantic call, several times faster than a model per chunk.
    """
    text = section["text"]
    prefix = f"{doc_id}:{section['index']}:"
    keep_text = options.include_chunk_text
    return [
        {
            "chunk_id": f"{prefix}{n}",
            "doc_id": doc_id,
            "section_id": section["section_id"],
            "href": section["href"],
            "page": section["page"],
            "start_char": start,
            "end_char": end,
            "text": text[start:end] if keep_text else None,
        }
        for n, (start, end) in enumerate(
            chunk_bounds(text, options.chunk_size, options.chunk_overlap)
        )
    ]
