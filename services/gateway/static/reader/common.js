// citeflow pages: the API key (from the URL fragment, kept in sessionStorage, never sent
// in a URL to the server), authenticated fetches and elements with untrusted text. No inline script: CSP script-src 'self'.
"use strict";

const CiteflowApi = (() => {
  const STORAGE = "citeflow-key";

  // A key in the fragment is taken only when none is kept: a link carrying another key
  // (another tenant's, say) never silently replaces the one in use; the page offers it.
  function takeKeyFromFragment() {
    const match = /(?:^#|&)key=([^&]+)/.exec(location.hash);
    const linked = match ? decodeURIComponent(match[1]) : null;
    if (match) history.replaceState(null, "", location.pathname + location.search);
    const kept = sessionStorage.getItem(STORAGE);
    if (linked && !kept) sessionStorage.setItem(STORAGE, linked);
    return {key: sessionStorage.getItem(STORAGE), offered: kept && linked !== kept ? linked : null};
  }

  const {key, offered} = takeKeyFromFragment();

  function bar() { return document.querySelector("header.bar") || document.body; }

  // The tenant the key reads (the gateway's X-Citeflow-Tenant), shown in the page's bar.
  function showTenant(tenant) {
    if (!tenant) return;
    let shown = document.getElementById("citeflow-tenant");
    if (!shown) bar().append(shown = element("span", {id: "citeflow-tenant", class: "tenant"}));
    shown.textContent = "tenant: " + tenant;
  }

  // A notice that the link carried another key, with the choice to use it instead.
  function offerLinkedKey() {
    if (!offered) return;
    const use = element("button", {type: "button", id: "citeflow-use-linked-key"},
      "Use the link's key instead");
    use.addEventListener("click", () => {
      sessionStorage.setItem(STORAGE, offered);
      location.reload();
    });
    const notice = element("p", {class: "key-offered", id: "citeflow-key-offered",
      role: "status"}, "This link carries another API key; still showing what your own key "
      + "reads. ");
    notice.append(use);
    bar().after(notice);
  }

  async function get(path, kind) {
    const response = await fetch(path, {headers: key ? {Authorization: "Bearer " + key} : {}});
    showTenant(response.headers.get("X-Citeflow-Tenant"));
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

  // After every deferred script ran: element() uses the component's helper (citeflow.js).
  document.addEventListener("DOMContentLoaded", offerLinkedKey);
  return {key, get, element, showTenant};
})();
