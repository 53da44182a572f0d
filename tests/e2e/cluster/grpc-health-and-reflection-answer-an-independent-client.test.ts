/**
 * The gRPC conventions operators' tools rely on, checked with a client that shares nothing with our code:
 * tests/support/grpc_probe.py, on Debian's python3-grpcio, with the standard health and reflection messages
 * compiled from Debian's grpc-proto. Against a real coordinator (leader and standby) and real frontier
 * nodes: Check says SERVING once a node is settled, NOT_FOUND for a service it does not serve; Watch streams
 * SERVING then NOT_SERVING when a frontier node is drained; a standby coordinator says NOT_SERVING for
 * CoordinatorService until it takes the lease; reflection lists the services and describes their methods.
 *
 * A missing Python package fails the test (the probe exits 2 and says which one): CI installs them.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { PARTITIONS, REGION, spawnProc, useCluster, waitUntil, type Proc } from "./harness.ts";
import { REPO_ROOT } from "./processes.ts";

const cluster = useCluster();

// Debian's interpreter on purpose: a python3 earlier on PATH (pyenv, a venv) does not see Debian's packages.
const PYTHON = "/usr/bin/python3";
const PROBE = join(REPO_ROOT, "tests", "support", "grpc_probe.py");
const COORDINATOR = "crawler.coordinator.v1.CoordinatorService";
const FRONTIER = "crawler.frontier.v1.FrontierService";
const STANDARD = ["grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"];

/** Runs the probe to completion; its JSON lines, or a failure with everything it said. */
async function probe(...args: string[]): Promise<unknown[]> {
  const p = Bun.spawn([PYTHON, PROBE, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => p.kill("SIGKILL"), 30_000);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`grpc_probe.py ${args.join(" ")} exited ${code}\n${err}${out}`);
  return out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as unknown);
}

const check = async (address: string, service: string) => (await probe("check", address, service))[0];

async function waitForStatus(address: string, service: string, want: string, procs: Proc[]): Promise<void> {
  let last: unknown;
  await waitUntil(async () => (last = await check(address, service)) === want, {
    timeoutMs: 30_000,
    intervalMs: 250,
    what: `${service || '""'} at ${address} to be ${want}`,
    detail: () => `last answer: ${JSON.stringify(last)}`,
    procs,
  });
}

