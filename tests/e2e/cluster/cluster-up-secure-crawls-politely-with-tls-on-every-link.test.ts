/**
 * `cluster up --secure`: the whole local cluster with TLS and authentication on every link (NATS per-role
 * users over TLS, Redis's ACL user over TLS, gRPC mutual TLS, HTTPS admin API and probes; one fetch node
 * on Deno) crawls a small test web to the end with no politeness violation (the harness judges it after
 * the test too). crawlctl works given the CA cluster.json names and fails without it; the admin API does
 * not answer plain HTTP; NATS refuses a client with no user; no password is in any process's command
 * line. A frontier node started with a certificate of another CA stops at start (exit 1, naming the file
 * and the CA), and a gRPC caller holding one is refused by a frontier node that answers the cluster's own.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FrontierClient } from "../../../adapters/grpc/index.ts";
import { connectNats } from "../../../adapters/nats/index.ts";
import { makePki } from "../../support/secure-servers.ts";
import { gapPolicyOf } from "../politeness.ts";
import { fetchCounts, MIN_GAP_MS, missing, pageRequests, REGION, REPO_ROOT, requireDeno, useCluster, waitForIdle } from "./harness.ts";

const cluster = useCluster();

describe("cluster up --secure", () => {
  test("a secured local cluster crawls politely, crawlctl needs its CA, and a certificate of another CA is refused", async () => {
    requireDeno(); // one fetch node runs on Deno, reading its TLS files
    const web = await cluster.web({ hosts: 4, pagesPerHost: 12, linksPerPage: 6, pageBytes: 2000 });
    const seeds = Array.from({ length: 4 }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const c = await cluster.up({ web, secure: true });

    const info = c.file;
    expect(info.tlsCaFile).toBe(join(c.dir, "tls", "ca.pem"));
    expect(info.adminUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

    await c.seed(seeds);
    await waitForIdle(c, web, { timeoutMs: 90_000, procs: [c.proc] });
    expect(missing(expected.pages, fetchCounts(pageRequests(web)).keys())).toEqual([]);
    expect(web.violations(gapPolicyOf(["--min-gap", `${MIN_GAP_MS}ms`])).map((v) => v.message)).toEqual([]);
    const fetchers = (await c.nodes()).filter((n) => n.role === "fetcher");
    expect(fetchers.map((n) => n.runtime).sort()).toEqual(["bun", "deno"]);

    // crawlctl: with the CA it reads the status; without it the coordinator's certificate is not trusted.
    const status = await c.crawlctl(["status", "--json"]);
    expect({ code: status.code, pages: (JSON.parse(status.stdout) as { pagesFetched: number }).pagesFetched }).toEqual({
      code: 0,
      pages: (await c.stats()).pagesFetched,
    });
    expect((await c.crawlctl(["status"], { tlsCaFile: null })).code).not.toBe(0);

    // Plain text is not served: the admin API over http://, NATS with no user.
    const plainAdmin = info.adminUrl.replace("https://", "http://");
    const plain = await fetch(`${plainAdmin}/v1/stats`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => `answered ${r.status}`,
      () => "no answer",
    );
    expect(plain).toBe("no answer");
    const ca = readFileSync(info.tlsCaFile!, "utf8");
    const natsPort = info.processes.find((p) => p.id === `nats-${REGION}`)!.ports["client"]!;
    const anonymous = await connectNats(`nats://127.0.0.1:${natsPort}`, "anonymous", { maxReconnectAttempts: 0 }, { caPem: ca }).then(
      async (nc) => {
        await nc.close();
        return "connected";
      },
      (e: Error) => e.message,
    );
    expect(anonymous).toStartWith("NATS wants a user and password");

    // No secret in any command line (passwords and the Redis URL go in the environment).
    const secrets = JSON.parse(readFileSync(join(c.dir, "secrets.json"), "utf8")) as { nats: Record<string, string>; redis: string };
    const words = [...Object.values(secrets.nats), secrets.redis];
    const leaks = c
      .readFile()
      .processes.filter((p) => p.pid !== null)
      .flatMap((p) => {
        const argv = readFileSync(`/proc/${p.pid}/cmdline`, "utf8");
        return words.filter((w) => argv.includes(w)).map(() => p.id);
      });
    expect(leaks).toEqual([]);

    // A certificate of another CA: a node given one stops at start, saying which file and which CA...
    const other = await makePki(["frontier:frontier-9"]);
    try {
      const foreign = other.nodes["frontier-9"]!;
      const redisPort = info.processes.find((p) => p.id === `redis-${REGION}`)!.ports["redis"]!;
      const node = Bun.spawn([process.execPath, "frontier-node/main.ts"], {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env["PATH"] ?? "",
          CRAWL_LOG_FORMAT: "text",
          CRAWL_NODE_ID: "frontier-9",
          CRAWL_REGION: REGION,
          CRAWL_DEFAULT_REGION: REGION,
          CRAWL_DATA_DIR: join(c.dir, "frontier-9"),
          CRAWL_NATS_URL: `nats://127.0.0.1:${natsPort}`,
          CRAWL_NATS_USER: "frontier",
          CRAWL_NATS_PASSWORD: secrets.nats["frontier"]!,
          CRAWL_NATS_TLS_CA_FILE: info.tlsCaFile!,
          CRAWL_REDIS_URL: `rediss://crawler:${secrets.redis}@127.0.0.1:${redisPort}`,
          CRAWL_REDIS_TLS_CA_FILE: info.tlsCaFile!,
          CRAWL_GRPC_TLS_CA_FILE: info.tlsCaFile!,
          CRAWL_GRPC_TLS_CERT_FILE: foreign.certFile,
          CRAWL_GRPC_TLS_KEY_FILE: foreign.keyFile,
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      const killer = setTimeout(() => node.kill("SIGKILL"), 60_000);
      const [stderr, code] = await Promise.all([new Response(node.stderr).text(), node.exited]);
      clearTimeout(killer);
      const says = `CRAWL_GRPC_TLS_CERT_FILE ${foreign.certFile} is not signed by the CA in CRAWL_GRPC_TLS_CA_FILE ${info.tlsCaFile}`;
      expect({ code, says: stderr.includes(says) ? says : stderr }).toEqual({ code: 1, says });

      // ...and a caller holding one is refused by a frontier node, which answers the cluster's coordinator.
      const frontierGrpc = `127.0.0.1:${info.processes.find((p) => p.id === "frontier-1")!.ports["grpc"]}`;
      const tlsFiles = (id: string) => ({
        cert: readFileSync(join(c.dir, "tls", `${id}.pem`), "utf8"),
        key: readFileSync(join(c.dir, "tls", `${id}.key`), "utf8"),
      });
      const asForeign = new FrontierClient(frontierGrpc, {
        deadlineMs: 5_000,
        tls: { ca, cert: readFileSync(foreign.certFile, "utf8"), key: readFileSync(foreign.keyFile, "utf8") },
      });
      const asCoordinator = new FrontierClient(frontierGrpc, { deadlineMs: 5_000, tls: { ca, ...tlsFiles("coordinator-1") } });
      try {
        const refused = await asForeign.getStats().then(
          () => "answered",
          () => "refused",
        );
        const answered = await asCoordinator.getStats().then(
          () => "answered",
          (e: Error) => e.message,
        );
        expect({ foreign: refused, coordinator: answered }).toEqual({ foreign: "refused", coordinator: "answered" });
      } finally {
        asForeign.close();
        asCoordinator.close();
      }
    } finally {
      other.remove();
    }
  }, 180_000);
});
