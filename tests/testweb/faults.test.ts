import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Agent } from "node:http";
import { proxyGet } from "./client.ts";
import { FAULT_RETRY_AFTER_S, faultyHosts } from "./faults.ts";
import { resolveShape, startTestWeb, type TestWeb } from "./server.ts";

const SHARES = { failing: 0.05, slow: 0.02, slowMs: 200, robots503: 0.03, redirecting: 0.1 };

describe("troubled hosts", () => {
  let web: TestWeb;
  let agent: Agent;
  const get = (url: string) => proxyGet(web.proxyUrl, url, { agent });
  const hostOf = (kind: string) => [...web.faulty].find(([, k]) => k === kind)![0];

  beforeAll(async () => {
    web = await startTestWeb({ hosts: 20, pagesPerHost: 40, faults: SHARES });
    agent = new Agent({ keepAlive: true });
  });
  afterAll(async () => {
    agent.destroy();
    await web.close();
  });

  test("each share takes its own hosts, at least one each, the same for the same seed", () => {
    const kinds = [...web.faulty.values()];
    expect(kinds.filter((k) => k === "failing")).toHaveLength(1);
    expect(kinds.filter((k) => k === "slow")).toHaveLength(1);
    expect(kinds.filter((k) => k === "robots503")).toHaveLength(1);
    expect(kinds.filter((k) => k === "redirecting")).toHaveLength(2);
    const shape = resolveShape({ hosts: 300 });
    const big = faultyHosts(shape, SHARES);
    expect([...big.values()].filter((k) => k === "failing")).toHaveLength(15);
    expect([...faultyHosts(shape, SHARES)]).toEqual([...big]);
    expect([...faultyHosts({ ...shape, seed: 2 }, SHARES)]).not.toEqual([...big]);
  });

  test("a failing host answers 500 on some pages, 429 with Retry-After once on others, and 200 on the rest", async () => {
    const host = hostOf("failing");
    const statuses = new Map<number, number>();
    for (let k = 0; k < 40; k++) {
      const first = await get(`http://${host}/page/${k}`);
      statuses.set(first.status, (statuses.get(first.status) ?? 0) + 1);
      if (first.status === 429) {
        expect(first.headers["retry-after"]).toBe(String(FAULT_RETRY_AFTER_S));
        expect((await get(`http://${host}/page/${k}`)).status).toBe(200);
      }
      if (first.status === 500) expect((await get(`http://${host}/page/${k}`)).status).toBe(500);
    }
    for (const status of [200, 429, 500]) expect(statuses.get(status) ?? 0).toBeGreaterThan(3);
  });

  test("a slow host answers everything, robots.txt too, after its delay", async () => {
    const host = hostOf("slow");
    for (const path of ["/robots.txt", "/page/1"]) {
      expect((await get(`http://${host}${path}`)).status).toBe(200);
      const r = web.requestsTo(host).at(-1)!;
      expect(r.endedAt - r.startedAt).toBeGreaterThanOrEqual(SHARES.slowMs);
    }
    expect(web.behaviour(host)?.robots.kind).toBe("rules");
  });

  test("a robots503 host answers 503 to robots.txt, and the checker knows nothing may be fetched", async () => {
    const host = hostOf("robots503");
    expect((await get(`http://${host}/robots.txt`)).status).toBe(503);
    expect(web.behaviour(host)?.robots.kind).toBe("disallow-all");
  });

  test("a redirecting host sends some pages to another page of its own", async () => {
    const [first, second] = [...web.faulty].filter(([, k]) => k === "redirecting").map(([h]) => h);
    const moved: string[] = [];
    for (const host of [first!, second!]) {
      for (let k = 0; k < 40; k++) {
        const r = await get(`http://${host}/page/${k}`);
        if (r.status === 200) continue;
        expect([301, 302]).toContain(r.status);
        expect(r.headers.location).toMatch(/^\/page\/\d+$/);
        moved.push(`${r.status}`);
      }
    }
    expect(moved).toContain("301");
    expect(moved).toContain("302");
  });
});