describe("cluster: gRPC health and reflection", () => {
  test("an independent client sees health follow the nodes' state and lists and describes every service", async () => {
    const web = await cluster.web({ hosts: 1, pagesPerHost: 1 });
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", "frontier-2"],
      fetchers: [],
      coordinatorArgs: ["--lease-ttl", "3s"],
    });
    const leader = roles.coordinator;
    const procs = roles.procs();
    const nodes = await leader.nodes();
    const grpcOf = (id: string) => nodes.find((n) => n.id === id)!.grpcAddress;
    const [f1, f2] = [grpcOf("frontier-1"), grpcOf("frontier-2")];

    // Settled nodes serve, for each service name they serve and for the server as a whole.
    await waitForStatus(leader.info.grpcAddress, COORDINATOR, "SERVING", procs);
    expect(await check(leader.info.grpcAddress, "")).toBe("SERVING");
    for (const address of [f1, f2]) {
      await waitForStatus(address, FRONTIER, "SERVING", procs);
      expect(await check(address, "")).toBe("SERVING");
      expect(await check(address, COORDINATOR)).toEqual({ code: "NOT_FOUND" });
    }

    // Reflection, in both protocol versions: the services, then what grpcurl's describe needs.
    for (const version of ["v1", "v1alpha"]) {
      expect(await probe("list", leader.info.grpcAddress, version)).toEqual([[COORDINATOR, ...STANDARD]]);
      expect(await probe("list", f1, version)).toEqual([[FRONTIER, ...STANDARD]]);
    }
    const [coordinatorMethods] = (await probe("describe", leader.info.grpcAddress, COORDINATOR)) as Array<Record<string, string[]>>;
    expect(coordinatorMethods!.GetStatus).toEqual(["crawler.coordinator.v1.GetStatusRequest", "crawler.coordinator.v1.GetStatusResponse"]);
    expect(Object.keys(coordinatorMethods!)).toContain("DrainNode");
    const [frontierMethods] = (await probe("describe", f1, FRONTIER)) as Array<Record<string, string[]>>;
    expect(frontierMethods!.Handoff).toEqual(["crawler.frontier.v1.HandoffRequest", "crawler.frontier.v1.HandoffResponse"]);

    // Watch a frontier node while it is drained: SERVING at once, NOT_SERVING when the drain starts.
    const watch = Bun.spawn([PYTHON, PROBE, "watch", f2, FRONTIER, "2"], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const killWatch = setTimeout(() => watch.kill("SIGKILL"), 60_000);
    const lines: string[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let pending = "";
      for await (const chunk of watch.stdout) {
        pending += decoder.decode(chunk, { stream: true });
        const parts = pending.split("\n");
        pending = parts.pop() ?? "";
        for (const item of parts.filter((l) => l.trim() !== "")) lines.push(item);
      }
    })();
    await waitUntil(() => lines.length >= 1, { timeoutMs: 20_000, what: "the first Watch answer", detail: () => lines.join("\n") });
    expect(lines[0]).toBe('"SERVING"');
    const drained = await leader.crawlctl(["node", "drain", "frontier-2"]);
    expect(drained.code).toBe(0);
    const [watchExit, watchErr] = await Promise.all([watch.exited, new Response(watch.stderr).text(), reading]);
    clearTimeout(killWatch);
    expect({ exit: watchExit, lines, stderr: watchErr }).toEqual({ exit: 0, lines: ['"SERVING"', '"NOT_SERVING"'], stderr: "" });
    expect(await check(f2, FRONTIER)).toBe("NOT_SERVING");
    expect(await check(f2, "")).toBe("NOT_SERVING");
    // The partitions go to frontier-1, which stays SERVING once they have landed.
    await leader.waitForSettledRing(["frontier-1"]);
    await waitForStatus(f1, FRONTIER, "SERVING", procs);

    // A standby coordinator says NOT_SERVING for CoordinatorService (a load balancer sends crawlctl to the
    // leader), and turns SERVING once the leader stops and it holds the lease.
    const standby = spawnProc(
      "coordinator-2",
      [
        "bun",
        "coordinator/main.ts",
        "--node-id",
        "coordinator-2",
        "--nats-url",
        roles.services.nats.url,
        "--partitions",
        String(PARTITIONS),
        "--default-region",
        REGION,
        "--grpc-listen",
        "127.0.0.1:0",
        "--http-listen",
        "127.0.0.1:0",
        "--admin-token",
        "standby-token-0123456789",
        "--lease-ttl",
        "3s",
      ],
      { env: { CRAWL_HEARTBEAT_INTERVAL: "500ms" } },
    );
    try {
      let standbyGrpc = "";
      await waitUntil(
        () => {
          const m = /^\{.*"grpcAddress":"([^"]+)".*\}$/m.exec(standby.output());
          standbyGrpc = m?.[1] ?? "";
          return standbyGrpc !== "";
        },
        { timeoutMs: 20_000, what: "the standby coordinator to print its addresses", procs: [standby] },
      );
      // Its record in the cluster state shows it has been through its loop at least once.
      await leader.waitForNode("coordinator-2", { procs: [standby] });
      expect(await check(standbyGrpc, COORDINATOR)).toBe("NOT_SERVING");
      expect(await check(standbyGrpc, "")).toBe("NOT_SERVING");
      expect(await check(leader.info.grpcAddress, COORDINATOR)).toBe("SERVING");

      await leader.proc.stop(15_000);
      await waitForStatus(standbyGrpc, COORDINATOR, "SERVING", [standby]);
    } finally {
      await standby.stop(5_000);
    }
  }, 150_000);
});
