"""Right-to-left answers in the viewer, in headless Chromium over the real gateway, results
store and the corpus's Arabic documents (regime-anticancer-arabic.epub and
ArabicCIDTrueType.pdf, ingested for real): Arabic answers that quote their chunks («…», "…",
a whole sentence) and add a derived sentence go through the five stages in-process. The
answer is laid out right to left, every chip `[1]` is one left-to-right run at the visual end
(the left) of its sentence, and every chip and verbatim unit opens its passage highlighted:
the EPUB's marked text is the quote and is itself laid out right to left; the text PyMuPDF
reads inside the PDF's highlight boxes is the quote (NFKC folds the presentation forms it
reads); the preview card shows the Arabic passage right to left. Screenshots:
.citeflow/screenshots/viewer-rtl-epub.png and viewer-rtl-pdf.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pymupdf
import pytest

from schemas.documents import ChunkingOptions
from services.bench.reader_corpus import CorpusDocument, formatted
from services.ingest.documents.ingest import ingest_document
from services.text.normalize import normalize_quote
from tests.conftest import CORPUS_DIR
from tests.services.gateway.pages.site import (
    highlight_boxes,
    marked_text,
    SCREENSHOTS,
    click_and_wait,
    open_viewer,
    results_store,
    shadow,
    traps_fired,
)

CORPUS = CORPUS_DIR
# (doc_id, corpus path, format, title)
DOCUMENTS = (
    ("arabic-epub", "epub/regime-anticancer-arabic.epub", "epub",
     "النظام الغذائي الصحيح للوقاية من السرطان"),
    ("arabic-pdf", "pdf/ArabicCIDTrueType.pdf", "pdf", "انواع الخطوط العربية"),
)
# Quoted from the ingested chunks (checked in `rtl_answers`): a «…» quote, a "…" quote, a
# whole sentence without quotation marks; then two derived sentences, the last one ending in
# a Latin word (where a chip that is not isolated joins the word's left-to-right run and
# jumps to its right).
EPUB_QUOTES = (
    "السرطان ينتج دائمًا عن تحوّل في إحدى هذه الجينات",
    "هذه العمليّة شائعة جدًّا في الطبيعة لتجنّب تفعيل الجينات الخطرة، مثل الجينات الورمية",
    "أصبحنا نعرف الآن أنّ على كلّ خليّة في جسمنا أن تصنع 46 كروموسومًا أكثر من 800 مرّة "
    "في الثانية",
)
EPUB_TEXT = (
    f"يقول الكاتب إنّ «{EPUB_QUOTES[0]}» [1]. "
    f'ويضيف: "{EPUB_QUOTES[1]}" [1]. '
    f"{EPUB_QUOTES[2]} [1]. "
    "فالغذاء يؤثّر في الجينات التي تتحكّم بانقسام الخلايا [1]. "
    "وتُكتب هذه الجينات بأربعة أحرف هي ATCG [1]."
)
PDF_QUOTE = "انواع الخطوط العربية"
PDF_TEXT = (
    f"تعرض الصفحة عنوان «{PDF_QUOTE}» [1]. "
    f"{PDF_QUOTE} [1]. "
    f"وتكرّر الصفحة عنوان {PDF_QUOTE} بأربعة أشكال [1]."
)


def arabic_documents(corpus: Path) -> list[CorpusDocument]:
    """The Arabic EPUB and PDF, ingested with chunk text (as upstream's index holds them)."""
    options = ChunkingOptions(include_chunk_text=True)
    documents = []
    for doc_id, path, fmt, title in DOCUMENTS:
        data = (corpus / path).read_bytes()
        documents.append(CorpusDocument(doc_id, fmt, title, data,
                                        ingest_document(data, doc_id, options=options)))
    return documents


def _source(document: CorpusDocument) -> dict[str, Any]:
    chunks = [{"chunk_id": c.chunk_id, "section_id": c.section_id, "href": c.href,
               "page": c.page, "start_char": c.start_char, "text": c.text}
              for c in document.ingested.chunks]
    return {"index": 1, "kind": "document", "doc_id": document.doc_id,
            "title": document.title, "format": document.fmt, "score": 9.0, "chunks": chunks}


def rtl_answers(documents: list[CorpusDocument]) -> list[dict[str, Any]]:
    """Two Arabic answers (`answer.submitted` data), one per document."""
    by_id = {d.doc_id: d for d in documents}
    epub, pdf = by_id["arabic-epub"], by_id["arabic-pdf"]
    for quote in EPUB_QUOTES:
        # (canonically equal: the book writes shadda before tanween, NFC the other way)
        assert any(normalize_quote(quote) in normalize_quote(chunk.text)
                   for chunk in epub.ingested.chunks), quote
    assert PDF_QUOTE in pdf.ingested.chunks[0].text
    metadata = {"model": "bench-model", "tenant": "demo"}
    return [
        {"answer_id": "rtl-epub", "query": "ما هو السرطان؟", "text": EPUB_TEXT,
         "sources": [_source(epub)], "metadata": metadata},
        {"answer_id": "rtl-pdf", "query": "ماذا تعرض الصفحة؟", "text": PDF_TEXT,
         "sources": [_source(pdf)], "metadata": metadata},
    ]


@pytest.fixture(scope="module")
def corpus() -> tuple[list[CorpusDocument], dict[str, dict[str, Any]]]:
    documents = arabic_documents(CORPUS)
    results = [formatted(answer) for answer in rtl_answers(documents)]
    return documents, {data["answer_id"]: data for data in map(orjson.loads, results)}


@pytest.fixture(scope="module")
def site(corpus, tmp_path_factory):
    from services.bench.reader_site import reader_site

    documents, answers = corpus
    results = [orjson.dumps(data) for data in answers.values()]
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, documents, results, tmp_path_factory.mktemp("site")) as running:
        yield running


