/**
 * The render pool against the real test web (through its proxy, as the crawl reaches it) and Debian's
 * Chromium: links only scripts make, data loaded by fetch and XHR, every request the page makes answered
 * by the crawler (the page itself from memory, its host in the task's turn with the gap, nothing forbidden
 * or of another host), a page that never finishes loading, a tab that crashes, and a browser killed under
 * the pool. Fails (not skips) when Chromium is missing: the pool says so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FetchResponse, FetchTask } from "../../core/model/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import { startTestWeb, type TestWeb } from "../../tests/testweb/index.ts";
import { HttpFetcher } from "../fetch/http/index.ts";
import { extractPage } from "../fetch/parse/index.ts";
import { ChromiumRenderer, RenderPool } from "./index.ts";

const UA = "TestCrawler/1.0 (+https://example.invalid/bot)";
const GAP = 150;
let web: TestWeb;
let fetcher: HttpFetcher;
let pool: RenderPool;
let renderer: ChromiumRenderer;

beforeAll(async () => {
  web = await startTestWeb({ hosts: 1, special: true });
  fetcher = new HttpFetcher({
    userAgent: UA,
    connectTimeoutMs: 5000,
    responseTimeoutMs: 20_000,
    maxBodyBytes: 5 * 1024 * 1024,
    proxyUrl: web.proxyUrl,
    addressPolicy: new AddressPolicy(),
    maxConcurrentRequests: 8,
  });
  // robots.txt first, as the frontier has it read before any page of the host.
  await fetcher.fetch({ url: web.url("render.test", "/robots.txt") });
  await new Promise((r) => setTimeout(r, GAP * 2));
  pool = new RenderPool({ size: 2, memoryCapBytes: 2 * 1024 * 1024 * 1024 });
  renderer = new ChromiumRenderer({
    pool,
    fetcher,
    addresses: new AddressPolicy(),
    userAgent: UA,
    deadlineMs: 6000,
    settleMs: 300,
    screenshots: false,
    gap: { multiplier: 10, marginMs: 5 },
    now: () => performance.timeOrigin + performance.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
});

afterAll(async () => {
  await renderer?.close();
  await fetcher?.close();
  await web?.close();
});

let taskIds = 0;
function taskFor(path: string): FetchTask {
  return {
    taskId: `t${taskIds++}`,
    kind: "page",
    url: web.url("render.test", path),
    host: "render.test",
    partition: 0,
    depth: 0,
    redirectHops: 0,
    hostGapMs: GAP,
    issuedAt: Date.now(),
    render: "always",
    robotsText: "User-agent: *\nDisallow: /private/\n",
  };
}

/** The page fetched as the page task would, then rendered. */
async function fetchAndRender(path: string) {
  const task = taskFor(path);
  const before = web.requests.length;
  const response = (await fetcher.fetch({ url: task.url })) as FetchResponse;
  expect(response.kind).toBe("response");
  const out = await renderer.render(task, response);
  // The host's turn ends with the last request the render made to it, never before the page's own fetch.
  expect(out.host.endedAt).toBeGreaterThanOrEqual(response.endedAt);
  const requests = web.requests.slice(before);
  const links = out.page.kind === "rendered" ? extractPage(out.page.dom, task.url).links.map((l) => new URL(l.resolved!).pathname) : [];
  return { out, requests, links };
}

