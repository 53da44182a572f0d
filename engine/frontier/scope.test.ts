/**
 * Scope and filters at admission: every URL the scope or a filter leaves out is refused before the
 * seen-set, counted by rule, and explained; the seeds' hosts are the scope's roots, kept in the store (a
 * resumed crawl keeps its scope) and shared first when a cluster shares them.
 */
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

function setup(
  policy: Partial<PolicyConfig> = {},
  store = FrontierStore.open(":memory:"),
  sharedRoots?: { add(hosts: readonly string[]): Promise<void> },
) {
  let n = 0;
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, ...policy },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => Date.UTC(2026, 10, 29),
    newTaskId: () => `t${n++}`,
    ...(sharedRoots ? { sharedRoots } : {}),
  });
  return { frontier, store };
}

const link = (u: string, depth = 1): DiscoveredUrl => ({ url: u, host: hostKeyOf(u), depth, redirectHops: 0 });
const seed = (u: string): DiscoveredUrl => ({ url: u, host: hostKeyOf(u), depth: 0, redirectHops: 0 });
const rejected = (f: Frontier) =>
  Object.fromEntries(Object.entries(f.counters.toJSON()).filter(([name]) => name.startsWith("admission.rejected.")));

describe("frontier scope", () => {
  test("--scope domain keeps links on the seeds' registrable domains; every refusal is counted by its rule and explained", async () => {
    const { frontier } = setup({ scope: "domain", maxDepth: 3, denyUrls: ["*/print/*"] });
    await frontier.addSeeds([seed("http://www.shop.test/")]);
    const added = await frontier.admit([
      link("http://blog.shop.test/post"),
      link("http://outside.test/"),
      link("http://www.shop.test/a.zip"),
      link("http://www.shop.test/deep", 4),
      link("http://www.shop.test/print/1"),
      link("http://www.shop.test/fine"),
    ]);
    expect(added).toBe(2);
    expect(rejected(frontier)).toEqual({
      "admission.rejected.scope": 1,
      "admission.rejected.extension": 1,
      "admission.rejected.depth": 1,
      "admission.rejected.url-denied": 1,
    });
    expect(frontier.explainUrl("http://outside.test/", "outside.test").scopeRejection).toBe(
      "scope: domain outside.test is not the domain of a seed (--scope domain)",
    );
    expect(frontier.explainUrl("http://www.shop.test/a.zip", "www.shop.test").scopeRejection).toBe(
      "extension: .zip is on the extension deny-list",
    );
    expect(frontier.explainUrl("http://www.shop.test/fine", "www.shop.test").scopeRejection).toBe("");
  });

  test("the seeds' hosts are kept in the store: a resumed crawl without seeds keeps its scope", async () => {
    const path = `${process.env.TMPDIR ?? "/tmp"}/scope-roots-${process.pid}-${Math.random()}.sqlite`;
    try {
      const first = setup({ scope: "host" }, FrontierStore.open(path));
      await first.frontier.addSeeds([seed("http://a.test/")]);
      first.store.close();
      const again = setup({ scope: "host" }, FrontierStore.open(path));
      expect(await again.frontier.admit([link("http://a.test/next"), link("http://b.test/")])).toBe(1);
      expect(rejected(again.frontier)).toEqual({ "admission.rejected.scope": 1 });
      again.store.close();
    } finally {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    }
  });

  test("in a cluster a seed's host is shared before the seed is queued, and roots other nodes share widen the scope", async () => {
    const shared: string[][] = [];
    let fail = true;
    const { frontier } = setup({ scope: "host" }, undefined, {
      add: async (hosts) => {
        if (fail) throw new Error("cluster state unavailable");
        shared.push([...hosts]);
      },
    });
    // The roots could not be shared: nothing is queued (the message is redelivered and admitted then).
    await expect(frontier.admit([{ ...seed("http://a.test/"), isSeed: true }])).rejects.toThrow("cluster state unavailable");
    expect(frontier.queued).toBe(0);
    fail = false;
    expect(
      await frontier.admit([
        { ...seed("http://a.test/"), isSeed: true },
        { ...seed("http://a.test/b"), isSeed: true },
      ]),
    ).toBe(2);
    expect(shared).toEqual([["a.test"]]);
    expect(await frontier.admit([link("http://b.test/")])).toBe(0);
    expect(frontier.addScopeRoots(["b.test"])).toEqual(["b.test"]);
    expect(await frontier.admit([link("http://b.test/")])).toBe(1);
  });
});
