// The dashboard (/dashboard): a live feed of results over GET /v1/stream (read with fetch so
// the key travels in the Authorization header; resumed with Last-Event-ID after any drop),
// charts over time per model and tenant from GET /v1/stats, and pipeline health
// (consumer lag per stage from GET /v1/pipeline, rejections and dead letters by reason).
"use strict";

(() => {
  const {get, element, key} = CiteflowApi;
  const feed = document.getElementById("feed");
  const connection = document.getElementById("connection");
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = ["#2f5fd0", "#d0622f", "#1a7f37", "#8a3ffc", "#b3261e", "#00838f"];
  const MAX_ROWS = 200;
  const WINDOW_SECONDS = 6 * 3600;
  let lastEventId = null;
  window.citeflowFeed = [];

  // ---- live feed --------------------------------------------------------------------------
  function markers(summary) {
    const found = [];
    if (!summary) return found;
    if (summary.invalid_citations) found.push(["bad", summary.invalid_citations + " invalid"]);
    if (summary.uncited_sentences) found.push(["warn", summary.uncited_sentences + " uncited"]);
    if (summary.downgraded_quotes) found.push(["warn", summary.downgraded_quotes + " downgraded"]);
    if (summary.coverage !== null && summary.coverage !== undefined && summary.coverage < 0.5) {
      found.push(["warn", "coverage " + Math.round(summary.coverage * 100) + "%"]);
    }
    return found;
  }

  function hasRow(answerId) {
    for (const old of feed.querySelectorAll("li")) {
      if (old.dataset.answerId === answerId) return true;
    }
    return false;
  }

  // A row for `item`: at the top (live), or at the bottom (`older`, from the listing).
  function addRow(kind, item, older = false) {
    window.citeflowFeed.push(item.answer_id);
    for (const old of feed.querySelectorAll("li")) {
      if (old.dataset.answerId === item.answer_id) old.remove();  // the newest status wins
    }
    const row = element("li", {"data-answer-id": item.answer_id, "data-status": kind});
    const link = element("a", {href: "/answers/" + encodeURIComponent(item.answer_id),
      dir: "auto"}, item.answer_id);
    row.append(link, element("span", {class: "badge"}, kind));
    if (item.model) row.append(element("span", {class: "badge", dir: "auto"}, item.model));
    const language = (item.summary && item.summary.language) || item.language;
    if (language) row.append(element("span", {class: "badge", lang: "en", dir: "auto"}, language));
    if (kind !== "formatted") {
      row.append(element("span", {class: "badge bad", dir: "auto"}, item.reason || kind));
    }
    for (const [level, text] of markers(item.summary)) {
      row.append(element("span", {class: "badge " + level}, text));
    }
    if (older) feed.append(row); else feed.prepend(row);
    while (feed.children.length > MAX_ROWS) feed.lastElementChild.remove();
  }

  function dispatch(block) {
    let event = "message", data = "", id = null;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data += (data ? "\n" : "") + value;
      else if (field === "id") id = value;
    }
    if (id !== null) lastEventId = id;
    if (!data || !["formatted", "rejected", "dead_lettered"].includes(event)) return;
    try { addRow(event, JSON.parse(data)); } catch (e) { /* not JSON: ignored */ }
  }

  // The latest answers, listed once the stream is connected (so nothing falls between the
  // listing and the stream): below the live rows, skipping answers the stream already showed
  // (its status is newer).
  async function recent() {
    try {
      const page = await get("/v1/answers?limit=20");
      for (const item of page.items) {
        if (!hasRow(item.answer_id)) addRow(item.status, item, true);
      }
    } catch (error) { /* the live feed still works */ }
  }

  async function stream() {
    let pause = 500;
    let listed = false;
    for (;;) {
      try {
        const headers = {Accept: "text/event-stream"};
        if (key) headers.Authorization = "Bearer " + key;
        if (lastEventId) headers["Last-Event-ID"] = lastEventId;
        window.citeflowResumedFrom = lastEventId;
        const response = await fetch("/v1/stream?include=rejected,dead_lettered", {headers});
        if (!response.ok) throw new Error(String(response.status));
        if (!listed) { listed = true; recent(); }
        connection.textContent = "live";
        connection.dataset.state = "live";
        pause = 500;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            dispatch(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch (error) { /* reconnect below */ }
      if (!listed) { listed = true; recent(); }  // no stream (yet): the listing alone
      connection.textContent = "reconnecting…";
      connection.dataset.state = "reconnecting";
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 5000);
    }
  }

  // ---- charts -----------------------------------------------------------------------------
  function svg(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    return node;
  }

  // Time series with uPlot (vendored by `make vendor`, served under /static/vendor/): the
  // series' points aligned on the union of their times (null where a series has none).
  function lineChart(container, series, format, windowSeconds) {
    const title = container.closest("section.tile").querySelector("h2").textContent;
    container.replaceChildren();
    if (!series.some((s) => s.points.length)) {
      container.append(element("p", {}, "no data in the last 6 hours"));
      return;
    }
    if (typeof uPlot === "undefined") {
      container.append(element("p", {class: "error"}, "charts unavailable (make vendor)"));
      return;
    }
    const times = Array.from(new Set(series.flatMap((s) => s.points.map((p) => p[0]))))
      .sort((a, b) => a - b);
    const columns = series.map((s) => {
      const byTime = new Map(s.points);
      return times.map((t) => (byTime.has(t) ? byTime.get(t) : null));
    });
    const percent = format === "%";
    const options = {
      width: Math.max(280, container.clientWidth), height: 200,
      scales: {
        // The stats' whole window (one bucket alone would otherwise span years).
        x: windowSeconds ? {time: true, range: () => {
          const now = Date.now() / 1000;
          return [now - windowSeconds, now];
        }} : {time: true},
        y: {range: (u, min, max) => [0, Math.max(max, percent ? 0.05 : 1)]},
      },
      series: [{}, ...series.map((s, i) => ({
        label: s.name || "(none)", stroke: COLOURS[i % COLOURS.length], width: 2,
        points: {show: true, size: 5}, spanGaps: true,
        value: (u, v) => (v === null ? "–" : percent ? (v * 100).toFixed(1) + "%" : String(v)),
      }))],
      axes: [{}, {values: (u, ticks) => ticks.map((v) => (percent
        ? Math.round(v * 100) + "%" : String(v)))}],
    };
    new uPlot(options, [times.map((t) => t / 1000), ...columns], container);
    container.setAttribute("role", "img");
    container.setAttribute("aria-label", title + ": " + series.map((s) => (s.name || "(none)")
      + " latest " + (s.points.length ? s.points[s.points.length - 1][1] : "none")).join(", "));
  }

  function series(groups, field) {
    const byKey = new Map();
    for (const g of groups) {
      if (g.bucket_start === null || g[field] === null || g[field] === undefined) continue;
      if (!byKey.has(g.key)) byKey.set(g.key, []);
      byKey.get(g.key).push([Date.parse(g.bucket_start), g[field]]);
    }
    return Array.from(byKey, ([name, points]) => ({name,
      points: points.sort((a, b) => a[0] - b[0])}));
  }

  function bars(container, title, counts) {
    const entries = Object.entries(counts || {}).sort((a, b) => b[1] - a[1]);
    container.append(element("h3", {}, title));
    if (!entries.length) { container.append(element("p", {}, "none")); return; }
    const max = Math.max(...entries.map((e) => e[1]));
    const chart = svg("svg", {viewBox: `0 0 400 ${entries.length * 18}`, class: "chart",
      role: "img", "aria-label": title});
    entries.forEach(([reason, count], i) => {
      chart.append(svg("rect", {x: 150, y: i * 18 + 3, height: 12,
        width: Math.max(2, 220 * count / max), class: "bar-fill"}));
      const text = svg("text", {x: 0, y: i * 18 + 13});
      text.textContent = reason + " (" + count + ")";
      chart.append(text);
    });
    container.append(chart);
  }

  async function charts() {
    try {
      const byModel = await get("/v1/stats?group_by=model&window=6h&bucket=10m");
      const byTenant = await get("/v1/stats?group_by=tenant&window=6h&bucket=10m");
      const overall = await get("/v1/stats?group_by=none&window=6h");
      const byLanguage = await get("/v1/stats?group_by=language&window=6h");
      const list = (r) => Array.isArray(r) ? r : (r.groups || []);
      lineChart(document.getElementById("chart-invalid"),
        series(list(byModel), "invalid_citation_rate"), "%", WINDOW_SECONDS);
      lineChart(document.getElementById("chart-coverage"),
        series(list(byModel), "mean_coverage"), "%", WINDOW_SECONDS);
      // Support: ALCE citation recall and precision from the support verdicts.
      const named = (all, suffix) => all.map((s) => ({...s, name: s.name + " " + suffix}));
      lineChart(document.getElementById("chart-support"),
        named(series(list(byModel), "citation_recall"), "recall").concat(
          named(series(list(byModel), "citation_precision"), "precision")),
        "%", WINDOW_SECONDS);
      lineChart(document.getElementById("chart-tenants"), series(list(byTenant), "answers"),
        "", WINDOW_SECONDS);
      const languages = document.getElementById("languages");
      languages.replaceChildren();
      const perLanguage = {};
      for (const group of list(byLanguage)) {
        const recall = group.citation_recall == null ? "" :
          " · recall " + Math.round(group.citation_recall * 100) + "%";
        perLanguage[(group.key || "not detected") + recall] = group.answers;
      }
      bars(languages, "Answers per language", perLanguage);
      const health = document.getElementById("health");
      health.replaceChildren();
      const total = list(overall)[0] || {};
      bars(health, "Rejections by reason", total.rejections);
      bars(health, "Dead letters by reason", total.dead_letters);
    } catch (error) {
      document.getElementById("health").replaceChildren(
        element("p", {class: "error"}, "statistics unavailable: " + error.message));
    }
  }

  // ---- pipeline health: consumer lag per stage over time, dead-letter topics --------------
  const lagHistory = new Map();  // stage -> [[time, lag]]
  const HISTORY = 120;

  async function pipeline() {
    const box = document.getElementById("lag");
    let health;
    try {
      health = await get("/v1/pipeline");
    } catch (error) {
      box.replaceChildren(element("p", {class: "error"}, "lag unavailable: " + error.message));
      return;
    }
    const now = Date.now();
    for (const s of health.stages) {
      if (!lagHistory.has(s.stage)) lagHistory.set(s.stage, []);
      const points = lagHistory.get(s.stage);
      points.push([now, s.lag]);
      if (points.length > HISTORY) points.shift();
    }
    const chart = element("div", {});
    box.replaceChildren(chart);
    lineChart(chart, Array.from(lagHistory, ([name, points]) => ({name, points})));
    const table = element("table", {class: "health"});
    const head = element("tr", {});
    for (const title of ["stage", "lag (records)", "dead-letter records"]) {
      head.append(element("th", {}, title));
    }
    table.append(head);
    for (const s of health.stages) {
      const row = element("tr", {"data-stage": s.stage});
      row.append(element("td", {}, s.stage), element("td", {}, String(s.lag)),
        element("td", {class: s.dead_letters ? "error" : ""}, String(s.dead_letters)));
      table.append(row);
    }
    box.append(table);
  }

  stream();
  charts();
  pipeline();
  setInterval(charts, 30000);
  setInterval(pipeline, 5000);
})();
