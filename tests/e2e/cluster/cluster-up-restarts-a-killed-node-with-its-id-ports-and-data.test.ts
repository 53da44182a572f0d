/**
 * `cluster up` supervises: mid-crawl a frontier node, a fetch node and the coordinator are each killed
 * with SIGKILL, one after the other, and each is started again by the launcher with the same id, the same
 * ports and the same data directory: cluster.json shows the new pid and one restart, the node rejoins
 * under its id at the same addresses, the frontier node reopens its store (its LOCK names the new pid) and
 * resumes its queue. Nothing stops the cluster: every expected page is fetched; a page fetched twice was
 * fetched before some kill (it may have been in flight), at most twice, and at most one per host and kill;
 * no host is hit too soon (tolerance 0).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fetchCounts, missing, pageRequests, repeated, urlOf, useCluster, waitForIdle, waitForPages, waitUntil } from "./harness.ts";

const cluster = useCluster();

function logTail(path: string, lines = 40): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch (error) {
    return `(unreadable: ${(error as Error).message})`;
  }
}
const GAP_MS = 300;
const HOSTS = 8;

describe("cluster up: a killed process is started again", () => {
  test("a frontier node, a fetch node and the coordinator killed mid-crawl come back with their ids, ports and data", async () => {
    const web = await cluster.web({ hosts: HOSTS, pagesPerHost: 40, linksPerPage: 8, pageBytes: 2000 });
    const seeds = Array.from({ length: HOSTS }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const c = await cluster.up({ web, frontierArgs: ["--min-gap", `${GAP_MS}ms`] });
    const nats = c.file.processes.find((p) => p.role === "nats")!;
    await c.seed(seeds);

    const kills: number[] = [];
    const progress = (share: number) =>
      waitUntil(() => pageRequests(web).length >= expected.pages.size * share, {
        timeoutMs: 60_000,
        what: `${Math.round(share * 100)} % of the pages to be fetched`,
        procs: [c.proc],
      });
    const restart = async (id: string) => {
      const before = c.readFile().processes.find((p) => p.id === id)!;
      const { pid, at } = c.kill(id);
      kills.push(at);
      const after = await c.waitRestarted(id, pid);
      expect(after).toMatchObject({ role: before.role, region: before.region, ports: before.ports, dataDir: before.dataDir, restarts: 1 });
      // A restarted coordinator first waits out the lease its killed self left (6 s) and then takes it at a
      // heartbeat: seconds on an idle box; the bound is for a hang, and a miss shows the node's own log.
      const node = await c.waitForNode(id, { since: at, procs: [c.proc], timeoutMs: 60_000 }).catch((error: Error) => {
        throw new Error(`${error.message}\n${id}'s log, last lines:\n${logTail(after.log)}`);
      });
      return { after, node };
    };

    await progress(0.15);
    const frontier = await restart("frontier-1");
    expect(frontier.node.grpcAddress).toBe(`127.0.0.1:${frontier.after.ports["grpc"]}`);
    expect(frontier.node.httpAddress).toBe(`http://127.0.0.1:${frontier.after.ports["http"]}`);
    expect(readFileSync(join(frontier.after.dataDir!, "LOCK"), "utf8").trim()).toBe(String(frontier.after.pid));

    await progress(0.3);
    const fetcher = await restart("fetch-2");
    expect(fetcher.node.httpAddress).toBe(`http://127.0.0.1:${fetcher.after.ports["http"]}`);
    // The killed fetch node's tasks come back after the consumer's ack wait: shortened here (its restart
    // set the default again), so the test does not wait a minute for them.
    await cluster.setFetchAckWait({ nats: { url: `nats://127.0.0.1:${nats.ports["client"]}` } }, 5_000);

    await progress(0.45);
    const coordinator = await restart("coordinator-1");
    expect(coordinator.node.grpcAddress).toBe(c.file.grpcAddress);
    expect(coordinator.node.httpAddress).toBe(c.file.adminUrl);
    expect((await c.crawlctl(["status"])).code).toBe(0);

    await waitForPages(web, expected.pages, { timeoutMs: 120_000, what: "every expected page", procs: [c.proc] });
    await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });
    const pages = pageRequests(web);
    expect(missing(expected.pages, fetchCounts(pages).keys())).toEqual([]);
    const twice = repeated(pages);
    const firstFetch = new Map<string, number>();
    for (const r of pages) if (!firstFetch.has(urlOf(r))) firstFetch.set(urlOf(r), r.startedAt);
    expect(Object.keys(twice).filter((u) => !kills.some((at) => firstFetch.get(u)! < at))).toEqual([]);
    expect(Object.values(twice).every((n) => n === 2)).toBe(true);
    expect(Object.keys(twice).length).toBeLessThanOrEqual(HOSTS * kills.length);
    expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    // Every restart is in cluster.json, and nothing else restarted.
    expect(
      c
        .readFile()
        .processes.filter((p) => p.restarts > 0)
        .map((p) => [p.id, p.restarts]),
    ).toEqual([
      ["coordinator-1", 1],
      ["fetch-2", 1],
      ["frontier-1", 1],
    ]);
  }, 300_000);
});