# Per chip of the answer: its own text, the rects of its characters (left to right on screen
# when the chip is one isolated left-to-right run), its box, and the box of the last word
# before it (the end of its sentence) with the line metrics.
CHIP_GEOMETRY = """
const root = document.getElementById('citeflow-answer').shadowRoot;
const box = root.querySelector('.answer');
return Array.from(box.querySelectorAll('sup.citation-chip')).map((sup) => {
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  const texts = Array.from(sup.querySelectorAll('*')).flatMap((n) => Array.from(n.childNodes))
    .filter((n) => n.nodeType === Node.TEXT_NODE);
  const chipText = texts.map((t) => t.data).join('');
  const chars = [];
  for (const t of texts) {
    for (let i = 0; i < t.data.length; i++) {
      const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + 1);
      const b = r.getBoundingClientRect(); chars.push([t.data[i], b.left, b.right]);
    }
  }
  let before = null;
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (sup.contains(node)) break;
    if (node.compareDocumentPosition(sup) & Node.DOCUMENT_POSITION_FOLLOWING
        && node.data.trim()) before = node;
  }
  const data = before.data.replace(/\\s+$/, '');
  const start = data.search(/\\S+$/);
  const word = document.createRange(); word.setStart(before, start); word.setEnd(before, data.length);
  const w = word.getBoundingClientRect(), c = sup.getBoundingClientRect();
  const a = sup.querySelector('a').getClientRects();
  return {text: chipText, dir: getComputedStyle(sup).direction,
          bidi: getComputedStyle(sup).unicodeBidi, rects: a.length, chars,
          word: data.slice(start), chip: [c.left, c.top, c.right, c.bottom],
          last: [w.left, w.top, w.right, w.bottom],
          size: parseFloat(getComputedStyle(box).fontSize),
          boxLeft: box.getBoundingClientRect().left};
});
"""


def _direction(driver: Any, selector: str) -> str:
    return driver.execute_script(
        "const e = document.getElementById('citeflow-answer').shadowRoot.querySelector(arguments[0]);"
        "return e ? getComputedStyle(e).direction : null;", selector)


def _chips_at_sentence_ends(driver: Any, expected: int) -> None:
    """Every chip is `[1]`, one left-to-right run (characters left to right on screen, one
    box), isolated from the Arabic around it, and sits just left of its sentence's last
    word on the same line (the end of a right-to-left sentence), or, wrapped, at the start
    (the right end) of the next line, never at the far end of a line."""
    chips = driver.execute_script(CHIP_GEOMETRY)
    assert len(chips) == expected
    for chip in chips:
        assert chip["text"] == "[1]" and chip["rects"] == 1, chip
        assert chip["dir"] == "ltr" and chip["bidi"] in ("isolate", "embed"), chip
        lefts = [left for _, left, _ in chip["chars"]]
        assert [c for c, _, _ in chip["chars"]] == ["[", "1", "]"]
        assert lefts == sorted(lefts) and len(set(lefts)) == 3, chip["chars"]
        left, top, right, bottom = chip["chip"]
        w_left, w_top, w_right, w_bottom = chip["last"]
        same_line = top < w_bottom and w_top < bottom
        assert same_line, chip  # (the window is wide enough for these sentences' chips)
        assert right <= w_left + 1, f"the chip is not left of {chip['word']!r}: {chip}"
        assert w_left - right < 2 * chip["size"], f"the chip left its sentence: {chip}"


def _marks_direction(driver: Any) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.getElementById('citeflow-answer').shadowRoot.querySelectorAll('.panel-body [data-citeflow-highlight]'))"
        ".map((m) => getComputedStyle(m).direction);")


def _check_epub(driver: Any, locator: dict[str, Any]) -> None:
    """The marked text is the quote, and it is laid out right to left in the panel."""
    marked = marked_text(driver)
    assert marked and normalize_quote(marked) == normalize_quote(locator["selector"]["exact"]), (
        marked, locator)
    assert set(_marks_direction(driver)) == {"rtl"}
    assert _direction(driver, ".panel-body .chapter") == "rtl"


