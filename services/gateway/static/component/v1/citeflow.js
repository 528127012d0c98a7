// <citeflow-answer>: citeflow's embeddable citation component (v1). Framework-free custom
// element, no build step, no CDN. It renders an `answer.formatted` (fetched from a citeflow
// gateway, or handed over as `.data`) with its citation chips and verdict badges, a preview
// card on hover/focus, and a source panel with the highlighted passage (EPUB chapter, PDF
// page image, text or web quote). Strict-CSP safe: no inline script or style, no eval; its
// styles are a constructed stylesheet in its shadow root. Themeable with CSS custom
// properties (--citeflow-*) and ::part(). The gateway's /answers/{id} viewer is this element.
//
//   <script src="https://GATEWAY/static/component/v1/citeflow.js" defer></script>
//   <citeflow-answer answer-id="ans-1" gateway="https://GATEWAY" api-key="..."></citeflow-answer>
//
// Attributes: answer-id, gateway (default: the origin the script came from), api-key,
// fragment-key (take the key from the page URL's #key=..., as the gateway's viewer does: it
// is kept in sessionStorage and removed from the address bar; never sent in a URL; a link
// with another key than the kept one fires citeflow-key-offered and changes nothing unless
// the host page calls its detail.use()).
// Properties: apiKey / token (a bearer credential), fetcher (fn(path, init) -> Response, for
// a host that proxies the gateway), data (a formatted answer: rendered without fetching it).
// Events (bubbling, composed): citeflow-ready, citeflow-error, citeflow-open,
// citeflow-key-offered, citeflow-judged. Property tenant: the tenant the answer was read as.
// With the `live` attribute it follows the gateway's stream: a model judge's second opinion
// (`event: judged`) updates the chips in place, the preview card naming the judge;
// `applyJudgement(answerJudged)` does the same for a host with its own stream.
"use strict";

