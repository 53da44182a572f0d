/**
 * The hostile-URL suite against `crawl`, in both modes. A "public" site links to every URL of the suite
 * (tests/support/hostile-urls.ts), redirects to each of them, and a second public host's robots.txt
 * redirects into the "internal network": a test web on 127.0.0.2 whose own log and connection count must
 * stay at zero. Every hostile URL is also given as a seed. Through the test web's proxy the public hosts are
 * virtual names; directly, they are 127.0.0.1 on two ports, allowed with `--allow-addresses 127.0.0.1/32`
 * as a public address would be, while 127.0.0.2 (in every notation) stays internal. The suite's DNS names
 * that resolve inside need a resolver the test controls, so they are left to tests/hostile/fetcher.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { linkingSite, robotsInside } from "../../support/hostile-sites.ts";
import { hostileUrls, INTERNAL_ADDRESS, type HostileUrl } from "../../support/hostile-urls.ts";
import type { TestWeb } from "../../testweb/index.ts";
import { expectCleanExit, interrupt, missing, useHarness, waitUntilIdle } from "./harness.ts";

const h = useHarness();

interface Setup {
  webs: TestWeb[];
  seeds: { linking: string; robots: string };
  args: string[];
  /** Host names the public webs log for the two public sites. */
  hosts: { linking: string; robots: string };
  /** The linking site's host key in the crawler's queue. */
  linkingKey: string;
}

const modes: Array<{ name: string; setup: (internal: TestWeb, hostile: HostileUrl[]) => Promise<Setup> }> = [
  {
    name: "through the test web's proxy",
    async setup(internal, hostile) {
      const web = await h.web({
        hosts: 0,
        extraHosts: { "public.test": linkingSite(hostile), "robots-inside.test": robotsInside(internal.port) },
      });
      return {
        webs: [web],
        seeds: { linking: "http://public.test/", robots: "http://robots-inside.test/" },
        args: ["--proxy", web.proxyUrl],
        hosts: { linking: "public.test", robots: "robots-inside.test" },
        linkingKey: "public.test",
      };
    },
  },
  {
    name: "directly, 127.0.0.1 allowed as the public address",
    async setup(internal, hostile) {
      const linking = await h.web({ hosts: 0, extraHosts: { "127.0.0.1": linkingSite(hostile) } });
      const robots = await h.web({ hosts: 0, extraHosts: { "127.0.0.1": robotsInside(internal.port) } });
      return {
        webs: [linking, robots],
        seeds: { linking: `http://127.0.0.1:${linking.port}/`, robots: `http://127.0.0.1:${robots.port}/` },
        args: ["--allow-addresses", "127.0.0.1/32"],
        hosts: { linking: "127.0.0.1", robots: "127.0.0.1" },
        linkingKey: `127.0.0.1:${linking.port}`,
      };
    },
  },
];

describe.each(modes)("crawl: hostile URLs, $name", (mode) => {
  test("no request reaches the internal network: not from seeds, links, redirects or robots.txt", async () => {
    const internal = await h.web({ hosts: 0, hostname: INTERNAL_ADDRESS });
    const hostile = hostileUrls(internal).filter((u) => !u.resolvesTo);
    const s = await mode.setup(internal, hostile);
    const [linkingWeb, robotsWeb = linkingWeb] = s.webs as [TestWeb, TestWeb?];
    const out = h.tempDir();
    const run = h.crawl([s.seeds.linking, s.seeds.robots, ...hostile.map((u) => u.url), "--out", out, "--min-gap", "20ms", ...s.args], {
      out,
    });
    const redirects = hostile.map((_, i) => `/go/${i}`);
    const linkingPaths = () => linkingWeb.requestsTo(s.hosts.linking).map((r) => r.path);
    // The robots-inside host keeps its page queued behind an unreadable robots.txt: only the linking site idles.
    await waitUntilIdle(run, () => missing(redirects, linkingPaths()).length === 0, {
      hosts: [s.linkingKey],
      timeoutMs: 60_000,
      what: "every redirect page of the public site",
      detail: () => `missing: ${missing(redirects, linkingPaths()).slice(0, 5).join(", ")}`,
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);

    // The internal network never saw a connection.
    expect(internal.connections).toBe(0);
    expect(internal.requests).toEqual([]);
    // The public site was crawled: its robots.txt, its page, its /sitemap.xml probe, each redirect once, nothing else.
    expect(linkingPaths().sort()).toEqual(["/", "/robots.txt", "/sitemap.xml", ...redirects].sort());
    // The host whose robots.txt points inside: only that robots.txt, none of its pages.
    expect(robotsWeb.requestsTo(s.hosts.robots).map((r) => r.path)).toEqual(["/robots.txt"]);
    // Nothing else reached any public web (through the proxy, a literal address would show up here).
    const logged = s.webs.flatMap((w) => w.requests.map((r) => r.host));
    expect([...new Set(logged)].sort()).toEqual([...new Set([s.hosts.linking, s.hosts.robots])].sort());

    // Refusals are counted by reason, and each literal seed was named on stderr.
    const refused = Object.keys(summary.counters).filter((k) => k.startsWith("admission.refused."));
    for (const reason of ["loopback", "metadata", "private", "localhost", "local-name", "single-label", "this-network", "link-local"]) {
      expect(refused).toContain(`admission.refused.${reason}`);
    }
    expect(exit.stderr).toContain(`seed rejected (argument): http://0x7f000002:${internal.port}/: refused-address: loopback: `);
    expect(exit.stderr).toContain(
      "seed rejected (argument): http://169.254.169.254/latest/meta-data/iam/security-credentials/: refused-address: metadata",
    );
  }, 90_000);
});
