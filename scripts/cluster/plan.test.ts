import { expect, test } from "bun:test";
import { natsServerEnv, planProcesses, portNames } from "./plan.ts";

type Shape = { regions: string[]; coordinators: number; frontiers: number; fetchers: number };

/** The plans of `cluster up` for `shape`, with ports numbered from `firstPort` and the other options as given. */
function plansOf(shape: Shape, firstPort: number, options: Partial<Parameters<typeof planProcesses>[0]> = {}) {
  let next = firstPort;
  const ports = Object.fromEntries(
    Object.entries(portNames(shape)).map(([id, names]) => [id, Object.fromEntries(names.map((n) => [n, next++]))]),
  );
  return planProcesses({
    ...shape,
    dir: "/tmp/cluster-plan-test",
    partitions: 8,
    regionRules: "",
    proxyUrl: undefined,
    allowPrivateAddresses: false,
    hostsFile: "",
    deno: false,
    token: "t",
    frontierArgs: [],
    ports,
    ...options,
  });
}

test("cluster up - every crawler process keeps one copy of each stream, bucket and replicated state: its one nats-server per region keeps no more", () => {
  const plans = plansOf({ regions: ["r1", "r2"], coordinators: 2, frontiers: 2, fetchers: 2 }, 20_000, { regionRules: "r2=.example" });
  const crawler = plans.filter((p) => p.role === "coordinator" || p.role === "frontier" || p.role === "fetch");
  expect(crawler.map((p) => p.role).sort()).toEqual(["coordinator", "coordinator", "fetch", "fetch", "frontier", "frontier"]);
  for (const p of crawler) expect(p.env["CRAWL_NATS_REPLICAS"]).toBe("1");
  // The allocator's settings, as `bun run crawl` has them (kit/allocator-env.ts), unless the shell set them.
  for (const p of crawler) expect(p.env["MIMALLOC_PURGE_DELAY"]).toBe(process.env["MIMALLOC_PURGE_DELAY"] === undefined ? "-1" : undefined);
  const heapGrowth = "BUN_JSC_heapGrowthMaxIncrease";
  for (const p of crawler) expect(p.env[heapGrowth]).toBe(process.env[heapGrowth] === undefined ? "1" : undefined);
  // Only nats-server is a Go program; the crawler's processes keep their runtime's own threads.
  for (const p of plans) expect(p.env["GOMAXPROCS"]).toBe(p.role === "nats" && !process.env["GOMAXPROCS"] ? "1" : undefined);
});

test("cluster up - nats-server runs on one scheduler thread on the shared box, unless the operator set GOMAXPROCS", () => {
  expect(natsServerEnv({})).toEqual({ GOMAXPROCS: "1" });
  expect(natsServerEnv({ GOMAXPROCS: "" })).toEqual({ GOMAXPROCS: "1" });
  // Kept as the operator gave it: the supervisor starts every process in cluster up's own environment.
  expect(natsServerEnv({ GOMAXPROCS: "4" })).toEqual({});
});

test("cluster up --hosts-file - every fetch node (on Deno too, allowed to read it) and every frontier node gets it; the coordinator resolves no names", () => {
  const shape = { regions: ["r1"], coordinators: 1, frontiers: 2, fetchers: 2 };
  const hostsFile = "/tmp/cluster-plan-test/hosts";
  const plans = plansOf(shape, 21_000, { allowPrivateAddresses: true, hostsFile, deno: true, frontierArgs: ["--min-gap", "1s"] });
  const flagValue = (args: readonly string[]) => {
    const at = args.indexOf("--hosts-file");
    return at < 0 ? undefined : args[at + 1];
  };
  const byId = Object.fromEntries(plans.map((p) => [p.id, p]));
  for (const id of ["fetch-1", "fetch-2", "frontier-1", "frontier-2"]) expect(flagValue(byId[id]!.args)).toBe(hostsFile);
  expect(flagValue(byId["coordinator-1"]!.args)).toBeUndefined();
  // fetch-1 runs on Deno, which reads no file it was not allowed to.
  expect(byId["fetch-1"]!.command).toBe("deno");
  expect(
    byId["fetch-1"]!.args.find((a) => a.startsWith("--allow-read="))!
      .split("=")[1]!
      .split(","),
  ).toContain(hostsFile);
  // Without it, no role is given one.
  const none = plansOf(shape, 21_000);
  for (const p of none) expect(flagValue(p.args)).toBeUndefined();
});
