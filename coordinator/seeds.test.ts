import { describe, expect, test } from "bun:test";
import { MemoryBus } from "../adapters/memory/index.ts";
import { InvalidArgumentError, UnavailableError } from "../core/errors/index.ts";
import { parseRegionRules } from "../core/cluster/index.ts";
import type { DiscoveredUrl } from "../core/model/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { SeedPublisher } from "./seeds.ts";
import { P } from "./test-support.ts";

const rules = parseRegionRules("eu=.de", "us");

/** Everything published to one partition's consumer, acked as it arrives. */
function collect(bus: MemoryBus, region: string, host: string): DiscoveredUrl[] {
  const got: DiscoveredUrl[] = [];
  bus.consumeUrls(region, partitionOf(host, P), async (d) => {
    for (const item of d.data) got.push(item);
    await d.ack();
  });
  return got;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe("seeds", () => {
  test("seeds - publishes normalized seeds to their region's partition and rejects the rest with reasons", async () => {
    const bus = new MemoryBus();
    await bus.ensureRegion("us", P);
    await bus.ensureRegion("eu", P);
    const us = collect(bus, "us", "example.com");
    const eu = collect(bus, "eu", "beispiel.de");
    const seeds = new SeedPublisher({ bus, rules, partitions: P, maxUrls: 10 });
    const outcome = await seeds.add([
      "HTTP://Example.com:80/a?b=2&a=1#frag",
      "https://beispiel.de/",
      "ftp://x.org/",
      "http://example.com/a?a=1&b=2",
    ]);
    expect(outcome.accepted).toBe(2);
    expect(outcome.rejected).toEqual([
      { url: "ftp://x.org/", reason: "unsupported-scheme: ftp" },
      { url: "http://example.com/a?a=1&b=2", reason: expect.stringMatching(/^duplicate/) },
    ]);
    await until(() => us.length > 0 && eu.length > 0);
    expect(us).toEqual([{ url: "http://example.com/a?a=1&b=2", host: "example.com", depth: 0, redirectHops: 0, isSeed: true }]);
    expect(eu.map((u) => u.url)).toEqual(["https://beispiel.de/"]);
    await bus.close();
  });

  test("seeds - a feed seed is published as a feed to read, vouched for by its origin; pages and feeds count together", async () => {
    const bus = new MemoryBus();
    await bus.ensureRegion("us", P);
    const got = collect(bus, "us", "news.example");
    const seeds = new SeedPublisher({ bus, rules, partitions: P, maxUrls: 3 });
    const outcome = await seeds.add(["http://news.example/"], 0, ["http://News.example/feed.xml", "http://news.example/"]);
    expect(outcome).toEqual({ accepted: 2, rejected: [{ url: "http://news.example/", reason: expect.stringMatching(/^duplicate/) }] });
    await until(() => got.length >= 2);
    expect(got).toEqual([
      { url: "http://news.example/", host: "news.example", depth: 0, redirectHops: 0, isSeed: true },
      {
        url: "http://news.example/feed.xml",
        host: "news.example",
        depth: 0,
        redirectHops: 0,
        isSeed: true,
        sitemap: { grants: ["http://news.example/"], feed: true },
      },
    ]);
    await expect(seeds.add(["http://a.example/", "http://b.example/"], 0, ["http://c.example/f", "http://d.example/f"])).rejects.toThrow(
      "at most 3 URLs per request (urls and feeds together), got 4",
    );
    await bus.close();
  });

  test("seeds - an empty or oversized request is invalid", async () => {
    const bus = new MemoryBus();
    const seeds = new SeedPublisher({ bus, rules, partitions: P, maxUrls: 2 });
    await expect(seeds.add([])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(seeds.add(["http://a/", "http://b/", "http://c/"])).rejects.toBeInstanceOf(InvalidArgumentError);
    await bus.close();
  });

  test("seeds - a bus that refuses the publish is unavailable, and says a retry is safe", async () => {
    const bus = new MemoryBus(); // no ensureRegion: publishes reject
    const seeds = new SeedPublisher({ bus, rules, partitions: P, maxUrls: 10 });
    const error = await seeds.add(["http://example.com/"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toContain("retrying the request is safe");
    await bus.close();
  });
});
