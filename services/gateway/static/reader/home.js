// The gateway's front page (/): the latest answers, each a link to its viewer, read with
// the key from the URL fragment (CiteflowApi, common.js).
"use strict";

(async () => {
  const {get, element, key} = CiteflowApi;
  const list = document.getElementById("answers");
  const hint = document.getElementById("home-key");
  if (!key) {
    hint.hidden = false;
    return;
  }
  try {
    const page = await get("/v1/answers?limit=20");
    for (const item of page.items) {
      const row = element("li", {"data-answer-id": item.answer_id});
      row.append(element("a", {href: "/answers/" + encodeURIComponent(item.answer_id),
        dir: "auto"}, item.answer_id), " ", element("span", {class: "badge"}, item.status));
      if (item.model) row.append(element("span", {class: "badge", dir: "auto"}, item.model));
      list.append(row);
    }
    if (!page.items.length) list.append(element("li", {}, "no answers yet"));
  } catch (error) {
    list.append(element("li", {class: "error"}, "answers unavailable: " + error.message));
  }
})();
