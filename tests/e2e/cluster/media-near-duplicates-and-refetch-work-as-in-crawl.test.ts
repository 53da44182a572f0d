/**
 * Media, near duplicates and refetching in a local cluster (`cluster up`: 2 frontier nodes, 2 fetch nodes,
 * one on Deno when it is installed), as `crawl` does them. With --fetch-media (a frontier-node policy flag)
 * and the media body cap in the environment every role reads: each page's media are listed in the fetch
 * nodes' WARC files (metadata records) and media lists, each media file is fetched once, politely, within
 * robots.txt, capped and never parsed; a near duplicate is a revisit record naming the page it resembles,
 * found through the region's shared content index, and its links come after the host's other pages. With
 * the refetch bounds lowered (--allow-short-refetch), pages are asked again conditionally when due.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readWarc, REVISIT_PROFILES, type WarcRecordView } from "../../../engine/fetch/index.ts";
import { MEDIA_ON_PAGE, stableEtag } from "../../testweb/index.ts";
import { fetchCounts, MIN_GAP_MS, pageRequests, repeated, useCluster, waitForPages, waitUntil } from "./harness.ts";
import { maxOf, minOf } from "../../../core/stats/index.ts";

const cluster = useCluster();

/** Every record of every WARC file the fetch nodes of `dir` wrote (open files included). */
async function records(dir: string): Promise<WarcRecordView[]> {
  const out: WarcRecordView[] = [];
  for (const node of readdirSync(dir).filter((d) => d.startsWith("fetch-"))) {
    const warc = join(dir, node, "warc");
    for (const f of readdirSync(warc).filter((n) => n.endsWith(".warc.gz"))) for await (const r of readWarc(join(warc, f))) out.push(r);
  }
  return out;
}

/** The media lines of every fetch node's media list, by page. */
function mediaLists(dir: string): Record<string, string[]> {
  const byPage: Record<string, string[]> = {};
  for (const node of readdirSync(dir).filter((d) => d.startsWith("fetch-"))) {
    const file = join(dir, node, "warc", "media.jsonl");
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      const { page, url } = JSON.parse(line) as { page: string; url: string };
      (byPage[page] ??= []).push(url);
    }
  }
  return byPage;
}

describe("cluster: media, near duplicates, refetch", () => {
  test("the cluster lists and fetches media and records near duplicates as crawl does", async () => {
    const web = await cluster.web({ hosts: 1, special: true });
    const c = await cluster.up({ web, frontierArgs: ["--fetch-media"], env: { CRAWL_MAX_MEDIA_BODY: "64KiB" } });
    await c.seed([web.url("media.test"), web.url("neardup.test")]);
    const media = [...new Set(Object.values(MEDIA_ON_PAGE).flat())].filter((u) => !u.includes("/private/"));
    const nearDupPages = web.behaviour("neardup.test")!.mustFetch!.map((p) => web.url("neardup.test", p));
    await waitForPages(web, [...Object.keys(MEDIA_ON_PAGE), ...media, ...nearDupPages], {
      timeoutMs: 90_000,
      what: "every page and media file",
      procs: [c.proc],
    });
    // Everything fetched has been written: each page's record is in a WARC file by the time its links were published.
    await waitUntil(async () => (await records(c.dir)).filter((r) => r.type === "metadata").length === Object.keys(MEDIA_ON_PAGE).length, {
      timeoutMs: 10_000,
      what: "a metadata record for every media page",
    });

    const requests = pageRequests(web);
    expect(repeated(requests)).toEqual({});
    const fetched = [...fetchCounts(requests).keys()];
    expect(fetched.some((u) => u.endsWith("/trap-media") || u.includes("/private/"))).toBe(false);
    expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);

    const all = await records(c.dir);
    const listed: Record<string, string[]> = {};
    for (const r of all.filter((r) => r.type === "metadata")) {
      listed[r.url!] = new TextDecoder()
        .decode(r.payload)
        .split("\r\n")
        .filter(Boolean)
        .map((f) => f.split(" ")[1]!);
    }
    expect(listed).toEqual(MEDIA_ON_PAGE);
    const sorted = (m: Record<string, string[]>) => JSON.stringify(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));
    await waitUntil(() => sorted(mediaLists(c.dir)) === sorted(MEDIA_ON_PAGE), {
      timeoutMs: 10_000,
      what: "the fetch nodes' media lists to name every page's media",
      detail: () => JSON.stringify(mediaLists(c.dir)),
    });
    const huge = all.find((r) => r.type === "response" && r.url === web.url("media.test", "/img/huge.jpg"))!;
    expect(huge.payload.length).toBe(64 * 1024);
    expect(huge.warcHeaders["WARC-Truncated"]).toBe("length");
    for (const url of media)
      expect({ url, stored: all.filter((r) => r.type === "response" && r.url === url).length }).toEqual({ url, stored: 1 });

    const near = all.find((r) => r.url === web.url("neardup.test", "/near") && r.type !== "request")!;
    expect(near.type).toBe("revisit");
    expect(near.warcHeaders["WARC-Profile"]).toBe(REVISIT_PROFILES["near-duplicate"]);
    expect(near.warcHeaders["WARC-Refers-To-Target-URI"]).toBe(web.url("neardup.test", "/orig"));
    const order = pageRequests(web, ["neardup.test"]).map((r) => r.path);
    const last = (paths: string[]) => maxOf(paths.map((p) => order.indexOf(p)));
    const first = (paths: string[]) => minOf(paths.map((p) => order.indexOf(p)));
    expect(first(["/n1", "/n2"])).toBeGreaterThan(last(["/o1", "/o2", "/l1", "/l2"]));
  }, 150_000);

  test("the cluster refetches due pages conditionally: 304 for the unchanged ones, new content for the changed one", async () => {
    const web = await cluster.web({ hosts: 1, special: true });
    const c = await cluster.up({
      web,
      frontierArgs: ["--allow-short-refetch", "--refetch-initial", "4s", "--refetch-min", "2s", "--refetch-max", "1m"],
    });
    await c.seed([web.url("etag.test")]);
    const paths = ["/", "/page/1", "/page/2", "/changing"];
    const visits = (p: string) => web.requestsTo("etag.test").filter((r) => r.path === p && r.endedAt < Infinity);
    await waitUntil(() => paths.every((p) => visits(p).length >= 2), {
      timeoutMs: 90_000,
      what: "every page of etag.test to be fetched a second time",
      procs: [c.proc],
      detail: () => paths.map((p) => `${p}: ${visits(p).length}`).join(", "),
    });
    for (const p of ["/", "/page/1", "/page/2"]) {
      expect(visits(p)[1]!.headers["if-none-match"]).toBe(stableEtag(p));
      expect(visits(p)[1]!.status).toBe(304);
    }
    expect(visits("/changing")[1]!.headers["if-none-match"]).toBe('"v1"');
    expect(visits("/changing")[1]!.status).toBe(200);
    expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 150_000);
});
