/**
 * The render pool (issue 30): pages/s rendered and peak memory with `--render-pool 2` (or argv[2]) on this
 * box. A web of app-shell pages on many hosts (each page's script builds 20 links and loads 10 more from
 * JSON), served by the test web through its proxy; each page fetched by the crawler's fetcher, then
 * rendered by the real pool with every request routed through the crawler (its host's gap honoured, the
 * script from the cache after the host's first page). Hosts are rendered 8 at a time, so the pool is never
 * short of work and the host gaps never idle it. Peak memory is sampled every 100 ms: Chromium's whole
 * process tree, and this process. Run: `bun bench/render.bench.ts [pool=2] [pages=120]`.
 */
import type { FetchResponse, FetchTask } from "../core/model/index.ts";
import { AddressPolicy } from "../core/net/index.ts";
import { HttpFetcher } from "../engine/fetch/http/index.ts";
import { ChromiumRenderer, RenderPool } from "../engine/render/index.ts";
import { treeRssBytes } from "../engine/render/browser-memory.ts";
import type { HostBehaviour } from "../tests/testweb/index.ts";
import { startTestWeb } from "../tests/testweb/index.ts";

const POOL = Number(process.argv[2] ?? 2);
const PAGES = Number(process.argv[3] ?? 120);
const HOSTS = 30;
const GAP_MS = 100;
const UA = "BenchCrawler/1.0 (+https://example.invalid/bot)";

const APP_JS = `const root = document.getElementById("root");
for (let i = 0; i < 20; i++) { const a = document.createElement("a"); a.href = "/p/" + i; a.textContent = "page " + i; root.appendChild(a); }
fetch("/api/list.json?" + location.pathname).then((r) => r.json()).then((l) => l.forEach((i) => { const a = document.createElement("a"); a.href = "/item/" + i; a.textContent = "item " + i; root.appendChild(a); }));`;

function appHost(): HostBehaviour {
  return {
    description: "bench app shell",
    robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
    serve(req, res, ctx) {
      const send = (type: string, body: string) => {
        res.setHeader("content-type", type);
        res.setHeader("content-length", Buffer.byteLength(body));
        res.end(body);
      };
      if (ctx.path === "/app.js") return send("text/javascript", APP_JS);
      if (ctx.path.startsWith("/api/list.json")) return send("application/json", JSON.stringify(Array.from({ length: 10 }, (_, i) => i)));
      send(
        "text/html; charset=utf-8",
        `<!doctype html><html><head><title>app</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`,
      );
    },
  };
}

const hosts = Array.from({ length: HOSTS }, (_, i) => `app${i}.test`);
const web = await startTestWeb({ hosts: 1, extraHosts: Object.fromEntries(hosts.map((h) => [h, appHost()])) });
const fetcher = new HttpFetcher({
  userAgent: UA,
  connectTimeoutMs: 5000,
  responseTimeoutMs: 20_000,
  maxBodyBytes: 5 * 1024 * 1024,
  proxyUrl: web.proxyUrl,
  addressPolicy: new AddressPolicy(),
  maxConcurrentRequests: 32,
});
const pool = new RenderPool({ size: POOL, memoryCapBytes: 4 * 1024 * 1024 * 1024 });
const now = () => performance.timeOrigin + performance.now();
const renderer = new ChromiumRenderer({
  pool,
  fetcher,
  addresses: new AddressPolicy(),
  userAgent: UA,
  deadlineMs: 15_000,
  settleMs: 200,
  screenshots: false,
  gap: { multiplier: 10, marginMs: 5 },
  now,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
});

let peakBrowser = 0;
let peakSelf = 0;
const sampler = setInterval(() => {
  const pid = pool.browserPid();
  if (pid !== undefined) peakBrowser = Math.max(peakBrowser, treeRssBytes(pid));
  peakSelf = Math.max(peakSelf, process.memoryUsage().rss);
}, 100);

// One page of each host at a time (its turn), hosts round-robin.
let next = 0;
let rendered = 0;
let links = 0;
let failed = 0;
const reasons = new Map<string, number>();
async function hostWorker(): Promise<void> {
  for (;;) {
    const i = next++;
    if (i >= PAGES) return;
    const host = hosts[i % HOSTS]!;
    const url = web.url(host, `/page/${i}`);
    const task: FetchTask = {
      taskId: `b${i}`,
      kind: "page",
      url,
      host,
      partition: 0,
      depth: 0,
      redirectHops: 0,
      hostGapMs: GAP_MS,
      issuedAt: now(),
      render: "always",
    };
    const response = (await fetcher.fetch({ url })) as FetchResponse;
    const out = await renderer.render(task, response);
    if (out.page.kind === "rendered") {
      rendered++;
      links += (out.page.dom.match(/<a /g) ?? []).length;
    } else {
      failed++;
      reasons.set(out.page.message, (reasons.get(out.page.message) ?? 0) + 1);
    }
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
}

// A first render launches the browser: not counted.
await renderer.render(
  {
    taskId: "warm",
    kind: "page",
    url: web.url(hosts[0]!, "/warm"),
    host: hosts[0]!,
    partition: 0,
    depth: 0,
    redirectHops: 0,
    hostGapMs: GAP_MS,
    issuedAt: now(),
  },
  (await fetcher.fetch({ url: web.url(hosts[0]!, "/warm") })) as FetchResponse,
);
const cpu0 = process.cpuUsage();
const t0 = now();
await Promise.all(Array.from({ length: 8 }, hostWorker));
const seconds = (now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
clearInterval(sampler);
const mib = (b: number) => (b / 1024 / 1024).toFixed(0);
console.log(
  `render pool ${POOL}: ${rendered} pages rendered in ${seconds.toFixed(1)} s = ${(rendered / seconds).toFixed(2)} pages/s; ${failed} failed ${JSON.stringify(Object.fromEntries(reasons))}; ${(links / Math.max(1, rendered)).toFixed(1)} links per page`,
);
console.log(
  `peak memory: Chromium (PSS of all its processes) ${mib(peakBrowser)} MiB, this process ${mib(peakSelf)} MiB; this process's CPU ${((cpu.user + cpu.system) / 1000 / Math.max(1, rendered)).toFixed(1)} ms per page`,
);
console.log(
  `requests to the web: ${web.requests.length} (${web.requests.filter((r) => r.path === "/app.js").length} of app.js: one per host, then cached)`,
);
await renderer.close();
await fetcher.close();
await web.close();
