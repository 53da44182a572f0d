import { describe, expect, test } from "bun:test";
import { COORDINATOR_FIELDS, CoordinatorConfigError, coordinatorUsage, resolveCoordinatorConfig } from "./config.ts";

const TOKEN = "a-very-secret-token-1234";

describe("coordinator config", () => {
  test("config - defaults match the design: 64 partitions, 2 s heartbeat, 10 s death timeout", () => {
    const { config, rules, tokenGenerated } = resolveCoordinatorConfig([], {}, () => "generated-token-0000");
    expect(config).toMatchObject({ partitions: 64, heartbeatIntervalMs: 2_000, deathTimeoutMs: 10_000, defaultRegion: "default" });
    expect(config.nodeId).toMatch(/^coordinator-/);
    expect(rules).toEqual({ defaultRegion: "default", rules: [] });
    expect(tokenGenerated).toBe(true);
    expect(config.adminTokens).toEqual(["generated-token-0000"]);
    expect(config.metricsTokens).toEqual([]);
  });

  test("config - a flag beats its env var, which beats the default", () => {
    const env = {
      CRAWL_PARTITIONS: "128",
      CRAWL_HEARTBEAT_INTERVAL: "1s",
      CRAWL_ADMIN_TOKEN: TOKEN,
      CRAWL_NATS_URL: "nats://a:4222,nats://b:4222",
    };
    const { config, tokenGenerated } = resolveCoordinatorConfig(
      ["--partitions", "32", "--region-rules=eu=.de,.fr", "--default-region", "us"],
      env,
    );
    expect(config.partitions).toBe(32);
    expect(config.heartbeatIntervalMs).toBe(1_000);
    expect(config.natsUrls).toEqual(["nats://a:4222", "nats://b:4222"]);
    expect(config.adminTokens).toEqual([TOKEN]);
    expect(tokenGenerated).toBe(false);
  });

  test("config - every bad value is reported at once, naming where it came from", () => {
    let error: unknown;
    try {
      resolveCoordinatorConfig(["--partitions", "zero", "--grpc-listen", "nowhere", "--bogus"], { CRAWL_DEATH_TIMEOUT: "soon" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CoordinatorConfigError);
    const problems = (error as CoordinatorConfigError).problems.join("\n");
    expect(problems).toContain('unknown argument "--bogus"');
    expect(problems).toContain("partitions:");
    expect(problems).toContain("grpcListen: must be host:port");
    expect(problems).toContain("(from env CRAWL_DEATH_TIMEOUT)");
  });

  test("config - the death timeout must outlast two heartbeats and the lease one", () => {
    expect(() =>
      resolveCoordinatorConfig(["--heartbeat-interval", "5s", "--death-timeout", "8s", "--lease-ttl", "4s"], { CRAWL_ADMIN_TOKEN: TOKEN }),
    ).toThrow(/two heartbeat intervals[\s\S]*longer than the heartbeat interval/);
  });

  test("config - bad region rules and short tokens are refused", () => {
    expect(() => resolveCoordinatorConfig(["--region-rules", "EU=.de"], {})).toThrow(/regionRules/);
    expect(() => resolveCoordinatorConfig(["--admin-token", "short"], {})).toThrow(/adminTokens/);
    expect(() => resolveCoordinatorConfig(["--admin-token", `${TOKEN},short`], {})).toThrow(/adminTokens/);
    expect(() => resolveCoordinatorConfig(["--metrics-token", "short"], {})).toThrow(/metricsTokens/);
  });

  test("config - two admin tokens are valid at once (rotation), and a metrics token is its own setting", () => {
    const next = "the-next-secret-token-5678";
    const { config, tokenGenerated } = resolveCoordinatorConfig(["--admin-token", `${next},${TOKEN}`], {
      CRAWL_METRICS_TOKEN: "scraper-token-0123456789",
    });
    expect(config.adminTokens).toEqual([next, TOKEN]);
    expect(config.metricsTokens).toEqual(["scraper-token-0123456789"]);
    expect(tokenGenerated).toBe(false);
  });

  test("config - the address rules of the crawl policy are read, to refuse seeds", () => {
    const { policy } = resolveCoordinatorConfig(["--allow-private-addresses", "--deny-hosts", "corp.example.com"], {
      CRAWL_ADMIN_TOKEN: TOKEN,
      CRAWL_DENY_ADDRESSES: "203.0.113.0/24",
    });
    expect(policy).toMatchObject({ allowPrivateAddresses: true, denyHosts: ["corp.example.com"], denyAddresses: ["203.0.113.0/24"] });
    expect(() => resolveCoordinatorConfig(["--deny-addresses", "nope"], { CRAWL_ADMIN_TOKEN: TOKEN })).toThrow(/denyAddresses/);
  });

  test("config - the usage lists every field with its flag and env var", () => {
    const usage = coordinatorUsage();
    for (const f of COORDINATOR_FIELDS) {
      expect(usage).toContain(f.flag);
      expect(usage).toContain(f.env);
    }
  });
});
