/**
 * Two coordinators under `cluster up --coordinators 2`: one holds the lease and serves, the other stands
 * by (its APIs answer not_leader). crawlctl, given both addresses in either order (as cluster.json lists
 * them), is answered by the leader. Mid-crawl the leader is killed with SIGKILL: a crawlctl command run at
 * once still answers (it waits out the failover), the standby takes the lease (its /readyz turns 200) and
 * its first totals show a true pages/s rate, not zero; the supervisor starts the killed coordinator again,
 * which comes back as the standby. The crawl never depends on the coordinator: every page is fetched
 * once, with no politeness violation (tolerance 0).
 */
import { describe, expect, test } from "bun:test";
import { fetchCounts, missing, pageRequests, repeated, useCluster, waitForIdle, waitForPages, waitUntil, type Stats } from "./harness.ts";

const cluster = useCluster();

describe("cluster: a standby coordinator", () => {
  test("the standby takes the lease when the leader is killed, and crawlctl with both addresses keeps working", async () => {
    const web = await cluster.web({ hosts: 8, pagesPerHost: 40, linksPerPage: 8, pageBytes: 2000 });
    const seeds = Array.from({ length: 8 }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const c = await cluster.up({ web, coordinators: 2, frontierArgs: ["--min-gap", "300ms"] });

    const grpc = c.file.grpcAddress.split(",");
    const admin = c.file.adminUrl.split(",");
    expect(grpc.length).toBe(2);
    for (const order of [grpc, [...grpc].reverse()]) {
      const r = await c.crawlctl(["status", "--json"], { coordinator: order.join(",") });
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as Stats).frontierNodes).toBe(2);
    }
    // Each coordinator's /readyz: 200 from the leader, 503 from a standby, "unreachable" from one that does
    // not answer (down, or not listening), which is neither.
    const readiness = () =>
      Promise.all(
        admin.map(
          async (url) =>
            (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined))?.status ?? "unreachable",
        ),
      );
    const ready = await readiness();
    expect([...ready].sort()).toEqual([200, 503]);
    const leaderIndex = ready.indexOf(200);
    const leaderId = `coordinator-${leaderIndex + 1}`;
    const standbyIndex = 1 - leaderIndex;
    // The standby refuses, naming the leader.
    const refused = await fetch(`${admin[standbyIndex]}/v1/stats`, { headers: { authorization: `Bearer ${c.file.token}` } });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string; leader: string } }).error).toMatchObject({
      code: "not_leader",
      leader: leaderId,
    });

    await c.seed(seeds);
    await waitUntil(() => pageRequests(web).length >= expected.pages.size / 4, {
      timeoutMs: 60_000,
      what: "a quarter of the pages to be fetched",
      procs: [c.proc],
    });
    const victim = c.readFile().processes.find((p) => p.id === leaderId)!;
    process.kill(victim.pid!, "SIGKILL");
    const killedAt = Date.now();

    // Right after the kill, crawlctl (both addresses) answers: from the standby once it holds the lease.
    const during = await c.crawlctl(["status", "--json"], { timeoutMs: 40_000 });
    expect(during.code).toBe(0);
    await waitUntil(async () => (await readiness())[standbyIndex] === 200, {
      timeoutMs: 30_000,
      what: `coordinator-${standbyIndex + 1} to take the lease`,
      procs: [c.proc],
    });
    const movedAfterMs = Date.now() - killedAt;
    console.log(`lease moved ${movedAfterMs} ms after the leader was killed`);
    // The new leader's first totals carry the rate of the crawl under way (its samples were taken all
    // along, and the rate is the nodes' own growth between their beats): not zero.
    expect(pageRequests(web).length).toBeLessThan(expected.pages.size); // the failover happened mid-crawl
    const first = await c.crawlctlJson<Stats>(["status"]);
    expect(first.pagesPerSecond).toBeGreaterThan(0);

    // The supervisor starts the killed one again, and it stands by.
    await waitUntil(
      () => {
        const p = c.readFile().processes.find((x) => x.id === leaderId)!;
        return p.pid !== null && p.pid !== victim.pid && p.restarts === 1;
      },
      { timeoutMs: 30_000, what: `${leaderId} to be started again`, procs: [c.proc] },
    );
    await waitUntil(async () => (await c.nodes()).some((n) => n.id === leaderId && n.state === "live" && n.startedAt >= killedAt), {
      timeoutMs: 30_000,
      what: `${leaderId} to rejoin`,
      procs: [c.proc],
    });
    // It answers, as a standby.
    expect((await readiness())[leaderIndex]).toBe(503);

    await waitForPages(web, expected.pages, { timeoutMs: 120_000, what: "every expected page", procs: [c.proc] });
    await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });
    const pages = pageRequests(web);
    expect(missing(expected.pages, fetchCounts(pages).keys())).toEqual([]);
    expect(repeated(pages)).toEqual({});
    expect(web.violations({ minGapMs: 300, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    const coordinators = (await c.nodes()).filter((n) => n.role === "coordinator");
    expect(coordinators.map((n) => [n.id, n.state, n.gauges["leader"]])).toEqual([
      ["coordinator-1", "live", leaderIndex === 0 ? 0 : 1],
      ["coordinator-2", "live", leaderIndex === 1 ? 0 : 1],
    ]);
  }, 300_000);
});
