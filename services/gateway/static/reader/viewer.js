// The answer viewer (/answers/{id}): the answer's safe HTML rendering with its citation
// chips; hover/focus a chip for a preview card; click a chip or a verbatim unit to open the
// source panel at the highlighted passage. Timings (click -> highlight painted) are kept in
// window.citeflowTimings for `citeflow bench reader`.
"use strict";

(() => {
  const {get, element} = CiteflowApi;
  const root = document.getElementById("viewer");
  const answerId = root.dataset.answerId;
  const answerBox = document.getElementById("answer");
  const panel = document.getElementById("source-panel");
  const panelTitle = document.getElementById("panel-title");
  const panelLabel = document.getElementById("panel-label");
  const panelNote = document.getElementById("panel-note");
  const panelBody = document.getElementById("panel-body");
  const card = document.getElementById("preview-card");
  const opened = new Set();  // sections opened before: cold vs warm
  window.citeflowTimings = [];
  let data = null;
  let returnFocus = null;
  let generation = 0;

  function sourceOf(index) {
    return data.sources.find((s) => s.index === index) || null;
  }

  // The i-th chip of the rendering is the i-th citation of the result (in text order).
  function citationOf(chip, position) {
    const byOrder = data.citations[position];
    const id = Number(chip.dataset.citationId);
    if (byOrder && byOrder.id === id) return byOrder;
    return data.citations.find((c) => c.id === id) || null;
  }

  function linkOf(citation) {
    return data.links.find((l) => l.citation_id === citation.id
      && l.sentence_index === citation.sentence_index && l.locator) || null;
  }

  function unitOf(id) {
    return (data.answer_units.units || []).find((u) => u.id === id) || null;
  }

  function verdictOf(citation) {
    const found = (data.verification && data.verification.citations || [])
      .find((v) => v.citation_id === citation.id && v.sentence_index === citation.sentence_index);
    return found ? found.verdict : (citation.support && citation.support.verdict) || null;
  }

  // ---- preview card -------------------------------------------------------------------
  function showCard(chip, citation) {
    card.replaceChildren();
    const source = citation && sourceOf(citation.source_index);
    if (!citation || !citation.valid) {
      card.append(element("strong", {}, "Invalid citation"),
        element("p", {}, (citation && citation.problem) || "it cites no supplied source"));
    } else {
      const link = linkOf(citation);
      card.append(element("strong", {}, (source && source.title) || "Untitled source"));
      if (source && source.score !== null && source.score !== undefined) {
        card.append(element("span", {class: "score"}, "score " + source.score.toFixed(2)));
      }
      const verdict = verdictOf(citation);
      if (verdict) card.append(element("span", {class: "verdict verdict-" + verdict}, verdict));
      const passage = link ? link.locator.selector.exact : (source && source.excerpt) || "";
      card.append(element("p", {class: "passage"}, passage.length > 280
        ? passage.slice(0, 277) + "…" : passage));
    }
    const box = chip.getBoundingClientRect();
    card.style.left = Math.max(8, box.left + window.scrollX) + "px";
    card.style.top = (box.bottom + window.scrollY + 6) + "px";
    card.hidden = false;
    chip.setAttribute("aria-describedby", "preview-card");
  }

  function hideCard() {
    card.hidden = true;
  }

  // ---- the panel ------------------------------------------------------------------------
  function openPanel(title, label) {
    panelTitle.textContent = title;
    panelLabel.textContent = label;
    panelNote.textContent = "";
    panelNote.hidden = true;
    panelBody.replaceChildren();
    panel.hidden = false;
    panel.dataset.state = "loading";
  }

  function note(text) {
    panelNote.textContent = text;
    panelNote.hidden = !text;
  }

  function closePanel() {
    panel.hidden = true;
    generation += 1;
    if (returnFocus) returnFocus.focus();
  }

  function painted(started, kind, section, mine) {
    const cold = !opened.has(section);
    opened.add(section);
    requestAnimationFrame(() => requestAnimationFrame(() => {
      if (mine !== generation) return;
      const first = panelBody.querySelector("[data-citeflow-highlight]");
      if (first) first.scrollIntoView({block: "center"});
      // The frame after the highlight was inserted has been painted.
      window.citeflowTimings.push({kind, cold, ms: performance.now() - started,
        found: Boolean(first)});
      panel.dataset.state = "ready";
    }));
  }

  function query(target) {
    const params = new URLSearchParams({answer_id: answerId});
    if (target.unit) {
      params.set("unit_id", target.unit.id);
      params.set("span", String(target.span || 0));
    } else {
      params.set("citation_id", String(target.citation.id));
      params.set("sentence_index", String(target.citation.sentence_index));
    }
    return params;
  }

  async function loadImages(container) {
    await Promise.all(Array.from(container.querySelectorAll("img[data-citeflow-src]"))
      .map(async (img) => {
        try {
          img.src = URL.createObjectURL(await get(img.dataset.citeflowSrc, "blob"));
        } catch (e) { img.alt = img.alt || "image unavailable"; }
      }));
  }

  function chapterPath(docId, href) {
    return "/v1/documents/" + encodeURIComponent(docId) + "/chapters/"
      + href.split("/").map(encodeURIComponent).join("/");
  }

  async function showEpub(locator, docId, target, started, mine) {
    let view = await get(chapterPath(docId, locator.href) + "?" + query(target));
    let moved = null;
    if (view.highlight && !view.highlight.found && view.highlight.found_in) {
      // The chapter was only a hint: open the one that holds the quote.
      moved = view.highlight.note;
      view = await get(chapterPath(docId, view.highlight.found_in) + "?" + query(target));
    }
    if (mine !== generation) return;
    renderChapter(docId, view);
    if (!view.highlight || !view.highlight.found) {
      note((view.highlight && view.highlight.note) || "passage not located in this chapter");
    } else if (moved) {
      note(moved);
    }
    painted(started, "epub", docId + "#" + view.href, mine);
  }

  // A chapter in the panel, with previous/next buttons; in-book links open their chapter
  // here (without a highlight) and never navigate the page.
  function renderChapter(docId, view) {
    const chapter = element("div", {class: "chapter", "data-href": view.href});
    chapter.innerHTML = view.html;  // sanitised by the gateway; chapter scripts never run
    const nav = element("nav", {class: "chapter-nav", "aria-label": "Chapters"});
    for (const [href, label] of [[view.prev_href, "← previous chapter"],
      [view.next_href, "next chapter →"]]) {
      if (!href) continue;
      const button = element("button", {type: "button"}, label);
      button.addEventListener("click", () => openChapter(docId, chapterPath(docId, href)));
      nav.append(button);
    }
    chapter.addEventListener("click", (event) => {
      const link = event.target.closest("a[href^='/v1/documents/']");
      if (!link) return;
      event.preventDefault();
      openChapter(docId, link.getAttribute("href").split("#")[0]);
    });
    panelBody.replaceChildren(chapter, nav);
    loadImages(chapter);
  }

  async function openChapter(docId, path) {
    generation += 1;
    const mine = generation;
    try {
      const view = await get(path);
      if (mine !== generation) return;
      note("");
      renderChapter(docId, view);
      panelBody.scrollTop = 0;
      panel.scrollTop = 0;
    } catch (error) {
      if (mine === generation) note("the chapter could not be opened: " + error.message);
    }
  }

  // Page images fetched (with the key) and decoded once per page view, then the same
  // element is moved into each new figure of that page.
  const pageImages = new Map();

  async function loadPage(docId, number) {
    const blob = await get("/v1/documents/" + encodeURIComponent(docId) + "/pages/"
      + number + ".png?scale=1.5", "blob");
    const img = element("img", {alt: "page " + number});
    img.src = URL.createObjectURL(blob);
    await img.decode().catch(() => null);
    return img;
  }

  function pageImage(docId, number) {
    const key = docId + "#" + number;
    if (!pageImages.has(key)) {
      pageImages.set(key, loadPage(docId, number).catch((error) => {
        pageImages.delete(key);
        throw error;
      }));
    }
    return pageImages.get(key);
  }

  async function pageFigure(docId, number, rects, width, height) {
    const figure = element("figure", {class: "pdf-page", "data-page": String(number)});
    const img = await pageImage(docId, number);
    figure.append(img);
    for (const [x0, y0, x1, y1] of rects) {
      const box = element("div", {"data-citeflow-highlight": "", class: "pdf-highlight"});
      box.style.left = (100 * x0 / width) + "%";
      box.style.top = (100 * y0 / height) + "%";
      box.style.width = (100 * (x1 - x0) / width) + "%";
      box.style.height = (100 * (y1 - y0) / height) + "%";
      figure.append(box);
    }
    figure.append(element("figcaption", {}, "page " + number));
    return figure;
  }

  async function showPdf(locator, docId, target, started, mine) {
    const base = "/v1/documents/" + encodeURIComponent(docId) + "/pages/" + locator.page;
    const where = await get(base + "/highlights?" + query(target));
    if (mine !== generation) return;
    const pages = where.found ? Object.keys(where.pages).map(Number) : [where.page];
    const figures = await Promise.all(pages.map((n) => pageFigure(docId, n,
      where.found ? where.pages[String(n)] : [], where.width, where.height)));
    if (mine !== generation) return;
    panelBody.replaceChildren(...figures);
    note(where.note || "");
    painted(started, "pdf", docId + "#" + pages.join(","), mine);
  }

  // Text and web sources: the passage the result carries, marked (text nodes only).
  function showPassage(locator, source, started, mine) {
    const selector = locator.selector;
    const block = element("blockquote", {class: "passage-text"});
    block.append(document.createTextNode(selector.prefix ? "…" + selector.prefix : ""));
    block.append(element("mark", {"data-citeflow-highlight": ""}, selector.exact));
    block.append(document.createTextNode(selector.suffix ? selector.suffix + "…" : ""));
    panelBody.replaceChildren(block);
    if (locator.type === "web" && source && source.safe_url) {
      const link = element("a", {href: source.safe_url + textFragment(selector),
        rel: "noopener noreferrer", target: "_blank", class: "open-site"}, "open on the site");
      panelBody.append(element("p", {}), link);
    }
    painted(started, locator.type, "inline", mine);
  }

  // URL Text Fragment (#:~:text=[prefix-,]start[,end][,-suffix]), terms percent-encoded
  // with '-', ',' and '&' escaped as the spec asks.
  function encodeTerm(text) {
    return encodeURIComponent(text).replace(/-/g, "%2D");
  }

  function words(text, count, fromEnd) {
    const all = text.trim().split(/\s+/).filter(Boolean);
    return (fromEnd ? all.slice(-count) : all.slice(0, count)).join(" ");
  }

  function textFragment(selector) {
    const exact = selector.exact.trim().replace(/\s+/g, " ");
    const parts = [];
    if (selector.prefix && selector.prefix.trim()) {
      parts.push(encodeTerm(words(selector.prefix, 3, true)) + "-");
    }
    if (exact.split(" ").length > 10) {
      parts.push(encodeTerm(words(exact, 4, false)), encodeTerm(words(exact, 4, true)));
    } else {
      parts.push(encodeTerm(exact));
    }
    if (selector.suffix && selector.suffix.trim()) {
      parts.push("-" + encodeTerm(words(selector.suffix, 3, false)));
    }
    return "#:~:text=" + parts.join(",");
  }

  async function open(target, trigger, started) {
    hideCard();
    returnFocus = trigger;
    generation += 1;
    const mine = generation;
    const {citation, unit} = target;
    let locator, docId, label, source;
    if (unit) {
      const span = unit.source_spans[target.span || 0];
      locator = span.locator;
      docId = span.doc_id;
      source = sourceOf(span.source_index);
      label = "Quoted passage";
    } else {
      source = sourceOf(citation.source_index);
      if (!citation.valid) {
        openPanel("Invalid citation " + citation.marker, "Invalid citation");
        note(citation.problem || "this citation cites no supplied source");
        panel.dataset.state = "ready";
        panel.focus();
        return;
      }
      const link = linkOf(citation);
      const verdict = verdictOf(citation);
      label = "Supporting passage" + (verdict ? " (" + verdict + ")" : "");
      if (!link) {
        openPanel((source && source.title) || "Source", label);
        note("no supporting passage was found in this source");
        panel.dataset.state = "ready";
        panel.focus();
        return;
      }
      locator = link.locator;
      docId = link.doc_id;
    }
    openPanel((source && source.title) || docId || "Source", label);
    panel.focus();
    try {
      if (locator.type === "epub_text" && docId) {
        await showEpub(locator, docId, target, started, mine);
      } else if (locator.type === "pdf_text" && docId) {
        await showPdf(locator, docId, target, started, mine);
      } else {
        showPassage(locator, source, started, mine);
      }
    } catch (error) {
      if (mine !== generation) return;
      note("the source could not be opened: " + error.message);
      showPassage(locator, source, started, mine);
    }
  }

  // ---- wiring ---------------------------------------------------------------------------
  function wire() {
    // Valid chips are links; invalid ones are plain <sup> elements, made focusable here.
    const chips = Array.from(answerBox.querySelectorAll(".citation[data-citation-id]"));
    chips.forEach((chip, position) => {
      const citation = citationOf(chip, position);
      const source = citation && sourceOf(citation.source_index);
      chip.setAttribute("role", "button");
      chip.setAttribute("aria-haspopup", "dialog");
      chip.setAttribute("aria-label", citation && citation.valid
        ? "Citation " + citation.marker + ": " + ((source && source.title) || "source")
          + ", open the supporting passage"
        : "Invalid citation " + chip.textContent);
      if (!citation || !citation.valid) {
        chip.classList.add("citation-invalid");
        chip.setAttribute("tabindex", "0");
        chip.addEventListener("keydown", (event) => {
          if (event.key === "Enter") chip.click();
        });
      }
      chip.addEventListener("mouseenter", () => showCard(chip, citation));
      chip.addEventListener("focus", () => showCard(chip, citation));
      chip.addEventListener("mouseleave", hideCard);
      chip.addEventListener("blur", hideCard);
      chip.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        const started = performance.now();
        if (citation) open({citation}, chip, started);
      });
    });
    for (const node of answerBox.querySelectorAll(".unit-verbatim[data-unit-id]")) {
      const unit = unitOf(node.dataset.unitId);
      if (!unit || !unit.source_spans.length) continue;
      node.setAttribute("aria-label", "Quoted claim: open the quoted passage in its source");
      const go = (event) => {
        event.preventDefault();
        open({unit, span: 0}, node, performance.now());
      };
      node.addEventListener("click", go);
      node.addEventListener("keydown", (event) => {
        // Keys pressed on a chip inside the unit belong to the chip.
        if (event.target === node && (event.key === "Enter" || event.key === " ")) go(event);
      });
    }
    for (const node of answerBox.querySelectorAll(".unit-derived")) {
      node.setAttribute("aria-label", "Derived claim (not a quotation)");
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      if (!card.hidden) hideCard();
      else if (!panel.hidden) closePanel();
    }
  });
  document.getElementById("panel-close").addEventListener("click", closePanel);

  async function load() {
    const started = performance.now();
    try {
      data = await get("/v1/answers/" + encodeURIComponent(answerId));
    } catch (error) {
      answerBox.replaceChildren(element("p", {class: "error"},
        "The answer could not be loaded: " + error.message
        + (CiteflowApi.key ? "" : " (open this page with #key=<your API key>)")));
      root.dataset.state = "error";
      return;
    }
    if (!data.renderings) {
      answerBox.replaceChildren(element("p", {class: "error"},
        "This answer is " + data.status + (data.reason ? ": " + data.reason : "")));
      root.dataset.state = "error";
      return;
    }
    document.title = "citeflow answer " + answerId;
    // renderings.html is safe by construction (SPEC §4.5); CSP forbids inline script anyway.
    answerBox.innerHTML = data.renderings.html;
    wire();
    requestAnimationFrame(() => requestAnimationFrame(() => {
      window.citeflowFirstRender = performance.now() - started;
      root.dataset.state = "ready";
    }));
  }

  load();
})();
