import { describe, expect, test } from "bun:test";
import { FetcherChoice, liveFetchers } from "./fetcher-choice.ts";

const keys = Array.from({ length: 20_000 }, (_, i) => `host-${i}.example:443`);

function owners(choice: FetcherChoice): Map<string, string | undefined> {
  return new Map(keys.map((k) => [k, choice.of(k)]));
}

describe("fetcher choice", () => {
  test("fetcher choice - every frontier node picks the same fetch node for a key, whatever order it lists them in", () => {
    const a = new FetcherChoice(["f-1", "f-2", "f-3"]);
    const b = new FetcherChoice(["f-3", "f-1", "f-2", "f-1"]);
    expect(b.nodes).toEqual(["f-1", "f-2", "f-3"]);
    for (const k of keys.slice(0, 2_000)) expect(b.of(k)).toBe(a.of(k));
  });

  test("fetcher choice - hosts spread evenly over the fetch nodes", () => {
    const choice = new FetcherChoice(["f-1", "f-2", "f-3", "f-4"]);
    const count = new Map<string, number>();
    for (const k of keys) count.set(choice.of(k)!, (count.get(choice.of(k)!) ?? 0) + 1);
    expect(count.size).toBe(4);
    // 5,000 each on average; a binomial spread of 20,000 keys stays within +-5 % of it by far.
    for (const n of count.values()) expect(Math.abs(n - 5_000)).toBeLessThan(250);
  });

  test("fetcher choice - a node leaving moves only its own hosts; a node joining takes only the hosts it now wins", () => {
    const three = owners(new FetcherChoice(["f-1", "f-2", "f-3"]));
    const two = owners(new FetcherChoice(["f-1", "f-3"]));
    for (const k of keys) if (three.get(k) !== "f-2") expect(two.get(k)).toBe(three.get(k));
    const four = owners(new FetcherChoice(["f-1", "f-2", "f-3", "f-4"]));
    let moved = 0;
    for (const k of keys) {
      if (four.get(k) === three.get(k)) continue;
      expect(four.get(k)).toBe("f-4");
      moved++;
    }
    // About a quarter of the hosts go to the new node.
    expect(moved / keys.length).toBeGreaterThan(0.22);
    expect(moved / keys.length).toBeLessThan(0.28);
  });

  test("fetcher choice - with no node there is no choice, with one node it takes everything", () => {
    expect(new FetcherChoice([]).of("a.example")).toBeUndefined();
    expect(new FetcherChoice(["only"]).of("a.example")).toBe("only");
  });

  test("fetcher choice - live fetch nodes are the region's fetchers that are not draining, not in local trouble, and beat within the staleness", () => {
    const now = 100_000;
    const records = [
      { id: "fresh", role: "fetcher", region: "us", status: "active", heartbeatAt: now - 1_000 },
      { id: "silent", role: "fetcher", region: "us", status: "active", heartbeatAt: now - 10_001 },
      { id: "leaving", role: "fetcher", region: "us", status: "draining", heartbeatAt: now },
      { id: "elsewhere", role: "fetcher", region: "eu", status: "active", heartbeatAt: now },
      { id: "frontier", role: "frontier", region: "us", status: "active", heartbeatAt: now },
      { id: "edge", role: "fetcher", region: "us", status: "active", heartbeatAt: now - 10_000 },
      { id: "cut-off", role: "fetcher", region: "us", status: "active", heartbeatAt: now, gauges: { localTrouble: 1 } },
      { id: "recovered", role: "fetcher", region: "us", status: "active", heartbeatAt: now, gauges: { localTrouble: 0 } },
    ] as const;
    expect(liveFetchers(records, "us", now, 10_000)).toEqual(["fresh", "edge", "recovered"]);
  });
});
