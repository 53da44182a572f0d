// The dashboard page of the coordinator's admin API and of `crawl --http`: plain script, no build step, no
// third-party code. It reads /dashboard/config.json (is a token needed?), keeps the token the operator types
// in this tab's sessionStorage (never in the URL), and polls GET /v1/dashboard every two seconds with it as
// a bearer header, redrawing tiles, charts and tables from the JSON (core/dashboard's Dashboard shape). The
// host and URL boxes call GET /v1/hosts/:host and GET /v1/urls/explain. A 401 brings the login form back.
"use strict";

(() => {
  const TOKEN_KEY = "crawler.dashboard.token";
  const POLL_MS = 2000;
  const $ = (id) => document.getElementById(id);
  let config = { tokenRequired: true, source: "" };
  let timer;
  let polling = false;

  // ---- token and requests --------------------------------------------------------------------------

  const token = () => sessionStorage.getItem(TOKEN_KEY) || "";

  async function api(path) {
    const headers = { Accept: "application/json" };
    if (token()) headers.Authorization = `Bearer ${token()}`;
    const res = await fetch(path, { headers, cache: "no-store" });
    let body = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (res.status === 401) throw new AuthError(body?.error?.message || "token refused");
    if (!res.ok) throw new Error(body?.error?.message || `${res.status} ${res.statusText}`);
    return body;
  }

  class AuthError extends Error {}

  function showLogin(message) {
    stop();
    $("main").hidden = true;
    $("logout").hidden = true;
    $("login").hidden = false;
    $("login-error").textContent = message || "";
    $("status").textContent = "token needed";
    $("token").focus();
  }

  function showMain() {
    $("login").hidden = true;
    $("main").hidden = false;
    $("logout").hidden = !config.tokenRequired;
  }

  $("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("token").value.trim();
    if (!value) return;
    sessionStorage.setItem(TOKEN_KEY, value);
    $("token").value = "";
    start(true);
  });

  $("logout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin("");
  });

  // ---- polling ---------------------------------------------------------------------------------------

  function stop() {
    polling = false;
    clearTimeout(timer);
  }

  async function start(fromLogin) {
    stop();
    polling = true;
    await tick(fromLogin);
  }

  async function tick(fromLogin) {
    if (!polling) return;
    try {
      const d = await api("/v1/dashboard");
      showMain();
      render(d);
      $("status").textContent = `updated ${new Date(d.at).toLocaleTimeString()}`;
    } catch (error) {
      if (error instanceof AuthError) {
        sessionStorage.removeItem(TOKEN_KEY);
        showLogin(fromLogin ? `Token refused: ${error.message}` : "");
        return;
      }
      $("status").textContent = `cannot reach the API: ${error.message}; retrying`;
    }
    if (polling) timer = setTimeout(() => tick(false), POLL_MS);
  }

  // ---- formatting ------------------------------------------------------------------------------------

  const num = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : "–");
  function bytes(n) {
    if (!(n > 0)) return "0 B";
    const units = ["B", "KB", "MB", "GB", "TB"];
    let i = 0;
    while (n >= 1000 && i < units.length - 1) {
      n /= 1000;
      i++;
    }
    return `${n.toFixed(n < 10 && i > 0 ? 1 : 0)} ${units[i]}`;
  }
  function duration(ms) {
    if (!(ms > 0)) return "0";
    if (ms < 1000) return `${Math.round(ms)} ms`;
    if (ms < 120_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
    if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
    return `${(ms / 3_600_000).toFixed(1)} h`;
  }
  function until(at, now) {
    if (!(at > 0)) return "–";
    const d = at - now;
    return d <= 0 ? "now" : `in ${duration(d)}`;
  }
  function seconds(v, name) {
    return name.endsWith("-bytes") ? bytes(v) : duration(v * 1000);
  }
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }
  function fillRows(tableId, rows, columns) {
    const body = $(tableId).tBodies[0];
    body.replaceChildren();
    if (rows.length === 0) {
      body.append(el("tr", {}, el("td", { class: "empty", colspan: String(columns) }, "none")));
      return;
    }
    for (const cells of rows) body.append(el("tr", {}, ...cells.map((c) => (c instanceof Node ? c : el("td", {}, c)))));
  }

  // ---- rendering -------------------------------------------------------------------------------------

  function render(d) {
    $("source").textContent = d.source === "crawl" ? "crawl" : "cluster";
    document.title = `crawler ${d.source} dashboard`;
    $("pages-total").textContent = num(d.totals.pages);
    $("pages-rate").textContent = d.totals.pagesPerSecond.toFixed(1);
    $("bytes-rate").textContent = `${bytes(d.totals.bytesPerSecond)}/s`;
    $("queued").textContent = num(d.totals.queued);
    $("in-flight").textContent = num(d.totals.inFlight);
    $("errors").textContent = num(d.totals.errors);
    renderRates(d.rates);
    renderOutcomes(d.outcomes);
    renderPoliteness(d.politeness, d.feeds);
    renderRendering(d.rendering);
    renderDistributions(d.histograms, d.distributions);
    renderNodes(d.nodes);
    renderJobs(d.jobs);
    renderRing(d.ring);
    renderHosts(d.hosts, d.at);
  }

  function renderRates(points) {
    $("rate-charts").replaceChildren(
      ...lineChart(points, (p) => p.pagesPerSecond, "pages/s", (v) => v.toFixed(1), "line", "pages"),
      ...lineChart(points, (p) => p.bytesPerSecond, "bytes stored/s", (v) => `${bytes(v)}/s`, "line bytes", "bytes"),
    );
  }

  // A polyline over the points' time span, scaled to its peak; the caption (HTML, so it is not stretched) says now and peak.
  function lineChart(points, value, label, fmt, cls, name) {
    const W = 600;
    const H = 100;
    const pad = 3;
    const chart = svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img", "aria-label": label, "data-chart": name });
    chart.append(svg("line", { class: "axis", x1: 0, y1: H - pad, x2: W, y2: H - pad }));
    const max = Math.max(1e-9, ...points.map(value));
    if (points.length > 1) {
      const t0 = points[0].at;
      const span = Math.max(1, points[points.length - 1].at - t0);
      const coords = points.map((p) => `${(((p.at - t0) / span) * W).toFixed(1)},${(H - pad - (value(p) / max) * (H - 2 * pad)).toFixed(1)}`);
      chart.append(svg("polyline", { class: cls, points: coords.join(" "), "vector-effect": "non-scaling-stroke" }));
    }
    const last = points.length > 0 ? value(points[points.length - 1]) : 0;
    const minutes = points.length > 1 ? Math.max(1, Math.round((points[points.length - 1].at - points[0].at) / 60_000)) : 0;
    const caption = el("p", { class: "chart-caption" }, `${label}: now ${fmt(last)}, peak ${fmt(points.length ? max : 0)}${minutes ? `, last ${minutes} min` : ""}`);
    return [caption, chart];
  }

  const OUTCOME_CLASS = { "4xx": "warn", "5xx": "bad", timeout: "bad", dns: "bad", "other-error": "bad", trap: "warn", "robots-denied": "warn" };

  function renderOutcomes(outcomes) {
    const entries = Object.entries(outcomes);
    const max = Math.max(1, ...entries.map(([, n]) => n));
    $("outcomes").replaceChildren(
      ...entries.map(([kind, n]) => {
        const fill = el("div", { class: `fill ${OUTCOME_CLASS[kind] || ""}` });
        fill.style.width = `${(n / max) * 100}%`;
        return el("div", { class: "bar", "data-kind": kind }, el("span", {}, kind), el("div", { class: "track" }, fill), el("span", { class: "n" }, num(n)));
      }),
    );
  }

  function renderPoliteness(p, feeds) {
    const facts = [
      ["active hosts", num(p.activeHosts)],
      ["largest gap", p.largestGapHost ? `${duration(p.largestGapMs)} (${p.largestGapHost})` : "–"],
      ["throttled hosts", num(p.throttledHosts)],
      ["parked by robots.txt", num(p.parkedHosts)],
      ["requests that waited for a gap", num(p.waitedForGap)],
      ["requests that waited for their server", num(p.waitedForServer)],
      ["given back, server at its cap", num(p.givenBackForServer)],
    ];
    if (feeds) facts.push(["feeds read (items)", `${num(feeds.read)} (${num(feeds.items)})`], ["feeds unchanged (304)", num(feeds.notModified || 0)]);
    $("politeness").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-fact": k }, v)]));
  }

  function renderRendering(r) {
    const facts = [
      ["render pool", r.poolSize > 0 ? `${num(r.poolSize)} pages at once` : "off"],
      ["pages rendered", num(r.rendered)],
      ["judged not script-built", num(r.asReceived)],
      ["links found only by rendering", num(r.linksFound)],
      ["failed renders", num(r.failed)],
      ["browser restarts", num(r.browserRestarts)],
    ];
    $("rendering").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-fact": k }, v)]));
  }

  const DIST_TITLES = {
    "fetch.duration-seconds": "fetch duration",
    "fetch.page-bytes": "page size",
    "frontier.queue-wait-seconds": "queue wait",
    "politeness.gap-wait-seconds": "gap waited",
    "fetcher.duration-seconds": "fetch duration (fetch nodes)",
    "fetcher.page-bytes": "page size (fetch nodes)",
  };

  function renderDistributions(summaries, raw) {
    const names = Object.keys(DIST_TITLES).filter((n) => summaries[n]);
    if (names.length === 0) {
      $("distributions").replaceChildren(el("p", { class: "muted" }, "nothing measured yet"));
      return;
    }
    $("distributions").replaceChildren(
      ...names.map((name) => {
        const s = summaries[name];
        const h = raw[name];
        const bars = svg("svg", { viewBox: `0 0 ${h.counts.length * 10} 30`, preserveAspectRatio: "none", role: "img", "aria-label": `${DIST_TITLES[name]} buckets` });
        const max = Math.max(1, ...h.counts);
        h.counts.forEach((c, i) => {
          const hgt = (c / max) * 30;
          const rect = svg("rect", { x: i * 10 + 1, y: 30 - hgt, width: 8, height: hgt });
          const tip = svg("title", {});
          tip.textContent = `≤ ${i < h.bounds.length ? seconds(h.bounds[i], name) : "∞"}: ${c}`;
          rect.append(tip);
          bars.append(rect);
        });
        return el(
          "div",
          { class: "dist", "data-histogram": name },
          el("h3", {}, DIST_TITLES[name]),
          el("div", { class: "q" }, `p50 ${seconds(s.p50, name)} · p90 ${seconds(s.p90, name)} · p99 ${seconds(s.p99, name)} · n ${num(s.count)}`),
          bars,
        );
      }),
    );
  }

  function renderNodes(nodes) {
    fillRows(
      "nodes",
      nodes.map((n) => [
        n.region,
        n.id,
        n.role,
        el("td", { class: `state-${n.state}` }, n.state),
        num(n.partitions),
        num(n.inFlight),
        num(n.queued),
        num(n.scheduled),
        num(n.activeHosts),
        num(n.pages),
        `${(n.heartbeatAgeMs / 1000).toFixed(1)} s ago`,
      ]),
      11,
    );
  }

  // The first rows of the crawl jobs (the API cuts them) and a line saying how many more there are.
  function renderJobs(jobs) {
    fillRows(
      "jobs",
      jobs.rows.map((j) => [
        j.id,
        el("td", { class: `state-${j.state}` }, j.state),
        j.maxPages > 0 ? `${num(j.pages)} / ${num(j.maxPages)}` : num(j.pages),
        num(j.queued),
        num(j.errors),
        j.reason || "",
      ]),
      6,
    );
    $("jobs-more").textContent = jobs.more > 0 ? `${num(jobs.more)} more` : "";
  }

  const PALETTE = ["#2f6fdf", "#d9822b", "#2e8b57", "#9b59b6", "#c23b3b", "#16a2b8", "#8c6d31", "#e377c2", "#7f7f7f", "#17becf"];

  function renderRing(ring) {
    const panel = $("ring-panel");
    if (!ring) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const owners = [...new Set(ring.regions.flatMap((r) => r.owners).filter(Boolean))].sort();
    const colour = (id) => (id ? PALETTE[owners.indexOf(id) % PALETTE.length] : "#dde1e8");
    $("ring").replaceChildren(
      el("p", { class: "muted" }, `epoch ${ring.epoch}, ${ring.partitions} partitions per region`),
      ...ring.regions.map((r) => {
        const moving = new Set(r.moves.map((m) => m.partition));
        const cells = el("div", { class: "ring-cells" });
        r.owners.forEach((owner, p) => {
          const cell = el("span", { class: moving.has(p) ? "moving" : "", title: `partition ${p}: ${owner || "no owner"}` });
          cell.style.background = colour(owner);
          cells.append(cell);
        });
        const counts = {};
        for (const o of r.owners) counts[o || "(none)"] = (counts[o || "(none)"] || 0) + 1;
        const legend = el("div", { class: "legend" });
        for (const [id, n] of Object.entries(counts)) {
          const sw = el("span", { class: "swatch" });
          sw.style.background = colour(id === "(none)" ? "" : id);
          legend.append(sw, `${id}: ${n}`);
        }
        const moves =
          r.moves.length === 0
            ? el("p", { class: "muted" }, "no partition moving")
            : el("p", {}, `${r.moves.length} moving: ${r.moves.slice(0, 12).map((m) => `${m.partition} ${m.from}→${m.to}`).join(", ")}${r.moves.length > 12 ? ", …" : ""}`);
        return el("div", { class: "ring-region", "data-region": r.region }, el("h3", {}, r.region), cells, legend, moves);
      }),
    );
  }

  function renderHosts(hosts, now) {
    fillRows(
      "hosts-slowest",
      hosts.slowest.map((h) => [h.host, duration(h.fetchMs), duration(h.gapMs), until(h.nextAllowedAt, now), num(h.queued), h.node || ""]),
      6,
    );
    fillRows(
      "hosts-throttled",
      hosts.throttled.map((h) => [h.host, duration(h.throttleMs), num(h.throttles), duration(h.gapMs), until(h.nextAllowedAt, now), h.node || ""]),
      6,
    );
    fillRows(
      "hosts-parked",
      hosts.parked.map((h) => [h.host, until(h.robotsExpiresAt, now), h.lastStatus ? String(h.lastStatus) : h.lastError || "–", num(h.queued), h.node || ""]),
      5,
    );
    fillRows(
      "hosts-addresses",
      (hosts.addresses || []).map((a) => [a.server, num(a.passes), num(a.waits), num(a.givenBack), duration(a.longestWaitMs)]),
      5,
    );
  }

  // ---- host and URL search ---------------------------------------------------------------------------

  function facts(obj) {
    return el("dl", { class: "facts" }, ...Object.entries(obj).flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-field": k }, typeof v === "number" && /At(Ms)?$/.test(k) && v > 0 ? `${new Date(v).toLocaleString()} (${until(v, Date.now())})` : String(v))]));
  }

  async function search(form, input, result, path) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const q = $(input).value.trim();
      if (!q) return;
      $(result).replaceChildren(el("p", { class: "muted" }, "asking…"));
      try {
        const body = await api(path(q));
        $(result).replaceChildren(facts(body.host || body.explanation || body));
      } catch (error) {
        if (error instanceof AuthError) return showLogin("Token refused; sign in again");
        $(result).replaceChildren(el("p", { class: "bad", role: "alert" }, error.message));
      }
    });
  }

  search($("host-search"), "host-query", "host-result", (q) => `/v1/hosts/${encodeURIComponent(q)}`);
  search($("url-search"), "url-query", "url-result", (q) => `/v1/urls/explain?url=${encodeURIComponent(q)}`);

  // ---- start -----------------------------------------------------------------------------------------

  fetch("/dashboard/config.json", { cache: "no-store" })
    .then((res) => res.json())
    .then((c) => {
      config = c;
      if (config.tokenRequired && !token()) showLogin("");
      else start(false);
    })
    .catch((error) => {
      $("status").textContent = `cannot load the dashboard's settings: ${error.message}`;
    });
})();
