/**
 * The runtime test's one scenario, run once per runtime (fetch-node-bun.test.ts, fetch-node-deno.test.ts):
 * the fetch node process starts, announces itself, answers /readyz and /metrics, takes a robots task, a
 * page task and a sitemap task (a gzip file, read as a stream) from JetStream, fetches them from a loopback
 * server (the page by the name localhost, through the node's DNS cache), publishes the links to their hosts'
 * partitions (one in another region; a sitemap's entries too, with their priority) and the results to the
 * owner's partition, writes WARC, and on SIGTERM stops cleanly: exit code 0 and its node record gone.
 * One setting (concurrency) reaches the node through its environment, the rest through flags.
 */
import { expect } from "bun:test";
import { partitionOf } from "../../core/ring/index.ts";
import {
  collectResults,
  collectUrls,
  pageTask,
  startNode,
  startRig,
  waitUntil,
  warcFiles,
  NODE_CONCURRENCY,
  PARTITIONS,
  type Runtime,
} from "./fetch-node-harness.ts";

export async function fetchNodeScenario(runtime: Runtime): Promise<void> {
  const rig = await startRig();
  const nodeId = `rt-${runtime}`;
  const node = startNode(rig, runtime, nodeId);
  try {
    const record = await node.record();
    expect(record).toMatchObject({ id: nodeId, role: "fetcher", region: "us", runtime, status: "active" });
    expect(record.gauges["concurrency"]).toBe(NODE_CONCURRENCY);
    const ready = await fetch(`${record.httpAddress}/readyz`);
    expect(ready.status).toBe(200);

    const page = pageTask(rig, `${runtime}-page`);
    const robots = pageTask(rig, `${runtime}-robots`, "robots");
    const sitemap = pageTask(rig, `${runtime}-sitemap`, "sitemap");
    // Each result goes to its host's partition (the sitemap's host is the robots task's); the two hosts'
    // partitions may coincide (then one consumer).
    const partitionsOfResults = [...new Set([page.partition, robots.partition])];
    const resultCollectors = partitionsOfResults.map((p) => collectResults(rig, p));
    const results = {
      get got() {
        return resultCollectors.flatMap((c) => c.got);
      },
    };
    const ownLinks = collectUrls(rig, "us", partitionOf(rig.web.pageHost, PARTITIONS));
    const ipLinks = collectUrls(rig, "us", partitionOf(rig.web.host, PARTITIONS));
    const deLinks = collectUrls(rig, "eu", partitionOf("shop.example.de", PARTITIONS));
    await rig.bus.publishTask("us", robots);
    await rig.bus.publishTask("us", page);
    await rig.bus.publishTask("us", sitemap);

    const what = `results and links from the ${runtime} fetch node`;
    // Partitions may coincide (one message, or one of two subscribers of one consumer): count links, not messages.
    const localLinks = () => [...new Set([...ownLinks.got, ...ipLinks.got].flat().map((u) => u.url))];
    await waitUntil(
      () => (results.got.length === 3 && deLinks.got.length === 1 && localLinks().length === 3) || undefined,
      30_000,
      what,
      node.output,
    );
    const pageResult = results.got.find((r) => r.taskId === page.taskId)!;
    const robotsResult = results.got.find((r) => r.taskId === robots.taskId)!;
    expect(pageResult).toMatchObject({ kind: "response", status: 200, linksFound: 3, partition: page.partition });
    expect(pageResult.fingerprint).toBeDefined();
    expect(rig.web.requests).toEqual(expect.arrayContaining([`${rig.web.host}/robots.txt`, `${rig.web.pageHost}/`]));
    expect(robotsResult).toMatchObject({
      kind: "response",
      status: 200,
      taskKind: "robots",
      robots: { verdict: "parse" },
      partition: robots.partition,
    });
    expect(robotsResult.robots?.text).toContain("Disallow: /private");
    expect(localLinks().sort()).toEqual([`${rig.web.pageOrigin}/next`, `${rig.web.origin}/other`, `${rig.web.origin}/from-sitemap`].sort());
    const sitemapResult = results.got.find((r) => r.taskId === sitemap.taskId)!;
    expect(sitemapResult).toMatchObject({
      kind: "response",
      status: 200,
      taskKind: "sitemap",
      linksFound: 1,
      sitemap: { format: "urlset", entries: 1, outOfLocation: 1, invalid: 0 },
    });
    const fromSitemap = [...ownLinks.got, ...ipLinks.got].flat().find((u) => u.url.endsWith("/from-sitemap"));
    expect(fromSitemap).toMatchObject({ depth: 1, sitemapPriority: 0.9, sourceUrl: sitemap.url });
    expect(deLinks.got.flat().map((u) => u.url)).toEqual(["http://shop.example.de/x"]);

    const labels = `{node="${nodeId}",region="us",runtime="${runtime}"}`;
    const metrics = await waitUntil(
      async () => {
        const text = await (await fetch(`${record.httpAddress}/metrics`)).text();
        return text.includes(`crawler_fetcher_status_200_total${labels} 3`) ? text : undefined;
      },
      10_000,
      "the three responses counted on /metrics",
      node.output,
    );
    expect(metrics).toContain(`crawler_fetcher_pages_total${labels} 1`);

    const code = await node.stop();
    expect({ code, output: code === 0 ? "" : node.output() }).toEqual({ code: 0, output: "" });
    expect((await rig.state.listNodes()).map((n) => n.id)).not.toContain(nodeId);
    expect(warcFiles(rig, nodeId).warcs.length).toBeGreaterThan(0);
    expect(warcFiles(rig, nodeId).index).toBe(true);
    for (const c of [...resultCollectors, ownLinks, ipLinks, deLinks]) await c.sub.stop();
  } finally {
    await node.stop();
    await rig.close();
  }
}
