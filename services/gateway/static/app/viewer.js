// The gateway's answer viewer (/answers/{id}): the <citeflow-answer> component (the same
// one host pages embed) with the key from the URL fragment (CiteflowApi, common.js). The
// page's #viewer mirrors the component's state; window.citeflowTimings and
// window.citeflowFirstRender are what `citeflow bench reader` reads.
"use strict";

(() => {
  const root = document.getElementById("viewer");
  const answer = document.createElement("citeflow-answer");
  answer.id = "citeflow-answer";
  if (CiteflowApi.key) answer.apiKey = CiteflowApi.key;
  answer.setAttribute("answer-id", root.dataset.answerId);
  window.citeflowTimings = answer.timings;
  answer.addEventListener("citeflow-ready", (event) => {
    CiteflowApi.showTenant(answer.tenant);
    window.citeflowFirstRender = event.detail.firstRender;
    root.dataset.state = "ready";
  });
  answer.addEventListener("citeflow-error", () => { root.dataset.state = "error"; });
  root.append(answer);
})();

// Opened from the dashboard, the viewer carries its filters: the dashboard link returns there.
if (location.search) {
  for (const link of document.querySelectorAll("header.bar a[href='/dashboard']")) {
    link.href = "/dashboard" + location.search;
  }
}
