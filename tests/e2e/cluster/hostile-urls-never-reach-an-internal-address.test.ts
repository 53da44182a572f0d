/**
 * The hostile-URL suite on a cluster started with `cluster up`, fetching through the test web's proxy (the
 * production shape: no `--allow-private-addresses`). The seeds of the original report (metadata, loopback
 * in several notations, localhost, an empty host) are rejected by the admin API and by `crawlctl seed add`
 * with the address policy's reason; links and redirects of a public site to every hostile URL are refused at
 * admission (counted by reason, shown by `url explain`). And when a misconfigured frontier node admits
 * internal URLs anyway, the fetch nodes refuse each task before any request, proxy or not. Throughout, the
 * "internal network" (a test web on 127.0.0.2) sees no connection, and the public test web's log shows
 * only the public site.
 */
import { describe, expect, test } from "bun:test";
import { linkingSite } from "../../support/hostile-sites.ts";
import { hostileUrls, INTERNAL_ADDRESS } from "../../support/hostile-urls.ts";
import { useCluster, waitForIdle } from "./harness.ts";

const cluster = useCluster();

/** The seeds of the original report. */
const REPORTED = [
  "http://169.254.169.254/latest/meta-data/",
  "http://127.0.0.1:22/",
  "http://[::1]/",
  "http://localhost/",
  "http://0x7f000001/",
  "http://2130706433/",
  "http:///nohost",
];

interface Explanation {
  normalized: string;
  state: string;
  note: string;
  addressRefusal: string;
}

describe("cluster: hostile URLs", () => {
  test("hostile seeds are rejected with reasons, hostile links and redirects are refused at admission, nothing reaches inside", async () => {
    const internal = await cluster.web({ hosts: 0, hostname: INTERNAL_ADDRESS });
    const hostile = hostileUrls(internal).filter((u) => !u.resolvesTo);
    const web = await cluster.web({ hosts: 0, extraHosts: { "public.test": linkingSite(hostile) } });
    const c = await cluster.up({ web });

    const res = await c.admin("/v1/seeds", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ urls: [...REPORTED, "http://public.test/"] }),
    });
    expect(res.status).toBe(200);
    const outcome = (await res.json()) as { accepted: number; rejected: Array<{ url: string; reason: string }> };
    expect(outcome.accepted).toBe(1);
    expect(outcome.rejected.map((r) => [r.url, /^refused-address: ([a-z-]+): /.exec(r.reason)?.[1]])).toEqual([
      [REPORTED[0], "metadata"],
      [REPORTED[1], "loopback"],
      [REPORTED[2], "loopback"],
      [REPORTED[3], "localhost"],
      [REPORTED[4], "loopback"],
      [REPORTED[5], "loopback"],
      [REPORTED[6], "single-label"],
    ]);
    const cli = await c.crawlctl(["seed", "add", ...REPORTED]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(
      "REJECT http://169.254.169.254/latest/meta-data/: refused-address: metadata: 169.254.169.254 is a metadata address",
    );
    expect(cli.stdout).toContain("REJECT http://0x7f000001/: refused-address: loopback: 127.0.0.1 is a loopback address");

    const totals = await waitForIdle(c, web, { timeoutMs: 90_000, procs: [c.proc] });
    expect(internal.connections).toBe(0);
    expect(internal.requests).toEqual([]);
    expect([...new Set(web.requests.map((r) => r.host))]).toEqual(["public.test"]);
    const paths = web.requests.map((r) => r.path).sort();
    expect(paths).toEqual(["/", "/robots.txt", "/sitemap.xml", ...hostile.map((_, i) => `/go/${i}`)].sort());
    for (const reason of ["loopback", "metadata", "private", "localhost", "single-label", "local-name"]) {
      expect({ reason, counted: (totals.counters[`admission.refused.${reason}`] ?? 0) > 0 }).toEqual({ reason, counted: true });
    }

    const text = await c.crawlctl(["url", "explain", "http://0x7f000001/"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^\s+refused\s+loopback: 127\.0\.0\.1 is a loopback address$/m);
    const explained = await c.adminJson<{ explanation: Explanation }>(
      `/v1/urls/explain?url=${encodeURIComponent("http://[::ffff:169.254.169.254]/")}`,
    );
    expect(explained.explanation.addressRefusal).toBe("metadata: ::ffff:a9fe:a9fe (carrying 169.254.169.254) is a metadata address");
    expect((await c.admin(`/v1/urls/explain?url=garbage`)).status).toBe(400);
  }, 150_000);

  test("a task for an internal address that reaches a fetch node anyway is refused there, through the proxy too", async () => {
    const internal = await cluster.web({ hosts: 0, hostname: INTERNAL_ADDRESS });
    // Names and metadata stay refused at admission even with private addresses allowed; the loopback and
    // private literals, localhost and single-label names pass the misconfigured frontier nodes.
    const hostile = hostileUrls(internal).filter((u) => !u.resolvesTo && u.reason !== "metadata");
    const web = await cluster.web({ hosts: 0, extraHosts: { "public.test": linkingSite(hostile) } });
    const c = await cluster.up({ web, frontierArgs: ["--allow-private-addresses"] });
    await c.seed(["http://public.test/"]);

    const totals = await waitForIdle(c, web, { timeoutMs: 120_000, procs: [c.proc] });
    expect(internal.connections).toBe(0);
    expect(internal.requests).toEqual([]);
    expect([...new Set(web.requests.map((r) => r.host))]).toEqual(["public.test"]);
    // The frontier nodes planned the tasks; the fetch nodes refused each before any request.
    expect(totals.counters["fetch.skipped.blocked-address.loopback"] ?? 0).toBeGreaterThan(0);
    expect(totals.counters["fetch.skipped.blocked-address.localhost"] ?? 0).toBeGreaterThan(0);
    const fetchers = (await c.nodes()).filter((n) => n.role === "fetcher");
    expect(fetchers.reduce((sum, n) => sum + (n.counters["fetcher.skipped.blocked-address.loopback"] ?? 0), 0)).toBeGreaterThan(0);

    const explained = await c.adminJson<{ explanation: Explanation }>(
      `/v1/urls/explain?url=${encodeURIComponent(`http://127.0.0.2:${internal.port}/`)}`,
    );
    expect(explained.explanation).toMatchObject({ state: "gone", note: "blocked-address.loopback", addressRefusal: "" });
  }, 180_000);
});
