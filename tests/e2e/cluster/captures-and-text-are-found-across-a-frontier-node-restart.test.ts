/**
 * Capture lookup and extracted text in a local cluster (`cluster up`: 2 frontier nodes, 2 fetch nodes, one
 * on Deno when it is installed), with frontier-1 killed (SIGKILL) mid-crawl and started again by the
 * supervisor. Afterwards `/v1/captures` (routed to the frontier node holding each host) answers, for every
 * URL the test web saw fetched, at least one capture, and each capture's `warc` location, read back from the
 * fetch node's file byte-wise, is that URL's response record; a URL has two captures only if it was fetched
 * twice (in flight at the kill). `crawlctl url captures` says the same. Each fetch node's WET files hold one
 * conversion record per HTML page stored, naming it, and none for the media files.
 */
import type { CaptureJson } from "../../../core/captures/index.ts";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { normalizeUrl } from "../../../core/url/index.ts";
import { captureProblem, checkWetFiles } from "../../support/stored-captures.ts";
import { fetchCounts, pageRequests, repeated, urlOf, useCluster, waitForIdle, waitForPages, waitUntil } from "./harness.ts";

const cluster = useCluster();
const HOSTS = 4;
const VICTIM = "frontier-1";

/** The path of a WARC file a fetch node of `dir` wrote: its name starts with the node id. */
function warcPath(dir: string, file: string): string {
  const node = /^(.+)-\d{14}-\d{5}\.warc\.gz$/.exec(file)?.[1] ?? "";
  return join(dir, node, "warc", file);
}

function allWarcFiles(dir: string): string[] {
  const out: string[] = [];
  for (const node of readdirSync(dir).filter((d) => d.startsWith("fetch-"))) {
    const warc = join(dir, node, "warc");
    if (existsSync(warc))
      out.push(
        ...readdirSync(warc)
          .filter((n) => n.endsWith(".warc.gz"))
          .map((n) => join(warc, n)),
      );
  }
  return out;
}

describe("cluster: captures and text", () => {
  test("/v1/captures finds every fetched URL's response record, across a frontier node killed and restarted; each HTML page has its text record", async () => {
    const web = await cluster.web({ hosts: HOSTS, pagesPerHost: 24, linksPerPage: 6, pageBytes: 2000, special: true });
    const seeds = [...Array.from({ length: HOSTS }, (_, i) => web.url(`site${i}.test`)), web.url("media.test")];
    const expected = web.expectedPages(seeds.slice(0, HOSTS));
    const c = await cluster.up({ web, frontierArgs: ["--fetch-media"] });
    await c.seed(seeds);

    await waitUntil(() => pageRequests(web).length >= expected.pages.size / 4, {
      timeoutMs: 60_000,
      what: "a quarter of the pages to be fetched",
      procs: [c.proc],
    });
    const { pid } = c.kill(VICTIM);
    await c.waitRestarted(VICTIM, pid);
    await waitForPages(web, [...expected.pages, web.url("media.test", "/gallery")], {
      timeoutMs: 120_000,
      what: "every page",
      procs: [c.proc],
    });
    await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });

    const requests = pageRequests(web).filter((r) => !r.path.startsWith("/sitemap"));
    const twice = new Set(Object.keys(repeated(requests)));
    const fetched = [...fetchCounts(requests).keys()];
    expect(fetched.length).toBeGreaterThan(expected.pages.size);
    const problems: string[] = [];
    for (const url of fetched) {
      const res = await c.admin(`/v1/captures?url=${encodeURIComponent(url)}`);
      if (res.status !== 200) {
        problems.push(`${url}: ${res.status} ${await res.text()}`);
        continue;
      }
      const found = (await res.json()) as CaptureJson[];
      const allowed = twice.has(url) ? [1, 2] : [1];
      if (!allowed.includes(found.length)) problems.push(`${url}: ${found.length} captures, fetched ${twice.has(url) ? "twice" : "once"}`);
      const n = normalizeUrl(url);
      for (const capture of found) {
        if (capture.job !== "default") problems.push(`${url}: job ${capture.job}`);
        const problem = captureProblem(warcPath(c.dir, capture.warc.file), n.ok ? n.url : url, capture.warc);
        if (problem) problems.push(problem);
      }
      if (found.length === 2 && found[0]!.timestamp < found[1]!.timestamp) problems.push(`${url}: captures not newest first`);
    }
    expect(problems).toEqual([]);

    // crawlctl asks over gRPC and says the same.
    const page = web.url("site0.test");
    const viaApi = (await (await c.admin(`/v1/captures?url=${encodeURIComponent(page)}`)).json()) as CaptureJson[];
    const viaCli = await c.crawlctlJson<{ url: string; captures: Array<{ warc: CaptureJson["warc"]; status: number }> }>([
      "url",
      "captures",
      page,
    ]);
    expect(viaCli.url).toBe(page);
    expect(
      viaCli.captures.map((x) => ({ status: x.status, warc: { ...x.warc, offset: Number(x.warc.offset), length: Number(x.warc.length) } })),
    ).toEqual(viaApi.map((x) => ({ status: x.status, warc: x.warc })));
    const bad = await c.crawlctl(["url", "captures", "not a url"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("url: ");

    const wet = checkWetFiles(allWarcFiles(c.dir));
    expect(wet.problems).toEqual([]);
    for (const p of ["/", "/gallery", "/video"].map((x) => web.url("media.test", x))) expect(wet.withText).toContain(p);
    expect(wet.withText.filter((u) => /\.(png|jpe?g|webp|mp4|webm|ogg)$/.test(u))).toEqual([]);
    expect(wet.htmlPages.length).toBeGreaterThanOrEqual(expected.pages.size);
  }, 300_000);
});
