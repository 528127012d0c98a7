// The dashboard (/dashboard): the headline rates per model now against the previous period,
// the worst recent answers (each a link to its viewer), rates over time in buckets, all
// filtered by model, tenant and language (kept in the query string and carried into the
// viewer links), from GET /v1/stats and GET /v1/answers; a live feed of results over
// GET /v1/stream (read with fetch so the key travels in the Authorization header; resumed
// with Last-Event-ID after any drop), and pipeline health (consumer lag per stage from
// GET /v1/pipeline, rejections and dead letters by reason).
"use strict";

(() => {
  const {get, element, key} = CiteflowApi;
  const feed = document.getElementById("feed");
  const connection = document.getElementById("connection");
    const COLOURS = ["#2f5fd0", "#d0622f", "#1a7f37", "#8a3ffc", "#b3261e", "#00838f"];
  const MAX_ROWS = 200;
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

  // The gateway writes a comment to an idle stream every 15 s: a stream silent for three of
  // those is half-open (a network that went away without closing it: a laptop's sleep, a
  // proxy that dropped it) and is dropped and opened again from the last event id.
  const SILENCE_MS = 45000;

  async function stream() {
    let pause = 500;
    let listed = false;
    for (;;) {
      const silence = new AbortController();
      let watchdog = 0;
      const rearm = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => silence.abort(), SILENCE_MS);
      };
      rearm();
      try {
        const headers = {Accept: "text/event-stream"};
        if (key) headers.Authorization = "Bearer " + key;
        if (lastEventId) headers["Last-Event-ID"] = lastEventId;
        window.citeflowResumedFrom = lastEventId;
        const response = await fetch("/v1/stream?include=rejected,dead_lettered",
                                      {headers, signal: silence.signal});
        if (!response.ok) throw new Error(String(response.status));
        if (!listed) { listed = true; recent(); }
        connection.textContent = "live";
        connection.dataset.state = "live";
        pause = 500;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const {value, done} = await reader.read();
          rearm();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            dispatch(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch (error) { /* reconnect below */ } finally { clearTimeout(watchdog); }
      if (!listed) { listed = true; recent(); }  // no stream (yet): the listing alone
      connection.textContent = "reconnecting…";
      connection.dataset.state = "reconnecting";
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 5000);
    }
  }

  // ---- filters (kept in the page's query string: a filtered view is a link) ---------------
  const FILTERS = ["model", "tenant", "language"];
  const BUCKETS = {"6h": "15m", "24h": "1h", "7d": "6h"};
  const form = document.getElementById("filters");

  function chosen() {
    const params = new URLSearchParams(location.search);
    const found = {window: BUCKETS[params.get("window")] ? params.get("window") : "6h"};
    for (const name of FILTERS) if (params.get(name)) found[name] = params.get(name);
    return found;
  }

  // The query of a stats or listing call: the chosen filters and `extra`.
  function query(extra) {
    const {window: span, ...filters} = chosen();
    return new URLSearchParams({...filters, window: span, ...extra}).toString();
  }

  // The filters a link to an answer's viewer carries (its way back to this view).
  function carried() {
    const params = new URLSearchParams(chosen());
    return params.toString() ? "?" + params : "";
  }

  function fillOptions(select, keys) {
    const current = chosen()[select.name] || "";
    for (const key of new Set([...keys.filter(Boolean), current].filter(Boolean))) {
      if (!select.querySelector(`option[value="${CSS.escape(key)}"]`)) {
        select.append(element("option", {value: key, dir: "auto"}, key));
      }
    }
    select.value = current;
  }

  form.addEventListener("change", () => {
    const params = new URLSearchParams();
    for (const select of form.querySelectorAll("select")) {
      if (select.value) params.set(select.name, select.value);
    }
    history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
    charts();
  });

  // ---- charts -----------------------------------------------------------------------------
  const list = (r) => Array.isArray(r) ? r : (r.groups || []);
  const percent = (v) => (v === null || v === undefined ? "–" : Math.round(v * 100) + "%");
  window.citeflowCharts = {};

  // Time series with uPlot (vendored by `make vendor`, served under /static/vendor/): the
  // series' points aligned on the union of their times (null where a series has none). The
  // legend names the series without hovering; counts get whole-number ticks.
  function lineChart(container, series, format, windowSeconds) {
    const title = container.closest("section.tile").querySelector("h2").textContent;
    container.replaceChildren();
    if (!series.some((s) => s.points.length)) {
      container.append(element("p", {}, "no data in this period"));
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
    const rate = format === "%";
    const options = {
      width: Math.max(280, container.clientWidth), height: 180,
      legend: {live: false},
      scales: {
        // The stats' whole window (one bucket alone would otherwise span years).
        x: windowSeconds ? {time: true, range: () => {
          const now = Date.now() / 1000;
          return [now - windowSeconds, now];
        }} : {time: true},
        y: {range: (u, min, max) => (rate ? [0, 1] : [0, Math.max(1, Math.ceil(max))])},
      },
      series: [{}, ...series.map((s, i) => ({
        label: s.name || "(none)", stroke: COLOURS[i % COLOURS.length], width: 2,
        points: {show: true, size: 6}, spanGaps: true,
      }))],
      axes: [{}, rate
        ? {values: (u, ticks) => ticks.map((v) => Math.round(v * 100) + "%")}
        : {incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
          values: (u, ticks) => ticks.map((v) => String(Math.round(v)))}],
    };
    window.citeflowCharts[container.id] = new uPlot(
      options, [times.map((t) => t / 1000), ...columns], container);
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
    return Array.from(byKey, ([name, points]) => ({
      name: name === null ? null : CiteflowAnswer.visibleBidi(name),
      points: points.sort((a, b) => a[0] - b[0])}));
  }

  // A table of labelled counts with a bar each, as tall as its rows.
  function bars(container, title, counts, detail) {
    const entries = Object.entries(counts || {}).sort((a, b) => b[1] - a[1]);
    container.append(element("h3", {}, title));
    if (!entries.length) { container.append(element("p", {class: "none"}, "none")); return; }
    const max = Math.max(...entries.map((e) => e[1]));
    const table = element("table", {class: "bars"});
    for (const [label, count] of entries) {
      const row = element("tr", {"data-key": label});
      const bar = element("span", {class: "bar"});
      bar.style.width = Math.max(2, 100 * count / max) + "%";  // CSSOM: allowed by the CSP
      const cell = element("td", {class: "bar-cell"});
      cell.append(bar);
      row.append(element("th", {dir: "auto"}, label), element("td", {class: "count"},
        String(count)), cell);
      if (detail) row.append(element("td", {class: "detail"}, detail(label) || ""));
      table.append(row);
    }
    container.append(table);
  }

  // The verdict mix of judged citations as one stacked bar: supported, partial,
  // unverifiable, unsupported (and, for answers stored before partial was counted apart,
  // the rest told apart by no one).
  const MIX = [["supported", "supported"], ["partial", "partial"],
    ["unverifiable", "unverifiable"], ["unsupported", "unsupported"],
    ["other", "partial or unverifiable (older answers)"]];

  function mixCounts(group) {
    const counts = {supported: group.supported_citations || 0,
      partial: group.partial_citations || 0, unverifiable: group.unverifiable_citations || 0,
      unsupported: group.unsupported_citations || 0};
    counts.other = Math.max(0, (group.judged_citations || 0) - counts.supported
      - counts.partial - counts.unverifiable - counts.unsupported);
    return counts;
  }

  function mix(group) {
    const judged = group.judged_citations || 0;
    const box = element("span", {class: "mix", role: "img"});
    if (!judged) { box.textContent = "not judged"; return box; }
    const counts = mixCounts(group);
    for (const [kind, label] of MIX) {
      if (!counts[kind]) continue;
      const part = element("span", {class: "mix-" + kind, "data-count": String(counts[kind]),
        title: label + ": " + counts[kind]});
      part.style.width = (100 * counts[kind] / judged) + "%";
      box.append(part);
    }
    box.setAttribute("aria-label", MIX.filter(([kind]) => counts[kind])
      .map(([kind, label]) => label + " " + counts[kind]).join(", "));
    return box;
  }

  // The rates of one group now, with the change since the previous period in points.
  const MEASURES = [
    ["support_rate", "supported", 1], ["invalid_citation_rate", "invalid citations", -1],
    ["mean_coverage", "coverage", 1]];

  function measureCell(now, before, field, better) {
    const value = now ? now[field] : null;
    const cell = element("td", {"data-measure": field,
      "data-now": value === null || value === undefined ? "" : String(value),
      "data-previous": before && before[field] !== null && before[field] !== undefined
        ? String(before[field]) : ""});
    cell.append(element("strong", {}, percent(value)));
    if (before && before[field] !== null && before[field] !== undefined && value !== null
        && value !== undefined) {
      const points = Math.round((value - before[field]) * 100);
      const verdict = points === 0 ? "same" : (points * better > 0 ? "better" : "worse");
      cell.append(element("span", {class: "delta " + verdict},
        (points > 0 ? "▲ +" + points + " pts" : points < 0 ? "▼ −" + -points + " pts" : "=")
        + " (was " + percent(before[field]) + ")"));
    } else {
      cell.append(element("span", {class: "delta"}, "no previous data"));
    }
    return cell;
  }

  function headline(overall, byModel) {
    const box = document.getElementById("headline");
    const table = element("table", {class: "headline"});
    const head = element("tr", {});
    for (const title of ["model", "answers", ...MEASURES.map((m) => m[1]), "verdict mix"]) {
      head.append(element("th", {}, title));
    }
    table.append(head);
    const previous = new Map(list(byModel.previous || {}).map((g) => [g.key, g]));
    const overallBefore = list(overall.previous || {})[0];
    const rows = [["all models", list(overall)[0], overallBefore, ""],
      ...list(byModel).map((g) => [g.key || "(none)", g, previous.get(g.key), g.key || ""])];
    for (const [name, now, before, model] of rows) {
      if (!now) continue;
      const row = element("tr", {"data-model": name});
      // A model's name narrows the whole view to it (the filter, as a link).
      const narrowed = new URLSearchParams(chosen());
      if (model) narrowed.set("model", model); else narrowed.delete("model");
      const head = element("th", {});
      head.append(element("a", {href: "/dashboard?" + narrowed, dir: "auto"}, name));
      row.append(head, element("td", {"data-measure": "answers"},
        now.answers + (before ? " (was " + before.answers + ")" : "")));
      for (const [field, , better] of MEASURES) row.append(measureCell(now, before, field, better));
      const cell = element("td", {});
      cell.append(mix(now));
      row.append(cell);
      table.append(row);
    }
    const key = element("p", {class: "mix-key"});
    const older = rows.some((r) => r[1] && mixCounts(r[1]).other);
    for (const [kind, label] of MIX.filter(([kind]) => kind !== "other" || older)) {
      key.append(element("span", {class: "swatch mix-" + kind}), " " + label + "  ");
    }
    box.replaceChildren(rows.some((r) => r[1]) ? table : element("p", {},
      "no answers in this period"), key);
  }

  // The valid citations of an answer its source does not fully support (partial,
  // unsupported or unverifiable verdicts); 0 when it carries no verdicts.
  function notSupported(summary) {
    if (summary.supported_citations === null || summary.supported_citations === undefined) return 0;
    return Math.max(0, summary.citations - summary.invalid_citations
      - summary.supported_citations);
  }

  // How bad an answer looks from its summary: each citation not fully supported, each
  // invalid one (twice), each downgraded quote, the uncovered share of its sentences.
  function badness(summary) {
    if (!summary) return 0;
    return notSupported(summary) + 2 * (summary.invalid_citations || 0)
      + (summary.downgraded_quotes || 0)
      + (summary.coverage === null || summary.coverage === undefined ? 0 : 1 - summary.coverage);
  }

  async function worst(since) {
    const box = document.getElementById("worst");
    const page = await get("/v1/answers?" + new URLSearchParams({...Object.fromEntries(
      FILTERS.filter((f) => chosen()[f]).map((f) => [f, chosen()[f]])),
    status: "formatted", since, limit: "200"}));
    const ranked = page.items.filter((i) => badness(i.summary) > 0)
      .sort((a, b) => badness(b.summary) - badness(a.summary)).slice(0, 10);
    box.replaceChildren();
    if (!ranked.length) box.append(element("li", {class: "none"}, "no answer with problems"));
    for (const item of ranked) {
      const row = element("li", {"data-answer-id": item.answer_id});
      row.append(element("a", {href: "/answers/" + encodeURIComponent(item.answer_id)
        + carried(), dir: "auto"}, item.answer_id));
      if (item.model) row.append(element("span", {class: "badge", dir: "auto"}, item.model));
      const s = item.summary;
      if (notSupported(s)) {
        row.append(element("span", {class: "badge bad"}, notSupported(s) + " not supported"));
      }
      for (const [level, text] of markers(s)) {
        row.append(element("span", {class: "badge " + level}, text));
      }
      row.append(element("time", {datetime: item.submitted_at || ""},
        item.submitted_at ? new Date(item.submitted_at).toLocaleString() : ""));
      box.append(row);
    }
  }

  async function charts() {
    const {window: span} = chosen();
    const windowSeconds = {"6h": 6 * 3600, "24h": 86400, "7d": 7 * 86400}[span];
    const bucket = BUCKETS[span];
    try {
      const [overall, byModel, buckets, byTenant, byLanguage, everyModel, everyTenant,
        everyLanguage] = await Promise.all([
        get("/v1/stats?" + query({group_by: "none", compare: "previous"})),
        get("/v1/stats?" + query({group_by: "model", compare: "previous"})),
        get("/v1/stats?" + query({group_by: "model", bucket})),
        get("/v1/stats?" + query({group_by: "tenant", bucket})),
        get("/v1/stats?" + query({group_by: "language"})),
        get("/v1/stats?group_by=model&window=" + span),
        get("/v1/stats?group_by=tenant&window=" + span),
        get("/v1/stats?group_by=language&window=" + span)]);
      fillOptions(form.elements.model, list(everyModel).map((g) => g.key));
      fillOptions(form.elements.tenant, list(everyTenant).map((g) => g.key));
      fillOptions(form.elements.language, list(everyLanguage).map((g) => g.key));
      form.elements.window.value = span;
      headline(overall, byModel);
      lineChart(document.getElementById("chart-support"),
        series(list(buckets), "support_rate"), "%", windowSeconds);
      lineChart(document.getElementById("chart-invalid"),
        series(list(buckets), "invalid_citation_rate"), "%", windowSeconds);
      lineChart(document.getElementById("chart-coverage"),
        series(list(buckets), "mean_coverage"), "%", windowSeconds);
      lineChart(document.getElementById("chart-tenants"), series(list(byTenant), "answers"),
        "", windowSeconds);
      const languages = document.getElementById("languages");
      languages.replaceChildren();
      const perLanguage = {}, support = {};
      for (const group of list(byLanguage)) {
        const name = group.key || "not detected";
        perLanguage[name] = group.answers;
        if (group.support_rate !== null) support[name] = percent(group.support_rate) + " supported";
      }
      bars(languages, "Answers per language", perLanguage, (name) => support[name]);
      const health = document.getElementById("health");
      health.replaceChildren();
      const total = list(overall)[0] || {};
      bars(health, "Rejections by reason", total.rejections);
      bars(health, "Dead letters by reason", total.dead_letters);
      await worst(overall.since);
      document.getElementById("dashboard").dataset.state = "ready";
    } catch (error) {
      document.getElementById("headline").replaceChildren(
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
