/**
 * The hostile-URL suite at the fetch path, in both modes: directly (the crawler resolves names; a test
 * resolver answers the suite's names) and through the test web's HTTP proxy (the proxy resolves names).
 * Two real test webs: the "public" one on 127.0.0.1 (allowed explicitly with `--allow-addresses
 * 127.0.0.1/32`, as a public address would be) and the "internal network" on 127.0.0.2, which must never
 * see a connection. What counts is what the servers saw (their own logs and connection counts) and the
 * fetcher's outcome, never our counters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryContentIndex } from "../../adapters/memory/index.ts";
import type { FetchTask } from "../../core/model/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import { hostKeyOf, normalizeUrl } from "../../core/url/index.ts";
import { FetchWorker, HttpFetcher, type LookupFn } from "../../engine/fetch/index.ts";
import { locationOf } from "../support/hostile-sites.ts";
import { hostileLookup, hostileUrls, INTERNAL_ADDRESS, type HostileUrl } from "../support/hostile-urls.ts";
import { startTestWeb, type HostBehaviour, type TestWeb } from "../testweb/index.ts";

let internal: TestWeb;
let web: TestWeb;
let hostile: HostileUrl[];

/** public.test: links to every hostile URL, redirects to each, and a robots.txt that redirects inside. */
function publicSite(): HostBehaviour {
  return {
    description: "a public site whose pages point inside",
    robots: { kind: "allow-all", why: "its robots.txt redirects to the internal network" },
    servesRobots: true,
    serve(_req, res, ctx) {
      const go = /^\/go\/(\d+)$/.exec(ctx.path);
      if (ctx.path === "/robots.txt") {
        res.writeHead(301, { location: `http://${INTERNAL_ADDRESS}:${internal.port}/robots.txt` });
        return void res.end();
      }
      if (go) {
        res.writeHead(302, { location: locationOf(hostile[Number(go[1])]!.url) });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>links</title>${hostile.map((h, i) => `<a href="${h.url}">${i}</a>`).join("\n")}`);
    },
  };
}

beforeAll(async () => {
  internal = await startTestWeb({ hosts: 0, hostname: INTERNAL_ADDRESS });
  hostile = hostileUrls(internal);
  web = await startTestWeb({ hosts: 0, extraHosts: { "public.test": publicSite() } });
});

afterAll(async () => {
  await web?.close();
  await internal?.close();
});

const refuseLookups: LookupFn = async (host) => {
  throw new Error(`the crawler must not resolve ${host} behind a proxy`);
};

const modes = [
  {
    name: "direct",
    fetcher: () =>
      new HttpFetcher({
        userAgent: "hostilebot/1.0",
        connectTimeoutMs: 2_000,
        responseTimeoutMs: 5_000,
        maxBodyBytes: 1 << 20,
        addressPolicy: new AddressPolicy({ allow: ["127.0.0.1/32"] }),
        lookup: hostileLookup(hostile, { "public.test": "127.0.0.1" }),
      }),
    publicOrigin: () => `http://public.test:${web.port}`,
  },
  {
    name: "proxy",
    fetcher: () =>
      new HttpFetcher({
        userAgent: "hostilebot/1.0",
        connectTimeoutMs: 2_000,
        responseTimeoutMs: 5_000,
        maxBodyBytes: 1 << 20,
        proxyUrl: web.proxyUrl,
        lookup: refuseLookups,
      }),
    publicOrigin: () => "http://public.test",
  },
] as const;

function task(url: string, kind: "page" | "robots" = "page"): FetchTask {
  return { taskId: `t-${url}`, kind, url, host: hostKeyOf(url), partition: 0, depth: 0, redirectHops: 0, hostGapMs: 0, issuedAt: 0 };
}

describe.each(modes)("hostile URLs, $name", (mode) => {
  test("the list covers every notation the suite promises (at least 40 URLs)", () => {
    expect(hostile.length).toBeGreaterThanOrEqual(40);
  });

  test("every hostile URL is refused by the fetcher with its reason, and the internal network sees nothing", async () => {
    web.clearRequests();
    const fetcher = mode.fetcher();
    try {
      for (const h of hostile) {
        const outcome = await fetcher.fetch({ url: h.url });
        const seen = { url: h.url, what: h.what };
        if (h.parses === false) {
          expect({ ...seen, kind: outcome.kind, error: outcome.kind === "error" ? outcome.error : "" }).toEqual({
            ...seen,
            kind: "error",
            error: "other",
          });
          continue;
        }
        if (h.resolvesTo && mode.name === "proxy") {
          // Behind a proxy the crawler cannot know what a name resolves to: the proxy gets the request and
          // must apply the same policy (README, security). The test web's proxy knows no such host: 502.
          expect({ ...seen, status: outcome.kind === "response" ? outcome.status : outcome.error }).toEqual({ ...seen, status: 502 });
          continue;
        }
        expect({
          ...seen,
          error: outcome.kind === "error" ? outcome.error : `status ${outcome.status}`,
          refusal: outcome.kind === "error" ? outcome.refusal : "",
        }).toEqual({
          ...seen,
          error: "blocked-address",
          refusal: h.reason,
        });
      }
    } finally {
      await fetcher.close();
    }
    expect(internal.connections).toBe(0);
    expect(internal.requests).toEqual([]);
    // Only names that need a resolver ever reached the proxy, and none of them is an address.
    const reachedProxy = [...new Set(web.requests.map((r) => r.host))].sort();
    const expected = mode.name === "proxy" ? hostile.filter((h) => h.resolvesTo).map((h) => new URL(h.url).hostname) : [];
    expect(reachedProxy).toEqual([...new Set(expected)].sort());
  }, 60_000);

  test("a public page's redirects to internal addresses come back as targets, never followed", async () => {
    web.clearRequests();
    const fetcher = mode.fetcher();
    const worker = new FetchWorker({
      fetcher,
      content: new MemoryContentIndex(),
      store: { write: async () => undefined },
      agentToken: "hostilebot",
      gap: { multiplier: 10, marginMs: 5 },
      now: () => Date.now(),
      sleep: async () => undefined,
    });
    try {
      for (const [i, h] of hostile.entries()) {
        const { result } = await worker.run(task(`${mode.publicOrigin()}/go/${i}`));
        expect({ i, status: result.status }).toEqual({ i, status: 302 });
        const target = normalizeUrl(h.url);
        // The target is reported for the frontier's admission, which refuses it (engine/frontier/admission.test.ts).
        if (target.ok) expect({ i, redirectTo: result.redirectTo }).toEqual({ i, redirectTo: target.url });
        if (target.ok && !h.resolvesTo) expect(new AddressPolicy().checkHost(hostKeyOf(target.url))?.reason).toBe(h.reason);
      }
    } finally {
      await fetcher.close();
    }
    expect(web.requests.map((r) => r.path)).toEqual(hostile.map((_, i) => `/go/${i}`));
    expect(internal.connections).toBe(0);
  }, 60_000);

  test("a robots.txt that redirects to the internal network is not followed there, and counts as unreachable", async () => {
    web.clearRequests();
    const fetcher = mode.fetcher();
    const worker = new FetchWorker({
      fetcher,
      content: new MemoryContentIndex(),
      store: { write: async () => undefined },
      agentToken: "hostilebot",
      gap: { multiplier: 10, marginMs: 5 },
      now: () => Date.now(),
      sleep: async () => undefined,
    });
    try {
      const { result } = await worker.run(task(`${mode.publicOrigin()}/robots.txt`, "robots"));
      // The host answered (301), but its rules cannot be read where they point: nothing of it is fetched.
      expect(result).toMatchObject({ kind: "response", status: 301, robots: { verdict: "disallow-all" } });
    } finally {
      await fetcher.close();
    }
    expect(web.requests.map((r) => `${r.host}${r.path}`)).toEqual(["public.test/robots.txt"]);
    expect(internal.connections).toBe(0);
  }, 30_000);
});