describe("render pool", () => {
  test("render pool - finds the links scripts build and load, and asks the host for each subresource once, politely", async () => {
    const { out, requests, links } = await fetchAndRender("/");
    expect(out.page.kind).toBe("rendered");
    expect(links.sort()).toEqual(["/app/one", "/app/two", "/crash", "/item/1", "/item/2", "/item/3", "/never-loads"]);
    // The page itself once (the page task's fetch, served to the browser from memory), then its own host only.
    expect(requests.map((r) => `${r.host}${r.path}`).sort()).toEqual(
      ["render.test/", "render.test/api/items.json", "render.test/api/more.json", "render.test/app.js"].sort(),
    );
    expect(web.violations({ minGapMs: GAP, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    expect(out.answers["refused.robots"]).toBe(1);
    expect(out.answers["refused.other-host"]).toBe(1);
    expect(out.answers["refused.media"]).toBeGreaterThanOrEqual(1);
    expect(out.host.requests).toBe(3);
  }, 60_000);

  test("render pool - a second render of the host takes its script from the cache", async () => {
    await new Promise((r) => setTimeout(r, GAP * 2));
    const { out, requests } = await fetchAndRender("/");
    expect(out.answers.cache).toBeGreaterThanOrEqual(1);
    expect(requests.filter((r) => r.path === "/app.js")).toEqual([]);
    expect(web.violations({ minGapMs: GAP, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 60_000);

  test("render pool - a page that never finishes loading is taken as it stands at the deadline", async () => {
    await new Promise((r) => setTimeout(r, GAP * 2));
    const started = Date.now();
    const { out, links } = await fetchAndRender("/never-loads");
    expect(out.page.kind).toBe("rendered");
    if (out.page.kind === "rendered") expect(out.page.timedOut).toBe(true);
    expect(links).toContain("/from-never-loads");
    expect(Date.now() - started).toBeLessThan(6000 + 3000);
  }, 60_000);

  test("render pool - a tab that crashes fails its render, and the next render works", async () => {
    await new Promise((r) => setTimeout(r, GAP * 2));
    const { out } = await fetchAndRender("/crash");
    expect(out.page).toMatchObject({ kind: "failed", reason: "crashed" });
    await new Promise((r) => setTimeout(r, GAP * 2));
    expect((await fetchAndRender("/")).out.page.kind).toBe("rendered");
  }, 60_000);

  test("render pool - a killed browser is replaced, and rendering goes on", async () => {
    const pid = pool.browserPid();
    expect(pid).toBeNumber();
    const restarts = pool.stats.restarts;
    process.kill(pid!, "SIGKILL");
    await new Promise((r) => setTimeout(r, GAP * 2));
    const { out, links } = await fetchAndRender("/");
    expect(out.page.kind).toBe("rendered");
    expect(links).toContain("/item/3");
    expect(pool.stats.restarts).toBe(restarts + 1);
    expect(pool.browserPid()).not.toBe(pid);
  }, 60_000);

  test("render pool - with screenshots on, a PNG of the window comes with the DOM", async () => {
    const shooting = new ChromiumRenderer({
      pool,
      fetcher,
      addresses: new AddressPolicy(),
      userAgent: UA,
      deadlineMs: 6000,
      settleMs: 300,
      screenshots: true,
      gap: { multiplier: 10, marginMs: 5 },
      now: () => performance.timeOrigin + performance.now(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    });
    await new Promise((r) => setTimeout(r, GAP * 2));
    const task = taskFor("/item/1");
    const out = await shooting.render(task, (await fetcher.fetch({ url: task.url })) as FetchResponse);
    expect(out.page.kind).toBe("rendered");
    if (out.page.kind === "rendered") expect([...out.page.screenshot!.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  }, 60_000);

  test("render pool - past its memory cap the browser is replaced once its renders end", async () => {
    // A cap no browser fits under: every check finds it over, so each render after the first starts a new one.
    const small = new RenderPool({ size: 1, memoryCapBytes: 1 });
    const capped = new ChromiumRenderer({
      pool: small,
      fetcher,
      addresses: new AddressPolicy(),
      userAgent: UA,
      deadlineMs: 6000,
      settleMs: 300,
      screenshots: false,
      gap: { multiplier: 10, marginMs: 5 },
      now: () => performance.timeOrigin + performance.now(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    });
    try {
      await new Promise((r) => setTimeout(r, GAP * 2));
      const task = taskFor("/app/one");
      const response = (await fetcher.fetch({ url: task.url })) as FetchResponse;
      expect((await capped.render(task, response)).page.kind).toBe("rendered");
      const first = small.browserPid();
      expect(small.stats.browserBytes).toBeGreaterThan(1);
      const second = await capped.render(taskFor("/app/one"), response);
      expect(second.page.kind).toBe("rendered");
      expect(small.stats.restarts).toBe(1);
      expect(second.restarts).toBe(1);
      expect(small.browserPid()).not.toBe(first);
    } finally {
      await capped.close();
    }
  }, 60_000);
});
