"""EPUB ingest on generated books: spine sections, titles, paragraph text, entities, RTL."""

from __future__ import annotations

from schemas.documents import ChunkingOptions, DocumentIngested
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.problems import problem_code
from tests.services.ingest.documents.builders import (
    Chapter,
    EpubSpec,
    build_epub,
    ebooklib_epub,
    xhtml,
)

ALICE_DTD = (
    '<!DOCTYPE html [\n<!ENTITY O "&#x201C;">\n<!ENTITY C "&#x201D;">\n'
    '<!ENTITY D "&#x2014;">\n]>\n'
)


def assert_chunks_are_slices(ingested: DocumentIngested) -> None:
    """Every chunk is exactly its section's text at its offsets, with the section's locator."""
    sections = {section.section_id: section for section in ingested.sections}
    for chunk in ingested.chunks:
        section = sections[chunk.section_id]
        assert 0 <= chunk.start_char < chunk.end_char <= len(section.text)
        assert chunk.href == section.href and chunk.page == section.page
        assert chunk.doc_id == ingested.doc_id
        if chunk.text is not None:
            assert chunk.text == section.text[chunk.start_char:chunk.end_char]


def test_sections_follow_the_spine_with_hrefs_titles_and_linearity() -> None:
    data = build_epub(EpubSpec([
        Chapter("cover.xhtml", xhtml("<p>Cover image</p>", title="Cover"), None, linear=False),
        Chapter("text/one.xhtml", xhtml("<h1>Heading One</h1><p>First.</p>"), "One"),
        Chapter("text/two.xhtml", xhtml("<h2>Fallback Heading</h2><p>Second.</p>")),
    ]))
    ingested = ingest_document(data, "book")
    assert [s.href for s in ingested.sections] == [
        "OEBPS/cover.xhtml", "OEBPS/text/one.xhtml", "OEBPS/text/two.xhtml"]
    assert [s.index for s in ingested.sections] == [0, 1, 2]
    assert [s.section_id for s in ingested.sections] == ["book:0", "book:1", "book:2"]
    assert [s.title for s in ingested.sections] == ["Cover", "One", "Fallback Heading"]
    assert [s.linear for s in ingested.sections] == [False, True, True]
    assert ingested.title == "Generated Book" and ingested.format == "epub"


def test_block_elements_become_paragraph_breaks_and_whitespace_collapses() -> None:
    body = (
        "<h1>Title</h1>\n  <p>One   <em>two</em>\n\tthree</p><div><p>Nested</p> tail</div>"
        "<ul><li>a</li><li>b</li></ul><p>line<br/>break</p>"
        "<pre>code  line 1\ncode line 2</pre><table><tr><td>c1</td><td>c2</td></tr></table>"
        "<script>var hidden = 1;</script><style>p { color: red }</style><p>no\u00a0break</p>"
    )
    data = build_epub(EpubSpec([Chapter("c.xhtml", xhtml(body), "C")]))
    text = ingest_document(data, "b").sections[0].text
    assert text == (
        "Title\n\nOne two three\n\nNested\n\ntail\n\na\n\nb\n\nline\nbreak\n\n"
        "code line 1\ncode line 2\n\nc1\nc2\n\nno\u00a0break"
    )


def test_epub2_with_internal_dtd_entities_and_ncx_titles() -> None:
    chapter = xhtml("<p>&O;Curiouser and curiouser!&C; cried Alice&D;</p>", doctype=ALICE_DTD)
    data = build_epub(EpubSpec([Chapter("chapter01.xhtml", chapter, "I. Down")],
                               version="2.0", opf_dir=""))
    ingested = ingest_document(data, "alice")
    section = ingested.sections[0]
    assert section.href == "chapter01.xhtml" and section.title == "I. Down"
    assert section.text == "\u201cCuriouser and curiouser!\u201d cried Alice\u2014"
    assert ingested.problems == []


def test_external_entities_are_never_loaded() -> None:
    doctype = '<!DOCTYPE html [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    chapter = xhtml("<p>before &xxe; after</p>", doctype=doctype)
    ingested = ingest_document(build_epub(EpubSpec([Chapter("c.xhtml", chapter, "C")])), "x")
    assert "root:" not in ingested.sections[0].text
    assert [problem_code(p) for p in ingested.problems] == ["not_well_formed"]