def _check_pdf(driver: Any, document: CorpusDocument, locator: dict[str, Any]) -> None:
    """Highlight boxes on the locator's page, each within one line, and PyMuPDF reads the
    quote inside them: nothing more, nothing less (after NFKC: it reads Arabic Presentation
    Forms-B)."""
    exact = locator["selector"]["exact"]
    boxes = highlight_boxes(driver)
    assert boxes and {page for page, _ in boxes} == {locator["page"]}, (boxes, locator)
    lines = []
    with pymupdf.open(stream=document.data) as pdf:
        page = pdf[locator["page"] - 1]
        heights = [line["bbox"][3] - line["bbox"][1]
                   for block in page.get_text("dict")["blocks"] for line in block.get("lines", [])]
        for _, (x0, y0, x1, y1) in boxes:
            width, height = page.rect.width, page.rect.height
            box = pymupdf.Rect(x0 * width + 0.5, y0 * height, x1 * width - 0.5, y1 * height)
            assert box.height <= max(heights) + 1, f"a box is taller than a line: {box}"
            lines.append(page.get_text("text", clip=box * page.derotation_matrix).strip())
    read = "\n".join(lines)
    assert normalize_quote(read) == normalize_quote(exact), (read, exact)


def _check(driver: Any, documents: dict[str, CorpusDocument], locator: dict[str, Any],
           doc_id: str) -> str:
    assert _direction(driver, ".panel-title") == "rtl"  # the Arabic source title
    if locator["type"] == "pdf_text":
        _check_pdf(driver, documents[doc_id], locator)
        return "pdf"
    assert locator["type"] == "epub_text"
    _check_epub(driver, locator)
    return "epub"


def test_answers_render_right_to_left_with_chips_at_sentence_ends(site, driver, corpus):
    for answer_id, data in corpus[1].items():
        assert (data["language"], data["script"], data["direction"]) == ("ar", "Arab", "rtl")
        open_viewer(driver, site, answer_id)
        for selector in (".layout", ".answer", ".answer .citeflow-answer", ".answer .unit"):
            assert _direction(driver, selector) == "rtl", selector
        _chips_at_sentence_ends(driver, len(data["citations"]))
        assert traps_fired(driver) == []


def test_every_chip_and_unit_opens_its_passage_highlighted(site, driver, corpus):
    documents = {d.doc_id: d for d in corpus[0]}
    seen: dict[str, int] = {}
    shots = {"rtl-epub": "viewer-rtl-epub.png", "rtl-pdf": "viewer-rtl-pdf.png"}
    for answer_id, data in corpus[1].items():
        open_viewer(driver, site, answer_id)
        chips = shadow(driver).find_elements("css selector", ".answer .citation[data-citation-id]")
        assert len(chips) == len(data["citations"]) == (5 if answer_id == "rtl-epub" else 3)
        for chip, citation in zip(chips, data["citations"], strict=True):
            assert citation["valid"]
            click_and_wait(driver, chip)
            label = shadow(driver).find_element("css selector", ".panel-label").get_attribute(
                "textContent")
            assert label.startswith("Supporting passage"), label
            link = next(link for link in data["links"] if link["citation_id"] == citation["id"]
                        and link["sentence_index"] == citation["sentence_index"])
            kind = _check(driver, documents, link["locator"], link["doc_id"])
            seen[f"{kind}-chip"] = seen.get(f"{kind}-chip", 0) + 1
        units = [u for u in data["answer_units"]["units"] if u["kind"] == "verbatim"]
        nodes = shadow(driver).find_elements("css selector", ".answer .unit-verbatim")
        assert len(nodes) == len(units) == (3 if answer_id == "rtl-epub" else 2)
        for node, unit in zip(nodes, units, strict=True):
            click_and_wait(driver, node)
            assert shadow(driver).find_element("css selector", ".panel-label").get_attribute(
                "textContent") == "Quoted passage"
            span = unit["source_spans"][0]
            kind = _check(driver, documents, span["locator"], span["doc_id"])
            seen[f"{kind}-unit"] = seen.get(f"{kind}-unit", 0) + 1
        click_and_wait(driver, nodes[0])
        driver.execute_script(
            "const m = document.getElementById('citeflow-answer').shadowRoot"
            ".querySelector('.panel-body [data-citeflow-highlight]');"
            "if (m) m.scrollIntoView({block: 'center'});")
        driver.save_screenshot(str(SCREENSHOTS / shots[answer_id]))
        assert traps_fired(driver) == []
    assert seen == {"epub-chip": 5, "epub-unit": 3, "pdf-chip": 3, "pdf-unit": 2}, seen


def test_preview_card_shows_the_arabic_passage_right_to_left(site, driver, corpus):
    data = corpus[1]["rtl-epub"]
    open_viewer(driver, site, "rtl-epub")
    chip = shadow(driver).find_element("css selector", ".answer a.citation")
    driver.execute_script("arguments[0].focus()", chip)
    card = shadow(driver).find_element("css selector", ".card")
    assert card.is_displayed()
    link = next(link for link in data["links"] if link["sentence_index"]
                == data["citations"][0]["sentence_index"])
    passage = shadow(driver).find_element("css selector", ".card .passage")
    assert normalize_quote(passage.text) == normalize_quote(link["locator"]["selector"]["exact"])
    assert _direction(driver, ".card .passage") == "rtl"
    assert _direction(driver, ".card strong") == "rtl"
    assert traps_fired(driver) == []
