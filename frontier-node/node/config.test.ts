import { expect, test } from "bun:test";
import { checkToken } from "../../core/cluster/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import { FrontierNodeConfigError, frontierNodeUsage, generateNodeId, resolveFrontierNodeConfig } from "./config.ts";

test("config - the defaults make a loopback node of the default region with 64 partitions and credit 512", () => {
  const { config, policy, rules, partitionsGiven } = resolveFrontierNodeConfig([], {});
  expect(config).toMatchObject({
    nodeId: "",
    region: "default",
    natsUrls: ["nats://127.0.0.1:4222"],
    redisUrl: "",
    grpcListen: "127.0.0.1:0",
    partitions: 64,
    credit: 512,
    heartbeatIntervalMs: 2_000,
    confirmAllSeen: false,
  });
  expect(policy).toEqual(DEFAULT_POLICY);
  expect(rules.defaultRegion).toBe("default");
  expect(partitionsGiven).toBe(false);
});

test("config - flags win over env vars, policy flags and env vars pass through to the crawl policy", () => {
  const { config, policy, partitionsGiven } = resolveFrontierNodeConfig(
    ["--node-id", "f1", "--region=eu", "--credit", "32", "--confirm-all-seen", "--min-gap", "2s", "--partitions", "16"],
    {
      CRAWL_REGION: "us",
      CRAWL_REDIS_URL: "redis://127.0.0.1:6379",
      CRAWL_HEARTBEAT_INTERVAL: "500ms",
      CRAWL_MAX_DEPTH: "7",
      CRAWL_NATS_URL: "nats://a:1, nats://b:2",
    },
  );
  expect(config).toMatchObject({
    nodeId: "f1",
    region: "eu",
    credit: 32,
    confirmAllSeen: true,
    redisUrl: "redis://127.0.0.1:6379",
    heartbeatIntervalMs: 500,
    partitions: 16,
  });
  expect(config.natsUrls).toEqual(["nats://a:1", "nats://b:2"]);
  expect(policy.minGapMs).toBe(2_000);
  expect(policy.maxDepth).toBe(7);
  expect(partitionsGiven).toBe(true);
});

test("config - every bad value is reported at once, naming where it came from", () => {
  let error: unknown;
  try {
    resolveFrontierNodeConfig(["--node-id", "Bad_Id", "--credit", "0", "--grpc-listen", "nowhere", "--bogus", "1", "--min-gap", "soon"], {
      CRAWL_REDIS_URL: "http://x",
    });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(FrontierNodeConfigError);
  const problems = (error as FrontierNodeConfigError).problems.join("\n");
  expect(problems).toContain('unknown argument "--bogus"');
  expect(problems).toContain("nodeId:");
  expect(problems).toContain("credit: must be between 1 and");
  expect(problems).toContain(
    'grpcListen: must be host:port (port 0 picks a free one), got "nowhere" (from flag --grpc-listen = "nowhere")',
  );
  expect(problems).toContain("redisUrl:");
  expect(problems).toContain("minGapMs");
});

test("config - a generated node id is a valid token built from the host name", () => {
  const id = generateNodeId("Build_Box.example.COM", () => 0.5);
  expect(id).toMatch(/^frontier-build-box-example-com-[a-z0-9]{6}$/);
  expect(checkToken("node id", id)).toBe(id);
  expect(generateNodeId("", () => 0)).toBe("frontier-local-000000");
});

test("config - the usage lists every flag with its env var, and the policy flags", () => {
  const usage = frontierNodeUsage();
  for (const flag of [
    "--node-id",
    "--region",
    "--nats-url",
    "--redis-url",
    "--data-dir",
    "--grpc-listen",
    "--http-listen",
    "--partitions",
    "--credit",
    "--heartbeat-interval",
    "--min-gap",
    "--fetch-lease",
  ]) {
    expect(usage).toContain(flag);
  }
  expect(usage).toContain("env CRAWL_CREDIT");
});