(() => {
  if (typeof customElements === "undefined" || customElements.get("citeflow-answer")) return;
  const SCRIPT_ORIGIN = (() => {
    try { return new URL(document.currentScript.src).origin; } catch (e) { return ""; }
  })();

  const CSS = `
:host { --citeflow-ink: #1d2430; --citeflow-muted: #5b6575; --citeflow-line: #d9dee7;
  --citeflow-accent: #2f5fd0; --citeflow-bad: #b3261e; --citeflow-warn: #9a6700;
  --citeflow-good: #1a7f37; --citeflow-mark: #ffe866; --citeflow-surface: #fff;
  --citeflow-chip: #e7eefc; --citeflow-radius: 6px; --citeflow-font: system-ui, sans-serif;
  display: block; color: var(--citeflow-ink); font-family: var(--citeflow-font);
  container-type: inline-size; }
:host([hidden]) { display: none; }
/* A token longer than a line (a 60,000-character "word") wraps instead of widening the page. */
.answer, .card, .sources { overflow-wrap: anywhere; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; position: relative; }
@container (min-width: 760px) {
  .layout.open { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
.answer { background: var(--citeflow-surface); border: 1px solid var(--citeflow-line);
  border-radius: var(--citeflow-radius); padding: 1rem; line-height: 1.6; }
.citation-chip a.citation, .citation { display: inline-block; padding: 0 .3em;
  margin: 0 .05em; border-radius: 4px; background: var(--citeflow-chip);
  color: var(--citeflow-accent); text-decoration: none; font-weight: 600; cursor: pointer; }
.citation:focus-visible, .unit-verbatim:focus-visible { outline: 3px solid var(--citeflow-accent);
  outline-offset: 1px; }
.citation.citation-invalid, .citation[data-valid="false"] { background: #fde7e6;
  color: var(--citeflow-bad); text-decoration: line-through; }
.badge { display: inline-block; width: .55em; height: .55em; border-radius: 50%;
  margin-left: .15em; vertical-align: super; background: var(--citeflow-muted); }
.badge-supported { background: var(--citeflow-good); }
.badge-partial { background: var(--citeflow-warn); }
.badge-unsupported { background: var(--citeflow-bad); }
.unit-verbatim { cursor: pointer; border-bottom: 2px dotted var(--citeflow-accent); }
.unit-derived { border-bottom: none; }
.card { position: absolute; z-index: 10; max-width: 26rem; background: var(--citeflow-surface);
  border: 1px solid var(--citeflow-line); border-radius: var(--citeflow-radius);
  padding: .6rem .8rem; box-shadow: 0 4px 14px rgba(0, 0, 0, .12); font-size: .9rem;
  pointer-events: none; }
.card[hidden], .panel[hidden], .panel-note[hidden] { display: none; }
.card .score, .card .verdict { margin-left: .5rem; color: var(--citeflow-muted); }
.card .verdict-unsupported { color: var(--citeflow-bad); }
.card .verdict-partial { color: var(--citeflow-warn); }
.card .verdict-supported { color: var(--citeflow-good); }
.card .judge { display: block; font-size: .85em; color: var(--citeflow-muted); }
.card .rationale { margin: .25rem 0; font-style: italic; }
.panel { background: var(--citeflow-surface); border: 1px solid var(--citeflow-line);
  border-radius: var(--citeflow-radius); padding: .8rem 1rem;
  max-height: calc(100vh - 6rem); overflow: auto; position: sticky; top: 1rem; }
.panel:focus { outline: 2px solid var(--citeflow-accent); }
.panel header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
.panel h2 { font-size: 1.05rem; margin: .2rem 0; }
.panel-label { color: var(--citeflow-muted); font-size: .85rem; text-transform: uppercase; }
.panel-note { background: #fff5d6; border: 1px solid #f0d48a; padding: .4rem .6rem;
  border-radius: 4px; }
mark[data-citeflow-highlight] { background: var(--citeflow-mark); color: inherit; }
/* The other passages of a citation's evidence set (one per claim of its sentence). */
mark[data-citeflow-evidence] { background: var(--citeflow-mark); color: inherit; }
/* The words a quoted sentence takes from the passage: a second, stronger highlight. */
mark[data-citeflow-quote] { background: var(--citeflow-quote, #ffc233); color: inherit;
  font-weight: 600; box-shadow: 0 0 0 1px var(--citeflow-quote-edge, #b98500); }
.pdf-quote { position: absolute; pointer-events: none; mix-blend-mode: multiply;
  background: var(--citeflow-quote, rgba(255, 170, 0, .5));
  box-shadow: 0 0 0 1px var(--citeflow-quote-edge, #b98500); }
/* The answer's words the cited source does not back, while the citation is under the pointer. */
::highlight(citeflow-missing) { text-decoration: underline wavy var(--citeflow-warn, #b35900);
  text-decoration-thickness: 1.5px; }
.card .missing { margin: .3rem 0 0; font-size: .85rem; }
/* The answer's unsupported words, as the HTML rendering marks them (always shown). */
.cf-missing { text-decoration: underline dotted var(--citeflow-warn, #9a6700);
  text-decoration-thickness: 1.5px; text-underline-offset: .2em; }
/* A citation's evidence set: one entry per atomic claim; the passage of the claim under
   the pointer or the keyboard focus is set apart from the others of the set. */
.evidence { margin: .4rem 0 .6rem; padding-left: 1.3rem; font-size: .88rem; }
.evidence li { margin: .15rem 0; padding: .1rem .3rem; border-radius: 4px; cursor: default; }
.evidence li:focus-visible { outline: 2px solid var(--citeflow-accent); }
.evidence[hidden] { display: none; }
.evidence li[data-citeflow-current] { background: var(--citeflow-chip); }
.evidence .atom-verdict { margin-left: .4rem; font-size: .8em; color: var(--citeflow-muted); }
.evidence .atom-where { display: block; font-size: .8em; color: var(--citeflow-muted); }
.evidence li.atom-supported .atom-verdict { color: var(--citeflow-good); }
.evidence li.atom-partial .atom-verdict { color: var(--citeflow-warn); }
.evidence li.atom-unsupported .atom-verdict { color: var(--citeflow-bad); }
.passage-text { margin: 0 0 .8rem; }
mark[data-citeflow-current], .pdf-highlight[data-citeflow-current],
.pdf-evidence[data-citeflow-current] {
  background: var(--citeflow-current, #ffb020);
  box-shadow: 0 0 0 2px var(--citeflow-current-edge, #a15c00); }
::highlight(citeflow-atom) { background-color: var(--citeflow-atom, rgba(47, 95, 208, .16)); }
.panel-why { margin: .4rem 0; font-size: .9rem; }
.citation[aria-expanded="true"], .unit-verbatim[aria-expanded="true"] {
  outline: 2px solid var(--citeflow-accent); outline-offset: 1px; }
.citation-chip a.citation[aria-expanded="true"], .citation[aria-expanded="true"] {
  background: var(--citeflow-accent); color: var(--citeflow-surface); }
.legend { margin: .8rem 0 0; font-size: .8rem; color: var(--citeflow-muted); line-height: 1.5; }
.legend-item { margin-right: .9rem; white-space: nowrap; }
.legend .badge { vertical-align: baseline; margin: 0 .1em 0 0; }
.legend-hint { display: block; }
.panel-why[hidden] { display: none; }
/* Highlight boxes are placed in percentages of the figure: the border is the figure's and the
   caption out of flow, so the figure's padding box is exactly the page image. */
.pdf-page { position: relative; margin: 0 0 1.8rem; border: 1px solid var(--citeflow-line); }
.pdf-page img { width: 100%; display: block; }
.pdf-page figcaption { position: absolute; top: 100%; left: 0; }
.pdf-highlight, .pdf-evidence { position: absolute; background: rgba(255, 222, 0, .45);
  mix-blend-mode: multiply; pointer-events: none; }
.chapter img { max-width: 100%; }
.chapter-nav { display: flex; justify-content: space-between; gap: 1rem; margin-top: 1rem; }
.error { color: var(--citeflow-bad); }
.sources { margin: .8rem 0 0; padding-left: 1.4rem; font-size: .9rem; color: var(--citeflow-muted); }
`;
  const KEY_STORAGE = "citeflow-key";

  // The key kept in sessionStorage, else the fragment's (then kept). A fragment key never
  // replaces a kept one: it is returned as `offered`, for the host page to decide.
  function keyFromFragment() {
    const match = /(?:^#|&)key=([^&]+)/.exec(location.hash);
    const linked = match ? decodeURIComponent(match[1]) : null;
    try {
      if (match) history.replaceState(null, "", location.pathname + location.search);
      const kept = sessionStorage.getItem(KEY_STORAGE);
      if (!kept) {
        if (linked) sessionStorage.setItem(KEY_STORAGE, linked);
        return {key: linked, offered: null};
      }
      return {key: kept, offered: linked && linked !== kept ? linked : null};
    } catch (e) {  // storage refused (sandboxed frame): the fragment alone
      return {key: linked, offered: null};
    }
  }

  // fetch says only "Failed to fetch", both for a gateway that is down and for one that does
  // not allow this page's origin (CORS): name both, and the setting that allows an origin.
  function unreachable(gateway, error) {
    const here = location.origin;
    let there = gateway;
    try { there = new URL(gateway || here, location.href).origin; } catch (e) { /* as given */ }
    if (there === here) return error.message + " (is the gateway at " + there + " running?)";
    return error.message + ": the gateway at " + there + " is not running, or does not allow "
      + "calls from " + here + " (CORS). Start it with CITEFLOW_CORS_ORIGINS=" + here
      + " (localhost and 127.0.0.1 are different origins).";
  }

  let sheet = null;
  function styles() {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    return sheet;
  }

  // The explicit directional formatting characters (embeddings, overrides, isolates)
  // reorder the text after them (`gnp.exe` after U+202E reads `exe.png`): in untrusted text
  // each is shown as a visible token instead (as the formatter's HTML rendering does), and
  // every piece of untrusted text the component builds is isolated (a `dir` attribute or
  // <bdi>), so no direction spills past it.
  const EXPLICIT_BIDI = /[\u202A-\u202E\u2066-\u2069]/g;
  function visibleBidi(text) {
    return String(text).replace(EXPLICIT_BIDI, (ch) =>
      "\u27E8U+" + ch.codePointAt(0).toString(16).toUpperCase() + "\u27E9");
  }

  // Every text node under `root` with its explicit directional controls made visible
  // (markup from the server: a rendering stored before it did so itself, a chapter).
  function showBidiControls(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const shown = visibleBidi(node.data);
      if (shown !== node.data) node.data = shown;
    }
  }

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined && text !== null) node.textContent = visibleBidi(text);
    return node;
  }

  // Untrusted words as isolated pieces, separated by `separator`.
  function isolatedList(items, separator) {
    return items.flatMap((item, i) => [...(i ? [separator] : []),
      element("bdi", {}, item)]);
  }

  // The words a citation's source does not back as the answer writes them (`missing_words`,
  // each once, in answer order); an older result's terms (`missing`) otherwise.
  function missingWords(support) {
    if (!support) return [];
    const words = support.missing_words || [];
    if (!words.length) return support.missing || [];
    return Array.from(new Set(words.map((word) => word.text)));
  }

  // A cut passage's context marked as cut: an ellipsis, unless it ends a sentence (a full
  // stop then an ellipsis, "tall.…", reads as a defect). As services.text.spacing.cut_short.
  const SENTENCE_END = /[.!?…。！？．।॥۔؟։።፧။]["'’”»›)\]」』》）]*$/u;
  function cutShort(text) {
    return SENTENCE_END.test(text) ? text : text + "…";
  }

  // A first strong character decides: right-to-left scripts (Hebrew, Arabic, Syriac,
  // Thaana, NKo ...) give "rtl". Used where the component builds markup of its own.
  const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
  const LTR = /[A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF\u0900-\u0DFF\u3040-\u9FFF]/;
  function direction(text) {
    for (const ch of text || "") {
      if (RTL.test(ch)) return "rtl";
      if (LTR.test(ch)) return "ltr";
    }
    return "auto";
  }

  // Where `quote` is in `text`: [start, end), or null. Whitespace runs match whatever
  // whitespace the text has there (a chapter's markup wraps its lines where the quote,
  // taken from normalised chunk text, has one space).
  function locateQuote(text, quote) {
    const at = text.indexOf(quote);
    if (at >= 0) return [at, at + quote.length];
    const words = quote.trim().split(/\s+/).filter(Boolean);
    if (!words.length) return null;
    const pattern = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+");
    const match = new RegExp(pattern, "u").exec(text);
    return match ? [match.index, match.index + match[0].length] : null;
  }

  // The passages of an evidence set as blocks to show: passages of one place that overlap
  // (one inside another, or sentence windows sharing sentences: the end of one is the
  // start of the next) make one block, whose `parts` say which stretch of its text is
  // whose passage (`atoms`, and `highlight` for the one the chip opened).
  const MIN_OVERLAP = 12;  // characters two passages must share at their ends to be joined

  function joinOverlapping(passages) {
    const blocks = [];
    for (const {selector, atoms, highlight, where} of passages) {
      const exact = selector.exact;
      const part = {start: 0, end: exact.length, atoms, highlight};
      let joined = false;
      for (const block of blocks) {
        if (block.where !== where) continue;
        const text = block.selector.exact;
        const inside = text.indexOf(exact);
        if (inside >= 0) {
          block.parts.push({...part, start: inside, end: inside + exact.length});
        } else if (exact.includes(text)) {
          shift(block, exact.indexOf(text), selector);
          block.parts.push(part);
        } else {
          const tail = sharedEnd(text, exact);
          const head = tail ? 0 : sharedEnd(exact, text);
          if (tail) {
            block.selector = {...block.selector, exact: text + exact.slice(tail),
              suffix: selector.suffix};
            block.parts.push({...part, start: text.length - tail,
              end: text.length - tail + exact.length});
          } else if (head) {
            shift(block, exact.length - head, {...selector, exact: exact + text.slice(head),
              suffix: block.selector.suffix});
            block.parts.push(part);
          } else {
            continue;
          }
        }
        joined = true;
        break;
      }
      if (!joined) blocks.push({selector, where, parts: [part]});
    }
    return blocks;
  }

  // `block`'s text is now `selector`'s, its own starting `by` characters in.
  function shift(block, by, selector) {
    for (const part of block.parts) { part.start += by; part.end += by; }
    block.selector = selector;
  }

  // How many characters the end of `first` shares with the start of `second` (the most;
  // 0 when fewer than MIN_OVERLAP).
  function sharedEnd(first, second) {
    for (let size = Math.min(first.length, second.length) - 1; size >= MIN_OVERLAP; size -= 1) {
      if (first.endsWith(second.slice(0, size))) return size;
    }
    return 0;
  }

  // Mark `selector`'s passage inside `container` (in every text node it spans) as the
  // evidence of atom `index` (`data-citeflow-evidence`: the passage the chip opened keeps
  // `data-citeflow-highlight` alone); the prefix's last words choose among occurrences. False when
  // it is not there.
  function markText(container, selector, index) {
    const nodes = [];
    const starts = [];
    let text = "";
    const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      starts.push(text.length);
      nodes.push(node);
      text += node.data;
    }
    const exact = visibleBidi(selector.exact);
    const before = visibleBidi(words(selector.prefix || "", 3, true));
    let found = null;
    const wider = before ? locateQuote(text, before + " " + exact) : null;
    if (wider) {
      const inner = locateQuote(text.slice(wider[0], wider[1]), exact);
      if (inner) found = [wider[0] + inner[0], wider[0] + inner[1]];
    }
    found = found || locateQuote(text, exact);
    if (!found) return false;
    const [at, stop] = found;
    nodes.forEach((node, n) => {
      const start = Math.max(at - starts[n], 0);
      const end = Math.min(stop - starts[n], node.data.length);
      if (start >= end || !node.data.slice(start, end).trim()) return;
      const range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, end);
      range.surroundContents(element("mark", {"data-citeflow-evidence": "",
        "data-citeflow-atoms": String(index), part: "highlight"}));
    });
    return true;
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

  const VERDICTS = ["supported", "partial", "unsupported", "unverifiable"];
  const VERDICT_MEANINGS = {
    supported: "supported: the source says it",
    partial: "partial: the source says part of it",
    unsupported: "unsupported: the source does not say it",
    unverifiable: "unverifiable: it could not be checked against the source"};
  // The first words of the panel's "why" line, by verdict (a verbatim quote says so itself).
  const VERDICT_WHY = {
    supported: "The passage says what the sentence says.",
    partial: "The passage says only part of what the sentence says.",
    unsupported: "The passage does not say what the sentence says.",
    unverifiable: "The sentence could not be checked against this source."};

  const TEMPLATE = `<div class="layout" part="container">
<article class="answer" part="answer" aria-live="polite"><p>Loading the answer…</p></article>
<section class="panel" part="panel" role="dialog" aria-modal="false" tabindex="-1" hidden
 aria-labelledby="panel-title"><header><div><div class="panel-label" part="panel-label"></div>
<h2 class="panel-title" id="panel-title"></h2></div><button type="button" class="panel-close"
 part="close-button" aria-label="Close the source panel">Close</button></header>
<p class="panel-note" part="panel-note" role="status" hidden></p>
<p class="panel-why" part="panel-why" hidden></p>
<ol class="evidence" part="evidence" aria-label="Each claim of the sentence and its evidence"
 hidden></ol>
<div class="panel-body" part="panel-body"></div></section>
<div class="card" part="preview-card" id="preview-card" role="tooltip" hidden></div></div>`;

  class CiteflowAnswer extends HTMLElement {
    static get observedAttributes() { return ["answer-id", "gateway", "api-key", "live"]; }

    constructor() {
      super();
      const root = this.attachShadow({mode: "open"});
      root.adoptedStyleSheets = [styles()];
      // Parsed from a constant: no markup of the answer goes through here.
      const template = document.createElement("template");
      template.innerHTML = TEMPLATE;
      root.append(template.content.cloneNode(true));
      this.layout = root.querySelector(".layout");
      this.answerBox = root.querySelector(".answer");
      this.panel = root.querySelector(".panel");
      this.panelTitle = root.querySelector(".panel-title");
      this.panelLabel = root.querySelector(".panel-label");
      this.panelNote = root.querySelector(".panel-note");
      this.panelWhy = root.querySelector(".panel-why");
      this.panelBody = root.querySelector(".panel-body");
      this.evidenceList = root.querySelector(".evidence");
      this.evidence = [];
      this.atomRanges = [];
      this.currentAtom = null;
      this.card = root.querySelector(".card");
      this.opened = new Set();
      this.pageImages = new Map();
      this.generation = 0;
      this.returnFocus = null;
      this._data = null;
      this._loaded = null;
      this.token = null;
      this.fetcher = null;
      this.timings = [];
      root.querySelector(".panel-close").addEventListener("click", () => this.closePanel());
      // The open citation's claim under the pointer: its passage set apart in the panel.
      this.answerBox.addEventListener("mousemove", (event) => {
        if (this.panel.hidden || !this.atomRanges.length) return;
        this.setAtom(this.atomAt(event.clientX, event.clientY));
      });
      this.answerBox.addEventListener("mouseleave", () => {
        if (this.atomRanges.length) this.setAtom(null);
      });
      this.onKey = (event) => {
        if (event.key !== "Escape") return;
        const inside = event.composedPath().includes(this);
        const nowhere = event.target === document.body || event.target === document;
        if (!inside && !nowhere) return;
        if (!this.card.hidden) this.hideCard();
        else if (!this.panel.hidden) this.closePanel();
      };
    }

    connectedCallback() {
      document.addEventListener("keydown", this.onKey);
      if (!this._data) this.load();
    }

    disconnectedCallback() {
      document.removeEventListener("keydown", this.onKey);
      this.unwatch();
    }

    attributeChangedCallback(name, before, after) {
      if (name === "live") this.liveChanged();
      if (name === "answer-id" && before !== after && this.isConnected) {
        this._data = null;
        this.load();
      }
    }

    get answerId() { return this.getAttribute("answer-id"); }
    set answerId(value) { this.setAttribute("answer-id", value); }
    get apiKey() {
      if (this.token || this.hasAttribute("api-key")) return this.token || this.getAttribute("api-key");
      if (this.hasAttribute("fragment-key")) this.takeFragmentKey();
      return this.token;
    }

    // fragment-key: the kept key is used; another key in the link is offered to the host
    // page (a `citeflow-key-offered` event whose detail.use() switches to it),
    // never taken silently: a planted link must not show another tenant's answer.
    takeFragmentKey() {
      const {key, offered} = keyFromFragment();
      this.token = key;
      if (!offered) return;
      const use = () => {
        sessionStorage.setItem(KEY_STORAGE, offered);
        this.token = offered;
        this._data = null;
        this.load();
      };
      this.dispatchEvent(new CustomEvent("citeflow-key-offered",
        {bubbles: true, composed: true, detail: {use}}));
    }
    set apiKey(value) { this.token = value; }
    get gateway() { return (this.getAttribute("gateway") || SCRIPT_ORIGIN).replace(/\/$/, ""); }
    get data() { return this._data; }
    set data(value) {
      this._data = value;
      this.render();
    }
    get state() { return this.dataset.state || "loading"; }

    // ---- fetching -------------------------------------------------------------------
    async get(path, kind) {
      const headers = this.apiKey ? {Authorization: "Bearer " + this.apiKey} : {};
      let response;
      try {
        response = this.fetcher ? await this.fetcher(path, {headers})
          : await fetch(this.gateway + path, {headers, credentials: "omit"});
      } catch (error) {
        throw new Error(unreachable(this.gateway, error));
      }
      this.tenant = response.headers.get("X-Citeflow-Tenant") || this.tenant;
      if (!response.ok) {
        let detail = response.status + " " + response.statusText;
        try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON */ }
        throw new Error(detail);
      }
      return kind === "blob" ? response.blob() : response.json();
    }

    async load() {
      const answerId = this.answerId;
      // Upgrading a parsed element reports its attribute and connects it: one fetch.
      if (!answerId || (this._requested === answerId && this.dataset.state !== "error")) return;
      this._requested = answerId;
      const started = performance.now();
      this.dataset.state = "loading";
      let data;
      try {
        data = await this.get("/v1/answers/" + encodeURIComponent(answerId));
      } catch (error) {
        this.fail("The answer could not be loaded: " + error.message
          + (this.apiKey || this.fetcher ? ""
            : " (no API key was given: add #key=<your API key> to this page's address)"));
        return;
      }
      if (answerId !== this.answerId) return;
      if (!data.renderings) {
        this.fail("This answer is " + data.status + (data.reason ? ": " + data.reason : ""));
        return;
      }
      this._data = data;
      this.render(started);
    }

    fail(message) {
      this.answerBox.replaceChildren(element("p", {class: "error", part: "error"}, message));
      this.dataset.state = "error";
      this.dispatchEvent(new CustomEvent("citeflow-error", {bubbles: true, composed: true,
        detail: {message}}));
    }

    render(started) {
      const data = this._data;
      if (!data || !data.renderings || data.renderings.html == null) {
        this.fail("This answer has no HTML rendering");
        return;
      }
      const begun = started || performance.now();
      this.closePanel(false);
      this.pageImages.clear();
      // The answer's direction as the formatter found it (additive field), else guessed.
      this.layout.setAttribute("dir", data.direction || direction(data.text));
      // renderings.html is safe by construction (the server escapes it): its markup (and any dir
      // attribute or bidi isolation in it) is kept as the server made it.
      this.answerBox.innerHTML = data.renderings.html;
      showBidiControls(this.answerBox);
      this.wire();
      this.legend();
      if (this.hasAttribute("live")) this.watch();
      requestAnimationFrame(() => requestAnimationFrame(() => {
        this.firstRender = performance.now() - begun;
        this.dataset.state = "ready";
        this.dispatchEvent(new CustomEvent("citeflow-ready", {bubbles: true, composed: true,
          detail: {answerId: data.answer_id, firstRender: this.firstRender}}));
      }));
    }

    // ---- lookups ----------------------------------------------------------------------
    sourceOf(index) {
      return this._data.sources.find((s) => s.index === index) || null;
    }

    // The i-th chip of the rendering is the i-th citation of the result (in text order).
    citationOf(chip, position) {
      const byOrder = this._data.citations[position];
      const id = Number(chip.dataset.citationId);
      if (byOrder && byOrder.id === id) return byOrder;
      return this._data.citations.find((c) => c.id === id) || null;
    }

    linkOf(citation) {
      return this._data.links.find((l) => l.citation_id === citation.id
        && l.sentence_index === citation.sentence_index && l.locator) || null;
    }

    unitOf(id) {
      return (this._data.answer_units.units || []).find((u) => u.id === id) || null;
    }

    verdictOf(citation) {
      if (citation.current) return citation.current.verdict;
      const verification = this._data.verification;
      const found = (verification && verification.citations || []).find((v) =>
        v.citation_id === citation.id && v.sentence_index === citation.sentence_index);
      return found ? found.verdict : (citation.support && citation.support.verdict) || null;
    }

    // ---- preview card -----------------------------------------------------------------
    showCard(chip, citation) {
      const card = this.card;
      card.replaceChildren();
      const source = citation && this.sourceOf(citation.source_index);
      if (!citation || !citation.valid) {
        card.append(element("strong", {}, "Invalid citation"),
          element("p", {}, (citation && citation.problem) || "it cites no supplied source"));
      } else {
        const link = this.linkOf(citation);
        const title = (source && source.title) || "Untitled source";
        card.append(element("strong", {dir: direction(title)}, title));
        if (source && source.score !== null && source.score !== undefined) {
          card.append(element("span", {class: "score"}, "score " + source.score.toFixed(2)));
        }
        const verdict = this.verdictOf(citation);
        if (verdict) card.append(element("span", {class: "verdict verdict-" + verdict}, verdict));
        const missing = missingWords(citation.support);
        if (missing.length) {
          const line = element("p", {class: "missing"}, "Not in the source: ");
          line.append(...isolatedList(missing, ", "));
          card.append(line);
        }
        this.underline(chip, citation);
        this.cardJudge(card, citation);
        const passage = link ? link.locator.selector.exact : (source && source.excerpt) || "";
        card.append(element("p", {class: "passage", dir: direction(passage)},
          passage.length > 280 ? passage.slice(0, 277) + "…" : passage));
      }
      const box = chip.getBoundingClientRect();
      const frame = this.layout.getBoundingClientRect();
      card.style.left = Math.max(0, box.left - frame.left) + "px";
      card.style.top = (box.bottom - frame.top + 6) + "px";
      card.hidden = false;
      chip.setAttribute("aria-describedby", "preview-card");
    }

    hideCard() {
      this.card.hidden = true;
      const highlights = window.CSS && window.CSS.highlights;
      if (highlights) highlights.delete("citeflow-missing");
    }

    // Underline the answer's words the citation's source does not back (`missing_words`, in
    // answer order), while the chip is under the pointer or focused.
    underline(chip, citation) {
      const words = citation && citation.support && citation.support.missing_words || [];
      const highlights = window.CSS && window.CSS.highlights;
      if (!words.length || !highlights || !window.Highlight) return;
      highlights.set("citeflow-missing",
        new window.Highlight(...this.placeBefore(chip, words).filter(Boolean)));
    }

    // Ranges of the answer's rendered text for `items` ({text, start, end} in the answer, in
    // order, in the sentence `chip` closes): each is looked for backwards from the chip, or
    // from the next item that starts after it ends (items may nest: a number inside a
    // clause); null for an item not found there.
    placeBefore(chip, items) {
      const nodes = [];
      const walker = document.createTreeWalker(this.answerBox, NodeFilter.SHOW_TEXT);
      let flat = "";
      let end = -1;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (end < 0 && chip.contains(node)) end = flat.length;
        nodes.push([node, flat.length]);
        flat += node.data;
      }
      if (end < 0) end = flat.length;
      const place = (offset) => {
        const found = nodes.findLast(([, start]) => start <= offset);
        return [found[0], offset - found[1]];
      };
      const ranges = new Array(items.length).fill(null);
      const at = new Array(items.length).fill(-1);
      for (let i = items.length - 1; i >= 0; i -= 1) {
        const shown = visibleBidi(items[i].text);
        let bound = end;
        for (let j = i + 1; j < items.length; j += 1) {
          if (at[j] >= 0 && items[j].start >= items[i].end) { bound = at[j]; break; }
        }
        at[i] = shown ? flat.lastIndexOf(shown, bound - shown.length) : -1;
        if (at[i] < 0) continue;
        const range = new Range();
        range.setStart(...place(at[i]));
        range.setEnd(...place(at[i] + shown.length - 1).map((v, k) => (k ? v + 1 : v)));
        ranges[i] = range;
      }
      return ranges;
    }

    // ---- the panel --------------------------------------------------------------------
    openPanel(title, label) {
      this.panelTitle.textContent = visibleBidi(title);
      this.panelTitle.setAttribute("dir", direction(title));
      this.panelLabel.textContent = label;
      this.note("");
      this.explain(null);
      this.setAtom(null);
      this.evidence = [];
      this.atomRanges = [];
      this.evidenceList.replaceChildren();
      this.evidenceList.hidden = true;
      this.panelBody.replaceChildren();
      this.panel.hidden = false;
      this.layout.classList.add("open");
      this.panel.dataset.state = "loading";
    }

    note(text) {
      this.panelNote.textContent = visibleBidi(text);
      this.panelNote.hidden = !text;
    }

    // Why a citation's verdict is what it is: a word-for-word quote, the words the source
    // lacks, what disagrees, a better supplied source, or why it could not be checked.
    explain(citation) {
      const support = citation && citation.support;
      const parts = [];
      if (support) {
        const verdict = this.verdictOf(citation);
        if (support.judge === "verbatim") parts.push("The sentence quotes this source word for word.");
        else if (VERDICT_WHY[verdict]) parts.push(VERDICT_WHY[verdict]);
        const quotes = (support.atoms || []).filter((atom) => atom.judge === "verbatim");
        if (support.judge !== "verbatim" && quotes.length) {
          parts.push(["Its quote ", ...isolatedList(quotes.map((atom) => atom.text), ", "),
            " is in the source word for word."]);
        }
        const missing = missingWords(support);
        if (missing.length) {
          parts.push(["Not in the source: ", ...isolatedList(missing, ", "), "."]);
        }
        if (support.conflicts && support.conflicts.length) {
          parts.push(["Disagrees on: ", ...isolatedList(support.conflicts, ", "), "."]);
        }
        if (support.better_source !== null && support.better_source !== undefined) {
          const better = this.sourceOf(support.better_source);
          parts.push(["Source [" + support.better_source + "]", ...(better && better.title
            ? [" (", element("bdi", {}, better.title), ")"] : []), " supports it better."]);
        }
        const reasons = {
          cross_language: "The sentence and the source are in different languages.",
          no_source_text: "The source has no text to check the sentence against.",
          nothing_to_check: "The sentence holds nothing to check."};
        if (reasons[support.reason]) parts.push(reasons[support.reason]);
      }
      this.panelWhy.replaceChildren(...parts.flatMap((part, i) => (i ? [" "] : [])
        .concat(part)));
      this.panelWhy.hidden = !parts.length;
    }

    // The quoted words inside a chapter's highlighted passage, wrapped in a second mark: the
    // text of the passage's marks, in order, is searched for the quote.
    setQuoteApart(container) {
      const quote = this.quote;
      if (!quote) return;
      const nodes = [];
      for (const mark of container.querySelectorAll("mark[data-citeflow-highlight]")) {
        const walker = document.createTreeWalker(mark, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
      }
      const starts = [];
      let text = "";
      for (const node of nodes) {
        starts.push(text.length);
        text += node.data;
      }
      const found = locateQuote(text, quote);
      if (!found || found[1] - found[0] >= text.trim().length) return;
      const [at, stop] = found;
      nodes.forEach((node, n) => {
        const start = Math.max(at - starts[n], 0);
        const end = Math.min(stop - starts[n], node.data.length);
        if (start >= end) return;
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, end);
        range.surroundContents(element("mark", {"data-citeflow-quote": "", part: "quote"}));
      });
    }

    // The words a quoted sentence takes from this citation's source, set apart inside the
    // passage (a second level of highlight); null when it quotes nothing there.
    quoteOf(citation) {
      const evidence = citation.support && citation.support.evidence;
      if (evidence && evidence.source_index === citation.source_index && evidence.quote) {
        return evidence.quote;
      }
      for (const unit of this._data.answer_units.units || []) {
        if (unit.kind !== "verbatim" || citation.start < unit.start || citation.start > unit.end) continue;
        const span = (unit.source_spans || []).find((s) => s.source_index === citation.source_index);
        if (span && span.quote) return span.quote;
      }
      return null;
    }

    closePanel(refocus = true) {
      this.markOpen(null);
      this.setAtom(null);
      this.atomRanges = [];
      this.panel.hidden = true;
      this.layout.classList.remove("open");
      this.generation += 1;
      if (refocus && this.returnFocus) this.returnFocus.focus();
    }

    painted(started, kind, section, mine) {
      const cold = !this.opened.has(section);
      this.opened.add(section);
      requestAnimationFrame(() => requestAnimationFrame(() => {
        if (mine !== this.generation) return;
        const first = this.panelBody.querySelector("[data-citeflow-highlight]");
        if (first) first.scrollIntoView({block: "center"});
        const timing = {kind, cold, ms: performance.now() - started, found: Boolean(first)};
        this.timings.push(timing);
        this.panel.dataset.state = "ready";
        this.dispatchEvent(new CustomEvent("citeflow-open", {bubbles: true, composed: true,
          detail: timing}));
      }));
    }

    query(target) {
      const params = new URLSearchParams({answer_id: this._data.answer_id});
      if (target.unit) {
        params.set("unit_id", target.unit.id);
        params.set("span", String(target.span || 0));
      } else {
        params.set("citation_id", String(target.citation.id));
        params.set("sentence_index", String(target.citation.sentence_index));
        if (target.atom !== undefined && target.atom !== null) {
          params.set("atom", String(target.atom));
        }
      }
      return params;
    }

    async loadImages(container) {
      await Promise.all(Array.from(container.querySelectorAll("img[data-citeflow-src]"))
        .map(async (img) => {
          try {
            img.src = URL.createObjectURL(await this.get(img.dataset.citeflowSrc, "blob"));
          } catch (e) { img.alt = img.alt || "image unavailable"; }
        }));
    }

    chapterPath(docId, href) {
      return "/v1/documents/" + encodeURIComponent(docId) + "/chapters/"
        + href.split("/").map(encodeURIComponent).join("/");
    }

    async showEpub(locator, docId, target, started, mine) {
      let view = await this.get(this.chapterPath(docId, locator.href) + "?" + this.query(target));
      let moved = null;
      if (view.highlight && !view.highlight.found && view.highlight.found_in) {
        // The chapter was only a hint: open the one that holds the quote.
        moved = view.highlight.note;
        view = await this.get(this.chapterPath(docId, view.highlight.found_in) + "?"
          + this.query(target));
      }
      if (mine !== this.generation) return;
      this.renderChapter(docId, view);
      this.setQuoteApart(this.panelBody);
      showBidiControls(this.panelBody);
      this.markChapterEvidence(docId, view.href);
      if (!view.highlight || !view.highlight.found) {
        this.note((view.highlight && view.highlight.note) || "passage not located in this chapter");
      } else if (moved) {
        this.note(moved);
      }
      this.painted(started, "epub", docId + "#" + view.href, mine);
    }

    // A chapter in the panel, with previous/next buttons; in-book links open their chapter
    // here (without a highlight) and never navigate the page.
    renderChapter(docId, view) {
      const chapter = element("div", {class: "chapter", part: "chapter", "data-href": view.href});
      chapter.innerHTML = view.html;  // sanitised by the gateway; chapter scripts never run
      const nav = element("nav", {class: "chapter-nav", "aria-label": "Chapters"});
      for (const [href, label] of [[view.prev_href, "← previous chapter"],
        [view.next_href, "next chapter →"]]) {
        if (!href) continue;
        const button = element("button", {type: "button"}, label);
        button.addEventListener("click", () => this.openChapter(docId,
          this.chapterPath(docId, href)));
        nav.append(button);
      }
      chapter.addEventListener("click", (event) => {
        const link = event.target.closest("a[href^='/v1/documents/']");
        if (!link) return;
        event.preventDefault();
        this.openChapter(docId, link.getAttribute("href").split("#")[0]);
      });
      this.panelBody.replaceChildren(chapter, nav);
      this.loadImages(chapter);
    }

    async openChapter(docId, path) {
      this.generation += 1;
      const mine = this.generation;
      try {
        const view = await this.get(path);
        if (mine !== this.generation) return;
        this.note("");
        this.renderChapter(docId, view);
        showBidiControls(this.panelBody);
        this.panelBody.scrollTop = 0;
        this.panel.scrollTop = 0;
      } catch (error) {
        if (mine === this.generation) this.note("the chapter could not be opened: " + error.message);
      }
    }

    // Page images fetched (with the key) and decoded once per page, then the same element
    // is moved into each new figure of that page.
    async loadPage(docId, number) {
      const blob = await this.get("/v1/documents/" + encodeURIComponent(docId) + "/pages/"
        + number + ".png?scale=1.5", "blob");
      const img = element("img", {alt: "page " + number});
      img.src = URL.createObjectURL(blob);
      await img.decode().catch(() => null);
      return img;
    }

    pageImage(docId, number) {
      const key = docId + "#" + number;
      if (!this.pageImages.has(key)) {
        this.pageImages.set(key, this.loadPage(docId, number).catch((error) => {
          this.pageImages.delete(key);
          throw error;
        }));
      }
      return this.pageImages.get(key);
    }

    async pageFigure(docId, number, boxes, width, height) {
      const figure = element("figure", {class: "pdf-page", part: "pdf-page",
        "data-page": String(number)});
      const img = await this.pageImage(docId, number);
      figure.append(img);
      for (const [[x0, y0, x1, y1], attributes] of boxes) {
        const box = element("div", attributes);
        // CSSOM properties (not a style attribute): allowed under a strict style-src.
        box.style.left = (100 * x0 / width) + "%";
        box.style.top = (100 * y0 / height) + "%";
        box.style.width = (100 * (x1 - x0) / width) + "%";
        box.style.height = (100 * (y1 - y0) / height) + "%";
        figure.append(box);
      }
      figure.append(element("figcaption", {}, "page " + number));
      return figure;
    }

    async showPdf(locator, docId, target, started, mine) {
      const base = (page) => "/v1/documents/" + encodeURIComponent(docId) + "/pages/" + page;
      const where = await this.get(base(locator.page) + "/highlights?" + this.query(target));
      if (mine !== this.generation) return;
      const boxes = {};  // page -> [[rect, attributes]]
      const add = (pages, attributes) => {
        for (const [n, rects] of Object.entries(pages || {})) {
          boxes[n] = (boxes[n] || []).concat(rects.map((r) => [r, attributes]));
        }
      };
      const highlight = {"data-citeflow-highlight": "", class: "pdf-highlight", part: "highlight"};
      if (where.found) add(where.pages, highlight);
      // Every atom's evidence in this document, on its own page: boxes of the set. One
      // request at a time, none once another passage was asked for: the reader's work is
      // shared with every other page of the tenant.
      const atoms = this.evidence.filter((e) => e.locator && e.locator.type === "pdf_text"
        && e.docId === docId && target.citation);
      for (const item of atoms) {
        if (mine !== this.generation) return;
        const found = await this.get(base(item.locator.page) + "/highlights?"
          + this.query({citation: target.citation, atom: item.index})).catch(() => null);
        if (found && found.found) {
          add(found.pages, {"data-citeflow-evidence": "", class: "pdf-evidence",
            part: "highlight", "data-citeflow-atoms": String(item.index)});
        }
      }
      // A quoted sentence: its words in the passage, as boxes of their own (second level).
      if (where.found && this.quote) {
        const quoted = await this.get(base(locator.page) + "/highlights?" + new URLSearchParams(
          {exact: this.quote})).catch(() => null);
        if (quoted && quoted.found) add(quoted.pages, {"data-citeflow-quote": "", class: "pdf-quote",
          part: "quote"});
      }
      if (mine !== this.generation) return;
      const pages = Object.keys(boxes).length ? Object.keys(boxes).map(Number).sort((a, b) => a - b)
        : [where.page];
      const figures = await Promise.all(pages.map((n) => this.pageFigure(docId, n,
        boxes[String(n)] || [], where.width, where.height)));
      if (mine !== this.generation) return;
      this.panelBody.replaceChildren(...figures);
      this.note(where.note || "");
      this.painted(started, "pdf", docId + "#" + pages.join(","), mine);
    }

    // Text and web sources: the passage the chip opened, marked, and every other passage
    // of the citation's evidence set (one per claim of its sentence) after it.
    showPassage(locator, source, started, mine) {
      const key = (selector) => JSON.stringify([selector.exact, selector.prefix, selector.suffix]);
      const place = (found) => found.section_id || found.url || "";
      const opened = {selector: locator.selector, atoms: [], highlight: true, where: place(locator)};
      const passages = [opened];
      const byKey = new Map([[key(locator.selector), opened]]);
      for (const item of this.evidence) {
        if (!item.locator || item.locator.type === "epub_text" || item.locator.type === "pdf_text") continue;
        const k = key(item.locator.selector);
        if (!byKey.has(k)) {
          byKey.set(k, {selector: item.locator.selector, atoms: [], highlight: false,
            where: place(item.locator)});
          passages.push(byKey.get(k));
        }
        byKey.get(k).atoms.push(item.index);
      }
      this.panelBody.replaceChildren(...joinOverlapping(passages).map((b) => this.passageBlock(b)));
      if (locator.type === "web" && source && source.safe_url) {
        const link = element("a", {href: source.safe_url + textFragment(locator.selector),
          rel: "noopener noreferrer", target: "_blank", class: "open-site"}, "open on the site");
        this.panelBody.append(element("p", {}), link);
      }
      this.painted(started, locator.type, "inline", mine);
    }

    // One block of passages with its context (`joinOverlapping`), each stretch of its text
    // marked for the passages that hold it (and the words a quoted sentence takes from it
    // set apart): the one the chip opened as its highlight, another of the set as
    // evidence, with the claims it is the evidence of (`data-citeflow-atoms`).
    passageBlock({selector, parts}) {
      const text = selector.exact;
      const block = element("blockquote", {class: "passage-text", part: "passage",
        dir: direction(text)});
      block.append(document.createTextNode(selector.prefix ? "…" + selector.prefix : ""));
      const found = this.quote ? locateQuote(text, this.quote) : null;
      const quoted = found && found[1] - found[0] < text.length ? found : null;
      const cuts = [...new Set(parts.flatMap((p) => [p.start, p.end]))].sort((a, b) => a - b);
      for (let i = 0; i + 1 < cuts.length; i += 1) {
        const [start, end] = [cuts[i], cuts[i + 1]];
        const holding = parts.filter((p) => p.start <= start && end <= p.end);
        const atoms = [...new Set(holding.flatMap((p) => p.atoms))];
        const mark = element("mark", {[holding.some((p) => p.highlight) ? "data-citeflow-highlight"
          : "data-citeflow-evidence"]: "", part: "highlight"});
        if (atoms.length) mark.setAttribute("data-citeflow-atoms", atoms.join(" "));
        if (quoted && quoted[0] < end && start < quoted[1]) {
          const [at, stop] = [Math.max(quoted[0], start), Math.min(quoted[1], end)];
          mark.append(document.createTextNode(text.slice(start, at)),
            element("mark", {"data-citeflow-quote": "", part: "quote"}, text.slice(at, stop)),
            document.createTextNode(text.slice(stop, end)));
        } else {
          mark.textContent = text.slice(start, end);
        }
        block.append(mark);
      }
      block.append(document.createTextNode(selector.suffix ? cutShort(selector.suffix) : ""));
      showBidiControls(block);
      return block;
    }

    // ---- the evidence set -------------------------------------------------------------
    // Each atom of a citation's support with where its evidence is: its own span's
    // locator, or the passage `link` it names.
    evidenceOf(citation) {
      const atoms = citation.support && citation.support.atoms || [];
      return atoms.map((atom, index) => {
        const link = atom.link !== null && atom.link !== undefined ? this._data.links[atom.link]
          : null;
        const place = link || atom.evidence || null;
        return {index, atom, locator: place && place.locator || null,
          docId: place && place.doc_id || null};
      });
    }

    // The claims of the sentence as a list in the panel, each with its verdict and, where
    // its evidence is elsewhere (another chapter), the way to it. Under the pointer or
    // focused, a claim's passage is set apart from the rest of the set.
    listEvidence(trigger, citation) {
      this.evidence = this.evidenceOf(citation);
      this.atomRanges = this.placeBefore(trigger, this.evidence.map((e) => e.atom));
      if (this.evidence.length < 2 && !this.evidence.some((e) => !e.locator)) return;
      const items = this.evidence.map((item) => {
        const li = element("li", {tabindex: "0", "data-atom": String(item.index),
          class: "atom-" + item.atom.verdict});
        li.append(element("bdi", {}, item.atom.text),
          element("span", {class: "atom-verdict"}, item.atom.verdict));
        if (!item.locator) li.append(element("span", {class: "atom-where"}, "no passage"));
        li.addEventListener("mouseenter", () => this.setAtom(item.index));
        li.addEventListener("mouseleave", () => this.setAtom(null));
        li.addEventListener("focus", () => this.setAtom(item.index));
        li.addEventListener("blur", () => this.setAtom(null));
        const go = () => this.openElsewhere(citation, item);
        li.addEventListener("click", go);
        li.addEventListener("keydown", (event) => { if (event.key === "Enter") go(); });
        return li;
      });
      this.evidenceList.replaceChildren(...items);
      this.evidenceList.hidden = false;
    }

    // Every atom's evidence in the chapter shown, marked client-side (the server marked
    // the passage asked for); an atom whose evidence is in another chapter says so.
    markChapterEvidence(docId, href) {
      const chapter = this.panelBody.querySelector(".chapter");
      for (const item of this.evidence) {
        const li = this.evidenceList.querySelector(`li[data-atom="${item.index}"]`);
        if (!item.locator || item.locator.type !== "epub_text") continue;
        const here = item.docId === docId && item.locator.href === href;
        if (li) li.toggleAttribute("data-elsewhere", !here);
        if (li && !here) {
          const where = li.querySelector(".atom-where") || element("span", {class: "atom-where"});
          where.textContent = "in another chapter: Enter opens it";
          li.append(where);
        } else if (li) {
          const where = li.querySelector(".atom-where");
          if (where) where.remove();
        }
        if (here && chapter) markText(chapter, item.locator.selector, item.index);
      }
    }

    // An atom whose evidence is in another chapter: that chapter, its passage marked.
    openElsewhere(citation, item) {
      const li = this.evidenceList.querySelector(`li[data-atom="${item.index}"]`);
      if (!li || !li.hasAttribute("data-elsewhere")) return;
      this.generation += 1;
      const mine = this.generation;
      this.panel.dataset.state = "loading";
      this.showEpub(item.locator, item.docId, {citation, atom: item.index}, performance.now(), mine)
        .then(() => this.setAtom(item.index))
        .catch((error) => { if (mine === this.generation) this.note("the chapter could not be opened: " + error.message); });
    }

    // The passage of atom `index` set apart from the rest of the set (null: none), and the
    // atom's words in the answer highlighted.
    setAtom(index) {
      if (index === this.currentAtom) return;
      this.currentAtom = index;
      for (const node of this.shadowRoot.querySelectorAll("[data-citeflow-current]")) {
        node.removeAttribute("data-citeflow-current");
      }
      const highlights = window.CSS && window.CSS.highlights;
      if (highlights) highlights.delete("citeflow-atom");
      if (index === null) {
        delete this.dataset.atom;
        return;
      }
      this.dataset.atom = String(index);
      const li = this.evidenceList.querySelector(`li[data-atom="${index}"]`);
      if (li) li.setAttribute("data-citeflow-current", "");
      const passages = this.panelBody.querySelectorAll(`[data-citeflow-atoms~="${index}"]`);
      for (const node of passages) node.setAttribute("data-citeflow-current", "");
      if (passages.length) passages[0].scrollIntoView({block: "nearest"});
      const range = this.atomRanges[index];
      if (range && highlights && window.Highlight) highlights.set("citeflow-atom", new window.Highlight(range));
    }

    // The atom whose words in the answer are under the pointer (the open citation's).
    atomAt(x, y) {
      for (let i = this.atomRanges.length - 1; i >= 0; i -= 1) {
        const range = this.atomRanges[i];
        if (!range) continue;
        for (const r of range.getClientRects()) {
          if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return i;
        }
      }
      return null;
    }

    async open(target, trigger, started) {
      this.hideCard();
      this.returnFocus = trigger;
      this.markOpen(trigger);
      this.generation += 1;
      const mine = this.generation;
      const {citation, unit} = target;
      let locator, docId, label, source;
      this.quote = unit ? null : this.quoteOf(citation);
      if (unit) {
        const span = unit.source_spans[target.span || 0];
        locator = span.locator;
        docId = span.doc_id;
        source = this.sourceOf(span.source_index);
        label = "Quoted passage";
      } else {
        source = this.sourceOf(citation.source_index);
        if (!citation.valid) {
          this.openPanel("Invalid citation " + citation.marker, "Invalid citation");
          this.note(citation.problem || "this citation cites no supplied source");
          this.panel.dataset.state = "ready";
          this.panel.focus();
          return;
        }
        const link = this.linkOf(citation);
        const verdict = this.verdictOf(citation);
        label = "Supporting passage" + (verdict ? " (" + verdict + ")" : "");
        // Without the sentence's passage, the first atom's evidence opens the source.
        const first = this.evidenceOf(citation).find((e) => e.locator);
        if (!link && first) {
          locator = first.locator;
          docId = first.docId;
          target = {citation, atom: first.index};
        } else if (link) {
          locator = link.locator;
          docId = link.doc_id;
        } else {
          this.openPanel((source && source.title) || "Source", label);
          this.explain(citation);
          this.note("no supporting passage was found in this source");
          this.panel.dataset.state = "ready";
          this.panel.focus();
          return;
        }
      }
      this.openPanel((source && source.title) || docId || "Source", label);
      if (!unit) {
        this.explain(citation);
        this.listEvidence(trigger, citation);
      }
      this.panel.focus();
      try {
        if (locator.type === "epub_text" && docId) {
          await this.showEpub(locator, docId, target, started, mine);
        } else if (locator.type === "pdf_text" && docId) {
          await this.showPdf(locator, docId, target, started, mine);
        } else {
          this.showPassage(locator, source, started, mine);
        }
      } catch (error) {
        if (mine !== this.generation) return;
        this.note("the source could not be opened: " + error.message);
        this.showPassage(locator, source, started, mine);
      }
    }

    // The chip (or quoted claim) whose passage the panel shows: aria-expanded, drawn apart.
    markOpen(trigger) {
      for (const node of this.answerBox.querySelectorAll("[aria-expanded='true']")) {
        node.setAttribute("aria-expanded", "false");
      }
      if (trigger) trigger.setAttribute("aria-expanded", "true");
    }

    // What the dots on the chips mean: one entry per verdict this answer shows, and the
    // struck-through chip of an invalid citation.
    legend() {
      const shown = Array.from(new Set(Array.from(this.answerBox.querySelectorAll(
        ".citation .badge"), (badge) => VERDICTS.find((v) => badge.classList.contains(
        "badge-" + v)))));
      const invalid = this.answerBox.querySelector(".citation-invalid");
      if (!shown.length && !invalid) return;
      const legend = element("p", {class: "legend", part: "legend"});
      for (const verdict of VERDICTS.filter((v) => shown.includes(v))) {
        const item = element("span", {class: "legend-item", "data-verdict": verdict});
        item.append(element("span", {class: "badge badge-" + verdict, "aria-hidden": "true"}),
          " " + VERDICT_MEANINGS[verdict]);
        legend.append(item, " ");
      }
      if (invalid) {
        legend.append(element("span", {class: "legend-item", "data-verdict": "invalid"},
          "struck-through: the citation names no supplied source"));
      }
      legend.append(element("span", {class: "legend-hint"},
        "Click a citation to see the passage it rests on."));
      this.answerBox.append(legend);
    }

    // ---- a model judge's second opinion ---------------------------------------------
    // The preview card names who gave the verdict (the lexical check, or a model judge with
    // its one-sentence rationale).
    cardJudge(card, citation) {
      const current = citation.current;
      const judge = current ? current.judge : citation.support && citation.support.judge;
      if (!judge) return;
      card.append(element("span", {class: "judge", part: "judge"}, "judged by " + judge));
      if (current && current.rationale) {
        card.append(element("p", {class: "rationale", part: "rationale",
          dir: direction(current.rationale)}, current.rationale));
      }
    }

    // An `answer.judged` (from the stream, or a host's own): each judged citation's verdict
    // becomes the model's, its chip updated in place (nothing is re-rendered).
    applyJudgement(judgement) {
      const data = this._data;
      if (!data || !judgement || judgement.answer_id !== data.answer_id) return;
      data.judgement = judgement;
      for (const opinion of judgement.judgements || []) {
        const citation = data.citations[opinion.citation_index];
        if (!citation || !citation.support) continue;
        citation.current = opinion.status === "judged"
          ? {verdict: opinion.verdict, judge: opinion.judge, rationale: opinion.rationale,
            evidence: opinion.evidence || []}
          : {verdict: citation.support.verdict, judge: citation.support.judge};
        this.refreshChip(citation);
      }
      this.dispatchEvent(new CustomEvent("citeflow-judged", {bubbles: true, composed: true,
        detail: {answerId: data.answer_id, judge: judgement.judge}}));
    }

    refreshChip(citation) {
      const chips = Array.from(this.answerBox.querySelectorAll(".citation[data-citation-id]"));
      chips.forEach((chip, position) => {
        if (this.citationOf(chip, position) !== citation || !citation.valid) return;
        const verdict = this.verdictOf(citation);
        const source = this.sourceOf(citation.source_index);
        for (const badge of chip.querySelectorAll(".badge")) badge.remove();
        chip.setAttribute("part", "chip chip-" + verdict);
        chip.dataset.judge = citation.current.judge;
        chip.setAttribute("aria-label", "Citation " + citation.marker + ": "
          + ((source && source.title) || "source") + " (" + verdict + ", judged by "
          + citation.current.judge + "), open the supporting passage");
        chip.append(element("span", {class: "badge badge-" + verdict,
          part: "badge badge-" + verdict, "aria-hidden": "true"}));
      });
    }

    // With the `live` attribute: the gateway's stream (fetched with the key, as every
    // request is), for this answer's `judged` events.
    async watch() {
      this.unwatch();
      const abort = this.watching = new AbortController();
      const headers = this.apiKey ? {Authorization: "Bearer " + this.apiKey} : {};
      let buffer = "";
      try {
        const response = await fetch(this.gateway + "/v1/stream?view=summary",
          {headers, credentials: "omit", signal: abort.signal});
        if (!response.ok || !response.body) return;
        this.dataset.live = "on";
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const {value, done} = await reader.read();
          if (done) { delete this.dataset.live; return; }
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            this.streamEvent(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch (error) {
        if (abort.signal.aborted) return;  // disconnected or re-watched
      }
    }

    streamEvent(block) {
      const lines = block.split("\n");
      if (!lines.includes("event: judged")) return;
      const data = lines.find((line) => line.startsWith("data: "));
      if (!data) return;
      const event = JSON.parse(data.slice(6));
      if (event.answer_id === this.answerId || (this._data
          && event.answer_id === this._data.answer_id)) this.applyJudgement(event.judgement);
    }

    unwatch() {
      if (this.watching) this.watching.abort();
      this.watching = null;
      delete this.dataset.live;
    }

    liveChanged() {
      if (!this.hasAttribute("live")) this.unwatch();
      else if (this._data && this.isConnected && !this.watching) this.watch();
    }

    // ---- wiring -----------------------------------------------------------------------
    wire() {
      // Valid chips are links; invalid ones are plain <sup> elements, made focusable here.
      const chips = Array.from(this.answerBox.querySelectorAll(".citation[data-citation-id]"));
      chips.forEach((chip, position) => {
        const citation = this.citationOf(chip, position);
        const source = citation && this.sourceOf(citation.source_index);
        const verdict = citation && citation.valid ? this.verdictOf(citation) : null;
        chip.setAttribute("role", "button");
        chip.setAttribute("aria-haspopup", "dialog");
        chip.setAttribute("aria-expanded", "false");
        chip.setAttribute("part", "chip" + (verdict ? " chip-" + verdict : ""));
        chip.setAttribute("aria-label", citation && citation.valid
          ? "Citation " + citation.marker + ": " + visibleBidi((source && source.title) || "source")
            + (verdict ? " (" + verdict + ")" : "") + ", open the supporting passage"
          : "Invalid citation " + chip.textContent);
        if (verdict) {
          chip.append(element("span", {class: "badge badge-" + verdict,
            part: "badge badge-" + verdict, "aria-hidden": "true"}));
        }
        if (!citation || !citation.valid) {
          chip.classList.add("citation-invalid");
          chip.setAttribute("part", "chip chip-invalid");
          chip.setAttribute("tabindex", "0");
          chip.addEventListener("keydown", (event) => {
            if (event.key === "Enter") chip.click();
          });
        }
        chip.addEventListener("mouseenter", () => this.showCard(chip, citation));
        chip.addEventListener("focus", () => this.showCard(chip, citation));
        chip.addEventListener("mouseleave", () => this.hideCard());
        chip.addEventListener("blur", () => this.hideCard());
        chip.addEventListener("click", (event) => {
          event.preventDefault();
          event.stopPropagation();
          const started = performance.now();
          if (citation) this.open({citation}, chip, started);
        });
      });
      for (const node of this.answerBox.querySelectorAll(".unit-verbatim[data-unit-id]")) {
        const unit = this.unitOf(node.dataset.unitId);
        if (!unit || !unit.source_spans.length) continue;
        node.setAttribute("aria-label", "Quoted claim: open the quoted passage in its source");
        node.setAttribute("aria-expanded", "false");
        const go = (event) => {
          event.preventDefault();
          this.open({unit, span: 0}, node, performance.now());
        };
        node.addEventListener("click", go);
        node.addEventListener("keydown", (event) => {
          // Keys pressed on a chip inside the unit belong to the chip.
          if (event.target === node && (event.key === "Enter" || event.key === " ")) go(event);
        });
      }
      for (const node of this.answerBox.querySelectorAll(".unit-derived")) {
        node.setAttribute("aria-label", "Derived claim (not a quotation)");
      }
    }
  }

  customElements.define("citeflow-answer", CiteflowAnswer);
  CiteflowAnswer.visibleBidi = visibleBidi;  // for the gateway's own pages (common.js)
  window.CiteflowAnswer = CiteflowAnswer;
})();
