/**
 * The request router and the host's turn on their own, with a recording fetch and an injected clock: what
 * is refused before any request (method, scheme, media, trackers, internal addresses, another host,
 * robots.txt), what the cache answers, and how the turn spaces the host's requests and refuses one whose
 * turn would come after the deadline or after a 429.
 */
import { describe, expect, test } from "bun:test";
import type { FetchOutcome } from "../../core/model/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import { parseRobots, policyFor } from "../../core/robots/index.ts";
import { HostTurn } from "./host-turn.ts";
import { RequestRouter, type PageRequest } from "./request-router.ts";
import { SubresourceCache } from "./subresource-cache.ts";

function harness(opts: { gapMs?: number; deadlineIn?: number; status?: number } = {}) {
  const clock = { now: 1_000 };
  const asked: Array<{ url: string; at: number }> = [];
  const sleep = async (ms: number) => void (clock.now += ms);
  const turn = new HostTurn(
    { hostGapMs: opts.gapMs ?? 100, multiplier: 10, marginMs: 5, now: () => clock.now, sleep },
    { startedAt: 990, endedAt: 1_000 },
  );
  const cache = new SubresourceCache();
  const fetch = async (url: string): Promise<FetchOutcome> => {
    asked.push({ url, at: clock.now });
    const startedAt = clock.now;
    clock.now += 2;
    return {
      kind: "response",
      url,
      status: opts.status ?? 200,
      headers: { "content-type": "text/javascript", "content-encoding": "gzip", "set-cookie": "a=b" },
      body: new TextEncoder().encode("//js"),
      truncated: false,
      startedAt,
      endedAt: clock.now,
      requestHeaders: {},
      httpVersion: "1.1",
    };
  };
  const router = new RequestRouter({
    pageUrl: "http://app.test/",
    pageHost: "app.test",
    page: { status: 200, headers: {}, body: new Uint8Array() },
    robots: policyFor(parseRobots("User-agent: *\nDisallow: /private/\n"), "bot"),
    addresses: new AddressPolicy(),
    fetch,
    cache,
    turn,
    signal: new AbortController().signal,
    now: () => clock.now,
  });
  router.setDeadline(clock.now + (opts.deadlineIn ?? 10_000));
  return { router, asked, clock, cache, turn };
}

const req = (url: string, extra: Partial<PageRequest> = {}): PageRequest => ({
  url,
  method: "GET",
  resourceType: "script",
  mainFrameNavigation: false,
  ...extra,
});

describe("render request router", () => {
  test("render router - the page is served from memory once; later navigations are refused and kept as links", async () => {
    const { router, asked } = harness();
    expect(await router.answer(req("http://app.test/", { resourceType: "document", mainFrameNavigation: true }))).toMatchObject({
      from: "page",
    });
    expect(await router.answer(req("http://app.test/next", { resourceType: "document", mainFrameNavigation: true }))).toEqual({
      kind: "fail",
      reason: "navigation",
    });
    expect(router.navigations).toEqual(["http://app.test/next"]);
    expect(asked).toEqual([]);
  });

  test("render router - refused unfetched: other methods and schemes, media and fonts, trackers, internal addresses, other hosts, robots.txt", async () => {
    const { router, asked } = harness();
    const reason = async (r: PageRequest) => {
      const a = await router.answer(r);
      return a.kind === "fail" ? a.reason : a.from;
    };
    expect(await reason(req("http://app.test/api", { method: "POST", resourceType: "fetch" }))).toBe("method");
    expect(await reason(req("ftp://app.test/x"))).toBe("scheme");
    expect(await reason(req("http://app.test/a.png", { resourceType: "image" }))).toBe("media");
    expect(await reason(req("http://app.test/f.woff2", { resourceType: "font" }))).toBe("media");
    expect(await reason(req("https://www.google-analytics.com/analytics.js"))).toBe("tracker");
    expect(await reason(req("http://169.254.169.254/latest/meta-data/", { resourceType: "fetch" }))).toBe("address");
    expect(await reason(req("http://localhost:8080/admin", { resourceType: "fetch" }))).toBe("address");
    expect(await reason(req("http://10.0.0.7/", { resourceType: "xhr" }))).toBe("address");
    expect(await reason(req("http://cdn.test/lib.js"))).toBe("other-host");
    expect(await reason(req("http://app.test/private/x.js"))).toBe("robots");
    expect(asked).toEqual([]);
  });

  test("render router - the host's requests wait for its gap, one at a time, and come from the cache the next time", async () => {
    const { router, asked, cache } = harness({ gapMs: 100 });
    const [a, b] = await Promise.all([router.answer(req("http://app.test/a.js")), router.answer(req("http://app.test/b.js"))]);
    expect([a, b].map((x) => x.kind === "fulfill" && x.from)).toEqual(["host", "host"]);
    // The page's own fetch took 10 ms and ended at 1,000: the first request waits max(100, 10 x 10 + 5).
    expect(asked.map((x) => x.at)).toEqual([1_105, 1_105 + 2 + 100]);
    // What the browser is given describes the decoded body; no cookie is kept.
    if (a.kind === "fulfill") expect(a.response.headers).toEqual({ "content-type": "text/javascript" });
    expect(cache.size).toBe(2);
    expect(await router.answer(req("http://app.test/a.js"))).toMatchObject({ kind: "fulfill", from: "cache" });
    expect(asked).toHaveLength(2);
  });

  test("render router - a request whose turn would come after the deadline is failed, never sent early", async () => {
    const { router, asked } = harness({ gapMs: 5_000, deadlineIn: 1_000 });
    expect(await router.answer(req("http://app.test/late.js"))).toEqual({ kind: "fail", reason: "deadline" });
    expect(asked).toEqual([]);
  });

  test("render router - after a 429 the render asks its host nothing more", async () => {
    const { router, asked, turn } = harness({ status: 429 });
    await router.answer(req("http://app.test/a.js"));
    expect(await router.answer(req("http://app.test/b.js"))).toEqual({ kind: "fail", reason: "throttled" });
    expect(asked).toHaveLength(1);
    expect(turn.span().throttled).toBe(true);
  });
});
