import { describe, expect, test } from "bun:test";
import { regionOf } from "../core/cluster/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import { describeFetchNodeConfig, FetchNodeConfigError, fetchNodeUsage, loadFetchNodeConfig } from "./config.ts";

const fixedId = () => "fetch-test";

describe("fetch node config", () => {
  test("config - defaults need no flags and no env", () => {
    const c = loadFetchNodeConfig([], {}, fixedId);
    expect(c).toMatchObject({
      nodeId: "fetch-test",
      region: "default",
      natsServers: ["nats://127.0.0.1:4222"],
      redisUrl: undefined,
      warcDir: "warc/fetch-test",
      http: { hostname: "127.0.0.1", port: 0 },
      concurrency: 256,
      proxyUrl: undefined,
      heartbeatMs: 2_000,
      claimTtlMs: 10 * 60_000,
      partitions: 64,
    });
    expect(c.policy).toEqual(DEFAULT_POLICY);
    expect(c.regionRules.defaultRegion).toBe("default");
  });

  test("config - a flag beats its env var, which beats the default", () => {
    const env = {
      CRAWL_FETCH_CONCURRENCY: "32",
      CRAWL_NATS_URL: "nats://10.0.0.1:4222,nats://10.0.0.2:4222",
      CRAWL_REGION: "eu",
      CRAWL_REGION_RULES: "eu=.de",
    };
    const c = loadFetchNodeConfig(["--concurrency", "8", "--region=us", "--default-region", "us"], env, fixedId);
    expect(c.concurrency).toBe(8);
    expect(c.region).toBe("us");
    expect(c.natsServers).toEqual(["nats://10.0.0.1:4222", "nats://10.0.0.2:4222"]);
    expect(regionOf("shop.example.de", c.regionRules)).toBe("eu");
    expect(regionOf("example.com", c.regionRules)).toBe("us");
  });

  test("config - the rest of the settings read from flags", () => {
    const c = loadFetchNodeConfig(
      [
        "--node-id",
        "f-1",
        "--redis-url",
        "redis://127.0.0.1:6379",
        "--warc-dir",
        "/data/warc",
        "--http-listen",
        "0.0.0.0:9102",
        "--proxy",
        "http://proxy:3128",
        "--allow-private-addresses",
        "--heartbeat-interval",
        "500ms",
        "--stop-grace",
        "3s",
        "--nak-delay",
        "250ms",
        "--fetch-claim-ttl",
        "30m",
        "--partitions",
        "256",
        "--max-body",
        "1MiB",
        "--user-agent",
        "TestBot/1 (+http://x)",
      ],
      {},
    );
    expect(c).toMatchObject({
      nodeId: "f-1",
      redisUrl: "redis://127.0.0.1:6379",
      warcDir: "/data/warc",
      http: { hostname: "0.0.0.0", port: 9102 },
      proxyUrl: "http://proxy:3128",
      heartbeatMs: 500,
      stopGraceMs: 3_000,
      nakDelayMs: 250,
      claimTtlMs: 30 * 60_000,
      partitions: 256,
    });
    expect(c.policy.maxBodyBytes).toBe(1024 * 1024);
    expect(c.policy.userAgent).toBe("TestBot/1 (+http://x)");
    expect(c.policy.allowPrivateAddresses).toBe(true);
  });

  test("config - a switch reads true and false from env, and the proxy falls back to HTTP_PROXY", () => {
    expect(loadFetchNodeConfig([], { CRAWL_ALLOW_PRIVATE_ADDRESSES: "true" }, fixedId).policy.allowPrivateAddresses).toBe(true);
    expect(loadFetchNodeConfig([], { CRAWL_ALLOW_PRIVATE_ADDRESSES: "0" }, fixedId).policy.allowPrivateAddresses).toBe(false);
    expect(loadFetchNodeConfig([], { HTTP_PROXY: "http://p:1" }, fixedId).proxyUrl).toBe("http://p:1");
  });

  test("config - the address deny lists read from flags and env, and a bad entry is named", () => {
    const c = loadFetchNodeConfig(
      ["--deny-addresses", "203.0.113.0/24, fd00::/8", "--deny-hosts", "*.corp.example.com"],
      {
        CRAWL_ALLOW_ADDRESSES: "10.1.2.3",
      },
      fixedId,
    );
    expect(c.policy.denyAddresses).toEqual(["203.0.113.0/24", "fd00::/8"]);
    expect(c.policy.denyHosts).toEqual(["corp.example.com"]);
    expect(c.policy.allowAddresses).toEqual(["10.1.2.3/32"]);
    expect(() => loadFetchNodeConfig(["--deny-addresses", "10.0.0.0/99"], {}, fixedId)).toThrow(/denyAddresses.*10\.0\.0\.0\/99/);
  });

  test("config - every bad value is reported at once, naming where it came from", () => {
    let error: unknown;
    try {
      loadFetchNodeConfig(
        [
          "--node-id",
          "Bad_Id",
          "--concurrency",
          "0",
          "--nats-url",
          "http://x",
          "--http-listen",
          "nope",
          "--frobnicate",
          "--min-gap",
          "soon",
        ],
        { CRAWL_PARTITIONS: "many" },
        fixedId,
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FetchNodeConfigError);
    const problems = (error as FetchNodeConfigError).problems.join("\n");
    expect(problems).toContain("unknown option --frobnicate");
    expect(problems).toMatch(/nodeId: .*a-z.*flag --node-id/);
    expect(problems).toMatch(/concurrency: must be at least 1/);
    expect(problems).toMatch(/natsUrls: must be nats:\/\/host:port URLs/);
    expect(problems).toMatch(/httpListen: must be host:port/);
    expect(problems).toMatch(/partitions: .*env CRAWL_PARTITIONS/);
    expect(problems).toMatch(/minGapMs/);
  });

  test("config - a region the rules never name is refused, and so are malformed rules", () => {
    expect(() => loadFetchNodeConfig(["--region", "apac"], {}, fixedId)).toThrow(/neither the default region nor named/);
    expect(() => loadFetchNodeConfig(["--region-rules", "eu"], {}, fixedId)).toThrow(/region=/);
    expect(() => loadFetchNodeConfig(["--concurrency"], {}, fixedId)).toThrow(/needs a value/);
  });

  test("config - usage lists every setting with its env var, and the description masks credentials", () => {
    const usage = fetchNodeUsage();
    for (const name of ["--node-id", "CRAWL_NATS_URL", "--region-rules", "CRAWL_DEFAULT_REGION", "--partitions", "--user-agent"])
      expect(usage).toContain(name);
    const c = loadFetchNodeConfig(["--redis-url", "redis://user:secret@127.0.0.1:6379"], {}, fixedId);
    expect(describeFetchNodeConfig(c).redis).toBe("redis://***@127.0.0.1:6379");
  });
});