def test_entity_amplification_is_refused_by_the_parser() -> None:
    levels = "".join(
        f'<!ENTITY l{n} "{("&l" + str(n - 1) + ";") * 10}">' for n in range(1, 10))
    doctype = f'<!DOCTYPE html [<!ENTITY l0 "lol">{levels}]>'
    chapter = xhtml("<p>&l9;</p>", doctype=doctype)
    ingested = ingest_document(build_epub(EpubSpec([Chapter("c.xhtml", chapter, "C")])), "x")
    assert len(ingested.sections[0].text) < 10_000


def test_right_to_left_text_is_kept_as_text() -> None:
    arabic = "حسنًا! إن أردنا أن نفهم الآن كيف يمكن للأغذية"
    chapter = xhtml(f"<p>{arabic}</p>", html_attrs='dir="rtl" xml:lang="ar"')
    data = build_epub(EpubSpec([Chapter("ar.xhtml", chapter, "عنوان")], direction="rtl"))
    section = ingest_document(data, "ar").sections[0]
    assert section.text == arabic and section.title == "عنوان"


def test_chunks_are_exact_slices_with_stable_ids() -> None:
    paragraphs = "".join(f"<p>Paragraph {n} " + "word " * 40 + "end.</p>" for n in range(30))
    data = build_epub(EpubSpec([Chapter("a.xhtml", xhtml(paragraphs), "A"),
                                Chapter("b.xhtml", xhtml(paragraphs), "B")]))
    options = ChunkingOptions(chunk_size=300, chunk_overlap=50, include_chunk_text=True)
    first = ingest_document(data, "doc", options=options)
    assert_chunks_are_slices(first)
    assert len({c.chunk_id for c in first.chunks}) == len(first.chunks)
    assert first.chunks[0].chunk_id == "doc:0:0"
    assert ingest_document(data, "doc", options=options) == first


def test_chunks_carry_no_text_by_default() -> None:
    data = build_epub(EpubSpec([Chapter("a.xhtml", xhtml("<p>" + "text " * 500 + "</p>"), "A")]))
    ingested = ingest_document(data, "doc")
    assert ingested.chunks and all(chunk.text is None for chunk in ingested.chunks)


def test_epub_written_by_ebooklib() -> None:
    data = ebooklib_epub([
        ("chap_01.xhtml", "Chapter One", "<h1>Chapter One</h1><p>It was a dark night.</p>"),
        ("chap_02.xhtml", "Chapter Two", "<h1>Chapter Two</h1><p>The end.</p>"),
    ])
    sections = ingest_document(data, "eb").sections
    assert [(s.href, s.title) for s in sections] == [
        ("EPUB/chap_01.xhtml", "Chapter One"), ("EPUB/chap_02.xhtml", "Chapter Two")]
    assert sections[0].text == "Chapter One\n\nIt was a dark night."


def test_malformed_chapters_are_recovered_as_html() -> None:
    broken = "<html><body><p>Unclosed <b>bold</p>"
    with_entities = ALICE_DTD + "<html><body><p>&O;Unclosed <b>bold&C;</p>"
    data = build_epub(EpubSpec([Chapter("bad.xhtml", broken, "B"),
                                Chapter("dtd.xhtml", with_entities, "D")]))
    ingested = ingest_document(data, "bad")
    assert ingested.sections[0].text == "Unclosed bold"
    assert "Unclosed bold" in ingested.sections[1].text
    assert ingested.problems == [
        "not_well_formed: OEBPS/dtd.xhtml is not well-formed XHTML; parsed as HTML"]


def test_non_utf8_documents_use_their_declared_encoding() -> None:
    content = xhtml("<p>caf\u00e9</p>").replace("utf-8", "iso-8859-1").encode("iso-8859-1")
    data = build_epub(EpubSpec([Chapter("latin.xhtml", content, "L")]))
    assert ingest_document(data, "latin").sections[0].text == "caf\u00e9"


def test_marker_characters_in_the_text_do_not_shift_sections() -> None:
    hostile = xhtml("<p>odd \ufdd2 separator &#xFDD2; and \ufdd0 block</p>")
    data = build_epub(EpubSpec([Chapter("a.xhtml", hostile, "A"),
                                Chapter("b.xhtml", xhtml("<p>Second chapter.</p>"), "B")]))
    sections = ingest_document(data, "odd").sections
    assert sections[0].text.startswith("odd") and sections[0].text.endswith("block")
    assert sections[1].text == "Second chapter."
