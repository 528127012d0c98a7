// citeflow pages: the API key (from the URL fragment, kept in sessionStorage, never sent
// in a URL to the server), authenticated fetches and elements with untrusted text. No inline script: CSP script-src 'self'.
"use strict";

const CiteflowApi = (() => {
  const STORAGE = "citeflow-key";

  function takeKeyFromFragment() {
    const match = /(?:^#|&)key=([^&]+)/.exec(location.hash);
    if (match) {
      sessionStorage.setItem(STORAGE, decodeURIComponent(match[1]));
      history.replaceState(null, "", location.pathname + location.search);
    }
    return sessionStorage.getItem(STORAGE);
  }

  const key = takeKeyFromFragment();

  async function get(path, kind) {
    const response = await fetch(path, {headers: key ? {Authorization: "Bearer " + key} : {}});
    if (!response.ok) {
      let detail = response.status + " " + response.statusText;
      try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON */ }
      throw new Error(detail);
    }
    return kind === "blob" ? response.blob() : response.json();
  }

  // Text is shown with its explicit bidi controls as visible tokens (the component's
  // helper: every page loads citeflow.js); untrusted pieces also get dir="auto".
  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined && text !== null) node.textContent = CiteflowAnswer.visibleBidi(text);
    return node;
  }

  return {key, get, element};
})();
